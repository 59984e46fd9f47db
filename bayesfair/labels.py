"""Label budgets and active labeling: how many labels a decision needs, and which.

Two entry points:

* :func:`suggest_labels` ranks the unlabeled examples by how much labeling
  them is expected to shrink the posterior of a rate gap Δ (or to teach the
  calibration maps), and returns a batch of ``n`` of them.
* :func:`plan_labels` predicts, for a grid of label budgets, the distribution
  of the width of Δ's interval and the probability of reaching a decision,
  for the default Bayesian model and the frequentist intervals, with labels
  chosen at random or by :func:`suggest_labels`' acquisition (preposterior
  simulation).

The acquisition (``objective="variance"``)
------------------------------------------
A label in group ``g`` at score ``s`` changes three things in the posterior
of a gap ``Δ = r_i − r_j`` between two groups' rates:

1. **The calibration maps.** Linearise each rate in its group's map
   parameters ``φ_g = (log a_g, log b_g, c_g)``: ``J_g = Σ_gg⁻¹ Cov(φ_g, r_g)``,
   from the posterior draws, so that ``Δ ≈ vᵀφ`` with ``φ`` all groups' maps
   (``3k`` numbers) and ``v`` holding ``J_i`` and ``−J_j`` in their blocks. The
   covariance ``Σ`` of ``φ`` is the *joint* one: the hierarchy correlates the
   groups' maps (on the bundled score sets the two groups' accuracies are
   correlated 0.3–0.6 in the posterior at 60–120 labels), and
   ``Var(Δ) = Var(r_i) + Var(r_j) − 2 Cov(r_i, r_j)``, so a label that teaches
   what the groups share moves the gap less than either rate. One Bernoulli
   label at ``s`` adds the Fisher information ``w X Xᵀ``, with ``X`` the
   vector ``x = ∂η/∂φ_g = (a log s, −b log(1 − s), 1)`` in group ``g``'s
   block and ``w = f(1 − f)`` (``f`` the calibrated probability at the
   posterior mean), so the posterior variance of ``vᵀφ`` drops by
   ``w (vᵀ Σ X)² / (1 + w Xᵀ Σ X)`` (Sherman–Morrison): the expected
   reduction in posterior variance of a Gaussian linear model, the
   criterion of Bayesian c-optimal design (Chaloner & Verdinelli 1995,
   §2.2), summed over the requested gaps.
2. **The example's own label** (estimand ``"assessed"`` only): its Bernoulli
   variance ``f(1 − f)`` times the squared change of ``r_g`` when the label
   flips leaves the finite-population term.
3. **The stratum's own rate** (``rbc``): with posterior probability
   ``p`` that the stratum (group × side of the threshold) does not follow the
   map, its rate has a Beta posterior whose variance one more label shrinks
   from ``q(1 − q)/(κ + n + 1)`` to ``q(1 − q)/(κ + n + 2)``.

Terms 2 and 3 belong to one group and count once for each requested gap
that involves it. Stratum-level and score-targeted picks (``within="stratum"``,
``"score"``) use ``Σ``'s block diagonal, the groups' maps taken as
independent, so that the map term is each group's rate variance counted once
per gap. The joint ``Σ`` is what the score-targeted half of
``within="mixed"`` uses. Why not everywhere: averaged over a stratum, the
joint criterion allocated worse in a trial run (COMPAS-race MLP, Δ accuracy;
those fits were not kept), and alone it concentrated score-targeted labels so much that
the final intervals covered the realised Δ TPR in only 0.65 of the loops on
Adult-sex LR (``docs/benchmarks.md``). A batch is built greedily: after each
pick ``Σ`` takes in the label's (expected) information and the stratum's
label count grows, so later picks at the same place are worth less
(diminishing returns: the batch spreads over groups, sides and scores
without a separate diversity term).
``objective="information"`` ranks instead by the expected information gain
about the calibration maps, ``½ log(1 + w xᵀ Σ x)`` (the D-optimal criterion
that Ji, Logan, Smyth & Steyvers 2021 use for Beta models of group accuracy),
plus the same stratum term in nats.

What is chosen (``within``)
--------------------------
By default (``within="stratum"``) the acquisition allocates the batch over
the **strata** (group × side of the threshold): each pick goes to the stratum
whose randomly drawn next label has the largest expected gain, and the
examples are then drawn at random within the stratum. With
``within="score"`` it picks **cells** (group, side and a narrow score bin of
the unlabeled histogram, :mod:`bayesfair.models.unlabeled`) and targets the
scores where a label teaches the map most. ``within="mixed"`` makes half the
batch (the larger half when ``n`` is odd) by stratum and the other half at
the cells that shrink the *gap* most under the maps' joint covariance, both
from the current posterior: the stratum half keeps every stratum's labels
spread over its scores, the targeted half buys the saving. In the benchmark
(``docs/benchmarks.md``; 20 loops per setting on six bundled settings) it
reached the target width with at least 25% fewer labels than random labels
on 5 of 6 settings for Δ accuracy and 5 of 6 for Δ TPR (stratum: 3 and 5;
score: 4 and 5), and the final intervals covered the realised gap in every
loop (two earlier runs without the guard below: 5 and 5 of 6 each, covering
in 1.00 and 0.95–1.00 of the loops).

Why inference stays valid after active selection
-----------------------------------------------
The calibration models (``rbc``, ``bc``) condition on the labeled examples'
scores and groups, and the acquisition uses only the scores and groups (observed for every example)
and the labels already seen. The selection mechanism is therefore *ignorable*
(Rubin 1976; Gelman et al., *BDA3* §8.2–8.3): the likelihood of the labels
given the scores is the same whichever examples were picked, and the
posterior of ``bc`` and ``rbc`` is unchanged in form — **provided the model of
the labels given what selection looked at is right**. The calibration map is
a model of ``y | s, g``; ``rbc``'s fallback for a stratum whose map is wrong
is a model of ``y | stratum`` (the labels as an exchangeable sample of the
stratum). Stratum-level selection keeps the labels of each stratum a simple
random sample of it (sequential random draws without replacement from what
is left), so both parts stay right and the posterior keeps its coverage when
the map is wrong. Score-targeted selection does not: where a group's map is
wrong, the fallback then reads labels concentrated at a few scores as if they
were the stratum's, and intervals under-cover (an inverted group, 20 + 60
labels: coverage 0.625 against 0.875 with random labels and 0.825 by stratum,
``docs/benchmarks.md``). ``within="score"`` is for a map that the
calibration check and the audit's history say is right; :func:`suggest_labels`
warns (:class:`~bayesfair.exceptions.CalibrationWarning`) when it is asked
for and the fit's calibration check flags a group. ``within="mixed"`` guards
itself: when the check flags a group, the batch is chosen by stratum instead
(with the same warning class saying so). The check flags that inverted group
in 26 of 40 data sets already at 20 labels per group, and in all 20 tried at
about 50; with the fallback, mixed covers 0.85 there (0.75 without it: half
its labels concentrated), and 1.00 on a calibrated group.

The labeled-only ``bb`` and ``hbb`` do not condition on the scores: for them
a selection that favours one side of the threshold is not ignorable, and
they are not valid after active selection.

The frequentist intervals: Newcombe and Bernstein treat a group's labels as
a simple random sample of the group, which any allocation that favours one
side of the threshold breaks (they are not valid after active selection).
Stratified PPI++ estimates each stratum's rate from that stratum's labels and
weights the strata by their known sizes, so it stays valid after
stratum-level selection (random within strata) and not after score-targeted
or mixed selection. What score-targeted selection would need is a randomised design in
which every unlabeled example has a known, positive labeling probability, and
inverse-probability weighting (active inference, Zrnic & Candès 2024, ICML,
§3); ``suggest_labels`` picks deterministically, so :func:`plan_labels`
marks those rows ``valid=False`` instead, and :func:`bayesfair.compare`
(``selection=``) leaves every interval that active selection breaks empty.

References
----------
Ji, Logan, Smyth & Steyvers 2021, *Active Bayesian Assessment of Black-Box
Classifiers*, AAAI, §3–4; Chaloner & Verdinelli 1995, *Bayesian
Experimental Design: A Review*, Stat. Sci. 10(3); Rubin 1976, *Inference and
Missing Data*; Zrnic & Candès 2024, *Active Statistical Inference*.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np
import pandas as pd

from bayesfair._validation import (
    check_positive_int,
    check_probability,
    check_random_state,
)
from bayesfair.data import AssessmentData, count_confusion
from bayesfair.exceptions import CalibrationWarning, InvalidParameterError, SamplingWarning
from bayesfair.fitting import fit, robust_unlabeled_counts
from bayesfair.frequentist import bernstein_half_width, newcombe_interval, ppi_difference
from bayesfair.metrics import get_rate, rate_fraction, rate_from_counts
from bayesfair.models.calibration import (
    CalibrationPriors,
    DiscrepancyPrior,
    center_and_mode,
    draw_prior_rates,
    free_log_likelihoods,
    likelihood_data,
    mean_concentration,
    sample_misfit,
    stratum_counts,
)
from bayesfair.models.unlabeled import cell_of_rows, expected_counts, sampled_counts
from bayesfair.posterior import FairnessPosterior, _check_epsilon, _rope_decide, hdi
from bayesfair.summary import DEFAULT_BINS, ScoreSummary, summarize_arrays

__all__ = ["OBJECTIVES", "STRATEGIES", "plan_labels", "suggest_labels"]

#: What :func:`suggest_labels` can maximise.
OBJECTIVES = {
    "variance": "expected reduction of the posterior variance of the gap(s)",
    "information": "expected information gain about the calibration maps (nats)",
}
#: What the acquisition chooses.
WITHIN = {
    "stratum": "how many labels each group x side of the threshold gets; random within it",
    "score": "the score bins too (more targeted; rbc's fallback and PPI++ lose validity)",
    "mixed": "half the batch by stratum, half score-targeted for the gap (PPI++ loses validity)",
}
#: How :func:`plan_labels` may choose the labels it simulates.
STRATEGIES = {
    "random": "uniformly at random from the unlabeled examples",
    "active": "by suggest_labels' acquisition, batch by batch",
}
#: The intervals :func:`plan_labels` predicts.
PLAN_METHODS = {
    "bayes": "the default model (rbc), refitted by importance sampling from a Laplace fit",
    "newcombe": "Newcombe's interval for a difference of proportions (labeled only)",
    "ppi": "stratified PPI++ with cross-fitted calibration (labeled and unlabeled)",
    "bernstein": "Ethayarajh's Bernstein interval (labeled only, distribution-free)",
}
_SCORE_CLIP = 0.01
# plan_labels merges this many adjacent bins of the unlabeled histogram (1,024 -> 64
# over the logit range [-4.6, 4.6], bins 0.14 wide): the simulated labels' scores are
# the merged bins' means, and each refit's unlabeled pass costs 16x less.
_PLAN_COARSEN = 16
# Pareto k̂ above which importance-sampled draws are not to be trusted (Vehtari et al. 2024)
_PARETO_K_MAX = 0.7


# ---------------------------------------------------------------- the pool of cells
@dataclass
class _Pool:
    """The unlabeled examples as cells (group, side, score bin) of a summary, with the
    number of examples in each that remain unlabeled."""

    base: ScoreSummary  # the cells as summarised
    count: np.ndarray  # (n_cells,) float, remaining unlabeled examples

    @classmethod
    def from_summary(cls, summary: ScoreSummary, coarsen: int = 1) -> _Pool:
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
class _Posterior:
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
    concentration: float | np.ndarray = 2.0  # κ, or its posterior mean per stratum (k, 2)


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


class _Acquisition:
    """Gains per cell and the greedy batch (module docstring)."""

    def __init__(self, post: _Posterior, pool: _Pool, pairs: list[tuple[int, int]],
                 objective: str):  # fmt: skip
        self.post, self.pool, self.objective = post, pool, objective
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
        if self.objective == "information":
            return 0.5 * np.log1p(w * q)
        # Σ over the gaps of w (vᵀ Σ X)² / (1 + w XᵀΣX): Var(vᵀφ) before minus after
        vsx = sx @ self.gaps.T  # (c, n_gaps)
        return w * np.sum(vsx**2, axis=1) / (1.0 + w * q)

    def _stratum_terms(self, cells: np.ndarray) -> np.ndarray:
        post = self.post
        if post.p_free is None:
            return np.zeros(cells.size)
        g, h = self.pool.group[cells], self.pool.side[cells]
        kappa = np.broadcast_to(post.concentration, post.center.shape)[g, h]
        m = post.center[g, h]
        n, x = self.n_st[g, h], self.x_st[g, h]
        q = (kappa * m + x) / (kappa + n)
        v0 = q * (1 - q) / (kappa + n + 1.0)
        v1 = q * (1 - q) / (kappa + n + 2.0)
        p = post.p_free[g, h]
        if self.objective == "information":
            return p * 0.5 * np.log(v0 / v1)
        return p * (self.totals[g, h] * self.flip[g, h]) ** 2 * (v0 - v1)

    def _own_terms(self, cells: np.ndarray) -> np.ndarray:
        if not self.post.assessed or self.objective == "information":
            return np.zeros(cells.size)
        g, h = self.pool.group[cells], self.pool.side[cells]
        return self.w[cells] * self.flip[g, h] ** 2

    def gains(self, cells: np.ndarray | None = None) -> np.ndarray:
        if cells is None:
            cells = np.arange(self.pool.group.size)
        wt = self.weights[self.pool.group[cells]]
        own = self._stratum_terms(cells) + self._own_terms(cells)
        if self.objective == "information":
            return wt * (self._map_terms(cells) + own)
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
                mean = np.bincount(stratum, weights=remaining * cell_gains,
                                   minlength=n_strata) / left  # fmt: skip
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


def _check_choice(value, options: dict, argument: str) -> None:
    if value not in options:
        raise InvalidParameterError(
            f"The '{argument}' parameter must be one of {', '.join(map(repr, options))}. "
            f"Got {value!r}."
        )


def _pairs_index(levels: list, reference, group) -> list[tuple[int, int]]:
    ref = levels.index(reference)
    if group is not None:
        return [(levels.index(group), ref)]
    return [(i, ref) for i in range(len(levels)) if i != ref]


def _result_posterior(res, data, metric: str) -> _Posterior:
    """The acquisition's view of a fitted ``bc``/``rbc`` posterior."""
    post = res.idata.posterior
    k = data.n_groups
    a, b, c = (post[v].transpose("chain", "draw", "group").values.reshape(-1, k) for v in "abc")
    rates = res.rates(metric).transpose("chain", "draw", "group").values.reshape(-1, k)
    summary = data.unlabeled_reduction(res.settings.get("score_clip", _SCORE_CLIP),
                                       res.settings.get("n_bins"))  # fmt: skip
    mean_u = expected_counts(summary, a.mean(0)[None], b.mean(0)[None], c.mean(0)[None])[0]
    clip = res.settings.get("score_clip", _SCORE_CLIP)
    x_st, n_st = stratum_counts(data.labeled_summary(clip, res.settings.get("n_bins")))
    p_free = center = None
    concentration = 2.0
    if "p_misfit" in post:
        p_free = post["p_misfit"].mean(("chain", "draw")).transpose("group", "side").values
        center = res.idata.constant_data["misfit_center"].transpose("group", "side").values
        disc = _fitted_discrepancy(res.settings)
        concentration = mean_concentration(x_st, n_st, center, disc.concentration)
    return _Posterior(
        a=a, b=b, c=c, rates=rates, p_free=p_free, center=center, x_st=x_st, n_st=n_st,
        counts=mean_u + data.counts_array(), assessed=res.estimand == "assessed",
        metric=metric, concentration=concentration,
    )  # fmt: skip


