"""Render a :class:`~bayesfair.report.compare.Comparison` as Markdown, HTML or JSON.

:func:`comparison_markdown` gives the tables as text; :func:`comparison_html`
a self-contained page (inline CSS, figures as base64 PNG) that also states the
settings, priors, sampler diagnostics and, in plain words, what P(|Δ| < ε)
means for each pair; :func:`comparison_json` the same content for machines. Each
has the section "Calibration within groups", drawn from the comparison's
``calibration_view`` (its sentences included); the HTML page adds its figure, the
``reliability`` curves.
"""

from __future__ import annotations

import math
import re

import pandas as pd

from bayesfair._internal.names import resolve_name
from bayesfair._internal.render import (
    REPORT_CSS,
    Section,
    sections_html,
    sections_markdown,
)
from bayesfair._internal.render import png as _png
from bayesfair._internal.tree import get_group
from bayesfair._internal.validation import takes
from bayesfair.metrics.fair_enough import representatives
from bayesfair.metrics.rates import get_rate
from bayesfair.metrics.verdicts import TOO_FEW
from bayesfair.models.catalogue import MODEL_SPECS, models_with_map
from bayesfair.models.priors import prior_from_record
from bayesfair.posterior.checks import flagged_groups
from bayesfair.report import groups as rg
from bayesfair.report import plots
from bayesfair.report.answer import answer_section
from bayesfair.report.estimates import FREQUENTIST_STATS, estimates_by_pair
from bayesfair.report.score import score_figures, score_section

__all__ = ["comparison_html", "comparison_json", "comparison_markdown", "comparison_sections"]


def _fmt(v, digits: int) -> str:
    if isinstance(v, float):
        return "—" if math.isnan(v) else f"{v:.{digits}f}"
    return str(v)


def _interval(row, prefix: str | None, digits: int) -> str:
    """``[lower, upper]`` of a row: its ``<prefix>_lower``/``_upper``, or with no prefix
    (a row of the long table) its ``lower``/``upper``; "—" when there is none."""
    name = "" if prefix is None else f"{prefix}_"
    lo, hi = row.get(f"{name}lower"), row.get(f"{name}upper")
    if lo is None or (isinstance(lo, float) and math.isnan(lo)):
        return "—"
    return f"[{lo:.{digits}f}, {hi:.{digits}f}]"


