"""Stratum shifts: how far a group's calibration map may stray from the pooled one.

The hierarchical calibration model (:mod:`bayesfair.models.calibration`) earns its
narrow intervals by borrowing each group's map from the others': the spread priors
of Ji et al. (2020, §2.4), σ_a, σ_b ~ HalfNormal(0.15), keep the groups' slopes
within about ±30% of one another. Where one group's scores mean something else
(noisier labels, over- or under-confident scores) that group's map is pulled
towards the others', and the unlabeled examples then carry the others' calibration
into its rates: narrow intervals around the wrong value. That is the harm an audit
looks for, so the default (``rbc``) does not trust the pooling blindly.

**The shift.** In each stratum, a group ``g`` and a side ``h`` of the threshold, the
labels follow the group's map moved by an intercept of the stratum's own,

    y ~ Bernoulli(σ(η_g(s) + δ[g, h])),   δ[g, h] ~ N(0, τ²),
    τ = max(τ₀, τ'),   τ' ~ HalfNormal(s_τ),

and so do the stratum's unlabeled examples. The rates depend on the unlabeled
examples only through each stratum's positives, and a logit intercept per stratum
is what matches them: at the maximum of the likelihood the stratum's calibrated
probabilities add up to its labeled positives (a logistic model's intercept
equation), whatever the map's shape. So a group whose labels say its scores
overstate positives by 8 points on a side has that side's unlabeled positives
lowered by as much as its labels show, and as uncertainly as they show it. The
spread τ is learned from all the strata: where every group's labels agree with
the pooled map, τ is small and the shifts vanish (the pooled model's width); where
one group's do not, τ grows, and the shifts follow the labels.

A shift is the stratified, prediction-powered correction of the map (Angelopoulos
et al. 2023, *Science* 382, §2: the rectifier; Fisch et al. 2024, stratified PPI)
written as a likelihood, so that it stays valid when labels were chosen by score
(ignorable selection), and pooled over strata (Gelman et al., BDA3 §5.5).

**Modular inference.** The shifts are drawn per posterior draw of the maps, given
the maps (a *cut*: Plummer 2015, *Stat. Comput.* 25; Jacob et al. 2017): the
sampler keeps ``rbc``'s parameters and cost, and for each draw ``(a, b, c)`` this
module draws τ and the shifts from their exact conditional posterior on a grid
(:func:`sample_shifts`). The labels enter the map and the shifts both: where a
group's own labels fix its map, its intercept's uncertainty is counted twice, which
widens, never narrows, its intervals; where the map is the others' (the case the
shifts exist for), the group's labels inform the shifts alone.

**Why a floor τ₀ = 0.5 under a half-normal of scale 1.** A shift of 0.5 on the logit
scale moves a stratum's positive rate from 0.50 to 0.62, or from 0.85 to 0.90. The
distortions an audit must not hide are of that size: 12% of one group's labels
flipped shifts its strata by about ±0.5; scores over- or under-confident by a factor
2 on the logit scale by 0.5–1.5. A group's own labels can show a shift that size only
with hundreds of them; with a few dozen they cannot tell a distorted group from one
like the others, and a learned τ then shrinks the group's shifts towards 0, which
is where the pooled model lost its coverage. Measured over 17 cells
(``benchmarks/differential_calibration.py``: 12% label noise, scores over- or
under-confident by a factor 2, 2 and 4 groups, 200 and 2,000 labels, groups alike,
and a scikit-learn model's scores with noisy labels in one group;
20 data sets each, accuracy, TPR and FPR gaps): without shifts the model covered 0.68
of the distorted cells' gaps on average and 0.25 at worst; with a learned τ alone
0.90 and 0.80, at 1.32 times the pooled width where the groups are alike; with a
floor of 0.3, 0.92 and 0.80 at 1.47 times; with the floor of 0.5, 0.93 and 0.85 at
1.59 times (and 0.68 times ``bb``'s width where a group differs). The floor buys
the margin above 0.80 in the cells where a group's labels cannot show its
distortion; ``docs/results/differential_calibration.md`` has every cell.

**Why no share of the pooled map by default.** ``ShiftPrior(share=p)`` lets each
group share the pooled map without shifts with prior probability ``p``, weighed by
its labels (their likelihood at δ = 0 against its average over ``N(0, τ²)``, the
Bayes factor of a spike against a slab). Where the groups are alike it narrows the
intervals: 1.30 (p = 0.5) and 1.17 (p = 0.75) times the pooled width, against the
default's 1.59. Over the same distorted cells its coverage fell to 0.89 on average and
0.75 at worst (p = 0.5), 0.83 and 0.55 (p = 0.75). Our reading, not measured
directly: a group whose few labels cannot show its distortion is read as sharing
the map, and so is a group like the others whose pooled map the distorted group has
pulled. The default keeps ``share = 0``.

**Why no local scales by default.** ``ShiftPrior(local=True)`` scales each group's
shifts by a multiplier of its own, ``δ[g, h] ~ N(0, τ² λ_g²)``, ``λ_g ~ HalfCauchy(1)``
(a local–global prior: Carvalho, Polson & Scott 2010, *Biometrika* 97), so that a
distorted group escapes the spread the groups like the others set, and those groups are
shrunk harder. Measured on the same cells with τ learned (no floor): 0.88 on average and
0.75 at worst, at 1.31 times the pooled width where the groups are alike (half-normal
scale 1); 0.87 and 0.70 at 1.26 times (scale 0.5). Holding the groups' map intercepts
together (``CalibrationPriors(sigma_c_sd=0.05)``, so that a group's own intercept comes
from its shifts alone) changed nothing with the floor (0.94, 0.85, 1.58) and gave 0.90,
0.70 and 1.28 with τ learned; slopes free to differ (``sigma_a_sd = sigma_b_sd = 0.5``,
so that a distorted group's slope does not pull the others') gave 0.92, 0.80 and 1.39
with τ learned. Every mechanism measured lies on one curve: where the
groups are alike, each step narrower than about 1.3 times the pooled width is paid for
with coverage where one differs, most with 2,000 labels (500–1,000 per group), where
every variant without the floor fell to 0.70–0.80 in some cell-metrics.

**The curve's floor.** In the normal limit of these cells (the pooled estimate biased
by β, the labels' debiased estimate beside it), an interval that keeps 95% for every
distortion up to the sizes measured is, where the groups are alike, at least 1.38
times the pooled width on average over the cells (Pratt 1961's bound on the expected
length at one point; bootstrap 95% interval 1.34–1.41 over 200 data sets per cell;
1.20–1.63 by cell), and the best interval of one width everywhere (Armstrong & Kolesár
2018, *Econometrica* 86) 1.53 times; the default's 1.59 is 4% above the latter
(``benchmarks/adaptation_bound.py``, ``docs/results/adaptation_bound.md``, with the
bound's assumptions). Counting the pooled model's larger error where a map differs
raises the bound to 1.47 (1.39 with two groups).

**Many groups: the floor is kept.** The floor is the price of the hardest case, two
groups, where the data cannot say which group's scores mean something else; with many
groups it is the widest part of an intersectional band (60 census-style groups, 1,000
labels: about 1.8 times as wide as without shifts). ``ShiftPrior(scale_with_groups=True)``
lets the groups teach the spread (:meth:`ShiftPrior.for_groups`): beyond ``floor_groups``
(10) groups the floor of the spread they share falls to ``0.5 · √(10 / K)`` (0.29 with
30, 0.20 with 60; the 2K strata estimate τ with a standard error falling as
``1 / √(2K)``), and each group may be *odd* with prior probability 0.05 (``odd``): its
spread is then ``max(0.5, τ)`` whatever the others teach, its labels weighing the
choice, so that a group whose labels stray is set apart instead of widening the others
through τ. It is not the default, because it was measured to lose coverage where one
group differs (``benchmarks/census_intersections.py``, ``docs/results/
census_intersections.md``; one group at the upper quartile of the shares distorted):

- where the groups are alike its joint bands are 0.82–0.88 (1,000 labels) and 0.75–0.83
  (5,000 labels) of the default's, median over data sets, K = 30 and 60, and they cover;
- where one of 60 groups differs its joint band covered 6 of 8 data sets with 12% label
  noise and 5,000 labels (the distorted group, 87 labels, missed by about a point), 6 of
  8 accuracy bands with over-confident scores and 5,000 labels, and 7 of 8 with label
  noise and 1,000 labels; the default's floor covered those data sets (the page has the
  counts). An odd probability of 0.2 still missed two of the four data sets with 5,000
  labels, at 0.86 of the default's width;
- without the odd option a floor of 0.13 let 59 alike groups shrink the distorted
  group's shifts (under-confident scores, 87 labels: a miss in one of two data sets, as
  with odd probabilities of 0.01 and 0.02);
- below ten groups every trial that lowered the floor lost coverage for a few percent
  of width (pairs ``g0 − g1``, 20 data sets per cell,
  ``benchmarks/differential_calibration.py``): ``0.5 · √(2 / K)`` (0.35 with four
  groups) narrowed the four-group intervals by 4% and covered 17 of 20 TPR gaps with
  12% label noise and 2,000 labels (19 before); ``0.5 · √(4 / K)`` with odd groups (0.32
  with ten groups, 1,000 labels) narrowed them by 10–14% and covered 17 of 20 accuracy
  gaps with label noise (20 before) and 17 of 20 accuracy and TPR gaps with
  under-confident scores (19 before).

How far any schedule could go is bounded, for bands that keep their level for every
distortion of one group's map whose bias is at most the census check's: in the Gaussian
limit, with the shared map given exactly and the band tuned to be shortest where the
groups are alike, a band that holds for all the groups at once with probability 0.95
(the groups' misses independent) is at least 0.71–0.76 of the default's width on
accuracy gaps and 0.68–0.71 on TPR gaps, median over data sets (single data sets down
to 0.65), K = 30 and 60, 1,000 and 5,000 labels
(:func:`bayesfair.datasets.limits.joint_band_bounds`, ``benchmarks/census_bound.py``,
``docs/results/census_bound.md``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from numbers import Integral, Real

import numpy as np

from bayesfair.exceptions import InvalidParameterError
from bayesfair.models.likelihood import entry_predictor, likelihood_data
from bayesfair.models.unlabeled import expected_counts, sampled_counts

#: The grid of shifts (logit units) on which each stratum's conditional posterior is
#: evaluated: step 0.05 over [−5, 5]. A shift beyond ±5 moves a rate of 1/2 past
#: 0.007 or 0.993; within the grid a draw is jittered uniformly over its cell (a
#: shift's error is at most 0.025 logit units, 0.6 points of a rate near 1/2).
SHIFT_GRID = np.linspace(-5.0, 5.0, 201)
# τ's grid: the prior's quantiles at the midpoints of _TAU_POINTS equal-probability cells
_TAU_POINTS = 24
# λ's grid (local scales): as τ's
_LAMBDA_POINTS = 16
#: Draws per block of :func:`sample_shifts`: its (draws, strata, grid) arrays stay
#: cache-sized (11 MB with 56 groups, where 256 draws' 46 MB took twice the time).
SHIFT_CHUNK = 64
_ZERO = int(np.argmin(np.abs(SHIFT_GRID)))  # the grid's point at δ = 0


@dataclass(frozen=True)
class ShiftPrior:
    """Prior of the strata's shifts: ``δ[g, h] ~ N(0, τ²)``, ``τ = max(floor, τ')``,
    ``τ' ~ HalfNormal(scale)``.

    Attributes
    ----------
    scale : float, default 1.0
        Scale of the half-normal prior of τ', the spread of the strata's intercept
        shifts on the logit scale.
    floor : float, default 0.5
        The least spread τ₀: how far, before its labels are read, a group's log-odds
        on a side may differ from the pooled map's (module docstring: why 0.5). 0
        lets the labels shrink every shift towards 0.
    share : float, default 0.0
        The prior probability that a group shares the pooled map exactly (both its
        shifts 0), against shifts of its own from ``N(0, τ²)``: a spike-and-slab
        choice per group, weighed by each group's labels (their likelihood at no shift
        against its average over the shifts' prior). 0 gives every group shifts.
        Where the groups are alike it narrows the intervals towards the pooled
        model's; where a group's labels cannot show its distortion it keeps less of
        the margin (module docstring: the measured trade-off, and why the default is 0).
    local : bool, default False
        Each group's shifts scaled by a multiplier of its own, ``δ[g, h] ~ N(0, τ² λ_g²)``
        with ``λ_g ~ HalfCauchy(1)`` (a local–global prior, Carvalho, Polson & Scott
        2010): a group whose labels show large shifts escapes the spread the other
        groups' labels set, and groups like the others are shrunk harder. False: every
        group's shifts share τ.
    scale_with_groups : bool, default False
        Read ``floor`` as the floor for up to ``floor_groups`` groups and lower it as
        more are added, to ``floor · √(floor_groups / K)`` with K groups
        (:meth:`for_groups`), each group odd with probability ``odd``. False (the
        default): ``floor`` whatever the number of groups. Module docstring, "Many
        groups": what it narrows, and the coverage it was measured to lose.
    odd : float, default 0.05
        The prior probability that a group is *odd*: its shifts' spread is then at least
        ``odd_floor`` whatever the other groups teach, ``max(odd_floor, τ)``, instead of
        τ. Weighed by each group's labels, so that a group whose labels stray from the
        pooled map is set apart with the spread of few groups while the others keep the
        spread the many teach. 0: every group's shifts share τ. Not used with local
        scales, nor where ``odd_floor`` is not above ``floor`` (without scaling).
    odd_floor : float, optional
        An odd group's least spread; None: ``floor`` (:meth:`for_groups` keeps the floor
        of few groups here when it lowers ``floor``).
    floor_groups : int, default 10
        With ``scale_with_groups``, the most groups that keep the whole floor.
    """

    scale: float = 1.0
    floor: float = 0.5
    share: float = 0.0
    local: bool = False
    scale_with_groups: bool = False
    odd: float = 0.05
    odd_floor: float | None = None
    floor_groups: int = 10

    def for_groups(self, k: int) -> ShiftPrior:
        """The prior a fit of ``k`` groups uses: with ``scale_with_groups`` and more than
        ``floor_groups`` groups, one whose floor is ``floor · √(floor_groups / k)`` (and
        which scales no further); unchanged up to ``floor_groups`` groups or without
        scaling, the default (module docstring: "Many groups").

        Examples
        --------
        >>> round(ShiftPrior(scale_with_groups=True).for_groups(60).floor, 4)
        0.2041
        >>> ShiftPrior().for_groups(60) == ShiftPrior()
        True
        """
        if not self.scale_with_groups or k <= self.floor_groups:
            return self
        floor = self.floor * float(np.sqrt(self.floor_groups / int(k)))
        odd_floor = self.floor if self.odd_floor is None else self.odd_floor
        return replace(self, floor=floor, scale_with_groups=False, odd_floor=odd_floor)

    def describe(self) -> str:
        """The prior in words (reports)."""
        words = (
            "each group's side of the threshold may shift its map's log-odds by its own "
            f"amount, the shifts normal with a spread of at least {self.floor:g} learned from "
            f"the labels above it (half-normal prior of scale {self.scale:g})"
        )
        if self.local:
            words += (
                "; each group's spread is scaled by a multiplier of its own (half-Cauchy "
                "prior of scale 1)"
            )
        if self._has_odd_option:
            words += (
                f"; a group is odd with prior probability {self.odd:g}, weighed by its "
                f"labels, and an odd group's spread is at least {self._odd_least:g}"
            )
        if self.share > 0:
            words += (
                f"; a group shares the pooled map without shifts with prior probability "
                f"{self.share:g}, weighed by its labels"
            )
        return words

    def to_dict(self) -> dict:
        """The record a fit keeps in ``settings["shift"]``."""
        return {"kind": type(self).__name__, **asdict(self)}

    def tau_grid(self) -> np.ndarray:
        """τ at the midpoints of equal-probability cells of its prior (each weighs the same)."""
        from scipy.special import ndtri  # the half-normal quantile, without scipy.stats

        u = (np.arange(_TAU_POINTS) + 0.5) / _TAU_POINTS
        return np.maximum(self.scale * ndtri((1.0 + u) / 2.0), self.floor)

    def __post_init__(self):
        s = self.scale
        if isinstance(s, bool) or not (isinstance(s, Real) and np.isfinite(s) and s > 0):
            raise InvalidParameterError(
                f"The shift prior's 'scale' must be a positive finite number. Got {s!r}."
            )
        f = self.floor
        if isinstance(f, bool) or not (isinstance(f, Real) and np.isfinite(f) and f >= 0):
            raise InvalidParameterError(
                f"The shift prior's 'floor' must be a finite number ≥ 0. Got {f!r}."
            )
        p = self.share
        if isinstance(p, bool) or not (isinstance(p, Real) and 0 <= p < 1):
            raise InvalidParameterError(
                f"The shift prior's 'share' must be a probability in [0, 1). Got {p!r}."
            )
        object.__setattr__(self, "scale", float(s))
        object.__setattr__(self, "floor", float(f))
        if not isinstance(self.local, bool | np.bool_):
            raise InvalidParameterError(
                f"The shift prior's 'local' must be True or False. Got {self.local!r}."
            )
        object.__setattr__(self, "share", float(p))
        object.__setattr__(self, "local", bool(self.local))
        if not isinstance(self.scale_with_groups, bool | np.bool_):
            raise InvalidParameterError(
                "The shift prior's 'scale_with_groups' must be True or False. "
                f"Got {self.scale_with_groups!r}."
            )
        object.__setattr__(self, "scale_with_groups", bool(self.scale_with_groups))
        q = self.odd
        if isinstance(q, bool) or not (isinstance(q, Real) and 0 <= q < 1):
            raise InvalidParameterError(
                f"The shift prior's 'odd' must be a probability in [0, 1). Got {q!r}."
            )
        object.__setattr__(self, "odd", float(q))
        m = self.floor_groups
        if isinstance(m, bool) or not (isinstance(m, Integral) and m >= 2):
            raise InvalidParameterError(
                f"The shift prior's 'floor_groups' must be an integer ≥ 2. Got {m!r}."
            )
        object.__setattr__(self, "floor_groups", int(m))
        f = self.odd_floor
        if f is not None:
            if isinstance(f, bool) or not (isinstance(f, Real) and np.isfinite(f) and f >= 0):
                raise InvalidParameterError(
                    f"The shift prior's 'odd_floor' must be a finite number ≥ 0. Got {f!r}."
                )
            object.__setattr__(self, "odd_floor", float(f))

    def group_spreads(self, taus) -> tuple[np.ndarray, np.ndarray]:
        """Each group's options for its shifts' spread at each τ, and their log prior.

        Returns
        -------
        spreads : ndarray, shape (n_tau, n_options)
            ``τ λ`` over :meth:`lambda_grid` with local scales (which then replace
            the odd option); ``τ`` and ``max(odd_floor, τ)`` with ``odd > 0`` and
            ``odd_floor`` above ``floor`` (without scaling the two are one);
            ``τ`` otherwise.
        log_prior : ndarray, shape (n_options,)
        """
        taus = np.asarray(taus, dtype=float)
        if self._has_odd_option:
            spreads = np.stack([taus, np.maximum(taus, self._odd_least)], axis=1)
            return spreads, np.log([1.0 - self.odd, self.odd])
        lams = self.lambda_grid()
        return taus[:, None] * lams[None, :], np.full(lams.size, -np.log(lams.size))

    @property
    def _odd_least(self) -> float:
        """An odd group's least spread."""
        return self.floor if self.odd_floor is None else self.odd_floor

    @property
    def _has_odd_option(self) -> bool:
        """Whether a group chooses between τ and an odd group's spread."""
        return self.odd > 0 and self._odd_least > self.floor and not self.local

    def lambda_grid(self) -> np.ndarray:
        """Each group's multiplier λ at the midpoints of equal-probability cells of its
        half-Cauchy prior (each weighs the same); ``[1.0]`` without local scales."""
        if not self.local:
            return np.ones(1)
        u = (np.arange(_LAMBDA_POINTS) + 0.5) / _LAMBDA_POINTS
        return np.tan(0.5 * np.pi * u)


