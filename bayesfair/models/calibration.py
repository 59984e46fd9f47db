"""Hierarchical Bayesian beta calibration (Ji, Smyth & Steyvers 2020, §2.4).

Each group g has its own calibration map (Kull et al. 2017 beta calibration,
Ji et al. Eq. 2)

    f_g(s) = σ(c_g + a_g log s − b_g log(1 − s)),   a_g, b_g > 0,

which is the identity at a = b = 1, c = 0. The groups share a population:

    log a_g ~ N(μ_a, σ_a),  log b_g ~ N(μ_b, σ_b),  c_g ~ N(μ_c, σ_c),
    μ_a, μ_b ~ N(0, 0.4),   μ_c ~ N(0, 2),
    σ_a, σ_b ~ HalfNormal(0.15),   σ_c ~ HalfNormal(0.75),

and labeled examples follow ``y_i ~ Bernoulli(f_{g_i}(s_i))``. The second
argument of every normal is a standard deviation. The model is written
non-centred (``log a_g = μ_a + σ_a z_a[g]`` with ``z_a ~ N(0, 1)``), which
removes the funnel between group effects and their scale when groups have
few labels.

Variants: ``"llo"`` (linear in log-odds, a = b; Turner et al. 2014) and
``"temperature"`` (a = b, c = 0; Guo et al. 2017).

Scores are clipped to ``[ε, 1 − ε]`` (default ε = 0.01) before taking logs,
so scores of exactly 0 or 1 give finite log-likelihoods. ε = 0.01 keeps
``log s`` within [−4.6, 0]; it is the clipping under which Ji et al.'s
Table 2 reproduces (``docs/reproduction.md``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

import numpy as np

from bayesfair.models.unlabeled import clip_scores

__all__ = [
    "VARIANTS",
    "CalibrationPriors",
    "DiscrepancyPrior",
    "build_calibration_model",
    "calibrate",
]

VARIANTS = ("beta", "llo", "temperature")
Variant = Literal["beta", "llo", "temperature"]


@dataclass(frozen=True)
class CalibrationPriors:
    """Hyperpriors of the hierarchical beta-calibration model (Ji et al. §2.4 defaults).

    All values are standard deviations: ``mu_a ~ N(0, mu_a_sd)``,
    ``sigma_a ~ HalfNormal(sigma_a_sd)``, and likewise for b and c.
    """

    mu_a_sd: float = 0.4
    mu_b_sd: float = 0.4
    mu_c_sd: float = 2.0
    sigma_a_sd: float = 0.15
    sigma_b_sd: float = 0.15
    sigma_c_sd: float = 0.75

    def __post_init__(self):
        for name, value in asdict(self).items():
            if not (isinstance(value, int | float) and np.isfinite(value) and value > 0):
                raise ValueError(
                    f"The prior scale '{name}' must be a positive finite number. Got {value!r}."
                )


@dataclass(frozen=True)
class DiscrepancyPrior:
    """Prior of the discrepancy terms of the robust model (``rbc``).

    For side ``h`` of the threshold (ŷ = 0, ŷ = 1) and group ``g`` the map's
    linear predictor gets ``J[h] δ_shared[h] + I[g, h] δ[g, h]``: a
    discrepancy shared by all groups (the calibration family is wrong for the
    classifier there) and one of the group's own (the group is calibrated
    unlike the others), each with a spike-and-slab prior:
    ``δ ~ N(0, slab_sd)``, ``J[h] ~ Bernoulli(shared_prior_misfit)``,
    ``I[g, h] ~ Bernoulli(prior_misfit)``, the indicators marginalised in the
    sampler.
    """

    slab_sd: float = 1.5
    prior_misfit: float = 0.1
    shared_prior_misfit: float = 0.5

    def __post_init__(self):
        if not (isinstance(self.slab_sd, int | float) and np.isfinite(self.slab_sd)) or (
            self.slab_sd <= 0
        ):
            raise ValueError(
                f"The prior scale 'slab_sd' must be a positive finite number. Got {self.slab_sd!r}."
            )
        for name in ("prior_misfit", "shared_prior_misfit"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and 0 < value < 1):
                raise ValueError(f"The probability '{name}' must be in (0, 1). Got {value!r}.")


def calibrate(scores, a, b, c, *, score_clip: float = 0.01) -> np.ndarray:
    """Evaluate beta-calibration maps ``f(s; a, b, c)`` (Ji et al. Eq. 2).

    ``scores`` broadcasts against ``a``, ``b`` and ``c``.

    Examples
    --------
    >>> round(calibrate(0.3, 1.0, 1.0, 0.0), 12)  # the identity map
    0.3
    """
    s = clip_scores(scores, score_clip)
    eta = np.asarray(c) + np.asarray(a) * np.log(s) - np.asarray(b) * np.log1p(-s)
    out = 0.5 * (1.0 + np.tanh(0.5 * eta))
    return float(out) if out.ndim == 0 else out


def build_calibration_model(
    scores,
    labels,
    group_codes,
    n_groups: int,
    *,
    variant: Variant = "beta",
    priors: CalibrationPriors | None = None,
    score_clip: float = 0.01,
    discrepancy: DiscrepancyPrior | None = None,
    threshold: float = 0.5,
):
    """Build the hierarchical beta-calibration model as a ``pm.Model``.

    The labeled data enter through ``pm.Data`` containers (``log_s``,
    ``log_1ms``, ``group_idx``, ``y``) so that a compiled model can be reused
    on new labeled sets of any size without recompiling.

    Parameters
    ----------
    scores, labels, group_codes : array_like, shape (n_L,)
        Labeled scores in [0, 1], 0/1 labels, and group codes in ``range(n_groups)``.
    n_groups : int
        Number of groups (including groups without labels: they are informed
        by the hierarchy alone).
    variant : {"beta", "llo", "temperature"}
        The calibration family.
    priors : CalibrationPriors, optional
        Hyperprior scales; default the paper's.
    score_clip : float
        ε of the clipping ``[ε, 1 − ε]``.
    discrepancy : DiscrepancyPrior, optional
        Adds the robust model's discrepancy ``δ[g, h]`` (group × side of the
        threshold) to the linear predictor (free ``tau``, ``z_d``;
        deterministic ``delta``, dims ``(group, side)``); the labeled data get
        a fifth container, ``side`` (ŷ of each labeled example).
    threshold : float
        Decision threshold that defines the side (raw scores, ŷ = 1[s ≥ t]).

    Returns
    -------
    pymc.Model
        Free variables ``mu_*, sigma_*, z_*``; deterministics ``a, b, c``
        (dims ``group``).

    References
    ----------
    Ji, Smyth & Steyvers 2020, §2.4 and Eq. 2; Kull, Silva Filho & Flach 2017.
    """
    import pymc as pm

    if variant not in VARIANTS:
        raise ValueError(f"Unknown calibration variant {variant!r}. Choose one of {VARIANTS}.")
    priors = priors or CalibrationPriors()
    side_values = (np.asarray(scores, dtype=float) >= threshold).astype(np.int64)
    s = clip_scores(scores, score_clip)
    coords = {"group": np.arange(n_groups), "side": np.array([0, 1])}
    with pm.Model(coords=coords) as model:
        log_s = pm.Data("log_s", np.log(s))
        log_1ms = pm.Data("log_1ms", np.log1p(-s))
        gidx = pm.Data("group_idx", np.asarray(group_codes, dtype=np.int64))
        y = pm.Data("y", np.asarray(labels, dtype=np.int64))

        mu_a = pm.Normal("mu_a", 0.0, priors.mu_a_sd)
        sigma_a = pm.HalfNormal("sigma_a", priors.sigma_a_sd)
        z_a = pm.Normal("z_a", 0.0, 1.0, dims="group")
        a = pm.Deterministic("a", pm.math.exp(mu_a + sigma_a * z_a), dims="group")
        if variant == "beta":
            mu_b = pm.Normal("mu_b", 0.0, priors.mu_b_sd)
            sigma_b = pm.HalfNormal("sigma_b", priors.sigma_b_sd)
            z_b = pm.Normal("z_b", 0.0, 1.0, dims="group")
            b = pm.Deterministic("b", pm.math.exp(mu_b + sigma_b * z_b), dims="group")
        else:
            b = pm.Deterministic("b", a, dims="group")
        if variant == "temperature":
            c = pm.Deterministic("c", pm.math.zeros_like(a), dims="group")
        else:
            mu_c = pm.Normal("mu_c", 0.0, priors.mu_c_sd)
            sigma_c = pm.HalfNormal("sigma_c", priors.sigma_c_sd)
            z_c = pm.Normal("z_c", 0.0, 1.0, dims="group")
            c = pm.Deterministic("c", mu_c + sigma_c * z_c, dims="group")
        eta = c[gidx] + a[gidx] * log_s - b[gidx] * log_1ms
        if discrepancy is None:
            pm.Bernoulli("y_obs", logit_p=eta, observed=y)
            return model
        import pytensor.tensor as pt

        side = pm.Data("side", side_values)
        z_s = pm.Normal("z_s", 0.0, 1.0, dims="side")
        z_d = pm.Normal("z_d", 0.0, 1.0, dims=("group", "side"))
        sd = discrepancy.slab_sd
        delta_shared = pm.Deterministic("delta_shared", sd * z_s, dims="side")
        delta = pm.Deterministic("delta", sd * z_d, dims=("group", "side"))
        stratum = gidx * 2 + side
        zeros = pt.zeros(2 * n_groups)
        loglik = {}
        for j in (0, 1):
            for i in (0, 1):
                eta_ji = eta + j * delta_shared[side] + i * delta[gidx, side]
                ll = y * eta_ji - pt.softplus(eta_ji)
                loglik[j, i] = pt.inc_subtensor(zeros[stratum], ll).reshape((n_groups, 2))
        pg, ps = discrepancy.prior_misfit, discrepancy.shared_prior_misfit
        per_side = [
            pt.logaddexp(np.log1p(-pg) + loglik[j, 0], np.log(pg) + loglik[j, 1]).sum(axis=0)
            for j in (0, 1)
        ]
        pm.Potential(
            "y_obs", pt.logaddexp(np.log1p(-ps) + per_side[0], np.log(ps) + per_side[1]).sum()
        )
    return model


def sample_discrepancy(
    scores,
    labels,
    group_codes,
    n_groups: int,
    a,
    b,
    c,
    delta_shared,
    delta,
    discrepancy: DiscrepancyPrior,
    rng: np.random.Generator,
    *,
    threshold: float = 0.5,
    score_clip: float = 0.01,
):
    """Draw the marginalised indicators given each posterior draw; return the offsets.

    Per side ``h``, given a draw of (a, b, c, δ), the shared indicator ``J[h]``
    is Bernoulli with its conditional probability under the labeled data, and
    given ``J[h]`` each group's ``I[g, h]`` likewise (Bayes' rule on the
    mixture the sampler marginalised).

    Parameters
    ----------
    a, b, c : array_like, shape (..., n_groups)
    delta_shared : array_like, shape (..., 2)
    delta : array_like, shape (..., n_groups, 2)

    Returns
    -------
    offset : ndarray, shape (..., n_groups, 2)
        ``J[h] δ_shared[h] + I[g, h] δ[g, h]`` per draw.
    p_shared : ndarray, shape (..., 2)
        P(J[h] = 1 | θ, δ, y) per draw.
    p_group : ndarray, shape (..., n_groups, 2)
        P(I[g, h] = 1 | θ, δ, y) per draw (marginal over ``J``).
    """
    s_raw = np.asarray(scores, dtype=float)
    side = (s_raw >= threshold).astype(np.intp)
    s = clip_scores(s_raw, score_clip)
    ls, l1 = np.log(s), np.log1p(-s)
    y = np.asarray(labels, dtype=float)
    g = np.asarray(group_codes, dtype=np.intp)
    a, b, c = (np.asarray(v, dtype=float) for v in (a, b, c))
    lead = a.shape[:-1]
    k = n_groups
    a, b, c = (v.reshape(-1, k) for v in (a, b, c))
    d_s = np.asarray(delta_shared, dtype=float).reshape(-1, 2)
    d_g = np.asarray(delta, dtype=float).reshape(-1, k, 2)
    n_draws = a.shape[0]
    onehot = np.zeros((y.size, 2 * k))
    onehot[np.arange(y.size), g * 2 + side] = 1.0
    eta = c[:, g] + a[:, g] * ls - b[:, g] * l1
    loglik = {}
    for j in (0, 1):
        for i in (0, 1):
            e = eta + j * d_s[:, side] + i * d_g[:, g, side]
            loglik[j, i] = ((y * e - np.logaddexp(0.0, e)) @ onehot).reshape(n_draws, k, 2)
    lp, l1p = np.log(discrepancy.prior_misfit), np.log1p(-discrepancy.prior_misfit)
    lps, l1ps = np.log(discrepancy.shared_prior_misfit), np.log1p(-discrepancy.shared_prior_misfit)
    inner = {j: np.logaddexp(l1p + loglik[j, 0], lp + loglik[j, 1]) for j in (0, 1)}
    # P(I = 1 | J = j) per stratum, and P(J = 1) per side
    p_i = {j: np.exp(lp + loglik[j, 1] - inner[j]) for j in (0, 1)}
    u0, u1 = l1ps + inner[0].sum(axis=1), lps + inner[1].sum(axis=1)
    p_j = 1.0 / (1.0 + np.exp(np.clip(u0 - u1, -700, 700)))
    j_draw = rng.random(p_j.shape) < p_j
    p_cond = np.where(j_draw[:, None, :], p_i[1], p_i[0])
    i_draw = rng.random(p_cond.shape) < p_cond
    offset = j_draw[:, None, :] * d_s[:, None, :] + i_draw * d_g
    p_group = p_j[:, None, :] * p_i[1] + (1.0 - p_j[:, None, :]) * p_i[0]
    return (
        offset.reshape(*lead, k, 2),
        p_j.reshape(*lead, 2),
        p_group.reshape(*lead, k, 2),
    )
