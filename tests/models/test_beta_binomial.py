"""bayesfair.models.beta_binomial: bb's conjugate posterior and hbb's population of rates.

The closed forms checked here (Beta moments, the expected between-group variance)
are written out in the tests, not taken from the module.
"""

import numpy as np
import pytest
from scipy import stats
from scipy.special import expit, logit

from bayesfair.exceptions import InvalidParameterError
from bayesfair.models.beta_binomial import (
    KAPPA_MAX,
    SIZE_TERMS,
    BetaPrior,
    KappaPrior,
    bb_concentration,
    build_bb_cells_model,
    build_bb_model,
    build_hbb_model,
    hbb_group_means,
    hbb_population_variance,
    sample_bb_cells,
    sample_bb_exact,
    sample_hbb_rates,
    size_basis,
)


def test_the_bb_model_refuses_fractional_counts_instead_of_truncating():

    with pytest.raises(ValueError, match="whole|integer"):
        build_bb_model([[2.5, 3]], [[10, 10]], metrics=["accuracy"])
    model = build_bb_model([[2.0, 3]], [[10, 10]], metrics=["accuracy"])
    np.testing.assert_array_equal(model["successes"].get_value(), [[2, 3]])


# ------------------------------------------------------------------ bb
def test_exact_draws_have_the_conjugate_beta_s_moments():
    """x = (3, 0, 7) of n = (10, 4, 7), prior Beta(2, 5): each group's draws have the mean
    and variance of Beta(2 + x, 5 + n − x), within 5 Monte Carlo standard errors."""
    x, n = np.array([[3, 0, 7]]), np.array([[10, 4, 7]])
    draws = sample_bb_exact(
        x, n, alpha=2.0, beta=5.0, draws=5_000, chains=4, rng=np.random.default_rng(0)
    )
    assert draws.shape == (4, 5_000, 1, 3)
    flat = draws.reshape(-1, 3)
    exact = stats.beta(2 + x[0], 5 + n[0] - x[0])
    se = np.sqrt(exact.var() / flat.shape[0])
    assert np.all(np.abs(flat.mean(axis=0) - exact.mean()) < 5 * se)
    assert np.all(np.abs(flat.std(axis=0) / exact.std() - 1) < 0.03)


def test_a_group_without_trials_gets_prior_draws_and_bad_counts_are_refused():
    draws = sample_bb_exact(
        [[0]], [[0]], alpha=3.0, beta=1.0, draws=20_000, chains=1, rng=np.random.default_rng(1)
    )
    assert draws.mean() == pytest.approx(0.75, abs=5 * np.sqrt(0.0375 / 20_000))
    with pytest.raises(InvalidParameterError):
        sample_bb_exact([[5]], [[4]], rng=np.random.default_rng(0))
    a = sample_bb_exact([[1, 2]], [[3, 4]], draws=10, chains=2, rng=np.random.default_rng(7))
    b = sample_bb_exact([[1, 2]], [[3, 4]], draws=10, chains=2, rng=np.random.default_rng(7))
    np.testing.assert_array_equal(a, b)


def test_bb_model_s_log_density_is_the_beta_binomial_s():
    """The PyMC model's joint log density at a point against scipy: Beta(α, β) priors of
    θ and binomial likelihoods (in θ's logit, the sampler's coordinate, with its Jacobian)."""
    x, n = np.array([[2, 9], [0, 3]]), np.array([[10, 12], [4, 3]])
    model = build_bb_model(x, n, metrics=["tpr", "fpr"], alpha=2.0, beta=3.0)
    theta = np.array([[0.3, 0.6], [0.1, 0.8]])
    point = {"theta_logodds__": logit(theta)}
    value = model.compile_logp()(point)
    jacobian = np.log(theta * (1 - theta)).sum()
    expected = stats.beta(2, 3).logpdf(theta).sum() + stats.binom(n, theta).logpmf(x).sum()
    assert value == pytest.approx(expected + jacobian, rel=1e-7)
    assert list(model.coords["metric"]) == ["tpr", "fpr"]


