"""Many groups: the group and family views, impact ratios, and their building blocks.

The fits here are for plumbing (small draws); what the views' intervals cover
is checked by simulation in ``tests/statistical/test_many_groups.py``.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import bayesfair as bf
from bayesfair.datasets.simulate import many_groups
from bayesfair.exceptions import InvalidParameterError, SamplingWarning
from bayesfair.frequentist.groups import labeled_evidence
from bayesfair.models.calibration import DiscrepancyPrior
from bayesfair.posterior import groups
from bayesfair.posterior.groups import evidence
from bayesfair.stats import simultaneous_band

K = 8


@pytest.fixture(scope="module")
def eight():
    """8 groups, 600 unlabeled rows each: g0 calibrated a logit of 2 away from the others,
    with 80 labels; the others alike, with 15. The truth on the assessed rows is kept.

    (With 15 labels g0 is not caught: the hierarchy pulls its map to the others' and its
    gap's posterior mean takes the wrong sign; docs/results/many_groups.md.)"""
    lab, unl = many_groups(K, [80] + [15] * (K - 1), 600, distorted=(0,), shift=2.0, random_seed=5)
    data = bf.AssessmentData.from_frames(
        lab, unl.drop(columns=["label", "p"]), score="score", label="label", group="group"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit(data, random_seed=1, draws=300, tune=300, chains=2, progressbar=False)
    return data, res, pd.concat([lab, unl], ignore_index=True)


# --------------------------------------------------------------------- the joint band
def test_simultaneous_band_holds_the_share_of_joint_draws_it_claims():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4000, 30)) * np.linspace(0.5, 2.0, 30)
    lo, hi = simultaneous_band(x, 0.9)
    inside = np.all((x >= lo) & (x <= hi), axis=1).mean()
    # at least the level; above it only by the step of one order statistic per column
    # (moving every bound one draw inwards drops about 30 × 2 / 4000 = 1.5% of the draws)
    assert 0.9 <= inside < 0.9 + 30 * 2 / 4000
    # each column alone is covered more often than jointly: the band is wider than marginal
    marginal = np.quantile(x, 0.95, axis=0)
    assert (hi > marginal).all()
    # and it covers new draws from the same distribution jointly at about its level
    new = rng.normal(size=(20000, 30)) * np.linspace(0.5, 2.0, 30)
    assert abs(np.all((new >= lo) & (new <= hi), axis=1).mean() - 0.9) < 0.02


def test_a_discrete_column_does_not_widen_the_others():
    """A group of two rows: its gap is one value in most draws and another, 0.5 away, in the
    rest. Its band spans both; the other columns' bands stay as without it."""
    rng = np.random.default_rng(2)
    smooth = rng.normal(0, 0.05, size=(4000, 20))
    tiny = np.where(rng.random(4000) < 0.1, 0.5, 0.0)
    lo0, hi0 = simultaneous_band(smooth)
    lo, hi = simultaneous_band(np.column_stack([tiny, smooth]))
    assert lo[0] == 0.0 and hi[0] == 0.5
    assert np.median(hi[1:] - lo[1:]) < 1.1 * np.median(hi0 - lo0)


def test_simultaneous_band_follows_a_skewed_column():
    rng = np.random.default_rng(1)
    x = np.column_stack([rng.exponential(size=5000), rng.normal(size=5000)])
    lo, hi = simultaneous_band(x, 0.95)
    median = np.median(x[:, 0])
    assert hi[0] - median > 2 * (median - lo[0])  # longer on the long side


