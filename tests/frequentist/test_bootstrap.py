"""bayesfair.frequentist.bootstrap: percentile intervals and the within-group resamplers.

Both resamplers draw each group's bootstrap successes as Binomial(n_k, x_k / n_k)
(Lum et al. 2022, §5.2-5.3): their moments are checked against that law's.
"""

import dataclasses

import numpy as np
import pytest

from bayesfair.exceptions import InvalidParameterError
from bayesfair.frequentist.bootstrap import (
    RESAMPLERS,
    BootstrapEstimate,
    check_resampler,
    percentile_interval,
    resample_successes,
)
from bayesfair.stats import Interval


# ---------------------------------------------------------------------- percentile intervals
def test_percentile_interval_is_numpy_s_linear_quantile():
    draws = np.random.default_rng(0).normal(size=999)
    iv = percentile_interval(draws, 0.9)
    assert isinstance(iv, Interval) and iv.kind == "percentile bootstrap" and iv.ci_prob == 0.9
    expected = (np.quantile(draws, 0.05), np.quantile(draws, 0.95))
    assert iv == pytest.approx(expected, rel=1e-12, abs=1e-15)
    assert isinstance(iv.lower, float) and isinstance(iv.upper, float)
    # 11 equally spaced draws: the 5% and 95% quantiles interpolate between them
    assert percentile_interval(np.arange(11.0), 0.9) == pytest.approx((0.5, 9.5))


def test_percentile_interval_over_the_last_axis_of_many_rows():
    draws = np.stack([np.arange(101.0), 10 + np.arange(101.0), np.zeros(101)])
    lo, hi = percentile_interval(draws, 0.8)
    np.testing.assert_allclose(lo, [10.0, 20.0, 0.0])
    np.testing.assert_allclose(hi, [90.0, 100.0, 0.0])


def test_percentile_interval_refuses_what_is_not_draws():
    with pytest.raises(ValueError, match="draws"):
        percentile_interval(3.0, 0.9)


# ---------------------------------------------------------------------- the estimate
def test_a_bootstrap_estimate_keeps_a_read_only_copy_of_its_draws():
    draws = np.array([0.1, 0.2, 0.3])
    est = BootstrapEstimate(0.2, percentile_interval(draws, 0.5), draws)
    draws[0] = 9.0
    np.testing.assert_array_equal(est.draws, [0.1, 0.2, 0.3])
    assert not est.draws.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        est.draws[0] = 1.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        est.estimate = 0.5
    assert "draws" not in repr(est)


# ---------------------------------------------------------------------- resamplers
def test_resamplers_and_their_names():
    assert set(RESAMPLERS) == {"binomial", "rows"}
    assert check_resampler(" Rows ") == "rows"
    assert check_resampler("binomial") == "binomial"
    with pytest.raises(InvalidParameterError, match="Unknown resampler 'row'. Did you mean 'rows'"):
        check_resampler("row")
    with pytest.raises(InvalidParameterError, match="Unknown resampler 'jackknife'"):
        resample_successes([1], [2], 3, np.random.default_rng(0), "jackknife")


@pytest.mark.parametrize("resampler", ["binomial", "rows"])
def test_resampled_successes_have_the_binomial_s_mean_and_variance(resampler):
    """x = (3, 30, 0, 12) of n = (10, 40, 5, 12): each group's draws have mean x and
    variance x (1 − x/n), within 5 Monte Carlo standard errors (B = 20,000)."""
    x, n = np.array([3, 30, 0, 12]), np.array([10, 40, 5, 12])
    b = 20_000
    draws = resample_successes(x, n, b, np.random.default_rng(1), resampler)
    assert draws.shape == (b, 4) and draws.dtype == np.int64
    p = x / n
    var = n * p * (1 - p)
    assert np.all(np.abs(draws.mean(axis=0) - x) <= 5 * np.sqrt(var / b))
    # the sample variance's SE: sqrt((μ4 − σ⁴) / B), μ4 of the binomial
    mu4 = n * p * (1 - p) * (1 + 3 * (n - 2) * p * (1 - p))
    assert np.all(np.abs(draws.var(axis=0) - var) <= 5 * np.sqrt((mu4 - var**2) / b) + 1e-12)
    # a group with no successes, or only successes, never moves
    assert (draws[:, 2] == 0).all() and (draws[:, 3] == 12).all()
    assert draws.min() >= 0 and (draws <= n).all()


@pytest.mark.parametrize("resampler", ["binomial", "rows"])
def test_leading_axes_are_independent_data_sets_and_empty_groups_stay_empty(resampler):
    x = np.array([[1, 0, 4], [5, 0, 0]])
    n = np.array([6, 0, 4])
    draws = resample_successes(x, n, 7, np.random.default_rng(2), resampler)
    assert draws.shape == (2, 7, 3)
    assert (draws[:, :, 1] == 0).all()  # a group of size 0
    assert (draws[0, :, 2] == 4).all() and (draws[1, :, 2] == 0).all()
    again = resample_successes(x, n, 7, np.random.default_rng(2), resampler)
    np.testing.assert_array_equal(draws, again)


def test_the_row_resampler_draws_a_large_group_in_chunks():
    """A group of two million rows is drawn a few resamples at a time (bounded memory):
    every resample is filled, with the binomial's mean and spread."""
    n, x, b = 2_000_000, 500_000, 6
    draws = resample_successes([x], [n], b, np.random.default_rng(3), "rows")[:, 0]
    sd = np.sqrt(n * 0.25 * 0.75)
    assert draws.shape == (b,) and len(set(draws.tolist())) > 1
    assert np.all(np.abs(draws - x) < 6 * sd)
    assert abs(draws.mean() - x) < 5 * sd / np.sqrt(b)
