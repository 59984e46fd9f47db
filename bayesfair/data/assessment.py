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

import numpy as np
import pandas as pd

from bayesfair._internal.validation import check_group
from bayesfair.data._inputs import RowAttribute, _ordered_levels
from bayesfair.data.examples import ExampleSet
from bayesfair.data.frames import from_frames
from bayesfair.data.periods import attach_periods
from bayesfair.data.proxy import check_proxy
from bayesfair.data.sides import (
    common_attributes,
    common_threshold,
    labeled_input,
    unlabeled_input,
    warn_surprising_labels,
    warn_unlabeled_only,
)
from bayesfair.exceptions import InvalidParameterError
from bayesfair.metrics.rates import COUNT_NAMES, get_rate, rate_from_counts, warn_undefined

logger = logging.getLogger("bayesfair")


class AssessmentData:
    """Labeled and unlabeled classifier outputs, validated and grouped.

    Each side is held as one :class:`~bayesfair.data.examples.ExampleSet`
    (:attr:`labeled_examples`, :attr:`unlabeled_examples`): rows in memory, or
    a summary built where the rows live. Every constructor goes through
    ``__init__``.

    Parameters
    ----------
    scores : array_like of float, shape (n_L,)
        Classifier scores of the labeled examples, in [0, 1]. ``scores``,
        ``labels`` and ``groups`` are given together, or not at all when the
        labeled examples come as a summary (``labeled``). They are paired by
        position: a pandas Series' index is not aligned (to pair rows by index,
        pass the columns of one DataFrame, or use :meth:`from_frames`).
    labels : array_like, shape (n_L,)
        True labels: ``{0, 1}``, bool, or any two values with ``pos_label``.
    groups : array_like, shape (n_L,) or (n_L, n_attributes), or DataFrame
        Sensitive-attribute value(s) per labeled example (strings or integers).
        Several attributes (columns) define intersectional groups labelled
        ``"value1 & value2"``; two combinations of values that would get one label
        (``("a & b", "c")`` and ``("a", "b & c")``) are refused.
    unlabeled_scores : array_like of float, shape (n_U,), optional
        Scores of the unlabeled examples.
    unlabeled_groups : array_like, shape (n_U,) or (n_U, n_attributes), optional
        Their sensitive-attribute value(s), in the same form as ``groups``.
    threshold : float, optional
        Decision threshold in (0, 1): ``ŷ = 1`` when ``score >= threshold``.
        Default 0.5, or the threshold ``labeled`` was built with. A summary built
        with another threshold than the data's is refused.
    pos_label : optional
        The positive label, required when the labels are not ``{0, 1}``, bool, or
        ``"true"``/``"false"`` written as text (any case; a Parquet file's text column).
    reference : optional
        The reference (privileged) group for differences and ratios. Default:
        the group with the most labeled examples.
    labeled : ScoreSummary, optional
        The labeled examples as a summary built with labels
        (``bayesfair.summarize(source, ..., label=...)``) in place of ``scores``,
        ``labels`` and ``groups``; see :meth:`from_summaries`.
    unlabeled : ScoreSummary, optional
        The unlabeled examples as a summary (:func:`bayesfair.summarize_unlabeled`)
        in place of ``unlabeled_scores`` and ``unlabeled_groups``.
    unlabeled_ids : array_like, shape (n_U,), optional
        Unique ids of the unlabeled examples, returned by
        :func:`bayesfair.suggest_labels`.
    id_name : str, default "id"
        The name of the ids (the column name in :func:`bayesfair.suggest_labels`' table).
    periods, unlabeled_periods : array_like, optional
        Each labeled and unlabeled example's period, for an audit over time: dates,
        numbers or labels that order the rows in time (an ordered pandas
        ``Categorical`` keeps its order). :func:`bayesfair.fit` then fits each
        period's maps, and the result's ``period_summary`` gives each period's gaps
        (:mod:`bayesfair.posterior.periods`). Periods need rows, not summaries.
    proxy : ProxyData, optional
        Rows whose group is known only as a proxy's probabilities, and rows of known
        group that carry the proxy too (:mod:`bayesfair.data.proxy`); built by
        :meth:`from_frames` with ``group_probabilities``. The groups are then the
        proxy's, and the labeled and unlabeled examples are the rows of known group.

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
        scores=None,
        labels=None,
        groups=None,
        unlabeled_scores=None,
        unlabeled_groups=None,
        *,
        threshold: float | None = None,
        pos_label=None,
        reference=None,
        labeled=None,
        unlabeled=None,
        unlabeled_ids=None,
        id_name: str = "id",
        periods=None,
        unlabeled_periods=None,
        proxy=None,
    ):
        lab, self.pos_label = labeled_input(
            scores, labels, groups, labeled, pos_label, allow_empty=proxy is not None
        )
        unl = unlabeled_input(unlabeled_scores, unlabeled_groups, unlabeled, unlabeled_ids)
        self.threshold = common_threshold(threshold, lab, unl)
        self.attributes = common_attributes(lab, unl)
        self.id_name = str(id_name)
        self.group_levels: list = _ordered_levels(lab.group_labels, unl.group_labels)
        #: The rows whose group a proxy gives as probabilities (None without a proxy).
        self.proxy = check_proxy(proxy, self.group_levels, periods)
        if self.proxy is not None:
            self.group_levels = list(self.proxy.levels)
        self.labeled_examples: ExampleSet = lab.build(self.group_levels, self.threshold)
        self.unlabeled_examples: ExampleSet = unl.build(self.group_levels, self.threshold)
        self.period_levels = attach_periods(
            self.labeled_examples, self.unlabeled_examples, periods, unlabeled_periods
        )
        # after every check: a set that is refused is not also warned about
        warn_surprising_labels(self.labeled_examples, self.pos_label)
        if self.proxy is None or self.n_labeled > 0:  # else every labeled row's group is latent
            warn_unlabeled_only(self.group_levels, self.labeled_examples.group_counts())
        self.reference = (
            self.group_levels[int(np.argmax(self.labeled_examples.group_counts()))]
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
        >>> from bayesfair.data.summary import summarize_arrays
        >>> lab = summarize_arrays(np.array([0.9, 0.2, 0.7, 0.4]), np.array([0, 0, 1, 1]),
        ...                        ["a", "b"], labels=np.array([1, 0, 0, 1]))
        >>> data = AssessmentData.from_summaries(lab)
        >>> data.confusion_counts().loc["a"].tolist()  # tp, fp, tn, fn
        [1, 0, 1, 0]
        """
        return cls(labeled=labeled, unlabeled=unlabeled, reference=reference, pos_label=pos_label)

    #: :func:`bayesfair.data.frames.from_frames`: the data from a labeled and an unlabeled frame.
    from_frames = classmethod(from_frames)

    # ------------------------------------------------------------------ the two sides
    @property
    def labeled_is_summary(self) -> bool:
        """Whether the labeled examples are held as a summary (:meth:`from_summaries`)."""
        return self.labeled_examples.is_summary

    @property
    def unlabeled_is_summary(self) -> bool:
        """Whether the unlabeled examples are held as a summary, not as rows."""
        return self.unlabeled_examples.is_summary

    scores = RowAttribute("labeled_examples", "scores", "Scores of the labeled examples.")
    labels = RowAttribute(
        "labeled_examples", "labels", "True labels (0/1) of the labeled examples."
    )
    group_codes = RowAttribute("labeled_examples", "codes", "Group code of each labeled example.")
    unlabeled_scores = RowAttribute(
        "unlabeled_examples", "scores", "Scores of the unlabeled examples."
    )
    unlabeled_group_codes = RowAttribute(
        "unlabeled_examples", "codes", "Group code of each unlabeled example."
    )

    @property
    def unlabeled_ids(self) -> np.ndarray | None:
        """Ids of the unlabeled examples (the column ``id_name``), or None without ids."""
        return getattr(self.unlabeled_examples, "ids", None)

    @property
    def n_groups(self) -> int:
        return len(self.group_levels)

    @property
    def n_labeled(self) -> int:
        return self.labeled_examples.n_total

    @property
    def n_unlabeled(self) -> int:
        return self.unlabeled_examples.n_total

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
    def confusion_counts(self) -> pd.DataFrame:
        """Labeled confusion counts per group (columns ``tp, fp, tn, fn``)."""
        return pd.DataFrame(
            self.labeled_examples.confusion_counts(),
            index=pd.Index(self.group_levels, name="group", dtype=object),
            columns=list(COUNT_NAMES),
        )

    def rates(self, metric: str) -> pd.Series:
        """Labeled frequency estimate of a rate per group; NaN (with a warning) if undefined."""
        values = rate_from_counts(self.labeled_examples.confusion_counts(), metric)
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
                "n_labeled": self.labeled_examples.group_counts(),
                "n_unlabeled": self.unlabeled_examples.group_counts(),
            },
            index=pd.Index(self.group_levels, name="group", dtype=object),
        )

    def unlabeled_score_table(self) -> pd.DataFrame:
        """Per group, a table of the unlabeled scores.

        Columns: ``n``, ``n_predicted_positive``, ``mean_score``, ``min``,
        ``median``, ``max``. Rows of groups without unlabeled data hold ``n = 0``
        and NaN elsewhere. For unlabeled data given as a summary, ``min``,
        ``median`` and ``max`` are NaN (a histogram does not keep them).

        (A table, not a *summary*: in bayesfair a summary is a
        :class:`~bayesfair.ScoreSummary`, the histogram a fit reads, or a result's
        table of differences, ``res.summary()``.)
        """
        return self.unlabeled_examples.score_table()

    def unlabeled_reduction(self, score_clip: float = 0.01, n_bins: int | None = None):
        """The unlabeled examples as a summary coded to the data's groups (cached).

        The per-group, per-side histograms (:class:`~bayesfair.data.summary.ScoreSummary`)
        that the calibration models and the prediction-powered intervals use in
        place of the ``n_U`` scores. Computed once per ``(score_clip, n_bins)``
        and kept: the data's arrays are read-only, so it cannot go stale.

        Parameters
        ----------
        score_clip : float, default 0.01
            ε of the clipping of scores to ``[ε, 1 − ε]``.
        n_bins : int, optional
            Bins of the grid in logit(s) per group and side (default
            :data:`~bayesfair.data.summary.DEFAULT_BINS`).

        Returns
        -------
        ScoreSummary
            With ``levels`` equal to :attr:`group_levels`.
        """
        return self.unlabeled_examples.summary(score_clip, n_bins)

    def labeled_summary(self, score_clip: float = 0.01, n_bins: int | None = None):
        """The labeled examples as a summary on the same grid (cached).

        Per group, side and bin: the examples, the positives, and the sums the
        calibration likelihood needs (:mod:`bayesfair.data.summary`). The models take
        the labeled examples only through it, so a fit costs the same with 100
        labels or 10⁶.

        Parameters
        ----------
        score_clip : float, default 0.01
            ε of the clipping of scores to ``[ε, 1 − ε]``.
        n_bins : int, optional
            Bins of the grid in logit(s) per group and side (default
            :data:`~bayesfair.data.summary.DEFAULT_BINS`).

        Returns
        -------
        ScoreSummary
            A labeled summary with ``levels`` equal to :attr:`group_levels`.
        """
        return self.labeled_examples.summary(score_clip, n_bins)

    def __repr__(self) -> str:
        return (
            f"AssessmentData(n_labeled={self.n_labeled}, n_unlabeled={self.n_unlabeled}, "
            f"groups={self.group_levels!r}, threshold={self.threshold}, "
            f"reference={self.reference!r})"
        )
