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
decides is said to rest on it; ``BetaPrior(cells=False)``, each rate's own Beta).
"""

from __future__ import annotations

import weakref

import numpy as np
import pandas as pd

from bayesfair._internal.tree import get_group, has_group
from bayesfair._internal.validation import check_array, takes
from bayesfair.metrics.rates import get_metric
from bayesfair.models.catalogue import MODEL_SPECS, models_with_map
from bayesfair.posterior import contrasts
from bayesfair.posterior.groups import metric_list
from bayesfair.stats import pareto_smoothed_log_weights, rope_decision

#: The prior share at or above which a gap is prior-sensitive: the data removed less than
#: half of the prior's variance of Δ ("mostly the prior's").
SENSITIVITY_THRESHOLD = 0.5
#: The powers of the flip check of a decision (the prior at half and at twice its
#: strength; Kallioinen et al.'s power-scaling plots span the same range).
FLIP_ALPHAS = (0.5, 2.0)
#: The decisions of the HDI + ROPE rule that a prior-sensitive gap must keep.
ROPE_VERDICTS = ("practically fair", "unfair")
#: Per result, its power-scaled prior at every draw (computed once; forgotten with it).
_LOG_PRIORS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


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
# ---------------------------------------------------------------------------
# The power-scaled prior of each model
# ---------------------------------------------------------------------------
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


def log_prior_draws(idata, model: str, settings: dict, metric: str) -> np.ndarray | None:
    """The power-scaled prior's log density at every draw, ``(chain, draw)``: the model's
    catalogue entry's ``log_prior`` (None for a model without one, or draws that do not
    hold what it needs).

    Parameters
    ----------
    idata : xarray.DataTree
        The fit's draws.
    model : str
        The fitted model (a name not in the catalogue gives None).
    settings : dict
        The fit's settings (``settings["prior"]``, the recorded prior).
    metric : str
        The rate whose prior is scaled (the calibration models' prior does not depend
        on it).

    Returns
    -------
    numpy.ndarray, shape (chain, draw), or None
    """
    spec = MODEL_SPECS.get(model)
    if spec is None or spec.log_prior is None:
        return None
    return spec.log_prior(idata, settings, metric)


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
