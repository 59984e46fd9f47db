"""bayesfair.data.engines.numpy: arrays or a pandas frame in memory, reduced to a ScoreSummary.

The expected sums are computed here with pandas, row by row, not with the summary code.
"""

import numpy as np
import pandas as pd
import pytest
from frames import labeled_frame, score_frame

from bayesfair.data.engines._common import LabelColumn, SummaryGrid
from bayesfair.data.engines.numpy import numpy_engine
from bayesfair.exceptions import InvalidParameterError

GRID = SummaryGrid(threshold=0.5, score_clip=0.01, n_bins=64)


def _strata(summary) -> pd.DataFrame:
    """Rows, positives (labeled) and the sum of the raw scores per (group, side)."""
    cols = {
        "group": summary.group_labels,
        "side": summary.side,
        "count": summary.count,
        "sum_score": summary.sum_score,
    }
    if summary.labeled:
        cols["positives"] = summary.positives
    return pd.DataFrame(cols).groupby(["group", "side"]).sum()


def _expected(frame: pd.DataFrame, group, label=None) -> pd.DataFrame:
    side = frame["score"] >= GRID.threshold
    out = frame.assign(side=side, count=1.0, sum_score=frame["score"])
    keep = ["count", "sum_score"]
    if label is not None:
        out["positives"] = out[label].astype(float)
        keep.append("positives")
    return out.groupby([group, "side"])[keep].sum().rename_axis(["group", "side"])


def test_a_frame_s_sums_per_group_and_side_are_the_rows():
    frame = score_frame(5_000, seed=41)
    summary = numpy_engine(frame, "score", ["race"], GRID)
    assert summary.n_total == 5_000 and not summary.labeled and summary.attributes is None
    assert summary.group_levels == ["b", "h", "w"]
    pd.testing.assert_frame_equal(_strata(summary), _expected(frame, "race"), check_dtype=False)
    # every score at or above the threshold is on side 1: the three 0.5s of the frame too
    assert summary.totals()[:, 1].sum() == (frame["score"] >= 0.5).sum()
    assert (summary.bin >= 0).all() and (summary.bin < GRID.n_bins).all()


def test_labels_give_the_positives_and_pos_label_zero_complements_them():
    frame = labeled_frame(4_000, seed=42)
    summary = numpy_engine(frame, "score", ["race"], GRID, LabelColumn("label", 1.0))
    assert summary.labeled
    expected = _expected(frame, "race", "label")
    pd.testing.assert_frame_equal(_strata(summary), expected, check_dtype=False)
    flipped = numpy_engine(frame, "score", ["race"], GRID, LabelColumn("label", 0.0))
    np.testing.assert_allclose(flipped.positives, summary.count - summary.positives)


def test_arrays_pair_and_triple_equal_the_frame():
    frame = labeled_frame(3_000, seed=43)
    by_frame = numpy_engine(frame, "score", ["race"], GRID, LabelColumn("label", 1.0))
    triple = (frame["score"].to_numpy(), frame["race"].to_numpy(), frame["label"].to_numpy())
    by_arrays = numpy_engine(triple, "ignored", ["ignored"], GRID, LabelColumn("x", 1.0))
    for name in ("count", "sum_score", "sum_log_s", "positives", "bin"):
        np.testing.assert_array_equal(getattr(by_arrays, name), getattr(by_frame, name))
    pair = numpy_engine(triple[:2], "ignored", ["ignored"], GRID)
    assert not pair.labeled
    np.testing.assert_array_equal(pair.count, by_frame.count)


def test_several_group_columns_are_intersections():
    frame = score_frame(3_000, seed=44)
    summary = numpy_engine(frame, "score", ["race", "sex"], GRID)
    assert summary.attributes == ("race", "sex")
    assert set(summary.group_levels) == {f"{r} & {s}" for r in "bhw" for s in (0, 1)}
    counts = dict(zip(summary.group_levels, summary.totals().sum(axis=1), strict=True))
    assert counts["w & 1"] == ((frame["race"] == "w") & (frame["sex"] == 1)).sum()


def test_integer_groups_stay_python_integers():
    frame = score_frame(1_000, seed=45)
    summary = numpy_engine(frame, "score", ["sex"], GRID)
    assert summary.group_levels == [0, 1]
    assert all(type(g) is int for g in summary.group_levels)


def test_bad_sources_are_named():
    frame = labeled_frame(50, seed=46)
    s, g = frame["score"].to_numpy(), frame["race"].to_numpy()
    with pytest.raises(InvalidParameterError, match="a pair .* or a triple .* Got a tuple of 1"):
        numpy_engine((s,), "score", ["race"], GRID)
    with pytest.raises(InvalidParameterError, match="takes a pandas DataFrame .* Got list"):
        numpy_engine([s, g], "score", ["race"], GRID)
    with pytest.raises(InvalidParameterError, match=r"no column\(s\) \['grp', 'y'\]; it has"):
        numpy_engine(frame, "score", ["grp"], GRID, LabelColumn("y", 1.0))
    with pytest.raises(InvalidParameterError, match=r"scores \(50\) and groups \(49\) differ"):
        numpy_engine((s, g[:-1]), "score", ["race"], GRID)
    with pytest.raises(InvalidParameterError, match=r"scores \(50\) and labels \(48\) differ"):
        numpy_engine((s, g, np.ones(48)), "score", ["race"], GRID, LabelColumn("y", 1.0))
