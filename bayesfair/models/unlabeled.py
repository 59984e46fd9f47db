"""Unlabeled scores at any scale: expected and sampled counts from the summary.

For a posterior draw of a group's calibration map ``f_g`` the unlabeled
examples contribute *expected* confusion counts (Ji et al. 2020, Eq. 1,
generalised from accuracy to every rate):

    E[TP] = Σ_{ŷ=1} f_g(s),  E[FP] = Σ_{ŷ=1} (1 − f_g(s)),
    E[FN] = Σ_{ŷ=0} f_g(s),  E[TN] = Σ_{ŷ=0} (1 − f_g(s)).

Summing ``f_g`` over all ``n_U`` scores for each of thousands of draws would
cost O(draws × n_U). Instead the scores arrive as their summary
(:class:`~bayesfair.data.summary.ScoreSummary`): per group, side of the threshold
and bin of a fine grid in logit(s), the count and the sums of ``log s`` and
``log(1 − s)``. Because the beta-calibration linear predictor
``η = c + a log s − b log(1 − s)`` is linear in those two features, the bin's
mean predictor is exact; the only approximation is ``Σ σ(η_j) ≈ n_b σ(η̄_b)``,
whose error per example is at most ``max|σ''| / 2 · Var_b(η) ≈ 0.048 Var_b(η)``.
With the default 1024 bins over ``logit(s) ∈ [logit ε, logit(1 − ε)]`` the
bin width is ≈ 0.009 logit units (ε = 0.01), so ``Var_b(η) ≲ max(a, b)² ·
7e-6`` and the error in any rate is far below 1e-4 (tested against the exact
O(n_U) sum in ``tests/models/test_unlabeled.py``). A draw then costs O(bins), not
O(n_U).
"""

from __future__ import annotations

import numpy as np

from bayesfair._internal.validation import check_array
from bayesfair.data.summary import DEFAULT_BINS, ScoreSummary, bin_index, summarize_arrays
from bayesfair.exceptions import InvalidParameterError

# sampled_counts: a group's and side's total of positives is drawn from its normal
# approximation where its variance is at least this, else bin by bin.
_NORMAL_MIN_VARIANCE = 25.0
# expected_counts: draws x bins elements per temporary array (512 kB, cache-sized).
_CHUNK_ELEMENTS = 1 << 16


def clip_scores(scores: np.ndarray, score_clip: float) -> np.ndarray:
    """Clip scores to ``[ε, 1 − ε]`` so that ``log s`` and ``log(1 − s)`` stay finite."""
    return np.clip(np.asarray(scores, dtype=float), score_clip, 1.0 - score_clip)


def reduce_unlabeled(
    scores,
    group_codes,
    n_groups: int,
    *,
    threshold: float = 0.5,
    score_clip: float = 0.01,
    n_bins: int = DEFAULT_BINS,
) -> ScoreSummary:
    """Unlabeled scores in memory as a :class:`~bayesfair.data.summary.ScoreSummary`.

    Parameters
    ----------
    scores : array_like, shape (n_U,)
        Unlabeled scores in [0, 1] (unclipped; the side of the threshold is
        decided on the raw score).
    group_codes : array_like of int, shape (n_U,)
        Group code of each score, in ``range(n_groups)`` (the levels are the codes).
    n_groups : int
        Number of groups.
    threshold, score_clip, n_bins
        The grid (:func:`bayesfair.data.summary.bin_rows`).

    Returns
    -------
    ScoreSummary
    """
    scores = check_array(scores, "scores")
    group_codes = check_array(group_codes, "group_codes", dtype=None)
    if n_bins < 1:
        raise InvalidParameterError(
            f"The 'n_bins' parameter must be a positive integer. Got {n_bins}."
        )
    return summarize_arrays(
        scores,
        group_codes,
        tuple(range(n_groups)),
        threshold=threshold,
        score_clip=score_clip,
        n_bins=n_bins,
    )


def cell_of_rows(scores, group_codes, summary: ScoreSummary) -> np.ndarray:
    """Each row's entry in ``summary`` (its position in the summary's arrays), shape (n,).

    The rows' bins on the summary's grid (:func:`bayesfair.data.summary.bin_rows`);
    ``summary`` must have been made from these rows, with codes as its groups.
    """
    n_bins = summary.n_bins
    side, b, _, _ = bin_index(
        np.asarray(scores, dtype=float), summary.threshold, summary.score_clip, n_bins
    )
    dense = (np.asarray(group_codes, dtype=np.intp) * 2 + side) * n_bins + b
    held = (summary.group * 2 + summary.side) * n_bins + summary.bin
    return np.searchsorted(held, dense)


