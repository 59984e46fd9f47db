"""The score, not just the decision: AUC, xAUC and the rates along every threshold.

A calibration fit (``rbc``, ``bc``) holds, per draw, each group's map from score to
P(y = 1). Applied to the binned score summary of the assessed rows
(:mod:`bayesfair.data.summary`), the maps give each group's expected positives and
negatives in every score cell, and so its score distributions among positives and
among negatives: every threshold's confusion counts, the ROC curve, the AUC, xAUC and
the subgroup AUCs follow from the same draws, at O(cells) a draw whatever the rows.

**Each draw's cells** (:func:`_cell_blocks`). Per group and side of the fit's
threshold:

1. the unlabeled rows' expected positives under the draw's map (with the side's
   shift, ``rbc``), entry by entry of the binned summary;
2. moved run by run towards the labeled rows (:func:`_segment_rates`): the side's
   unlabeled rows are cut into :data:`SEGMENTS` runs of equal rows along the score
   (an entry is never split, so the rows beyond the clip are a run of their own), and
   each run's rate is drawn ``Beta(κ m + x, κ (1 − m) + n − x)``, ``m`` the map's rate
   over the run, ``x`` of the run's ``n`` labeled rows positive, κ =
   :data:`MAP_WEIGHT`: where the map is wrong and there are labels, the labels win
   (a beta map cannot follow 12% flipped labels to the lowest scores);
3. held to the draw's confusion counts (the posterior's ``cells``: its rates at the
   threshold, the robust model's strata drawn off the map included): under
   ``estimand="assessed"`` the side's unlabeled positives are *drawn*, each entry's
   binomial held to the draw's total (:func:`_drawn_positives`), as the truth's labels
   fall; under ``"expected"`` the side (labeled rows too, as the bootstrap weighs
   them) is scaled to it.

The labeled rows count with their labels. So the rates at the fit's threshold are
exactly the posterior's, and elsewhere the runs and the map shape how a side's
positives spread over its scores.

**Thresholds** fall between cells: a cell is at or above ``t`` when the mean score of
its rows is (the cells at the fit's threshold split exactly); so a threshold is read
to within one of 1,024 bins of the logit of the score (0.009 wide).

**Bands along thresholds** hold jointly: :func:`~bayesfair.stats.simultaneous_band`,
each threshold's equal-tailed interval at the one pointwise level at which the given
share of the draws lies inside all of them at once (Besag et al. 1995).

**Not available**: with groups known as a proxy's probabilities (the rows of unknown
group have no cells per group here), for ``bb``/``hbb`` (no map), and for a result
read from a file (the cells are the data's).
"""

from __future__ import annotations

import warnings
import weakref
from dataclasses import dataclass

import numpy as np
import pandas as pd
import xarray as xr

from bayesfair._internal.tree import get_group
from bayesfair._internal.validation import (
    check_epsilon,
    check_positive_int,
    check_probability,
    takes,
)
from bayesfair.exceptions import InvalidParameterError
from bayesfair.metrics.rates import COUNT_NAMES, get_metric, get_rate, rate_from_counts
from bayesfair.metrics.scores import (
    ScoreMetric,
    cell_auc,
    check_thresholds,
    counts_above,
    score_metric_draws,
)
from bayesfair.metrics.verdicts import decide, rate_evidence
from bayesfair.models.catalogue import models_with_map, named_models_with_map
from bayesfair.posterior import contrasts
from bayesfair.posterior.groups import group_sizes
from bayesfair.stats import hdi, prob_within, simultaneous_band