# ------------------------------------------------------------------ the priors
def test_dirichlet_cells_have_the_conjugate_moments_and_a_group_without_labels_its_prior():
    """Dirichlet(α + counts): each cell's mean (α + c)/(4α + n) within 4 Monte Carlo SEs,
    cells summing to 1; a group with no labels gets Dirichlet(α) draws; a very small α
    gives no NaN (numpy's Dirichlet, where normalised Gamma draws underflow)."""
    counts = np.array([[8, 1, 9, 2], [0, 0, 0, 0]])
    draws = sample_bb_cells(
        counts, concentration=0.5, draws=5000, chains=2, rng=np.random.default_rng(1)
    )
    assert draws.shape == (2, 5000, 2, 4)
    np.testing.assert_allclose(draws.sum(axis=-1), 1.0, atol=1e-12)
    flat = draws.reshape(-1, 2, 4)
    for g in range(2):
        a = 0.5 + counts[g]
        dist = stats.beta(a, a.sum() - a)  # each cell's margin
        se = dist.std() / np.sqrt(flat.shape[0])
        assert np.all(np.abs(flat[:, g].mean(axis=0) - dist.mean()) < 4 * se)
    tiny = sample_bb_cells(
        counts, concentration=0.005, draws=2000, chains=2, rng=np.random.default_rng(2)
    )
    assert np.isfinite(tiny).all()
    with pytest.raises(InvalidParameterError, match="shape"):
        sample_bb_cells([[1, 2, 3]], rng=np.random.default_rng(0))


def test_the_dirichlet_model_refuses_fractional_counts_and_asymmetric_priors():
    with pytest.raises(InvalidParameterError):
        build_bb_cells_model([[2.5, 1, 3, 0]], metrics=["tpr"])
    model = build_bb_cells_model([[2, 1, 3, 0], [0, 0, 0, 0]], metrics=["tpr", "accuracy"])
    assert np.isfinite(model.compile_logp()(model.initial_point()))  # a group without labels
    assert bb_concentration(BetaPrior(3.0)) == 3.0
    for prior in (BetaPrior(2.0, 3.0), BetaPrior(1.0, 1.0, cells=False)):
        with pytest.raises(InvalidParameterError, match="one Dirichlet"):
            bb_concentration(prior)


def test_the_priors_describe_record_and_check_themselves():
    assert BetaPrior().describe() == (
        "each group's confusion cells ~ Dirichlet(1, 1, 1, 1) (uniform over the cells): a "
        "rate within the positives, negatives or predictions ~ Beta(1, 1), a share of all "
        "rows ~ Beta(2, 2)"
    )
    # unequal shapes, or a record of a fit before 0.4: one Beta per rate
    assert BetaPrior(2, 0.5).describe() == "each group's rate ~ Beta(2, 0.5), each on its own"
    assert BetaPrior(2.0) == BetaPrior(2.0, 2.0)  # beta defaults to alpha
    assert BetaPrior(2.0).to_dict() == {
        "kind": "BetaPrior",
        "alpha": 2.0,
        "beta": 2.0,
        "cells": True,
    }
    assert KappaPrior(4.0).to_dict() == {"kind": "KappaPrior", "kappa_min": 4.0}
    assert "Pareto(½, 4)" in KappaPrior(4.0).describe()
    for bad in (0, -1.0, True, "1"):
        with pytest.raises(InvalidParameterError, match="'alpha' must be a positive number"):
            BetaPrior(alpha=bad)
    for bad in (0.0, KAPPA_MAX, False):
        with pytest.raises(InvalidParameterError, match="'kappa_min' must be a positive number"):
            KappaPrior(bad)


# ------------------------------------------------------------------ hbb
def test_size_basis_is_centred_orthogonal_and_zero_for_an_empty_group():
    n = np.array([[10, 40, 160, 0, 25], [5, 5, 5, 5, 5]])
    q = size_basis(n)
    assert q.shape == (2, 5, 2) and SIZE_TERMS == ("log_size", "log_size_squared")
    q1, q2 = q[0, :, 0], q[0, :, 1]
    np.testing.assert_allclose([q1.sum(), q2.sum(), q1 @ q2], 0.0, atol=1e-12)
    # q1 is the centred log size, with the empty group at the typical size (z = 0)
    log_n = np.log([10, 40, 160, 25])
    z = np.r_[log_n - log_n.mean(), 0.0][[0, 1, 2, 4, 3]]
    np.testing.assert_allclose(q1, z - z.mean(), atol=1e-12)
    # q2 is z² with its part along (1, z) removed
    design = np.column_stack([np.ones(5), z])
    residual = z**2 - design @ np.linalg.lstsq(design, z**2, rcond=None)[0]
    np.testing.assert_allclose(q2, residual, atol=1e-12)
    assert np.all(q[1] == 0.0)  # equal sizes: no trend


