"""``bayesfair.data.periods``: the periods of both sides in time order, each row's code.

Audits over time built on them are tested in ``tests/posterior/test_periods.py``.
"""

import numpy as np
import pandas as pd
import pytest

from bayesfair.data.examples import ExampleRows, ExampleSummary
from bayesfair.data.periods import attach_periods
from bayesfair.data.summary import summarize_arrays
from bayesfair.exceptions import InvalidParameterError

LEVELS = ["a", "b"]


def _sides(n_labeled=3, n_unlabeled=2):
    rng = np.random.default_rng(1)
    lab = ExampleRows(
        "labeled",
        LEVELS,
        0.5,
        rng.uniform(size=n_labeled),
        np.arange(n_labeled) % 2,
        labels=np.arange(n_labeled) % 2,
    )
    unl = ExampleRows(
        "unlabeled", LEVELS, 0.5, rng.uniform(size=n_unlabeled), np.zeros(n_unlabeled)
    )
    return lab, unl


def test_no_periods_leaves_the_sides_without_codes():
    lab, unl = _sides()
    assert attach_periods(lab, unl, None, None) is None
    assert lab.period_codes is None and unl.period_codes is None


def test_the_periods_of_both_sides_are_ordered_and_coded_read_only():
    lab, unl = _sides()
    dates = pd.to_datetime(["2024-04-01", "2024-01-01", "2024-04-01"])
    levels = attach_periods(lab, unl, dates, pd.to_datetime(["2024-07-01", "2024-01-01"]))
    assert levels == list(pd.to_datetime(["2024-01-01", "2024-04-01", "2024-07-01"]))
    assert lab.period_codes.tolist() == [1, 0, 1] and unl.period_codes.tolist() == [2, 0]
    assert not lab.period_codes.flags.writeable


@pytest.mark.parametrize(
    ("periods", "unlabeled_periods", "levels"),
    [
        (["10", "9", "1"], ["2", "9"], ["1", "2", "9", "10"]),
        (
            ["2024-10-01", "2024-09-01", "2024-01-15"],
            [],
            ["2024-01-15", "2024-09-01", "2024-10-01"],
        ),
        ([3, 1, 2], [2, 5], [1, 2, 3, 5]),
        (
            pd.Categorical(["Q4", "Q1", "Q3"], categories=["Q4", "Q1", "Q3", "Q2"], ordered=True),
            ["Q3", "Q1"],
            ["Q4", "Q1", "Q3"],
        ),
    ],
)
def test_numbers_dates_and_ordered_categories_keep_their_time_order(
    periods, unlabeled_periods, levels
):
    lab, unl = _sides(n_unlabeled=len(unlabeled_periods))
    got = attach_periods(lab, unl, periods, unlabeled_periods)
    assert got == levels


@pytest.mark.parametrize(
    ("periods", "unlabeled_periods", "match"),
    [
        (None, [1, 2], "'periods' is missing"),
        ([1, 2, 3], None, "'unlabeled_periods' is missing"),
        ([1, 2], [1, 2], r"Length mismatch: 'periods' has 2, 'labeled rows' has 3"),
        ([1, None, 2], [1, 2], "missing periods; position 1 is"),
        ([1, "b", 2], [1, 2], "comparable"),
        (["1", "2024-03-01", "2024Q2"], ["1", "1"], r"mix kinds.*number: 1.*date: 2024-03"),
        (
            pd.Categorical(["Q1", "Q2", "Q1"], categories=["Q1", "Q2"], ordered=True),
            ["Q3", "Q1"],
            r"Period\(s\) \['Q3'\] are not among the ordered categories",
        ),
    ],
)
def test_bad_periods_are_refused_with_a_message(periods, unlabeled_periods, match):
    lab, unl = _sides()
    with pytest.raises(InvalidParameterError, match=match):
        attach_periods(lab, unl, periods, unlabeled_periods)


def test_periods_need_rows():
    lab, unl = _sides()
    held = ExampleSummary("unlabeled", LEVELS, 0.5, summarize_arrays(unl.scores, unl.codes, LEVELS))
    with pytest.raises(InvalidParameterError, match="Periods need the examples as rows"):
        attach_periods(lab, held, [1, 2, 3], [1, 2])


def test_an_empty_unlabeled_side_needs_no_periods():
    lab, unl = _sides(n_unlabeled=0)
    assert attach_periods(lab, unl, [2, 1, 2], None) == [1, 2]
    assert unl.period_codes.tolist() == []
