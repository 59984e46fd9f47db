"""Prediction-powered intervals (PPI++) for the gap in a rate between two groups.

A small labeled set (score, label, group) and a large unlabeled one (score,
group). Prediction-powered inference (Angelopoulos et al. 2023, *Science* 382)
estimates a mean ``θ = E[Y]`` by the predictions' mean on the unlabeled data,
corrected by the labeled residuals; PPI++ (Angelopoulos, Duchi & Zrnic 2023,
arXiv:2311.01453, §2, Eq. 3 and Example 6.1) weighs the predictions by a
power-tuning ``λ ∈ [0, 1]``:

    θ̂_λ = λ · mean_U(f) + mean_L(Y − λ f),
    Var θ̂_λ = λ² Var_U(f) / N + Var_L(Y − λ f) / n,

with ``λ = Cov(Y, f) / ((1 + n/N) Var(f))`` (clipped to [0, 1]) minimising the
variance; ``λ = 0`` is the classical estimate, ``λ = 1`` plain PPI. The interval
``θ̂ ± z Var^(1/2)`` is valid whatever the predictions' quality.

**Strata.** Within a group ``g`` the examples on one side ``h`` of the
threshold all have the same ŷ, so every confusion cell's mean is the stratum's
share ``w_gh`` (known: labeled and unlabeled rows counted) times the stratum's
positive rate ``q_gh`` or its complement: ``tp_g = w_g1 q_g1``,
``fp_g = w_g1 (1 − q_g1)``, ``fn_g = w_g0 q_g0``, ``tn_g = w_g0 (1 − q_g0)``.
Each ``q_gh`` is a PPI++ mean within its stratum (its own ``λ``), the strata
are independent, and a rate ``Σ num cells / Σ den cells`` (accuracy, TPR, FPR,
PPV, ...) and the gap between two groups follow by the delta method: stratified
PPI (Fisch et al. 2024, *Stratified Prediction-Powered Inference*, §3). The
delta method is used rather than the prediction-powered bootstrap because the
rates are smooth functions of four stratum means with closed-form gradients.

**Predictions.** ``f = P(Y = 1 | s, g)``. By default a per-group beta
calibration (logistic regression of the label on ``log s`` and
``−log(1 − s)``, Kull et al. 2017) is cross-fitted over ``K`` folds of the
labeled set (cross-prediction-powered inference, Zrnic & Candès 2024, PNAS):
each labeled example is predicted by the model fitted without its fold, each
unlabeled one by the average of the ``K`` models, so no label both fits the
predictor and debiases it. ``predictions="scores"`` uses the raw scores.

**Small samples.** Each stratum's labeled examples get ``PSEUDO_COUNT`` = 1/2
pseudo-success and 1/2 pseudo-failure (one of each per group, as Agresti &
Caffo 2000 add per sample for a difference of proportions), with the stratum's
mean unlabeled prediction as their prediction. Without it, a stratum whose few
labels are all of one class has a residual variance of 0, and Δ FPR covered
0.89 at n_L = 50 and 0.92 at 100; with it 0.94–0.96 at every n_L from 50 to
1,000 (``docs/results/ppi_coverage.md``). Its weight, ``1/(n_gh + 1)``, vanishes
as the labels grow.

**Assumptions.** Within each group the labeled examples are a simple random
sample of the group's examples (labeled and unlabeled); the unlabeled set is
large enough that the stratum shares are known (they are counted, not
estimated). A stratum with fewer than two labels cannot estimate its residual
variance: it uses ``λ = 0`` and the largest variance of a rate, 1/4 (a warning
names it).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri

from bayesfair._internal.validation import (
    check_array,
    check_positive_int,
    check_probability,
    check_random_state,
    seed_record,
    seed_sequence,
    takes,
)
from bayesfair.exceptions import (
    InvalidParameterError,
    SparseStratumWarning,
    UndefinedRateWarning,
)
from bayesfair.frequentist._crossfit import (
    _binned_moments,
    _crossfit,
)
from bayesfair.frequentist.bootstrap import percentile_interval
from bayesfair.metrics.rates import get_rate, undefined_rate_message
from bayesfair.stats import Interval

__all__ = [
    "PPIResult",
    "PPIVarianceResult",
    "ppi_between_group_variance",
    "ppi_difference",
    "ppi_differences",
    "ppi_mean_interval",
]


def _moments(values) -> tuple[float, float, float]:
    """``(count, Σ v, Σ v²)`` of an array: the unlabeled predictions' sufficient statistics."""
    v = np.asarray(values, dtype=float)
    return float(v.size), float(v.sum()), float(np.dot(v, v))


