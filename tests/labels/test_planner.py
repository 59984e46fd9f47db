"""bayesfair.labels.planner: how many labels a decision needs (plan_labels), by
preposterior simulation."""

import warnings

import numpy as np
import pandas as pd
import pytest

import bayesfair as bf
from bayesfair.exceptions import InvalidParameterError, SamplingWarning
from bayesfair.labels.acquisition import Pool


def test_plan_contract(data):
    plan = bf.plan_labels(
        data, metric="accuracy", epsilon=0.05, budgets=[60, 120], n_sims=4, random_seed=0
    )
    sims = pd.DataFrame(plan.attrs["simulations"])  # one return type: the simulations ride along
    assert {
        "strategy",
        "method",
        "group",
        "reference",
        "budget",
        "n_new",
        "width_median",
        "width_q10",
        "width_q90",
        "p_decision",
        "p_fair",
        "valid",
        "n_sims",
    } <= set(plan.columns)
    assert len(plan) == 2 * 4 * 2  # strategies x methods x budgets (one pair)
    assert set(plan["n_new"]) == {0, 60}
    assert (plan["n_sims"] == 4).all()
    active = plan[plan["strategy"] == "active"].set_index(["method", "budget"])["valid"]
    # stratum-level selection (the default) keeps PPI++ valid; labeled-only intervals are not
    assert active["bayes"].all() and active["ppi"].all()
    assert not active["newcombe"].any() and not active["bernstein"].any()
    assert plan.loc[plan["strategy"] == "random", "valid"].all()
    with warnings.catch_warnings():
        # two simulations per budget: one refit with Pareto k̂ > 0.7 is half of them, and
        # the planner's SamplingWarning (over 20% shaky) is meant for real plans
        warnings.simplefilter("ignore", SamplingWarning)
        within = {
            how: bf.plan_labels(
                data,
                metric="accuracy",
                budgets=[80],
                n_sims=2,
                random_seed=0,
                methods=["bayes", "ppi"],
                within=how,
            )
            for how in ("score", "mixed")
        }
    for how, chosen in within.items():  # chosen within scores, or mixed: PPI++ is not valid
        assert not chosen.query("strategy == 'active' and method == 'ppi'")["valid"].any(), how
    assert within["mixed"].query("method == 'bayes'")["valid"].all()
    assert len(sims) == 4 * 2 * 4 * 2
    assert (sims["width"] > 0).all()
    # more labels never widen the median interval by much (same truths, nested labels)
    bayes = plan[(plan["method"] == "bayes") & (plan["strategy"] == "random")]
    assert bayes["width_median"].iloc[1] < bayes["width_median"].iloc[0]


def test_plan_without_labels_from_a_summary(data):
    summary = bf.summarize_unlabeled(
        (data.unlabeled_scores, data.unlabeled_groups), engine="numpy", score="score", group="group"
    )
    plan = bf.plan_labels(
        summary, metric="tpr", budgets=[40], n_sims=3, methods=["bayes"], random_seed=0
    )
    assert set(plan["strategy"]) == {"random", "active"}
    assert (plan["budget"] == 40).all() and (plan["n_new"] == 40).all()


def test_plan_bad_input(data):
    with pytest.raises(InvalidParameterError, match="smaller than the 60 labels"):
        bf.plan_labels(data, budgets=[30, 100], n_sims=2)
    with pytest.raises(InvalidParameterError, match="exceed"):
        bf.plan_labels(data, budgets=[10**6], n_sims=2)
    with pytest.raises(InvalidParameterError, match="'budgets' parameter must be an integer >= 1"):
        bf.plan_labels(data, budgets=[0], n_sims=2)
    with pytest.raises(InvalidParameterError, match="must be a list of label counts"):
        bf.plan_labels(data, budgets=100, n_sims=2)
    with pytest.raises(InvalidParameterError, match="Unknown method"):
        bf.plan_labels(data, budgets=[100], n_sims=2, methods=["wald"])
    with pytest.raises(InvalidParameterError, match="Unknown strategy"):
        bf.plan_labels(data, budgets=[100], n_sims=2, strategies=["greedy"])
    with pytest.raises(TypeError, match="AssessmentData or an unlabeled ScoreSummary"):
        bf.plan_labels(pd.DataFrame({"score": [0.1]}), budgets=[1])
    with pytest.raises(TypeError, match="design_prior"):  # removed in 0.3
        bf.plan_labels(data, budgets=[100], n_sims=2, design_prior={"mu_a_sd": 1.0})
    labeled_only = bf.AssessmentData(data.scores, data.labels, data.groups)
    with pytest.raises(InvalidParameterError, match="has none"):
        bf.plan_labels(labeled_only, budgets=[100])


