"""How many labels a decision needs: preposterior simulation behind :func:`plan_labels`.

From the current labels, draw plausible truths from the posterior, simulate
the labels a budget would buy (at random or by the acquisition), refit by
importance sampling (:mod:`bayesfair.labels.approximate`) and record the width
of Δ's interval and whether a decision is reached, for the default model and
the frequentist intervals (Newcombe, stratified PPI++, Bernstein).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from bayesfair._internal.progress import track
from bayesfair._internal.threads import one_blas_thread
from bayesfair._internal.validation import (
    check_choice,
    check_epsilon,
    check_positive_int,
    check_probability,
    check_random_state,
)
from bayesfair.data.assessment import AssessmentData
from bayesfair.data.examples import ExampleRows
from bayesfair.data.summary import ScoreSummary
from bayesfair.exceptions import CalibrationWarning, InvalidParameterError, SamplingWarning
from bayesfair.frequentist import bernstein_half_width, newcombe_interval, ppi_difference
from bayesfair.labels.acquisition import (
    SCORE_CLIP,
    WITHIN,
    Acquisition,
    AcquisitionPosterior,
    Pool,
    _check_metric_defined,
    _pairs_index,
    result_posterior,
)
from bayesfair.labels.approximate import PARETO_K_MAX, Laplace, _prior_draws
from bayesfair.metrics.rates import get_rate, rate_fraction, rate_from_counts
from bayesfair.models.calibration import (
    CalibrationPriors,
    DiscrepancyPrior,
    draw_prior_rates,
    sample_misfit,
    stratum_counts,
)
from bayesfair.models.calibration_fit import robust_unlabeled_counts
from bayesfair.models.shift import map_counts
from bayesfair.models.unlabeled import expected_counts
from bayesfair.posterior.fitting import fit
from bayesfair.stats import hdi, rope_decision

#: ``plan_labels(group=WORST)``: plan the gap of the worst-off group (the command line's
#: default).
WORST = "worst"
#: The share of simulated audits that must reach a decision for :func:`plan_sentence` to
#: call a budget enough (the usual 80% power of a study's plan).
POWER = 0.8

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
# plan_labels merges this many adjacent bins of the unlabeled histogram (1,024 -> 64
# over the logit range [-4.6, 4.6], bins 0.14 wide): the simulated labels' scores are
# the merged bins' means, and each refit's unlabeled pass costs 16x less.
_PLAN_COARSEN = 16


@dataclass
class AuditState:
    """One simulated audit: the labeled examples so far and the pool left."""

    s: np.ndarray
    y: np.ndarray
    g: np.ndarray
    pool: Pool

    def add(self, cells: np.ndarray, truth, rng) -> AuditState:
        pool = replace(self.pool, count=self.pool.count.copy())
        np.subtract.at(pool.count, cells, 1.0)
        s_new = np.exp(pool.log_s[cells])
        y_new = truth.labels(cells, pool, rng)
        return AuditState(
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

    def labels(self, cells, pool: Pool, rng) -> np.ndarray:
        g, h = pool.group[cells], pool.side[cells]
        eta = self.c[g] + self.a[g] * pool.log_s[cells] - self.b[g] * pool.log_1ms[cells]
        p = np.where(self.free[g, h], self.rate[g, h], 0.5 * (1.0 + np.tanh(0.5 * eta)))
        return (rng.random(p.size) < p).astype(np.int8)


class _SimData:
    """The parts of :class:`AssessmentData` that the frequentist intervals read, for a
    simulated labeled set and the pool left unlabeled (internal)."""

    def __init__(self, state: AuditState, levels: list, reference, threshold: float):
        self.group_levels, self.reference, self.threshold = levels, reference, threshold
        self.scores, self.labels, self.group_codes = state.s, state.y, state.g
        self.n_groups = len(levels)
        self._summary = state.pool.summary()
        self.n_unlabeled = self._summary.n_total
        self.n_labeled = state.s.size
        self.labeled_examples = ExampleRows("labeled", levels, threshold, state.s, state.g, state.y)

    def unlabeled_reduction(self, score_clip=SCORE_CLIP, n_bins=None):
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
    if isinstance(budgets, str) or not np.iterable(budgets):
        raise InvalidParameterError(
            f"The 'budgets' parameter must be a list of label counts. Got {budgets!r}."
        )
    values = [check_positive_int(b, "budgets") for b in budgets]
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
    num, den = rate_fraction(sim.labeled_examples.confusion_counts(), metric)
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
            t = bernstein_half_width(
                int(n),
                ci_prob=ci_prob,
                cost_range=1.0,
                min_group_fraction=float(gam),
                variance=n / den[i] + n / den[j],
            )
            est = num[i] / den[i] - num[j] / den[j]
            out[(i, j)] = (float(est - t), float(est + t))
        else:
            r = ppi_difference(
                sim, metric, group=gi, reference=gj, ci_prob=ci_prob, random_seed=rng
            )
            out[(i, j)] = tuple(map(float, r.interval))
    return out


def plan_labels(
    data,
    metric: str = "accuracy",
    epsilon: float = 0.02,
    budgets=None,
    n_sims: int = 30,
    *,
    methods=None,
    strategies=("random", "active"),
    group=None,
    reference=None,
    ci_prob: float = 0.95,
    within: str = "stratum",
    n_draws: int = 500,
    random_seed=None,
    progressbar: bool = False,
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
    proposal is the Laplace approximation at the mode (``Laplace``); its
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
    n_sims : int, default 30
        Simulated audits per budget: a share of them, P(decision), is within about
        ±0.09 (one standard error at 0.5); the time grows with it (the default's
        time: ``docs/benchmarks.md``, "``bayesfair plan``'s default").
    methods : list of str, optional
        Among :data:`PLAN_METHODS`; default all four.
    strategies : list of str
        Among :data:`STRATEGIES`. ``"active"`` adds each budget's labels as
        one batch of :func:`suggest_labels`' acquisition.
    group, reference : optional
        One gap; default every group against the reference. ``group="worst"``
        (:data:`WORST`): the worst-off group's gap, the group most probably of the
        most adverse rate under the current posterior (the family view's
        ``worst_group``); if that is the reference, the gap of the best-off group to it;
        with nothing labeled yet, the smallest group's (the hardest to decide).
    ci_prob : float, default 0.95
    within : str
        What the acquisition targets (:data:`WITHIN`), as in
        :func:`suggest_labels`. The simulated audits
        follow the model, so ``"mixed"``'s fallback on a flagged calibration
        check is not simulated.
    n_draws : int, default 500
        Draws of each approximate posterior.
    random_seed : None, int, SeedSequence or Generator
    progressbar : bool
        A progress bar over the simulations on standard error.

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
        ``n_sims``. The simulations behind it are in
        ``plan.attrs["simulations"]``, one record per simulated interval
        (``pd.DataFrame(plan.attrs["simulations"])``; each refit's ``pareto_k``
        among the fields).
    """
    metric = get_rate(metric).name
    epsilon = check_epsilon(epsilon)
    ci_prob = check_probability(ci_prob)
    n_sims = check_positive_int(n_sims, "n_sims")
    n_draws = check_positive_int(n_draws, "n_draws", minimum=100)
    methods, strategies = _check_plan_choices(methods, strategies, within)
    levels, pool, threshold, (s0, y0, g0), ref = _plan_inputs(data, reference)
    k = len(levels)
    if k < 2:
        raise InvalidParameterError("A gap needs two groups; the data have one.")
    if group not in (None, WORST, *levels):
        raise InvalidParameterError(f"Unknown group {group!r}; the groups are {levels}.")
    side0 = np.zeros((k, 2))
    np.add.at(side0, (g0, (s0 >= threshold).astype(np.intp)), 1.0)
    _check_metric_defined(metric, pool.totals() + side0, levels)
    budgets = _check_budgets(budgets, s0.size, round(float(pool.count.sum())))
    rng = check_random_state(random_seed)
    priors, disc = CalibrationPriors(), DiscrepancyPrior().for_groups(k)
    start = AuditState(s0, y0, g0, pool)
    first = None
    if s0.size:  # the current posterior, by NUTS: the truths
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = fit(
                data,
                metrics=[metric],
                draws=500,
                tune=500,
                chains=2,
                progressbar=False,
                random_seed=int(rng.integers(2**31)),
            )
        for w in caught:
            if issubclass(w.category, CalibrationWarning):
                warnings.warn(
                    f"{w.message} The plan assumes the model.", CalibrationWarning, stacklevel=2
                )
        first = _Fitted(result_posterior(res, data, metric), {})
    if group == WORST:
        group = _worst_group(res if first is not None else None, metric, levels, ref, pool)
    pairs = _pairs_index(levels, ref, group)
    laplace = Laplace(k, threshold, disc, priors, n_draws)
    truth_post = None if first is None else first.posterior

    with warnings.catch_warnings(), one_blas_thread():
        # sparse strata in small simulated labeled sets are expected here; the plan
        # reports widths, not the intervals themselves (one BLAS thread: why in
        # bayesfair._internal.threads)
        warnings.simplefilter("ignore")
        truths = draw_truths(truth_post, start, laplace, priors, disc, k, n_sims, rng)
        rows = []
        context = _SimContext(
            priors,
            metric,
            k,
            n_draws,
            pairs,
            within,
            methods,
            levels,
            ref,
            threshold,
            ci_prob,
            epsilon,
            s0.size,
        )
        for i, truth in enumerate(track(truths, n_sims, "plan: simulations", progressbar)):
            for strategy in strategies:
                rows += _simulate(
                    truth,
                    start,
                    first,
                    laplace,
                    context,
                    rng,
                    sim=i,
                    strategy=strategy,
                    budgets=budgets,
                )
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
            SamplingWarning,
            stacklevel=2,
        )
    # plain records, not a frame: attrs travel through pandas operations, which compare them
    summary.attrs["simulations"] = sims.to_dict("records")
    return summary


