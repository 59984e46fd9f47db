"""The views of a comparison beside its pairs: each group against all rows, the family
of groups, and calibration within groups, each model's beside the labeled rows'.

:func:`~bayesfair.compare` calls :func:`group_views` and :func:`calibration_view` with
one :class:`ViewSettings`; each view's methods are written side by side by
:func:`~bayesfair.report.estimates.widen`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from bayesfair import frequentist as fq
from bayesfair.exceptions import InvalidParameterError
from bayesfair.frequentist.groups import labeled_evidence, max_gap_interval
from bayesfair.metrics.rates import UndefinedRateWarning
from bayesfair.metrics.verdicts import TOO_FEW, decide, family_level, shortfall_text
from bayesfair.posterior.calibration_view import CALIBRATION_COLUMNS, QUANTITY
from bayesfair.report import prose
from bayesfair.report.estimates import widen
from bayesfair.report.pair_methods import method_words, set_aside_after

#: The group view's statistics of each model (``group_summary``'s).
GROUP_STATS = ("gap", "gap_lower", "gap_upper", "prob_worst", "decision")


@dataclass(frozen=True)
class ViewSettings:
    """What every view of a comparison is computed with.

    Parameters
    ----------
    epsilon : float
        The region of practical equivalence, ±ε.
    ci_prob : float
    n_resamples : int
        The labeled rows' bootstrap resamples.
    selection : {"random", "stratum", "score", "mixed"}
        How the labeled rows were chosen.
    """

    epsilon: float
    ci_prob: float
    n_resamples: int
    selection: str = "random"


def group_views(data, metrics, posteriors, too_few, settings: ViewSettings, seq) -> tuple:
    """The group and family views, side by side: each Bayesian model's and the labeled
    rows' max-|t| bootstrap (:func:`bayesfair.frequentist.group_intervals`). Each band is
    joint over the groups, and at the level that holds it over the metrics too
    (:func:`~bayesfair.metrics.verdicts.family_level`): an audit in which nothing differs
    shows no "unfair" in any metric's view in ``ci_prob`` of audits.

    Parameters
    ----------
    data : AssessmentData
    metrics : list of str
    posteriors : dict of str to FairnessPosterior
    too_few : set of str
        The models with too few draws for an interval (left out).
    settings : ViewSettings
    seq : numpy.random.SeedSequence
        Spawned into one child per metric (the labeled rows' bootstrap).

    Returns
    -------
    group_view, family_view : pandas.DataFrame
    """
    ci_prob = family_level(settings.ci_prob, len(metrics))
    epsilon = settings.epsilon
    sizes = data.group_sizes()
    group_frames, family = [], {}
    for metric, metric_seq in zip(metrics, seq.spawn(len(metrics)), strict=True):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedRateWarning)  # said in the pairs' notes
            freq = fq.group_intervals(data, metric, ci_prob, settings.n_resamples, metric_seq)
        base = pd.DataFrame(
            {
                "metric": metric,
                "group": freq["group"],
                "n_labeled": sizes["n_labeled"].to_numpy(),
                "n_unlabeled": sizes["n_unlabeled"].to_numpy(),
            }
        )
        groups, rows = {}, {}
        for name, res in posteriors.items():
            if name in too_few:
                continue
            groups[name] = res.group_summary(metric, epsilon, ci_prob)[list(GROUP_STATS)]
            fam = res.family_summary(metric, epsilon, ci_prob).iloc[0]
            rows[name] = {k: v for k, v in fam.items() if k != "metric"}
        gate = list(labeled_evidence(data, metric).values())
        groups["freq"] = {
            "gap": freq["gap"],
            "gap_lower": freq["gap_lower"],
            "gap_upper": freq["gap_upper"],
            "method": freq["method"],
            "decision": [
                decide(lo, hi, epsilon, [e])
                for lo, hi, e in zip(freq["gap_lower"], freq["gap_upper"], gate, strict=True)
            ],
        }
        rows["freq"] = _labeled_family(freq, gate, epsilon)
        group_frames.append(widen(base, groups))
        for name, stats in rows.items():  # each method's family statistics, metric by metric
            for stat, value in stats.items():
                family.setdefault(name, {}).setdefault(stat, []).append(value)
    family_view = widen(pd.DataFrame({"metric": list(metrics)}), family)
    return pd.concat(group_frames, ignore_index=True), family_view


def _labeled_family(freq: pd.DataFrame, gate: list, epsilon: float) -> dict:
    """The labeled rows' family verdict: the largest gap over the groups with enough
    labels (the band still joint over all), and what the gate set aside."""
    kept = np.array([e.enough for e in gate])
    lo, hi = max_gap_interval(
        freq["gap_lower"].to_numpy(float)[kept], freq["gap_upper"].to_numpy(float)[kept]
    )
    return {
        "max_gap": float(np.ptp(freq["gap"].to_numpy(float)[kept])) if kept.any() else np.nan,
        "max_gap_lower": lo,
        "max_gap_upper": hi,
        "decision": decide(lo, hi, epsilon) if kept.sum() >= 2 else TOO_FEW,
        "set_aside": tuple(e.group for e in gate if not e.enough),
        "shortfall": shortfall_text(gate),
    }


def calibration_view(data, posterior: dict, settings: ViewSettings, seq) -> tuple:
    """Calibration within groups, side by side: the model's ``calibration_summary`` (at
    most one in ``posterior``) and the labeled rows' ``calibration_intervals``; and the
    labeled rows' reliability curves (empty when the labeled examples are a summary).

    Parameters
    ----------
    data : AssessmentData
    posterior : dict of str to FairnessPosterior
        The view's model, or none.
    settings : ViewSettings
    seq : numpy.random.SeedSequence
        Spawned into the intervals' and the curves' resamples.

    Returns
    -------
    view, curve : pandas.DataFrame
        ``view.attrs`` hold its model, quantity, ε, ``ci_prob`` and ``n_resamples``.
    """
    epsilon, ci_prob = settings.epsilon, settings.ci_prob
    sizes = data.group_sizes()
    base = pd.DataFrame(
        {
            "group": list(data.group_levels),
            "n_labeled": sizes["n_labeled"].to_numpy(),
            "n_unlabeled": sizes["n_unlabeled"].to_numpy(),
        }
    )
    by_method, notes, model = {}, [], None
    for name, res in posterior.items():
        try:
            view = res.calibration_summary(ci_prob=ci_prob, epsilon=epsilon)
        except InvalidParameterError as exc:  # a given result without its score sums
            notes.append(f"{name.upper()}: {exc}")
            continue
        model = name
        by_method[name] = view[[c for c in CALIBRATION_COLUMNS if c not in base]]
    by_method["freq"], curve = _labeled_calibration(data, settings, model, seq, notes)
    gone = [m for m in ("freq", model) if m in ("freq", *set_aside_after(settings.selection))]
    if settings.selection != "random" and gone:
        # after active selection: the labeled rows' intervals, and BB's and HBB's, do not hold
        for m in gone:
            by_method[m] = {
                stat: "undefined" if stat == "decision" else np.nan for stat in by_method[m]
            }
        words = " and ".join(method_words(m) for m in gone)
        notes.append(prose.set_aside_note([words], settings.selection))
    table = widen(base, by_method)
    table["sentence"] = [
        _calibration_sentence(r, model, ci_prob, epsilon) for _, r in table.iterrows()
    ]
    table["note"] = "; ".join(notes)
    table.attrs.update(
        model=model,
        quantity=QUANTITY,
        epsilon=epsilon,
        ci_prob=ci_prob,
        n_resamples=settings.n_resamples,
    )
    return table, curve


def _labeled_calibration(data, settings: ViewSettings, model, seq, notes) -> tuple:
    """The labeled rows' calibration intervals with their decisions, and their reliability
    curves; NaN and an empty curve when the labeled rows are a summary. Without a model
    the labeled rows' decisions are the view's, read off intervals that hold for the
    groups together (Bonferroni), as the model's band does."""
    interval_seq, curve_seq = seq.spawn(2)
    freq_cols = CALIBRATION_COLUMNS[2:9]
    ci_prob, n_resamples = settings.ci_prob, settings.n_resamples
    if data.labeled_is_summary:
        notes.append(
            "the labeled rows' intervals and reliability curves need the labeled examples "
            "as rows, and they were given as a summary"
        )
        stats = {col: np.full(data.n_groups, np.nan) for col in freq_cols}
        curve, freq = pd.DataFrame(), None
    else:
        freq = fq.calibration_intervals(data, ci_prob, n_resamples, interval_seq)
        # bins of about ten rows or more in the smallest labeled group, between 2 and 10
        sizes = data.group_sizes()
        labeled = sizes["n_labeled"][sizes["n_labeled"] > 0]
        n_bins = int(np.clip(labeled.min() // 10 if len(labeled) else 2, 2, 10))
        curve = fq.reliability_curve(data, n_bins, ci_prob, random_seed=curve_seq)
        stats = {col: freq[col].to_numpy(float) for col in freq_cols}
    # the calibration gap's denominator is every labeled row, as the base rate's
    gate = list(labeled_evidence(data, "base_rate").values())
    lows, highs = stats["calibration_gap_lower"], stats["calibration_gap_upper"]
    if model is None and freq is not None and data.n_groups > 1:
        held = fq.calibration_intervals(
            data, family_level(ci_prob, data.n_groups), n_resamples, interval_seq
        )
        lows, highs = held["calibration_gap_lower"], held["calibration_gap_upper"]
    stats["decision"] = [
        decide(lo, hi, settings.epsilon, [e]) for lo, hi, e in zip(lows, highs, gate, strict=True)
    ]
    return stats, curve


def _calibration_sentence(row, model, ci_prob: float, epsilon: float) -> str:
    """The group's gap in plain words where the verdict (the model's, else the labeled
    rows') is decided (:func:`bayesfair.report.prose.calibration_sentence`)."""
    m = model if model is not None and row[f"{model}_decision"] != "undefined" else "freq"
    gap, lo, hi = (row[f"{m}_calibration_gap{s}"] for s in ("", "_lower", "_upper"))
    return prose.calibration_sentence(
        row["group"], row[f"{m}_decision"], gap, lo, hi, ci_prob=ci_prob, epsilon=epsilon
    )
