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
    """Prior of the per-group, per-side discrepancy of the robust model (``rbc``).

    For group ``g`` and side ``h`` of the threshold (ŷ = 0, ŷ = 1) the map's
    linear predictor gets ``I[g, h] δ[g, h]``, with ``δ[g, h] ~ N(0, slab_sd)``
    and ``I[g, h] ~ Bernoulli(prior_misfit)`` (marginalised in the sampler): a
    spike-and-slab prior on the beta-calibration map being wrong there.
    """

    slab_sd: float = 1.5
    prior_misfit: float = 0.2

    def __post_init__(self):
        if not (isinstance(self.slab_sd, int | float) and np.isfinite(self.slab_sd)) or (
            self.slab_sd <= 0
        ):
            raise ValueError(
                f"The prior scale 'slab_sd' must be a positive finite number. Got {self.slab_sd!r}."
            )
        if not (isinstance(self.prior_misfit, int | float) and 0 < self.prior_misfit < 1):
            raise ValueError(
                f"The probability 'prior_misfit' must be in (0, 1). Got {self.prior_misfit!r}."
            )


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
        z_d = pm.Normal("z_d", 0.0, 1.0, dims=("group", "side"))
        delta = pm.Deterministic("delta", discrepancy.slab_sd * z_d, dims=("group", "side"))
        stratum = gidx * 2 + side
        ll0 = y * eta - pt.softplus(eta)
        eta1 = eta + delta[gidx, side]
        ll1 = y * eta1 - pt.softplus(eta1)
        zeros = pt.zeros(2 * n_groups)
        ll0_s = pt.inc_subtensor(zeros[stratum], ll0)
        ll1_s = pt.inc_subtensor(zeros[stratum], ll1)
        log_pi = np.log(discrepancy.prior_misfit)
        log_1mpi = np.log1p(-discrepancy.prior_misfit)
        pm.Potential("y_obs", pt.logaddexp(log_1mpi + ll0_s, log_pi + ll1_s).sum())
    return model


def misfit_probability(
    scores, labels, group_codes, n_groups: int, a, b, c, delta, discrepancy, *, threshold=0.5,
    score_clip: float = 0.01,
) -> np.ndarray:
    """P(I[g, h] = 1 | θ, δ, y) for each draw: the slab's responsibility per group and side.

    With the indicator marginalised, the labeled log likelihood of stratum
    ``(g, h)`` is ``log((1 − π) L0 + π L1)``, with ``L0`` the likelihood under
    the beta-calibration map and ``L1`` under the map plus ``δ[g, h]``. Given a
    draw, the indicator is Bernoulli with probability ``π L1 / ((1 − π) L0 + π L1)``
    (``π`` for a stratum without labels).

    Parameters
    ----------
    a, b, c : array_like, shape (..., n_groups)
    delta : array_like, shape (..., n_groups, 2)

    Returns
    -------
    ndarray, shape (..., n_groups, 2)
    """
    s_raw = np.asarray(scores, dtype=float)
    side = (s_raw >= threshold).astype(np.intp)
    s = clip_scores(s_raw, score_clip)
    ls, l1 = np.log(s), np.log1p(-s)
    y = np.asarray(labels, dtype=float)
    g = np.asarray(group_codes, dtype=np.intp)
    a, b, c = (np.asarray(v, dtype=float) for v in (a, b, c))
    delta = np.asarray(delta, dtype=float)
    lead = a.shape[:-1]
    a, b, c = (v.reshape(-1, n_groups) for v in (a, b, c))
    delta = delta.reshape(-1, n_groups, 2)
    eta0 = c[:, g] + a[:, g] * ls - b[:, g] * l1
    eta1 = eta0 + delta[:, g, side]
    ll0 = y * eta0 - np.logaddexp(0.0, eta0)
    ll1 = y * eta1 - np.logaddexp(0.0, eta1)
    onehot = np.zeros((y.size, 2 * n_groups))
    onehot[np.arange(y.size), g * 2 + side] = 1.0
    diff = (ll1 - ll0) @ onehot  # log L1 − log L0 per stratum
    logit_w = np.log(discrepancy.prior_misfit) - np.log1p(-discrepancy.prior_misfit) + diff
    w = 0.5 * (1.0 + np.tanh(0.5 * logit_w))
    return w.reshape(*lead, n_groups, 2)