def _counts_from_positives(summary: ScoreSummary, pos: np.ndarray, totals=None) -> np.ndarray:
    """Assemble (draws, groups, 4) counts from per-(group, side) positive totals.

    ``totals``: rows per group and side, ``(groups, 2)`` or per draw ``(draws, groups, 2)``
    (ŷ = 0, ŷ = 1); default the summary's.
    """
    totals = summary.totals() if totals is None else totals
    tp = pos[:, :, 1]
    fn = pos[:, :, 0]
    return np.stack([tp, totals[..., 1] - tp, totals[..., 0] - fn, fn], axis=-1)


def _validate_draws(a, b, c) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple]:
    a, b, c = (check_array(x, name) for x, name in ((a, "a"), (b, "b"), (c, "c")))
    lead = a.shape[:-1]
    k = a.shape[-1]
    return a.reshape(-1, k), b.reshape(-1, k), c.reshape(-1, k), lead


#: The weight, in rows, of all groups' pooled scores in each group's sample of scores
#: under the Bayesian bootstrap (:func:`bootstrap_entry_counts`): one row.
PRIOR_ROWS = 1.0

#: Prior rows per confusion cell of a group's labeled rows in its bootstrap
#: (:func:`bootstrap_entry_counts`): Jeffreys's Dirichlet(½).
LABELED_PRIOR = 0.5


def bootstrap_entry_counts(
    summary: ScoreSummary,
    group: int,
    n_draws: int,
    score_seed: int,
    labeled_counts=None,
    pooled=None,
):
    """A Bayesian bootstrap of one group's rows: per draw, the rows each entry stands for.

    The posterior of a group's score distribution ``G`` given its ``n`` rows, under a
    Dirichlet-process prior ``DP(α, G₀)`` (Ferguson 1973): ``DP(α + n, (α G₀ + Σ δ_sᵢ)
    / (α + n))``, whose weights on the rows and on ``G₀`` are ``Dirichlet(1, …, 1, α)``
    (Rubin 1981's Bayesian bootstrap as ``α → 0``). Summed over an entry's ``n_e``
    rows they are ``Dirichlet(n_e, …, α)`` over the entries and the prior (the
    Dirichlet's aggregation property), drawn as normalised ``Gamma`` variables and
    scaled to the group's rows, so that each draw's counts add up to the group's.
    The group's labeled rows, when given, are rows of the same sample, aggregated by
    confusion cell (their labels known: Ji et al.'s Eq. 1 counts them as they are),
    each cell with :data:`LABELED_PRIOR` = ½ row more, Jeffreys's Dirichlet(½): with
    30 labeled rows and 2 unlabeled ones in a group, the bootstrap alone covered its
    population's accuracy and FPR gaps in 0.86 and 0.84 of 100 simulated data sets
    (Wald-like intervals: Brown, Cai & DasGupta 2001, *Statist. Sci.* 16), with the
    half rows 0.90 and 0.88 (``tests/statistical/test_expected_estimand.py``).
    ``G₀`` is the pooled scores of all groups (:func:`pooled_entries`), with ``α`` =
    :data:`PRIOR_ROWS`, and the part of ``G`` drawn from it is itself a draw of
    ``DP(α, G₀)``: on the pooled entries, ``Dirichlet(α G₀(entry))`` weights, a few
    atoms. So where a group has a handful of rows its scores may still fall anywhere
    the other groups' do (three scores below the threshold do not make a
    true-positive rate of 0 certain); with hundreds of rows the prior's weight is
    negligible.

    Parameters
    ----------
    summary : ScoreSummary
        The rows whose labels are unknown.
    group : int
        The group's code.
    n_draws : int
    score_seed : int
        The same seed gives the same counts (both sides of a shifted map read them).
    labeled_counts : array_like, shape (4,), optional
        The group's labeled rows per confusion cell (``tp, fp, tn, fn``).
    pooled : tuple, optional
        :func:`pooled_entries` of ``summary`` (computed when not given).

    Returns
    -------
    entries : ndarray of int, shape (n_e,)
        The group's entries in ``summary``.
    counts : ndarray, shape (n_draws, n_e)
        The rows each entry stands for, per draw.
    prior : ndarray, shape (n_draws, n_pooled)
        The rows that stand for each pooled entry of ``G₀``, per draw.
    cells : ndarray, shape (n_draws, 4)
        The rows each labeled confusion cell stands for, per draw (0 without
        ``labeled_counts``).
    """
    entries = np.flatnonzero(summary.group == group)
    share = (pooled if pooled is not None else pooled_entries(summary))[3]
    cells_n = np.zeros(4) if labeled_counts is None else np.asarray(labeled_counts, float)
    rng = np.random.default_rng([score_seed, group])
    count = summary.count[entries]
    counts = rng.standard_gamma(count, size=(n_draws, entries.size))
    # DP(α, G₀) on the pooled entries: Dirichlet(α G₀(entry)) weights, a few atoms
    prior = rng.standard_gamma(PRIOR_ROWS * share, size=(n_draws, share.size))
    cells = rng.standard_gamma(cells_n + LABELED_PRIOR * (cells_n.sum() > 0), size=(n_draws, 4))
    total = counts.sum(axis=1) + prior.sum(axis=1) + cells.sum(axis=1)
    scale = (count.sum() + cells_n.sum()) / total
    counts *= scale[:, None]
    prior *= scale[:, None]
    cells *= scale[:, None]
    return entries, counts, prior, cells


