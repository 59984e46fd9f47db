"""``bayesfair.data.frames``: the data from a labeled and an optional unlabeled frame."""

import numpy as np
import pandas as pd
import pytest

from bayesfair.data.assessment import AssessmentData
from bayesfair.data.frames import from_frames
from bayesfair.data.sources import summarize_unlabeled
from bayesfair.exceptions import InvalidParameterError

S = [0.9, 0.2, 0.7, 0.4, 0.6, 0.1]
Y = [1, 0, 0, 1, 1, 0]
G = ["a", "a", "b", "b", "b", "a"]
LAB = pd.DataFrame({"s": S, "y": Y, "g": G, "t": [1, 1, 2, 2, 3, 3]})
UNL = pd.DataFrame({"s": [0.3, 0.8], "g": ["a", "b"], "t": [3, 4], "case": ["u1", "u2"]})


def test_from_frames_is_the_datas_class_method():
    direct = from_frames(AssessmentData, LAB, UNL, score="s", label="y", group="g")
    via = AssessmentData.from_frames(LAB, UNL, score="s", label="y", group="g")
    pd.testing.assert_frame_equal(direct.confusion_counts(), via.confusion_counts())
    assert direct.unlabeled_scores.tolist() == [0.3, 0.8]


def test_the_id_and_period_columns_are_read_from_the_frames():
    data = AssessmentData.from_frames(
        LAB, UNL, score="s", label="y", group="g", id="case", period="t"
    )
    assert data.id_name == "case"
    assert data.unlabeled_examples.ids.tolist() == ["u1", "u2"]
    assert data.period_levels == [1, 2, 3, 4]
    np.testing.assert_array_equal(data.unlabeled_examples.period_codes, [2, 3])


def test_an_unlabeled_source_is_summarised_and_then_takes_no_id_or_period():
    source = (UNL["s"].to_numpy(), UNL["g"].to_numpy())
    data = AssessmentData.from_frames(LAB, source, score="s", label="y", group="g")
    assert data.unlabeled_is_summary and data.n_unlabeled == 2
    held = summarize_unlabeled(UNL, score="s", group="g")
    with pytest.raises(InvalidParameterError, match="'id' parameter names a column"):
        AssessmentData.from_frames(LAB, held, score="s", label="y", group="g", id="case")
    with pytest.raises(InvalidParameterError, match="a summary keeps no period per row"):
        AssessmentData.from_frames(LAB, held, score="s", label="y", group="g", period="t")


def test_the_frames_and_group_are_checked():
    with pytest.raises(InvalidParameterError, match="must be a pandas or polars DataFrame"):
        AssessmentData.from_frames({"s": S}, score="s", label="y", group="g")
    with pytest.raises(InvalidParameterError, match="must name at least one column"):
        AssessmentData.from_frames(LAB, score="s", label="y", group=[])
    with pytest.raises(
        InvalidParameterError, match="cannot be combined with 'group_probabilities'"
    ):
        AssessmentData.from_frames(
            LAB, score="s", label="y", group="g", id="case", group_probabilities={"a": "p"}
        )


def test_from_frames_with_intersections_and_unlabeled():
    lab = pd.DataFrame(
        {
            "s": S,
            "y": Y,
            "race": ["w", "w", "b", "b", "b", "w"],
            "sex": ["m", "f", "m", "m", "f", "f"],
        }
    )
    unl = pd.DataFrame({"s": [0.3, 0.8, 0.55], "race": ["w", "b", "b"], "sex": ["m", "f", "m"]})
    data = AssessmentData.from_frames(lab, unl, score="s", label="y", group=["race", "sex"])
    assert data.group_levels == ["b & f", "b & m", "w & f", "w & m"]
    assert data.attributes == ["race", "sex"]
    table = data.unlabeled_score_table()
    assert table.loc["b & m", "n"] == 1 and table.loc["b & m", "n_predicted_positive"] == 1
    assert table.loc["w & f", "n"] == 0 and np.isnan(table.loc["w & f", "mean_score"])
    assert data.group_sizes()["n_labeled"].sum() == 6
    assert not hasattr(data, "unlabeled_summary")  # one name for the table


def test_unknown_column_suggests_nearest():
    frame = pd.DataFrame({"score": S, "y": Y, "race": G})
    with pytest.raises(ValueError, match="Column 'rase'.*Did you mean 'race'"):
        AssessmentData.from_frames(frame, score="score", label="y", group="rase")


def test_from_frames_takes_polars_frames():
    pl = pytest.importorskip("polars")
    lab = {"s": [0.1, 0.9, 0.4, 0.6], "y": [0, 1, 0, 1], "g": ["a", "a", "b", "b"]}
    unl = {"s": [0.2, 0.8, 0.3], "g": ["a", "b", "b"]}
    frames = pl.DataFrame(lab), pl.DataFrame(unl)
    data = AssessmentData.from_frames(*frames, score="s", label="y", group="g")
    assert data.scores.tolist() == lab["s"] and data.unlabeled_scores.tolist() == unl["s"]
    with pytest.raises(InvalidParameterError, match="Column 'sc' .* Did you mean 's'?"):
        AssessmentData.from_frames(pl.DataFrame(lab), score="sc", label="y", group="g")
