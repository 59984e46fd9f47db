"""Comparators for groups known as a proxy's probabilities: weighting, and bounds.

Two of the field's answers when most rows' group is a proxy's probabilities
(:mod:`bayesfair.data.proxy`), beside the latent-group posterior of
:mod:`bayesfair.models.proxy` and the labeled rows of self-reported group alone:

* :func:`proxy_weighted_difference` — **the probability-weighted estimator**: each
  row of unknown group counts in every group with weight ``P(g)`` (rows of known
  group with weight 1 in theirs). It *assumes* the proxy calibrated and the
  outcome independent of the true group given the proxy; otherwise it is biased
  by the covariance of the outcome and the true group given the proxy, and
  usually understates a disparity (Chen, Kallus, Mao, Svacha & Udell 2019,
  Thm. 3.1).
* :func:`proxy_bounds` — **the bounds without a linking assumption**: every
  assignment of the rows of unknown group to groups that respects the proxy's
  probabilities in each proxy cell (the partial identification of Kallus, Mao &
  Zhou 2022, §3), so it *assumes* only the proxy calibrated; widened for sampling.

Error rates (TPR, FPR, accuracy, ...) need labels: both use the labeled rows.
The selection rate needs none: both use every row.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bayesfair._internal.validation import (
    check_pair,
    check_positive_int,
    check_probability,
    check_random_state,
    takes,
)
from bayesfair.exceptions import InvalidParameterError
from bayesfair.frequentist.bootstrap import percentile_interval
from bayesfair.metrics.rates import get_rate, rate_fraction
from bayesfair.stats import Interval

__all__ = ["ProxyBounds", "ProxyEstimate", "proxy_bounds", "proxy_weighted_difference"]

#: What each comparator assumes, in words (summaries and reports print it).
ASSUMES = {
    "weighted": (
        "the proxy is calibrated and the outcome is independent of the true group "
        "given the proxy (biased otherwise, Chen et al. 2019)"
    ),
    "bounds": "only that the proxy is calibrated (no link between proxy and outcome)",
}


@dataclass(frozen=True)
class ProxyEstimate:
    """The probability-weighted gap with its bootstrap interval.

    Attributes
    ----------
    estimate : float
    interval : Interval
        Percentile interval of a Poisson bootstrap of the rows.
    draws : ndarray
    metric, group, reference
    assumes : str
    """

    estimate: float
    interval: Interval
    draws: np.ndarray = field(repr=False)
    metric: str = ""
    group: object = None
    reference: object = None
    assumes: str = ASSUMES["weighted"]


@dataclass(frozen=True)
class ProxyBounds:
    """The gap's range over every assignment the proxy allows, widened for sampling.

    Attributes
    ----------
    interval : Interval
        ``(lower, upper)``: the 5% quantile of the bootstrap's lower bounds and the
        95% quantile of its upper bounds at ``ci_prob = 0.95`` (each side one-sided at
        ``1 − (1 − ci_prob)``, so that the range covers each point of the identified
        set with at least ``ci_prob``; Imbens & Manski 2004).
    identified : tuple of float
        The bounds on the data as observed (the identified set's estimate).
    sharp : bool
        Whether the bounds are the sharp ones of the joint assignment (a rate whose
        denominator the assignment leaves fixed: selection rate, accuracy) or the
        outer ones of each group bounded on its own (TPR, FPR, ...).
    metric, group, reference
    assumes : str
    """

    interval: Interval
    identified: tuple
    sharp: bool
    metric: str = ""
    group: object = None
    reference: object = None
    assumes: str = ASSUMES["bounds"]


def _require_proxy(data) -> None:
    if getattr(data, "proxy", None) is None:
        raise InvalidParameterError(
            "The data hold no group probabilities: build them with "
            "AssessmentData.from_frames(..., group_probabilities={...})."
        )


def _label_free(metric: str) -> bool:
    """Whether the rate reads the decision only (the selection rate): then every row counts."""
    eye = np.eye(4)
    num, den = rate_fraction(eye, metric)
    return bool(num[0] == num[1] and num[2] == num[3] and den[0] == den[1] and den[2] == den[3])


def _cells(data, metric: str):
    """The rows a rate reads: known groups' counts and the unknown rows' entries.

    Returns
    -------
    known : ndarray, shape (K, 4)
        Confusion counts of the rows of known group (unlabeled ones as tp/tn by
        side for a rate that reads no label).
    entries : ProxySummary
        The entries of unknown group the rate reads.
    kind : ndarray of int, shape (n_entries,)
        Each entry's confusion cell (0 tp, 1 fp, 2 tn, 3 fn).
    """
    known = data.labeled_examples.confusion_counts().astype(float)
    labeled = data.proxy.labeled
    parts = [labeled.select(~labeled.known)]
    if _label_free(metric):
        if data.n_unlabeled:
            totals = data.unlabeled_examples.summary().totals()
            known = known + np.stack(
                [totals[:, 1], np.zeros(len(totals)), totals[:, 0], np.zeros(len(totals))], axis=1
            )
        unlabeled = data.proxy.unlabeled
        parts.append(unlabeled.select(~unlabeled.known))
    entries = parts[0] if len(parts) == 1 else parts[0] + parts[1]
    y = np.where(entries.label >= 0, entries.label, 0)  # unlabeled: side only matters
    kind = np.where(entries.side, np.where(y == 1, 0, 1), np.where(y == 1, 3, 2))
    return known, entries, kind


@takes("AssessmentData")
def proxy_weighted_difference(
    data,
    metric: str = "selection_rate",
    group=None,
    reference=None,
    *,
    ci_prob: float = 0.95,
    n_resamples: int = 2000,
    random_seed=None,
) -> ProxyEstimate:
    """The probability-weighted estimator of a gap, with a bootstrap interval.

    Each row of unknown group counts in group ``g`` with weight ``P(g)`` from the
    proxy, each row of self-reported group with weight 1 in its own (module
    docstring: what it assumes). The weights are linear in the probabilities, so
    the estimate is exact from the proxy summary's sums.

    Parameters
    ----------
    data : AssessmentData
        Built with ``group_probabilities``.
    metric : str, default "selection_rate"
    group, reference : optional
        The pair (default: the only non-reference group, and the data's reference).
    ci_prob : float, default 0.95
    n_resamples : int, default 2000
        Poisson bootstrap replicates (each row's weight Poisson(1); an entry of the
        summary, rows alike in score and proxy, resampled as Poisson(its rows)).
    random_seed : None, int or Generator

    Returns
    -------
    ProxyEstimate
        ``.estimate``, ``.interval``, ``.draws``, ``.assumes``.
    """
    _require_proxy(data)
    metric = get_rate(metric).name
    ci_prob = check_probability(ci_prob)
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    g, r = _pair(data, group, reference)
    rng = check_random_state(random_seed)
    known, entries, kind = _cells(data, metric)
    mean_p = entries.mean_p

    def gap(known_counts, entry_counts):
        counts = known_counts.copy()  # (..., K, 4)
        for c in range(4):
            mine = kind == c
            counts[..., c] += np.einsum("...e,ek->...k", entry_counts[..., mine], mean_p[mine])
        with np.errstate(invalid="ignore", divide="ignore"):
            num, den = rate_fraction(counts, metric)
            rate = num / den
        return rate[..., g] - rate[..., r]

    estimate = float(gap(known, entries.count))
    boot_known = rng.poisson(np.broadcast_to(known, (n_resamples, *known.shape))).astype(float)
    boot_entries = rng.poisson(np.broadcast_to(entries.count, (n_resamples, entries.n_entries)))
    draws = gap(boot_known, boot_entries.astype(float))
    draws.flags.writeable = False
    return ProxyEstimate(
        estimate=estimate,
        interval=percentile_interval(draws[np.isfinite(draws)], ci_prob),
        draws=draws,
        metric=metric,
        group=data.group_levels[g],
        reference=data.group_levels[r],
    )


def _pair(data, group, reference) -> tuple[int, int]:
    """The pair's positions in the data's groups (:func:`check_pair`)."""
    pair = check_pair(data.group_levels, data.reference, group, reference)
    return tuple(data.group_levels.index(x) for x in pair)


@takes("AssessmentData")
def proxy_bounds(
    data,
    metric: str = "selection_rate",
    group=None,
    reference=None,
    *,
    ci_prob: float = 0.95,
    n_resamples: int = 400,
    random_seed=None,
) -> ProxyBounds:
    """Bounds on a gap that assume no link between the proxy and the outcome.

    Within each proxy cell (rows whose probabilities round alike,
    :mod:`bayesfair.data.proxy`), the rows of unknown group may be assigned to the
    groups in any way that gives each group its probability mass in the cell (the
    proxy taken as calibrated); the rows of self-reported group stay in theirs.
    The bounds are the gap's smallest and largest values over those assignments
    (Kallus, Mao & Zhou 2022, §3, on the cells as the proxy's values). In each cell
    the extreme assignment is greedy: the rows in the rate's numerator go first to
    the group the bound favours.

    * A rate whose denominator is every row it reads (the selection rate, accuracy)
      has each group's denominator fixed by the assignment: the bounds are the
      sharp ones of the joint assignment (the numerator's rows to ``group`` first,
      to the other groups next, to ``reference`` last).
    * A rate whose denominator depends on the labels (TPR, FPR, ...) is bounded
      group by group: the gap's bounds are ``upper(group) − lower(reference)`` and
      ``lower(group) − upper(reference)``, outer (valid, possibly wider than sharp).

    Parameters
    ----------
    data : AssessmentData
        Built with ``group_probabilities``.
    metric : str, default "selection_rate"
    group, reference : optional
    ci_prob : float, default 0.95
        Each bound is widened one-sidedly for sampling: the lower bound is the
        ``1 − ci_prob`` quantile of a Poisson bootstrap's lower bounds, the upper the
        ``ci_prob`` quantile of its upper bounds (Imbens & Manski 2004).
    n_resamples : int, default 400
    random_seed : None, int or Generator

    Returns
    -------
    ProxyBounds
        ``.interval`` (widened), ``.identified`` (on the data as observed), ``.sharp``.
    """
    _require_proxy(data)
    metric = get_rate(metric).name
    ci_prob = check_probability(ci_prob)
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    g, r = _pair(data, group, reference)
    rng = check_random_state(random_seed)
    known, entries, kind = _cells(data, metric)
    counts, mass = _by_cell(entries, kind)
    num, den = (m.astype(bool) for m in rate_fraction(np.eye(4), metric))
    sharp = bool(den.all())
    bound = _joint_bounds if sharp else _outer_bounds
    identified = bound(known, counts, mass, g, r, num, den)
    boot_known = rng.poisson(np.broadcast_to(known, (n_resamples, *known.shape))).astype(float)
    boot_counts = rng.poisson(np.broadcast_to(counts, (n_resamples, *counts.shape))).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        scale = boot_counts.sum(axis=-1) / counts.sum(axis=-1)
    lows, highs = bound(boot_known, boot_counts, mass * scale[..., None], g, r, num, den)
    lower = float(np.nanquantile(lows, 1 - ci_prob))
    upper = float(np.nanquantile(highs, ci_prob))
    return ProxyBounds(
        interval=Interval(lower, upper, ci_prob=ci_prob, kind="proxy bounds"),
        identified=(float(identified[0]), float(identified[1])),
        sharp=sharp,
        metric=metric,
        group=data.group_levels[g],
        reference=data.group_levels[r],
    )


def _by_cell(entries, kind) -> tuple[np.ndarray, np.ndarray]:
    """Rows per (proxy cell, confusion cell), shape (C, 4), and each cell's group masses (C, K)."""
    if entries.n_entries == 0:
        return np.zeros((0, 4)), np.zeros((0, entries.n_groups))
    _, index = np.unique(entries.cell, axis=0, return_inverse=True)
    index = index.reshape(-1)
    n_cells = int(index.max()) + 1
    counts = np.zeros((n_cells, 4))
    np.add.at(counts, (index, kind), entries.count)
    mass = np.zeros((n_cells, entries.n_groups))
    np.add.at(mass, index, entries.sum_p)
    return counts, mass


def _ratio(num, den):
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def _joint_bounds(known, counts, mass, g, r, num, den):
    """Sharp bounds of a gap between rates whose denominators the assignment fixes."""
    n_num = counts[..., num].sum(axis=-1)  # (..., C)
    others = np.delete(mass, [g, r], axis=-1).sum(axis=-1)
    k_num = known[..., num].sum(axis=-1)  # (..., K)
    k_den = known[..., den].sum(axis=-1)
    den_g = k_den[..., g] + mass[..., g].sum(axis=-1)
    den_r = k_den[..., r] + mass[..., r].sum(axis=-1)

    def gap(first, last):
        to_first = np.minimum(mass[..., first], n_num)
        to_last = np.maximum(n_num - to_first - others, 0.0)
        x = {first: to_first.sum(axis=-1), last: to_last.sum(axis=-1)}
        rate_g = _ratio(k_num[..., g] + x[g], den_g)
        rate_r = _ratio(k_num[..., r] + x[r], den_r)
        return rate_g - rate_r

    return gap(r, g), gap(g, r)


def _outer_bounds(known, counts, mass, g, r, num, den):
    """Outer bounds of a gap: each group's rate bounded on its own."""
    n_num = counts[..., num & den].sum(axis=-1)
    n_den_only = counts[..., den & ~num].sum(axis=-1)
    n_neutral = counts[..., ~den].sum(axis=-1)
    k_num = known[..., num & den].sum(axis=-1)
    k_den = known[..., den].sum(axis=-1)

    def extreme(h, high: bool):
        m = mass[..., h]
        first, second = (n_num, n_neutral) if high else (n_den_only, n_neutral)
        a = np.minimum(m, first)
        b = np.minimum(m - a, second)
        rest = m - a - b
        x_num, x_den_only = (a, rest) if high else (rest, a)
        x_num, x_den_only = x_num.sum(axis=-1), x_den_only.sum(axis=-1)
        return _ratio(k_num[..., h] + x_num, k_den[..., h] + x_num + x_den_only)

    return extreme(g, False) - extreme(r, True), extreme(g, True) - extreme(r, False)