#: The columns of :func:`threshold_summary`, in order.
THRESHOLD_COLUMNS = [
    "threshold",
    "group",
    "reference",
    "rate",
    "rate_lower",
    "rate_upper",
    "reference_rate",
    "gap",
    "gap_lower",
    "gap_upper",
    "prob_within",
    "decision",
]
#: The tree group of a fit's rate draws (one variable per fitted rate).
RATES_GROUP = "rates"
# draws per block of the cells' computation: (block, groups, cells) arrays stay small
_BLOCK = 256
#: Runs of equal rows per group and side along the score, each with a positive rate of
#: its own around the map's (:func:`_segment_rates`).
SEGMENTS = 8
#: κ: the map's weight in a run's rate, as a prior sample size.
MAP_WEIGHT = 1.0
_SEED = 61
_FIX_ROUNDS = 100
_CELLS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_DRAWS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class ScoreCells:
    """The assessed rows of a fit in score cells, ordered from the lowest score up.

    Attributes
    ----------
    score : ndarray, shape (n_cells,)
        Mean score of each cell's rows (all groups; running maximum, so that it
        is sorted as the cells are).
    cell_side : ndarray of int, shape (n_cells,)
        Each cell's side of the fit's threshold (a cell is one bin on one side).
    threshold : float
        The fit's threshold.
    group_score, group_rows : ndarray, shape (n_groups, n_cells)
        Each group's sum of scores and rows per cell.
    labeled_pos, labeled_neg : ndarray, shape (n_groups, n_cells)
        The labeled rows' positives and negatives per cell.
    group, side, cell, count, log_s, log_1ms : ndarray, shape (n_entries,)
        The unlabeled rows' entries: group code, side of the fit's threshold, cell,
        rows, mean ``ln s`` and ``ln(1 − s)``.
    scale_all : bool
        Whether a side's labeled rows are scaled with its unlabeled ones
        (``estimand="expected"``).
    """

    score: np.ndarray
    cell_side: np.ndarray
    threshold: float
    group_score: np.ndarray
    group_rows: np.ndarray
    labeled_pos: np.ndarray
    labeled_neg: np.ndarray
    group: np.ndarray
    side: np.ndarray
    cell: np.ndarray
    count: np.ndarray
    log_s: np.ndarray
    log_1ms: np.ndarray
    scale_all: bool

    def cuts(self, thresholds) -> np.ndarray:
        """For each threshold the first cell at or above it: at the fit's threshold the
        first cell of its upper side (exact); elsewhere the first whose mean score is at
        least the threshold, less a relative 10⁻¹² (rows tied at a threshold have a mean
        that rounds either way)."""
        t = np.asarray(thresholds, dtype=float)
        out = np.searchsorted(self.score, t * (1.0 - 1e-12), side="left")
        upper = np.flatnonzero(self.cell_side == 1)
        exact = upper[0] if upper.size else self.score.size
        return np.where(t == self.threshold, exact, out)


def _check_result(result) -> None:
    if result.model not in models_with_map():
        raise InvalidParameterError(
            f"Scores along the thresholds need a calibration map per group; model "
            f"'{result.model}' has none. Fit {named_models_with_map()}, or use "
            "bayesfair.frequentist.auc_difference on the labeled rows."
        )
    if result.data is None:
        raise InvalidParameterError(
            "Scores along the thresholds read the fit's data, which a result read from a "
            "file does not hold: fit again from the data."
        )
    if result.data.proxy is not None:
        raise InvalidParameterError(
            "Scores along the thresholds are not available for a fit with groups known as "
            "a proxy's probabilities: its rows of unknown group have no score cells per "
            "group. The rates at the fit's threshold (res.summary) are."
        )


@takes("FairnessPosterior")
def score_cells(result) -> ScoreCells:
    """The fit's assessed rows in ordered score cells (computed once per result).

    Parameters
    ----------
    result : FairnessPosterior
        A calibration fit (``rbc``, ``bc``) of data without a proxy, with its data.
    """
    _check_result(result)
    if result not in _CELLS:
        _CELLS[result] = _build_cells(result)
    return _CELLS[result]


