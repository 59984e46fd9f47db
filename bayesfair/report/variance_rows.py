"""The between-group variance of a comparison: Lum et al.'s three estimators beside each
model's posterior, one row per metric.

Lum, Zhang & Bower (2022) estimate the variance of the group rates by the plug-in
(uncorrected), corrected and double-corrected bootstrap
(:func:`bayesfair.frequentist.double_corrected_bootstrap`); each Bayesian model gives its
posterior of the same quantity (:meth:`~bayesfair.FairnessPosterior.between_group_variance`)
and, for a model with a population of group rates, the population's variance.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from bayesfair import frequentist as fq
from bayesfair.frequentist.bootstrap import resamples_to_itself
from bayesfair.metrics.rates import rate_fraction
from bayesfair.models.catalogue import MODEL_SPECS
from bayesfair.report import prose
from bayesfair.report.estimates import widen
from bayesfair.report.views import ViewSettings
from bayesfair.stats import hdi

#: Lum et al.'s estimators, in the order of their columns.
ESTIMATORS = ("uncorrected", "corrected", "double_corrected")


def variance_row(data, metric, posteriors, too_few, settings: ViewSettings, seed):
    """One metric's between-group variance, a one-row table: the estimators with their
    bootstrap intervals (``<estimator>``, ``_lower``, ``_upper``), the dropped groups,
    and each posterior's mean, HDI and share of undefined draws (``<model>_mean`` …);
    after active selection the intervals that assume random labels are left empty.

    Parameters
    ----------
    data : AssessmentData
    metric : str
    posteriors : dict of str to FairnessPosterior
    too_few : set of str
        Models with too few draws for an interval.
    settings : ViewSettings
    seed : numpy.random.SeedSequence
        The bootstrap's.

    Returns
    -------
    pandas.DataFrame
        One row; the column ``note`` says what was left empty and why.
    """
    lum, dropped, note = _lum_estimates(data, metric, settings, seed)
    if settings.selection != "random":
        lum = {key: dict.fromkeys(stats, np.nan) for key, stats in lum.items()}
        dropped, note = ("" if dropped is not None else None), ""
    base = pd.DataFrame({"metric": [metric], "note": [note]})
    row = widen(base, lum, name=lambda key, stat: key if stat == "estimate" else f"{key}_{stat}")
    if dropped is not None:
        row["dropped_groups"] = dropped
    models, undefined = {}, []
    for name, res in posteriors.items():
        models[name] = _posterior_stats(name, res, metric, name in too_few, settings)
        if models[name]["p_undefined"] > 0:
            undefined.append(f"{name.upper()} in {models[name]['p_undefined']:.1%} of its draws")
    row = widen(row, models)
    if undefined:
        row["note"] = "; ".join(n for n in (note, prose.undefined_variance(undefined)) if n)
    return row


def _posterior_stats(name, res, metric, too_few: bool, settings: ViewSettings) -> dict:
    """A model's statistics of the variance: its posterior's mean and HDI over the draws
    in which every group's rate is defined, its population's (a model with one), the
    share of undefined draws."""
    v = res.between_group_variance(metric).values
    defined = v[~np.isnan(v)]
    stats = {"mean": float(defined.mean()) if defined.size else np.nan}
    stats["lower"], stats["upper"] = hdi(v, settings.ci_prob) if not too_few else (np.nan, np.nan)
    spec = MODEL_SPECS[name]
    if not spec.valid_after_selection and settings.selection != "random":
        stats = dict.fromkeys(stats, np.nan)
    elif spec.population_variance:
        pv = res.population_variance(metric).values
        stats["population_mean"] = float(np.mean(pv))
        stats["population_lower"], stats["population_upper"] = hdi(pv, settings.ci_prob)
    # a draw in which a group's rate is undefined has no variance (it is NaN, set aside
    # above): its share, as in the pairs rows
    stats["p_undefined"] = 1.0 - defined.size / v.size
    return stats


def _lum_estimates(data, metric, settings: ViewSettings, seed) -> tuple:
    """Lum et al.'s three estimates with their bootstrap intervals, the dropped groups
    (None with fewer than two groups to compare) and the note; the intervals left empty
    where a group that resamples to itself (0 or all successes) is smaller than another
    group (:func:`fixed_small_groups`)."""
    num, den = rate_fraction(data.labeled_examples.confusion_counts(), metric)
    if int((den > 0).sum()) < 2:
        empty = dict.fromkeys(("estimate", "lower", "upper"), np.nan)
        return {key: dict(empty) for key in ESTIMATORS}, None, ""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # dropped groups are listed in the notes
        res = fq.double_corrected_bootstrap(
            data,
            metric,
            n_resamples=settings.n_resamples,
            ci_prob=settings.ci_prob,
            random_seed=seed,
        )
    fixed = fixed_small_groups(num, den)
    lum = {}
    for key in ESTIMATORS:
        est = getattr(res, key)
        lower, upper = (np.nan, np.nan) if fixed.size else est.interval
        lum[key] = {"estimate": est.estimate, "lower": lower, "upper": upper}
    note = ""
    if fixed.size:
        names = ", ".join(map(str, np.asarray(data.group_levels, dtype=object)[fixed]))
        note = prose.fixed_small_groups_note(names)
    return lum, ", ".join(map(str, res.dropped_groups)), note


def fixed_small_groups(num, den) -> np.ndarray:
    """Indices of the groups whose rate is 0 or 1 (they resample to themselves) and whose
    denominator is smaller than the largest group's: there the bootstrap's corrections
    miss the group's sampling variance (``tests/frequentist/test_variance.py`` measures
    the coverage with and without such a group).

    Parameters
    ----------
    num, den : array_like
        Each group's labeled successes and trials.

    Returns
    -------
    numpy.ndarray of int
    """
    den = np.asarray(den, dtype=float)
    return np.flatnonzero(resamples_to_itself(num, den) & (den < den.max()))
