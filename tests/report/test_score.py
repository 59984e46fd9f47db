"""``compare(..., score=True)``: the AUC gap by two methods, the sweep, the section and
the figures of the score beyond one threshold."""

from __future__ import annotations

import json

import numpy as np
import pytest

import bayesfair as bf
from bayesfair.exceptions import InvalidParameterError
from bayesfair.report.score import SCORE_THRESHOLDS, score_figures


@pytest.fixture(scope="module")
def comp(data, fit_kwargs):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bf.compare(
            data,
            ["tpr"],
            random_seed=0,
            fit_kwargs=dict(fit_kwargs),
            progressbar=False,
            n_resamples=200,
            score=True,
        )


def test_the_auc_gap_stands_beside_delong(comp, data):
    row = comp.scores.iloc[0]
    assert row["hdi_lower"] <= row["mean"] <= row["hdi_upper"]
    d = bf.frequentist.auc_difference(data, group=row["group"], reference=row["reference"])
    assert row["delong_estimate"] == pytest.approx(d.estimate)
    assert row["delong_lower"] == pytest.approx(d.interval[0])


def test_the_sweep_holds_tpr_and_fpr_at_the_reports_thresholds(comp):
    assert set(comp.sweep["metric"]) == {"tpr", "fpr"}
    tpr = comp.sweep[comp.sweep["metric"] == "tpr"]
    np.testing.assert_allclose(tpr["threshold"], SCORE_THRESHOLDS)


def test_the_reports_carry_the_section(comp):
    markdown = comp.to_markdown()
    assert "The score beyond one threshold" in markdown
    report = json.loads(bf.report.comparison_json(comp))
    assert len(report["score"]["auc"]) == 1 and len(report["score"]["sweep"]) == 18


def test_three_figures(comp):
    captions = [caption for caption, _ in score_figures(comp)]
    assert len(captions) == 3 and captions[0].startswith("ROC")


def test_without_a_map_or_with_a_proxy_it_says_why(data):
    with pytest.raises(InvalidParameterError, match="calibration model"):
        bf.compare(data, ["tpr"], models=("bb",), score=True, progressbar=False)
    from bayesfair.datasets.simulate import proxy_audit

    audit = proxy_audit(k=2, n_labeled=200, n_unlabeled=500, n_self_reported=100, random_seed=1)
    with pytest.raises(InvalidParameterError, match="proxy"):
        bf.compare(audit.assessment_data(), ["tpr"], score=True, progressbar=False)