def _pair_tables(comp, digits: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The display tables of differences, shared by the Markdown and HTML reports, read
    from the long table (``comp.estimates``): the models' posteriors, then the frequentist
    intervals, each pair a row of both (one table of 15 columns ran to 370 characters in a
    terminal and scrolled sideways in a 1,280-pixel window)."""
    models = comp.settings["models"]
    table = estimates_by_pair(comp.estimates)
    shown = comp.estimates.dropna(subset=["lower"]) if len(comp.estimates) else comp.estimates
    # PPI++ is a column when any pair has it; a pair without (a group with no labels) shows —
    with_ppi = len(shown) > 0 and (shown["method"] == "ppi").any()
    with_proxy = len(comp.estimates) > 0 and (comp.estimates["method"] == "proxy_weighted").any()
    bayes, freq = [], []
    for _, r in comp.pairs.iterrows():
        key = (r["metric"], r["group"], r["reference"])
        stats = {m: table.get((*key, m), {}) for m in [*models, *FREQUENTIST_STATS]}
        pair = {"metric": r["metric"], "pair": f"{r['group']} − {r['reference']}"}
        row = {**pair, "n (group/ref)": f"{r['n_group']}/{r['n_reference']}"}
        for m in models:
            row[f"{m.upper()} mean"] = _fmt(stats[m].get("estimate", math.nan), digits)
            row[f"{m.upper()} HDI"] = _interval(stats[m], None, digits)
            row[f"{m.upper()} P(|Δ|<ε)"] = _fmt(
                stats[m].get("prob_practically_fair", math.nan), digits
            )
        bayes.append(row)
        row = {**pair, "freq Δ": _fmt(r["freq_estimate"], digits)}
        row["Newcombe"] = _interval(stats["newcombe"], None, digits)
        row["bootstrap"] = _interval(stats["bootstrap"], None, digits)
        row["Bernstein"] = _bernstein(stats["bernstein"], digits)
        if with_ppi:
            row["PPI++"] = _interval(stats["ppi"], None, digits)
            row["PPI++ n_eff"] = _fmt(float(stats["ppi"].get("effective_n", math.nan)), 0)
        if with_proxy:
            weighted = stats["proxy_weighted"]
            row["proxy-weighted Δ"] = _fmt(weighted.get("estimate", math.nan), digits)
            row["proxy-weighted"] = _interval(weighted, None, digits)
            row["proxy bounds"] = _interval(stats["proxy_bounds"], None, digits)
        freq.append(row)
    return pd.DataFrame(bayes), pd.DataFrame(freq)


def _estimand_items(comp, estimands: dict) -> list[str]:
    """Each model's estimand, and with group probabilities what each comparator assumes."""
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


def _bernstein(stats: dict, digits: int) -> str:
    """The Bernstein interval; clipped to [−1, 1], with its half-width when it was."""
    text = _interval(stats, None, digits)
    half = stats.get("half_width", float("nan"))
    if half == half and (stats["lower"] <= -1.0 or stats["upper"] >= 1.0):
        text += f" (±{half:.{digits}f}, clipped)"
    return text


def _variance_notes(comp) -> list[str]:
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


def _variance_table(comp, digits: int) -> pd.DataFrame:
    """The display table of between-group variances (Markdown and HTML)."""
    models = comp.settings["models"]
    var_rows = []
    for metric, r in comp.variance.iterrows():
        row = {"metric": metric}
        for key, label in (
            ("uncorrected", "uncorrected"),
            ("corrected", "corrected"),
            ("double_corrected", "double-corrected"),
        ):
            row[label] = f"{_fmt(r[key], digits + 1)} {_interval(r, key, digits + 1)}"
        for m in models:
            row[f"{m.upper()} posterior"] = (
                f"{_fmt(r[f'{m}_mean'], digits + 1)} {_interval(r, m, digits + 1)}"
            )
        for m in models:
            if f"{m}_population_mean" in r:  # a model with a population of group rates
                row[f"{m.upper()} population"] = (
                    f"{_fmt(r[f'{m}_population_mean'], digits + 1)} "
                    f"{_interval(r, f'{m}_population', digits + 1)}"
                )
        var_rows.append(row)
    return pd.DataFrame(var_rows)


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


def _settings_sentence(comp) -> str:
    """The settings every reader needs first, in one sentence."""
    s = comp.settings
    return (
        f"Threshold {s['threshold']:g} (predicted positive when score ≥ threshold), reference "
        f"group {s['reference']!r}, positive label {s['positive_label']!r}, ε = "
        f"{s['epsilon']:g}, {s['ci_prob']:.0%} intervals, {s.get('n_resamples', '')} bootstrap "
        f"resamples. Random seed: {seed_text(s.get('random_seed'))}."
    )


def _settings_table(comp) -> pd.DataFrame:
    """The models and their priors, one row each."""
    s = comp.settings
    rows = [("models", ", ".join(m.upper() for m in s["models"]) or "none (frequentist only)")]
    rows += [(f"prior of {m.upper()}", prior_words(p)) for m, p in s.get("priors", {}).items()]
    return pd.DataFrame(rows, columns=["setting", "value"])


@takes("Comparison")
def comparison_sections(comp, digits: int = 3, figures: bool = False, data=None) -> list:
    """The report's sections, in order: the one list that the Markdown, HTML and JSON
    renderers each draw (:class:`~bayesfair._internal.render.Section`), so that the three
    carry the same content.

    Parameters
    ----------
    comp : Comparison
        From :func:`bayesfair.compare`.
    digits : int, default 3
        Decimals of the tables.
    figures : bool, default False
        Draw the figures (base64 PNG; needs matplotlib; only HTML shows them).
    data : AssessmentData, optional
        Accepted for compatibility (the figures read the fits' stored examples).

    Returns
    -------
    list of Section
        The answer (:func:`bayesfair.report.answer.answer_section`) first, then what
        it rests on, then the sections of the full detail (``Section.detail``).
    """
    s = comp.settings
    disagreements, notes = comp.disagreements, _notes(comp)
    calibration = _calibration_table(comp)
    clusters = _clusters_table(comp, digits)
    sections = [
        answer_section(comp),
        *rg.group_sections(comp, digits, figures),
        rg.pair_findings_section(comp, findings(comp)),
        Section(
            "disagreements",
            "Where the methods disagree",
            (("items", list(disagreements), "warn"),),
            {"disagreements": list(disagreements)},
            shown=bool(disagreements),
        ),
        _calibration_view_section(comp, digits),
        Section(
            "calibration-flags",
            "Calibration check: the groups it flags",
            (("table", _flagged_rows(calibration, comp), "calibration"), ("text", CHECK_SHORT))
            if _check_found(comp)
            else (),
            shown=_check_found(comp),
        ),
        Section(
            "calibration-check",
            "Calibration check",
            (("text", CHECK_INTRO), ("table", calibration, "calibration"))
            if calibration is not None
            else (),
            {"calibration_check": comp.calibration.to_dict(orient="records")},
            shown=calibration is not None,
            detail=True,
        ),
        Section(
            "clusters",
            CLUSTERS_TITLE,
            (("text", CLUSTERS_INTRO), ("table", clusters, "clusters"))
            if clusters is not None
            else (),
            {"metric_clusters": comp.clusters.to_dict(orient="records")},
            shown=clusters is not None,
        ),
        score_section(comp, digits),
        Section("notes", "Notes", (("items", notes, "warn"),), {"notes": notes}, bool(notes)),
        Section(
            "settings",
            "Settings",
            (("text", _settings_sentence(comp)),),
            {"settings": s},
        ),
        Section(
            "diagnostics",
            "Sampler diagnostics",
            (("table", _diagnostics_shown(comp), "diagnostics"), ("text", DIAGNOSTICS_ADVICE))
            if comp.posteriors
            else (),
            {
                "diagnostics": _diagnostics(comp).to_dict(orient="records")
                if comp.posteriors
                else []
            },
            shown=bool(comp.posteriors),
            detail=True,  # an alarm is one of the notes (_diagnostics_notes)
        ),
        *_detail_sections(comp, digits),
    ]
    if figures:
        blocks = tuple(("figure", caption, png) for caption, png in _figures(comp, data))
        sections.append(Section("figures", "Figures", blocks))
    sections.append(
        Section(
            "provenance",
            "Provenance",
            (
                (
                    "table",
                    pd.DataFrame(_provenance_rows(comp), columns=["item", "value"]),
                    "provenance",
                ),
            ),
            {"provenance": provenance(comp)},
            detail=True,
        )
    )
    return sections


#: The report's detail levels.
DETAILS = {
    "summary": "the answer and the sections it rests on",
    "full": "every table as well",
}


def _detail_sections(comp, digits: int) -> list[Section]:
    """The sections of the full detail (Markdown with ``detail="full"``, HTML folded,
    JSON always): the models and priors, the group sizes, every method's intervals of
    each pair, what the intervals are for, the plain-words sentences, the between-group
    variance."""
    s = comp.settings
    bayes, freq = _pair_tables(comp, digits)
    plain, estimands = _plain_sentences(comp), s.get("estimands", {})
    pct = f"{s['ci_prob']:.0%}"
    return [
        Section(
            "models",
            "Models and priors",
            (("table", _settings_table(comp), "settings"),),
            detail=True,
        ),
        Section(
            "groups",
            "Group sizes (labeled / unlabeled)",
            (("table", comp.groups.reset_index(), ""),),
            {"groups": comp.groups.reset_index().to_dict(orient="records")},
            detail=True,
        ),
        Section(
            "pairs",
            f"Differences Δ = rate(group) − rate(reference), {pct} intervals of each pair",
            (
                ("text", "The models' posteriors:"),
                ("table", bayes, "pairs"),
                ("text", "The frequentist estimates and intervals:"),
                ("table", freq, "pairs"),
            ),
            {"pairs": comp.pairs.to_dict(orient="records")},
            detail=True,
        ),
        Section(
            "estimands",
            "What the intervals are for",
            (("items", _estimand_items(comp, estimands), "plain"),),
            shown=bool(estimands),
            detail=True,
        ),
        Section(
            "plain-words",
            "In plain words",
            (("items", plain, "plain"),),
            {"plain_words": plain},
            shown=bool(plain),
            detail=True,
        ),
        Section(
            "variance",
            "Between-group variance (Lum et al. 2022) and its posterior",
            (
                ("table", _variance_table(comp, digits), "variance"),
                *(("note", n) for n in _variance_notes(comp)),
            ),
            {"variance": comp.variance.reset_index().to_dict(orient="records")},
            detail=True,
        ),
    ]


@takes("Comparison")
def comparison_markdown(comp, digits: int = 3, detail: str = "summary") -> str:
    """Markdown of a comparison: its sections (:func:`comparison_sections`), figures aside.

    The first heading is the question, followed by the answer
    (:func:`bayesfair.report.answer.answer_section`); then the sections, each under a
    ``##`` heading: with more than two groups the group view first.

    Parameters
    ----------
    comp : Comparison
        From :func:`bayesfair.compare`.
    digits : int, default 3
        Decimals of the tables.
    detail : {"summary", "full"}, default "summary"
        "summary": the answer and the sections it rests on (the group view, the
        findings, calibration, notes, settings); "full" adds every method's table, the
        plain-words sentences, the between-group variance, the diagnostics and the
        provenance (the HTML report folds them; the JSON holds them always).

    Returns
    -------
    str
        The report, Markdown lines joined by newlines.
    """
    detail = resolve_name(detail, DETAILS, what="detail", argument="detail")
    answer, *rest = comparison_sections(comp, digits)
    full = detail == "full"
    lines = [
        *sections_markdown([answer], "# {title}"),
        "",
        *sections_markdown(rest, "## {title}", full=full),
    ]
    if not full:
        lines += [
            "",
            "The full detail (every method's intervals, the between-group variance, "
            'diagnostics, provenance): `--detail full`, or `to_markdown(detail="full")`.',
        ]
    return "\n".join(lines)


def _check_found(comp) -> bool:
    """Whether the calibration check found something (a verdict other than "ok" or too
    few labels to tell): then its section is part of the summary."""
    check = comp.calibration
    return check is not None and len(check) > 0 and bool(flagged_groups(check))


def _diagnostics_notes(comp) -> list[str]:
    """One note per fit whose diagnostics call for more draws (:data:`DIAGNOSTICS_ADVICE`);
    the table is in the full detail."""
    if not comp.posteriors:
        return []
    out = []
    for _, r in _diagnostics(comp).iterrows():
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


def _clusters_table(comp, digits: int):
    """The representatives of the metric clusters, or None without clusters."""
    table = comp.clusters
    return None if table is None or table.empty else representatives(table, digits)


#: The heading of the section of calibration within groups.
CALIBRATION_TITLE = "Calibration within groups"


def _calibration_view_model(comp):
    """The model of the comparison's calibration view, chosen when the comparison was
    built (None: the labeled rows' alone)."""
    return comp.settings.get("calibration_model")


def _calibration_view_table(comp, digits: int):
    """Calibration within groups as a display table, one row per group and method (the
    model's over all assessed rows, then the labeled rows'); None without the view."""
    view = comp.calibration_view
    if view is None or view.empty:
        return None
    model = _calibration_view_model(comp)
    rows = []
    for _, r in view.iterrows():
        for m in [model, "freq"] if model else ["freq"]:
            rows.append(
                {
                    "group": str(r["group"]),
                    "method": "labeled rows" if m == "freq" else m.upper(),
                    "rows": str(r["n_labeled"])
                    if m == "freq"
                    else f"{r['n_labeled']} + {r['n_unlabeled']}",
                    "mean score": _fmt(r[f"{m}_mean_score"], digits),
                    "share of positives": _with_interval(r, f"{m}_positive_rate", digits),
                    "gap": _with_interval(r, f"{m}_calibration_gap", digits),
                    "P(|gap|<ε)": "—" if m == "freq" else _fmt(r[f"{m}_prob_within"], 2),
                    # one verdict per group: the model's; the labeled rows' a comparator
                    "verdict": r[f"{m}_decision"] if m == (model or "freq") else "—",
                }
            )
    return pd.DataFrame(rows)


def _with_interval(row, prefix: str, digits: int) -> str:
    """An estimate and its interval, or one dash where neither is defined."""
    value, interval = _fmt(float(row[prefix]), digits), _interval(row, prefix, digits)
    return value if interval == "—" else f"{value} {interval}"


def _calibration_view_intro(comp) -> str:
    """What the section's numbers are, in words (Markdown and HTML alike)."""
    s = comp.settings
    model = _calibration_view_model(comp)
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
        f"{_reliability_pointer(comp)}."
    )


