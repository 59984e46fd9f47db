"""Beta-binomial models of group rates from labeled counts.

``bb`` (Ji, Smyth & Steyvers 2020, §2.2): for every rate r and group k,
independently, ``θ_rk ~ Beta(α, β)`` and ``x_rk ~ Binomial(n_rk, θ_rk)`` where
``x`` and ``n`` are the rate's numerator and denominator counts (see
:mod:`bayesfair.metrics`). The posterior is conjugate,
``Beta(α + x, β + n − x)``, so :func:`sample_bb_exact` draws from it directly;
:func:`build_bb_model` is the same model in PyMC, for NUTS and for checking.

``hbb``: the group rates of each metric share a population whose mean may
depend on the group's size,

    θ_rk ~ Beta(μ_rk κ_r, (1 − μ_rk) κ_r),
    logit μ_rk = logit μ_r + b_r1 z_rk + b_r2 z_rk²,
    z_rk = log n_rk − mean_j log n_rj,

with ``μ_r ~ Beta(1, 1)``, ``b_r ~ Normal(0, 1)`` (:data:`SIZE_EFFECT_SD`) and
``κ_r ~ Pareto(0.5, κ_min)``, ``κ_min = 1``. ``n_rk`` is the rate's denominator
count in group k (for accuracy, the group size); groups with ``n_rk = 0``
get ``z_rk = 0``. This pools many small groups toward the population, and
the population's between-group variance (:func:`hbb_population_variance`)
is the Bayesian counterpart of Lum et al.'s corrected variance estimator.

Why the size trend. Partial pooling shrinks a group toward the mean of groups
*like it*; with a single population mean, "like it" ignores size, and when
size and rate are correlated the small groups, shrunk most, are the ones whose
rates lie far from the mean. In Lum et al.'s unequal-size, unequal-performance
scenario (§5.1, Table 2; small groups have low rates) the posterior of the
between-group variance was then biased by −0.004 (truth 0.055) and its 95%
interval covered in about 0.73 of replicates, while with equal sizes, or the
same sizes randomly permuted, the bias was negligible (−0.0004). A linear trend
in ``z`` over-corrects when the rates are not logit-linear in log size (+0.006
on that scenario); the quadratic trend removes the bias (+0.0003). See
``docs/results/variance_coverage.md``. With equal sizes ``z = 0`` and the model
is the single-population model.

The prior of κ is that of Gelman et al., *Bayesian Data Analysis* (3rd ed.,
§5.3, rat tumours), ``p(α, β) ∝ (α + β)^(−5/2)`` for ``θ ~ Beta(α, β)``: with
``κ = α + β`` and ``μ = α/κ`` the Jacobian is κ, so ``p(μ, κ) ∝ κ^(−3/2)``,
uniform in μ and a Pareto(0.5) density in κ, truncated below at ``κ_min`` to
make it proper. (Releases before this one used Pareto(1.5, 1), i.e.
``p(α, β) ∝ (α + β)^(−7/2)``, with the same citation, which was wrong.)
"""

from __future__ import annotations

import numpy as np

__all__ = ["build_bb_model", "build_hbb_model", "sample_bb_exact", "sample_hbb_rates"]


def _check_counts(successes, trials) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    if x.shape != n.shape:
        raise ValueError(
            f"'successes' and 'trials' must have the same shape. Got {x.shape} and {n.shape}."
        )
    if np.any(x < 0) or np.any(x > n):
        raise ValueError("Counts must satisfy 0 <= successes <= trials.")
    return x, n


def sample_bb_exact(
    successes,
    trials,
    *,
    alpha: float = 1.0,
    beta: float = 1.0,
    draws: int = 1000,
    chains: int = 4,
    rng: np.random.Generator,
) -> np.ndarray:
    """Draw from the conjugate posterior ``Beta(α + x, β + n − x)``.

    Parameters
    ----------
    successes, trials : array_like, shape (n_metrics, n_groups)
        Numerator and denominator counts of each rate per group.
    alpha, beta : float
        The Beta prior (default Beta(1, 1), as in Ji et al. 2020).
    draws, chains : int
        Output shape ``(chains, draws, ...)``, as from MCMC, for ArviZ.
    rng : numpy.random.Generator

    Returns
    -------
    ndarray, shape (chains, draws, n_metrics, n_groups)
        Independent exact draws; a group with no trials gets prior draws.
    """
    x, n = _check_counts(successes, trials)
    return rng.beta(alpha + x, beta + n - x, size=(chains, draws, *x.shape))


