"""The public calls that outside checks make, exactly as written in the design's contract."""

import warnings

import numpy as np
import pandas as pd
import pytest

import bayesfair as bf


def test_the_public_calls_work_as_written():
    rng = np.random.default_rng(0)
    n = 120
    s = rng.uniform(0, 1, n)
    labeled_df = pd.DataFrame(
        {"score": s, "y": (rng.uniform(size=n) < s).astype(int), "race": rng.choice(["A", "B"], n)}
    )
    unlabeled_df = pd.DataFrame(
        {"score": rng.uniform(0, 1, 600), "race": rng.choice(["A", "B"], 600)}
    )
    data = bf.AssessmentData.from_frames(
        labeled_df, unlabeled_df, score="score", label="y", group="race", threshold=0.5
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit(data, model="bc", draws=200, chains=2, random_seed=0, progressbar=False)
        default = bf.fit(data, draws=200, chains=2, random_seed=0, progressbar=False)
    assert default.model == "rbc"
    assert {"posterior", "sample_stats", "observed_data"} <= set(res.idata.children)
    assert res.rates("tpr").dims == ("chain", "draw", "group")
    assert res.difference("accuracy", group="B", reference="A").dims == ("chain", "draw")
    assert len(res.prob_practically_fair("accuracy", epsilon=0.02)) == 1
    assert res.between_group_variance("tpr").dims == ("chain", "draw")
    assert len(res.summary(metrics=["accuracy", "tpr", "fpr"], epsilon=0.02)) == 3
    check = default.calibration_check(warn=False)
    assert list(check.columns) == [
        "group",
        "n_labeled",
        "statistic",
        "p_value",
        "p_adjusted",
        "verdict",
        "where",
    ]

    # the design's calls, with their spellings n_boot and confidence: they work and warn
    # with the package's spelling, giving what the package's names give
    with pytest.warns(FutureWarning, match="'n_boot' is the earlier spelling of 'n_resamples'"):
        fq = bf.frequentist.double_corrected_bootstrap(
            data, metric="tpr", n_boot=200, random_seed=0
        )
    lo, hi = fq.uncorrected.interval
    assert lo <= hi and isinstance(fq.corrected.estimate, float)
    again = bf.frequentist.double_corrected_bootstrap(
        data, metric="tpr", n_resamples=200, random_seed=0
    )
    assert again.uncorrected.interval == fq.uncorrected.interval
    with pytest.warns(FutureWarning, match="'n_boot'"):
        fq2 = bf.frequentist.double_corrected_bootstrap_counts(
            [3, 5, 9], [10, 12, 20], n_boot=200, random_seed=0
        )
    dc = fq2.double_corrected
    np.testing.assert_allclose(dc.interval, np.quantile(dc.draws, [0.025, 0.975]), rtol=1e-12)
    with pytest.warns(FutureWarning, match="'confidence' is the earlier spelling of 'ci_prob'"):
        t = bf.frequentist.bernstein_half_width(
            3160, confidence=0.95, cost_range=1.0, min_group_fraction=0.5, variance=4.0
        )
    assert round(t, 4) == 0.0974
    assert (
        bf.frequentist.bernstein_required_n(
            0.05, ci_prob=0.95, cost_range=1.0, min_group_fraction=0.5, variance=4.0
        )
        == 11903
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = bf.compare(
            data,
            metrics=["accuracy"],
            epsilon=0.02,
            random_seed=0,
            fit_kwargs=dict(draws=100, tune=100, chains=1),
        )
    assert len(table.pairs) == 1


def test_the_second_stage_calls_work_as_written(tmp_path):
    rng = np.random.default_rng(1)
    n, big_n = 150, 5000
    s = rng.uniform(0, 1, n)
    y = (rng.uniform(size=n) < s).astype(int)
    g = rng.choice(["A", "B"], n)
    log = pd.DataFrame({"score": rng.uniform(0, 1, big_n), "group": rng.choice(["A", "B"], big_n)})
    log.to_parquet(tmp_path / "log.parquet")

    summary = bf.summarize_unlabeled(
        str(tmp_path / "*.parquet"), score="score", group="group", threshold=0.5, engine="auto"
    )
    assert summary.n_total == big_n
    data = bf.AssessmentData(scores=s, labels=y, groups=g, unlabeled=summary)
    labeled_df = pd.DataFrame({"score": s, "y": y, "group": g})
    same = bf.AssessmentData.from_frames(
        labeled_df, str(tmp_path / "log.parquet"), score="score", label="y", group="group"
    )
    assert same.n_unlabeled == data.n_unlabeled == big_n

    one = bf.frequentist.ppi_difference(
        data, metric="accuracy", group=None, reference=None, ci_prob=0.95, random_seed=0
    )
    assert one.interval[0] <= one.estimate <= one.interval[1]
    c_lo, c_hi = one.classical_interval
    # effective n = n_L × classical variance / PPI++ variance: the widths' squared ratio
    ratio = (c_hi - c_lo) / (one.interval[1] - one.interval[0])
    assert ratio**2 == pytest.approx(one.effective_n / one.n_labeled, rel=1e-9)
    var = bf.frequentist.ppi_between_group_variance(data, "tpr", random_seed=0)
    assert var.interval[0] <= var.interval[1]


def test_the_fourth_stage_group_calls_work_as_written():
    """The many-group contract: group_summary, family_summary, impact_ratios (from a fit
    and from counts) and frequentist.group_intervals, with the columns the design names."""
    rng = np.random.default_rng(1)
    n = 400
    s = rng.uniform(0, 1, n)
    race, sex = rng.choice(["A", "B", "C"], n), rng.choice(["F", "M"], n)
    labeled = pd.DataFrame(
        {"score": s, "y": (rng.uniform(size=n) < s).astype(int), "race": race, "sex": sex}
    )
    m = 3000
    unlabeled = pd.DataFrame(
        {
            "score": rng.uniform(0, 1, m),
            "race": rng.choice(["A", "B", "C"], m),
            "sex": rng.choice(["F", "M"], m),
        }
    )
    data = bf.AssessmentData.from_frames(
        labeled, unlabeled, score="score", label="y", group=["race", "sex"]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit(data, draws=200, chains=2, random_seed=0, progressbar=False)
    gs = res.group_summary(metrics=None, epsilon=0.02, ci_prob=0.95)
    assert {
        "metric",
        "group",
        "n_labeled",
        "n_unlabeled",
        "rate",
        "rate_lower",
        "rate_upper",
        "gap",
        "gap_lower",
        "gap_upper",
        "prob_worst",
        "decision",
    } <= set(gs.columns)
    assert len(gs) == 6 * len(res.metrics)
    fs = res.family_summary(metrics=None, epsilon=0.02, ci_prob=0.95)
    assert {
        "metric",
        "max_gap",
        "max_gap_lower",
        "max_gap_upper",
        "prob_all_within",
        "worst_group",
        "min_ratio",
        "min_ratio_lower",
        "min_ratio_upper",
        "decision",
    } <= set(fs.columns)
    assert len(fs) == len(res.metrics)
    ir = res.impact_ratios(metric="selection_rate", exclude_below=None, ci_prob=0.95)
    assert {
        "group",
        "n",
        "rate",
        "ratio",
        "ratio_lower",
        "ratio_upper",
        "prob_below_four_fifths",
        "prob_most_selected",
    } <= set(ir.columns)
    counts = pd.DataFrame({"group": ["x", "y"], "n": [50, 40], "selected": [20, 10]})
    assert len(bf.impact_ratios(counts, random_seed=0)) == 2
    gi = bf.frequentist.group_intervals(
        data, "tpr", ci_prob=0.95, n_resamples=200, random_seed=None
    )
    assert {"group", "gap", "gap_lower", "gap_upper"} <= set(gi.columns) and len(gi) == 6


def test_the_calibration_view_calls_work_as_written():
    """Calibration within groups: res.calibration_summary and the frequentist side, with the
    columns the contract names, in its order."""
    data = bf.datasets.load_assessment("adult-sex", "MLP", n_labeled=100, random_seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit(data, model="bb", draws=200, chains=2, random_seed=0, progressbar=False)
    view = res.calibration_summary(ci_prob=0.95, epsilon=0.02)
    assert list(view.columns[:10]) == [
        "group",
        "n_labeled",
        "mean_score",
        "positive_rate",
        "positive_rate_lower",
        "positive_rate_upper",
        "calibration_gap",
        "calibration_gap_lower",
        "calibration_gap_upper",
        "decision",
    ]
    assert len(view) == 2 and view.attrs["ci_prob"] == 0.95
    ci = bf.frequentist.calibration_intervals(data, ci_prob=0.95, n_resamples=200, random_seed=None)
    assert list(ci.columns) == list(view.columns[:9]) and len(ci) == 2
    curve = bf.frequentist.reliability_curve(
        data, n_bins=10, ci_prob=0.95, n_resamples=100, random_seed=None
    )
    assert list(curve.columns[:9]) == [
        "group",
        "bin",
        "score_lower",
        "score_upper",
        "n",
        "mean_score",
        "positive_rate",
        "positive_rate_lower",
        "positive_rate_upper",
    ]


def test_the_score_calls_work_as_written():
    """The score beyond one threshold, as the sixth stage's contract writes it: "auc" a
    metric name, xAUC both ways, the sweep's long table, DeLong on the labeled rows; and
    the same draws from the same rows held as summaries (the engines' form)."""
    data = bf.datasets.load_assessment("adult-sex", "MLP", n_labeled=300, random_seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit(data, draws=200, tune=200, chains=2, random_seed=0, progressbar=False)
    d = res.difference("auc", group="Female", reference="Male")
    assert d.dims == ("chain", "draw")
    row = res.summary(metrics=["auc"]).iloc[0]
    assert row["metric"] == "auc" and row["hdi_lower"] <= row["hdi_upper"]
    x = res.xauc(group="Female", reference="Male", ci_prob=0.95)
    assert {"direction", "mean", "lower", "upper"} <= set(x.columns) and len(x) == 2
    t = res.threshold_summary(metric="tpr", thresholds=[0.3, 0.5, 0.7], ci_prob=0.95)
    assert list(t.columns[:9]) == [
        "threshold",
        "group",
        "reference",
        "rate",
        "rate_lower",
        "rate_upper",
        "reference_rate",
        "gap",
        "gap_lower",
    ]
    assert "gap_upper" in t.columns and len(t) == 3
    a = bf.frequentist.auc_difference(data, group="Female", reference="Male")
    assert np.isfinite(a.estimate) and a.interval[0] <= a.estimate <= a.interval[1]
    labeled = bf.summarize(
        pd.DataFrame({"s": data.scores, "y": data.labels, "g": data.groups}),
        score="s",
        label="y",
        group="g",
    )
    unlabeled = bf.summarize_unlabeled(
        pd.DataFrame({"s": data.unlabeled_scores, "g": data.unlabeled_groups}), score="s", group="g"
    )
    summarised = bf.AssessmentData.from_summaries(labeled, unlabeled, reference="Male")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        again = bf.fit(summarised, draws=200, tune=200, chains=2, random_seed=0, progressbar=False)
    np.testing.assert_allclose(again.rates("auc").values, res.rates("auc").values, rtol=1e-12)