def _reliability_pointer(comp) -> str:
    """Where the whole reliability curve is shown: the HTML report's figure, drawn for a
    few groups with labeled rows ("" where no report has it)."""
    if comp.reliability is None or comp.reliability.empty or rg.many_groups(comp):
        return ""
    return ": the reliability figure (HTML report) shows the whole curve"


def _calibration_view_lines(comp) -> tuple[list[str], list[str]]:
    """The section's sentences (one per group whose gap is decided, or one that says none
    is) and its notes."""
    view = comp.calibration_view
    sentences = [t for t in view.get("sentence", []) if t]
    if not sentences:
        sentences = [
            f"No group's gap is decided at ε = {comp.settings['epsilon']:g}: each interval "
            "straddles ±ε (more labels narrow it) or is undefined."
        ]
    notes = list(dict.fromkeys(n for n in view.get("note", []) if n))
    return sentences, notes


def _calibration_view_section(comp, digits: int) -> Section:
    """The section "Calibration within groups" (not shown without the view)."""
    table = _calibration_view_table(comp, digits)
    records = {"calibration": comp.calibration_view.to_dict(orient="records")}
    if table is None:
        return Section("calibration-within-groups", CALIBRATION_TITLE, (), records, False)
    sentences, notes = _calibration_view_lines(comp)
    blocks = (
        ("text", _calibration_view_intro(comp)),
        ("items", sentences, "plain"),
        ("table", table, "calibration-groups"),
        *(("note", f"{n}.") for n in notes),
    )
    return Section("calibration-within-groups", CALIBRATION_TITLE, blocks, records)


