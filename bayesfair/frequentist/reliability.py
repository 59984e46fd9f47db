"""Calibration within groups from the labeled rows: calibration in the large, reliability curves.

The frequentist side of :func:`bayesfair.posterior.calibration_view.calibration_summary`,
from the labeled examples alone (a group's unlabeled rows carry no label):

* :func:`calibration_intervals`: per group, the mean score of the labeled rows,
  their share of positives (a Wilson interval) and the gap between the two
  (*calibration in the large*, Van Calster et al. 2016), with a studentized
  bootstrap interval of the mean of the paired differences ``score − label``.
* :func:`reliability_curve`: per group, the labeled rows binned by the quantiles
  of their scores, each bin's mean score against its share of positives (Wilson
  intervals), with the consistency bars of Bröcker & Smith (2007): where the bin's
  share of positives would lie if the scores were calibrated.

Both need the labeled examples as rows (a summary keeps no row's score and label
together); the two functions refuse a summary with the message of
``ExampleSet.rows``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bayesfair._internal.validation import (
    check_positive_int,
    check_probability,
    check_random_state,
    takes,
)
from bayesfair.frequentist.bootstrap import percentile_interval
from bayesfair.frequentist.intervals import wilson_interval
from bayesfair.metrics.rates import CALIBRATION_COLUMNS

__all__ = ["calibration_intervals", "reliability_curve"]

#: Resampled row positions (or labels) held at a time: the temporaries stay O(this).
_CHUNK = 1 << 22


def _labeled_by_group(data, what: str):
    """``(group, scores, labels)`` of each group's labeled rows, in the data's order."""
    rows = data.labeled_examples.rows(what)
    for k, g in enumerate(data.group_levels):
        keep = rows.codes == k
        yield g, rows.scores[keep], rows.labels[keep].astype(float)


def _studentized_mean_interval(d: np.ndarray, ci_prob: float, n_resamples: int, rng):
    """Bootstrap-t interval of the mean of ``d`` (rows resampled with replacement).

    ``t* = (mean* − mean) / se*`` over the resamples; the interval is
    ``[mean − q_{1−α/2} se, mean − q_{α/2} se]`` with the order statistics of ``t*``
    (a resample whose rows are all alike has ``se* = 0``: its ``t*`` is ±∞, or 0
    when its mean is the sample's). NaN below two rows.
    """
    n = d.size
    if n < 2:
        return np.nan, np.nan
    mean, se = d.mean(), d.std(ddof=1) / np.sqrt(n)
    t = np.empty(n_resamples)
    step = max(1, _CHUNK // n)
    for start in range(0, n_resamples, step):
        size = min(step, n_resamples - start)
        draw = d[rng.integers(0, n, size=(size, n))]
        m, s = draw.mean(axis=1), draw.std(axis=1, ddof=1) / np.sqrt(n)
        with np.errstate(divide="ignore", invalid="ignore"):
            t[start : start + size] = np.where(s > 0, (m - mean) / s, np.sign(m - mean) * np.inf)
    t = np.nan_to_num(t, nan=0.0, posinf=np.inf, neginf=-np.inf)
    alpha = 1.0 - ci_prob
    lo_q, hi_q = np.quantile(t, [alpha / 2, 1 - alpha / 2], method="inverted_cdf")
    with np.errstate(invalid="ignore"):
        lower, upper = mean - hi_q * se, mean - lo_q * se
    if se == 0:  # every row alike: every resample is the sample
        lower = upper = mean
    return float(np.clip(lower, -1.0, 1.0)), float(np.clip(upper, -1.0, 1.0))


@takes("AssessmentData")
def calibration_intervals(
    data, ci_prob: float = 0.95, n_resamples: int = 2000, random_seed=None
) -> pd.DataFrame:
    """Per group, calibration in the large on the labeled rows: mean score minus positive rate.

    Parameters
    ----------
    data : AssessmentData
        Only the labeled examples are used, as rows (a labeled summary raises
        :class:`~bayesfair.exceptions.InvalidParameterError`).
    ci_prob : float, default 0.95
        Coverage probability of the intervals, in (0, 1).
    n_resamples : int, default 2000
        Bootstrap resamples of each group's labeled rows (for the gap).
    random_seed : None, int, SeedSequence or Generator, optional
        Spawned into one child generator per group.

    Returns
    -------
    pandas.DataFrame
        One row per group (the data's order): ``group, n_labeled, mean_score,
        positive_rate, positive_rate_lower, positive_rate_upper, calibration_gap,
        calibration_gap_lower, calibration_gap_upper``.

        * ``mean_score``: the mean raw score of the group's labeled rows;
          ``positive_rate`` their share of positives, with a Wilson score interval
          (:func:`~bayesfair.frequentist.wilson_interval`).
        * ``calibration_gap = mean_score − positive_rate``: positive where the scores
          overstate the group's positives. Its interval is the studentized bootstrap
          (bootstrap-t) interval of the mean of the paired differences
          ``d_i = s_i − y_i``, clipped to [−1, 1].

        A group without labeled rows has ``n_labeled`` 0 and NaN elsewhere; with one
        row, the gap's interval is NaN. ``attrs``: ``ci_prob``, ``rate_interval``
        (``"wilson"``), ``gap_interval`` (``"studentized bootstrap"``),
        ``n_resamples``.

    Notes
    -----
    **Why the paired form with a studentized bootstrap.** The gap is exactly the
    mean of ``d_i = s_i − y_i`` over the same rows, so its interval must keep the
    pairing: ``Var(d) = Var(s) + Var(y) − 2 Cov(s, y)`` is far below the sum of the
    two variances when the scores are informative, and an interval that combined
    the score mean's and the Wilson interval's widths as if independent would be
    much too wide. A percentile bootstrap of the rows keeps the pairing (its
    resamples are the same as the paired mean's) but is first-order accurate only,
    and too narrow in small groups (its spread is the plug-in's, with no
    t-quantile). ``d`` is skewed where a group's base rate is far from 1/2 (mostly
    small values of one sign, a few near ∓1), where the Student t interval errs
    on one side. The bootstrap-t studentizes each resample, which makes it
    second-order accurate under skew (Hall 1988), and it reduces to the t interval
    when ``d`` is symmetric.

    The labeled rows are the only rows with a label: the gap is that of the
    labeled sample, an estimate of the group's population gap
    ``E[s] − P(y = 1)`` when the labeled rows are a random sample of the group.

    References
    ----------
    Van Calster et al. (2016), *A calibration hierarchy for risk models was defined:
    from utopia to empirical data*, J. Clin. Epidemiol. 74, 167–176 (calibration in
    the large); Kleinberg, Mullainathan & Raghavan (2017), ITCS (calibration within
    groups); Wilson (1927), *J. Am. Stat. Assoc.* 22, 209–212; Hall (1988),
    *Theoretical comparison of bootstrap confidence intervals*, Ann. Statist. 16,
    927–953; Efron & Tibshirani (1994), *An Introduction to the Bootstrap*, §12.5
    (bootstrap-t).

    Examples
    --------
    >>> from bayesfair import AssessmentData
    >>> data = AssessmentData(scores=[.9, .8, .3, .7, .2, .6], labels=[1, 1, 0, 1, 0, 0],
    ...                       groups=["a", "a", "a", "b", "b", "b"])
    >>> table = calibration_intervals(data, n_resamples=200, random_seed=0)
    >>> table[["group", "mean_score", "positive_rate"]].round(3).values.tolist()
    [['a', 0.667, 0.667], ['b', 0.5, 0.333]]
    """
    ci_prob = check_probability(ci_prob)
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    children = check_random_state(random_seed).spawn(data.n_groups)
    rows = []
    for (g, s, y), rng in zip(
        _labeled_by_group(data, "calibration_intervals"), children, strict=True
    ):
        n = s.size
        if n == 0:
            rows.append({"group": g, "n_labeled": 0})
            continue
        lo, hi = wilson_interval(int(y.sum()), n, ci_prob)
        gap_lo, gap_hi = _studentized_mean_interval(s - y, ci_prob, n_resamples, rng)
        rows.append(
            {
                "group": g,
                "n_labeled": n,
                "mean_score": float(s.mean()),
                "positive_rate": float(y.mean()),
                "positive_rate_lower": lo,
                "positive_rate_upper": hi,
                "calibration_gap": float(np.mean(s - y)),
                "calibration_gap_lower": gap_lo,
                "calibration_gap_upper": gap_hi,
            }
        )
    # the Bayesian table's columns up to its decision: the two sides read alike
    columns = CALIBRATION_COLUMNS[: CALIBRATION_COLUMNS.index("decision")]
    out = pd.DataFrame(rows, columns=columns).astype({"n_labeled": np.int64})
    out.attrs.update(
        ci_prob=ci_prob,
        rate_interval="wilson",
        gap_interval="studentized bootstrap",
        n_resamples=n_resamples,
    )
    return out


def _quantile_bins(s: np.ndarray, n_bins: int) -> np.ndarray:
    """Each row's bin: the row of rank ``r`` (from 0, of ``n``) is in bin ``⌊r n_bins / n⌋``,
    between the ``j / n_bins`` and ``(j + 1) / n_bins`` quantiles; tied scores share the bin
    of the first of them, and the bins left non-empty are numbered from 0."""
    order = np.argsort(s, kind="stable")
    ordered = s[order]
    first = np.searchsorted(ordered, ordered, side="left")  # the rank of a tie's first row
    _, bins = np.unique(first * n_bins // s.size, return_inverse=True)
    which = np.empty(s.size, dtype=np.intp)
    which[order] = bins.ravel()
    return which


def _consistency_bar(s: np.ndarray, ci_prob: float, n_resamples: int, rng) -> tuple:
    """Percentile interval of a bin's share of positives with labels drawn as Bernoulli(s)."""
    n = s.size
    share = np.empty(n_resamples)
    step = max(1, _CHUNK // n)
    for start in range(0, n_resamples, step):
        size = min(step, n_resamples - start)
        share[start : start + size] = (rng.random((size, n)) < s).mean(axis=1)
    lo, hi = percentile_interval(share, ci_prob)
    return float(lo), float(hi)


@takes("AssessmentData")
def reliability_curve(
    data, n_bins: int = 10, ci_prob: float = 0.95, n_resamples: int = 1000, random_seed=None
) -> pd.DataFrame:
    """Per group, a reliability curve of the labeled rows: binned mean score against positives.

    Parameters
    ----------
    data : AssessmentData
        Only the labeled examples are used, as rows (a labeled summary raises
        :class:`~bayesfair.exceptions.InvalidParameterError`).
    n_bins : int, default 10
        Bins per group, between the quantiles ``j / n_bins`` of the group's labeled
        scores (equal-count bins: the row of rank ``r`` of ``n`` is in bin
        ``⌊r n_bins / n⌋``); tied scores share a bin, so there are fewer where scores
        tie or the group has fewer rows than ``n_bins``.
    ci_prob : float, default 0.95
        Coverage probability of the Wilson intervals and of the consistency bars.
    n_resamples : int, default 1000
        Label draws of the consistency bars.
    random_seed : None, int, SeedSequence or Generator, optional
        Spawned into one child generator per group.

    Returns
    -------
    pandas.DataFrame
        One row per group and bin: ``group, bin, score_lower, score_upper, n,
        mean_score, positive_rate, positive_rate_lower, positive_rate_upper,
        consistency_lower, consistency_upper``.

        * ``bin`` counts from 0 within the group, by increasing score; no bin is
          empty. ``score_lower`` and ``score_upper`` are the lowest and highest score
          of its rows (a bin's ``score_upper`` is below the next one's
          ``score_lower``).
        * ``positive_rate``: the bin's share of positives, with a Wilson score
          interval (``_lower``, ``_upper``): pointwise, not adjusted over the bins.
          Wilson, not a bootstrap: a bin of ten rows without a positive has the
          percentile bootstrap interval [0, 0], and Wilson's coverage stays near
          ``ci_prob`` for small bins (Brown, Cai & DasGupta 2001).
        * ``consistency_lower``, ``consistency_upper``: the consistency bar
          (Bröcker & Smith 2007) with the bin's scores fixed: the central
          ``ci_prob`` range of the bin's share of positives if each row's label
          were drawn with probability its score, from ``n_resamples`` draws. A
          ``positive_rate`` outside it is evidence that the scores are not
          calibrated there.

        A group without labeled rows has no row. ``attrs``: ``ci_prob``,
        ``n_bins``, ``band`` (``"wilson"``), ``n_resamples``.

    References
    ----------
    Bröcker & Smith (2007), *Increasing the reliability of reliability diagrams*,
    Weather Forecast. 22, 651–661 (consistency bars); Brown, Cai & DasGupta
    (2001), *Interval estimation for a binomial proportion*, Statist. Sci. 16,
    101–133; Wilson (1927).

    Examples
    --------
    >>> from bayesfair import AssessmentData
    >>> data = AssessmentData(scores=[.1, .2, .8, .9, .3, .7], labels=[0, 0, 1, 1, 0, 1],
    ...                       groups=["a", "a", "a", "a", "b", "b"])
    >>> curve = reliability_curve(data, n_bins=2, n_resamples=100, random_seed=0)
    >>> curve[["group", "bin", "n", "positive_rate"]].values.tolist()
    [['a', 0, 2, 0.0], ['a', 1, 2, 1.0], ['b', 0, 1, 0.0], ['b', 1, 1, 1.0]]
    """
    n_bins = check_positive_int(n_bins, "n_bins")
    ci_prob = check_probability(ci_prob)
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    children = check_random_state(random_seed).spawn(data.n_groups)
    rows = []
    for (g, s, y), rng in zip(_labeled_by_group(data, "reliability_curve"), children, strict=True):
        if s.size == 0:
            continue
        which = _quantile_bins(s, n_bins)
        for j in range(which.max() + 1):
            keep = which == j
            sb, yb = s[keep], y[keep]
            lo, hi = wilson_interval(int(yb.sum()), sb.size, ci_prob)
            c_lo, c_hi = _consistency_bar(sb, ci_prob, n_resamples, rng)
            rows.append(
                (g, j, sb.min(), sb.max(), sb.size, sb.mean(), yb.mean(), lo, hi, c_lo, c_hi)
            )
    columns = [
        "group",
        "bin",
        "score_lower",
        "score_upper",
        "n",
        "mean_score",
        "positive_rate",
        "positive_rate_lower",
        "positive_rate_upper",
        "consistency_lower",
        "consistency_upper",
    ]
    out = pd.DataFrame(rows, columns=columns)
    out = out.astype({"bin": np.int64, "n": np.int64, "group": object})
    out.attrs.update(ci_prob=ci_prob, n_bins=n_bins, band="wilson", n_resamples=n_resamples)
    return out
