"""Audits over time: periods in the data, each group's fit over its periods, the drift flag.

The fits here are for plumbing (small draws); the coverage of the period gaps and the
drift flag's power and false flags are simulated in ``tests/statistical/test_period_audits.py``.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import bayesfair as bf
from bayesfair.datasets.simulate import drifting_periods
from bayesfair.exceptions import InvalidParameterError
from bayesfair.posterior.periods import (
    DRIFT_RESAMPLES,
    PERIOD_COLUMNS,
    drift_table,
    group_over_periods,
    period_sizes,
)


def _data(labeled, unlabeled):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bf.AssessmentData.from_frames(
            labeled,
            unlabeled.drop(columns=["label", "p"]),
            score="score",
            label="label",
            group="group",
            period="period",
        )


@pytest.fixture(scope="module")
def deployment(fast):
    """4 periods x 2 groups; 80 labels per group in period 0, none in period 1, 60 after;
    group B's scores drift by 3 logits from period 2 on (a drift no check could miss)."""
    lab, unl = drifting_periods(
        4, [80, 0, 60, 60], 600, drift_group="B", drift_from=2, shift=3.0, random_seed=3
    )
    data = _data(lab, unl)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit_periods(data, random_seed=1, **fast)
    return lab, unl, data, res


# ------------------------------------------------------------------ the data
def test_periods_are_ordered_in_time_and_coded_per_row():
    lab = pd.DataFrame(
        {
            "score": [0.2, 0.7, 0.6, 0.4],
            "label": [0, 1, 1, 0],
            "g": ["a", "b", "a", "b"],
            "q": pd.to_datetime(["2024-04-01", "2024-01-01", "2024-04-01", "2024-01-01"]),
        }
    )
    unl = pd.DataFrame(
        {"score": [0.3, 0.8], "g": ["a", "b"], "q": pd.to_datetime(["2024-07-01", "2024-01-01"])}
    )
    data = bf.AssessmentData.from_frames(
        lab, unl, score="score", label="label", group="g", period="q"
    )
    assert data.period_levels == list(pd.to_datetime(["2024-01-01", "2024-04-01", "2024-07-01"]))
    np.testing.assert_array_equal(data.labeled_examples.period_codes, [1, 0, 1, 0])
    np.testing.assert_array_equal(data.unlabeled_examples.period_codes, [2, 0])
    sizes = period_sizes(data)
    assert sizes.loc[(data.period_levels[2], "a"), "n_unlabeled"] == 1
    assert sizes.loc[(data.period_levels[2], "a"), "n_labeled"] == 0
    assert sizes["n_labeled"].sum() == 4 and sizes["n_unlabeled"].sum() == 2