def _flagged_rows(table: pd.DataFrame, comp) -> pd.DataFrame:
    """The rows of the calibration check's display table of the groups it flags
    (:func:`~bayesfair.posterior.checks.flagged_groups`)."""
    return table[table["group"].isin([str(g) for g in flagged_groups(comp.calibration)])]


def _calibration_table(comp):
    """The calibration check as a display table (None when no calibration model was fitted)."""
    check = comp.calibration
    if check is None or not len(check):
        return None
    return pd.DataFrame(
        {
            "group": check["group"].astype(str),
            "labeled": check["n_labeled"],
            "statistic": check["statistic"].map(lambda v: _fmt(float(v), 1)),
            "p-value": check["p_value"].map(lambda v: _fmt(float(v), 3)),
            "adjusted p (step-down)": check.get("p_adjusted", check["p_value"]).map(
                lambda v: _fmt(float(v), 3)
            ),
            "verdict": check["verdict"],
            "where the labels depart most": check.get("where", ""),
        }
    )


# --------------------------------------------------------------------------- plain words
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


def provenance(comp) -> dict:
    """What reproduces a report: versions, time, seed, sampler, priors, inputs, the call."""
    return dict(comp.settings.get("provenance", {}))


def _provenance_rows(comp) -> list[tuple[str, str]]:
    fits = [(name.upper(), post.settings) for name, post in comp.posteriors.items()]
    return provenance_table(comp.settings, fits)


