"""bayesfair.posterior.fitting: fit's options and records, the options of each model, and rbc's
unlabeled counts.

Fits on real data (shapes, notes, bad input) are tested in tests/posterior/test_fit.py and the
sampler options in tests/models/test_sampling_config.py; here bb's exact sampler keeps each
fit to milliseconds.
"""

import numpy as np
import pytest
from scipy import stats

import bayesfair as bf
from bayesfair.data.summary import summarize_arrays
from bayesfair.exceptions import IgnoredOptionWarning, InvalidParameterError
from bayesfair.models.beta_binomial import BetaPrior
from bayesfair.models.calibration import DiscrepancyPrior
from bayesfair.posterior.fitting import (
    CALIBRATION_OPTIONS,
    ESTIMANDS,
    MODELS,
    fit,
    model_options,
    robust_unlabeled_counts,
)

EXACT = dict(draws=200, chains=2, progressbar=False)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    s = rng.uniform(0, 1, 120)
    y = (rng.uniform(0, 1, 120) < s).astype(int)
    g = np.where(np.arange(120) % 3 == 0, "B", "A")
    return bf.AssessmentData(s, y, g, rng.uniform(0, 1, 300), np.repeat(["A", "B"], 150))


def test_the_models_and_options():
    assert list(MODELS) == ["bb", "hbb", "bc", "rbc"]
    assert set(ESTIMANDS) == {"assessed", "expected"}
    assert CALIBRATION_OPTIONS == ("estimand", "discrepancy", "variant", "score_clip", "n_bins")


def test_model_options_gives_the_calibration_options_to_the_calibration_models_only():
    given = {"draws": 100, "variant": "llo", "n_bins": 64, "estimand": "expected"}
    assert model_options("bb", given) == {"draws": 100}
    assert model_options("hbb", given) == {"draws": 100}
    assert model_options("rbc", given) == given and model_options("rbc", given) is not given
    assert model_options("bc", None) == {}
    assert given == {"draws": 100, "variant": "llo", "n_bins": 64, "estimand": "expected"}


# ------------------------------------------------------------------ fit's records
def test_bb_s_exact_fit_is_the_conjugate_posterior_and_records_its_settings(data):
    res = fit(data, "bb", metrics=["recall", "tpr", "accuracy"], random_seed=3, **EXACT)
    assert res.metrics == ["tpr", "accuracy"]  # aliases of one rate count once
    settings = res.settings
    assert settings["model"] == "bb" and settings["sampler"] == "exact"
    assert (settings["draws"], settings["chains"], settings["estimand"]) == (200, 2, "expected")
    assert settings["prior"] == {"kind": "BetaPrior", "alpha": 1.0, "beta": 1.0, "cells": True}
    assert settings["threshold"] == 0.5 and settings["backend"] == "auto"
    x = (data.labeled_examples.confusion_counts()[:, [0, 3]]).sum(axis=1)  # tp + fn
    tp = data.labeled_examples.confusion_counts()[:, 0]
    draws = res.rates("tpr").values.reshape(-1, 2)
    for k in range(2):
        post = stats.beta(1 + tp[k], 1 + x[k] - tp[k])
        assert abs(draws[:, k].mean() - post.mean()) < 5 * post.std() / np.sqrt(400)


def test_the_recorded_seed_repeats_the_fit(data):
    first = fit(data, "bb", metrics=["accuracy"], random_seed=None, **EXACT)
    record = first.settings["random_seed"]
    seed = np.random.SeedSequence(int(record["entropy"]), spawn_key=record["spawn_key"])
    again = fit(data, "bb", metrics=["accuracy"], random_seed=seed, **EXACT)
    np.testing.assert_array_equal(first.rates("accuracy").values, again.rates("accuracy").values)
    other = fit(data, "bb", metrics=["accuracy"], random_seed=1, **EXACT)
    assert not np.array_equal(first.rates("accuracy").values, other.rates("accuracy").values)


