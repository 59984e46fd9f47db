"""An :class:`~bayesfair.AssessmentData` from a labeled and an optional unlabeled frame.

:func:`from_frames` (``AssessmentData.from_frames``) checks the columns it is told
to read, copies them, and passes them to the data's constructor; an unlabeled side
that is not a frame in memory (a path, a relation, a query, a lazy frame) is
summarised where it lives first. With ``group_probabilities`` the frames go to
:func:`bayesfair.data.proxy.proxy_from_frames`.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from bayesfair.data._inputs import _as_pandas, _is_lazy, check_columns
from bayesfair.data.engines.proxy import summarize_proxy
from bayesfair.data.proxy import proxy_from_frames
from bayesfair.data.proxy_summary import ProxySummary
from bayesfair.data.sources import summarize_unlabeled
from bayesfair.data.summary import ScoreSummary
from bayesfair.exceptions import InvalidParameterError


def from_frames(
    cls,
    labeled,
    unlabeled=None,
    *,
    score: str,
    label: str,
    group: str | Sequence[str],
    threshold: float = 0.5,
    pos_label=None,
    reference=None,
    id: str | None = None,
    period: str | None = None,
    group_probabilities: dict | None = None,
):
    """Build the data from a labeled and an optional unlabeled DataFrame
    (``AssessmentData.from_frames``).

    The columns are checked (a missing one is named with the nearest match) and
    copied; the frames are not changed.

    Parameters
    ----------
    cls : type
        :class:`~bayesfair.AssessmentData` (this is its class method).
    labeled : pandas.DataFrame or polars.DataFrame
        One row per labeled example.
    unlabeled : DataFrame, source or ScoreSummary, optional
        One row per unlabeled example; needs the ``score`` and ``group``
        columns. Or any source :func:`bayesfair.summarize_unlabeled` reads
        (a Parquet/CSV path or glob, a DuckDB relation, a SQL query), which
        is summarised in DuckDB without loading it, or such a summary.
    score, label : str
        Column names of the score and of the true label.
    group : str or list of str
        Sensitive-attribute column(s); several columns define intersections.
    threshold, pos_label, reference
        As in :class:`~bayesfair.AssessmentData`.
    id : str, optional
        A column of the unlabeled frame that identifies its rows (unique);
        :func:`bayesfair.suggest_labels` returns it next to each row's
        position.
    period : str, optional
        A column of both frames that orders the rows in time (dates, numbers or
        ordered labels), for an audit over time (``periods`` of
        :class:`~bayesfair.AssessmentData`). A period may have no labeled rows.
    group_probabilities : dict, optional
        For an audit where the group is known for some rows only: each group mapped
        to the column holding a proxy's probability of it (BISG and the like), e.g.
        ``{"White": "p_white", "Black": "p_black"}``. In either frame the ``group``
        column may then be missing (NaN) row by row, or absent (no row's group
        known); such a row needs every
        probability, finite, non-negative and summing to 1 within 0.01. A row of
        known group may carry the probabilities too: those rows teach the model how
        the proxy errs (:mod:`bayesfair.models.proxy`). ``group`` is then one
        column; ids are not taken (periods are: each period is then fitted on its own,
        :func:`bayesfair.fit_periods`). Unlabeled rows too many to load (a
        path, a relation, a Dask or Spark DataFrame) are summarised in one pass by
        :func:`bayesfair.summarize_proxy` (then every row carries the probabilities),
        or given as its summary.

    Returns
    -------
    AssessmentData
    """
    labeled = _as_pandas(labeled)
    if group_probabilities is not None:
        if id is not None:
            raise InvalidParameterError(
                "The 'id' parameter cannot be combined with 'group_probabilities' yet."
            )
        if unlabeled is not None and not isinstance(unlabeled, ProxySummary):
            if isinstance(unlabeled, pd.DataFrame) or (
                type(unlabeled).__module__.startswith("polars") and not _is_lazy(unlabeled)
            ):
                unlabeled = _as_pandas(unlabeled)
            else:  # a source: summarised in one pass by its engine
                unlabeled = summarize_proxy(
                    unlabeled, score, group, group_probabilities, threshold=threshold
                )
        return proxy_from_frames(
            cls,
            labeled,
            unlabeled,
            score=score,
            label=label,
            group=group,
            group_probabilities=group_probabilities,
            threshold=threshold,
            pos_label=pos_label,
            reference=reference,
            period=period,
        )
    if type(unlabeled).__module__.startswith("polars") and not _is_lazy(unlabeled):
        unlabeled = _as_pandas(unlabeled)  # a polars LazyFrame is summarised by DuckDB
    if not isinstance(labeled, pd.DataFrame):
        raise InvalidParameterError(
            "The 'labeled' parameter must be a pandas or polars DataFrame. Got "
            f"{type(labeled).__name__}."
        )
    group_cols = [group] if isinstance(group, str) else list(group)
    if not group_cols:
        raise InvalidParameterError("The 'group' parameter must name at least one column.")
    check_columns(labeled, "labeled", score=[score], label=[label], group=group_cols)
    out = {
        "scores": labeled[score].to_numpy(copy=True),
        "labels": labeled[label].to_numpy(copy=True),
        "groups": labeled[group_cols].copy(),
        "threshold": threshold,
        "id_name": "id" if id is None else id,
    }
    rows = isinstance(unlabeled, pd.DataFrame)
    if unlabeled is not None and not rows:
        out["unlabeled"] = (
            unlabeled
            if isinstance(unlabeled, ScoreSummary)
            else summarize_unlabeled(unlabeled, score=score, group=group_cols, threshold=threshold)
        )
    elif rows:
        check_columns(unlabeled, "unlabeled", score=[score], group=group_cols)
        out["unlabeled_scores"] = unlabeled[score].to_numpy(copy=True)
        out["unlabeled_groups"] = unlabeled[group_cols].copy()
    if id is not None:
        if not rows:
            raise InvalidParameterError(
                "The 'id' parameter names a column of the unlabeled rows; give the "
                "unlabeled data as a DataFrame."
            )
        check_columns(unlabeled, "unlabeled", id=[id])
        out["unlabeled_ids"] = unlabeled[id].to_numpy(copy=True)
    if period is not None:
        if unlabeled is not None and not rows:
            raise InvalidParameterError(
                "The 'period' parameter names a column of the rows; give the unlabeled data "
                "as a DataFrame (a summary keeps no period per row)."
            )
        check_columns(labeled, "labeled", period=[period])
        out["periods"] = labeled[period].copy()
        if rows:
            check_columns(unlabeled, "unlabeled", period=[period])
            out["unlabeled_periods"] = unlabeled[period].copy()
    return cls(**out, pos_label=pos_label, reference=reference)
