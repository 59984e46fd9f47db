"""The figure of the many-group view: each group's gap to all rows, worst first."""

from __future__ import annotations

import numpy as np

from bayesfair.metrics.rates import get_rate

__all__ = ["plot_group_gaps", "plot_period_gaps"]


def gap_figure_size(n_groups: int) -> tuple[float, float]:
    """The size of :func:`plot_group_gaps`' figure: 0.32 inch a row, so that labels of 9
    points stay apart with many groups (at 100 dpi a 700-pixel-wide figure; 7-point
    labels in a 470-pixel figure were hard to read).

    Parameters
    ----------
    n_groups : int
        The rows (groups) of the figure.

    Returns
    -------
    tuple of float
        Width and height in inches.
    """
    return 7.0, 1.2 + 0.32 * n_groups


def plot_group_gaps(view, metric: str, model: str | None = None, epsilon: float = 0.02, ax=None):
    """A forest plot of the groups' gaps to all rows with their simultaneous band.

    Parameters
    ----------
    view : pandas.DataFrame
        :meth:`~bayesfair.posterior.FairnessPosterior.group_summary` (columns
        ``gap``, ``gap_lower``, ``gap_upper``, ``decision``), or a
        :class:`~bayesfair.report.compare.Comparison`'s ``group_view`` with ``model``
        naming the prefix of the columns (``"rbc"``, ``"bb"``, ``"freq"``).
    metric : str
        The metric whose rows are drawn.
    model : str, optional
        The column prefix in a comparison's ``group_view``; None for a
        ``group_summary`` table.
    epsilon : float, default 0.02
        The region of practical equivalence, drawn as a band around 0.
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        Groups sorted by their gap, the most adverse first (at the top):
        lowest first for a rate where higher is better, highest first for an
        error rate. Red: the band lies outside ±ε ("unfair"); green: inside.
    """
    name = get_rate(metric).name
    rows = view[view["metric"] == name]
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=gap_figure_size(len(rows)))
    col = (lambda c: c) if model is None else (lambda c: f"{model}_{c}")
    better = get_rate(name).higher_is_better
    rows = rows.sort_values(col("gap"), ascending=better is not False)
    y = np.arange(len(rows))[::-1]
    gap = rows[col("gap")].to_numpy(float)
    lo, hi = rows[col("gap_lower")].to_numpy(float), rows[col("gap_upper")].to_numpy(float)
    color = np.where(
        (hi < -epsilon) | (lo > epsilon),
        "#c0392b",
        np.where((lo >= -epsilon) & (hi <= epsilon), "#2e8b57", "#4d4d4d"),
    )
    ax.axvspan(-epsilon, epsilon, color="#d9d9d9", alpha=0.6, lw=0)
    ax.axvline(0.0, color="black", lw=0.8)
    ax.hlines(y, lo, hi, colors=color, lw=2)
    ax.scatter(gap, y, c=color, s=14, zorder=3)
    ax.set_yticks(y, [str(g) for g in rows["group"]], fontsize=9)
    ax.set_ylim(-1, len(rows))
    ax.set_xlabel(f"gap of {get_rate(name).label} to all rows (band: simultaneous)")
    return ax


def plot_period_gaps(table, metric: str, epsilon: float = 0.02, ax=None):
    """Each group's gap to the reference over the periods, with its band and drift marks.

    Parameters
    ----------
    table : pandas.DataFrame
        :meth:`~bayesfair.posterior.PeriodPosterior.period_summary` (columns
        ``metric, period, group, mean, lower, upper, drift``).
    metric : str
        The metric whose rows are drawn.
    epsilon : float, default 0.02
        The region of practical equivalence, drawn as a band around 0.
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        One line per group against the reference, periods in time order on the x
        axis (labelled as they are), the table's band as a shaded band; a period whose labels
        drifted (either group) is marked with a red triangle above its band.
    """
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(7.0, 3.2))
    name = get_rate(metric).name
    rows = table[table["metric"] == name]
    periods = list(dict.fromkeys(rows["period"]))
    x = np.arange(len(periods))
    ax.axhspan(-epsilon, epsilon, color="#d9d9d9", alpha=0.6, lw=0, label=f"±ε = {epsilon:g}")
    ax.axhline(0.0, color="black", lw=0.8)
    for group, part in rows.groupby("group", sort=False):
        part = part.set_index("period").reindex(periods)
        ref = part["reference"].dropna().iloc[0] if part["reference"].notna().any() else ""
        line = ax.plot(x, part["mean"], marker="o", ms=3, label=f"{group} − {ref}")[0]
        ax.fill_between(x, part["lower"], part["upper"], color=line.get_color(), alpha=0.2)
        drifted = part["drift"].fillna(False).to_numpy(bool)
        if drifted.any():
            top = part["upper"].to_numpy(float)[drifted]
            ax.scatter(x[drifted], top, marker="v", color="#c0392b", zorder=3, s=30)
    ax.set_xticks(x, [str(p) for p in periods], rotation=45, ha="right", fontsize=7)
    ax.set_ylabel(f"gap in {get_rate(name).label}")
    ax.legend(fontsize=7, frameon=False)
    return ax