def _build_cells(result) -> ScoreCells:
    data, settings = result.data, result.settings
    clip, n_bins = settings["score_clip"], settings["n_bins"]
    labeled = data.labeled_summary(clip, n_bins)
    unlabeled = data.unlabeled_reduction(clip, n_bins)
    k = data.n_groups
    scale_all = result.estimand == "expected"
    known = np.ones(k)  # 1 where a group's labeled rows count with their labels
    lacking = np.bincount(unlabeled.group, weights=unlabeled.count, minlength=k) == 0
    if scale_all and lacking.any():
        # as the fit reads them (fitting._groups_without_unlabeled): the labeled scores of a
        # group without unlabeled rows are its sample, read through the map
        own = labeled.without_labels().with_counts(
            np.where(lacking[labeled.group], labeled.count, 0)
        )
        unlabeled = (unlabeled + own).with_levels(unlabeled.levels)
        known = np.where(lacking, 0.0, 1.0)
    # a cell is one bin on one side: bin · 2 + side orders the cells by score
    key_l = labeled.bin * 2 + labeled.side
    key_u = unlabeled.bin * 2 + unlabeled.side
    keys, inverse = np.unique(np.concatenate([key_l, key_u]), return_inverse=True)
    rows = np.bincount(inverse, weights=np.concatenate([labeled.count, unlabeled.count]))
    sums = np.bincount(inverse, weights=np.concatenate([labeled.sum_score, unlabeled.sum_score]))
    cell_l, cell_u = inverse[: key_l.size], inverse[key_l.size :]
    n_cells = keys.size

    def per_group(codes, cells, weights):
        out = np.zeros((k, n_cells))
        np.add.at(out, (codes, cells), weights)
        return out

    # a group's labeled rows read through the map are among its entries already
    group_rows = per_group(labeled.group, cell_l, labeled.count) * known[:, None]
    group_rows += per_group(unlabeled.group, cell_u, unlabeled.count)
    group_score = per_group(labeled.group, cell_l, labeled.sum_score) * known[:, None]
    group_score += per_group(unlabeled.group, cell_u, unlabeled.sum_score)
    positives = labeled.positives
    return ScoreCells(
        score=np.maximum.accumulate(sums / np.maximum(rows, 1e-300)),
        cell_side=keys % 2,
        threshold=float(settings["threshold"]),
        group_score=group_score,
        group_rows=group_rows,
        labeled_pos=per_group(labeled.group, cell_l, positives) * known[:, None],
        labeled_neg=per_group(labeled.group, cell_l, labeled.count - positives) * known[:, None],
        group=unlabeled.group.astype(np.intp),
        side=unlabeled.side.astype(np.intp),
        cell=cell_u,
        count=unlabeled.count.astype(float),
        log_s=unlabeled.mean_log_s,
        log_1ms=unlabeled.mean_log_1ms,
        scale_all=scale_all,
    )


def _map_draws(result) -> tuple:
    """The maps' draws, chains stacked: ``a, b, c`` (S, K), the shifts (S, K, 2) or None,
    and the confusion counts (S, K, 4)."""
    post = get_group(result.idata, "posterior")

    def flat(name, dims):
        values = post[name].transpose("chain", "draw", *dims).values
        return values.reshape(-1, *values.shape[2:])

    a, b, c = (flat(v, ("group",)) for v in ("a", "b", "c"))
    shift = flat("shift", ("group", "side")) if "shift" in post else None
    return a, b, c, shift, flat("cells", ("group", "cell"))


