"""The container of a result's draws: an ``xarray.DataTree`` laid out as ArviZ 1's (private).

A fit's draws, data and derived rates live in one ``xarray.DataTree`` whose children
are the groups ArviZ 1 names (``posterior``, ``sample_stats``, ``prior``,
``observed_data``, ``constant_data``) and bayesfair's ``rates``: the object
``arviz_base``, ``arviz_stats`` and ``arviz_plots`` take as they are. ArviZ 0.x's
``InferenceData`` is gone from ArviZ 1; a file it wrote (netCDF with one group per
child) opens as the same tree (:func:`bayesfair._internal.netcdf.read_result`).

A child of a tree is itself a tree; :func:`get_group` returns its ``xarray.Dataset``,
which is what the statistics of the package read.
"""

from __future__ import annotations

from collections.abc import Mapping

import xarray as xr


def make_tree(groups: Mapping[str, xr.Dataset], attrs: Mapping | None = None) -> xr.DataTree:
    """One ``xarray.DataTree`` with a child per named group, in the order given.

    Parameters
    ----------
    groups : mapping of str to xarray.Dataset
        The groups (``posterior``, ``sample_stats``, ...); their datasets are not
        copied, so building a tree costs no memory.
    attrs : mapping, optional
        Attributes of the root (bayesfair keeps its metadata there when saving).

    Returns
    -------
    xarray.DataTree
    """
    tree = xr.DataTree.from_dict(
        {f"/{name}": dataset for name, dataset in groups.items() if dataset is not None}
    )
    if attrs:
        tree.attrs.update(attrs)
    return tree


def group_names(tree) -> tuple[str, ...]:
    """The names of a tree's groups (its children), in order.

    Parameters
    ----------
    tree : xarray.DataTree
    """
    return tuple(tree.children)


def has_group(tree, name: str) -> bool:
    """Whether ``tree`` has the group ``name``.

    Parameters
    ----------
    tree : xarray.DataTree
    name : str
    """
    return tree is not None and name in tree.children


def get_group(tree, name: str) -> xr.Dataset:
    """The dataset of the group ``name``: a new ``Dataset`` over the same arrays (the
    data are not copied; adding a variable to it leaves the tree as it was, see
    :func:`assign`).

    Parameters
    ----------
    tree : xarray.DataTree
    name : str

    Raises
    ------
    KeyError
        If the tree has no such group; the message lists the groups it has.
    """
    if not has_group(tree, name):
        raise KeyError(f"The result has no {name!r} group; it has {list(group_names(tree))}.")
    return tree.children[name].to_dataset()


def assign(tree, name: str, **variables) -> None:
    """Add or replace variables of the group ``name`` in place.

    A tree's child takes only ``DataArray`` or ``Variable`` items (a ``(dims,
    values)`` tuple would be stored as one object); this takes what
    ``xarray.Dataset.assign`` takes.

    Parameters
    ----------
    tree : xarray.DataTree
    name : str
        An existing group.
    **variables
        Name -> ``(dims, values)``, ``DataArray`` or ``Variable``.
    """
    tree[name] = xr.DataTree(get_group(tree, name).assign(variables))
