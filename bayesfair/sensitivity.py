"""Prior sensitivity by power-scaling (Kallioinen, Paananen, Bürkner & Vehtari 2023).

A quantity is *prior-sensitive* when its posterior moves as the prior is made
a little stronger or weaker. Power-scaling raises the prior to a power α,
``p_α(θ | y) ∝ p(θ)^α p(y | θ)``; the posterior under α is the base posterior
reweighted by ``p(θ)^(α − 1)``, so no refit is needed: the weights are
Pareto-smoothed (PSIS, ``arviz.psislw``) and the distance between the base and
the reweighted distribution of the quantity is the cumulative Jensen–Shannon
distance (CJS, Nguyen & Vreeken 2015). The diagnostic is its finite-difference
derivative in log2 α at α = 1 (Kallioinen et al. 2023, §3.2, eq. 10):

    D = [CJS(α = 1/(1 + δ)) + CJS(α = 1 + δ)] / (2 log2(1 + δ)),   δ = 0.01,

each CJS the larger of the draws' and their negatives' (the distance is not
symmetric in the sign of the quantity), and a quantity is *sensitive* when
``D ≥ 0.05``, the authors' threshold. These are ArviZ's ``psens`` definitions,
reproduced here exactly (``tests/test_sensitivity.py``) because ``psens`` needs
``log_prior`` groups a fit does not store, and returns NaN where a draw of the
quantity is undefined (this module sets such draws aside).

Which prior is power-scaled, per model (:func:`log_prior_draws`):

* ``bc`` and ``rbc``: the whole hierarchy over the groups' calibration maps,
  the hyperpriors ``μ ~ N(0, ·)``, ``σ ~ HalfNormal(·)`` and the group effects
  ``z_g ~ N(0, 1)``. Scaling the group effects' prior by α is scaling the
  between-group spread of the maps by ``1/√α``: the diagnostic asks how much an
  answer rests on the belief that the groups' maps are alike (the pooling) and
  on the calibration priors. rbc's per-stratum mixture (which strata follow
  the map) is integrated out in its likelihood and is not scaled.
* ``hbb``: the group rates' Beta population, κ's Pareto prior and the size
  trend's normal prior, per metric.
* ``bb``: each group's Beta(α, β) prior, per metric. The default uniform
  prior is flat, so power-scaling does not move it (D = 0); a group without
  labels is then flagged by its width, not by this diagnostic.

The noise floor of D (its value for a quantity that does not depend on the
prior) is about 0.02 at 600 draws and 0.008 at 4,000, below the threshold at
the default draws.
"""

from __future__ import annotations

import re

import numpy as np
from scipy.special import betaln

from bayesfair.metrics import COUNT_NAMES, get_rate, rate_fraction
from bayesfair.models.beta_binomial import (
    KAPPA_PARETO_ALPHA,
    SIZE_EFFECT_SD,
    hbb_group_means,
    size_basis,
)
from bayesfair.models.calibration import CalibrationPriors
from bayesfair.stats import rope_decision

__all__ = [
    "SENSITIVITY_DELTA",
    "SENSITIVITY_THRESHOLD",
    "cjs_distance",
    "log_prior_draws",
    "powerscale_log_weights",
    "powerscale_sensitivity",
    "prior_sentence",
    "verdict_holds",
    "weighted_hdi",
]

#: δ of the finite difference (Kallioinen et al. 2023; ``arviz.psens``'s default).
SENSITIVITY_DELTA = 0.01
#: D at or above which a quantity is prior-sensitive (Kallioinen et al. 2023, §3.2).
SENSITIVITY_THRESHOLD = 0.05
#: The powers of the flip check of a decision (the prior at half and at twice its
#: strength; Kallioinen et al.'s power-scaling plots span the same range).
FLIP_ALPHAS = (0.5, 2.0)

_HALF_LOG_2PI = 0.5 * np.log(2.0 * np.pi)


def cjs_distance(draws, weights) -> float:
    """Cumulative Jensen–Shannon distance between draws and the same draws weighted.

    ``arviz.stats.stats._cjs_dist`` (Nguyen & Vreeken 2015; Kallioinen et al.
    2023, eq. 9), normalised to [0, 1] by the sum of the two ECDF integrals.
    """
    x = np.asarray(draws, dtype=float)
    w = np.asarray(weights, dtype=float)
    order = np.argsort(x, kind="stable")
    x, w = x[order], w[order]
    n = x.size
    width = np.diff(x)
    cdf_p = np.linspace(1 / n, 1 - 1 / n, n - 1)
    cdf_q = np.cumsum(w / w.sum())[:-1]
    int_p, int_q = cdf_p @ width, cdf_q @ width
    if int_p + int_q <= 0:  # a constant quantity: no distance
        return 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        log_p = np.where(cdf_p > 0, np.log2(np.where(cdf_p > 0, cdf_p, 1.0)), 0.0)
        log_q = np.where(cdf_q > 0, np.log2(np.where(cdf_q > 0, cdf_q, 1.0)), 0.0)
        mid = 0.5 * (cdf_p + cdf_q)
        log_m = np.where(mid > 0, np.log2(np.where(mid > 0, mid, 1.0)), 0.0)
    pq = np.sum(width * cdf_p * (log_p - log_m)) + 0.5 / np.log(2) * (int_q - int_p)
    qp = np.sum(width * cdf_q * (log_q - log_m)) + 0.5 / np.log(2) * (int_p - int_q)
    return float(np.sqrt((max(pq, 0.0) + max(qp, 0.0)) / (int_p + int_q)))


