"""Coercion and checks of user input (:mod:`bayesfair.data._inputs`): scores, labels and group
columns as the data set and the engines take them, the confusion counts, the column and
length checks, and the read-only row attributes of :class:`~bayesfair.AssessmentData`.

The coercions are private; they are tested through the public callers that use them:
``AssessmentData`` (and ``from_frames``) and ``summarize`` on arrays."""

import numpy as np
import pandas as pd
import pytest

from bayesfair.data._inputs import (
    INTERSECTION_SEP,
    RowAttribute,
    check_columns,
    check_lengths,
    count_confusion,
)
from bayesfair.data.assessment import AssessmentData
from bayesfair.data.sources import summarize
from bayesfair.exceptions import InvalidParameterError, UnlabeledGroupWarning

G3 = ["a", "b", "a"]


# --------------------------------------------------------------------------- count_confusion
def test_count_confusion_counts_tp_fp_tn_fn_per_group():
    predictions = [1, 1, 0, 0, 1, 0, 1]
    labels = [1, 0, 0, 1, 1, 0, 0]
    groups = [0, 0, 0, 0, 1, 1, 1]
    counts = count_confusion(predictions, labels, groups, 2)
    np.testing.assert_array_equal(counts, [[1, 1, 1, 1], [1, 1, 1, 0]])
    assert counts.shape == (2, 4) and counts.sum() == 7


def test_count_confusion_takes_booleans_and_keeps_empty_groups():
    scores = np.array([0.9, 0.2, 0.6])
    counts = count_confusion(scores >= 0.5, np.array([True, True, False]), [2, 2, 0], 4)
    np.testing.assert_array_equal(counts, [[0, 1, 0, 0], [0, 0, 0, 0], [1, 0, 0, 1], [0] * 4])


def test_count_confusion_of_no_rows_is_zeros():
    counts = count_confusion([], [], [], 3)
    np.testing.assert_array_equal(counts, np.zeros((3, 4)))


def test_the_data_counts_with_count_confusion():
    data = AssessmentData([0.9, 0.2, 0.7, 0.4, 0.5], [1, 0, 0, 1, 1], ["a", "a", "b", "b", "b"])
    expected = count_confusion(data.scores >= 0.5, data.labels, data.group_codes, 2)
    np.testing.assert_array_equal(data.confusion_counts().to_numpy(), expected)
    np.testing.assert_array_equal(expected, [[1, 0, 1, 0], [1, 1, 0, 1]])


# --------------------------------------------------------------------------- checks
def test_check_columns_names_the_argument_the_nearest_column_and_all_columns():
    frame = pd.DataFrame({"score": [0.1], "label": [1], "sex": ["F"]})
    check_columns(frame, "labeled", score=["score"], group=["sex"])  # all there: no error
    with pytest.raises(InvalidParameterError) as info:
        check_columns(frame, "labeled", score=["score"], label=["labels"])
    assert str(info.value) == (
        "Column 'labels' (the 'label' parameter) is not in the labeled data. Did you mean "
        "'label'? Columns: score, label, sex."
    )


def test_check_columns_checks_every_name_of_a_list_and_any_column_type():
    frame = pd.DataFrame({0: [1], 1: [2]})
    with pytest.raises(InvalidParameterError, match=r"^Column 'race' \(the 'group' parameter\) "):
        check_columns(frame, "unlabeled", group=["race"])
    frame = pd.DataFrame({"sex": ["F"], "race": ["w"]})
    with pytest.raises(InvalidParameterError, match="Column 'age' .* not in the unlabeled data"):
        check_columns(frame, "unlabeled", group=["sex", "race", "age"])


def test_check_lengths():
    check_lengths(scores=3, labels=3, groups=3)
    check_lengths(scores=0)
    with pytest.raises(InvalidParameterError) as info:
        check_lengths(scores=3, labels=3, groups=2)
    assert str(info.value) == (
        "Length mismatch: 'scores' has 3, 'labels' has 3, 'groups' has 2 entries; "
        "they must be equal."
    )