def _side(cells: ScoreCells, map_draws, g: int, h: int, block: slice, rng):
    """One group's and side's positives and negatives per cell: ``(cells, pos, neg)``."""
    a, b, c, shift, counts = map_draws
    mine = np.flatnonzero((cells.group == g) & (cells.side == h))
    intercept = c[block, g] + (0.0 if shift is None else shift[block, g, h])
    eta = np.multiply.outer(a[block, g], cells.log_s[mine])
    eta -= np.multiply.outer(b[block, g], cells.log_1ms[mine])
    eta += intercept[:, None]
    up = (0.5 + 0.5 * np.tanh(0.5 * eta)) * cells.count[mine]
    up = _segment_rates(cells, g, h, mine, up, rng)
    un = cells.count[mine] - up
    target = counts[block, g]
    tp, fp, tn, fn = (COUNT_NAMES.index(x) for x in ("tp", "fp", "tn", "fn"))
    want_pos, want_neg = (
        (target[:, tp], target[:, fp]) if h == 1 else (target[:, fn], target[:, tn])
    )
    on_side = cells.cell_side == h
    fixed_pos = cells.labeled_pos[g] * on_side
    fixed_neg = cells.labeled_neg[g] * on_side
    pos = np.zeros((up.shape[0], cells.score.size))
    neg = np.zeros_like(pos)
    if cells.scale_all:
        shape_pos = up.sum(axis=1) + fixed_pos.sum()
        shape_neg = un.sum(axis=1) + fixed_neg.sum()
        f_pos, f_neg = _ratio(want_pos, shape_pos), _ratio(want_neg, shape_neg)
        pos += fixed_pos * f_pos[:, None]
        neg += fixed_neg * f_neg[:, None]
        pos[:, cells.cell[mine]] += up * f_pos[:, None]
        neg[:, cells.cell[mine]] += un * f_neg[:, None]
        return pos, neg
    pos += fixed_pos
    neg += fixed_neg
    drawn = _drawn_positives(up, want_pos - fixed_pos.sum(), cells.count[mine], rng)
    pos[:, cells.cell[mine]] += drawn
    neg[:, cells.cell[mine]] += cells.count[mine] - drawn
    return pos, neg


def _drawn_positives(expected, total, count, rng) -> np.ndarray:
    """The side's unlabeled positives, drawn as its labels would fall: each entry's
    ``Binomial(rows, p)`` with ``p`` its expected share scaled to the draw's ``total``
    (an integer under ``"assessed"``), then the few positives by which their sum misses
    ``total`` added among the entries' negatives (weights ``(rows − x) p``) or taken from
    their positives (weights ``x (1 − p)``), so that the side keeps the draw's total and
    where each positive falls along the score varies from draw to draw as the truth's
    labels do."""
    target = np.rint(np.maximum(total, 0.0))
    weight = expected.sum(axis=1, keepdims=True)
    scale = np.where(weight > 0, target[:, None] / np.where(weight > 0, weight, 1.0), 0.0)
    p = np.clip(expected * scale / np.maximum(count, 1e-300), 0.0, 1.0)
    drawn = rng.binomial(np.broadcast_to(count.astype(np.int64), p.shape), p).astype(float)
    for _ in range(_FIX_ROUNDS):  # an entry filled (or emptied) by a step sends it on;
        # the totals fit the rows, so this ends in a few rounds
        miss = target - drawn.sum(axis=1)
        if not miss.any():
            break
        drawn = _fill(drawn, miss, count, p, rng)
    return drawn


def _fill(drawn, miss, count, p, rng) -> np.ndarray:
    """Add ``miss`` positives (or take ``−miss``) per draw among the entries with room,
    by the weights of :func:`_drawn_positives` (by room alone where those are all 0)."""
    for sign, space in ((1.0, count - drawn), (-1.0, drawn)):
        n = np.where(sign * miss > 0, np.abs(miss), 0).astype(np.int64)
        room = space * (p if sign > 0 else 1.0 - p)
        room = np.where(room.sum(axis=1, keepdims=True) > 0, room, space)
        w = room.sum(axis=1, keepdims=True)
        use = (n > 0) & (w[:, 0] > 0)
        if not use.any():
            continue
        pvals = np.where(use[:, None], room / np.where(w > 0, w, 1.0), 0.0)
        pvals[~use, 0] = 1.0
        step = rng.multinomial(np.where(use, n, 0), pvals).astype(float)
        drawn = np.clip(drawn + sign * step, 0.0, count)
    return drawn


