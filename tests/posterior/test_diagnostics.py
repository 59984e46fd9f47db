"""The sampler's diagnostics of a result (bayesfair.posterior.diagnostics)."""

import warnings

import numpy as np
import pytest

import bayesfair as bf
from bayesfair.exceptions import SamplingWarning
from bayesfair.posterior import diagnostics


@pytest.fixture(scope="module")
def bb_fit():
    data = bf.datasets.load_assessment("adult-sex", "MLP", n_labeled=100, random_seed=0)
    return bf.fit(data, "bb", metrics=["accuracy"], draws=400, chains=2, random_seed=0)


def test_an_exact_sampler_has_nothing_to_diagnose(bb_fit):
    assert diagnostics.check_result_diagnostics(bb_fit) == []


@pytest.mark.slow
def test_diagnostics_warn_with_advice_for_disagreeing_chains():
    data = bf.datasets.load_assessment("adult-sex", "MLP", n_labeled=100, random_seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SamplingWarning)
        res = bf.fit(data, "hbb", metrics=["accuracy"], draws=20, tune=5, chains=2, random_seed=1)
    table = diagnostics.result_diagnostics(res)
    assert {"r_hat", "ess_bulk", "divergences"} <= set(table.columns)
    bad = table.index[table["r_hat"] > 1.0].tolist()
    assert bad  # 20 draws after 5 tuning steps: some chains disagree
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SamplingWarning)
        problems = diagnostics.check_result_diagnostics(res, rhat_max=1.0)
    assert problems[0].startswith(f"R-hat above 1.0 for {bad}")
    assert [str(w.message) for w in caught] == problems  # each problem warned, once
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always", SamplingWarning)
        loose = diagnostics.check_result_diagnostics(res, rhat_max=np.inf)
    assert not [p for p in loose if "R-hat" in p]
