"""Between-group variance of a rate: uncorrected, corrected and double-corrected.

Lum, Zhang and Bower (2022) show that the sample variance of K observed group
rates, ``M_var(Y)``, overestimates the variance of the true rates ``M_var(μ)``
by the mean sampling variance of the groups (§4), propose Cochran's corrected
estimator (eq. 2), and show that applying it to bootstrap samples is biased
again, because resampling adds its own variance; the *double-corrected*
estimator removes both (§5.3). This module computes the three with percentile
bootstrap intervals.

Two layers: NumPy functions over arrays shaped ``(..., group)``
(:func:`between_group_variance`, :func:`corrected_variance`,
:func:`double_corrected_variance`, :func:`bootstrap_variance_draws`) do the
arithmetic and broadcast over leading axes (bootstrap draws, simulation
replicates); :func:`double_corrected_bootstrap` and
:func:`double_corrected_bootstrap_counts` validate, drop undefined groups with
a warning, and return a labelled, frozen :class:`VarianceBootstrapResult`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import pandas as pd

from bayesfair._internal.validation import (
    check_array,
    check_counts,
    check_flag,
    check_positive_int,
    check_probability,
    check_random_state,
    renamed,
    seed_record,
    seed_sequence,
    takes,
)
from bayesfair.exceptions import InvalidParameterError
from bayesfair.frequentist.bootstrap import (
    BootstrapEstimate,
    check_resampler,
    percentile_interval,
    resample_successes,
)
from bayesfair.metrics.rates import (
    UndefinedRateWarning,
    get_rate,
    rate_fraction,
    undefined_rate_message,
)

__all__ = [
    "VarianceBootstrapResult",
    "VarianceDraws",
    "between_group_variance",
    "bootstrap_variance_draws",
    "corrected_variance",
    "double_corrected_bootstrap",
    "double_corrected_bootstrap_counts",
    "double_corrected_variance",
]


# --------------------------------------------------------------------------- NumPy layer
def between_group_variance(rates) -> np.ndarray:
    """Uncorrected between-group variance ``M_var(Y)`` over the last axis.

    The sample variance (``ddof=1``) of the K group rates. It is biased
    upwards: ``E[M_var(Y)] = M_var(μ) + (1/K) Σ_k σ_k²`` with ``σ_k²`` the
    sampling variance of ``Y_k``.

    Parameters
    ----------
    rates : array_like, shape (..., K)
        Group rates ``Y_k``, K >= 2.

    Returns
    -------
    numpy.ndarray, shape (...)

    References
    ----------
    Lum, Zhang, Bower (2022), Table 1 (variance) and §4 (bias identity).

    Examples
    --------
    >>> round(float(between_group_variance([0.2, 0.4, 0.6])), 6)
    0.04
    """
    y = check_array(rates, "rates", min_ndim=1)
    return np.var(y, axis=-1, ddof=1)


def corrected_variance(rates, trials) -> np.ndarray:
    """Cochran's corrected between-group variance (Lum et al. eq. 2).

    ``M_var(Y) - (1/K) Σ_k Y_k (1 - Y_k) / n_k``: the sample variance minus the
    mean plug-in binomial sampling variance of the groups. Not truncated.

    The plug-in ``Y_k(1 - Y_k)/n_k`` underestimates ``σ_k² = μ_k(1 - μ_k)/n_k``
    by the factor ``(n_k - 1)/n_k``, so the estimator keeps a small upward bias:
    ``E = M_var(μ) + (1/K) Σ_k σ_k² / n_k`` (O(1/n²); the test suite checks
    this exact expectation).

    Parameters
    ----------
    rates : array_like, shape (..., K)
        Group rates ``Y_k = x_k / n_k``.
    trials : array_like, shape (..., K)
        Group sizes ``n_k`` (broadcast against ``rates``), each >= 1.

    Returns
    -------
    numpy.ndarray, shape (...)

    References
    ----------
    Lum, Zhang, Bower (2022), §5, eq. (2); Cochran (1954).

    Examples
    --------
    >>> round(float(corrected_variance([0.2, 0.4, 0.6], [10, 10, 10])), 6)
    0.018667
    """
    y = check_array(rates, "rates", min_ndim=1)
    n = check_array(trials, "trials")
    return between_group_variance(y) - np.mean(y * (1 - y) / n, axis=-1)


def double_corrected_variance(rates, trials) -> np.ndarray:
    """Double-corrected between-group variance, for **bootstrap** samples.

    ``M_var(Y*) - (1/K) Σ_k [2 Y*_k (1 - Y*_k) / n_k - Y*_k (1 - Y*_k) / n_k²]``:
    on a bootstrap sample the rate has variance ``2σ_k² - σ_k²/n_k`` (the
    original sampling variance plus that of the resampling), and this removes
    its plug-in estimate. Apply it to bootstrap draws, not to the original
    sample (there the corrected estimator is the right one). Not truncated.

    Parameters
    ----------
    rates : array_like, shape (..., K)
        Bootstrap group rates ``Y*_k``.
    trials : array_like, shape (..., K)
        Group sizes ``n_k``, each >= 1.

    Returns
    -------
    numpy.ndarray, shape (...)

    References
    ----------
    Lum, Zhang, Bower (2022), §5.3.

    Examples
    --------
    >>> round(float(double_corrected_variance([0.2, 0.4, 0.6], [10, 10, 10])), 6)
    -0.000533
    """
    y = check_array(rates, "rates", min_ndim=1)
    n = check_array(trials, "trials")
    pq = y * (1 - y)
    return between_group_variance(y) - np.mean(2 * pq / n - pq / n**2, axis=-1)


class VarianceDraws(NamedTuple):
    """Bootstrap draws of the three variance estimators, each shaped ``(..., n_resamples)``."""

    uncorrected: np.ndarray
    corrected: np.ndarray
    double_corrected: np.ndarray


def bootstrap_variance_draws(
    successes,
    trials,
    *,
    n_resamples: int,
    random_seed=None,
    resampler: str = "binomial",
) -> VarianceDraws:
    """Bootstrap draws of the uncorrected, corrected and double-corrected variance.

    The NumPy layer of :func:`double_corrected_bootstrap_counts`, without input
    checks: ``trials`` must be >= 1 everywhere. Leading axes of ``successes``
    are independent data sets sharing the group sizes (e.g. simulation
    replicates), which lets a coverage study run without a Python loop.

    Parameters
    ----------
    successes : array_like of int, shape (..., K)
    trials : array_like of int, shape (K,)
    n_resamples : int
    random_seed : None, int, SeedSequence or Generator
        A ``Generator`` is used as it is (its stream advances).
    resampler : {"binomial", "rows"}

    Returns
    -------
    VarianceDraws
        Three arrays of shape ``(..., n_resamples)``.

    References
    ----------
    Lum, Zhang, Bower (2022), §5.2 (percentile bootstrap with group sizes
    fixed) and §5.3 (the double correction).
    """
    successes = check_array(successes, "successes", min_ndim=1, dtype=None)
    n = np.asarray(check_array(trials, "trials", min_ndim=1, dtype=None), dtype=np.int64)
    boot = resample_successes(successes, n, n_resamples, check_random_state(random_seed), resampler)
    y = boot / n
    return VarianceDraws(
        between_group_variance(y), corrected_variance(y, n), double_corrected_variance(y, n)
    )


# --------------------------------------------------------------------------- result
@dataclass(frozen=True)
class VarianceBootstrapResult:
    """Between-group variance of a rate with percentile bootstrap intervals.

    Attributes
    ----------
    uncorrected : BootstrapEstimate
        ``M_var(Y)`` on the sample; interval and draws from ``M_var(Y*)``.
    corrected : BootstrapEstimate
        Cochran's corrected estimate (eq. 2); draws apply the same (single)
        correction to each bootstrap sample, the naive interval whose coverage
        Lum et al. Table 3 shows to be poor.
    double_corrected : BootstrapEstimate
        Point estimate = the corrected estimate on the original sample (the
        double correction is for bootstrap samples only); draws and interval
        from the double-corrected estimator on each bootstrap sample (§5.3).
    n_resamples : int
    ci_prob : float
    resampler : str
        ``"binomial"`` or ``"rows"``.
    truncate : bool
        Whether the corrected and double-corrected estimates and draws were
        truncated at 0.
    random_seed : dict
        The seed's record (:func:`bayesfair.fit`): entropy and spawn key of the
        ``SeedSequence`` the bootstrap drew from, which reproduce it.
    group_sizes : numpy.ndarray of int, shape (K,)
        Denominators ``n_k`` of the groups used.
    group_rates : numpy.ndarray, shape (K,)
        Observed rates ``Y_k`` of the groups used.
    groups : tuple
        Labels of the groups used (positions for counts input without labels).
    dropped_groups : tuple
        Labels of the groups dropped because their denominator is 0.
    metric : str or None
        Canonical rate name, ``None`` for counts input.
    """

    uncorrected: BootstrapEstimate
    corrected: BootstrapEstimate
    double_corrected: BootstrapEstimate
    n_resamples: int
    ci_prob: float
    resampler: str
    truncate: bool
    random_seed: object = field(repr=False)
    group_sizes: np.ndarray = field(repr=False)
    group_rates: np.ndarray = field(repr=False)
    groups: tuple = field(repr=False)
    dropped_groups: tuple = ()
    metric: str | None = None

    def to_frame(self):
        """One row per estimator: ``estimate``, ``lower``, ``upper``, with the settings."""
        import pandas as pd

        rows = []
        for name in ("uncorrected", "corrected", "double_corrected"):
            est = getattr(self, name)
            rows.append(
                {
                    "estimator": name,
                    "estimate": est.estimate,
                    "lower": est.interval[0],
                    "upper": est.interval[1],
                    "metric": self.metric,
                    "n_resamples": self.n_resamples,
                    "ci_prob": self.ci_prob,
                    "resampler": self.resampler,
                }
            )
        return pd.DataFrame(rows)

    def summary(self) -> pd.DataFrame:
        """The three estimators as a table: estimate, lower, upper."""
        rows = {
            name: (est.estimate, *est.interval)
            for name, est in (
                ("uncorrected", self.uncorrected),
                ("corrected", self.corrected),
                ("double_corrected", self.double_corrected),
            )
        }
        return pd.DataFrame.from_dict(
            rows, orient="index", columns=["estimate", "lower", "upper"]
        ).rename_axis("estimator")


# --------------------------------------------------------------------------- public API
@renamed(n_boot="n_resamples")
def double_corrected_bootstrap_counts(
    successes,
    trials,
    n_resamples: int = 1000,
    ci_prob: float = 0.95,
    resampler: str = "binomial",
    truncate: bool = False,
    random_seed=None,
    *,
    groups=None,
) -> VarianceBootstrapResult:
    """Uncorrected, corrected and double-corrected between-group variance from counts.

    Parameters
    ----------
    successes, trials : array_like of int, shape (K,)
        Per group, the numerator and denominator of the rate (e.g. true
        positives and positives for the TPR). Non-negative integers with
        ``successes <= trials``.
    n_resamples : int, default 1000
        Number of bootstrap samples B (>= 1); ``n_boot=``, the published call's
        spelling, is accepted with a ``FutureWarning``.
    ci_prob : float, default 0.95
        Probability mass of the equal-tailed percentile interval, in (0, 1).
    resampler : {"binomial", "rows"}, default "binomial"
        ``"binomial"`` draws ``X*_k ~ Binomial(n_k, Y_k)`` (O(B·K));
        ``"rows"`` resamples the 0/1 rows of each group with replacement
        (the definition, O(B·Σn_k)); the two have the same distribution.
    truncate : bool, default False
        Truncate the corrected and double-corrected point estimates and draws
        at 0, the convention Lum et al. mention after eq. (2). Off by default:
        the untruncated estimator is the (nearly) unbiased one, truncation
        biases it upwards, and the coverage of Table 3 is reproduced by the
        untruncated intervals (see the test suite).
    random_seed : int, numpy SeedSequence or Generator, optional
        Seed of the bootstrap; the same seed gives identical draws.
    groups : sequence, optional
        Group labels used in messages and in the result (default: positions).

    Returns
    -------
    VarianceBootstrapResult
        The ``double_corrected`` point estimate is the (single) corrected
        estimate on the original sample; the double correction applies to the
        bootstrap draws, from which its interval is taken.

    Raises
    ------
    TypeError, ValueError
        For counts that are not non-negative integers, ``successes > trials``,
        length mismatches, ``n_resamples < 1``, ``ci_prob`` outside (0, 1), an
        unknown resampler, or fewer than 2 groups with a positive denominator.

    Warns
    -----
    UndefinedRateWarning
        Naming the groups with 0 trials, which are dropped.

    Notes
    -----
    A group with 0 or all successes resamples to itself, and the corrections miss its
    sampling variance. Where such a group is smaller than another group, the
    intervals can overstate the spread: with 3 rows beside two groups of 50, all at a
    rate of 0.9 (the true variance 0), the double-corrected interval covered the truth
    in 0.62 of the data sets where the small group was all correct, and in 1.00 of
    the others; with unequal rates such data sets were covered 0.95–0.97 in three
    designs, and with equal groups the interval covered (eight groups of 15 at 0.9:
    0.998). :func:`bayesfair.compare` prints no interval there
    (``tests/frequentist/test_variance.py`` measures these designs).

    References
    ----------
    Lum, Zhang, Bower (2022): eq. (1) (binomial model), §4 (bias of
    ``M_var(Y)``), eq. (2) (corrected), §5.2 (percentile bootstrap with
    group sizes fixed), §5.3 (double correction), Table 3 (coverage).

    Examples
    --------
    >>> res = double_corrected_bootstrap_counts([8, 30, 45], [10, 40, 50], n_resamples=200,
    ...                                         random_seed=1)
    >>> round(res.uncorrected.estimate, 4), round(res.corrected.estimate, 4)
    (0.0058, -0.0017)
    >>> res.double_corrected.estimate == res.corrected.estimate
    True
    >>> res.double_corrected.draws.shape
    (200,)
    """
    successes = check_array(successes, "successes", numeric=False)  # values: check_counts
    trials = check_array(trials, "trials", numeric=False)
    x, n = check_counts(successes, trials)
    labels = tuple(range(x.size)) if groups is None else tuple(groups)
    if len(labels) != x.size:
        raise InvalidParameterError(
            f"Length mismatch: 'groups' has {len(labels)} entries and 'successes' has "
            f"{x.size}; they must be equal."
        )

    def explain(dropped, remaining):
        return (
            f"Group(s) {dropped} have 0 trials, so the rate is undefined there; they are "
            f"dropped and the between-group variance uses the other {remaining} group(s)."
        )

    return _variance_bootstrap(
        x, n, labels, n_resamples, ci_prob, resampler, truncate, random_seed, explain, metric=None
    )


@renamed(n_boot="n_resamples")
@takes("AssessmentData")
def double_corrected_bootstrap(
    data,
    metric: str = "tpr",
    n_resamples: int = 1000,
    ci_prob: float = 0.95,
    resampler: str = "binomial",
    truncate: bool = False,
    random_seed=None,
) -> VarianceBootstrapResult:
    """Uncorrected, corrected and double-corrected between-group variance of a rate.

    The group rates are the labeled frequency estimates of ``metric``; for a
    rate ``num/den`` (see :mod:`bayesfair.metrics`), group ``k`` contributes
    its ``den_k`` rows, of which ``num_k`` are ones. Everything else is as in
    :func:`double_corrected_bootstrap_counts`.

    Parameters
    ----------
    data : AssessmentData
        Only the labeled examples are used.
    metric : str, default "tpr"
        A rate name or alias from :data:`bayesfair.metrics.RATES`.
    n_resamples, ci_prob, resampler, truncate, random_seed
        As in :func:`double_corrected_bootstrap_counts`.

    Returns
    -------
    VarianceBootstrapResult
        ``double_corrected.estimate`` is the (single) corrected estimate on the
        original sample; the double correction applies to bootstrap draws.

    Warns
    -----
    UndefinedRateWarning
        Naming the groups whose denominator is 0 for ``metric``; they are
        dropped (fewer than 2 remaining groups raise ``ValueError``).

    References
    ----------
    Lum, Zhang, Bower (2022), §5.3 and Table 3; §6 (the Adult example).

    Examples
    --------
    >>> from bayesfair import AssessmentData
    >>> data = AssessmentData(scores=[.9, .8, .2, .7, .1, .6, .3, .9],
    ...                       labels=[1, 1, 1, 1, 0, 1, 1, 1],
    ...                       groups=["a", "a", "a", "b", "b", "c", "c", "c"])
    >>> res = double_corrected_bootstrap(data, "tpr", n_resamples=100, random_seed=0)
    >>> res.groups, res.group_sizes.tolist()
    (('a', 'b', 'c'), [3, 1, 3])
    """
    rate = get_rate(metric)
    num, den = rate_fraction(data.labeled_examples.confusion_counts(), rate.name)
    labels = tuple(data.group_levels)

    def explain(dropped, remaining):
        return (
            f"{undefined_rate_message(rate, dropped)} They are dropped and the between-group "
            f"variance uses the other {remaining} group(s)."
        )

    return _variance_bootstrap(
        num.astype(np.int64),
        den.astype(np.int64),
        labels,
        n_resamples,
        ci_prob,
        resampler,
        truncate,
        random_seed,
        explain,
        metric=rate.name,
    )


def _variance_bootstrap(
    x, n, labels, n_resamples, ci_prob, resampler, truncate, random_seed, explain, *, metric
) -> VarianceBootstrapResult:
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    ci_prob = check_probability(ci_prob)
    resampler = check_resampler(resampler)
    truncate = check_flag(truncate, "truncate")
    seq = seed_sequence(random_seed)
    rng = np.random.default_rng(seq)
    keep = n > 0
    if not keep.all():
        # stacklevel 3: the user's call of the public function
        dropped = [labels[k] for k in np.flatnonzero(~keep)]
        warnings.warn(explain(dropped, int(keep.sum())), UndefinedRateWarning, stacklevel=3)
    if keep.sum() < 2:
        raise InvalidParameterError(
            "The between-group variance needs at least 2 groups with a positive "
            f"denominator; got {int(keep.sum())} ({[labels[k] for k in np.flatnonzero(keep)]})."
        )
    x, n = x[keep], n[keep]
    used = tuple(lab for lab, k in zip(labels, keep, strict=True) if k)
    dropped = tuple(lab for lab, k in zip(labels, keep, strict=True) if not k)

    y = x / n
    point = {
        "uncorrected": float(between_group_variance(y)),
        "corrected": float(corrected_variance(y, n)),
    }
    point["double_corrected"] = point["corrected"]
    draws = bootstrap_variance_draws(
        x, n, n_resamples=n_resamples, random_seed=rng, resampler=resampler
    )._asdict()
    if truncate:
        for name in ("corrected", "double_corrected"):
            point[name] = max(point[name], 0.0)
            draws[name] = np.maximum(draws[name], 0.0)
    estimates = {
        name: BootstrapEstimate(
            estimate=point[name],
            interval=percentile_interval(draws[name], ci_prob),
            draws=draws[name],
        )
        for name in point
    }
    return VarianceBootstrapResult(
        **estimates,
        n_resamples=n_resamples,
        ci_prob=ci_prob,
        resampler=resampler,
        truncate=truncate,
        random_seed=seed_record(seq),
        group_sizes=_readonly(n.copy()),
        group_rates=_readonly(y),
        groups=used,
        dropped_groups=dropped,
        metric=metric,
    )


def _readonly(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a