def _segment_rates(cells: ScoreCells, g: int, h: int, mine, up, rng) -> np.ndarray:
    """The map's expected positives moved segment by segment towards the labeled rows.

    The side's unlabeled rows are cut into :data:`SEGMENTS` runs of equal rows along the
    score; in each, the positive rate is drawn ``Beta(κ m + x, κ (1 − m) + n − x)``:
    ``m`` the map's rate over the run's unlabeled rows at the draw, ``x`` of ``n``
    labeled rows of the run positive, κ = :data:`MAP_WEIGHT`. The map's shape holds
    within a run.
    """
    if mine.size == 0:
        return up
    order = np.argsort(cells.cell[mine], kind="stable")
    # an entry's run is where its rows start: an entry of many rows (the scores beyond the
    # clip share one end bin) is a run of its own, its rate its labels'
    ordered = cells.count[mine][order]
    start = (np.cumsum(ordered) - ordered) / ordered.sum()
    segment = np.empty(mine.size, dtype=np.intp)
    segment[order] = np.minimum((start * SEGMENTS).astype(np.intp), SEGMENTS - 1)
    # each labeled cell of the side joins the run of the nearest unlabeled cell at or below
    cell_order = cells.cell[mine][order]
    on_side = np.flatnonzero(
        (cells.cell_side == h) & (cells.labeled_pos[g] + cells.labeled_neg[g] > 0)
    )
    where = np.clip(np.searchsorted(cell_order, on_side, side="right") - 1, 0, mine.size - 1)
    labeled_segment = segment[order][where]
    x = np.bincount(labeled_segment, weights=cells.labeled_pos[g, on_side], minlength=SEGMENTS)
    n = x + np.bincount(labeled_segment, weights=cells.labeled_neg[g, on_side], minlength=SEGMENTS)
    rows = np.bincount(segment, weights=cells.count[mine], minlength=SEGMENTS)
    held = rows > 0
    expected = np.stack([np.bincount(segment, weights=u, minlength=SEGMENTS) for u in up])
    m = np.clip(expected[:, held] / rows[held], 1e-9, 1 - 1e-9)
    rate = np.full_like(expected, np.nan)
    rate[:, held] = rng.beta(MAP_WEIGHT * m + x[held], MAP_WEIGHT * (1 - m) + n[held] - x[held])
    # a run whose expected positives underflow to 0 (a steep map at a clipped end) gets
    # its drawn rate spread over its rows
    flat = expected <= 0
    factor = np.where(held & ~flat, rate * rows / np.where(flat, 1.0, expected), 0.0)
    spread = np.where(held & flat, rate, 0.0)
    moved = up * factor[:, segment] + cells.count[mine] * spread[:, segment]
    return np.minimum(moved, cells.count[mine])


def _ratio(num, den) -> np.ndarray:
    num, den = np.broadcast_arrays(np.asarray(num, dtype=float), np.asarray(den, dtype=float))
    return np.where(den > 0, np.maximum(num, 0.0) / np.where(den > 0, den, 1.0), 0.0)


def _cell_blocks(result, block: int = _BLOCK):
    """Each block of draws' positives and negatives per group and cell (module docstring).

    Parameters
    ----------
    result : FairnessPosterior
    block : int
        Draws per block.

    Yields
    ------
    slice, ndarray, ndarray
        The block's draws (chains stacked) and its positives and negatives, each of
        shape ``(draws in the block, n_groups, n_cells)``.
    """
    cells = score_cells(result)
    maps = _map_draws(result)
    n_draws, k = maps[0].shape
    rng = np.random.default_rng(_SEED)  # the same cells for every view of one result
    for start in range(0, n_draws, block):
        sl = slice(start, min(start + block, n_draws))
        pos = np.zeros((sl.stop - sl.start, k, cells.score.size))
        neg = np.zeros_like(pos)
        for g in range(k):
            for h in (0, 1):
                side_pos, side_neg = _side(cells, maps, g, h, sl, rng)
                pos[:, g] += side_pos
                neg[:, g] += side_neg
        yield sl, pos, neg


