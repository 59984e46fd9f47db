"""The planner's fast posterior: a Laplace fit of the maps' marginal posterior and
importance sampling (Vehtari et al. 2024, Pareto-smoothed), so that each
simulated refit of :func:`~bayesfair.labels.plan_labels` costs milliseconds.
"""

from __future__ import annotations

import warnings
from functools import lru_cache

import numpy as np

from bayesfair._internal.optimize import damped_newton
from bayesfair.data.summary import ScoreSummary, summarize_arrays
from bayesfair.labels.acquisition import SCORE_CLIP
from bayesfair.models.calibration import center_and_mode
from bayesfair.models.robust_likelihood import robust_likelihood_data, robust_log_likelihood
from bayesfair.stats import pareto_smoothed_log_weights

# Pareto k̂ above which importance-sampled draws are not to be trusted (Vehtari et al. 2024)
PARETO_K_MAX = 0.7


# ---------------------------------------------------------------- the planner's posterior
class Laplace:
    """The default model's posterior for preposterior simulation: the maps' marginal
    posterior, a Laplace fit of it, and importance sampling.

    Only the groups' maps θ_g = (log a_g, log b_g, c_g) enter the rates, so the
    hierarchy's μ and σ are integrated out of the prior: per parameter block,
    μ ~ N(0, s_μ) and the group effects ~ N(μ, σ) make θ normal with covariance
    σ² I + s_μ² 11ᵀ given σ, and σ ~ HalfNormal(s_σ) is integrated by quadrature
    (:func:`block_prior`). The posterior of θ (3 × groups dimensions) is this
    prior times ``rbc``'s labeled likelihood (the hand-written one NUTS samples,
    the strata's states summed out). Sampling μ, σ and the group effects jointly,
    as NUTS does, meets the hierarchy's funnel; θ's posterior has none. One
    approximation: the integrated prior is infinite where a block's group effects
    are all equal (σ → 0), a spike that importance sampling cannot follow (Pareto
    k̂ of 0.7–0.9 with three similar groups), so the planner's prior on σ starts at
    ``target_floor`` = 1/10 of its scale (8% of the half-normal's mass, where the
    groups' maps differ by less than 0.015 in log a); the widths' agreement with
    NUTS, which samples the untruncated prior, is measured in
    ``docs/benchmarks.md``.

    Its mode is found by damped Newton steps (:func:`_newton`), the inverse
    Hessian there scales a multivariate t proposal (ν = 4; Laplace, BDA3 §4.1,
    §13.3), ``oversample × n_draws`` proposals are weighted by the exact posterior
    density over the proposal's, the weights Pareto-smoothed (Vehtari, Simpson,
    Gelman, Yao & Gabry 2024, *JMLR* 25(72)), and ``n_draws`` resampled. The last
    refit's effective sample size and Pareto k̂ are kept in ``ess`` and
    ``pareto_k``: k̂ above 0.7 says the proposal missed the posterior
    (:func:`plan_labels` reports the share of such refits). When it does, one
    adaptive step follows (:meth:`_sample`: population Monte Carlo, Cappé, Guillin,
    Marin & Robert 2004), and the k̂ kept is that of the mixture whose draws are
    used. Earlier designs, and
    why they were replaced: a Gaussian at the joint mode of (μ, σ, z) put σ at
    its prior scale and made intervals 7–26% too wide; with σ held at the current
    posterior's medians the Gaussian was 0.84–0.91 of NUTS' width at 100 labels
    (it misses σ's uncertainty and the heavy tails that the misfit states give);
    importance sampling in (μ, log σ, z) matched NUTS' widths but with Pareto k̂
    of 0.6–0.8, the funnel's signature. Each draw of (a, b, c) then goes through
    the same steps as a fit's draws (misfit strata, unlabeled counts, rates).
    """

    nu = 4.0
    oversample = 4
    floor = 0.5  # σ / s_σ below which the proposal's search ignores the prior (block_prior)
    target_floor = 0.1  # σ / s_σ: the planner's prior on σ starts here (block_prior)

    def __init__(self, k, threshold, disc, priors, n_draws, score_clip=SCORE_CLIP):
        self.k, self.threshold, self.disc, self.priors = k, threshold, disc, priors
        self.n_draws, self.clip = n_draws, score_clip
        self.scales = [
            (priors.mu_a_sd, priors.sigma_a_sd),
            (priors.mu_b_sd, priors.sigma_b_sd),
            (priors.mu_c_sd, priors.sigma_c_sd),
        ]
        self.x0 = self.bc_x0 = None  # the last modes: where the next searches start
        self.ess = self.pareto_k = np.nan

    def log_posterior(self, theta, data, floor: float):
        """Log density of θ, shape (N, 3, k), up to a constant, and its gradient
        (``floor``: :func:`block_prior`'s; ``data``: :func:`robust_likelihood_data`'s)."""
        abc = theta.copy()
        abc[:, :2] = np.exp(theta[:, :2])
        value, grad = robust_log_likelihood(abc, data)
        grad[:, :2] *= abc[:, :2]  # d/d log a = a d/da
        for blk, (sd_mu, sd_sigma) in enumerate(self.scales):
            v, g = block_prior(theta[:, blk], sd_mu, sd_sigma, floor)
            value += v
            grad[:, blk] += g
        return value, grad

    def labeled(self, state) -> ScoreSummary:
        """A simulated audit's labeled examples as a summary (the grid of a fit)."""
        return summarize_arrays(
            state.s,
            state.g,
            range(self.k),
            labels=state.y,
            threshold=self.threshold,
            score_clip=self.clip,
        )

    def draws(self, labeled: ScoreSummary, population: ScoreSummary, rng):
        """``(a, b, c, center)``: draws of the maps given the labeled summary, shape (n, k).

        The labeled rows enter as their summary, as in a fit
        (:func:`~bayesfair.models.calibration.likelihood_data`)."""
        k = self.k
        center, self.bc_x0 = center_and_mode(
            labeled,
            population,
            priors=self.priors,
            start=self.bc_x0,
            solver=lambda f, x0: _newton(f, x0)[0],
        )
        data = robust_likelihood_data(labeled, center, self.priors, self.disc)

        def objective(x):  # the proposal's centre and scale: the prior's spike left out
            value, grad = self.log_posterior(x.reshape(1, 3, k), data, floor=self.floor)
            return -float(value[0]), -grad[0].ravel()

        x0 = np.zeros(3 * k) if self.x0 is None else self.x0
        mode, hess = _newton(objective, x0)
        self.x0 = mode
        vals, vecs = np.linalg.eigh(hess)
        root = vecs / np.sqrt(np.maximum(vals, 1e-8))  # scale matrix = root rootᵀ
        theta, w, k_hat = self.sample_weighted(mode, root, data, rng)
        self.ess, self.pareto_k = 1.0 / float(np.sum(w**2)), float(k_hat)
        keep = theta[rng.choice(len(theta), size=self.n_draws, p=w)]
        return np.exp(keep[:, 0]), np.exp(keep[:, 1]), keep[:, 2], center

    def sample_weighted(self, centre, root, data, rng):
        """Importance sampling from a t at (centre, root), and when its Pareto k̂ exceeds
        0.7 one adaptive step (population Monte Carlo, Cappé et al. 2004): a second t at
        the weighted draws' mean and covariance (scale ×1.5), mixed equally with the
        first, so that a posterior skewed or heavier than the Laplace fit is still
        reached. The mixture's draws and k̂ are then the result (its weights are at
        most twice the first t's, so it is never much worse): the draws, shape
        (n, 3, k), their normalised weights, and k̂ of the draws returned."""
        components = [(centre, root)]
        theta, w, k_hat = self.importance(components, data, rng)
        if k_hat > PARETO_K_MAX:
            flat = theta.reshape(len(theta), -1)
            mean = w @ flat
            cov = (flat - mean).T @ ((flat - mean) * w[:, None])
            vals, vecs = np.linalg.eigh(cov + 1e-8 * np.eye(cov.shape[0]))
            # a t's covariance is its scale matrix × ν / (ν − 2)
            root2 = vecs * np.sqrt(np.maximum(vals, 1e-12) * 1.5**2 * (self.nu - 2) / self.nu)
            theta, w, k_hat = self.importance([*components, (mean, root2)], data, rng)
        return theta, w, k_hat

    def importance(self, components, data, rng):
        """Importance sampling from an equal mixture of multivariate t's (ν = ``nu``),
        each a (centre, root) with scale matrix root rootᵀ: the proposals, shape
        (n, 3, k), their Pareto-smoothed normalised weights, and Pareto k̂."""
        from scipy.special import logsumexp

        k, nu = self.k, self.nu
        n_prop = self.oversample * self.n_draws
        d = components[0][0].size
        # one component draws no index, so the first stage's stream is the plain t's
        pick = (
            np.zeros(n_prop, int)
            if len(components) == 1
            else rng.integers(len(components), size=n_prop)
        )
        t = rng.standard_normal((n_prop, d)) * np.sqrt(nu / rng.chisquare(nu, (n_prop, 1)))
        flat = np.empty((n_prop, d))
        for j, (centre, root) in enumerate(components):
            flat[pick == j] = centre + t[pick == j] @ root.T
        log_q = []
        for centre, root in components:  # each t's log density up to a shared constant
            z = np.linalg.lstsq(root, (flat - centre).T, rcond=None)[0].T
            log_det = np.sum(np.log(np.abs(np.linalg.svd(root, compute_uv=False))))
            log_q.append(-0.5 * (nu + d) * np.log1p((z**2).sum(axis=1) / nu) - log_det)
        log_q = logsumexp(np.array(log_q), axis=0)
        theta = flat.reshape(n_prop, 3, k)
        log_w = self.log_posterior(theta, data, floor=self.target_floor)[0] - log_q
        w = np.zeros(n_prop)
        finite = np.isfinite(log_w)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # k̂ is reported by plan_labels, not here
            smoothed, k_hat = pareto_smoothed_log_weights(log_w[finite])
        w[finite] = np.exp(smoothed - smoothed.max())
        return theta, w / w.sum(), float(k_hat)


