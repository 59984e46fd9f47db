"""Prior sensitivity: how much of a gap's answer is the prior's.

**The statistic.** For each gap Δ (a rate of one group minus the reference's),
the *prior share* is the posterior variance of Δ over its prior variance,

    share = Var(Δ | data) / Var(Δ),

one minus the posterior contraction of Schad, Betancourt & Vasishth (2021,
*Psychological Methods* 26(1), §"Posterior z-score and posterior contraction";
Betancourt 2018, *Calibrating model-based inferences and decisions*, §2.2).
The prior of Δ is the model's prior predictive with the fit's scores: for ``bc``
and ``rbc`` the hierarchy over the groups' maps (and rbc's per-stratum mixture)
with every label unknown, drawn by :func:`calibration_prior_counts` when the
model is fitted and kept in the result's ``prior`` group; for ``bb`` and
``hbb`` the rates' priors. A gap is *prior-sensitive* when the share is at
least 0.5: the data removed less than half of the prior's uncertainty about
it, so the answer is mostly the prior's, which for two groups with a handful
of labels is the pooling prior's belief that their maps are alike.

**Why not power-scaling alone.** Power-scaling sensitivity (Kallioinen,
Paananen, Bürkner & Vehtari 2023; ArviZ's ``psens``), the derivative of the
posterior of Δ in the prior's power at 1, was measured on two groups with 5 and
with 100 labels each (``benchmarks/prior_sensitivity.py``): its statistic lies
between 0.02 and 0.12 in both, above its 0.05 threshold in about half of the
fits either way, because with two groups the between-group scale is never
learned and Δ always moves a little with the prior's strength. It does not tell
"mostly the prior's" from "shrunk a little by the prior"; the prior share does
(the benchmark's table).

**Power-scaling for decisions.** A "practically fair" or "unfair" decision of
a prior-sensitive gap is kept only if the HDI + ROPE rule decides the same with
the prior at half and at twice its strength (:func:`verdict_holds`): the
posterior under the prior raised to α is the posterior reweighted by
``p(θ)^(α − 1)``, Pareto-smoothed (``arviz_stats``' PSIS), with the prior's log
density from the stored draws (:func:`log_prior_draws`: for ``bc``/``rbc`` the
hyperpriors and group effects of the maps; ``hbb`` the Beta population, κ's
prior and the size trend; ``bb`` the rate's margin of each group's Dirichlet over its
cells, ``Beta(jα, (d − j)α)`` for a rate of j of its denominator's d cells: with the
default α = 1 the Dirichlet itself is flat, and power-scaling it would move nothing,
but its margin for accuracy, Beta(2, 2), is not, and a gap that this implied prior
decides is said to rest on it; a ``bb`` fit before 0.4, each rate's own Beta).
"""

from __future__ import annotations

import weakref

import numpy as np
import pandas as pd
from scipy.special import betaln

from bayesfair._internal.tree import get_group, has_group
from bayesfair._internal.validation import check_array, takes
from bayesfair.metrics.rates import COUNT_NAMES, get_metric, get_rate, rate_fraction
from bayesfair.models.beta_binomial import (
    KAPPA_PARETO_ALPHA,
    SIZE_EFFECT_SD,
    hbb_group_means,
    size_basis,
)
from bayesfair.models.calibration import CalibrationPriors, draw_prior_rates
from bayesfair.models.catalogue import models_with_map
from bayesfair.models.labeled import bb_prior_rates, hbb_prior_rates
from bayesfair.models.priors import prior_from_record
from bayesfair.models.shift import shifted_counts
from bayesfair.models.unlabeled import expected_counts, sampled_counts
from bayesfair.posterior import contrasts
from bayesfair.posterior.groups import metric_list
from bayesfair.stats import pareto_smoothed_log_weights, rope_decision

__all__ = [
    "PRIOR_DRAWS",
    "SENSITIVITY_THRESHOLD",
    "beta_binomial_prior_rates",
    "calibration_prior_counts",
    "log_prior_draws",
    "powerscale_log_weights",
    "prior_sentence",
    "prior_share",
    "prior_statistic",
    "prior_verdict",
    "result_sensitivity",
    "verdict_holds",
    "weighted_hdi",
]