@takes("FairnessPosterior")
def group_draws(result, metric: str) -> xr.DataArray:
    """Posterior draws of a metric per group, ``(chain, draw, group)``: a fitted rate's
    (the result's ``rates`` group) or a score metric's (:func:`metric_draws`).

    Parameters
    ----------
    result : FairnessPosterior
    metric : str
        A rate or score metric (:func:`bayesfair.metrics.get_metric`).
    """
    found = get_metric(metric)
    if isinstance(found, ScoreMetric):
        return metric_draws(result, found.name)
    fitted = get_group(result.idata, RATES_GROUP)
    if found.name not in fitted:
        raise InvalidParameterError(
            f"The metric '{found.name}' was not fitted; fitted metrics: "
            f"{', '.join(result.metrics)}. Pass it in 'metrics' to bayesfair.fit."
        )
    return fitted[found.name]


def _shaped(result, values: np.ndarray, name: str) -> xr.DataArray:
    """``(S, K)`` draws as ``(chain, draw, group)``, like the rates."""
    template = get_group(result.idata, "posterior")["a"].transpose("chain", "draw", "group")
    return template.copy(data=values.reshape(template.shape)).rename(name)


@takes("FairnessPosterior")
def metric_draws(result, metric: str) -> xr.DataArray:
    """Posterior draws of a score metric per group, ``(chain, draw, group)`` (computed once).

    Parameters
    ----------
    result : FairnessPosterior
    metric : str
        A name of :data:`~bayesfair.metrics.scores.SCORE_METRICS` (``"auc"``, ...).
    """
    found = get_metric(metric)
    if not isinstance(found, ScoreMetric):
        raise InvalidParameterError(f"'{found.name}' is a rate: read it with result.rates.")
    cache = _DRAWS.setdefault(result, {})
    if found.name not in cache:
        parts = [score_metric_draws(found, pos, neg) for _, pos, neg in _cell_blocks(result)]
        cache[found.name] = _shaped(result, np.concatenate(parts), found.name)
    return cache[found.name]


@takes("FairnessPosterior")
def threshold_draws(result, metric: str, thresholds) -> np.ndarray:
    """Draws of a rate per group at each threshold, shape ``(S, n_groups, n_thresholds)``.

    Parameters
    ----------
    result : FairnessPosterior
    metric : str
        A rate of the catalogue.
    thresholds : array_like of float
    """
    rate = get_rate(metric)
    cuts = score_cells(result).cuts(thresholds)
    parts = []
    for _, pos, neg in _cell_blocks(result):
        with np.errstate(invalid="ignore", divide="ignore"):
            parts.append(rate_from_counts(counts_above(pos, neg, cuts), rate.name))
    return np.concatenate(parts)


def _band(draws, ci_prob: float) -> tuple:
    """Posterior mean and joint band of each column (:func:`bayesfair.stats.simultaneous_band`)."""
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a column undefined in every draw
        mean = np.nanmean(draws, axis=0)
    band = simultaneous_band(draws, ci_prob)
    return mean, np.asarray(band.lower), np.asarray(band.upper)


