"""Matplotlib figures of posteriors, intervals, calibration maps and experiments.

Every function draws on the ``ax`` it is given (or on new axes from
``matplotlib.pyplot`` when ``ax`` is ``None``), returns what it drew on, and
never calls ``show``. Matplotlib is imported inside the functions, so
``import bayesfair`` stays fast.

Figures follow Ji, Smyth & Steyvers 2020 (Fig. 2 calibration maps, Fig. 3
posterior of Δ and interval forest, Fig. 4 error curves) and Lum, Zhang &
Bower 2022 (Figs. 4–5 bootstrap distributions, Fig. 6 variance intervals).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bayesfair._internal.tree import get_group
from bayesfair._internal.validation import check_positive_int, check_probability, takes
from bayesfair.exceptions import InvalidParameterError
from bayesfair.frequentist.intervals import wilson_interval
from bayesfair.metrics.rates import get_rate
from bayesfair.models.calibration import calibrate
from bayesfair.models.catalogue import MODEL_SPECS, models_with_map, named_models_with_map
from bayesfair.posterior.score_bins import entry_bins
from bayesfair.report.estimates import estimates_by_pair

__all__ = [
    "plot_bootstrap_variance",
    "plot_calibration",
    "plot_difference",
    "plot_error_curves",
    "plot_forest",
    "plot_label_plan",
    "plot_metric_dendrogram",
    "plot_reliability",
    "plot_reliability_curves",
    "plot_variance_forest",
]

#: Colours of the methods, shared by every figure so a method looks the same everywhere.
COLORS = {
    "newcombe": "#4d4d4d",
    "bootstrap": "#8c6d31",
    "bernstein": "#7b4173",
    **{name: spec.color for name, spec in MODEL_SPECS.items()},
    "freq": "#4d4d4d",
    "uncorrected": "#9e9ac8",
    "corrected": "#e377c2",
    "double_corrected": "#bcbd22",
    "hbb_population": "#98df8a",
    "bayes": "#ff7f0e",
    "ppi": "#17becf",
}
_LABELS = {
    "newcombe": "Newcombe",
    "bootstrap": "bootstrap",
    "bernstein": "Bernstein",
    "uncorrected": "uncorrected",
    "corrected": "corrected",
    "double_corrected": "double-corrected",
    "freq": "frequency",
    "hbb_population": "HBB population",
    "bayes": "Bayes (rbc)",
    "ppi": "PPI++",
}


def _label(name: str) -> str:
    return _LABELS.get(name, name.upper())


def _color(name: str, i: int) -> str:
    """A method's colour: a model's from its ``ModelSpec``, the others' from :data:`COLORS`."""
    spec = MODEL_SPECS.get(name)
    return spec.color if spec is not None else COLORS.get(name, f"C{i % 10}")


def _axes(ax, figsize=(6.4, 4.0)):
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=figsize)
    return ax


# --------------------------------------------------------------------------- Δ posterior
def plot_difference(
    posteriors: dict,
    metric: str,
    group=None,
    reference=None,
    epsilon: float = 0.02,
    freq_estimate: float | None = None,
    ax=None,
    bins: int = 40,
):
    """Posterior densities of Δ = rate(group) − rate(reference), one per model.

    Parameters
    ----------
    posteriors : dict of str to FairnessPosterior
        Fitted results by model name (e.g. ``{"bb": ..., "bc": ...}``), overlaid.
    metric : str
        The rate.
    group, reference : optional
        The pair; defaults as in :meth:`FairnessPosterior.difference`.
    epsilon : float
        Half-width of the shaded region of practical equivalence ``[−ε, ε]``.
    freq_estimate : float, optional
        The frequency estimate of Δ, marked by a vertical dashed line.
    ax : matplotlib.axes.Axes, optional
    bins : int
        Histogram bins (shared by the models).

    Returns
    -------
    matplotlib.axes.Axes
        With one filled histogram per model, the ε band, and a text box giving
        P(|Δ| < ε) and P(Δ > 0) per model.

    References
    ----------
    Ji, Smyth & Steyvers 2020, Fig. 3 (top).
    """
    if not posteriors:
        raise InvalidParameterError(
            "The 'posteriors' parameter must hold at least one fitted model."
        )
    if isinstance(epsilon, bool) or not isinstance(epsilon, int | float) or not epsilon > 0:
        raise InvalidParameterError(
            f"The 'epsilon' parameter must be a positive number. Got {epsilon!r} instead."
        )
    rate = get_rate(metric)
    first = next(iter(posteriors.values()))
    g, ref = first.pair(group, reference)
    draws = {}
    for name, post in posteriors.items():
        d = np.asarray(post.difference(rate.name, g, ref).values, dtype=float).ravel()
        draws[name] = d[~np.isnan(d)]
    pooled = np.concatenate([d for d in draws.values() if d.size] or [np.zeros(1)])
    lo, hi = min(pooled.min(), -epsilon), max(pooled.max(), epsilon)
    if freq_estimate is not None and np.isfinite(freq_estimate):
        lo, hi = min(lo, freq_estimate), max(hi, freq_estimate)
    edges = np.linspace(lo, hi, bins + 1)

    ax = _axes(ax)
    ax.axvspan(-epsilon, epsilon, color="0.85", zorder=0, label=f"±ε = ±{epsilon:g}")
    lines = []
    for i, (name, d) in enumerate(draws.items()):
        color = _color(name, i)
        if d.size:
            ax.hist(
                d,
                bins=edges,
                density=True,
                histtype="stepfilled",
                alpha=0.45,
                color=color,
                edgecolor=color,
                label=_label(name),
            )
            p_fair = float(np.mean(np.abs(d) < epsilon))
            p_pos = float(np.mean(d > 0))
            lines.append(f"{_label(name)}: P(|Δ|<{epsilon:g}) = {p_fair:.2f}, P(Δ>0) = {p_pos:.2f}")
        else:
            lines.append(f"{_label(name)}: Δ undefined")
    if freq_estimate is not None and np.isfinite(freq_estimate):
        ax.axvline(
            freq_estimate,
            color="k",
            ls="--",
            lw=1.2,
            label=f"frequency estimate {freq_estimate:.3f}",
        )
    ax.text(
        0.02,
        0.97,
        "\n".join(lines),
        transform=ax.transAxes,
        va="top",
        ha="left",
        fontsize=8,
        bbox={"boxstyle": "round", "facecolor": "white", "alpha": 0.8, "edgecolor": "0.7"},
    )
    ax.set_title(f"Δ {rate.name}: {g} − {ref}")
    ax.set_xlabel(f"Δ = {rate.name}({g}) − {rate.name}({ref})")
    ax.set_ylabel("posterior density")
    _legend_above_the_bars(ax, loc="upper right", fontsize=8)
    return ax


