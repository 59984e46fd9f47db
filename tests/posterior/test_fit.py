"""Plumbing of bf.fit and the result object on real data (small draws), and bad input."""

import warnings

import numpy as np
import pandas as pd
import pytest

from bayesfair.data.assessment import AssessmentData
from bayesfair.posterior.fitting import NoLabelsWarning, fit
from bayesfair.posterior.result import FairnessPosterior, SamplingWarning


@pytest.fixture(scope="module")
def adult(repo_root):
    d = pd.read_csv(repo_root / "data/scores/adult_race_scores.csv.gz")
    rng = np.random.default_rng(0)
    perm = rng.permutation(len(d))
    return d.iloc[perm[:100]], d.iloc[perm[100:3100]]


@pytest.fixture(scope="module")
def data(adult):
    labeled, unlabeled = adult
    return AssessmentData.from_frames(
        labeled,
        unlabeled,
        score="score_MultiLayerPerceptron",
        label="income-per-year",
        group="sex",
        reference="Male",
    )


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
    with pytest.raises(ValueError, match="only for model='hbb'"):
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
        data = AssessmentData.from_frames(
            labeled,
            unl,
            score="score_MultiLayerPerceptron",
            label="income-per-year",
            group="sex",
            reference="Male",
        )
    with warnings.catch_warnings():
        warnings.simplefilter("error", NoLabelsWarning)  # warned once, when the data were built
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
    data = AssessmentData.from_frames(
        lab,
        unlabeled,
        score="score_MultiLayerPerceptron",
        label="income-per-year",
        group="sex",
        reference="Male",
    )
    bb = fit(data, model="bb", random_seed=0, **fast)
    note = bb.summary(["tpr"]).loc[0, "note"]
    assert "'Female' has no labeled tp+fn: the posterior is the prior" in note
    assert bb.summary(["accuracy"]).loc[0, "note"] == ""


def test_bc_without_unlabeled_data(adult, fast):
    labeled, _ = adult
    data = AssessmentData.from_frames(
        labeled,
        score="score_MultiLayerPerceptron",
        label="income-per-year",
        group="sex",
        reference="Male",
    )
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
