"""AssessmentData: construction, counts, and one test per bad-input rule."""

import warnings

import numpy as np
import pandas as pd
import pytest

from bayesfair.data.assessment import AssessmentData
from bayesfair.exceptions import (
    InvalidParameterError,
    UndefinedRateWarning,
)

S = [0.9, 0.2, 0.7, 0.4, 0.6, 0.1]
Y = [1, 0, 0, 1, 1, 0]
G = ["a", "a", "b", "b", "b", "a"]


def test_counts_and_predictions():
    data = AssessmentData(S, Y, G)
    counts = data.confusion_counts()
    assert counts.loc["a"].tolist() == [1, 0, 2, 0]  # tp fp tn fn
    assert counts.loc["b"].tolist() == [1, 1, 0, 1]
    assert data.predictions.tolist() == [1, 0, 1, 0, 1, 0]
    assert data.labeled_examples.confusion_counts().sum() == 6


def test_threshold_changes_predictions():
    data = AssessmentData(S, Y, G, threshold=0.65)
    assert data.predictions.tolist() == [1, 0, 1, 0, 0, 0]
    assert data.confusion_counts().loc["b"].tolist() == [0, 1, 0, 2]


def test_labels_bool_and_pos_label():
    a = AssessmentData(S, [bool(v) for v in Y], G)
    b = AssessmentData(S, ["yes" if v else "no" for v in Y], G, pos_label="yes")
    assert a.labels.tolist() == Y == b.labels.tolist()
    assert b.pos_label == "yes"


def test_integer_groups_and_reference():
    data = AssessmentData(S, Y, [0, 0, 1, 1, 1, 0], reference=1)
    assert data.group_levels == [0, 1] and data.reference == 1
    assert data.pairs() == [(0, 1)]
    assert data.resolve_group("0") == 0


def test_nothing_is_mutated_and_arrays_are_read_only():
    scores = np.array(S)
    frame = pd.DataFrame({"s": S, "y": Y, "g": G})
    before = frame.copy()
    data = AssessmentData.from_frames(frame, score="s", label="y", group="g")
    AssessmentData(scores, Y, G)
    pd.testing.assert_frame_equal(frame, before)
    assert scores.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        data.scores[0] = 0.0


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("bad", [1.5, -0.1])
def test_scores_outside_unit_interval(bad):
    with pytest.raises(ValueError, match=rf"'scores' parameter must lie in \[0, 1\].*{bad}"):
        AssessmentData([0.5, bad], [0, 1], ["a", "b"])


def test_scores_nan():
    with pytest.raises(ValueError, match="'scores' parameter must not contain NaN. Got 1 NaN"):
        AssessmentData([0.5, np.nan], [0, 1], ["a", "b"])


def test_scores_non_numeric():
    with pytest.raises(TypeError, match="'scores' parameter must hold numeric scores.*'high'"):
        AssessmentData([0.5, "high"], [0, 1], ["a", "b"])


def test_unlabeled_scores_checked_too():
    with pytest.raises(ValueError, match=r"'unlabeled_scores' parameter must lie in \[0, 1\]"):
        AssessmentData([0.5, 0.2], [0, 1], ["a", "b"], [2.0], ["a"])


def test_labels_not_binary():
    with pytest.raises(ValueError, match="'labels' parameter must be binary.*3 distinct values"):
        AssessmentData([0.5, 0.2, 0.3], [0, 1, 2], ["a", "b", "a"])


def test_two_labels_need_pos_label():
    with pytest.raises(ValueError, match="not \\{0, 1\\} or bool: say which one is positive"):
        AssessmentData([0.5, 0.2], ["yes", "no"], ["a", "b"])


def test_single_class_with_pos_label_is_valid():
    """Ten labels and no positive: a valid labeled set, not an error."""
    with pytest.warns(UndefinedRateWarning, match="Every labeled example is negative"):
        data = AssessmentData([0.5, 0.2], [0, 0], ["a", "b"], pos_label=1)
    assert data.labels.tolist() == [0, 0] and data.pos_label == 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        data = AssessmentData([0.5, 0.2], ["no", "no"], ["a", "b"], pos_label="yes")
    said = [str(w.message) for w in caught]
    assert any("No value of 'labels' equals pos_label='yes'" in m for m in said), said
    assert any("Every labeled example is negative" in m for m in said), said
    assert data.labels.tolist() == [0, 0]