def _legend_above_the_bars(ax, **legend_kwargs) -> None:
    """The legend (and any text box of the axes) in head room above the tallest bar.

    The y-axis grows until the boxes' lower edges clear every histogram's outline
    (a legend in a top corner covered the tallest bars).
    """
    from matplotlib.patches import Polygon

    legend = ax.legend(**legend_kwargs)
    bars = [p.get_xy()[:, 1].max() for p in ax.patches if isinstance(p, Polygon)]
    if not bars:
        return
    peak = max(bars)
    for _ in range(10):
        ax.figure.canvas.draw()
        to_data = ax.transData.inverted()
        lowest = min(
            to_data.transform(box.get_window_extent().corners())[:, 1].min()
            for box in [legend, *ax.texts]
        )
        if lowest > peak:
            return
        low, high = ax.get_ylim()
        ax.set_ylim(low, low + 1.25 * (high - low))


# --------------------------------------------------------------------------- forests
def _forest(ax, rows, methods, points, title, xlabel):
    """Draw intervals: ``rows`` labels, ``methods`` names, ``points[m] = (est, lo, hi)`` arrays."""
    n_rows, n_methods = len(rows), len(methods)
    step = 0.8 / max(n_methods, 1)
    for j, m in enumerate(methods):
        est, lo, hi = (np.asarray(a, dtype=float) for a in points[m])
        y = np.arange(n_rows) - 0.4 + step * (j + 0.5)
        color = _color(m, j)
        ax.hlines(y, lo, hi, color=color, lw=2, label=_label(m))
        ax.plot(est, y, "o", color=color, ms=4)
    ax.set_yticks(np.arange(n_rows), [str(r) for r in rows])
    ax.set_ylim(n_rows - 0.5, -0.5)  # first row on top
    ax.axvline(0.0, color="k", lw=0.8)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.legend(loc="best", fontsize=8)
    return ax


@takes("Comparison")
def plot_forest(comparison, metric: str | None = None, ax=None):
    """Intervals of Δ per group pair and method, side by side.

    One row per metric and (group, reference) pair; in each row the Newcombe,
    bootstrap-percentile and Bernstein intervals around the frequency
    estimate, and each Bayesian model's HDI around its posterior mean. The
    region of practical equivalence ``[−ε, ε]`` is shaded.

    Parameters
    ----------
    comparison : Comparison
        From :func:`bayesfair.compare`.
    metric : str, optional
        Show only this metric (default: all).
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes

    References
    ----------
    Ji, Smyth & Steyvers 2020, Fig. 3 (bottom).
    """
    pairs = comparison.pairs
    if metric is not None:
        name = get_rate(metric).name
        pairs = pairs[pairs["metric"] == name]
        if pairs.empty:
            raise InvalidParameterError(
                f"The metric '{name}' is not in the comparison; it has "
                f"{', '.join(dict.fromkeys(comparison.pairs['metric']))}."
            )
    models = list(comparison.settings["models"])
    methods = ["newcombe", "bootstrap", "bernstein", *models]
    table = estimates_by_pair(comparison.estimates)
    keys = list(zip(pairs["metric"], pairs["group"], pairs["reference"], strict=True))
    points = {}
    for m in methods:  # the frequentist intervals around the frequency estimate
        stat = {s: [table.get((*k, m), {}).get(s, np.nan) for k in keys] for s in _STATS}
        est = pairs["freq_estimate"].to_numpy() if m not in models else stat["estimate"]
        points[m] = (np.asarray(est, float), np.array(stat["lower"]), np.array(stat["upper"]))
    rows = [f"{r.metric}: {r.group} − {r.reference}" for r in pairs.itertuples()]
    ax = _axes(ax, figsize=(7.0, 1.0 + 0.9 * len(rows)))
    eps = comparison.settings["epsilon"]
    ax.axvspan(-eps, eps, color="0.9", zorder=0)
    pct = f"{comparison.settings['ci_prob']:.0%}"
    return _forest(
        ax,
        rows,
        methods,
        points,
        f"{pct} intervals of Δ (shaded: ±ε = ±{eps:g})",
        "Δ = rate(group) − rate(reference)",
    )


