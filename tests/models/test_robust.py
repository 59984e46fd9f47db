"""The robust default model (rbc), the estimand, the calibration check and disagreements.

Plumbing tests with real (small) NUTS fits; the statistical properties
(coverage, false-alarm and detection rates, SBC) are in the slow tests of
``tests/statistical/test_robust_coverage.py`` and ``tests/statistical/test_sbc.py``.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import bayesfair as bf
from bayesfair.data.summary import summarize_arrays
from bayesfair.datasets.simulate import miscalibrated_scores
from bayesfair.exceptions import CalibrationWarning, UndefinedRateWarning


def _data(kind="none", n_labeled=100, n_unlabeled=500, seed=0):
    lab, unl = miscalibrated_scores(n_labeled, n_unlabeled, kind=kind, random_seed=seed)
    return bf.AssessmentData.from_frames(
        lab, unl, score="score", label="label", group="group", reference="A"
    )


@pytest.fixture(scope="module")
def calibrated_fit(fast):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bf.exceptions.SamplingWarning)
        return bf.fit(_data(), metrics=["accuracy", "tpr"], random_seed=1, **fast)


# ------------------------------------------------------------------ the default and the estimand
def test_default_model_is_rbc_for_the_assessed_examples(calibrated_fit):
    res = calibrated_fit
    assert res.model == "rbc"
    assert res.estimand == "assessed"
    assert {"misfit", "p_misfit", "p_misfit_shared"} <= set(res.idata.posterior)
    summary = res.summary()
    assert set(summary["estimand"]) == {bf.ESTIMANDS["assessed"]}
    p = res.idata.posterior["p_misfit"].values
    assert np.all((p >= 0) & (p <= 1))


def test_without_unlabeled_data_the_estimand_is_the_expected_gap(fast):
    lab, _ = miscalibrated_scores(40, 0, random_seed=4)
    data = bf.AssessmentData.from_frames(lab, score="score", label="label", group="group")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bf.exceptions.SamplingWarning)
        res = bf.fit(data, metrics=["accuracy"], random_seed=0, **fast)
    assert res.estimand == "expected"
    assert np.ptp(res.difference("accuracy").values) > 0  # not the known labeled gap


def test_the_expected_gap_is_a_population_s_the_assessed_gap_the_rows_(fast):
    """100 labeled and 30 unlabeled rows per group: the assessed gap is the rows', known
    up to the 30 unknown labels (Bernoulli noise of about sqrt(30 · 0.16) / 130 = 0.017
    per group's accuracy); the expected gap is the groups' populations', known from 130
    rows each (about sqrt(0.16 / 130) = 0.035): about twice as wide, asserted > 1.2×.
    With 3,000 unlabeled rows per group the two agree (within 20%; both about 0.08)."""

    def width(n_unlabeled, estimand):
        data = _data(n_unlabeled=n_unlabeled, seed=4)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", bf.exceptions.SamplingWarning)
            res = bf.fit(data, "bc", metrics=["accuracy"], estimand=estimand, random_seed=2, **fast)
        d = res.difference("accuracy").values.ravel()
        return np.subtract(*np.quantile(d, [0.975, 0.025]))

    assert width(30, "expected") > 1.2 * width(30, "assessed")
    assert abs(width(3000, "expected") / width(3000, "assessed") - 1) < 0.2


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"estimand": "population"}, "'estimand' parameter must be one of"),
        ({"estimand": "sampled"}, "'estimand' parameter must be one of"),
    ],
)
def test_bad_estimand_arguments(kwargs, match, fast):
    with pytest.raises(ValueError, match=match):
        bf.fit(_data(n_labeled=10, n_unlabeled=10), **kwargs, **fast)


def test_labeled_only_models_refuse_the_assessed_estimand():
    with pytest.raises(ValueError, match="estimand='expected'"):
        bf.fit(_data(n_labeled=10, n_unlabeled=10), "bb", estimand="assessed")


def test_removed_aliases_are_refused(fast):
    # `unlabeled=` (estimand) and `nuts_sampler=` (backend) were removed in 0.3.0
    for removed in ({"unlabeled": "sampled"}, {"nuts_sampler": "nutpie"}):
        with pytest.raises(TypeError, match="unexpected keyword"):
            bf.fit(_data(), "bc", metrics=["accuracy"], **removed, **fast)


# ------------------------------------------------------------------ the calibration check
CHECK_COLUMNS = [
    "group",
    "n_labeled",
    "statistic",
    "p_value",
    "p_adjusted",
    "verdict",
    "where",
]


def test_calibration_check_contract(calibrated_fit):
    check = calibrated_fit.calibration_check()
    assert list(check.columns) == CHECK_COLUMNS
    assert list(check["group"]) == ["A", "B"]
    assert list(check["n_labeled"]) == [100, 100]
    assert set(check["verdict"]) <= {"ok", "misfit", "too few labels"}
    assert check["p_value"].between(0, 1).all()
    # deterministic by default
    pd.testing.assert_frame_equal(check, calibrated_fit.calibration_check())


def test_inverted_group_is_a_misfit_with_a_warning(fast):
    data = _data("inverted", seed=5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = bf.fit(data, metrics=["accuracy"], random_seed=0, **fast)
    messages = [str(w.message) for w in caught if issubclass(w.category, CalibrationWarning)]
    # two groups: the check says that their calibrations differ, not which one is off
    assert messages and "Groups A and B are calibrated differently" in messages[0]
    assert "cannot say which" in messages[0]
    check = res.calibration_check(warn=False).set_index("group")
    # the calibrated group is not blamed for the pair, and the inverted group's labels
    # fit a map of its own worse than A's (whether that is a "misfit" at 100 labels is
    # the power measured in tests/statistical/test_robust_coverage.py)
    # (the verdict column says the pair differs, naming the partner)
    assert check.loc["A", "verdict"] == "differs from B"
    own = res.calibration_check(warn=False).attrs["test"]["own_map_p"].to_numpy()
    assert own[1] < own[0]
    # said once per fit: the fit warned, so the check does not say it again
    with warnings.catch_warnings(record=True) as again:
        warnings.simplefilter("always")
        res.calibration_check()
    assert not [w for w in again if issubclass(w.category, CalibrationWarning)]
    assert any("calibrated differently" in n for n in res.notes)


def test_calibration_check_needs_a_calibration_model():
    res = bf.fit(_data(n_labeled=10, n_unlabeled=10), "bb", metrics=["accuracy"])
    with pytest.raises(ValueError, match="no calibration map"):
        res.calibration_check()


def test_too_few_labels_verdict(fast):
    data = _data(n_labeled=6, n_unlabeled=200, seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit(data, metrics=["accuracy"], random_seed=0, **fast)
    check = res.calibration_check(warn=False)
    assert set(check["verdict"]) <= {"too few labels", "misfit"}
    assert (check["verdict"] == "too few labels").any()


def test_calibration_check_survives_netcdf(calibrated_fit, tmp_path):
    path = calibrated_fit.to_netcdf(tmp_path / "fit.nc")
    back = bf.FairnessPosterior.from_netcdf(path)
    pd.testing.assert_frame_equal(back.calibration_check(), calibrated_fit.calibration_check())


# ------------------------------------------------------------------ bad input: result and warning
def _fit_quietly(data, fast, **kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = bf.fit(data, metrics=["accuracy", "tpr"], random_seed=0, **fast, **kw)
    return res, [w for w in caught]


def test_a_group_whose_labels_are_all_one_class(fast):
    lab, unl = miscalibrated_scores(60, 300, random_seed=7)
    lab.loc[lab["group"] == "B", "label"] = 0
    data = bf.AssessmentData.from_frames(lab, unl, score="score", label="label", group="group")
    res, caught = _fit_quietly(data, fast)
    # no labeled positive in B: TPR is informed by the model only, and the table says so
    assert "no labeled" in res.rate_note("tpr", ("B", "A"))
    d = res.difference("tpr", "B", "A").values
    # a draw may give B no positive at all among the assessed examples: TPR undefined there,
    # and the notes say how often
    if np.isnan(d).any():
        assert any("undefined in" in n and "'B'" in n for n in res.notes)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        row = res.summary(metrics=["tpr"]).iloc[0]
    # the summary sets the undefined draws aside and says so, once
    assert row["p_undefined"] == pytest.approx(np.isnan(d).mean())
    assert sum(issubclass(w.category, UndefinedRateWarning) for w in said) == int(np.isnan(d).any())
    assert np.isfinite([row["mean"], row["eti_lower"], row["eti_upper"]]).all()
    assert not any(issubclass(w.category, RuntimeWarning) for w in caught)


def test_a_group_with_one_label(fast):
    lab, unl = miscalibrated_scores(50, 300, random_seed=8)
    lab = pd.concat([lab[lab["group"] == "A"], lab[lab["group"] == "B"].head(1)])
    data = bf.AssessmentData.from_frames(lab, unl, score="score", label="label", group="group")
    res, _ = _fit_quietly(data, fast)
    check = res.calibration_check(warn=False).set_index("group")
    assert check.loc["B", "n_labeled"] == 1
    assert check.loc["B", "verdict"] in ("too few labels", "misfit")
    d = res.difference("accuracy", "B", "A").values.ravel()
    # one label cannot pin B's rate: the interval is wide
    assert np.subtract(*np.quantile(d, [0.975, 0.025])) > 0.05


def test_identical_scores_in_a_group(fast):
    lab, unl = miscalibrated_scores(80, 300, random_seed=9)
    for frame in (lab, unl):
        frame.loc[frame["group"] == "B", "score"] = 0.7
    data = bf.AssessmentData.from_frames(lab, unl, score="score", label="label", group="group")
    res, _ = _fit_quietly(data, fast)
    d = res.difference("accuracy", "B", "A").values.ravel()
    assert np.isfinite(d).all()
    assert list(res.calibration_check(warn=False).columns) == CHECK_COLUMNS


def test_inverted_classifier_covers_with_rbc_and_warns(fast):
    lab, unl = miscalibrated_scores(100, 2000, kind="inverted", random_seed=11)
    data = bf.AssessmentData.from_frames(lab, unl, score="score", label="label", group="group")
    res, caught = _fit_quietly(data, fast)
    assert any(issubclass(w.category, CalibrationWarning) for w in caught)
    both = pd.concat([lab, unl])
    acc = {g: ((d["score"] >= 0.5) == d["label"]).mean() for g, d in both.groupby("group")}
    lo, hi = np.quantile(res.difference("accuracy", "B", "A").values, [0.025, 0.975])
    assert lo <= acc["B"] - acc["A"] <= hi


# ------------------------------------------------------------------ compare, reports, disagreement
def test_compare_reports_calibration_and_disagreement(fit_kwargs):
    data = _data("inverted", n_labeled=100, n_unlabeled=1000, seed=12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comp = bf.compare(
            data,
            ["accuracy"],
            models=("bb", "bc"),
            n_resamples=200,
            random_seed=0,
            fit_kwargs=dict(fit_kwargs),
            progressbar=False,
        )
    assert "disagreement" in comp.pairs
    assert list(comp.calibration.columns) == CHECK_COLUMNS
    text = comp.to_markdown(detail="full")
    assert "Calibration check" in text and "What the intervals are for" in text
    # bc trusts a map that cannot invert: its interval misses the labeled-only ones
    row = comp.pairs.iloc[0]
    assert row["bc_upper"] < row["bb_lower"] or row["bb_upper"] < row["bc_lower"]
    assert "do not overlap" in row["disagreement"] and "B misfit" in row["disagreement"]
    assert comp.disagreements == [row["disagreement"]]
    assert "Where the methods disagree" in text


def test_no_disagreement_sentence_when_intervals_overlap(calibrated_fit):
    data = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comp = bf.compare(
            data,
            ["accuracy"],
            posteriors={"rbc": calibrated_fit},
            models=("bb",),
            n_resamples=200,
            random_seed=0,
        )
    assert comp.pairs["disagreement"].tolist() == [""]
    assert comp.disagreements == []


@pytest.mark.parametrize("shift", [0.0, 0.02])
def test_calibration_check_normal_bin_totals_agree_with_per_cell_draws(shift, monkeypatch):
    """Large bins' replicated totals come from their normal law (``predictive_check``).

    20,000 labels in two groups, the map evaluated at fixed draws near the truth
    (``shift`` moves them off it: p-values 0.07 and 0.22, not near 1/2): the p-value
    from normal bin totals and the one from per-cell binomials (the rule switched
    off) are each a mean over 1,000 draws, so their difference has a Monte Carlo
    SE of at most √(2 · 0.25 / 1000) = 0.022; they agree within 4 SE (level ≈ 1e-4).
    """
    from bayesfair.posterior import predictive_check

    rng = np.random.default_rng(8)
    n = 20_000
    s = np.clip(rng.uniform(0, 1, n), 0.01, 0.99)
    g = rng.integers(0, 2, n)
    y = (rng.uniform(0, 1, n) < s).astype(int)  # calibrated: a = b = 1, c = 0
    labeled = summarize_arrays(s, g, range(2), labels=y)
    draws = 1_000
    a = 1.0 + shift + 0.01 * rng.standard_normal(draws)

    def probabilities(grp, log_s, log_1ms):
        return 0.5 * (1.0 + np.tanh(0.5 * (a[:, None] * (log_s - log_1ms)[None, :])))

    normal = predictive_check.calibration_ppc(labeled, probabilities, rng=np.random.default_rng(1))
    monkeypatch.setattr(predictive_check, "_NORMAL_MIN_VARIANCE", np.inf)
    exact = predictive_check.calibration_ppc(labeled, probabilities, rng=np.random.default_rng(2))
    np.testing.assert_allclose(normal["statistic"], exact["statistic"])  # T(y, θ) unchanged
    assert np.all(np.abs(normal["p_value"] - exact["p_value"]) < 4 * 0.022), (normal, exact)
