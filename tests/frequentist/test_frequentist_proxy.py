"""The proxy comparators: the probability-weighted estimator and the bounds that assume
no link between proxy and outcome."""

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import linprog

import bayesfair as bf
from bayesfair.datasets.simulate import proxy_audit
from bayesfair.exceptions import InvalidParameterError
from bayesfair.frequentist.proxy import proxy_bounds, proxy_weighted_difference

METRICS = ["selection_rate", "tpr", "fpr", "accuracy"]


@pytest.fixture(scope="module")
def audit():
    return proxy_audit(k=3, n_labeled=800, n_unlabeled=5000, n_self_reported=300, random_seed=7)


@pytest.fixture(scope="module")
def data(audit):
    return audit.assessment_data()


def _weighted_by_hand(audit, metric, group, reference):
    """Each row in every group with weight P(g), or 1 in its self-reported group."""
    rows = [audit.labeled.assign(labeled=True)]
    if metric == "selection_rate":
        rows.append(audit.unlabeled.assign(labeled=False))
    rows = pd.concat(rows, ignore_index=True)
    yhat, y = rows["score"].to_numpy() >= 0.5, rows["label"].to_numpy() == 1
    rate = {}
    for g in (group, reference):
        w = np.where(rows["group"].isna(), rows[audit.group_probabilities[g]], rows["group"] == g)
        mask = {
            "selection_rate": np.ones_like(y),
            "tpr": y,
            "fpr": ~y,
            "accuracy": np.ones_like(y),
        }[metric]
        hit = {"selection_rate": yhat, "tpr": yhat, "fpr": yhat, "accuracy": yhat == y}[metric]
        rate[g] = (w * mask * hit).sum() / (w * mask).sum()
    return rate[group] - rate[reference]


@pytest.mark.parametrize("metric", METRICS)
def test_the_weighted_estimate_is_the_rows_own(audit, data, metric):
    res = proxy_weighted_difference(data, metric, group="Black", random_seed=0, n_resamples=200)
    assert res.estimate == pytest.approx(
        _weighted_by_hand(audit, metric, "Black", "White"), abs=1e-9
    )
    assert res.interval.lower < res.estimate < res.interval.upper
    assert "calibrated" in res.assumes and res.group == "Black" and res.reference == "White"


@pytest.mark.parametrize("metric", METRICS)
def test_the_bounds_hold_the_weighted_assignment(data, metric):
    """The weighted estimator is one assignment the proxy allows (each row shared by its
    probabilities): it lies within the identified bounds."""
    b = proxy_bounds(data, metric, group="Black", random_seed=0, n_resamples=100)
    w = proxy_weighted_difference(data, metric, group="Black", random_seed=0, n_resamples=10)
    lo, hi = b.identified
    assert lo - 1e-9 <= w.estimate <= hi + 1e-9
    assert b.interval.lower <= lo and b.interval.upper >= hi
    assert b.sharp == (metric in ("selection_rate", "accuracy"))


def test_a_perfect_proxy_leaves_nothing_to_bound():
    audit = proxy_audit(k=2, n_labeled=400, n_unlabeled=2000, n_self_reported=0, random_seed=1)
    lab, unl = audit.frames()
    for frame, source in ((lab, audit.labeled), (unl, audit.unlabeled)):
        for g, column in audit.group_probabilities.items():
            frame[column] = (source["true_group"] == g).astype(float)
    data = bf.AssessmentData.from_frames(
        lab,
        unl,
        score="score",
        label="label",
        group="group",
        group_probabilities=audit.group_probabilities,
        reference="White",
    )
    for metric in METRICS:
        truth = audit.truth(metric) if metric == "selection_rate" else None
        b = proxy_bounds(data, metric, random_seed=0, n_resamples=50)
        assert b.identified[0] == pytest.approx(b.identified[1], abs=1e-12)
        w = proxy_weighted_difference(data, metric, random_seed=0, n_resamples=10)
        assert w.estimate == pytest.approx(b.identified[0], abs=1e-12)
        if truth is not None:
            assert w.estimate == pytest.approx(truth["Black"] - truth["White"], abs=1e-12)


def test_the_sharp_bounds_are_the_linear_programs_optimum():
    """Selection rate: the bounds over every assignment of the proxy cells' rows, by
    linear programming over the assignment (Kallus, Mao & Zhou 2022), equal the greedy's."""
    rng = np.random.default_rng(0)
    n_cells, k = 6, 3
    n_sel = rng.integers(0, 30, size=n_cells).astype(float)
    n_not = rng.integers(1, 30, size=n_cells).astype(float)
    share = rng.dirichlet([1, 1, 1], size=n_cells)
    mass = share * (n_sel + n_not)[:, None]
    rows = []
    for c in range(n_cells):
        p = share[c]
        rows += [(0.9, p, None)] * int(n_sel[c]) + [(0.1, p, None)] * int(n_not[c])
    s = np.array([r[0] for r in rows])
    p = np.array([r[1] for r in rows])
    lab = pd.DataFrame(
        {
            "score": [0.9, 0.1, 0.9],
            "label": [1, 0, 0],
            "group": ["g0", "g1", "g2"],
            "p0": 1 / 3,
            "p1": 1 / 3,
            "p2": 1 / 3,
        }
    )
    unl = pd.DataFrame({"score": s, "group": None, "p0": p[:, 0], "p1": p[:, 1], "p2": p[:, 2]})
    data = bf.AssessmentData.from_frames(
        lab,
        unl,
        score="score",
        label="label",
        group="group",
        group_probabilities={"g0": "p0", "g1": "p1", "g2": "p2"},
        reference="g0",
    )
    b = proxy_bounds(data, "selection_rate", group="g1", random_seed=0, n_resamples=10)
    # x[c, g]: selected rows of cell c given to group g; 0 <= x <= min(mass, n_sel), sum_g = n_sel
    known_sel, known_n = np.array([1.0, 0, 1]), np.ones(3)
    den = known_n + mass.sum(axis=0)
    cost = np.zeros((n_cells, k))
    cost[:, 1], cost[:, 0] = 1 / den[1], -1 / den[0]
    a_eq = np.kron(np.eye(n_cells), np.ones(k))
    bounds = [(0, m) for m in mass.ravel()]
    const = known_sel[1] / den[1] - known_sel[0] / den[0]
    low = linprog(cost.ravel(), A_eq=a_eq, b_eq=n_sel, bounds=bounds).fun + const
    high = -linprog(-cost.ravel(), A_eq=a_eq, b_eq=n_sel, bounds=bounds).fun + const
    assert b.identified == pytest.approx((low, high), abs=1e-9)


def test_data_without_a_proxy_are_refused():
    data = bf.AssessmentData(scores=[0.2, 0.8], labels=[0, 1], groups=["a", "b"])
    with pytest.raises(InvalidParameterError, match="group probabilities"):
        proxy_bounds(data)
    with pytest.raises(InvalidParameterError, match="group probabilities"):
        proxy_weighted_difference(data)