def _lambda(y, f, unl, wt=None) -> float:
    """PPI++'s variance-optimal λ for a mean, clipped to [0, 1] (as ``ppi_py``'s tuning).

    ``unl`` is ``(N, Σ f_U, Σ f_U²)``, ``wt`` optional weights of the labeled
    rows. ``λ = Cov_L(Y, f) / ((1 + n/N) Var(f))``, where ``Var(f)`` pools the
    labeled and unlabeled predictions (ddof 1).
    """
    wt = np.ones(y.size) if wt is None else wt
    n = wt.sum()
    big_n, s1, s2 = unl
    y_bar, f_bar = wt @ y / n, wt @ f / n
    cov = float(wt @ ((y - y_bar) * (f - f_bar)) / n)
    m = n + big_n
    total = wt @ f + s1
    var = (float(wt @ (f * f)) + s2 - total * total / m) / (m - 1.0)
    if not var > 1e-15:
        return 0.0
    return float(np.clip(cov / ((1.0 + n / big_n) * var), 0.0, 1.0))


def _ppi_mean(y, f, unl, lam, wt=None):
    """Point estimate and variance of the PPI++ mean at ``lam`` (None: tuned).

    ``wt``: optional weights of the labeled rows (the pseudo-observations of
    :func:`_stratum`); the labeled sample size is their sum.
    """
    if lam is None:
        lam = _lambda(y, f, unl, wt)
    wt = np.ones(y.size) if wt is None else wt
    n = wt.sum()
    big_n, s1, s2 = unl
    mean_u = s1 / big_n
    var_u = max(s2 / big_n - mean_u * mean_u, 0.0)
    resid = y - lam * f
    r_bar = wt @ resid / n
    est = lam * mean_u + r_bar
    var = lam * lam * var_u / big_n + (wt @ (resid - r_bar) ** 2 / n) / n
    return float(est), float(var), float(lam)


def ppi_mean_interval(y, yhat, yhat_unlabeled, *, lam=None, ci_prob: float = 0.95):
    """PPI++ interval of a mean (Angelopoulos, Duchi & Zrnic 2023, Eq. 3 and §6).

    The same estimate, variance and tuning as ``ppi_py.ppi_mean_ci`` for one
    coordinate without weights (tested to 1e-8).

    Parameters
    ----------
    y : array_like, shape (n,)
        Labeled outcomes.
    yhat, yhat_unlabeled : array_like
        Predictions on the labeled and on the unlabeled examples.
    lam : float, optional
        Power tuning: None tunes it, 1 is PPI, 0 the classical interval.
    ci_prob : float

    Returns
    -------
    estimate : float
    interval : Interval
        Kind ``"ppi"`` (``"classical"`` when ``lam=0`` is given).
    lam : float
    """
    y, f, f_u = (
        check_array(v, name).ravel()
        for v, name in ((y, "y"), (yhat, "yhat"), (yhat_unlabeled, "yhat_unlabeled"))
    )
    ci_prob = check_probability(ci_prob)
    if y.size != f.size or y.size < 2 or f_u.size < 1:
        raise InvalidParameterError(
            "'y' and 'yhat' must have the same length (at least 2) and 'yhat_unlabeled' at "
            f"least one value. Got {y.size}, {f.size} and {f_u.size}."
        )
    if lam is not None:
        lam = float(lam)
        if not 0.0 <= lam <= 1.0:
            raise InvalidParameterError(f"The 'lam' parameter must be in [0, 1]. Got {lam!r}.")
    kind = "classical" if lam == 0.0 else "ppi"
    est, var, lam = _ppi_mean(y, f, _moments(f_u), lam)
    z = ndtri(0.5 + ci_prob / 2.0)
    half = z * np.sqrt(var)
    return est, Interval(float(est - half), float(est + half), ci_prob=ci_prob, kind=kind), lam


