"""The report's tables written for a reader: numbers to a fixed number of decimals,
intervals as ``[lower, upper]``, "—" where a value is undefined.

Each table is a :class:`pandas.DataFrame` of strings that the sections
(:mod:`bayesfair.report.sections`) hold and the Markdown and HTML renderers print as
they are: the differences of each pair (read from the long table,
``Comparison.estimates``), the between-group variance, the models and their priors, the
sampler diagnostics, the calibration check, the metric clusters and calibration within
groups.
"""

from __future__ import annotations

import math

import pandas as pd

from bayesfair._internal.tree import get_group
from bayesfair.metrics.fair_enough import representatives
from bayesfair.posterior.checks import flagged_groups
from bayesfair.report import prose
from bayesfair.report.estimates import FREQUENTIST_STATS, estimates_by_pair


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


def _bernstein(stats: dict, digits: int) -> str:
    """The Bernstein interval; clipped to [−1, 1], with its half-width when it was."""
    text = _interval(stats, None, digits)
    half = stats.get("half_width", float("nan"))
    if half == half and (stats["lower"] <= -1.0 or stats["upper"] >= 1.0):
        text += f" (±{half:.{digits}f}, clipped)"
    return text


def _with_interval(row, prefix: str, digits: int) -> str:
    """An estimate and its interval, or one dash where neither is defined."""
    value, interval = _fmt(float(row[prefix]), digits), _interval(row, prefix, digits)
    return value if interval == "—" else f"{value} {interval}"


def pair_tables(comp, digits: int) -> tuple[pd.DataFrame, pd.DataFrame]:
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


def variance_table(comp, digits: int) -> pd.DataFrame:
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


def settings_table(comp) -> pd.DataFrame:
    """The models and their priors, one row each."""
    s = comp.settings
    rows = [("models", ", ".join(m.upper() for m in s["models"]) or "none (frequentist only)")]
    rows += [
        (f"prior of {m.upper()}", prose.prior_words(p)) for m, p in s.get("priors", {}).items()
    ]
    return pd.DataFrame(rows, columns=["setting", "value"])


def diagnostics_table(comp) -> pd.DataFrame:
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


def diagnostics_shown(diag: pd.DataFrame) -> pd.DataFrame:
    """The sampler diagnostics (:func:`diagnostics_table`) with their numbers written for a
    reader."""
    return diag.assign(
        max_r_hat=diag["max_r_hat"].map(lambda v: _fmt(v, 3)),
        min_ess_bulk=diag["min_ess_bulk"].map(lambda v: _fmt(v, 0)),
    )


def calibration_check_table(comp):
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


def flagged_rows(table: pd.DataFrame, comp) -> pd.DataFrame:
    """The rows of the calibration check's display table of the groups it flags
    (:func:`~bayesfair.posterior.checks.flagged_groups`)."""
    return table[table["group"].isin([str(g) for g in flagged_groups(comp.calibration)])]


def clusters_table(comp, digits: int):
    """The representatives of the metric clusters, or None without clusters."""
    table = comp.clusters
    return None if table is None or table.empty else representatives(table, digits)


def calibration_view_table(comp, digits: int):
    """Calibration within groups as a display table, one row per group and method (the
    model's over all assessed rows, then the labeled rows'); None without the view."""
    view = comp.calibration_view
    if view is None or view.empty:
        return None
    # the model of the view, chosen when the comparison was built (None: the labeled rows')
    model = comp.settings.get("calibration_model")
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
