"""The figures of the score beyond one threshold: ROC curves, a gap along the thresholds,
the reliability curves, each group with its band (:mod:`bayesfair.posterior.score_view`)."""

from __future__ import annotations

import pandas as pd

from bayesfair.exceptions import InvalidParameterError
from bayesfair.metrics.rates import get_rate
from bayesfair.report.plots import _axes

__all__ = ["plot_roc", "plot_score_reliability", "plot_threshold_gap"]


def _require(table, columns: set, what: str) -> None:
    if not isinstance(table, pd.DataFrame) or not columns <= set(table.columns):
        raise InvalidParameterError(
            f"The 'table' parameter must be the table of {what}. Got {type(table).__name__}."
        )


def plot_roc(tpr: pd.DataFrame, fpr: pd.DataFrame, ax=None):
    """ROC curves by group with the TPR's joint band along the thresholds.

    Parameters
    ----------
    tpr, fpr : pandas.DataFrame
        :meth:`~bayesfair.FairnessPosterior.threshold_summary` of ``"tpr"`` and of
        ``"fpr"`` on the same thresholds.
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        Per group its posterior mean FPR against TPR along the thresholds, the TPR's
        band shaded (the reference group's curve from the ``reference_rate`` columns,
        without a band); the diagonal is a score that ranks at random.
    """
    columns = {"threshold", "group", "reference", "rate", "rate_lower", "rate_upper"}
    _require(tpr, columns, "threshold_summary('tpr')")
    _require(fpr, columns, "threshold_summary('fpr')")
    ax = _axes(ax, figsize=(5.2, 4.8))
    ax.plot([0, 1], [0, 1], ":", color="0.5", lw=1)
    groups = list(dict.fromkeys(tpr["group"]))
    for i, g in enumerate(groups):
        t, f = tpr[tpr["group"] == g], fpr[fpr["group"] == g]
        x = f["rate"].to_numpy(float)
        ax.plot(x, t["rate"].to_numpy(float), "-", color=f"C{i % 10}", lw=1.5, label=str(g))
        ax.fill_between(x, t["rate_lower"], t["rate_upper"], color=f"C{i % 10}", alpha=0.2)
    ref = tpr[tpr["group"] == groups[0]]
    ref_x = fpr[fpr["group"] == groups[0]]["reference_rate"].to_numpy(float)
    ax.plot(
        ref_x,
        ref["reference_rate"],
        "--",
        color="0.25",
        lw=1.5,
        label=f"{ref['reference'].iloc[0]} (reference)",
    )
    ax.set(xlim=(0, 1), ylim=(0, 1), xlabel="false positive rate", ylabel="true positive rate")
    ax.legend(loc="lower right", fontsize=8, frameon=False)
    return ax


def plot_threshold_gap(table: pd.DataFrame, epsilon: float = 0.02, ax=None):
    """A rate's gap to the reference along the thresholds, with its joint band and ±ε.

    Parameters
    ----------
    table : pandas.DataFrame
        :meth:`~bayesfair.FairnessPosterior.threshold_summary`.
    epsilon : float, default 0.02
        The region of practical equivalence, shaded.
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
    """
    _require(table, {"threshold", "group", "gap", "gap_lower", "gap_upper"}, "threshold_summary")
    ax = _axes(ax, figsize=(6.4, 3.8))
    ax.axhspan(-epsilon, epsilon, color="0.85", zorder=0)
    ax.axhline(0.0, color="0.4", lw=0.8)
    for i, g in enumerate(dict.fromkeys(table["group"])):
        part = table[table["group"] == g]
        x = part["threshold"].to_numpy(float)
        ax.plot(x, part["gap"], "-o", ms=3, color=f"C{i % 10}", label=str(g))
        ax.fill_between(x, part["gap_lower"], part["gap_upper"], color=f"C{i % 10}", alpha=0.2)
    metric = table.attrs.get("metric")
    label = get_rate(metric).label if metric else "rate"
    reference = table["reference"].iloc[0] if "reference" in table and len(table) else ""
    ax.set(xlabel="threshold", ylabel=f"gap in {label} to {reference}", xlim=(0, 1))
    ax.legend(fontsize=8, frameon=False)
    return ax


def plot_score_reliability(table: pd.DataFrame, ax=None):
    """Each group's share of positives by score range against its mean score, with bands.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`bayesfair.posterior.score_view.reliability_summary`.
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        A calibrated score lies on the dotted diagonal; a group below it has scores that
        overstate its positives.
    """
    _require(
        table, {"group", "mean_score", "positive_rate", "lower", "upper"}, "reliability_summary"
    )
    ax = _axes(ax, figsize=(5.2, 4.8))
    ax.plot([0, 1], [0, 1], ":", color="0.5", lw=1)
    for i, g in enumerate(dict.fromkeys(table["group"])):
        part = table[table["group"] == g].sort_values("mean_score")
        x = part["mean_score"].to_numpy(float)
        ax.plot(x, part["positive_rate"], "-o", ms=3, color=f"C{i % 10}", label=str(g))
        ax.fill_between(x, part["lower"], part["upper"], color=f"C{i % 10}", alpha=0.2)
    ax.set(xlim=(0, 1), ylim=(0, 1), xlabel="mean score", ylabel="share of positives")
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    return ax
