"""The many-group part of a report: the family's verdicts and the groups' gaps to all rows.

Content (which verdict, resting on which method) and its rendering for a
:class:`~bayesfair.report.compare.Comparison` whose ``family_view`` and ``group_view``
:func:`bayesfair.compare` filled. With more than two groups a report leads with
these (:func:`leads_with_family`): the first question is then whether the
family is within ε and who is worst off, not how one group compares with a
reference. With more than :data:`MANY_GROUPS` groups it also draws one forest
plot of the gaps per metric instead of one figure per pair, and folds the
pairwise findings below (:func:`many_groups`).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from bayesfair._internal.render import Section, png, sections_html, sections_markdown
from bayesfair._internal.validation import takes
from bayesfair.metrics.rates import get_rate
from bayesfair.metrics.verdicts import TOO_FEW
from bayesfair.models.catalogue import MODEL_SPECS, verdict_order
from bayesfair.report.group_plots import gap_figure_size, plot_group_gaps

__all__ = [
    "MANY_GROUPS",
    "family_findings",
    "group_findings",
    "group_html",
    "group_markdown",
    "group_sections",
    "leads_with_family",
    "many_groups",
    "pair_findings_html",
    "pair_findings_section",
    "view_method",
]

#: Above this many groups the report leads with the family and group views.
MANY_GROUPS = 5

_FREQUENTIST_WORDS = "the max-|t| bootstrap of the labeled examples"


def _view_words(method: str) -> str:
    """What a group or family verdict rests on: a model's (its ``ModelSpec``) or the
    frequentist band's."""
    spec = MODEL_SPECS.get(method)
    return _FREQUENTIST_WORDS if spec is None else spec.view_words


@takes("Comparison")
def leads_with_family(comp) -> bool:
    """Whether a report leads with the family and group views: more than two groups."""
    return len(comp.groups) > 2 and not comp.family_view.empty


@takes("Comparison")
def many_groups(comp) -> bool:
    """Whether a report folds its pairs and draws forest plots of the groups instead of one
    figure per pair: more than MANY_GROUPS groups."""
    return leads_with_family(comp) and len(comp.groups) > MANY_GROUPS


@takes("Comparison")
def view_method(comp) -> str:
    """The method the group and family verdicts rest on (decided with the comparison:
    :attr:`~bayesfair.report.compare.Comparison.view_method`)."""
    return comp.view_method


@takes("Comparison")
def family_findings(comp) -> list[dict]:
    """One finding per metric: is the family of groups within ε (max − min of the rates)?"""
    family = comp.family_view
    if family is None or family.empty:
        return []
    eps = comp.settings["epsilon"]
    # each metric's band is at the level that holds the views over the metrics together
    # (compare's _group_views, metrics.verdicts.family_level)
    joint = f" (joint over the {len(family)} metrics)" if len(family) > 1 else ""
    pct = f"{comp.settings['ci_prob']:.0%}{joint}"
    m = view_method(comp)
    out = []
    for _, r in family.iterrows():
        label = get_rate(r["metric"]).label
        verdict = r[f"{m}_decision"]
        lo, hi = r[f"{m}_max_gap_lower"], r[f"{m}_max_gap_upper"]
        set_aside = tuple(r.get(f"{m}_set_aside", ()) or ())
        n_groups = len(comp.groups) - len(set_aside)
        if verdict == TOO_FEW:
            text = (
                f"{label}: too few for a family verdict (fewer than two groups with enough "
                f"evidence: {r.get(f'{m}_shortfall', '')}); rests on {_view_words(m)}."
            )
            out.append(
                {
                    "metric": r["metric"],
                    "verdict": verdict,
                    "max_gap": np.nan,
                    "lower": np.nan,
                    "upper": np.nan,
                    "method": m,
                    "text": text,
                }
            )
            continue
        text = f"{label}, all {n_groups} groups: {verdict} at ε = {eps:g}. "
        if set_aside:
            text = (
                f"{label}, {n_groups} groups ({', '.join(map(str, set_aside))} set aside: too "
                f"few for a verdict): {verdict} at ε = {eps:g}. "
            )
        if m == "freq":
            text += f"max − min = {r[f'{m}_max_gap']:.3f}, {pct} interval [{lo:.3f}, {hi:.3f}]"
        else:
            # two estimates, said apart: the spread of the groups' estimated rates, and
            # the posterior of the spread of their true rates (wider: each is uncertain)
            text += (
                f"max − min of the estimated rates = {r[f'{m}_max_gap']:.3f}; of the true "
                f"rates: {pct} interval [{lo:.3f}, {hi:.3f}], P(max − min < {eps:g}) = "
                f"{r[f'{m}_prob_all_within']:.2f}; worst off: "
                f"{r[f'{m}_worst_group']} (P = {r[f'{m}_prob_worst']:.2f}); min/max "
                f"{r[f'{m}_min_ratio']:.3f} [{r[f'{m}_min_ratio_lower']:.3f}, "
                f"{r[f'{m}_min_ratio_upper']:.3f}]"
            )
        text += f"; rests on {_view_words(m)}."
        out.append(
            {
                "metric": r["metric"],
                "verdict": verdict,
                "max_gap": r[f"{m}_max_gap"],
                "lower": lo,
                "upper": hi,
                "method": m,
                "text": text,
            }
        )
    return out


