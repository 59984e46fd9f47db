"""Which examples to label next: the acquisition behind :func:`suggest_labels`.

A label in group g at score s shrinks the posterior variance of a gap
Δ = r_i − r_j in three ways: the calibration map learns (the rate linearised in
the map's parameters φ_g = (log a_g, log b_g, c_g); one Bernoulli label adds the
Fisher information w X Xᵀ, and Var(vᵀφ) drops by w (vᵀΣX)² / (1 + w XᵀΣX),
Sherman–Morrison: Bayesian c-optimal design, Chaloner & Verdinelli 1995, §2.2);
the label itself stops being uncertain (estimand ``"assessed"``); and, for
``rbc``, a stratum that may not follow the map learns its own Beta rate.
A batch is built greedily, each pick updating Σ and the stratum's count.

``within`` chooses what is targeted: strata (group × side of the threshold,
random within them: the labels of a stratum stay a simple random sample, which
keeps ``rbc``'s fallback valid), score bins, or half of each. Why this keeps
Bayesian inference valid (ignorable selection, Rubin 1976) and when it breaks
the frequentist intervals: ``docs/guides/label-budgets.md``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from bayesfair._internal.tree import get_group
from bayesfair._internal.validation import (
    check_choice,
    check_positive_int,
    check_random_state,
    takes,
)
from bayesfair.data.assessment import AssessmentData
from bayesfair.data.summary import DEFAULT_BINS, ScoreSummary
from bayesfair.exceptions import CalibrationWarning, InvalidParameterError, RandomBatchWarning
from bayesfair.labels.against_random import SURE, prob_beats_random
from bayesfair.metrics.rates import get_rate, rate_from_counts
from bayesfair.models.calibration import (
    DiscrepancyPrior,
    rate_prior_shapes,
    stratum_counts,
)
from bayesfair.models.catalogue import models_with_map, named_models_with_map
from bayesfair.models.priors import prior_from_record
from bayesfair.models.unlabeled import cell_of_rows, expected_counts
from bayesfair.posterior.checks import flagged_groups
from bayesfair.posterior.result import FairnessPosterior

#: What the acquisition chooses.
WITHIN = {
    "stratum": "how many labels each group x side of the threshold gets; random within it",
    "score": "the score bins too (more targeted; rbc's fallback and PPI++ lose validity)",
    "mixed": "half the batch by stratum, half score-targeted for the gap (PPI++ loses validity)",
}
#: The score clipping of the calibration models (``fit``'s default ``score_clip``).
SCORE_CLIP = 0.01


# ---------------------------------------------------------------- the pool of cells
@dataclass
class Pool:
    """The unlabeled examples as cells (group, side, score bin) of a summary, with the
    number of examples in each that remain unlabeled."""

    base: ScoreSummary  # the cells as summarised
    count: np.ndarray  # (n_cells,) float, remaining unlabeled examples

    @classmethod
    def from_summary(cls, summary: ScoreSummary, coarsen: int = 1) -> Pool:
        """The summary's bins, or groups of ``coarsen`` adjacent bins merged (exactly:
        :meth:`ScoreSummary.coarsen`; kept as they are when ``coarsen`` does not divide
        the summary's bins)."""
        if coarsen > 1 and summary.n_bins % coarsen == 0:
            summary = summary.coarsen(summary.n_bins // coarsen)
        return cls(base=summary, count=np.array(summary.count, dtype=float))

    @property
    def group(self) -> np.ndarray:
        return self.base.group

    @property
    def side(self) -> np.ndarray:
        return self.base.side.astype(np.intp)

    @property
    def log_s(self) -> np.ndarray:
        return self.base.mean_log_s

    @property
    def log_1ms(self) -> np.ndarray:
        return self.base.mean_log_1ms

    @property
    def n_groups(self) -> int:
        return self.base.n_groups

    def summary(self) -> ScoreSummary:
        """The examples that remain unlabeled, as a summary."""
        return self.base.with_counts(self.count)

    def totals(self) -> np.ndarray:
        out = np.zeros((self.n_groups, 2))
        np.add.at(out, (self.group, self.side), self.count)
        return out


# ---------------------------------------------------------------- the acquisition
@dataclass
class AcquisitionPosterior:
    """What the acquisition reads from a posterior (real draws or the Laplace ones)."""

    a: np.ndarray  # (n_draws, k)
    b: np.ndarray
    c: np.ndarray
    rates: np.ndarray  # (n_draws, k): the metric per group
    p_free: np.ndarray | None  # (k, 2): P(stratum does not follow the map), rbc
    center: np.ndarray | None  # (k, 2)
    x_st: np.ndarray  # (k, 2) labeled positives per stratum
    n_st: np.ndarray  # (k, 2) labeled examples per stratum
    counts: np.ndarray  # (k, 4) posterior-mean counts of the assessed examples
    assessed: bool
    metric: str
    concentration: float = 2.0  # κ of a misfitting stratum's rate


def _group_weights(k: int, pairs_idx: list[tuple[int, int]]) -> np.ndarray:
    w = np.zeros(k)
    for i, j in pairs_idx:
        w[i] += 1.0
        w[j] += 1.0
    return w


def _flip_effect(counts: np.ndarray, metric: str) -> np.ndarray:
    """Change of each group's rate when one example of a side turns positive, shape (k, 2).

    Side 0 (ŷ = 0): a true negative becomes a false negative; side 1: a false
    positive becomes a true positive. Evaluated at the posterior-mean counts.
    """
    base = rate_from_counts(counts, metric)
    out = np.zeros((counts.shape[0], 2))
    for h, (src, dst) in enumerate(((2, 3), (1, 0))):
        moved = counts.copy()
        moved[:, src] -= 1.0
        moved[:, dst] += 1.0
        with np.errstate(invalid="ignore", divide="ignore"):
            out[:, h] = rate_from_counts(np.maximum(moved, 0.0), metric) - base
    return np.nan_to_num(out)


class Acquisition:
    """Gains per cell and the greedy batch (module docstring)."""

    def __init__(self, post: AcquisitionPosterior, pool: Pool, pairs: list[tuple[int, int]]):
        self.post, self.pool = post, pool
        k = pool.n_groups
        self.weights = _group_weights(k, pairs)
        phi = np.stack([np.log(post.a), np.log(post.b), post.c], axis=-1)  # (n, k, 3)
        mean_a, mean_b, mean_c = post.a.mean(0), post.b.mean(0), post.c.mean(0)
        # the maps' joint covariance (3k x 3k, group-major blocks): the hierarchy correlates
        # the groups' maps, and a gap's variance is Var(r_i) + Var(r_j) - 2 Cov(r_i, r_j).
        # Each group's block and J_g = Σ_gg⁻¹ Cov(φ_g, r_g) come from the draws where its
        # rate is defined; the blocks between groups only when those are the same draws
        # for every group (otherwise the groups' maps are taken as independent).
        self.sigma = np.zeros((3 * k, 3 * k))
        jac = np.zeros((k, 3))
        r = post.rates
        finite = np.isfinite(r)
        for g in range(k):
            own = finite[:, g]
            if own.sum() < 10:
                continue
            blk = slice(3 * g, 3 * g + 3)
            cov = np.cov(np.column_stack([phi[own, g, :], r[own, g]]), rowvar=False)
            self.sigma[blk, blk] = cov[:3, :3]
            jac[g] = np.linalg.pinv(cov[:3, :3], rcond=1e-10) @ cov[:3, 3]
        good = finite.sum(0) >= 10
        same = (finite[:, good] == finite[:, good][:, :1]).all()
        if good.all() and same and finite[:, 0].sum() >= 10:
            self.sigma = np.atleast_2d(np.cov(phi[finite[:, 0]].reshape(-1, 3 * k), rowvar=False))
        self.jac = jac
        # each requested gap r_i - r_j as a linear function of the 3k map parameters
        self.gaps = np.zeros((len(pairs), 3 * k))
        for row, (i, j) in enumerate(pairs):
            self.gaps[row, 3 * i : 3 * i + 3] += jac[i]
            self.gaps[row, 3 * j : 3 * j + 3] -= jac[j]
        g = pool.group
        eta = mean_c[g] + mean_a[g] * pool.log_s - mean_b[g] * pool.log_1ms
        self.f = 0.5 * (1.0 + np.tanh(0.5 * eta))
        self.w = self.f * (1.0 - self.f)
        self.x = np.column_stack(
            [mean_a[g] * pool.log_s, -mean_b[g] * pool.log_1ms, np.ones(g.size)]
        )
        self.flip = _flip_effect(post.counts, post.metric)
        self.n_st = post.n_st.copy()
        self.x_st = post.x_st.copy()
        self.totals = pool.totals()

    def _sigma_x(self, cells: np.ndarray) -> np.ndarray:
        """Σ X for each cell's feature vector X (its group's block of the 3k vector)."""
        g = self.pool.group[cells]
        cols = 3 * g[:, None] + np.arange(3)  # (c, 3)
        block = self.sigma[:, cols]  # (3k, c, 3)
        return np.einsum("kcj,cj->ck", block, self.x[cells])  # (c, 3k)

    def _map_terms(self, cells: np.ndarray) -> np.ndarray:
        g = self.pool.group[cells]
        sx = self._sigma_x(cells)
        cols = 3 * g[:, None] + np.arange(3)
        q = np.einsum("cj,cj->c", self.x[cells], np.take_along_axis(sx, cols, axis=1))  # XᵀΣX
        w = self.w[cells]
        # Σ over the gaps of w (vᵀ Σ X)² / (1 + w XᵀΣX): Var(vᵀφ) before minus after
        vsx = sx @ self.gaps.T  # (c, n_gaps)
        return w * np.sum(vsx**2, axis=1) / (1.0 + w * q)

    def _stratum_terms(self, cells: np.ndarray) -> np.ndarray:
        post = self.post
        if post.p_free is None:
            return np.zeros(cells.size)
        g, h = self.pool.group[cells], self.pool.side[cells]
        kappa = post.concentration
        m = post.center[g, h]
        n, x = self.n_st[g, h], self.x_st[g, h]
        al, be = rate_prior_shapes(m, kappa)
        q = (al + x) / (al + be + n)
        v0 = q * (1 - q) / (al + be + n + 1.0)
        v1 = q * (1 - q) / (al + be + n + 2.0)
        p = post.p_free[g, h]
        return p * (self.totals[g, h] * self.flip[g, h]) ** 2 * (v0 - v1)

    def _own_terms(self, cells: np.ndarray) -> np.ndarray:
        if not self.post.assessed:
            return np.zeros(cells.size)
        g, h = self.pool.group[cells], self.pool.side[cells]
        return self.w[cells] * self.flip[g, h] ** 2

    def gains(self, cells: np.ndarray | None = None) -> np.ndarray:
        if cells is None:
            cells = np.arange(self.pool.group.size)
        wt = self.weights[self.pool.group[cells]]
        own = self._stratum_terms(cells) + self._own_terms(cells)
        return self._map_terms(cells) + wt * own

    def greedy(self, n: int, within: str = "stratum", rng=None) -> tuple[np.ndarray, np.ndarray]:
        """``n`` picks (cell indices, with repeats) and the gain of each when picked.

        ``within="stratum"`` picks the best stratum (group × side) by the mean
        gain of a label drawn at random from what is left of it, then a cell at
        random in proportion to what is left of each (so the labels of a
        stratum remain a simple random sample of it), and updates the group's
        block of the covariance with the stratum's expected information.
        ``within="score"`` picks the best cell each time (score-targeted). Both
        use Σ's block diagonal. ``within="mixed"`` makes the first
        ``n - n // 2`` picks as ``"stratum"`` does and the rest as ``"score"``
        does with the **joint** Σ, from the same posterior (module docstring).
        The acquisition's state (Σ, the strata's counts) moves with the picks:
        build a new one for each batch.
        """
        remaining = self.pool.count.copy()
        if within == "mixed":
            start = (self.sigma.copy(), self.n_st.copy(), self.x_st.copy())
            half = n - n // 2
            self._block_diagonal()
            first = self._greedy_strata(half, remaining, rng)
            self.sigma, self.n_st, self.x_st = start
            second = self._greedy_cells(n - half, remaining)
            return np.concatenate([first[0], second[0]]), np.concatenate([first[1], second[1]])
        self._block_diagonal()
        if within == "score":
            return self._greedy_cells(n, remaining)
        return self._greedy_strata(n, remaining, rng)

    def _block_diagonal(self) -> None:
        """Σ with the groups' maps taken as independent (its block diagonal): the map term
        is then each group's rate variance, counted once per gap that involves the group."""
        k = self.pool.n_groups
        mask = np.kron(np.eye(k), np.ones((3, 3))).astype(bool)
        self.sigma = np.where(mask, self.sigma, 0.0)

    def _greedy_strata(self, n: int, remaining: np.ndarray, rng):
        rng = np.random.default_rng() if rng is None else rng
        stratum = self.pool.group * 2 + self.pool.side
        n_strata = 2 * self.pool.n_groups
        picks, values = np.empty(n, dtype=np.intp), np.empty(n)
        cell_gains = self.gains()
        for i in range(n):
            left = np.bincount(stratum, weights=remaining, minlength=n_strata)
            with np.errstate(invalid="ignore", divide="ignore"):
                mean = (
                    np.bincount(stratum, weights=remaining * cell_gains, minlength=n_strata) / left
                )
            mean[~(left > 0)] = -np.inf
            st = int(np.argmax(mean))
            if not np.isfinite(mean[st]):
                raise InvalidParameterError("The unlabeled pool ran out of examples.")
            cells = np.flatnonzero(stratum == st)
            c = int(rng.choice(cells, p=remaining[cells] / left[st]))
            picks[i], values[i] = c, mean[st]
            g, h = divmod(st, 2)
            remaining[c] -= 1
            # a random label of the stratum: its expected information enters the group's block
            wt = remaining[cells] * self.w[cells] / max(left[st], 1.0)
            info = np.zeros_like(self.sigma)
            blk = slice(3 * g, 3 * g + 3)
            info[blk, blk] = (self.x[cells] * wt[:, None]).T @ self.x[cells]
            # (Σ⁻¹ + I)⁻¹ = Σ (1 + I Σ)⁻¹, which needs no inverse of a singular Σ
            eye = np.eye(self.sigma.shape[0])
            self.sigma = np.linalg.solve((eye + info @ self.sigma).T, self.sigma.T).T
            self.n_st[g, h] += 1
            self.x_st[g, h] += self.f[c]
            # Σ is block diagonal here: only the picked group's gains change
            same = np.flatnonzero(self.pool.group == g)
            cell_gains[same] = self.gains(same)
        return picks, values

    def _greedy_cells(self, n: int, remaining: np.ndarray):
        gains = self.gains()
        gains[remaining <= 0] = -np.inf
        picks, values = np.empty(n, dtype=np.intp), np.empty(n)
        for i in range(n):
            c = int(np.argmax(gains))
            if not np.isfinite(gains[c]):
                raise InvalidParameterError("The unlabeled pool ran out of examples.")
            picks[i], values[i] = c, gains[c]
            g, h = int(self.pool.group[c]), int(self.pool.side[c])
            remaining[c] -= 1
            # the label's information enters the maps' joint covariance (rank one)
            sx = self._sigma_x(np.array([c]))[0]
            w = self.w[c]
            self.sigma -= w * np.outer(sx, sx) / (1.0 + w * self.x[c] @ sx[3 * g : 3 * g + 3])
            self.n_st[g, h] += 1
            self.x_st[g, h] += self.f[c]
            gains = self.gains()
            gains[remaining <= 0] = -np.inf
        return picks, values


def _pairs_index(levels: list, reference, group) -> list[tuple[int, int]]:
    ref = levels.index(reference)
    if group is not None:
        return [(levels.index(group), ref)]
    return [(i, ref) for i in range(len(levels)) if i != ref]


def result_posterior(res, data, metric: str) -> AcquisitionPosterior:
    """The acquisition's view of a fitted ``bc``/``rbc`` posterior."""
    post = get_group(res.idata, "posterior")
    k = data.n_groups
    a, b, c = (post[v].transpose("chain", "draw", "group").values.reshape(-1, k) for v in "abc")
    rates = res.rates(metric).transpose("chain", "draw", "group").values.reshape(-1, k)
    summary = data.unlabeled_reduction(
        res.settings.get("score_clip", SCORE_CLIP), res.settings.get("n_bins")
    )
    mean_u = expected_counts(summary, a.mean(0)[None], b.mean(0)[None], c.mean(0)[None])[0]
    clip = res.settings.get("score_clip", SCORE_CLIP)
    x_st, n_st = stratum_counts(data.labeled_summary(clip, res.settings.get("n_bins")))
    p_free = center = None
    concentration = 2.0
    if "p_misfit" in post:
        p_free = post["p_misfit"].mean(("chain", "draw")).transpose("group", "side").values
        center = (
            get_group(res.idata, "constant_data")["misfit_center"].transpose("group", "side").values
        )
        disc = fitted_discrepancy(res.settings)
        concentration = disc.concentration
    return AcquisitionPosterior(
        a=a,
        b=b,
        c=c,
        rates=rates,
        p_free=p_free,
        center=center,
        x_st=x_st,
        n_st=n_st,
        counts=mean_u + data.labeled_examples.confusion_counts(),
        assessed=res.estimand == "assessed",
        metric=metric,
        concentration=concentration,
    )


def fitted_discrepancy(settings: dict):
    """The ``DiscrepancyPrior`` a fit used, read back from ``settings["discrepancy"]`` (the
    record a posterior saved to a file keeps); the default when absent."""
    return prior_from_record(settings.get("discrepancy"), "DiscrepancyPrior") or DiscrepancyPrior()


def _check_metric_defined(metric: str, totals: np.ndarray, levels: list) -> None:
    """Raise when a rate's denominator is a side of the threshold that a group lacks."""
    rate = get_rate(metric)
    den = set(rate.denominator)
    for side, cells, words in (
        (1, {"tp", "fp"}, "predicted positive"),
        (0, {"tn", "fn"}, "predicted negative"),
    ):
        if den <= cells:
            empty = [g for g, t in zip(levels, totals[:, side], strict=True) if t == 0]
            if empty:
                raise InvalidParameterError(
                    f"{rate.label} ({rate.name}) is undefined for group(s) {empty}: none of "
                    f"their assessed examples is {words}, so no number of labels defines it. "
                    "Choose another metric."
                )


@takes("FairnessPosterior")
def suggest_labels(
    res,
    n: int = 50,
    metric: str = "accuracy",
    *,
    data=None,
    group=None,
    reference=None,
    within: str = "stratum",
    random_seed=None,
) -> pd.DataFrame:
    """Which unlabeled examples to label next, in a batch of ``n``.

    Ranks cells of the unlabeled data (group × side of the threshold × score
    bin) by the expected reduction of the posterior variance of the gap(s) of
    ``metric``, builds
    the batch greedily with diminishing returns, and draws the examples at
    random within the chosen cells (module docstring :mod:`bayesfair.labels`,
    which also says why the Bayesian posterior stays valid after such a
    choice and the frequentist intervals do not).

    Parameters
    ----------
    res : FairnessPosterior
        A fit of a calibration model (``"rbc"``, the default, or ``"bc"``).
    n : int, default 50
        Examples to suggest.
    metric : str, default "accuracy"
        The rate whose gap should shrink.
    data : AssessmentData, optional
        The data ``res`` was fitted on; needed only when ``res`` was read from
        a file (:meth:`FairnessPosterior.from_netcdf`), which does not keep it.
    group, reference : optional
        One gap; default every group against the reference.
    within : {"stratum", "score", "mixed"}
        :data:`WITHIN`. ``"stratum"`` (default) chooses how many labels each
        stratum (group × side of the threshold) gets and draws them at random
        within it, which keeps every interval of the default model valid
        (module docstring); ``"score"`` also targets scores within a stratum;
        ``"mixed"`` picks half the batch as ``"stratum"`` does and half at the
        scores that teach the gap most: the most settings with a saving of
        at least 25% in the benchmark, with less coverage than ``"stratum"``
        where a map is wrong. When the fit's calibration check flags a group,
        ``"mixed"`` picks the batch as ``"stratum"`` does and ``"score"`` keeps
        its picks; both say so in a
        :class:`~bayesfair.exceptions.CalibrationWarning`.
    random_seed : None, int, SeedSequence or Generator
        The draw of examples within the chosen strata or cells.

    Returns
    -------
    pandas.DataFrame
        One row per suggested example, in the order picked (by decreasing gain;
        with ``"mixed"``, the stratum half first, then the score half, whose
        gains come from another criterion and are not comparable with the
        first half's): ``position`` (0-based
        row of the unlabeled data given to :class:`AssessmentData`), the id
        column's value where the data has ids (column named as the id column),
        ``group``, ``score`` and ``gain`` (the expected variance reduction of
        the gap(s) when it was chosen). ``attrs["batch"]`` is ``"chosen"``, or
        ``"random"`` where the batch could not be shown to beat a random one (then
        the rows are a simple random sample of the unlabeled rows, ``gain`` is NaN
        and a :class:`~bayesfair.exceptions.RandomBatchWarning` says so);
        ``attrs["prob_beats_random"]`` the share of the posterior's maps under
        which the chosen batch beat a random one (:mod:`bayesfair.labels.against_random`:
        it must be at least :data:`~bayesfair.labels.against_random.SURE`).

    Raises
    ------
    InvalidParameterError
        For a model without a calibration map, an unknown metric,
        ``n`` larger than the unlabeled pool, a rate undefined for a group, or
        unlabeled data held as a summary (no rows to suggest).
    """
    if not isinstance(res, FairnessPosterior):
        raise InvalidParameterError(
            f"The 'res' parameter must be a FairnessPosterior. Got {type(res).__name__}."
        )
    if res.model not in models_with_map():
        raise InvalidParameterError(
            f"suggest_labels needs a calibration model ({named_models_with_map()}): the gain "
            "of a label depends on its score through the calibration map. Got "
            f"model={res.model!r}."
        )
    check_choice(within, WITHIN, "within")
    metric = get_rate(metric).name
    if metric not in res.metrics:
        raise InvalidParameterError(
            f"The fit has no draws of {metric!r}; refit with metrics including it."
        )
    data = res.data if data is None else data
    if not isinstance(data, AssessmentData):
        raise InvalidParameterError(
            "suggest_labels needs the AssessmentData the posterior was fitted on: pass "
            "data=... (a posterior read from a file does not keep its data)."
        )
    if [str(g) for g in data.group_levels] != [str(g) for g in res.groups]:
        raise InvalidParameterError(
            f"The data's groups {data.group_levels} are not the fit's {list(res.groups)}."
        )
    if data.unlabeled_is_summary:
        raise InvalidParameterError(
            "suggest_labels needs the unlabeled examples as rows, to say which ones to label; "
            "this data set holds them as a summary (bayesfair.summarize_unlabeled). Build "
            "AssessmentData from the unlabeled rows (a DataFrame, or scores and groups)."
        )
    n = check_positive_int(n, "n")
    if n > data.n_unlabeled:
        raise InvalidParameterError(
            f"The 'n' parameter ({n}) is larger than the unlabeled pool ({data.n_unlabeled} "
            "examples)."
        )
    rng = check_random_state(random_seed)
    clip = res.settings.get("score_clip", SCORE_CLIP)
    n_bins = res.settings.get("n_bins") or DEFAULT_BINS
    summary = data.unlabeled_reduction(clip, n_bins)
    pool = Pool.from_summary(summary)
    _check_metric_defined(metric, pool.totals() + _labeled_sides(data), data.group_levels)
    ref = data.reference if reference is None else data.resolve_group(reference, "reference")
    grp = None if group is None else data.resolve_group(group, "group")
    pairs = _pairs_index(data.group_levels, ref, grp)
    post = result_posterior(res, data, metric)
    if within != "stratum":
        within = _guard_targeting(res, within)
    picks, gains = Acquisition(post, pool, pairs).greedy(n, within, rng)
    sure = prob_beats_random(Acquisition(post, pool, pairs), picks, n, rng)
    if sure >= SURE:
        rows = _rows_for_cells(data, summary, pool, picks, rng, clip, n_bins)
    else:  # it cannot show a gain: a simple random sample, never worse than one
        rows, gains = rng.choice(data.n_unlabeled, size=n, replace=False), np.full(n, np.nan)
        warnings.warn(
            f"suggest_labels could not show that its batch beats a random one (it did under "
            f"{sure:.0%} of the posterior's plausible calibration maps, {SURE:.0%} needed): "
            "the batch is a simple random sample of the unlabeled rows. With more labels "
            "the maps settle and the chosen batches return.",
            RandomBatchWarning,
            stacklevel=2,
        )
    out = pd.DataFrame({"position": rows})
    ids = data.unlabeled_ids
    if ids is not None:
        out[data.id_name] = ids[rows]
    levels = np.asarray(data.group_levels, dtype=object)
    out["group"] = levels[data.unlabeled_group_codes[rows]]
    out["score"] = data.unlabeled_scores[rows]
    out["gain"] = gains
    out.attrs.update(batch="chosen" if sure >= SURE else "random", prob_beats_random=sure)
    return out


def _guard_targeting(res, within: str) -> str:
    """What to pick when score-targeted picks are asked for and the fit's calibration
    check finds a group's map contradicted by its labels (where a map is wrong,
    intervals after score-targeted labels under-cover; module docstring).

    ``"mixed"`` falls back to ``"stratum"`` for the batch, with a
    :class:`~bayesfair.exceptions.CalibrationWarning` saying so; ``"score"`` (the
    choice for a map known to be right) keeps its picks and warns. A posterior that
    cannot be checked (no labeled scores kept) is taken as it is.
    """
    try:
        check = res.calibration_check(warn=False)
    except ValueError:
        return within
    bad = [str(g) for g in flagged_groups(check)]
    if not bad:
        return within
    found = (
        f"The calibration check flags {' and '.join(bad)} (a map contradicted by its "
        "labels, or two groups calibrated differently), and score-targeted labels "
        "under-cover where a map is wrong"
    )
    if within == "mixed":
        warnings.warn(
            f"{found}: this batch is chosen by stratum (within='stratum') instead of 'mixed'.",
            CalibrationWarning,
            stacklevel=3,
        )
        return "stratum"
    warnings.warn(
        f"{found} (an inverted group: 0.625 with 'score', against 0.825 with 'stratum'). "
        "Use within='stratum'.",
        CalibrationWarning,
        stacklevel=3,
    )
    return within


def _labeled_sides(data) -> np.ndarray:
    side = (data.scores >= data.threshold).astype(np.intp)
    out = np.zeros((data.n_groups, 2))
    np.add.at(out, (data.group_codes, side), 1.0)
    return out


def _rows_for_cells(data, summary, pool: Pool, picks, rng, clip, n_bins) -> np.ndarray:
    """Unlabeled row positions for the picked cells, drawn at random within each cell."""
    cell = cell_of_rows(data.unlabeled_scores, data.unlabeled_group_codes, summary)
    wanted = np.bincount(picks, minlength=pool.group.size)
    chosen = np.flatnonzero(wanted)
    order = np.argsort(cell, kind="stable")
    starts = np.searchsorted(cell[order], chosen, side="left")
    ends = np.searchsorted(cell[order], chosen, side="right")
    out = {}
    for c, lo, hi in zip(chosen, starts, ends, strict=True):
        out[c] = list(rng.choice(order[lo:hi], size=int(wanted[c]), replace=False))
    return np.array([out[c].pop() for c in picks], dtype=np.int64)
