"""bayesfair.posterior.fitting: fit's options and records, the options of each model, rbc's
unlabeled counts (bb's exact sampler on a small simulated set, milliseconds a fit), and
the plumbing of fit and its result on real data (small draws) with bad input.

The sampler options are tested in tests/models/test_sampling_config.py.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import bayesfair as bf
from bayesfair.data.assessment import AssessmentData
from bayesfair.exceptions import (
    IgnoredOptionWarning,
    InvalidParameterError,
    SamplingWarning,
    UnlabeledGroupWarning,
)
from bayesfair.models.beta_binomial import BetaPrior
from bayesfair.models.calibration import DiscrepancyPrior
from bayesfair.posterior import FairnessPosterior
from bayesfair.posterior.fitting import (
    CALIBRATION_OPTIONS,
    ESTIMANDS,
    MODELS,
    fit,
    model_options,
)

EXACT = dict(draws=200, chains=2, progressbar=False)


@pytest.fixture(scope="module")
def small():
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
def test_bb_s_exact_fit_is_the_conjugate_posterior_and_records_its_settings(small):
    res = fit(small, "bb", metrics=["recall", "tpr", "accuracy"], random_seed=3, **EXACT)
    assert res.metrics == ["tpr", "accuracy"]  # aliases of one rate count once
    settings = res.settings
    assert settings["model"] == "bb" and settings["sampler"] == "exact"
    assert (settings["draws"], settings["chains"], settings["estimand"]) == (200, 2, "expected")
    assert settings["prior"] == {"kind": "BetaPrior", "alpha": 1.0, "beta": 1.0, "cells": True}
    assert settings["threshold"] == 0.5 and settings["backend"] == "auto"
    x = (small.labeled_examples.confusion_counts()[:, [0, 3]]).sum(axis=1)  # tp + fn
    tp = small.labeled_examples.confusion_counts()[:, 0]
    draws = res.rates("tpr").values.reshape(-1, 2)
    for k in range(2):
        post = stats.beta(1 + tp[k], 1 + x[k] - tp[k])
        assert abs(draws[:, k].mean() - post.mean()) < 5 * post.std() / np.sqrt(400)


def test_the_recorded_seed_repeats_the_fit(small):
    first = fit(small, "bb", metrics=["accuracy"], random_seed=None, **EXACT)
    record = first.settings["random_seed"]
    seed = np.random.SeedSequence(int(record["entropy"]), spawn_key=record["spawn_key"])
    again = fit(small, "bb", metrics=["accuracy"], random_seed=seed, **EXACT)
    np.testing.assert_array_equal(first.rates("accuracy").values, again.rates("accuracy").values)
    other = fit(small, "bb", metrics=["accuracy"], random_seed=1, **EXACT)
    assert not np.array_equal(first.rates("accuracy").values, other.rates("accuracy").values)


def test_a_prior_changes_bb_s_posterior_and_is_recorded(small):
    strong = fit(
        small, "bb", metrics=["accuracy"], prior=BetaPrior(40.0, 40.0), random_seed=0, **EXACT
    )
    assert strong.settings["prior"] == BetaPrior(40.0).to_dict()
    counts = small.labeled_examples.confusion_counts()
    right, n = counts[:, 0] + counts[:, 2], counts.sum(axis=1)
    mean = strong.rates("accuracy").values.reshape(-1, 2).mean(axis=0)
    # Dirichlet(40) over the cells: accuracy, two of them, ~ Beta(80, 80) a priori
    np.testing.assert_allclose(mean, (80 + right) / (160 + n), atol=0.01)


def test_options_a_model_does_not_use_are_warned_about(small):
    with pytest.warns(
        IgnoredOptionWarning,
        match=r"model='bb' ignores 'variant', 'n_bins': they apply to bc / rbc only",
    ):
        fit(small, "bb", metrics=["accuracy"], variant="llo", n_bins=64, **EXACT)
    with pytest.warns(IgnoredOptionWarning, match=r"ignores 'discrepancy': it applies to rbc only"):
        fit(small, "bb", metrics=["accuracy"], discrepancy=DiscrepancyPrior(), **EXACT)


def test_wrong_priors_name_the_class_they_must_be(small):
    with pytest.raises(InvalidParameterError, match=r"must be a BetaPrior\. Got \(2, 3\)"):
        fit(small, "bb", prior=(2, 3), **EXACT)
    with pytest.raises(InvalidParameterError, match=r"must be a KappaPrior\. Got 5"):
        fit(small, "hbb", prior=5, **EXACT)
    with pytest.raises(InvalidParameterError, match="must be a CalibrationPriors. Got BetaPrior"):
        fit(small, "bc", prior=BetaPrior(), **EXACT)
    with pytest.raises(InvalidParameterError, match="must be a KappaPrior"):
        fit(small, "hbb", prior=BetaPrior(), **EXACT)


def test_calibration_options_are_checked_before_sampling(small):
    with pytest.raises(
        InvalidParameterError, match=r"'score_clip' parameter must be in \(0, 0\.5\)"
    ):
        fit(small, "bc", score_clip=0.5, **EXACT)
    with pytest.raises(InvalidParameterError, match=r"Unknown variant 'platt'"):
        fit(small, "rbc", variant="platt", **EXACT)
    with pytest.raises(InvalidParameterError, match="'tune' parameter"):
        fit(small, "bc", tune=-1, **EXACT)


# --------------------------------------------------------------------- on real data
@pytest.fixture(scope="module")
def adult(repo_root):
    d = pd.read_csv(repo_root / "data/scores/adult_race_scores.csv.gz")
    rng = np.random.default_rng(0)
    perm = rng.permutation(len(d))
    return d.iloc[perm[:100]], d.iloc[perm[100:3100]]


def _by_sex(*frames) -> AssessmentData:
    """Adult's MLP scores by sex (Male the reference): the labeled frame, and the
    unlabeled one if given."""
    return AssessmentData.from_frames(
        *frames,
        score="score_MultiLayerPerceptron",
        label="income-per-year",
        group="sex",
        reference="Male",
    )


@pytest.fixture(scope="module")
def data(adult):
    return _by_sex(*adult)


@pytest.fixture(scope="module")
def results(data, fast):
    out = {}
    with warnings.catch_warnings():
        # plumbing draws: not always enough for R-hat <= 1.01
        warnings.simplefilter("ignore", SamplingWarning)
        for model in ("bb", "hbb", "bc"):
            out[model] = fit(data, model=model, random_seed=0, **fast)
    return out


@pytest.mark.parametrize("model", ["bb", "hbb", "bc"])
def test_result_shapes_and_labels(results, model, data, fast):
    res = results[model]
    assert isinstance(res, FairnessPosterior)
    r = res.rates("tpr")
    assert r.dims == ("chain", "draw", "group")
    assert r.shape == (fast["chains"], fast["draws"], 2)
    assert set(r.coords["group"].values) == {"Female", "Male"}
    d = res.difference("accuracy", group="Female", reference="Male")
    assert d.dims == ("chain", "draw")
    np.testing.assert_allclose(
        d.values,
        (
            r.sel(group="Female") * 0
            + res.rates("accuracy").sel(group="Female")
            - res.rates("accuracy").sel(group="Male")
        ).values,
    )
    assert {"posterior", "observed_data", "constant_data", "rates"} <= set(res.idata.children)
    observed = (
        res.idata.observed_data.to_dataset()[["tp", "fp", "tn", "fn"]].to_array("count").T.values
    )
    np.testing.assert_array_equal(observed, data.labeled_examples.confusion_counts())


def test_bc_uses_unlabeled_data(results, data):
    """BC's posterior of Δ accuracy is far narrower than BB's (Ji et al. §3)."""
    bb = results["bb"].difference("accuracy").std().item()
    bc = results["bc"].difference("accuracy").std().item()
    assert bc < 0.5 * bb


def test_summary_and_probabilities(results):
    res = results["bc"]
    table = res.summary(metrics=["accuracy", "tpr", "fpr"], epsilon=0.02)
    assert list(table["metric"]) == ["accuracy", "tpr", "fpr"]
    assert (table["hdi_lower"] <= table["mean"]).all() and (
        table["mean"] <= table["hdi_upper"]
    ).all()
    d = res.difference("accuracy").values
    p = res.prob_practically_fair("accuracy", epsilon=0.02)
    assert p.loc["Female"] == pytest.approx(np.mean(np.abs(d) < 0.02))
    assert res.prob_positive("accuracy") == pytest.approx(np.mean(d > 0))
    assert table.loc[0, "prob_positive"] == pytest.approx(np.mean(d > 0))


def _decision(res, epsilon):
    return res.summary(["accuracy"], epsilon=epsilon)["decision"].iloc[0]


def test_rope_decision_rule(results):
    # HDI + ROPE (Kruschke 2018): practically fair when the 95% HDI of Δ lies inside
    # (−ε, ε), unfair when it lies outside [−ε, ε], else undecided. The decision must
    # change exactly where ε crosses the HDI's bounds.
    from bayesfair.stats import hdi

    res = results["bb"]
    d = res.difference("accuracy").values
    lo, hi = hdi(d, 0.95)
    outer, inner = max(abs(lo), abs(hi)), min(abs(lo), abs(hi))
    assert _decision(res, outer * 1.01) == "practically fair"
    if outer * 0.99 > inner:  # ε between the bounds' distances from 0: the ROPE cuts the HDI
        assert _decision(res, outer * 0.99) == "undecided"
    if not lo < 0 < hi:  # an HDI on one side of 0: a small ε makes the pair unfair
        assert _decision(res, inner * 0.99) == "unfair"
    else:  # an HDI across 0 can never be called unfair
        assert _decision(res, inner * 0.99) == "undecided"


def test_hbb_population_variance(results):
    res = results["hbb"]
    pv = res.population_variance("tpr")
    assert pv.dims == ("chain", "draw")
    assert (pv.values >= 0).all()
    with pytest.raises(ValueError, match="only for a model with a population of group rates"):
        results["bb"].population_variance("tpr")
    assert res.idata.posterior["size_effect"].dims == ("chain", "draw", "metric", "size_term")


@pytest.mark.parametrize("model", ["bb", "hbb", "bc"])
def test_variance_upper_bound_and_probability(results, model):
    res = results[model]
    v = res.between_group_variance("accuracy").values
    ub = res.variance_upper_bound("accuracy")
    assert np.isfinite(ub) and ub >= v.mean()
    assert res.prob_variance_below("accuracy", ub) == pytest.approx(0.95, abs=0.01)
    v_defined = v[~np.isnan(v)]
    assert res.prob_variance_below("accuracy", 1e-4) == np.mean(v_defined < 1e-4)


def test_composites_and_gaps(results):
    res = results["bc"]
    aod = res.composite("average_odds_difference", group="Female", reference="Male")
    expected = 0.5 * (res.difference("fpr") + res.difference("tpr"))
    np.testing.assert_allclose(aod.values, expected.values)
    di = res.composite("disparate_impact")
    np.testing.assert_allclose(di.values, res.ratio("selection_rate").values)
    gap = res.max_min_gap("accuracy")
    np.testing.assert_allclose(gap.values, np.abs(res.difference("accuracy").values))
    var = res.between_group_variance("accuracy")
    np.testing.assert_allclose(var.values, res.difference("accuracy").values ** 2 / 2)


def test_netcdf_round_trip(results, tmp_path):
    for model, res in results.items():
        path = res.to_netcdf(tmp_path / f"{model}.nc")
        back = FairnessPosterior.from_netcdf(path)
        assert back.model == model and back.reference == res.reference
        assert back.groups == res.groups and back.metrics == res.metrics
        assert set(back.idata.children) == set(res.idata.children)
        np.testing.assert_array_equal(back.rates("tpr").values, res.rates("tpr").values)
        pd.testing.assert_frame_equal(back.summary(), res.summary())


def test_a_result_saved_by_the_previous_release_loads_and_reads_the_same(repo_root):
    """``tests/fixtures/result_0.4.0.dev0.nc`` was written by bayesfair 0.4.0.dev0 on
    ArviZ 0.23 (an ``InferenceData``; rbc, 2 × 100 draws, Adult by sex). It opens as a
    tree, and its summary is the one printed by that release on the same file (the
    same draws: only floating-point rounding may differ)."""
    path = repo_root / "tests/fixtures/result_0.4.0.dev0.nc"
    back = FairnessPosterior.from_netcdf(path)
    assert back.model == "rbc" and back.groups == ["Female", "Male"]
    assert {"posterior", "prior", "observed_data", "constant_data", "rates"} <= set(
        back.idata.children
    )
    table = back.summary(metrics=["accuracy", "tpr"]).set_index("metric")
    printed = {  # mean, sd, hdi_lower, hdi_upper, prob_positive, as 0.4.0.dev0 printed
        "accuracy": (0.089891, 0.040973, -0.002520, 0.152849, 0.980),
        "tpr": (-0.048258, 0.117371, -0.265625, 0.189061, 0.325),
    }
    for metric, values in printed.items():
        row = table.loc[metric, ["mean", "sd", "hdi_lower", "hdi_upper", "prob_positive"]]
        np.testing.assert_allclose(row.to_numpy(float), values, atol=5e-7)
    assert back.calibration_summary().shape[0] == 2  # kept data: the newer views work too


def test_diagnostics_surface(results):
    diag = results["bc"].diagnostics()
    assert {"r_hat", "ess_bulk", "divergences"} <= set(diag.columns)
    assert {"a", "b", "c"} <= set(diag.index)


def test_integer_groups(adult, fast):
    labeled, _ = adult
    lab = labeled.assign(g=(labeled["sex"] == "Female").astype(int))
    data = AssessmentData.from_frames(
        lab, score="score_LR", label="income-per-year", group="g", reference=0
    )
    res = fit(data, model="bb", random_seed=0, **fast)
    assert res.groups == [0, 1]
    assert res.difference("accuracy", group=1, reference=0).shape == (fast["chains"], fast["draws"])
    assert res.difference("accuracy", group="1", reference="0").shape == (
        fast["chains"],
        fast["draws"],
    )


# ----------------------------------------------------------------------------- bad input
def test_group_without_labels_warns_and_falls_back(adult, fast):
    labeled, unlabeled = adult
    unl = unlabeled.assign(
        sex=np.where(np.arange(len(unlabeled)) % 10 == 0, "Other", unlabeled["sex"])
    )
    with pytest.warns(UserWarning, match="no labeled example"):
        data = _by_sex(labeled, unl)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnlabeledGroupWarning)  # warned once, when data were built
        bb = fit(data, model="bb", random_seed=0, **fast)
    assert any(
        "['Other'] have no labeled example: their rates are the prior" in note for note in bb.notes
    )
    # BB falls back to the Beta(1, 1) prior: mean 0.5, sd 1/sqrt(12)
    acc = bb.rates("accuracy").sel(group="Other").values.ravel()
    assert abs(acc.mean() - 0.5) < 4 * np.sqrt(1 / 12) / np.sqrt(acc.size)
    assert (
        "the posterior is the prior"
        in bb.summary(["accuracy"]).set_index("group").loc["Other", "note"]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SamplingWarning)
        bc = fit(data, model="bc", random_seed=0, **fast)
    assert any("borrow strength" in note for note in bc.notes)
    # BC gives the group an informed (narrower than the prior) posterior
    assert bc.rates("accuracy").sel(group="Other").std() < 0.5 * np.sqrt(1 / 12)


def test_group_without_positive_labels(adult, fast):
    labeled, unlabeled = adult
    lab = labeled[~((labeled["sex"] == "Female") & (labeled["income-per-year"] == 1))]
    data = _by_sex(lab, unlabeled)
    bb = fit(data, model="bb", random_seed=0, **fast)
    note = bb.summary(["tpr"]).loc[0, "note"]
    assert "'Female' has no labeled tp+fn: the posterior is the prior" in note
    assert bb.summary(["accuracy"]).loc[0, "note"] == ""


def test_bc_without_unlabeled_data(adult, fast):
    labeled, _ = adult
    data = _by_sex(labeled)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SamplingWarning)
        res = fit(data, model="bc", random_seed=0, **fast)
    assert np.isfinite(res.difference("accuracy").values).all()
    assert res.difference("accuracy").std() > 0
    assert any("No unlabeled data" in n for n in res.notes)


def test_single_group(adult, fast):
    labeled, _ = adult
    data = AssessmentData.from_frames(
        labeled.assign(one="all"), score="score_LR", label="income-per-year", group="one"
    )
    res = fit(data, model="bb", random_seed=0, **fast)
    assert res.rates("accuracy").shape == (fast["chains"], fast["draws"], 1)
    with pytest.raises(ValueError, match="needs at least 2 groups; the fit has 1"):
        res.difference("accuracy")
    with pytest.raises(ValueError, match="needs at least 2 groups"):
        res.summary()


def test_unknown_names(results):
    res = results["bb"]
    with pytest.raises(ValueError, match="Unknown metric 'tpr_'. Did you mean 'tpr'"):
        res.rates("tpr_")
    with pytest.raises(ValueError, match="Unknown group 'Femal'.*Did you mean 'Female'"):
        res.difference("accuracy", group="Femal")
    with pytest.raises(ValueError, match="Unknown composite"):
        res.composite("average_odds")


def test_bad_fit_arguments(data, fast):
    with pytest.raises(ValueError, match="Unknown model 'bcc'. Did you mean 'bc'"):
        fit(data, model="bcc")
    with pytest.raises(ValueError, match="'draws' parameter must be an integer >= 1. Got 0"):
        fit(data, model="bb", draws=0)
    with pytest.raises(ValueError, match="'estimand' parameter must be one of"):
        fit(data, model="bc", estimand="both")
    with pytest.raises(ValueError, match="sampler='exact' exists only for model='bb'"):
        fit(data, model="bc", sampler="exact")
    with pytest.raises(TypeError, match="must be an AssessmentData"):
        fit({"scores": [0.1]})
    with pytest.raises(ValueError, match="'epsilon' parameter must be a positive, finite number"):
        fit(data, model="bb", **fast).prob_practically_fair("accuracy", epsilon=-1)


def test_rate_note_accepts_metric_aliases(no_positive_in_b):
    res = fit(
        no_positive_in_b,
        "bb",
        metrics=["tpr"],
        random_seed=0,
        draws=50,
        tune=50,
        chains=1,
        progressbar=False,
    )
    assert res.rate_note("recall", ["B"]) == res.rate_note("tpr", ["B"]) != ""


def test_a_group_with_labeled_rows_only_is_said_and_sampled_under_each_estimand(quiet_fit):
    """Among groups with unlabeled rows, a group with three labeled rows and none
    unlabeled: under "assessed" its rates are its rows' (a note says so); under
    "expected" its labeled scores are its sample, so its selection rate is uncertain."""
    rng = np.random.default_rng(3)
    s = rng.beta(2, 3, 2 * 300 + 3)
    g = np.repeat(["A", "B", "C"], [300, 300, 3])
    y = rng.binomial(1, s)
    lab = np.r_[np.arange(0, 40), np.arange(300, 340), np.arange(600, 603)]
    unl = np.r_[np.arange(40, 300), np.arange(340, 600)]
    data = AssessmentData(s[lab], y[lab], g[lab], s[unl], g[unl], reference="A")
    assessed = quiet_fit(data, metrics=["selection_rate"])
    assert any(n.startswith("'C': no unlabeled rows; the assessed") for n in assessed.notes)
    rates = assessed.rates("selection_rate").sel(group="C").values
    assert np.ptp(rates) == 0  # three known rows
    expected = quiet_fit(data, metrics=["selection_rate"], estimand="expected")
    assert any(n.startswith("'C': no unlabeled rows; the expected") for n in expected.notes)
    assert np.std(expected.rates("selection_rate").sel(group="C").values) > 0.1


def test_the_default_keeps_the_floor_and_the_scaled_one_lowers_it_beyond_ten_groups():
    """The default keeps the floor of few groups whatever K; with ``scale_with_groups``
    a fit of four groups is the default's draw for draw (every check of two and four
    groups stands), and one of eleven records the floor 0.5 · √(10/11) and odd groups."""
    import bayesfair as bf
    from bayesfair.datasets.simulate import differential_calibration, simulated_assessment
    from bayesfair.models.calibration import DiscrepancyPrior
    from bayesfair.models.shift import ShiftPrior

    scaled = DiscrepancyPrior(shift=ShiftPrior(scale_with_groups=True))
    small = {"draws": 100, "tune": 100, "chains": 2, "random_seed": 3, "progressbar": False}
    for k in (4, 11):
        lab, unl = differential_calibration(k, 300, 3000, kind="none", random_seed=k)
        data = simulated_assessment(lab, unl, reference=None)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            default = bf.fit(data, metrics=["accuracy"], **small)
            lowered = bf.fit(data, metrics=["accuracy"], discrepancy=scaled, **small)
        assert default.settings["discrepancy"]["shift"]["floor"] == 0.5
        shift = lowered.settings["discrepancy"]["shift"]
        if k == 4:
            np.testing.assert_array_equal(
                default.idata["posterior"]["shift"].values,
                lowered.idata["posterior"]["shift"].values,
            )
            assert shift["floor"] == 0.5
        else:
            assert shift["floor"] == pytest.approx(0.5 * np.sqrt(10 / 11))
            assert shift["odd"] == 0.05 and shift["odd_floor"] == 0.5
