"""Render a :class:`~bayesfair.report.compare.Comparison` as Markdown, HTML or JSON.

:func:`comparison_markdown` gives the tables as text; :func:`comparison_html`
a self-contained page (inline CSS, figures as base64 PNG) that also states the
settings, priors, sampler diagnostics and, in plain words, what P(|Δ| < ε)
means for each pair; :func:`comparison_json` the same content for machines. The three
draw one list of sections (:func:`~bayesfair.report.sections.comparison_sections`):
the tables of :mod:`~bayesfair.report.display`, the sentences of
:mod:`~bayesfair.report.prose` (among them :func:`findings`), the figures of
:mod:`~bayesfair.report.figures` (HTML only) and the provenance of
:mod:`~bayesfair.report.provenance` (:func:`provenance_table`); the JSON document is
written by :mod:`~bayesfair.report.serialize`. Each has the section "Calibration within
groups", drawn from the comparison's ``calibration_view`` (its sentences included); the
HTML page adds its figure, the ``reliability`` curves.
"""

from __future__ import annotations

from bayesfair._internal.names import resolve_name
from bayesfair._internal.render import REPORT_CSS, sections_html, sections_markdown
from bayesfair._internal.validation import takes
from bayesfair.report.prose import findings
from bayesfair.report.provenance import provenance_table
from bayesfair.report.sections import comparison_sections
from bayesfair.report.serialize import json_document

__all__ = [
    "comparison_html",
    "comparison_json",
    "comparison_markdown",
    "comparison_sections",
    "findings",
    "provenance_table",
]


#: The report's detail levels.
DETAILS = {
    "summary": "the answer and the sections it rests on",
    "full": "every table as well",
}


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


@takes("Comparison")
def comparison_html(comp, figures: bool = True, digits: int = 3) -> str:
    """A self-contained HTML page of a comparison: its sections
    (:func:`comparison_sections`) and, with ``figures``, its figures.

    Parameters
    ----------
    comp : Comparison
    figures : bool
        Embed the figures (base64 PNG; needs matplotlib).
    digits : int
        Decimals of the tables.

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
        *sections_html(comparison_sections(comp, digits, figures)),
        "</body></html>",
    ]
    return "\n".join(parts)


@takes("Comparison")
def comparison_json(comp) -> str:
    """The comparison as JSON (NaN and infinities as ``null``).

    Keys: ``answer`` (:func:`bayesfair.report.answer.answer_section`), ``findings``
    (:func:`findings`), ``family_findings``, ``group_findings``, ``family_view`` and
    ``group_view`` (the many-group views: :mod:`bayesfair.report.groups`), ``settings``,
    ``groups`` (labeled/unlabeled counts), ``pairs`` and
    ``variance`` (the rows of the :class:`~bayesfair.report.compare.Comparison`
    tables, raw numbers), ``diagnostics`` (per model), ``notes``,
    ``plain_words``, ``disagreements`` (one sentence per pair whose
    intervals do not overlap), ``calibration`` (calibration within groups: the rows of
    the comparison's ``calibration_view``, one record per group, with its
    ``sentence``), ``calibration_check`` (one record per group) and
    ``metric_clusters`` (one record per metric and pair; empty without clusters),
    ``score`` (:func:`bayesfair.report.score.score_section`) and ``provenance`` (what
    reproduces the report: :func:`bayesfair.report.provenance.provenance`).
    """
    return json_document(comparison_sections(comp))