def test_simultaneous_band_of_constant_columns_and_nan_rows():
    x = np.ones((50, 3))
    x[0, 1] = np.nan
    lo, hi = simultaneous_band(x)
    np.testing.assert_array_equal(lo, [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(hi, [1.0, 1.0, 1.0])
    lo, hi = simultaneous_band(np.full((5, 2), np.nan))
    assert np.isnan(lo).all() and np.isnan(hi).all()
    with pytest.raises(InvalidParameterError, match="2-D"):
        simultaneous_band(np.ones(5))


# --------------------------------------------------------------------- the misfit prior
def test_the_misfit_prior_keeps_the_family_probability_of_two_groups():
    base = DiscrepancyPrior()
    assert base.for_groups(2) is base
    for k in (3, 10, 60):
        p = base.for_groups(k).prior_misfit
        # P(some stratum of the 2k is off the map) is that of two groups' four strata
        assert 1 - (1 - p) ** (2 * k) == pytest.approx(1 - 0.99**4, rel=1e-12)
    fixed = DiscrepancyPrior(scale_with_groups=False)
    assert fixed.for_groups(60).prior_misfit == 0.01
    with pytest.raises(InvalidParameterError, match="scale_with_groups"):
        DiscrepancyPrior(scale_with_groups="yes")


def test_a_fit_records_the_prior_it_used_for_its_groups(eight):
    _, res, _ = eight
    recorded = res.settings["discrepancy"]
    assert recorded["scale_with_groups"] is False
    assert recorded["prior_misfit"] == DiscrepancyPrior().for_groups(K).prior_misfit


# --------------------------------------------------------------------- the group view
def test_the_gap_is_to_the_rate_over_all_assessed_rows(eight):
    _, res, _ = eight
    overall, weights = groups.overall_rate(res, "tpr")
    theta = res.rates("tpr").transpose("chain", "draw", "group").values.reshape(-1, K)
    base = res.rates("base_rate").transpose("chain", "draw", "group").values.reshape(-1, K)
    n = res.idata.constant_data["n_labeled"].values + res.idata.constant_data["n_unlabeled"].values
    # TPR over all rows: every group's positives, n_k × base rate_k, are the weights
    np.testing.assert_allclose(weights, n * base)
    np.testing.assert_allclose(overall, (n * base * theta).sum(1) / (n * base).sum(1))
    view = res.group_summary("tpr", ci_prob=0.9)
    np.testing.assert_allclose(view["gap"], (theta - overall[:, None]).mean(0))


def test_group_summary_columns_band_and_verdicts(eight):
    _, res, both = eight
    view = res.group_summary(["accuracy", "tpr"], epsilon=0.02)
    need = {
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
    }
    assert need <= set(view.columns)
    assert len(view) == 2 * K and view.attrs["ci_prob"] == 0.95
    assert (view["gap_lower"] <= view["gap"]).all() and (view["gap"] <= view["gap_upper"]).all()
    for _, part in view.groupby("metric"):
        assert part["prob_worst"].sum() == pytest.approx(1.0)
    # the decisions are the ROPE rule on the joint band, behind the one gate (g1..g7 have
    # 15 labels: too few positives for a TPR verdict in some)
    gate = {m: evidence(res, m) for m in ("accuracy", "tpr")}
    for _, r in view.iterrows():
        e = gate[r["metric"]][r["group"]]
        expected = bf.stats.rope_decision(r["gap_lower"], r["gap_upper"], 0.02)
        assert r["decision"] == (expected if e.enough else "too few")
    assert (view["decision"] == "too few").any() and (view["decision"] != "too few").any()
    # g0's scores are shifted by 2 on the logit scale: its accuracy differs from the rest,
    # and the band sees it (truth: the realised accuracy on its assessed rows)
    acc = both.assign(c=(both["score"] >= 0.5) == both["label"]).groupby("group")["c"].mean()
    truth = acc - ((both["score"] >= 0.5) == both["label"]).mean()
    a = view[view["metric"] == "accuracy"].set_index("group")
    assert truth["g0"] < -0.1
    assert a.loc["g0", "gap_lower"] <= truth["g0"] <= a.loc["g0", "gap_upper"] < 0
    assert a.loc["g0", "prob_worst"] > 0.9


def test_family_summary_reads_the_band(eight):
    _, res, _ = eight
    fam = res.family_summary(["accuracy", "selection_rate"], epsilon=0.05)
    view = res.group_summary(["accuracy", "selection_rate"], epsilon=0.05)
    need = {
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
    }
    assert need <= set(fam.columns)
    acc = fam.set_index("metric").loc["accuracy"]
    a = view[view["metric"] == "accuracy"]
    assert acc["max_gap_lower"] == pytest.approx(max(0, a.gap_lower.max() - a.gap_upper.min()))
    assert acc["max_gap_upper"] == pytest.approx(a.gap_upper.max() - a.gap_lower.min())
    assert acc["worst_group"] == "g0"
    assert 0 <= acc["min_ratio_lower"] <= acc["min_ratio"] <= acc["min_ratio_upper"] <= 1
    # the selection rate of the assessed rows is known from the scores: a point
    sel = fam.set_index("metric").loc["selection_rate"]
    assert sel["max_gap_lower"] == pytest.approx(sel["max_gap_upper"])


def test_views_take_one_metric_name_and_reject_bad_input(eight):
    _, res, _ = eight
    assert set(res.group_summary("tpr")["metric"]) == {"tpr"}
    with pytest.raises(InvalidParameterError):
        res.group_summary("tpr", epsilon=-1)
    with pytest.raises(InvalidParameterError):
        res.family_summary("tpr", ci_prob=1.5)
    with pytest.raises(InvalidParameterError, match="Unknown metric"):
        res.family_summary("nonsense")


# --------------------------------------------------------------------- impact ratios
def test_the_rules_worked_example_is_reproduced_exactly():
    table = bf.datasets.load_selection_example()
    out = bf.impact_ratios(
        table, group="category", n="applicants", selected="selected", unknown=250, random_seed=0
    )
    assert out["n"].sum() == 2571 and out.attrs["n_unknown"] == 250
    np.testing.assert_array_equal(out["rate"].round(3), table["published_selection_rate"])
    np.testing.assert_array_equal(out["ratio"].round(3), table["published_impact_ratio"])
    assert out.attrs["reference"] == "Not Hispanic or Latino / Male / White"
    smallest = out.set_index("n").loc[17]
    assert round(smallest["ratio"], 3) == 0.789
    # what the table cannot say: 17 applicants leave the ratio anywhere from a third to
    # well above 1, and P(ratio < 0.8) near a coin toss
    assert smallest["ratio_lower"] < 0.5 and smallest["ratio_upper"] > 1.2
    assert 0.3 < smallest["prob_below_four_fifths"] < 0.7
    assert out["prob_most_selected"].sum() == pytest.approx(1.0)
    for t in ("sex", "race_ethnicity"):
        part = bf.datasets.load_selection_example(t)
        got = bf.impact_ratios(part, group="category", n="applicants", selected="selected")
        np.testing.assert_allclose(got["rate"], part["selected"] / part["applicants"])
        # the rule's tables print two decimals for these
        assert (got["ratio"] - part["published_impact_ratio"]).abs().max() <= 0.005 + 1e-12


def test_the_two_percent_exclusion_keeps_the_reference_among_the_retained():
    t = pd.DataFrame(
        {"group": ["big", "mid", "tiny"], "n": [1000, 500, 10], "selected": [300, 200, 9]}
    )
    out = bf.impact_ratios(t, exclude_below=0.02, random_seed=0).set_index("group")
    assert out.attrs["reference"] == "mid"  # 'tiny' (90%) is excluded, not the reference
    assert out.loc["tiny", "excluded"] and np.isnan(out.loc["tiny", "ratio"])
    assert out.loc["big", "ratio"] == pytest.approx(0.3 / 0.4)
    assert out.loc["mid", "ratio_lower"] == out.loc["mid", "ratio_upper"] == 1.0


@pytest.mark.parametrize(
    ("table", "match"),
    [
        (pd.DataFrame({"group": ["a"], "n": [5], "selected": [6]}), "exceeds"),
        (pd.DataFrame({"group": ["a"], "n": [5.5], "selected": [1]}), "counts"),
        (pd.DataFrame({"group": ["a", "a"], "n": [5, 5], "selected": [1, 1]}), "repeats"),
        (pd.DataFrame({"g": ["a"], "n": [5], "selected": [1]}), "not in the table"),
        ([1, 2], "DataFrame"),
    ],
)
def test_impact_ratios_reject_bad_tables(table, match):
    with pytest.raises(InvalidParameterError, match=match):
        bf.impact_ratios(table)


def test_impact_ratios_of_a_fit(eight):
    _, res, _ = eight
    out = res.impact_ratios()
    assert out.attrs["metric"] == "selection_rate"
    # every group view says which rates it reads (as summary's estimand column does)
    for table in (out, res.group_summary("accuracy"), res.family_summary("accuracy")):
        assert table.attrs["estimand"] == res.estimand
        assert table.attrs["estimand_text"] == res.estimand_text
    ref = out.attrs["reference"]
    assert out.set_index("group").loc[ref, "ratio"] == 1.0
    assert (out["ratio"] <= 1.0 + 1e-12).all()


# --------------------------------------------------------------------- frequentist side
def test_group_intervals_floor_for_small_groups_and_projection():
    rng = np.random.default_rng(3)
    sizes = [200, 200, 150, 4]
    g = np.repeat(["a", "b", "c", "d"], sizes)
    y = rng.integers(0, 2, g.size)
    data = bf.AssessmentData(scores=rng.random(g.size), labels=y, groups=g)
    out = bf.frequentist.group_intervals(data, "accuracy", random_seed=0).set_index("group")
    assert out.loc["d", "method"] == "bonferroni-wilson"
    assert (out.loc[["a", "b", "c"], "method"] == "max-t bootstrap").all()
    assert out.loc["d", "gap_lower"] == pytest.approx(out.loc["d", "wilson_lower"])
    assert (out["gap_lower"] >= -1).all() and (out["gap_upper"] <= 1).all()
    lo, hi = bf.frequentist.max_gap_interval(out["gap_lower"], out["gap_upper"])
    assert (out.attrs["max_gap_lower"], out.attrs["max_gap_upper"]) == (lo, hi)
    assert 0 <= lo <= out.attrs["max_gap"] <= hi <= 1


def test_a_resample_without_a_standard_error_raises_no_numpy_warning():
    """Two groups, one without positive labels: the TPR's overall rate is the other
    group's, so its gap to it is 0 in every resample, with a standard error of 0. The
    statistic 0 / 0 counts as 0 (the gap did not move) and the band is exactly [0, 0],
    without numpy's "invalid value" warning (the suite turns warnings into errors); a
    moved gap over a zero error counts as infinite."""
    rng = np.random.default_rng(4)
    g = np.repeat(["a", "b"], [80, 100])
    y = np.r_[np.zeros(80, int), rng.integers(0, 2, 100)]
    data = bf.AssessmentData(scores=rng.random(g.size), labels=y, groups=g)
    with pytest.warns(bf.exceptions.UndefinedRateWarning, match="'a'"):
        out = bf.frequentist.group_intervals(data, "tpr", random_seed=0).set_index("group")
    assert out.loc["b", "method"] == "max-t bootstrap"
    assert out.loc["b", ["gap", "gap_lower", "gap_upper"]].tolist() == [0.0, 0.0, 0.0]


def test_group_intervals_cover_jointly():
    """Joint coverage of the max-|t| band of 20 groups, 200 simulated data sets.

    The truth is each group's expected accuracy minus the overall expected accuracy
    (weights: the labeled group sizes). 200 sets give a Monte Carlo SE of 0.015 at 0.95;
    the test fails below 0.95 − 3 SE = 0.905 (level about 0.1%)."""
    rng = np.random.default_rng(11)
    k, reps = 20, 200
    sizes = rng.integers(20, 120, k)
    p = rng.uniform(0.6, 0.85, k)
    truth = p - (sizes * p).sum() / sizes.sum()
    g = np.repeat(np.arange(k), sizes)
    covered = 0
    for r in range(reps):
        correct = rng.random(g.size) < p[g]
        y = correct.astype(int)  # score 0.9 predicts 1: correct iff y = 1
        data = bf.AssessmentData(scores=np.full(g.size, 0.9), labels=y, groups=g)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = bf.frequentist.group_intervals(data, "accuracy", n_resamples=500, random_seed=r)
        covered += bool(np.all((truth >= out["gap_lower"]) & (truth <= out["gap_upper"])))
    assert covered / reps >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / reps)


# --------------------------------------------------------------------- checks for K groups
def test_holm_adjustment():
    from bayesfair.posterior.calibration_test import holm_adjust

    np.testing.assert_allclose(holm_adjust([0.01, 0.04, 0.03]), [0.03, 0.06, 0.06])
    np.testing.assert_allclose(holm_adjust([0.5, np.nan, 0.01]), [0.5, np.nan, 0.02])
    assert np.isnan(holm_adjust([np.nan])).all()


def test_the_calibration_check_adjusts_for_its_groups(eight):
    _, res, _ = eight
    check = res.calibration_check(warn=False)
    from bayesfair.posterior.calibration_test import holm_adjust

    adjusted = check.attrs["p_adjusted"]
    np.testing.assert_allclose(adjusted, holm_adjust(check["p_value"]))
    misfit = check["verdict"] == "misfit"
    assert (misfit == (adjusted < 0.05)).all()


# --------------------------------------------------------------------- compare and reports
@pytest.fixture(scope="module")
def comparison8(eight):
    data, res, _ = eight
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SamplingWarning)
        return bf.compare(
            data,
            ["accuracy", "tpr"],
            posteriors={"rbc": res},
            models=(),
            n_resamples=300,
            random_seed=0,
            progressbar=False,
        )