def provenance_table(settings: dict, fits) -> list[tuple[str, str]]:
    """A report's provenance as (item, value) rows: the time, versions, seed, each fit's
    sampler and priors, the input files and the call.

    Parameters
    ----------
    settings : dict
        The report's settings: ``provenance`` (:func:`bayesfair._internal.validation.run_record`,
        with the command line's inputs) and ``random_seed``.
    fits : iterable of (str, dict)
        Each fit's name as the report shows it, and its settings.
    """
    prov = dict(settings.get("provenance", {}))
    rows = []
    if prov.get("created"):
        rows.append(("created", prov["created"]))
    if prov.get("versions"):
        rows.append(("versions", ", ".join(f"{k} {v}" for k, v in prov["versions"].items())))
    rows.append(("random seed", seed_text(settings.get("random_seed"))))
    for name, s in fits:
        # an exact (conjugate) sampler draws independently: no tuning steps to report
        tuning = "" if s.get("sampler") == "exact" else f" after {s.get('tune')} tuning steps"
        rows.append(
            (
                f"{name} sampler",
                f"{s.get('sampler', '')}, {s.get('chains')} chains × {s.get('draws')} draws"
                f"{tuning}",
            )
        )
        rows.append((f"{name} prior", prior_words(s.get("prior"))))
        if s.get("discrepancy"):
            rows.append((f"{name} discrepancy prior", prior_words(s["discrepancy"])))
    for item in prov.get("inputs", []):
        rows.append(
            (
                f"input ({item['role']})",
                f"{item['path']}: {item['rows']:,} rows, SHA-256 {item['sha256']}",
            )
        )
    if prov.get("call"):
        rows.append(("call", prov["call"]))
    return rows


