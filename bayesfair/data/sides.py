"""One side's input, checked: what the user passed for the labeled or the unlabeled side.

:func:`labeled_input` and :func:`unlabeled_input` check what the user passed for a
side (rows: scores, labels, groups, ids, their lengths; or a summary, by
:func:`check_summary`) and return a :class:`SideInput`; the groups of both sides
decide the data's group levels, and :meth:`SideInput.build` codes the side to them
as an :class:`~bayesfair.data.examples.ExampleSet`. :func:`common_threshold` and
:func:`common_attributes` reconcile the two sides; :func:`warn_surprising_labels`
and :func:`warn_unlabeled_only` warn about examples that are valid but would
surprise silently.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable

import numpy as np
import pandas as pd

from bayesfair._internal.validation import check_threshold, warn_surprising_examples
from bayesfair.data._inputs import (
    _as_groups,
    _as_labels,
    _as_scores,
    _check_ids,
    _encode,
    check_lengths,
)
from bayesfair.data.examples import ExampleRows, ExampleSet, ExampleSummary
from bayesfair.data.summary import ScoreSummary
from bayesfair.exceptions import InvalidParameterError, UnlabeledGroupWarning


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
