"""The score metrics from ordered cells: exact against pair counting."""

from __future__ import annotations

import numpy as np
import pytest

from bayesfair.exceptions import InvalidParameterError
from bayesfair.metrics import get_metric, get_rate
from bayesfair.metrics.scores import (
    SCORE_METRICS,
    cell_auc,
    check_thresholds,
    counts_above,
    score_metric_draws,
)
from bayesfair.metrics.verdicts import TOO_FEW, decide, rate_evidence


def _pairs(pos_scores, neg_scores) -> float:
    """P(positive > negative) + ½ P(tie), by counting every pair."""
    diff = np.subtract.outer(pos_scores, neg_scores)
    return float(((diff > 0) + 0.5 * (diff == 0)).mean())


def _cells(scores, labels):
    levels = np.unique(scores)
    cell = np.searchsorted(levels, scores)
    pos = np.bincount(cell[labels], minlength=levels.size).astype(float)
    neg = np.bincount(cell[~labels], minlength=levels.size).astype(float)
    return levels, pos, neg


def test_cell_auc_is_the_mann_whitney_statistic_with_ties_half():
    rng = np.random.default_rng(1)
    s = rng.integers(0, 12, 300) / 12  # many ties
    y = rng.random(300) < s
    _, pos, neg = _cells(s, y)
    assert cell_auc(pos, neg) == pytest.approx(_pairs(s[y], s[~y]), abs=1e-12)


def test_cell_auc_is_nan_without_positives():
    assert np.isnan(cell_auc([0, 0], [1, 2]))


def test_counts_above_are_the_confusion_counts_at_each_threshold():
    rng = np.random.default_rng(2)
    s = rng.random(200)
    y = rng.random(200) < s
    levels, pos, neg = _cells(s, y)
    t = np.array([0.2, 0.5, 0.9])
    got = counts_above(pos, neg, np.searchsorted(levels, t))
    for j, threshold in enumerate(t):
        pred = s >= threshold
        want = [(pred & y).sum(), (pred & ~y).sum(), (~pred & ~y).sum(), (~pred & y).sum()]
        np.testing.assert_array_equal(got[j], want)


def test_the_subgroup_aucs_compare_the_group_with_the_others():
    rng = np.random.default_rng(3)
    s = rng.random(400)
    y = rng.random(400) < s
    g = rng.integers(0, 3, 400)
    levels = np.unique(s)
    cell = np.searchsorted(levels, s)
    pos = np.stack([np.bincount(cell[y & (g == k)], minlength=levels.size) for k in range(3)])
    neg = np.stack([np.bincount(cell[~y & (g == k)], minlength=levels.size) for k in range(3)])
    bpsn = score_metric_draws(SCORE_METRICS["bpsn_auc"], pos, neg)
    bnsp = score_metric_draws(SCORE_METRICS["bnsp_auc"], pos, neg)
    auc = score_metric_draws(SCORE_METRICS["auc"], pos, neg)
    for k in range(3):
        mine, others = g == k, g != k
        assert bpsn[k] == pytest.approx(_pairs(s[y & others], s[~y & mine]))
        assert bnsp[k] == pytest.approx(_pairs(s[y & mine], s[~y & others]))
        assert auc[k] == pytest.approx(_pairs(s[y & mine], s[~y & mine]))


def test_score_metrics_are_found_beside_the_rates_but_not_as_rates():
    assert get_metric("ROC-AUC").name == "auc"
    assert get_metric("bpsn_auc").label.startswith("BPSN")
    with pytest.raises(InvalidParameterError, match="read from the scores"):
        get_rate("auc")


def test_the_gate_asks_the_auc_for_positives_and_negatives():
    evidence = rate_evidence("A", [3, 40, 200, 4], rows=5000, metric="auc")
    assert evidence.labeled == 7 and evidence.denominator == "labeled positives"
    assert decide(-0.01, 0.01, 0.02, [evidence]) == TOO_FEW
    bpsn = rate_evidence("A", [3, 40, 200, 4], rows=5000, metric="bpsn_auc")
    assert bpsn.enough and bpsn.denominator == "labeled negatives"


@pytest.mark.parametrize("bad", [[], [0.0, 0.5], [0.5, 1.0], [[0.5]], "0.5"])
def test_thresholds_must_lie_strictly_inside_zero_one(bad):
    with pytest.raises(InvalidParameterError, match="thresholds"):
        check_thresholds(bad)


def test_cells_must_match_and_cuts_must_be_cells():
    with pytest.raises(InvalidParameterError, match="same cells"):
        cell_auc([1, 2, 3], [5])
    with pytest.raises(InvalidParameterError, match="cell positions"):
        counts_above([1, 2], [2, 1], [-1])