#: The prior share at or above which a gap is prior-sensitive: the data removed less than
#: half of the prior's variance of Δ ("mostly the prior's").
SENSITIVITY_THRESHOLD = 0.5
#: Prior predictive draws kept with a fit (the ``prior`` group); the share's relative
#: Monte Carlo error from them is about sqrt(2 / 2000) = 3%.
PRIOR_DRAWS = 2000
#: The powers of the flip check of a decision (the prior at half and at twice its
#: strength; Kallioinen et al.'s power-scaling plots span the same range).
FLIP_ALPHAS = (0.5, 2.0)
#: The decisions of the HDI + ROPE rule that a prior-sensitive gap must keep.
ROPE_VERDICTS = ("practically fair", "unfair")
#: Per result, its power-scaled prior at every draw (computed once; forgotten with it).
_LOG_PRIORS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

_HALF_LOG_2PI = 0.5 * np.log(2.0 * np.pi)


def powerscale_log_weights(log_component, alpha: float):
    """PSIS-smoothed, normalised log weights of power-scaling a component by ``alpha``.

    ``(α − 1) log p(θ)`` per draw, smoothed by
    :func:`bayesfair.stats.pareto_smoothed_log_weights`; returns the log weights
    and the Pareto k̂ (above 0.7 the reweighting is unreliable).

    Parameters
    ----------
    log_component : array_like
        ``log p(θ)`` of the power-scaled component (the prior) at every draw, of
        any shape (flattened; e.g. ``(chain, draw)`` from :func:`log_prior_draws`).
        Constants may be left out: they cancel in the normalised weights.
    alpha : float
        The power α the component is raised to (1: no change).

    Returns
    -------
    log_weights : numpy.ndarray, shape (n_draws,)
        Smoothed log weights, normalised so that their exponentials sum to 1.
    khat : float
        The Pareto k̂ of the weights.
    """
    lw = (alpha - 1.0) * check_array(log_component, "log_component").ravel()
    return pareto_smoothed_log_weights(lw)