def test_the_data_checks_its_lengths():
    with pytest.raises(InvalidParameterError, match="'labels' has 2, 'groups' has 3 entries"):
        AssessmentData([0.1, 0.2, 0.3], [1, 0], G3)
    with pytest.raises(InvalidParameterError, match="'unlabeled_scores' has 1, 'unlabeled_groups'"):
        AssessmentData([0.1, 0.2, 0.3], [1, 0, 1], G3, [0.5], ["a", "b"])


# --------------------------------------------------------------------------- scores
@pytest.mark.parametrize(
    ("scores", "message"),
    [
        ([True, False, True], "must hold numeric scores in [0, 1]. Got booleans."),
        (
            [0.1, "high", 0.3],
            "must hold numeric scores in [0, 1]. Got the non-numeric value 'high'.",
        ),
        (["0.1", "0.5", "0.3"], "must hold numeric scores in [0, 1]. Got dtype <U3."),
        (
            [0.1, np.nan, np.nan],
            "must not contain NaN. Got 2 NaN value(s), the first at position 1.",
        ),
        ([[0.1, 0.2, 0.3]], "must be one-dimensional. Got shape (1, 3)."),
        ([0.1, 1.5, -2.0], "must lie in [0, 1] (scores are probabilities). Got 2 value(s) outside"),
    ],
)
def test_scores_are_numbers_in_0_1(scores, message):
    with pytest.raises(InvalidParameterError) as info:
        AssessmentData(scores, [1, 0, 1], G3)
    assert str(info.value).startswith(f"The 'scores' parameter {message}")


def test_nullable_scores_with_a_missing_value_are_nan():
    scores = pd.Series([0.1, None, 0.3], dtype="Float64")
    with pytest.raises(InvalidParameterError, match="must not contain NaN. Got 1 NaN value"):
        AssessmentData(scores, [1, 0, 1], G3)


def test_the_unlabeled_scores_are_named_as_such():
    with pytest.raises(InvalidParameterError, match="^The 'unlabeled_scores' parameter must lie"):
        AssessmentData([0.1, 0.2, 0.3], [1, 0, 1], G3, [0.5, 1.2], ["a", "b"])


def test_scores_are_copied_as_read_only_floats():
    source = np.array([0, 1, 1])  # integers: hard predictions, as floats
    with pytest.warns(UserWarning, match="hard predictions"):
        data = AssessmentData(source, [1, 0, 1], G3)
    assert data.scores.dtype == np.float64 and data.scores.tolist() == [0.0, 1.0, 1.0]
    source[0] = 1
    assert data.scores[0] == 0.0  # a copy: the caller's array may change
    assert not data.scores.flags.writeable


def test_a_score_outside_0_1_is_shown_as_the_number_it_is():
    with pytest.raises(InvalidParameterError) as info:
        AssessmentData([0.1, 1.5, 0.3], [1, 0, 1], G3)
    assert "e.g. 1.5 at position 1." in str(info.value)


# --------------------------------------------------------------------------- labels
@pytest.mark.parametrize(
    ("labels", "pos_label", "coded", "used"),
    [
        ([1, 0, 1], None, [1, 0, 1], 1),
        ([1.0, 0.0, 0.0], None, [1, 0, 0], 1),
        ([True, False, True], None, [1, 0, 1], True),
        (["true", "false", "true"], None, [1, 0, 1], True),  # booleans as text (Parquet)
        (["False", "True", "False"], None, [0, 1, 0], True),
        (["true", "True", "FALSE"], None, [1, 1, 0], True),  # in any case
        (["false", "false", "false"], None, [0, 0, 0], True),
        (["y", "n", "y"], "y", [1, 0, 1], "y"),
        (["y", "n", "y"], "n", [0, 1, 0], "n"),
        ([1, 0, 1], 0, [0, 1, 0], 0),
        ([1, 0, 1], "1", [1, 0, 1], 1),  # matched by its text: the label's own type is kept
        (np.array([2, 5, 5]), 5, [0, 1, 1], 5),
    ],
)
def test_labels_are_coded_0_1_with_the_positive_label_used(labels, pos_label, coded, used):
    data = AssessmentData([0.1, 0.2, 0.3], labels, G3, pos_label=pos_label)
    assert data.labels.tolist() == coded and data.labels.dtype == np.int8
    assert data.pos_label == used and type(data.pos_label) is type(used)


