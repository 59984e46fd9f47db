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

from bayesfair._validation import check_probability, check_random_state, undefined_rate_message
from bayesfair.exceptions import (
    InvalidParameterError,
    SparseStratumWarning,
    UndefinedRateWarning,
)
from bayesfair.metrics import get_rate

__all__ = ["PPIResult", "ppi_difference", "ppi_mean_interval"]


def _lambda(y, f, f_u) -> float:
    """PPI++'s variance-optimal λ for a mean, clipped to [0, 1] (as ``ppi_py``'s tuning)."""
    n, big_n = y.size, f_u.size
    theta = f_u.mean() + (y - f).mean()
    g, gh, gu = y - theta, f - theta, f_u - theta
    cov = 2.0 * np.sum((g - g.mean()) * (gh - gh.mean())) / n
    var = np.var(np.concatenate([gh, gu]), ddof=1)
    if not var > 0:
        return 0.0
    return float(np.clip(cov / (2.0 * (1.0 + n / big_n) * var), 0.0, 1.0))


def _ppi_mean(y, f, f_u, lam):
    """Point estimate and variance of the PPI++ mean at ``lam`` (None: tuned)."""
    if lam is None:
        lam = _lambda(y, f, f_u)
    est = lam * f_u.mean() + (y - lam * f).mean()
    var = np.var(lam * f_u) / f_u.size + np.var(y - lam * f) / y.size
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
    interval : tuple of float
    lam : float
    """
    ci_prob = check_probability(ci_prob)
    y, f, f_u = (np.asarray(v, dtype=float).ravel() for v in (y, yhat, yhat_unlabeled))
    if y.size != f.size or y.size < 2 or f_u.size < 1:
        raise InvalidParameterError(
            "'y' and 'yhat' must have the same length (at least 2) and 'yhat_unlabeled' at "
            f"least one value. Got {y.size}, {f.size} and {f_u.size}."
        )
    if lam is not None:
        lam = float(lam)
        if not 0.0 <= lam <= 1.0:
            raise InvalidParameterError(f"The 'lam' parameter must be in [0, 1]. Got {lam!r}.")
    est, var, lam = _ppi_mean(y, f, f_u, lam)
    z = ndtri(0.5 + ci_prob / 2.0)
    half = z * np.sqrt(var)
    return est, (float(est - half), float(est + half)), lam


@dataclass(frozen=True)
class PPIResult:
    """A PPI++ gap between two groups (:func:`ppi_difference`).

    Attributes
    ----------
    metric : str
    group, reference
    estimate : float
        Δ = rate(group) − rate(reference).
    interval : tuple of float
        ``(lower, upper)`` of the PPI++ interval.
    classical_interval : tuple of float
        The same stratified estimator with λ = 0 (labeled examples only).
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
    interval: tuple
    classical_interval: tuple
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


def _features(scores, clip: float = 0.01):
    s = np.clip(np.asarray(scores, dtype=float), clip, 1.0 - clip)
    return np.column_stack([np.log(s), -np.log1p(-s)])


def _crossfit(scores, labels, scores_u, k_folds: int, rng):
    """Cross-fitted beta calibration of one group: labeled and unlabeled predictions."""
    from sklearn.linear_model import LogisticRegression

    n = labels.size
    f, f_u = np.empty(n), np.zeros(scores_u.size)
    if n < 2 * k_folds or labels.min() == labels.max():
        # too few labels, or one class: the group's labeled rate as the prediction
        rate = (labels.sum() + 1.0) / (n + 2.0)
        return np.full(n, rate), np.full(scores_u.size, rate)
    folds = rng.permutation(n) % k_folds
    x, x_u = _features(scores), _features(scores_u)
    for k in range(k_folds):
        train = folds != k
        if labels[train].min() == labels[train].max():
            f[~train] = labels[train].mean()
            f_u += labels[train].mean() / k_folds
            continue
        model = LogisticRegression(C=1.0).fit(x[train], labels[train])
        f[~train] = model.predict_proba(x[~train])[:, 1]
        f_u += model.predict_proba(x_u)[:, 1] / k_folds
    return f, f_u