@takes("Comparison")
def group_findings(comp) -> list[dict]:
    """One finding per metric and group whose gap to all rows is decided "unfair" (the band
    lies outside ±ε for the groups jointly); nothing for the others."""
    view = comp.group_view
    if view is None or view.empty:
        return []
    eps = comp.settings["epsilon"]
    m = view_method(comp)
    out = []
    for _, r in view.iterrows():
        verdict = r[f"{m}_decision"]
        if verdict != "unfair":
            continue
        text = (
            f"{get_rate(r['metric']).label}, {r['group']} against all rows: unfair at "
            f"ε = {eps:g}. gap = {r[f'{m}_gap']:+.3f}, joint band "
            f"[{r[f'{m}_gap_lower']:.3f}, {r[f'{m}_gap_upper']:.3f}]; rests on {_view_words(m)}."
        )
        out.append(
            {
                "metric": r["metric"],
                "group": r["group"],
                "verdict": verdict,
                "method": m,
                "text": text,
            }
        )
    return out


def family_table(comp, digits: int = 3) -> pd.DataFrame:
    """The family view as a printable table: per metric and method, max − min with its
    interval; the verdict of the method the report rests on (:func:`view_method`), the
    others' intervals beside it as comparators ("—": one verdict per quantity, so that
    the report's verdicts hold as a family)."""
    rows = []
    chosen = view_method(comp)
    methods = [m for m in verdict_order() if f"{m}_decision" in comp.family_view]
    for _, r in comp.family_view.iterrows():
        for m in [*methods, "freq"]:
            rows.append(
                {
                    "metric": r["metric"],
                    "method": m.upper() if m != "freq" else "bootstrap (labeled)",
                    "max − min": _num(r[f"{m}_max_gap"], digits),
                    "interval": f"[{_num(r[f'{m}_max_gap_lower'], digits)}, "
                    f"{_num(r[f'{m}_max_gap_upper'], digits)}]",
                    "verdict": r[f"{m}_decision"] if m == chosen else "—",
                }
            )
    return pd.DataFrame(rows)


def group_table(comp, digits: int = 3) -> pd.DataFrame:
    """The group view as a printable table: per metric and group, the gap to all rows with
    the joint band of the method the verdicts rest on and the labeled rows' band."""
    m = view_method(comp)
    view = comp.group_view
    out = pd.DataFrame(
        {
            "metric": view["metric"],
            "group": view["group"].astype(str),
            "labeled / unlabeled": [
                f"{a} / {b}" for a, b in zip(view["n_labeled"], view["n_unlabeled"], strict=True)
            ],
        }
    )
    if m != "freq":
        out[f"{m.upper()} gap [band]"] = [
            f"{_num(g, digits)} [{_num(lo, digits)}, {_num(hi, digits)}]"
            for g, lo, hi in zip(
                view[f"{m}_gap"], view[f"{m}_gap_lower"], view[f"{m}_gap_upper"], strict=True
            )
        ]
        out["P(worst)"] = view[f"{m}_prob_worst"].map(lambda v: _num(v, 2))
        out["verdict"] = view[f"{m}_decision"]
    out["bootstrap gap [band]"] = [
        f"{_num(g, digits)} [{_num(lo, digits)}, {_num(hi, digits)}]"
        for g, lo, hi in zip(
            view["freq_gap"], view["freq_gap_lower"], view["freq_gap_upper"], strict=True
        )
    ]
    return out


def _num(v, digits: int) -> str:
    return "–" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{digits}f}"


# --------------------------------------------------------------------------- sections
def _gap_figures(comp) -> list[tuple]:
    """One forest plot of the groups' gaps per metric (figure blocks)."""
    from matplotlib.figure import Figure

    method = view_method(comp)
    blocks = []
    for metric in comp.family_view["metric"]:
        fig = Figure(figsize=gap_figure_size(len(comp.groups)))
        plot_group_gaps(
            comp.group_view, metric, method, comp.settings["epsilon"], ax=fig.subplots()
        )
        caption = (
            f"Each group's gap in {metric} to all rows, the most adverse first; "
            f"bars: the joint band ({method.upper()}); grey: ±ε."
        )
        blocks.append(("figure", caption, png(fig, 100)))
    return blocks


