"""Bernstein-bounded unfairness: a distribution-free interval for a group disparity.

Ethayarajh (2020) writes the disparity between a protected group A and an
unprotected group B as a mean of *amortized* per-example costs,
``δ = E_A[c] - E_B[c]``, where each example's cost ``c ∈ [0, C]`` is divided
by its group's frequency ``γ_A`` or ``γ_B``. Bernstein's inequality for that
mean of ``n`` bounded variables gives, at confidence ``ρ``, the half-width

    t = (β + sqrt(β² - 8 n σ² log((1-ρ)/2))) / (2n),
    β = -(2C / (3γ)) log((1-ρ)/2),  γ = min(γ_A, γ_B),

(``β`` is the paper's ``B``), so that ``δ ∈ [δ̂ - t, δ̂ + t]`` with probability
at least ``ρ``. Solving ``t(n) = d`` for ``n`` gives the smallest labeled set
on which a disparity of size ``d`` is a claim at confidence ``ρ``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from bayesfair._internal.validation import (
    check_array,
    check_positive,
    check_probability,
    renamed,
    takes,
)
from bayesfair.exceptions import InvalidParameterError
from bayesfair.metrics.rates import get_rate, rate_fraction, undefined_rate_message
from bayesfair.stats import Interval

__all__ = [
    "BernsteinInterval",
    "bernstein_half_width",
    "bernstein_interval",
    "bernstein_required_n",
]


def _check_common(ci_prob, cost_range, min_group_fraction, variance):
    for value, name in (
        (cost_range, "cost_range"),
        (min_group_fraction, "min_group_fraction"),
        (variance, "variance"),
    ):
        check_array(value, name, numeric=False)  # a ragged list; check_positive: the rest
    rho = check_probability(ci_prob, "ci_prob", allow_zero=True)
    cost = check_positive(cost_range, "cost_range")
    gamma = check_positive(min_group_fraction, "min_group_fraction", "a number in (0, 0.5]")
    if (gamma > 0.5).any():
        raise InvalidParameterError(
            "The 'min_group_fraction' parameter must be a number in (0, 0.5] (the smaller of "
            f"two group frequencies). Got {min_group_fraction!r} instead."
        )
    var = check_positive(variance, "variance")
    return rho, cost, gamma, var


def _half_width(n, log_term, cost, gamma, var):
    # log_term = -log((1 - ρ)/2) > 0
    b = 2.0 * cost * log_term / (3.0 * gamma)
    return (b + np.sqrt(b**2 + 8.0 * n * var * log_term)) / (2.0 * n)


def _scalar_or_array(result: np.ndarray, *inputs):
    if all(np.ndim(v) == 0 for v in inputs):
        return result.item()
    return result


@renamed(confidence="ci_prob")
def bernstein_half_width(
    n,
    ci_prob: float = 0.95,
    cost_range=1.0,
    min_group_fraction=0.5,
    variance=4.0,
):
    """Half-width ``t`` of the Bernstein interval for a group disparity.

    Parameters
    ----------
    n : int or array_like
        Number of examples (positive); arrays broadcast with the other arguments.
    ci_prob : float, default 0.95
        Confidence level ``ρ`` in [0, 1) (the package's name for an interval's
        probability; ``confidence=``, the published call's spelling, is accepted with a
        ``FutureWarning``).
    cost_range : float or array_like, default 1
        Maximum cost ``C`` of one example (1 for the 0-1 loss).
    min_group_fraction : float or array_like, default 0.5
        ``γ = min(γ_A, γ_B)``, in (0, 0.5].
    variance : float or array_like, default 4
        Variance ``σ²`` of the amortized disparity; 4 is the largest possible
        for ``C = 1`` and two groups of frequency 0.5 (the paper's setting).

    Returns
    -------
    float or numpy.ndarray
        A float when every argument is a scalar.

    References
    ----------
    Ethayarajh (2020), *Is Your Classifier Actually Biased? Measuring Fairness
    under Uncertainty with Bernstein Bounds*, ACL, §3 (Proposition and the
    worked example).

    Examples
    --------
    >>> round(bernstein_half_width(3160), 4)
    0.0974
    >>> bernstein_half_width([11902, 11903]).round(7)
    array([0.0500017, 0.0499995])
    """
    check_array(n, "n", numeric=False)
    rho, cost, gamma, var = _check_common(ci_prob, cost_range, min_group_fraction, variance)
    n_arr = check_positive(n, "n")
    t = _half_width(n_arr, -math.log((1.0 - rho) / 2.0), cost, gamma, var)
    return _scalar_or_array(np.asarray(t), n, cost_range, min_group_fraction, variance)


@renamed(confidence="ci_prob")
def bernstein_required_n(
    disparity,
    ci_prob: float = 0.95,
    cost_range=1.0,
    min_group_fraction=0.5,
    variance=4.0,
):
    """Smallest ``n`` with ``bernstein_half_width(n) <= disparity``.

    ``t(n)`` decreases in ``n``, and ``t(n) = d`` has the closed-form root
    ``n = β/d + 2σ² L/d²`` with ``L = -log((1-ρ)/2)``; the answer is its
    ceiling, confirmed against ``t`` at the neighbouring integers (so that
    rounding in the closed form cannot move it by one).

    Parameters
    ----------
    disparity : float or array_like
        The disparity ``d > 0`` to be claimed (an observed ``|δ̂|`` for "is
        ``0`` outside ``[δ̂ - t, δ̂ + t]``?").
    ci_prob, cost_range, min_group_fraction, variance
        As in :func:`bernstein_half_width`.

    Returns
    -------
    int or numpy.ndarray of int

    References
    ----------
    Ethayarajh (2020), §3 ("n > 11903" for d = 0.05: in fact 11,903 examples
    suffice, ``t(11903) = 0.0499995 <= 0.05 < t(11902) = 0.0500017``).

    Examples
    --------
    >>> bernstein_required_n(0.05)
    11903
    >>> bernstein_required_n([0.1, 0.05]).tolist()
    [3001, 11903]
    """
    check_array(disparity, "disparity", numeric=False)
    rho, cost, gamma, var = _check_common(ci_prob, cost_range, min_group_fraction, variance)
    d = check_positive(disparity, "disparity")
    log_term = -math.log((1.0 - rho) / 2.0)
    b = 2.0 * cost * log_term / (3.0 * gamma)
    root = np.maximum(np.ceil(b / d + 2.0 * var * log_term / d**2), 1.0)
    # smallest of root-1, root, root+1 whose half-width is within d
    candidates = root[..., None] + np.array([-1.0, 0.0, 1.0])
    candidates = np.maximum(candidates, 1.0)
    ok = _half_width(candidates, log_term, cost[..., None], gamma[..., None], var[..., None])
    ok = ok <= d[..., None]
    n = np.where(
        ok.any(axis=-1),
        np.take_along_axis(candidates, np.argmax(ok, axis=-1)[..., None], axis=-1)[..., 0],
        np.nan,
    )
    if np.isnan(n).any():  # pragma: no cover - the closed form is off by more than one
        raise RuntimeError("bernstein_required_n: the closed-form root failed to bracket n.")
    n = n.astype(np.int64)
    return _scalar_or_array(n, disparity, cost_range, min_group_fraction, variance)


@dataclass(frozen=True)
class BernsteinInterval:
    """A Bernstein interval for the disparity of a rate between two groups.

    Attributes
    ----------
    estimate : float
        ``δ̂`` = rate of ``group`` minus rate of ``reference``.
    interval : Interval
        ``(δ̂ - t, δ̂ + t)`` (kind ``"bernstein"``).
    half_width : float
        ``t``.
    n : int
        Examples used: the rate's denominator rows of the two groups.
    min_group_fraction : float
        ``γ``: the smaller group's share of those ``n`` examples.
    variance : float
        ``σ²`` used.
    ci_prob : float
        ``ρ``.
    metric : str
    group, reference
        The two group labels.
    """

    estimate: float
    interval: Interval
    half_width: float
    n: int
    min_group_fraction: float
    variance: float
    ci_prob: float
    metric: str
    group: object
    reference: object

    def to_frame(self):
        """One row: the fields, with the interval as ``lower`` and ``upper``."""
        import pandas as pd

        row = {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "interval"}
        row["lower"], row["upper"] = self.interval
        return pd.DataFrame([row])


@takes("AssessmentData")
def bernstein_interval(
    data,
    metric: str = "error_rate",
    group=None,
    reference=None,
    ci_prob: float = 0.95,
    variance: float | None = None,
) -> BernsteinInterval:
    """Bernstein interval ``[δ̂ - t, δ̂ + t]`` for a rate's difference between two groups.

    The examples are the rows in the rate's denominator in either group (all
    rows for accuracy and error rate; the positives for TPR, ...), and the
    cost of an example is 1 if it is in the numerator, else 0, so ``C = 1``;
    for ``"error_rate"`` this is the 0-1 loss of Ethayarajh's example.
    ``n`` is the number of those examples and ``γ`` the smaller group's share.

    The default ``variance=None`` takes the largest variance the amortized
    disparity ``Z = c (1[A]/γ_A - 1[B]/γ_B)`` can have,
    ``E[Z²] <= C² (1/γ_A + 1/γ_B)``. With two equal groups this is the paper's
    conservative ``σ² = 4``; with unequal groups 4 would **not** be an upper
    bound, so the bound is used instead. Pass a number to override.

    Parameters
    ----------
    data : AssessmentData
    metric : str, default "error_rate"
    group : optional
        The protected group A. Default: the one group other than the
        reference when there are exactly two groups.
    reference : optional
        The group B; default ``data.reference``.
    ci_prob : float, default 0.95
        ``ρ``.
    variance : float, optional

    Returns
    -------
    BernsteinInterval

    References
    ----------
    Ethayarajh (2020), §3 (Bernstein-bounded unfairness) and §4.

    Examples
    --------
    >>> from bayesfair import AssessmentData
    >>> data = AssessmentData(scores=[.9] * 60 + [.1] * 40 + [.9] * 50 + [.1] * 50,
    ...                       labels=[1] * 100 + [1] * 50 + [0] * 50,
    ...                       groups=["a"] * 100 + ["b"] * 100, reference="b")
    >>> res = bernstein_interval(data, "error_rate")
    >>> res.estimate, res.n, res.variance, round(res.half_width, 3)
    (0.4, 200, 4.0, 0.397)
    """
    rho = check_probability(ci_prob, "ci_prob", allow_zero=True)
    rate = get_rate(metric)
    num, den = rate_fraction(data.labeled_examples.confusion_counts(), rate.name)
    ref = data.reference if reference is None else data.resolve_group(reference, "reference")
    if group is None:
        pairs = data.pairs(ref)
        if len(pairs) != 1:
            raise InvalidParameterError(
                f"The 'group' parameter is needed when there are more than two groups "
                f"({data.n_groups}: {', '.join(map(str, data.group_levels))})."
            )
        group = pairs[0][0]
    else:
        group = data.resolve_group(group, "group")
        if group == ref:
            raise InvalidParameterError(
                f"The 'group' and 'reference' parameters are the same group {ref!r}."
            )
    i, j = data.group_levels.index(group), data.group_levels.index(ref)
    if den[i] == 0 or den[j] == 0:
        empty = [g for g, k in ((group, i), (ref, j)) if den[k] == 0]
        raise InvalidParameterError(undefined_rate_message(rate, empty))
    n = int(den[i] + den[j])
    gamma_a, gamma_b = den[i] / n, den[j] / n
    if variance is None:
        variance = 1.0 / gamma_a + 1.0 / gamma_b  # C = 1
    estimate = float(num[i] / den[i] - num[j] / den[j])
    t = bernstein_half_width(
        n,
        ci_prob=rho,
        cost_range=1.0,
        min_group_fraction=float(min(gamma_a, gamma_b)),
        variance=variance,
    )
    return BernsteinInterval(
        estimate=estimate,
        interval=Interval(estimate - t, estimate + t, ci_prob=rho, kind="bernstein"),
        half_width=float(t),
        n=n,
        min_group_fraction=float(min(gamma_a, gamma_b)),
        variance=float(variance),
        ci_prob=rho,
        metric=rate.name,
        group=group,
        reference=ref,
    )
