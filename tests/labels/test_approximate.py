"""bayesfair.labels.approximate: the planner's fast posterior (a Laplace fit of the maps'
marginal posterior, importance sampling) and the hierarchy's integrated prior."""

import warnings

import numpy as np
import pytest

import bayesfair as bf
from bayesfair.labels.acquisition import Pool


def test_importance_mixture_recovers_a_known_posterior():
    """The planner's importance sampler from a two-t mixture proposal (the adaptive step's),
    on a target it does not fit: a Gaussian in θ (k = 2, six dimensions) with its own mean and
    a correlated covariance. The weighted mean of each coordinate equals the truth within
    5 Monte Carlo SEs (SE from the effective sample size: sd / sqrt(ESS))."""
    from bayesfair.labels.approximate import PARETO_K_MAX, Laplace

    rng = np.random.default_rng(4)
    d = 6
    mean = rng.normal(0, 0.5, d)
    half = rng.normal(0, 0.3, (d, d))
    cov = half @ half.T + 0.05 * np.eye(d)
    prec = np.linalg.inv(cov)

    laplace = Laplace.__new__(Laplace)
    laplace.k, laplace.oversample, laplace.n_draws, laplace.target_floor = 2, 4, 5000, 0.1

    def gaussian(theta, data, floor):
        z = theta.reshape(len(theta), -1) - mean
        return -0.5 * np.einsum("ni,ij,nj->n", z, prec, z), None

    laplace.log_posterior = gaussian
    laplace.nu = 4.0

    def check(theta, w, k_hat):
        assert k_hat < PARETO_K_MAX
        flat = theta.reshape(len(theta), -1)
        ess = 1.0 / np.sum(w**2)
        se = np.sqrt(np.diag(cov) / ess)
        np.testing.assert_array_less(np.abs(w @ flat - mean), 5 * se)

    # a proposal off the target: the first t too narrow and shifted, the second wide
    first = (mean + 0.5, 0.4 * np.eye(d))
    second = (mean - 0.2, 1.5 * np.linalg.cholesky(cov))
    check(*laplace.importance([first, second], None, rng))
    # the adaptive step builds the second t itself from the first's weighted draws: the
    # first alone misses (k̂ > 0.7), the adapted mixture recovers the posterior
    assert laplace.importance([first], None, np.random.default_rng(5))[2] > PARETO_K_MAX
    check(*laplace.sample_weighted(*first, None, np.random.default_rng(5)))


def test_block_prior_integrates_the_hierarchy():
    """θ's prior with μ and σ integrated out, against two-dimensional adaptive quadrature
    (scipy): equal up to one constant (the normalisation), and the gradient against finite
    differences."""
    import math

    from scipy import integrate

    from bayesfair.labels.approximate import block_prior

    sd_mu, sd_sigma, floor = 0.4, 0.15, 0.1
    theta = np.array([[0.3, -0.2], [1.0, 1.2], [-0.5, 0.1], [0.05, 0.0]])
    value, grad = block_prior(theta, sd_mu, sd_sigma, floor)

    def pdf(x, mean, sd):  # the normal density, written out: dblquad calls it ~10^5 times
        return math.exp(-0.5 * ((x - mean) / sd) ** 2) / (sd * math.sqrt(2 * math.pi))

    def density(t):
        def f(m, s):
            return math.prod(pdf(ti, m, s) for ti in t) * pdf(m, 0, sd_mu) * 2 * pdf(s, 0, sd_sigma)

        return integrate.dblquad(f, floor * sd_sigma, 6 * sd_sigma, -3, 3, epsabs=1e-12)[0]

    offset = value - np.log([density(t) for t in theta])
    assert offset == pytest.approx(np.full(theta.shape[0], offset[0]), abs=1e-6)
    step = 1e-5
    numeric = np.stack(
        [
            (
                block_prior(theta + step * e, sd_mu, sd_sigma, floor)[0]
                - block_prior(theta - step * e, sd_mu, sd_sigma, floor)[0]
            )
            / (2 * step)
            for e in np.eye(2)
        ],
        axis=1,
    )
    np.testing.assert_allclose(grad, numeric, atol=1e-6)


def test_laplace_width_close_to_nuts(data):
    """The planner's refit (importance sampling from a Laplace fit of the maps' marginal
    posterior) against NUTS on the same data.

    Not a statistical test: a check of an approximation. The tolerance is the
    ±20% the planner is held to; the NUTS width's Monte Carlo error at 2,000
    draws is about 3%, the refit's at an effective sample size of 300 about 6%.
    """
    from bayesfair.labels.acquisition import SCORE_CLIP
    from bayesfair.labels.approximate import PARETO_K_MAX, Laplace
    from bayesfair.labels.planner import AuditState, fit_state
    from bayesfair.models.calibration import CalibrationPriors, DiscrepancyPrior
    from bayesfair.stats import hdi

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nuts = bf.fit(
            data,
            draws=500,
            tune=500,
            chains=4,
            random_seed=2,
            progressbar=False,
            metrics=["accuracy"],
        )
    lo, hi = hdi(nuts.difference("accuracy").values)
    laplace = Laplace(2, data.threshold, DiscrepancyPrior(), CalibrationPriors(), 2000)
    state = AuditState(
        np.asarray(data.scores, float),
        np.asarray(data.labels, np.int8),
        np.asarray(data.group_codes),
        Pool.from_summary(data.unlabeled_reduction(SCORE_CLIP)),
    )
    fitted = fit_state(laplace, state, "accuracy", np.random.default_rng(0))
    assert fitted.pareto_k < PARETO_K_MAX
    g, r = data.group_levels.index("Caucasian"), data.group_levels.index(data.reference)
    d = fitted.posterior.rates[:, g] - fitted.posterior.rates[:, r]
    lo2, hi2 = hdi(d)
    assert (hi2 - lo2) / (hi - lo) == pytest.approx(1.0, abs=0.2)


