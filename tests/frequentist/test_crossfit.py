"""bayesfair.frequentist._crossfit: the beta-calibration features and the penalised
logistic regression behind PPI++'s predictions.

(Its agreement with scikit-learn's LogisticRegression is tested in
tests/frequentist/test_ppi.py.)
"""

import numpy as np
import pytest
from scipy.special import expit

from bayesfair.frequentist._crossfit import logit_features, penalised_logistic


def test_logit_features_are_the_logs_of_the_clipped_score():
    s = np.array([0.0, 0.005, 0.3, 0.5, 0.999, 1.0])
    x = logit_features(s, 0.01)
    c = np.clip(s, 0.01, 0.99)
    assert x.shape == (6, 2)
    np.testing.assert_allclose(x[:, 0], np.log(c), rtol=1e-15)
    np.testing.assert_allclose(x[:, 1], -np.log(1 - c), rtol=1e-14)
    assert np.isfinite(x).all()
    # the map σ(c + a log s − b log(1 − s)) with (0, 1, 1) is the identity on [ε, 1 − ε]
    np.testing.assert_allclose(expit(x[:, 0] + x[:, 1]), c, rtol=1e-12)


def _gradient(beta, x, y, penalty):
    design = np.column_stack([np.ones(y.size), x])
    p = expit(design @ beta)
    return design.T @ (p - y) + np.array([0.0, penalty, penalty]) * beta


@pytest.mark.parametrize("penalty", [0.01, 1.0, 25.0])
def test_the_fit_is_a_stationary_point_of_the_penalised_log_loss(penalty):
    rng = np.random.default_rng(7)
    s = rng.beta(2, 3, 150)
    y = (rng.uniform(size=150) < s**1.3).astype(float)
    x = logit_features(s, 0.01)
    beta = penalised_logistic(x, y, penalty=penalty)
    assert beta.shape == (3,)
    np.testing.assert_allclose(_gradient(beta, x, y, penalty), 0.0, atol=1e-7)


def test_a_larger_penalty_shrinks_the_slopes_not_the_intercept():
    rng = np.random.default_rng(8)
    s = rng.uniform(0.02, 0.98, 200)
    y = (rng.uniform(size=200) < s).astype(float)
    x = logit_features(s, 0.01)
    norms = [np.hypot(*penalised_logistic(x, y, penalty=p)[1:]) for p in (0.1, 10.0, 1000.0)]
    assert norms[0] > norms[1] > norms[2]
    # a huge penalty leaves the intercept: the logit of the share of positives
    beta = penalised_logistic(x, y, penalty=1e9)
    assert beta[0] == pytest.approx(np.log(y.mean() / (1 - y.mean())), abs=1e-4)


def test_calibrated_labels_give_the_identity_map():
    """Labels drawn with probability s itself: the fitted map is close to (c, a, b) = (0, 1, 1)
    (20,000 rows; each coefficient's standard error is below 0.05)."""
    rng = np.random.default_rng(9)
    s = rng.uniform(0.01, 0.99, 20_000)
    y = (rng.uniform(size=s.size) < s).astype(float)
    beta = penalised_logistic(logit_features(s, 0.01), y)
    np.testing.assert_allclose(beta, [0.0, 1.0, 1.0], atol=0.15)


def test_separable_labels_still_give_a_finite_fit():
    """Without the penalty the slopes of perfectly separated labels diverge; with it the
    fit is finite and orders the scores the right way."""
    s = np.linspace(0.05, 0.95, 40)
    y = (s > 0.5).astype(float)
    beta = penalised_logistic(logit_features(s, 0.01), y)
    assert np.isfinite(beta).all()
    p = expit(beta[0] + logit_features(s, 0.01) @ beta[1:])
    assert (np.diff(p) > 0).all() and p[0] < 0.5 < p[-1]
