"""The labeled-only band of a rate's gap along the thresholds."""

from __future__ import annotations

import numpy as np
import pytest

import bayesfair as bf
from bayesfair.exceptions import InvalidParameterError
from bayesfair.frequentist import newcombe_interval, threshold_band


@pytest.fixture(scope="module")
def frames():
    from bayesfair.datasets.simulate import differential_calibration

    return differential_calibration(2, 400, 100, kind="none", random_seed=3)


def test_each_threshold_is_newcombes_interval_at_the_bonferroni_level(frames):
    labeled, _ = frames
    data = bf.AssessmentData(labeled["score"], labeled["label"], labeled["group"], reference="g1")
    t = [0.2, 0.5, 0.8]
    band = threshold_band(data, "tpr", t, group="g0")
    assert band.attrs["level_each"] == pytest.approx(1 - 0.05 / 3)
    for j, threshold in enumerate(t):
        counts = []
        for g in ("g0", "g1"):
            mine = labeled[labeled["group"] == g]
            y = mine["label"].to_numpy() == 1
            counts += [int((mine["score"].to_numpy()[y] >= threshold).sum()), int(y.sum())]
        lo, hi = newcombe_interval(*counts, 1 - 0.05 / 3)
        assert band["gap_lower"][j] == pytest.approx(lo)
        assert band["gap_upper"][j] == pytest.approx(hi)
        assert band["gap"][j] == pytest.approx(counts[0] / counts[1] - counts[2] / counts[3])


def test_a_summary_at_one_threshold_cannot_be_swept(frames):
    labeled, _ = frames
    summary = bf.summarize(labeled, score="score", label="label", group="group")
    data = bf.AssessmentData.from_summaries(summary, None, reference="g1")
    with pytest.raises(InvalidParameterError, match="summary"):
        threshold_band(data)


def test_the_default_sweep_has_nineteen_thresholds(frames):
    labeled, _ = frames
    data = bf.AssessmentData(labeled["score"], labeled["label"], labeled["group"], reference="g1")
    band = threshold_band(data, "fpr")
    assert np.allclose(band["threshold"], np.arange(1, 20) * 0.05)
    assert (band["gap_lower"] <= band["gap_upper"]).all()
