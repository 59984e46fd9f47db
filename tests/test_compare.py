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
    with pytest.raises(ValueError, match="'data' parameter must be an AssessmentData"):
        bf.compare(res, ["accuracy"])
    with pytest.raises(ValueError, match="'selection' parameter must be"):
        bf.compare(data, ["accuracy"], posteriors={"bb": res}, models=(), selection="best")
    with pytest.raises(ValueError, match="'metrics' parameter must name at least one rate"):
        bf.compare(data, [], posteriors={"bb": res}, models=())