def prior_words(record) -> str:
    """The prior a fit recorded (``settings["prior"]``), in its own words."""
    prior = prior_from_record(record)
    return "not recorded" if prior is None else prior.describe()


def _plain_sentences(comp) -> list[str]:
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


def _diagnostics(comp) -> pd.DataFrame:
    """Max R-hat, min bulk ESS and divergences per fitted model."""
    rows = []
    for name, post in comp.posteriors.items():
        d = post.diagnostics()
        rows.append(
            {
                "model": name,
                "sampler": post.settings.get("sampler", ""),
                "chains": get_group(post.idata, "posterior").sizes["chain"],
                "draws": get_group(post.idata, "posterior").sizes["draw"],
                "max_r_hat": float(d["r_hat"].max()) if len(d) else math.nan,
                "min_ess_bulk": float(d["ess_bulk"].min()) if len(d) else math.nan,
                "divergences": int(d["divergences"].max()) if len(d) else 0,
            }
        )
    return pd.DataFrame(
        rows,
        columns=[
            "model",
            "sampler",
            "chains",
            "draws",
            "max_r_hat",
            "min_ess_bulk",
            "divergences",
        ],
    )


#: What the sampler diagnostics ask of a reader, in every report format.
DIAGNOSTICS_ADVICE = (
    "R-hat above 1.01, a bulk ESS below about 400 or any divergence call for more draws "
    "(or a higher target acceptance) before the numbers are trusted."
)