@lru_cache(maxsize=8)
def _sigma_nodes(floor: float):
    """Gauss–Legendre nodes and log weights for σ / s_σ ~ HalfNormal(1) on [floor, 6],
    in log σ (the integrand is smooth there); 64 nodes."""
    x, w = np.polynomial.legendre.leggauss(64)
    lo, hi = np.log(floor), np.log(6.0)
    u = 0.5 * (hi - lo) * x + 0.5 * (hi + lo)
    nodes = np.exp(u)
    log_weights = np.log(0.5 * (hi - lo) * w) + u + np.log(np.sqrt(2.0 / np.pi)) - 0.5 * nodes**2
    return nodes, log_weights


def block_prior(theta, sd_mu, sd_sigma, floor: float):
    """Log prior of one parameter block's group effects, μ and σ integrated out, and its
    gradient; ``theta`` has shape (N, k).

    θ | σ ~ N(0, σ² I + s_μ² 11ᵀ) (μ ~ N(0, s_μ) integrated analytically, by
    Sherman–Morrison), σ ~ HalfNormal(s_σ) restricted to σ ≥ ``floor`` × s_σ,
    integrated by Gauss–Legendre quadrature in log σ (:func:`_sigma_nodes`). The
    unrestricted density is infinite where the group effects are all equal
    (σ → 0: for two groups a logarithmic spike), which no importance sampler
    follows; the floor removes it.
    """
    nodes, log_weights = _sigma_nodes(float(floor))
    n_groups = theta.shape[1]
    sq = np.sum(theta**2, axis=1)[:, None]  # (N, 1)
    tot = np.sum(theta, axis=1)[:, None]
    var = (sd_sigma * nodes) ** 2  # (J,)
    denom = var + n_groups * sd_mu**2
    quad = (sq - sd_mu**2 * tot**2 / denom) / var  # θᵀ Σ⁻¹ θ, (N, J)
    log_det = (n_groups - 1) * np.log(var) + np.log(denom)
    log_terms = log_weights - 0.5 * (quad + log_det)  # up to a constant
    top = log_terms.max(axis=1, keepdims=True)
    post = np.exp(log_terms - top)
    value = np.log(post.sum(axis=1)) + top[:, 0]
    post /= post.sum(axis=1, keepdims=True)
    # ∇ log N_j = −Σ_j⁻¹ θ = −(θ − s_μ² (Σθ) / (σ_j² + k s_μ²)) / σ_j²
    a_j = post / var  # (N, J)
    b_j = post * sd_mu**2 / (denom * var)
    grad = -(theta * a_j.sum(axis=1)[:, None] - tot * b_j.sum(axis=1)[:, None])
    return value, grad


