"""The report of an audit over time: each period's gaps, the drifted periods, a figure.

Content and its rendering for a :class:`~bayesfair.posterior.PeriodPosterior`
(:mod:`bayesfair.posterior.periods`): the findings (periods whose labels drifted away from
the group's earlier map, which say to label more there; periods whose gap is
decided), one table per metric of the gaps over the periods, and in HTML one
figure per metric (:func:`bayesfair.report.group_plots.plot_period_gaps`). Markdown,
HTML and JSON carry the same content.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd

from bayesfair._internal.render import REPORT_CSS, Section, png, sections_html, sections_markdown
from bayesfair._internal.validation import takes
from bayesfair.models.catalogue import DEFAULT_MODEL
from bayesfair.posterior.periods import DRIFT_LEVEL, DRIFT_POWER
from bayesfair.report.document import provenance_table
from bayesfair.report.group_plots import plot_period_gaps

__all__ = [
    "drift_sentences",
    "period_findings",
    "period_html",
    "period_json",
    "period_markdown",
    "period_sections",
    "period_table",
    "provenance_rows",
]


@takes("PeriodPosterior")
def period_findings(result, table: pd.DataFrame) -> list[str]:
    """The findings of an audit over time, in sentences: drifted periods first.

    Parameters
    ----------
    result : PeriodPosterior
    table : pandas.DataFrame
        Its :meth:`~bayesfair.posterior.PeriodPosterior.period_summary`.
    """
    out = drift_sentences(result.drift)
    decided = table[table["decision"] != "undecided"]
    for _, r in decided.iterrows():
        out.append(
            f"Period {r['period']}: {r['metric']} of {r['group']} against {r['reference']} is "
            f"{r['decision']} (gap {r['mean']:+.3f}, [{r['lower']:+.3f}, {r['upper']:+.3f}])."
        )
    if not out:
        out.append("No period drifted, and no period's gap is decided at this ε.")
    return out


def drift_sentences(drift: pd.DataFrame) -> list[str]:
    """The drift flags in words: a flag that holds over the audit's family of checks is a
    drift, one that holds only on its own a possible drift (with the number of checks
    and the false flags they make by chance), then what the checks can see.

    Parameters
    ----------
    drift : pandas.DataFrame
        A :class:`~bayesfair.posterior.PeriodPosterior`'s ``drift``
        (:func:`bayesfair.posterior.periods.family_drift`).
    """
    checks = int(drift["drift_p"].notna().sum())
    adjusted = "drift_p_family" in drift
    family = drift["drift_family"] if adjusted else drift["drift"]
    p_family = drift["drift_p_family"] if adjusted else drift["drift_p"]
    out = []
    for (_, r), holds, p_adj in zip(drift.iterrows(), family, p_family, strict=True):
        if not r["drift"]:
            continue
        where = f"{r['group']}'s {r['n_labeled']} labels in period {r['period']}"
        over = f"{p_adj:.3g} adjusted over the audit's {checks} checks" if adjusted else ""
        if holds:
            out.append(
                f"Drift: {where} contradict its map of the earlier periods (p = "
                f"{r['drift_p']:.3g}{'; ' + over if over else ''}); the period's gaps rest "
                "on a map those labels do not support: label more rows of that period."
            )
        else:
            out.append(
                f"Possible drift: {where} depart from its map of the earlier periods (p = "
                f"{r['drift_p']:.3g} for this check alone{', ' + over if over else ''}; the "
                f"audit's {checks} checks flag {checks * DRIFT_LEVEL:.1f} periods by chance "
                "on average when nothing drifted): label more rows of that period before "
                "acting on it."
            )
    out += _what_checks_see(drift)
    return out


def _what_checks_see(drift: pd.DataFrame) -> list[str]:
    """The blind spot of the drift checks: the check that needs the largest shift."""
    seen = drift.dropna(subset=["drift_p"])
    if "detectable_shift" not in seen or seen.empty:
        return []
    worst = seen.loc[seen["detectable_shift"].astype(float).idxmax()]
    where = f"with {worst['n_labeled']} labels ({worst['group']}, period {worst['period']})"
    if not np.isfinite(worst["detectable_shift"]):
        return [
            f"What the drift checks can see: {where} no drift of the map, however large, "
            f"is flagged in {DRIFT_POWER:.0%} of audits: label more rows of the period to "
            "check it."
        ]
    return [
        f"What the drift checks can see: {where} a check on its own flags a shift of the "
        f"map by {worst['detectable_shift']:.1f} logits (about "
        f"{100 * worst['detectable_change']:.0f} points in the period's share of positives) "
        f"in about {DRIFT_POWER:.0%} of audits, and the family's flag in fewer; a smaller "
        "drift there mostly goes unflagged."
    ]


def _family_groups(table: pd.DataFrame) -> list[str]:
    """Per row, the group(s) whose drift flag holds over the audit's checks (a table from
    before ``drift_family_in``: every flagged group where ``drift_family``, else none)."""
    if "drift_family_in" in table:
        return list(table["drift_family_in"])
    family = table.get("drift_family", table["drift"])
    return [who if held else "" for who, held in zip(table["drift_in"], family, strict=True)]


def _drift_cell(flag: bool, who: str, held: str, p: float) -> str:
    """The drift cell: "yes" for the group(s) whose flag holds over the family, "possible"
    for the rest of the flagged group(s)."""
    if not flag:
        return "—"
    rest = [g for g in who.split(", ") if g and g not in held.split(", ")]
    if not held:
        return f"possible ({who}, p = {p:.3g})"
    return f"yes ({held}, p = {p:.3g})" + (f"; possible ({', '.join(rest)})" if rest else "")


def period_table(table: pd.DataFrame, digits: int = 3) -> pd.DataFrame:
    """The display table of the gaps over the periods (strings; — where undefined).

    Parameters
    ----------
    table : pandas.DataFrame
        A :meth:`~bayesfair.posterior.PeriodPosterior.period_summary`.
    digits : int, default 3
    """

    def num(v):
        return "—" if isinstance(v, float) and math.isnan(v) else f"{v:+.{digits}f}"

    return pd.DataFrame(
        {
            "metric": table["metric"],
            "period": table["period"].astype(str),
            "pair": table["group"].astype(str) + " − " + table["reference"].astype(str),
            "labels": table["n_labeled"].astype(str)
            + " / "
            + table["n_labeled_reference"].astype(str),
            "gap": [num(v) for v in table["mean"]],
            "interval": [
                "—" if math.isnan(lo) else f"[{num(lo)}, {num(hi)}]"
                for lo, hi in zip(table["lower"], table["upper"], strict=True)
            ],
            "decision": table["decision"],
            "drift": [
                _drift_cell(flag, who, held, p)
                for flag, who, held, p in zip(
                    table["drift"],
                    table["drift_in"],
                    _family_groups(table),
                    table["drift_p"],
                    strict=True,
                )
            ],
        }
    )


@takes("PeriodPosterior")
def provenance_rows(result) -> list[tuple[str, str]]:
    """What reproduces an audit over time: the time, versions, seed, sampler and priors of
    the fits (one per group; with group probabilities one per period), the input files
    and the call, as (item, value) rows.

    Parameters
    ----------
    result : PeriodPosterior
    """
    per = "period" if result.settings.get("periods") == "per period, groups latent" else "group"
    name = f"{str(result.settings.get('model', '')).upper()} per {per}"
    return provenance_table(result.settings, [(name, result.settings)])


def _content(result, metrics, epsilon, ci_prob):
    table = result.period_summary(metrics, epsilon, ci_prob)
    return table, period_findings(result, table)


@takes("PeriodPosterior")
def period_sections(
    result, metrics=None, epsilon: float = 0.02, ci_prob: float = 0.95, figures: bool = False
) -> list[Section]:
    """The audit over time's sections, the one list that the Markdown, HTML and JSON
    renderers draw (:class:`~bayesfair._internal.render.Section`, as a comparison's).

    Parameters
    ----------
    result : PeriodPosterior
    metrics, epsilon, ci_prob
        As in :func:`bayesfair.posterior.periods.period_summary`.
    figures : bool, default False
        One figure of the gaps over the periods per metric (only HTML shows them).

    Returns
    -------
    list of Section
    """
    table, findings = _content(result, metrics, epsilon, ci_prob)
    blocks = []
    if figures:
        from matplotlib.figure import Figure

        for metric in dict.fromkeys(table["metric"]):
            fig = Figure(figsize=(7.0, 3.2))
            plot_period_gaps(table, metric, epsilon, ax=fig.subplots())
            caption = (
                f"Gap in {metric} per period; band: {ci_prob:.0%} simultaneous; ▼: drifted labels."
            )
            blocks.append(("figure", caption, png(fig)))
    blocks += [("table", period_table(table), ""), ("text", _method_sentence(result))]
    gaps = {
        "periods": json.loads(table.to_json(orient="records", date_format="iso")),
        "drift": json.loads(result.drift.to_json(orient="records", date_format="iso")),
        "settings": {
            "epsilon": epsilon,
            "ci_prob": ci_prob,
            "band": table.attrs.get("band"),
            "method": _method_sentence(result),
        },
    }
    provenance = pd.DataFrame(provenance_rows(result), columns=["item", "value"])
    return [
        Section("findings", "Findings", (("items", findings, "findings"),), {"findings": findings}),
        Section("periods", _gaps_heading(ci_prob, epsilon), tuple(blocks), gaps),
        Section(
            "provenance",
            "Provenance",
            (("table", provenance, ""),),
            {"provenance": dict(result.settings.get("provenance", {}))},
        ),
    ]


@takes("PeriodPosterior")
def period_markdown(result, metrics=None, epsilon: float = 0.02, ci_prob: float = 0.95) -> str:
    """The audit over time as Markdown (:func:`period_sections`, rendered).

    Parameters
    ----------
    result : PeriodPosterior
    metrics, epsilon, ci_prob
        As in :func:`bayesfair.posterior.periods.period_summary`.
    """
    sections = period_sections(result, metrics, epsilon, ci_prob)
    lines = ["# bayesfair audit over time", "", *sections_markdown(sections, "## {title}")]
    return "\n".join(lines) + "\n"


@takes("PeriodPosterior")
def period_json(result, metrics=None, epsilon: float = 0.02, ci_prob: float = 0.95) -> str:
    """The audit over time as JSON: findings, the period table, the drift table, settings
    (:func:`period_sections`' records).

    Parameters
    ----------
    result : PeriodPosterior
    metrics, epsilon, ci_prob
        As in :func:`bayesfair.posterior.periods.period_summary`.
    """
    payload = {}
    for section in period_sections(result, metrics, epsilon, ci_prob):
        payload.update(section.records)
    return json.dumps(payload, indent=2, default=str)


@takes("PeriodPosterior")
def period_html(
    result, metrics=None, epsilon: float = 0.02, ci_prob: float = 0.95, figures: bool = True
) -> str:
    """The audit over time as one self-contained HTML page (:func:`period_sections`,
    rendered).

    Parameters
    ----------
    result : PeriodPosterior
    metrics, epsilon, ci_prob
        As in :func:`bayesfair.posterior.periods.period_summary`.
    figures : bool, default True
        One figure of the gaps over the periods per metric.
    """
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<title>bayesfair audit over time</title>",
        f"<style>{REPORT_CSS}</style></head><body>",
        "<h1>bayesfair audit over time</h1>",
        *sections_html(period_sections(result, metrics, epsilon, ci_prob, figures)),
        "</body></html>",
    ]
    return "\n".join(parts)


def _gaps_heading(ci_prob: float, epsilon: float) -> str:
    """The heading of the table of gaps: the band's level and kind, and ε."""
    return (
        f"Gaps per period ({ci_prob:.0%} band, simultaneous over periods and groups; "
        f"ε = {epsilon:g})"
    )


def _method_sentence(result) -> str:
    s = result.settings
    seed = s.get("random_seed")
    seed = seed.get("entropy", seed) if isinstance(seed, dict) else seed
    model = s.get("model", DEFAULT_MODEL).upper()
    if s.get("periods") == "per period, groups latent":
        fitted = (
            f"Each of the {len(result.periods)} periods fitted on its own by the {model} "
            "calibration model with latent groups (a period without labels is not fitted); "
            f"{s.get('proxy_assumption', '')}"
        )
    else:
        fitted = (
            f"Each group's {model} calibration model fitted over its {len(result.periods)} "
            "periods (a hierarchy over periods: a period without labels rests on the "
            "group's others)"
        )
    return (
        f"{fitted}; drift: a likelihood-ratio test of a period's labels "
        "against the group's map of its earlier labeled periods that were not flagged, "
        "flagged at p < 0.05; "
        f"{s.get('chains')} chains × {s.get('draws')} draws, seed {seed}."
    )
