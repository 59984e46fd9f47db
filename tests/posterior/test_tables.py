"""The table of differences (bayesfair.posterior.tables): one computation of a difference's row,
shared by a result's summary and by compare."""

import warnings

import numpy as np
import pytest

import bayesfair as bf
from bayesfair.posterior import tables


@pytest.fixture(scope="module")
def fitted():
    data = bf.datasets.load_assessment("compas-race", "LR", n_labeled=200, random_seed=0)
    res = bf.fit(data, "bb", metrics=["accuracy", "fpr"], draws=500, chains=2, random_seed=0)
    return data, res


def test_the_summary_rows_are_difference_rows(fitted):
    _, res = fitted
    table = res.summary(epsilon=0.03, ci_prob=0.9)
    for _, row in table.iterrows():
        one = tables.difference_row(res, row["metric"], (row["group"], row["reference"]), 0.03, 0.9)
        for key in ("mean", "hdi_lower", "hdi_upper", "prob_practically_fair", "decision"):
            assert row[key] == one[key]


def test_without_intervals_the_decision_waits(fitted):
    _, res = fitted
    pair = res.pair()
    row = tables.difference_row(res, "accuracy", pair, 0.02, 0.95, intervals=False)
    assert np.isnan(row["hdi_lower"]) and np.isnan(row["eti_upper"])
    assert row["decision"] == "undefined"  # no interval, no verdict


def test_a_summary_from_too_few_draws_warns(quiet_fit, data):
    """100 draws are too few for a 95% interval (at least 200: five draws expected
    beyond each end); the summary says so, as compare does."""
    res = quiet_fit(data, model="bb", metrics=["tpr"], draws=50, chains=2)
    assert res.n_draws == 100  # chains × draws
    with pytest.warns(bf.exceptions.SamplingWarning, match="100 posterior draws are too few"):
        res.summary("tpr")
    with warnings.catch_warnings():
        warnings.simplefilter("error", bf.exceptions.SamplingWarning)
        res.summary("tpr", ci_prob=0.8)  # 0.8 needs 50
