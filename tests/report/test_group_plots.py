"""The forest plot of the groups' gaps to all rows (:mod:`bayesfair.report.group_plots`)."""

import itertools

import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import PathCollection, PolyCollection
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure

from bayesfair.report.group_plots import plot_group_gaps, plot_period_gaps

RED, GREEN, GREY = to_rgba("#c0392b"), to_rgba("#2e8b57"), to_rgba("#4d4d4d")

#: ε = 0.02: g0's band lies above ε, g1's below −ε (both "unfair"), g2's inside ±ε, g3's
#: across a bound.
BANDS = {
    "g0": (0.05, 0.03, 0.07),
    "g1": (-0.10, -0.15, -0.05),
    "g2": (0.0, -0.01, 0.01),
    "g3": (0.01, -0.03, 0.05),
}


def _view(metric="accuracy", prefix="", bands=BANDS):
    gap, lower, upper = (f"{prefix}{c}" for c in ("gap", "gap_lower", "gap_upper"))
    rows = [
        {"metric": metric, "group": g, gap: value, lower: lo, upper: hi}
        for g, (value, lo, hi) in bands.items()
    ]
    return pd.DataFrame(rows)


def _drawn(ax):
    """Per group from top to bottom: (group, gap, colour of its point, its band)."""
    labels = dict(zip(ax.get_yticks(), (t.get_text() for t in ax.get_yticklabels()), strict=True))
    points = ax.collections[1]  # the scatter of the gaps (the first collection: the bands)
    bands = ax.collections[0].get_segments()
    out = []
    for (x, y), colour, seg in zip(
        points.get_offsets(), points.get_facecolors(), bands, strict=True
    ):
        out.append((labels[y], x, tuple(colour), (seg[0][0], seg[1][0]), y))
    return [row[:4] for row in sorted(out, key=lambda r: -r[4])]


def _ax():
    return Figure().subplots()


def test_groups_are_drawn_worst_first_coloured_by_their_verdict():
    ax = plot_group_gaps(_view(), "accuracy", ax=_ax())
    # accuracy: higher is better, so the lowest gap is the most adverse (at the top)
    assert _drawn(ax) == [
        ("g1", -0.10, RED, (-0.15, -0.05)),
        ("g2", 0.0, GREEN, (-0.01, 0.01)),
        ("g3", 0.01, GREY, (-0.03, 0.05)),
        ("g0", 0.05, RED, (0.03, 0.07)),
    ]
    assert ax.get_ylim() == (-1, 4)
    assert ax.get_xlabel() == "gap of accuracy to all rows (band: simultaneous)"


def test_an_error_rate_puts_the_highest_gap_first():
    ax = plot_group_gaps(_view("fpr"), "fpr", ax=_ax())
    assert [row[0] for row in _drawn(ax)] == ["g0", "g3", "g2", "g1"]
    assert ax.get_xlabel() == "gap of false positive rate to all rows (band: simultaneous)"


def test_a_rate_without_direction_sorts_lowest_first():
    ax = plot_group_gaps(_view("selection_rate"), "selection_rate", ax=_ax())
    assert [row[0] for row in _drawn(ax)] == ["g1", "g2", "g3", "g0"]


def test_epsilon_sets_the_band_around_zero_and_the_colours():
    ax = plot_group_gaps(_view(), "accuracy", epsilon=0.2, ax=_ax())
    # at ε = 0.2 every band lies inside ±ε
    assert {row[2] for row in _drawn(ax)} == {GREEN}
    (span,) = ax.patches
    x0, x1 = span.get_x(), span.get_x() + span.get_width()
    assert (x0, x1) == pytest.approx((-0.2, 0.2))
    (zero,) = ax.lines
    assert set(zero.get_xdata()) == {0.0}


def test_only_the_metrics_rows_are_drawn_and_aliases_name_it():
    view = pd.concat([_view("tpr"), _view("fpr", bands={"h0": (0.3, 0.2, 0.4)})])
    ax = plot_group_gaps(view, "recall", ax=_ax())  # recall is tpr
    assert [row[0] for row in _drawn(ax)] == ["g1", "g2", "g3", "g0"]
    ax = plot_group_gaps(view, "FPR", ax=_ax())
    assert _drawn(ax) == [("h0", 0.3, RED, (0.2, 0.4))]


def test_a_comparisons_group_view_with_a_model_prefix():
    view = pd.concat([_view(prefix="rbc_"), _view(prefix="freq_")], axis=1)
    view = view.loc[:, ~view.columns.duplicated()]
    view["freq_gap"] = -view["freq_gap"]  # another method: another order
    ax = plot_group_gaps(view, "accuracy", model="rbc", ax=_ax())
    assert [row[0] for row in _drawn(ax)] == ["g1", "g2", "g3", "g0"]
    ax = plot_group_gaps(view, "accuracy", model="freq", ax=_ax())
    assert [row[0] for row in _drawn(ax)] == ["g0", "g3", "g2", "g1"]


def test_without_axes_it_draws_a_new_figure():
    import matplotlib.pyplot as plt

    ax = plot_group_gaps(_view(), "accuracy")
    try:
        assert len(ax.figure.axes) == 1
        width, height = ax.figure.get_size_inches()
        assert width == pytest.approx(7.0) and height == pytest.approx(1.2 + 0.32 * 4)
    finally:
        plt.close(ax.figure)