def _worst_group(res, metric: str, levels: list, ref, pool):
    """The group whose gap to ``ref`` :func:`plan_labels` plans with ``group="worst"``
    (its docstring says which)."""
    if res is not None:
        view = res.group_summary(metric)
        view = view[view["prob_worst"].notna()]
        if len(view):
            worst = view.loc[view["prob_worst"].idxmax(), "group"]
            if worst != ref:
                return worst
            others = view[view["group"] != ref]
            if len(others):
                return others.loc[others["prob_worst"].idxmin(), "group"]
    sizes = pool.totals().sum(axis=1)
    return next(levels[i] for i in np.argsort(sizes, kind="stable") if levels[i] != ref)


def plan_sentence(plan: pd.DataFrame, epsilon: float, metric: str = "", power: float = POWER):
    """The plan's answer in one sentence: about how many labels decide the gap.

    The smallest budget at which at least ``power`` of the simulated audits reach a
    decision (the interval inside or outside ±ε), for the first method of the plan
    (the Bayesian one by default) with labels drawn at random, and with labels chosen
    by the acquisition where that is fewer; or, where no budget reaches it, the share
    at the largest.

    Parameters
    ----------
    plan : pandas.DataFrame
        :func:`plan_labels`' table (with several pairs, the first pair's rows).
    epsilon : float
        The ε the plan was made for.
    metric : str, optional
        The rate, for the sentence.
    power : float, default :data:`POWER`

    Returns
    -------
    str
    """
    first = plan.iloc[0]
    rows = plan[(plan["group"] == first["group"]) & (plan["reference"] == first["reference"])]
    method = rows["method"].iloc[0]
    what = f"{get_rate(metric).label + ' of ' if metric else ''}{first['group']} − "
    what += f"{first['reference']}"
    found = {}
    for strategy in ("random", "active"):
        part = rows[(rows["method"] == method) & (rows["strategy"] == strategy)]
        enough = part[part["p_decision"] >= power].sort_values("budget")
        if len(enough):
            found[strategy] = enough.iloc[0]
    if "random" in found:
        r = found["random"]
        text = (
            f"About {int(r['budget']):,} labels in all ({int(r['n_new']):,} more, drawn at "
            f"random) decide the gap {what} at ε = {epsilon:g} in {power:.0%} of simulated "
            f"audits ({method})"
        )
        active = found.get("active")
        if active is not None and active["budget"] < r["budget"]:
            text += f"; about {int(active['budget']):,} if chosen by bayesfair suggest"
        return text + "."
    part = rows[(rows["method"] == method) & (rows["strategy"] == "random")]
    last = (part if len(part) else rows).sort_values("budget").iloc[-1]
    return (
        f"No budget up to {int(last['budget']):,} labels decides the gap {what} at ε = "
        f"{epsilon:g} in {power:.0%} of simulated audits ({method}: {last['p_decision']:.0%} "
        f"at {int(last['budget']):,}); the gap may lie near ε, or ε be smaller than the "
        "labels can resolve."
    )


