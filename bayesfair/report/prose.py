"""The sentences a comparison writes into its tables and its report: one place for the
words.

:func:`~bayesfair.compare` decides what to say (a method left empty, two intervals that
do not overlap, a calibration gap that is decided); this module says it. The report's
own sentences are here too: the findings (each verdict in words), the plain-words
reading of P(|Δ| < ε), the notes, the settings, seed and priors in words, and the
headings and introductions its sections share with its figures. The reports
(:mod:`bayesfair.report.sections`, :mod:`bayesfair.report.document`) render the
sentences as they are.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd

from bayesfair._internal.validation import takes
from bayesfair.metrics.rates import get_rate, undefined_rate_message
from bayesfair.metrics.verdicts import TOO_FEW
from bayesfair.models.catalogue import MODEL_SPECS, models_with_map
from bayesfair.models.priors import prior_from_record

#: What the proxy comparators assume, in words.
PROXY_ASSUMES = {
    "weighted": "the proxy calibrated and the outcome independent of the true group given it",
    "bounds": "only the proxy calibrated",
}

#: Why PPI++ is left out when the labeled examples are a summary.
PPI_NEEDS_ROWS = (
    "PPI++ is omitted: it needs the labeled examples as rows, and they were given as a summary."
)


def few_for_bootstrap(groups, minimum: int) -> str:
    """Why a pair has no bootstrap interval: ``groups`` have fewer than ``minimum`` labels.

    Parameters
    ----------
    groups : list
    minimum : int

    Returns
    -------
    str
    """
    return (
        f"No bootstrap interval: {' and '.join(map(str, groups))} has fewer than "
        f"{minimum} labeled examples in the rate's denominator, so its "
        "resamples take only a few values (Newcombe's interval stays valid)"
    )


def fixed_for_bootstrap(groups) -> str:
    """Why a pair has no bootstrap interval: ``groups`` resample to themselves.

    Parameters
    ----------
    groups : list

    Returns
    -------
    str
    """
    return (
        f"No bootstrap interval: {' and '.join(map(str, groups))} has a rate of 0 or 1 "
        "in its labeled examples, so its resamples never vary and the interval would "
        "treat that rate as known (Newcombe's interval stays valid)"
    )


def ppi_clipped(lower: float, upper: float) -> str:
    """PPI++'s normal interval ran past [−1, 1] and was clipped.

    Parameters
    ----------
    lower, upper : float
        The interval before clipping.

    Returns
    -------
    str
    """
    return (
        f"PPI++'s normal interval [{lower:.3f}, {upper:.3f}] runs past the range of a "
        "difference of rates (too few labeled examples for its normal approximation); "
        "it is clipped to [-1, 1]"
    )


def undefined_among_labels(rates: pd.DataFrame, metric: str, groups) -> list[str]:
    """The groups of a pair whose rate has no labeled example in its denominator.

    Parameters
    ----------
    rates : pandas.DataFrame
        Each group's labeled ``trials``.
    metric : str
    groups : tuple

    Returns
    -------
    list of str
        One sentence, or none.
    """
    empty = [g for g in groups if rates.loc[g, "trials"] == 0]
    if not empty:
        return []
    return [f"{undefined_rate_message(metric, empty)} (among the labeled examples)"]


def undefined_draws(undefined: list[str]) -> str:
    """The posteriors in which Δ is undefined in a share of draws (``"BB in 3.0% of its
    draws"`` each).

    Parameters
    ----------
    undefined : list of str

    Returns
    -------
    str
    """
    return (
        f"Δ is undefined ({', '.join(undefined)}: a group without an example in the "
        "rate's denominator there); the intervals are over the defined draws"
    )


def set_aside_note(words: list[str], selection: str) -> str:
    """The note of a pair whose methods (``words``, as a sentence names them) were left
    empty after active selection.

    Parameters
    ----------
    words : list of str
    selection : str

    Returns
    -------
    str
    """
    return (
        f"labels chosen actively (selection={selection!r}): {', '.join(words)} assume labels "
        "drawn at random and are left empty"
    )


def disagreement(pair: dict, intervals: list, calibrated, calibration: pd.DataFrame) -> str:
    """A sentence when two of a pair's intervals are disjoint, with the calibration check
    of its two groups; ``""`` otherwise.

    Parameters
    ----------
    pair : dict
        ``metric``, ``group``, ``reference``.
    intervals : list of tuple
        ``(name, lower, upper)`` of the methods compared, in order.
    calibrated : str or None
        The model with calibration maps among them.
    calibration : pandas.DataFrame
        The calibration check (empty without one).

    Returns
    -------
    str
    """
    intervals = [(n, lo, hi) for n, lo, hi in intervals if np.isfinite(lo) and np.isfinite(hi)]
    clash = [
        (a, b)
        for i, a in enumerate(intervals)
        for b in intervals[i + 1 :]
        if a[2] < b[1] or b[2] < a[1]
    ]
    if not clash:
        return ""
    (n1, l1, h1), (n2, l2, h2) = clash[0]
    what = (
        "the calibrated unlabeled scores and the labeled examples alone point to different gaps"
        if calibrated in (n1, n2)
        else "the two labeled-only methods point to different gaps"
    )
    check = ""
    if len(calibration):
        by_group = calibration.set_index(calibration["group"].astype(str))
        parts = []
        for g in (pair["group"], pair["reference"]):
            if str(g) in by_group.index:
                c = by_group.loc[str(g)]
                p_adj = c.get("p_adjusted", c["p_value"])  # the verdict's (Holm) p-value
                p = "" if pd.isna(p_adj) else f", adjusted p = {p_adj:.3f}"
                parts.append(f"{g} {c['verdict']}{p}")
        check = f" Calibration check: {'; '.join(parts)}."
    return (
        f"Δ {pair['metric']} ({pair['group']} − {pair['reference']}): {n1} [{l1:.3f}, {h1:.3f}] "
        f"and {n2} [{l2:.3f}, {h2:.3f}] do not overlap: {what}.{check}"
    )


def _points(values, digits: int) -> list[str]:
    return [f"{100 * v:.{digits}f}".replace("-", "−") for v in values]


def calibration_sentence(
    group, verdict: str, gap: float, lower: float, upper: float, *, ci_prob: float, epsilon: float
) -> str:
    """A group's calibration gap in plain words where its verdict is decided: which way the
    scores miss its positives and by how many points; ``""`` otherwise.

    Parameters
    ----------
    group : object
    verdict : str
    gap, lower, upper : float
        Mean score minus share of positives, and its interval.
    ci_prob : float
    epsilon : float

    Returns
    -------
    str
    """
    if verdict not in ("unfair", "practically fair") or not np.isfinite([gap, lower, upper]).all():
        return ""
    # whole points where the interval is wider than the region ±ε, else tenths: rounding
    # then never blurs where the interval lies against ±ε
    digits = 0 if upper - lower > 2 * epsilon else 1
    pct, whose = f"{ci_prob:.0%}", f"group {group}'s"
    if verdict == "unfair":
        # the interval lies on one side of 0: its distance from 0, in points
        way, sign = ("overstate", 1.0) if gap > 0 else ("understate", -1.0)
        size, a, b = _points((sign * gap, *sorted((sign * lower, sign * upper))), digits)
        return (
            f"The scores {way} {whose} positives by {size} points ({pct} interval {a} to {b} "
            "points)."
        )
    g, a, b = _points((gap, lower, upper), digits)
    return (
        f"The scores match {whose} positives to within {100 * epsilon:g} points (ε): off by "
        f"{g} points ({pct} interval {a} to {b} points)."
    )


def fixed_small_groups_note(names: str) -> str:
    """Why the between-group variance has no bootstrap interval: ``names`` resample to
    themselves and are smaller than another group.

    Parameters
    ----------
    names : str

    Returns
    -------
    str
    """
    return (
        f"no bootstrap interval of the variance: {names} has a rate of 0 or 1 in its "
        "labeled examples and fewer of them than another group; it resamples to itself, "
        "the corrections miss its sampling variance, and the intervals can overstate the "
        "spread (3 rows beside two groups of 50 at equal rates: they covered 0.62 of "
        "simulated truths with the small group all correct, 1.00 without)"
    )


def undefined_variance(undefined: list[str]) -> str:
    """The posteriors whose between-group variance is undefined in a share of draws.

    Parameters
    ----------
    undefined : list of str
        ``"BB in 3.0% of its draws"`` each.

    Returns
    -------
    str
    """
    return (
        f"The between-group variance is undefined ({', '.join(undefined)}: a group's rate is "
        "undefined there); its interval is over the defined draws"
    )


def seed_text(record) -> str:
    """The seed record of a result in words, with what reproduces it."""
    if not record:
        return "not recorded"
    key = record.get("spawn_key", [])
    entropy = record["entropy"]
    if isinstance(entropy, list):
        entropy = "[" + ", ".join(entropy) + "]"
    if not key:
        return f"{entropy} (random_seed={entropy} reproduces it)"
    return f"{entropy}, child {tuple(key)} of its seed sequence (spawn_key={tuple(key)})"


def prior_words(record) -> str:
    """The prior a fit recorded (``settings["prior"]``), in its own words."""
    prior = prior_from_record(record)
    return "not recorded" if prior is None else prior.describe()


def settings_sentence(comp) -> str:
    """The settings every reader needs first, in one sentence."""
    s = comp.settings
    return (
        f"Threshold {s['threshold']:g} (predicted positive when score ≥ threshold), reference "
        f"group {s['reference']!r}, positive label {s['positive_label']!r}, ε = "
        f"{s['epsilon']:g}, {s['ci_prob']:.0%} intervals, {s.get('n_resamples', '')} bootstrap "
        f"resamples. Random seed: {seed_text(s.get('random_seed'))}."
    )


def estimand_items(comp, estimands: dict) -> list[str]:
    """Each model's estimand, and with group probabilities what each comparator assumes.

    Parameters
    ----------
    comp : Comparison
    estimands : dict
        Each model's estimand in words (``settings["estimands"]``).

    Returns
    -------
    list of str
    """
    items = [f"{m.upper()}: {text}." for m, text in estimands.items()]
    proxy = comp.settings.get("proxy")
    if proxy:
        items += [
            f"proxy-weighted (each row in every group by its probability): assumes "
            f"{proxy['weighted_assumes']}.",
            f"proxy bounds (every assignment the proxy allows, widened for sampling): assume "
            f"{proxy['bounds_assume']}.",
        ]
    return items


def variance_notes(comp) -> list[str]:
    """Sentences for variance figures that would otherwise surprise."""
    notes = []
    for metric, r in comp.variance.iterrows():
        negative = [
            (k, lab)
            for k, lab in (("corrected", "corrected"), ("double_corrected", "double-corrected"))
            if r.get(k, 0.0) < 0
        ]
        if negative:
            (key, label), *_ = negative
            notes.append(
                f"{metric}: the {label} estimate is negative ({r[key]:.4f}). The correction "
                "subtracts the groups' sampling variance, which here exceeds the observed "
                "spread of the rates: the true variance is near 0, and the upper end of the "
                "interval is the figure to read."
            )
        notes += [f"{metric}: {r['note']}."] if isinstance(r.get("note"), str) and r["note"] else []
    return notes


def plain_sentences(comp) -> list[str]:
    """One sentence per pair and model saying what P(|Δ| < ε) (and P(Δ > 0)) means."""
    eps = comp.settings["epsilon"]
    out = []
    for _, r in comp.pairs.iterrows():
        label = get_rate(r["metric"]).label
        for m in comp.settings["models"]:
            p = r[f"{m}_prob_practically_fair"]
            if isinstance(p, float) and math.isnan(p):
                out.append(
                    f"The {m.upper()} model cannot say how close {r['group']}'s {label} is to "
                    f"{r['reference']}'s: the difference is undefined."
                )
                continue
            sentence = (
                f"Given the data and the {m.upper()} model, the probability that "
                f"{r['group']}'s {label} is within ±{eps:g} of {r['reference']}'s is {p:.2f}"
            )
            post = comp.posteriors.get(m)
            if post is not None:
                up = post.prob_positive(r["metric"], r["group"], r["reference"])
                if not math.isnan(up):
                    sentence += f", and the probability that it is higher is {up:.2f}"
            out.append(sentence + ".")
    return out


#: What the sampler diagnostics ask of a reader, in every report format.
DIAGNOSTICS_ADVICE = (
    "R-hat above 1.01, a bulk ESS below about 400 or any divergence call for more draws "
    "(or a higher target acceptance) before the numbers are trusted."
)


def diagnostics_notes(diagnostics: pd.DataFrame) -> list[str]:
    """One note per fit whose diagnostics call for more draws (:data:`DIAGNOSTICS_ADVICE`);
    the table is in the full detail.

    Parameters
    ----------
    diagnostics : pandas.DataFrame
        One row per fit: ``model``, ``max_r_hat``, ``min_ess_bulk``, ``divergences``
        (:func:`bayesfair.report.display.diagnostics_table`; empty without a fit).

    Returns
    -------
    list of str
    """
    out = []
    for _, r in diagnostics.iterrows():
        found = []
        if r["max_r_hat"] > 1.01:
            found.append(f"R-hat {r['max_r_hat']:.3f} (above 1.01)")
        if r["min_ess_bulk"] < 400:
            found.append(f"a bulk ESS of {r['min_ess_bulk']:.0f} (below 400)")
        if r["divergences"] > 0:
            found.append(f"{int(r['divergences'])} divergences")
        if found:
            out.append(
                f"{r['model'].upper()}: sampler diagnostics show {', '.join(found)}: fit with "
                "more draws (or a higher target acceptance) before the numbers are trusted."
            )
    return out


def report_notes(comp, diagnostics: pd.DataFrame) -> list[str]:
    """The report's notes, each once, each naming what it concerns: a pair's note its
    metrics (a note that several metrics share is said once, naming them all), a fit's
    note its model, then the fits whose diagnostics call for more draws.

    Parameters
    ----------
    comp : Comparison
    diagnostics : pandas.DataFrame
        The fits' diagnostics (:func:`diagnostics_notes`).

    Returns
    -------
    list of str
    """
    metrics_of: dict[str, list[str]] = {}
    for metric, note in zip(comp.pairs["metric"], comp.pairs.get("note", []), strict=False):
        for part in _note_parts(note):
            metrics_of.setdefault(part, [])
            if metric not in metrics_of[part]:
                metrics_of[part].append(metric)
    notes = [f"{' and '.join(ms)}: {_sentence(n)}" for n, ms in metrics_of.items()]
    for name, post in comp.posteriors.items():
        notes += [f"{name.upper()}: {_sentence(n)}" for n in post.notes]
    return list(dict.fromkeys(notes + diagnostics_notes(diagnostics)))


def _note_parts(note) -> list[str]:
    """A pair's note as its separate sentences (they are joined by "; ", each starting
    with a capital, a quote or Δ)."""
    if not isinstance(note, str) or not note:
        return []
    return [p for p in re.split(r"; (?=[A-Z'Δ])", note) if p]


def _sentence(text: str) -> str:
    """``text`` with one full stop at its end."""
    text = text.strip().rstrip(";").rstrip()
    return text if text.endswith((".", "?", "!")) else text + "."


#: What the calibration check's table is, in words.
CHECK_INTRO = (
    "Each group's labeled examples against the calibration map the groups share "
    "(likelihood-ratio test of an intercept of the group's own on each side of the "
    "threshold; the verdict on the p-value adjusted by Holm's method over the groups). "
    "A misfit means the labels contradict the shared map: the group's rates from a "
    "calibration model then rest on its labeled examples (RBC) or may be wrong (BC). "
    "'too few labels': the check cannot tell."
)


#: What the summary's rows of the calibration check are, in words.
CHECK_SHORT = (
    "Each flagged group's labels against the map the groups share (likelihood ratio, "
    "step-down over the groups); every group's row and what the test is: --detail full."
)


#: What the metric clusters' table is, in words.
CLUSTERS_INTRO = (
    "The Fair-Enough metrics clustered by how they move together across the draws: one "
    "metric per cluster says what its cluster says."
)


#: The heading of the section of the metric clusters (Majumder et al., Fair Enough).
CLUSTERS_TITLE = "Which metrics say the same thing"


#: The heading of the section of calibration within groups.
CALIBRATION_TITLE = "Calibration within groups"


def calibration_view_intro(comp, reliability_figure: bool) -> str:
    """What the numbers of calibration within groups are, in words (Markdown and HTML
    alike).

    Parameters
    ----------
    comp : Comparison
    reliability_figure : bool
        Whether the HTML report draws the whole reliability curve: then the words point
        to it.

    Returns
    -------
    str
    """
    s = comp.settings
    # the model of the view, chosen when the comparison was built (None: the labeled rows')
    model = s.get("calibration_model")
    bayes = (
        f"{model.upper()}: over the assessed rows (labeled and unlabeled), "
        f"{s['ci_prob']:.0%} HDIs of the share and, for the gap, a band that holds for "
        "all groups at once; "
        if model
        else ""
    )
    return (
        "Gap = mean score − share of positives, per group (calibration in the large); "
        "positive: the scores overstate the group's positives. "
        f"{bayes}labeled rows alone: Wilson interval of the share, bootstrap-t interval of "
        f"the gap. Verdicts at ε = {s['epsilon']:g}, "
        + (
            f"{model.upper()}'s (the labeled rows' intervals beside it are comparators)"
            if model
            else "each read off an interval that holds for all groups at once (Bonferroni)"
        )
        + f". A mean that matches does not make every score calibrated"
        f"{_RELIABILITY_POINTER if reliability_figure else ''}."
    )


#: Where the whole reliability curve is shown: the HTML report's figure.
_RELIABILITY_POINTER = ": the reliability figure (HTML report) shows the whole curve"


def calibration_view_lines(comp) -> tuple[list[str], list[str]]:
    """The sentences of calibration within groups (one per group whose gap is decided, or
    one that says none is) and its notes."""
    view = comp.calibration_view
    sentences = [t for t in view.get("sentence", []) if t]
    if not sentences:
        sentences = [
            f"No group's gap is decided at ε = {comp.settings['epsilon']:g}: each interval "
            "straddles ±ε (more labels narrow it) or is undefined."
        ]
    notes = list(dict.fromkeys(n for n in view.get("note", []) if n))
    return sentences, notes


_NEWCOMBE_WORDS = "Newcombe's interval on the labeled examples (no Bayesian interval available)"


def _method_words(method: str) -> str:
    """What a verdict rests on, in words: a model's (its ``ModelSpec``) or Newcombe's."""
    spec = MODEL_SPECS.get(method)
    return _NEWCOMBE_WORDS if spec is None else spec.words


def _no_label_words(groups: list, method: str) -> str:
    """What a verdict on a group without labeled examples rests on, in words."""
    names = " and ".join(str(g) for g in groups)
    if method in models_with_map():
        source = (
            "its rates come from its unlabeled scores through the calibration maps learned "
            "on the other groups' labels, and no label of its own checks them"
        )
    else:
        source = "its rates are the model's prior (pooled with the other groups for HBB)"
    return f"{names} has no labeled example: {source}."


@takes("Comparison")
def findings(comp) -> list[dict]:
    """One finding per metric and pair: the verdict at ε in words.

    The verdicts and the method each rests on were decided when the comparison was
    built (:attr:`~bayesfair.report.compare.Comparison.verdicts`,
    :func:`bayesfair.report.compare.pair_verdicts`, which gives the rule); this function
    only says them.
    """
    eps = comp.settings["epsilon"]
    out = []
    for v in comp.verdicts.to_dict("records"):
        label = get_rate(v["metric"]).label
        method, prob = v["method"], v["prob_practically_fair"]
        pair = f"{v['group']} vs {v['reference']}"
        if v["verdict"] == "undefined":
            text = f"{label}, {pair}: undefined (too few labeled examples in its denominator)."
        elif v["verdict"] == TOO_FEW:
            text = (
                f"{label}, {pair}: too few for a verdict ({v['shortfall']}); label more "
                "examples of the group to decide it."
            )
        else:
            chance = "" if math.isnan(prob) else f", P(|Δ| < {eps:g}) = {prob:.2f}"
            text = (
                f"{label}, {pair}: {v['verdict']} at ε = {eps:g}. Δ = {v['estimate']:+.3f}, "
                f"{_band_words(v, comp.settings['ci_prob'])} [{v['lower']:.3f}, "
                f"{v['upper']:.3f}]{chance}; rests on {_method_words(method)}."
            )
        if v["set_aside"]:
            text += (
                f" ({', '.join(m.upper() for m in v['set_aside'])} set aside: the calibration "
                "check flags a group of this pair.)"
            )
        if v["without_labels"] and method in MODEL_SPECS:
            text += f" ({_no_label_words(list(v['without_labels']), method)})"
        keep = ("set_aside", "without_labels", "shortfall")
        out.append({**{k: x for k, x in v.items() if k not in keep}, "text": text})
    return out


def _band_words(verdict: dict, ci_prob: float) -> str:
    """What a verdict's interval is: its family's band (joint over the report's decided
    gaps, :mod:`bayesfair.report.verdicts`) or the pair's own interval."""
    size = int(verdict.get("family", 0))
    if size > 1:
        return f"{ci_prob:.0%} band joint over the report's {size} decided gaps"
    return f"{ci_prob:.0%} interval"
