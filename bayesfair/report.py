"""Render a :class:`~bayesfair.compare.Comparison` as Markdown (HTML and JSON follow)."""

from __future__ import annotations

import math

import pandas as pd

__all__ = ["comparison_markdown"]


def _fmt(v, digits: int) -> str:
    if isinstance(v, float):
        return "—" if math.isnan(v) else f"{v:.{digits}f}"
    return str(v)


def _interval(row, prefix: str, digits: int) -> str:
    lo, hi = row.get(f"{prefix}_lower"), row.get(f"{prefix}_upper")
    if lo is None or (isinstance(lo, float) and math.isnan(lo)):
        return "—"
    return f"[{lo:.{digits}f}, {hi:.{digits}f}]"


def _table(frame: pd.DataFrame) -> str:
    cols = list(frame.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += [
        "| " + " | ".join(str(v) for v in row) + " |" for row in frame.itertuples(index=False)
    ]
    return "\n".join(lines)


def comparison_markdown(comp, digits: int = 3) -> str:
    """Markdown of the pair table and the variance table of a comparison."""
    s = comp.settings
    models = s["models"]
    rows = []
    for _, r in comp.pairs.iterrows():
        row = {
            "metric": r["metric"],
            "pair": f"{r['group']} − {r['reference']}",
            "n (group/ref)": f"{r['n_group']}/{r['n_reference']}",
            "freq Δ": _fmt(r["freq_estimate"], digits),
            "Newcombe": _interval(r, "newcombe", digits),
            "bootstrap": _interval(r, "bootstrap", digits),
            "Bernstein": _interval(r, "bernstein", digits),
        }
        for m in models:
            row[f"{m.upper()} mean"] = _fmt(r[f"{m}_mean"], digits)
            row[f"{m.upper()} HDI"] = _interval(r, m, digits)
            row[f"{m.upper()} P(\\|Δ\\|<ε)"] = _fmt(r[f"{m}_prob_practically_fair"], digits)
        rows.append(row)
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
        if "hbb_population_mean" in r:
            row["HBB population"] = (
                f"{_fmt(r['hbb_population_mean'], digits + 1)} "
                f"{_interval(r, 'hbb_population', digits + 1)}"
            )
        var_rows.append(row)
    pct = f"{s['ci_prob']:.0%}"
    out = [
        f"Threshold {s['threshold']:g}, reference group {s['reference']!r}, "
        f"positive label {s['positive_label']!r}, ε = {s['epsilon']:g}, {pct} intervals.",
        "",
        "Group sizes (labeled / unlabeled):",
        "",
        _table(comp.groups.reset_index()),
        "",
        f"Differences Δ = rate(group) − rate(reference), {pct} intervals:",
        "",
        _table(pd.DataFrame(rows)),
        "",
        "Between-group variance (Lum et al. 2022) and its posterior:",
        "",
        _table(pd.DataFrame(var_rows)),
    ]
    notes = [n for n in comp.pairs.get("note", []) if n]
    if notes:
        out += ["", "Notes:", *[f"- {n}" for n in dict.fromkeys(notes)]]
    return "\n".join(out)