@dataclass(frozen=True)
class PPIResult:
    """A PPI++ gap between two groups (:func:`ppi_difference`).

    Attributes
    ----------
    metric : str
    group, reference
    estimate : float
        Δ = rate(group) − rate(reference).
    interval : Interval
        ``(lower, upper)`` of the PPI++ interval (kind ``"ppi"``).
    classical_interval : Interval
        The same stratified estimator with λ = 0 (labeled examples only; kind
        ``"classical"``).
    effective_n : float
        ``n_L × classical variance / PPI++ variance``: the number of labels
        the classical interval would need to be as narrow (n_L of the two groups).
    n_labeled : int
    ci_prob : float
    lam : dict
        λ of each stratum, keyed ``(group, side)``.
    """

    metric: str
    group: object
    reference: object
    estimate: float
    interval: Interval
    classical_interval: Interval
    effective_n: float
    n_labeled: int
    ci_prob: float
    lam: dict

    def to_frame(self):
        """One row, with the intervals as ``lower``/``upper`` and ``classical_*`` columns."""
        import pandas as pd

        row = {
            "metric": self.metric,
            "group": self.group,
            "reference": self.reference,
            "estimate": self.estimate,
            "lower": self.interval[0],
            "upper": self.interval[1],
            "classical_lower": self.classical_interval[0],
            "classical_upper": self.classical_interval[1],
            "effective_n": self.effective_n,
            "n_labeled": self.n_labeled,
            "ci_prob": self.ci_prob,
        }
        return pd.DataFrame([row])


#: ε of the clipping of scores to ``[ε, 1 − ε]`` before the calibration's logs
#: (the calibration models' default, so that both share the unlabeled reduction).
SCORE_CLIP = 0.01
#: Pseudo-successes and pseudo-failures added to each stratum's labeled examples
#: (the Agresti–Caffo adjustment, see :func:`_stratum`): 1/2 in each of a group's
#: two strata, so one success and one failure per group, as Agresti & Caffo add
#: per sample.
PSEUDO_COUNT = 0.5


@takes("AssessmentData")
def ppi_difference(
    data,
    metric: str = "accuracy",
    group=None,
    reference=None,
    ci_prob: float = 0.95,
    random_seed=None,
    *,
    predictions="crossfit",
    k_folds: int = 5,
) -> PPIResult:
    """Stratified PPI++ interval for a rate's gap between two groups (module docstring).

    Parameters
    ----------
    data : AssessmentData
        Labeled and unlabeled examples.
    metric : str
        Any rate of the catalogue (:mod:`bayesfair.metrics`).
    group, reference : optional
        The pair. ``reference`` defaults to the data's reference group;
        ``group`` may be left out when there are two groups. For every group
        against the reference, see :func:`ppi_differences`.
    ci_prob : float
    random_seed : None, int, SeedSequence or Generator
        The folds of the cross-fitting.
    predictions : {"crossfit", "scores"} or (array_like, array_like)
        Cross-fitted calibrated probabilities (default), the raw scores, or
        your own predictions of ``P(y = 1)``: a pair ``(labeled, unlabeled)``
        aligned with ``data.scores`` and ``data.unlabeled_scores``, each in
        [0, 1]. Own predictions must not have been fitted on these labels, or
        the interval loses its guarantee.
    k_folds : int
        Folds of the cross-fitting.

    Returns
    -------
    PPIResult

    References
    ----------
    Angelopoulos, Bates, Fannjiang, Jordan & Zrnic 2023 (PPI); Angelopoulos,
    Duchi & Zrnic 2023 (PPI++, §2 and Eq. 3); Zrnic & Candès 2024 (cross-PPI);
    Fisch et al. 2024 (stratified PPI, §3); Agresti & Caffo 2000 (the
    pseudo-observations).
    """
    ci_prob, rate, own, k_folds = _check_common(data, metric, ci_prob, predictions, k_folds)
    ref = data.reference if reference is None else data.resolve_group(reference, "reference")
    if group is None:
        others = [g for g, _ in data.pairs(ref)]
        if len(others) != 1:
            raise InvalidParameterError(
                f"The data have {len(others) + 1} groups: name the 'group' to compare with "
                f"{ref!r}, or use ppi_differences for every group against it."
            )
        group = others[0]
    group = data.resolve_group(group, "group")
    if group == ref:
        raise InvalidParameterError(
            f"The 'group' and 'reference' parameters are the same group {ref!r}."
        )
    predictor = predictions if own is None else own
    return _ppi_pairs(data, rate, [group], ref, ci_prob, random_seed, predictor, k_folds)[0]


