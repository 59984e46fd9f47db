"""Posterior predictive checks of each group's calibration map on its labeled examples.

A calibration model (``bc``, ``rbc``) turns every unlabeled score into a
probability of a positive label through its group's map
``f_g(s) = σ(c_g + a_g log s − b_g log(1 − s))`` (Ji et al. 2020, Eq. 2). The
unlabeled examples then count as much as the map is right, so the map must
be checked against the only examples whose labels are known.

The check (Gelman, Meng & Stern 1996; BDA3 §6.3) is a binned reliability
statistic with a posterior predictive p-value, per group:

1. The group's labeled examples are split at the decision threshold (the two
   sides are where the rates' counts come from) and, within each side, into
   up to ``bins_per_side`` bins of consecutive scores with at least
   ``min_per_bin`` examples each.
2. For a posterior draw θ of the map, with ``p_i = f_g(s_i; θ)``,
   ``O_b = Σ_{i∈b} y_i``, ``E_b = Σ_{i∈b} p_i`` and ``V_b = Σ_{i∈b} p_i(1 − p_i)``,
   the discrepancy is the Hosmer–Lemeshow-type statistic
   ``T(y, θ) = Σ_b (O_b − E_b)² / V_b``.
3. Replicated labels ``y_rep ~ Bernoulli(p)`` give ``T(y_rep, θ)``; the
   p-value is ``P(T(y_rep, θ) ≥ T(y, θ) | y)`` over the draws.

**From the summary.** The labeled examples enter as their summary
(:class:`~bayesfair.summary.ScoreSummary`, 1,024 cells per group over the
logit range, cells 0.009 logit units wide at the default clipping), so the
check costs O(draws × cells), not O(draws × labels). A cell's examples share
one probability, the map at the cell's mean ``ln c`` and ``ln(1 − c)`` (within a
cell the map moves by at most ``max(a, b) × 0.009`` on the logit scale), and
its replicated positives are ``Binomial(n_cell, p_cell)``. Only a bin's total
enters T: where its variance ``V_b`` is at least 25 the total is drawn as
``round(E_b + √V_b Z)`` clipped to ``[0, n_b]`` (the rule of
:func:`bayesfair.models.unlabeled.sampled_counts`; with ``V_b ≥ 25`` the
total is a sum of at least dozens of Bernoulli trials, and the normal law is
within a count of its quantiles), elsewhere cell by cell; so a check on 10⁵
labels does not draw 10⁶ binomials per group. The score bins of
step 1 are groups of consecutive cells: a cell belongs to the bin that holds
its middle example, so a bin's edges fall between cells and its size may
differ from the row-level quantile bin by the examples of one cell.

A map that is too flat, too steep, shifted, or decreasing where the labels
increase (an inverted classifier), gives observed bin frequencies that the
replicated ones rarely reach, hence a small p-value. The statistic is a
discrepancy (it depends on θ), which is what makes the check sensitive to a
misfit of a *parametric family* fitted to the same labels; posterior
predictive p-values are conservative (concentrated near 0.5 under the model),
so the false-alarm rate at ``alpha`` is at most ``alpha`` (measured in
``tests/statistical/test_robust_coverage.py``).

For ``rbc`` the check examines the group's beta-calibration map: a misfit
says that the labels contradict it, so that ``rbc`` lets the group's labeled
examples, not the map, carry the rates of the strata concerned
(``posterior["p_misfit"]`` says which).
"""

from __future__ import annotations

import warnings
import weakref

import numpy as np
import pandas as pd

from bayesfair._validation import check_array, check_random_state, sequence_from_record, takes
from bayesfair.exceptions import CalibrationWarning, InvalidParameterError, SamplingWarning
from bayesfair.stats import diagnostics_table
from bayesfair.summary import DEFAULT_BINS, LABEL_SUMS, ROW_SUMS, ScoreSummary, summarize_arrays

__all__ = [
    "POST_HOC",
    "VERDICTS",
    "calibration_ppc",
    "calibration_verdicts",
    "check_result_diagnostics",
    "entry_bins",
    "holm_adjust",
    "labeled_cells",
    "misfit_message",
    "result_calibration_check",
    "result_calibration_verdicts",
    "result_diagnostics",
    "stored_labeled_summary",
]

