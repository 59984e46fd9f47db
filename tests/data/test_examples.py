"""``bayesfair.data.examples``: one example set per side, rows or a summary, one interface."""

import numpy as np
import pandas as pd
import pytest

import bayesfair as bf
from bayesfair.data.examples import ExampleRows, ExampleSummary, count_confusion
from bayesfair.data.summary import summarize_arrays
from bayesfair.exceptions import InvalidParameterError

LEVELS = ["a", "b", "c"]


@pytest.fixture(scope="module")
def rows():
    rng = np.random.default_rng(0)
    s = rng.uniform(size=300)
    y = (rng.uniform(size=300) < s).astype(np.int8)
    g = rng.integers(0, 2, 300)  # group "c" has no example
    return s, y, g


def _both(rows):
    s, y, g = rows
    as_rows = ExampleRows("labeled", LEVELS, 0.5, s, g, labels=y)
    held = summarize_arrays(s, g, LEVELS[:2], labels=y, threshold=0.5)
    return as_rows, ExampleSummary("labeled", LEVELS, 0.5, held)


def test_rows_and_their_summary_answer_alike(rows):
    as_rows, as_summary = _both(rows)
    assert as_rows.n_total == as_summary.n_total == 300
    np.testing.assert_array_equal(as_rows.group_counts(), as_summary.group_counts())
    assert as_rows.group_counts()[2] == 0
    np.testing.assert_array_equal(as_rows.confusion_counts(), as_summary.confusion_counts())
    s, y, g = rows
    np.testing.assert_array_equal(
        as_rows.confusion_counts(), count_confusion(s >= 0.5, y, g, len(LEVELS))
    )
    a, b = as_rows.score_table(), as_summary.score_table()
    pd.testing.assert_frame_equal(
        a[["n", "n_predicted_positive"]], b[["n", "n_predicted_positive"]]
    )
    # the mean from the summary's sums, to floating-point error
    np.testing.assert_allclose(a["mean_score"], b["mean_score"], rtol=1e-12)
    assert b[["min", "median", "max"]].isna().all().all()
    assert a.loc["c", "n"] == 0 and np.isnan(a.loc["c", "mean_score"])


def test_a_summary_is_cached_and_coarsened_to_a_divisor(rows):
    as_rows, as_summary = _both(rows)
    assert as_rows.summary() is as_rows.summary()
    fine = as_summary.summary()
    coarse = as_summary.summary(n_bins=fine.n_bins // 4)
    assert coarse.n_bins == fine.n_bins // 4 and coarse.n_total == fine.n_total
    np.testing.assert_allclose(coarse.totals(), fine.totals())
    with pytest.raises(InvalidParameterError, match="a divisor of the summary's"):
        as_summary.summary(n_bins=fine.n_bins - 1)
    as_rows.clear_cache()
    assert as_rows.summary() is not fine


@pytest.mark.parametrize(
    ("side", "match"),
    [("labeled", "needs the labeled examples as rows"), ("unlabeled", "unlabeled examples as a")],
)
def test_only_rows_give_rows_and_a_summary_says_what_it_keeps(rows, side, match):
    s, y, g = rows
    held = summarize_arrays(s, g, LEVELS[:2], labels=y if side == "labeled" else None)
    with pytest.raises(InvalidParameterError, match=match):
        ExampleSummary(side, LEVELS, 0.5, held).rows("scores")
    as_rows = ExampleRows(side, LEVELS, 0.5, s, g)
    assert as_rows.rows("scores") is as_rows


def test_every_constructor_goes_through_init(rows):
    s, y, g = rows
    held = summarize_arrays(s, g, LEVELS[:2], labels=y, threshold=0.5)
    direct = bf.AssessmentData(labeled=held)
    via = bf.AssessmentData.from_summaries(held)
    assert direct.labeled_is_summary and via.labeled_is_summary
    pd.testing.assert_frame_equal(direct.confusion_counts(), via.confusion_counts())
    assert isinstance(direct.labeled_examples, ExampleSummary)
    assert isinstance(bf.AssessmentData(s, y, g).labeled_examples, ExampleRows)
