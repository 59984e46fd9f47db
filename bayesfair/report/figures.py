"""The report's figures: each a caption and a base64 PNG, for the HTML page.

Drawn on :class:`matplotlib.figure.Figure` objects (matplotlib imported inside the
functions, pyplot's global state untouched) by :mod:`bayesfair.report.plots` and the
score's figures (:func:`bayesfair.report.score.score_figures`); the section "Figures"
(:mod:`bayesfair.report.sections`) holds them.
"""

from __future__ import annotations

from bayesfair._internal.render import png
from bayesfair.models.catalogue import MODEL_SPECS
from bayesfair.report import plots, prose
from bayesfair.report.groups import many_groups
from bayesfair.report.score import score_figures


def comparison_figures(comp) -> list[tuple[str, str]]:
    """(caption, base64 PNG) of the report's figures, drawn without pyplot's global state.

    With many groups (:func:`bayesfair.report.groups.many_groups`) the between-group
    variance alone (the group view draws its own forest plots); otherwise the posterior of
    each pair's Δ, the intervals of Δ by method, the between-group variance, the metric
    clusters' dendrogram, the calibration maps, the score's figures and the reliability
    curves, each where the comparison has it.
    """
    from matplotlib.figure import Figure

    out = []
    eps = comp.settings["epsilon"]
    if many_groups(comp):
        # one figure per pair, a pair forest and a reliability panel per group would make a
        # page of megabytes: the forest plots of the group view stand for them
        fig = Figure(figsize=(7.0, 1.2 + 0.9 * len(comp.variance)))
        plots.plot_variance_forest(comp, ax=fig.subplots())
        return [("Between-group variance by estimator.", png(fig))]
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
                    png(fig),
                )
            )
    fig = Figure(figsize=(7.0, 1.2 + 0.9 * len(comp.pairs)))
    plots.plot_forest(comp, ax=fig.subplots())
    out.append(("Intervals of Δ by method.", png(fig)))
    fig = Figure(figsize=(7.0, 1.2 + 0.9 * len(comp.variance)))
    plots.plot_variance_forest(comp, ax=fig.subplots())
    out.append(("Between-group variance by estimator.", png(fig)))
    table = comp.clusters
    if table is not None and len(table.attrs.get("linkage", [])):
        fig = Figure(figsize=(7.0, 0.8 + 0.28 * len(table.attrs["linkage_metrics"])))
        plots.plot_metric_dendrogram(table, ax=fig.subplots())
        fig.tight_layout()
        first = table.iloc[0]
        out.append(
            (
                f"{prose.CLUSTERS_TITLE} ({first['group']} vs {first['reference']}): 1 − |ρ| "
                "across the draws, cut at the most stable height.",
                png(fig),
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
                png(fig),
            )
        )
    out += [(caption, png(fig)) for caption, fig in score_figures(comp)]
    return out + _reliability_figure(comp, calibrated)


def _reliability_figure(comp, calibrated) -> list[tuple[str, str]]:
    """The figure of calibration within groups: the labeled rows' reliability curves, with
    the calibration model's maps where one was fitted (none without the curves)."""
    from matplotlib.figure import Figure

    if not draws_reliability(comp):
        return []
    curve = comp.reliability
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
            f"{prose.CALIBRATION_TITLE}: each group's labeled rows in up to "
            f"{curve.attrs.get('n_bins', '')} equal-count bins by score, mean score against "
            f"share of positives (bars: Wilson {pct} intervals); dotted: calibrated "
            f"scores{maps}.",
            png(fig),
        )
    ]


def draws_reliability(comp) -> bool:
    """Whether the HTML report draws the whole reliability curve: for a few groups
    (not :func:`bayesfair.report.groups.many_groups`) with labeled rows binned by score."""
    curve = comp.reliability
    return not (curve is None or curve.empty or many_groups(comp))