def test_eight_groups_get_labels_that_stay_apart():
    """With 8 groups (and other metrics' rows in the view) the figure grows by the
    groups drawn, its labels are 9 points, and no two labels overlap."""
    import matplotlib.pyplot as plt

    bands = {f"group {i}": (0.01 * i, 0.01 * i - 0.03, 0.01 * i + 0.03) for i in range(8)}
    view = pd.concat([_view(bands=bands), _view("tpr", bands=bands)], ignore_index=True)
    ax = plot_group_gaps(view, "accuracy")
    try:
        assert tuple(ax.figure.get_size_inches()) == pytest.approx((7.0, 1.2 + 0.32 * 8))
        ax.figure.canvas.draw()
        labels = ax.get_yticklabels()
        assert len(labels) == 8 and {t.get_fontsize() for t in labels} == {9.0}
        boxes = sorted((t.get_window_extent() for t in labels), key=lambda b: b.y0)
        assert all(a.y1 <= b.y0 for a, b in itertools.pairwise(boxes))
    finally:
        plt.close(ax.figure)


def test_it_draws_a_comparisons_group_view():
    """The frequentist view of a real comparison (no fit: fast), drawn by its prefix."""
    import bayesfair as bf

    rng = np.random.default_rng(0)
    s = rng.uniform(size=150)
    y = (rng.uniform(size=150) < s).astype(int)
    g = np.repeat(["a", "b", "c"], 50)
    data = bf.AssessmentData(s, y, g)
    comp = bf.compare(
        data, ["accuracy", "fpr"], models=(), n_resamples=100, random_seed=0, progressbar=False
    )
    view = comp.group_view
    ax = plot_group_gaps(view, "fpr", model="freq", ax=_ax())
    drawn = _drawn(ax)
    assert sorted(row[0] for row in drawn) == ["a", "b", "c"]
    gaps = [row[1] for row in drawn]
    assert gaps == sorted(gaps, reverse=True)  # an error rate: the highest first
    rows = view[view["metric"] == "fpr"].set_index("group")
    for group, gap, _, (lo, hi) in drawn:
        assert gap == pytest.approx(rows.loc[group, "freq_gap"])
        assert (lo, hi) == pytest.approx(
            tuple(rows.loc[group, ["freq_gap_lower", "freq_gap_upper"]])
        )


# --------------------------------------------------------------------------- over periods
def _periods():
    """Three periods; B and C against A. C has no row in the second period; B drifted in the
    third."""
    rows = [
        ("2024-01", "B", 0.01, -0.02, 0.04, False),
        ("2024-01", "C", -0.03, -0.06, 0.00, False),
        ("2024-02", "B", 0.02, -0.01, 0.05, False),
        ("2024-03", "B", 0.10, 0.05, 0.15, True),
        ("2024-03", "C", -0.01, -0.04, 0.02, False),
    ]
    table = pd.DataFrame(rows, columns=["period", "group", "mean", "lower", "upper", "drift"])
    table.insert(0, "metric", "accuracy")
    table.insert(3, "reference", "A")
    other = table.assign(metric="fpr", mean=0.5)  # another metric's rows: not drawn
    return pd.concat([table, other], ignore_index=True)


def test_period_gaps_draw_a_line_per_group_in_time_order():
    ax = plot_period_gaps(_periods(), "accuracy", ax=_ax())
    b, c = (line for line in ax.lines if line.get_label() in ("B − A", "C − A"))
    assert (b.get_label(), c.get_label()) == ("B − A", "C − A")
    np.testing.assert_array_equal(b.get_xdata(), [0, 1, 2])
    np.testing.assert_allclose(b.get_ydata(), [0.01, 0.02, 0.10])
    np.testing.assert_allclose(c.get_ydata(), [-0.03, np.nan, -0.01])  # no row: a gap
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels == ["2024-01", "2024-02", "2024-03"]
    assert ax.get_ylabel() == "gap in accuracy"


def test_a_drifted_period_is_marked_above_its_band():
    ax = plot_period_gaps(_periods(), "accuracy", ax=_ax())
    (marks,) = [c for c in ax.collections if isinstance(c, PathCollection)]  # the scatter
    np.testing.assert_allclose(marks.get_offsets(), [[2, 0.15]])
    assert tuple(marks.get_facecolors()[0]) == RED
    # one shaded band per group besides
    assert sum(isinstance(c, PolyCollection) for c in ax.collections) == 2


def test_period_gaps_shade_epsilon_and_say_it_in_the_legend():
    ax = plot_period_gaps(_periods(), "accuracy", epsilon=0.05, ax=_ax())
    (span,) = ax.patches
    y0, y1 = span.get_y(), span.get_y() + span.get_height()
    assert (y0, y1) == pytest.approx((-0.05, 0.05))
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["±ε = 0.05", "B − A", "C − A"]


def test_period_gaps_without_drift_have_no_marks():
    table = _periods()
    table["drift"] = False
    ax = plot_period_gaps(table, "fpr", ax=_ax())
    assert len(ax.collections) == 2  # the two bands
    assert not any(isinstance(c, PathCollection) for c in ax.collections)
    assert {tuple(line.get_ydata()[:1]) for line in ax.lines if line.get_label().endswith("A")} == {
        (0.5,)
    }