def _hessian(objective, x: np.ndarray) -> np.ndarray:
    """Hessian of ``objective`` (value, gradient) at ``x`` by central differences of the
    exact gradient, symmetrised."""
    d = x.size
    out = np.empty((d, d))
    for i in range(d):
        step = 1e-4 * max(1.0, abs(x[i]))
        up, down = x.copy(), x.copy()
        up[i] += step
        down[i] -= step
        out[i] = (objective(up)[1] - objective(down)[1]) / (2 * step)
    return 0.5 * (out + out.T)


def _newton(objective, x0: np.ndarray):
    """Minimise ``objective`` (value, gradient) by damped Newton steps; ``(x, Hessian at x)``.

    :func:`~bayesfair._internal.optimize.damped_newton` with the Hessian of
    :func:`_hessian`, stopping when the gradient is below 1e-6. From a warm start
    (the previous budget's mode) this takes a few steps.
    """
    return damped_newton(objective, x0, lambda x: _hessian(objective, x), gtol=1e-6)


def _prior_draws(priors, k: int, n: int, rng):
    """Draws of (a, b, c) from the calibration prior (a plan without any label)."""

    def block(mu_sd, sigma_sd):
        mu = rng.normal(0.0, mu_sd, (n, 1))
        sigma = np.abs(rng.normal(0.0, sigma_sd, (n, 1)))
        return mu + sigma * rng.standard_normal((n, k))

    a = np.exp(block(priors.mu_a_sd, priors.sigma_a_sd))
    b = np.exp(block(priors.mu_b_sd, priors.sigma_b_sd))
    c = block(priors.mu_c_sd, priors.sigma_c_sd)
    return a, b, c
