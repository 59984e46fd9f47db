"""Metrics of the score itself, declared like the rates: AUC, the subgroup AUCs, xAUC.

A rate (:mod:`bayesfair.metrics.rates`) is a ratio of the confusion counts at one
threshold. The metrics here read the score along every threshold: they are computed
from each group's positives and negatives in score cells ordered from the lowest
score to the highest (the cells of the binned score summary,
:mod:`bayesfair.data.summary`), so they cost O(cells), whatever the number of rows.
Each is declared once in :data:`SCORE_METRICS`; the posterior reads every one of
them through :func:`score_metric_draws`, and :func:`bayesfair.metrics.rates.get_metric`
finds them by name beside the rates.

* ``"auc"``: the group's AUC, the probability that a positive of the group outscores
  a negative of the group (ties count ½): the Mann–Whitney statistic, and the
  "subgroup AUC" of Borkan et al. (2019, §3.2).
* ``"bpsn_auc"``: *background positive, subgroup negative* (Borkan et al., §3.2): the
  probability that a positive of the other groups outscores a negative of the group.
  Low when the group's negatives score high (false alarms concentrate in it).
* ``"bnsp_auc"``: *background negative, subgroup positive*: the probability that a
  positive of the group outscores a negative of the other groups. Low when the group's
  positives score low (misses concentrate in it).

xAUC (Kallus & Zhou 2019, Def. 1), the probability that a positive of one group
outscores a negative of another, has two directions per pair: :func:`cell_auc` of one
group's positives and the other's negatives.

**Ties.** Two rows in the same cell count ½. The cells are the summary's bins (1,024 on
the logit of the score clipped to ``[ε, 1 − ε]``, split at the threshold): within the
clip a cell is 0.009 wide in logit, so the tie rule moves an AUC by far less than its
sampling error; scores beyond the clip share the end cells.

References
----------
Borkan, Dixon, Sorensen, Thain & Vasserman (2019). *Nuanced metrics for measuring
unintended bias with real data for text classification.* WWW '19 Companion, §3.2.
Kallus & Zhou (2019). *The fairness of risk scores beyond classification: bipartite
ranking and the xAUC metric.* NeurIPS, Def. 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bayesfair._internal.validation import check_array
from bayesfair.exceptions import InvalidParameterError

#: The thresholds of a sweep when none are given: 0.05, 0.10, ..., 0.95.
DEFAULT_THRESHOLDS = tuple(float(t) for t in np.round(np.arange(1, 20) * 0.05, 2))


@dataclass(frozen=True)
class ScoreMetric:
    """A group metric read from the score's distributions among positives and negatives.

    Attributes
    ----------
    name : str
        Canonical short name, e.g. ``"auc"``.
    label : str
        Human-readable name.
    higher_is_better : bool
        Whether a higher value is a better outcome for the group.
    positives, negatives : {"group", "others"}
        Whose positives and whose negatives are compared: the group's own or the other
        groups' (the background of Borkan et al.).
    denominator : tuple of str
        The labeled counts the metric rests on (:data:`~bayesfair.metrics.COUNT_NAMES`),
        as a rate's denominator: the verdict gate requires each of :attr:`evidence`.
    evidence : tuple of tuple of str
        The group's labeled count sums that must each reach the gate's minimum
        (:data:`~bayesfair.metrics.verdicts.MIN_LABELED`): its positives and negatives
        for the AUC, its negatives for BPSN, its positives for BNSP.
    """

    name: str
    label: str
    higher_is_better: bool
    positives: str
    negatives: str
    evidence: tuple

    @property
    def denominator(self) -> tuple[str, ...]:
        return tuple(c for part in self.evidence for c in part)


_POSITIVES = ("tp", "fn")
_NEGATIVES = ("fp", "tn")

_SCORE_LIST = [
    ScoreMetric(
        name="auc",
        label="AUC",
        higher_is_better=True,
        positives="group",
        negatives="group",
        evidence=(_POSITIVES, _NEGATIVES),
    ),
    ScoreMetric(
        name="bpsn_auc",
        label="BPSN AUC (other groups' positives over the group's negatives)",
        higher_is_better=True,
        positives="others",
        negatives="group",
        evidence=(_NEGATIVES,),
    ),
    ScoreMetric(
        name="bnsp_auc",
        label="BNSP AUC (the group's positives over other groups' negatives)",
        higher_is_better=True,
        positives="group",
        negatives="others",
        evidence=(_POSITIVES,),
    ),
]

#: The score metrics, by canonical name.
SCORE_METRICS: dict[str, ScoreMetric] = {m.name: m for m in _SCORE_LIST}


def cell_auc(positives, negatives) -> np.ndarray:
    """The probability that a positive outscores a negative, from counts in ordered cells.

    ``Σ_j n_j (Σ_{j' > j} p_j' + p_j / 2) / (Σ p · Σ n)``: the Mann–Whitney statistic
    with the rows of one cell tied (½).

    Parameters
    ----------
    positives, negatives : array_like, shape (..., n_cells)
        Positives and negatives (counts, or expected counts) in cells ordered from the
        lowest score to the highest; the leading shapes broadcast.

    Returns
    -------
    ndarray, shape (...)
        NaN where there is no positive or no negative.

    Examples
    --------
    >>> float(cell_auc([0, 1, 2], [2, 1, 0]))  # 8 of 9 pairs above, 1 tied
    0.9444444444444444
    """
    pos = check_array(positives, "positives", min_ndim=1)
    neg = check_array(negatives, "negatives", min_ndim=1)
    _same_cells(pos, neg)
    total = pos.sum(axis=-1, keepdims=True)
    above = total - np.cumsum(pos, axis=-1)  # positives in the cells above each cell
    num = (neg * (above + 0.5 * pos)).sum(axis=-1)
    den = total[..., 0] * neg.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def _same_cells(pos: np.ndarray, neg: np.ndarray) -> None:
    if pos.shape[-1] != neg.shape[-1]:
        raise InvalidParameterError(
            "'positives' and 'negatives' must count the same cells (their last axis). Got "
            f"{pos.shape[-1]} and {neg.shape[-1]}."
        )


def counts_above(positives, negatives, cuts) -> np.ndarray:
    """The confusion counts at several thresholds, from counts in ordered cells.

    Parameters
    ----------
    positives, negatives : array_like, shape (..., n_cells)
        As in :func:`cell_auc`.
    cuts : array_like of int, shape (n_thresholds,)
        For each threshold the first cell at or above it (``n_cells``: none).

    Returns
    -------
    ndarray, shape (..., n_thresholds, 4)
        ``tp, fp, tn, fn`` (:data:`~bayesfair.metrics.COUNT_NAMES`) with ŷ = 1 for the
        cells from the cut on.

    Examples
    --------
    >>> counts_above([1, 2, 3], [3, 2, 1], [1, 3]).tolist()
    [[5.0, 3.0, 3.0, 1.0], [0.0, 0.0, 6.0, 6.0]]
    """
    pos = check_array(positives, "positives", min_ndim=1)
    neg = check_array(negatives, "negatives", min_ndim=1)
    _same_cells(pos, neg)
    cuts = np.asarray(check_array(cuts, "cuts", ndim=1), dtype=np.intp)
    if cuts.size and (cuts.min() < 0 or cuts.max() > pos.shape[-1]):
        raise InvalidParameterError(
            f"'cuts' must be cell positions from 0 to {pos.shape[-1]}. Got {cuts.tolist()}."
        )
    zero = np.zeros((*pos.shape[:-1], 1))
    below_pos = np.concatenate([zero, np.cumsum(pos, axis=-1)], axis=-1)[..., cuts]
    below_neg = np.concatenate([zero, np.cumsum(neg, axis=-1)], axis=-1)[..., cuts]
    n_pos = pos.sum(axis=-1, keepdims=True)
    n_neg = neg.sum(axis=-1, keepdims=True)
    return np.stack([n_pos - below_pos, n_neg - below_neg, below_neg, below_pos], axis=-1)


def score_metric_draws(metric: ScoreMetric, positives, negatives) -> np.ndarray:
    """A score metric of every group, from each group's positives and negatives by cell.

    Parameters
    ----------
    metric : ScoreMetric
    positives, negatives : array_like, shape (..., n_groups, n_cells)
        Cells ordered from the lowest score to the highest, the same for every group.

    Returns
    -------
    ndarray, shape (..., n_groups)

    Examples
    --------
    >>> pos = [[0, 1, 2], [1, 1, 0]]
    >>> neg = [[2, 1, 0], [0, 1, 1]]
    >>> score_metric_draws(SCORE_METRICS["bpsn_auc"], pos, neg).round(3).tolist()
    [0.583, 0.583]
    """
    pos = np.asarray(positives, dtype=float)
    neg = np.asarray(negatives, dtype=float)
    if metric.positives == "others":
        pos = pos.sum(axis=-2, keepdims=True) - pos
    if metric.negatives == "others":
        neg = neg.sum(axis=-2, keepdims=True) - neg
    return cell_auc(pos, neg)


def check_thresholds(thresholds) -> np.ndarray:
    """The thresholds of a sweep: numbers in (0, 1), sorted and distinct (default
    :data:`DEFAULT_THRESHOLDS`).

    Examples
    --------
    >>> check_thresholds([0.7, 0.3, 0.7]).tolist()
    [0.3, 0.7]
    """
    if thresholds is None:
        return np.array(DEFAULT_THRESHOLDS)
    t = check_array(thresholds, "thresholds", ndim=1)
    if t.size == 0 or not np.all((t > 0) & (t < 1)):
        raise InvalidParameterError(
            "'thresholds' must be one or more numbers strictly between 0 and 1. "
            f"Got {thresholds!r}."
        )
    return np.unique(t)
