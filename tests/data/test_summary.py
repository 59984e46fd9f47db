"""The additive summary of scored rows (bayesfair.data.summary): binning, sums, addition."""

import numpy as np
import pytest

from bayesfair.data.summary import ScoreSummary, bin_index, summarize_arrays


def _parts(seed=0, n=400):
    rng = np.random.default_rng(seed)
    s = rng.uniform(size=n)
    g = rng.integers(0, 3, n)  # codes into LEVELS
    y = (rng.uniform(size=n) < s).astype(int)
    return s, g, y


LEVELS = ["b", "a", "c"]


def _summary(s, g, **kw):
    return summarize_arrays(s, g, LEVELS, **kw)


def test_a_sum_of_parts_is_the_summary_of_all_rows_in_any_order():
    s, g, y = _parts()
    whole = _summary(s, g, labels=y).with_levels(["a", "b", "c"])
    first = _summary(s[:150], g[:150], labels=y[:150])
    second = _summary(s[150:], g[150:], labels=y[150:])
    for total in (first + second, second + first):
        assert tuple(total.levels) == ("a", "b", "c")  # sorted, whatever the parts' order
        np.testing.assert_allclose(total.confusion_counts(), whole.confusion_counts())
        np.testing.assert_allclose(total.totals(), whole.totals())
        assert total.n_total == whole.n_total == s.size


def test_only_like_summaries_add():
    s, g, y = _parts()
    labeled = _summary(s, g, labels=y)
    with pytest.raises(ValueError, match="Only summaries with the same threshold"):
        labeled + _summary(s, g)  # one labeled, one not
    with pytest.raises(ValueError, match="Only summaries with the same threshold"):
        labeled + _summary(s, g, labels=y, threshold=0.3)
    assert labeled.__add__("not a summary") is NotImplemented


def test_bins_are_monotone_in_the_score_and_cover_the_grid():
    s = np.linspace(0.0, 1.0, 2001)
    side, idx, log_s, log_1ms = bin_index(s, 0.5, 0.01, 64)
    assert np.all(np.diff(idx) >= 0) and np.array_equal(side, s >= 0.5)
    np.testing.assert_allclose(log_s, np.log(np.clip(s, 0.01, 0.99)))
    np.testing.assert_allclose(log_1ms, np.log1p(-np.clip(s, 0.01, 0.99)))
    assert idx.min() == 0 and idx.max() == 63


def test_counts_split_at_the_threshold():
    s = np.array([0.1, 0.49, 0.5, 0.9])
    summary = summarize_arrays(s, np.zeros(4, dtype=int), ["a"], labels=np.array([0, 1, 1, 0]))
    assert isinstance(summary, ScoreSummary)
    # tp, fp, tn, fn: 0.5 (y=1) tp, 0.9 (y=0) fp, 0.1 (y=0) tn, 0.49 (y=1) fn
    np.testing.assert_array_equal(summary.confusion_counts()[0], [1, 1, 1, 1])


@pytest.mark.parametrize("clip", [0, 0.5, -0.1, True, "0.01"])
def test_a_bad_score_clip_is_named(clip):
    s, g, y = _parts()
    with pytest.raises(ValueError, match="'score_clip' parameter must be a number in"):
        _summary(s, g, labels=y, score_clip=clip)
