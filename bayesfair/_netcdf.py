"""Writing and reading a result's tree of draws with bayesfair's metadata (private).

A result is saved as its ``xarray.DataTree`` (one netCDF group per child, the
layout ArviZ 0.x's ``InferenceData`` wrote too) with one more root attribute,
``bayesfair``: a JSON text of the model, reference group, notes and settings
(:meth:`bayesfair.posterior.FairnessPosterior.to_netcdf`). A file written by
bayesfair 0.3 or 0.4 (ArviZ 0.x) therefore reads back as the same tree.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np

from bayesfair._tree import get_group, group_names, make_tree

__all__ = ["read_result", "write_result"]


def _jsonable(v):
    return v.item() if isinstance(v, np.generic) else v


def write_result(idata, meta: dict, path) -> Path:
    """Save ``idata`` with ``meta`` (JSON) in its ``bayesfair`` attribute; ``idata`` is
    not changed (a new tree over the same datasets is written)."""
    text = json.dumps(
        {
            k: ({s: _jsonable(v) for s, v in x.items()} if isinstance(x, dict) else _jsonable(x))
            for k, x in meta.items()
        }
    )
    saved = make_tree(
        {g: get_group(idata, g) for g in group_names(idata)},
        attrs={**idata.attrs, "bayesfair": text},
    )
    saved.to_netcdf(str(path), engine="h5netcdf")
    return Path(path)


def read_result(path):
    """The tree and the metadata dict saved by :func:`write_result` (read into memory:
    the file is closed on return)."""
    import xarray as xr

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with xr.open_datatree(str(path), engine="h5netcdf") as opened:
            idata = opened.load()
    # ArviZ 0.x's files keep the root attributes in the root group too
    return idata, json.loads(idata.attrs["bayesfair"])