# ------------------------------------------------------------------ more of the same
def test_block_prior_is_exchangeable_symmetric_and_floored():
    """The integrated prior depends on the group effects only through their sum of squares
    and their sum: permuting the groups or flipping every sign leaves it; the floor on σ
    bounds its spike where all groups are equal."""
    from bayesfair.labels.approximate import block_prior

    theta = np.array([[0.3, -0.1, 0.5], [0.0, 0.0, 0.0]])
    value, grad = block_prior(theta, 0.4, 0.15, 0.1)
    assert value.shape == (2,) and grad.shape == (2, 3)
    perm, _ = block_prior(theta[:, [2, 0, 1]], 0.4, 0.15, 0.1)
    flipped, flipped_grad = block_prior(-theta, 0.4, 0.15, 0.1)
    np.testing.assert_allclose(perm, value, rtol=1e-13)
    np.testing.assert_allclose(flipped, value, rtol=1e-13)
    np.testing.assert_allclose(flipped_grad, -grad, atol=1e-12)
    np.testing.assert_allclose(grad[1], 0.0, atol=1e-12)  # the mode is at 0
    # the density at equal effects grows as the floor comes down (the spike), finitely
    spikes = [block_prior(theta[1:], 0.4, 0.15, floor)[0][0] for floor in (0.5, 0.1, 0.01)]
    assert spikes[0] < spikes[1] < spikes[2] < np.inf


def _laplace_and_data(data):
    from bayesfair.labels.acquisition import SCORE_CLIP
    from bayesfair.labels.approximate import Laplace
    from bayesfair.labels.planner import AuditState
    from bayesfair.models.calibration import CalibrationPriors, DiscrepancyPrior
    from bayesfair.models.robust_likelihood import robust_likelihood_data

    disc = DiscrepancyPrior()
    laplace = Laplace(2, data.threshold, disc, CalibrationPriors(), 200)
    state = AuditState(
        np.asarray(data.scores, float),
        np.asarray(data.labels, np.int8),
        np.asarray(data.group_codes),
        Pool.from_summary(data.unlabeled_reduction(SCORE_CLIP)),
    )
    labeled = laplace.labeled(state)
    packed = robust_likelihood_data(labeled, np.full((2, 2), 0.5), laplace.priors, disc)
    return laplace, state, labeled, packed


def test_laplace_summarises_the_audit_s_labeled_rows(data):
    laplace, state, labeled, _ = _laplace_and_data(data)
    assert labeled.labeled and labeled.n_total == data.n_labeled
    np.testing.assert_array_equal(labeled.totals().sum(axis=1), np.bincount(state.g, minlength=2))
    assert labeled.positives.sum() == state.y.sum()
    assert labeled.threshold == data.threshold and labeled.score_clip == laplace.clip


def test_laplace_log_posterior_s_gradient_is_its_slope(data):
    """The log density of θ = (ln a, ln b, c) per group (rbc's labeled likelihood and the
    integrated prior) against central differences, at a few points."""
    laplace, _, _, packed = _laplace_and_data(data)
    rng = np.random.default_rng(3)
    theta = rng.normal(0, 0.3, (3, 3, 2))
    value, grad = laplace.log_posterior(theta, packed, floor=laplace.target_floor)
    assert value.shape == (3,) and grad.shape == (3, 3, 2)
    step = 1e-6
    for i in range(3):
        for g in range(2):
            e = np.zeros_like(theta)
            e[:, i, g] = step
            up = laplace.log_posterior(theta + e, packed, floor=laplace.target_floor)[0]
            down = laplace.log_posterior(theta - e, packed, floor=laplace.target_floor)[0]
            np.testing.assert_allclose(grad[:, i, g], (up - down) / (2 * step), rtol=1e-5)


def test_laplace_draws_are_maps_with_positive_slopes(data):
    from bayesfair.labels.approximate import PARETO_K_MAX

    laplace, state, labeled, _ = _laplace_and_data(data)
    a, b, c, center = laplace.draws(labeled, state.pool.summary(), np.random.default_rng(4))
    assert a.shape == b.shape == c.shape == (200, 2) and center.shape == (2, 2)
    assert np.all(a > 0) and np.all(b > 0) and np.all((center > 0) & (center < 1))
    assert laplace.pareto_k < PARETO_K_MAX and 0 < laplace.ess <= 4 * 200
    assert PARETO_K_MAX == 0.7