def _plan_inputs(data, reference):
    """Groups, the pool of unlabeled cells, the threshold, the labeled rows and the
    reference group of what :func:`plan_labels` was given."""
    if isinstance(data, ScoreSummary):
        if data.labeled:
            raise InvalidParameterError(
                "plan_labels takes the unlabeled examples' summary; this one holds labels "
                "(pass AssessmentData with the labeled rows, or summary.without_labels())."
            )
        levels = list(data.group_levels)
        pool = Pool.from_summary(data, _PLAN_COARSEN)
        threshold = data.threshold
        rows = np.empty(0), np.empty(0, dtype=np.int8), np.empty(0, dtype=np.intp)
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
        pool = Pool.from_summary(data.unlabeled_reduction(SCORE_CLIP), _PLAN_COARSEN)
        threshold = data.threshold
        rows = (
            np.asarray(data.scores, float),
            np.asarray(data.labels, np.int8),
            np.asarray(data.group_codes, np.intp),
        )
        ref = data.reference if reference is None else data.resolve_group(reference, "reference")
    else:
        raise InvalidParameterError(
            "The 'data' parameter must be an AssessmentData or an unlabeled ScoreSummary. "
            f"Got {type(data).__name__}."
        )
    return levels, pool, threshold, rows, ref


def _check_plan_choices(methods, strategies, within):
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
    check_choice(within, WITHIN, "within")
    return methods, strategies


