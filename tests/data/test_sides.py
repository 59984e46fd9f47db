"""``bayesfair.data.sides``: each side's input checked, the two sides reconciled, warnings."""

import warnings

import numpy as np
import pandas as pd
import pytest

import bayesfair as bf
from bayesfair.data.assessment import AssessmentData
from bayesfair.data.examples import ExampleRows, ExampleSummary
from bayesfair.data.sides import (
    check_summary,
    common_attributes,
    common_threshold,
    labeled_input,
    unlabeled_input,
    warn_unlabeled_only,
)
from bayesfair.data.summary import summarize_arrays
from bayesfair.exceptions import (
    HardPredictionWarning,
    InvalidParameterError,
    UndefinedRateWarning,
    UnlabeledGroupWarning,
)

LEVELS = ["a", "b", "c"]
S = [0.9, 0.2, 0.7, 0.4, 0.6, 0.1]
Y = [1, 0, 0, 1, 1, 0]
G = ["a", "a", "b", "b", "b", "a"]


@pytest.fixture(scope="module")
def rows():
    rng = np.random.default_rng(0)
    s = rng.uniform(size=300)
    y = (rng.uniform(size=300) < s).astype(np.int8)
    g = rng.integers(0, 2, 300)  # group "c" has no example
    return s, y, g


def test_a_side_of_rows_is_built_on_the_datas_levels():
    side, pos_label = labeled_input(S, Y, G, None, None)
    assert pos_label == 1 and side.threshold is None and side.attributes is None
    assert side.group_labels.tolist() == G
    examples = side.build(LEVELS, 0.5)
    assert isinstance(examples, ExampleRows)
    np.testing.assert_array_equal(examples.group_counts(), [3, 3, 0])
    unl = unlabeled_input([0.3], ["c"], None, ["x"]).build(LEVELS, 0.5)
    assert unl.codes.tolist() == [2] and unl.ids.tolist() == ["x"]
    none = unlabeled_input(None, None, None, None)
    assert none.build(LEVELS, 0.5).n_total == 0


def test_a_side_held_as_a_summary_keeps_its_threshold_and_attributes(rows):
    s, y, g = rows
    held = summarize_arrays(s, g, LEVELS[:2], labels=y, threshold=0.4)
    side, pos_label = labeled_input(None, None, None, held, None)
    assert pos_label == 1 and side.threshold == 0.4
    assert isinstance(side.build(LEVELS, 0.4), ExampleSummary)


def test_check_summary_names_the_side():
    with pytest.raises(TypeError, match="The 'labeled' parameter must be a ScoreSummary"):
        check_summary([0.1], "labeled")
    with pytest.raises(TypeError, match="The 'unlabeled' parameter must be the summary"):
        check_summary([0.1], "unlabeled")


def test_check_summary_wants_labels_on_the_labeled_side_only(rows):
    s, y, g = rows
    with pytest.raises(InvalidParameterError, match="holds no labels"):
        check_summary(summarize_arrays(s, g, LEVELS[:2]), "labeled")
    with pytest.raises(InvalidParameterError, match="'unlabeled' summary holds labels"):
        check_summary(summarize_arrays(s, g, LEVELS[:2], labels=y), "unlabeled")


def test_one_side_is_given_one_way(rows):
    s, y, g = rows
    held = summarize_arrays(s, g, LEVELS[:2], labels=y)
    with pytest.raises(InvalidParameterError, match="not both"):
        bf.AssessmentData(s, y, g, labeled=held)
    with pytest.raises(InvalidParameterError, match="need 'scores', 'labels' and 'groups'"):
        bf.AssessmentData(s, y)
    with pytest.raises(InvalidParameterError, match="none of them"):
        bf.AssessmentData()


def test_the_threshold_is_a_labeled_summarys_unless_given(rows):
    s, y, g = rows
    held = summarize_arrays(s, g, LEVELS[:2], labels=y, threshold=0.3)
    assert bf.AssessmentData(labeled=held).threshold == 0.3
    with pytest.raises(InvalidParameterError, match="threshold 0.3, the data use 0.5"):
        bf.AssessmentData(labeled=held, threshold=0.5)
    # rows with an unlabeled summary at another threshold: the rows' default 0.5 stands
    unl = summarize_arrays(s, g, LEVELS[:2], threshold=0.3)
    named = np.asarray(LEVELS, dtype=object)[g]
    with pytest.raises(InvalidParameterError, match="threshold 0.3, the data use 0.5"):
        bf.AssessmentData(s, y, named, unlabeled=unl)
    assert bf.AssessmentData(s, y, named, unlabeled=unl, threshold=0.3).n_unlabeled == 300