#: The default of ``DiscrepancyPrior.shift`` (and so of ``rbc``): ``ShiftPrior()``.
DEFAULT_SHIFT = ShiftPrior()


def stratum_shift_loglik(
    lik: dict,
    a,
    b,
    c,
    n_groups: int,
    grid=SHIFT_GRID,
    *,
    parallel: bool | None = None,
    out: np.ndarray | None = None,
    top: np.ndarray | None = None,
) -> np.ndarray:
    """Each stratum's labeled log likelihood at each shift of ``grid``, given the maps.

    The entries of the labeled summary (:func:`~bayesfair.models.likelihood.likelihood_data`)
    with their predictor moved by ``δ``: ``Σ y (η + δ) − n [softplus(η̄ + δ) +
    ½ σ(1 − σ) Var(η)]``, as :func:`~bayesfair.models.likelihood.binned_loglik`
    takes it, summed per stratum; only the terms that depend on ``δ`` are kept.

    Parameters
    ----------
    lik : dict
        The labeled likelihood's data.
    a, b, c : array_like, shape (n_draws, n_groups)
        Draws of the maps.
    n_groups : int
        The number of groups (strata ``2 g + h``).
    grid : array_like, shape (n_grid,)
        The shifts: at least two, evenly spaced and increasing.
    parallel : bool, optional
        Spread the draws over numba's threads (where it has more than one); None: where
        this call's entries × draws × shifts reach
        :data:`~bayesfair.models._shift_kernels.PARALLEL_WORK` (:func:`sample_shifts`
        decides for all its chunks at once).
    out : ndarray, shape (n_draws, 2 n_groups, n_grid), optional
        Where to write the result (:func:`sample_shifts` reuses one block of memory).
    top : ndarray, shape (n_draws, 2 n_groups), optional
        Where to write each stratum's largest log likelihood over the grid, which is then
        subtracted from its row: each row peaks at 0 (:func:`sample_shifts`' relative
        likelihood, taken in the kernel while the row is in cache).

    Returns
    -------
    ndarray, shape (n_draws, 2 n_groups, n_grid)
        Zero for a stratum without labels (and, with ``top``, less each row's maximum).
    """
    import numba

    from bayesfair.models._shift_kernels import (
        PARALLEL_WORK,
        shift_loglik,
        shift_loglik_parallel,
    )

    grid = np.ascontiguousarray(grid, dtype=float)
    steps = np.diff(grid)
    if grid.ndim != 1 or grid.size < 2 or not np.allclose(steps, steps[0]) or steps[0] <= 0:
        raise InvalidParameterError(
            "The shift grid must hold at least two evenly spaced, increasing numbers."
        )
    eta, v_eta = entry_predictor(lik, a, b, c)  # (draws, entries)
    stratum = np.ascontiguousarray(lik["group_idx"] * 2 + lik["side"], dtype=np.int64)
    shape = (eta.shape[0], 2 * n_groups, grid.size)
    if out is None:
        out = np.empty(shape)
    elif out.shape != shape or not out.flags.c_contiguous or out.dtype != np.float64:
        raise InvalidParameterError(f"'out' must be a C-contiguous float array of shape {shape}.")
    if parallel is None:
        parallel = eta.size * grid.size >= PARALLEL_WORK
    parallel = parallel and numba.get_num_threads() > 1
    (shift_loglik_parallel if parallel else shift_loglik)(
        np.ascontiguousarray(eta),
        np.ascontiguousarray(v_eta),
        stratum,
        np.ascontiguousarray(lik["count"], dtype=float),
        np.ascontiguousarray(lik["positives"], dtype=float),
        grid,
        out,
        np.empty((0, 0)) if top is None else _checked_top(top, shape[:2]),
        *_tables(float(steps[0])),
    )
    return out


