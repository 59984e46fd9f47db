"""The labeled-count models' fits and prior draws (bayesfair.models.labeled), which their
``ModelSpec`` names and ``bayesfair.fit`` calls (fits through ``fit``: tests/posterior)."""

import numpy as np

from bayesfair.metrics import rate_fraction
from bayesfair.models.beta_binomial import BetaPrior, KappaPrior
from bayesfair.models.labeled import (
    bb_prior_rates,
    fit_bb,
    hbb_prior_rates,
    labeled_fractions,
)

COUNTS = np.array([[30, 10, 50, 10], [5, 2, 20, 3]])
METRICS = ["tpr", "fnr", "accuracy"]
RUN = {"draws": 300, "chains": 2}


def test_labeled_fractions_are_the_catalogue_s():
    x, n = labeled_fractions(COUNTS, METRICS)
    for i, m in enumerate(METRICS):
        np.testing.assert_array_equal((x[i], n[i]), rate_fraction(COUNTS, m))


def test_bb_draws_one_population_per_draw():
    tree = fit_bb(COUNTS, METRICS, BetaPrior(), "exact", np.random.default_rng(0), RUN)
    post = tree["posterior"].dataset
    assert post["theta"].dims == ("chain", "draw", "metric", "group")
    assert post["cells"].shape == (2, 300, 2, 4)
    theta = post["theta"].values
    np.testing.assert_allclose(theta[:, :, 0] + theta[:, :, 1], 1.0, atol=1e-12)


def test_bb_in_its_paper_form_draws_each_rate_on_its_own():
    prior = BetaPrior(1, 1, cells=False)
    tree = fit_bb(COUNTS, METRICS, prior, "exact", np.random.default_rng(0), RUN)
    post = tree["posterior"].dataset
    assert "cells" not in post
    theta = post["theta"].values
    assert np.ptp(theta[:, :, 0] + theta[:, :, 1]) > 0.1  # TPR + FNR is not 1


def test_prior_draws():
    rng = np.random.default_rng(1)
    _, trials = labeled_fractions(COUNTS, METRICS)
    coherent = bb_prior_rates(BetaPrior(), trials, 4000, rng, METRICS)
    assert coherent.shape == (4000, 3, 2)
    np.testing.assert_allclose(coherent[:, 0] + coherent[:, 1], 1.0, atol=1e-12)
    # accuracy's margin of Dirichlet(1, 1, 1, 1) is Beta(2, 2): variance 1/20
    # the sample variance's SE as for a normal, σ² √(2/n): larger than a Beta's (their
    # kurtosis is below 3), so 5 of these SEs are more than 5 of the true ones
    se = np.sqrt(2 / 3999) / 20
    assert abs(coherent[:, 2].var() - 1 / 20) < 5 * se
    alone = bb_prior_rates(BetaPrior(1, 1, cells=False), trials, 4000, rng, METRICS)
    assert abs(alone[:, 2].var() - 1 / 12) < 5 * np.sqrt(2 / 3999) / 12
    hbb = hbb_prior_rates(KappaPrior(), trials, 500, rng)
    assert hbb.shape == (500, 3, 2) and np.all((hbb >= 0) & (hbb <= 1))


def test_the_stream_decides_the_draws():
    a = fit_bb(COUNTS, METRICS, BetaPrior(), "exact", np.random.default_rng(5), RUN)
    b = fit_bb(COUNTS, METRICS, BetaPrior(), "exact", np.random.default_rng(5), RUN)
    np.testing.assert_array_equal(a["posterior"]["theta"].values, b["posterior"]["theta"].values)
