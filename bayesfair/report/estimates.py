"""A comparison's estimates as one long table, and the wide table the reports read.

:func:`~bayesfair.compare` computes, for every metric and pair of groups, each method's
estimate and interval. They are kept as one long (tidy) table, one row per metric,
pair and method (:data:`ESTIMATE_COLUMNS`; ``Comparison.estimates``), where a method
that does not give a statistic leaves it empty (Newcombe's interval has no
``prob_practically_fair``). ``Comparison.pairs``, the wide table whose
``<method>_<statistic>`` columns the reports, the figures and outside checks read, is
its pivot (:func:`pivot_pairs`), joined to each pair's own columns (the sizes, the
frequency estimate, the note, the disagreement). Setting a method aside (after active
label selection) is a filter on the ``method`` column, not a search of column names.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bayesfair.report.pair_methods import PAIR_METHODS

__all__ = [
    "ESTIMATE_COLUMNS",
    "FREQUENTIST_STATS",
    "MODEL_STATS",
    "estimates_by_pair",
    "pivot_pairs",
    "set_aside",
    "wide_name",
    "widen",
]

#: The columns of ``Comparison.estimates``: one row per metric, pair and method.
ESTIMATE_COLUMNS = [
    "metric",
    "group",
    "reference",
    "method",
    "estimate",
    "lower",
    "upper",
    "half_width",
    "effective_n",
    "prob_practically_fair",
    "p_undefined",
    "decision",
    "prior_sensitive",
]
#: The statistics of each frequentist method that the wide table shows, in its order
#: (each method's registry entry, :mod:`bayesfair.report.pair_methods`).
FREQUENTIST_STATS = {name: method.stats for name, method in PAIR_METHODS.items()}
#: The methods only data with group probabilities have (their columns only then).
PROXY_METHODS = tuple(name for name, method in PAIR_METHODS.items() if method.needs_proxy)
#: The statistics of a Bayesian model that the wide table shows (its estimate is the
#: posterior mean, ``<model>_mean``).
MODEL_STATS = (
    "estimate",
    "lower",
    "upper",
    "prob_practically_fair",
    "p_undefined",
    "decision",
    "prior_sensitive",
)
_KEY = ["metric", "group", "reference"]
_VALUES = ESTIMATE_COLUMNS[4:]


def wide_name(method: str, stat: str) -> str:
    """A statistic's column in the wide table: ``<method>_<stat>``, a model's estimate
    ``<model>_mean``.

    Parameters
    ----------
    method : str
    stat : str
        One of :data:`ESTIMATE_COLUMNS`' statistics.

    Returns
    -------
    str
    """
    if stat == "estimate" and method not in FREQUENTIST_STATS:
        return f"{method}_mean"
    return f"{method}_{stat}"


def set_aside(estimates: pd.DataFrame, methods) -> pd.DataFrame:
    """A copy of ``estimates`` with every statistic of ``methods`` emptied (NaN).

    Parameters
    ----------
    estimates : pandas.DataFrame
        Columns :data:`ESTIMATE_COLUMNS`.
    methods : iterable of str

    Returns
    -------
    pandas.DataFrame
    """
    out = estimates.copy()
    rows = out["method"].isin(list(methods))
    if not rows.any():
        return out
    for column in _VALUES:
        if not pd.api.types.is_float_dtype(out[column]):  # decisions, flags: NaN needs object
            out[column] = out[column].astype(object)
        out.loc[rows, column] = np.nan
    return out


def pivot_pairs(pair_columns: pd.DataFrame, estimates: pd.DataFrame, models) -> pd.DataFrame:
    """The wide pair table: each pair's own columns and every method's statistics.

    Parameters
    ----------
    pair_columns : pandas.DataFrame
        One row per metric and pair: ``metric, group, reference``, then the pair's own
        columns; ``note`` and ``disagreement``, where present, go last.
    estimates : pandas.DataFrame
        Columns :data:`ESTIMATE_COLUMNS`.
    models : list of str
        The Bayesian models, in the order of their columns (after the frequentist
        methods of :data:`FREQUENTIST_STATS`).

    Returns
    -------
    pandas.DataFrame
        ``metric, group, reference``, the pair's columns, ``<method>_<stat>`` per method
        (:func:`wide_name`), then ``note`` and ``disagreement``.
    """
    tail = [c for c in ("note", "disagreement") if c in pair_columns]
    out = pair_columns.drop(columns=tail).reset_index(drop=True)
    index = pd.MultiIndex.from_frame(out[_KEY])
    present = set(estimates["method"])
    methods = [m for m in FREQUENTIST_STATS if m not in PROXY_METHODS or m in present]
    for method in [*methods, *models]:
        rows = estimates[estimates["method"] == method].set_index(_KEY).reindex(index)
        for stat in FREQUENTIST_STATS.get(method, MODEL_STATS):
            out[wide_name(method, stat)] = rows[stat].infer_objects().to_numpy()
    for column in tail:
        out[column] = pair_columns[column].to_numpy()
    return out


def estimates_by_pair(estimates: pd.DataFrame | None) -> dict:
    """The long table as a lookup: ``(metric, group, reference, method)`` to its row.

    What the verdicts, the reports and the figures read a method's statistic from (a
    missing key is a method not computed: its statistics are empty).

    Parameters
    ----------
    estimates : pandas.DataFrame or None
        Columns :data:`ESTIMATE_COLUMNS` (empty or None: an empty lookup).

    Returns
    -------
    dict of tuple to dict
    """
    if estimates is None or not len(estimates):
        return {}
    return {
        (row["metric"], row["group"], row["reference"], row["method"]): row
        for row in estimates.to_dict("records")
    }


def widen(base: pd.DataFrame, by_method: dict, name=None) -> pd.DataFrame:
    """A view's wide form: ``base`` and each method's statistics as ``<method>_<stat>``.

    The one place besides :func:`pivot_pairs` that writes a method's statistic into a
    column of its own, for the views the reports display beside the pairs (the group,
    family and calibration views, the between-group variance).

    Parameters
    ----------
    base : pandas.DataFrame
        The view's own columns, one row per key.
    by_method : dict of str to mapping
        Per method, its statistics: a mapping (or DataFrame) of statistic to values
        aligned with ``base``'s rows (a scalar for every row). In the order of the
        columns.
    name : callable, optional
        ``name(method, statistic)``, the column's name; default ``f"{method}_{stat}"``.

    Returns
    -------
    pandas.DataFrame
    """
    name = name or (lambda method, stat: f"{method}_{stat}")
    out = base.reset_index(drop=True).copy()
    columns = {}
    for method, stats in by_method.items():
        for stat in stats:
            columns[name(method, stat)] = _column(stats[stat], out.index)
    return pd.concat([out, pd.DataFrame(columns, index=out.index)], axis=1)


def _column(value, index) -> pd.Series:
    """A statistic's values as a column: a Series, array or list row by row; anything
    else (a number, a text, a tuple) the same in every row."""
    if isinstance(value, pd.Series):
        return pd.Series(value.to_numpy(), index=index)
    if isinstance(value, np.ndarray):
        return pd.Series(value, index=index)
    if isinstance(value, list):
        return _inferred(value, index)
    return _inferred([value] * len(index), index)


def _inferred(values: list, index) -> pd.Series:
    """A column of Python values with the dtype pandas infers for them (a tuple per row
    stays one object)."""
    if any(isinstance(v, tuple) for v in values):
        return pd.Series(values, index=index, dtype=object)
    return pd.Series(values, index=index)
