"""Bernstein-bounded unfairness (Ethayarajh 2020)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from bayesfair import AssessmentData
from bayesfair.frequentist import (
    bernstein_half_width,
    bernstein_interval,
    bernstein_required_n,
)


def reference_t(n, rho=0.95, C=1.0, gamma=0.5, var=4.0):
    """The paper's formula, written out independently."""
    log = math.log((1 - rho) / 2)
    B = -(2 * C / (3 * gamma)) * log
    return (B + math.sqrt(B**2 - 8 * n * var * log)) / (2 * n)


# --------------------------------------------------------------------------- worked example
def test_worked_example():
    # reference values: t(11,902) = 0.0500017, t(11,903) = 0.0499995; t(3,160) = 0.0974
    assert bernstein_half_width(11902) == pytest.approx(0.0500017, abs=5e-8)
    assert bernstein_half_width(11903) == pytest.approx(0.0499995, abs=5e-8)
    assert bernstein_half_width(11903) <= 0.05 < bernstein_half_width(11902)
    assert bernstein_half_width(3160) == pytest.approx(0.0974, abs=5e-5)
    assert bernstein_required_n(0.05) == 11903
    assert isinstance(bernstein_required_n(0.05), int)
    assert isinstance(bernstein_half_width(100), float)


def test_matches_the_formula():
    for n, kw in [
        (10, {}),
        (500, {"ci_prob": 0.9}),
        (2000, {"cost_range": 2.0}),
        (77, {"min_group_fraction": 0.1, "variance": 11.0}),
        (300, {"ci_prob": 0.0}),
    ]:
        expected = reference_t(
            n,
            kw.get("ci_prob", 0.95),
            kw.get("cost_range", 1.0),
            kw.get("min_group_fraction", 0.5),
            kw.get("variance", 4.0),
        )
        assert bernstein_half_width(n, **kw) == pytest.approx(expected, rel=1e-12)


def test_vectorised():
    n = np.array([[100, 1000], [3160, 11903]])
    t = bernstein_half_width(n)
    assert t.shape == (2, 2)
    assert t[1, 0] == pytest.approx(reference_t(3160))
    t2 = bernstein_half_width(1000, ci_prob=0.95, variance=np.array([1.0, 4.0]))
    assert t2.shape == (2,) and t2[0] < t2[1]


@pytest.mark.parametrize(
    "kw",
    [{}, {"ci_prob": 0.99}, {"min_group_fraction": 0.2}, {"cost_range": 3.0, "variance": 1.0}],
)
def test_required_n_is_the_smallest(kw):
    d = np.array([0.5, 0.2, 0.1, 0.0974, 0.05, 0.0313, 0.01])
    n = bernstein_required_n(d, **kw)
    assert n.dtype.kind == "i" and n.shape == d.shape
    assert np.all(bernstein_half_width(n, **kw) <= d)
    below = np.maximum(n - 1, 1)
    assert np.all((bernstein_half_width(below, **kw) > d) | (n == 1))


def test_required_n_at_an_exact_half_width():
    # d equal to t(n) exactly: n itself suffices, n - 1 does not
    for n in (50, 3160, 11903, 123457):
        d = bernstein_half_width(n)
        assert bernstein_required_n(d) == n


@pytest.mark.parametrize(
    "call, error, match",
    [
        (
            lambda: bernstein_half_width(0),
            ValueError,
            r"'n' parameter must be a positive number\. Got 0\.0",
        ),
        (lambda: bernstein_half_width(-5), ValueError, r"'n'.*Got -5"),
        (lambda: bernstein_half_width("10"), TypeError, r"'n' parameter must be a positive number"),
        (
            lambda: bernstein_half_width(10, ci_prob=1.0),
            ValueError,
            r"'ci_prob'.*\[0, 1\)\. Got 1\.0",
        ),
        (lambda: bernstein_half_width(10, ci_prob=True), TypeError, r"'ci_prob'"),
        (lambda: bernstein_half_width(10, cost_range=0), ValueError, r"'cost_range'"),
        (
            lambda: bernstein_half_width(10, min_group_fraction=0.6),
            ValueError,
            r"'min_group_fraction' parameter must be a number in \(0, 0\.5\]",
        ),
        (
            lambda: bernstein_half_width(10, min_group_fraction=0),
            ValueError,
            r"'min_group_fraction'",
        ),
        (lambda: bernstein_half_width(10, variance=-1), ValueError, r"'variance'"),
        (lambda: bernstein_required_n(0), ValueError, r"'disparity' parameter must be a positive"),
        (lambda: bernstein_required_n(np.nan), ValueError, r"'disparity'"),
    ],
)
def test_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()


# --------------------------------------------------------------------------- on data
@pytest.fixture
def two_groups():
    # group a: 100 rows, 30 errors; group b: 300 rows, 45 errors
    scores = [0.9] * 70 + [0.1] * 30 + [0.9] * 255 + [0.1] * 45
    labels = [1] * 100 + [1] * 300
    groups = ["a"] * 100 + ["b"] * 300
    with pytest.warns(UserWarning, match="Every labeled example is positive"):
        return AssessmentData(scores=scores, labels=labels, groups=groups)


def test_interval_on_data(two_groups):
    res = bernstein_interval(two_groups, "error_rate")
    assert res.group == "a" and res.reference == "b"  # b is larger, hence the default reference
    assert res.estimate == pytest.approx(0.30 - 0.15)
    assert res.n == 400 and res.min_group_fraction == pytest.approx(0.25)
    # default variance: the bound C^2 (1/γ_A + 1/γ_B) = 1/0.25 + 1/0.75
    assert res.variance == pytest.approx(4 + 4 / 3)
    t = reference_t(400, gamma=0.25, var=4 + 4 / 3)
    assert res.half_width == pytest.approx(t)
    assert res.interval == (pytest.approx(0.15 - t), pytest.approx(0.15 + t))
    fixed = bernstein_interval(two_groups, "error_rate", variance=4.0)
    assert fixed.half_width == pytest.approx(reference_t(400, gamma=0.25, var=4.0))
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.n = 3


def test_variance_bound_is_the_papers_four_for_equal_groups():
    with pytest.warns(UserWarning, match="Every labeled example is positive"):
        data = AssessmentData(scores=[0.9, 0.1] * 50, labels=[1] * 100, groups=["a", "b"] * 50)
    res = bernstein_interval(data, "accuracy", group="a", reference="b")
    assert res.variance == 4.0 and res.min_group_fraction == 0.5
    assert res.half_width == pytest.approx(bernstein_half_width(100))


def test_interval_uses_the_rate_denominator(two_groups):
    # every label is positive, so the TPR rows are all rows and the FPR has none
    res = bernstein_interval(two_groups, "fnr")
    assert res.n == 400 and res.estimate == pytest.approx(0.15)
    with pytest.raises(ValueError, match=r"undefined for group\(s\) \['a', 'b'\]"):
        bernstein_interval(two_groups, "fpr")


def test_interval_bad_groups(two_groups):
    three = AssessmentData(scores=[0.9, 0.1, 0.5], labels=[1, 0, 1], groups=["a", "b", "c"])
    with pytest.raises(ValueError, match=r"'group' parameter is needed"):
        bernstein_interval(three)
    with pytest.raises(ValueError, match=r"Unknown group 'z' for the 'group' parameter"):
        bernstein_interval(two_groups, group="z")
    with pytest.raises(ValueError, match=r"are the same group 'b'"):
        bernstein_interval(two_groups, group="b", reference="b")
