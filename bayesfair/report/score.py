"""The report's view of the score beyond one threshold (``compare(..., score=True)``,
``bayesfair assess --score-views``): the AUC gap by two methods, the rates' gaps along the
thresholds with their joint bands, and the figures of :mod:`bayesfair.report.score_plots`."""

from __future__ import annotations

import numpy as np
import pandas as pd

from bayesfair._internal.render import Section
from bayesfair._internal.validation import takes
from bayesfair.exceptions import InvalidParameterError
from bayesfair.frequentist.auc import auc_difference
from bayesfair.models.catalogue import models_with_map, named_models_with_map
from bayesfair.posterior import score_view
from bayesfair.report import score_plots

__all__ = [
    "SCORE_THRESHOLDS",
    "SWEEP_METRICS",
    "check_score_request",
    "score_figures",
    "score_section",
    "score_tables",
]

#: The thresholds of the report's sweep.
SCORE_THRESHOLDS = tuple(float(t) for t in np.round(np.arange(1, 10) * 0.1, 1))
#: The rates swept: the two of the ROC curve.
SWEEP_METRICS = ("tpr", "fpr")

_INTRO = (
    "The score read along every threshold, from the same posterior: each group's AUC (the "
    "probability that one of its positives outscores one of its negatives) and its gap, "
    "beside DeLong's interval on the labeled rows alone; then the true and false positive "
    "rates along the thresholds, whose bands hold at every threshold at once."
)


@takes("FairnessPosterior")
def score_tables(posterior, data, reference, epsilon: float, ci_prob: float) -> tuple:
    """The AUC gaps (posterior and DeLong) and the sweep of :data:`SWEEP_METRICS`.

    Parameters
    ----------
    posterior : FairnessPosterior
        A calibration fit (``rbc``, ``bc``) with its data, without a proxy.
    data : AssessmentData
        Its data (DeLong reads the labeled rows).
    reference
        The reference group of the pairs.
    epsilon, ci_prob : float
        Of the verdicts and intervals.

    Returns
    -------
    auc : pandas.DataFrame
        One row per pair: ``group, reference, mean, hdi_lower, hdi_upper, decision,
        delong_estimate, delong_lower, delong_upper``.
    sweep : pandas.DataFrame
        :meth:`~bayesfair.FairnessPosterior.threshold_summary` of each rate at
        :data:`SCORE_THRESHOLDS`, with a ``metric`` column.
    """
    table = posterior.summary(
        metrics=["auc"], epsilon=epsilon, ci_prob=ci_prob, reference=reference
    )
    auc = table[["group", "reference", "mean", "hdi_lower", "hdi_upper", "decision"]].copy()
    delong = []
    for g, ref in zip(auc["group"], auc["reference"], strict=True):
        if data.labeled_is_summary:
            delong.append((np.nan, np.nan, np.nan))
            continue
        d = auc_difference(data, group=g, reference=ref, ci_prob=ci_prob)
        delong.append((d.estimate, *d.interval[:2]))
    auc[["delong_estimate", "delong_lower", "delong_upper"]] = pd.DataFrame(delong, index=auc.index)
    parts = []
    for metric in SWEEP_METRICS:
        part = posterior.threshold_summary(metric, SCORE_THRESHOLDS, ci_prob, epsilon, reference)
        parts.append(part.assign(metric=metric))
    return auc.reset_index(drop=True), pd.concat(parts, ignore_index=True)


@takes("Comparison")
def score_section(comp, digits: int = 3) -> Section:
    """The report's section of the score (shown when the comparison has one).

    Parameters
    ----------
    comp : Comparison
    digits : int, default 3
        Decimals of the tables.
    """
    shown = not comp.scores.empty
    pct = f"{comp.settings['ci_prob']:.0%}"
    sweep = comp.sweep
    if shown:
        sweep = sweep[sweep["metric"] == "tpr"][
            [
                "threshold",
                "group",
                "rate",
                "reference_rate",
                "gap",
                "gap_lower",
                "gap_upper",
                "decision",
            ]
        ]
    blocks = (
        (
            ("text", _INTRO),
            ("table", comp.scores.round(digits), "score"),
            ("text", f"True positive rate along the thresholds (joint {pct} band of the gap):"),
            ("table", sweep.round(digits), "score"),
        )
        if shown
        else ()
    )
    data = {
        "score": {
            "auc": comp.scores.to_dict(orient="records"),
            "sweep": comp.sweep.to_dict(orient="records"),
        }
    }
    return Section("score", "The score beyond one threshold", blocks, data, shown=shown)


@takes("Comparison")
def score_figures(comp) -> list[tuple[str, object]]:
    """(caption, matplotlib Figure) of the score's figures: ROC curves, the TPR gap along
    the thresholds, the reliability curves (none without a score view)."""
    from matplotlib.figure import Figure

    if comp.scores.empty:
        return []
    post = comp.posteriors[comp.map_model]
    pct = f"{comp.settings['ci_prob']:.0%}"
    sweep = comp.sweep
    tpr, fpr = (sweep[sweep["metric"] == m] for m in SWEEP_METRICS)
    out = []
    fig = Figure(figsize=(5.2, 4.8))
    score_plots.plot_roc(tpr, fpr, ax=fig.subplots())
    out.append(
        (f"ROC curves by group along the thresholds 0.1–0.9 (band: the TPR's joint {pct}).", fig)
    )
    fig = Figure(figsize=(6.4, 3.8))
    score_plots.plot_threshold_gap(tpr, comp.settings["epsilon"], ax=fig.subplots())
    out.append(
        (f"Gap in true positive rate along the thresholds (band: joint {pct}; grey: ±ε).", fig)
    )
    fig = Figure(figsize=(5.2, 4.8))
    curve = score_view.reliability_summary(post, ci_prob=comp.settings["ci_prob"])
    score_plots.plot_score_reliability(curve, ax=fig.subplots())
    out.append(
        (f"Share of positives by score range, by group (band: joint {pct} over the ranges).", fig)
    )
    return out


@takes("AssessmentData")
def check_score_request(data, models) -> None:
    """Raise before any fit when ``compare(..., score=True)`` cannot read the score.

    Parameters
    ----------
    data : AssessmentData
    models : iterable of str
        The comparison's models (fitted or given).
    """
    if not set(models_with_map()) & set(models):
        raise InvalidParameterError(
            f"score=True needs a calibration model: include {named_models_with_map()} in 'models'."
        )
    if data.proxy is not None:
        raise InvalidParameterError(
            "score=True is not available for groups known as a proxy's probabilities."
        )
