"""Calibration within groups from the labeled rows: calibration_intervals, reliability_curve."""

import time
import warnings

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.special import expit, logit

import bayesfair as bf
from bayesfair.data.summary import summarize_arrays
from bayesfair.exceptions import InvalidParameterError
from bayesfair.frequentist import calibration_intervals, reliability_curve, wilson_interval

COLUMNS = [
    "group",
    "n_labeled",
    "mean_score",
    "positive_rate",
    "positive_rate_lower",
    "positive_rate_upper",
    "calibration_gap",
    "calibration_gap_lower",
    "calibration_gap_upper",
]
CURVE = [
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


@pytest.fixture(scope="module")
def adult():
    return bf.datasets.load_assessment("adult-sex", "MLP", n_labeled=300, random_seed=0)


def test_the_columns_and_the_numbers_of_the_labeled_rows(adult):
    table = calibration_intervals(adult, ci_prob=0.9, n_resamples=500, random_seed=0)
    assert list(table.columns) == COLUMNS
    assert table["group"].tolist() == adult.group_levels
    for _, row in table.iterrows():
        keep = adult.groups == row["group"]
        s, y = adult.scores[keep], adult.labels[keep]
        assert row["n_labeled"] == keep.sum()
        assert row["mean_score"] == pytest.approx(np.mean(s), rel=1e-12)
        assert row["positive_rate"] == pytest.approx(np.mean(y), rel=1e-12)
        assert row["calibration_gap"] == pytest.approx(np.mean(s) - np.mean(y), abs=1e-12)
        lo, hi = wilson_interval(int(y.sum()), int(keep.sum()), 0.9)
        assert (row["positive_rate_lower"], row["positive_rate_upper"]) == (lo, hi)
        assert row["calibration_gap_lower"] < row["calibration_gap"] < row["calibration_gap_upper"]
        # close to the t interval of the paired differences (the bootstrap-t's limit)
        d = s - y
        half = stats.t.ppf(0.95, d.size - 1) * d.std(ddof=1) / np.sqrt(d.size)
        width = row["calibration_gap_upper"] - row["calibration_gap_lower"]
        assert width == pytest.approx(2 * half, rel=0.25)
    assert table.attrs["gap_interval"] == "studentized bootstrap"


def test_a_seed_repeats_the_intervals(adult):
    a = calibration_intervals(adult, n_resamples=300, random_seed=4)
    b = calibration_intervals(adult, n_resamples=300, random_seed=4)
    assert a.equals(b)


def test_groups_without_labels_or_with_one_row():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the unlabeled-only group is warned about
        data = bf.AssessmentData(
            [0.2, 0.7, 0.9, 0.4],
            [0, 1, 1, 1],
            ["a", "a", "a", "b"],
            unlabeled_scores=[0.5, 0.6],
            unlabeled_groups=["c", "a"],
        )
    table = calibration_intervals(data, n_resamples=100, random_seed=0).set_index("group")
    assert table.loc["c", "n_labeled"] == 0 and table[["mean_score"]].loc["c"].isna().all()
    assert table.loc["b", "mean_score"] == 0.4 and np.isnan(table.loc["b", "calibration_gap_lower"])
    curve = reliability_curve(data, n_bins=2, n_resamples=50, random_seed=0)
    assert set(curve["group"]) == {"a", "b"}


def test_a_labeled_summary_is_refused():
    s = np.array([0.2, 0.7, 0.9, 0.4])
    lab = summarize_arrays(s, np.array([0, 0, 1, 1]), ["a", "b"], labels=np.array([0, 1, 1, 0]))
    data = bf.AssessmentData.from_summaries(lab)
    for func in (calibration_intervals, reliability_curve):
        with pytest.raises(InvalidParameterError, match="needs the labeled examples as rows"):
            func(data)


@pytest.mark.parametrize(
    ("argument", "value"),
    [("ci_prob", 1.0), ("ci_prob", 0), ("n_resamples", 0), ("random_seed", -1)],
)
def test_bad_arguments_are_refused(adult, argument, value):
    with pytest.raises(InvalidParameterError, match=f"'{argument}' parameter"):
        calibration_intervals(adult, **{argument: value})
    with pytest.raises(InvalidParameterError, match=f"'{argument}' parameter"):
        reliability_curve(adult, **{argument: value})
    with pytest.raises(InvalidParameterError, match="'n_bins' parameter"):
        reliability_curve(adult, n_bins=0)


def test_the_reliability_curve_bins_each_groups_labeled_rows(adult):
    curve = reliability_curve(adult, n_bins=5, ci_prob=0.9, n_resamples=200, random_seed=0)
    assert list(curve.columns[: len(CURVE)]) == CURVE
    for g, part in curve.groupby("group", sort=False):
        keep = adult.groups == g
        s, y = adult.scores[keep], adult.labels[keep]
        assert part["bin"].tolist() == list(range(len(part))) and len(part) <= 5
        assert part["n"].sum() == keep.sum()
        assert (part["n"] * part["positive_rate"]).sum() == pytest.approx(y.sum())
        assert (part["n"] * part["mean_score"]).sum() == pytest.approx(s.sum())
        assert part["score_lower"].iloc[0] == s.min() and part["score_upper"].iloc[-1] == s.max()
        assert (part["score_lower"].to_numpy()[1:] > part["score_upper"].to_numpy()[:-1]).all()
        assert (part["score_lower"] <= part["mean_score"]).all()
        assert (part["mean_score"] <= part["score_upper"]).all()
        assert (part["positive_rate_lower"] <= part["positive_rate"]).all()
        assert (part["positive_rate"] <= part["positive_rate_upper"]).all()
        assert (part["consistency_lower"] <= part["consistency_upper"]).all()
        # equal-count bins: sizes differ by ties only
        assert part["n"].max() - part["n"].min() <= 0.05 * keep.sum()


def test_one_bin_is_the_whole_group_and_ties_merge_bins():
    data = bf.AssessmentData([0.3] * 6 + [0.8] * 4, [0, 1] * 5, ["a"] * 10)
    curve = reliability_curve(data, n_bins=10, n_resamples=100, random_seed=0)
    assert curve["n"].tolist() == [6, 4]
    assert curve[["score_lower", "score_upper"]].values.tolist() == [[0.3, 0.3], [0.8, 0.8]]
    assert curve["positive_rate"].tolist() == [0.5, 0.5]
    one = reliability_curve(data, n_bins=1, n_resamples=100, random_seed=0)
    assert one["n"].tolist() == [10] and one["positive_rate"].tolist() == [0.5]


def test_the_consistency_bar_holds_a_calibrated_bins_rate():
    """With calibrated scores, the bin's share of positives lies in its bar about ci_prob of
    the time (Bröcker & Smith's bars have the bin's scores fixed: exactly so)."""
    rng = np.random.default_rng(3)
    inside = total = 0
    for _ in range(40):
        s = rng.uniform(size=200)
        y = (rng.uniform(size=200) < s).astype(int)
        data = bf.AssessmentData(s, y, ["a"] * 200)
        curve = reliability_curve(data, n_bins=4, n_resamples=400, random_seed=rng)
        rate = curve["positive_rate"]
        inside += int(
            ((curve["consistency_lower"] <= rate) & (rate <= curve["consistency_upper"])).sum()
        )
        total += len(curve)
    assert inside / total > 0.88


# ---------------------------------------------------------------------------- coverage
#: As tests/posterior/test_calibration_view.py: "a" calibrated, "b" overstating by ~8 points.
SHIFTS = {"a": 0.0, "b": -0.4}


def _population_gap(shift: float) -> float:
    """E[s − P(y = 1 | s)] for s ~ Beta(2, 2) and P(y = 1 | s) = expit(logit(s) + shift)."""

    def f(s):
        return (s - expit(logit(s) + shift)) * stats.beta.pdf(s, 2, 2)

    return integrate.quad(f, 0, 1)[0]


@pytest.mark.parametrize("n_labeled", [30, 150])
def test_the_gap_interval_covers_the_population_gap(n_labeled):
    """R labeled samples per group: the 95% interval covers the population gap
    E[s] − P(y = 1). The coverage must not be significantly below 0.90: the one-sided
    99% Clopper–Pearson upper bound of the observed coverage is at least 0.90."""
    rng = np.random.default_rng(7)
    truth = {g: _population_gap(shift) for g, shift in SHIFTS.items()}
    assert truth["a"] == pytest.approx(0, abs=1e-12) and 0.075 < truth["b"] < 0.085
    replicates, covered, rate_covered, m = 150, 0, 0, 0
    start = time.perf_counter()
    for _ in range(replicates):
        s = rng.beta(2.0, 2.0, 2 * n_labeled)
        g = np.repeat(list(SHIFTS), n_labeled)
        shift = np.where(g == "a", SHIFTS["a"], SHIFTS["b"])
        p = expit(logit(s) + shift)
        y = (rng.uniform(size=s.size) < p).astype(int)
        table = calibration_intervals(
            bf.AssessmentData(s, y, g), n_resamples=400, random_seed=rng
        ).set_index("group")
        for name, gap in truth.items():
            lo, hi = table.loc[name, ["calibration_gap_lower", "calibration_gap_upper"]]
            covered += int(lo <= gap <= hi)
            rlo, rhi = table.loc[name, ["positive_rate_lower", "positive_rate_upper"]]
            rate_covered += int(rlo <= 0.5 - gap <= rhi)  # E[s] = 1/2
            m += 1
    upper = 1.0 if covered == m else stats.beta.ppf(0.99, covered + 1, m - covered)
    print(
        f"\nfrequentist calibration-gap coverage (n = {n_labeled} per group): {covered}/{m} = "
        f"{covered / m:.3f} (99% Clopper-Pearson upper bound {upper:.3f}); Wilson rate "
        f"coverage {rate_covered / m:.3f}; {time.perf_counter() - start:.1f} s"
    )
    assert upper >= 0.90