def build_bb_model(successes, trials, *, metrics, alpha: float = 1.0, beta: float = 1.0):
    """The ``bb`` model as a ``pm.Model`` (dims ``metric``, ``group``).

    Its NUTS posterior agrees with :func:`sample_bb_exact`
    (``tests/test_models.py``).
    """
    import pymc as pm

    x, n = _check_counts(successes, trials)
    coords = {"metric": list(metrics), "group": np.arange(x.shape[1])}
    with pm.Model(coords=coords) as model:
        theta = pm.Beta("theta", alpha=alpha, beta=beta, dims=("metric", "group"))
        trials_ = pm.Data("trials", n.astype(np.int64), dims=("metric", "group"))
        successes_ = pm.Data("successes", x.astype(np.int64), dims=("metric", "group"))
        pm.Binomial("x", n=trials_, p=theta, observed=successes_, dims=("metric", "group"))
    return model


def build_hbb_model(successes, trials, *, metrics, kappa_min: float = 1.0):
    """The hierarchical beta-binomial ``hbb`` model as a ``pm.Model``.

    The group rates are integrated out: ``x_rk ~ BetaBinomial(n_rk, μ_r κ_r,
    (1 − μ_r) κ_r)``, so NUTS explores only ``(μ, κ)`` and meets no funnel
    between the group rates and their concentration (the centred form gave
    divergences with few groups). Draws of the group rates follow exactly
    from their conditional posterior ``θ_rk | μ, κ, x ~ Beta(μκ + x, (1 − μ)κ
    + n − x)`` (:func:`sample_hbb_rates`).

    Parameters
    ----------
    successes, trials : array_like, shape (n_metrics, n_groups)
    metrics : list of str
        Rate names, the ``metric`` coordinate.
    kappa_min : float
        Scale of the Pareto(1.5, κ_min) prior on the concentration κ.

    Returns
    -------
    pymc.Model
        Free ``mu (metric)``, ``kappa (metric)``; deterministic
        ``population_variance (metric)`` = μ(1 − μ)/(κ + 1).

    References
    ----------
    Gelman et al. 2013, *Bayesian Data Analysis*, 3rd ed., §5.3 (rat tumours).
    Lum, Zhang & Bower 2022, §5 (what the population variance corrects).
    """
    import pymc as pm

    x, n = _check_counts(successes, trials)
    coords = {"metric": list(metrics), "group": np.arange(x.shape[1])}
    with pm.Model(coords=coords) as model:
        mu = pm.Beta("mu", 1.0, 1.0, dims="metric")
        kappa = pm.Pareto("kappa", alpha=1.5, m=kappa_min, dims="metric")
        pm.Deterministic("population_variance", mu * (1 - mu) / (kappa + 1), dims="metric")
        trials_ = pm.Data("trials", n.astype(np.int64), dims=("metric", "group"))
        successes_ = pm.Data("successes", x.astype(np.int64), dims=("metric", "group"))
        pm.BetaBinomial(
            "x",
            n=trials_,
            alpha=(mu * kappa)[:, None],
            beta=((1 - mu) * kappa)[:, None],
            observed=successes_,
            dims=("metric", "group"),
        )
    return model


def sample_hbb_rates(mu, kappa, successes, trials, *, rng: np.random.Generator) -> np.ndarray:
    """Draw group rates from ``Beta(μκ + x, (1 − μ)κ + n − x)`` for each posterior draw.

    Parameters
    ----------
    mu, kappa : array_like, shape (chain, draw, n_metrics)
    successes, trials : array_like, shape (n_metrics, n_groups)

    Returns
    -------
    ndarray, shape (chain, draw, n_metrics, n_groups)
    """
    x, n = _check_counts(successes, trials)
    mu = np.asarray(mu)[..., None]
    kappa = np.asarray(kappa)[..., None]
    return rng.beta(mu * kappa + x, (1 - mu) * kappa + n - x)