@takes("FairnessPosterior")
def threshold_summary(
    result,
    metric: str = "tpr",
    thresholds=None,
    ci_prob: float = 0.95,
    epsilon: float = 0.02,
    reference=None,
) -> pd.DataFrame:
    """A rate of every group along the thresholds, and its gap to the reference, with
    bands that hold jointly: each group's rate over the thresholds, and the gaps over the
    thresholds and the pairs together, so that the verdicts hold as a family.

    Parameters
    ----------
    result : FairnessPosterior
        A calibration fit (``rbc``, ``bc``) with its data (module docstring).
    metric : str, default "tpr"
        A rate of the catalogue.
    thresholds : array_like of float, optional
        In (0, 1); default 0.05, 0.10, ..., 0.95
        (:data:`~bayesfair.metrics.scores.DEFAULT_THRESHOLDS`).
    ci_prob : float, default 0.95
        Of the bands: each group's rate band holds at every threshold at once with this
        probability, and the gaps' bands at every threshold and pair at once.
    epsilon : float, default 0.02
        Half-width of the region of practical equivalence of the gap.
    reference : optional
        Default: the fit's reference group.

    Returns
    -------
    pandas.DataFrame
        One row per threshold and group other than the reference: ``threshold, group,
        reference, rate, rate_lower, rate_upper`` (the group's rate and its joint
        band), ``reference_rate``, ``gap, gap_lower, gap_upper`` (rate minus the
        reference's, the joint band), ``prob_within`` (P(|gap| < ε) at the threshold)
        and ``decision``: the HDI + ROPE rule on the joint band behind the verdict gate
        (:func:`bayesfair.metrics.verdicts.decide`, the labeled rows in the rate's
        denominator at that threshold), so that "practically fair" at several
        thresholds holds at all of them at once. ``attrs`` hold ``metric``,
        ``ci_prob``, ``epsilon`` and ``estimand``.
    """
    rate = get_rate(metric)
    t = check_thresholds(thresholds)
    ci_prob, epsilon = check_probability(ci_prob), check_epsilon(epsilon)
    draws = threshold_draws(result, rate.name, t)
    groups = result.groups
    gates = _threshold_gates(result, rate.name, t)
    bands = [_band(draws[:, i], ci_prob) for i in range(len(groups))]
    mean, lower, upper = (np.stack(part) for part in zip(*bands, strict=True))
    pairs = contrasts.pairs_for(result, None, reference)
    # one band for every pair's gap at every threshold: the verdicts hold as a family
    index = [(groups.index(g), groups.index(ref)) for g, ref in pairs]
    gaps = np.stack([draws[:, i] - draws[:, r] for i, r in index], axis=1)  # (S, pairs, T)
    family = _band(gaps.reshape(gaps.shape[0], -1), ci_prob)
    gap_means, gap_lowers, gap_uppers = (part.reshape(len(pairs), t.size) for part in family)
    rows = []
    for p, ((g, ref), (i, r)) in enumerate(zip(pairs, index, strict=True)):
        gap, gap_mean, gap_lower, gap_upper = gaps[:, p], gap_means[p], gap_lowers[p], gap_uppers[p]
        for j, threshold in enumerate(t):
            decision = decide(gap_lower[j], gap_upper[j], epsilon, [gates[g][j], gates[ref][j]])
            rows.append(
                {
                    "threshold": float(threshold),
                    "group": g,
                    "reference": ref,
                    "rate": mean[i, j],
                    "rate_lower": lower[i, j],
                    "rate_upper": upper[i, j],
                    "reference_rate": mean[r, j],
                    "gap": gap_mean[j],
                    "gap_lower": gap_lower[j],
                    "gap_upper": gap_upper[j],
                    "prob_within": prob_within(gap[:, j], epsilon),
                    "decision": decision,
                }
            )
    out = pd.DataFrame(rows, columns=THRESHOLD_COLUMNS)
    out.attrs.update(metric=rate.name, ci_prob=ci_prob, epsilon=epsilon, estimand=result.estimand)
    return out


def _threshold_gates(result, metric: str, thresholds) -> dict:
    """Each group's verdict-gate evidence at each threshold: its labeled rows in the rate's
    denominator there, and its rows assessed."""
    cells = score_cells(result)
    counts = counts_above(cells.labeled_pos, cells.labeled_neg, cells.cuts(thresholds))
    sizes = group_sizes(result)
    rows = sizes["n_labeled"] + sizes["n_unlabeled"]
    out = {}
    for i, g in enumerate(result.groups):
        n = int(rows.loc[g])
        out[g] = [rate_evidence(g, c, n, metric) for c in counts[i]]
    return out


