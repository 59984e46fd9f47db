"""The label tests' shared data: COMPAS-race LR scores with a pool of unlabeled rows."""

import pytest

import bayesfair as bf


@pytest.fixture(scope="module")
def frames():
    """COMPAS-race LR: 60 labeled rows and the rest as an unlabeled pool with ids."""
    df = bf.datasets.load_scores("compas-race", "LR").reset_index()
    df = df.rename(columns={"row": "case"})[["case", "score", "label", "group"]]
    return df.iloc[:60].copy(), df.iloc[60:].drop(columns="label").copy()


@pytest.fixture(scope="module")
def data(frames):
    lab, unl = frames
    return bf.AssessmentData.from_frames(
        lab, unl, score="score", label="label", group="group", id="case"
    )
