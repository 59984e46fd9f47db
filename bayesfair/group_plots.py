"""The figure of the many-group view: each group's gap to all rows, worst first."""

from __future__ import annotations

import numpy as np

from bayesfair.metrics import get_rate

__all__ = ["plot_group_gaps"]


def plot_group_gaps(view, metric: str, model: str | None = None, epsilon: float = 0.02, ax=None):
    """A forest plot of the groups' gaps to all rows with their simultaneous band.

    Parameters
    ----------
    view : pandas.DataFrame
        :meth:`~bayesfair.posterior.FairnessPosterior.group_summary` (columns
        ``gap``, ``gap_lower``, ``gap_upper``, ``decision``), or a
        :class:`~bayesfair.compare.Comparison`'s ``group_view`` with ``model``
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
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(6.4, 1.0 + 0.22 * len(view)))
    name = get_rate(metric).name
    rows = view[view["metric"] == name]
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
    ax.set_yticks(y, [str(g) for g in rows["group"]], fontsize=7)
    ax.set_ylim(-1, len(rows))
    ax.set_xlabel(f"gap of {get_rate(name).label} to all rows (band: simultaneous)")
    return ax