def test_a_prior_changes_bb_s_posterior_and_is_recorded(data):
    strong = fit(
        data, "bb", metrics=["accuracy"], prior=BetaPrior(40.0, 40.0), random_seed=0, **EXACT
    )
    assert strong.settings["prior"] == BetaPrior(40.0).to_dict()
    counts = data.labeled_examples.confusion_counts()
    right, n = counts[:, 0] + counts[:, 2], counts.sum(axis=1)
    mean = strong.rates("accuracy").values.reshape(-1, 2).mean(axis=0)
    # Dirichlet(40) over the cells: accuracy, two of them, ~ Beta(80, 80) a priori
    np.testing.assert_allclose(mean, (80 + right) / (160 + n), atol=0.01)


def test_options_a_model_does_not_use_are_warned_about(data):
    with pytest.warns(
        IgnoredOptionWarning,
        match=r"model='bb' ignores 'variant', 'n_bins': they apply to bc / rbc only",
    ):
        fit(data, "bb", metrics=["accuracy"], variant="llo", n_bins=64, **EXACT)
    with pytest.warns(IgnoredOptionWarning, match=r"ignores 'discrepancy': it applies to rbc only"):
        fit(data, "bb", metrics=["accuracy"], discrepancy=DiscrepancyPrior(), **EXACT)


def test_old_and_wrong_priors_say_what_to_write(data):
    with pytest.raises(
        InvalidParameterError,
        match=r"write prior=bayesfair\.models\.beta_binomial\.BetaPrior\(2, 3\)",
    ):
        fit(data, "bb", prior=(2, 3), **EXACT)
    with pytest.raises(InvalidParameterError, match=r"KappaPrior\(5\)\. Got 5"):
        fit(data, "hbb", prior=5, **EXACT)
    with pytest.raises(InvalidParameterError, match="must be a CalibrationPriors. Got BetaPrior"):
        fit(data, "bc", prior=BetaPrior(), **EXACT)
    with pytest.raises(InvalidParameterError, match="must be a KappaPrior"):
        fit(data, "hbb", prior=BetaPrior(), **EXACT)


def test_calibration_options_are_checked_before_sampling(data):
    with pytest.raises(
        InvalidParameterError, match=r"'score_clip' parameter must be in \(0, 0\.5\)"
    ):
        fit(data, "bc", score_clip=0.5, **EXACT)
    with pytest.raises(InvalidParameterError, match=r"Unknown variant 'platt'"):
        fit(data, "rbc", variant="platt", **EXACT)
    with pytest.raises(InvalidParameterError, match="'tune' parameter"):
        fit(data, "bc", tune=-1, **EXACT)


# ------------------------------------------------------------------ rbc's unlabeled counts
def _robust_inputs():
    """Group 1's labels contradict a confident identity map on both sides; group 0's agree."""
    s = np.r_[np.full(30, 0.05), np.full(30, 0.95), np.full(30, 0.05), np.full(30, 0.95)]
    y = np.r_[np.zeros(30), np.ones(30), np.ones(30), np.zeros(30)]
    g = np.repeat([0, 1], 60)
    labeled = summarize_arrays(s, g, range(2), labels=y)
    rng = np.random.default_rng(1)
    u = rng.uniform(0.01, 0.99, 400)
    summary = summarize_arrays(u, np.repeat([0, 1], 200), range(2))
    return labeled, summary