@pytest.mark.parametrize(
    ("labels", "pos_label", "message"),
    [
        (
            ["y", "n", "y"],
            None,
            "The 'labels' parameter has values 'y', 'n', which are not {0, 1} or bool: say "
            "which one is positive with 'pos_label'.",
        ),
        (
            ["y", "n", "y"],
            "maybe",
            "The 'pos_label' parameter must be one of the values of 'labels' ('y', 'n'). "
            "Got 'maybe' instead.",
        ),
        (
            [1, 0, 2],
            None,
            "The 'labels' parameter must be binary (two distinct values). Got 3 distinct "
            "values: 1, 0, 2.",
        ),
        (
            [1, None, 0],
            None,
            "The 'labels' parameter must not contain missing values. Got 1 missing value(s).",
        ),
    ],
)
def test_labels_that_cannot_be_coded_are_refused(labels, pos_label, message):
    with pytest.raises(InvalidParameterError) as info:
        AssessmentData([0.1, 0.2, 0.3], labels, G3, pos_label=pos_label)
    assert str(info.value) == message


def test_many_distinct_labels_show_the_first_six():
    with pytest.raises(InvalidParameterError) as info:
        AssessmentData([0.1] * 8, list("abcdefgh"), ["a"] * 8)
    assert "Got 8 distinct values: 'a', 'b', 'c', 'd', 'e', 'f' ..." in str(info.value)
    assert "'g'" not in str(info.value)


def test_a_positive_label_that_no_label_equals_warns_at_the_callers_line():
    with pytest.warns(UserWarning) as record:
        data = AssessmentData([0.1, 0.2, 0.3], ["n", "n", "n"], G3, pos_label="y")
    assert data.labels.tolist() == [0, 0, 0] and data.pos_label == "y"
    (mine,) = [w for w in record if "pos_label" in str(w.message)]
    assert str(mine.message) == (
        "No value of 'labels' equals pos_label='y' (all are 'n'): every labeled example is "
        "taken as negative."
    )
    assert mine.filename == __file__


def test_one_class_of_0_1_labels_needs_no_warning_about_pos_label():
    with pytest.warns(UserWarning) as record:
        data = AssessmentData([0.1, 0.2, 0.3], [0, 0, 0], G3, pos_label=1)
    assert data.labels.tolist() == [0, 0, 0]
    assert not [w for w in record if "pos_label" in str(w.message)]


# --------------------------------------------------------------------------- groups
def test_several_attributes_intersect_joined_by_the_separator():
    assert INTERSECTION_SEP == " & "
    frame = pd.DataFrame({"sex": ["F", "M", "F", "M"], "race": ["w", "w", "b", "b"]})
    data = AssessmentData([0.1, 0.2, 0.3, 0.4], [1, 0, 1, 0], frame)
    assert data.group_levels == ["F & b", "F & w", "M & b", "M & w"]
    assert data.attributes == ["sex", "race"]
    assert data.group_codes.tolist() == [1, 3, 0, 2]


@pytest.mark.parametrize(
    ("groups", "attributes"),
    [
        ({"sex": ["F", "M", "F", "M"], "race": [1, 1, 2, 2]}, ["sex", "race"]),
        (np.array([["F", 1], ["M", 1], ["F", 2], ["M", 2]], dtype=object), None),
        ([("F", 1), ("M", 1), ("F", 2), ("M", 2)], None),
    ],
)
def test_a_mapping_or_a_2_d_array_of_attributes(groups, attributes):
    data = AssessmentData([0.1, 0.2, 0.3, 0.4], [1, 0, 1, 0], groups)
    assert data.group_levels == [f"F{INTERSECTION_SEP}1", "F & 2", "M & 1", "M & 2"]
    assert data.attributes == attributes


def test_one_attribute_keeps_its_values_type_and_sorts_them():
    data = AssessmentData([0.1, 0.2, 0.3, 0.4], [1, 0, 1, 0], np.array([3, 1, 2, 1]))
    assert data.group_levels == [1, 2, 3]
    assert all(type(g) is int for g in data.group_levels)  # Python values, not NumPy's
    assert data.group_codes.tolist() == [2, 0, 1, 0]


