"""Label budgets and active labeling: suggest_labels, plan_labels, the CLI commands."""

import warnings

import numpy as np
import pandas as pd
import pytest

import bayesfair as bf
from bayesfair.exceptions import CalibrationWarning, InvalidParameterError, RandomBatchWarning


@pytest.fixture(scope="module")
def res(data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 300 draws: plumbing, R-hat warnings expected
        return bf.fit(
            data,
            draws=300,
            tune=300,
            chains=2,
            random_seed=1,
            progressbar=False,
            metrics=["accuracy", "tpr", "ppv"],
        )


# ------------------------------------------------------------------ suggest_labels
def test_suggest_contract(res, data, frames):
    out = bf.suggest_labels(res, n=25, metric="tpr", random_seed=0)
    assert list(out.columns) == ["position", "case", "group", "score", "gain"]
    assert len(out) == 25 and out["position"].is_unique
    pos = out["position"].to_numpy()
    assert pos.min() >= 0 and pos.max() < data.n_unlabeled
    _, unl = frames
    # the position is the row of the unlabeled data; the id, group and score are that row's
    np.testing.assert_array_equal(out["case"], unl["case"].to_numpy()[pos])
    np.testing.assert_array_equal(out["group"], unl["group"].to_numpy()[pos])
    np.testing.assert_array_equal(out["score"], unl["score"].to_numpy()[pos])
    # greedy with diminishing returns: gains never increase along the batch
    assert np.all(np.diff(out["gain"].to_numpy()) <= 1e-15)
    assert (out["gain"] > 0).all()


def test_suggest_reproducible_and_within(res):
    with warnings.catch_warnings():
        # whether the batch beats a random one is the 600-draw posterior's call; either
        # way a batch of n distinct rows comes back (tests/labels/test_against_random.py)
        warnings.simplefilter("ignore", RandomBatchWarning)
        a = bf.suggest_labels(res, n=10, metric="accuracy", random_seed=3)
        b = bf.suggest_labels(res, n=10, metric="accuracy", random_seed=3)
        pd.testing.assert_frame_equal(a, b)
        for within in ("score", "mixed"):
            picked = bf.suggest_labels(res, n=11, metric="accuracy", within=within, random_seed=3)
            assert len(picked) == 11 and picked["position"].is_unique
    with pytest.raises(InvalidParameterError, match="within"):
        bf.suggest_labels(res, n=5, within="bin")


def test_stratum_selection_is_random_within_strata(res, data, monkeypatch):
    """Within a stratum the suggested rows are a uniform draw: over many seeds every row of
    the chosen stratum is about equally often suggested (chi-square, 0.1% level). (The
    batch is kept whatever its check against a random batch says, which one label in the
    best stratum need not pass: tests/labels/test_against_random.py.)"""
    from scipy.stats import chisquare

    import bayesfair.labels.acquisition as acquisition

    monkeypatch.setattr(acquisition, "SURE", 0.0)

    seen = []
    for seed in range(300):
        out = bf.suggest_labels(res, n=1, metric="accuracy", random_seed=seed)
        seen.append(int(out["position"].iloc[0]))
    code = data.unlabeled_group_codes[seen[0]]
    side = data.unlabeled_scores[seen[0]] >= data.threshold
    members = np.flatnonzero(
        (data.unlabeled_group_codes == code) & ((data.unlabeled_scores >= data.threshold) == side)
    )
    assert set(seen) <= set(members.tolist())  # one stratum: the best one, every time
    # bins of 10 members: 300 draws over len(members) rows, uniform under H0
    bins = np.searchsorted(np.sort(members), seen) * 10 // len(members)
    counts = np.bincount(bins, minlength=10)
    assert chisquare(counts).pvalue > 1e-3


def test_acquisition_reads_the_fits_discrepancy_prior(res):
    """suggest_labels' stratum terms use the κ the fit used: its DiscrepancyPrior read back
    from the settings (the default and a custom one)."""
    from bayesfair.labels.acquisition import fitted_discrepancy, result_posterior
    from bayesfair.models.calibration import DiscrepancyPrior

    assert fitted_discrepancy(res.settings) == DiscrepancyPrior()
    custom = DiscrepancyPrior(0.02, 0.05, 3.0, center=0.4)
    assert fitted_discrepancy({"discrepancy": custom.to_dict()}) == custom
    assert fitted_discrepancy({}) == DiscrepancyPrior()
    # numpy numbers are stored as plain floats, so their record reads back
    numpy_kappa = DiscrepancyPrior(concentration=np.float64(5.0))
    assert fitted_discrepancy({"discrepancy": numpy_kappa.to_dict()}) == numpy_kappa
    for bad in (
        repr(custom),
        {"kind": "DiscrepancyPrior", "gone": 1.0},
        custom.to_dict() | {"tie": None},
    ):
        with pytest.raises(ValueError, match="Not a DiscrepancyPrior"):
            fitted_discrepancy({"discrepancy": bad})
    post = result_posterior(res, res.data, "accuracy")
    assert post.concentration == DiscrepancyPrior().concentration


def test_suggest_bad_input(res, data):
    with pytest.raises(InvalidParameterError, match="larger than the unlabeled pool"):
        bf.suggest_labels(res, n=data.n_unlabeled + 1)
    with pytest.raises(TypeError, match="objective"):  # removed in 0.3
        bf.suggest_labels(res, n=5, objective="information")
    with pytest.raises(ValueError, match="Unknown metric"):
        bf.suggest_labels(res, n=5, metric="tpx")
    with pytest.raises(InvalidParameterError, match="no draws of 'fpr'"):
        bf.suggest_labels(res, n=5, metric="fpr")
    bb = bf.fit(data, model="bb", random_seed=0, metrics=["accuracy"])
    with pytest.raises(InvalidParameterError, match="calibration model"):
        bf.suggest_labels(bb, n=5)
    res_file = bf.FairnessPosterior(
        res.idata, model=res.model, reference=res.reference, settings=res.settings
    )
    with pytest.raises(InvalidParameterError, match="pass data="):
        bf.suggest_labels(res_file, n=5)
    assert len(bf.suggest_labels(res_file, n=5, data=data)) == 5


def test_suggest_summary_backed_data_is_refused(res, data):
    summary = bf.summarize_unlabeled(
        (data.unlabeled_scores, data.unlabeled_groups), engine="numpy", score="score", group="group"
    )
    held = bf.AssessmentData(data.scores, data.labels, data.groups, unlabeled=summary)
    with pytest.raises(InvalidParameterError, match="as rows"):
        bf.suggest_labels(res, n=5, data=held)


def test_undefined_metric_is_an_error():
    # group "b" has no predicted positive anywhere: its PPV cannot be defined by labels
    rng = np.random.default_rng(0)
    s_a, s_b = rng.uniform(0, 1, 300), rng.uniform(0, 0.45, 300)
    scores = np.r_[s_a[:40], s_b[:40]]
    labels = (rng.uniform(size=80) < scores).astype(int)
    groups = ["a"] * 40 + ["b"] * 40
    data = bf.AssessmentData(
        scores, labels, groups, np.r_[s_a[40:], s_b[40:]], ["a"] * 260 + ["b"] * 260
    )
    with pytest.raises(InvalidParameterError, match="undefined for group"):
        bf.plan_labels(data, metric="ppv", budgets=[100], n_sims=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit(
            data, draws=100, tune=100, chains=1, random_seed=0, progressbar=False, metrics=["ppv"]
        )
    with pytest.raises(InvalidParameterError, match="undefined for group"):
        bf.suggest_labels(res, n=5, metric="ppv")


def test_ids_are_checked(frames):
    lab, unl = frames
    dup = unl.copy()
    dup.loc[dup.index[1], "case"] = dup["case"].iloc[0]
    with pytest.raises(ValueError, match="unique"):
        bf.AssessmentData.from_frames(
            lab, dup, score="score", label="label", group="group", id="case"
        )
    with pytest.raises(ValueError, match="Column 'cas'"):
        bf.AssessmentData.from_frames(
            lab, unl, score="score", label="label", group="group", id="cas"
        )


def test_compare_after_active_selection_blanks_what_is_not_valid(data, res):
    comp = bf.compare(
        data,
        ["accuracy"],
        models=("bb", "rbc"),
        posteriors={"rbc": res},
        n_resamples=100,
        random_seed=0,
        selection="stratum",
        fit_kwargs={"draws": 200, "tune": 100, "chains": 1},
        progressbar=False,
    )
    row = comp.pairs.iloc[0]
    for col in (
        "freq_estimate",
        "newcombe_lower",
        "bootstrap_upper",
        "bernstein_lower",
        "bb_lower",
        "bb_mean",
    ):
        assert np.isnan(row[col]), col
    assert np.isfinite(row["rbc_lower"]) and np.isfinite(row["ppi_lower"])
    assert "chosen actively" in row["note"] and comp.settings["selection"] == "stratum"
    assert np.isnan(comp.variance.loc["accuracy", "double_corrected"])
    by_score = bf.compare(
        data,
        ["accuracy"],
        models=("rbc",),
        posteriors={"rbc": res},
        n_resamples=100,
        random_seed=0,
        selection="score",
    )
    assert np.isnan(by_score.pairs.iloc[0]["ppi_lower"])
    mixed = bf.compare(
        data,
        ["accuracy"],
        models=("rbc",),
        posteriors={"rbc": res},
        n_resamples=100,
        random_seed=0,
        selection="mixed",
    )
    assert np.isnan(mixed.pairs.iloc[0]["ppi_lower"])
    assert np.isfinite(mixed.pairs.iloc[0]["rbc_lower"])
    with pytest.raises(InvalidParameterError, match="selection"):
        bf.compare(data, ["accuracy"], models=(), selection="active")


# ------------------------------------------------------------------ command line
def test_cli_suggest_and_plan(frames, tmp_path):
    from click.testing import CliRunner

    from bayesfair.cli import main

    lab, unl = frames
    lab.to_csv(tmp_path / "lab.csv", index=False)
    unl.rename(columns={"case": "id"}).to_csv(tmp_path / "unl.csv", index=False)
    unl.drop(columns="case").to_csv(tmp_path / "noid.csv", index=False)
    runner = CliRunner()
    out = tmp_path / "to_label.csv"
    r = runner.invoke(
        main,
        [
            "suggest",
            str(tmp_path / "lab.csv"),
            "--unlabeled",
            str(tmp_path / "unl.csv"),
            "--n",
            "7",
            "--out",
            str(out),
            "--draws",
            "100",
            "--chains",
            "1",
            "--quiet",
        ],
    )
    assert r.exit_code == 0, r.output
    table = pd.read_csv(out)
    assert list(table.columns) == ["position", "id", "group", "score", "gain"] and len(table) == 7
    mixed = tmp_path / "mixed.csv"
    r = runner.invoke(
        main,
        [
            "suggest",
            str(tmp_path / "lab.csv"),
            "--unlabeled",
            str(tmp_path / "unl.csv"),
            "--n",
            "7",
            "--out",
            str(mixed),
            "--within",
            "mixed",
            "--draws",
            "100",
            "--chains",
            "1",
            "--quiet",
        ],
    )
    assert r.exit_code == 0, r.output
    assert pd.read_csv(mixed)["id"].is_unique and len(pd.read_csv(mixed)) == 7
    # bad input: nothing written
    for args, message in (
        (["--unlabeled", str(tmp_path / "noid.csv")], "no id column"),
        (["--unlabeled", str(tmp_path / "unl.csv"), "--n", "999999"], "more than the"),
    ):
        bad = tmp_path / "bad.csv"
        r = runner.invoke(main, ["suggest", str(tmp_path / "lab.csv"), *args, "--out", str(bad)])
        assert r.exit_code == 2 and message in r.output and not bad.exists()
    fig = tmp_path / "plan.png"
    r = runner.invoke(
        main,
        [
            "plan",
            str(tmp_path / "unl.csv"),
            "--labeled",
            str(tmp_path / "lab.csv"),
            "--metric",
            "tpr",
            "--epsilon",
            "0.05",
            "--budgets",
            "60,100",
            "--n-sims",
            "2",
            "--methods",
            "bayes,newcombe",
            "--plot",
            str(fig),
            "--quiet",
        ],
    )
    assert r.exit_code == 0, r.output
    assert fig.stat().st_size > 0 and "p_decision" in r.output
    assert "valid = no" in r.output  # Newcombe after active selection
    r = runner.invoke(
        main,
        [
            "plan",
            str(tmp_path / "unl.csv"),
            "--labeled",
            str(tmp_path / "lab.csv"),
            "--budgets",
            "10",
            "--plot",
            str(tmp_path / "no.png"),
        ],
    )
    assert r.exit_code == 2 and "smaller than the 60" in r.output
    assert not (tmp_path / "no.png").exists()


# ------------------------------------------------------------------ coverage (slow)
@pytest.mark.slow
@pytest.mark.parametrize("within", ["stratum", "mixed"])
def test_default_model_covers_after_active_selection(within):
    """Coverage of the default model's 95% interval of Δ accuracy after stratum-level
    (the default) or mixed active selection, on data where the calibration model is right
    (where it is wrong: ``benchmarks/active_coverage.py``, in the label-budgets guide).

    60 synthetic data sets (two calibrated groups of 1,020 examples: 20 random labels
    each, then 60 labels chosen by ``suggest_labels``); truth = the realised gap on
    all 2,040. The bound is the nominal 0.95 less two Monte Carlo standard errors of
    a binomial proportion at 60 replicates (one-sided level about 2.3%).
    """
    from bayesfair.datasets.simulate import miscalibrated_scores
    from bayesfair.stats import hdi

    reps, hits = 60, 0
    for r in range(reps):
        lab, unl = miscalibrated_scores(20, 1000, kind="none", random_seed=500 + r)
        both = pd.concat([lab, unl], ignore_index=True)
        rates = bf.AssessmentData(both.score, both.label, both.group, reference="A").rates(
            "accuracy"
        )
        truth = rates["B"] - rates["A"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            data = bf.AssessmentData(
                lab.score, lab.label, lab.group, unl.score, unl.group, reference="A"
            )
            res = bf.fit(
                data,
                draws=300,
                tune=300,
                chains=2,
                random_seed=r,
                progressbar=False,
                metrics=["accuracy"],
            )
            pos = bf.suggest_labels(res, n=60, metric="accuracy", within=within, random_seed=r)[
                "position"
            ]
            lab2 = pd.concat([lab, unl.iloc[pos]], ignore_index=True)
            unl2 = unl.drop(index=unl.index[pos])
            data2 = bf.AssessmentData(
                lab2.score, lab2.label, lab2.group, unl2.score, unl2.group, reference="A"
            )
            res2 = bf.fit(
                data2,
                draws=500,
                tune=500,
                chains=2,
                random_seed=r,
                progressbar=False,
                metrics=["accuracy"],
            )
        lo, hi = hdi(res2.difference("accuracy").values)
        hits += lo <= truth <= hi
    bound = 0.95 - 2 * np.sqrt(0.95 * 0.05 / reps)
    assert hits / reps >= bound, f"coverage {hits}/{reps} below {bound:.3f}"


def test_three_groups(tmp_path):
    """Three groups: one row per pair against the reference, and suggestions for all."""
    rng = np.random.default_rng(3)
    n = 1500
    g = rng.choice(["a", "b", "c"], size=n, p=[0.5, 0.3, 0.2])
    s = rng.beta(2, 2, n)
    y = (rng.random(n) < s).astype(int)
    data = bf.AssessmentData(s[:90], y[:90], g[:90], s[90:], g[90:])
    plan = bf.plan_labels(
        data,
        metric="accuracy",
        budgets=[150],
        n_sims=2,
        random_seed=0,
        methods=["bayes", "newcombe"],
    )
    assert set(zip(plan["group"], plan["reference"], strict=True)) == {("b", "a"), ("c", "a")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit(
            data,
            draws=200,
            tune=200,
            chains=1,
            random_seed=0,
            progressbar=False,
            metrics=["accuracy"],
        )
    out = bf.suggest_labels(res, n=30, random_seed=0)
    assert len(out) == 30 and set(out["group"]) <= {"a", "b", "c"}
    only_c = bf.suggest_labels(res, n=5, group="c", random_seed=0)
    assert set(only_c["group"]) <= {"a", "c"}  # the gap c − a involves only those two


def test_targeted_picks_are_quiet_when_the_check_passes(res):
    """No calibration warning from "score" or "mixed" when no group's map is flagged
    (whether the batch beats a random one is another check's, with its own warning)."""
    assert not (res.calibration_check(warn=False)["verdict"] == "misfit").any()
    with warnings.catch_warnings():
        warnings.simplefilter("error", CalibrationWarning)
        warnings.simplefilter("ignore", RandomBatchWarning)
        for within in ("score", "mixed"):
            bf.suggest_labels(res, n=10, within=within, random_seed=0)