def ppi_difference(
    data,
    metric: str = "accuracy",
    group=None,
    reference=None,
    ci_prob: float = 0.95,
    random_seed=None,
    *,
    predictions: str = "crossfit",
    k_folds: int = 5,
):
    """Stratified PPI++ interval for a rate's gap between two groups (module docstring).

    Parameters
    ----------
    data : AssessmentData
        Labeled and unlabeled examples.
    metric : str
        Any rate of the catalogue (:mod:`bayesfair.metrics`).
    group, reference : optional
        The pair; with ``group=None`` one result per group against the reference.
    ci_prob : float
    random_seed : None, int, SeedSequence or Generator
        The folds of the cross-fitting.
    predictions : {"crossfit", "scores"}
        Cross-fitted calibrated probabilities (default) or the raw scores.
    k_folds : int
        Folds of the cross-fitting.

    Returns
    -------
    PPIResult or list of PPIResult

    References
    ----------
    Angelopoulos, Bates, Fannjiang, Jordan & Zrnic 2023 (PPI); Angelopoulos,
    Duchi & Zrnic 2023 (PPI++, §2 and Eq. 3); Zrnic & Candès 2024 (cross-PPI);
    Fisch et al. 2024 (stratified PPI, §3).
    """
    ci_prob = check_probability(ci_prob)
    rate = get_rate(metric)
    if predictions not in ("crossfit", "scores"):
        raise InvalidParameterError(
            f"The 'predictions' parameter must be 'crossfit' or 'scores'. Got {predictions!r}."
        )
    if data.n_unlabeled == 0:
        raise InvalidParameterError(
            "Prediction-powered intervals need unlabeled examples; this data set has none."
        )
    rng = check_random_state(random_seed)
    ref = data.reference if reference is None else data.resolve_group(reference, "reference")
    if group is None:
        groups = [g for g, _ in data.pairs(ref)]
    else:
        groups = [data.resolve_group(group, "group")]
        if groups[0] == ref:
            raise InvalidParameterError(
                f"The 'group' and 'reference' parameters are the same group {ref!r}."
            )
    per_group = {g: _group_rate(data, g, rate, rng, predictions, k_folds) for g in {*groups, ref}}
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
                interval=(float(est - z * np.sqrt(var)), float(est + z * np.sqrt(var))),
                classical_interval=(
                    float(a["rate0"] - b["rate0"] - z * np.sqrt(var0)),
                    float(a["rate0"] - b["rate0"] + z * np.sqrt(var0)),
                ),
                effective_n=float(n_lab * var0 / var) if var > 0 else np.nan,
                n_labeled=int(n_lab),
                ci_prob=ci_prob,
                lam={**a["lam"], **b["lam"]},
            )
        )
    return results[0] if group is not None else results


def _group_rate(data, g, rate, rng, predictions, k_folds):
    """One group's rate, its PPI++ and classical (λ = 0) variances, by strata and delta method."""
    code = data.group_levels.index(g)
    lab = data.group_codes == code
    unl = data.unlabeled_group_codes == code
    s, y = data.scores[lab], data.labels[lab].astype(float)
    s_u = data.unlabeled_scores[unl]
    if predictions == "scores":
        f, f_u = np.clip(s, 0.0, 1.0), np.clip(s_u, 0.0, 1.0)
    else:
        f, f_u = _crossfit(s, y, s_u, k_folds, rng)
    side, side_u = s >= data.threshold, s_u >= data.threshold
    total = lab.sum() + unl.sum()
    q, q0, v, v0, w, lam = {}, {}, {}, {}, {}, {}
    for h, (in_l, in_u) in enumerate(((~side, ~side_u), (side, side_u))):
        w[h] = (in_l.sum() + in_u.sum()) / total
        yl, fl, fu = y[in_l], f[in_l], f_u[in_u]
        if w[h] == 0:
            q[h] = q0[h] = 0.5
            v[h] = v0[h] = 0.0
            lam[(g, h)] = 0.0
            continue
        if yl.size < 2 or fu.size == 0:
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
        q[h], v[h], lam[(g, h)] = _ppi_mean(yl, fl, fu, None)
        q0[h], v0[h], _ = _ppi_mean(yl, fl, fu, 0.0)
    rate_ppi, var_ppi = _delta(rate, w, q, v)
    rate_cls, var_cls = _delta(rate, w, q0, v0)
    counts = dict(zip(("tp", "fp", "tn", "fn"), data.counts_array()[code], strict=True))
    if sum(counts[c] for c in rate.denominator) == 0 or np.isnan(rate_ppi):
        # no labeled example in the rate's denominator: nothing to debias it with
        warnings.warn(
            f"{undefined_rate_message(rate, [g])} (among the labeled examples) Its PPI++ "
            "interval is NaN.",
            UndefinedRateWarning,
            stacklevel=4,
        )
        rate_ppi = var_ppi = rate_cls = var_cls = np.nan
    return {"rate": rate_ppi, "var": var_ppi, "rate0": rate_cls, "var0": var_cls,
            "n": int(lab.sum()), "lam": lam}  # fmt: skip


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