def _fitted_discrepancy(settings: dict):
    """The ``DiscrepancyPrior`` a fit used, read back from ``settings["discrepancy"]`` (its
    repr, which a posterior saved to a file keeps); the default when absent."""
    import ast

    text = settings.get("discrepancy")
    if not text:
        return DiscrepancyPrior()
    try:
        call = ast.parse(text, mode="eval").body
        if not (
            isinstance(call, ast.Call) and getattr(call.func, "id", None) == "DiscrepancyPrior"
        ):
            raise ValueError
        return DiscrepancyPrior(**{kw.arg: ast.literal_eval(kw.value) for kw in call.keywords})
    except (ValueError, TypeError, SyntaxError):
        raise ValueError(f"Not a DiscrepancyPrior this version can read: {text!r}.") from None


def _check_metric_defined(metric: str, totals: np.ndarray, levels: list) -> None:
    """Raise when a rate's denominator is a side of the threshold that a group lacks."""
    rate = get_rate(metric)
    den = set(rate.denominator)
    for side, cells, words in ((1, {"tp", "fp"}, "predicted positive"),
                               (0, {"tn", "fn"}, "predicted negative")):  # fmt: skip
        if den <= cells:
            empty = [g for g, t in zip(levels, totals[:, side], strict=True) if t == 0]
            if empty:
                raise InvalidParameterError(
                    f"{rate.label} ({rate.name}) is undefined for group(s) {empty}: none of "
                    f"their assessed examples is {words}, so no number of labels defines it. "
                    "Choose another metric."
                )