def test_levels_of_mixed_types_sort_by_their_text():
    with pytest.warns(UnlabeledGroupWarning, match=r"\['a'\]"):
        data = AssessmentData([0.1, 0.2, 0.3, 0.4], [1, 0, 1, 0], ["b", 10, "b", 10], [0.5], ["a"])
    assert data.group_levels == [10, "a", "b"]  # "10" < "a" < "b"
    assert data.group_codes.tolist() == [2, 0, 2, 0]
    assert data.unlabeled_group_codes.tolist() == [1]


def test_groups_must_be_complete_and_at_most_two_dimensional():
    with pytest.raises(InvalidParameterError) as info:
        AssessmentData([0.1, 0.2, 0.3], [1, 0, 1], ["a", None, "a"])
    assert str(info.value) == (
        "The 'groups' parameter must not contain missing values. Got 1 missing value(s), "
        "the first at position 1."
    )
    frame = pd.DataFrame({"sex": ["F", "M", "F"], "race": ["w", "b", np.nan]})
    with pytest.raises(InvalidParameterError, match="the first at position 2"):
        AssessmentData([0.1, 0.2, 0.3], [1, 0, 1], frame)
    with pytest.raises(InvalidParameterError, match="one- or two-dimensional. Got shape"):
        AssessmentData([0.1, 0.2], [1, 0], np.zeros((2, 1, 1)))


# --------------------------------------------------------------------------- other callers
def test_summarize_checks_arrays_as_the_data_does():
    """The NumPy engine coerces with the same functions: the same messages."""
    with pytest.raises(InvalidParameterError, match="^The 'scores' parameter must lie in"):
        summarize((np.array([0.1, 1.5]), np.array(["a", "b"]), np.array([1, 0])))
    with pytest.raises(InvalidParameterError, match="^The 'groups' parameter must not contain"):
        summarize((np.array([0.1, 0.5]), np.array(["a", None], dtype=object), np.array([1, 0])))


# --------------------------------------------------------------------------- RowAttribute
class _Rows:
    def __init__(self, **fields):
        self.__dict__.update(fields)


class _Side:
    def __init__(self, rows=None):
        self._rows, self.asked = rows, []

    def rows(self, what):
        self.asked.append(what)
        if self._rows is None:
            raise InvalidParameterError(f"'{what}' needs rows")
        return self._rows


class _Owner:
    heights = RowAttribute("side", "values", "Heights of the rows.")

    def __init__(self, side):
        self.side = side


def test_row_attribute_reads_the_field_of_the_sides_rows():
    side = _Side(_Rows(values=np.array([1.0, 2.0])))
    owner = _Owner(side)
    assert owner.heights.tolist() == [1.0, 2.0]
    assert side.asked == ["heights"]  # the side is told the attribute's name


def test_row_attribute_is_read_only_and_documented():
    assert isinstance(_Owner.heights, RowAttribute)
    assert _Owner.heights.__doc__ == (
        "Heights of the rows. Not available when the examples are held as a summary."
    )
    owner = _Owner(_Side(_Rows(values=np.array([1.0]))))
    with pytest.raises(AttributeError, match=r"^AssessmentData.heights is read-only.$"):
        owner.heights = np.array([2.0])


def test_row_attribute_of_a_summary_names_the_attribute():
    with pytest.raises(InvalidParameterError, match="'heights' needs rows"):
        _ = _Owner(_Side()).heights


def test_the_data_attributes_of_a_summary_say_they_need_rows():
    summary = summarize((np.array([0.1, 0.5, 0.7]), np.array(["a", "b", "a"]), np.array([1, 0, 1])))
    data = AssessmentData(labeled=summary)
    for name in ("scores", "labels", "group_codes"):
        with pytest.raises(InvalidParameterError, match=f"^'{name}' needs the labeled examples"):
            getattr(data, name)
    np.testing.assert_array_equal(data.confusion_counts().to_numpy(), [[1, 0, 0, 1], [0, 1, 0, 0]])
