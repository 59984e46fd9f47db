"""``AssessmentData``: the validated input of every bayesfair analysis.

An assessment has a **labeled** set (score, true label, group) and an optional
**unlabeled** set (score, group). Predictions are ``ŷ = 1[s >= threshold]``.
Everything downstream (models, the frequentist comparator, reports) reads the
per-group confusion counts and unlabeled score summaries exposed here.

All checks happen once, in the constructor; inputs are copied, never mutated,
and the stored arrays are read-only.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from bayesfair._inputs import (
    RowAttribute,
    _as_groups,
    _as_labels,
    _as_pandas,
    _as_scores,
    _encode,
    _is_lazy,
    _ordered_levels,
    _plain,
    _readonly,
    check_columns,
    check_lengths,
    count_confusion,
)
from bayesfair._validation import check_group, check_threshold, warn_surprising_examples
from bayesfair.exceptions import InvalidParameterError, UnlabeledGroupWarning
from bayesfair.metrics import COUNT_NAMES, get_rate, rate_from_counts, warn_undefined
from bayesfair.sources import summarize_unlabeled
from bayesfair.summary import DEFAULT_BINS, ScoreSummary, summarize_arrays

__all__ = ["AssessmentData", "UnlabeledGroupWarning"]

logger = logging.getLogger("bayesfair")


class AssessmentData:
    """Labeled and unlabeled classifier outputs, validated and grouped.

    Parameters
    ----------
    scores : array_like of float, shape (n_L,)
        Classifier scores of the labeled examples, in [0, 1].
    labels : array_like, shape (n_L,)
        True labels: ``{0, 1}``, bool, or any two values with ``pos_label``.
    groups : array_like, shape (n_L,) or (n_L, n_attributes), or DataFrame
        Sensitive-attribute value(s) per labeled example (strings or integers).
        Several attributes (columns) define intersectional groups labelled
        ``"value1 & value2"``.
    unlabeled_scores : array_like of float, shape (n_U,), optional
        Scores of the unlabeled examples.
    unlabeled_groups : array_like, shape (n_U,) or (n_U, n_attributes), optional
        Their sensitive-attribute value(s), in the same form as ``groups``.
    threshold : float, default 0.5
        Decision threshold in (0, 1): ``ŷ = 1`` when ``score >= threshold``.
    pos_label : optional
        The positive label, required when the labels are not ``{0, 1}`` or bool.
    reference : optional
        The reference (privileged) group for differences and ratios. Default:
        the group with the most labeled examples.
    unlabeled : ScoreSummary, optional
        The unlabeled examples as a summary (:func:`bayesfair.summarize_unlabeled`)
        in place of ``unlabeled_scores`` and ``unlabeled_groups``.
    unlabeled_ids : array_like, shape (n_U,), optional
        Unique ids of the unlabeled examples, returned by
        :func:`bayesfair.suggest_labels`.
    id_name : str, default "id"
        The name of the ids (the column name in :func:`bayesfair.suggest_labels`' table).

    Raises
    ------
    TypeError
        For non-numeric scores.
    ValueError
        For scores outside [0, 1] or NaN, non-binary labels, length mismatches,
        a threshold outside (0, 1), missing group values, or an unknown reference.

    Warns
    -----
    UnlabeledGroupWarning
        When a group occurs in the unlabeled data but not in the labeled data.
        Such a group is kept: models fall back to the prior or to the hierarchy.

    Examples
    --------
    >>> data = AssessmentData(scores=[0.9, 0.2, 0.7, 0.4], labels=[1, 0, 0, 1],
    ...                       groups=["a", "a", "b", "b"])
    >>> data.confusion_counts().loc["a"].tolist()  # tp, fp, tn, fn
    [1, 0, 1, 0]
    """

    def __init__(
        self,
        scores,
        labels,
        groups,
        unlabeled_scores=None,
        unlabeled_groups=None,
        *,
        threshold: float = 0.5,
        pos_label=None,
        reference=None,
        unlabeled=None,
        unlabeled_ids=None,
        id_name: str = "id",
    ):
        self.threshold = check_threshold(threshold)
        self._labeled = None  # a labeled ScoreSummary in place of the rows (from_summaries)
        self._scores = _readonly(_as_scores(scores, "scores"))
        self._labels, self.pos_label = _as_labels(labels, pos_label)
        _readonly(self._labels)
        group_labels, self.attributes = _as_groups(groups, "groups")
        check_lengths(scores=len(self._scores), labels=len(self._labels), groups=len(group_labels))
        if len(self._scores) == 0:
            raise InvalidParameterError(
                "The labeled set is empty: 'scores' must hold at least one example."
            )

        if (unlabeled_scores is None) != (unlabeled_groups is None):
            given = "unlabeled_scores" if unlabeled_groups is None else "unlabeled_groups"
            missing = "unlabeled_groups" if unlabeled_groups is None else "unlabeled_scores"
            raise InvalidParameterError(
                f"'{given}' was given without '{missing}': pass both or neither."
            )
        self._summary = None
        if unlabeled is not None:
            u_labels = self._accept_summary(unlabeled, unlabeled_scores)
            u_scores = np.empty(0, dtype=float)
        elif unlabeled_scores is None:
            u_scores = np.empty(0, dtype=float)
            u_labels = pd.Series([], dtype=object)
        else:
            u_scores = _as_scores(unlabeled_scores, "unlabeled_scores")
            u_labels, u_attributes = _as_groups(unlabeled_groups, "unlabeled_groups")
            check_lengths(unlabeled_scores=len(u_scores), unlabeled_groups=len(u_labels))
            if (
                (u_attributes or [None]) != (self.attributes or [None])
                and u_attributes
                and self.attributes
            ):
                raise InvalidParameterError(
                    f"The unlabeled data has sensitive attributes {u_attributes}, "
                    f"the labeled data {self.attributes}: they must be the same."
                )
        self._u_scores = _readonly(u_scores)
        self.id_name = str(id_name)
        self._u_ids = None if unlabeled_ids is None else self._check_ids(unlabeled_ids, u_scores)

        self.group_levels: list = _ordered_levels(group_labels, u_labels)
        self._group_codes = _readonly(_encode(group_labels, self.group_levels))
        self._u_codes = _readonly(
            np.empty(0, dtype=np.intp) if self._summary else _encode(u_labels, self.group_levels)
        )
        # after every check: a set that is refused is not also warned about
        warn_surprising_examples(self._scores, self._labels, self.pos_label, stacklevel=3)
        self._finish(reference)

    def _finish(self, reference) -> None:
        """Warn about groups without labels, set the reference, log the data set."""
        n_per_group = self._labeled_counts()
        only_unlabeled = [g for g, n in zip(self.group_levels, n_per_group, strict=True) if n == 0]
        if only_unlabeled:
            warnings.warn(
                f"Group(s) {only_unlabeled} occur in the unlabeled data but have no labeled "
                "example. They are kept: the beta-binomial model falls back to its prior there, "
                "the calibration model borrows strength through its hierarchy, and frequentist "
                "rates are undefined (NaN).",
                UnlabeledGroupWarning,
                stacklevel=3,
            )
        self.reference = (
            self._default_reference()
            if reference is None
            else self.resolve_group(reference, argument="reference")
        )
        logger.info(
            "bayesfair: positive label %r, threshold %g, reference group %r, %d labeled and "
            "%d unlabeled examples in %d groups.",
            self.pos_label,
            self.threshold,
            self.reference,
            self.n_labeled,
            self.n_unlabeled,
            self.n_groups,
        )

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_summaries(cls, labeled, unlabeled=None, *, reference=None, pos_label=1):
        """Data whose labeled (and unlabeled) examples are held as summaries.

        For a labeled set too large to load: summarise it where it lives with
        ``bayesfair.summarize(source, ..., label=...)`` (DuckDB, Dask, Spark or
        NumPy) and assess the summary. The Bayesian models (``bb``, ``hbb``,
        ``bc``, ``rbc``) take the labeled examples only as a summary, so their
        fits are the same as from the rows; so are the counts, the rates, and
        the frequentist intervals that need only the confusion counts
        (Newcombe, bootstrap, Bernstein, Lum et al.'s variances). What needs
        the rows is refused with a message: :attr:`scores`, :attr:`labels`,
        PPI++ (its cross-fitted predictions), label suggestions and planning.

        Parameters
        ----------
        labeled : ScoreSummary
            A labeled summary (built with ``label=``); its threshold is the data's.
        unlabeled : ScoreSummary, optional
            An unlabeled summary with the same threshold and sensitive attributes.
        reference : optional
            The reference group (default: the group with the most labeled examples).
        pos_label : default 1
            The positive label the summary was built with (shown in reports only:
            the summary already holds positives).

        Raises
        ------
        TypeError
            When ``labeled`` or ``unlabeled`` is not a ScoreSummary.
        ValueError
            When ``labeled`` holds no labels or no rows, or the two summaries
            disagree on threshold or attributes.

        Examples
        --------
        >>> import numpy as np
        >>> from bayesfair.summary import summarize_arrays
        >>> lab = summarize_arrays(np.array([0.9, 0.2, 0.7, 0.4]), np.array([0, 0, 1, 1]),
        ...                        ["a", "b"], labels=np.array([1, 0, 0, 1]))
        >>> data = AssessmentData.from_summaries(lab)
        >>> data.confusion_counts().loc["a"].tolist()  # tp, fp, tn, fn
        [1, 0, 1, 0]
        """
        if not isinstance(labeled, ScoreSummary):
            raise InvalidParameterError(
                "The 'labeled' parameter must be a ScoreSummary built with labels "
                f"(bayesfair.summarize(..., label=...)). Got {type(labeled).__name__}."
            )
        if not labeled.labeled:
            raise InvalidParameterError(
                "The 'labeled' summary holds no labels: build it with "
                "bayesfair.summarize(source, ..., label=<column>)."
            )
        if labeled.n_total == 0:
            raise InvalidParameterError(
                "The labeled summary is empty: it must hold at least one example."
            )
        self = cls.__new__(cls)
        self.threshold = float(labeled.threshold)
        self.pos_label = pos_label
        self.attributes = list(labeled.attributes) if labeled.attributes else None
        self._scores = self._labels = self._group_codes = None
        self._summary = None
        u_labels = (
            pd.Series([], dtype=object)
            if unlabeled is None
            else self._accept_summary(unlabeled, None)
        )
        self._u_scores = _readonly(np.empty(0, dtype=float))
        self._u_codes = _readonly(np.empty(0, dtype=np.intp))
        self._u_ids = None
        self.id_name = "id"
        self.group_levels = _ordered_levels(pd.Series(labeled.group_levels, dtype=object), u_labels)
        self._labeled = labeled.with_levels(self.group_levels)
        self._finish(reference)
        return self

    @classmethod
    def from_frames(
        cls,
        labeled: pd.DataFrame,
        unlabeled: pd.DataFrame | None = None,
        *,
        score: str,
        label: str,
        group: str | Sequence[str],
        threshold: float = 0.5,
        pos_label=None,
        reference=None,
        id: str | None = None,
    ) -> AssessmentData:
        """Build from a labeled and an optional unlabeled DataFrame.

        Parameters
        ----------
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
            As in :class:`AssessmentData`.
        id : str, optional
            A column of the unlabeled frame that identifies its rows (unique);
            :func:`bayesfair.suggest_labels` returns it next to each row's
            position.
        """
        labeled = _as_pandas(labeled)
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
        u_scores = u_groups = summary = None
        if unlabeled is not None and not isinstance(unlabeled, pd.DataFrame):
            summary = (
                unlabeled
                if isinstance(unlabeled, ScoreSummary)
                else summarize_unlabeled(
                    unlabeled, score=score, group=group_cols, threshold=threshold
                )
            )
        elif unlabeled is not None:
            check_columns(unlabeled, "unlabeled", score=[score], group=group_cols)
            u_scores = unlabeled[score].to_numpy(copy=True)
            u_groups = unlabeled[group_cols].copy()
        u_ids = None
        if id is not None:
            if unlabeled is None or summary is not None:
                raise InvalidParameterError(
                    "The 'id' parameter names a column of the unlabeled rows; give the "
                    "unlabeled data as a DataFrame."
                )
            check_columns(unlabeled, "unlabeled", id=[id])
            u_ids = unlabeled[id].to_numpy(copy=True)
        return cls(
            labeled[score].to_numpy(copy=True),
            labeled[label].to_numpy(copy=True),
            labeled[group_cols].copy(),
            u_scores,
            u_groups,
            threshold=threshold,
            pos_label=pos_label,
            reference=reference,
            unlabeled=summary,
            unlabeled_ids=u_ids,
            id_name="id" if id is None else id,
        )

    def _default_reference(self):
        return self.group_levels[int(np.argmax(self._labeled_counts()))]

    def _labeled_counts(self) -> np.ndarray:
        """Labeled examples per group, shape ``(n_groups,)``."""
        if self._labeled is not None:
            return self._labeled.totals().sum(axis=1).round().astype(np.int64)
        return np.bincount(self._group_codes, minlength=self.n_groups)

    # ------------------------------------------------------------------ labeled rows
    @property
    def labeled_is_summary(self) -> bool:
        """Whether the labeled examples are held as a summary (:meth:`from_summaries`)."""
        return self._labeled is not None

    def _require_labeled_rows(self, what: str) -> None:
        if self._labeled is not None:
            raise InvalidParameterError(
                f"'{what}' needs the labeled examples as rows; this data set holds its "
                f"{self._labeled.n_total} labeled examples as a summary "
                "(AssessmentData.from_summaries), which keeps per-group histograms and "
                "label counts. The models, the counts and the frequentist intervals work "
                "from it; PPI++ and row-level plots need the rows."
            )

    scores = RowAttribute(
        "_scores",
        "_require_labeled_rows",
        "Scores of the labeled examples (not available when given as a summary).",
    )
    labels = RowAttribute(
        "_labels",
        "_require_labeled_rows",
        "True labels (0/1) of the labeled examples (not available for a summary).",
    )
    group_codes = RowAttribute(
        "_group_codes",
        "_require_labeled_rows",
        "Group code of each labeled example (not available for a summary).",
    )

    # ------------------------------------------------------------------ groups
    @property
    def n_groups(self) -> int:
        return len(self.group_levels)

    @property
    def n_labeled(self) -> int:
        if self._labeled is not None:
            return self._labeled.n_total
        return len(self._scores)

    def _accept_summary(self, summary, unlabeled_scores) -> pd.Series:
        """Validate ``unlabeled=`` and return its group labels (for the levels)."""
        if unlabeled_scores is not None:
            raise InvalidParameterError(
                "Pass the unlabeled examples either as 'unlabeled' (a summary) or as "
                "'unlabeled_scores'/'unlabeled_groups', not both."
            )
        if not isinstance(summary, ScoreSummary):
            raise InvalidParameterError(
                "The 'unlabeled' parameter must be the summary of bayesfair.summarize_unlabeled "
                f"(a ScoreSummary). Got {type(summary).__name__}; for a file, query or "
                "frame, call bayesfair.summarize_unlabeled(source, ...) or use "
                "AssessmentData.from_frames(labeled, source, ...)."
            )
        if summary.labeled:
            raise InvalidParameterError(
                "The 'unlabeled' summary holds labels: it summarises labeled examples. Pass "
                "unlabeled examples (bayesfair.summarize_unlabeled), or drop its labels with "
                "summary.without_labels() if they are to be ignored."
            )
        if summary.threshold != self.threshold:
            raise InvalidParameterError(
                f"The unlabeled summary was built with threshold {summary.threshold}, the data "
                f"use {self.threshold}: the sides of the threshold would not match. Summarise "
                "again with the data's threshold."
            )
        if summary.attributes and self.attributes and list(summary.attributes) != self.attributes:
            raise InvalidParameterError(
                f"The unlabeled summary has sensitive attributes {list(summary.attributes)}, "
                f"the labeled data {self.attributes}: they must be the same."
            )
        self._summary = summary
        return pd.Series(summary.group_levels, dtype=object)

    def _check_ids(self, ids, u_scores) -> np.ndarray:
        if self._summary is not None:
            raise InvalidParameterError(
                "'unlabeled_ids' needs the unlabeled examples as rows; a summary has no rows."
            )
        arr = np.array(ids, dtype=object) if not isinstance(ids, np.ndarray) else ids.copy()
        if arr.ndim != 1 or arr.size != u_scores.size:
            raise InvalidParameterError(
                f"'unlabeled_ids' must hold one id per unlabeled example ({u_scores.size}). "
                f"Got shape {arr.shape}."
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
                f"again: {int(dup.sum())} repeat, e.g. {_plain(first)!r}."
            )
        return _readonly(arr)

    @property
    def unlabeled_ids(self) -> np.ndarray | None:
        """Ids of the unlabeled examples (the column ``id_name``), or None without ids."""
        return self._u_ids

    unlabeled_scores = RowAttribute(
        "_u_scores",
        "_require_rows",
        "Scores of the unlabeled examples (not available when given as a summary).",
    )
    unlabeled_group_codes = RowAttribute(
        "_u_codes",
        "_require_rows",
        "Group code of each unlabeled example (not available when given as a summary).",
    )

    @property
    def unlabeled_is_summary(self) -> bool:
        """Whether the unlabeled examples are held as a summary, not as rows."""
        return self._summary is not None

    def _require_rows(self, what: str) -> None:
        if self._summary is not None:
            raise InvalidParameterError(
                f"'{what}' is not available: this data set holds its {self._summary.n_total} "
                "unlabeled examples as a summary (bayesfair.summarize_unlabeled), which keeps "
                "per-group histograms, not rows."
            )

    def _unlabeled_counts(self) -> np.ndarray:
        """Unlabeled examples per group, shape ``(n_groups,)``."""
        if self._summary is None:
            return np.bincount(self._u_codes, minlength=self.n_groups)
        out = np.zeros(self.n_groups, dtype=np.int64)
        for g, c in zip(self._summary.group_labels.tolist(), self._summary.count, strict=True):
            out[self.group_levels.index(g)] += round(c)
        return out

    @property
    def n_unlabeled(self) -> int:
        return self._summary.n_total if self._summary is not None else len(self._u_scores)

    @property
    def groups(self) -> np.ndarray:
        """Group label of each labeled example."""
        return np.asarray(self.group_levels, dtype=object)[self.group_codes]

    @property
    def unlabeled_groups(self) -> np.ndarray:
        """Group label of each unlabeled example."""
        return np.asarray(self.group_levels, dtype=object)[self.unlabeled_group_codes]

    @property
    def predictions(self) -> np.ndarray:
        """Predicted labels of the labeled examples, ``1[score >= threshold]``."""
        return (self.scores >= self.threshold).astype(np.int8)

    def resolve_group(self, label, argument: str = "group"):
        """Return the stored group label equal to ``label`` (also matching by string).

        Parameters
        ----------
        label
            A group label as the user wrote it (``"1"`` finds the group ``1``).
        argument : str, default "group"
            The parameter's name, for the message when there is no such group.
        """
        return check_group(label, self.group_levels, argument)

    def require_groups(self, k: int = 2, what: str = "a group difference") -> None:
        """Raise unless there are at least ``k`` groups (e.g. before a difference).

        Parameters
        ----------
        k : int, default 2
        what : str, default "a group difference"
            What needs the groups, for the message.
        """
        if self.n_groups < k:
            raise InvalidParameterError(
                f"{what[0].upper() + what[1:]} needs at least {k} groups; the data has "
                f"{self.n_groups} ({', '.join(map(str, self.group_levels))})."
            )

    def pairs(self, reference=None) -> list[tuple]:
        """The ``(group, reference)`` pairs compared by default: each group vs the reference."""
        self.require_groups(2)
        ref = self.reference if reference is None else self.resolve_group(reference, "reference")
        return [(g, ref) for g in self.group_levels if g != ref]

    # ------------------------------------------------------------------ counts
    def counts_array(self) -> np.ndarray:
        """Labeled confusion counts, shape ``(n_groups, 4)`` in the order tp, fp, tn, fn."""
        if self._labeled is not None:
            return self._labeled.confusion_counts().round().astype(np.int64)
        return count_confusion(self.predictions, self.labels, self.group_codes, self.n_groups)

    def confusion_counts(self) -> pd.DataFrame:
        """Labeled confusion counts per group (columns ``tp, fp, tn, fn``)."""
        return pd.DataFrame(
            self.counts_array(),
            index=pd.Index(self.group_levels, name="group", dtype=object),
            columns=list(COUNT_NAMES),
        )

    def rates(self, metric: str) -> pd.Series:
        """Labeled frequency estimate of a rate per group; NaN (with a warning) if undefined."""
        values = rate_from_counts(self.counts_array(), metric)
        warn_undefined(values, self.group_levels, metric)
        return pd.Series(
            values,
            index=pd.Index(self.group_levels, name="group", dtype=object),
            name=get_rate(metric).name,
        )

    def group_sizes(self) -> pd.DataFrame:
        """Labeled and unlabeled example counts per group."""
        return pd.DataFrame(
            {
                "n_labeled": self._labeled_counts(),
                "n_unlabeled": self._unlabeled_counts(),
            },
            index=pd.Index(self.group_levels, name="group", dtype=object),
        )

    def unlabeled_summary(self) -> pd.DataFrame:
        """Per-group summary of the unlabeled scores.

        Columns: ``n``, ``n_predicted_positive``, ``mean_score``, ``min``,
        ``median``, ``max``. Rows of groups without unlabeled data hold ``n = 0``
        and NaN elsewhere. For unlabeled data given as a summary, ``min``,
        ``median`` and ``max`` are NaN (a histogram does not keep them).
        """
        if self._summary is not None:
            return self._summary_table()
        rows = []
        for k in range(self.n_groups):
            s = self.unlabeled_scores[self.unlabeled_group_codes == k]
            if s.size:
                rows.append(
                    (
                        s.size,
                        int((s >= self.threshold).sum()),
                        s.mean(),
                        s.min(),
                        np.median(s),
                        s.max(),
                    )
                )
            else:
                rows.append((0, 0, np.nan, np.nan, np.nan, np.nan))
        return pd.DataFrame(
            rows,
            index=pd.Index(self.group_levels, name="group", dtype=object),
            columns=["n", "n_predicted_positive", "mean_score", "min", "median", "max"],
        )

    def _summary_table(self) -> pd.DataFrame:
        sm = self._summary
        codes = np.array(
            [self.group_levels.index(g) for g in sm.group_labels.tolist()], dtype=np.intp
        )
        n = np.bincount(codes, weights=sm.count, minlength=self.n_groups)
        pos = np.bincount(codes, weights=sm.count * sm.side, minlength=self.n_groups)
        total = np.bincount(codes, weights=sm.sum_score, minlength=self.n_groups)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(n > 0, total / n, np.nan)
        nan = np.full(self.n_groups, np.nan)
        return pd.DataFrame(
            {
                "n": n.astype(np.int64),
                "n_predicted_positive": pos.astype(np.int64),
                "mean_score": mean,
                "min": nan,
                "median": nan,
                "max": nan,
            },
            index=pd.Index(self.group_levels, name="group", dtype=object),
        )

    def unlabeled_reduction(self, score_clip: float = 0.01, n_bins: int | None = None):
        """The unlabeled examples as a summary coded to the data's groups (cached).

        The per-group, per-side histograms (:class:`~bayesfair.summary.ScoreSummary`)
        that the calibration models and the prediction-powered intervals use in
        place of the ``n_U`` scores. Computed once per ``(score_clip, n_bins)``
        and kept: the data's arrays are read-only, so it cannot go stale.

        Parameters
        ----------
        score_clip : float, default 0.01
            ε of the clipping of scores to ``[ε, 1 − ε]``.
        n_bins : int, optional
            Bins of the grid in logit(s) per group and side (default
            :data:`~bayesfair.summary.DEFAULT_BINS`).

        Returns
        -------
        ScoreSummary
            With ``levels`` equal to :attr:`group_levels`.
        """
        key = (float(score_clip), DEFAULT_BINS if n_bins is None else int(n_bins))
        cache = self.__dict__.setdefault("_reductions", {})
        if key not in cache and self._summary is not None:
            held = (self._summary.score_clip, self._summary.n_bins)
            if key != held:
                raise InvalidParameterError(
                    f"The unlabeled summary was built with score_clip={held[0]} and "
                    f"n_bins={held[1]}; this needs score_clip={key[0]} and n_bins={key[1]}. "
                    "Summarise again with those settings (a histogram cannot be re-binned)."
                )
            cache[key] = self._summary.with_levels(self.group_levels)
        if key not in cache:
            cache[key] = summarize_arrays(
                self.unlabeled_scores,
                self.unlabeled_group_codes,
                self.group_levels,
                threshold=self.threshold,
                score_clip=key[0],
                n_bins=key[1],
            )
        return cache[key]

    def labeled_summary(self, score_clip: float = 0.01, n_bins: int | None = None):
        """The labeled examples as a summary on the same grid (cached).

        Per group, side and bin: the examples, the positives, and the sums the
        calibration likelihood needs (:mod:`bayesfair.summary`). The models take
        the labeled examples only through it, so a fit costs the same with 100
        labels or 10⁶.

        Parameters
        ----------
        score_clip : float, default 0.01
            ε of the clipping of scores to ``[ε, 1 − ε]``.
        n_bins : int, optional
            Bins of the grid in logit(s) per group and side (default
            :data:`~bayesfair.summary.DEFAULT_BINS`).

        Returns
        -------
        ScoreSummary
            A labeled summary with ``levels`` equal to :attr:`group_levels`.
        """
        key = ("labeled", float(score_clip), DEFAULT_BINS if n_bins is None else int(n_bins))
        cache = self.__dict__.setdefault("_reductions", {})
        if key not in cache and self._labeled is not None:
            held = self._labeled
            if held.score_clip != key[1] or held.n_bins % key[2]:
                raise InvalidParameterError(
                    f"The labeled summary was built with score_clip={held.score_clip} and "
                    f"n_bins={held.n_bins}; this needs score_clip={key[1]} and n_bins={key[2]} "
                    "(a divisor of the summary's). Summarise again with those settings."
                )
            cache[key] = held if held.n_bins == key[2] else held.coarsen(key[2])
        if key not in cache:
            cache[key] = summarize_arrays(
                self.scores,
                self.group_codes,
                self.group_levels,
                labels=self.labels,
                threshold=self.threshold,
                score_clip=key[1],
                n_bins=key[2],
            )
        return cache[key]

    def __repr__(self) -> str:
        return (
            f"AssessmentData(n_labeled={self.n_labeled}, n_unlabeled={self.n_unlabeled}, "
            f"groups={self.group_levels!r}, threshold={self.threshold}, "
            f"reference={self.reference!r})"
        )