# ------------------------------------------------------------------ the planner's parts
def _state(data):
    from bayesfair.labels.acquisition import SCORE_CLIP
    from bayesfair.labels.planner import AuditState

    return AuditState(
        np.asarray(data.scores, float),
        np.asarray(data.labels, np.int8),
        np.asarray(data.group_codes),
        Pool.from_summary(data.unlabeled_reduction(SCORE_CLIP)),
    )


def test_truths_from_the_prior_and_the_labels_they_give(data):
    """Without a posterior the truths are the prior's; a truth whose stratum follows its own
    rate 1 (or 0) labels every example there positive (negative), whatever its score."""
    import dataclasses

    from bayesfair.labels.planner import draw_truths
    from bayesfair.models.calibration import CalibrationPriors, DiscrepancyPrior

    state = _state(data)
    rng = np.random.default_rng(0)
    truths = draw_truths(None, state, None, CalibrationPriors(), DiscrepancyPrior(), 2, 5, rng)
    assert len(truths) == 5
    for t in truths:
        assert t.a.shape == t.b.shape == t.c.shape == (2,) and np.all(t.a > 0)
        assert t.free.shape == (2, 2) and t.free.dtype == bool
        assert np.all((t.rate > 0) & (t.rate < 1))
    ones = dataclasses.replace(truths[0], free=np.ones((2, 2), bool), rate=np.ones((2, 2)))
    zeros = dataclasses.replace(ones, rate=np.zeros((2, 2)))
    cells = np.flatnonzero(state.pool.count > 0)[:30]
    assert (ones.labels(cells, state.pool, rng) == 1).all()
    assert (zeros.labels(cells, state.pool, rng) == 0).all()


def test_an_audit_state_takes_its_labels_from_the_pool(data):
    from bayesfair.labels.planner import draw_truths
    from bayesfair.models.calibration import CalibrationPriors, DiscrepancyPrior

    state = _state(data)
    rng = np.random.default_rng(1)
    (truth,) = draw_truths(None, state, None, CalibrationPriors(), DiscrepancyPrior(), 2, 1, rng)
    cells = np.flatnonzero(state.pool.count >= 2)[:3].repeat(2)  # two examples of each
    after = state.add(cells, truth, rng)
    assert after.s.size == state.s.size + 6 and after.y.size == after.g.size == after.s.size
    np.testing.assert_array_equal(after.s[: state.s.size], state.s)  # the labels so far kept
    np.testing.assert_allclose(after.s[state.s.size :], np.exp(state.pool.log_s[cells]))
    np.testing.assert_array_equal(after.g[state.s.size :], state.pool.group[cells])
    np.testing.assert_array_equal(
        state.pool.count - after.pool.count, np.bincount(cells, minlength=state.pool.count.size)
    )
    assert set(after.y[state.s.size :].tolist()) <= {0, 1}


