"""Model checks with closed-form truths: the conjugate Beta posterior."""

import numpy as np
import pytest
from scipy import stats

from bayesfair.data.assessment import AssessmentData
from bayesfair.metrics.rates import rate_fraction
from bayesfair.models.beta_binomial import BetaPrior
from bayesfair.posterior.fitting import fit

# Counts chosen to cover a rate near 0, one near 1, a moderate one and an empty group.
SCORES = np.array([0.9] * 9 + [0.1] * 1 + [0.8] * 2 + [0.3] * 8 + [0.6] * 3 + [0.4] * 27)
LABELS = np.array([1] * 9 + [1] * 1 + [0] * 2 + [0] * 8 + [1] * 3 + [0] * 27)
GROUPS = np.array(["a"] * 20 + ["b"] * 30)


@pytest.fixture(scope="module")
def data():
    return AssessmentData(SCORES, LABELS, GROUPS)


def _quantile_se(p, n_eff, dist):
    """Monte Carlo standard error of an empirical quantile: sqrt(p(1-p)/n) / f(q)."""
    return np.sqrt(p * (1 - p) / n_eff) / dist.pdf(dist.ppf(p))


def test_exact_sampler_matches_conjugate_posterior(data):
    """bb's cells are Dirichlet(1 + counts): a rate of j of its denominator's d cells has
    the margin Beta(j + x, d − j + n − x) (Beta(2 + x, 2 + n − x) for accuracy, Beta(1 +
    x, 1 + n − x) for TPR and FPR, as before 0.4), and a draw's rates are coherent."""
    res = fit(
        data,
        model="bb",
        metrics=["accuracy", "tpr", "fpr", "error_rate", "fnr"],
        draws=5000,
        chains=4,
        random_seed=0,
        progressbar=False,
    )
    n_draws = 20000
    for total in (
        res.rates("accuracy") + res.rates("error_rate"),
        res.rates("tpr") + res.rates("fnr"),
    ):
        np.testing.assert_allclose(total.values, 1.0, atol=1e-12)
    for metric in ["accuracy", "tpr", "fpr"]:
        x, n = rate_fraction(data.labeled_examples.confusion_counts(), metric)
        draws = res.rates(metric).values.reshape(n_draws, -1)
        j = 2 if metric == "accuracy" else 1  # the numerator's cells; d = 2j here
        for k in range(2):
            dist = stats.beta(j + x[k], j + n[k] - x[k])
            # 3.9 standard errors: two-sided level 1e-4 per comparison (18 comparisons here).
            assert abs(draws[:, k].mean() - dist.mean()) < 3.9 * dist.std() / np.sqrt(n_draws)
            for p in (0.025, 0.975):
                assert abs(np.quantile(draws[:, k], p) - dist.ppf(p)) < 3.9 * _quantile_se(
                    p, n_draws, dist
                )


def test_one_beta_per_rate_is_the_papers_form_on_request(data):
    """``BetaPrior(α, β, cells=False)``: every rate its own Beta(α + x, β + n − x) (Ji et
    al. §2.2 as written, bb before 0.4): accuracy's mean (2 + x)/(5 + n) here, within 4
    Monte Carlo SEs; no cells kept, so the draws are not called counts."""
    res = fit(
        data,
        model="bb",
        metrics=["accuracy", "error_rate"],
        prior=BetaPrior(2.0, 3.0, cells=False),
        draws=2000,
        chains=2,
        random_seed=0,
        progressbar=False,
    )
    x, n = rate_fraction(data.labeled_examples.confusion_counts(), "accuracy")
    draws = res.rates("accuracy").values.reshape(4000, -1)
    for k in range(2):
        dist = stats.beta(2 + x[k], 3 + n[k] - x[k])
        assert abs(draws[:, k].mean() - dist.mean()) < 4 * dist.std() / np.sqrt(4000)
    assert "cells" not in res.idata.posterior and not res.draws_counts
    total = (res.rates("accuracy") + res.rates("error_rate")).values
    assert np.abs(total - 1).max() > 0.01  # each rate on its own: not one population


@pytest.mark.slow
def test_nuts_agrees_with_exact_sampler(data):
    """Means and 95% interval ends of NUTS and exact draws agree within Monte Carlo error."""
    metrics = ["accuracy", "tpr", "fpr"]
    exact = fit(
        data, model="bb", metrics=metrics, draws=2000, chains=4, random_seed=1, progressbar=False
    )
    nuts = fit(
        data,
        model="bb",
        metrics=metrics,
        sampler="nuts",
        draws=1000,
        tune=1000,
        chains=4,
        random_seed=2,
        progressbar=False,
    )
    import arviz_stats as azs

    ess = azs.ess(nuts.idata.posterior, var_names=["theta"], method="bulk")["theta"].values
    for i, metric in enumerate(metrics):
        x, n = rate_fraction(data.labeled_examples.confusion_counts(), metric)
        j = 2 if metric == "accuracy" else 1  # its margin under Dirichlet(1 + counts)
        for k in range(2):
            dist = stats.beta(j + x[k], j + n[k] - x[k])
            e = exact.rates(metric).values[..., k].ravel()
            u = nuts.rates(metric).values[..., k].ravel()
            se_mean = dist.std() * np.sqrt(1 / e.size + 1 / ess[i, k])
            # 3.9 standard errors: two-sided level 1e-4 per comparison.
            assert abs(e.mean() - u.mean()) < 3.9 * se_mean, (metric, k)
            for p in (0.025, 0.975):
                se_q = np.hypot(_quantile_se(p, e.size, dist), _quantile_se(p, ess[i, k], dist))
                assert abs(np.quantile(e, p) - np.quantile(u, p)) < 3.9 * se_q, (metric, k, p)


def test_exact_sampler_is_reproducible(data):
    r1 = fit(data, model="bb", draws=50, chains=2, random_seed=5, progressbar=False)
    r2 = fit(data, model="bb", draws=50, chains=2, random_seed=5, progressbar=False)
    r3 = fit(data, model="bb", draws=50, chains=2, random_seed=6, progressbar=False)
    assert np.array_equal(r1.rates("tpr").values, r2.rates("tpr").values)
    assert not np.array_equal(r1.rates("tpr").values, r3.rates("tpr").values)


def test_prior_is_configurable(data):
    res = fit(
        data,
        model="bb",
        prior=BetaPrior(50.0, 50.0),
        draws=2000,
        chains=2,
        random_seed=0,
        progressbar=False,
    )
    # a strong Dirichlet(50) prior (accuracy ~ Beta(100, 100)) pulls the accuracy of
    # group "a" (18/20) toward 0.5
    x, n = rate_fraction(data.labeled_examples.confusion_counts(), "accuracy")
    expected = (100 + x[0]) / (200 + n[0])
    assert abs(res.rates("accuracy").sel(group="a").mean() - expected) < 0.01
