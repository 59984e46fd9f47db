"""The predictions of PPI++ (private): each group's beta calibration (logistic
regression of the label on ``log s`` and ``−log(1 − s)``, Kull et al. 2017) fitted
by penalised Newton steps, cross-fitted over folds of the labeled set
(cross-prediction-powered inference, Zrnic & Candès 2024, PNAS), and its moments
over a stratum of the unlabeled summary (:mod:`bayesfair.frequentist.ppi`)."""

from __future__ import annotations

import numpy as np
from scipy.special import expit, log_expit, logit

from bayesfair._internal.optimize import damped_newton


def logit_features(scores, clip: float):
    """Beta-calibration features ``(log s, −log(1 − s))`` of clipped scores."""
    s = np.clip(np.asarray(scores, dtype=float), clip, 1.0 - clip)
    return np.column_stack([np.log(s), -np.log1p(-s)])


def penalised_logistic(x, y, penalty: float = 1.0, max_iter: int = 100):
    """L2-penalised logistic regression by damped Newton: ``(c, a, b)``.

    The objective is scikit-learn's ``LogisticRegression(C=1/penalty)``:
    ``Σ log-loss + penalty/2 · ‖(a, b)‖²``, intercept unpenalised (tested
    against it). Three parameters and at most a few hundred rows: a Newton
    step is microseconds, where a scikit-learn fit costs milliseconds.
    """
    design = np.column_stack([np.ones(y.size), x])
    return _newton(design, y, np.array([0.0, penalty, penalty]), max_iter)


def _newton(design, y, pen, max_iter: int = 100):
    """Minimise ``Σ log-loss(y, design β) + ½ Σ pen_j β_j²`` by damped Newton steps
    (:func:`~bayesfair._internal.optimize.damped_newton`, exact Hessian), from β = 0."""

    def objective(beta):
        eta = design @ beta
        value = -np.sum(y * log_expit(eta) + (1 - y) * log_expit(-eta)) + 0.5 * pen @ beta**2
        return value, design.T @ (expit(eta) - y) + pen * beta

    def hessian(beta):
        p = expit(design @ beta)
        return (design.T * (p * (1.0 - p))) @ design + np.diag(pen)

    beta, _ = damped_newton(objective, np.zeros(design.shape[1]), hessian, max_iter=max_iter)
    return beta


def _crossfit(scores, labels, k_folds: int, rng, clip: float):
    """Cross-fitted beta calibration of one group (Zrnic & Candès 2024).

    Returns the out-of-fold prediction of each labeled example and the
    coefficients ``(c, a, b)`` of the ``K`` fold models, shape ``(K, 3)``
    (the unlabeled predictions average the ``K`` models). With fewer than
    ``2K`` labels or a single class, the group's smoothed labeled rate
    ``(Σ y + 1)/(n + 2)`` is the prediction of every example (coefficients
    ``(logit rate, 0, 0)``).
    """

    n = labels.size
    if n < 2 * k_folds or labels.min() == labels.max():
        rate = (labels.sum() + 1.0) / (n + 2.0)
        return np.full(n, rate), np.array([[logit(rate), 0.0, 0.0]])
    folds = rng.permutation(n) % k_folds
    x = logit_features(scores, clip)
    f, coefs = np.empty(n), np.empty((k_folds, 3))
    for k in range(k_folds):
        train = folds != k
        y_train = labels[train]
        if y_train.min() == y_train.max():
            rate = (y_train.sum() + 1.0) / (y_train.size + 2.0)
            coefs[k] = (logit(rate), 0.0, 0.0)
        else:
            coefs[k] = penalised_logistic(x[train], y_train)
        held = ~train
        f[held] = expit(coefs[k, 0] + x[held] @ coefs[k, 1:])
    return f, coefs


def _binned_moments(summary, code: int, side: int, coefs) -> tuple[float, float, float]:
    """``(N, Σ f, Σ f²)`` of one group and side from the unlabeled histogram.

    ``f`` averages the fold models ``σ(c + a log s − b log(1 − s))`` at each
    bin's mean features (exact for the linear predictor; the error of
    evaluating σ at the bin mean is far below 1e-4 per example, see
    :mod:`bayesfair.models.unlabeled`).
    """

    sel = (summary.group == code) & (summary.side == bool(side))
    count = summary.count[sel]
    log_s, log_1ms = summary.mean_log_s[sel], summary.mean_log_1ms[sel]
    eta = coefs[:, :1] + coefs[:, 1:2] * log_s - coefs[:, 2:3] * log_1ms
    f = expit(eta).mean(axis=0)
    return float(count.sum()), float(count @ f), float(count @ (f * f))
