"""Shared machinery of the frequentist bootstraps: checks, seeding, resamplers.

Every bootstrap in bayesfair resamples **within groups with the group sizes
fixed**, as Lum et al. (2022, §5.2) do. For a rate, the rows that enter group
``k`` are the ``n_k`` rows of its denominator, each 0 or 1 according to
whether it is in the numerator, so a group is fully described by
``(successes_k, trials_k)``. Two resamplers draw bootstrap successes:

``"rows"``
    The definition: draw ``n_k`` rows of group ``k`` with replacement and count
    the ones. The 0/1 rows are built implicitly: sort group ``k``'s rows so
    that its ``x_k`` ones come first; a resampled row is a uniform index in
    ``[0, n_k)`` and it is a one exactly when the index is ``< x_k``.
``"binomial"``
    The parametric form of the same thing, ``X*_k ~ Binomial(n_k, x_k / n_k)``
    (Lum et al. 2022, §5.3): the count of ones among ``n_k`` uniform draws from
    rows of which a fraction ``x_k / n_k`` are ones is exactly that binomial,
    so both resamplers have the same distribution; this one costs O(B·K)
    instead of O(B·Σn_k).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bayesfair._internal.names import resolve_name
from bayesfair._internal.validation import check_array
from bayesfair.exceptions import InvalidParameterError
from bayesfair.stats import Interval

#: Resampler names, with a one-line description each.
RESAMPLERS: dict[str, str] = {
    "binomial": "parametric binomial per group, O(B·K)",
    "rows": "resample the 0/1 rows of each group with replacement, O(B·Σn_k)",
}

# The row resampler draws at most this many row positions at a time (16 MiB as int32).
_ROW_CHUNK = 1 << 22


@dataclass(frozen=True)
class BootstrapEstimate:
    """A point estimate with its percentile bootstrap interval and draws.

    Attributes
    ----------
    estimate : float
        The estimate on the original sample.
    interval : Interval
        ``(lower, upper)`` percentile bootstrap interval.
    draws : numpy.ndarray, shape (n_resamples,)
        The statistic on each bootstrap sample (read-only).
    """

    estimate: float
    interval: Interval
    draws: np.ndarray = field(repr=False)

    def __post_init__(self):
        draws = np.array(self.draws, dtype=float)
        draws.setflags(write=False)
        object.__setattr__(self, "draws", draws)


# ---------------------------------------------------------------------- checks
def check_resampler(resampler) -> str:
    """Return the canonical resampler name; an unknown name suggests the nearest one."""
    return resolve_name(resampler, RESAMPLERS, what="resampler", argument="resampler")


# ------------------------------------------------------------------ intervals
def percentile_interval(draws, ci_prob: float) -> Interval:
    """Percentile bootstrap interval over the last axis of the draws.

    The equal-tailed quantiles ``(1 - ci_prob)/2`` and ``(1 + ci_prob)/2`` of
    the draws, with NumPy's default linear interpolation (R's type 7): floats
    for one-dimensional draws, arrays of the leading shape otherwise.

    Parameters
    ----------
    draws : array_like
        Bootstrap draws on the last axis.
    ci_prob : float
        The interval's probability, in (0, 1).

    Examples
    --------
    >>> lo, hi = percentile_interval(np.arange(101.0), 0.9)
    >>> round(lo, 6), round(hi, 6)
    (5.0, 95.0)
    """
    x = check_array(draws, "draws", min_ndim=1)
    alpha = 1.0 - ci_prob
    lo, hi = np.quantile(x, [alpha / 2, 1 - alpha / 2], axis=-1)
    if np.ndim(lo) == 0:
        lo, hi = float(lo), float(hi)
    return Interval(lo, hi, ci_prob=ci_prob, kind="percentile bootstrap")


# ------------------------------------------------------------------ resamplers
def resamples_to_itself(successes, trials) -> np.ndarray:
    """Whether each group resamples to itself: it has trials, and 0 or all successes.

    Every resample of such a group repeats its rate, so a bootstrap interval treats that
    rate as known. The one rule of the package's bootstraps for it:
    :func:`~bayesfair.frequentist.intervals.bootstrap_difference` gives no interval,
    :func:`~bayesfair.frequentist.groups.group_intervals` puts the group on its Wilson
    floor, and the report gives no interval of the between-group variance when such a
    group is smaller than another.

    Parameters
    ----------
    successes, trials : array_like of int
        Successes and trials per group (same shape).

    Returns
    -------
    numpy.ndarray of bool
        True for a group with ``trials > 0`` and ``successes`` 0 or ``trials``.

    Examples
    --------
    >>> resamples_to_itself([0, 3, 5, 0], [4, 5, 5, 0]).tolist()
    [True, False, True, False]
    """
    x, n = np.asarray(successes), np.asarray(trials)
    return (n > 0) & ((x == 0) | (x == n))


def resample_successes(
    successes, trials, n_resamples: int, rng: np.random.Generator, resampler: str = "binomial"
) -> np.ndarray:
    """Bootstrap successes per group with group sizes fixed.

    Parameters
    ----------
    successes : array_like of int, shape (..., K)
        Observed successes per group; leading axes are independent data sets
        (e.g. simulation replicates) that share ``trials``.
    trials : array_like of int, shape (K,)
        Group sizes (a group of size 0 always resamples to 0 successes).
    n_resamples : int
        Number of bootstrap samples B.
    rng : numpy.random.Generator
        Source of randomness.
    resampler : {"binomial", "rows"}
        See the module docstring.

    Returns
    -------
    numpy.ndarray of int64, shape (..., n_resamples, K)

    References
    ----------
    Lum, Zhang, Bower (2022), §5.2 (within-group resampling) and §5.3
    (the bootstrap's generative model ``X*_k ~ Binomial(n_k, Y_k)``).
    """
    x = np.asarray(successes, dtype=np.int64)
    n = np.asarray(trials, dtype=np.int64)
    if resampler == "binomial":
        # Draw in (..., K, B) order: consecutive draws then share (n_k, p_k), and NumPy's
        # binomial sampler reuses its per-(n, p) setup, which is ~1.5x faster.
        p = x / np.maximum(n, 1)
        draws = rng.binomial(n[:, None], p[..., None], size=(*x.shape, n_resamples))
        return np.swapaxes(draws, -1, -2)
    if resampler == "rows":
        return _resample_rows(x, n, n_resamples, rng)
    raise InvalidParameterError(f"Unknown resampler {resampler!r}.")


def _resample_rows(x: np.ndarray, n: np.ndarray, n_resamples: int, rng) -> np.ndarray:
    # One integer draw per resampled row: its position within the group's n_k rows, which hold
    # the group's x_k ones first. Drawing group by group keeps the bound scalar, which NumPy's
    # integer sampler handles ~5x faster than a per-element bound (one call over all rows).
    batch = x.shape[:-1]
    out = np.empty((*batch, n_resamples, n.size), dtype=np.int64)
    dtype = np.int32 if n.max() < 2**31 else np.int64
    for k, n_k in enumerate(n.tolist()):
        if n_k == 0:
            out[..., k] = 0
            continue
        ones = x[..., k, None, None]
        step = max(1, _ROW_CHUNK // (n_k * max(1, int(np.prod(batch)))))
        for b0 in range(0, n_resamples, step):
            b1 = min(n_resamples, b0 + step)
            position = rng.integers(0, n_k, size=(*batch, b1 - b0, n_k), dtype=dtype)
            out[..., b0:b1, k] = np.count_nonzero(position < ones, axis=-1)
    return out