def test_pos_label_must_be_present():
    with pytest.raises(ValueError, match="'pos_label' parameter must be one of the values"):
        AssessmentData([0.5, 0.2], ["yes", "no"], ["a", "b"], pos_label="maybe")


def test_length_mismatch():
    with pytest.raises(ValueError, match="Length mismatch: 'scores' has 3, 'labels' has 2"):
        AssessmentData([0.5, 0.2, 0.1], [0, 1], ["a", "b", "a"])


@pytest.mark.parametrize("threshold", [0.0, 1.0, 1.5, -1])
def test_threshold_outside_open_interval(threshold):
    with pytest.raises(
        ValueError,
        match=rf"'threshold' parameter must be a float in \(0, 1\). "
        rf"Got {threshold}",
    ):
        AssessmentData(S, Y, G, threshold=threshold)


def test_threshold_wrong_type():
    with pytest.raises(TypeError, match="'threshold' parameter must be a float"):
        AssessmentData(S, Y, G, threshold="half")


def test_fewer_than_two_groups_for_a_difference():
    data = AssessmentData(S, Y, ["a"] * 6)
    with pytest.raises(
        ValueError, match="A group difference needs at least 2 groups; the data has 1"
    ):
        data.pairs()


def test_missing_group_values():
    with pytest.raises(ValueError, match="'groups' parameter must not contain missing values"):
        AssessmentData([0.5, 0.2], [0, 1], ["a", None])


def test_unknown_reference():
    with pytest.raises(ValueError, match="Unknown group 'x' for the 'reference' parameter"):
        AssessmentData(S, Y, G, reference="x")