@dataclass(frozen=True)
class _SimContext:
    """What every simulated audit of one plan shares."""

    priors: CalibrationPriors
    metric: str
    k: int
    n_draws: int
    pairs: list
    within: str
    methods: list
    levels: list
    ref: object
    threshold: float
    ci_prob: float
    epsilon: float
    n_start: int


def _simulate(truth, start, first, laplace, c: _SimContext, rng, *, sim, strategy, budgets) -> list:
    """One simulated audit: labels added budget by budget (at random or by the
    acquisition), the posterior refitted, each budget's intervals recorded."""
    state, fitted, rows = start, first, []
    laplace.x0 = laplace.bc_x0 = None
    for budget in budgets:
        n_add = budget - state.s.size
        if n_add > 0:
            if strategy == "random":
                picks = np.repeat(
                    np.arange(state.pool.count.size),
                    rng.multivariate_hypergeometric(state.pool.count.astype(np.int64), n_add),
                )
            else:
                post = (
                    fitted.posterior
                    if fitted is not None
                    else _prior_posterior(state, c.priors, c.metric, c.k, c.n_draws, rng)
                )
                picks, _ = Acquisition(post, state.pool, c.pairs).greedy(n_add, c.within, rng)
            state = state.add(picks, truth, rng)
        if n_add > 0 or fitted is None:  # at n_new = 0: the NUTS posterior itself
            fitted = fit_state(laplace, state, c.metric, rng) if state.s.size else None
        rows += _record(state, fitted, c, rng, sim=sim, strategy=strategy, budget=budget)
    return rows


