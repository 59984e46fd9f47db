"""Many groups: each group against all assessed rows, the family's verdict, impact ratios.

With K groups the first question is not "A against one reference" but "is the
family within ε, and which groups are worst off?". The functions here answer it
from a fit's joint draws of the K group rates (``result.rates(metric)``, dims
``chain, draw, group``); :class:`~bayesfair.posterior.FairnessPosterior` calls
them as ``res.group_summary()``, ``res.family_summary()`` and
``res.impact_ratios()``, and :func:`impact_ratios` also runs from a table of
counts alone (category, applicants, selected), as a bias audit's tables give
them.

Why each choice (``docs/guides/many-groups.md`` and ``docs/concepts.md``,
"Many groups"):

* **Gap to all rows.** A group's gap is its rate minus the rate over *all*
  assessed rows (fairlearn's ``MetricFrame.difference(method="to_overall")``),
  computed per draw from the group rates weighted by each group's share of the
  rate's denominator (:func:`overall_rate`). No group is the yardstick, so a
  small reference group's luck cannot move every verdict.
* **Simultaneous bands.** The K gaps of a metric get one joint band
  (:func:`bayesfair.stats.simultaneous_band`: each group's equal-tailed interval at
  one pointwise level, calibrated on the joint draws), so that a verdict read off
  it holds for the family: the probability that *some* group is called unfair
  wrongly is held at ``1 − ci_prob``, not ``K (1 − ci_prob)``.
* **max − min without its upward bias.** The draws of ``max_k θ_k − min_k θ_k``
  sit above the truth when the groups are alike (every draw's maximum picks up
  the noise of K estimates: the bias Lum, Zhang & Bower 2022 §4 describe for
  meta-metrics). The family interval is read off the joint band instead, by
  projection: when every gap lies in its band, ``max − min`` lies in
  ``[max(0, max_k L_k − min_k U_k), max_k U_k − min_k L_k]``. Its coverage is at
  least the band's, and its lower end is 0 whenever the bands overlap: alike
  groups are never called unfair by the noise of their maximum.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import xarray as xr

from bayesfair._internal.tree import get_group
from bayesfair._internal.validation import (
    check_epsilon,
    check_probability,
    check_random_state,
    takes,
)
from bayesfair.exceptions import InvalidParameterError
from bayesfair.frequentist.groups import max_gap_interval
from bayesfair.metrics.rates import COUNT_NAMES, get_metric, get_rate
from bayesfair.metrics.verdicts import (
    MIN_ROWS,
    TOO_FEW,
    Evidence,
    decide,
    population_interval,
    rate_evidence,
    shortfall_text,
)
from bayesfair.models.catalogue import MODEL_SPECS
from bayesfair.stats import rope_decision, simultaneous_band

#: The four-fifths rule (29 CFR § 1607.4(D)): an impact ratio below 0.8 is evidence of
#: adverse impact.
FOUR_FIFTHS = 0.8


def metric_list(result, metrics) -> list[str]:
    """The canonical names of ``metrics`` (one name or a list; default: all fitted)."""
    if metrics is None:
        return list(result.metrics)
    if isinstance(metrics, str):
        metrics = [metrics]
    return list(dict.fromkeys(get_metric(m).name for m in metrics))


def adverse_direction(metric: str) -> str:
    """``"low"`` or ``"high"``: which end of a rate is the adverse one for a group.

    A rate where higher is better (accuracy, TPR, ...) is adverse when low; an
    error rate when high. A rate without a direction (selection rate, base
    rate) counts as adverse when low, as the four-fifths rule reads a
    selection rate (the least selected group is the one it protects).
    """
    better = get_metric(metric).higher_is_better
    return "high" if better is False else "low"


def group_sizes(result) -> pd.DataFrame:
    """``n_labeled`` and ``n_unlabeled`` per group of a fit (``constant_data``)."""
    const = get_group(result.idata, "constant_data")
    return pd.DataFrame(
        {
            "n_labeled": const["n_labeled"].values.astype(int),
            "n_unlabeled": const["n_unlabeled"].values.astype(int),
        },
        index=pd.Index(result.groups, name="group", dtype=object),
    )


@takes("FairnessPosterior")
def evidence(result, metric: str) -> dict:
    """Each group's :class:`~bayesfair.metrics.verdicts.Evidence` for ``metric``: its
    labeled rows in the rate's denominator (the fit's observed counts) and its rows
    assessed (labeled and unlabeled), the inputs of the one verdict gate
    (:func:`bayesfair.metrics.verdicts.decide`).

    Parameters
    ----------
    result : FairnessPosterior
    metric : str
        A rate of the catalogue.

    Returns
    -------
    dict
        Group label -> Evidence, in the fit's group order.
    """
    sizes = group_sizes(result)
    rows = sizes["n_labeled"] + sizes["n_unlabeled"]
    return {
        g: rate_evidence(g, _labeled_counts(result, g), int(rows.loc[g]), metric)
        for g in result.groups
    }


def _labeled_counts(result, group) -> np.ndarray:
    """A group's labeled ``tp, fp, tn, fn`` (the fit's observed counts)."""
    obs = get_group(result.idata, "observed_data")
    return np.array([int(obs[c].sel(group=group)) for c in COUNT_NAMES])


def _flat_rates(result, metric) -> np.ndarray:
    """The rate's draws as ``(S, K)``, chains stacked."""
    r = result.rates(metric).transpose("chain", "draw", "group").values
    return r.reshape(-1, r.shape[-1])


