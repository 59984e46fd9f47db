"""The report's sections: which, in which order, built from a
:class:`~bayesfair.report.compare.Comparison`.

:func:`comparison_sections` is the one list of
:class:`~bayesfair._internal.render.Section` that the Markdown, HTML and JSON renderers
(:mod:`bayesfair.report.document`) each draw, so that the three carry the same content:
the answer, the group view and the findings, where the methods disagree, calibration
within groups and the calibration check, the metric clusters, the score, the notes and
settings, then the sections of the full detail, the figures (when asked) and the
provenance. The sections hold the tables of :mod:`bayesfair.report.display`, the
sentences of :mod:`bayesfair.report.prose`, the figures of
:mod:`bayesfair.report.figures` and the provenance of :mod:`bayesfair.report.provenance`.
"""

from __future__ import annotations

import pandas as pd

from bayesfair._internal.render import Section
from bayesfair._internal.validation import takes
from bayesfair.posterior.checks import flagged_groups
from bayesfair.report import display, prose
from bayesfair.report import groups as rg
from bayesfair.report.answer import answer_section
from bayesfair.report.figures import comparison_figures, draws_reliability
from bayesfair.report.provenance import provenance, provenance_rows
from bayesfair.report.score import score_section


@takes("Comparison")
def comparison_sections(comp, digits: int = 3, figures: bool = False) -> list:
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

    Returns
    -------
    list of Section
        The answer (:func:`bayesfair.report.answer.answer_section`) first, then what
        it rests on, then the sections of the full detail (``Section.detail``).
    """
    s = comp.settings
    diagnostics = display.diagnostics_table(comp)
    disagreements, notes = comp.disagreements, prose.report_notes(comp, diagnostics)
    calibration = display.calibration_check_table(comp)
    clusters = display.clusters_table(comp, digits)
    sections = [
        answer_section(comp),
        *rg.group_sections(comp, digits, figures),
        rg.pair_findings_section(comp, prose.findings(comp)),
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
            (
                ("table", display.flagged_rows(calibration, comp), "calibration"),
                ("text", prose.CHECK_SHORT),
            )
            if _check_found(comp)
            else (),
            shown=_check_found(comp),
        ),
        Section(
            "calibration-check",
            "Calibration check",
            (("text", prose.CHECK_INTRO), ("table", calibration, "calibration"))
            if calibration is not None
            else (),
            {"calibration_check": comp.calibration.to_dict(orient="records")},
            shown=calibration is not None,
            detail=True,
        ),
        Section(
            "clusters",
            prose.CLUSTERS_TITLE,
            (("text", prose.CLUSTERS_INTRO), ("table", clusters, "clusters"))
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
            (("text", prose.settings_sentence(comp)),),
            {"settings": s},
        ),
        Section(
            "diagnostics",
            "Sampler diagnostics",
            (
                ("table", display.diagnostics_shown(diagnostics), "diagnostics"),
                ("text", prose.DIAGNOSTICS_ADVICE),
            )
            if comp.posteriors
            else (),
            {"diagnostics": diagnostics.to_dict(orient="records") if comp.posteriors else []},
            shown=bool(comp.posteriors),
            detail=True,  # an alarm is one of the notes (prose.diagnostics_notes)
        ),
        *_detail_sections(comp, digits),
    ]
    if figures:
        drawn = comparison_figures(comp)
        blocks = tuple(("figure", caption, png) for caption, png in drawn)
        sections.append(Section("figures", "Figures", blocks))
    sections.append(
        Section(
            "provenance",
            "Provenance",
            (
                (
                    "table",
                    pd.DataFrame(provenance_rows(comp), columns=["item", "value"]),
                    "provenance",
                ),
            ),
            {"provenance": provenance(comp)},
            detail=True,
        )
    )
    return sections


def _detail_sections(comp, digits: int) -> list[Section]:
    """The sections of the full detail (Markdown with ``detail="full"``, HTML folded,
    JSON always): the models and priors, the group sizes, every method's intervals of
    each pair, what the intervals are for, the plain-words sentences, the between-group
    variance."""
    s = comp.settings
    bayes, freq = display.pair_tables(comp, digits)
    plain, estimands = prose.plain_sentences(comp), s.get("estimands", {})
    pct = f"{s['ci_prob']:.0%}"
    return [
        Section(
            "models",
            "Models and priors",
            (("table", display.settings_table(comp), "settings"),),
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
            (("items", prose.estimand_items(comp, estimands), "plain"),),
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
                ("table", display.variance_table(comp, digits), "variance"),
                *(("note", n) for n in prose.variance_notes(comp)),
            ),
            {"variance": comp.variance.reset_index().to_dict(orient="records")},
            detail=True,
        ),
    ]


def _check_found(comp) -> bool:
    """Whether the calibration check found something (a verdict other than "ok" or too
    few labels to tell): then its section is part of the summary."""
    check = comp.calibration
    return check is not None and len(check) > 0 and bool(flagged_groups(check))


def _calibration_view_section(comp, digits: int) -> Section:
    """The section "Calibration within groups" (not shown without the view)."""
    table = display.calibration_view_table(comp, digits)
    records = {"calibration": comp.calibration_view.to_dict(orient="records")}
    if table is None:
        return Section("calibration-within-groups", prose.CALIBRATION_TITLE, (), records, False)
    sentences, notes = prose.calibration_view_lines(comp)
    blocks = (
        ("text", prose.calibration_view_intro(comp, draws_reliability(comp))),
        ("items", sentences, "plain"),
        ("table", table, "calibration-groups"),
        *(("note", f"{n}.") for n in notes),
    )
    return Section("calibration-within-groups", prose.CALIBRATION_TITLE, blocks, records)