@dataclass
class _Fitted:
    posterior: AcquisitionPosterior
    delta: dict  # (i, j) -> draws of the gap
    pareto_k: float = np.nan  # of the importance-sampled refit; NaN for a NUTS fit


def fit_state(laplace: Laplace, state: AuditState, metric, rng) -> _Fitted:
    summary = state.pool.summary()
    lab = laplace.labeled(state)
    a, b, c, center = laplace.draws(lab, summary, rng)
    u, _, _ = map_counts(
        lab, summary, a, b, c, prior=laplace.disc.shift, estimand="assessed", rng=rng
    )
    u, _, p_free, _ = robust_unlabeled_counts(
        lab, summary, u, (a, b, c), laplace.disc, "assessed", rng, center=center
    )
    labeled = lab.confusion_counts()
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = rate_from_counts(u + labeled, metric)
    x_st, n_st = stratum_counts(lab)
    mean_u = expected_counts(summary, a.mean(0)[None], b.mean(0)[None], c.mean(0)[None])[0]
    post = AcquisitionPosterior(
        a=a,
        b=b,
        c=c,
        rates=rates,
        p_free=p_free.mean(axis=0),
        center=center,
        x_st=x_st,
        n_st=n_st,
        counts=mean_u + labeled,
        assessed=True,
        metric=metric,
        concentration=laplace.disc.concentration,
    )
    return _Fitted(post, {}, laplace.pareto_k)


def _prior_posterior(state: AuditState, priors, metric, k, n_draws, rng) -> AcquisitionPosterior:
    """The acquisition's view of the prior (nothing labeled yet)."""
    summary = state.pool.summary()
    a, b, c = _prior_draws(priors, k, n_draws, rng)
    counts = expected_counts(summary, a, b, c)
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = rate_from_counts(counts, metric)
    return AcquisitionPosterior(
        a=a,
        b=b,
        c=c,
        rates=rates,
        p_free=None,
        center=None,
        x_st=np.zeros((k, 2)),
        n_st=np.zeros((k, 2)),
        counts=np.nanmean(counts, axis=0),
        assessed=True,
        metric=metric,
    )


def draw_truths(post, start: AuditState, laplace, priors, disc, k, n_sims, rng) -> list[_Truth]:
    """``n_sims`` truths from a posterior (an :class:`AcquisitionPosterior`), or from
    ``priors`` if None."""
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
        rate = draw_prior_rates(disc, np.full((k, 2), 0.5), n_sims, rng)
    return [_Truth(a[i], b[i], c[i], free[i], rate[i]) for i in range(n_sims)]


def _valid(method: str, strategy: str, within: str) -> bool:
    """Whether a method's interval keeps its guarantee after the strategy's selection."""
    if strategy == "random" or method == "bayes":
        return True
    return method == "ppi" and within == "stratum"


def _record(state, fitted, c: _SimContext, rng, *, sim, strategy, budget) -> list[dict]:
    """Each method's interval of every pair at one budget of one simulated audit, with
    its verdict, as rows of the plan's simulations."""
    metric, pairs, levels, ci_prob = c.metric, c.pairs, c.levels, c.ci_prob
    ref, threshold, epsilon, within = c.ref, c.threshold, c.epsilon, c.within
    n_new = budget - c.n_start
    intervals = {}
    for method in c.methods:
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
            verdict = rope_decision(lo, hi, epsilon)
            rows.append(
                {
                    "sim": sim,
                    "strategy": strategy,
                    "method": method,
                    "group": levels[i],
                    "reference": levels[j],
                    "budget": budget,
                    "n_new": n_new,
                    "lower": lo,
                    "upper": hi,
                    "width": hi - lo,
                    "verdict": verdict,
                    "valid": _valid(method, strategy, within),
                    "pareto_k": fitted.pareto_k if method == "bayes" else np.nan,
                }
            )
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
            lambda k: float((k > PARETO_K_MAX).mean()) if k.notna().any() else np.nan,
        ),
        n_sims=("sim", "nunique"),
    ).reset_index()
    return out
