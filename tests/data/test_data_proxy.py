"""Rows whose group is a proxy's probabilities: ``from_frames(group_probabilities=)``,
the additive :class:`ProxySummary`, and what summarising the probabilities costs."""

import numpy as np
import pandas as pd
import pytest

import bayesfair as bf
from bayesfair.datasets.simulate import proxy_audit
from bayesfair.exceptions import InvalidParameterError


@pytest.fixture(scope="module")
def audit():
    return proxy_audit(k=3, n_labeled=600, n_unlabeled=4000, n_self_reported=300, random_seed=3)


def _data(audit, **kwargs):
    lab, unl = audit.frames()
    return bf.AssessmentData.from_frames(
        lab,
        unl,
        score="score",
        label="label",
        group="group",
        group_probabilities=audit.group_probabilities,
        **kwargs,
    )


def test_rows_of_known_group_are_the_examples_and_every_proxy_row_is_summarised(audit):
    data = _data(audit)
    lab, unl = audit.frames()
    assert data.n_labeled == lab["group"].notna().sum() == 300
    assert data.n_unlabeled == 0
    assert data.proxy.n_unknown("labeled") == 300
    assert data.proxy.n_unknown("unlabeled") == 4000
    assert data.proxy.n_self_reported() == 300
    assert data.group_levels == sorted(audit.group_probabilities)
    # nothing lost: the probability sums are the frames' own
    columns = [audit.group_probabilities[g] for g in data.group_levels]
    np.testing.assert_allclose(data.proxy.labeled.sum_p.sum(axis=0), lab[columns].sum(), rtol=1e-9)
    np.testing.assert_allclose(
        data.proxy.unlabeled.sum_p.sum(axis=0), unl[columns].sum(), rtol=1e-9
    )


def test_the_probabilities_follow_the_groups_not_the_mapping_order(audit):
    lab, unl = audit.frames()
    mapping = dict(reversed(list(audit.group_probabilities.items())))
    data = bf.AssessmentData.from_frames(
        lab, unl, score="score", label="label", group="group", group_probabilities=mapping
    )
    first = data.group_levels[0]
    expected = unl[audit.group_probabilities[first]].sum()
    assert data.proxy.unlabeled.sum_p[:, 0].sum() == pytest.approx(expected)


def test_the_frames_are_not_changed(audit):
    lab, unl = audit.frames()
    before = (lab.copy(), unl.copy())
    _ = bf.AssessmentData.from_frames(
        lab,
        unl,
        score="score",
        label="label",
        group="group",
        group_probabilities=audit.group_probabilities,
    )
    pd.testing.assert_frame_equal(lab, before[0])
    pd.testing.assert_frame_equal(unl, before[1])


def _frames():
    lab = pd.DataFrame(
        {
            "s": [0.2, 0.7, 0.9, 0.4],
            "y": [0, 1, 1, 0],
            "g": ["a", "b", None, None],
            "pa": [0.6, 0.3, 0.5, 0.9],
            "pb": [0.4, 0.7, 0.5, 0.1],
        }
    )
    unl = pd.DataFrame(
        {"s": [0.3, 0.8], "g": [None, "a"], "pa": [0.2, np.nan], "pb": [0.8, np.nan]}
    )
    return lab, unl


def _build(lab, unl, mapping=None, **kwargs):
    return bf.AssessmentData.from_frames(
        lab,
        unl,
        score="s",
        label="y",
        group="g",
        group_probabilities={"a": "pa", "b": "pb"} if mapping is None else mapping,
        **kwargs,
    )


def test_a_frame_without_the_group_column_has_every_group_unknown(audit):
    lab, unl = audit.frames()
    bare = unl.drop(columns="group")
    data = bf.AssessmentData.from_frames(
        lab,
        bare,
        score="score",
        label="label",
        group="group",
        group_probabilities=audit.group_probabilities,
    )
    assert data.proxy.n_unknown("unlabeled") == len(unl)
    assert "group" not in bare.columns  # nothing added to the caller's frame


def test_a_row_of_known_group_may_carry_no_probabilities():
    data = _build(*_frames())
    assert data.n_unlabeled == 1 and data.proxy.n_unknown("unlabeled") == 1


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda lab, unl: lab.assign(pa=[0.6, 0.3, 0.7, 0.9]), "sum to 1"),
        (
            lambda lab, unl: lab.assign(pa=[0.6, 0.3, -0.1, 0.9], pb=[0.4, 0.7, 1.1, 0.1]),
            "non-negative",
        ),
        (lambda lab, unl: lab.assign(pb=[0.4, 0.7, np.nan, 0.1]), "some group probabilities"),
        (
            lambda lab, unl: lab.assign(pa=[0.6, 0.3, np.nan, 0.9], pb=[0.4, 0.7, np.nan, 0.1]),
            "neither a group",
        ),
        (lambda lab, unl: lab.assign(g=["a", "c", None, None]), "does not name"),
        (lambda lab, unl: lab.assign(pa="x"), "not numeric"),
    ],
)
def test_bad_probabilities_are_named(change, message):
    lab, unl = _frames()
    with pytest.raises(InvalidParameterError, match=message):
        _build(change(lab, unl), unl)


def test_a_group_no_row_could_be_is_refused():
    lab, unl = _frames()
    lab, unl = lab.assign(pc=0.0), unl.assign(pc=[0.0, np.nan])
    with pytest.raises(InvalidParameterError, match=r"\['c'\].*no row"):
        _build(lab, unl, mapping={"a": "pa", "b": "pb", "c": "pc"})


def test_missing_columns_and_unsupported_combinations_are_refused():
    lab, unl = _frames()
    with pytest.raises(InvalidParameterError, match="pz"):
        _build(lab, unl, mapping={"a": "pa", "b": "pz"})
    with pytest.raises(InvalidParameterError, match="one column"):
        bf.AssessmentData.from_frames(
            lab,
            unl,
            score="s",
            label="y",
            group=["g", "g"],
            group_probabilities={"a": "pa", "b": "pb"},
        )
    with pytest.raises(InvalidParameterError, match="at least two"):
        _build(lab, unl, mapping={"a": "pa"})
    with pytest.raises(InvalidParameterError, match="No file matches 'rows.parquet'"):
        _build(lab, "rows.parquet")  # a source: summarised by an engine, which names it