@takes("AssessmentData")
def ppi_differences(
    data,
    metric: str = "accuracy",
    reference=None,
    ci_prob: float = 0.95,
    random_seed=None,
    *,
    predictions="crossfit",
    k_folds: int = 5,
) -> list[PPIResult]:
    """:func:`ppi_difference` of every group against ``reference``, in the data's group order.

    Each group's predictor is cross-fitted once, with folds drawn from one
    generator in the order of the groups (the reference last), so the
    reference's predictor is shared by every pair. The folds, hence the
    intervals, differ from those of :func:`ppi_difference` called pair by pair
    with the same ``random_seed`` by the randomness of the folds only.

    Parameters
    ----------
    data, metric, ci_prob, random_seed, predictions, k_folds
        As in :func:`ppi_difference`.
    reference : optional
        The group every other group is compared with (default: the data's).

    Returns
    -------
    list of PPIResult
    """
    ci_prob, rate, own, k_folds = _check_common(data, metric, ci_prob, predictions, k_folds)
    ref = data.reference if reference is None else data.resolve_group(reference, "reference")
    groups = [g for g, _ in data.pairs(ref)]
    predictor = predictions if own is None else own
    return _ppi_pairs(data, rate, groups, ref, ci_prob, random_seed, predictor, k_folds)


def _ppi_pairs(data, rate, groups, ref, ci_prob, random_seed, predictor, k_folds):
    """One :class:`PPIResult` per group of ``groups`` against ``ref``."""
    rng = check_random_state(random_seed)
    per_group = {g: _group_rate(data, g, rate, rng, predictor, k_folds) for g in [*groups, ref]}
    z = ndtri(0.5 + ci_prob / 2.0)
    results = []
    for g in groups:
        a, b = per_group[g], per_group[ref]
        est = a["rate"] - b["rate"]
        var, var0 = a["var"] + b["var"], a["var0"] + b["var0"]
        n_lab = a["n"] + b["n"]
        results.append(
            PPIResult(
                metric=rate.name,
                group=g,
                reference=ref,
                estimate=est,
                interval=Interval(
                    float(est - z * np.sqrt(var)),
                    float(est + z * np.sqrt(var)),
                    ci_prob=ci_prob,
                    kind="ppi",
                ),
                classical_interval=Interval(
                    float(a["rate0"] - b["rate0"] - z * np.sqrt(var0)),
                    float(a["rate0"] - b["rate0"] + z * np.sqrt(var0)),
                    ci_prob=ci_prob,
                    kind="classical",
                ),
                effective_n=float(n_lab * var0 / var) if var > 0 else np.nan,
                n_labeled=int(n_lab),
                ci_prob=ci_prob,
                lam={**a["lam"], **b["lam"]},
            )
        )
    return results


def _check_common(data, metric, ci_prob, predictions, k_folds):
    """The arguments every PPI++ entry point shares: ``(ci_prob, rate, own, k_folds)``."""
    ci_prob = check_probability(ci_prob)
    rate = get_rate(metric)
    if data.n_unlabeled == 0:
        raise InvalidParameterError(
            "Prediction-powered intervals need unlabeled examples; this data set has none."
        )
    own = _check_predictions(predictions, data)
    return ci_prob, rate, own, check_positive_int(k_folds, "k_folds", minimum=2)


def _check_predictions(predictions, data):
    """None for ``"crossfit"``/``"scores"``; the validated ``(labeled, unlabeled)`` pair else."""
    if isinstance(predictions, str):
        if predictions not in ("crossfit", "scores"):
            raise InvalidParameterError(
                "The 'predictions' parameter must be 'crossfit', 'scores' or a pair "
                f"(labeled, unlabeled) of arrays. Got {predictions!r}."
            )
        return None
    try:
        lab, unl = predictions
    except (TypeError, ValueError):
        raise InvalidParameterError(
            "The 'predictions' parameter must be 'crossfit', 'scores' or a pair "
            f"(labeled, unlabeled) of arrays. Got {type(predictions).__name__}."
        ) from None
    out = []
    for name, values, size in (
        ("labeled", lab, data.n_labeled),
        ("unlabeled", unl, data.n_unlabeled),
    ):
        v = np.asarray(values, dtype=float).ravel()
        if v.size != size:
            raise InvalidParameterError(
                f"The {name} predictions have {v.size} values; the data have {size} {name} "
                "examples."
            )
        bad = ~((v >= 0.0) & (v <= 1.0))
        if bad.any():
            raise InvalidParameterError(
                f"The {name} predictions must be probabilities in [0, 1]: {int(bad.sum())} "
                f"value(s) are not (e.g. {v[np.flatnonzero(bad)[0]]!r}). Pass calibrated "
                "probabilities, or predictions='crossfit' to calibrate the scores."
            )
        out.append(v)
    return tuple(out)


