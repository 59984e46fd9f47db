"""Calibration within groups as a fairness view: ``res.calibration_summary`` and its module."""

import time
import warnings

import numpy as np
import pytest
import xarray as xr
from scipy import stats
from scipy.special import expit, logit

import bayesfair as bf
from bayesfair._internal.tree import get_group
from bayesfair.data.summary import summarize_arrays
from bayesfair.exceptions import InvalidParameterError
from bayesfair.posterior.calibration_view import (
    CALIBRATION_COLUMNS,
    assessed_mean_score,
    calibration_gap,
    calibration_summary,
)
from bayesfair.stats import hdi, simultaneous_band

#: The contract's columns, in order (more may follow).
CONTRACT = [
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


@pytest.fixture(scope="module")
def fitted(data, quiet_fit):
    """rbc on the bundled Adult-sex MLP scores (100 labels, the rest unlabeled)."""
    return quiet_fit(data, random_seed=0)


def _raw_assessed(data):
    scores = np.concatenate([data.scores, data.unlabeled_scores])
    groups = np.concatenate([data.groups, data.unlabeled_groups])
    return scores, groups


def test_the_columns_and_one_row_per_group(fitted):
    table = fitted.calibration_summary(ci_prob=0.95, epsilon=0.02)
    assert list(table.columns[: len(CONTRACT)]) == CONTRACT
    assert list(table.columns) == CALIBRATION_COLUMNS
    assert table["group"].tolist() == fitted.groups
    assert table["n_labeled"].tolist() == [35, 65]
    assert set(table["decision"]) <= {"practically fair", "unfair", "undecided"}
    assert table.attrs["estimand"] == "assessed" and table.attrs["ci_prob"] == 0.95
    assert table.attrs["epsilon"] == 0.02 and "examples" in table.attrs["estimand_text"]
    lo, hi = table["calibration_gap_lower"], table["calibration_gap_upper"]
    assert (lo <= table["calibration_gap"]).all() and (table["calibration_gap"] <= hi).all()
    pr_lo, pr_hi = table["positive_rate_lower"], table["positive_rate_upper"]
    assert (pr_lo <= table["positive_rate"]).all() and (table["positive_rate"] <= pr_hi).all()
    # the gaps' band is simultaneous over the groups: all gaps of a draw inside it in at
    # least 95% of the draws, and no group's band narrower than its own HDI
    gap = calibration_gap(fitted).values.reshape(-1, len(table))
    inside = ((gap >= lo.to_numpy()) & (gap <= hi.to_numpy())).all(axis=1).mean()
    assert inside >= 0.95
    for k in range(len(table)):
        own = hdi(gap[:, k], 0.95)
        assert hi.iloc[k] - lo.iloc[k] >= own.upper - own.lower - 1e-12
    assert table.attrs["interval"].startswith("simultaneous band")
    # the same as the module's function, and as the HDI of the draws
    assert table.equals(calibration_summary(fitted, 0.95, 0.02))


def test_the_mean_score_is_numpys_mean_of_the_raw_assessed_scores(data, fitted):
    scores, groups = _raw_assessed(data)
    table = fitted.calibration_summary()
    for _, row in table.iterrows():
        expected = np.mean(scores[groups == row["group"]])
        assert row["mean_score"] == pytest.approx(expected, rel=1e-12, abs=0)
    assert assessed_mean_score(fitted).to_numpy() == pytest.approx(table["mean_score"], rel=1e-15)


def test_the_gap_is_the_mean_score_minus_the_positive_rate_per_draw(fitted):
    gap = calibration_gap(fitted)
    rate = fitted.rates("base_rate")
    assert gap.dims == ("chain", "draw", "group")
    mean = assessed_mean_score(fitted).to_numpy()
    np.testing.assert_allclose(gap.values, mean - rate.values, rtol=0, atol=1e-15)
    table = fitted.calibration_summary()
    assert table["calibration_gap"].to_numpy() == pytest.approx(
        gap.mean(("chain", "draw")).values, abs=1e-12
    )
    assert table["positive_rate"].to_numpy() == pytest.approx(
        rate.mean(("chain", "draw")).values, abs=1e-12
    )
    band = simultaneous_band(gap.values.reshape(-1, gap.shape[-1]), 0.9)
    row = fitted.calibration_summary(ci_prob=0.9).iloc[1]
    assert (row["calibration_gap_lower"], row["calibration_gap_upper"]) == (
        band.lower[1],
        band.upper[1],
    )


def _odd_scores(seed=0):
    """Scores at and beyond the clipping (0, 1, 0.001, 0.999): their raw mean differs."""
    rng = np.random.default_rng(seed)
    s = np.r_[0.0, 1.0, 0.001, 0.999, 0.002, rng.uniform(size=55)]
    y = (rng.uniform(size=s.size) < s).astype(int)
    g = np.where(np.arange(s.size) % 2 == 0, "a", "b")
    u = np.r_[0.0, 0.0005, 1.0, rng.uniform(size=37)]
    ug = np.where(np.arange(u.size) % 3 == 0, "a", "b")
    return s, y, g, u, ug


def test_the_mean_score_is_of_the_scores_before_clipping(quiet_fit):
    s, y, g, u, ug = _odd_scores()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # hard 0/1 scores are warned about
        data = bf.AssessmentData(s, y, g, unlabeled_scores=u, unlabeled_groups=ug)
    res = quiet_fit(data, model="bb", random_seed=1)
    table = res.calibration_summary()
    all_s, all_g = np.r_[s, u], np.r_[g, ug]
    for k, name in enumerate(["a", "b"]):
        raw = all_s[all_g == name]
        assert table["mean_score"].iloc[k] == pytest.approx(raw.mean(), rel=1e-12)
        assert table["mean_score"].iloc[k] != pytest.approx(np.clip(raw, 0.01, 0.99).mean())


def test_a_side_held_as_a_summary_gives_the_same_mean_score(quiet_fit):
    s, y, g, u, ug = _odd_scores(3)
    codes, ucodes = (g == "b").astype(int), (ug == "b").astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows = bf.AssessmentData(s, y, g, unlabeled_scores=u, unlabeled_groups=ug)
        held = bf.AssessmentData.from_summaries(
            summarize_arrays(s, codes, ["a", "b"], labels=y),
            summarize_arrays(u, ucodes, ["a", "b"]),
        )
    for side in ("labeled_examples", "unlabeled_examples"):
        np.testing.assert_allclose(
            getattr(held, side).score_sums(), getattr(rows, side).score_sums(), rtol=1e-12
        )
    a = assessed_mean_score(quiet_fit(rows, model="bb", random_seed=2))
    b = assessed_mean_score(quiet_fit(held, model="bb", random_seed=2))
    np.testing.assert_allclose(a.to_numpy(), b.to_numpy(), rtol=1e-12)


@pytest.mark.parametrize("ci_prob", [0, 1, 1.5, -0.1, "0.9", True])
def test_a_bad_ci_prob_is_refused(fitted, ci_prob):
    with pytest.raises(InvalidParameterError, match="'ci_prob' parameter"):
        fitted.calibration_summary(ci_prob=ci_prob)


@pytest.mark.parametrize("epsilon", [0, -0.01, 1.0, float("nan"), None])
def test_a_bad_epsilon_is_refused(fitted, epsilon):
    with pytest.raises(InvalidParameterError, match="'epsilon' parameter"):
        fitted.calibration_summary(epsilon=epsilon)


def test_a_fit_without_base_rate_names_the_fix(data, quiet_fit):
    res = quiet_fit(data, model="bb", metrics=["tpr"], random_seed=0)
    with pytest.raises(InvalidParameterError, match=r"metrics=\[\.\.\., 'base_rate'\]"):
        res.calibration_summary()


def test_a_result_read_from_a_file_keeps_its_mean_scores(tmp_path, data, quiet_fit):
    res = quiet_fit(data, model="bb", metrics=["base_rate"], random_seed=0)
    back = bf.FairnessPosterior.from_netcdf(res.to_netcdf(tmp_path / "r.nc"))
    assert back.data is None
    assert back.calibration_summary().equals(res.calibration_summary())


def test_an_older_result_without_the_sums_needs_its_data(tmp_path, data, quiet_fit):
    res = quiet_fit(data, model="bb", metrics=["base_rate"], random_seed=0)
    back = bf.FairnessPosterior.from_netcdf(res.to_netcdf(tmp_path / "r.nc"))
    kept = get_group(back.idata, "constant_data").drop_vars("score_sum")  # as saved by 0.3
    back.idata["constant_data"] = xr.DataTree(kept)
    with pytest.raises(InvalidParameterError, match="Set result.data ="):
        back.calibration_summary()
    back.data = data
    assert back.calibration_summary().equals(res.calibration_summary())
    other = bf.datasets.load_assessment("adult-sex", "MLP", n_labeled=50, random_seed=0)
    back.data = other
    with pytest.raises(InvalidParameterError, match="does not hold the rows"):
        back.calibration_summary()


def test_without_unlabeled_rows_the_stored_summary_suffices(tmp_path, quiet_fit):
    s, y, g, *_ = _odd_scores(4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        data = bf.AssessmentData(s, y, g)
    res = quiet_fit(data, model="bb", metrics=["base_rate"], random_seed=0)
    back = bf.FairnessPosterior.from_netcdf(res.to_netcdf(tmp_path / "r.nc"))
    kept = get_group(back.idata, "constant_data").drop_vars("score_sum")  # as saved by 0.3
    back.idata["constant_data"] = xr.DataTree(kept)
    expected = [s[g == "a"].mean(), s[g == "b"].mean()]
    np.testing.assert_allclose(assessed_mean_score(back).to_numpy(), expected, rtol=1e-12)
    assert back.calibration_summary().attrs["estimand"] == "expected"


def test_a_wrong_object_is_named():
    with pytest.raises(InvalidParameterError, match="'result' parameter must be"):
        calibration_summary("not a result")


# ---------------------------------------------------------------------------- coverage
#: Logit shift of P(y = 1 | s) per group: "a" calibrated, "b" with scores that overstate
#: its positives by 7.9 points on average (s ~ Beta(2, 2): E[s − expit(logit s − 0.4)]).
SHIFTS = {"a": 0.0, "b": -0.4}


def _replicate(rng, n_labeled=60, n_unlabeled=400):
    """One audit: per group, labeled and unlabeled rows whose labels all exist; the realised
    gap (mean score − share of positives) over the assessed rows."""
    parts, truth = [], {}
    for name, shift in SHIFTS.items():
        n = n_labeled + n_unlabeled
        s = rng.beta(2.0, 2.0, n)
        y = (rng.uniform(size=n) < expit(logit(s) + shift)).astype(int)
        truth[name] = s.mean() - y.mean()
        parts.append((name, s, y))
    lab = [(s[:n_labeled], y[:n_labeled], [g] * n_labeled) for g, s, y in parts]
    unl = [(s[n_labeled:], [g] * n_unlabeled) for g, s, _ in parts]
    data = bf.AssessmentData(
        np.concatenate([p[0] for p in lab]),
        np.concatenate([p[1] for p in lab]),
        np.concatenate([p[2] for p in lab]),
        unlabeled_scores=np.concatenate([p[0] for p in unl]),
        unlabeled_groups=np.concatenate([p[1] for p in unl]),
    )
    return data, truth


def _clopper_pearson_upper(covered: int, m: int, level: float = 0.99) -> float:
    return 1.0 if covered == m else float(stats.beta.ppf(level, covered + 1, m - covered))


@pytest.mark.slow
def test_the_gap_interval_covers_the_realised_gap(quiet_fit):
    """R audits of two groups (one calibrated, one overstating its positives by ~8 points),
    fitted with rbc: the 95% HDI of the gap covers the realised gap on the assessed rows.
    The coverage must not be significantly below 0.90: the one-sided 99% Clopper–Pearson
    upper bound of the observed coverage is at least 0.90."""
    rng = np.random.default_rng(20240601)
    replicates, covered, m, decisions = 40, 0, 0, []
    by_group = dict.fromkeys(SHIFTS, 0)
    start = time.perf_counter()
    for r in range(replicates):
        data, truth = _replicate(rng)
        res = quiet_fit(data, draws=300, tune=300, metrics=["base_rate"], random_seed=r)
        table = res.calibration_summary(ci_prob=0.95, epsilon=0.02).set_index("group")
        for name, gap in truth.items():
            lo, hi = table.loc[name, ["calibration_gap_lower", "calibration_gap_upper"]]
            covered += int(lo <= gap <= hi)
            by_group[name] += int(lo <= gap <= hi)
            m += 1
        decisions.append(table.loc["b", "decision"])
    upper = _clopper_pearson_upper(covered, m)
    print(
        f"\nBayesian calibration-gap coverage: {covered}/{m} = {covered / m:.3f} "
        f"(99% Clopper-Pearson upper bound {upper:.3f}; per group {by_group} of "
        f"{replicates}); 'b' decisions "
        f"{ {d: decisions.count(d) for d in set(decisions)} }; "
        f"{time.perf_counter() - start:.0f} s"
    )
    assert upper >= 0.90
    assert "practically fair" not in decisions  # an 8-point overstatement is never "fair"