def _diagnostics_shown(comp) -> pd.DataFrame:
    """:func:`_diagnostics` with its numbers written for a reader."""
    diag = _diagnostics(comp)
    return diag.assign(
        max_r_hat=diag["max_r_hat"].map(lambda v: _fmt(v, 3)),
        min_ess_bulk=diag["min_ess_bulk"].map(lambda v: _fmt(v, 0)),
    )


def _notes(comp) -> list[str]:
    """The report's notes, each once, each naming what it concerns: a pair's note its
    metrics (a note that several metrics share is said once, naming them all), a fit's
    note its model."""
    metrics_of: dict[str, list[str]] = {}
    for metric, note in zip(comp.pairs["metric"], comp.pairs.get("note", []), strict=False):
        for part in _note_parts(note):
            metrics_of.setdefault(part, [])
            if metric not in metrics_of[part]:
                metrics_of[part].append(metric)
    notes = [f"{' and '.join(ms)}: {_sentence(n)}" for n, ms in metrics_of.items()]
    for name, post in comp.posteriors.items():
        notes += [f"{name.upper()}: {_sentence(n)}" for n in post.notes]
    return list(dict.fromkeys(notes + _diagnostics_notes(comp)))


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


# --------------------------------------------------------------------------- HTML


def _figures(comp, data=None) -> list[tuple[str, str]]:
    """(caption, base64 PNG) of the report's figures, drawn without pyplot's global state."""
    from matplotlib.figure import Figure

    out = []
    eps = comp.settings["epsilon"]
    if rg.many_groups(comp):
        # one figure per pair, a pair forest and a reliability panel per group would make a
        # page of megabytes: the forest plots of the group view stand for them
        fig = Figure(figsize=(7.0, 1.2 + 0.9 * len(comp.variance)))
        plots.plot_variance_forest(comp, ax=fig.subplots())
        return [("Between-group variance by estimator.", _png(fig))]
    if comp.posteriors:
        for _, r in comp.pairs.iterrows():
            fig = Figure(figsize=(6.4, 3.8))
            plots.plot_difference(
                comp.posteriors,
                r["metric"],
                group=r["group"],
                reference=r["reference"],
                epsilon=eps,
                freq_estimate=r["freq_estimate"],
                ax=fig.subplots(),
            )
            out.append(
                (
                    f"Posterior of Δ {r['metric']} ({r['group']} − {r['reference']}); "
                    "dashed: frequency estimate; shaded: ±ε.",
                    _png(fig),
                )
            )
    fig = Figure(figsize=(7.0, 1.2 + 0.9 * len(comp.pairs)))
    plots.plot_forest(comp, ax=fig.subplots())
    out.append(("Intervals of Δ by method.", _png(fig)))
    fig = Figure(figsize=(7.0, 1.2 + 0.9 * len(comp.variance)))
    plots.plot_variance_forest(comp, ax=fig.subplots())
    out.append(("Between-group variance by estimator.", _png(fig)))
    table = comp.clusters
    if table is not None and len(table.attrs.get("linkage", [])):
        fig = Figure(figsize=(7.0, 0.8 + 0.28 * len(table.attrs["linkage_metrics"])))
        plots.plot_metric_dendrogram(table, ax=fig.subplots())
        fig.tight_layout()
        first = table.iloc[0]
        out.append(
            (
                f"{CLUSTERS_TITLE} ({first['group']} vs {first['reference']}): 1 − |ρ| "
                "across the draws, cut at the most stable height.",
                _png(fig),
            )
        )
    calibrated = comp.map_model
    if calibrated is not None:
        post = comp.posteriors[calibrated]
        k = len(post.groups)
        fig = Figure(figsize=(min(3.4 * k, 14.0), 3.8))
        axes = fig.subplots(1, k, squeeze=False)[0]
        check = comp.calibration
        plots.plot_reliability(post, axes=axes, check=check if len(check) else None)
        fig.tight_layout()
        out.append(
            (
                f"Reliability per group: the {calibrated.upper()} calibration map (band) against "
                "the labeled examples binned by score on each side of the threshold (counts beside "
                "the points; bars: Wilson 95% intervals).",
                _png(fig),
            )
        )
    out += [(caption, _png(fig)) for caption, fig in score_figures(comp)]
    return out + _reliability_figure(comp, calibrated)