def _stratum(y, f, unl):
    """PPI++ (tuned) and classical mean and variance of one stratum's positive rate.

    ``PSEUDO_COUNT`` pseudo-successes and as many pseudo-failures are added to the
    labeled examples, each with the stratum's mean unlabeled prediction ``m``
    as its prediction. At λ = 0 this is the Agresti–Caffo adjustment (Agresti
    & Caffo 2000, *Am. Stat.* 54: one success and one failure added to each
    sample); for any λ it shrinks the estimate toward 1/2 by the weight
    ``2c/(n + 2c)``, ``c = PSEUDO_COUNT``, and keeps the residual variance away from 0
    when a stratum's few labels are all of one class, the case where the
    delta-method interval of a ratio rate such as FPR under-covers at small
    ``n_L`` (``docs/results/ppi_coverage.md``). Its weight vanishes as ``n``
    grows.
    """
    big_n, s1, _ = unl
    m, pseudo = s1 / big_n, PSEUDO_COUNT
    yy = np.concatenate([y, [1.0, 0.0]])
    ff = np.concatenate([f, [m, m]])
    wt = np.concatenate([np.ones(y.size), [pseudo, pseudo]])
    q, v, lam = _ppi_mean(yy, ff, unl, None, wt)
    q0, v0, _ = _ppi_mean(yy, ff, unl, 0.0, wt)
    return q, v, lam, q0, v0


def _group_rate(data, g, rate, rng, predictions, k_folds):
    """One group's rate, its PPI++ and classical (λ = 0) variances, by strata and delta method."""
    code = data.group_levels.index(g)
    lab = data.group_codes == code
    s, y = data.scores[lab], data.labels[lab].astype(float)
    side = s >= data.threshold
    if isinstance(predictions, tuple):  # the user's own predictions
        f = predictions[0][lab]
        unl_rows = data.unlabeled_group_codes == code
        f_u, side_u = predictions[1][unl_rows], data.unlabeled_scores[unl_rows] >= data.threshold

        def unlabeled(h):
            return _moments(f_u[side_u == bool(h)])

    else:
        summary = data.unlabeled_reduction(SCORE_CLIP)
        if predictions == "scores":  # σ(log s − log(1 − s)) = s: the clipped score itself
            f, coefs = np.clip(s, SCORE_CLIP, 1.0 - SCORE_CLIP), np.array([[0.0, 1.0, 1.0]])
        else:
            f, coefs = _crossfit(s, y, k_folds, rng, SCORE_CLIP)

        def unlabeled(h):
            return _binned_moments(summary, code, h, coefs)

    moments = [unlabeled(h) for h in (0, 1)]
    total = lab.sum() + moments[0][0] + moments[1][0]
    q, q0, v, v0, w, lam = {}, {}, {}, {}, {}, {}
    for h, in_l in enumerate((~side, side)):
        unl = moments[h]
        w[h] = (in_l.sum() + unl[0]) / total
        yl, fl = y[in_l], f[in_l]
        if w[h] == 0:
            q[h] = q0[h] = 0.5
            v[h] = v0[h] = 0.0
            lam[(g, h)] = 0.0
            continue
        if yl.size < 2 or unl[0] == 0:
            warnings.warn(
                f"Group {g!r}, side ŷ = {h}: {yl.size} labeled example(s); its positive rate "
                "uses λ = 0 and the largest variance of a rate (1/4).",
                SparseStratumWarning,
                stacklevel=4,
            )
            q[h] = q0[h] = (yl.sum() + 0.5) / (yl.size + 1.0)
            v[h] = v0[h] = 0.25 / max(yl.size, 1)
            lam[(g, h)] = 0.0
            continue
        q[h], v[h], lam[(g, h)], q0[h], v0[h] = _stratum(yl, fl, unl)
    rate_ppi, var_ppi = _delta(rate, w, q, v)
    rate_cls, var_cls = _delta(rate, w, q0, v0)
    counts = dict(
        zip(("tp", "fp", "tn", "fn"), data.labeled_examples.confusion_counts()[code], strict=True)
    )
    if sum(counts[c] for c in rate.denominator) == 0 or np.isnan(rate_ppi):
        # no labeled example in the rate's denominator: nothing to debias it with
        warnings.warn(
            f"{undefined_rate_message(rate, [g])} (among the labeled examples) Its PPI++ "
            "interval is NaN.",
            UndefinedRateWarning,
            stacklevel=4,
        )
        rate_ppi = var_ppi = rate_cls = var_cls = np.nan
    return {
        "rate": rate_ppi,
        "var": var_ppi,
        "rate0": rate_cls,
        "var0": var_cls,
        "n": int(lab.sum()),
        "lam": lam,
    }