def weighted_hdi(draws, weights, ci_prob: float = 0.95) -> tuple[float, float]:
    """The shortest interval holding ``ci_prob`` of the weighted draws' mass.

    With equal weights it spans the same draws as ``arviz.hdi``
    (⌊ci_prob · n⌋ + 1 of the n sorted draws).

    Parameters
    ----------
    draws : array_like
        Draws of one quantity, of any shape (flattened). NaN draws are dropped
        with their weights.
    weights : array_like
        Non-negative weight of each draw, the same number as ``draws``;
        normalised here (they need not sum to 1).
    ci_prob : float, default 0.95
        The weighted mass the interval holds, in (0, 1).

    Returns
    -------
    tuple of float
        ``(lower, upper)``: two of the draws; ``(nan, nan)`` when no draw is defined.
    """
    x = check_array(draws, "draws").ravel()
    w = check_array(weights, "weights").ravel()
    keep = ~np.isnan(x)
    x, w = x[keep], w[keep]
    if x.size == 0:
        return np.nan, np.nan
    order = np.argsort(x, kind="stable")
    x, w = x[order], w[order] / w.sum()
    # mass of draws i..j is cum[j + 1] − cum[i]; the smallest j with mass above ci_prob
    # (a mass equal to it, up to rounding, is not enough: with equal weights that is
    # arviz.hdi's ⌊ci_prob · n⌋ + 1 draws also when ci_prob · n is a whole number)
    cum = np.concatenate([[0.0], np.cumsum(w)])
    target = cum[:-1] + (ci_prob + 1e-12) * cum[-1]
    end = np.searchsorted(cum, target, side="right") - 1
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

    Parameters
    ----------
    draws : array_like
        Posterior draws of Δ, e.g. shape ``(chain, draw)`` (flattened). NaN
        draws are dropped, with their ``log_component``.
    log_component : array_like
        The prior's log density at the same draws, the same number of them
        (:func:`log_prior_draws`).
    epsilon : float
        Half-width ε of the ROPE ``[−ε, ε]`` of :func:`~bayesfair.stats.rope_decision`.
    ci_prob : float, default 0.95
        Probability of the HDI (:func:`weighted_hdi`) the rule reads.

    Returns
    -------
    bool
        True when the decision under α = 1/2 and α = 2 equals the one under the
        prior as fitted, or when the prior's log density is the same at every
        draw (a flat prior); False when it changes, when a weighting has
        k̂ > 0.7, or when fewer than two draws are defined.
    """
    x = check_array(draws, "draws").ravel()
    lc = check_array(log_component, "log_component").ravel()
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


def prior_share(posterior_draws, prior_draws) -> float:
    """Var(Δ | data) / Var(Δ): the share of the prior's variance the data left.

    NaN draws (an undefined rate) are set aside in both; NaN when either has
    fewer than two defined draws or the prior does not vary.

    Parameters
    ----------
    posterior_draws : array_like
        Posterior draws of Δ, of any shape (flattened).
    prior_draws : array_like
        Prior predictive draws of Δ (the fit's ``prior`` group), of any shape.

    Returns
    -------
    float
        The ratio of the sample variances (``ddof=1``); at least
        :data:`SENSITIVITY_THRESHOLD` marks a prior-sensitive gap.
    """
    post = check_array(posterior_draws, "posterior_draws").ravel()
    prior = check_array(prior_draws, "prior_draws").ravel()
    post, prior = post[~np.isnan(post)], prior[~np.isnan(prior)]
    if post.size < 2 or prior.size < 2:
        return np.nan
    v = prior.var(ddof=1)
    return float(post.var(ddof=1) / v) if v > 0 else np.nan


def prior_sentence(metric: str, denominators: dict, statistic: float) -> str:
    """The one sentence that says a gap rests on the prior, naming the group to label.

    ``denominators`` maps each group of the pair to its labeled examples in the
    rate's denominator; the group with fewer is named.

    Parameters
    ----------
    metric : str
        The rate's name or alias (:func:`bayesfair.metrics.get_rate`), written
        as given in the sentence.
    denominators : dict
        Group label to its number of labeled examples in the rate's denominator
        (the first group wins a tie).
    statistic : float
        The gap's prior share (:func:`prior_share`), written to two decimals.

    Returns
    -------
    str
        The sentence, without a final full stop.
    """
    fewest = min(denominators, key=denominators.get)
    den = get_metric(metric).denominator
    what = "labels" if len(den) == 4 else f"labeled {'+'.join(den)}"
    return (
        f"Δ {metric} rests on the prior (its posterior variance is {statistic:.2f} × its prior "
        f"variance): with {denominators[fewest]} {what} in group {fewest!s} the gap is mostly the "
        f"prior's; label more of group {fewest!s}"
    )


# ---------------------------------------------------------------------------
# Prior predictive draws, kept with a fit
# ---------------------------------------------------------------------------
def calibration_prior_counts(
    population, priors, variant: str, discrepancy, center, estimand: str, n: int, rng
) -> np.ndarray:
    """Confusion counts of every group under the calibration model's prior, ``(n, k, 4)``.

    ``population`` is the :class:`~bayesfair.data.summary.ScoreSummary` of every
    assessed score (labeled and unlabeled, labels unknown). Per draw: the maps'
    hyperparameters and group effects from their priors (``CalibrationPriors``;
    ``llo`` has ``b = a``, ``temperature`` also ``c = 0``); for ``rbc``
    (``discrepancy`` given) the strata's states from their prior probabilities and
    an off stratum's rate from :func:`~bayesfair.models.calibration.draw_prior_rates`
    at ``center``, and the strata's shifts from their prior (``discrepancy.shift``:
    ``τ = max(floor, |N(0, scale)|)``, ``δ ~ N(0, τ)``, or δ = 0 for a group that
    shares the pooled map, with probability ``share``); then the positives of each
    stratum, drawn (``"assessed"``) or expected (``"expected"``).

    Parameters
    ----------
    population : ScoreSummary
        Every assessed score, labels unknown; its totals per group and side are
        the rows the counts are drawn for.
    priors : CalibrationPriors
        The hyperpriors' standard deviations.
    variant : {"beta", "llo", "temperature"}
        The calibration map: ``"beta"`` draws ``a``, ``b`` and ``c``; any other
        value sets ``b = a``, and ``"temperature"`` also ``c = 0``.
    discrepancy : DiscrepancyPrior or None
        ``rbc``'s prior of the strata's misfit; None for ``bc``.
    center : array_like, shape (k, 2)
        Each stratum's centre ``m`` of its own rate (side ŷ = 0, ŷ = 1); used
        only with ``discrepancy``.
    estimand : {"assessed", "expected"}
        ``"expected"``: the expected positives; any other value draws them.
    n : int
        Number of prior draws.
    rng : numpy.random.Generator
        The source of randomness.

    Returns
    -------
    numpy.ndarray, shape (n, k, 4)
        Counts ``tp, fp, tn, fn`` per draw and group (``k = population.n_groups``);
        not integers with ``estimand="expected"``.
    """
    k = population.n_groups

    def block(mu_sd, sigma_sd):
        mu = rng.normal(0.0, mu_sd, (n, 1))
        sigma = np.abs(rng.normal(0.0, sigma_sd, (n, 1)))
        return mu + sigma * rng.standard_normal((n, k))

    a = np.exp(block(priors.mu_a_sd, priors.sigma_a_sd))
    b = np.exp(block(priors.mu_b_sd, priors.sigma_b_sd)) if variant == "beta" else a
    c = block(priors.mu_c_sd, priors.sigma_c_sd) if variant != "temperature" else 0.0 * a
    shift = None if discrepancy is None else discrepancy.shift
    if shift is not None:  # the strata's shifts from their prior (models.shift)
        tau = np.maximum(np.abs(rng.normal(0.0, shift.scale, (n, 1, 1))), shift.floor)
        delta = tau * rng.standard_normal((n, k, 2))
        if shift.local:  # each group's own multiplier: HalfCauchy(1) on the sampler's grid
            delta *= rng.choice(shift.lambda_grid(), size=(n, k, 1))
        if shift.share > 0:  # a group that shares the pooled map has no shifts
            delta *= rng.random((n, k, 1)) >= shift.share
    expected = estimand == "expected"
    counts_fn, extra = (expected_counts, ()) if expected else (sampled_counts, (rng,))
    if shift is None:
        counts = counts_fn(population, a, b, c, *extra)
    else:
        counts = shifted_counts(counts_fn, population, a, b, c, delta, *extra)
    if discrepancy is None:
        return counts
    shared = rng.random((n, 1, 2)) < discrepancy.shared_prior_misfit
    free = shared | (rng.random((n, k, 2)) < discrepancy.prior_misfit)
    rate = draw_prior_rates(discrepancy, center, n, rng)
    totals = population.totals()  # (k, 2): ŷ = 0, ŷ = 1
    if estimand == "expected":
        own = totals * rate
    else:
        own = rng.binomial(np.broadcast_to(totals.astype(np.int64), rate.shape), rate)
    pos = np.where(free, own, np.stack([counts[..., 3], counts[..., 0]], axis=-1))
    return np.stack(
        [pos[..., 1], totals[:, 1] - pos[..., 1], totals[:, 0] - pos[..., 0], pos[..., 0]],
        axis=-1,
    ).astype(float)


def beta_binomial_prior_rates(model: str, prior, trials, n: int, rng, metrics=None) -> np.ndarray:
    """Group rates under ``bb``'s or ``hbb``'s prior, ``(n, n_metrics, k)``: the model's
    ``prior_rates`` (:func:`bayesfair.models.labeled.bb_prior_rates`,
    :func:`~bayesfair.models.labeled.hbb_prior_rates`).

    Parameters
    ----------
    model : {"bb", "hbb"}
        ``"bb"``; any other value is taken as ``"hbb"``.
    prior : BetaPrior or KappaPrior
    trials : array_like, shape (n_metrics, k)
        Labeled examples in each metric's denominator per group.
    n : int
        Number of prior draws.
    rng : numpy.random.Generator
    metrics : list of str, optional
        The rates, one per row of ``trials`` (``bb``'s Dirichlet needs them).

    Returns
    -------
    numpy.ndarray, shape (n, n_metrics, k)
        Prior draws of the rates, in [0, 1].
    """
    draw = bb_prior_rates if model == "bb" else hbb_prior_rates
    return draw(prior, trials, n, rng, metrics)


# ---------------------------------------------------------------------------
# The power-scaled prior of each model
# ---------------------------------------------------------------------------
def _prior_numbers(record) -> dict:
    """The fields of the prior a fit recorded (``settings["prior"]``); empty without one."""
    prior = prior_from_record(record)
    return {} if prior is None else {k: v for k, v in prior.to_dict().items() if k != "kind"}


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

    Parameters
    ----------
    idata : xarray.DataTree
        The fit's draws: its ``posterior`` (the hyperparameters for
        ``bc``/``rbc``, ``mu``, ``kappa`` and ``size_effect`` for ``hbb``), and
        for ``bb``/``hbb`` its ``rates`` group (and ``hbb``'s ``observed_data``
        counts).
    model : {"bc", "rbc", "bb", "hbb"}
        The fitted model (another value gives None).
    settings : dict
        The fit's settings; ``settings["prior"]``, the recorded prior, replaces
        the defaults (:class:`~bayesfair.models.calibration.CalibrationPriors`
        for ``bc``/``rbc``, Dirichlet(1) over the cells for ``bb``).
    metric : str
        The rate whose prior is scaled (``bb`` and ``hbb``; the calibration
        models' prior does not depend on it).

    Returns
    -------
    numpy.ndarray, shape (chain, draw), or None
    """
    post = get_group(idata, "posterior")
    numbers = _prior_numbers(settings.get("prior"))
    if model in models_with_map():
        if "sigma_a" not in post:
            return None
        defaults = CalibrationPriors().__dict__
        return _calibration_log_prior(post, {**defaults, **numbers})
    rates = get_group(idata, "rates")[metric].transpose("chain", "draw", "group").values
    if model == "bb":
        a, b = numbers.get("alpha", 1.0), numbers.get("beta", 1.0)
        if "cells" in post:
            # Dirichlet(α) over the cells: a rate of j of its denominator's d cells has
            # the margin Beta(jα, (d − j)α) (Beta(2α, 2α) for accuracy, Beta(α, α) for TPR)
            rate = get_rate(metric)
            j, d = len(rate.numerator), len(rate.denominator)
            a, b = j * a, (d - j) * a
        # (without the cells, a fit before 0.4: each rate Beta(α, β) on its own)
        return np.nansum(_log_beta_pdf(rates, a, b), axis=-1)
    if model == "hbb" and "kappa" in post:
        i = list(post.coords["metric"].values).index(metric)
        obs = get_group(idata, "observed_data")
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


# ---------------------------------------------------------------------------
# A fit's gaps: how much is the prior's
# ---------------------------------------------------------------------------
def _log_prior(result, metric: str):
    """The power-scaled prior at every draw (one array for the calibration models, whose
    prior does not depend on the metric; one per metric for bb/hbb), computed once."""
    cache = _LOG_PRIORS.setdefault(result, {})
    key = None if result.model in models_with_map() else metric
    if key not in cache:
        cache[key] = log_prior_draws(result.idata, result.model, result.settings, metric)
    return cache[key]


@takes("FairnessPosterior")
def prior_statistic(result, metric: str, pair, d) -> float:
    """The prior share of one pair's Δ (:func:`prior_share`; NaN without prior draws).

    Parameters
    ----------
    result : FairnessPosterior
    metric : str
    pair : tuple
        ``(group, reference)``.
    d : ndarray
        The pair's posterior draws of Δ.
    """
    if not has_group(result.idata, "prior") or metric not in get_group(result.idata, "prior"):
        return np.nan
    r = get_group(result.idata, "prior")[metric]
    return prior_share(d, (r.sel(group=pair[0]) - r.sel(group=pair[1])).values)


@takes("FairnessPosterior")
def prior_verdict(result, metric, pair, d, decision, epsilon, ci_prob) -> tuple:
    """``(decision, prior_sensitive, sentence)`` of one pair's draws of Δ ``d``.

    The HDI + ROPE ``decision`` is kept unless the gap is prior-sensitive and the rule
    decides otherwise with the prior power-scaled by α = 1/2 or 2
    (:func:`verdict_holds`): then "undecided". The sentence is :func:`prior_sentence`'s
    ("" if not sensitive).

    Parameters
    ----------
    result : FairnessPosterior
    metric : str
    pair : tuple
        ``(group, reference)``.
    d : ndarray
        The pair's posterior draws of Δ.
    decision : str
        The HDI + ROPE rule's decision from ``d``.
    epsilon, ci_prob : float
        Of that decision.
    """
    stat = prior_statistic(result, metric, pair, d)
    if not stat >= SENSITIVITY_THRESHOLD:
        return decision, False, ""
    lp = _log_prior(result, metric)
    if decision in ROPE_VERDICTS and (lp is None or not verdict_holds(d, lp, epsilon, ci_prob)):
        decision = "undecided"
    counts = contrasts.denominators(result, metric, pair)
    return decision, True, prior_sentence(metric, counts, stat)


@takes("FairnessPosterior")
def result_sensitivity(result, metrics=None, reference=None) -> pd.DataFrame:
    """Prior sensitivity of every gap of a fit: the prior share of Δ per pair.

    Parameters
    ----------
    result : FairnessPosterior
    metrics : str or list of str, optional
        Default: every fitted metric.
    reference : optional
        The reference group (default the fit's).

    Returns
    -------
    pandas.DataFrame
        ``metric, group, reference, statistic, threshold, sensitive``.
    """
    rows = []
    for m in metric_list(result, metrics):
        for g, ref in contrasts.pairs_for(result, None, reference):
            d = contrasts.difference(result, m, g, ref).values
            stat = prior_statistic(result, m, (g, ref), d)
            rows.append(
                {
                    "metric": m,
                    "group": g,
                    "reference": ref,
                    "statistic": stat,
                    "threshold": SENSITIVITY_THRESHOLD,
                    "sensitive": bool(stat >= SENSITIVITY_THRESHOLD),
                }
            )
    return pd.DataFrame(rows)
