"""FairnessPosterior at the edge: draws in which a rate is undefined are set aside and said.

With the unlabeled examples' labels drawn (estimand "assessed"), a small group
may have no positive in some draws (its TPR is 0/0 there), and a group with no
predicted positive has no PPV in any draw. Small real NUTS fits (plumbing).
"""

import inspect
import warnings

import numpy as np
import pytest

import bayesfair as bf
from bayesfair.exceptions import UndefinedRateWarning
from bayesfair.metrics.verdicts import decide
from bayesfair.posterior.groups import evidence
from bayesfair.report.document import comparison_markdown
from bayesfair.stats import hdi


@pytest.fixture(scope="module")
def small_group(fast):
    """Group A: 200 labeled and 2,000 unlabeled rows; group B: 5 labeled negatives and 6
    unlabeled rows, all at low scores, so that some draws give B no positive at all."""
    rng = np.random.default_rng(0)
    s_a = rng.uniform(0.02, 0.98, 200)
    y_a = (rng.uniform(size=200) < s_a).astype(int)
    s_b = np.full(5, 0.1)
    scores, labels = np.r_[s_a, s_b], np.r_[y_a, np.zeros(5, int)]
    groups = np.r_[np.full(200, "A"), np.full(5, "B")]
    u_scores = np.r_[rng.uniform(0.02, 0.98, 2000), np.full(6, 0.1)]
    u_groups = np.r_[np.full(2000, "A"), np.full(6, "B")]
    data = bf.AssessmentData(scores, labels, groups, u_scores, u_groups, reference="A")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bf.fit(data, metrics=["accuracy", "tpr", "ppv"], **fast, random_seed=0)


def test_undefined_draws_are_set_aside_and_reported(small_group):
    res = small_group
    p_tpr = res.prob_undefined("tpr")
    assert 0 < p_tpr < 1  # some draws give group B no positive
    assert np.isnan(res.difference("tpr").values).mean() == pytest.approx(p_tpr)
    with pytest.warns(UndefinedRateWarning, match=r"tpr of B vs A in .*%.*'p_undefined'"):
        table = res.summary(metrics=["accuracy", "tpr"])
    row = table.set_index("metric").loc["tpr"]
    assert row["p_undefined"] == pytest.approx(p_tpr)
    # the interval and the probabilities are over the defined draws: no NaN
    for col in (
        "mean",
        "sd",
        "hdi_lower",
        "hdi_upper",
        "eti_lower",
        "eti_upper",
        "prob_positive",
        "prob_practically_fair",
    ):
        assert np.isfinite(row[col]), col
    assert row["decision"] != "undefined"
    d = res.difference("tpr").values
    assert row["eti_lower"] == pytest.approx(np.nanquantile(d, 0.025))
    assert table.set_index("metric").loc["accuracy", "p_undefined"] == 0.0


def test_a_rate_undefined_in_every_draw_is_nan_with_its_share(small_group):
    """Group B has no predicted positive anywhere: its PPV is undefined in every draw."""
    with pytest.warns(UndefinedRateWarning, match="ppv of B vs A in 100.0%"):
        row = small_group.summary(metrics=["ppv"]).iloc[0]
    assert row["p_undefined"] == 1.0
    assert np.isnan(row["hdi_lower"]) and row["decision"] == "undefined"


def test_without_undefined_draws_there_is_no_warning(small_group):
    with warnings.catch_warnings():
        warnings.simplefilter("error", UndefinedRateWarning)
        table = small_group.summary(metrics=["accuracy"])
    assert (table["p_undefined"] == 0).all()


def test_compare_sets_undefined_draws_aside_and_notes_them(small_group, fit_kwargs):
    """The side-by-side table: the rbc interval over the defined draws, its share beside it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comp = bf.compare(
            small_group.data,
            ["tpr"],
            models=("rbc",),
            n_resamples=100,
            random_seed=0,
            fit_kwargs=dict(fit_kwargs),
            progressbar=False,
        )
    row = comp.pairs.iloc[0]
    assert 0 < row["rbc_p_undefined"] < 1
    assert np.isfinite([row["rbc_mean"], row["rbc_lower"], row["rbc_upper"]]).all()
    assert "Δ is undefined (RBC in" in row["note"]
    # the between-group variance row: its share of undefined draws and a sentence
    var = comp.variance.loc["tpr"]
    v = comp.posteriors["rbc"].between_group_variance("tpr").values
    assert var["rbc_p_undefined"] == pytest.approx(np.isnan(v).mean()) and np.isnan(v).mean() > 0
    assert np.isfinite([var["rbc_lower"], var["rbc_upper"]]).all()
    assert "between-group variance is undefined (RBC in" in var["note"]
    assert f"tpr: {var['note']}." in comparison_markdown(comp, detail="full")
    assert comp.variance.loc["tpr", "rbc_mean"] == pytest.approx(np.nanmean(v))


def test_every_accessor_sets_undefined_draws_aside_and_says_so(small_group):
    """P(|Δ| < ε), the decision and the variance's bound and probability: over the
    defined draws, with one UndefinedRateWarning that names the metric and the pair."""
    res = small_group
    d = res.difference("tpr").values
    with pytest.warns(UndefinedRateWarning, match=r"tpr of B vs A in .*P\(\|Δ\| < ε\)"):
        p = res.prob_practically_fair("tpr", epsilon=0.05).iloc[0]
    assert p == pytest.approx(np.mean(np.abs(d[~np.isnan(d)]) < 0.05))
    with pytest.warns(UndefinedRateWarning, match="tpr of B vs A"):
        decision = res.summary("tpr")["decision"].iloc[0]
    lo, hi = hdi(d[~np.isnan(d)], 0.95)  # the verdict over the defined draws, gated
    gate = list(evidence(res, "tpr").values())
    assert decision in {decide(lo, hi, 0.02, gate), "undecided"}
    v = res.between_group_variance("tpr").values
    assert np.isnan(v).mean() == pytest.approx(np.isnan(d).mean())  # no smaller K
    with pytest.warns(UndefinedRateWarning, match="the variance of tpr"):
        bound = res.variance_upper_bound("tpr")
    assert bound == pytest.approx(np.quantile(v[~np.isnan(v)], 0.95))
    with pytest.warns(UndefinedRateWarning, match="the variance of tpr"):
        below = res.prob_variance_below("tpr", 0.01)
    assert below == np.mean(v[~np.isnan(v)] < 0.01)


def test_the_result_s_warnings_point_at_the_caller_s_line(small_group):
    """The methods call functions of other modules (through an argument check); their
    warnings still name the line that called the method, not the package's."""
    res = small_group
    calls = [
        lambda: res.summary("tpr"),
        lambda: res.prob_practically_fair("tpr"),
        lambda: res.variance_upper_bound("tpr"),
        lambda: res.calibration_check(alpha=0.999, min_labels=1),
        lambda: res.check_diagnostics(rhat_max=1.0),
    ]
    for call in calls:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        ours = [w for w in caught if type(w.message).__module__.startswith("bayesfair")]
        assert ours, call
        assert {w.filename for w in ours} == {__file__}, [(w.filename, w.lineno) for w in ours]


def test_one_way_to_each_answer():
    """A summary column or an interval of draws has one name: the second ways are gone."""
    for name in ("prob_direction", "rope_decision", "interval"):
        assert not hasattr(bf.FairnessPosterior, name)
    params = inspect.signature(bf.FairnessPosterior.calibration_check).parameters
    assert "max_draws" not in params and "random_seed" not in params