def _reliability_figure(comp, calibrated) -> list[tuple[str, str]]:
    """The figure of calibration within groups: the labeled rows' reliability curves, with
    the calibration model's maps where one was fitted (none without the curves)."""
    from matplotlib.figure import Figure

    curve = comp.reliability
    if curve is None or curve.empty:
        return []
    pct = f"{comp.settings['ci_prob']:.0%}"
    post = comp.posteriors.get(calibrated) if calibrated is not None else None
    fig = Figure(figsize=(6.0, 4.8))
    plots.plot_reliability_curves(curve, post, ax=fig.subplots(), ci_prob=comp.settings["ci_prob"])
    maps = (
        f"; dashed, each group's {calibrated.upper()} calibration map (posterior mean, {pct} "
        "band"
        + (
            ", shifted on each side of the threshold)"
            if MODEL_SPECS[calibrated].absorbs_misfit
            else ")"
        )
        if post is not None
        else ""
    )
    return [
        (
            f"{CALIBRATION_TITLE}: each group's labeled rows in up to "
            f"{curve.attrs.get('n_bins', '')} equal-count bins by score, mean score against "
            f"share of positives (bars: Wilson {pct} intervals); dotted: calibrated "
            f"scores{maps}.",
            _png(fig),
        )
    ]


@takes("Comparison")
def comparison_html(comp, figures: bool = True, digits: int = 3, data=None) -> str:
    """A self-contained HTML page of a comparison: its sections
    (:func:`comparison_sections`) and, with ``figures``, its figures.

    Parameters
    ----------
    comp : Comparison
    figures : bool
        Embed the figures (base64 PNG; needs matplotlib).
    digits : int
        Decimals of the tables.
    data : AssessmentData, optional
        Accepted for compatibility: the reliability figure of a calibration
        model (``rbc`` or ``bc``) uses the labeled examples stored in the fit.

    Returns
    -------
    str
        The page.
    """
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<title>bayesfair assessment</title>",
        f"<style>{REPORT_CSS}</style></head><body>",
        "<h1>bayesfair assessment</h1>",
        *sections_html(comparison_sections(comp, digits, figures, data)),
        "</body></html>",
    ]
    return "\n".join(parts)


# --------------------------------------------------------------------------- JSON
def _jsonable(v):
    import numpy as np

    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_jsonable(x) for x in v]
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if v is None or isinstance(v, bool | int | float | str):
        return v
    return str(v)


@takes("Comparison")
def comparison_json(comp) -> str:
    """The comparison as JSON (NaN and infinities as ``null``).

    Keys: ``family_findings``, ``group_findings``, ``family_view`` and ``group_view``
    (the many-group views: :mod:`bayesfair.report.groups`), ``settings``,
    ``groups`` (labeled/unlabeled counts), ``pairs`` and
    ``variance`` (the rows of the :class:`~bayesfair.report.compare.Comparison`
    tables, raw numbers), ``diagnostics`` (per model), ``notes``,
    ``plain_words``, ``disagreements`` (one sentence per pair whose
    intervals do not overlap), ``calibration`` (calibration within groups: the rows of
    the comparison's ``calibration_view``, one record per group, with its
    ``sentence``), ``calibration_check`` (one record per group) and
    ``metric_clusters`` (one record per metric and pair; empty without clusters).
    """
    import json

    doc = {}
    for section in comparison_sections(comp):
        doc.update(section.records)
    return json.dumps(_jsonable(doc), indent=2, ensure_ascii=False, allow_nan=False)