@takes("FairnessPosterior")
def count_draws(result) -> xr.DataArray:
    """Each draw's confusion counts per group, over the group's assessed rows.

    A fit that keeps its counts (:attr:`~bayesfair.FairnessPosterior.draws_counts`:
    ``rbc``, ``bc`` and ``bb``) has every rate of a draw as a ratio of its
    counts (:func:`bayesfair.metrics.rate_from_counts`). ``bb`` draws the cells'
    proportions (one Dirichlet per group); they are scaled here to the group's
    ``n_labeled + n_unlabeled`` rows, so that every fit's counts are on one scale.

    Parameters
    ----------
    result : FairnessPosterior

    Returns
    -------
    xarray.DataArray
        Dims ``(chain, draw, group, cell)``, the cells ``tp, fp, tn, fn``.

    Raises
    ------
    InvalidParameterError
        If the fit keeps no counts (``hbb``).
    """
    if not result.draws_counts:
        raise InvalidParameterError(
            f"This fit (model '{result.model}') keeps no confusion counts per draw: its "
            "model draws each rate on its own. Fit a model that draws one population per "
            "draw (the default does) to keep them."
        )
    cells = get_group(result.idata, "posterior")["cells"]
    cells = cells.transpose("chain", "draw", "group", "cell")
    sizes = group_sizes(result)
    n = xr.DataArray((sizes["n_labeled"] + sizes["n_unlabeled"]).to_numpy(float), dims="group")
    with np.errstate(invalid="ignore", divide="ignore"):
        return cells / cells.sum("cell") * n


@takes("FairnessPosterior")
def weighing_rows(result) -> np.ndarray:
    """Each group's rows in the rate over all rows (:func:`overall_rate`), shape (K,).

    Its labeled and unlabeled rows for a model of both (``rbc``, ``bc``); its labeled
    rows alone for a model of the labeled rows alone (``bb``, ``hbb``). Such a model's
    rate of a group with a handful of labels is mostly its prior (a uniform prior pulls
    it towards ½); weighed by thousands of unlabeled rows that the model never reads,
    a few such groups moved the overall rate, and so every other group's gap: with 20
    alike groups, eight of them with 5–15 labels and 5,000 unlabeled rows, ``bb``'s
    joint band of the selection-rate gaps covered the true zeros in 35% of data sets
    and called groups of 100–300 labels "unfair".
    """
    sizes = group_sizes(result)
    labeled = sizes["n_labeled"].to_numpy(float)
    if MODEL_SPECS[result.model].uses_unlabeled:
        return labeled + sizes["n_unlabeled"].to_numpy(float)
    return labeled