def suggest_labels(
    res,
    n: int = 50,
    metric: str = "accuracy",
    objective: str = "variance",
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
    ``metric`` (or the information gain about the calibration maps), builds
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
    objective : {"variance", "information"}
        :data:`OBJECTIVES`.
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
        the gap(s) when it was chosen, or the information gain in nats).

    Raises
    ------
    InvalidParameterError
        For a model without a calibration map, an unknown metric or objective,
        ``n`` larger than the unlabeled pool, a rate undefined for a group, or
        unlabeled data held as a summary (no rows to suggest).
    """
    if not isinstance(res, FairnessPosterior):
        raise TypeError(
            f"The 'res' parameter must be a FairnessPosterior. Got {type(res).__name__}."
        )
    if res.model not in ("rbc", "bc"):
        raise InvalidParameterError(
            f"suggest_labels needs a calibration model ('rbc' or 'bc'): the gain of a label "
            f"depends on its score through the calibration map. Got model={res.model!r}."
        )
    _check_choice(objective, OBJECTIVES, "objective")
    _check_choice(within, WITHIN, "within")
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
    clip = res.settings.get("score_clip", _SCORE_CLIP)
    n_bins = res.settings.get("n_bins") or DEFAULT_BINS
    summary = data.unlabeled_reduction(clip, n_bins)
    pool = _Pool.from_summary(summary)
    _check_metric_defined(metric, pool.totals() + _labeled_sides(data), data.group_levels)
    ref = data.reference if reference is None else data.resolve_group(reference, "reference")
    grp = None if group is None else data.resolve_group(group, "group")
    pairs = _pairs_index(data.group_levels, ref, grp)
    post = _result_posterior(res, data, metric)
    if within != "stratum":
        within = _guard_targeting(res, within)
    picks, gains = _Acquisition(post, pool, pairs, objective).greedy(n, within, rng)
    rows = _rows_for_cells(data, summary, pool, picks, rng, clip, n_bins)
    out = pd.DataFrame({"position": rows})
    ids = data.unlabeled_ids
    if ids is not None:
        out[data.id_name] = ids[rows]
    levels = np.asarray(data.group_levels, dtype=object)
    out["group"] = levels[data.unlabeled_group_codes[rows]]
    out["score"] = data.unlabeled_scores[rows]
    out["gain"] = gains
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
    bad = [str(g) for g in check.loc[check["verdict"] == "misfit", "group"]]
    if not bad:
        return within
    found = (f"The calibration check finds the map of {', '.join(bad)} contradicted by its "
             "labels, and score-targeted labels under-cover where a map is wrong")  # fmt: skip
    if within == "mixed":
        warnings.warn(f"{found}: this batch is chosen by stratum (within='stratum') instead "
                      "of 'mixed'.", CalibrationWarning, stacklevel=3)  # fmt: skip
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


def _rows_for_cells(data, summary, pool: _Pool, picks, rng, clip, n_bins) -> np.ndarray:
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


# ---------------------------------------------------------------- the planner's posterior
class _Laplace:
    """The default model's posterior for preposterior simulation: the maps' marginal
    posterior, a Laplace fit of it, and importance sampling.

    Only the groups' maps θ_g = (log a_g, log b_g, c_g) enter the rates, so the
    hierarchy's μ and σ are integrated out of the prior: per parameter block,
    μ ~ N(0, s_μ) and the group effects ~ N(μ, σ) make θ normal with covariance
    σ² I + s_μ² 11ᵀ given σ, and σ ~ HalfNormal(s_σ) is integrated by quadrature
    (:func:`_block_prior`). The posterior of θ (3 × groups dimensions) is this
    prior times ``rbc``'s labeled likelihood (the hand-written one NUTS samples,
    the strata's states summed out). Sampling μ, σ and the group effects jointly,
    as NUTS does, meets the hierarchy's funnel; θ's posterior has none. One
    approximation: the integrated prior is infinite where a block's group effects
    are all equal (σ → 0), a spike that importance sampling cannot follow (Pareto
    k̂ of 0.7–0.9 with three similar groups), so the planner's prior on σ starts at
    ``target_floor`` = 1/10 of its scale (8% of the half-normal's mass, where the
    groups' maps differ by less than 0.015 in log a); the widths' agreement with
    NUTS, which samples the untruncated prior, is measured in
    ``docs/benchmarks.md``.

    Its mode is found by damped Newton steps (:func:`_newton`), the inverse
    Hessian there scales a multivariate t proposal (ν = 4; Laplace, BDA3 §4.1,
    §13.3), ``oversample × n_draws`` proposals are weighted by the exact posterior
    density over the proposal's, the weights Pareto-smoothed (Vehtari, Simpson,
    Gelman, Yao & Gabry 2024, *JMLR* 25(72)), and ``n_draws`` resampled. The last
    refit's effective sample size and Pareto k̂ are kept in ``ess`` and
    ``pareto_k``: k̂ above 0.7 says the proposal missed the posterior
    (:func:`plan_labels` reports the share of such refits). When it does, one
    adaptive step follows (:meth:`_sample`: population Monte Carlo, Cappé, Guillin,
    Marin & Robert 2004), and the k̂ kept is that of the mixture whose draws are
    used. Earlier designs, and
    why they were replaced: a Gaussian at the joint mode of (μ, σ, z) put σ at
    its prior scale and made intervals 7–26% too wide; with σ held at the current
    posterior's medians the Gaussian was 0.84–0.91 of NUTS' width at 100 labels
    (it misses σ's uncertainty and the heavy tails that the misfit states give);
    importance sampling in (μ, log σ, z) matched NUTS' widths but with Pareto k̂
    of 0.6–0.8, the funnel's signature. Each draw of (a, b, c) then goes through
    the same steps as a fit's draws (misfit strata, unlabeled counts, rates).
    """

    nu = 4.0
    oversample = 4
    floor = 0.5  # σ / s_σ below which the proposal's search ignores the prior (_block_prior)
    target_floor = 0.1  # σ / s_σ: the planner's prior on σ starts here (_block_prior)

    def __init__(self, k, threshold, disc, priors, n_draws, score_clip=_SCORE_CLIP):
        from bayesfair.models._calibration_native import compile_native_calibration

        self.k, self.threshold, self.disc, self.priors = k, threshold, disc, priors
        self.n_draws, self.clip = n_draws, score_clip
        self.native = compile_native_calibration("beta", priors, k, disc)
        self.scales = [(priors.mu_a_sd, priors.sigma_a_sd), (priors.mu_b_sd, priors.sigma_b_sd),
                       (priors.mu_c_sd, priors.sigma_c_sd)]  # fmt: skip
        self.x0 = self.bc_x0 = None  # the last modes: where the next searches start
        self.ess = self.pareto_k = np.nan

    def log_posterior(self, theta, data, floor: float):
        """Log density of θ, shape (N, 3, k), up to a constant, and its gradient
        (``floor``: :func:`_block_prior`'s)."""
        from bayesfair.models._calibration_native import robust_loglik_batch

        abc = theta.copy()
        abc[:, :2] = np.exp(theta[:, :2])
        value, grad = robust_loglik_batch(abc, data)
        grad[:, :2] *= abc[:, :2]  # d/d log a = a d/da
        for blk, (sd_mu, sd_sigma) in enumerate(self.scales):
            v, g = _block_prior(theta[:, blk], sd_mu, sd_sigma, floor)
            value += v
            grad[:, blk] += g
        return value, grad

    def labeled(self, state: _State) -> ScoreSummary:
        """A simulated audit's labeled examples as a summary (the grid of a fit)."""
        return summarize_arrays(
            state.s, state.g, range(self.k), labels=state.y, threshold=self.threshold,
            score_clip=self.clip,
        )  # fmt: skip

    def draws(self, labeled: ScoreSummary, population: ScoreSummary, rng):
        """``(a, b, c, center)``: draws of the maps given the labeled summary, shape (n, k).

        The labeled rows enter as their summary, as in a fit
        (:func:`~bayesfair.models.calibration.likelihood_data`)."""
        k = self.k
        center, self.bc_x0 = center_and_mode(
            labeled, population, priors=self.priors, start=self.bc_x0,
            solver=lambda f, x0: _newton(f, x0)[0],
        )  # fmt: skip
        x_st, n_st = stratum_counts(labeled)
        data = self.native.with_data(
            **likelihood_data(labeled),
            log_free=free_log_likelihoods(x_st, n_st, center, self.disc),
        ).user_data  # fmt: skip

        def objective(x):  # the proposal's centre and scale: the prior's spike left out
            value, grad = self.log_posterior(x.reshape(1, 3, k), data, floor=self.floor)
            return -float(value[0]), -grad[0].ravel()

        x0 = np.zeros(3 * k) if self.x0 is None else self.x0
        mode, hess = _newton(objective, x0)
        self.x0 = mode
        vals, vecs = np.linalg.eigh(hess)
        root = vecs / np.sqrt(np.maximum(vals, 1e-8))  # scale matrix = root rootᵀ
        theta, w, k_hat = self._sample(mode, root, data, rng)
        self.ess, self.pareto_k = 1.0 / float(np.sum(w**2)), float(k_hat)
        keep = theta[rng.choice(len(theta), size=self.n_draws, p=w)]
        return np.exp(keep[:, 0]), np.exp(keep[:, 1]), keep[:, 2], center

    def _sample(self, centre, root, data, rng):
        """Importance sampling from a t at (centre, root), and when its Pareto k̂ exceeds
        0.7 one adaptive step (population Monte Carlo, Cappé et al. 2004): a second t at
        the weighted draws' mean and covariance (scale ×1.5), mixed equally with the
        first, so that a posterior skewed or heavier than the Laplace fit is still
        reached. The mixture's draws and k̂ are then the result (its weights are at
        most twice the first t's, so it is never much worse): the draws, shape
        (n, 3, k), their normalised weights, and k̂ of the draws returned."""
        components = [(centre, root)]
        theta, w, k_hat = self._importance(components, data, rng)
        if k_hat > _PARETO_K_MAX:
            flat = theta.reshape(len(theta), -1)
            mean = w @ flat
            cov = (flat - mean).T @ ((flat - mean) * w[:, None])
            vals, vecs = np.linalg.eigh(cov + 1e-8 * np.eye(cov.shape[0]))
            # a t's covariance is its scale matrix × ν / (ν − 2)
            root2 = vecs * np.sqrt(np.maximum(vals, 1e-12) * 1.5**2 * (self.nu - 2) / self.nu)
            theta, w, k_hat = self._importance([*components, (mean, root2)], data, rng)
        return theta, w, k_hat

    def _importance(self, components, data, rng):
        """Importance sampling from an equal mixture of multivariate t's (ν = ``nu``),
        each a (centre, root) with scale matrix root rootᵀ: the proposals, shape
        (n, 3, k), their Pareto-smoothed normalised weights, and Pareto k̂."""
        from arviz import psislw
        from scipy.special import logsumexp

        k, nu = self.k, self.nu
        n_prop = self.oversample * self.n_draws
        d = components[0][0].size
        # one component draws no index, so the first stage's stream is the plain t's
        pick = (
            np.zeros(n_prop, int) if len(components) == 1
            else rng.integers(len(components), size=n_prop)
        )  # fmt: skip
        t = rng.standard_normal((n_prop, d)) * np.sqrt(nu / rng.chisquare(nu, (n_prop, 1)))
        flat = np.empty((n_prop, d))
        for j, (centre, root) in enumerate(components):
            flat[pick == j] = centre + t[pick == j] @ root.T
        log_q = []
        for centre, root in components:  # each t's log density up to a shared constant
            z = np.linalg.lstsq(root, (flat - centre).T, rcond=None)[0].T
            log_det = np.sum(np.log(np.abs(np.linalg.svd(root, compute_uv=False))))
            log_q.append(-0.5 * (nu + d) * np.log1p((z**2).sum(axis=1) / nu) - log_det)
        log_q = logsumexp(np.array(log_q), axis=0)
        theta = flat.reshape(n_prop, 3, k)
        log_w = self.log_posterior(theta, data, floor=self.target_floor)[0] - log_q
        w = np.zeros(n_prop)
        finite = np.isfinite(log_w)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # k̂ is reported by plan_labels, not here
            smoothed, k_hat = psislw(log_w[finite])
        w[finite] = np.exp(smoothed - smoothed.max())
        return theta, w / w.sum(), float(k_hat)


@lru_cache(maxsize=8)
def _sigma_nodes(floor: float):
    """Gauss–Legendre nodes and log weights for σ / s_σ ~ HalfNormal(1) on [floor, 6],
    in log σ (the integrand is smooth there); 64 nodes."""
    x, w = np.polynomial.legendre.leggauss(64)
    lo, hi = np.log(floor), np.log(6.0)
    u = 0.5 * (hi - lo) * x + 0.5 * (hi + lo)
    nodes = np.exp(u)
    log_weights = np.log(0.5 * (hi - lo) * w) + u + np.log(np.sqrt(2.0 / np.pi)) - 0.5 * nodes**2
    return nodes, log_weights


def _block_prior(theta, sd_mu, sd_sigma, floor: float):
    """Log prior of one parameter block's group effects, μ and σ integrated out, and its
    gradient; ``theta`` has shape (N, k).

    θ | σ ~ N(0, σ² I + s_μ² 11ᵀ) (μ ~ N(0, s_μ) integrated analytically, by
    Sherman–Morrison), σ ~ HalfNormal(s_σ) restricted to σ ≥ ``floor`` × s_σ,
    integrated by Gauss–Legendre quadrature in log σ (:func:`_sigma_nodes`). The
    unrestricted density is infinite where the group effects are all equal
    (σ → 0: for two groups a logarithmic spike), which no importance sampler
    follows; the floor removes it.
    """
    nodes, log_weights = _sigma_nodes(float(floor))
    n_groups = theta.shape[1]
    sq = np.sum(theta**2, axis=1)[:, None]  # (N, 1)
    tot = np.sum(theta, axis=1)[:, None]
    var = (sd_sigma * nodes) ** 2  # (J,)
    denom = var + n_groups * sd_mu**2
    quad = (sq - sd_mu**2 * tot**2 / denom) / var  # θᵀ Σ⁻¹ θ, (N, J)
    log_det = (n_groups - 1) * np.log(var) + np.log(denom)
    log_terms = log_weights - 0.5 * (quad + log_det)  # up to a constant
    top = log_terms.max(axis=1, keepdims=True)
    post = np.exp(log_terms - top)
    value = np.log(post.sum(axis=1)) + top[:, 0]
    post /= post.sum(axis=1, keepdims=True)
    # ∇ log N_j = −Σ_j⁻¹ θ = −(θ − s_μ² (Σθ) / (σ_j² + k s_μ²)) / σ_j²
    a_j = post / var  # (N, J)
    b_j = post * sd_mu**2 / (denom * var)
    grad = -(theta * a_j.sum(axis=1)[:, None] - tot * b_j.sum(axis=1)[:, None])
    return value, grad


def _hessian(objective, x: np.ndarray) -> np.ndarray:
    """Hessian of ``objective`` (value, gradient) at ``x`` by central differences of the
    exact gradient, symmetrised."""
    d = x.size
    out = np.empty((d, d))
    for i in range(d):
        step = 1e-4 * max(1.0, abs(x[i]))
        up, down = x.copy(), x.copy()
        up[i] += step
        down[i] -= step
        out[i] = (objective(up)[1] - objective(down)[1]) / (2 * step)
    return 0.5 * (out + out.T)


def _newton(objective, x0: np.ndarray, max_iter: int = 100, tol: float = 1e-6):
    """Minimise ``objective`` (value, gradient) by damped Newton steps; ``(x, Hessian at x)``.

    The Hessian comes from :func:`_hessian`; where it is not positive definite its
    eigenvalues are replaced by their absolute values (at least 1e-6), and each step
    is halved until the Armijo condition holds. From a warm start (the previous
    budget's mode) this takes a few steps, where L-BFGS took about fifty.
    """
    x = np.asarray(x0, dtype=float).copy()
    fx, g = objective(x)
    for _ in range(max_iter):
        hess = _hessian(objective, x)
        vals, vecs = np.linalg.eigh(hess)
        step = -(vecs @ ((vecs.T @ g) / np.maximum(np.abs(vals), 1e-6)))
        t, slope = 1.0, float(g @ step)
        while t > 1e-10:
            x_new = x + t * step
            f_new, g_new = objective(x_new)
            if np.isfinite(f_new) and f_new <= fx + 1e-4 * t * slope:
                break
            t *= 0.5
        else:
            break
        moved = np.max(np.abs(x_new - x))
        x, fx, g = x_new, f_new, g_new
        if np.max(np.abs(g)) < tol or moved < 1e-9:
            break
    return x, _hessian(objective, x)


def _prior_draws(priors, k: int, n: int, rng):
    """Draws of (a, b, c) from the calibration prior (a plan without any label)."""

    def block(mu_sd, sigma_sd):
        mu = rng.normal(0.0, mu_sd, (n, 1))
        sigma = np.abs(rng.normal(0.0, sigma_sd, (n, 1)))
        return mu + sigma * rng.standard_normal((n, k))

    a = np.exp(block(priors.mu_a_sd, priors.sigma_a_sd))
    b = np.exp(block(priors.mu_b_sd, priors.sigma_b_sd))
    c = block(priors.mu_c_sd, priors.sigma_c_sd)
    return a, b, c


@dataclass
class _State:
    """One simulated audit: the labeled examples so far and the pool left."""

    s: np.ndarray
    y: np.ndarray
    g: np.ndarray
    pool: _Pool

    def add(self, cells: np.ndarray, truth, rng) -> _State:
        pool = replace(self.pool, count=self.pool.count.copy())
        np.subtract.at(pool.count, cells, 1.0)
        s_new = np.exp(pool.log_s[cells])
        y_new = truth.labels(cells, pool, rng)
        return _State(
            s=np.concatenate([self.s, s_new]),
            y=np.concatenate([self.y, y_new]),
            g=np.concatenate([self.g, pool.group[cells]]),
            pool=pool,
        )


@dataclass
class _Truth:
    """A plausible truth: one posterior draw of the maps and of the misfit strata."""

    a: np.ndarray  # (k,)
    b: np.ndarray
    c: np.ndarray
    free: np.ndarray  # (k, 2) bool
    rate: np.ndarray  # (k, 2)

    def labels(self, cells, pool: _Pool, rng) -> np.ndarray:
        g, h = pool.group[cells], pool.side[cells]
        eta = self.c[g] + self.a[g] * pool.log_s[cells] - self.b[g] * pool.log_1ms[cells]
        p = np.where(self.free[g, h], self.rate[g, h], 0.5 * (1.0 + np.tanh(0.5 * eta)))
        return (rng.random(p.size) < p).astype(np.int8)


class _SimData:
    """The parts of :class:`AssessmentData` that the frequentist intervals read, for a
    simulated labeled set and the pool left unlabeled (internal)."""

    def __init__(self, state: _State, levels: list, reference, threshold: float):
        self.group_levels, self.reference, self.threshold = levels, reference, threshold
        self.scores, self.labels, self.group_codes = state.s, state.y, state.g
        self.n_groups = len(levels)
        self._summary = state.pool.summary()
        self.n_unlabeled = self._summary.n_total
        self.n_labeled = state.s.size
        self._counts = count_confusion(
            (state.s >= threshold).astype(np.int8), state.y, state.g, self.n_groups
        )

    def counts_array(self):
        return self._counts

    def unlabeled_reduction(self, score_clip=_SCORE_CLIP, n_bins=None):
        return self._summary

    def resolve_group(self, label, argument="group"):
        return label

    def pairs(self, reference=None):
        ref = self.reference if reference is None else reference
        return [(g, ref) for g in self.group_levels if g != ref]


def _check_budgets(budgets, n_have: int, n_pool: int) -> list[int]:
    if budgets is None:
        steps = [n_have + d for d in (50, 100, 200, 400, 800, 1600)]
        return [b for b in steps if b <= n_have + n_pool] or [n_have + n_pool]
    try:
        values = [check_positive_int(b, "budgets") for b in budgets]
    except TypeError:
        raise InvalidParameterError(
            f"The 'budgets' parameter must be a list of label counts. Got {budgets!r}."
        ) from None
    if not values:
        raise InvalidParameterError("The 'budgets' parameter must hold at least one budget.")
    low = [b for b in values if b < n_have]
    if low:
        raise InvalidParameterError(
            f"Budget(s) {low} are smaller than the {n_have} labels already collected. A budget "
            "is the total number of labels, those collected included."
        )
    high = [b for b in values if b > n_have + n_pool]
    if high:
        raise InvalidParameterError(
            f"Budget(s) {high} exceed the {n_have} labeled and {n_pool} unlabeled examples: "
            "there is nothing more to label."
        )
    return sorted(set(values))


def _frequentist(method, sim: _SimData, metric, pairs, ci_prob, rng):
    """``{(i, j): (lo, hi)}`` of one frequentist method on a simulated data set."""
    out = {}
    num, den = rate_fraction(sim.counts_array(), metric)
    for i, j in pairs:
        gi, gj = sim.group_levels[i], sim.group_levels[j]
        if method == "newcombe":
            lo, hi = newcombe_interval(num[i], den[i], num[j], den[j], ci_prob)
            out[(i, j)] = (float(lo), float(hi))
        elif method == "bernstein":
            n = den[i] + den[j]
            if den[i] == 0 or den[j] == 0:
                out[(i, j)] = (np.nan, np.nan)
                continue
            gam = min(den[i], den[j]) / n
            t = bernstein_half_width(int(n), ci_prob=ci_prob, cost_range=1.0,
                                     min_group_fraction=float(gam),
                                     variance=n / den[i] + n / den[j])  # fmt: skip
            est = num[i] / den[i] - num[j] / den[j]
            out[(i, j)] = (float(est - t), float(est + t))
        else:
            r = ppi_difference(sim, metric, group=gi, reference=gj, ci_prob=ci_prob,
                               random_seed=rng)  # fmt: skip
            out[(i, j)] = tuple(map(float, r.interval))
    return out


def plan_labels(
    data,
    metric: str = "accuracy",
    epsilon: float = 0.02,
    budgets=None,
    n_sims: int = 50,
    *,
    methods=None,
    strategies=("random", "active"),
    group=None,
    reference=None,
    ci_prob: float = 0.95,
    objective: str = "variance",
    within: str = "stratum",
    design_prior=None,
    n_draws: int = 500,
    random_seed=None,
    progressbar: bool = False,
    return_simulations: bool = False,
):
    """How many labels a decision about a rate gap needs: preposterior simulation.

    For each of ``n_sims`` simulated audits: draw a plausible truth (the
    calibration maps and misfit strata) from the current posterior of the
    default model (one NUTS fit, 2 × 500 draws), or from its prior when nothing
    is labeled yet; then, for
    each strategy, add labels up to each budget (drawn from that truth for
    the examples the strategy picks), refit, and record each method's
    interval of Δ: its width, and whether the ROPE rule reaches a decision
    (the interval inside ``[−ε, ε]``: practically fair; outside: unfair).
    The Bayesian refit is an importance sampler for ``rbc``'s posterior whose
    proposal is the Laplace approximation at the mode (``_Laplace``); its
    widths against NUTS fits, and the plan against real labeling loops, are in
    ``docs/benchmarks.md``.

    Parameters
    ----------
    data : AssessmentData or ScoreSummary
        The labels collected so far and the unlabeled examples, or only the
        unlabeled examples (a summary from :func:`bayesfair.summarize_unlabeled`)
        when nothing is labeled yet; the reference group is then the largest.
    metric : str, default "accuracy"
    epsilon : float, default 0.02
        Half-width of the region of practical fairness.
    budgets : list of int, optional
        Total numbers of labels (those collected included), each at least
        the number collected. Default: 50, 100, 200, 400, 800 and 1,600 more
        than collected, as far as the pool allows.
    n_sims : int, default 50
        Simulated audits per budget.
    methods : list of str, optional
        Among :data:`PLAN_METHODS`; default all four.
    strategies : list of str
        Among :data:`STRATEGIES`. ``"active"`` adds each budget's labels as
        one batch of :func:`suggest_labels`' acquisition.
    group, reference : optional
        One gap; default every group against the reference.
    ci_prob : float, default 0.95
    objective, within : str
        The acquisition's objective (:data:`OBJECTIVES`) and what it targets
        (:data:`WITHIN`), as in :func:`suggest_labels`. The simulated audits
        follow the model, so ``"mixed"``'s fallback on a flagged calibration
        check is not simulated.
    design_prior : CalibrationPriors, optional
        The prior of the simulated truths (the *design prior* of O'Hagan &
        Stevens 2001), when it should differ from the model's prior (the
        *analysis prior*, :class:`~bayesfair.models.calibration.CalibrationPriors`
        by default, which every refit uses). The truths are then drawn from
        the posterior under the design prior (a second NUTS fit).
    n_draws : int, default 500
        Draws of each approximate posterior.
    random_seed : None, int, SeedSequence or Generator
    progressbar : bool
        A one-line progress count on standard error.
    return_simulations : bool
        Also return the per-simulation table.

    Returns
    -------
    pandas.DataFrame
        One row per strategy, method, pair and budget: ``n_new`` (labels
        added), ``width_median``, ``width_q10``, ``width_q90`` (quantiles of
        the interval's width over the simulations), ``p_decision`` (share of
        simulations with a decision), ``p_fair``, ``valid`` (False for
        frequentist intervals after active selection, which they do not
        allow for: module docstring), ``unreliable`` (the share of simulations
        whose Bayesian refit has Pareto k̂ > 0.7: the importance sampler
        missed the posterior there, a ``SamplingWarning`` names the budgets
        where it exceeds 20%, beyond what the medians shrug off; NaN for the
        frequentist methods and where the current NUTS fit is used) and
        ``n_sims``. With ``return_simulations``, a pair ``(summary,
        simulations)``; the simulations carry each refit's ``pareto_k``.
    """
    metric = get_rate(metric).name
    epsilon = _check_epsilon(epsilon)
    ci_prob = check_probability(ci_prob)
    n_sims = check_positive_int(n_sims, "n_sims")
    n_draws = check_positive_int(n_draws, "n_draws", minimum=100)
    methods = list(PLAN_METHODS) if methods is None else list(methods)
    for m in methods:
        if m not in PLAN_METHODS:
            raise InvalidParameterError(
                f"Unknown method {m!r}; choose among {', '.join(map(repr, PLAN_METHODS))}."
            )
    strategies = [strategies] if isinstance(strategies, str) else list(strategies)
    for st in strategies:
        if st not in STRATEGIES:
            raise InvalidParameterError(
                f"Unknown strategy {st!r}; choose among {', '.join(map(repr, STRATEGIES))}."
            )
    _check_choice(objective, OBJECTIVES, "objective")
    _check_choice(within, WITHIN, "within")
    if isinstance(data, ScoreSummary):
        if data.labeled:
            raise InvalidParameterError(
                "plan_labels takes the unlabeled examples' summary; this one holds labels "
                "(pass AssessmentData with the labeled rows, or summary.without_labels())."
            )
        levels = list(data.group_levels)
        pool = _Pool.from_summary(data, _PLAN_COARSEN)
        threshold = data.threshold
        s0, y0, g0 = np.empty(0), np.empty(0, dtype=np.int8), np.empty(0, dtype=np.intp)
        ref = levels[int(np.argmax(pool.totals().sum(axis=1)))] if reference is None else reference
        if ref not in levels:
            raise InvalidParameterError(f"Unknown reference {ref!r}; the groups are {levels}.")
    elif isinstance(data, AssessmentData):
        if data.n_unlabeled == 0:
            raise InvalidParameterError(
                "plan_labels draws the labels to come from the unlabeled examples; this data "
                "set has none."
            )
        levels = list(data.group_levels)
        pool = _Pool.from_summary(data.unlabeled_reduction(_SCORE_CLIP), _PLAN_COARSEN)
        threshold = data.threshold
        s0, y0 = np.asarray(data.scores, float), np.asarray(data.labels, np.int8)
        g0 = np.asarray(data.group_codes, np.intp)
        ref = data.reference if reference is None else data.resolve_group(reference, "reference")
    else:
        raise TypeError(
            "The 'data' parameter must be an AssessmentData or an unlabeled ScoreSummary. "
            f"Got {type(data).__name__}."
        )
    k = len(levels)
    if k < 2:
        raise InvalidParameterError("A gap needs two groups; the data have one.")
    if group is not None and group not in levels:
        raise InvalidParameterError(f"Unknown group {group!r}; the groups are {levels}.")
    side0 = np.zeros((k, 2))
    np.add.at(side0, (g0, (s0 >= threshold).astype(np.intp)), 1.0)
    _check_metric_defined(metric, pool.totals() + side0, levels)
    budgets = _check_budgets(budgets, s0.size, round(float(pool.count.sum())))
    pairs = _pairs_index(levels, ref, group)
    rng = check_random_state(random_seed)
    priors, disc = CalibrationPriors(), DiscrepancyPrior()
    start = _State(s0, y0, g0, pool)
    first = None
    if s0.size:  # the current posterior, by NUTS: the truths
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = fit(data, metrics=[metric], draws=500, tune=500, chains=2, progressbar=False,
                      random_seed=int(rng.integers(2**31)))  # fmt: skip
        for w in caught:
            if issubclass(w.category, CalibrationWarning):
                warnings.warn(f"{w.message} The plan assumes the model.", CalibrationWarning,
                              stacklevel=2)  # fmt: skip
        first = _Fitted(_result_posterior(res, data, metric), {})
    laplace = _Laplace(k, threshold, disc, priors, n_draws)
    if design_prior is not None and not isinstance(design_prior, CalibrationPriors):
        raise InvalidParameterError(
            f"The 'design_prior' parameter must be a CalibrationPriors. Got {design_prior!r}."
        )
    design = priors if design_prior is None else design_prior
    truth_post = None if first is None else first.posterior
    if first is not None and design != priors:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the analysis fit above has said what it found
            res_d = fit(data, metrics=[metric], draws=500, tune=500, chains=2, prior=design,
                        progressbar=False, random_seed=int(rng.integers(2**31)))  # fmt: skip
        truth_post = _result_posterior(res_d, data, metric)

    with warnings.catch_warnings():
        # sparse strata in small simulated labeled sets are expected here; the plan
        # reports widths, not the intervals themselves
        warnings.simplefilter("ignore")
        truths = _draw_truths(truth_post, start, laplace, design, disc, k, n_sims, rng)
        rows = []
        began = time.perf_counter()
        for i, truth in enumerate(truths):
            for strategy in strategies:
                state, fitted = start, first
                laplace.x0 = laplace.bc_x0 = None
                for budget in budgets:
                    n_add = budget - state.s.size
                    if n_add > 0:
                        if strategy == "random":
                            picks = np.repeat(
                                np.arange(state.pool.count.size),
                                rng.multivariate_hypergeometric(
                                    state.pool.count.astype(np.int64), n_add
                                ),
                            )
                        else:
                            post = fitted.posterior if fitted is not None else _prior_posterior(
                                state, priors, metric, k, n_draws, rng)  # fmt: skip
                            picks, _ = _Acquisition(post, state.pool, pairs, objective).greedy(
                                n_add, within, rng
                            )
                        state = state.add(picks, truth, rng)
                    if n_add > 0 or fitted is None:  # at n_new = 0: the NUTS posterior itself
                        fitted = _fit_state(laplace, state, metric, rng) if state.s.size else None
                    rows += _record(i, strategy, budget, budget - s0.size, state, fitted, methods,
                                    metric, pairs, levels, ref, threshold, ci_prob, epsilon,
                                    within, rng)  # fmt: skip
            if progressbar:
                import sys

                print(f"\rplan: {i + 1}/{n_sims} simulations, {time.perf_counter() - began:.0f} s",
                      end="", file=sys.stderr, flush=True)  # fmt: skip
        if progressbar:
            print(file=sys.stderr)
    sims = pd.DataFrame(rows)
    summary = _summarise_plan(sims)
    # the plan reports medians over the simulations, which a few rough refits barely move
    shaky = summary[summary["unreliable"] > 0.2]
    if len(shaky):
        warnings.warn(
            "The planner's Bayesian refits were unreliable (Pareto k̂ > 0.7) in more than "
            f"20% of the simulations at budget(s) {sorted(set(shaky['budget']))}: the proposal "
            "missed the posterior there, and those widths are rough. Plan again from more "
            "labels, or check a budget with a real fit.",
            SamplingWarning, stacklevel=2,
        )  # fmt: skip
    return (summary, sims) if return_simulations else summary


@dataclass
class _Fitted:
    posterior: _Posterior
    delta: dict  # (i, j) -> draws of the gap
    pareto_k: float = np.nan  # of the importance-sampled refit; NaN for a NUTS fit


def _fit_state(laplace: _Laplace, state: _State, metric, rng) -> _Fitted:
    summary = state.pool.summary()
    lab = laplace.labeled(state)
    a, b, c, center = laplace.draws(lab, summary, rng)
    u = sampled_counts(summary, a, b, c, rng)
    u, _, p_free, _ = robust_unlabeled_counts(
        lab, summary, u, (a, b, c), laplace.disc, "assessed", rng, center=center
    )
    labeled = lab.confusion_counts()
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = rate_from_counts(u + labeled, metric)
    x_st, n_st = stratum_counts(lab)
    mean_u = expected_counts(summary, a.mean(0)[None], b.mean(0)[None], c.mean(0)[None])[0]
    post = _Posterior(
        a=a, b=b, c=c, rates=rates, p_free=p_free.mean(axis=0), center=center, x_st=x_st,
        n_st=n_st, counts=mean_u + labeled, assessed=True, metric=metric,
        concentration=mean_concentration(x_st, n_st, center, laplace.disc.concentration),
    )  # fmt: skip
    return _Fitted(post, {}, laplace.pareto_k)


def _prior_posterior(state: _State, priors, metric, k, n_draws, rng) -> _Posterior:
    """The acquisition's view of the prior (nothing labeled yet)."""
    summary = state.pool.summary()
    a, b, c = _prior_draws(priors, k, n_draws, rng)
    counts = expected_counts(summary, a, b, c)
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = rate_from_counts(counts, metric)
    return _Posterior(
        a=a, b=b, c=c, rates=rates, p_free=None, center=None, x_st=np.zeros((k, 2)),
        n_st=np.zeros((k, 2)), counts=np.nanmean(counts, axis=0), assessed=True, metric=metric,
    )  # fmt: skip


def _draw_truths(post, start: _State, laplace, priors, disc, k, n_sims, rng) -> list[_Truth]:
    """``n_sims`` truths from a posterior (:class:`_Posterior`), or from ``priors`` if None."""
    if post is not None:
        idx = rng.choice(post.a.shape[0], size=n_sims, replace=n_sims > post.a.shape[0])
        a, b, c = post.a[idx], post.b[idx], post.c[idx]
        free, rate, _, _ = sample_misfit(
            laplace.labeled(start), a, b, c, disc, rng, center=post.center
        )
    else:
        a, b, c = _prior_draws(priors, k, n_sims, rng)
        shared = rng.random((n_sims, 1, 2)) < disc.shared_prior_misfit
        free = shared | (rng.random((n_sims, k, 2)) < disc.prior_misfit)
        rate = draw_prior_rates(disc, np.full((k, 2), 0.5), shared, rng)
    return [_Truth(a[i], b[i], c[i], free[i], rate[i]) for i in range(n_sims)]


def _valid(method: str, strategy: str, within: str) -> bool:
    """Whether a method's interval keeps its guarantee after the strategy's selection."""
    if strategy == "random" or method == "bayes":
        return True
    return method == "ppi" and within == "stratum"


def _record(sim, strategy, budget, n_new, state, fitted, methods, metric, pairs, levels, ref,
            threshold, ci_prob, epsilon, within, rng) -> list[dict]:  # fmt: skip
    intervals = {}
    for method in methods:
        if method == "bayes":
            intervals[method] = {}
            for i, j in pairs:
                d = fitted.posterior.rates[:, i] - fitted.posterior.rates[:, j]
                intervals[method][(i, j)] = hdi(d[np.isfinite(d)], ci_prob)
        else:
            sim_data = _SimData(state, levels, ref, threshold)
            intervals[method] = _frequentist(method, sim_data, metric, pairs, ci_prob, rng)
    rows = []
    for method, by_pair in intervals.items():
        for (i, j), (lo, hi) in by_pair.items():
            verdict = _rope_decide(lo, hi, epsilon)
            rows.append({
                "sim": sim, "strategy": strategy, "method": method, "group": levels[i],
                "reference": levels[j], "budget": budget, "n_new": n_new, "lower": lo,
                "upper": hi, "width": hi - lo, "verdict": verdict,
                "valid": _valid(method, strategy, within),
                "pareto_k": fitted.pareto_k if method == "bayes" else np.nan,
            })  # fmt: skip
    return rows


def _summarise_plan(sims: pd.DataFrame) -> pd.DataFrame:
    keys = ["strategy", "method", "group", "reference", "budget", "n_new"]
    grouped = sims.groupby(keys, sort=False)
    out = grouped.agg(
        width_median=("width", "median"),
        width_q10=("width", lambda w: w.quantile(0.1)),
        width_q90=("width", lambda w: w.quantile(0.9)),
        p_decision=("verdict", lambda v: float(np.isin(v, ["practically fair", "unfair"]).mean())),
        p_fair=("verdict", lambda v: float((v == "practically fair").mean())),
        valid=("valid", "all"),
        unreliable=(
            "pareto_k",
            lambda k: float((k > _PARETO_K_MAX).mean()) if k.notna().any() else np.nan,
        ),
        n_sims=("sim", "nunique"),
    ).reset_index()
    return out