@pytest.mark.parametrize("estimand", ["expected", "assessed"])
def test_robust_counts_replace_the_map_s_positives_in_free_strata(estimand):
    labeled, summary = _robust_inputs()
    n = 2_000
    ones, zeros = np.ones((n, 2)), np.zeros((n, 2))
    if estimand == "expected":  # the map's unlabeled counts, as fit computes them
        u_counts = bf.models.expected_counts(summary, ones, ones, zeros)
    else:
        u_counts = bf.models.sampled_counts(summary, ones, ones, zeros, np.random.default_rng(3))
    center = np.full((2, 2), 0.5)
    rng = np.random.default_rng(2)
    out, free, p_free, p_shared = robust_unlabeled_counts(
        labeled,
        summary,
        u_counts,
        (ones, ones, zeros),
        DiscrepancyPrior(),
        estimand,
        rng,
        center=center,
    )
    assert out.shape == (n, 2, 4) and free.shape == p_free.shape == (n, 2, 2)
    assert p_shared.shape == (n, 2)
    totals = summary.totals()
    # every draw keeps each group's unlabeled examples, on their sides
    np.testing.assert_allclose(out.sum(axis=-1), np.broadcast_to(totals.sum(axis=1), (n, 2)))
    np.testing.assert_allclose(out[..., 0] + out[..., 1], np.broadcast_to(totals[:, 1], (n, 2)))
    # a stratum that follows the map keeps the map's positives (fn on ŷ = 0, tp on ŷ = 1)
    keep = ~free[..., 0, 1]
    np.testing.assert_array_equal(out[keep, 0, 0], u_counts[keep, 0, 0])
    assert p_free[:, 1].min() > 0.99  # group 1 is off the map
    # there the positives follow its labeled rate: on ŷ = 1, 0 of 30 labels positive, so
    # Beta(1 + 2 m, 1 + 2 (1 − m) + 30) at m = 1/2: mean 2 / 34 of the side's examples
    tp_share = out[:, 1, 0] / totals[1, 1]
    assert tp_share.mean() == pytest.approx(2 / 34, abs=0.01)
    if estimand == "assessed":
        assert np.all(out == np.round(out))
    assert np.isfinite(out).all()


def test_robust_counts_carry_the_labeled_discrepancy_to_a_stratum_without_labels():
    """label_free="carried": where a stratum without labels is drawn off the map, its
    positives are the map's rate plus the labeled side's discrepancy, not a draw from
    the rate's prior. Group 0 has labels whose ŷ = 1 side is 0.2 below the identity
    map; group 1 has none. With the shared misfit nearly sure (prior 0.99), group 1's
    ŷ = 1 positives sit about 0.2 below its map's under "carried", and spread over the
    prior's range under "prior"."""
    rng = np.random.default_rng(4)
    s = rng.uniform(0.55, 0.95, 2_000)
    y = (rng.random(s.size) < s - 0.2).astype(int)
    labeled = summarize_arrays(s, np.zeros(s.size, int), range(2), labels=y)
    u = rng.uniform(0.55, 0.95, 1_000)
    summary = summarize_arrays(u, np.repeat([0, 1], 500), range(2))
    n = 1_000
    ones, zeros = np.ones((n, 2)), np.zeros((n, 2))
    u_counts = bf.models.expected_counts(summary, ones, ones, zeros)
    map_share = u_counts[:, 1, 0] / summary.totals()[1, 1]
    shares = {}
    for label_free in ("prior", "carried"):
        disc = DiscrepancyPrior(shared_prior_misfit=0.99, label_free=label_free)
        out, free, _, _ = robust_unlabeled_counts(
            labeled,
            summary,
            u_counts,
            (ones, ones, zeros),
            disc,
            "expected",
            np.random.default_rng(5),
            center=np.full((2, 2), 0.75),
        )
        off = free[:, 1, 1]
        assert off.mean() > 0.9
        shares[label_free] = (out[off, 1, 0] / summary.totals()[1, 1]) - map_share[off]
    # the discrepancy is estimated from 2,000 labels: its sd is about 0.01
    assert shares["carried"].mean() == pytest.approx(-0.2, abs=0.03)
    assert shares["carried"].std() < 0.02
    assert shares["prior"].std() > 0.1  # Beta(1 + 2m, 1 + 2(1 − m)): sd about 0.2