def test_group_means_follow_the_size_trend():
    q = size_basis([[10, 100, 1000]])
    mu, kappa = np.array([0.3]), np.array([5.0])
    flat = hbb_group_means(mu, np.zeros((1, 2)), q)
    np.testing.assert_allclose(flat, 0.3)
    up = hbb_group_means(mu, np.array([[0.5, 0.0]]), q)[0]
    assert up[0] < up[1] < up[2]
    np.testing.assert_allclose(up, expit(logit(0.3) + 0.5 * q[0, :, 0]))
    # draws on leading axes
    many = hbb_group_means(np.full((2, 3, 1), 0.3), np.zeros((2, 3, 1, 2)), q)
    assert many.shape == (2, 3, 1, 3)
    assert hbb_population_variance(mu, np.zeros((1, 2)), kappa, q) == pytest.approx(0.3 * 0.7 / 6.0)


def test_population_variance_is_the_expected_sample_variance_of_new_groups():
    """Draw θ_k ~ Beta(μ_k κ, (1 − μ_k) κ) for groups of unequal sizes many times: the mean
    sample variance (ddof = 1) equals the formula within 5 Monte Carlo standard errors."""
    q = size_basis([[20, 50, 200, 800]])
    mu, effect, kappa = np.array([0.4]), np.array([[0.6, -0.3]]), np.array([8.0])
    formula = float(hbb_population_variance(mu, effect, kappa, q)[0])
    means = hbb_group_means(mu, effect, q)[0]
    rng = np.random.default_rng(3)
    theta = rng.beta(means * kappa, (1 - means) * kappa, size=(200_000, 4))
    sample = theta.var(axis=1, ddof=1)
    assert abs(sample.mean() - formula) < 5 * sample.std() / np.sqrt(sample.size)
    assert formula > np.var(means, ddof=1)  # the spread of the means, and the Beta's own


def test_hbb_rates_are_drawn_from_their_conditional_beta():
    x, n = np.array([[4, 30]]), np.array([[10, 40]])
    mu = np.full((2, 10_000, 1), 0.5)
    kappa = np.full((2, 10_000, 1), 6.0)
    draws = sample_hbb_rates(mu, kappa, x, n, rng=np.random.default_rng(4))
    assert draws.shape == (2, 10_000, 1, 2)
    expected = (0.5 * 6.0 + x[0]) / (6.0 + n[0])  # Beta(μκ + x, (1 − μ)κ + n − x)
    np.testing.assert_allclose(draws.reshape(-1, 2).mean(axis=0), expected, atol=0.005)
    per_group = sample_hbb_rates(
        np.full((1, 5, 1, 2), 0.2), np.full((1, 5, 1), 1e6), x, n, rng=np.random.default_rng(5)
    )
    np.testing.assert_allclose(per_group, 0.2, atol=0.01)  # a huge κ pins θ to its mean


def test_hbb_model_s_population_variance_is_the_module_s():
    x, n = np.array([[3, 10, 40]]), np.array([[10, 30, 90]])
    model = build_hbb_model(x, n, metrics=["accuracy"], kappa_min=2.0)
    mu, effect, kappa = np.array([0.35]), np.array([[0.4, -0.2]]), np.array([12.0])
    outputs = model.unobserved_value_vars  # the free variables and the deterministics
    point = {
        "mu_logodds__": logit(mu),
        "size_effect": effect,
        "kappa_interval__": np.log((kappa - 2.0) / (KAPPA_MAX - kappa)),
    }
    values = model.compile_fn(outputs, inputs=model.value_vars)(point)
    found = dict(zip([v.name for v in outputs], values, strict=True))
    np.testing.assert_allclose(found["kappa"], kappa, rtol=1e-12)  # the point is the one meant
    value = found["population_variance"]
    np.testing.assert_allclose(value, hbb_population_variance(mu, effect, kappa, size_basis(n)))
    np.testing.assert_array_equal(model["size_basis"].get_value(), size_basis(n))