def powerscale_log_weights(log_component, alpha: float):
    """PSIS-smoothed, normalised log weights of power-scaling a component by ``alpha``.

    ``(α − 1) log p(θ)`` per draw, smoothed by ``arviz.psislw``; returns the
    log weights and the Pareto k̂ (above 0.7 the reweighting is unreliable).
    """
    import arviz as az  # heavy: loaded by a fit already

    lw = (alpha - 1.0) * np.asarray(log_component, dtype=float).ravel()
    smoothed, khat = az.psislw(lw)
    return np.asarray(smoothed), float(khat)


def powerscale_sensitivity(draws, log_component, delta: float = SENSITIVITY_DELTA) -> float:
    """The power-scaling sensitivity D of a quantity (module docstring, eq. 10).

    Parameters
    ----------
    draws : array_like
        Draws of the quantity (any shape; flattened). NaN draws (an undefined
        rate) are set aside with their log component.
    log_component : array_like
        The power-scaled component's log density at each draw, same size.
    delta : float, default 0.01

    Returns
    -------
    float
        NaN when fewer than two draws are defined; 0 for a constant quantity
        or a component that does not vary (a flat prior).
    """
    x = np.asarray(draws, dtype=float).ravel()
    lc = np.asarray(log_component, dtype=float).ravel()
    keep = ~np.isnan(x)
    x, lc = x[keep], lc[keep]
    if x.size < 2:
        return np.nan
    if np.ptp(lc) == 0 or np.ptp(x) == 0:
        return 0.0
    total = 0.0
    for alpha in (1.0 / (1.0 + delta), 1.0 + delta):
        w = np.exp(powerscale_log_weights(lc, alpha)[0])
        total += max(cjs_distance(x, w), cjs_distance(-x, w))
    return float(total / (2.0 * np.log2(1.0 + delta)))


def weighted_hdi(draws, weights, ci_prob: float = 0.95) -> tuple[float, float]:
    """The shortest interval holding ``ci_prob`` of the weighted draws' mass.

    With equal weights it spans the same draws as ``arviz.hdi``
    (⌊ci_prob · n⌋ + 1 of the n sorted draws).
    """
    x = np.asarray(draws, dtype=float).ravel()
    w = np.asarray(weights, dtype=float).ravel()
    keep = ~np.isnan(x)
    x, w = x[keep], w[keep]
    if x.size == 0:
        return np.nan, np.nan
    order = np.argsort(x, kind="stable")
    x, w = x[order], w[order] / w.sum()
    # mass of draws i..j is cum[j + 1] − cum[i]; the smallest j with mass ≥ ci_prob
    cum = np.concatenate([[0.0], np.cumsum(w)])
    target = cum[:-1] + ci_prob * cum[-1] - 1e-12 * cum[-1]
    end = np.searchsorted(cum, target, side="left") - 1
    ok = end < x.size
    if not ok.any():
        return float(x[0]), float(x[-1])
    start = np.flatnonzero(ok)
    widths = x[end[ok]] - x[start]
    best = int(np.argmin(widths))
    return float(x[start[best]]), float(x[end[ok][best]])


def verdict_holds(draws, log_component, epsilon: float, ci_prob: float = 0.95) -> bool:
    """Whether the HDI + ROPE decision of Δ is the same with the prior at half and at
    twice its strength (power-scaled by α = 1/2 and 2, :data:`FLIP_ALPHAS`).

    The scaled posteriors are the draws importance-weighted by PSIS; where a
    weighting is unreliable (Pareto k̂ > 0.7) the posterior under that prior
    cannot be told from these draws, and the decision is not taken to hold.
    """
    x = np.asarray(draws, dtype=float).ravel()
    lc = np.asarray(log_component, dtype=float).ravel()
    keep = ~np.isnan(x)
    x, lc = x[keep], lc[keep]
    if x.size < 2:
        return False
    if np.ptp(lc) == 0:  # a flat prior: scaling it changes nothing
        return True
    base = rope_decision(*weighted_hdi(x, np.ones_like(x), ci_prob), epsilon)
    for alpha in FLIP_ALPHAS:
        lw, khat = powerscale_log_weights(lc, alpha)
        if khat > 0.7:
            return False
        if rope_decision(*weighted_hdi(x, np.exp(lw), ci_prob), epsilon) != base:
            return False
    return True


