"""bayesfair.compare: the side-by-side table of every method, built from the same rows."""

import pytest

import bayesfair as bf


@pytest.fixture(scope="module")
def fitted():
    data = bf.datasets.load_assessment("compas-race", "LR", n_labeled=200, random_seed=0)
    res = bf.fit(data, "bb", metrics=["accuracy", "fpr"], draws=500, chains=2, random_seed=0)
    return data, res


def test_compare_uses_the_same_row(fitted):
    data, res = fitted
    comp = bf.compare(
        data,
        ["accuracy", "fpr"],
        models=(),
        posteriors={"bb": res},
        epsilon=0.03,
        ci_prob=0.9,
        n_resamples=200,
        random_seed=0,
        progressbar=False,
    )
    summary = res.summary(epsilon=0.03, ci_prob=0.9).set_index("metric")
    for _, row in comp.pairs.iterrows():
        mine = summary.loc[row["metric"]]
        assert row["bb_mean"] == mine["mean"]
        assert (row["bb_lower"], row["bb_upper"]) == (mine["hdi_lower"], mine["hdi_upper"])
        assert row["bb_decision"] == mine["decision"]


def test_compare_names_its_arguments_in_errors(fitted):
    data, res = fitted
    with pytest.raises(ValueError, match=r"'fit_kwargs' may not set 'progressbar', 'random_s"):
        bf.compare(data, ["accuracy"], fit_kwargs={"random_seed": 1, "progressbar": True})
    with pytest.raises(ValueError, match="'data' parameter must be an AssessmentData"):
        bf.compare(res, ["accuracy"])
    with pytest.raises(ValueError, match="'selection' parameter must be"):
        bf.compare(data, ["accuracy"], posteriors={"bb": res}, models=(), selection="best")
    with pytest.raises(ValueError, match="'metrics' parameter must name at least one rate"):
        bf.compare(data, [], posteriors={"bb": res}, models=())


# ------------------------------------------------------------------ calibration within groups
FREQ = [
    "mean_score",
    "positive_rate",
    "positive_rate_lower",
    "positive_rate_upper",
    "calibration_gap",
    "calibration_gap_lower",
    "calibration_gap_upper",
]


def _compare(data, **kwargs):
    import warnings

    from bayesfair.exceptions import SamplingWarning

    options = dict(n_resamples=200, random_seed=0, progressbar=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SamplingWarning)  # small draws: plumbing only
        return bf.compare(data, ["accuracy"], **{**options, **kwargs})


def test_compare_carries_calibration_within_groups(data, fit_kwargs):
    """One row per group: the default model's calibration_summary (prefixed ``rbc_``) beside
    the labeled rows' calibration_intervals (``freq_``), computed once by compare."""
    from bayesfair.posterior.calibration_view import CALIBRATION_COLUMNS

    comp = _compare(data, models=("rbc",), fit_kwargs=dict(fit_kwargs))
    view = comp.calibration_view
    bayes = [c for c in CALIBRATION_COLUMNS if c not in ("group", "n_labeled", "n_unlabeled")]
    assert list(view.columns) == [
        "group",
        "n_labeled",
        "n_unlabeled",
        *(f"rbc_{c}" for c in bayes),
        *(f"freq_{c}" for c in FREQ),
        "freq_decision",
        "sentence",
        "note",
    ]
    assert list(view["group"]) == list(data.group_levels)
    assert comp.settings["calibration_model"] == "rbc"
    res = comp.posteriors["rbc"]
    assert "base_rate" in res.metrics  # fitted for the view, beside the compared metrics
    mine = res.calibration_summary(ci_prob=0.95, epsilon=0.02)
    for col in bayes:
        assert list(view[f"rbc_{col}"]) == list(mine[col])
    freq = bf.frequentist.calibration_intervals(data, n_resamples=200, random_seed=1)
    for col in ("mean_score", "positive_rate", "calibration_gap"):  # no resampling in these
        assert view[f"freq_{col}"].to_numpy() == pytest.approx(freq[col].to_numpy())
    assert (view["n_labeled"].to_numpy() == data.group_sizes()["n_labeled"].to_numpy()).all()
    # the labeled rows' reliability curves, for the report's figure
    assert set(comp.reliability["group"]) == set(data.group_levels)


def test_the_seed_of_compare_reaches_the_calibration_bootstrap(data):
    first, again, other = (_compare(data, models=(), random_seed=s) for s in (0, 0, 1))
    cols = ["freq_calibration_gap_lower", "freq_calibration_gap_upper"]
    assert first.calibration_view[cols].equals(again.calibration_view[cols])
    assert not first.calibration_view[cols].equals(other.calibration_view[cols])
    assert first.reliability.equals(again.reliability)
    assert first.settings["calibration_model"] is None  # no model: the labeled rows alone
    assert not any(c.startswith(("bb_", "rbc_")) for c in first.calibration_view)


def test_a_given_result_without_base_rate_leaves_the_labeled_rows_alone(fitted):
    data, res = fitted  # BB of accuracy and FPR: no draws of the share of positives
    comp = _compare(data, models=(), posteriors={"bb": res})
    assert comp.settings["calibration_model"] is None
    assert len(comp.calibration_view) == data.n_groups
    assert comp.calibration_view["freq_calibration_gap"].notna().all()