@takes("Comparison")
def group_sections(comp, digits: int = 3, figures: bool = False) -> list[Section]:
    """The family's verdicts and table, and each group against all rows, as report sections
    (:class:`~bayesfair._internal.render.Section`): shown first in a report with more than
    two groups (:func:`leads_with_family`); their records always go to JSON.

    Parameters
    ----------
    comp : Comparison
        From :func:`bayesfair.compare`.
    digits : int, default 3
        Decimals of the tables.
    figures : bool, default False
        Draw the forest plots of the gaps (base64 PNG; needs matplotlib), one per
        metric, when there are more than :data:`MANY_GROUPS` groups.

    Returns
    -------
    list of Section
    """
    pct = f"{comp.settings['ci_prob']:.0%}"
    shown = leads_with_family(comp)
    family, unfair = family_findings(comp), group_findings(comp)
    records = {
        "family_findings": family,
        "group_findings": unfair,
        "family_view": comp.family_view.to_dict(orient="records"),
    }
    blocks, group_blocks = [], []
    if shown:
        blocks = [
            ("items", [f["text"] for f in family + unfair], "findings"),
            (
                "text",
                f"max − min of the group rates, {pct} intervals (projected from the joint band):",
            ),
            ("table", family_table(comp, digits), "family"),
        ]
        if figures and many_groups(comp):
            blocks += _gap_figures(comp)
        group_blocks = [
            (
                "text",
                f"Gap = rate(group) − rate(all rows); the bands hold for the groups and "
                f"metrics jointly at {pct}.",
            ),
            ("table", group_table(comp, digits), "groups"),
        ]
    title = f"Family verdicts ({len(comp.groups)} groups; max − min of the group rates)"
    return [
        # the answer says each metric's family verdict: the findings and table are detail
        Section("family", title, tuple(blocks), records, shown, detail=True),
        Section(
            "group-view",
            "Each group against all rows",
            tuple(group_blocks),
            {"group_view": comp.group_view.to_dict(orient="records")},
            shown,
        ),
    ]


@takes("Comparison")
def pair_findings_section(comp, pair_findings) -> Section:
    """The pairwise findings (``pair_findings``: :func:`bayesfair.report.findings`) as a
    report section, folded (HTML) below the family view when there are many groups.

    Parameters
    ----------
    comp : Comparison
        From :func:`bayesfair.compare`.
    pair_findings : list of dict
        The findings, each with its sentence under ``"text"``.

    Returns
    -------
    Section
    """
    lead = leads_with_family(comp)
    fold = (
        f"Findings by pair ({len(comp.pairs)} pairs against the reference)"
        if many_groups(comp)
        else ""
    )
    return Section(
        "findings",
        "Findings by pair (each group against the reference)" if lead else "Findings",
        (("items", [f["text"] for f in pair_findings], "findings"),),
        {"findings": pair_findings},
        fold=fold,
    )


# --------------------------------------------------------------------------- rendering
@takes("Comparison")
def group_markdown(comp, digits: int) -> list[str]:
    """The family verdicts, the family table and the group table, as Markdown lines
    (:func:`group_sections`, rendered).

    Parameters
    ----------
    comp : Comparison
        From :func:`bayesfair.compare`, with its ``family_view`` and ``group_view``.
    digits : int
        Decimals of the tables.

    Returns
    -------
    list of str
        The lines, to be joined by newlines; empty unless :func:`leads_with_family`.
    """
    return sections_markdown(group_sections(comp, digits))


@takes("Comparison")
def group_html(comp, digits: int, figures: bool) -> list[str]:
    """The family verdicts, a forest plot of the gaps per metric (many groups) and the group
    table (:func:`group_sections`, rendered).

    Parameters
    ----------
    comp : Comparison
        From :func:`bayesfair.compare`.
    digits : int
        Decimals of the tables.
    figures : bool
        Draw the forest plots of the gaps (base64 PNG; needs matplotlib), one per
        metric, when there are more than :data:`MANY_GROUPS` groups.

    Returns
    -------
    list of str
        HTML fragments; empty unless :func:`leads_with_family`.
    """
    return sections_html(group_sections(comp, digits, figures))


@takes("Comparison")
def pair_findings_html(comp, pair_findings) -> list[str]:
    """The pairwise findings as HTML (:func:`pair_findings_section`, rendered).

    Parameters
    ----------
    comp : Comparison
        From :func:`bayesfair.compare`.
    pair_findings : list of dict
        The findings, each with its sentence under ``"text"``.

    Returns
    -------
    list of str
        HTML fragments: a heading and the list (nothing without findings), or,
        with more than :data:`MANY_GROUPS` groups, one ``<details>`` element
        holding the list.
    """
    if not pair_findings:
        return []
    return sections_html([pair_findings_section(comp, pair_findings)])