#: rbc's variables drawn after sampling (not by the sampler): left out of the diagnostics.
POST_HOC = ("misfit", "p_misfit", "p_misfit_shared")
#: Per result, its calibration checks by their arguments (computed once; forgotten with it).
_CHECKS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

#: The values of the ``verdict`` column.
VERDICTS = ("ok", "misfit", "too few labels")
# A bin's replicated total is drawn from its normal law where its variance is at least this.
_NORMAL_MIN_VARIANCE = 25.0


def entry_bins(side, count, bins_per_side: int = 5, min_per_bin: int = 10):
    """Check bin of each summary cell of one group (cells sorted by side, then score).

    Within each side, ``nb = max(1, min(bins_per_side, n_side // min_per_bin))``
    bins of about equal counts; a cell goes to the bin of its middle example.
    Returns the bin of each cell and the number of bins.

    Parameters
    ----------
    side : array_like of bool, shape (n_cells,)
        The side of each cell (ŷ = 1 when True).
    count : array_like of float, shape (n_cells,)
        The labeled examples in each cell, in score order within each side.
    bins_per_side : int, default 5
        Most bins per side.
    min_per_bin : int, default 10
        Fewest examples per bin (a side with fewer than that has one bin).

    Returns
    -------
    bins : numpy.ndarray of int, shape (n_cells,)
        The bin of each cell: the side ŷ = 0's bins first, numbered from 0, then
        the side ŷ = 1's.
    n_bins : int
        The number of bins over both sides.
    """
    side = np.asarray(side, dtype=bool)
    count = np.asarray(count, dtype=float)
    out = np.empty(side.size, dtype=np.intp)
    offset = 0
    for h in (False, True):
        idx = np.flatnonzero(side == h)
        if idx.size == 0:
            continue
        n = count[idx].sum()
        nb = max(1, min(bins_per_side, int(n) // max(min_per_bin, 1)))
        middle = np.cumsum(count[idx]) - 0.5 * count[idx]
        out[idx] = offset + np.minimum((middle * nb / n).astype(np.intp), nb - 1)
        offset += nb
    return out, offset


def calibration_ppc(
    labeled,
    probabilities,
    *,
    rng: np.random.Generator,
    bins_per_side: int = 5,
    min_per_bin: int = 10,
) -> pd.DataFrame:
    """Binned posterior predictive check of each group's calibration map.

    Parameters
    ----------
    labeled : ScoreSummary
        The labeled examples' summary (:mod:`bayesfair.summary`).
    probabilities : callable
        ``probabilities(g, mean_log_s, mean_log_1ms)`` returns the map's
        P(y = 1) at the given mean features of group ``g``'s cells under each
        retained posterior draw, shape ``(n_draws, n_cells)``.
    rng : numpy.random.Generator
        For the replicated labels.
    bins_per_side, min_per_bin : int
        Binning (module docstring).

    Returns
    -------
    pandas.DataFrame
        One row per group code: ``n_labeled``, ``statistic`` (posterior mean of
        the realised discrepancy ``T(y, θ)``), ``n_bins`` and ``p_value``
        (NaN for a group without labels).

    References
    ----------
    Gelman, Meng & Stern 1996, *Statistica Sinica* 6, 733–807 (posterior
    predictive assessment with realised discrepancies); Gelman et al., BDA3
    §6.3; Hosmer & Lemeshow 1980 (the binned statistic).
    """
    rows = []
    for g in range(labeled.n_groups):
        sel = labeled.group == g
        n_g = float(labeled.count[sel].sum())
        if n_g == 0:
            rows.append({"n_labeled": 0, "statistic": np.nan, "n_bins": 0, "p_value": np.nan})
            continue
        count, pos = labeled.count[sel], labeled.positives[sel]
        bins, n_bins = entry_bins(labeled.side[sel], count, bins_per_side, min_per_bin)
        onehot = np.zeros((count.size, n_bins))
        onehot[np.arange(count.size), bins] = 1.0
        p = np.asarray(
            probabilities(g, labeled.mean_log_s[sel], labeled.mean_log_1ms[sel]), dtype=float
        )
        expected = (p * count) @ onehot
        spread = (p * (1.0 - p) * count) @ onehot
        var = np.maximum(spread, 1e-12)
        t_obs = ((pos @ onehot - expected) ** 2 / var).sum(axis=1)
        # replicated bin totals: normal where the bin's variance allows (module docstring)
        y_rep = np.clip(
            np.rint(expected + np.sqrt(spread) * rng.standard_normal(expected.shape)),
            0.0,
            count @ onehot,
        )
        small = spread < _NORMAL_MIN_VARIANCE
        for b in np.flatnonzero(small.any(axis=0)):
            at, cells = np.flatnonzero(small[:, b]), np.flatnonzero(bins == b)
            draws = rng.binomial(count[cells].astype(np.int64), p[np.ix_(at, cells)])
            y_rep[at, b] = draws.sum(axis=1)
        t_rep = ((y_rep - expected) ** 2 / var).sum(axis=1)
        rows.append(
            {
                "n_labeled": round(n_g),
                "statistic": float(t_obs.mean()),
                "n_bins": int(n_bins),
                "p_value": float(np.mean(t_rep >= t_obs)),
            }
        )
    return pd.DataFrame(rows)


def calibration_verdicts(labeled, a, b, c, alpha, min_labels, max_draws, rng) -> pd.DataFrame:
    """:func:`calibration_ppc` of the beta-calibration maps ``σ(c + a ln s − b ln(1 − s))``.

    ``a``, ``b``, ``c``: posterior draws, shape ``(n_draws, n_groups)``, evenly
    thinned to ``max_draws``. Returns one row per group: ``n_labeled``,
    ``statistic``, ``p_value`` and the ``verdict`` (:data:`VERDICTS`): a misfit
    where the p-value *adjusted* by Holm's step-down over the K groups
    (:func:`holm_adjust`; in ``attrs["p_adjusted"]``) is below ``alpha``, else
    "too few labels" under ``min_labels``, else "ok". With K groups, K checks are made; Holm's
    adjustment keeps the probability that a calibrated family has *any* group
    flagged at ``alpha`` (32 calibrated groups checked at 0.05 each flag one
    or more in about 80% of audits: 1 − 0.95³²).

    Parameters
    ----------
    labeled : ScoreSummary
        The labeled examples' summary, groups coded as in the columns of ``a``.
    a, b, c : numpy.ndarray, shape (n_draws, n_groups)
        Posterior draws of each group's map parameters.
    alpha : float
        Level of the check: a group is a misfit when its Holm-adjusted p-value
        is below it.
    min_labels : int
        Groups with fewer labeled examples (and no misfit) get "too few labels".
    max_draws : int
        Most posterior draws the check uses (evenly spaced over the draws).
    rng : numpy.random.Generator
        For the replicated labels.

    Returns
    -------
    pandas.DataFrame
        One row per group code: ``n_labeled``, ``statistic``, ``p_value``
        (unadjusted; NaN for a group without labels) and ``verdict``.
    """
    n_total = a.shape[0]
    keep = np.unique(np.linspace(0, n_total - 1, min(max_draws, n_total)).astype(int))

    def probabilities(g, log_s, log_1ms):
        eta = (
            c[keep, g][:, None]
            + a[keep, g][:, None] * log_s[None, :]
            - b[keep, g][:, None] * log_1ms[None, :]
        )
        return 0.5 * (1.0 + np.tanh(0.5 * eta))

    table = calibration_ppc(labeled, probabilities, rng=rng)
    adjusted = holm_adjust(table["p_value"].to_numpy())
    misfit = adjusted < alpha
    few = table["n_labeled"] < min_labels
    table["verdict"] = np.where(misfit, "misfit", np.where(few, "too few labels", "ok"))
    out = table[["n_labeled", "statistic", "p_value", "verdict"]]
    out.attrs["p_adjusted"] = adjusted
    return out


@takes("FairnessPosterior")
def result_calibration_verdicts(result, alpha, min_labels, max_draws, rng) -> pd.DataFrame:
    """:func:`calibration_verdicts` of a fit's maps against the labeled summary it keeps
    (``result.labeled_cells()``), one row per group (the computation behind
    :meth:`~bayesfair.posterior.FairnessPosterior.calibration_check`).

    Parameters
    ----------
    result : FairnessPosterior
        A fit of a calibration model (``bc`` or ``rbc``), whose posterior holds
        ``a``, ``b`` and ``c`` per group; draws of all chains are pooled.
    alpha, min_labels, max_draws, rng
        As in :func:`calibration_verdicts`.

    Returns
    -------
    pandas.DataFrame
        :func:`calibration_verdicts`'s table with the group labels in a first
        column ``group``.

    Raises
    ------
    InvalidParameterError
        When the result keeps no labeled examples (saved by an older bayesfair).
    """
    labeled = result.labeled_cells()
    if labeled is None:
        raise InvalidParameterError(
            "This result does not store its labeled examples (saved by an older "
            "bayesfair); refit it to run the calibration check."
        )
    post = result.idata.posterior
    a, b, c = (
        post[v].transpose("chain", "draw", "group").values.reshape(-1, post.sizes["group"])
        for v in ("a", "b", "c")
    )
    table = calibration_verdicts(labeled, a, b, c, alpha, min_labels, max_draws, rng)
    table.insert(0, "group", result.groups)
    return table


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


def misfit_message(model: str, check: pd.DataFrame, alpha: float = 0.05) -> str:
    """The sentence a misfit of the calibration check warns with ("" when none).

    Parameters
    ----------
    model : str
        The fitted model: ``"rbc"`` gets rbc's advice, any other the advice to
        use ``rbc`` or ``bb``.
    check : pandas.DataFrame
        The check's table, with ``group`` and ``verdict`` columns
        (:func:`result_calibration_verdicts`).
    alpha : float, default 0.05
        The check's level, as written in the sentence.

    Returns
    -------
    str
        The sentence naming the groups whose verdict is "misfit"; "" when none is.
    """
    bad = check.loc[check["verdict"] == "misfit", "group"].tolist()
    if not bad:
        return ""
    advice = (
        "where the labels contradict the map, rbc estimates their rates from their labeled "
        "examples (wider intervals); label more examples of them to narrow them"
        if model == "rbc"
        else "this model's intervals for them may be confidently wrong; use the default "
        "model 'rbc', whose intervals account for a wrong map, or 'bb'"
    )
    return (
        f"The calibration map of group(s) {bad} does not fit their labeled examples "
        f"(posterior predictive p < {alpha} after Holm's adjustment over the groups, "
        f"calibration_check()): {advice}."
    )


def stored_labeled_summary(
    idata, levels, *, threshold: float, score_clip: float, n_bins: int | None
):
    """The labeled summary a result keeps in ``constant_data`` (:func:`bayesfair.fit` stores it).

    A result saved by an older bayesfair kept the labeled rows instead
    (``labeled_score``, ``labeled_label``, ``labeled_group``): they are summarised
    here. None when the result holds neither.

    Parameters
    ----------
    idata : arviz.InferenceData
        The result's draws; read from its ``constant_data`` group.
    levels : sequence
        The group labels the stored group codes index.
    threshold, score_clip : float
        The fit's decision threshold and score clipping.
    n_bins : int or None
        Bins per group of the stored summary; None: ``DEFAULT_BINS``.

    Returns
    -------
    ScoreSummary or None
    """
    if "constant_data" not in idata.groups():  # a hand-built result: nothing kept
        return None
    const = idata.constant_data
    if "labeled_count" in const:
        cols = {k: const[f"labeled_{k}"].values for k in (*ROW_SUMS, *LABEL_SUMS, "side", "bin")}
        return ScoreSummary(
            levels=tuple(levels),
            group=const["labeled_group"].values,
            threshold=threshold,
            score_clip=score_clip,
            n_bins=int(n_bins or DEFAULT_BINS),
            **cols,
        )
    if "labeled_score" in const:
        return summarize_arrays(
            const["labeled_score"].values,
            const["labeled_group"].values,
            levels,
            labels=const["labeled_label"].values,
            threshold=threshold,
            score_clip=score_clip,
            n_bins=int(n_bins or DEFAULT_BINS),
        )
    return None


# ---------------------------------------------------------------------------
# A fit's checks: its calibration maps and its sampler
# ---------------------------------------------------------------------------
@takes("FairnessPosterior")
def result_calibration_check(
    result,
    alpha: float = 0.05,
    min_labels: int = 20,
    max_draws: int = 1000,
    random_seed=None,
    warn: bool = True,
    stacklevel: int = 3,
) -> pd.DataFrame:
    """The calibration check of a ``bc``/``rbc`` fit (:func:`result_calibration_verdicts`),
    computed once per fit and arguments, with its warning.

    Parameters
    ----------
    result : FairnessPosterior
    alpha, min_labels, max_draws, random_seed, warn
        As in :meth:`bayesfair.FairnessPosterior.calibration_check`.
    stacklevel : int, default 3
        Of the ``CalibrationWarning`` (3: the caller of this function, past its
        argument check).

    Returns
    -------
    pandas.DataFrame
    """
    if result.model not in ("bc", "rbc"):
        raise InvalidParameterError(
            f"The '{result.model}' model has no calibration map to check; "
            "calibration_check needs a fit with model='bc' or 'rbc'."
        )
    if not (isinstance(alpha, float | int) and 0 < alpha < 1):
        raise InvalidParameterError(f"The 'alpha' parameter must be in (0, 1). Got {alpha!r}.")
    key = (float(alpha), min_labels, max_draws, random_seed)
    cache = _CHECKS.setdefault(result, {})
    if key not in cache or not (random_seed is None or isinstance(random_seed, int)):
        seed = random_seed
        if seed is None:
            seed = sequence_from_record(result.settings.get("random_seed"), child=2)
        cache[key] = result_calibration_verdicts(
            result, alpha, min_labels, max_draws, check_random_state(seed)
        )
    out = cache[key].copy()
    message = misfit_message(result.model, out, alpha)
    if warn and message:
        warnings.warn(message, CalibrationWarning, stacklevel=stacklevel)
    return out


@takes("FairnessPosterior")
def labeled_cells(result):
    """The labeled examples' summary kept with a result (a
    :class:`~bayesfair.summary.ScoreSummary` whose levels are the result's group
    positions), or None if the result has none.

    Parameters
    ----------
    result : FairnessPosterior
    """
    return stored_labeled_summary(
        result.idata,
        range(len(result.groups)),
        threshold=float(result.settings.get("threshold", 0.5)),
        score_clip=float(result.settings.get("score_clip") or 0.01),
        n_bins=result.settings.get("n_bins"),
    )


@takes("FairnessPosterior")
def result_diagnostics(result) -> pd.DataFrame:
    """R-hat (max), bulk ESS (min) per sampled variable and the number of divergences.

    rbc's ``misfit``, ``p_misfit`` and ``p_misfit_shared`` (:data:`POST_HOC`) are left
    out: they are drawn after sampling, from their conditional given each draw, so
    their mixing is the sampled parameters' (and with K groups they are 4K + 2 more).

    Parameters
    ----------
    result : FairnessPosterior
    """
    idata = result.idata
    stats = idata.sample_stats if "sample_stats" in idata.groups() else None
    post = idata.posterior.drop_vars(list(POST_HOC), errors="ignore")
    return diagnostics_table(post, stats)


@takes("FairnessPosterior")
def check_result_diagnostics(result, rhat_max: float = 1.01, stacklevel: int = 3) -> list[str]:
    """Warn (``SamplingWarning``) with advice when R-hat > ``rhat_max`` or divergences > 0.

    Parameters
    ----------
    result : FairnessPosterior
    rhat_max : float, default 1.01
    stacklevel : int, default 3
        Of the warnings (3: the caller of this function, past its argument check).

    Returns
    -------
    list of str
        The problems found (empty: none, or an exact sampler).
    """
    if result.settings.get("sampler") == "exact":
        return []
    diag = result_diagnostics(result)
    problems = []
    bad = diag.index[diag["r_hat"] > rhat_max].tolist()
    if bad:
        problems.append(
            f"R-hat above {rhat_max} for {bad} (max {diag['r_hat'].max():.3f}): the chains "
            "disagree. Increase 'tune' and 'draws', or check the data for a group with "
            "very few labels."
        )
    n_div = int(diag["divergences"].iloc[0]) if len(diag) else 0
    if n_div > 0:
        problems.append(
            f"{n_div} divergent transition(s): the posterior may be biased. Increase "
            "'target_accept' (e.g. 0.99) or check the priors."
        )
    for p in problems:
        warnings.warn(p, SamplingWarning, stacklevel=stacklevel)
    return problems