def test_compare_holds_both_views_side_by_side(comparison8):
    gv, fv = comparison8.group_view, comparison8.family_view
    assert len(gv) == 2 * K and len(fv) == 2
    assert {
        "rbc_gap",
        "rbc_gap_lower",
        "rbc_decision",
        "freq_gap",
        "freq_gap_lower",
        "freq_method",
        "freq_decision",
    } <= set(gv.columns)
    assert {"rbc_max_gap", "rbc_decision", "freq_max_gap_lower", "freq_decision"} <= set(fv)
    # every verdict is decided when the comparison is built: the bootstrap's by the ROPE rule
    from bayesfair.stats import rope_decision

    eps = comparison8.settings["epsilon"]
    data = comparison8.posteriors["rbc"].data
    gate = [e for m in ("accuracy", "tpr") for e in labeled_evidence(data, m).values()]
    expected = [
        rope_decision(lo, hi, eps) if e.enough else "too few"
        for lo, hi, e in zip(gv["freq_gap_lower"], gv["freq_gap_upper"], gate, strict=True)
    ]
    assert gv["freq_decision"].tolist() == expected
    assert comparison8.view_method == "rbc"


def test_the_pair_verdicts_are_decided_once_and_rendered(comparison8):
    from bayesfair.report.document import findings
    from bayesfair.report.verdicts import VERDICT_COLUMNS

    verdicts = comparison8.verdicts
    assert list(verdicts.columns) == VERDICT_COLUMNS
    assert len(verdicts) == len(comparison8.pairs)
    assert set(verdicts["method"]) == {"rbc"}
    said = findings(comparison8)
    assert [f["verdict"] for f in said] == verdicts["verdict"].tolist()
    assert all(f"{v}" in f["text"] for v, f in zip(verdicts["verdict"], said, strict=True))
    # the report reads the stored verdicts: a changed verdict is what the report says
    changed = verdicts.assign(verdict="unfair")
    object.__setattr__(comparison8, "verdicts", changed)
    try:
        assert all(": unfair at" in f["text"] for f in findings(comparison8))
    finally:
        object.__setattr__(comparison8, "verdicts", verdicts)


