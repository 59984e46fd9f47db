"""Fair Enough (Majumder et al.): the classification metrics of Table 1, and which of
them say the same thing.

**The metrics** (Table 1, C0–C25, from the confusion counts of each group; arrays of
counts ``(..., n_groups, 4)`` in :data:`~bayesfair.metrics.COUNT_NAMES` order, one row
per posterior draw or resample):

* C0–C12, C14, C15: the group-fairness composites of :data:`bayesfair.metrics.COMPOSITES`
  (differences and ratios of rates, average (absolute) odds difference) of one
  unprivileged group against the privileged reference;
* C16–C24: individual-fairness inequality indices over the benefit
  ``b_i = ŷ_i − y_i + 1`` (Speicher et al. 2018), which the counts determine
  (``b = 0`` for a false negative, 1 for a correct prediction, 2 for a false
  positive): the generalized entropy index GE(α = 2), the Theil index GE(1), the
  coefficient of variation as AIF360 defines it, ``2 √GE(2)``; each over every
  assessed example, and "between group" (each example's b replaced by its group's
  mean) over the pair's two groups and over all groups;
* C25: differential-fairness bias amplification, the smoothed empirical
  differential fairness ε (Foulds et al. 2020; Dirichlet smoothing with
  concentration 1) of the predictions less that of the labels, over all groups.

C13 (``selection_rate``, a rate with "ideal value 0") is not a disparity and is left
out; D0 (consistency) needs the features, which a (score, label, group) file does not
have. Fair ranges are the paper's (Table 4): ideal 0, fair within ±0.1; ideal 1, within
[0.8, 1.2].

**Clusters** (§3.4.5, eq. 1): the Spearman correlation ρ of the metrics across draws
(or resamples), average-linkage agglomerative clustering on ``d = 1 − |ρ|``, and the
dendrogram cut where the clusters stay unchanged over the widest range of heights
(:func:`stable_cut`: the middle of the widest gap between consecutive merge heights).
A cluster is *insensitive* when each of its metrics lies inside its fair range with
probability at least 0.95 (the paper's insensitive metrics: "changes to the data do not
change the fairness scores"). Its *representative* is the member with the largest mean
|ρ| to the other members (the medoid; the first in Table 1's order on a tie), the one
metric to read for the cluster.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from bayesfair._internal.names import resolve_name, suggest
from bayesfair._internal.validation import check_array, takes
from bayesfair.exceptions import InvalidParameterError
from bayesfair.metrics.rates import COMPOSITES, FAIR_RANGES, composite_value, rate_from_counts
from bayesfair.stats import hdi

__all__ = [
    "ALL_METRICS",
    "FAIR_ENOUGH_METRICS",
    "VERDICT_PROB",
    "cluster_metrics",
    "counts_from_rates",
    "differential_fairness",
    "fair_enough_values",
    "generalized_entropy",
    "posterior_clusters",
    "probability_verdict",
    "representatives",
    "resampled_clusters",
    "stable_cut",
]

#: The metrics of Table 1 that a (score, label, group) file defines: name -> (id, ideal).
FAIR_ENOUGH_METRICS: dict[str, tuple[str, float]] = {
    **{
        c.name: (c.mid, c.ideal)
        for c in COMPOSITES.values()
        if c.mid.startswith("C") and c.name != "equal_opportunity_difference"
    },
    "generalized_entropy_index": ("C16", 0.0),
    "between_all_groups_generalized_entropy_index": ("C17", 0.0),
    "between_group_generalized_entropy_index": ("C18", 0.0),
    "theil_index": ("C19", 0.0),
    "coefficient_of_variation": ("C20", 0.0),
    "between_group_theil_index": ("C21", 0.0),
    "between_group_coefficient_of_variation": ("C22", 0.0),
    "between_all_groups_theil_index": ("C23", 0.0),
    "between_all_groups_coefficient_of_variation": ("C24", 0.0),
    "differential_fairness_bias_amplification": ("C25", 0.0),
}

#: Every metric :func:`fair_enough_values` computes: Table 1's and the catalogue's other
#: composites (``equal_opportunity_difference``, C0 under its fairlearn name, and
#: ``accuracy_difference``), for the ``metrics`` argument: name -> (id, ideal).
ALL_METRICS: dict[str, tuple[str, float]] = {
    **FAIR_ENOUGH_METRICS,
    **{c.name: (c.mid, c.ideal) for c in COMPOSITES.values() if c.name not in FAIR_ENOUGH_METRICS},
}

#: The probability with which a metric must lie inside (outside) its fair range to be
#: called "practically fair" ("unfair"); between the two it is "undecided".
VERDICT_PROB = 0.95

_COUNT_BENEFIT = np.array([1.0, 2.0, 1.0, 0.0])  # b of tp, fp, tn, fn


def _check_counts(counts, argument: str) -> np.ndarray:
    """Confusion counts ``(..., n_groups, 4)`` as floats, or raise naming ``argument``."""
    c = check_array(counts, argument, min_ndim=2)
    if c.shape[-1] != 4:
        raise InvalidParameterError(
            f"The '{argument}' parameter must hold the 4 confusion counts (tp, fp, tn, fn) of "
            f"each group on its last axis, shape (..., n_groups, 4). Got shape {c.shape}."
        )
    return c


def generalized_entropy(counts, alpha: float = 2.0, between: bool = False) -> np.ndarray:
    """GE(α) of the benefit ``b = ŷ − y + 1`` over every example of the given groups.

    ``counts`` is ``(..., n_groups, 4)``; the index is over all their examples
    together. ``between=True`` replaces each example's b by its group's mean
    (the between-group index). α = 1 is the Theil index (``0 ln 0 = 0``).

    Parameters
    ----------
    counts : array_like, shape (..., n_groups, 4)
        Confusion counts ``tp, fp, tn, fn`` of each group
        (:data:`~bayesfair.metrics.COUNT_NAMES` order).
    alpha : float, default 2.0
        The index's α: 1 gives the Theil index, 2 half the squared coefficient
        of variation; other values ``Σ ((b / μ)^α − 1) / (n α (α − 1))`` (α = 0,
        the mean log deviation, is not special-cased).
    between : bool, default False
        Replace each example's benefit by its group's mean benefit.

    Returns
    -------
    numpy.ndarray, shape (...)
        The index over all the examples of the groups (0: every benefit equal);
        NaN where there are no examples. Where their mean benefit is 0 (every
        example a false negative) it is NaN, but 0 for α = 1.

    References
    ----------
    Speicher et al. 2018, KDD, eq. 2; Majumder et al., Table 1 (C16–C24), as AIF360's
    ``ClassificationMetric.generalized_entropy_index``.

    Examples
    --------
    >>> float(generalized_entropy([[5, 0, 5, 0]]))  # every prediction right: no inequality
    0.0
    """
    c = _check_counts(counts, "counts")
    n_g = c.sum(axis=-1)  # (..., k)
    n = n_g.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mu = (c @ _COUNT_BENEFIT).sum(axis=-1) / n
        if between:
            values = (c @ _COUNT_BENEFIT) / n_g  # each group's mean benefit, (..., k)
            weights = n_g
        else:
            values = np.broadcast_to(np.array([0.0, 1.0, 2.0]), (*n.shape, 3))
            weights = np.stack(  # examples with b = 0, 1, 2
                [c[..., 3].sum(-1), (c[..., 0] + c[..., 2]).sum(-1), c[..., 1].sum(-1)], -1
            )
        x = values / mu[..., None]
        if alpha == 1:
            term = np.where(x > 0, x * np.log(np.where(x > 0, x, 1.0)), 0.0)
        else:
            term = (x**alpha - 1.0) / (alpha * (alpha - 1.0))
        term = np.where(weights > 0, term, 0.0)
        return (weights * term).sum(axis=-1) / n


def differential_fairness(positives, totals, concentration: float = 1.0) -> np.ndarray:
    """Smoothed empirical differential fairness ε of a binary outcome across groups.

    ``max`` over pairs of groups and both outcomes of ``|ln P_i(y) − ln P_j(y)|``, with
    ``P_g(1) = (positives_g + c) / (totals_g + 2c)`` (Foulds et al. 2020, eq. 6;
    AIF360's ``smoothed_empirical_differential_fairness``). Groups without examples
    are left out. Arrays ``(..., n_groups)``.

    Parameters
    ----------
    positives : array_like, shape (..., n_groups)
        Each group's examples with the outcome 1 (predicted or labeled positives).
    totals : array_like, shape (..., n_groups)
        Each group's examples; groups with none are left out.
    concentration : float, default 1.0
        The Dirichlet smoothing ``c`` added to each of the two outcomes' counts.

    Returns
    -------
    numpy.ndarray, shape (...)
        ε, the largest absolute log ratio (natural log) of the smoothed outcome
        probabilities of two groups; 0 with fewer than two groups with examples.
    """
    x, n = check_array(positives, "positives"), check_array(totals, "totals")
    p = (x + concentration) / (n + 2.0 * concentration)
    present = n > 0
    out = np.zeros(np.broadcast(x, n).shape[:-1])
    for q in (p, 1.0 - p):
        lq = np.log(q)
        hi = np.where(present, lq, -np.inf).max(axis=-1)
        lo = np.where(present, lq, np.inf).min(axis=-1)
        out = np.maximum(out, hi - lo)
    return out


def fair_enough_values(counts, group: int, reference: int) -> dict[str, np.ndarray]:
    """Every metric of :data:`ALL_METRICS` from counts ``(..., n_groups, 4)``.

    ``group`` (unprivileged) and ``reference`` (privileged) are positions on the
    groups axis. Returns name -> array of the leading shape (NaN where a rate's
    denominator is empty).

    Parameters
    ----------
    counts : array_like, shape (..., n_groups, 4)
        Confusion counts ``tp, fp, tn, fn`` of each group (one row per draw or
        resample in the leading axes).
    group : int
        Position of the unprivileged group on the groups axis.
    reference : int
        Position of the privileged reference on the groups axis.

    Returns
    -------
    dict of str to numpy.ndarray
        Every name of :data:`ALL_METRICS`, in its order, to an array of shape
        ``counts.shape[:-2]``. The composites and the ``between_group_``
        indices are of the pair; the other indices and the differential
        fairness bias amplification are over all groups.
    """
    c = _check_counts(counts, "counts")
    rates = {}
    with np.errstate(invalid="ignore", divide="ignore"):
        for comp in COMPOSITES.values():
            for r in comp.rates:
                if r not in rates:
                    rates[r] = rate_from_counts(c, r)
        out = {}
        for name, comp in COMPOSITES.items():
            u = {r: rates[r][..., group] for r in comp.rates}
            p = {r: rates[r][..., reference] for r in comp.rates}
            out[name] = composite_value(name, u, p)
        pair = c[..., [group, reference], :]
        for prefix, part, between in (
            ("", c, False),
            ("between_group_", pair, True),
            ("between_all_groups_", c, True),
        ):
            ge2 = generalized_entropy(part, 2.0, between)
            out[f"{prefix}generalized_entropy_index"] = ge2
            out[f"{prefix}theil_index"] = generalized_entropy(part, 1.0, between)
            out[f"{prefix}coefficient_of_variation"] = 2.0 * np.sqrt(ge2)
        n_g = c.sum(axis=-1)
        predicted = differential_fairness(c[..., 0] + c[..., 1], n_g)
        labelled = differential_fairness(c[..., 0] + c[..., 3], n_g)
        out["differential_fairness_bias_amplification"] = predicted - labelled
    return {name: out[name] for name in ALL_METRICS}


def stable_cut(linkage) -> tuple[float, float, float]:
    """The cut of a dendrogram where its clusters stay unchanged the longest.

    The clusters change only at merge heights; between two consecutive heights
    ``h_i < h_{i+1}`` they stay the same. The widest such gap is the most stable
    range (Majumder et al. §3.4.5: "cut the dendrogram at a height, where the
    clusters will remain unchanged with the most increase/decrease of the cutting
    threshold"); the cut is its middle. The ranges below the first merge (every
    metric alone) and above the last (one cluster) are not candidates.

    Returns
    -------
    (cut, lower, upper) : the cut height and the range over which it is stable.
    """
    heights = np.sort(check_array(linkage, "linkage", ndim=2)[:, 2])
    if heights.size < 2:
        h = float(heights[0]) if heights.size else 0.0
        return h, h, h
    gaps = np.diff(heights)
    i = int(np.argmax(gaps))
    lo, hi = float(heights[i]), float(heights[i + 1])
    return 0.5 * (lo + hi), lo, hi


def _verdicts(values: dict, ideals: dict) -> tuple[dict, dict]:
    """Each metric's probability of lying in its fair range, and its verdict."""
    prob, verdict = {}, {}
    for name, v in values.items():
        lo, hi = FAIR_RANGES[ideals[name]]
        x = v[~np.isnan(v)]
        p = float(np.mean((x >= lo) & (x <= hi))) if x.size else np.nan
        prob[name] = p
        verdict[name] = probability_verdict(p)
    return prob, verdict


def probability_verdict(prob_fair: float, level: float = VERDICT_PROB) -> str:
    """The verdict of a metric from its probability of lying in its fair range:
    "practically fair" at ``level`` or more, "unfair" at ``1 − level`` or less,
    "undecided" between, "undefined" for NaN.

    Parameters
    ----------
    prob_fair : float
    level : float, default :data:`VERDICT_PROB`
        Raised for a family of metrics (:func:`bayesfair.metrics.verdicts.family_level`)
        so that the verdicts hold together.

    Returns
    -------
    str
    """
    if np.isnan(prob_fair):
        return "undefined"
    if prob_fair >= level:
        return "practically fair"
    return "unfair" if prob_fair <= 1.0 - level else "undecided"


def cluster_metrics(
    values: dict, ideals: dict | None = None, estimates: dict | None = None
) -> pd.DataFrame:
    """Cluster metrics by the Spearman correlation of their draws (module docstring).

    Parameters
    ----------
    values : dict of str to ndarray
        Metric name -> its draws (or resamples), all of one length. Draws in which
        any metric is undefined (NaN) are set aside for the correlation.
    ideals : dict of str to float, optional
        Each metric's ideal value, 0 or 1 (its fair range ±0.1 or [0.8, 1.2]);
        default from :data:`ALL_METRICS`.
    estimates : dict of str to float, optional
        ``values`` are bootstrap resamples and these the metrics on the data
        itself: ``mean`` is the estimate and ``lower``/``upper`` the basic
        (reverse-percentile) bootstrap interval ``[2 θ̂ − q(0.975), 2 θ̂ − q(0.025)]``,
        which removes the first-order bias of a metric built on absolute values or
        maxima (average absolute odds, differential fairness, the between-group
        indices are biased upward, as Lum et al. 2022 §4 show for the variance;
        the percentile interval of such a metric missed the truth in two thirds of
        the simulated data sets). Without it, ``values`` are posterior draws:
        ``mean`` is their mean and ``lower``/``upper`` their 95% HDI (``arviz.hdi``),
        which, unlike an equal-tailed interval, reaches the boundary of a metric that
        cannot be negative when the draws pile up there.

    Returns
    -------
    pandas.DataFrame
        One row per metric: ``metric``, ``cluster`` (0, 1, ... in the order of the
        first member in Table 1), ``representative``, ``insensitive``, ``verdict``
        (``"practically fair"``, ``"unfair"``, ``"undecided"`` or ``"undefined"``),
        ``prob_fair`` (P(in fair range)), ``mean`` and the 95% interval
        ``lower``/``upper`` (``estimates``), and ``note``. A metric undefined in every
        draw, or constant across the defined ones (zero variance: no correlation),
        is a cluster of its own, said in its note. ``attrs`` holds the dendrogram
        (``linkage``, its ``linkage_metrics`` and the ``cut``).
    """
    from scipy.cluster.hierarchy import fcluster, linkage
    from scipy.spatial.distance import squareform
    from scipy.stats import rankdata

    if not isinstance(values, Mapping):
        raise InvalidParameterError(
            "The 'values' parameter must be a dict of metric name to draws. Got "
            f"{type(values).__name__}."
        )
    names = list(values)
    if not names:
        raise InvalidParameterError("cluster_metrics needs at least one metric.")
    columns = [check_array(values[m], f"values[{m!r}]").ravel() for m in names]
    if len({col.size for col in columns}) > 1:
        sizes = ", ".join(f"{m!r}: {col.size}" for m, col in zip(names, columns, strict=True))
        raise InvalidParameterError(
            f"The 'values' parameter must hold as many draws of every metric. Got {sizes}."
        )
    x = np.column_stack(columns)
    if ideals is None:
        for m in names:
            if m not in ALL_METRICS:
                raise InvalidParameterError(
                    f"The 'values' parameter holds {m!r}, which is not a metric of "
                    f"ALL_METRICS.{suggest(m, ALL_METRICS)} Pass its ideal value (0 or 1) in "
                    "'ideals'."
                )
        ideals = {m: ALL_METRICS[m][1] for m in names}
    prob, verdict = _verdicts({m: x[:, j] for j, m in enumerate(names)}, ideals)
    notes = {m: "" for m in names}
    defined = ~np.isnan(x).all(axis=0)
    rows = ~np.isnan(x[:, defined]).any(axis=1)
    varies = defined.copy()
    varies[defined] = np.ptp(x[rows][:, defined], axis=0) > 0 if rows.any() else False
    for j, m in enumerate(names):
        if not defined[j]:
            notes[m] = "undefined in every draw (a group without its denominator): alone"
        elif not varies[j]:
            notes[m] = "constant across the draws (zero variance, no correlation): alone"
    cluster = np.full(len(names), -1)
    active = np.flatnonzero(varies)
    tree, cut = None, np.nan
    if active.size >= 2:
        ranks = np.apply_along_axis(rankdata, 0, x[rows][:, active])
        rho = np.corrcoef(ranks, rowvar=False)
        dist = np.clip(1.0 - np.abs(rho), 0.0, 1.0)
        np.fill_diagonal(dist, 0.0)
        tree = linkage(squareform(dist, checks=False), method="average")
        cut = stable_cut(tree)[0]
        cluster[active] = fcluster(tree, t=cut, criterion="distance")
    elif active.size == 1:
        cluster[active] = 1
        rho = np.ones((1, 1))
    next_id = cluster.max() + 1
    for j in np.flatnonzero(cluster < 0):
        cluster[j], next_id = next_id, next_id + 1
    # renumber by first appearance in Table 1's order
    order = {c: i for i, c in enumerate(dict.fromkeys(cluster.tolist()))}
    cluster = np.array([order[c] for c in cluster])
    representative = np.zeros(len(names), bool)
    insensitive = np.zeros(len(names), bool)
    pos = {j: i for i, j in enumerate(active)}
    for c in np.unique(cluster):
        members = np.flatnonzero(cluster == c)
        if members.size == 1:
            best = members[0]
        else:
            score = [
                np.mean([abs(rho[pos[i], pos[j]]) for j in members if j != i]) for i in members
            ]
            best = members[int(np.argmax(score))]
        representative[best] = True
        insensitive[members] = all(verdict[names[i]] == "practically fair" for i in members)
    lower, mean, upper = (np.full(len(names), np.nan) for _ in range(3))
    for j in np.flatnonzero(defined):
        if estimates is None:
            mean[j] = np.nanmean(x[:, j])
            lower[j], upper[j] = hdi(x[:, j], 0.95)
        else:
            mean[j] = estimates[names[j]]
            q_lo, q_hi = np.nanquantile(x[:, j], [0.025, 0.975])
            lower[j], upper[j] = 2.0 * mean[j] - q_hi, 2.0 * mean[j] - q_lo
    table = pd.DataFrame(
        {
            "metric": names,
            "cluster": cluster,
            "representative": representative,
            "insensitive": insensitive,
            "verdict": [verdict[m] for m in names],
            "prob_fair": [prob[m] for m in names],
            "mean": mean,
            "lower": lower,
            "upper": upper,
            "note": [notes[m] for m in names],
        }
    )
    # the dendrogram, for the report's figure: the linkage of the clustered metrics
    table.attrs["linkage"] = tree.tolist() if active.size >= 2 else []
    table.attrs["linkage_metrics"] = [names[j] for j in active]
    table.attrs["cut"] = float(cut) if active.size >= 2 else float("nan")
    return table


def counts_from_rates(accuracy, selection_rate, base_rate, n) -> np.ndarray:
    """Confusion counts ``(..., n_groups, 4)`` from three rates and the group sizes.

    For rates known without their counts; a fit keeps its own
    (:meth:`~bayesfair.FairnessPosterior.count_draws`).

    ``sel + base − (1 − acc) = 2 TP / n``; then ``FP = n sel − TP``,
    ``FN = n base − TP`` and ``TN = n − TP − FP − FN``.

    Parameters
    ----------
    accuracy, selection_rate, base_rate : array_like, shape (..., n_groups)
        Each group's accuracy, selection rate and base rate, all over the same
        examples (e.g. one posterior draw per row).
    n : array_like, shape (n_groups,)
        Examples per group (broadcast against the rates).

    Returns
    -------
    numpy.ndarray, shape (..., n_groups, 4)
        Counts ``tp, fp, tn, fn`` (floats, not rounded; not checked to be
        non-negative when the rates are not those of one set of counts).
    """
    accuracy = check_array(accuracy, "accuracy", dtype=None)
    selection_rate = check_array(selection_rate, "selection_rate", dtype=None)
    base_rate = check_array(base_rate, "base_rate", dtype=None)
    n = check_array(n, "n")
    tp = 0.5 * n * (selection_rate + base_rate - (1.0 - accuracy))
    fp = n * selection_rate - tp
    fn = n * base_rate - tp
    return np.stack([tp, fp, n - tp - fp - fn, fn], axis=-1)


@takes("FairnessPosterior")
def posterior_clusters(result, metrics=None, group=None, reference=None) -> pd.DataFrame:
    """:func:`cluster_metrics` over the posterior draws of a calibration fit.

    Every metric of a draw is computed from that draw's confusion counts per group
    (:meth:`~bayesfair.FairnessPosterior.count_draws`), one coherent set of counts; the metrics
    then move together across draws as far as they measure the same thing under
    this classifier's uncertainty. (The paper correlates metrics across models and
    data splits: which metrics agree *in general*; here it is which agree *for this
    classifier on this population*, given what the labels leave unknown.)

    Parameters
    ----------
    result : FairnessPosterior
        A fit that keeps its counts: ``rbc``, ``bc`` or ``bb`` (``hbb`` draws each
        rate on its own, so its draws are not the counts of one population), whatever
        metrics it was fitted with.
    metrics : list of str, optional
        Names of :data:`ALL_METRICS` (default: the 25 of :data:`FAIR_ENOUGH_METRICS`).
    group, reference
        The unprivileged group and the privileged reference (labels).

    Returns
    -------
    pandas.DataFrame
        :func:`cluster_metrics`'s table.
    """
    if not result.draws_counts:
        raise InvalidParameterError(
            "metric_clusters needs a fit that keeps each draw's confusion counts "
            f"(a model that draws one population per draw); this fit (model "
            f"'{result.model}') keeps only its rates."
        )
    names = _metric_names(metrics)
    counts = result.count_draws().values
    counts = counts.reshape(-1, *counts.shape[2:])
    g, ref = result.groups.index(group), result.groups.index(reference)
    values = fair_enough_values(counts, g, ref)
    return cluster_metrics({m: values[m] for m in names})


def resampled_clusters(
    counts_draws, counts, group: int, reference: int, metrics=None
) -> pd.DataFrame:
    """:func:`cluster_metrics` over confusion counts of resamples ``(n, n_groups, 4)``,
    with the metrics of the data's own ``counts`` ``(n_groups, 4)`` as the estimates.

    Parameters
    ----------
    counts_draws : array_like, shape (n, n_groups, 4)
        Confusion counts ``tp, fp, tn, fn`` of each group in each of ``n`` resamples.
    counts : array_like, shape (n_groups, 4)
        The data's own confusion counts.
    group : int
        Position of the unprivileged group on the groups axis.
    reference : int
        Position of the privileged reference on the groups axis.
    metrics : list of str, optional
        Names of :data:`ALL_METRICS` (default: the 25 of :data:`FAIR_ENOUGH_METRICS`).

    Returns
    -------
    pandas.DataFrame
        :func:`cluster_metrics`'s table, with the basic bootstrap interval.
    """
    counts_draws = _check_counts(counts_draws, "counts_draws")
    counts = _check_counts(counts, "counts")
    names = _metric_names(metrics)
    values = fair_enough_values(counts_draws, group, reference)
    own = fair_enough_values(counts[None], group, reference)
    return cluster_metrics(
        {m: values[m] for m in names}, estimates={m: float(own[m][0]) for m in names}
    )


def _metric_names(metrics) -> list[str]:
    if metrics is None:
        return list(FAIR_ENOUGH_METRICS)
    return [
        resolve_name(m, ALL_METRICS, what="Fair Enough metric", argument="metrics") for m in metrics
    ]


def representatives(table: pd.DataFrame, digits: int = 3) -> pd.DataFrame:
    """The reports' view of a clusters table (with ``group``/``reference`` columns, as
    :func:`bayesfair.compare` makes it): one row per pair and cluster, its representative,
    the number of members, mean and 95% interval, verdict and insensitivity.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`cluster_metrics`'s rows of one or more pairs, with ``group`` and
        ``reference`` columns added. Members are counted per ``group`` and
        ``cluster``, so each group should appear with one reference.
    digits : int, default 3
        Decimals of the mean and the interval's bounds.

    Returns
    -------
    pandas.DataFrame
        ``pair`` (``"group vs reference"``), ``cluster``, ``metric
        (representative)``, ``members``, ``mean`` and ``95% interval`` (text,
        "—" where undefined), ``verdict`` and ``insensitive`` ("yes" or "").
    """
    rep = table[table["representative"]]
    members = table.groupby(["group", "cluster"]).size()
    keys = list(zip(rep["group"], rep["cluster"], strict=True))
    bounds = zip(rep["lower"], rep["upper"], strict=True)

    def interval(lo, hi):
        return "—" if np.isnan(lo) else f"[{lo:.{digits}f}, {hi:.{digits}f}]"

    return pd.DataFrame(
        {
            "pair": [f"{g} vs {r}" for g, r in zip(rep["group"], rep["reference"], strict=True)],
            "cluster": rep["cluster"],
            "metric (representative)": rep["metric"],
            "members": [int(members[key]) for key in keys],
            "mean": [f"{v:.{digits}f}" if np.isfinite(v) else "—" for v in rep["mean"]],
            "95% interval": [interval(lo, hi) for lo, hi in bounds],
            "verdict": rep["verdict"],
            "insensitive": rep["insensitive"].map({True: "yes", False: ""}),
        }
    )
