"""bayesfair.report.variance_rows: Lum et al.'s estimators beside each posterior."""

import warnings

import numpy as np
import pytest

import bayesfair as bf
from bayesfair.report.variance_rows import ESTIMATORS, fixed_small_groups, variance_row
from bayesfair.report.views import ViewSettings


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(5)
    n = 400
    scores = rng.uniform(0.02, 0.98, n)
    labels = (rng.uniform(size=n) < scores).astype(int)
    groups = rng.choice(["A", "B", "C"], n)
    data = bf.AssessmentData(scores, labels, groups)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fits = {
            m: bf.fit(data, m, metrics=["tpr"], random_seed=0, progressbar=False, draws=300)
            for m in ("bb", "hbb")
        }
    return data, fits


def test_a_row_holds_every_estimator_and_posterior_in_order(fitted):
    data, fits = fitted
    row = variance_row(
        data, "tpr", fits, set(), ViewSettings(0.02, 0.95, 200), np.random.SeedSequence(0)
    )
    lum = [c for e in ESTIMATORS for c in (e, f"{e}_lower", f"{e}_upper")]
    assert list(row.columns[:2]) == ["metric", "note"]
    assert list(row.columns[2:11]) == lum and row.columns[11] == "dropped_groups"
    assert list(row.columns[12:16]) == ["bb_mean", "bb_lower", "bb_upper", "bb_p_undefined"]
    assert {"hbb_population_mean", "hbb_population_lower"} <= set(row.columns)  # hbb's own
    assert row["uncorrected_lower"].iloc[0] <= row["uncorrected"].iloc[0]


def test_after_active_selection_the_random_label_intervals_are_empty(fitted):
    data, fits = fitted
    row = variance_row(
        data,
        "tpr",
        fits,
        set(),
        ViewSettings(0.02, 0.95, 200, "stratum"),
        np.random.SeedSequence(0),
    )
    assert row[list(ESTIMATORS)].isna().all(axis=None)
    assert row[["bb_mean", "hbb_mean"]].isna().all(axis=None)  # the labels' own models too
    assert row["dropped_groups"].iloc[0] == "" and row["note"].iloc[0] == ""


def test_a_small_group_that_resamples_to_itself_is_found():
    assert fixed_small_groups([3, 10, 25], [3, 50, 50]).tolist() == [0]
    assert fixed_small_groups([15, 15], [15, 15]).tolist() == []  # equal sizes: none