def test_a_report_of_many_groups_leads_with_the_family(comparison8):
    from bayesfair.report.groups import family_findings

    md = comparison8.to_markdown()
    assert md.startswith(f"# Does the classifier treat the {K} groups alike")
    full = comparison8.to_markdown(detail="full")
    assert full.index(f"## Family verdicts ({K} groups") < full.index("## Findings by pair")
    texts = [f["text"] for f in family_findings(comparison8)]
    assert len(texts) == 2 and all("rests on the robust calibration model" in t for t in texts)
    html = comparison8.to_html()
    assert html.index("Family verdicts") < html.index("<details><summary>Findings by pair")
    assert html.count("<img") == 3  # one forest plot per metric and the variance figure
    assert "reliability figure" not in html  # many groups: no reliability figure, no promise
    js = comparison8.to_json()
    assert '"family_view"' in js and '"group_findings"' in js


def test_no_set_aside_of_the_robust_model():
    """RBC is never passed over for a flagged group: its verdicts rest on RBC (BC still is)."""
    from types import SimpleNamespace

    from bayesfair.report.verdicts import pair_verdicts

    pairs = pd.DataFrame([{"metric": "accuracy", "group": "b", "reference": "a"}])
    key = {"metric": "accuracy", "group": "b", "reference": "a"}
    estimates = pd.DataFrame(  # the long table the verdicts read
        [
            {
                **key,
                "method": "rbc",
                "estimate": 0.0,
                "lower": -0.01,
                "upper": 0.01,
                "decision": "practically fair",
            },
            {
                **key,
                "method": "bc",
                "estimate": 0.0,
                "lower": -0.01,
                "upper": 0.01,
                "decision": "practically fair",
            },
            {
                **key,
                "method": "bb",
                "estimate": 0.0,
                "lower": -0.5,
                "upper": 0.5,
                "decision": "undecided",
            },
        ]
    )
    calibration = pd.DataFrame({"group": ["a", "b"], "verdict": ["misfit", "ok"]})
    for models, method in ((["rbc", "bb"], "rbc"), (["bc", "bb"], "bb")):
        comp = SimpleNamespace(
            pairs=pairs,
            estimates=estimates,
            calibration=calibration,
            groups=None,
            settings={"epsilon": 0.02, "models": models},
            posteriors={},
        )
        verdict = pair_verdicts(comp).iloc[0]
        assert verdict["method"] == method
        assert verdict["set_aside"] == (() if method == "rbc" else ("bc",))
    # two groups whose calibrations differ (neither a misfit alone): BC is set aside too
    differ = pd.DataFrame({"group": ["a", "b"], "verdict": ["differs from b", "differs from a"]})
    comp = SimpleNamespace(
        pairs=pairs,
        estimates=estimates,
        calibration=differ,
        groups=None,
        settings={"epsilon": 0.02, "models": ["bc", "bb"]},
        posteriors={},
    )
    assert pair_verdicts(comp).iloc[0]["set_aside"] == ("bc",)