def test_common_threshold_and_attributes_reconcile_the_sides():
    lab, _ = labeled_input(S, Y, pd.DataFrame({"race": G}), None, None)
    unl = unlabeled_input([0.3], pd.DataFrame({"sex": ["f"]}), None, None)
    assert common_threshold(None, lab, unl) == 0.5
    assert common_threshold(0.3, lab, unl) == 0.3
    with pytest.raises(InvalidParameterError, match=r"attributes \['sex'\].*\['race'\]"):
        common_attributes(lab, unl)
    none = unlabeled_input(None, None, None, None)
    assert common_attributes(lab, none) == ["race"]


@pytest.mark.parametrize(
    ("ids", "match"),
    [
        (["x"], r"one id per unlabeled example \(2\)"),
        (["x", None], "must not be missing: 1 are, the first at position 1"),
        (["x", "x"], "must be unique.*1 repeat, e.g. 'x'"),
    ],
)
def test_unlabeled_ids_are_one_per_row_present_and_unique(ids, match):
    with pytest.raises(InvalidParameterError, match=match):
        AssessmentData(S, Y, G, [0.3, 0.4], ["a", "b"], unlabeled_ids=ids)


def test_unlabeled_ids_need_rows(rows):
    s, _, g = rows
    held = summarize_arrays(s, g, LEVELS[:2])
    with pytest.raises(InvalidParameterError, match="'unlabeled_ids' needs the unlabeled"):
        AssessmentData(S, Y, G, unlabeled=held, unlabeled_ids=["x"])
    data = AssessmentData(S, Y, G, [0.3, 0.4], ["a", "b"], unlabeled_ids=np.array([7, 8]))
    assert data.unlabeled_examples.ids.tolist() == [7, 8]


def test_warn_unlabeled_only_names_the_groups_without_labels():
    with pytest.warns(UnlabeledGroupWarning, match=r"Group\(s\) \['c'\]"):
        warn_unlabeled_only(LEVELS, np.array([3, 2, 0]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_unlabeled_only(LEVELS, np.array([3, 2, 1]))


def test_hard_predictions_and_one_class_warn_through_the_api():
    """The API warns where the command line used to, alone: hard 0/1 scores, and a
    labeled set of one class."""
    frame = pd.DataFrame({"s": [0.0, 1.0, 1.0, 0.0], "y": [0, 1, 0, 1], "g": list("aabb")})
    with pytest.warns(HardPredictionWarning, match="look like hard predictions"):
        AssessmentData.from_frames(frame, score="s", label="y", group="g")
    with pytest.warns(UndefinedRateWarning, match="Every labeled example is positive"):
        AssessmentData.from_frames(frame.assign(y=1, s=0.3), score="s", label="y", group="g")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # scores strictly inside (0, 1), both classes: silent
        AssessmentData.from_frames(
            frame.assign(s=[0.1, 0.9, 0.6, 0.2]), score="s", label="y", group="g"
        )


def test_unlabeled_length_mismatch():
    with pytest.raises(ValueError, match="'unlabeled_scores' has 2, 'unlabeled_groups' has 1"):
        AssessmentData([0.5, 0.2], [0, 1], ["a", "b"], [0.1, 0.2], ["a"])


def test_group_only_in_unlabeled_data_warns():
    with pytest.warns(UnlabeledGroupWarning, match=r"Group\(s\) \['c'\] occur in the unlabeled"):
        data = AssessmentData(S, Y, G, [0.3], ["c"])
    assert data.group_levels == ["a", "b", "c"]
    assert data.confusion_counts().loc["c"].sum() == 0


def test_unlabeled_scores_without_groups():
    with pytest.raises(ValueError, match="'unlabeled_scores' was given without 'unlabeled_groups'"):
        AssessmentData(S, Y, G, unlabeled_scores=[0.2])


def test_empty_labeled_set():
    with pytest.raises(ValueError, match="labeled set is empty"):
        AssessmentData([], [], [])