def _delta(rate, w, q, v):
    """A rate from the strata's positive rates, and its delta-method variance."""
    cells = {  # mean of each confusion cell, and d cell / d(q0, q1)
        "tp": (w[1] * q[1], (0.0, w[1])),
        "fp": (w[1] * (1 - q[1]), (0.0, -w[1])),
        "tn": (w[0] * (1 - q[0]), (-w[0], 0.0)),
        "fn": (w[0] * q[0], (w[0], 0.0)),
    }
    num = sum(cells[c][0] for c in rate.numerator)
    den = sum(cells[c][0] for c in rate.denominator)
    if not den > 1e-12:
        return np.nan, np.nan
    value = num / den
    grad = np.zeros(2)
    for c in rate.numerator:
        grad += np.asarray(cells[c][1]) / den
    for c in rate.denominator:
        grad -= value * np.asarray(cells[c][1]) / den
    var = grad[0] ** 2 * v[0] + grad[1] ** 2 * v[1]
    return float(value), float(var)


@dataclass(frozen=True)
class PPIVarianceResult:
    """PPI++ between-group variance of a rate (:func:`ppi_between_group_variance`).

    Attributes
    ----------
    metric : str
    estimate : float
        Cochran's corrected estimate ``M_var(r̂) − mean(v̂)`` (Lum et al. eq. 2
        with the PPI++ variances in place of the binomial ones). Not truncated:
        it can be negative when the true variance is near 0.
    interval : Interval
        Double-corrected parametric bootstrap percentile interval (kind
        ``"percentile bootstrap"``).
    upper_bound : float
        One-sided ``ci_prob`` upper bound (the same draws' ``ci_prob`` quantile):
        the figure to read when the groups may perform equally.
    classical_estimate, classical_interval, classical_upper_bound
        The same with λ = 0 (labeled examples only, stratified).
    groups : tuple
        Groups used.
    dropped_groups : tuple
        Groups whose rate is undefined (no labeled example in its denominator).
    group_rates, group_variances : numpy.ndarray
        PPI++ rate of each group used and its variance.
    n_resamples : int
    ci_prob : float
    random_seed : dict
        The seed's record (:func:`bayesfair._internal.validation.seed_record`).
    """

    metric: str
    estimate: float
    interval: Interval
    upper_bound: float
    classical_estimate: float
    classical_interval: Interval
    classical_upper_bound: float
    groups: tuple
    dropped_groups: tuple
    group_rates: np.ndarray
    group_variances: np.ndarray
    n_resamples: int
    ci_prob: float
    random_seed: dict

    def to_frame(self):
        """Two rows, ``ppi`` and ``classical``: estimate, lower, upper, upper_bound."""
        import pandas as pd

        rows = [
            {
                "estimator": "ppi",
                "estimate": self.estimate,
                "lower": self.interval[0],
                "upper": self.interval[1],
                "upper_bound": self.upper_bound,
            },
            {
                "estimator": "classical",
                "estimate": self.classical_estimate,
                "lower": self.classical_interval[0],
                "upper": self.classical_interval[1],
                "upper_bound": self.classical_upper_bound,
            },
        ]
        out = pd.DataFrame(rows)
        out["metric"], out["n_resamples"], out["ci_prob"] = (
            self.metric,
            self.n_resamples,
            self.ci_prob,
        )
        return out


