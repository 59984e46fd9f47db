"""The report of data with group probabilities: the assumption on its first screen, the
weighted estimate and the bounds beside the posterior in its detail."""

import json
import warnings

import pytest

import bayesfair as bf
from bayesfair.datasets.simulate import proxy_audit


@pytest.fixture(scope="module")
def comparisons():
    out = {}
    fit = {"draws": 200, "tune": 200, "chains": 2}
    for n_self in (0, 300):
        audit = proxy_audit(
            k=2, n_labeled=500, n_unlabeled=3000, n_self_reported=n_self, random_seed=4
        )
        data = audit.assessment_data()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out[n_self] = bf.compare(
                data, ["selection_rate", "tpr"], random_seed=0, fit_kwargs=fit, progressbar=False
            )
    return out


def test_the_first_screen_names_what_the_groups_rest_on(comparisons):
    text = comparisons[300].to_markdown()
    first = text.split("## ")[0]
    assert "known only from a proxy" in first and "calibrated on 300 self-reported rows" in first
    blind = comparisons[0].to_markdown().split("## ")[0]
    assert "assumed calibrated and independent of the score and outcome" in blind


def test_the_bounds_and_the_weighted_estimate_stand_beside_the_posterior(comparisons):
    for comp in comparisons.values():
        pairs = comp.pairs
        for column in ("proxy_weighted_estimate", "proxy_weighted_lower", "proxy_bounds_lower"):
            assert pairs[column].notna().all()
        assert (pairs["proxy_bounds_lower"] <= pairs["proxy_weighted_estimate"]).all()
        assert (pairs["proxy_weighted_estimate"] <= pairs["proxy_bounds_upper"]).all()
        detail = comp.to_markdown(detail="full")
        assert "proxy bounds" in detail and "proxy-weighted" in detail
        assert "assume only the proxy calibrated" in detail
        settings = json.loads(comp.to_json())["settings"]
        assert settings["proxy"]["rows"] > 0


def test_data_without_a_proxy_keep_their_columns():
    data = bf.AssessmentData(
        scores=[0.2, 0.8, 0.6, 0.1] * 5, labels=[0, 1, 1, 0] * 5, groups=list("aabb") * 5
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comp = bf.compare(data, ["accuracy"], models=("bb",), random_seed=0)
    assert not any(c.startswith("proxy_") for c in comp.pairs.columns)
    assert comp.settings["proxy"] is None
