"""Writing and reading a result's tree of draws with bayesfair's metadata (private).

A result is saved as its ``xarray.DataTree`` (one netCDF group per child, the
layout ArviZ 0.x's ``InferenceData`` wrote too) with one more root attribute,
``bayesfair``: a JSON text of the model, reference group, notes and settings
(:meth:`bayesfair.posterior.FairnessPosterior.to_netcdf`). A file in
``InferenceData``'s layout therefore reads back as the same tree.

A result made of several fits (an audit over time: one fit per group) is saved as one
file with a node per fit, each the tree of a single result with its own ``bayesfair``
attribute, and the whole's metadata at the root (:func:`write_parts`). Its JSON keeps
labels that JSON has no type for (dates) as tagged objects, read back as they were.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np

from bayesfair._internal.tree import get_group, group_names, make_tree


def write_result(idata, meta: dict, path) -> Path:
    """Save ``idata`` with ``meta`` (JSON) in its ``bayesfair`` attribute; ``idata`` is
    not changed (a new tree over the same datasets is written)."""
    text = json.dumps(meta, default=_encode)
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
    return idata, json.loads(idata.attrs["bayesfair"], object_hook=_decode)


def _encode(value):
    """JSON for what ``json`` cannot write: NumPy scalars, and dates and periods (tagged,
    so that :func:`_decode` gives them back as they were)."""
    import datetime

    import pandas as pd

    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, pd.Timestamp):
        return {"__timestamp__": value.isoformat()}
    if isinstance(value, pd.Period):
        return {"__period__": str(value), "freq": value.freqstr}
    if isinstance(value, datetime.datetime):
        return {"__datetime__": value.isoformat()}
    if isinstance(value, datetime.date):
        return {"__date__": value.isoformat()}
    raise TypeError(f"{type(value).__name__} cannot be saved in a result's metadata.")


def _decode(obj: dict):
    import datetime

    import pandas as pd

    if set(obj) == {"__timestamp__"}:
        return pd.Timestamp(obj["__timestamp__"])
    if set(obj) == {"__period__", "freq"}:
        return pd.Period(obj["__period__"], freq=obj["freq"])
    if set(obj) == {"__datetime__"}:
        return datetime.datetime.fromisoformat(obj["__datetime__"])
    if set(obj) == {"__date__"}:
        return datetime.date.fromisoformat(obj["__date__"])
    return obj


def write_parts(parts: dict, meta: dict, path) -> Path:
    """Save several results in one file: ``parts`` maps a node name to ``(tree, meta)``,
    each tree's groups under ``/<name>/`` with its ``meta`` as its ``bayesfair``
    attribute; ``meta`` of the whole goes to the root. Nothing given is changed."""
    import xarray as xr

    nodes = {
        f"/{name}/{group}": get_group(tree, group)
        for name, (tree, _) in parts.items()
        for group in group_names(tree)
    }
    root = xr.DataTree.from_dict(nodes)
    for name, (tree, part_meta) in parts.items():
        root[name].attrs.update({**tree.attrs, "bayesfair": json.dumps(part_meta, default=_encode)})
    root.attrs["bayesfair"] = json.dumps(meta, default=_encode)
    root.to_netcdf(str(path), engine="h5netcdf")
    return Path(path)


def read_parts(path) -> tuple[dict, dict]:
    """``({name: (tree, meta)}, meta)`` of a file written by :func:`write_parts` (read into
    memory: the file is closed on return)."""
    import xarray as xr

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with xr.open_datatree(str(path), engine="h5netcdf") as opened:
            root = opened.load()
    parts = {}
    for name, node in root.children.items():
        if "bayesfair" not in node.attrs:  # a group of a single result's file, not a part
            continue
        tree = make_tree({group: get_group(node, group) for group in group_names(node)})
        attrs = dict(node.attrs)
        part_meta = json.loads(attrs.pop("bayesfair"), object_hook=_decode)
        tree.attrs.update(attrs)
        parts[name] = (tree, part_meta)
    return parts, json.loads(root.attrs["bayesfair"], object_hook=_decode)


def group_coordinate(levels: list) -> np.ndarray:
    """Group labels as a netCDF-friendly coordinate: integers stay integers, anything
    else is written as text.

    Parameters
    ----------
    levels : list
        The data's group levels.

    Returns
    -------
    numpy.ndarray
        ``int64`` when every level is an integer (not a boolean), else ``object`` strings.
    """
    if all(isinstance(g, int | np.integer) and not isinstance(g, bool) for g in levels):
        return np.asarray(levels, dtype=np.int64)
    return np.asarray([str(g) for g in levels], dtype=object)