def _variance_estimates(rates, variances, z, ci_prob):
    """Corrected estimate, double-corrected percentile interval and upper bound."""
    est = float(np.var(rates, ddof=1) - variances.mean())
    draws = rates + np.sqrt(variances) * z  # (n_resamples, K): r* ~ N(r̂, v̂)
    # r* − μ has variance 2v: the double correction (Lum et al. §5.3)
    boot = np.var(draws, axis=1, ddof=1) - 2.0 * variances.mean()
    return est, percentile_interval(boot, ci_prob), float(np.quantile(boot, ci_prob))


@takes("AssessmentData")
def ppi_between_group_variance(
    data,
    metric: str = "tpr",
    ci_prob: float = 0.95,
    n_resamples: int = 2000,
    random_seed=None,
    *,
    predictions="crossfit",
    k_folds: int = 5,
) -> PPIVarianceResult:
    """Between-group variance of a rate from PPI++ group rates (Lum et al. 2022).

    The estimand is Lum, Zhang & Bower's ``M_var(μ)``, the sample variance
    (ddof 1) of the K groups' rates. Each group's rate ``r̂_k`` and its variance
    ``v̂_k`` come from the stratified, cross-fitted PPI++ estimator of
    :func:`ppi_difference` (independent across groups). Because
    ``E[M_var(r̂)] = M_var(μ) + mean(v_k)`` (Lum et al. §4), the estimate is
    Cochran's corrected ``M_var(r̂) − mean(v̂)`` (eq. 2). The interval is the
    double-corrected bootstrap of §5.3 in parametric form: draws
    ``r*_k ~ N(r̂_k, v̂_k)``, whose deviation from ``μ_k`` has variance ``2 v_k``,
    give ``M_var(r*) − 2 mean(v̂)``, and their percentiles bound the variance.

    **Where it is well defined.** The normal approximation of each group's
    rate needs enough labels in the rate's denominator in every group; a group
    whose rate is undefined (no labeled example in its denominator) is dropped
    with a warning, and at least two groups must remain. When the groups
    perform equally (``M_var(μ) = 0``) the estimate sits near 0 and its
    interval straddles it: read ``upper_bound``. The parametric bootstrap
    treats ``v̂_k`` as known; coverage was checked by simulation
    (``tests/statistical/test_ppi_variance.py``).

    Parameters
    ----------
    data : AssessmentData
    metric : str
    ci_prob : float
    n_resamples : int
        Parametric bootstrap draws.
    random_seed : None, int, SeedSequence or Generator
        The folds of the cross-fitting and the bootstrap draws.
    predictions, k_folds
        As in :func:`ppi_difference`.

    Returns
    -------
    PPIVarianceResult
    """
    ci_prob, rate, own, k_folds = _check_common(data, metric, ci_prob, predictions, k_folds)
    n_resamples = check_positive_int(n_resamples, "n_resamples", minimum=2)
    data.require_groups(2, "a between-group variance")
    seq = seed_sequence(random_seed)
    fold_seq, boot_seq = seq.spawn(2)
    rng = np.random.default_rng(fold_seq)
    predictor = predictions if own is None else own
    per_group = {g: _group_rate(data, g, rate, rng, predictor, k_folds) for g in data.group_levels}
    used = tuple(g for g, r in per_group.items() if np.isfinite(r["rate"]))
    dropped = tuple(g for g in data.group_levels if g not in used)
    if len(used) < 2:
        raise InvalidParameterError(
            f"The {rate.name} is defined in {len(used)} group(s) only; a between-group "
            "variance needs at least two."
        )
    z = np.random.default_rng(boot_seq).standard_normal((n_resamples, len(used)))
    rates = np.array([per_group[g]["rate"] for g in used])
    var = np.array([per_group[g]["var"] for g in used])
    rates0 = np.array([per_group[g]["rate0"] for g in used])
    var0 = np.array([per_group[g]["var0"] for g in used])
    est, interval, upper = _variance_estimates(rates, var, z, ci_prob)
    est0, interval0, upper0 = _variance_estimates(rates0, var0, z, ci_prob)
    return PPIVarianceResult(
        metric=rate.name,
        estimate=est,
        interval=interval,
        upper_bound=upper,
        classical_estimate=est0,
        classical_interval=interval0,
        classical_upper_bound=upper0,
        groups=used,
        dropped_groups=dropped,
        group_rates=rates,
        group_variances=var,
        n_resamples=n_resamples,
        ci_prob=ci_prob,
        random_seed=seed_record(seq),
    )