def prior_sentence(metric: str, denominators: dict, statistic: float) -> str:
    """The one sentence that says a gap rests on the prior, naming the group to label.

    ``denominators`` maps each group of the pair to its labeled examples in the
    rate's denominator; the group with fewer is named.
    """
    fewest = min(denominators, key=denominators.get)
    den = get_rate(metric).denominator
    what = "labels" if len(den) == 4 else f"labeled {'+'.join(den)}"
    return (
        f"Δ {metric} rests on the prior (power-scaling sensitivity {statistic:.2f} ≥ "
        f"{SENSITIVITY_THRESHOLD:g}): with {denominators[fewest]} {what} in group {fewest!s} "
        f"the gap is mostly the prior's; label more of group {fewest!s}"
    )


# ---------------------------------------------------------------------------
# The power-scaled prior of each model
# ---------------------------------------------------------------------------
def _prior_numbers(text: str) -> dict:
    """The ``name=number`` fields of a prior's recorded repr (``settings["prior"]``)."""
    return {k: float(v) for k, v in re.findall(r"(\w+)=([-+0-9.eE]+)", text or "")}


def _stacked(post, name) -> np.ndarray:
    """A posterior variable as ``(chain, draw, -1)``."""
    v = post[name].transpose("chain", "draw", ...).values
    return v.reshape(v.shape[0], v.shape[1], -1)


def _log_normal(x, sd) -> np.ndarray:
    return -0.5 * (x / sd) ** 2 - np.log(sd) - _HALF_LOG_2PI


def _calibration_log_prior(post, numbers) -> np.ndarray:
    total = 0.0
    for p in ("a", "b", "c"):
        if f"mu_{p}" not in post:  # llo has no b block; temperature no b and c
            continue
        mu_sd, sig_sd = numbers.get(f"mu_{p}_sd"), numbers.get(f"sigma_{p}_sd")
        mu, sig = _stacked(post, f"mu_{p}")[..., 0], _stacked(post, f"sigma_{p}")[..., 0]
        total = total + _log_normal(mu, mu_sd)
        total = total + np.log(2.0) + _log_normal(sig, sig_sd)  # half-normal
        total = total + _log_normal(_stacked(post, f"z_{p}"), 1.0).sum(axis=-1)
    return np.asarray(total, dtype=float)


def _log_beta_pdf(x, a, b) -> np.ndarray:
    # a draw of exactly 0 or 1 (a Beta draw underflows there when a shape is small) is
    # taken at the nearest representable interior point, so that its density is finite
    x = np.clip(x, 1e-300, 1.0 - np.finfo(float).epsneg)
    return (a - 1.0) * np.log(x) + (b - 1.0) * np.log1p(-x) - betaln(a, b)


def log_prior_draws(idata, model: str, settings: dict, metric: str) -> np.ndarray | None:
    """The power-scaled prior's log density at every draw, ``(chain, draw)``.

    Which prior, per model: the module docstring. Only the terms that vary
    with the draws are kept (constants do not change the weights). None when
    the result does not hold what the prior needs (a hand-built posterior).
    """
    post = idata.posterior
    numbers = _prior_numbers(settings.get("prior", ""))
    if model in ("bc", "rbc"):
        if "sigma_a" not in post:
            return None
        defaults = CalibrationPriors().__dict__
        return _calibration_log_prior(post, {**defaults, **numbers})
    rates = idata["rates"][metric].transpose("chain", "draw", "group").values
    if model == "bb":
        a, b = numbers.get("alpha", 1.0), numbers.get("beta", 1.0)
        return np.nansum(_log_beta_pdf(rates, a, b), axis=-1)
    if model == "hbb" and "kappa" in post:
        i = list(post.coords["metric"].values).index(metric)
        obs = idata.observed_data
        counts = np.stack([obs[c].values for c in COUNT_NAMES], axis=-1)
        n = rate_fraction(counts, metric)[1][None]
        q = size_basis(n)
        kappa = _stacked(post, "kappa")[..., i]
        effect = post["size_effect"].transpose("chain", "draw", "metric", "size_term").values
        mu = post["mu"].transpose("chain", "draw", "metric").values
        m = hbb_group_means(mu[..., i : i + 1], effect[..., i : i + 1, :], q)[..., 0, :]
        k = kappa[..., None]
        lp = np.nansum(_log_beta_pdf(rates, m * k, (1.0 - m) * k), axis=-1)
        lp += -(KAPPA_PARETO_ALPHA + 1.0) * np.log(kappa)
        lp += _log_normal(effect[..., i, :], SIZE_EFFECT_SD).sum(axis=-1)
        return lp
    return None