def test_an_ordered_categorical_keeps_its_order_and_others_are_sorted():
    q = pd.Categorical(["Q4", "Q1", "Q3"], categories=["Q4", "Q1", "Q3"], ordered=True)
    data = bf.AssessmentData([0.2, 0.7, 0.6], [0, 1, 1], ["a", "b", "a"], periods=q)
    assert data.period_levels == ["Q4", "Q1", "Q3"]
    plain = bf.AssessmentData([0.2, 0.7, 0.6], [0, 1, 1], ["a", "b", "a"], periods=[3, 1, 2])
    assert plain.period_levels == [1, 2, 3]
    # numbers and dates read as text are put in their own order, not the text's
    text = bf.AssessmentData([0.2, 0.7, 0.6], [0, 1, 1], ["a", "b", "a"], periods=["10", "9", "1"])
    assert text.period_levels == ["1", "9", "10"]
    dates = ["2024-10-01", "2024-09-01", "2024-01-15"]
    by_date = bf.AssessmentData([0.2, 0.7, 0.6], [0, 1, 1], ["a", "b", "a"], periods=dates)
    assert by_date.period_levels == ["2024-01-15", "2024-09-01", "2024-10-01"]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(periods=[1, 2]), "Length mismatch"),
        (dict(periods=[1, None, 2]), "missing periods"),
        (dict(periods=[1, "b", 2]), "comparable"),
        # read from a file as text: a mix of kinds has no order in time
        (dict(periods=["1", "2024-03-01", "2024Q2"]), r"mix kinds.*number: 1.*date: 2024-03"),
        (dict(periods=["3.5", "2024Q2", "2024Q1"]), r"mix kinds.*text: 2024Q1, 2024Q2"),
        (dict(unlabeled_periods=[1]), "'periods' is missing"),
    ],
)
def test_bad_periods_are_refused_with_a_message(kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        bf.AssessmentData([0.2, 0.7, 0.6], [0, 1, 1], ["a", "b", "a"], **kwargs)


def test_periods_need_rows_on_both_sides():
    with pytest.raises(InvalidParameterError, match="'unlabeled_periods' is missing"):
        bf.AssessmentData([0.2, 0.7], [0, 1], ["a", "b"], [0.3], ["a"], periods=[0, 1])


def test_a_group_over_its_periods_is_the_data_of_its_fit(deployment):
    lab, _, data, _ = deployment
    sub = group_over_periods(data, "B")
    assert sub.group_levels == [0, 1, 2, 3]
    counts = sub.group_sizes()
    expected = lab[lab["group"] == "B"].groupby("period").size()
    assert (
        counts["n_labeled"].to_dict()
        == {0: 80, 1: 0, 2: 60, 3: 60}
        == {0: expected[0], 1: 0, 2: expected[2], 3: expected[3]}
    )
    assert (counts["n_unlabeled"] == 600).all()


# ------------------------------------------------------------------ the result
def test_compare_on_data_with_periods_names_the_route_to_the_period_report(deployment):
    """Not an AttributeError: the error says what to call instead, and that call works."""
    from bayesfair.report.periods import period_markdown

    _, _, data, res = deployment
    with pytest.raises(InvalidParameterError, match=r"has periods.*period_markdown\(res\)"):
        bf.compare(data, ["accuracy"], progressbar=False)
    assert period_markdown(res, ["accuracy"]).startswith("#")


def test_fit_periods_is_the_entry_and_fit_refuses_periods(deployment):
    """One return type per function: ``fit_periods`` gives the PeriodPosterior; ``fit``
    refuses data with periods with the route to ``fit_periods``; data without periods
    are refused by ``fit_periods`` with the route to ``fit``."""
    lab, _, data, res = deployment
    assert isinstance(res, bf.PeriodPosterior)
    assert res.settings["provenance"]["call"].startswith("bayesfair.fit_periods(data, ")
    with pytest.raises(InvalidParameterError, match=r"bayesfair\.fit_periods\(data"):
        bf.fit(data, model="bb", random_seed=1, progressbar=False)
    plain = bf.AssessmentData.from_frames(lab, score="score", label="label", group="group")
    with pytest.raises(InvalidParameterError, match=r"no periods: bayesfair\.fit\(data"):
        bf.fit_periods(plain, model="bb")
    with pytest.raises(InvalidParameterError, match="must be an AssessmentData"):
        bf.fit_periods(lab)
    with pytest.warns(bf.exceptions.IgnoredOptionWarning, match="ignores 'variant'") as record:
        bf.fit_periods(data, model="bb", variant="beta", random_seed=1, progressbar=False)
    assert record[0].filename == __file__  # the caller's line, through fit_periods


def test_period_summary_has_one_row_per_metric_period_and_pair(deployment):
    _, _, _, res = deployment
    table = res.period_summary(["accuracy", "tpr"], epsilon=0.05)
    assert list(table.columns) == PERIOD_COLUMNS
    assert len(table) == 2 * 4
    assert set(table["group"]) == {"B"} and set(table["reference"]) == {"A"}
    assert (table["lower"] <= table["mean"]).all() and (table["mean"] <= table["upper"]).all()
    assert table.loc[table["period"] == 1, "n_labeled"].eq(0).all()


def test_the_period_verdicts_pass_the_one_gate(deployment):
    """A period without labels rests on the group's labels of the other periods (its
    evidence counts them), so it is not "too few" for want of its own; every verdict is the
    gate's on the period's band."""
    from bayesfair.metrics.verdicts import TOO_FEW, decide
    from bayesfair.posterior.periods import period_evidence

    _, _, _, res = deployment
    table = res.period_summary("accuracy", epsilon=0.05)
    for _, row in table.iterrows():
        gate = [period_evidence(res, "accuracy", g, row["period"]) for g in ("B", "A")]
        assert row["decision"] == decide(row["lower"], row["upper"], 0.05, gate)
    unlabeled_period = period_evidence(res, "accuracy", "B", 1)
    assert unlabeled_period.labeled >= 200 and unlabeled_period.enough
    assert table.loc[table["period"] == 1, "decision"].ne(TOO_FEW).all()


def test_the_gap_is_the_difference_of_the_groups_draws_in_the_period(deployment):
    _, _, _, res = deployment
    a, b = res.rate_draws("accuracy", "A"), res.rate_draws("accuracy", "B")
    table = res.period_summary("accuracy")
    row = table.iloc[2]
    assert row["mean"] == pytest.approx(np.mean(b[2] - a[2]))
    lo, hi = bf.stats.simultaneous_band((b - a).T)
    assert (row["lower"], row["upper"]) == (pytest.approx(lo[2]), pytest.approx(hi[2]))
    assert table.attrs["band"] == "simultaneous over periods and groups"


def test_the_band_holds_for_the_family_of_periods_and_groups(fast):
    """Three groups, four periods: six gaps per metric. Every gap's draws lie in their
    band together in at least ci_prob of the draws, and no band is narrower than the
    gap's own equal-tailed interval at ci_prob."""
    lab, unl = drifting_periods(4, 60, 300, groups=("A", "B", "C"), random_seed=8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit_periods(_data(lab, unl), random_seed=2, **fast)
    table = res.period_summary("accuracy", ci_prob=0.9)
    ref = res.rate_draws("accuracy", "A")
    joint = np.column_stack(
        [(res.rate_draws("accuracy", g) - ref)[t] for g in ("B", "C") for t in range(4)]
    )
    lower, upper = table["lower"].to_numpy(), table["upper"].to_numpy()
    assert list(zip(table["group"], table["period"], strict=True)) == [
        (g, t) for g in ("B", "C") for t in range(4)
    ]
    inside = ((joint >= lower) & (joint <= upper)).all(axis=1).mean()
    assert inside >= 0.9
    own = np.quantile(joint, [0.05, 0.95], axis=0)
    assert (lower <= own[0] + 1e-12).all() and (upper >= own[1] - 1e-12).all()


def test_the_drift_flag_reads_the_periods_that_moved(deployment):
    """B's labels in periods 2 and 3 are 3 logits above its map before the drift; A's
    never move. The flag's false-alarm rate and power are simulated elsewhere; here the
    plumbing: one row per group and period, p-values only where there are labels."""
    _, _, _, res = deployment
    drift = res.drift
    assert len(drift) == 8
    assert drift.loc[drift["n_labeled"] == 0, "drift_p"].isna().all()
    assert not drift.loc[drift["n_labeled"] == 0, "drift"].any()
    b = drift[drift["group"] == "B"].set_index("period")
    # the period where B moved: beyond every one of the bootstrap's draws
    assert b.loc[2, "drift"] and b.loc[2, "drift_p"] == 1 / (DRIFT_RESAMPLES[-1] + 1)
    assert np.isnan(b.loc[0, "drift_p"])  # nothing earlier to compare with
    table = res.period_summary("accuracy").set_index("period")
    assert table.loc[2, "drift"] and table.loc[2, "drift_in"] == "B"
    assert table.loc[2, "drift_p"] == b.loc[2, "drift_p"]
    assert table.loc[2, "drift_family"] == b.loc[2, "drift_family"]


def test_the_family_of_checks_is_adjusted_and_each_check_says_what_it_can_see(deployment):
    """``drift_p_family`` is Holm's adjustment over every check of the audit (periods
    without a check do not count); ``detectable_shift`` shrinks as labels grow, and a
    flag that holds only on its own is worded as a possible drift."""
    from bayesfair.posterior.calibration_test import holm_adjust
    from bayesfair.posterior.periods import family_drift
    from bayesfair.report.periods import drift_sentences

    _, _, _, res = deployment
    drift = res.drift
    checked = drift["drift_p"].notna()
    np.testing.assert_array_equal(
        drift.loc[checked, "drift_p_family"], holm_adjust(drift.loc[checked, "drift_p"])
    )
    assert drift.loc[~checked, "drift_p_family"].isna().all()
    assert (drift["drift_family"] == (drift["drift_p_family"] < 0.05)).all()
    shifts = drift.loc[checked, "detectable_shift"]
    assert (shifts > 0).all() and np.isfinite(shifts).all()
    made_up = pd.DataFrame(
        {
            "period": [1, 2, 1, 2],
            "group": ["A", "A", "B", "B"],
            "n_labeled": [25, 100, 25, 100],
            "statistic": [5.8, 0.1, 0.2, 30.0],
            "drift_p": [0.02, 0.75, 0.65, 1e-7],
            "drift": [True, False, False, True],
            "detectable_shift": [1.8, 0.95, np.inf, 0.9],
            "detectable_change": [0.3, 0.18, np.nan, 0.17],
        }
    )
    words = drift_sentences(family_drift(made_up))
    assert words[0].startswith("Possible drift: A's 25 labels in period 1")
    assert "0.02 for this check alone, 0.06 adjusted over the audit's 4 checks" in words[0]
    assert "flag 0.2 periods by chance" in words[0]
    assert words[1].startswith("Drift: B's 100 labels in period 2")
    assert words[2].startswith(  # the check that sees least: no shift is enough there
        "What the drift checks can see: with 25 labels (B, period 1) no drift of the map, "
        "however large"
    )
    finite = drift_sentences(family_drift(made_up.drop(index=2)))[-1]
    assert finite.startswith("What the drift checks can see: with 25 labels (A, period 1)")
    assert "1.8 logits (about 30 points" in finite and "in about 80% of audits" in finite


def test_an_audit_over_time_is_saved_and_read_back_whole(deployment, tmp_path):
    """``to_netcdf``/``from_netcdf``: the same period table, drift checks, sizes, periods,
    settings and each group's draws; a fit's file is not taken for an audit."""
    _, _, _, res = deployment
    path = res.to_netcdf(tmp_path / "audit.nc")
    back = bf.PeriodPosterior.from_netcdf(path)
    assert back.periods == res.periods and back.groups == res.groups
    assert back.reference == res.reference and back.settings == res.settings
    pd.testing.assert_frame_equal(back.drift, res.drift)
    pd.testing.assert_frame_equal(back.sizes, res.sizes)
    pd.testing.assert_frame_equal(
        back.period_summary(["accuracy"]), res.period_summary(["accuracy"])
    )
    np.testing.assert_array_equal(back.rate_draws("accuracy", "B"), res.rate_draws("accuracy", "B"))
    fit_path = res.fits["A"].to_netcdf(tmp_path / "fit.nc")
    with pytest.raises(InvalidParameterError, match="no audit over time"):
        bf.PeriodPosterior.from_netcdf(fit_path)


def test_dated_periods_and_a_group_without_labels_are_saved_too(tmp_path):
    """Periods that are dates come back as dates; a group without a fit stays without."""
    lab, unl = drifting_periods(2, 40, 200, groups=("A", "B", "C"), random_seed=6)
    lab = lab[lab["group"] != "C"]
    dates = {0: pd.Timestamp("2026-01-01"), 1: pd.Timestamp("2026-04-01")}
    lab, unl = (
        lab.assign(period=lab["period"].map(dates)),
        unl.assign(period=unl["period"].map(dates)),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit_periods(_data(lab, unl), model="bb", random_seed=0, progressbar=False)
    back = bf.PeriodPosterior.from_netcdf(res.to_netcdf(tmp_path / "dated.nc"))
    assert back.periods == res.periods and isinstance(back.periods[0], pd.Timestamp)
    assert back.fits["C"] is None
    pd.testing.assert_frame_equal(
        back.period_summary(["accuracy"]), res.period_summary(["accuracy"])
    )


def test_a_flagged_period_leaves_the_baseline_so_a_lasting_drift_stays_flagged(deployment):
    """B's period 2 is flagged, so period 3 is checked against period 0 alone: the same
    check as on data where period 2 has no labels at all."""
    lab, unl, _, res = deployment
    b = res.drift[res.drift["group"] == "B"].set_index("period")
    beyond_every_draw = 1 / (DRIFT_RESAMPLES[-1] + 1)
    assert b.loc[2, "drift"] and b.loc[3, "drift"] and b.loc[3, "drift_p"] == beyond_every_draw
    alone = drift_table(_data(lab[lab["period"] != 2], unl), "B").set_index("period")
    assert np.isnan(alone.loc[2, "drift_p"])
    assert alone.loc[3, "drift_p"] == pytest.approx(b.loc[3, "drift_p"], rel=1e-9)
    a = res.drift[res.drift["group"] == "A"].set_index("period")
    assert not a.loc[2, "drift"]  # A's period 2 stays in A's baseline for period 3


def test_views_refuse_bad_input(deployment):
    _, _, _, res = deployment
    with pytest.raises(InvalidParameterError, match="epsilon"):
        res.period_summary(epsilon=2)
    with pytest.raises(InvalidParameterError, match="'result' parameter must be"):
        bf.posterior.periods.period_summary("not a result")


def test_a_group_without_labels_is_not_fitted_and_its_gaps_are_undecided():
    lab, unl = drifting_periods(2, 40, 200, groups=("A", "B", "C"), random_seed=6)
    lab = lab[lab["group"] != "C"]
    data = _data(lab, unl)
    assert group_over_periods(data, "C") is None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit_periods(data, model="bb", random_seed=0, progressbar=False)
    assert res.fits["C"] is None
    rows = res.period_summary("accuracy").set_index("group").loc["C"]
    assert rows["mean"].isna().all() and (rows["decision"] == "undecided").all()
    assert not rows["drift"].any()


def test_the_work_per_gradient_of_12_periods_grows_beyond_three_times():
    """Why the 3x cost target of 12 periods x 2 groups is a bound
    (docs/results/periods.md, "Cost"; the same bound as many groups').

    A period fit is one calibration fit per group over its periods. Each gradient
    evaluates every labeled entry (period x side x score bin) once and every period's
    map once, and the steps per draw barely move (31 against 29, measured). On the cost
    benchmark's rows (``benchmarks/periods.py``, "drift": 100 labels per group in
    period 0 and 20 in each later one) the two fits together touch more than three
    times the entries and twelve times the maps of one 2-group fit of the same rows:
    the same labels spread over 12 periods fill more bins, and a period's bins cannot
    be shared with another's without giving up its own map."""
    from bayesfair.models.likelihood import likelihood_data

    lab, unl = drifting_periods(
        12, [100] + [20] * 11, 2_000, drift_group="B", drift_from=6, random_seed=20_260_999
    )
    with_periods = _data(lab, unl)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = bf.AssessmentData.from_frames(
            lab, unl.drop(columns=["label", "p"]), score="score", label="label", group="group"
        )
    plain_entries = likelihood_data(plain.labeled_summary())["count"].size
    period_entries, maps = 0, 0
    for group in with_periods.group_levels:
        sub = group_over_periods(with_periods, group)
        period_entries += likelihood_data(sub.labeled_summary())["count"].size
        maps += sub.n_groups
    assert (plain.n_groups, maps) == (2, 24)
    # 50 and 146 + 144 = 290 entries on these rows: 5.8 times the likelihood's work
    assert period_entries / plain_entries > 3
    assert (period_entries + maps) / (plain_entries + plain.n_groups) > 3


def test_rbc_over_periods_carries_the_labeled_discrepancy_unless_told_otherwise(deployment, fast):
    """A period is the same group later: a label-free period's off-map rate is the map's
    plus the discrepancy of the labeled periods (DiscrepancyPrior.label_free); a prior
    that says "prior" is kept, and a fit of groups is left as it was."""
    from bayesfair.models.calibration import DiscrepancyPrior

    lab, unl, data, res = deployment
    assert res.settings["discrepancy"]["label_free"] == "carried"
    assert all(f.settings["discrepancy"]["label_free"] == "carried" for f in res.fits.values())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kept = bf.fit_periods(
            data, random_seed=1, discrepancy=DiscrepancyPrior(label_free="prior"), **fast
        )
        plain = bf.AssessmentData.from_frames(
            lab, unl.drop(columns=["label", "p"]), score="score", label="label", group="group"
        )
        groups = bf.fit(plain, random_seed=1, **fast)
    assert kept.settings["discrepancy"]["label_free"] == "prior"
    assert groups.settings["discrepancy"]["label_free"] is None