def test_plan_inputs_that_give_no_gap_are_refused(data):
    from bayesfair.labels.planner import PLAN_METHODS, STRATEGIES

    assert list(PLAN_METHODS) == ["bayes", "newcombe", "ppi", "bernstein"]
    assert list(STRATEGIES) == ["random", "active"]
    with pytest.raises(InvalidParameterError, match=r"Unknown group 'Asian'; the groups are"):
        bf.plan_labels(data, budgets=[100], n_sims=2, group="Asian")
    one = bf.summarize_unlabeled((data.unlabeled_scores, np.zeros(data.n_unlabeled, int)))
    with pytest.raises(InvalidParameterError, match="A gap needs two groups; the data have one"):
        bf.plan_labels(one, budgets=[10], n_sims=2)
    labeled = bf.summarize((data.scores, data.groups, data.labels))
    with pytest.raises(InvalidParameterError, match="holds labels"):
        bf.plan_labels(labeled, budgets=[10], n_sims=2)
    summary = bf.summarize_unlabeled((data.unlabeled_scores, data.unlabeled_groups))
    with pytest.raises(InvalidParameterError, match=r"Unknown reference 'nobody'"):
        bf.plan_labels(summary, budgets=[10], n_sims=2, reference="nobody")
    with pytest.raises(InvalidParameterError, match="n_draws"):
        bf.plan_labels(summary, budgets=[10], n_sims=2, n_draws=50)


def test_default_budgets_double_up_to_the_pool(data):
    """Without budgets: 50, 100, 200, ... more than collected, as far as the pool allows."""
    summary = bf.summarize_unlabeled((data.unlabeled_scores[:300], data.unlabeled_groups[:300]))
    plan = bf.plan_labels(
        summary, n_sims=2, methods=["newcombe"], strategies="random", random_seed=0
    )
    assert sorted(set(plan["budget"])) == [50, 100, 200]
    assert (plan["n_new"] == plan["budget"]).all() and (plan["strategy"] == "random").all()


# --------------------------------------------------------------------------- the answer
def _plan_table(p_random, p_active, budgets=(100, 200, 400)):
    rows = []
    for strategy, shares in (("random", p_random), ("active", p_active)):
        for budget, p in zip(budgets, shares, strict=True):
            rows.append(
                {
                    "strategy": strategy,
                    "method": "bayes",
                    "group": "g0",
                    "reference": "g3",
                    "budget": budget,
                    "n_new": budget - 50,
                    "p_decision": p,
                }
            )
    return pd.DataFrame(rows)


def test_the_plan_answers_with_the_smallest_budget_that_decides():
    from bayesfair.labels.planner import plan_sentence

    text = plan_sentence(_plan_table([0.3, 0.85, 0.95], [0.8, 0.9, 1.0]), 0.02, "accuracy")
    assert text.startswith("About 200 labels in all (150 more, drawn at random) decide the gap")
    assert "accuracy of g0 − g3 at ε = 0.02 in 80% of simulated audits (bayes)" in text
    assert text.endswith("; about 100 if chosen by bayesfair suggest.")
    none = plan_sentence(_plan_table([0.1, 0.2, 0.3], [0.1, 0.2, 0.3]), 0.02)
    assert none.startswith("No budget up to 400 labels decides the gap g0 − g3")
    assert "(bayes: 30% at 400)" in none


def test_the_plan_of_the_worst_off_group_names_its_pair():
    """``group="worst"``: one pair, of the group the current posterior makes worst off
    (g0, 30% of its labels flipped: its accuracy about 20 points lower); the figure's
    title names it."""
    import matplotlib

    matplotlib.use("Agg")
    from bayesfair.datasets.simulate import differential_calibration
    from bayesfair.report.plots import plot_label_plan

    lab, unl = differential_calibration(4, 400, 4000, amount=0.3, random_seed=1)
    data = bf.AssessmentData.from_frames(
        lab.drop(columns="p"),
        unl.drop(columns=["label", "p"]),
        score="score",
        label="label",
        group="group",
        reference="g1",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plan = bf.plan_labels(
            data, budgets=[500], n_sims=2, methods=["bayes"], group="worst", random_seed=0
        )
    assert set(plan[["group", "reference"]].itertuples(index=False)) == {("g0", "g1")}
    axes = plot_label_plan(plan, metric="accuracy")
    assert axes[0].figure.get_suptitle() == "Labels for a decision: accuracy of g0 − g1"
    with pytest.raises(InvalidParameterError, match="Unknown group 'nobody'"):
        bf.plan_labels(data, budgets=[500], n_sims=2, group="nobody")