#: Bins of the pooled scores ``G₀`` over the logit range (:func:`pooled_entries`):
#: coarser than the summary's, since ``G₀`` is a prior's centre, not an estimate.
_POOLED_BINS = 128


def pooled_entries(summary: ScoreSummary) -> tuple:
    """All groups' rows on a coarse grid (:data:`_POOLED_BINS` bins), per side.

    Returns
    -------
    side, mean_log_s, mean_log_1ms, share : ndarray, shape (n_pooled,)
        Each entry's side of the threshold, its mean ``ln s`` and ``ln(1 − s)``, and
        its share of the rows.
    """
    coarse = summary.bin * _POOLED_BINS // summary.n_bins
    key = summary.side.astype(np.intp) * _POOLED_BINS + coarse
    keys, inverse = np.unique(key, return_inverse=True)
    count = np.bincount(inverse, weights=summary.count)
    log_s = np.bincount(inverse, weights=summary.sum_log_s) / count
    log_1ms = np.bincount(inverse, weights=summary.sum_log_1ms) / count
    return keys // _POOLED_BINS, log_s, log_1ms, count / count.sum()


def _weighted_positives(a, b, c, log_s, log_1ms, weights) -> np.ndarray:
    """``Σ_e w_e σ(c + a ln s_e − b ln(1 − s_e))`` per draw of one group's map.

    ``a, b, c``: shape (n_draws,); ``weights``: shape (n_e,), or (n_draws, n_e) for
    weights that differ per draw. Computed in blocks of draws, in place, as the
    logistic function ``0.5 (1 + tanh(η / 2))`` (overflow-free).
    """
    out = np.empty(a.shape[0])
    step = max(1, _CHUNK_ELEMENTS // max(log_s.size, 1))
    for start in range(0, a.shape[0], step):
        sl = slice(start, start + step)
        half_eta = np.multiply.outer(a[sl], log_s)
        half_eta -= np.multiply.outer(b[sl], log_1ms)
        half_eta += c[sl, None]
        half_eta *= 0.5
        p = np.tanh(half_eta, out=half_eta)
        p *= 0.5
        p += 0.5
        out[sl] = p @ weights if weights.ndim == 1 else np.einsum("de,de->d", p, weights[sl])
    return out


def expected_counts(
    summary: ScoreSummary, a, b, c, score_seed: int | None = None, labeled_counts=None, shift=None
) -> np.ndarray:
    """Expected unlabeled confusion counts for each draw of the calibration maps.

    Parameters
    ----------
    summary : ScoreSummary
        The unlabeled rows (:mod:`bayesfair.data.summary`), coded to the maps' groups.
    a, b, c : array_like, shape (..., n_groups)
        Draws of the beta-calibration parameters per group.
    score_seed : int, optional
        None: the summary's rows are the groups' score distributions (Ji et al.'s
        Eq. 1). An int: the rows are a sample of them, and each draw weighs them by
        a Bayesian bootstrap (:func:`bootstrap_entry_counts`, seeded by it), so that
        the counts carry the uncertainty about each group's score distribution:
        with a handful of rows in a group, how its scores fall is itself uncertain.
        Each group's rows add up to the same total in every draw.
    labeled_counts : array_like, shape (n_groups, 4), optional
        With ``score_seed``: the groups' labeled rows per confusion cell, rows of the
        same samples (weighed with the unlabeled ones, their labels as they are). The
        result then holds every row of each group's sample, labeled and unlabeled.
    shift : array_like, shape (..., n_groups, 2), optional
        Per side, a shift of each group's intercept: the rows with ŷ = h are mapped
        with ``c + shift[..., h]`` (the strata's shifts, :mod:`bayesfair.models.shift`).
        Both sides weigh the same bootstrap draws.

    Returns
    -------
    ndarray, shape (..., n_groups, 4)
        Expected ``tp, fp, tn, fn`` of the unlabeled examples (and, with
        ``labeled_counts``, of the labeled ones) per draw and group.

    References
    ----------
    Ji, Smyth & Steyvers 2020, §2.3, Eq. (1), generalised to every rate.
    Rubin 1981, *The Bayesian bootstrap*, Ann. Statist. 9, 130–134.
    """
    a, b, c, lead = _validate_draws(a, b, c)
    if score_seed is None and labeled_counts is not None:
        raise InvalidParameterError(
            "'labeled_counts' joins the labeled rows to the Bayesian bootstrap's "
            "samples: give 'score_seed' with it."
        )
    k = summary.n_groups
    n = a.shape[0]
    pos = np.zeros((n, k, 2))
    totals = np.zeros((n, k, 2))
    cells = np.zeros((n, k, 4))
    side = summary.side.astype(np.intp)
    pooled = None if score_seed is None else pooled_entries(summary)
    side_c = _side_intercepts(c, shift)
    for g in range(k):
        if pooled is None:  # fixed weights: each entry's rows (Eq. 1)
            entries = np.flatnonzero(summary.group == g)
            drawn, prior = summary.count[entries], None
        else:
            own = None if labeled_counts is None else labeled_counts[g]
            entries, drawn, prior, cells[:, g] = bootstrap_entry_counts(
                summary, g, n, score_seed, own, pooled
            )
        for y_hat in (0, 1):
            c_h = side_c[:, g, y_hat]
            mine = side[entries] == y_hat
            if mine.any():
                weights = drawn[..., mine]
                pos[:, g, y_hat] = _weighted_positives(
                    a[:, g], b[:, g], c_h, *_entry_logs(summary, entries[mine]), weights
                )
                totals[:, g, y_hat] = weights.sum(axis=-1)
            if prior is None:
                continue
            pooled_side, pooled_log_s, pooled_log_1ms, _ = pooled
            on = pooled_side == y_hat
            if on.any():  # the rows drawn from G₀ on this side, at the group's map
                pos[:, g, y_hat] += _weighted_positives(
                    a[:, g], b[:, g], c_h, pooled_log_s[on], pooled_log_1ms[on], prior[:, on]
                )
                totals[:, g, y_hat] += prior[:, on].sum(axis=1)
    counts = _counts_from_positives(summary, pos, totals) + cells
    return counts.reshape(*lead, k, 4)


def _side_intercepts(c: np.ndarray, shift) -> np.ndarray:
    """Each group's intercept on each side, shape (n_draws, n_groups, 2): ``c`` moved by
    ``shift`` (shape (..., n_groups, 2), flattened over the draws as ``c`` is)."""
    side_c = np.repeat(c[..., None], 2, axis=-1)
    if shift is not None:
        side_c = side_c + np.asarray(shift, dtype=float).reshape(side_c.shape)
    return side_c


def _entry_logs(summary: ScoreSummary, idx) -> tuple[np.ndarray, np.ndarray]:
    return summary.mean_log_s[idx], summary.mean_log_1ms[idx]


def sampled_counts(
    summary: ScoreSummary, a, b, c, rng: np.random.Generator, shift=None
) -> np.ndarray:
    """Unlabeled confusion counts *drawn* from the calibrated probabilities.

    The finite-population predictive: for each draw, the unknown labels are
    drawn as ``y ~ Bernoulli(f_g(s))``. Within a histogram bin all examples
    share the bin's probability, so a bin contributes ``Binomial(n_b, f̄_b)``
    positives; the difference from the exact Poisson-binomial is of the same
    negligible order as the reduction error of :func:`expected_counts`.

    Only each group's and side's *total* of positives enters the rates. That
    total is a sum of independent binomials with mean ``μ = Σ n_b f̄_b`` and
    variance ``V = Σ n_b f̄_b (1 − f̄_b)``; where ``V ≥ 25`` it is drawn as
    ``round(μ + √V Z)`` (clipped to ``[0, n]``), whose quantiles are within a
    count of the exact ones (Berry–Esseen; tested against per-bin draws in
    ``tests/models/test_unlabeled.py``), and elsewhere bin by bin, each bin's
    binomial by inversion of one uniform (``_unlabeled_kernels.cell_positives``:
    one compiled pass per draw, on threads; with 56 groups nearly every cell is
    drawn bin by bin: ``docs/results/many_groups.md``, "Cost").

    Parameters
    ----------
    summary : ScoreSummary
        The unlabeled rows (:mod:`bayesfair.data.summary`), coded to the maps' groups.
    a, b, c : array_like, shape (..., n_groups)
        Draws of the beta-calibration parameters per group.
    rng : numpy.random.Generator
        Source of the draws (each block of draws gets a generator seeded from it).
    shift : array_like, shape (..., n_groups, 2), optional
        Per side, a shift of each group's intercept: the rows with ŷ = h are mapped
        with ``c + shift[..., h]`` (the strata's shifts, :mod:`bayesfair.models.shift`).

    Returns
    -------
    ndarray, shape (..., n_groups, 4)
        Drawn ``tp, fp, tn, fn`` of the unlabeled examples per draw and group.
    """
    a, b, c, lead = _validate_draws(a, b, c)
    k = summary.n_groups
    side_c = _side_intercepts(c, shift).reshape(-1, 2 * k)  # cell g * 2 + h
    from bayesfair.models._unlabeled_kernels import positives_by_draw  # numba: compiled loops

    cell = (summary.group * 2 + summary.side.astype(np.intp)).astype(np.intp)
    order = np.argsort(cell, kind="stable")  # the kernel reads each cell's entries as a run
    starts = np.searchsorted(cell[order], np.arange(2 * k + 1))
    log_s = np.ascontiguousarray(summary.mean_log_s[order], dtype=float)
    log_1ms = np.ascontiguousarray(summary.mean_log_1ms[order], dtype=float)
    count = summary.count[order].astype(float)
    totals = summary.totals().reshape(-1)  # (2k,), the same cell order
    pos = positives_by_draw(
        a, b, side_c, starts, log_s, log_1ms, count, totals, _NORMAL_MIN_VARIANCE, rng
    )
    out = _counts_from_positives(summary, pos.reshape(-1, k, 2))
    return out.reshape(*lead, k, 4)


def exact_expected_counts(
    scores, group_codes, n_groups: int, a, b, c, *, threshold: float = 0.5, score_clip: float = 0.01
) -> np.ndarray:
    """The O(draws × n_U) computation that :func:`expected_counts` approximates.

    Used to test the reduction; shapes as in :func:`expected_counts`.

    Parameters
    ----------
    scores : array_like, shape (n_U,)
        Unlabeled scores in [0, 1] (unclipped; the side of the threshold is
        decided on the raw score).
    group_codes : array_like of int, shape (n_U,)
        Group code of each score, in ``range(n_groups)``.
    n_groups : int
        Number of groups.
    a, b, c : array_like, shape (..., n_groups)
        Draws of the beta-calibration parameters per group.
    threshold : float, default 0.5
        A score at or above it is predicted positive.
    score_clip : float, default 0.01
        ε of the clipping of scores to ``[ε, 1 − ε]`` before taking logs.

    Returns
    -------
    ndarray, shape (..., n_groups, 4)
        Expected ``tp, fp, tn, fn`` of the unlabeled examples per draw and
        group, summed row by row.
    """
    s = check_array(scores, "scores")
    g = np.asarray(check_array(group_codes, "group_codes", dtype=None), dtype=np.intp)
    a, b, c, lead = _validate_draws(a, b, c)
    pred = s >= threshold
    sc = clip_scores(s, score_clip)
    ls, l1 = np.log(sc), np.log1p(-sc)
    out = np.empty((a.shape[0], n_groups, 4))
    for t in range(a.shape[0]):
        p = 0.5 * (1.0 + np.tanh(0.5 * (c[t, g] + a[t, g] * ls - b[t, g] * l1)))
        for k in range(n_groups):
            in_k = g == k
            pos, neg = in_k & pred, in_k & ~pred
            tp, fn = p[pos].sum(), p[neg].sum()
            out[t, k] = (tp, pos.sum() - tp, neg.sum() - fn, fn)
    return out.reshape(*lead, n_groups, 4)