#: The statistics of the long table the forest of differences reads.
_STATS = ("estimate", "lower", "upper")


@takes("Comparison")
def plot_variance_forest(comparison, ax=None):
    """Between-group variance per metric: Lum et al.'s three estimators and each posterior.

    Rows are metrics; in each, the uncorrected, corrected and double-corrected
    estimates with their percentile-bootstrap intervals, and each Bayesian
    model's posterior mean and HDI of the between-group variance (and, for
    ``hbb``, of its population variance).

    Parameters
    ----------
    comparison : Comparison
        From :func:`bayesfair.compare` (its ``variance`` table and ``settings``).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default new axes sized to the number of metrics.

    Returns
    -------
    matplotlib.axes.Axes

    References
    ----------
    Lum, Zhang & Bower 2022, Fig. 6.
    """
    var = comparison.variance
    methods = ["uncorrected", "corrected", "double_corrected", *comparison.settings["models"]]
    methods += [
        f"{m}_population"
        for m in comparison.settings["models"]
        if f"{m}_population_mean" in var.columns  # a model with a population of group rates
    ]
    points = {}
    for m in methods:
        est = var[m] if m in ("uncorrected", "corrected", "double_corrected") else var[f"{m}_mean"]
        points[m] = (est, var[f"{m}_lower"], var[f"{m}_upper"])
    ax = _axes(ax, figsize=(7.0, 1.0 + 0.9 * len(var)))
    pct = f"{comparison.settings['ci_prob']:.0%}"
    return _forest(
        ax,
        list(var.index),
        methods,
        points,
        f"Between-group variance, {pct} intervals",
        "variance of the group rates",
    )


# --------------------------------------------------------------------------- calibration
@takes("FairnessPosterior")
def plot_calibration(posterior, data, n_bins: int = 5, ax=None, ci_prob: float = 0.95):
    """Per-group calibration maps f_g(s) of a ``bc`` fit, with the labeled data binned.

    Parameters
    ----------
    posterior : FairnessPosterior
        A fit with ``model="bc"``.
    data : AssessmentData
        The data it was fitted to (rows or summaries); its labeled examples are
        split per group into ``n_bins`` chunks of about equal size by score, and
        each chunk's mean score and fraction of positive labels is drawn as a
        point.
    n_bins : int
    ax : matplotlib.axes.Axes, optional
    ci_prob : float
        Probability of the pointwise equal-tailed band.

    Returns
    -------
    matplotlib.axes.Axes
        One posterior-mean line and one band per group, the empirical points,
        and the identity (perfect calibration) as a dotted line.

    References
    ----------
    Ji, Smyth & Steyvers 2020, Fig. 2 and Eq. 2.
    """
    if getattr(posterior, "model", None) not in models_with_map():
        raise InvalidParameterError(
            f"The 'posterior' parameter must be a fit of {named_models_with_map()} (calibration "
            f"maps). Got model={getattr(posterior, 'model', None)!r}."
        )
    n_bins = check_positive_int(n_bins, "n_bins")
    ci_prob = check_probability(ci_prob)
    clip = float(posterior.settings.get("score_clip", 0.01))
    grid = np.linspace(0.0, 1.0, 101)
    post = get_group(posterior.idata, "posterior")
    labeled = data.labeled_summary(clip)
    ax = _axes(ax, figsize=(5.0, 5.0))
    ax.plot([0, 1], [0, 1], ":", color="0.5", lw=1, label="perfect calibration")
    q = [(1 - ci_prob) / 2, (1 + ci_prob) / 2]
    for i, g in enumerate(posterior.groups):
        a, b, c = (post[v].sel(group=g).values.reshape(-1) for v in ("a", "b", "c"))
        f = calibrate(grid[:, None], a[None, :], b[None, :], c[None, :], score_clip=clip)
        color = f"C{i % 10}"
        lower, upper = np.quantile(f, q, axis=1)
        ax.fill_between(grid, lower, upper, color=color, alpha=0.25, lw=0)
        ax.plot(grid, f.mean(axis=1), color=color, lw=2, label=f"{g} (posterior mean)")
        xs, ys = _equal_count_points(
            labeled, data.group_levels.index(data.resolve_group(g)), n_bins
        )
        if xs.size:
            ax.scatter(xs, ys, color=color, edgecolor="k", zorder=3, label=f"{g} labeled (binned)")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_title(f"Calibration per group ({posterior.model.upper()} posterior, {ci_prob:.0%} band)")
    ax.set_xlabel("score s")
    ax.set_ylabel("P(y = 1 | s, group)")
    # outside the axes, to the right: inside, it could hide the binned frequencies
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=8, frameon=False)
    return ax