def _checked_top(top: np.ndarray, shape: tuple) -> np.ndarray:
    if top.shape != shape or not top.flags.c_contiguous or top.dtype != np.float64:
        raise InvalidParameterError(f"'top' must be a C-contiguous float array of shape {shape}.")
    return top


_TABLES: dict = {}


def _tables(step: float):
    """The kernel's tables for a grid step (computed once per step)."""
    from bayesfair.models._shift_kernels import tables

    if step not in _TABLES:
        _TABLES[step] = tables(step)
    return _TABLES[step]


def _draw_kernel(parallel: bool):
    """The kernel that draws each stratum's grid point, over numba's threads for work
    that repays their compilation (:func:`sample_shifts`)."""
    import numba

    from bayesfair.models import _shift_kernels as kern

    if parallel and numba.get_num_threads() > 1:
        return kern.draw_on_grid_parallel
    return kern.draw_on_grid


def sample_shifts(labeled, a, b, c, prior: ShiftPrior, rng: np.random.Generator):
    """Draw τ and every stratum's shift for each posterior draw of the maps.

    Per draw: τ from its conditional posterior on the prior's quantile grid
    (:meth:`ShiftPrior.tau_grid`; each stratum's likelihood integrated over its
    shift on :data:`SHIFT_GRID`), then each stratum's shift given τ, from the grid
    and jittered uniformly within its cell. With ``prior.share > 0`` each group's
    likelihood given τ is the mixture ``share · L(0) + (1 − share) · ∫ L(δ) N(δ; 0, τ²)``
    (its two sides' shifts 0, or its own), τ is drawn under that mixture, and then
    each group's choice given τ, with odds ``share · L(0)`` to the rest; a group that
    shares has both its shifts set to 0. With ``prior.local`` a group's likelihood given
    τ is averaged over its multiplier λ on :meth:`ShiftPrior.lambda_grid`, and given τ
    each group's λ is drawn before its shifts, whose spread is then ``τ λ``. With an odd
    option (:meth:`ShiftPrior.group_spreads`) the same holds over a group's two spreads,
    ``τ`` and ``max(odd_floor, τ)``, weighed by ``1 − odd`` and ``odd``.

    Parameters
    ----------
    labeled : ScoreSummary
        The labeled rows.
    a, b, c : array_like, shape (..., n_groups)
        Draws of the maps.
    prior : ShiftPrior
    rng : numpy.random.Generator

    Returns
    -------
    shift : ndarray, shape (..., n_groups, 2)
        δ per group and side (ŷ = 0, ŷ = 1).
    tau : ndarray, shape (...)
        The spread τ of each draw.
    """
    from scipy.special import expit

    a, b, c = (np.asarray(v, dtype=float) for v in (a, b, c))
    lead, k = a.shape[:-1], a.shape[-1]
    a, b, c = (v.reshape(-1, k) for v in (a, b, c))
    lik = likelihood_data(labeled)
    grid = SHIFT_GRID
    step = grid[1] - grid[0]
    # the prior's grid weighs τ equally; where the floor makes points equal, each distinct
    # τ once, weighed by how many points it stands for (the same draws, less work)
    taus, points = np.unique(prior.tau_grid(), return_counts=True)
    log_points = np.log(points)
    spreads, lam_prior = prior.group_spreads(taus)  # (taus, options), (options,)
    n_tau, n_lam = spreads.shape
    # the normal prior of δ at each spread, as weights on the grid (each column sums to
    # 1); column i · n_lam + j is τ_i's spread under a group's option j
    scales = spreads.ravel()
    log_w = -0.5 * (grid[:, None] / scales[None, :]) ** 2
    log_w -= np.logaddexp.reduce(log_w, axis=0, keepdims=True)
    weights = np.exp(log_w)  # (grid, taus · lams)
    n_draws = a.shape[0]
    # the threads' compilation (once per machine) pays for the fit's work as a whole
    from bayesfair.models._shift_kernels import PARALLEL_WORK

    parallel = n_draws * lik["count"].size * grid.size >= PARALLEL_WORK
    draw = _draw_kernel(parallel)
    shift = np.empty((n_draws, 2 * k))
    tau = np.empty(n_draws)
    block = np.empty((min(n_draws, SHIFT_CHUNK), 2 * k, grid.size))
    tops = np.empty(block.shape[:2])
    for start in range(0, n_draws, SHIFT_CHUNK):
        sl = slice(start, start + SHIFT_CHUNK)
        m = a[sl].shape[0]
        like = stratum_shift_loglik(
            lik, a[sl], b[sl], c[sl], k, grid, parallel=parallel, out=block[:m], top=tops[:m]
        )  # (m, 2k, grid): each stratum's log likelihood less its maximum, top
        top = tops[:m]
        if prior.share > 0:  # each group's log likelihood with no shifts
            at_zero = (like[..., _ZERO] + top).reshape(-1, k, 2).sum(axis=2)  # (m, k)
        np.exp(like, out=like)  # each stratum's likelihood, peaking at 1
        marginal = np.log(like @ weights) + top[..., None]  # (m, 2k, taus · lams): given τ λ
        # a group given τ and its λ: (m, k, taus, lams)
        by_lam = marginal.reshape(-1, k, 2, n_tau, n_lam).sum(axis=2)
        if n_lam == 1:  # one spread a group: no sum over options
            own = by_lam[..., 0] + lam_prior[0]  # (m, k, taus)
        else:
            own = np.logaddexp.reduce(by_lam + lam_prior, axis=-1)
        group = own
        if prior.share > 0:  # a group shares the pooled map (no shifts) or has its own
            shares = np.log(prior.share) + at_zero
            own = np.log1p(-prior.share) + own
            group = np.logaddexp(shares[..., None], own)
        log_post = group.sum(axis=1) + log_points  # (m, taus)
        log_post -= log_post.max(axis=1, keepdims=True)
        post = np.exp(log_post)
        cdf = np.cumsum(post, axis=1)
        u = rng.random(cdf.shape[0]) * cdf[:, -1]
        i = (cdf < u[:, None]).sum(axis=1).clip(max=n_tau - 1)
        tau[sl] = taus[i]
        column = np.repeat(i[:, None] * n_lam, 2 * k, axis=1)  # (m, 2k): each stratum's τ λ
        if n_lam > 1:  # each group's λ given τ, then its two sides' shifts given τ λ
            lam_post = by_lam[np.arange(i.size), :, i] + lam_prior  # (m, k, lams)
            lam_post = np.exp(lam_post - lam_post.max(axis=-1, keepdims=True))
            cdf = np.cumsum(lam_post, axis=-1)
            u = rng.random(cdf.shape[:2]) * cdf[..., -1]
            j = (cdf < u[..., None]).sum(axis=-1).clip(max=n_lam - 1)  # (m, k)
            column += np.repeat(j, 2, axis=1)
        j = draw(like, weights, column, rng.random(column.shape))
        shift[sl] = grid[j] + step * (rng.random(j.shape) - 0.5)
        if prior.share > 0:  # given τ, each group shares the pooled map with its odds
            odds = shares - own[np.arange(i.size), :, i]  # (m, k)
            shared = rng.random(odds.shape) < expit(odds)
            shift[sl] *= ~np.repeat(shared, 2, axis=1)
    return shift.reshape(*lead, k, 2), tau.reshape(lead)


