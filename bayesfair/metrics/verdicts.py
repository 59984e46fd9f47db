"""One gate for every verdict: enough evidence for a group's rate, then the ROPE rule.

Every "practically fair", "unfair" and "undecided" that bayesfair prints, in a table,
a sentence or a report, is decided by :func:`decide`: first the *evidence* behind each
group's rate must reach :data:`MIN_LABELED` and :data:`MIN_ROWS`
(:class:`Evidence`); below them the verdict is ``"too few"``; above them it is the
HDI + ROPE rule (:func:`bayesfair.stats.rope_decision`, Kruschke 2018) on the
interval.

**The rule.** A group's rate carries a verdict when

1. at least :data:`MIN_LABELED` (10) of the group's *labeled* rows fall in the rate's
   denominator (labeled positives for TPR and FNR, labeled negatives for FPR and TNR,
   labeled predicted positives for PPV and FDR, every labeled row for accuracy and
   the calibration gap), unless the rate does not depend on the labels at all (the
   selection rate, known from the scores); and
2. the group has at least :data:`MIN_ROWS` (30) rows assessed (labeled and unlabeled
   together; the labeled rows alone for a method that reads only them).

A gap between two groups, or of a group to all rows, is gated by the groups it
compares; a family's verdict (max − min over groups) is taken over the groups that
pass, and names the ones set aside.

**Why these numbers.** (2) is the minimum sample size of the NCHS standards for
presenting proportions (Parker et al. 2017): below 30 the estimate of a proportion is
not presented at all. It matters most under the default *assessed-rows* estimand,
where a group seen only through a handful of labeled rows has its rates known
*exactly* (there is nothing left to infer about those rows), so an interval of zero
width would headline the report as a finding about the group; and for a method that
reads the labeled rows only, where ten rows with one positive gave a bootstrap
interval that excluded the truth. (1) is the evidence that ties a group's rate to the
truth: below 10 labeled rows in the denominator the rate's resamples take a handful
of values (:data:`bayesfair.frequentist.groups.MIN_BOOTSTRAP_TRIALS`, the same 10,
below which the frequentist band falls back on Bonferroni–Wilson) and the group's
calibration map cannot be checked against its labels. Both numbers are deliberately
not options: a verdict means the same thing in every report.

Below the gate the group's rate is still shown, with :func:`population_interval`,
the Jeffreys interval of its rate in the population its rows come from, never the
exact value of its assessed rows.

References
----------
Parker, J. D., Talih, M., Malec, D. J., et al. (2017). *National Center for Health
Statistics Data Presentation Standards for Proportions.* Vital Health Stat 2(175),
§ "Sample size".

Kruschke, J. K. (2018). Rejecting or accepting parameter values in Bayesian
estimation. *Advances in Methods and Practices in Psychological Science* 1(2).

Brown, L. D., Cai, T. T., DasGupta, A. (2001). Interval estimation for a binomial
proportion. *Statistical Science* 16(2), §4.1 (the Jeffreys interval).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from bayesfair._internal.validation import check_array, check_counts, check_probability
from bayesfair.metrics.rates import COUNT_NAMES, get_metric, get_rate
from bayesfair.metrics.scores import ScoreMetric
from bayesfair.stats import Interval, rope_decision

#: Labeled rows of a group in a rate's denominator below which it carries no verdict.
MIN_LABELED = 10
#: Rows assessed in a group below which its rates carry no verdict.
MIN_ROWS = 30
#: The verdict of a rate, gap or pair below the gate.
TOO_FEW = "too few"

# sums of counts that the scores alone decide (predicted positives, negatives, all)
_LABEL_FREE = ({"tp", "fp"}, {"tn", "fn"}, set(COUNT_NAMES))

_DENOMINATOR_WORDS = {
    ("tp", "fn"): "labeled positives",
    ("fp", "tn"): "labeled negatives",
    ("tp", "fp"): "labeled predicted positives",
    ("tn", "fn"): "labeled predicted negatives",
}


def needs_labels(metric: str) -> bool:
    """Whether a rate depends on the true labels (False for the selection rate).

    Examples
    --------
    >>> needs_labels("tpr"), needs_labels("selection_rate")
    (True, False)
    """
    rate = get_rate(metric)
    return not (set(rate.numerator) in _LABEL_FREE and set(rate.denominator) in _LABEL_FREE)


@dataclass(frozen=True)
class Evidence:
    """The evidence behind one group's rate.

    Attributes
    ----------
    group : object
        The group's label.
    labeled : int
        The group's labeled rows in the rate's denominator.
    rows : int
        The group's rows assessed (labeled and unlabeled; the labeled rows for a method
        that reads only them).
    labels_needed : bool
        False for a rate the scores decide alone (the selection rate): then
        ``labeled`` is not required to reach :data:`MIN_LABELED`.
    denominator : str
        The denominator's rows in words ("labeled positives"), for messages.
    """

    group: object
    labeled: int
    rows: int
    labels_needed: bool = True
    denominator: str = "labeled rows"

    @property
    def enough(self) -> bool:
        """Whether the group passes the gate (module docstring)."""
        labeled_ok = self.labeled >= MIN_LABELED or not self.labels_needed
        return labeled_ok and self.rows >= MIN_ROWS

    def shortfall(self) -> str:
        """What is missing, in words ("" when :attr:`enough`).

        Examples
        --------
        >>> Evidence("Native", labeled=1, rows=1).shortfall()
        'Native: 1 labeled rows (10 needed), 1 rows assessed (30 needed)'
        """
        if self.enough:
            return ""
        parts = []
        if self.labels_needed and self.labeled < MIN_LABELED:
            parts.append(f"{self.labeled} {self.denominator} ({MIN_LABELED} needed)")
        if self.rows < MIN_ROWS:
            parts.append(f"{self.rows} rows assessed ({MIN_ROWS} needed)")
        return f"{self.group}: {', '.join(parts)}"


def rate_evidence(group, labeled_counts, rows: int, metric: str) -> Evidence:
    """The :class:`Evidence` for ``metric`` in one group from its labeled counts.

    Parameters
    ----------
    group : object
        The group's label.
    labeled_counts : array_like of int, shape (4,)
        The group's labeled ``tp, fp, tn, fn`` (:data:`~bayesfair.metrics.COUNT_NAMES`).
    rows : int
        The group's rows assessed.
    metric : str
        A rate of the catalogue.

    Examples
    --------
    >>> rate_evidence("A", [12, 3, 40, 5], rows=5000, metric="tpr")
    Evidence(group='A', labeled=17, rows=5000, labels_needed=True, denominator='labeled positives')
    """
    rate = get_metric(metric)
    counts = np.asarray(labeled_counts, dtype=float).reshape(-1)
    if isinstance(rate, ScoreMetric):  # each of its sums must reach the gate: the fewest
        sums = [counts[[COUNT_NAMES.index(c) for c in part]].sum() for part in rate.evidence]
        fewest = int(np.argmin(sums))
        words = _DENOMINATOR_WORDS[rate.evidence[fewest]]
        return Evidence(group, round(float(sums[fewest])), int(rows), True, words)
    labeled = round(float(counts[rate.denominator_index].sum()))
    words = _DENOMINATOR_WORDS.get(tuple(rate.denominator), "labeled rows")
    return Evidence(group, labeled, int(rows), needs_labels(metric), words)


def shortfall_text(evidence: Iterable[Evidence]) -> str:
    """The shortfalls of the groups below the gate, joined ("" when every group passes)."""
    return "; ".join(e.shortfall() for e in evidence if not e.enough)


def decide(lo: float, hi: float, epsilon: float, evidence: Iterable[Evidence] = ()) -> str:
    """The verdict of an interval ``[lo, hi]`` of a gap, behind the gate.

    ``"undefined"`` for a NaN interval (the gap is defined in no draw); ``"too few"``
    when any group the gap compares is below the gate (:attr:`Evidence.enough`); else
    the HDI + ROPE rule (:func:`bayesfair.stats.rope_decision`): ``"practically
    fair"``, ``"unfair"`` or ``"undecided"``.

    Parameters
    ----------
    lo, hi : float
        The interval's bounds.
    epsilon : float
        Half-width of the region of practical equivalence.
    evidence : iterable of Evidence
        One per group the gap compares (none: the ROPE rule alone).

    Examples
    --------
    >>> decide(0.06, 0.14, 0.02, [Evidence("Native", 1, 1), Evidence("White", 80, 20000)])
    'too few'
    >>> decide(0.06, 0.14, 0.02, [Evidence("Black", 38, 9000), Evidence("White", 80, 20000)])
    'unfair'
    """
    if np.isnan(lo):  # no draw or resample defines the gap: not a matter of evidence
        return "undefined"
    if not all(e.enough for e in evidence):
        return TOO_FEW
    return rope_decision(lo, hi, epsilon)


def family_level(ci_prob: float, size: int) -> float:
    """The level of each of ``size`` intervals that hold together at ``ci_prob``
    (Bonferroni): ``1 − (1 − ci_prob) / size``.

    A report's verdicts hold as a family: each metric's group and family views are joint
    over the groups at this level, so that over ``size`` metrics they hold together at
    ``ci_prob`` (the pairs' verdicts read one simultaneous band over pairs and metrics
    instead, :mod:`bayesfair.report.verdicts`).

    Parameters
    ----------
    ci_prob : float
        The level the intervals hold at together.
    size : int
        How many intervals (at least 1).

    Returns
    -------
    float

    Examples
    --------
    >>> family_level(0.95, 3)
    0.9833333333333333
    """
    return 1.0 - (1.0 - ci_prob) / max(int(size), 1)


def population_interval(successes, trials, ci_prob: float = 0.95) -> Interval:
    """The Jeffreys interval of a group's rate in the population its rows come from.

    The equal-tailed ``ci_prob`` interval of Beta(x + 1/2, n − x + 1/2), with the lower
    bound 0 at x = 0 and the upper 1 at x = n (Brown, Cai & DasGupta 2001, §4.1); what a
    group below the gate shows in place of its assessed rows' rate.

    Parameters
    ----------
    successes, trials : array_like of int
        Broadcastable counts with ``0 <= successes <= trials``.
    ci_prob : float, default 0.95

    Returns
    -------
    Interval
        Kind ``"jeffreys"``; float bounds for scalar counts; NaN where ``trials == 0``.

    Examples
    --------
    >>> lo, hi = population_interval(1, 1)
    >>> round(lo, 3), round(hi, 3)
    (0.147, 1.0)
    """
    successes = check_array(successes, "successes", numeric=False)  # values: check_counts
    trials = check_array(trials, "trials", numeric=False)
    ci_prob = check_probability(ci_prob)
    x, n = check_counts(successes, trials, shape="broadcast")
    from scipy import stats as _st  # about a second: imported when used

    tail = (1.0 - ci_prob) / 2.0
    with np.errstate(invalid="ignore", divide="ignore"):
        lower = _st.beta.ppf(tail, x + 0.5, n - x + 0.5)
        upper = _st.beta.ppf(1.0 - tail, x + 0.5, n - x + 0.5)
    lower = np.where(n > 0, np.where(x == 0, 0.0, lower), np.nan)
    upper = np.where(n > 0, np.where(x == n, 1.0, upper), np.nan)
    if lower.ndim == 0:  # scalar counts: float bounds
        lower, upper = float(lower), float(upper)
    return Interval(lower, upper, ci_prob=ci_prob, kind="jeffreys")
