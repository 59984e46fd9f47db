"""bayesfair.report.views: the group, family and calibration views beside the pairs."""

import warnings

import numpy as np
import pytest

import bayesfair as bf
from bayesfair.report.views import GROUP_STATS, ViewSettings, calibration_view, group_views


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(4)
    n = 600
    scores = rng.uniform(0.02, 0.98, n)
    labels = (rng.uniform(size=n) < scores).astype(int)
    groups = rng.choice(["A", "B", "C"], n)
    data = bf.AssessmentData(scores[:240], labels[:240], groups[:240], scores[240:], groups[240:])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bb = bf.fit(data, "bb", metrics=["tpr", "base_rate"], random_seed=0, progressbar=False)
    return data, {"bb": bb}


def test_the_group_and_family_views_set_each_method_side_by_side(fitted):
    data, posteriors = fitted
    settings = ViewSettings(epsilon=0.02, ci_prob=0.95, n_resamples=200)
    groups, family = group_views(
        data, ["tpr"], posteriors, set(), settings, np.random.SeedSequence(1)
    )
    assert list(groups.columns[:4]) == ["metric", "group", "n_labeled", "n_unlabeled"]
    assert [f"bb_{s}" for s in GROUP_STATS] == list(groups.columns[4:9])
    assert list(groups.columns[9:]) == [
        "freq_gap",
        "freq_gap_lower",
        "freq_gap_upper",
        "freq_method",
        "freq_decision",
    ]
    assert len(groups) == 3 and len(family) == 1
    assert family["metric"].tolist() == ["tpr"]
    assert {"bb_max_gap", "freq_max_gap", "freq_decision", "freq_set_aside"} <= set(family)
    assert isinstance(family.loc[0, "freq_set_aside"], tuple)
    # a model with too few draws is left out
    groups, family = group_views(
        data, ["tpr"], posteriors, {"bb"}, settings, np.random.SeedSequence(1)
    )
    assert not any(c.startswith("bb_") for c in groups) and "bb_max_gap" not in family


def test_the_calibration_view_leaves_what_random_labels_assume_empty_after_selection(fitted):
    data, posteriors = fitted
    random_, _ = calibration_view(
        data, posteriors, ViewSettings(0.02, 0.95, 200), np.random.SeedSequence(2)
    )
    assert random_.attrs["model"] == "bb" and random_["note"].iloc[0] == ""
    assert random_["freq_calibration_gap_lower"].notna().all()
    chosen, _ = calibration_view(
        data, posteriors, ViewSettings(0.02, 0.95, 200, "stratum"), np.random.SeedSequence(2)
    )
    for m in ("freq", "bb"):  # bb, of the labels alone, does not hold either
        assert (chosen[f"{m}_decision"] == "undefined").all()
        assert chosen[f"{m}_calibration_gap"].isna().all()
    assert "labels chosen actively (selection='stratum')" in chosen["note"].iloc[0]
    assert (chosen["sentence"] == "").all()