def shifted_counts(counts_fn, summary, a, b, c, shift, *args) -> np.ndarray:
    """Unlabeled confusion counts under maps whose intercept is shifted per side.

    The rows with ŷ = h are mapped with ``c + shift[..., h]``: ``tp, fp`` come from
    the ŷ = 1 side's map, ``tn, fn`` from the ŷ = 0 side's, in one call of
    ``counts_fn`` (its ``shift`` argument), so that each side's rows are counted once.

    Parameters
    ----------
    counts_fn : callable
        :func:`~bayesfair.models.unlabeled.expected_counts` or
        :func:`~bayesfair.models.unlabeled.sampled_counts`.
    summary : ScoreSummary
        The unlabeled rows.
    a, b, c : array_like, shape (..., n_groups)
        Draws of the maps.
    shift : array_like, shape (..., n_groups, 2)
        The strata's shifts (ŷ = 0, ŷ = 1).
    *args
        Passed on to ``counts_fn``: ``sampled_counts``' generator, or ``expected_counts``'
        ``score_seed`` (both sides weigh the same rows).

    Returns
    -------
    ndarray, shape (..., n_groups, 4)
    """
    return counts_fn(summary, a, b, c, *args, shift=np.asarray(shift, dtype=float))


def map_counts(
    labeled,
    summary,
    a,
    b,
    c,
    *,
    prior: ShiftPrior | None,
    estimand: str,
    rng,
    labeled_counts=None,
):
    """The unlabeled confusion counts under draws of the maps, moved by the strata's shifts.

    The one step from map draws to predictive counts, for a fit and for the label
    planner's simulated refits: with a ``prior``, τ and the shifts are drawn given the
    maps (:func:`sample_shifts`) and each side's counts taken under its shifted map
    (:func:`shifted_counts`); without one, the counts are the maps' own.

    Parameters
    ----------
    labeled : ScoreSummary
        The labeled rows (they inform the shifts).
    summary : ScoreSummary
        The unlabeled rows, coded to the maps' groups.
    a, b, c : array_like, shape (..., n_groups)
        Draws of the maps.
    prior : ShiftPrior or None
        The shifts' prior; None for no shifts.
    estimand : {"assessed", "expected"}
        ``"expected"``: the expected counts, the rows of each group weighed by a
        Bayesian bootstrap per draw (:func:`~bayesfair.models.unlabeled.expected_counts`'
        ``score_seed``); otherwise drawn.
    labeled_counts : array_like, shape (n_groups, 4), optional
        ``"expected"`` only: the labeled rows per group and confusion cell, weighed in
        the same bootstrap and included in the counts.
    rng : numpy.random.Generator

    Returns
    -------
    counts : ndarray, shape (..., n_groups, 4)
    shift : ndarray, shape (..., n_groups, 2), or None
    tau : ndarray, shape (...), or None
    """
    if estimand == "expected":  # one seed: both sides of a shifted map weigh the same rows
        counts_fn, extra = expected_counts, (int(rng.integers(2**63)), labeled_counts)
    else:
        counts_fn, extra = sampled_counts, (rng,)
    if prior is None:
        return counts_fn(summary, a, b, c, *extra), None, None
    shift, tau = sample_shifts(labeled, a, b, c, prior, rng)
    return shifted_counts(counts_fn, summary, a, b, c, shift, *extra), shift, tau
