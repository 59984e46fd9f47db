"""The calibration check's test: does each group's labeled data agree with the map it shares?

A calibration model (``bc``, ``rbc``) turns every unlabeled score into a
probability of a positive label through its group's map
``f_g(s) = σ(c_g + a_g log s − b_g log(1 − s))`` (Ji et al. 2020, Eq. 2), and the
groups' maps are pooled (:mod:`bayesfair.models.calibration`). Where one group's
scores mean something else (noisier labels, over- or under-confident scores) its
map is pulled towards the others', and the unlabeled examples then carry the
others' calibration into its rates. The check asks each group's labeled examples
whether that happened.

**The test** (:func:`shift_lr_test`). For each group ``g`` with labels, a
likelihood-ratio test on the labeled examples of all groups:

* null: one beta-calibration map ``θ = (a, b, c)`` shared by every group;
* alternative: the same, with group ``g``'s labeled examples on each side ``h`` of
  the threshold moved by an intercept of their own, ``η + δ_gh`` (the stratum
  shift of :mod:`bayesfair.models.shift`, which ``rbc`` draws);

``LR_g = 2 [max_{θ, δ_g} ℓ(θ, δ_g) − max_θ ℓ(θ, 0)]``, referred to χ² with as many
degrees of freedom as ``g`` has sides with labels (Wilks 1938). The first maximum
is ``Σ_h max_δ L_gh(δ)`` (:func:`~bayesfair.models.shift.stratum_shift_loglik`) at
the map ``θ̂₁`` fitted jointly, plus the other strata's likelihood at ``θ̂₁``; both
maxima come from a bounded quasi-Newton fit (L-BFGS-B, analytic gradient; the
shifts within ±10 logits) of the labeled likelihood the models use
(:func:`~bayesfair.models.likelihood.binned_loglik`: the summary coarsened to 32
bins per group, ``Σ y η`` exact, ``Σ softplus`` to second order).

**The verdicts: a step-down with re-estimation** (:func:`step_down`,
:func:`calibration_verdicts`). One distorted group drags the map that all groups
share, and groups like one another then look off against it: with 12% of one group's
~500 labels noisy among four groups (real scores,
:func:`~bayesfair.datasets.simulate.differential_calibration`), testing every group against
the map all four share and adjusting by Holm flagged another group too in 11 of 20
data sets. So the groups are tested in steps, as in Holm's (1979) step-down and a
forward search for outliers (Atkinson & Riani 2000). With ``m`` groups with labels,
at step ``j = 0, 1, …``:

1. every group not yet flagged is tested by ``LR_g``, the groups flagged so far given
   a map of their own under both hypotheses (their labels leave the shared map's
   fit: the test is that of the other groups alone);
2. the group with the smallest p-value ``p*`` gets the adjusted p-value
   ``max(previous, min(1, (m − j) p*))`` (Holm's threshold ``α / (m − j)``); if it is
   below α the group is flagged and the next step begins;
3. otherwise the procedure stops, and the groups tested at this step continue
   Holm's sequence (sorted by p-value, the ``i``-th gets
   ``max(previous, (m − j − i) p)``); it also stops when fewer than two groups are
   left unflagged: one group alone shares a map with no one, and is not tested
   against the flagged groups' maps (its ``p_adjusted`` is NaN).

``statistic`` and ``p_value`` are those of the step at which the group was last
tested; ``p_adjusted`` the step-down's adjusted p-value (monotone in the order of
the steps; Holm's adjustment of the first step's p-values when nothing is flagged);
``verdict`` is ``"misfit"`` for the groups flagged.

*Its error control is family-wise, approximately.* The first group wrongly flagged is
flagged at a step ``j`` at which every group flagged before it departs. If by then every
group that departs has been flagged, the ``m − j`` groups left all share one map, the
null holds for each, and their p-values are (asymptotically) χ² tails of a correct null:
flagging one of them at ``α / (m − j)`` has probability at most α (Bonferroni), which is
Holm's argument. It is approximate three ways: the χ² reference is asymptotic (and too
small in its tail at tens of labels a group, so a group it would flag is checked by a
parametric bootstrap under the step's null, :func:`bootstrap_p_value`: four alike groups
of 50 labels each, a group flagged in 8% of 300 data sets with the χ² alone, 4% with the
bootstrap); the steps are chosen by the data (which groups are flagged before the test
of the others), which Holm's argument does not count; and where a departing group is
*not* yet flagged (it departs too little to be flagged first), the others are still
tested against a map it drags, the bystander effect the step-down reduces but cannot
remove. Measured (``docs/results/calibration_check.md`` part 4, 20 data sets per cell):
12% label noise in one of four groups of ~500 labels, the noisy group flagged in 20/20
and another group in 0/20 (single step: 11/20, 0.55 ± 0.11); at ~50 labels, flagged in
3/20; slope 0.5 and 2, flagged in 19/20 and 20/20, bystanders 0/20 (single step 7/20 and
2/20); groups alike, any group flagged in 0/20 families at K = 4 and 1/20 (0.05 ± 0.05)
at K = 2.

*Its limits.* A group that departs too little to be flagged still drags the map the
others are tested against. The step-down flags at most ``m − 1`` groups, and the
last group it flags was chosen between the two groups left, where (as with K = 2)
the data cannot say which of two is the odd one. A flagged group's map of its own is
not checked further.

*Why a map of its own, not only shifts.* Giving a flagged group only shifts of its
own (its levels free, the shared slopes ``a``, ``b`` kept: ``step_down(...,
share_slopes=True)``) removes its pull on the levels but not on the slopes: a group
with noisy labels has flatter slopes, and its bystanders were still flagged in 6 of 40
data sets (against 1 of 40 with a map of its own; 12% label noise, K = 4, ~500
labels per group, ``differential_calibration`` seeds 100–139; 1/20 against 0/20 on
the benchmark's seeds).

*Two groups.* With K = 2 the step-down flags at most one group: after the first the
other has no group left to share a map with. Which of the two carries the flag says
nothing about which one is off (the shift alternative is not symmetric: with one
group's labels noisy the flag fell on the *calibrated* group in most data sets, the
noisy group's map being close to a beta map of flatter slopes: 18 of 20 data sets
flagged, all 18 on the calibrated group). So with two groups
the ``where`` of the flagged group says that its calibration and the other group's
differ, the other's that it was not tested once the first was flagged, and the
warning (:func:`~bayesfair.posterior.check_words.misfit_message`) names both groups and
says that their calibrations differ from each other, not which one is off. The verdict
then names a group of the pair only where its labels do not fit a beta map of its own
either (``_own_map_fit``: Hosmer–Lemeshow bins and per-side shifts at the group's own
map, Bonferroni over the two statistics and the two groups), so a calibrated group is
not blamed for its partner (measured in ``docs/concepts.md``, "The calibration check").

*Why these choices.*

- *The shift alternative.* A group's rates depend on its unlabeled examples only
  through each stratum's positives, and an intercept per stratum is what moves
  them (:mod:`bayesfair.models.shift`): the test looks for the departure that
  biases the rates and that ``rbc``'s shifts correct. A departure within a side
  that leaves the side's positive share where the shared map puts it (a flatter
  or steeper map about the side's middle) is not what it targets.
- *The shared map is refitted under both hypotheses* (a profile likelihood ratio),
  so that under the null ``LR_g`` is asymptotically χ²: neither the conservative
  test of a map already fitted to the same labels, nor the anti-conservative one
  of a map estimated from the other groups and then held fixed (its estimation
  error counted as the group's departure). Under the alternative the map ``θ̂₁``
  is carried by the other groups' levels on each side, with the within-side
  slopes of all groups: "the map of the others".
- *Not the fit's posterior maps.* The fit's map of group ``g`` has been pulled
  towards ``g``'s own labels, and its other groups' maps towards ``g``'s: a test
  at the posterior-median map of ``g`` flagged a group with 12% of its 500 labels
  flipped in none of 6 fits next to one like it (LR at most 3.7, p ≥ 0.16;
  ``docs/results/calibration_check.md``). The check reads only the labeled
  summary a fit keeps, so it is the same for ``bc`` and ``rbc`` (and any variant),
  deterministic, and costs K + 1 small fits, not a pass over the draws.
- *Two groups.* With K = 2 "the map the others share" is the other group's: the
  test cannot say which of two groups that disagree is the odd one (above). From
  three groups on, the group that departs stands out: the others' departure from a
  map shared with it is diluted by the K − 1 groups that agree, and the step-down
  removes what is left of it once the group is flagged.
- *The null is one map for all*, intercept included: a group whose scores are
  off by a constant on the logit scale (a base rate the scores do not know)
  departs from it, although its own ``c_g`` could absorb it; the check says that
  its scores mean something else, which a fairness audit wants to know.

**Power** (``benchmarks/calibration_check.py``, ``docs/results/calibration_check.md``).
The test's level is exact only asymptotically; its size and power were measured by
simulation. A group with 12% of its labels flipped has each side's positive share
moved by about 4.5 points (Beta(2, 2) probabilities): with 250 labels per side
that is 1.5 standard errors of a side's share, about the rates' own labeled-only
error, and no test of the shift alternative can flag it often at 500 labels (the
results file gives the oracle bound and the measured rates). On a real classifier's
scores, mostly near 0 and 1, the same noise moves the share of positives by up to 12
points, and ~500 labels suffice (above).

**Where** (column ``where``). The bin of the group's labeled examples, on score, whose
positive share departs most from the map of the others at the step at which the group
was last tested, in words (:func:`~bayesfair.posterior.check_words.departure_phrase`).

**The posterior predictive check** (:mod:`bayesfair.posterior.predictive_check`), a
binned check of each group's map against its own labels, does not give the verdicts:
it uses the labels twice and compares a group's labels with its own map, which the
pooling has pulled towards them: with 12% of one group's labels flipped it said "ok" in
all 28 fits measured.

For ``rbc`` a misfit says that the group's labels put its strata away from the
shared map, so that ``rbc``'s shifts (``posterior["shift"]``) and its
off-map strata (``posterior["p_misfit"]``) let the labeled examples, not the map,
carry the rates of the strata concerned.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bayesfair._internal.validation import check_array
from bayesfair.models.likelihood import likelihood_data
from bayesfair.posterior.check_words import ALONE_PHRASE, departure_phrase, pair_phrase
from bayesfair.posterior.score_bins import entry_bins

__all__ = [
    "VERDICTS",
    "calibration_verdicts",
    "holm_adjust",
    "shift_lr_test",
    "step_down",
]

#: The values of the ``verdict`` column of :func:`calibration_verdicts`; and, in a
#: result's check with two groups whose calibrations differ, ``"differs from <the other
#: group>"`` (:func:`~bayesfair.posterior.checks.name_the_pair`).
VERDICTS = ("ok", "misfit", "too few labels")

#: Bounds of the shared map's parameters (log a, log b, c) and of a stratum's shift δ
#: in the profile fits: a, b within [e⁻⁶, e⁴]; |δ| ≤ 10 logits (a rate of 1/2 moved
#: past 5·10⁻⁵), beyond which a stratum whose labels are all of one class gains nothing
#: the χ² reference could tell from infinity.
_MAP_BOUNDS = ((-6.0, 4.0), (-6.0, 4.0), (-30.0, 30.0))
_SHIFT_BOUND = 10.0


def _shared_loglik(theta, lik, free):
    """Labeled log likelihood of one map shared by every group, with shifts on ``free``
    strata, and its gradient.

    ``theta = (ln a, ln b, c, δ_1, …, δ_m)``; ``free`` holds the ``m`` strata
    (``2 g + h``) whose predictor is moved by their own δ. The binned likelihood of
    :func:`~bayesfair.models.likelihood.binned_loglik` (``Σ y η`` exactly, ``Σ softplus``
    to second order about each entry's mean predictor), summed over the entries.
    """
    return _SharedTerms(lik, free).loglik(theta)


class _SharedTerms:
    """:func:`_shared_loglik`'s data for one ``lik`` and ``free``, prepared once for the
    many evaluations of a fit (each then a few array operations over the entries)."""

    def __init__(self, lik, free):
        stratum = lik["group_idx"] * 2 + lik["side"]
        self.which = np.zeros(stratum.size, dtype=np.int64)  # 0: no shift, j + 1: δ_j
        for j, s in enumerate(free):
            self.which[stratum == s] = j + 1
        self.n_free = len(free)
        self.n, self.y = lik["count"], lik["positives"]
        self.ms, self.m1 = lik["mean_log_s"], lik["mean_log_1ms"]
        self.vs, self.v1, self.cv = lik["var_log_s"], lik["var_log_1ms"], lik["cov_log"]
        self.pos_s = lik["pos_sum_log_s"].sum()
        self.pos_1ms = lik["pos_sum_log_1ms"].sum()
        self.y_ms, self.y_m1 = self.y @ self.ms, self.y @ self.m1

    def loglik(self, theta):
        """The log likelihood at ``theta`` and its gradient."""
        la, lb, c = theta[:3]
        a, b = np.exp(la), np.exp(lb)
        moved = c + np.concatenate(([0.0], theta[3:]))[self.which]  # c + each entry's δ
        eta = moved + a * self.ms - b * self.m1
        v_eta = a * a * self.vs + b * b * self.v1 - 2.0 * a * b * self.cv
        p = 0.5 * (1.0 + np.tanh(0.5 * eta))
        q = p * (1.0 - p)
        ll = (
            moved @ self.y
            + a * self.pos_s
            - b * self.pos_1ms
            - self.n @ (np.logaddexp(0.0, eta) + 0.5 * q * v_eta)
        )
        # d/dη of an entry's ‒n[softplus(η) + ½ q Var(η)], then the chain rule
        d_eta = self.y - self.n * (p + 0.5 * v_eta * q * (1.0 - 2.0 * p))
        nq = self.n * q
        d_a = self.pos_s - self.y_ms + d_eta @ self.ms - nq @ (a * self.vs - b * self.cv)
        d_b = -self.pos_1ms + self.y_m1 - d_eta @ self.m1 - nq @ (b * self.v1 - a * self.cv)
        grad = np.empty(theta.size)
        grad[0], grad[1], grad[2] = a * d_a, b * d_b, d_eta.sum()
        grad[3:] = np.bincount(self.which, weights=d_eta, minlength=self.n_free + 1)[1:]
        return ll, grad


def _fit_shared(lik, free, start):
    """Maximise :func:`_shared_loglik` over the map and the ``free`` strata's shifts from
    ``start``; returns ``(max log likelihood, θ̂)``. L-BFGS-B (bounded: ``_MAP_BOUNDS``,
    ``±_SHIFT_BOUND``) never ends below its start, so a profile started at the null's
    maximum gives a likelihood ratio ≥ 0."""
    from scipy.optimize import minimize

    start = np.asarray(start, dtype=float)
    bounds = list(_MAP_BOUNDS) + [(-_SHIFT_BOUND, _SHIFT_BOUND)] * len(free)
    terms = _SharedTerms(lik, free)

    def objective(theta):
        ll, grad = terms.loglik(theta)
        return -ll, -grad

    fit = minimize(
        objective,
        start,
        jac=True,
        method="L-BFGS-B",
        bounds=bounds,
        options={"maxiter": 500, "ftol": 1e-13, "gtol": 1e-8},
    )
    ll0 = terms.loglik(start)[0]
    if not np.isfinite(fit.fun) or -fit.fun < ll0:
        return ll0, start
    return -float(fit.fun), fit.x


def shift_lr_test(labeled, own=()) -> pd.DataFrame:
    """Likelihood-ratio test of each group's labels: the shared map against its own shifts.

    For each group ``g`` with labels and not in ``own``, the profile likelihood ratio

        LR_g = 2 [max_{θ, δ_F, δ_g} ℓ(θ, δ_F, δ_g) − max_{θ, δ_F} ℓ(θ, δ_F, 0)]

    of the labeled examples of all groups, where ``θ = (a, b, c)`` is one
    beta-calibration map shared by every group, ``δ_g = (δ_g0, δ_g1)`` moves the
    predictor of group ``g``'s labeled examples on each side of the threshold by an
    intercept of its own (the shift alternative of :mod:`bayesfair.models.shift`), and
    the groups ``F = own`` (those the step-down has flagged, :func:`calibration_verdicts`)
    have shifts of their own under both hypotheses, so that the shared map is fitted
    without their pull on its levels. It is referred to χ² with as many degrees of
    freedom as ``g`` has sides with labels (module docstring).

    Parameters
    ----------
    labeled : ScoreSummary
        The labeled examples' summary.
    own : sequence of int, default ()
        Group codes given their own shifts under both hypotheses; they are not tested.

    Returns
    -------
    pandas.DataFrame
        One row per group code: ``n_labeled``, ``statistic`` (LR_g), ``df``, ``p_value``
        (NaN for a group without labels or in ``own``), ``shift_below`` and
        ``shift_above`` (δ̂_g0, δ̂_g1, logit units; NaN for a side without labels) and
        ``where``; ``attrs`` holds the shared map under the null (``null_map``: a, b,
        c) and each group's alternative map (``maps``: one (a, b, c) per group, NaN
        without a test).
    """
    return _lr_step(likelihood_data(labeled), labeled, tuple(own), None)


def _sides(totals, g):
    return [h for h in (0, 1) if totals[g, h] > 0]


#: Labeled data sets simulated under the null to check a would-be flag's χ² p-value
#: (:func:`bootstrap_p_value`).
N_BOOTSTRAP = 199


def bootstrap_p_value(lik, totals, own, g: int, statistic: float, share_slopes: bool) -> float:
    """The p-value of group ``g``'s likelihood ratio by parametric bootstrap under the
    step's null, where its χ² reference runs small.

    With tens of labels a group the χ² reference of the likelihood ratio is too small
    in its tail: four groups alike, 50 labels each, the χ² p-value fell below 0.0125 for
    2.1% of groups (0.0125 expected) and the step-down flagged a group in 8% of data sets
    (5% at most). So a group the χ² would flag is checked against :data:`N_BOOTSTRAP`
    labeled sets drawn from the null's fit: each entry's positives ~ Binomial(n, p̄),
    ``p̄`` the mean of ``σ(η)`` over the entry to second order, its positives' sums of
    ``ln s`` and ``ln(1 − s)`` at the entry's means; ``(1 + #{LR* ≥ LR}) / (B + 1)``.
    The draws are seeded by the data's counts, so a check is reproducible.

    Parameters
    ----------
    lik : dict
        :func:`~bayesfair.models.likelihood.likelihood_data` of the labeled examples.
    totals : ndarray, shape (k, 2)
        Labeled examples per group and side.
    own : tuple of int
        The groups flagged before this step (their own maps under both hypotheses).
    g : int
        The group tested.
    statistic : float
        Its observed likelihood ratio.
    share_slopes : bool
        As in :func:`step_down`.

    Returns
    -------
    float
    """
    if share_slopes:
        fixed = tuple(2 * f + h for f in own for h in _sides(totals, f))
    else:
        keep = ~np.isin(lik["group_idx"], own)
        lik = {key: v[keep] for key, v in lik.items()}
        fixed = ()
    _, theta0 = _fit_shared(lik, fixed, np.zeros(3 + len(fixed)))
    la, lb, c = theta0[:3]
    a, b = np.exp(la), np.exp(lb)
    stratum = lik["group_idx"] * 2 + lik["side"]
    offset = np.zeros(stratum.size)
    for j, s in enumerate(fixed):
        offset[stratum == s] = theta0[3 + j]
    eta = c + offset + a * lik["mean_log_s"] - b * lik["mean_log_1ms"]
    v_eta = a * a * lik["var_log_s"] + b * b * lik["var_log_1ms"] - 2.0 * a * b * lik["cov_log"]
    p = 0.5 * (1.0 + np.tanh(0.5 * eta))
    p = np.clip(p + 0.5 * v_eta * p * (1.0 - p) * (1.0 - 2.0 * p), 0.0, 1.0)
    count = lik["count"].astype(np.int64)
    rng = np.random.default_rng([int(count.sum()), int(lik["positives"].sum()), g, len(own)])
    free = fixed + tuple(2 * g + h for h in _sides(totals, g))
    exceed = 0
    for _ in range(N_BOOTSTRAP):
        y = rng.binomial(count, p).astype(float)
        sim = dict(lik, positives=y)
        sim["pos_sum_log_s"] = y * lik["mean_log_s"]
        sim["pos_sum_log_1ms"] = y * lik["mean_log_1ms"]
        ll0, t0 = _fit_shared(sim, fixed, np.r_[theta0])
        ll1, _ = _fit_shared(sim, free, np.r_[t0, np.zeros(len(free) - len(fixed))])
        exceed += 2.0 * (ll1 - ll0) >= statistic
    return (1.0 + exceed) / (N_BOOTSTRAP + 1.0)


def _lr_step(lik, labeled, own, groups, share_slopes=True):
    """One step of the test: :func:`shift_lr_test`'s table for ``groups`` (None: all
    groups with labels not in ``own``), the groups ``own`` with shifts of their own under
    both hypotheses (``share_slopes``) or left out of the shared map's fit (a map of
    their own)."""
    from scipy.special import chdtrc  # chi-square survival, without scipy.stats

    k = labeled.n_groups
    totals = labeled.totals()
    if share_slopes:
        fixed = tuple(2 * f + h for f in own for h in _sides(totals, f))
    else:  # a map of their own: their labels leave the shared map's fit
        keep = ~np.isin(lik["group_idx"], own)
        lik = {key: v[keep] for key, v in lik.items()}
        fixed = ()
    ll0, theta0 = _fit_shared(lik, fixed, np.zeros(3 + len(fixed)))
    rows, maps = [], np.full((k, 3), np.nan)
    for g in range(k):
        n_g = float(totals[g].sum())
        row = {"n_labeled": round(n_g), "statistic": np.nan, "df": 0, "p_value": np.nan}
        row |= {"shift_below": np.nan, "shift_above": np.nan, "where": ""}
        sides = _sides(totals, g)
        if sides and g not in own and (groups is None or g in groups):
            free = fixed + tuple(2 * g + h for h in sides)
            ll1, theta1 = _fit_shared(lik, free, np.r_[theta0, np.zeros(len(sides))])
            stat = max(0.0, 2.0 * (ll1 - ll0))
            row |= {
                "statistic": stat,
                "df": len(sides),
                "p_value": float(chdtrc(len(sides), stat)),
            }
            for h, d in zip(sides, theta1[3 + len(fixed) :], strict=True):
                row["shift_above" if h else "shift_below"] = float(d)
            maps[g] = np.exp(theta1[0]), np.exp(theta1[1]), theta1[2]
            row["where"] = departure_phrase(labeled, g, *maps[g])
        rows.append(row)
    out = pd.DataFrame(rows)
    out.attrs["null_map"] = (float(np.exp(theta0[0])), float(np.exp(theta0[1])), float(theta0[2]))
    out.attrs["maps"] = maps
    return out


def _own_map_fit(lik, g: int) -> float:
    """p-value of group ``g``'s labels against a beta map of its own (fitted to ``g``'s
    labels alone, at its maximum likelihood), from two statistics, Bonferroni over them:
    the Hosmer–Lemeshow statistic ``Σ_b (O_b − E_b)² / V_b`` over up to five bins of
    consecutive scores per side (:func:`~bayesfair.posterior.score_bins.entry_bins`),
    referred to χ² with ``bins − 3`` degrees of freedom (at least 1; Hosmer & Lemeshow
    2000, §5.2), which sees a shape within the sides; and the likelihood ratio of per-side
    shifts over the same map (χ² with a degree per side), which sees the sides disagree
    with it (an inverted group, whose best increasing map is flat). The group index is in
    the entries' ``group_idx`` (the summary's group codes); NaN when the group has no
    labels."""
    from scipy.special import chdtrc  # chi-square survival, without scipy.stats

    keep = lik["group_idx"] == g
    if not keep.any():
        return np.nan
    own = {key: v[keep] for key, v in lik.items()}
    order = np.lexsort((own["mean_log_s"], own["side"]))
    own = {key: v[order] for key, v in own.items()}
    _, theta = _fit_shared(own, (), np.zeros(3))
    a, b, c = np.exp(theta[0]), np.exp(theta[1]), theta[2]
    eta = c + a * own["mean_log_s"] - b * own["mean_log_1ms"]
    p = 0.5 * (1.0 + np.tanh(0.5 * eta))
    bins, n_bins = entry_bins(own["side"].astype(bool), own["count"])
    observed = np.bincount(bins, weights=own["positives"], minlength=n_bins)
    expected = np.bincount(bins, weights=own["count"] * p, minlength=n_bins)
    variance = np.bincount(bins, weights=own["count"] * p * (1.0 - p), minlength=n_bins)
    use = variance > 0
    stat = float(np.sum((observed[use] - expected[use]) ** 2 / variance[use]))
    p_bins = float(chdtrc(max(1, int(use.sum()) - 3), stat))
    # and the per-side shifts over the same map (what a flat map of an inverted group
    # misses between the sides); the smaller p-value, Bonferroni over the two
    sides = tuple(sorted({int(h) for h in own["side"]}))
    ll1, _ = _fit_shared(own, sides, np.r_[theta, np.zeros(len(sides))])
    ll0 = _shared_loglik(theta, own, ())[0]
    p_sides = float(chdtrc(len(sides), max(0.0, 2.0 * (ll1 - ll0))))
    return min(1.0, 2.0 * min(p_bins, p_sides))


def step_down(labeled, alpha: float, share_slopes: bool = False) -> pd.DataFrame:
    """The step-down procedure with re-estimation behind the verdicts (module docstring).

    Step ``j = 0, 1, …``: :func:`shift_lr_test` of every group with labels not yet
    flagged, the flagged ones with a map of their own under both hypotheses (their
    labels left out of the shared map's fit); the
    group with the smallest p-value ``p*`` is flagged when its step-down adjusted
    p-value ``max(previous, min(1, (m − j) p*))`` is below ``alpha`` (``m`` the groups
    with labels), and the procedure stops at the first step that flags nothing, or
    when fewer than two groups are left unflagged (one group alone shares a map
    with no one: it is not tested against the flagged groups' map).

    Parameters
    ----------
    labeled : ScoreSummary
        The labeled examples' summary.
    alpha : float
        The family-wise level.
    share_slopes : bool, default False
        True: the flagged groups keep the shared map's slopes ``(a, b)`` and get only
        shifts of their own (``shift_lr_test(labeled, own=flagged)``); a flagged group
        whose slopes differ (label noise) then still pulls the shared map, and its
        bystanders were flagged more often (module docstring). Kept for the benchmark.

    Returns
    -------
    pandas.DataFrame
        One row per group code: :func:`shift_lr_test`'s columns from the step at which
        the group was last tested, with ``step`` (that step), ``flagged`` (bool) and
        ``p_adjusted``: for a flagged group its adjusted p-value at the step that
        flagged it; for the others, at the last step, Holm's continued over them
        (sorted by p-value, the ``i``-th gets ``max(previous, (m − j − i) p)``, running);
        NaN for a group without labels and for the one group left when all the others
        were flagged. ``attrs["steps"]`` lists each step's table. With two groups
        whose shared map is rejected (``attrs["pair_differs"]``), ``flagged`` is
        re-decided by each group's labels against a map of its own (``own_map_p``,
        :func:`_own_map_fit`; flagged at ``2 p < alpha``): the shared map says the pair
        differs, not which one.
    """
    lik = likelihood_data(labeled)
    totals = labeled.totals()
    testable = [g for g in range(labeled.n_groups) if _sides(totals, g)]
    m = len(testable)
    flagged: list[int] = []
    steps, last = [], {}  # last: each group's last step (its row there is its row)
    running = 0.0
    adjusted = np.full(labeled.n_groups, np.nan)
    while True:
        left = [g for g in testable if g not in flagged]
        if not left or (flagged and len(left) < 2):
            break
        table = _lr_step(lik, labeled, tuple(flagged), left, share_slopes)
        table["step"] = len(steps)
        steps.append(table)
        last |= dict.fromkeys(left, len(steps) - 1)
        p = table["p_value"].to_numpy()[left]
        order = np.argsort(p, kind="stable")
        j = len(flagged)
        scaled = np.minimum(1.0, (m - j - np.arange(len(left))) * p[order])
        held = np.maximum.accumulate(np.maximum(running, scaled))
        checked = set()
        while held[0] < alpha and left[order[0]] not in checked:
            # a would-be flag: its χ² p-value checked by the parametric bootstrap
            g = left[order[0]]
            checked.add(g)
            boot = bootstrap_p_value(
                lik, totals, tuple(flagged), g, float(table.loc[g, "statistic"]), share_slopes
            )
            table.loc[g, "p_value"] = p[order[0]] = max(p[order[0]], boot)
            order = np.argsort(p, kind="stable")
            scaled = np.minimum(1.0, (m - j - np.arange(len(left))) * p[order])
            held = np.maximum.accumulate(np.maximum(running, scaled))
        if held[0] < alpha:
            g = left[order[0]]
            flagged.append(g)
            adjusted[g] = running = held[0]
            continue
        adjusted[np.asarray(left)[order]] = held
        break
    columns = ["n_labeled", "statistic", "df", "p_value", "shift_below", "shift_above", "where"]
    tables = steps + ([_lr_step(lik, labeled, (), [])] if len(last) < labeled.n_groups else [])
    source = [last.get(g, len(steps)) for g in range(labeled.n_groups)]  # a table each
    out = tables[0][columns].reset_index(drop=True)
    out.attrs = {}
    for t in range(1, len(tables)):
        rows = np.asarray(source) == t
        out.loc[rows, columns] = tables[t].loc[rows, columns].to_numpy()
    out["step"] = [last.get(g, -1) for g in range(labeled.n_groups)]
    out["flagged"] = [g in flagged for g in range(labeled.n_groups)]
    out["p_adjusted"] = adjusted
    for g in testable:
        if g not in flagged and np.isnan(adjusted[g]):  # left alone (docstring)
            out.loc[g, "where"] = ALONE_PHRASE[m == 2]
    own_p = np.full(labeled.n_groups, np.nan)
    pair = m == 2 and bool(flagged)
    if pair:  # two groups: a pair that disagrees, no culprit (module docstring)
        g = flagged[0]
        out.loc[g, "where"] = pair_phrase(out.loc[g, "where"])
        # which of the two is off is said only by each group's labels against a beta map
        # of its own (its per-side shifts; Bonferroni over the two): an inverted or
        # oddly shaped group shows it there; a group whose own map fits is not blamed
        for h in testable:
            own_p[h] = _own_map_fit(lik, h)
        flagged = [h for h in testable if min(1.0, 2.0 * own_p[h]) < alpha]
    out["flagged"] = [g in flagged for g in range(labeled.n_groups)]
    out["own_map_p"] = own_p
    out.attrs["pair_differs"] = pair
    out.attrs["steps"] = steps
    out.attrs["order"] = flagged
    return out


def calibration_verdicts(labeled, alpha: float, min_labels: int) -> pd.DataFrame:
    """The verdicts of the step-down check (:func:`step_down`), one row per group.

    A group is a ``"misfit"`` where the step-down flags it (its step-down adjusted
    p-value below ``alpha``), else "too few labels" under ``min_labels`` labeled
    examples, else "ok" (:data:`VERDICTS`). The step-down controls the family-wise
    error rate approximately (module docstring): the probability that a family whose
    groups all share one map has *any* group flagged is about ``alpha`` at most (32
    groups tested at 0.05 each would flag one or more in about 80% of audits:
    1 − 0.95³²). With two groups, when the step-down finds that they do not share a
    map, its ``where`` says that their calibrations differ, and a group is a
    ``"misfit"`` only where its labels do not fit a beta map of its own either
    (:func:`step_down`: ``own_map_p``, Bonferroni over the two): the shared map cannot
    say which of two groups is off, and a calibrated group is not blamed for the other.

    Parameters
    ----------
    labeled : ScoreSummary
        The labeled examples' summary.
    alpha : float
        Level of the check (family-wise).
    min_labels : int
        Groups with fewer labeled examples (and no misfit) get "too few labels".

    Returns
    -------
    pandas.DataFrame
        One row per group code: ``n_labeled``, ``statistic`` (the likelihood
        ratio) and ``p_value`` (χ², unadjusted; where the χ² would flag the group, the
        larger of it and the parametric bootstrap's, :func:`bootstrap_p_value`; NaN
        for a group without labels) from
        the step at which the group was last tested, ``p_adjusted`` (the step-down's),
        ``verdict`` and ``where``; ``attrs["p_adjusted"]`` repeats the adjusted
        p-values and ``attrs["test"]`` holds :func:`step_down`'s whole table (degrees
        of freedom, fitted shifts, step).
    """
    test = step_down(labeled, alpha)
    adjusted = test["p_adjusted"].to_numpy()
    misfit = test["flagged"].to_numpy(dtype=bool)
    few = test["n_labeled"] < min_labels
    out = test[["n_labeled", "statistic", "p_value"]].copy()
    out["p_adjusted"] = adjusted
    out["verdict"] = np.where(misfit, "misfit", np.where(few, "too few labels", "ok"))
    out["where"] = test["where"]
    out.attrs["p_adjusted"] = adjusted
    out.attrs["test"] = test
    return out


def holm_adjust(p_values) -> np.ndarray:
    """Holm's (1979) step-down adjusted p-values, which control the family-wise error.

    With the K p-values sorted, ``p_(i)`` becomes ``max_{j ≤ i} min(1, (K − j + 1) p_(j))``;
    a hypothesis is rejected at level α when its adjusted p-value is below α. NaN
    p-values stay NaN and do not count in K.

    Examples
    --------
    >>> holm_adjust([0.01, 0.04, 0.03]).round(2).tolist()
    [0.03, 0.06, 0.06]
    """
    p = check_array(p_values, "p_values")
    out = np.full(p.shape, np.nan)
    keep = np.flatnonzero(~np.isnan(p))
    if keep.size == 0:
        return out
    order = keep[np.argsort(p[keep], kind="stable")]
    m = order.size
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    out[order] = np.maximum.accumulate(scaled)
    return out