class TestFromSummaries:
    """AssessmentData.from_summaries: the labeled examples as a summary."""

    @pytest.fixture(scope="class")
    @classmethod
    def pair(cls):
        from bayesfair.data.summary import summarize_arrays
        from bayesfair.datasets import load_assessment

        rows = load_assessment("compas-race", "LR", n_labeled=200, random_seed=1)
        lab = summarize_arrays(
            rows.scores,
            rows.group_codes,
            rows.group_levels,
            labels=rows.labels,
            threshold=rows.threshold,
        )
        return rows, AssessmentData.from_summaries(
            lab, rows.unlabeled_reduction(), reference=rows.reference
        )

    def test_counts_groups_and_reference_match_the_rows(self, pair):
        rows, summ = pair
        assert summ.group_levels == rows.group_levels and summ.reference == rows.reference
        assert (summ.n_labeled, summ.n_unlabeled) == (rows.n_labeled, rows.n_unlabeled)
        pd.testing.assert_frame_equal(summ.confusion_counts(), rows.confusion_counts())
        pd.testing.assert_frame_equal(summ.group_sizes(), rows.group_sizes())
        assert summ.labeled_is_summary and not rows.labeled_is_summary

    @pytest.mark.parametrize("model", ["bb", "bc", "rbc"])
    def test_fits_are_the_fits_of_the_rows(self, pair, model):
        import warnings

        import bayesfair as bf

        rows, summ = pair
        kw = dict(
            model=model,
            metrics=["accuracy"],
            random_seed=2,
            draws=60,
            tune=60,
            chains=1,
            progressbar=False,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = bf.fit(rows, **kw).difference("accuracy").values
            b = bf.fit(summ, **kw).difference("accuracy").values
        np.testing.assert_array_equal(a, b)

    @pytest.mark.parametrize("attribute", ["scores", "labels", "group_codes", "predictions"])
    def test_rows_are_refused_with_a_message(self, pair, attribute):
        with pytest.raises(ValueError, match="as a summary"):
            getattr(pair[1], attribute)

    def test_ppi_is_refused_with_a_message(self, pair):
        import bayesfair.frequentist as fq

        with pytest.raises(ValueError, match="needs the labeled examples as rows"):
            fq.ppi_difference(pair[1], "accuracy")

    def test_bad_summaries(self, pair):
        rows, summ = pair
        unl = rows.unlabeled_reduction()
        with pytest.raises(TypeError, match="ScoreSummary"):
            AssessmentData.from_summaries(rows)
        with pytest.raises(ValueError, match="no labels"):
            AssessmentData.from_summaries(unl)
        lab = summ.labeled_summary()
        with pytest.raises(ValueError, match="holds labels"):
            AssessmentData.from_summaries(lab, lab)
        from bayesfair.data.summary import summarize_arrays

        other = summarize_arrays(np.array([0.3]), np.array([0]), ["x"], threshold=0.4)
        with pytest.raises(ValueError, match="threshold"):
            AssessmentData.from_summaries(lab, other)


def test_summaries_with_and_without_recorded_group_columns_add_up():
    """A summary of intersections read by an engine records its group columns; one built
    from arrays does not (None). They add (the unlabeled rows and the labeled rows without
    their labels, as a fit does); two different recorded columns do not."""
    from bayesfair.data.summary import summarize_arrays
    from bayesfair.exceptions import InvalidParameterError

    levels = ["a & x", "b & y"]
    rng = np.random.default_rng(0)
    s, g = rng.random(50), rng.integers(0, 2, 50)
    recorded = summarize_arrays(s, g, levels, attributes=("race", "sex"))
    plain = summarize_arrays(s[:10], g[:10], levels)
    both = recorded + plain
    assert both.attributes == ("race", "sex") and both.n_total == 60
    assert (plain + recorded).attributes == ("race", "sex")
    other = summarize_arrays(s, g, levels, attributes=("race", "age"))
    with pytest.raises(InvalidParameterError, match="can be added"):
        recorded + other


def test_groups_that_differ_only_in_type_are_refused():
    """Integer groups in the labeled rows and the same groups as text in the unlabeled
    ones (a CSV beside a Parquet file) would make four groups, two of them without
    labels; they are refused by name. 1 and 1.0 are one group."""
    scores = np.array([0.2, 0.8, 0.3, 0.7])
    with pytest.raises(InvalidParameterError, match=r"The groups 1 \(int\) and '1' \(str\)"):
        AssessmentData(scores, [0, 1, 0, 1], [1, 2, 1, 2], scores, np.array(["1", "2"] * 2))
    with pytest.raises(InvalidParameterError, match="1 in the labeled rows and '1' in the"):
        AssessmentData(scores, [0, 1, 0, 1], [1, 2, 1, 2], scores, np.array(["1", "2"] * 2))
    # one column mixing the types: the message does not blame the other rows
    mixed = np.array([1, "1", 2, 2], dtype=object)
    with pytest.raises(InvalidParameterError, match="both in the labeled rows' group column"):
        AssessmentData(scores, [0, 1, 0, 1], mixed)
    data = AssessmentData(scores, [0, 1, 0, 1], [1, 2, 1, 2], scores, np.array([1.0, 2.0] * 2))
    assert data.group_levels == [1, 2]


def test_an_intersection_is_one_group_whether_a_column_holds_integers_or_floats():
    """``age`` read as integers in the labeled file and as floats in the unlabeled one
    (a missing value dropped from it): the intersections are the same four groups,
    not eight, half of them without labels."""
    lab = pd.DataFrame({"s": S[:4], "y": Y[:4], "sex": ["F", "M", "F", "M"], "age": [1, 2, 2, 1]})
    unl = pd.DataFrame({"s": S[:4], "sex": ["F", "M", "F", "M"], "age": [1.0, 2.0, 2.0, 1.0]})
    data = AssessmentData.from_frames(lab, unl, score="s", label="y", group=["sex", "age"])
    assert data.group_levels == ["F & 1", "F & 2", "M & 1", "M & 2"]
    assert (data.group_sizes()["n_unlabeled"] == 1).all()