def test_a_reference_with_few_labels_is_warned_about_with_many_groups(eight):
    data, res, _ = eight
    from bayesfair.exceptions import SmallReferenceWarning

    with pytest.warns(SmallReferenceWarning, match="15 labeled examples"):
        bf.compare(
            data,
            ["accuracy"],
            reference="g3",
            posteriors={"rbc": res},
            models=(),
            n_resamples=100,
            random_seed=0,
        )
    with warnings.catch_warnings():
        warnings.simplefilter("error", SmallReferenceWarning)
        bf.compare(
            data,
            ["accuracy"],
            reference="g0",
            posteriors={"rbc": res},
            models=(),
            n_resamples=100,
            random_seed=0,
        )


def test_three_groups_lead_with_the_family_and_keep_every_figure():
    lab, unl = many_groups(3, 30, 300, random_seed=2)
    data = bf.AssessmentData.from_frames(
        lab, unl.drop(columns=["label", "p"]), score="score", label="label", group="group"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comp = bf.compare(
            data, ["accuracy"], models=("bb",), n_resamples=100, random_seed=0, progressbar=False
        )
    md = comp.to_markdown(detail="full")
    assert md.startswith("# Does the classifier treat the 3 groups alike in accuracy?")
    assert "rests on the beta-binomial (BB" in md
    html = comp.to_html()
    assert "<summary>Findings by pair" not in html  # three groups: the pairs are not folded
    assert html.count("<img") > 3  # the per-pair figures stay


def test_a_group_whose_rate_is_often_undefined_does_not_blank_the_others(fast):
    """A 3-row group has no positive in many draws (its TPR is undefined there): the other
    groups' bands and the family row stay defined; the group's share is said."""
    lab, unl = many_groups(4, [20, 20, 20, 0], [300, 300, 300, 3], random_seed=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # g3 has no labels: said, and meant here
        data = bf.AssessmentData.from_frames(
            lab, unl.drop(columns=["label", "p"]), score="score", label="label", group="group"
        )
        res = bf.fit(data, random_seed=0, **fast)
        view = res.group_summary("tpr").set_index("group")
        fam = res.family_summary("tpr").iloc[0]
    tpr = res.rates("tpr").values
    share = np.isnan(tpr[..., 3]).mean()
    assert 0 < share < 1
    assert view.loc["g3", "p_undefined"] == pytest.approx(share)
    assert view.loc[["g0", "g1", "g2"], "p_undefined"].eq(0).all()
    assert view.loc[["g0", "g1", "g2"], ["gap_lower", "gap_upper"]].notna().all().all()
    # g3's three rows are too few for a verdict: no band of its assessed rows, and the
    # family is over the others
    assert view.loc["g3", "decision"] == "too few" and np.isnan(view.loc["g3", "gap_lower"])
    assert "g3" in fam["set_aside"] and fam["n_groups"] == 4 - len(fam["set_aside"]) >= 2
    assert fam["p_undefined"] == 0
    assert np.isfinite([fam["max_gap_lower"], fam["max_gap_upper"]]).all()


# --------------------------------------------------------------------- edges a new user hit
def test_epsilon_of_one_or_more_is_refused():
    from bayesfair._internal.validation import check_epsilon

    assert check_epsilon(0.5) == 0.5
    for bad in (1, 2.0, 5):
        with pytest.raises(InvalidParameterError, match="below 1"):
            check_epsilon(bad)


def test_a_group_name_in_the_wrong_case_is_said_to_be_case_sensitive():
    from bayesfair._internal.validation import check_group

    with pytest.raises(InvalidParameterError, match="case-sensitive; did you mean 'Male'"):
        check_group("male", ["Female", "Male"], "reference")


def test_one_metric_name_is_one_metric(eight):
    _, res, _ = eight
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = res.summary(metrics="tpr", reference="g1")
    assert set(table["metric"]) == {"tpr"} and len(table) == K - 1
    assert set(res.sensitivity(metrics="tpr", reference="g1")["metric"]) == {"tpr"}


def test_an_all_correct_group_is_on_the_wilson_floor_and_the_band_stays_joint():
    """12 of 12 right is not a standard error of zero: the group's band is Bonferroni–
    Wilson's (an all-correct group of 12 among 32 alike ones was called unfair), and the
    bootstrap's critical value pays for the floored groups' share of the error."""
    rng = np.random.default_rng(5)
    g = np.repeat(np.arange(32), 12)
    y = (rng.random(g.size) < 0.7).astype(int)
    y[g == 3] = 1  # every example of group 3 right (score 0.9 predicts 1)
    data = bf.AssessmentData(scores=np.full(g.size, 0.9), labels=y, groups=g)
    out = bf.frequentist.group_intervals(data, "accuracy", random_seed=0).set_index("group")
    assert out.loc[3, "method"] == "bonferroni-wilson"
    assert out.loc[3, "gap_lower"] < 0 < out.loc[3, "gap"]  # no "unfair" from 12 rows


def test_the_bootstrap_pays_for_the_floored_groups():
    """One group of 200 labels on the bootstrap, 32 of 5 labels on the Wilson floor: the
    bootstrap's group spends only α/(K + 1) of the error, so its critical value is about
    the two-sided normal quantile at 1 − 0.05/33 (3.2), not the marginal 1.96 it was
    before the Bonferroni split (a false "unfair" in a null simulation)."""
    rng = np.random.default_rng(6)
    g = np.concatenate([np.zeros(200, int), np.repeat(np.arange(1, 33), 5)])
    y = (rng.random(g.size) < 0.7).astype(int)
    data = bf.AssessmentData(scores=np.full(g.size, 0.9), labels=y, groups=g)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = bf.frequentist.group_intervals(data, "accuracy", random_seed=0)
    assert (out["method"] == "max-t bootstrap").sum() == 1
    assert out.attrs["critical_value"] > 2.8


def test_impact_ratio_probabilities_count_only_the_draws_where_the_ratio_is_defined():
    """A draw where a category's ratio is undefined (NaN) says nothing about P(ratio < 0.8):
    it is left out, not counted as "not below" (which made a category look safer)."""
    from bayesfair.posterior.groups import impact_ratio_table

    draws = np.array([[0.5, 0.3], [0.5, np.nan], [0.5, np.nan], [0.5, np.nan]])
    table = impact_ratio_table(["a", "b"], [100, 100], [0.5, 0.3], draws).set_index("group")
    assert table.loc["b", "prob_below_four_fifths"] == 1.0  # the one defined draw: 0.6
    with pytest.raises(ValueError, match="No category has a defined rate"):
        impact_ratio_table(["a", "b"], [10, 10], [np.nan, np.nan], draws)


def test_a_category_never_selected_has_a_ratio_band_of_zero():
    """Every draw of b's rate is 0: its ratio and both ends of its band are 0, not the
    smallest positive float the log scale stood in for it."""
    from bayesfair.posterior.groups import impact_ratio_table

    draws = np.column_stack([np.full(400, 0.5), np.zeros(400)])
    table = impact_ratio_table(["a", "b"], [100, 100], [0.5, 0.0], draws).set_index("group")
    assert table.loc["b", ["ratio", "ratio_lower", "ratio_upper"]].tolist() == [0.0, 0.0, 0.0]


def test_a_ratio_band_is_undefined_where_both_rates_are_zero_and_unbounded_above_a_zero():
    """Every draw of every rate 0: no ratio is defined, and no band either (not [1, 1],
    which 0/0 read as a log difference of 0 would give). A reference that selects no one
    in some draws: the band reaches infinity above, as a ratio to 0 does."""
    from bayesfair.posterior.groups import impact_ratio_table

    none = impact_ratio_table(list("abc"), [40, 40, 100], np.zeros(3), np.zeros((1000, 3)))
    assert (
        none.loc[none["group"] != none.attrs["reference"], ["ratio_lower", "ratio_upper"]]
        .isna()
        .all(axis=None)
    )
    draws = np.random.default_rng(0).beta(5, 20, size=(4000, 2))
    draws[:120, 0] = 0.0  # the reference a's rate is 0 in 3% of the draws
    table = impact_ratio_table(["a", "b"], [40, 40], [0.3, 0.2], draws).set_index("group")
    assert table.loc["b", "ratio_upper"] == np.inf
    assert 0 < table.loc["b", "ratio_lower"] < table.loc["b", "ratio"]


def test_the_work_per_gradient_grows_beyond_three_times_from_2_to_56_groups():
    """Why the 3x cost target of many groups is a bound (docs/results/many_groups.md#cost).

    Each gradient of the calibration likelihood evaluates every labeled entry (group x
    side x score bin) once and every group's map once. On the cost benchmark's rows (the
    same 1,000 Adult labels grouped by sex, then by race x sex x age band) both counts grow
    more than threefold: the same labels spread over 56 groups fill more bins, and a group's
    bins cannot be shared with another's without giving up its own map."""
    from bayesfair.models.likelihood import likelihood_data

    scores = bf.datasets.load_scores("adult-race", "MLP")
    age = bf.datasets.load_raw("adult").dropna().reset_index(drop=True).loc[scores.index, "age"]
    band = pd.cut(age.to_numpy(), [0, 25, 35, 45, 55, 65, 200], right=False).astype(str)
    frame = scores.assign(
        intersection=scores["raw_group"].astype(str)
        + " & "
        + scores["sex"].astype(str)
        + " & "
        + band
    )
    labeled = frame.iloc[np.random.default_rng(0).choice(len(frame), 1000, replace=False)]
    unlabeled = frame.drop(labeled.index).drop(columns="label")
    entries, groups_ = {}, {}
    for group in ("sex", "intersection"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            data = bf.AssessmentData.from_frames(
                labeled, unlabeled, score="score", label="label", group=group
            )
        entries[group] = likelihood_data(data.labeled_summary())["count"].size
        groups_[group] = data.n_groups
    assert groups_ == {"sex": 2, "intersection": 56}
    # 53 and 298 entries on these rows: 5.6 times the work of the likelihood per gradient
    assert entries["intersection"] / entries["sex"] > 3
    work = {g: entries[g] + groups_[g] for g in entries}
    assert work["intersection"] / work["sex"] > 3


# --------------------------------------------------------------------- a new rate
def test_a_new_rate_is_one_line_in_the_catalogue(eight, monkeypatch, fast):
    """A rate with a denominator no other rate has (the threat score, TP / (TP + FP +
    FN)) added by one entry of ``RATES``: a fit draws it, the group view weighs the
    groups by its own denominator (from each draw's counts), and the tables and views
    read it, with no second table to teach."""
    from bayesfair.metrics import RATES, Rate, rate_from_counts

    toy = Rate("threat_score", "threat score", ("tp",), ("tp", "fp", "fn"), True)
    monkeypatch.setitem(RATES, toy.name, toy)  # the one line
    data, _, _ = eight
    for model in ("bc", "bb"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = bf.fit(data, model, metrics=["threat_score", "tpr"], random_seed=2, **fast)
        counts = res.count_draws()
        np.testing.assert_allclose(
            res.rates("threat_score").transpose(*counts.dims[:3]).values,
            rate_from_counts(counts.values, "threat_score"),
        )
        overall, weights = groups.overall_rate(res, "threat_score")
        total = counts.values.reshape(-1, K, 4)
        # over the rows the model reads: bb's labeled rows alone (groups.weighing_rows)
        sizes = groups.group_sizes(res)
        total = total * (groups.weighing_rows(res) / sizes.sum(axis=1).to_numpy())[:, None]
        den = total[..., 0] + total[..., 1] + total[..., 3]
        np.testing.assert_allclose(weights, den)
        np.testing.assert_allclose(overall, total[..., 0].sum(1) / den.sum(1))
        view = res.group_summary("threat_score")
        assert len(view) == K and view["decision"].notna().all()
        assert set(res.summary("threat_score")["metric"]) == {"threat_score"}


def test_hbb_weighs_by_the_share_a_fitted_rate_gives(eight, fast):
    """``hbb`` keeps no counts: a denominator's share comes from a rate over all rows
    fitted in the same draw (the base rate's complement for FPR), over the group's
    labeled rows (the rows the model reads)."""
    data, _, _ = eight
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit(data, "hbb", metrics=["fpr", "base_rate"], random_seed=3, **fast)
    assert not res.draws_counts
    with pytest.raises(InvalidParameterError, match="keeps no confusion counts"):
        res.count_draws()
    _, weights = groups.overall_rate(res, "fpr")
    base = res.rates("base_rate").transpose("chain", "draw", "group").values.reshape(-1, K)
    n = res.idata.constant_data["n_labeled"].values  # hbb reads the labeled rows alone
    np.testing.assert_allclose(weights, n * (1 - base))