@takes("FairnessPosterior")
def xauc(result, group=None, reference=None, ci_prob: float = 0.95) -> pd.DataFrame:
    """xAUC of a pair of groups, both ways (Kallus & Zhou 2019, Def. 1).

    xAUC(a, b) is the probability that a positive of group a outscores a negative of
    group b (ties ½), over the assessed rows by their true labels. A ranking that
    favours b puts b's negatives above a's positives: xAUC(a, b) < xAUC(b, a).

    Parameters
    ----------
    result : FairnessPosterior
        A calibration fit (``rbc``, ``bc``) with its data (module docstring).
    group, reference : optional
        As in :func:`bayesfair.posterior.contrasts.pair`.
    ci_prob : float, default 0.95
        Of the HDIs.

    Returns
    -------
    pandas.DataFrame
        Two rows, ``direction`` (``"<group> positives over <reference> negatives"`` and
        the reverse), ``positives``, ``negatives`` (the groups), ``mean``, ``lower``,
        ``upper``. ``attrs["disparity"]``: the first minus the second (mean, lower,
        upper), Kallus & Zhou's ΔxAUC; ``attrs["estimand"]``.
    """
    g, ref = contrasts.pair(result, group, reference)
    ci_prob = check_probability(ci_prob)
    i, r = result.groups.index(g), result.groups.index(ref)
    parts = [
        (cell_auc(pos[:, i], neg[:, r]), cell_auc(pos[:, r], neg[:, i]))
        for _, pos, neg in _cell_blocks(result)
    ]
    ways = [np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])]
    rows = []
    for (a, b), x in zip(((g, ref), (ref, g)), ways, strict=True):
        lo, hi = hdi(x, ci_prob)
        rows.append(
            {
                "direction": f"{a} positives over {b} negatives",
                "positives": a,
                "negatives": b,
                "mean": float(np.nanmean(x)),
                "lower": lo,
                "upper": hi,
            }
        )
    out = pd.DataFrame(rows)
    disparity = ways[0] - ways[1]
    lo, hi = hdi(disparity, ci_prob)
    out.attrs.update(
        disparity={"mean": float(np.nanmean(disparity)), "lower": lo, "upper": hi},
        estimand=result.estimand,
        ci_prob=ci_prob,
    )
    return out


@takes("FairnessPosterior")
def reliability_summary(result, n_bins: int = 10, ci_prob: float = 0.95) -> pd.DataFrame:
    """Each group's share of positives by score range: the calibration (reliability) curve.

    Parameters
    ----------
    result : FairnessPosterior
        A calibration fit (``rbc``, ``bc``) with its data (module docstring).
    n_bins : int, default 10
        Equal-width score ranges over [0, 1].
    ci_prob : float, default 0.95
        Of the bands, which hold jointly over a group's ranges.

    Returns
    -------
    pandas.DataFrame
        One row per group and range with rows: ``group``, ``score_lower``,
        ``score_upper``, ``rows``, ``mean_score`` (of the group's rows in the range),
        ``positive_rate`` (posterior mean share of positives among them), ``lower``,
        ``upper``. A calibrated score lies on the diagonal: ``positive_rate`` near
        ``mean_score``.
    """
    n_bins = check_positive_int(n_bins, "n_bins", minimum=2)
    ci_prob = check_probability(ci_prob)
    cells = score_cells(result)
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    which = np.clip(np.searchsorted(edges, cells.score, side="right") - 1, 0, n_bins - 1)
    member = np.eye(n_bins)[which]  # (cells, ranges)
    parts = []
    for _, pos, neg in _cell_blocks(result):
        with np.errstate(invalid="ignore", divide="ignore"):
            parts.append((pos @ member) / ((pos + neg) @ member))
    share = np.concatenate(parts)  # (S, K, ranges)
    rows_in = cells.group_rows @ member
    score_in = cells.group_score @ member
    out = []
    for i, g in enumerate(result.groups):
        held = rows_in[i] > 0
        mean, lower, upper = _band(share[:, i][:, held], ci_prob)
        for j, k in enumerate(np.flatnonzero(held)):
            out.append(
                {
                    "group": g,
                    "score_lower": edges[k],
                    "score_upper": edges[k + 1],
                    "rows": rows_in[i, k],
                    "mean_score": score_in[i, k] / rows_in[i, k],
                    "positive_rate": mean[j],
                    "lower": lower[j],
                    "upper": upper[j],
                }
            )
    frame = pd.DataFrame(out)
    frame.attrs.update(ci_prob=ci_prob, estimand=result.estimand)
    return frame
