"""The tables of a fit's differences: one row per metric and pair.

:func:`difference_row` is the one computation of a difference's summary (mean, sd,
HDI, ETI, P(Δ > 0), P(|Δ| < ε), the decision, the prior's share): the result's
:func:`summary` and :func:`bayesfair.compare` both build their rows with it.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from bayesfair._internal.validation import check_epsilon, check_probability, takes
from bayesfair.exceptions import SamplingWarning
from bayesfair.metrics.rates import get_metric, warn_undefined_draws
from bayesfair.metrics.verdicts import decide, shortfall_text
from bayesfair.models.catalogue import models_with_map
from bayesfair.posterior import contrasts
from bayesfair.posterior.groups import evidence, metric_list
from bayesfair.posterior.sensitivity import prior_verdict
from bayesfair.stats import eti, hdi, min_interval_draws, prob_within


@takes("FairnessPosterior")
def difference_row(
    result, metric: str, pair, epsilon: float, ci_prob: float, intervals: bool = True
) -> dict:
    """The summary of one pair's difference Δ = rate(group) − rate(reference).

    Parameters
    ----------
    result : FairnessPosterior
    metric : str
    pair : tuple
        ``(group, reference)``, labels of the result.
    epsilon : float
        Half-width of the region of practical equivalence.
    ci_prob : float
        Probability of the HDI and ETI.
    intervals : bool, default True
        False when the draws are too few for an interval: the HDI and ETI are NaN,
        and so the decision is "undefined".

    Returns
    -------
    dict
        ``mean``, ``sd``, ``hdi_lower``, ``hdi_upper``, ``eti_lower``, ``eti_upper``,
        ``prob_positive``, ``prob_practically_fair``, ``decision``, ``p_undefined``,
        ``prior_sensitive`` and ``sentence`` (the prior's, "" if none); every number
        over the defined draws (NaN draws are an undefined rate). ``decision``
        passes the one verdict gate (:func:`bayesfair.metrics.verdicts.decide`): "too
        few" where either group has too few labeled rows in the rate's denominator or
        too few rows assessed.
    """
    g, ref = pair
    r = result.rates(metric)
    d = (r.sel(group=g) - r.sel(group=ref)).values
    nan = (np.nan, np.nan)
    h = hdi(d, ci_prob) if intervals else nan
    e = eti(d, ci_prob) if intervals else nan
    gate = evidence(result, metric)
    decision, sensitive, sentence = prior_verdict(
        result, metric, pair, d, decide(*h, epsilon, [gate[g], gate[ref]]), epsilon, ci_prob
    )
    valid = d[~np.isnan(d)]
    return {
        "mean": float(valid.mean()) if valid.size else np.nan,
        "sd": float(valid.std()) if valid.size else np.nan,
        "hdi_lower": h[0],
        "hdi_upper": h[1],
        "eti_lower": e[0],
        "eti_upper": e[1],
        "prob_positive": float(np.mean(valid > 0)) if valid.size else np.nan,
        "prob_practically_fair": prob_within(d, epsilon),
        "decision": decision,
        "p_undefined": 1.0 - valid.size / d.size,
        "prior_sensitive": sensitive,
        "sentence": sentence,
    }


@takes("FairnessPosterior")
def summary(
    result, metrics=None, epsilon: float = 0.02, ci_prob: float = 0.95, reference=None
) -> pd.DataFrame:
    """One row per metric and group-against-reference pair (:func:`difference_row`).

    Parameters
    ----------
    result : FairnessPosterior
    metrics : str or list of str, optional
        Default: every fitted metric.
    epsilon : float, default 0.02
    ci_prob : float, default 0.95
    reference : optional
        Default: the fit's reference group.

    Returns
    -------
    pandas.DataFrame
        ``metric, group, reference, mean, sd, hdi_lower, hdi_upper, eti_lower,
        eti_upper, prob_positive, prob_practically_fair, decision, p_undefined,
        prior_sensitive, note, estimand``.
    """
    epsilon, ci_prob = check_epsilon(epsilon), check_probability(ci_prob)
    rows, undefined = [], {}
    for m in metric_list(result, metrics):
        gate = evidence(result, m)
        for g, ref in contrasts.pairs_for(result, None, reference):
            row = difference_row(result, m, (g, ref), epsilon, ci_prob)
            sentence = row.pop("sentence")
            undefined[f"{m} of {g} vs {ref}"] = row["p_undefined"]
            shortfall = shortfall_text([gate[g], gate[ref]])
            gated = f"too few for a verdict ({shortfall})" if shortfall else ""
            notes = [rate_note(result, m, (g, ref)), sentence, gated]
            rows.append(
                {
                    "metric": m,
                    "group": g,
                    "reference": ref,
                    **row,
                    "note": "; ".join(n for n in notes if n),
                    "estimand": result.estimand_text,
                }
            )
    warn_undefined_draws(undefined, stacklevel=4)
    _warn_few_draws(result, ci_prob)
    return pd.DataFrame(rows)


def _warn_few_draws(result, ci_prob: float) -> None:
    """Warn when the draws are too few for a ``ci_prob`` interval
    (:func:`~bayesfair.stats.min_interval_draws`): its ends, and the verdicts read
    from them, are then one or two draws."""
    n, need = result.n_draws, min_interval_draws(ci_prob)
    if n < need:
        warnings.warn(
            f"{n} posterior draws are too few for a {ci_prob:.0%} interval (at least "
            f"{need}): the intervals' ends and the verdicts rest on one or two draws. Fit "
            "with more draws.",
            SamplingWarning,
            stacklevel=4,
        )


@takes("FairnessPosterior")
def rate_note(result, metric: str, groups) -> str:
    """Which of ``groups`` have no labeled denominator for ``metric`` ("" if none).

    Parameters
    ----------
    result : FairnessPosterior
    metric : str
    groups : iterable
        Group labels of the result.
    """
    rate = get_metric(metric)
    notes = []
    for g, den in contrasts.denominators(result, metric, groups).items():
        if den != 0:
            continue
        what = (
            "informed by the calibration model and the unlabeled scores only"
            if result.model in models_with_map()
            else "the posterior is the prior"
        )
        notes.append(f"'{g}' has no labeled {'+'.join(rate.denominator)}: {what}")
    return "; ".join(notes)
