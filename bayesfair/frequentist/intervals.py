"""Frequency estimates of group rates and their differences, with intervals.

Per group, the rate ``x/n`` with a Wilson score interval; for the difference
of two groups' rates, Newcombe's hybrid score interval (Newcombe 1998, method
10) and a percentile bootstrap interval that resamples within groups with the
group sizes fixed.

NumPy functions (:func:`wilson_interval`, :func:`newcombe_interval`,
:func:`bootstrap_difference`) take counts and broadcast; the labelled layer
(:func:`rate_intervals`, :func:`difference_intervals`) reads an
:class:`~bayesfair.AssessmentData` and returns DataFrames indexed by group.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import ndtri

from bayesfair._internal.validation import (
    check_array,
    check_counts,
    check_positive_int,
    check_probability,
    check_random_state,
    takes,
)
from bayesfair.exceptions import InvalidParameterError
from bayesfair.frequentist.bootstrap import (
    BootstrapEstimate,
    check_resampler,
    percentile_interval,
    resample_successes,
    resamples_to_itself,
)
from bayesfair.metrics.rates import get_rate, rate_fraction, warn_undefined
from bayesfair.stats import Interval

__all__ = [
    "bootstrap_difference",
    "difference_intervals",
    "newcombe_interval",
    "rate_intervals",
    "wilson_interval",
]


def _z(ci_prob: float) -> float:
    return float(ndtri(0.5 + ci_prob / 2))


def wilson_interval(successes, trials, ci_prob: float = 0.95) -> Interval:
    """Wilson score interval for a binomial proportion.

    The set of ``p`` not rejected by the two-sided score test at level
    ``1 - ci_prob``: the roots of ``(x/n - p)² = z² p(1 - p)/n``.

    Parameters
    ----------
    successes, trials : array_like of int
        Broadcastable counts with ``0 <= successes <= trials``.
    ci_prob : float, default 0.95
        Coverage probability in (0, 1).

    Returns
    -------
    Interval
        ``(lower, upper)`` as arrays of the broadcast shape, kind ``"wilson"``;
        NaN where ``trials == 0``.

    References
    ----------
    Wilson (1927), *J. Am. Stat. Assoc.* 22, 209–212; Newcombe (1998a),
    *Stat. Med.* 17, 857–872, method 3.

    Examples
    --------
    >>> lo, hi = wilson_interval(81, 263)
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.2553, 0.3662)
    """
    successes = check_array(successes, "successes", numeric=False)  # values: check_counts
    trials = check_array(trials, "trials", numeric=False)
    ci_prob = check_probability(ci_prob)
    x, n = check_counts(successes, trials, shape="broadcast")
    z2 = _z(ci_prob) ** 2
    with np.errstate(invalid="ignore", divide="ignore"):
        p = x / n
        denom = 1 + z2 / n
        centre = (p + z2 / (2 * n)) / denom
        half = np.sqrt(z2 * p * (1 - p) / n + z2**2 / (4 * n**2)) / denom
        lower = np.where(n > 0, np.clip(centre - half, 0.0, 1.0), np.nan)
        upper = np.where(n > 0, np.clip(centre + half, 0.0, 1.0), np.nan)
    # At x = 0 (x = n) the lower (upper) root is exactly 0 (1); pin it against rounding.
    lower = np.where(x == 0, np.where(n > 0, 0.0, np.nan), lower)
    upper = np.where(x == n, np.where(n > 0, 1.0, np.nan), upper)
    if lower.ndim == 0:  # scalar counts: float bounds
        lower, upper = float(lower), float(upper)
    return Interval(lower, upper, ci_prob=ci_prob, kind="wilson")


def newcombe_interval(x1, n1, x2, n2, ci_prob: float = 0.95) -> Interval:
    """Newcombe's hybrid score interval for the difference ``x1/n1 - x2/n2``.

    With Wilson limits ``(l_i, u_i)`` of each proportion ``p_i``:
    ``δ - sqrt((p1 - l1)² + (u2 - p2)²)`` to ``δ + sqrt((u1 - p1)² + (p2 - l2)²)``.

    Parameters
    ----------
    x1, n1, x2, n2 : array_like of int
        Successes and trials of the two groups (broadcastable).
    ci_prob : float, default 0.95

    Returns
    -------
    Interval
        ``(lower, upper)`` as arrays of the broadcast shape, kind
        ``"newcombe"``; NaN where either group has no trials.

    References
    ----------
    Newcombe (1998b), *Interval estimation for the difference between
    independent proportions: comparison of eleven methods*, Stat. Med. 17,
    873–890, method 10 and Table II.

    Examples
    --------
    >>> lo, hi = newcombe_interval(56, 70, 48, 80)
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.0524, 0.3339)
    """
    x1, n1 = check_array(x1, "x1", numeric=False), check_array(n1, "n1", numeric=False)
    x2, n2 = check_array(x2, "x2", numeric=False), check_array(n2, "n2", numeric=False)
    ci_prob = check_probability(ci_prob)
    x1, n1 = check_counts(x1, n1, successes_name="x1", trials_name="n1", shape="broadcast")
    x2, n2 = check_counts(x2, n2, successes_name="x2", trials_name="n2", shape="broadcast")
    l1, u1 = wilson_interval(x1, n1, ci_prob)
    l2, u2 = wilson_interval(x2, n2, ci_prob)
    with np.errstate(invalid="ignore", divide="ignore"):
        p1, p2 = x1 / n1, x2 / n2
    d = p1 - p2
    lower, upper = d - np.hypot(p1 - l1, u2 - p2), d + np.hypot(u1 - p1, p2 - l2)
    if np.ndim(lower) == 0:  # scalar counts: float bounds
        lower, upper = float(lower), float(upper)
    return Interval(lower, upper, ci_prob=ci_prob, kind="newcombe")


def bootstrap_difference(
    x1,
    n1,
    x2,
    n2,
    n_resamples: int = 2000,
    ci_prob: float = 0.95,
    resampler: str = "binomial",
    random_seed=None,
) -> BootstrapEstimate:
    """Percentile bootstrap interval for the difference of two rates.

    Each bootstrap sample resamples the ``n1`` rows of group 1 and the ``n2``
    rows of group 2 with replacement, group sizes fixed; for 0/1 rows this is
    exactly ``Binomial(n_i, x_i/n_i)`` per group (``resampler="binomial"``,
    the default; ``"rows"`` draws the rows).

    A group with 0 or all successes resamples to itself, and the interval would
    collapse onto its observed rate as if it were known: with 12 all-correct rows
    beside 120 and equal true rates of 0.95, the interval covered the true 0 in 54%
    of samples (by enumeration), against 99.6% where neither group was all or none.
    The ``interval`` is then ``(nan, nan)``; :func:`newcombe_interval` holds there.

    Parameters
    ----------
    x1, n1, x2, n2 : int
        Successes and trials of the two groups (``n1, n2 >= 1``).
    n_resamples : int, default 2000
    ci_prob : float, default 0.95
    resampler : {"binomial", "rows"}, default "binomial"
    random_seed : int, numpy SeedSequence or Generator, optional

    Returns
    -------
    BootstrapEstimate
        ``estimate = x1/n1 - x2/n2``, the percentile ``interval`` (NaN where a group
        has 0 or all successes) and the ``draws`` of the difference.

    References
    ----------
    Efron & Tibshirani (1994), *An Introduction to the Bootstrap*, §13.3
    (percentile interval); Lum, Zhang, Bower (2022), §5.2 (group sizes fixed).

    Examples
    --------
    >>> res = bootstrap_difference(56, 70, 48, 80, n_resamples=500, random_seed=0)
    >>> round(res.estimate, 2), res.draws.shape
    (0.2, (500,))
    """
    for v, name in ((x1, "x1"), (n1, "n1"), (x2, "x2"), (n2, "n2")):
        check_array(v, name, ndim=0, dtype=None)
    x, n = check_counts([x1, x2], [n1, n2], successes_name="x1, x2", trials_name="n1, n2")
    if (n == 0).any():
        raise InvalidParameterError(
            f"Both groups need at least one trial for a bootstrap difference. Got n1={n[0]}, "
            f"n2={n[1]}."
        )
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    ci_prob = check_probability(ci_prob)
    resampler = check_resampler(resampler)
    rng = check_random_state(random_seed)
    boot = resample_successes(x, n, n_resamples, rng, resampler) / n
    draws = boot[:, 0] - boot[:, 1]
    fixed = resamples_to_itself(x, n).any()
    return BootstrapEstimate(
        estimate=float(x[0] / n[0] - x[1] / n[1]),
        interval=(np.nan, np.nan) if fixed else percentile_interval(draws, ci_prob),
        draws=draws,
    )


# --------------------------------------------------------------------------- labelled layer
@takes("AssessmentData")
def rate_intervals(data, metric: str, ci_prob: float = 0.95) -> pd.DataFrame:
    """Per-group frequency estimate of a rate with a Wilson score interval.

    Parameters
    ----------
    data : AssessmentData
        Only the labeled examples are used.
    metric : str
        A rate name or alias from :data:`bayesfair.metrics.RATES`.
    ci_prob : float, default 0.95

    Returns
    -------
    pandas.DataFrame
        Indexed by group; columns ``estimate, lower, upper, successes, trials``
        (numerator and denominator of the rate). NaN where ``trials == 0``.

    Warns
    -----
    UndefinedRateWarning
        Naming the groups whose denominator is 0.

    References
    ----------
    Wilson (1927); Newcombe (1998a), method 3.

    Examples
    --------
    >>> from bayesfair import AssessmentData
    >>> data = AssessmentData(scores=[.9, .8, .2, .7, .1], labels=[1, 1, 0, 1, 0],
    ...                       groups=["a", "a", "a", "b", "b"])
    >>> table = rate_intervals(data, "tpr")
    >>> table.columns.tolist()
    ['estimate', 'lower', 'upper', 'successes', 'trials']
    >>> table.loc["a"].round(3).tolist()
    [1.0, 0.342, 1.0, 2.0, 2.0]
    """
    rate = get_rate(metric)
    ci_prob = check_probability(ci_prob)
    num, den = rate_fraction(data.labeled_examples.confusion_counts(), rate.name)
    with np.errstate(invalid="ignore", divide="ignore"):
        estimate = np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
    warn_undefined(estimate, data.group_levels, rate.name)
    lower, upper = wilson_interval(num, den, ci_prob)
    return pd.DataFrame(
        {
            "estimate": estimate,
            "lower": lower,
            "upper": upper,
            "successes": num.astype(np.int64),
            "trials": den.astype(np.int64),
        },
        index=pd.Index(data.group_levels, name="group", dtype=object),
    )


@takes("AssessmentData")
def difference_intervals(
    data,
    metric: str,
    reference=None,
    ci_prob: float = 0.95,
    n_resamples: int = 2000,
    random_seed=None,
) -> pd.DataFrame:
    """Difference of a rate between each group and a reference group, with intervals.

    Parameters
    ----------
    data : AssessmentData
        Only the labeled examples are used.
    metric : str
        A rate name or alias.
    reference : optional
        The reference group; default ``data.reference``.
    ci_prob : float, default 0.95
    n_resamples : int, default 2000
        Bootstrap samples per pair.
    random_seed : int, numpy SeedSequence or Generator, optional
        Spawned into one child generator per pair.

    Returns
    -------
    pandas.DataFrame
        One row per ``(group, reference)`` pair of ``data.pairs(reference)``,
        indexed by ``(group, reference)``; columns ``estimate`` (group minus
        reference), ``newcombe_lower``, ``newcombe_upper``, ``bootstrap_lower``,
        ``bootstrap_upper``. NaN for pairs with an undefined rate, and the bootstrap's
        where a group has 0 or all successes (:func:`bootstrap_difference`).

    Warns
    -----
    UndefinedRateWarning
        Naming the groups whose denominator is 0.

    References
    ----------
    Newcombe (1998b), method 10; Efron & Tibshirani (1994), §13.3.

    Examples
    --------
    >>> from bayesfair import AssessmentData
    >>> data = AssessmentData(scores=[.9, .8, .2, .7, .1, .6], labels=[1, 1, 1, 1, 0, 1],
    ...                       groups=["a", "a", "a", "b", "b", "b"], reference="a")
    >>> table = difference_intervals(data, "tpr", n_resamples=200, random_seed=0)
    >>> table.index.tolist()
    [('b', 'a')]
    >>> table.loc[("b", "a")].round(3).to_dict()  # b's 2 positives both found: no bootstrap
    ... # doctest: +NORMALIZE_WHITESPACE
    {'estimate': 0.333, 'newcombe_lower': -0.378, 'newcombe_upper': 0.792,
     'bootstrap_lower': nan, 'bootstrap_upper': nan}
    """
    rate = get_rate(metric)
    ci_prob = check_probability(ci_prob)
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    pairs = data.pairs(reference)
    table = rate_intervals(data, rate.name, ci_prob)
    children = check_random_state(random_seed).spawn(len(pairs))
    rows = []
    for (group, ref), rng in zip(pairs, children, strict=True):
        x1, n1 = table.loc[group, ["successes", "trials"]]
        x2, n2 = table.loc[ref, ["successes", "trials"]]
        if n1 == 0 or n2 == 0:
            rows.append((np.nan,) * 5)
            continue
        nl, nu = newcombe_interval(x1, n1, x2, n2, ci_prob)
        boot = bootstrap_difference(x1, n1, x2, n2, n_resamples, ci_prob, random_seed=rng)
        rows.append((boot.estimate, float(nl), float(nu), *boot.interval))
    return pd.DataFrame(
        rows,
        index=pd.MultiIndex.from_tuples(pairs, names=["group", "reference"]),
        columns=[
            "estimate",
            "newcombe_lower",
            "newcombe_upper",
            "bootstrap_lower",
            "bootstrap_upper",
        ],
    )
