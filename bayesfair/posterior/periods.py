"""Audits over time: each period's gaps, and a flag where a period's labels drifted.

A deployed classifier is audited again every period, with last period's labels and,
at most, a few new ones. With a period column (``AssessmentData.from_frames(...,
period="quarter")``), :func:`bayesfair.fit_periods` fits, **for each group, the calibration
model over its periods**: the periods play the part the groups play in an ordinary
fit, so each period's map ``(a, b, c)`` is drawn from the group's population of
periods, ``θ_t ~ N(μ, σ²)`` (:mod:`bayesfair.models.calibration`), whose spread σ the
data learn. A period without labels rests on the group's other periods; a period
with a few labels moves away from them as far as its labels say; the default robust
model (``rbc``) still lets a stratum of a period follow its own rate.

**Why a hierarchy over periods, not a random walk.** An audit looks back over a batch
of periods at once. The hierarchy is the calibration model already checked for
coverage (the same likelihood, the same sampler, the periods where the groups were),
it learns from all periods how alike they are, and it does not need equally spaced
periods. A random walk would carry a drifted period's map forward to later periods
without labels, which the hierarchy does not: a label-free period after a drift rests
on the pooled map. That is what the **drift flag** is for. It says which period's
labels the pooled map does not explain, so that rows of that period get labeled.

**The drift flag** (:func:`drift_table`): for each group and each period with labels
after an earlier labeled period of the group, a likelihood-ratio test of "the period's
labels follow the beta-calibration map of the group's baseline (below)" against
"they follow that map shifted by δ on the logit scale" (one degree of freedom, the maps
fitted by maximum likelihood), its p-value from a parametric bootstrap of the
statistic under the carried map. ``drift`` is True below p = 0.05. There is one check
per period and group; this raw flag has no adjustment across periods, so that a single
drifted period is not hidden by the count of the others (the family's flag below is
adjusted). With the χ² law's p-value the test was liberal with few labels (8.7–11% false
flags with 10–20 labels a period, 5.7% with 100 + 50); with the bootstrap's, 5.1–6.0%
of 1,000–1,400 null checks with 10–20 labels a period (the family's flag in 3–6% of
100 audits).

**The family of checks.** An audit of G groups over T periods makes up to G (T − 1)
checks, and at p < 0.05 each some flag by chance when nothing drifted (0.4 of 8 on
average). :func:`family_drift` adds Holm's adjusted p-value over all the audit's checks
(``drift_p_family``) and ``drift_family``, the flags that hold for the family; the
report says a flag that holds only on its own is a *possible* drift, with the number
of checks. And each check says what it can see (``detectable_shift``): the logit shift
of the period's map that it flags in about 80% of audits, from the test's Fisher
information (checked by simulation: ``docs/results/periods.md``), and what that shift
does to the period's share of positives
(``detectable_change``): with 25 labels a check sees only large drifts.
The baseline of a check is the group's earlier labeled periods **that were not
flagged**, as in a control chart: a drifted period does not become part of the map the
later periods are checked against, so a drift that persists is flagged in each period
it lasts, not only where it starts.

The groups are fitted separately, so their posteriors are independent, and a gap's
draws are the difference of the two groups' draws of the same period.

References
----------
Ji, Smyth & Steyvers 2020, §2.4 (the hierarchical calibration model); Gelman, Meng &
Stern 1996 (posterior predictive checks); NannyML's CBPE (confidence-based performance
estimation), which assumes the scores stay calibrated and has no such check.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from bayesfair._internal.validation import check_epsilon, check_probability, takes
from bayesfair.data.assessment import AssessmentData
from bayesfair.exceptions import (
    InvalidParameterError,
    UndefinedRateWarning,
    UnlabeledGroupWarning,
)
from bayesfair.metrics.rates import get_rate
from bayesfair.metrics.verdicts import Evidence, decide
from bayesfair.posterior.calibration_test import holm_adjust
from bayesfair.posterior.groups import evidence
from bayesfair.stats import prob_within, simultaneous_band

#: The p-value below which a period's labels are flagged as drifted.
DRIFT_LEVEL = 0.05

#: Fewest labels of a period, and of the group's earlier periods, for a drift check.
DRIFT_MIN_LABELS = 10

#: The power at which a check's ``detectable_shift`` is stated.
DRIFT_POWER = 0.8

#: Parametric-bootstrap replicates of a drift check's p-value (:func:`drift_table`):
#: this many, and where the p-value is at most :data:`DRIFT_LEVEL`, up to the second
#: number, so that Holm's adjustment over up to about 100 checks can still flag one.
DRIFT_RESAMPLES = (199, 1999)

#: Columns of :func:`period_summary`.
PERIOD_COLUMNS = [
    "metric",
    "period",
    "group",
    "reference",
    "n_labeled",
    "n_unlabeled",
    "n_labeled_reference",
    "n_unlabeled_reference",
    "mean",
    "lower",
    "upper",
    "prob_practically_fair",
    "decision",
    "drift",
    "drift_p",
    "drift_in",
    "drift_family",
    "drift_family_in",
]


@takes("AssessmentData")
def group_over_periods(data: AssessmentData, group) -> AssessmentData | None:
    """One group's examples with their periods as the groups: the data of its fit.

    The group labels of the returned data are the period codes (positions in
    ``data.period_levels``) that occur in the group's rows. None when the group has
    no labeled row in any period: its maps would rest on the prior alone, so it is
    not fitted and its rates (and every gap it is part of) are NaN, "undecided".

    Parameters
    ----------
    data : AssessmentData
        Data with periods (``period_levels`` not None), held as rows.
    group
        One of ``data.group_levels``.
    """
    if data.period_levels is None:
        raise InvalidParameterError("The data has no periods: pass 'period' to from_frames.")
    code = data.group_levels.index(data.resolve_group(group))
    lab, unl = data.labeled_examples, data.unlabeled_examples
    in_lab, in_unl = lab.codes == code, unl.codes == code
    if not in_lab.any():
        return None
    with warnings.catch_warnings():
        # periods without labels are the point here; the caller's data already warned
        warnings.simplefilter("ignore", UnlabeledGroupWarning)
        warnings.simplefilter("ignore", UndefinedRateWarning)
        return AssessmentData(
            lab.scores[in_lab],
            lab.labels[in_lab],
            lab.period_codes[in_lab],
            unl.scores[in_unl] if unl.n_total else None,
            unl.period_codes[in_unl] if unl.n_total else None,
            threshold=data.threshold,
        )


@takes("AssessmentData")
def period_sizes(data: AssessmentData) -> pd.DataFrame:
    """Labeled and unlabeled examples of each period and group.

    Parameters
    ----------
    data : AssessmentData
        Data with periods.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``(period, group)`` (every pair), columns ``n_labeled``,
        ``n_unlabeled``.
    """
    n_t, n_g = len(data.period_levels), data.n_groups
    counts = {}
    for name, examples in (
        ("n_labeled", data.labeled_examples),
        ("n_unlabeled", data.unlabeled_examples),
    ):
        cell = (
            examples.period_codes * n_g + examples.codes if examples.n_total else np.empty(0, int)
        )
        counts[name] = np.bincount(cell, minlength=n_t * n_g)
    index = pd.MultiIndex.from_product(
        [data.period_levels, data.group_levels], names=["period", "group"]
    )
    return pd.DataFrame(counts, index=index)


def proxy_period_sizes(data: AssessmentData, fits: dict) -> pd.DataFrame:
    """:func:`period_sizes` with the rows known only by the proxy: each period's
    unlabeled rows of a group include the posterior mean of the latent rows its fit gave
    the group (the labeled ones count the rows of self-reported group).

    Parameters
    ----------
    data : AssessmentData
        Data with periods and group probabilities.
    fits : dict
        Period value -> its fit (None for a period without labels).
    """
    sizes = period_sizes(data)
    for value, fit in fits.items():
        if fit is None:
            continue
        cells = fit.idata["posterior"]["proxy_cells"].sum("cell").mean(("chain", "draw"))
        for group, n in zip(data.group_levels, cells.values, strict=True):
            sizes.loc[(value, group), "n_unlabeled"] += round(float(n))
    return sizes


@takes("AssessmentData")
def drift_table(data: AssessmentData, group, score_clip: float = 0.01) -> pd.DataFrame:
    """The drift flag of each period of one group (module docstring).

    For each period with labels after an earlier labeled period of the group: the
    likelihood-ratio statistic of "the period's labels follow the beta-calibration
    map of the group's baseline" against "the period's map is that map shifted by δ
    on the logit scale" (one degree of freedom; the maps fitted by maximum
    likelihood, :func:`_map_fit`), its p-value (``drift_p``) and ``drift``
    below :data:`DRIFT_LEVEL`. The p-value is a parametric bootstrap's
    (:func:`_bootstrap_p_value`: label sets drawn from the carried map, each refitted
    both ways), not the χ² law's: with 10–20 labels a period, and a baseline of as
    few, the χ² p-value flagged 8.7–11% of checks where nothing drifted (rare positives
    the worst), and the family's flag 11% of audits. The draws are seeded by the group
    and period, so a table repeats. The baseline is the group's earlier labeled periods
    that were not flagged, as in a control chart: a flagged period leaves it, so a
    drift that persists is checked against the map from before it in every period
    it lasts. Too few labels (under :data:`DRIFT_MIN_LABELS` in the period or its
    baseline) or no earlier labels: NaN, no flag.

    Parameters
    ----------
    data : AssessmentData
        Data with periods, held as rows.
    group
        One of ``data.group_levels``.
    score_clip : float, default 0.01
        ε of the clipping of scores to ``[ε, 1 − ε]`` before taking logs.

    Returns
    -------
    pandas.DataFrame
        One row per period: ``period, group, n_labeled, statistic, drift_p, drift``,
        and what the check can see: ``detectable_shift``, the logit shift of the
        period's map flagged with probability about :data:`DRIFT_POWER` (a
        one-degree-of-freedom test at :data:`DRIFT_LEVEL`; the δ where
        ``δ √I(δ) = z_{1−α/2} + z_{power}``, ``I(δ)`` the Fisher information of the
        shift with the map profiled out, at the shifted map; the larger of an
        upward and a downward shift; ``inf`` when no shift reaches that power), and
        ``detectable_change``, the mean change of the period's probabilities of a
        positive label under that shift.
    """
    lab = data.labeled_examples
    code = data.group_levels.index(data.resolve_group(group))
    mine = lab.codes == code
    s = np.clip(lab.scores[mine], score_clip, 1.0 - score_clip)
    features = np.column_stack([np.ones(s.size), np.log(s), -np.log1p(-s)])
    y, period = lab.labels[mine].astype(float), lab.period_codes[mine]
    rows = []
    baseline = np.zeros(period.size, dtype=bool)  # the labels of the periods in control
    for t, label in enumerate(data.period_levels):
        now, before = period == t, baseline
        stat = p_value = shift = change = np.nan
        if now.sum() >= DRIFT_MIN_LABELS and before.sum() >= DRIFT_MIN_LABELS:
            both = now | before
            shifted = np.column_stack([features[both], now[both]])
            stat = _drift_statistic(features[both], shifted, y[both])
            theta = _map_fit(features[both], y[both])[1]
            rng = np.random.default_rng([DRIFT_RESAMPLES[0], code, t])
            p_value = _bootstrap_p_value(stat, features[both], shifted, theta, rng)
            shift, change = _detectable(shifted, theta, now[both])
        if not p_value < DRIFT_LEVEL:  # a flagged period stays out of later baselines
            baseline = baseline | now
        rows.append(
            {
                "period": label,
                "group": group,
                "n_labeled": int(now.sum()),
                "statistic": stat,
                "drift_p": p_value,
                "drift": bool(p_value < DRIFT_LEVEL),
                "detectable_shift": shift,
                "detectable_change": change,
            }
        )
    return pd.DataFrame(rows)


def family_drift(drift: pd.DataFrame) -> pd.DataFrame:
    """The drift checks of a whole audit with their family-wise adjustment.

    Parameters
    ----------
    drift : pandas.DataFrame
        The :func:`drift_table` rows of every group, concatenated.

    Returns
    -------
    pandas.DataFrame
        A copy with ``drift_p_family``, Holm's (1979) step-down adjustment of
        ``drift_p`` over every check of the audit (periods without a check stay
        NaN and do not count), and ``drift_family``, True where it is below
        :data:`DRIFT_LEVEL`: the flags that hold for the family of checks.
    """
    out = drift.copy()
    out["drift_p_family"] = holm_adjust(out["drift_p"].to_numpy(float))
    out["drift_family"] = (out["drift_p_family"] < DRIFT_LEVEL).to_numpy(bool)
    return out


def _detectable(shifted: np.ndarray, theta: np.ndarray, now: np.ndarray) -> tuple[float, float]:
    """The shift a check flags with :data:`DRIFT_POWER`, and its change of the period's
    positive probabilities (``drift_table``'s Returns).

    The δ at which ``δ √I(δ) = z_{1−α/2} + z_{power}``, with ``I(δ)`` the shift's
    Fisher information (the map profiled out) where the period's map is shifted by δ:
    the first crossing on a grid up to 20 logits, then bisection; the larger of an
    upward and a downward shift, and the change in that direction. No crossing (the
    information runs out before the power is reached): ``inf``. The information at no
    shift alone overstated the power at 25 labels (0.72 for a stated 0.80).
    """
    from scipy.special import ndtri

    z = ndtri(1.0 - DRIFT_LEVEL / 2.0) + ndtri(DRIFT_POWER)
    eta = shifted[:, :-1] @ theta

    def reach(delta: float) -> float:  # δ √I(δ) − z
        p = 0.5 * (1.0 + np.tanh(0.5 * (eta + delta * now)))
        info = (shifted * (p * (1.0 - p))[:, None]).T @ shifted
        j_tt, j_td = info[:-1, :-1], info[:-1, -1]
        ridge = 1e-9 * np.eye(j_tt.shape[0])
        profiled = info[-1, -1] - j_td @ np.linalg.solve(j_tt + ridge, j_td)
        return abs(delta) * np.sqrt(max(profiled, 0.0)) - z

    found = []
    for sign in (1.0, -1.0):
        grid = sign * np.linspace(0.0, 20.0, 201)
        # the grid is walked only up to the first crossing (reach(0) = −z < 0)
        first = next((k for k, d in enumerate(grid) if reach(d) >= 0), None)
        if first is None:
            return np.inf, np.nan
        lo, hi = grid[first - 1], grid[first]
        for _ in range(50):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if reach(mid) < 0 else (lo, mid)
        found.append(0.5 * (lo + hi))
    delta = max(found, key=abs)
    base = eta[now]
    moved = 0.5 * (1.0 + np.tanh(0.5 * (base + delta)))
    change = float(np.mean(moved - 0.5 * (1.0 + np.tanh(0.5 * base))))
    return abs(delta), abs(change)


def _drift_statistic(features: np.ndarray, shifted: np.ndarray, y: np.ndarray):
    """The likelihood-ratio statistic of the period's shift (``drift_table``), for one
    label set ``y`` (n,) or for each row of ``y`` (B, n)."""
    return np.maximum(2.0 * (_map_fit(shifted, y)[0] - _map_fit(features, y)[0]), 0.0)


def _bootstrap_p_value(stat, features, shifted, theta, rng) -> float:
    """``(1 + #{statistic* ≥ stat}) / (B + 1)`` over ``B`` label sets drawn from the
    carried map (θ), each refitted both ways: a valid p-value at any sample size
    (Davison & Hinkley 1997, §4.2.1). ``B`` is :data:`DRIFT_RESAMPLES`' first number,
    and its second where the first gives a p-value at most :data:`DRIFT_LEVEL`: a
    p-value of ``B`` draws cannot fall below ``1 / (B + 1)``, and Holm's adjustment
    over many checks needs smaller ones. The p-value of the second stage alone decides
    every level below :data:`DRIFT_LEVEL`, so the two-stage p-value stays valid.
    (Dividing the statistic by its bootstrap mean, Rocke's 1989 Bartlett correction,
    still flagged 5.4–7.5% of null checks: with few labels the statistic is not a
    scaled χ².) The label sets are fitted together, in blocks of
    :data:`_DRIFT_BLOCK` (:func:`_map_fit` on a matrix of label sets)."""
    p = 0.5 * (1.0 + np.tanh(0.5 * (features @ theta)))
    above, drawn = 0, 0
    for total in DRIFT_RESAMPLES:
        while drawn < total:
            size = min(_DRIFT_BLOCK, total - drawn)
            y = (rng.random((size, p.size)) < p).astype(float)
            above += int(np.sum(_drift_statistic(features, shifted, y) >= stat))
            drawn += size
        p_value = (1.0 + above) / (drawn + 1.0)
        if p_value > DRIFT_LEVEL:
            break
    return p_value


#: Label sets fitted together by :func:`_bootstrap_p_value`.
_DRIFT_BLOCK = 200


def _map_fit(features: np.ndarray, y: np.ndarray, ridge: float = 1e-3):
    """Maximised log likelihood of ``y ~ Bernoulli(σ(features @ θ))`` and θ (Newton's
    method), for one label set ``y`` (n,) or each row of ``y`` (B, n) at once.

    ``features`` are ``(1, ln s, −ln(1 − s))``: θ = (c, a, b) of the beta-calibration
    map. A small ridge keeps θ finite when the labels separate.
    """
    y = np.asarray(y, dtype=float)
    batch = np.atleast_2d(y)
    d = features.shape[1]
    theta = np.zeros((batch.shape[0], d))
    active = np.arange(batch.shape[0])  # the label sets not yet converged
    for _ in range(50):
        eta = theta[active] @ features.T
        p = 0.5 * (1.0 + np.tanh(0.5 * eta))
        grad = (batch[active] - p) @ features - ridge * theta[active]
        hess = (features.T * (p * (1.0 - p))[:, None, :]) @ features + ridge * np.eye(d)
        step = np.linalg.solve(hess, grad[..., None])[..., 0]
        theta[active] += step
        active = active[np.abs(step).max(axis=1) >= 1e-10]
        if not active.size:
            break
    eta = theta @ features.T
    loglik = np.sum(batch * eta - np.logaddexp(0.0, eta), axis=1)
    if y.ndim == 1:
        return float(loglik[0]), theta[0]
    return loglik, theta


@takes("PeriodPosterior")
def period_summary(
    result, metrics=None, epsilon: float = 0.02, ci_prob: float = 0.95
) -> pd.DataFrame:
    """Each period's gap of each group to the reference, with its band and verdict.

    Parameters
    ----------
    result : PeriodPosterior
        A fit of data with periods (:func:`bayesfair.fit_periods`).
    metrics : str or list of str, optional
        Default: the fit's metrics.
    epsilon : float, default 0.02
        Half-width of the region of practical equivalence ``[−ε, ε]``.
    ci_prob : float, default 0.95
        The *joint* probability of the band over a metric's periods and groups.

    Returns
    -------
    pandas.DataFrame
        One row per metric, period and group (other than the reference), columns
        :data:`PERIOD_COLUMNS`: the labeled and unlabeled examples of the group and
        of the reference in the period; the posterior mean of the gap (group −
        reference) and its band (``lower``, ``upper``); P(|gap| < ε); the HDI + ROPE
        ``decision`` read off the band behind the one verdict gate
        (:func:`bayesfair.metrics.verdicts.decide`; the evidence per
        :func:`period_evidence`: "too few" below 10 labeled rows of a group in the
        rate's denominator over all periods or 30 rows assessed in the period;
        "undecided" where either rate is undefined in most draws); ``drift`` when the
        period's labels of either group contradict the map of that group's earlier
        periods that were not flagged (:func:`drift_table`), with the smaller p-value
        (``drift_p``) and the drifted group(s) (``drift_in``); ``drift_family`` when
        such a flag holds over the audit's family of checks (:func:`family_drift`),
        and the group(s) whose flag does (``drift_family_in``).

        The band is **simultaneous** over the metric's periods and groups
        (:func:`bayesfair.stats.simultaneous_band`: each gap's equal-tailed interval
        at one pointwise level, chosen so that with posterior probability at least
        ``ci_prob`` every gap lies in its band). An audit over 12 periods and 5
        groups reads 48 verdicts per metric; with a 95% interval each, some
        practically fair gap would be called "unfair" far more often than 5% of the
        time. Read off the joint band, the verdicts hold for the family, as
        :meth:`~bayesfair.posterior.FairnessPosterior.group_summary`'s do. The
        band's level is in ``attrs["ci_prob"]``; a single gap's own interval is
        :func:`bayesfair.stats.hdi` of its draws (``PeriodPosterior.rate_draws``).
    """
    epsilon = check_epsilon(epsilon)
    ci_prob = check_probability(ci_prob)
    metrics = (
        result.metrics if metrics is None else [metrics] if isinstance(metrics, str) else metrics
    )
    rows = []
    for metric in metrics:
        name = get_rate(metric).name
        ref = result.rate_draws(name, result.reference)
        others = [g for g in result.groups if g != result.reference]
        cells = [(group, t) for group in others for t in range(len(result.periods))]
        if not cells:  # no group besides the reference
            continue
        gaps = {group: result.rate_draws(name, group) - ref for group in others}
        joint = np.column_stack([gaps[group][t] for group, t in cells])
        lower, upper = simultaneous_band(joint, ci_prob)
        for j, (group, t) in enumerate(cells):
            period, band = result.periods[t], (lower[j], upper[j])
            rows.append(_period_row(result, name, period, group, joint[:, j], band, epsilon))
    out = pd.DataFrame(rows, columns=PERIOD_COLUMNS)
    out.attrs.update(ci_prob=ci_prob, epsilon=epsilon, band="simultaneous over periods and groups")
    return out


@takes("PeriodPosterior")
def period_evidence(result, metric: str, group, period) -> Evidence:
    """The verdict gate's :class:`~bayesfair.metrics.verdicts.Evidence` for ``group``'s
    rate in ``period``: its labeled rows in the rate's denominator over *all* periods
    (the period's map borrows from the others', so a period without labels rests on
    them, by design) and its rows assessed in ``period``.

    Parameters
    ----------
    result : PeriodPosterior
    metric : str
    group, period
        One of the result's groups and periods.
    """
    fit = result.fits[group]
    rows = result.sizes.loc[(period, group), ["n_labeled", "n_unlabeled"]].sum()
    labeled = 0 if fit is None else sum(e.labeled for e in evidence(fit, metric).values())
    return Evidence(group, int(labeled), int(rows), labels_needed=True)


def _period_row(result, metric, period, group, gap, band, epsilon) -> dict:
    """One row of :func:`period_summary`; ``band`` is the gap's (lower, upper)."""
    sizes = result.sizes
    defined = gap[~np.isnan(gap)]
    if defined.size < 0.5 * gap.size:
        mean = lower = upper = within = np.nan
        decision = "undecided"
    else:
        mean = float(defined.mean())
        lower, upper = band
        within = prob_within(defined, epsilon)
        gate = [period_evidence(result, metric, g, period) for g in (group, result.reference)]
        decision = decide(lower, upper, epsilon, gate)
    flags = {g: result.drift_of(g, period) for g in (group, result.reference)}
    drifted = [str(g) for g, (flag, _) in flags.items() if flag]
    family = [str(g) for g, (flag, _) in flags.items() if flag and _holds(result.drift, g, period)]
    p_values = [p for _, p in flags.values() if not np.isnan(p)]
    return {
        "metric": metric,
        "period": period,
        "group": group,
        "reference": result.reference,
        "n_labeled": int(sizes.loc[(period, group), "n_labeled"]),
        "n_unlabeled": int(sizes.loc[(period, group), "n_unlabeled"]),
        "n_labeled_reference": int(sizes.loc[(period, result.reference), "n_labeled"]),
        "n_unlabeled_reference": int(sizes.loc[(period, result.reference), "n_unlabeled"]),
        "mean": mean,
        "lower": float(lower),
        "upper": float(upper),
        "prob_practically_fair": within,
        "decision": decision,
        "drift": bool(drifted),
        "drift_p": min(p_values) if p_values else np.nan,
        "drift_in": ", ".join(drifted),
        "drift_family": bool(family),
        "drift_family_in": ", ".join(family),
    }


def _holds(drift: pd.DataFrame, group, period) -> bool:
    """Whether ``group``'s flag in ``period`` holds over the audit's checks
    (:func:`family_drift`; a table without the column: the flag itself)."""
    hit = drift[(drift["group"] == group) & (drift["period"] == period)]
    column = "drift_family" if "drift_family" in drift else "drift"
    return bool(hit[column].any())
