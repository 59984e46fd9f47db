"""Writing and reading an ``arviz.InferenceData`` with bayesfair's metadata (private).

A result is saved as its InferenceData with one more attribute, ``bayesfair``:
a JSON text of the model, reference group, notes and settings
(:meth:`bayesfair.posterior.FairnessPosterior.to_netcdf`).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np

__all__ = ["read_result", "write_result"]


def _jsonable(v):
    return v.item() if isinstance(v, np.generic) else v


def write_result(idata, meta: dict, path) -> Path:
    """Save ``idata`` with ``meta`` (JSON) in its ``bayesfair`` attribute; ``idata`` is
    not changed (a new InferenceData over the same datasets is written)."""
    import arviz as az

    text = json.dumps(
        {
            k: ({s: _jsonable(v) for s, v in x.items()} if isinstance(x, dict) else _jsonable(x))
            for k, x in meta.items()
        }
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        saved = az.InferenceData(
            attrs={**idata.attrs, "bayesfair": text},
            warn_on_custom_groups=False,
            **{g: getattr(idata, g) for g in idata.groups()},
        )
        saved.to_netcdf(str(path))
    return Path(path)


def read_result(path):
    """The InferenceData and the metadata dict saved by :func:`write_result`."""
    import arviz as az

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        idata = az.from_netcdf(str(path))
    return idata, json.loads(idata.attrs["bayesfair"])
