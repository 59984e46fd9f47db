"""Contrasts of a fit's group rates (bayesfair.posterior.contrasts), against the rates'
own draws."""

import numpy as np
import pytest

import bayesfair as bf
from bayesfair.posterior import contrasts


@pytest.fixture(scope="module")
def res():
    data = bf.datasets.load_assessment("compas-race", "LR", n_labeled=200, random_seed=0)
    return bf.fit(data, "bb", metrics=["accuracy", "tpr"], draws=500, chains=2, random_seed=0)


def test_difference_ratio_and_direction_are_the_rates_draws(res):
    g, ref = contrasts.pair(res)
    r = res.rates("accuracy")
    a, b = r.sel(group=g).values, r.sel(group=ref).values
    np.testing.assert_array_equal(contrasts.difference(res, "accuracy").values, a - b)
    np.testing.assert_allclose(contrasts.ratio(res, "accuracy").values, a / b)
    assert contrasts.prob_positive(res, "accuracy") == np.mean(a - b > 0)
    gap = contrasts.max_min_gap(res, "accuracy").values
    np.testing.assert_allclose(gap, np.abs(a - b))  # two groups: max − min is |Δ|
    var = contrasts.between_group_variance(res, "accuracy").values
    np.testing.assert_allclose(var, (a - b) ** 2 / 2)  # ddof = 1 with two groups


def test_pairs_default_to_every_group_against_the_reference(res):
    (only,) = contrasts.pairs_for(res)
    assert only == contrasts.pair(res) and only[1] == res.reference
    with pytest.raises(ValueError, match="Unknown group"):
        contrasts.pair(res, "nobody")


def test_practical_fairness_and_the_variance_bound(res):
    d = contrasts.difference(res, "tpr").values
    p = contrasts.prob_practically_fair(res, "tpr", epsilon=0.05)
    assert p.iloc[0] == np.mean(np.abs(d) < 0.05)
    v = contrasts.between_group_variance(res, "tpr").values
    assert contrasts.variance_upper_bound(res, "tpr", 0.9) == np.quantile(v, 0.9)
    assert contrasts.prob_variance_below(res, "tpr", 0.001) == np.mean(v < 0.001)
    with pytest.raises(ValueError, match="'delta' parameter must be a positive number"):
        contrasts.prob_variance_below(res, "tpr", 0)
    lo, hi = bf.stats.eti(d, 0.9)
    np.testing.assert_allclose([lo, hi], np.quantile(d, [0.05, 0.95]))
