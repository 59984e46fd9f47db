"""The sentences a comparison writes into its tables: one place for the words.

:func:`~bayesfair.compare` decides what to say (a method left empty, two intervals that
do not overlap, a calibration gap that is decided); this module says it. The reports
(:mod:`bayesfair.report.document`) render the sentences as they are.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bayesfair.metrics.rates import undefined_rate_message

#: What the proxy comparators assume, in words.
PROXY_ASSUMES = {
    "weighted": "the proxy calibrated and the outcome independent of the true group given it",
    "bounds": "only the proxy calibrated",
}

#: Why PPI++ is left out when the labeled examples are a summary.
PPI_NEEDS_ROWS = (
    "PPI++ is omitted: it needs the labeled examples as rows, and they were given as a summary."
)


def few_for_bootstrap(groups, minimum: int) -> str:
    """Why a pair has no bootstrap interval: ``groups`` have fewer than ``minimum`` labels.

    Parameters
    ----------
    groups : list
    minimum : int

    Returns
    -------
    str
    """
    return (
        f"No bootstrap interval: {' and '.join(map(str, groups))} has fewer than "
        f"{minimum} labeled examples in the rate's denominator, so its "
        "resamples take only a few values (Newcombe's interval stays valid)"
    )


def fixed_for_bootstrap(groups) -> str:
    """Why a pair has no bootstrap interval: ``groups`` resample to themselves.

    Parameters
    ----------
    groups : list

    Returns
    -------
    str
    """
    return (
        f"No bootstrap interval: {' and '.join(map(str, groups))} has a rate of 0 or 1 "
        "in its labeled examples, so its resamples never vary and the interval would "
        "treat that rate as known (Newcombe's interval stays valid)"
    )


def ppi_clipped(lower: float, upper: float) -> str:
    """PPI++'s normal interval ran past [−1, 1] and was clipped.

    Parameters
    ----------
    lower, upper : float
        The interval before clipping.

    Returns
    -------
    str
    """
    return (
        f"PPI++'s normal interval [{lower:.3f}, {upper:.3f}] runs past the range of a "
        "difference of rates (too few labeled examples for its normal approximation); "
        "it is clipped to [-1, 1]"
    )


def undefined_among_labels(rates: pd.DataFrame, metric: str, groups) -> list[str]:
    """The groups of a pair whose rate has no labeled example in its denominator.

    Parameters
    ----------
    rates : pandas.DataFrame
        Each group's labeled ``trials``.
    metric : str
    groups : tuple

    Returns
    -------
    list of str
        One sentence, or none.
    """
    empty = [g for g in groups if rates.loc[g, "trials"] == 0]
    if not empty:
        return []
    return [f"{undefined_rate_message(metric, empty)} (among the labeled examples)"]


def undefined_draws(undefined: list[str]) -> str:
    """The posteriors in which Δ is undefined in a share of draws (``"BB in 3.0% of its
    draws"`` each).

    Parameters
    ----------
    undefined : list of str

    Returns
    -------
    str
    """
    return (
        f"Δ is undefined ({', '.join(undefined)}: a group without an example in the "
        "rate's denominator there); the intervals are over the defined draws"
    )


def set_aside_note(words: list[str], selection: str) -> str:
    """The note of a pair whose methods (``words``, as a sentence names them) were left
    empty after active selection.

    Parameters
    ----------
    words : list of str
    selection : str

    Returns
    -------
    str
    """
    return (
        f"labels chosen actively (selection={selection!r}): {', '.join(words)} assume labels "
        "drawn at random and are left empty"
    )


def disagreement(pair: dict, intervals: list, calibrated, calibration: pd.DataFrame) -> str:
    """A sentence when two of a pair's intervals are disjoint, with the calibration check
    of its two groups; ``""`` otherwise.

    Parameters
    ----------
    pair : dict
        ``metric``, ``group``, ``reference``.
    intervals : list of tuple
        ``(name, lower, upper)`` of the methods compared, in order.
    calibrated : str or None
        The model with calibration maps among them.
    calibration : pandas.DataFrame
        The calibration check (empty without one).

    Returns
    -------
    str
    """
    intervals = [(n, lo, hi) for n, lo, hi in intervals if np.isfinite(lo) and np.isfinite(hi)]
    clash = [
        (a, b)
        for i, a in enumerate(intervals)
        for b in intervals[i + 1 :]
        if a[2] < b[1] or b[2] < a[1]
    ]
    if not clash:
        return ""
    (n1, l1, h1), (n2, l2, h2) = clash[0]
    what = (
        "the calibrated unlabeled scores and the labeled examples alone point to different gaps"
        if calibrated in (n1, n2)
        else "the two labeled-only methods point to different gaps"
    )
    check = ""
    if len(calibration):
        by_group = calibration.set_index(calibration["group"].astype(str))
        parts = []
        for g in (pair["group"], pair["reference"]):
            if str(g) in by_group.index:
                c = by_group.loc[str(g)]
                p_adj = c.get("p_adjusted", c["p_value"])  # the verdict's (Holm) p-value
                p = "" if pd.isna(p_adj) else f", adjusted p = {p_adj:.3f}"
                parts.append(f"{g} {c['verdict']}{p}")
        check = f" Calibration check: {'; '.join(parts)}."
    return (
        f"Δ {pair['metric']} ({pair['group']} − {pair['reference']}): {n1} [{l1:.3f}, {h1:.3f}] "
        f"and {n2} [{l2:.3f}, {h2:.3f}] do not overlap: {what}.{check}"
    )


def _points(values, digits: int) -> list[str]:
    return [f"{100 * v:.{digits}f}".replace("-", "−") for v in values]


def calibration_sentence(
    group, verdict: str, gap: float, lower: float, upper: float, *, ci_prob: float, epsilon: float
) -> str:
    """A group's calibration gap in plain words where its verdict is decided: which way the
    scores miss its positives and by how many points; ``""`` otherwise.

    Parameters
    ----------
    group : object
    verdict : str
    gap, lower, upper : float
        Mean score minus share of positives, and its interval.
    ci_prob : float
    epsilon : float

    Returns
    -------
    str
    """
    if verdict not in ("unfair", "practically fair") or not np.isfinite([gap, lower, upper]).all():
        return ""
    # whole points where the interval is wider than the region ±ε, else tenths: rounding
    # then never blurs where the interval lies against ±ε
    digits = 0 if upper - lower > 2 * epsilon else 1
    pct, whose = f"{ci_prob:.0%}", f"group {group}'s"
    if verdict == "unfair":
        # the interval lies on one side of 0: its distance from 0, in points
        way, sign = ("overstate", 1.0) if gap > 0 else ("understate", -1.0)
        size, a, b = _points((sign * gap, *sorted((sign * lower, sign * upper))), digits)
        return (
            f"The scores {way} {whose} positives by {size} points ({pct} interval {a} to {b} "
            "points)."
        )
    g, a, b = _points((gap, lower, upper), digits)
    return (
        f"The scores match {whose} positives to within {100 * epsilon:g} points (ε): off by "
        f"{g} points ({pct} interval {a} to {b} points)."
    )


def fixed_small_groups_note(names: str) -> str:
    """Why the between-group variance has no bootstrap interval: ``names`` resample to
    themselves and are smaller than another group.

    Parameters
    ----------
    names : str

    Returns
    -------
    str
    """
    return (
        f"no bootstrap interval of the variance: {names} has a rate of 0 or 1 in its "
        "labeled examples and fewer of them than another group; it resamples to itself, "
        "the corrections miss its sampling variance, and the intervals can overstate the "
        "spread (3 rows beside two groups of 50 at equal rates: they covered 0.62 of "
        "simulated truths with the small group all correct, 1.00 without)"
    )


def undefined_variance(undefined: list[str]) -> str:
    """The posteriors whose between-group variance is undefined in a share of draws.

    Parameters
    ----------
    undefined : list of str
        ``"BB in 3.0% of its draws"`` each.

    Returns
    -------
    str
    """
    return (
        f"The between-group variance is undefined ({', '.join(undefined)}: a group's rate is "
        "undefined there); its interval is over the defined draws"
    )