def _equal_count_points(labeled, code: int, n_bins: int):
    """Mean score and fraction of positives of ``n_bins`` about equal-count chunks of
    one group's labeled examples, ordered by score, from the labeled summary.

    The summary's entries (side, logit bin) are in score order; an entry is not
    split, so chunks hold whole entries (equal in count up to one entry's size).
    """
    keep = labeled.group == code
    order = np.lexsort((labeled.side[keep], labeled.bin[keep]))
    count = labeled.count[keep][order]
    n = count.sum()
    if n == 0:
        return np.empty(0), np.empty(0)
    chunks = min(n_bins, round(n), count.size)
    cut = np.minimum((np.cumsum(count) - count / 2) * chunks // n, chunks - 1).astype(np.intp)
    m = np.bincount(cut, weights=count, minlength=chunks)
    used = m > 0
    xs = np.bincount(cut, weights=labeled.sum_score[keep][order], minlength=chunks)
    ys = np.bincount(cut, weights=labeled.positives[keep][order], minlength=chunks)
    return xs[used] / m[used], ys[used] / m[used]


def _bin_counts(ax, placed) -> float:
    """Each bin's count as a label in a strip under the panel's data (below y = 0),
    under its point; returns the strip's lower edge (the y-axis limit it needs).

    Labels beside their points overlapped where bins crowd (scores near 0 or 1),
    and labels among the data hid points. Here each goes in the highest row of
    the strip where it clears the row's previous label by its own width (an
    estimate: 0.6 em per digit at 7 pt), so that none overlap."""
    fig_width = ax.figure.get_size_inches()[0] * ax.get_position().width  # inches
    char = 0.6 * 7 / 72 / fig_width  # one digit at 7 pt, in axes fraction (= data: x in [0, 1])
    ends: list[float] = []  # per row, where its last label ends
    for x, text in sorted(placed):
        half = 0.5 * char * (len(text) + 1)
        row = next((r for r, end in enumerate(ends) if x - half > end), len(ends))
        if row == len(ends):
            ends.append(-1.0)
        ends[row] = x + half
        y = -_COUNT_TOP - _COUNT_ROW * row
        ax.text(x, y, text, fontsize=7, ha="center", va="center", color="0.3", gid="bin-count")
    return -_COUNT_TOP - _COUNT_ROW * max(len(ends) - 1, 0) - 0.05


#: The count strip of :func:`plot_reliability`: its first row's centre below y = 0, and
#: the height of a row, in the panel's y units.
_COUNT_TOP = 0.07
_COUNT_ROW = 0.065


@takes("FairnessPosterior")
def plot_reliability(posterior, axes=None, ci_prob: float = 0.95, check=None):
    """Reliability diagram per group: the calibration map against its labeled examples.

    One panel per group: the posterior band and mean of the group's
    beta-calibration map, the labeled examples binned as the earlier
    calibration check binned them (:func:`bayesfair.posterior.score_bins.entry_bins`: split at
    the threshold, then by score) drawn at their mean score and fraction of positives with a
    binomial 95% Wilson interval and their count (in a strip below y = 0, under
    each point, in rows so that no two overlap), and the check's verdict and
    step-down (Holm) adjusted p-value in the title (for ``rbc`` also the posterior
    probability that each side of the threshold is off the map). Points far outside the band are
    what a ``"misfit"`` verdict means.

    Parameters
    ----------
    posterior : FairnessPosterior
        A fit with ``model="rbc"`` or ``"bc"``.
    axes : sequence of matplotlib.axes.Axes, optional
        One per group (default: a new row of panels).
    ci_prob : float
        Probability of the pointwise band.
    check : pandas.DataFrame, optional
        The result of ``posterior.calibration_check()`` (computed when omitted).

    Returns
    -------
    list of matplotlib.axes.Axes
    """
    if getattr(posterior, "model", None) not in models_with_map():
        raise InvalidParameterError(
            f"The 'posterior' parameter must be a fit of {named_models_with_map()} (calibration "
            f"maps). Got model={getattr(posterior, 'model', None)!r}."
        )
    ci_prob = check_probability(ci_prob)
    if check is None:
        check = posterior.calibration_check(warn=False)
    groups = posterior.groups
    if axes is None:
        import matplotlib.pyplot as plt

        _, axes = plt.subplots(1, len(groups), figsize=(3.6 * len(groups), 3.6), squeeze=False)
        axes = list(axes[0])
    axes = list(np.ravel(axes))
    if len(axes) != len(groups):
        raise InvalidParameterError(
            f"'axes' must hold one Axes per group ({len(groups)}). Got {len(axes)}."
        )
    cells = posterior.labeled_cells()
    clip = float(posterior.settings.get("score_clip", 0.01))
    threshold = float(posterior.settings.get("threshold", 0.5))
    post = get_group(posterior.idata, "posterior")
    grid = np.linspace(0.0, 1.0, 101)
    q = [(1 - ci_prob) / 2, (1 + ci_prob) / 2]
    by_group = check.set_index(check["group"].astype(str))
    for code, (g, ax) in enumerate(zip(groups, axes, strict=True)):
        a, b, c = (post[v].sel(group=g).values.reshape(-1) for v in ("a", "b", "c"))
        keep = np.linspace(0, a.size - 1, min(a.size, 1000)).astype(int)
        f = calibrate(grid[:, None], a[None, keep], b[None, keep], c[None, keep], score_clip=clip)
        lower, upper = np.quantile(f, q, axis=1)
        ax.fill_between(grid, lower, upper, color="C0", alpha=0.25, lw=0, label="map band")
        ax.plot(grid, f.mean(axis=1), color="C0", lw=2, label="map (posterior mean)")
        ax.plot([0, 1], [0, 1], ":", color="0.5", lw=1)
        ax.axvline(threshold, color="0.7", lw=0.8)
        mask = cells.group == code if cells is not None else np.zeros(0, dtype=bool)
        if mask.any():  # the check's bins: groups of consecutive summary cells
            count, pos, total = cells.count[mask], cells.positives[mask], cells.sum_score[mask]
            bins, n_bins = entry_bins(cells.side[mask], count, 5, 10)
            placed = []
            for j in range(n_bins):
                inside = bins == j
                n, k = round(count[inside].sum()), round(pos[inside].sum())
                lo, hi = wilson_interval(k, n)
                x, p = float(total[inside].sum() / n), k / n
                ax.errorbar(x, p, yerr=[[p - lo], [hi - p]], fmt="o", color="k", ms=4, lw=1)
                placed.append((x, f"{n}"))
            bottom = _bin_counts(ax, placed)
        else:
            bottom = -0.02
        row = by_group.loc[str(g)] if str(g) in by_group.index else None
        verdict = ""
        if row is not None:
            p_adj = row.get("p_adjusted", row["p_value"])  # the verdict's (Holm) p-value
            p = "" if pd.isna(p_adj) else f", adj. p = {p_adj:.3f}"
            verdict = f"\n{row['verdict']}{p}"
        if "p_misfit" in post:
            pm = post["p_misfit"].sel(group=g).mean(("chain", "draw")).values
            verdict += f"\nP(off map): ŷ=0 {pm[0]:.2f}, ŷ=1 {pm[1]:.2f}"
        ax.set_title(f"{g}{verdict}", fontsize=9)
        ax.set_xlim(0, 1)
        ax.set_ylim(bottom, 1.02)
        ax.set_yticks(np.linspace(0.0, 1.0, 6))  # none in the count strip below 0
        if bottom < -0.02:
            ax.axhline(-0.5 * _COUNT_TOP, color="0.85", lw=0.6)
            ax.text(
                -0.04,
                -_COUNT_TOP,
                "n",
                fontsize=7,
                ha="right",
                va="center",
                color="0.3",
                transform=ax.get_yaxis_transform(),
            )
        ax.set_xlabel("score s")
    axes[0].set_ylabel("P(y = 1 | s)")
    # below the axes, outside them: a legend inside could hide the binned frequencies
    axes[0].legend(loc="upper left", bbox_to_anchor=(0.0, -0.16), fontsize=7, ncol=2, frameon=False)
    return axes


def plot_reliability_curves(curve: pd.DataFrame, posterior=None, ax=None, ci_prob: float = 0.95):
    """Calibration within groups in one panel: each group's reliability curve, groups as colours.

    Parameters
    ----------
    curve : pandas.DataFrame
        :func:`bayesfair.frequentist.reliability_curve` (a
        :class:`~bayesfair.report.compare.Comparison`'s ``reliability``): per group and bin,
        ``mean_score``, ``positive_rate`` and its interval ``positive_rate_lower``,
        ``positive_rate_upper``.
    posterior : FairnessPosterior, optional
        A fit with ``model="rbc"`` or ``"bc"`` on the same data: each group's
        calibration map is drawn too, dashed in the group's colour, its posterior
        mean with a pointwise ``ci_prob`` band; for ``rbc`` the map with the
        group's intercept shift on each side of the threshold (two pieces), the map
        the group's unlabeled rows are read through. Other fits draw no map.
    ax : matplotlib.axes.Axes, optional
    ci_prob : float, default 0.95
        Probability of the maps' pointwise equal-tailed band (the curve's band is
        the table's interval).

    Returns
    -------
    matplotlib.axes.Axes
        Per group one line through its bins (mean score against share of
        positives), labelled with the group, with each bin's interval as an error
        bar; the identity (calibrated scores) as a dotted line.
        A group below the identity has scores that overstate its positives.
    """
    needed = {"group", "mean_score", "positive_rate", "positive_rate_lower", "positive_rate_upper"}
    if not isinstance(curve, pd.DataFrame) or not needed <= set(curve.columns):
        raise InvalidParameterError(
            "The 'curve' parameter must be the table of bayesfair.frequentist.reliability_curve "
            f"(a Comparison's 'reliability'). Got {type(curve).__name__}."
        )
    ci_prob = check_probability(ci_prob)
    if posterior is not None and getattr(posterior, "model", None) not in models_with_map():
        posterior = None  # no map to draw
    ax = _axes(ax, figsize=(5.6, 4.6))
    ax.plot([0, 1], [0, 1], ":", color="0.5", lw=1, label="calibrated (identity)", gid="identity")
    groups = list(dict.fromkeys(curve["group"]))
    codes = {} if posterior is None else {str(g): k for k, g in enumerate(posterior.groups)}
    for i, g in enumerate(groups):
        color = f"C{i % 10}"
        part = curve[curve["group"] == g].sort_values("mean_score")
        x = part["mean_score"].to_numpy(float)
        p = part["positive_rate"].to_numpy(float)
        bars = [p - part["positive_rate_lower"], part["positive_rate_upper"] - p]
        ax.errorbar(x, p, yerr=bars, fmt="none", ecolor=color, elinewidth=1, capsize=2)
        ax.plot(x, p, "o-", color=color, ms=4, lw=1.5, label=str(g))
        if str(g) in codes:
            for grid, mean, lo, hi in _group_map(posterior, codes[str(g)], ci_prob):
                ax.fill_between(grid, lo, hi, color=color, alpha=0.1, lw=0)
                ax.plot(grid, mean, "--", color=color, lw=1, gid="map")
    if codes:
        ax.plot([], [], "--", color="0.3", lw=1, label=f"{posterior.model.upper()} map")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_title("Calibration within groups", fontsize=10)
    ax.set_xlabel("mean score of the bin")
    ax.set_ylabel("share of positives")
    # below the axes: inside, the legend could hide a group's bins
    ax.legend(loc="upper left", bbox_to_anchor=(0.0, -0.14), fontsize=7, ncol=4, frameon=False)
    return ax


def _group_map(posterior, code: int, ci_prob: float) -> list[tuple]:
    """``(grid, mean, lower, upper)`` of a group's calibration map over its draws (at most
    1000): one piece, or for ``rbc`` one per side of the threshold, shifted there."""
    post = get_group(posterior.idata, "posterior")
    clip = float(posterior.settings.get("score_clip", 0.01))
    threshold = float(posterior.settings.get("threshold", 0.5))
    a, b, c = (post[v].isel(group=code).values.reshape(-1) for v in ("a", "b", "c"))
    keep = np.linspace(0, a.size - 1, min(a.size, 1000)).astype(int)
    a, b, c = a[keep], b[keep], c[keep]
    if "shift" in post:  # (chain, draw, group, side): side 0 below the threshold, 1 above
        shift = post["shift"].isel(group=code).transpose("chain", "draw", "side").values
        shift = shift.reshape(-1, shift.shape[-1])[keep]
        pieces = [
            (np.linspace(0.0, threshold, 60, endpoint=False), c + shift[:, 0]),
            (np.linspace(threshold, 1.0, 60), c + shift[:, 1]),
        ]
    else:
        pieces = [(np.linspace(0.0, 1.0, 101), c)]
    q = [(1 - ci_prob) / 2, (1 + ci_prob) / 2]
    out = []
    for grid, intercept in pieces:
        f = calibrate(grid[:, None], a[None, :], b[None, :], intercept[None, :], score_clip=clip)
        lower, upper = np.quantile(f, q, axis=1)
        out.append((grid, f.mean(axis=1), lower, upper))
    return out


# --------------------------------------------------------------------------- experiments
def plot_error_curves(frame: pd.DataFrame, ax=None, ci_prob: float = 0.95):
    """MAE of Δ and coverage of its intervals against the labeled-set size, per method.

    Parameters
    ----------
    frame : pandas.DataFrame
        Tidy rows with the columns ``n_labeled``, ``method``, ``abs_error`` and
        ``covered`` (as :func:`bayesfair.experiments.run_grid` returns).
    ax : sequence of two matplotlib.axes.Axes, optional
        Axes for the MAE and the coverage panel.
    ci_prob : float
        The nominal coverage, drawn as a dashed line.

    Returns
    -------
    tuple of two matplotlib.axes.Axes
        ``(mae_ax, coverage_ax)``, one line per method in each.

    References
    ----------
    Ji, Smyth & Steyvers 2020, Fig. 4.
    """
    if not isinstance(frame, pd.DataFrame):
        raise InvalidParameterError(
            f"The 'frame' parameter must be a DataFrame. Got {type(frame).__name__}."
        )
    missing = [c for c in ("n_labeled", "method", "abs_error", "covered") if c not in frame]
    if missing:
        raise InvalidParameterError(
            f"The 'frame' parameter lacks the column(s) {missing}. Columns: {list(frame.columns)}."
        )
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(1, 2, figsize=(10.0, 4.0))
    axes = list(np.ravel(ax))
    if len(axes) != 2:
        raise InvalidParameterError(f"The 'ax' parameter must hold two Axes. Got {len(axes)}.")
    mae_ax, cov_ax = axes
    summary = (
        frame.astype({"abs_error": float, "covered": float})
        .groupby(["method", "n_labeled"], sort=True)[["abs_error", "covered"]]
        .mean()
    )
    for i, method in enumerate(dict.fromkeys(frame["method"])):
        s = summary.loc[method]
        color = _color(method, i)
        mae_ax.plot(s.index, s["abs_error"], "o-", color=color, label=_label(method))
        cov_ax.plot(s.index, s["covered"], "o-", color=color, label=_label(method))
    cov_ax.axhline(ci_prob, color="k", ls="--", lw=1, label=f"nominal {ci_prob:.0%}")
    for a in (mae_ax, cov_ax):
        a.set_xscale("log")
        a.set_xlabel("labeled examples n_L")
        a.legend(fontsize=8)
    mae_ax.set_ylabel("mean absolute error of Δ")
    mae_ax.set_title("MAE vs n_L")
    cov_ax.set_ylabel("interval coverage")
    cov_ax.set_ylim(0, 1.02)
    cov_ax.set_title("Coverage vs n_L")
    return mae_ax, cov_ax


# --------------------------------------------------------------------------- bootstrap
def plot_bootstrap_variance(result, truth: float | None = None, ax=None, bins: int = 50):
    """Bootstrap distributions of the uncorrected, corrected and double-corrected variance.

    Parameters
    ----------
    result : VarianceBootstrapResult
        From :func:`bayesfair.frequentist.double_corrected_bootstrap`.
    truth : float, optional
        The true between-group variance, when known (simulations).
    ax : matplotlib.axes.Axes, optional
    bins : int
        Histogram bins, shared by the three estimators.

    Returns
    -------
    matplotlib.axes.Axes
        One histogram per estimator; its interval as two dotted vertical
        lines in its colour; the truth as a solid black line.

    References
    ----------
    Lum, Zhang & Bower 2022, Figs. 4–5.
    """
    keys = ("uncorrected", "corrected", "double_corrected")
    ests = {k: getattr(result, k) for k in keys}
    pooled = np.concatenate([np.asarray(e.draws, dtype=float) for e in ests.values()])
    pooled = pooled[np.isfinite(pooled)]
    edges = np.histogram_bin_edges(pooled, bins=bins) if pooled.size else bins
    ax = _axes(ax)
    for i, (k, est) in enumerate(ests.items()):
        color = _color(k, i)
        draws = np.asarray(est.draws, dtype=float)
        ax.hist(
            draws[np.isfinite(draws)],
            bins=edges,
            density=True,
            histtype="stepfilled",
            alpha=0.4,
            color=color,
            edgecolor=color,
            label=f"{_label(k)} [{est.interval[0]:.4f}, {est.interval[1]:.4f}]",
        )
        for x in est.interval:
            ax.axvline(x, color=color, ls=":", lw=1.5)
    if truth is not None:
        ax.axvline(truth, color="k", lw=1.5, label=f"truth {truth:.4f}")
    metric = getattr(result, "metric", None)
    pct = f"{result.ci_prob:.0%}"
    ax.set_title(
        f"Bootstrap distribution of the between-group variance"
        f"{f' ({metric})' if metric else ''}, {pct} intervals"
    )
    ax.set_xlabel("between-group variance")
    ax.set_ylabel("density")
    _legend_above_the_bars(ax, loc="upper right", fontsize=8)
    return ax


# --------------------------------------------------------------------------- label budgets
def plot_label_plan(
    plan: pd.DataFrame, axes=None, target_width: float | None = None, metric: str = ""
):
    """Width of Δ's interval and P(decision) against the number of labels.

    One line per method (colour) and strategy (solid: random, dashed: active),
    with the 10%–90% band of the width over the simulations; a method whose
    intervals are not valid after active selection is drawn dotted and
    labelled so. ``plan`` is :func:`bayesfair.plan_labels`' table (one pair;
    with several pairs, the first).

    Parameters
    ----------
    plan : pandas.DataFrame
        :func:`bayesfair.plan_labels`' table, with at least the columns
        ``strategy, method, budget, width_median, width_q10, width_q90,
        p_decision, valid`` (else :class:`~bayesfair.exceptions.InvalidParameterError`).
    axes : sequence of two matplotlib.axes.Axes, optional
        The width panel and the P(decision) panel; default a new figure of two.
    target_width : float, optional
        Drawn as a horizontal line on the width panel.
    metric : str, optional
        The rate planned, named in the figure's title with the pair.

    Returns
    -------
    numpy.ndarray of matplotlib.axes.Axes, shape (2,)
        The figure's title names the pair (and the rate).
    """
    need = {
        "strategy",
        "method",
        "budget",
        "width_median",
        "width_q10",
        "width_q90",
        "p_decision",
        "valid",
    }
    missing = need - set(plan.columns)
    if missing:
        raise InvalidParameterError(
            f"The 'plan' parameter must be plan_labels' table; columns {sorted(missing)} are "
            "missing."
        )
    if axes is None:
        import matplotlib.pyplot as plt

        _, axes = plt.subplots(1, 2, figsize=(10.0, 4.0), layout="constrained")
    axes = np.asarray(axes).ravel()
    if {"group", "reference"} <= set(plan.columns):
        first = plan.iloc[0]
        plan = plan[(plan["group"] == first["group"]) & (plan["reference"] == first["reference"])]
        rate = f"{get_rate(metric).label} of " if metric else ""
        pair = f"{first['group']} − {first['reference']}"
        axes[0].figure.suptitle(f"Labels for a decision: {rate}{pair}")
    for i, ((method, strategy), part) in enumerate(
        plan.groupby(["method", "strategy"], sort=False)
    ):
        part = part.sort_values("budget")
        valid = bool(part["valid"].all())
        style = "-" if strategy == "random" else ("--" if valid else ":")
        label = f"{_label(method)}, {strategy}" + ("" if valid else " (not valid)")
        color = _color(method, i)
        axes[0].plot(
            part["budget"], part["width_median"], style, color=color, label=label, marker="o", ms=3
        )
        if valid:
            axes[0].fill_between(
                part["budget"], part["width_q10"], part["width_q90"], color=color, alpha=0.12, lw=0
            )
        axes[1].plot(
            part["budget"], part["p_decision"], style, color=color, label=label, marker="o", ms=3
        )
    if target_width is not None:
        axes[0].axhline(target_width, color="0.5", lw=0.8)
    axes[0].set(
        xlabel="labels",
        ylabel="width of the interval of Δ",
        yscale="log",
        title="Predicted width (median, 10%–90%)",
    )
    axes[1].set(
        xlabel="labels",
        ylabel="P(decision)",
        ylim=(-0.02, 1.02),
        title="Probability of a ROPE decision",
    )
    axes[1].legend(fontsize="small", frameon=False)
    return axes


# --------------------------------------------------------------------------- metric clusters
def plot_metric_dendrogram(clusters: pd.DataFrame, ax=None):
    """The dendrogram of a metric-clusters table, cut at its most stable height.

    ``clusters`` is :meth:`~bayesfair.posterior.FairnessPosterior.metric_clusters`'s
    (or :func:`bayesfair.frequentist.metric_clusters`') table, whose ``attrs`` hold the
    linkage of the metrics that vary; leaves are metric names, representatives in bold.

    Parameters
    ----------
    clusters : pandas.DataFrame
        The metric-clusters table, with ``attrs`` ``linkage``, ``linkage_metrics``
        and ``cut``; a table without a linkage (fewer than two metrics vary)
        raises :class:`~bayesfair.exceptions.InvalidParameterError`.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default new axes sized to the number of metrics.

    Returns
    -------
    matplotlib.axes.Axes

    References
    ----------
    Majumder et al., *Fair Enough*, Fig. 1 and §3.4.5.
    """
    from scipy.cluster.hierarchy import dendrogram

    tree = np.asarray(clusters.attrs.get("linkage", []), dtype=float)
    names = list(clusters.attrs.get("linkage_metrics", []))
    if tree.size == 0:
        raise InvalidParameterError(
            "This table has no dendrogram: fewer than two of its metrics vary across draws."
        )
    ax = _axes(ax, figsize=(7.0, 0.8 + 0.28 * len(names)))
    cut = clusters.attrs["cut"]
    dendrogram(
        tree,
        labels=names,
        orientation="right",
        ax=ax,
        color_threshold=cut,
        above_threshold_color="#999999",
    )
    ax.axvline(cut, color="#444444", linestyle="--", linewidth=1)
    reps = set(clusters.loc[clusters["representative"], "metric"])
    for label in ax.get_yticklabels():
        label.set_fontsize(7)
        if label.get_text() in reps:
            label.set_fontweight("bold")
    ax.set_xlabel("1 − |Spearman ρ| (average linkage)")
    ax.set_xlim(0, 1)
    return ax
