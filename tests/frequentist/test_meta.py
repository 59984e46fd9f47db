"""Meta-metrics of Lum, Zhang, Bower (2022) Table 1 and their upward bias (§4)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from bayesfair import AssessmentData
from bayesfair.datasets.simulate import lum_scenario, simulate_counts
from bayesfair.frequentist import (
    generalized_entropy_index,
    max_abs_difference,
    max_min_difference,
    max_min_ratio,
    mean_abs_deviation,
    meta_metrics,
)
from bayesfair.metrics.rates import UndefinedRateWarning

ALPHA = 0.001
Y = np.array([0.2, 0.5, 0.6, 0.9])  # mean 0.55


def test_closed_forms():
    assert max_min_difference(Y) == pytest.approx(0.7)
    assert max_min_ratio(Y) == pytest.approx(4.5)
    assert max_abs_difference(Y) == pytest.approx(0.35)
    assert mean_abs_deviation(Y) == pytest.approx((0.35 + 0.05 + 0.05 + 0.35) / 4)
    r = Y / Y.mean()
    assert generalized_entropy_index(Y) == pytest.approx(np.sum(r**2 - 1) / (4 * 2))
    assert generalized_entropy_index(Y, alpha=0.5) == pytest.approx(
        np.sum(r**0.5 - 1) / (4 * 0.5 * -0.5)
    )
    # alpha = 2: half the squared coefficient of variation (population variance)
    assert generalized_entropy_index(Y) == pytest.approx(np.var(Y) / Y.mean() ** 2 / 2)


def test_edge_values_and_broadcasting():
    assert max_min_ratio([0.0, 0.5]) == np.inf
    assert np.isnan(max_min_ratio([0.0, 0.0]))
    assert np.isnan(generalized_entropy_index([0.0, 0.0]))
    many = np.stack([Y, Y[::-1], Y / 2])
    assert max_min_difference(many).shape == (3,)
    assert mean_abs_deviation(many)[2] == pytest.approx(mean_abs_deviation(Y) / 2)


@pytest.mark.parametrize(
    "alpha, error",
    [(0, ValueError), (1, ValueError), (1.0, ValueError), (np.inf, TypeError), ("2", TypeError)],
)
def test_entropy_alpha_checked(alpha, error):
    with pytest.raises(
        error, match=r"'alpha' parameter must be a .*real number other than 0 and 1"
    ):
        generalized_entropy_index(Y, alpha=alpha)


def test_upward_bias():
    """§4: on average M(Y) exceeds M(μ) (z-test at ALPHA over 2000 draws)."""
    s = lum_scenario("equal_size_unequal_perf", K=20, n=400)
    y = simulate_counts(s.mu, s.n_k, random_seed=3, n_replicates=2000) / s.n_k
    for f in (
        max_min_difference,
        max_abs_difference,
        mean_abs_deviation,
        generalized_entropy_index,
    ):
        bias = f(y) - f(s.mu)
        z = bias.mean() / (bias.std(ddof=1) / np.sqrt(bias.size))
        assert z > stats.norm.ppf(1 - ALPHA), f.__name__


def test_meta_metrics_on_data():
    data = AssessmentData(
        scores=[0.9, 0.2, 0.7, 0.8, 0.6, 0.1, 0.4, 0.3],
        labels=[1, 1, 1, 1, 1, 1, 0, 0],
        groups=["a", "a", "b", "b", "c", "c", "d", "d"],
    )
    with pytest.warns(UndefinedRateWarning, match=r"\['d'\].*left out"):
        out = meta_metrics(data, "tpr")
    y = np.array([0.5, 1.0, 0.5])
    assert out.name == "tpr"
    assert out["variance"] == pytest.approx(np.var(y, ddof=1))
    assert out["max_min_ratio"] == pytest.approx(2.0)
    assert out["generalized_entropy_index"] == pytest.approx(generalized_entropy_index(y))
    assert list(out.index) == [
        "max_min_difference",
        "max_min_ratio",
        "max_abs_difference",
        "mean_abs_deviation",
        "variance",
        "generalized_entropy_index",
    ]
    with pytest.warns(UndefinedRateWarning), pytest.raises(ValueError, match="at least 2 groups"):
        meta_metrics(data, "fpr")
