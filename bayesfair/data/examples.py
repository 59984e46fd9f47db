"""One side of an assessment: its examples as rows, or as a summary of them.

:class:`~bayesfair.AssessmentData` holds one :class:`ExampleSet` per side, the
labeled examples (score, label, group) and the unlabeled ones (score, group),
each either :class:`ExampleRows` (arrays in memory) or :class:`ExampleSummary`
(a :class:`~bayesfair.data.summary.ScoreSummary`, built where the rows live by
:func:`bayesfair.summarize`). Both answer the same questions: how many examples
each group has, the side's summary on a grid (the form every model reads), the
confusion counts of a labeled side, a table of the scores. What only rows can
give (the scores themselves, PPI++'s cross-fitted predictions, suggestions of
rows to label) is asked for through :meth:`ExampleSet.rows`, which a summary
refuses with a message naming what it keeps instead.

:func:`labeled_input` and :func:`unlabeled_input` check what the user passed
for a side and return a :class:`SideInput`; the groups of both sides decide the
data's group levels, and :meth:`SideInput.build` codes the side to them.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Sequence
from datetime import date

import numpy as np
import pandas as pd

from bayesfair._internal.names import plain_scalar
from bayesfair._internal.validation import check_threshold, warn_surprising_examples
from bayesfair.data._inputs import (
    _as_groups,
    _as_labels,
    _as_pandas,
    _as_scores,
    _encode,
    _is_lazy,
    _readonly,
    check_columns,
    check_lengths,
    count_confusion,
)
from bayesfair.data.engines.proxy import summarize_proxy
from bayesfair.data.proxy import proxy_from_frames
from bayesfair.data.proxy_summary import ProxySummary
from bayesfair.data.sources import summarize_unlabeled
from bayesfair.data.summary import DEFAULT_BINS, ScoreSummary, summarize_arrays
from bayesfair.exceptions import InvalidParameterError, UnlabeledGroupWarning

#: Columns of :meth:`ExampleSet.score_table`.
SCORE_TABLE_COLUMNS = ["n", "n_predicted_positive", "mean_score", "min", "median", "max"]


class ExampleSet:
    """The examples of one side of an assessment, coded to the data's groups.

    Subclasses: :class:`ExampleRows` and :class:`ExampleSummary`.

    Parameters
    ----------
    side : {"labeled", "unlabeled"}
        Which side, for messages.
    levels : list
        The data's group levels, which the group codes index.
    threshold : float
        ``ŷ = 1[score ≥ threshold]``.
    """

    is_summary = False
    #: Each row's period code (:func:`attach_periods`), or None without periods.
    period_codes = None

    def __init__(self, side: str, levels: list, threshold: float):
        self.side = side
        self.levels = list(levels)
        self.threshold = float(threshold)
        self._reductions: dict = {}

    @property
    def n_total(self) -> int:
        """The number of examples."""
        raise NotImplementedError

    def group_counts(self) -> np.ndarray:
        """Examples per group, shape ``(n_groups,)``, int64."""
        raise NotImplementedError

    def confusion_counts(self) -> np.ndarray:
        """Confusion counts per group, shape ``(n_groups, 4)`` (tp, fp, tn, fn), int64."""
        raise NotImplementedError

    def score_sums(self) -> np.ndarray:
        """The sum of the raw scores (as given, not clipped) per group, shape ``(n_groups,)``.

        Additive over rows, like every sum of a summary (``ScoreSummary.sum_score``):
        the sums of two sides add to the sum over their rows together.
        """
        raise NotImplementedError

    def rows(self, what: str) -> ExampleRows:
        """The rows, for ``what`` (a name for the message when they are a summary)."""
        raise NotImplementedError

    def _summarize(self, score_clip: float, n_bins: int) -> ScoreSummary:
        raise NotImplementedError

    def summary(self, score_clip: float = 0.01, n_bins: int | None = None) -> ScoreSummary:
        """The examples as a summary on the grid ``(score_clip, n_bins)``, coded to the levels.

        Computed once per grid and kept: the stored arrays are read-only, so it
        cannot go stale.

        Parameters
        ----------
        score_clip : float, default 0.01
            ε of the clipping of scores to ``[ε, 1 − ε]``.
        n_bins : int, optional
            Bins of the grid in logit(s) per group and side (default
            :data:`~bayesfair.data.summary.DEFAULT_BINS`).
        """
        key = (float(score_clip), DEFAULT_BINS if n_bins is None else int(n_bins))
        if key not in self._reductions:
            self._reductions[key] = self._summarize(*key)
        return self._reductions[key]

    def clear_cache(self) -> None:
        """Forget the summaries computed so far (:meth:`summary` computes them again)."""
        self._reductions.clear()

    def score_table(self) -> pd.DataFrame:
        """Per group: ``n, n_predicted_positive, mean_score, min, median, max``.

        A group without examples has ``n = 0`` and NaN elsewhere; a summary keeps
        no order statistics, so its ``min``, ``median`` and ``max`` are NaN.
        """
        raise NotImplementedError

    def _index(self) -> pd.Index:
        return pd.Index(self.levels, name="group", dtype=object)


class ExampleRows(ExampleSet):
    """A side's examples as rows: scores, group codes, and the labels of a labeled side.

    Parameters
    ----------
    side : {"labeled", "unlabeled"}
    levels : list
        The data's group levels; ``codes`` index them.
    threshold : float
        ``ŷ = 1[score ≥ threshold]``.
    scores : ndarray of float
        Checked scores in [0, 1].
    codes : ndarray of int
        Each row's group code.
    labels : ndarray of int8, optional
        0/1 labels (a labeled side).
    ids : ndarray, optional
        Unique ids of the rows (:func:`bayesfair.suggest_labels` returns them).
    """

    def __init__(self, side, levels, threshold, scores, codes, labels=None, ids=None):
        super().__init__(side, levels, threshold)
        # read-only views: the caller's arrays keep their own flags
        self.scores = _readonly(np.asarray(scores, dtype=float).view())
        self.codes = _readonly(np.asarray(codes, dtype=np.intp).view())
        self.labels = None if labels is None else _readonly(np.asarray(labels).view())
        self.ids = None if ids is None else _check_ids(ids, self.scores.size)

    @property
    def n_total(self) -> int:
        return int(self.scores.size)

    def group_counts(self) -> np.ndarray:
        return np.bincount(self.codes, minlength=len(self.levels)).astype(np.int64)

    def confusion_counts(self) -> np.ndarray:
        predictions = self.scores >= self.threshold
        return count_confusion(predictions, self.labels, self.codes, len(self.levels))

    def score_sums(self) -> np.ndarray:
        return np.bincount(self.codes, weights=self.scores, minlength=len(self.levels))

    def rows(self, what: str) -> ExampleRows:
        return self

    def _summarize(self, score_clip, n_bins):
        return summarize_arrays(
            self.scores,
            self.codes,
            self.levels,
            labels=self.labels,
            threshold=self.threshold,
            score_clip=score_clip,
            n_bins=n_bins,
        )

    def score_table(self) -> pd.DataFrame:
        table = []
        for k in range(len(self.levels)):
            s = self.scores[self.codes == k]
            if not s.size:
                table.append((0, 0, np.nan, np.nan, np.nan, np.nan))
                continue
            positive = int((s >= self.threshold).sum())
            table.append((s.size, positive, s.mean(), s.min(), np.median(s), s.max()))
        return pd.DataFrame(table, index=self._index(), columns=SCORE_TABLE_COLUMNS)


class ExampleSummary(ExampleSet):
    """A side's examples as a :class:`~bayesfair.data.summary.ScoreSummary`.

    Parameters
    ----------
    side : {"labeled", "unlabeled"}
    levels : list
        The data's group levels (a superset of the summary's).
    threshold : float
        The data's threshold (the summary's, checked by :func:`check_summary`).
    summary : ScoreSummary
        Checked by :func:`check_summary`; kept re-coded to ``levels``.
    """

    is_summary = True

    def __init__(self, side, levels, threshold, summary):
        super().__init__(side, levels, threshold)
        self.held = summary.with_levels(self.levels)

    @property
    def n_total(self) -> int:
        return int(self.held.n_total)

    def group_counts(self) -> np.ndarray:
        return self.held.totals().sum(axis=1).round().astype(np.int64)

    def confusion_counts(self) -> np.ndarray:
        return self.held.confusion_counts().round().astype(np.int64)

    def score_sums(self) -> np.ndarray:
        held = self.held
        return np.bincount(held.group, weights=held.sum_score, minlength=len(self.levels))

    def rows(self, what: str) -> ExampleRows:
        if self.side == "labeled":
            raise InvalidParameterError(
                f"'{what}' needs the labeled examples as rows; this data set holds its "
                f"{self.n_total} labeled examples as a summary "
                "(AssessmentData.from_summaries), which keeps per-group histograms and "
                "label counts. The models, the counts and the frequentist intervals work "
                "from it; PPI++ and row-level plots need the rows."
            )
        raise InvalidParameterError(
            f"'{what}' is not available: this data set holds its {self.n_total} unlabeled "
            "examples as a summary (bayesfair.summarize_unlabeled), which keeps per-group "
            "histograms, not rows."
        )

    def _summarize(self, score_clip, n_bins):
        held = self.held
        if held.score_clip != score_clip or held.n_bins % n_bins:
            raise InvalidParameterError(
                f"The {self.side} summary was built with score_clip={held.score_clip} and "
                f"n_bins={held.n_bins}; this needs score_clip={score_clip} and "
                f"n_bins={n_bins} (a divisor of the summary's). Summarise again with those "
                "settings."
            )
        return held.coarsen(n_bins)

    def score_table(self) -> pd.DataFrame:
        held, k = self.held, len(self.levels)
        n = np.bincount(held.group, weights=held.count, minlength=k)
        positive = np.bincount(held.group, weights=held.count * held.side, minlength=k)
        total = self.score_sums()
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(n > 0, total / n, np.nan)
        nan = np.full(k, np.nan)
        columns = [n.astype(np.int64), positive.astype(np.int64), mean, nan, nan, nan]
        return pd.DataFrame(
            dict(zip(SCORE_TABLE_COLUMNS, columns, strict=True)), index=self._index()
        )


@dataclasses.dataclass(frozen=True)
class SideInput:
    """One side's checked input, before the data's group levels are known.

    Parameters
    ----------
    group_labels : pandas.Series
        One group label per row, or the summary's groups: with the other side's,
        they decide the data's group levels.
    attributes : list of str or None
        The sensitive attributes' names, when known.
    threshold : float or None
        A summary's threshold (None for rows).
    build : callable
        ``build(levels, threshold)`` returns the side's :class:`ExampleSet`.
    """

    group_labels: pd.Series
    attributes: list | None
    threshold: float | None
    build: Callable[[list, float], ExampleSet]


def labeled_input(scores, labels, groups, summary, pos_label, *, allow_empty: bool = False):
    """The labeled side's input, checked: rows (``scores, labels, groups``) or ``summary``.

    Parameters
    ----------
    scores, labels, groups : array_like or None
        As in :class:`~bayesfair.AssessmentData`; all three, or none with ``summary``.
    summary : ScoreSummary or None
        The labeled examples as a summary built with labels.
    pos_label : optional
        The positive label.
    allow_empty : bool, default False
        Accept no rows (data whose labeled rows all have their group as a proxy's
        probabilities, :mod:`bayesfair.data.proxy`).

    Returns
    -------
    side : SideInput
    pos_label
        The positive label (from the labels; 1 for a summary when not given).
    """
    given = {"scores": scores, "labels": labels, "groups": groups}
    rows_given = [name for name, value in given.items() if value is not None]
    if summary is not None:
        if rows_given:
            raise InvalidParameterError(
                f"Pass the labeled examples either as 'labeled' (a summary) or as "
                f"'scores', 'labels' and 'groups', not both (got {', '.join(rows_given)})."
            )
        check_summary(summary, "labeled")
        return _summary_side(summary, "labeled"), 1 if pos_label is None else pos_label
    if len(rows_given) < 3:
        raise InvalidParameterError(
            "The labeled examples need 'scores', 'labels' and 'groups' (or 'labeled', a "
            f"summary). Got only {', '.join(rows_given) or 'none of them'}."
        )
    s = _as_scores(scores, "scores")
    y, pos_label = _as_labels(labels, pos_label)
    group_labels, attributes = _as_groups(groups, "groups")
    check_lengths(scores=len(s), labels=len(y), groups=len(group_labels))
    if len(s) == 0 and not allow_empty:
        raise InvalidParameterError(
            "The labeled set is empty: 'scores' must hold at least one example."
        )

    def build(levels, threshold):
        codes = _encode(group_labels, levels)
        return ExampleRows("labeled", levels, threshold, s, codes, labels=y)

    return SideInput(group_labels, attributes, None, build), pos_label


def unlabeled_input(scores, groups, summary, ids):
    """The unlabeled side's input, checked: rows (``scores, groups``), ``summary`` or none.

    Parameters
    ----------
    scores, groups : array_like or None
        As ``unlabeled_scores`` and ``unlabeled_groups`` of :class:`~bayesfair.AssessmentData`.
    summary : ScoreSummary or None
        The unlabeled examples as a summary (:func:`bayesfair.summarize_unlabeled`).
    ids : array_like or None
        One unique id per row; needs rows.

    Returns
    -------
    SideInput
    """
    if summary is not None:
        if scores is not None or groups is not None:
            raise InvalidParameterError(
                "Pass the unlabeled examples either as 'unlabeled' (a summary) or as "
                "'unlabeled_scores'/'unlabeled_groups', not both."
            )
        if ids is not None:
            raise InvalidParameterError(
                "'unlabeled_ids' needs the unlabeled examples as rows; a summary has no rows."
            )
        check_summary(summary, "unlabeled")
        return _summary_side(summary, "unlabeled")
    if (scores is None) != (groups is None):
        given = "unlabeled_scores" if groups is None else "unlabeled_groups"
        missing = "unlabeled_groups" if groups is None else "unlabeled_scores"
        raise InvalidParameterError(
            f"'{given}' was given without '{missing}': pass both or neither."
        )
    if scores is None:
        s, group_labels, attributes = np.empty(0, dtype=float), pd.Series([], dtype=object), None
    else:
        s = _as_scores(scores, "unlabeled_scores")
        group_labels, attributes = _as_groups(groups, "unlabeled_groups")
        check_lengths(unlabeled_scores=len(s), unlabeled_groups=len(group_labels))
    checked_ids = None if ids is None else _check_ids(ids, s.size)

    def build(levels, threshold):
        codes = _encode(group_labels, levels)
        return ExampleRows("unlabeled", levels, threshold, s, codes, ids=checked_ids)

    return SideInput(group_labels, attributes, None, build)


def _summary_side(summary: ScoreSummary, side: str) -> SideInput:
    attributes = list(summary.attributes) if summary.attributes else None

    def build(levels, threshold):
        return ExampleSummary(side, levels, threshold, summary)

    labels = pd.Series(summary.group_levels, dtype=object)
    return SideInput(labels, attributes, float(summary.threshold), build)


def check_summary(summary, side: str) -> None:
    """Raise unless ``summary`` is a :class:`~bayesfair.data.summary.ScoreSummary` fit for ``side``.

    A labeled side's summary holds labels and at least one example; an unlabeled
    side's holds no labels.

    Parameters
    ----------
    summary : object
        What was passed as the side's summary.
    side : {"labeled", "unlabeled"}
    """
    if not isinstance(summary, ScoreSummary):
        how = (
            "a ScoreSummary built with labels (bayesfair.summarize(..., label=...))"
            if side == "labeled"
            else "the summary of bayesfair.summarize_unlabeled (a ScoreSummary); for a file, "
            "query or frame, call bayesfair.summarize_unlabeled(source, ...) or use "
            "AssessmentData.from_frames(labeled, source, ...)"
        )
        raise InvalidParameterError(
            f"The '{side}' parameter must be {how}. Got {type(summary).__name__}."
        )
    if side == "labeled" and not summary.labeled:
        raise InvalidParameterError(
            "The 'labeled' summary holds no labels: build it with "
            "bayesfair.summarize(source, ..., label=<column>)."
        )
    if side == "labeled" and summary.n_total == 0:
        raise InvalidParameterError(
            "The labeled summary is empty: it must hold at least one example."
        )
    if side == "unlabeled" and summary.labeled:
        raise InvalidParameterError(
            "The 'unlabeled' summary holds labels: it summarises labeled examples. Pass "
            "unlabeled examples (bayesfair.summarize_unlabeled), or drop its labels with "
            "summary.without_labels() if they are to be ignored."
        )


def common_threshold(threshold, *sides: SideInput) -> float:
    """The data's threshold: ``threshold`` if given, else a labeled summary's, else 0.5.

    Every side held as a summary must have been built with it (its sides of the
    threshold are fixed).

    Parameters
    ----------
    threshold : float or None
        The threshold the user gave.
    *sides : SideInput
        The labeled side first, then the unlabeled one.
    """
    held = [side.threshold for side in sides if side.threshold is not None]
    if threshold is None:
        threshold = sides[0].threshold if sides[0].threshold is not None else 0.5
    threshold = check_threshold(threshold)
    for value in held:
        if value != threshold:
            raise InvalidParameterError(
                f"A summary was built with threshold {value}, the data use {threshold}: the "
                "sides of the threshold would not match. Summarise again with the data's "
                "threshold."
            )
    return threshold


def common_attributes(labeled: SideInput, unlabeled: SideInput) -> list | None:
    """The sensitive attributes' names; both sides must agree where both know them.

    Parameters
    ----------
    labeled, unlabeled : SideInput
        The two sides' checked input.
    """
    if labeled.attributes and unlabeled.attributes and labeled.attributes != unlabeled.attributes:
        raise InvalidParameterError(
            f"The unlabeled data has sensitive attributes {unlabeled.attributes}, the labeled "
            f"data {labeled.attributes}: they must be the same."
        )
    return labeled.attributes or unlabeled.attributes


def _check_ids(ids, n: int) -> np.ndarray:
    """``unlabeled_ids``: one per row, none missing, unique (read-only copy)."""
    arr = np.array(ids, dtype=object) if not isinstance(ids, np.ndarray) else ids.copy()
    if arr.ndim != 1 or arr.size != n:
        raise InvalidParameterError(
            f"'unlabeled_ids' must hold one id per unlabeled example ({n}). Got shape {arr.shape}."
        )
    series = pd.Series(arr)
    if series.isna().any():
        raise InvalidParameterError(
            f"'unlabeled_ids' must not be missing: {int(series.isna().sum())} are, the "
            f"first at position {int(np.flatnonzero(series.isna().to_numpy())[0])}."
        )
    dup = series.duplicated()
    if dup.any():
        first = series[dup].iloc[0]
        raise InvalidParameterError(
            f"'unlabeled_ids' must be unique, so that a suggested example can be found "
            f"again: {int(dup.sum())} repeat, e.g. {plain_scalar(first)!r}."
        )
    return _readonly(arr)


def warn_unlabeled_only(levels: list, n_labeled: np.ndarray, stacklevel: int = 2) -> None:
    """One :class:`~bayesfair.exceptions.UnlabeledGroupWarning` naming the groups without labels.

    Parameters
    ----------
    levels : list
        The data's group levels.
    n_labeled : ndarray of int
        Labeled examples per group.
    stacklevel : int, default 2
        As in :func:`warnings.warn`, counted from the caller.
    """
    only_unlabeled = [g for g, n in zip(levels, n_labeled, strict=True) if n == 0]
    if only_unlabeled:
        warnings.warn(
            f"Group(s) {only_unlabeled} occur in the unlabeled data but have no labeled "
            "example. They are kept: the beta-binomial model falls back to its prior there, "
            "the calibration model borrows strength through its hierarchy, and frequentist "
            "rates are undefined (NaN).",
            UnlabeledGroupWarning,
            stacklevel=stacklevel + 1,
        )


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


def warn_surprising_labels(examples: ExampleSet, pos_label, stacklevel: int = 2) -> None:
    """Warn about labeled rows that are valid but would surprise silently (none for a summary).

    :func:`~bayesfair._internal.validation.warn_surprising_examples`: hard 0/1 scores, and
    labels all of one class.

    Parameters
    ----------
    examples : ExampleSet
        The labeled side.
    pos_label
        The positive label, for the message.
    stacklevel : int, default 2
        As in :func:`warnings.warn`, counted from the caller.
    """
    if not examples.is_summary:
        rows = examples.rows("scores")
        warn_surprising_examples(rows.scores, rows.labels, pos_label, stacklevel=stacklevel + 2)


def attach_periods(labeled: ExampleSet, unlabeled: ExampleSet, periods, unlabeled_periods):
    """Order the periods of both sides and give each row its period code.

    A period column orders the rows in time: dates, numbers, or labels (an ordered
    pandas ``Categorical`` keeps its order; other labels are sorted). Periods need
    rows on both sides (a summary has no rows to date), one value per row, none
    missing. A period may have unlabeled rows only, or labeled rows only.

    Parameters
    ----------
    labeled, unlabeled : ExampleSet
        The data's two sides; their ``period_codes`` are set (read-only arrays).
    periods, unlabeled_periods : array_like or None
        Each labeled and unlabeled row's period. Both None: no periods.

    Returns
    -------
    list or None
        The periods in time order, or None without periods.
    """
    if periods is None and unlabeled_periods is None:
        return None
    if periods is None or (unlabeled_periods is None and unlabeled.n_total):
        missing = "periods" if periods is None else "unlabeled_periods"
        raise InvalidParameterError(
            f"'{missing}' is missing: with periods, every row needs one, labeled and unlabeled."
        )
    if labeled.is_summary or unlabeled.is_summary:
        raise InvalidParameterError(
            "Periods need the examples as rows (a summary keeps no period per row); pass "
            "frames or arrays, or summarise each period's rows into its own data set."
        )
    sides = {"periods": (periods, labeled), "unlabeled_periods": (unlabeled_periods, unlabeled)}
    values = {}
    for name, (given, examples) in sides.items():
        series = pd.Series([] if given is None else given).reset_index(drop=True)
        check_lengths(**{name: len(series), f"{examples.side} rows": examples.n_total})
        if series.isna().any():
            first = int(np.flatnonzero(series.isna().to_numpy())[0])
            raise InvalidParameterError(
                f"The '{name}' parameter must not contain missing periods; position {first} is."
            )
        values[name] = series
    levels = _period_order(list(values.values()))
    for (_, examples), series in zip(sides.values(), values.values(), strict=True):
        examples.period_codes = _readonly(_encode(series, levels))
    return levels


def _text_period_kind(value: str) -> str:
    """``"number"``, ``"date"`` (ISO 8601) or ``"text"``: how a period read as text sorts."""
    try:
        float(value)
        return "number"
    except ValueError:
        pass
    try:
        date.fromisoformat(value)
        return "date"
    except ValueError:
        return "text"


def _period_order(series: list) -> list:
    """The periods of all sides in time order (module docstring of :func:`attach_periods`)."""
    ordered = [s for s in series if isinstance(s.dtype, pd.CategoricalDtype) and s.cat.ordered]
    if ordered:
        levels = [plain_scalar(v) for v in ordered[0].cat.categories]
        unknown = {plain_scalar(v) for s in series for v in pd.unique(s)} - set(levels)
        if unknown:
            raise InvalidParameterError(
                f"Period(s) {sorted(map(str, unknown))} are not among the ordered categories "
                f"{levels}."
            )
        used = {plain_scalar(v) for s in series for v in pd.unique(s)}
        return [v for v in levels if v in used]
    seen = {plain_scalar(v) for s in series for v in pd.unique(s.astype(object))}
    texts = [v for v in seen if isinstance(v, str)]
    kinds = {}
    for v in sorted(texts):
        kinds.setdefault(_text_period_kind(v), []).append(v)
    if len(kinds) > 1:  # text read from a file: one kind, or its order is not time's
        found = "; ".join(f"{kind}: {', '.join(vals[:3])}" for kind, vals in kinds.items())
        raise InvalidParameterError(
            f"The periods mix kinds of label ({found}), so they have no one order in time "
            "(as text, '10' sorts before '9' and '2024Q2' before '2024-03-01'). Write every "
            "period as one kind: numbers, ISO dates (2024-03-01) or labels that sort in "
            "time (2024Q1)."
        )
    if len(texts) == len(seen) and set(kinds) == {"number"}:
        return sorted(seen, key=float)  # '9' before '10'
    if len(texts) == len(seen) and set(kinds) == {"date"}:
        return sorted(seen, key=date.fromisoformat)
    try:
        return sorted(seen)
    except TypeError as err:
        raise InvalidParameterError(
            "Periods must be comparable to be put in time order: dates, numbers, or labels "
            f"of one kind (an ordered pandas Categorical for labels in another order). Got "
            f"{sorted(map(repr, seen))[:5]}."
        ) from err