def test_after_active_selection_the_labeled_rows_intervals_are_left_empty(data):
    comp = _compare(data, models=(), selection="score")
    view = comp.calibration_view
    assert view[[f"freq_{c}" for c in FREQ]].isna().all().all()
    assert (view["freq_decision"] == "undefined").all() and (view["sentence"] == "").all()
    assert "labels chosen actively (selection='score')" in view["note"].iloc[0]


def test_labeled_examples_as_a_summary_leave_the_labeled_rows_columns_empty(make_frame):
    frame = make_frame(["A", "B"], n=200)
    summary = bf.summarize(frame, score="score", group="g", label="label")
    comp = _compare(bf.AssessmentData.from_summaries(summary, reference="A"), models=())
    view = comp.calibration_view
    assert len(view) == 2 and view[[f"freq_{c}" for c in FREQ]].isna().all().all()
    assert "given as a summary" in view["note"].iloc[0]
    assert comp.reliability.empty  # no rows, no curve (and no figure)
    assert "| A | labeled rows | " in comp.to_markdown()


def test_one_seed_gives_one_answer_through_fit_and_compare(fitted, fit_kwargs):
    """``bf.fit(data, model, random_seed=s)`` draws what ``compare(..., random_seed=s)``
    draws for that model (each model's fit takes the caller's seed itself), so the
    report's "random_seed reproduces it" holds through either door."""
    import warnings

    from bayesfair.exceptions import SamplingWarning

    data, _ = fitted
    kw = dict(fit_kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SamplingWarning)  # small draws: plumbing only
        alone = bf.fit(data, "rbc", metrics=["accuracy", "fpr"], random_seed=7, **kw)
        comp = _compare(data, models=("bb", "rbc"), random_seed=7, fit_kwargs=kw)
        bb = bf.fit(data, "bb", metrics=["accuracy"], random_seed=7, **kw)
    # compare fitted rbc for accuracy and the base rate, alone for accuracy and FPR
    assert comp.posteriors["rbc"].rates("accuracy").equals(alone.rates("accuracy"))
    assert comp.posteriors["bb"].rates("accuracy").equals(bb.rates("accuracy"))


def test_a_group_with_a_handful_of_labels_gets_no_bootstrap_interval_and_a_bounded_ppi():
    """Three labels in group b: its percentile bootstrap would take a few values, so the
    pair has none, and says why; Newcombe's and PPI++'s intervals stay, inside [-1, 1]."""
    import warnings

    import numpy as np

    from bayesfair.report.pair_methods import MIN_BOOTSTRAP_TRIALS

    rng = np.random.default_rng(1)
    s = rng.uniform(size=103)
    y = (rng.uniform(size=103) < s).astype(int)
    g = np.array(["a"] * 100 + ["b"] * 3)
    s_u = rng.uniform(size=2000)
    g_u = np.where(rng.uniform(size=2000) < 0.5, "a", "b")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tiny group is warned about
        data = bf.AssessmentData(s, y, g, s_u, g_u, reference="a")
        comp = bf.compare(
            data, ["accuracy"], models=(), n_resamples=200, random_seed=0, progressbar=False
        )
    row = comp.pairs.iloc[0]
    assert row["n_group"] == 3 < MIN_BOOTSTRAP_TRIALS
    assert np.isnan(row["bootstrap_lower"]) and np.isnan(row["bootstrap_upper"])
    assert f"fewer than {MIN_BOOTSTRAP_TRIALS} labeled examples" in row["note"]
    assert -1.0 <= row["newcombe_lower"] < row["newcombe_upper"] <= 1.0
    assert -1.0 <= row["ppi_lower"] < row["ppi_upper"] <= 1.0


def test_a_group_of_all_correct_labels_gets_no_bootstrap_interval_of_a_gap_or_the_variance():
    """Group b's 12 labeled rows are all correct: its resamples never vary. The pair's
    percentile bootstrap would collapse onto b's accuracy of 1, and Lum et al.'s variance
    intervals would overstate the spread (b is smaller than a), so neither is printed,
    and the notes say why; Newcombe's interval and the variance's estimates stay."""
    import warnings

    import numpy as np

    rng = np.random.default_rng(2)
    s = np.concatenate([rng.uniform(size=120), np.full(12, 0.9)])
    y = np.concatenate([(rng.uniform(size=120) < s[:120]).astype(int), np.ones(12, int)])
    g = np.array(["a"] * 120 + ["b"] * 12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the small group is warned about
        data = bf.AssessmentData(s, y, g, reference="a")
        comp = bf.compare(
            data, ["accuracy"], models=(), n_resamples=200, random_seed=0, progressbar=False
        )
    row = comp.pairs.iloc[0]
    assert np.isnan(row["bootstrap_lower"]) and np.isnan(row["bootstrap_upper"])
    assert "b has a rate of 0 or 1" in row["note"]
    assert row["newcombe_lower"] < 0 < row["newcombe_upper"]
    var = comp.variance.loc["accuracy"]
    assert np.isfinite(var["double_corrected"])
    assert np.isnan(var["double_corrected_lower"]) and np.isnan(var["corrected_upper"])
    assert "no bootstrap interval of the variance: b" in var["note"]
    assert "no bootstrap interval of the variance" in bf.report.comparison_markdown(
        comp, detail="full"
    )
