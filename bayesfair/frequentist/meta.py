"""Meta-metrics: one number summarising how a rate varies across K groups.

The meta-metrics of Lum, Zhang and Bower (2022, Table 1), as point estimates
over the observed group rates ``Y = (Y_1, ..., Y_K)``. Every one of them is
**biased upwards** as an estimate of the same meta-metric of the true rates
``μ``: the observed rates carry sampling noise, which the meta-metric reads as
disparity (§4; Jensen's inequality for the absolute deviations, an exact
identity for the variance). The bias grows with the number of groups and
shrinks with their sizes; only the variance has a known correction (see
:mod:`bayesfair.frequentist.variance`).
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import pandas as pd

from bayesfair._internal.validation import check_array, takes
from bayesfair.exceptions import InvalidParameterError
from bayesfair.frequentist.variance import between_group_variance
from bayesfair.metrics.rates import (
    UndefinedRateWarning,
    get_rate,
    rate_fraction,
    undefined_rate_message,
)

__all__ = [
    "generalized_entropy_index",
    "max_abs_difference",
    "max_min_difference",
    "max_min_ratio",
    "mean_abs_deviation",
    "meta_metrics",
]


def max_min_difference(rates) -> np.ndarray:
    """``max_k Y_k - min_k Y_k`` over the last axis (Lum et al. Table 1).

    References
    ----------
    Lum, Zhang, Bower (2022), Table 1 (max-min difference) and §4 (upward bias).

    Examples
    --------
    >>> float(max_min_difference([0.5, 0.75, 0.25]))
    0.5
    """
    y = check_array(rates, "rates", min_ndim=1)
    return np.max(y, axis=-1) - np.min(y, axis=-1)


def max_min_ratio(rates) -> np.ndarray:
    """``max_k Y_k / min_k Y_k`` over the last axis (Lum et al. Table 1).

    ``inf`` when the smallest rate is 0 and the largest positive; NaN when all
    are 0.

    References
    ----------
    Lum, Zhang, Bower (2022), Table 1 (max-min ratio) and §4.

    Examples
    --------
    >>> float(max_min_ratio([0.5, 0.75, 0.25]))
    3.0
    """
    y = check_array(rates, "rates", min_ndim=1)
    hi, lo = np.max(y, axis=-1), np.min(y, axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return hi / lo


def max_abs_difference(rates) -> np.ndarray:
    """``max_k |Y_k - Ȳ|``: largest absolute deviation from the mean rate.

    References
    ----------
    Lum, Zhang, Bower (2022), Table 1 (max absolute difference) and §4.

    Examples
    --------
    >>> float(max_abs_difference([0.5, 0.75, 0.25, 0.5]))
    0.25
    """
    y = check_array(rates, "rates", min_ndim=1)
    return np.max(np.abs(y - y.mean(axis=-1, keepdims=True)), axis=-1)


def mean_abs_deviation(rates) -> np.ndarray:
    """``(1/K) Σ_k |Y_k - Ȳ|``: mean absolute deviation from the mean rate.

    References
    ----------
    Lum, Zhang, Bower (2022), Table 1 (mean absolute deviation) and §4 (the
    Jensen argument for its upward bias).

    Examples
    --------
    >>> float(mean_abs_deviation([0.5, 0.75, 0.25, 0.5]))
    0.125
    """
    y = check_array(rates, "rates", min_ndim=1)
    return np.mean(np.abs(y - y.mean(axis=-1, keepdims=True)), axis=-1)


def generalized_entropy_index(rates, alpha: float = 2.0) -> np.ndarray:
    """Generalized entropy index ``(1/(K α(α-1))) Σ_k [(Y_k/Ȳ)^α - 1]``.

    Parameters
    ----------
    rates : array_like, shape (..., K)
        Non-negative group rates.
    alpha : float, default 2
        Any real number except 0 and 1 (the limits there are the Theil and
        mean-log-deviation indices, not provided). ``alpha = 2`` is half the
        squared coefficient of variation (with the ``1/K`` variance).

    Returns
    -------
    numpy.ndarray
        NaN where the mean rate is 0.

    References
    ----------
    Lum, Zhang, Bower (2022), Table 1 (generalized entropy index) and §4;
    Speicher et al. (2018).

    Examples
    --------
    >>> round(float(generalized_entropy_index([0.5, 1.0, 1.5])), 4)
    0.0833
    """
    y = check_array(rates, "rates", min_ndim=1)
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or not np.isfinite(alpha):
        raise InvalidParameterError(
            f"The 'alpha' parameter must be a finite real number other than 0 and 1. "
            f"Got {alpha!r} instead."
        )
    if alpha in (0, 1):
        raise InvalidParameterError(
            f"The 'alpha' parameter must be a real number other than 0 and 1 (the formula "
            f"divides by α(α-1)). Got {alpha!r} instead."
        )
    k = y.shape[-1]
    mean = y.mean(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(mean > 0, y / np.where(mean > 0, mean, 1.0), np.nan)
        return np.sum(ratio**alpha - 1, axis=-1) / (k * alpha * (alpha - 1))


@takes("AssessmentData")
def meta_metrics(data, metric: str, alpha: float = 2.0) -> pd.Series:
    """All meta-metrics of Lum et al. Table 1 for a rate's labeled group estimates.

    These are upward-biased point estimates of the same quantities of the true
    group rates (Lum et al. §4); for the variance, use
    :func:`~bayesfair.frequentist.double_corrected_bootstrap` to correct the
    bias and get an interval.

    Parameters
    ----------
    data : AssessmentData
    metric : str
        A rate name or alias.
    alpha : float, default 2
        Parameter of the generalized entropy index.

    Returns
    -------
    pandas.Series
        Indexed by ``max_min_difference, max_min_ratio, max_abs_difference,
        mean_abs_deviation, variance, generalized_entropy_index``.

    Warns
    -----
    UndefinedRateWarning
        Naming groups whose denominator is 0; they are left out.

    References
    ----------
    Lum, Zhang, Bower (2022), Table 1 and §4.

    Examples
    --------
    >>> from bayesfair import AssessmentData
    >>> data = AssessmentData(scores=[.9, .2, .3, .7, .8, .6, .1],
    ...                       labels=[1, 1, 0, 1, 1, 1, 1],
    ...                       groups=["a", "a", "a", "b", "b", "c", "c"])
    >>> meta_metrics(data, "tpr").round(4).tolist()
    [0.5, 2.0, 0.3333, 0.2222, 0.0833, 0.0625]
    """
    rate = get_rate(metric)
    num, den = rate_fraction(data.labeled_examples.confusion_counts(), rate.name)
    keep = den > 0
    if not keep.all():
        dropped = [g for g, k in zip(data.group_levels, keep, strict=True) if not k]
        warnings.warn(
            f"{undefined_rate_message(rate, dropped)} They are left out of the meta-metrics.",
            UndefinedRateWarning,
            stacklevel=2,
        )
    if keep.sum() < 2:
        raise InvalidParameterError(
            f"Meta-metrics need at least 2 groups with a defined {rate.name}; got "
            f"{int(keep.sum())}."
        )
    y = num[keep] / den[keep]
    values = {
        "max_min_difference": max_min_difference(y),
        "max_min_ratio": max_min_ratio(y),
        "max_abs_difference": max_abs_difference(y),
        "mean_abs_deviation": mean_abs_deviation(y),
        "variance": between_group_variance(y),
        "generalized_entropy_index": generalized_entropy_index(y, alpha),
    }
    return pd.Series({k: float(v) for k, v in values.items()}, name=rate.name)
