"""Calibration within groups as a fairness view: each group's mean score against its positives.

A classifier's scores are *calibrated within groups* when ``P(y = 1 | s, group) = s``
in every group (Kleinberg, Mullainathan & Raghavan 2017; Pleiss et al. 2017): a
score of 0.7 means the same in every group. Its coarsest consequence, the first
level of Van Calster et al.'s (2016) hierarchy, is *calibration in the large*: in
each group the mean score equals the share of positives. This module reads that
consequence off a fit's draws, per group:

* ``mean_score``: the mean of the raw scores (as given, before the fit's clipping
  to ``[ε, 1 − ε]``) over the assessed rows, labeled and unlabeled together. It is
  a fixed number, exact: the sums of the raw scores per group are kept by every
  side of the data (``ExampleSet.score_sums``, from ``ScoreSummary.sum_score`` for
  a side held as a summary).
* ``positive_rate``: per draw, the group's ``base_rate`` (the fit's ``rates``
  group): under the ``"assessed"`` estimand the share of positives among the
  assessed rows, the labeled ones with their labels and the unlabeled ones with
  labels drawn from the model's calibrated probabilities.
* ``calibration_gap = mean_score − positive_rate``, per draw: positive where the
  scores overstate the group's positives, negative where they understate them.

The verdict is the package's one HDI + ROPE rule
(:func:`bayesfair.stats.rope_decision`, Kruschke 2018) on the gap's HDI against
``±ε``. Calibration in the large is necessary, not sufficient: scores too extreme
in both directions can average out (:func:`bayesfair.frequentist.reliability_curve`
shows the whole curve from the labeled rows).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from bayesfair._internal.tree import get_group, has_group
from bayesfair._internal.validation import check_epsilon, check_probability, takes
from bayesfair.exceptions import InvalidParameterError
from bayesfair.metrics.rates import CALIBRATION_COLUMNS
from bayesfair.metrics.verdicts import decide
from bayesfair.posterior.groups import evidence, group_sizes
from bayesfair.posterior.stored_summary import labeled_cells
from bayesfair.stats import Interval, hdi, prob_within, simultaneous_band

#: What the gap is, in words (the table's ``attrs["quantity"]``).
QUANTITY = "mean score minus share of positives, per group (calibration in the large)"


@takes("FairnessPosterior")
def assessed_mean_score(result) -> pd.Series:
    """Each group's mean raw score over the assessed rows (labeled and unlabeled together).

    The scores as given, before any clipping: the sums of the raw scores that each
    side of the fit's data keeps (``ExampleSet.score_sums``), over the group's rows.

    Parameters
    ----------
    result : FairnessPosterior
        A fit (it keeps each group's sum of raw scores in ``constant_data``, which
        a result read from a file keeps too); for a result saved before the sums
        were kept, one that holds its data (``result.data``) or has no unlabeled
        rows (its labeled summary has the sums).

    Returns
    -------
    pandas.Series
        Indexed by ``group`` (the result's groups, in its order), named ``mean_score``.

    Raises
    ------
    InvalidParameterError
        When an older result has unlabeled rows but neither the sums nor its data,
        or holds data of another size.
    """
    sizes = group_sizes(result)
    n = (sizes["n_labeled"] + sizes["n_unlabeled"]).to_numpy(float)
    constant = (
        get_group(result.idata, "constant_data") if has_group(result.idata, "constant_data") else {}
    )
    data = result.data
    if "score_sum" in constant:  # kept by the fit, and so by a result read from a file
        total = np.asarray(constant["score_sum"].values, dtype=float)
    elif data is not None:
        held = data.group_sizes().to_numpy()
        if held.shape != sizes.shape or (held != sizes.to_numpy()).any():
            raise InvalidParameterError(
                "The result's 'data' does not hold the rows it was fitted on (its group "
                "sizes differ): set result.data to the AssessmentData of the fit."
            )
        total = data.labeled_examples.score_sums() + data.unlabeled_examples.score_sums()
    else:
        cells = labeled_cells(result) if not sizes["n_unlabeled"].any() else None
        if cells is None:
            raise InvalidParameterError(
                "The mean scores need the raw scores of the assessed rows: this result "
                "was saved by a version that did not keep their sums. Set result.data = "
                "<the AssessmentData it was fitted on>."
            )
        total = np.bincount(cells.group, weights=cells.sum_score, minlength=len(n))
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(n > 0, total / np.where(n > 0, n, 1.0), np.nan)
    draws = mean_score_draws(result)
    if draws is not None:  # latent groups: the posterior mean of each draw's mean score
        mean = draws.mean(("chain", "draw")).values
    return pd.Series(mean, index=sizes.index, name="mean_score")


@takes("FairnessPosterior")
def calibration_gap(result):
    """Draws of each group's calibration gap, mean score minus share of positives.

    Parameters
    ----------
    result : FairnessPosterior
        A fit whose metrics include ``base_rate`` (the default catalogue does), that
        holds its data (:func:`assessed_mean_score`).

    Returns
    -------
    xarray.DataArray
        Dims ``(chain, draw, group)``, named ``calibration_gap``:
        ``assessed_mean_score(result) − result.rates("base_rate")``, draw by draw.
        Positive: the scores overstate the group's positives.

    Raises
    ------
    InvalidParameterError
        When ``base_rate`` was not fitted (the message names the fix), or as
        :func:`assessed_mean_score`.
    """
    if "base_rate" not in result.metrics:
        raise InvalidParameterError(
            "The calibration view needs the draws of each group's share of positives, the "
            f"'base_rate' rate, which this fit did not compute (its metrics: "
            f"{', '.join(result.metrics)}). Fit again with "
            "bayesfair.fit(..., metrics=[..., 'base_rate']), or leave 'metrics' out (the "
            "default catalogue includes it)."
        )
    rate = result.rates("base_rate").transpose("chain", "draw", "group")
    mean = mean_score_draws(result)
    if mean is None:
        mean = xr.DataArray(assessed_mean_score(result).to_numpy(), dims="group")
    return (mean - rate).transpose("chain", "draw", "group").rename("calibration_gap")


@takes("FairnessPosterior")
def mean_score_draws(result):
    """Each draw's mean score per group when some rows' groups are latent, else None.

    With groups known as a proxy's probabilities (:mod:`bayesfair.models.proxy`) a
    group's assessed rows differ from draw to draw: its mean score is the known rows'
    raw scores plus the draw's latent rows' (``proxy_score_sum``), over both counts.

    Parameters
    ----------
    result : FairnessPosterior

    Returns
    -------
    xarray.DataArray or None
        Dims ``(chain, draw, group)``.
    """
    post = get_group(result.idata, "posterior") if has_group(result.idata, "posterior") else {}
    if "proxy_score_sum" not in post:
        return None
    sizes = group_sizes(result)
    known_n = (sizes["n_labeled"] + sizes["n_unlabeled"]).to_numpy(float)
    known_sum = np.asarray(get_group(result.idata, "constant_data")["score_sum"].values, float)
    latent_n = post["proxy_cells"].sum("cell").transpose("chain", "draw", "group").values
    latent_sum = post["proxy_score_sum"].transpose("chain", "draw", "group").values
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (known_sum + latent_sum) / (known_n + latent_n)
    return xr.DataArray(mean, dims=("chain", "draw", "group"))


@takes("FairnessPosterior")
def calibration_summary(result, ci_prob: float = 0.95, epsilon: float = 0.02) -> pd.DataFrame:
    """One row per group: its mean score, its share of positives and the gap between them.

    Parameters
    ----------
    result : FairnessPosterior
        A fit whose metrics include ``base_rate`` (the default catalogue does) and that
        holds its data (``result.data``; :func:`assessed_mean_score`).
    ci_prob : float, default 0.95
        Probability of the highest-density intervals (:func:`bayesfair.stats.hdi`), in
        (0, 1).
    epsilon : float, default 0.02
        Half-width of the region of practical equivalence around a gap of 0: a group
        whose mean score is within ε of its share of positives is calibrated in the
        large, for practical purposes. Positive and below 1.

    Returns
    -------
    pandas.DataFrame
        ``group, n_labeled, mean_score, positive_rate, positive_rate_lower,
        positive_rate_upper, calibration_gap, calibration_gap_lower,
        calibration_gap_upper, decision, n_unlabeled, prob_within``
        (:data:`CALIBRATION_COLUMNS`), in the result's group order:

        * ``mean_score``: the mean raw score over the group's assessed rows, labeled
          and unlabeled (scores as given, not clipped); a fixed number.
        * ``positive_rate``: the posterior mean of the group's ``base_rate``, with its
          HDI (``_lower``, ``_upper``). Under the ``"assessed"`` estimand it is the
          share of positives among the assessed rows; under ``"expected"`` (``bb``,
          ``hbb``, or no unlabeled rows) the expected share in the group's score
          distribution.
        * ``calibration_gap``: ``mean_score − positive_rate``, per draw; its posterior
          mean and a band simultaneous over the K groups
          (:func:`bayesfair.stats.simultaneous_band`, as ``res.group_summary``'s gaps;
          the HDI with one group). Positive: the scores overstate the group's positives.
        * ``decision``: the HDI + ROPE rule (:func:`bayesfair.stats.rope_decision`) on
          the gap's band, in the words of every decision of the package:
          ``"practically fair"`` (the HDI lies within ``[−ε, ε]``: the group's scores
          are calibrated in the large to within ε), ``"unfair"`` (it lies outside:
          they overstate, for a positive gap, or understate the group's positives by
          more than ε), ``"undecided"`` (it straddles ±ε: more labels are needed),
          ``"undefined"`` (no draw of the rate is defined); behind the one verdict
          gate (:func:`bayesfair.metrics.verdicts.decide`): ``"too few"`` for a group
          with fewer than 10 labeled rows or 30 rows assessed.
        * ``prob_within``: ``P(|gap| < ε | data)``.

        ``attrs``: ``quantity`` (the gap in words), ``estimand`` (``"assessed"`` or
        ``"expected"``), ``estimand_text`` (in words, as ``res.summary`` prints it),
        ``ci_prob``, ``epsilon`` and ``interval`` (the gap's: the simultaneous band,
        or ``"hdi"`` with one group).

    Raises
    ------
    InvalidParameterError
        For ``ci_prob`` outside (0, 1), ``epsilon`` not in (0, 1), a fit without
        ``base_rate`` or without its data (:func:`calibration_gap`).

    Notes
    -----
    The verdicts hold for the K groups together (the band is joint): among many
    calibrated groups none is called "unfair" by chance more often than 1 − ci_prob
    of the time. The verdict does not consult the prior's share of the gap
    (``res.sensitivity``), as ``res.summary`` does: with
    few labels in a group read ``positive_rate``'s interval, which a calibration model
    narrows with the unlabeled scores through its map.

    References
    ----------
    Kleinberg, Mullainathan & Raghavan (2017), *Inherent trade-offs in the fair
    determination of risk scores*, ITCS (calibration within groups); Pleiss et al.
    (2017), *On fairness and calibration*, NeurIPS; Van Calster et al. (2016), *A
    calibration hierarchy for risk models was defined: from utopia to empirical data*,
    J. Clin. Epidemiol. 74, 167–176 (calibration in the large); Kruschke (2018),
    *Rejecting or accepting parameter values in Bayesian estimation*, AMPPS 1, 270–280
    (HDI + ROPE).
    """
    ci_prob, epsilon = check_probability(ci_prob), check_epsilon(epsilon)
    gap = calibration_gap(result)
    rate = result.rates("base_rate").transpose("chain", "draw", "group").values
    mean = assessed_mean_score(result).to_numpy()
    sizes = group_sizes(result)
    # the gaps' band holds for the K groups together, so that the verdicts hold as a
    # family (no group called "unfair" by chance among many calibrated ones)
    joint = gap.values.reshape(-1, gap.shape[-1])
    band = simultaneous_band(joint, ci_prob) if joint.shape[1] > 1 else None
    # the gap's denominator is every labeled row of the group, as the base rate's
    gate = evidence(result, "base_rate")
    rows = []
    for k, g in enumerate(result.groups):
        r, d = rate[..., k], gap.values[..., k]
        r_iv = hdi(r, ci_prob)
        d_iv = hdi(d, ci_prob) if band is None else Interval(band.lower[k], band.upper[k])
        defined = d[~np.isnan(d)]
        rows.append(
            {
                "group": g,
                "n_labeled": int(sizes["n_labeled"].iloc[k]),
                "mean_score": float(mean[k]),
                "positive_rate": float(np.nanmean(r)) if defined.size else np.nan,
                "positive_rate_lower": r_iv.lower,
                "positive_rate_upper": r_iv.upper,
                "calibration_gap": float(defined.mean()) if defined.size else np.nan,
                "calibration_gap_lower": d_iv.lower,
                "calibration_gap_upper": d_iv.upper,
                "decision": decide(d_iv.lower, d_iv.upper, epsilon, [gate[g]]),
                "n_unlabeled": int(sizes["n_unlabeled"].iloc[k]),
                "prob_within": prob_within(d, epsilon),
            }
        )
    out = pd.DataFrame(rows, columns=CALIBRATION_COLUMNS)
    out.attrs.update(
        quantity=QUANTITY,
        estimand=result.estimand,
        estimand_text=result.estimand_text,
        ci_prob=ci_prob,
        epsilon=epsilon,
        interval="hdi" if band is None else "simultaneous band over the groups (gap)",
    )
    return out