def _denominator_weights(result, rate, theta: np.ndarray) -> np.ndarray:
    """``(S, K)``: each group's expected number of rows in ``rate``'s denominator, over
    its :func:`weighing_rows`.

    From the draw's own counts where the fit keeps them; else (``hbb``) the group's
    rows times its share of the denominator, taken from a fitted rate over all rows
    whose numerator is the denominator or its complement (the base rate for TPR, one
    minus the selection rate for NPV), or from the labeled counts (add-one smoothed).
    """
    sizes = group_sizes(result)
    n = weighing_rows(result)
    if result.draws_counts:
        counts = result.count_draws().values  # over all the group's rows
        den = sum(counts[..., COUNT_NAMES.index(c)] for c in rate.denominator)
        rows = (sizes["n_labeled"] + sizes["n_unlabeled"]).to_numpy(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            scale = np.where(rows > 0, n / np.where(rows > 0, rows, 1.0), 0.0)
        return (den * scale).reshape(theta.shape)
    cells = set(rate.denominator)
    if cells == set(COUNT_NAMES):
        return np.broadcast_to(n, theta.shape)
    for other in result.metrics:
        share = get_rate(other)
        if len(share.denominator) != len(COUNT_NAMES):
            continue
        if set(share.numerator) == cells:
            return n * _flat_rates(result, other)
        if set(share.numerator) == set(COUNT_NAMES) - cells:
            return n * (1.0 - _flat_rates(result, other))
    obs = get_group(result.idata, "observed_data")
    num = sum(obs[c].values for c in rate.denominator)
    den = np.maximum(sizes["n_labeled"].to_numpy(float), 0)
    return np.broadcast_to(n * (num + 1.0) / (den + 2.0), theta.shape)


@takes("FairnessPosterior")
def overall_rate(result, metric: str) -> tuple[np.ndarray, np.ndarray]:
    """Per draw, the rate over all assessed rows, and each group's weight in it.

    The rate over all rows is ``Σ_k w_k θ_k / Σ_k w_k`` with ``w_k`` group k's
    number of rows in the rate's denominator (the positives for TPR and FNR, the
    predicted positives for PPV, all rows for accuracy), among the rows the model
    reads (:func:`weighing_rows`: the labeled ones alone for ``bb`` and ``hbb``). A
    fit that keeps its counts (``rbc``, ``bc``, ``bb``) gives them per draw, so the
    overall rate is the ratio of the summed counts. For ``hbb``, which draws each
    rate on its own, ``w_k`` is the group's rows times its share of the denominator:
    from the same draw when a rate over all rows measures that share (the base rate
    for TPR and FPR, the selection rate for PPV and NPV; the default catalogue fits
    them), else from the labeled examples (add-one smoothed, a fixed weight). A group whose rate is
    undefined in a draw has an empty denominator there and weight 0.

    Parameters
    ----------
    result : FairnessPosterior
        A fit (``bayesfair.fit``) in which ``metric`` was fitted.
    metric : str
        The rate, by name or alias (:func:`bayesfair.metrics.get_rate`).

    Returns
    -------
    overall : ndarray, shape (S,)
        The rate over all assessed rows in each of the S draws (chains stacked);
        NaN in a draw in which no group's rate is defined.
    weights : ndarray, shape (S, K)
        Each of the K groups' weight ``w_k`` in each draw (0 where its rate is
        undefined).
    """
    rate = get_rate(metric)
    theta = _flat_rates(result, rate.name)
    weights = np.where(np.isnan(theta), 0.0, _denominator_weights(result, rate, theta))
    with np.errstate(invalid="ignore", divide="ignore"):
        overall = np.nansum(weights * np.nan_to_num(theta), axis=1) / weights.sum(axis=1)
    return overall, weights


def _prob_worst(theta: np.ndarray, metric: str) -> np.ndarray:
    """P(group k's rate is the most adverse among the groups defined in the draw)."""
    k = theta.shape[1]
    keep = ~np.isnan(theta).all(axis=1)
    if not keep.any():
        return np.full(k, np.nan)
    fill = np.inf if adverse_direction(metric) == "low" else -np.inf
    filled = np.where(np.isnan(theta[keep]), fill, theta[keep])
    pick = np.argmin if adverse_direction(metric) == "low" else np.argmax
    return np.bincount(pick(filled, axis=1), minlength=k) / keep.sum()


@takes("FairnessPosterior")
def group_summary(result, metrics=None, epsilon: float = 0.02, ci_prob: float = 0.95):
    """One row per metric and group: its rate, its gap to all rows, a joint band, a verdict.

    Parameters
    ----------
    result : FairnessPosterior
        A fit (``bayesfair.fit``).
    metrics : str or list of str, optional
        Default: every fitted metric.
    epsilon : float, default 0.02
        Half-width of the region of practical equivalence around a gap of 0.
    ci_prob : float, default 0.95
        Probability of the rate intervals (each group's equal-tailed interval) and the *joint*
        probability of the gap band over the groups of a metric.

    Returns
    -------
    pandas.DataFrame
        ``metric, group, n_labeled, n_unlabeled, rate, rate_lower, rate_upper,
        gap, gap_lower, gap_upper, prob_worst, prob_practically_fair, decision,
        p_undefined, note``. ``rate`` and ``gap`` are posterior means; ``gap`` is
        the group's rate minus the rate over all assessed rows
        (:func:`overall_rate`); ``gap_lower``/``gap_upper`` are a simultaneous
        band over the metric's groups (:func:`bayesfair.stats.simultaneous_band`):
        with posterior probability at least ``ci_prob`` every gap lies in its
        band. ``prob_worst`` is the posterior probability that the group's rate
        is the most adverse (:func:`adverse_direction`); ``prob_practically_fair``
        is P(|gap| < ε) for the group alone. ``decision`` is the HDI + ROPE rule
        on the joint band (practically fair inside ±ε, unfair outside,
        undecided otherwise), so the decisions hold as a family; behind the one
        verdict gate (:func:`bayesfair.metrics.verdicts.decide`): a group with too
        few labeled rows in the rate's denominator or too few rows assessed is
        "too few". Where the group has fewer than 30 rows assessed (whose rates the
        assessed-rows estimand knows all but exactly), its ``rate_lower``/``rate_upper``
        are the Jeffreys interval of its rate in the population its rows come from,
        ``rate`` its labeled rate, its gap and band NaN, and its ``note`` says so.
        ``p_undefined`` is the share of draws in which the group's rate is
        undefined (no example in its denominator there): they are set aside for
        the group, and the joint band covers, in at least ``ci_prob`` of the
        draws, every group defined in the draw. A group whose rate is never
        defined has NaN and ``decision`` "undefined". The band's level is in
        ``attrs["ci_prob"]``; ``attrs["estimand"]`` and ``attrs["estimand_text"]``
        say which rates the gaps are of (``res.summary``'s ``estimand``: under
        ``"assessed"`` a group without unlabeled rows has its labeled rows' rates,
        exactly).
    """
    epsilon, ci_prob = check_epsilon(epsilon), check_probability(ci_prob)
    sizes = group_sizes(result)
    rows = []
    for m in metric_list(result, metrics):
        theta = _flat_rates(result, m)
        overall, _ = overall_rate(result, m)
        gaps = theta - overall[:, None]
        lower, upper = np.clip(simultaneous_band(gaps, ci_prob), -1.0, 1.0)
        worst = _prob_worst(theta, m)
        gate = evidence(result, m)
        for k, g in enumerate(result.groups):
            t = theta[:, k]
            t = t[~np.isnan(t)]
            d = gaps[:, k]
            d = d[~np.isnan(d)]
            rate_iv = _eti_or_nan(t, ci_prob)
            row = {
                "metric": m,
                "group": g,
                "n_labeled": int(sizes["n_labeled"].iloc[k]),
                "n_unlabeled": int(sizes["n_unlabeled"].iloc[k]),
                "rate": float(t.mean()) if t.size else np.nan,
                "rate_lower": rate_iv[0],
                "rate_upper": rate_iv[1],
                "gap": float(d.mean()) if d.size else np.nan,
                "gap_lower": float(lower[k]),
                "gap_upper": float(upper[k]),
                "prob_worst": float(worst[k]),
                "prob_practically_fair": float(np.mean(np.abs(d) < epsilon)) if d.size else np.nan,
                "decision": decide(float(lower[k]), float(upper[k]), epsilon, [gate[g]]),
                "p_undefined": float(1.0 - d.size / gaps.shape[0]),
                "note": result.rate_note(m, [g]),
            }
            if gate[g].rows < MIN_ROWS:  # a handful of rows, known exactly: not the group's
                row.update(_below_gate(result, m, g, gate[g], ci_prob, row["rate"]))
            rows.append(row)
    out = pd.DataFrame(rows)
    out.attrs.update(ci_prob=ci_prob, epsilon=epsilon, band="simultaneous over groups")
    out.attrs.update(estimand=result.estimand, estimand_text=result.estimand_text)
    return out


def _below_gate(result, metric: str, group, gate: Evidence, ci_prob: float, mean) -> dict:
    """A group with too few rows assessed for a verdict, whose assessed rows' rates are a
    handful of values known all but exactly: its rate in the population its rows come
    from instead (the Jeffreys interval of its labeled rows; of all its rows for a rate
    the scores decide, whose assessed value ``mean`` is exact), no gap, and the
    shortfall in its note."""
    rate = get_rate(metric)
    counts = _labeled_counts(result, group)
    x, n = counts[rate.numerator_index].sum(), counts[rate.denominator_index].sum()
    if not gate.labels_needed and np.isfinite(mean):
        x, n = round(mean * gate.rows), gate.rows
    lo, hi = population_interval(x, n, ci_prob)
    note = (
        f"too few for a verdict ({gate.shortfall()}); its rate's interval is that of "
        "the population its rows come from (Jeffreys)"
    )
    return {
        "rate": x / n if n else np.nan,
        "gap": np.nan,
        "rate_lower": lo,
        "rate_upper": hi,
        "gap_lower": np.nan,
        "gap_upper": np.nan,
        "prob_practically_fair": np.nan,
        "note": "; ".join(n for n in (result.rate_note(metric, [group]), note) if n),
    }


def _eti_or_nan(x: np.ndarray, ci_prob: float) -> tuple[float, float]:
    if not x.size:
        return np.nan, np.nan
    lo, hi = np.quantile(x, [(1 - ci_prob) / 2, (1 + ci_prob) / 2])
    return float(lo), float(hi)


@takes("FairnessPosterior")
def family_summary(result, metrics=None, epsilon: float = 0.02, ci_prob: float = 0.95):
    """One row per metric: is the whole family of groups within ε, and who is worst off?

    Parameters
    ----------
    result : FairnessPosterior
        A fit (``bayesfair.fit``).
    metrics : str or list of str, optional
        Default: every fitted metric.
    epsilon : float, default 0.02
        The family is practically fair when max − min of the group rates is
        below ε.
    ci_prob : float, default 0.95
        Joint probability of the bands the intervals are read from.

    Returns
    -------
    pandas.DataFrame
        ``metric, n_groups, max_gap, max_gap_lower, max_gap_upper,
        prob_all_within, worst_group, prob_worst, min_ratio, min_ratio_lower,
        min_ratio_upper, decision, p_undefined, set_aside, shortfall``; ``attrs``:
        ``ci_prob``, ``epsilon``, ``estimand`` and ``estimand_text`` (as
        :func:`group_summary`'s).

        * ``n_groups``: the groups the row is over: those with enough evidence for
          the rate (:mod:`bayesfair.metrics.verdicts`); the others are named in
          ``set_aside`` (a tuple), with what they lack in ``shortfall``. With fewer
          than two groups left the row is NaN and its decision "too few".

        * ``max_gap``: max − min of the groups' posterior mean rates (shrunk by
          the model's pooling); its interval is the projection of the joint band
          of the gaps (module docstring): ``[max(0, max_k L_k − min_k U_k),
          max_k U_k − min_k L_k]``, whose probability is at least ``ci_prob``
          and whose lower end is 0 when the bands overlap (the upward bias of
          max − min handled).
        * ``prob_all_within``: P(max_k θ_k − min_k θ_k < ε), every group within
          ε of every other, from the joint draws.
        * ``worst_group``: the group most probably the most adverse
          (:func:`adverse_direction`), with that probability in ``prob_worst``.
        * ``min_ratio``: min/max of the posterior mean rates (the impact ratio
          of the least favoured group, for the selection rate the four-fifths
          rule's number); its interval is the projection of the joint band of
          the rates: ``[min_k l_k / max_k u_k, min(1, min_k u_k / max_k l_k)]``.
        * ``decision``: "practically fair" when the max − min interval lies
          below ε, "unfair" when it lies above ε, else "undecided".
        * ``p_undefined``: the share of draws in which some group's rate is
          undefined; there, max − min and the worst group are over the groups
          defined in the draw. Groups whose rate is never defined are left out.
    """
    epsilon, ci_prob = check_epsilon(epsilon), check_probability(ci_prob)
    groups = np.asarray(result.groups, dtype=object)
    rows = []
    for m in metric_list(result, metrics):
        rows.append(_family_row(result, m, groups, epsilon, ci_prob))
    out = pd.DataFrame(rows)
    out.attrs.update(ci_prob=ci_prob, epsilon=epsilon)
    out.attrs.update(estimand=result.estimand, estimand_text=result.estimand_text)
    return out


def _family_row(result, metric, groups, epsilon, ci_prob) -> dict:
    """:func:`family_summary`'s row of one metric, over the groups that pass the verdict
    gate (:func:`bayesfair.metrics.verdicts.decide`); the others are named in
    ``set_aside``."""
    theta = _flat_rates(result, metric)
    gate = evidence(result, metric)
    below = np.array([not gate[g].enough for g in groups])
    # a group too few for a verdict does not make the family's (a new array: the
    # result's draws stay as they are)
    theta = np.where(below, np.nan, theta)
    overall, _ = overall_rate(result, metric)
    # a gap to the overall rate lies in [−1, 1], a rate in [0, 1]
    g_lo, g_hi = np.clip(simultaneous_band(theta - overall[:, None], ci_prob), -1.0, 1.0)
    r_lo, r_hi = np.clip(simultaneous_band(theta, ci_prob), 0.0, 1.0)
    defined = ~np.isnan(theta).all(axis=0)
    row = {"metric": metric, "n_groups": int((~below).sum())}
    set_aside = {"set_aside": tuple(groups[below]), "shortfall": shortfall_text(gate.values())}
    if (~below).sum() < 2 or not defined.any():
        nan_cols = ("max_gap", "max_gap_lower", "max_gap_upper", "prob_all_within")
        row.update(dict.fromkeys(nan_cols, np.nan), worst_group=None, prob_worst=np.nan)
        row.update(min_ratio=np.nan, min_ratio_lower=np.nan, min_ratio_upper=np.nan)
        verdict = TOO_FEW if below.any() else "undefined"
        return {**row, "decision": verdict, "p_undefined": 1.0, **set_aside}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # draws without a defined group
        means = np.nanmean(theta[:, defined], axis=0)
        spread = np.nanmax(theta, axis=1) - np.nanmin(theta, axis=1)
    spread = spread[~np.isnan(spread)]
    worst = _prob_worst(theta, metric)
    k_worst = int(np.nanargmax(worst))
    lower, upper = max_gap_interval(g_lo, g_hi)
    r_lo, r_hi = r_lo[defined], r_hi[defined]
    top, bottom = np.max(r_hi), np.max(r_lo)
    row.update(
        max_gap=float(means.max() - means.min()),
        max_gap_lower=lower,
        max_gap_upper=upper,
        prob_all_within=float(np.mean(spread < epsilon)) if spread.size else np.nan,
        worst_group=groups[k_worst],
        prob_worst=float(worst[k_worst]),
        min_ratio=float(means.min() / means.max()) if means.max() > 0 else np.nan,
        min_ratio_lower=float(max(0.0, np.min(r_lo)) / top) if top > 0 else np.nan,
        min_ratio_upper=float(min(1.0, np.min(r_hi) / bottom)) if bottom > 0 else 1.0,
        decision=rope_decision(lower, upper, epsilon),
        p_undefined=float(np.isnan(theta[:, ~below]).any(axis=1).mean()),
        **set_aside,
    )
    return row


# ---------------------------------------------------------------------------
# Impact ratios (the bias-audit rule's table)
# ---------------------------------------------------------------------------
def _ratio_band(rates, kept, others, ref, ci_prob):
    """The band of each ``others`` category's ratio to ``ref``, read off a simultaneous
    band of the ratios of *every pair* of the ``kept`` categories (``rates``: their
    draws, one column each).

    The reference is the category with the highest observed rate, so it is chosen by
    the data, and its rate is more often high by chance than low: a band of the K − 1
    ratios to it alone covered the true ratios jointly in 0.80
    of 300 simulated audits of ten alike categories of 200, and 0.88 with eight
    categories of 40–400. A band over all pairs holds whichever category the data
    choose: 0.94 and 0.96 there (``tests/statistical/test_impact_ratio_coverage.py``);
    over six designs of an exploratory run 0.92–0.97 against 0.81–0.96, 5–17% wider on
    average (a small category among many: up to a third wider on the log scale).
    On the log scale, where a ratio of two rates is near symmetric; a draw in which a
    category selects no one gives it a ratio of 0 (and no ratio to it: infinity), and
    a draw in which both do an undefined ratio. K categories make K(K − 1)/2 pairs
    (the time with 56: ``docs/benchmarks.md``, "Many groups")."""
    first, second = np.triu_indices(len(kept), 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(rates)
        # a pair's log ratio: −inf where only the first rate is 0 (a ratio of 0), +inf
        # where only the second is (no ratio to take: the band reaches infinity), NaN
        # where both are (undefined: counted as inside, as every undefined draw)
        pairs = logs[:, first] - logs[:, second]
    # infinities at a finite stand-in of the same size, so that a band can be read
    # off them and turned over for the pairs taken the other way round
    floor = np.log(np.finfo(float).tiny)
    pairs[np.isneginf(pairs)] = floor
    pairs[np.isposinf(pairs)] = -floor
    band = simultaneous_band(pairs, ci_prob)
    column = np.zeros((len(kept), len(kept)), dtype=int)  # pair (i, j), i < j: its column
    column[first, second] = np.arange(first.size)
    at = {k: i for i, k in enumerate(kept)}
    lo, hi = [], []
    for k in others:
        i, j = at[k], at[ref]
        col = column[min(i, j), max(i, j)]
        ends = (band.lower[col], band.upper[col])
        if i > j:  # the pair is stored as ref over k
            ends = (-ends[1], -ends[0])
        lo.append(_from_log(ends[0], floor))
        hi.append(_from_log(ends[1], floor))
    return lo, hi


def _from_log(value: float, floor: float) -> float:
    """A band's end on the ratio scale: 0 and infinity where the log's end is at the
    stand-in of ``−inf`` or ``+inf`` (:func:`_ratio_band`); NaN stays NaN."""
    if value <= floor / 2:
        return 0.0
    if value >= -floor / 2:
        return float("inf")
    return float(np.exp(value))


def impact_ratio_table(
    groups,
    n,
    rate,
    draws,
    *,
    exclude_below=None,
    ci_prob: float = 0.95,
    selected=None,
) -> pd.DataFrame:
    """The impact-ratio table from each category's rate and its draws.

    ``rate`` (K,) is the table's rate (observed, or the posterior mean);
    ``draws`` (S, K) are draws of the rates. The reference is the category with
    the highest ``rate`` among those retained; a category's ratio is its rate
    over the reference's, in the table and per draw. See :func:`impact_ratios`.

    Parameters
    ----------
    groups : sequence
        The K categories, in the order of ``n``, ``rate`` and the columns of ``draws``.
    n : array_like, shape (K,)
        Rows (applicants) per category: the shares ``exclude_below`` reads, and
        the table's ``n`` column (as integers).
    rate : array_like, shape (K,)
        The table's rate of each category. A category whose rate is NaN is not
        retained (``excluded`` True).
    draws : array_like, shape (S, K)
        Draws of the categories' rates; the ratio band and the probabilities
        are read off them.
    exclude_below : float, optional
        A share in (0, 1): categories with fewer than this share of the total
        ``n`` are left out of the ratios (they stay in the table with
        ``excluded`` True). Every category below it raises
        :class:`~bayesfair.exceptions.InvalidParameterError`. Default: none left out.
    ci_prob : float, default 0.95
        Joint probability of the ratio band over the retained categories other
        than the reference, read off a simultaneous band of the log ratios of
        every pair of retained categories (:func:`bayesfair.stats.simultaneous_band`,
        back-transformed): the reference is chosen by the data, and the band
        holds whichever category is chosen.
    selected : array_like of int, shape (K,), optional
        Selected rows per category; given, the table has a ``selected`` column.

    Returns
    -------
    pandas.DataFrame
        ``group, n, selected`` (with ``selected`` only), ``rate, ratio,
        ratio_lower, ratio_upper, prob_below_four_fifths, prob_most_selected,
        excluded``: the reference's band is [1, 1]; the ratio columns and the
        probabilities are NaN for the categories not retained.
        ``prob_below_four_fifths`` is the share of draws whose ratio to the
        reference is below :data:`FOUR_FIFTHS`; ``prob_most_selected`` the
        share of draws (those with every retained rate defined) in which the
        category has the highest rate among the retained ones. ``attrs``:
        ``reference``, ``ci_prob``, ``exclude_below``.
    """
    ci_prob = check_probability(ci_prob, "ci_prob")
    groups = list(groups)
    n = np.asarray(n, dtype=float)
    rate = np.asarray(rate, dtype=float)
    draws = np.asarray(draws, dtype=float)
    total = n.sum()
    if exclude_below is None:
        retained = np.ones(len(groups), dtype=bool)
    else:
        share = check_probability(exclude_below, "exclude_below")
        retained = n >= share * total
        if not retained.any():
            raise InvalidParameterError(
                f"Every category is below exclude_below={share:g} of the {total:g} rows."
            )
    retained &= ~np.isnan(rate)
    if not retained.any():
        raise InvalidParameterError("No category has a defined rate: there is no ratio to take.")
    ref = int(np.flatnonzero(retained)[np.argmax(rate[retained])])
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio_draws = draws / draws[:, [ref]]
        ratio = rate / rate[ref]
    kept = np.flatnonzero(retained)
    others = [k for k in kept if k != ref]
    lo = np.full(len(groups), np.nan)
    hi = np.full(len(groups), np.nan)
    lo[ref] = hi[ref] = 1.0
    if others:
        lo[others], hi[others] = _ratio_band(draws[:, kept], kept, others, ref, ci_prob)
    most = np.zeros(len(groups))
    valid = ~np.isnan(draws[:, kept]).any(axis=1)
    if valid.any():
        top = kept[np.argmax(draws[valid][:, kept], axis=1)]
        most = np.bincount(top, minlength=len(groups)) / valid.sum()
    # over the draws where the ratio is defined (a NaN compares False: counted as "not
    # below", it would make a category look safer than its draws say)
    defined = ~np.isnan(ratio_draws)
    with np.errstate(invalid="ignore", divide="ignore"):
        below = ((ratio_draws < FOUR_FIFTHS) & defined).sum(axis=0) / defined.sum(axis=0)
    out = pd.DataFrame(
        {
            "group": pd.Series(groups, dtype=object),
            "n": n.astype(int),
            **({"selected": np.asarray(selected).astype(int)} if selected is not None else {}),
            "rate": rate,
            "ratio": ratio,
            "ratio_lower": lo,
            "ratio_upper": hi,
            "prob_below_four_fifths": np.where(retained, below, np.nan),
            "prob_most_selected": np.where(retained, most, np.nan),
            "excluded": ~retained,
        }
    )
    out.loc[~retained, ["ratio", "ratio_lower", "ratio_upper"]] = np.nan
    out.attrs.update(reference=groups[ref], ci_prob=ci_prob, exclude_below=exclude_below)
    return out


def impact_ratios(
    table,
    *,
    group="group",
    n="n",
    selected="selected",
    exclude_below=None,
    unknown: int = 0,
    ci_prob: float = 0.95,
    draws: int = 4000,
    random_seed=None,
) -> pd.DataFrame:
    """Impact ratios of a selection audit from counts alone, with what the counts can say.

    A selection audit under New York City's Local Law 144 (6 RCNY § 5-301)
    needs only, per category, the applicants and the selected: the selection
    rate is ``selected / n`` and a category's *impact ratio* is its rate over
    the most selected category's. This function reproduces that table exactly
    (``rate``, ``ratio``) and adds what it cannot say: how sure each ratio is,
    given that the rates are estimated from a finite number of applicants.

    The uncertainty is that of the tool's selection rate for each category
    (the process that selected these applicants would select others at that
    rate): independent ``Beta(1 + selected, 1 + n − selected)`` posteriors (a
    uniform prior on each selection rate), ``draws`` of them.

    Parameters
    ----------
    table : pandas.DataFrame
        One row per category.
    group, n, selected : str
        Column names: the category, its applicants, its selected applicants.
    exclude_below : float, optional
        The rule's exclusion: categories with fewer than this share of the
        applicants (the rule allows 0.02) are left out of the ratios; they stay
        in the table with ``excluded`` True and the reference is chosen among the
        retained categories.
    unknown : int, default 0
        Applicants of unknown category (the rule asks that their number be
        reported; they are in no category's rate). Recorded in
        ``attrs["n_unknown"]``.
    ci_prob : float, default 0.95
        Joint probability of the ratio band: with probability at least
        ``ci_prob`` every retained category's ratio lies in its interval, so
        that a category read as below four fifths is not one of many chances
        taken. The band is read off one over the ratios of every pair of
        categories, since the reference (the most selected category as
        observed) is chosen by the data (:func:`impact_ratio_table`).
    draws : int, default 4000
    random_seed : None, int, SeedSequence or Generator, optional

    Returns
    -------
    pandas.DataFrame
        ``group, n, selected, rate, ratio, ratio_lower, ratio_upper,
        prob_below_four_fifths, prob_most_selected, excluded``: the
        probability that the category's ratio to the reference is below 0.8
        (:data:`FOUR_FIFTHS`), and that the category is the most selected
        among the retained ones. ``attrs``: ``reference`` (the most selected
        retained category, the ratios' denominator), ``n_unknown``, ``ci_prob``.

    Examples
    --------
    >>> t = pd.DataFrame({"group": ["a", "b"], "n": [100, 50], "selected": [50, 20]})
    >>> impact_ratios(t, random_seed=0)[["group", "rate", "ratio"]]
      group  rate  ratio
    0     a   0.5    1.0
    1     b   0.4    0.8
    """
    if not isinstance(table, pd.DataFrame):
        raise InvalidParameterError(
            f"The 'table' parameter must be a pandas DataFrame. Got {type(table).__name__}."
        )
    missing = [c for c in (group, n, selected) if c not in table.columns]
    if missing:
        raise InvalidParameterError(
            f"Column(s) {missing} not in the table; its columns: {list(table.columns)}."
        )
    counts_n = table[n].to_numpy()
    counts_s = table[selected].to_numpy()
    for name, values in ((n, counts_n), (selected, counts_s)):
        v = np.asarray(values, dtype=float)
        if np.isnan(v).any() or (v < 0).any() or (v != np.round(v)).any():
            raise InvalidParameterError(
                f"The column '{name}' must hold counts (whole numbers ≥ 0)."
            )
    if (counts_s > counts_n).any():
        raise InvalidParameterError(f"'{selected}' exceeds '{n}' in some rows.")
    if table[group].duplicated().any():
        raise InvalidParameterError(f"The column '{group}' repeats a category.")
    if isinstance(unknown, bool) or not isinstance(unknown, int | np.integer) or unknown < 0:
        raise InvalidParameterError(f"The 'unknown' parameter must be a count. Got {unknown!r}.")
    rng = check_random_state(random_seed)
    n_f, s_f = counts_n.astype(float), counts_s.astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = s_f / n_f
    samples = rng.beta(1.0 + s_f, 1.0 + n_f - s_f, size=(int(draws), len(n_f)))
    out = impact_ratio_table(
        table[group].tolist(),
        n_f,
        rate,
        samples,
        exclude_below=exclude_below,
        ci_prob=ci_prob,
        selected=counts_s,
    )
    out.attrs["n_unknown"] = int(unknown)
    return out


def result_impact_ratios(result, metric="selection_rate", exclude_below=None, ci_prob=0.95):
    """:func:`impact_ratios` from a fit's draws of ``metric`` (``res.impact_ratios``)."""
    name = get_rate(metric).name
    theta = _flat_rates(result, name)
    sizes = group_sizes(result)
    n = (sizes["n_labeled"] + sizes["n_unlabeled"]).to_numpy(float)
    with np.errstate(invalid="ignore"):
        rate = np.nanmean(theta, axis=0)
    out = impact_ratio_table(
        result.groups, n, rate, theta, exclude_below=exclude_below, ci_prob=ci_prob
    )
    out.attrs["metric"] = name
    out.attrs.update(estimand=result.estimand, estimand_text=result.estimand_text)
    return out
