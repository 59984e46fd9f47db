"""Figures drawn from real fitted output (bundled Adult data, small draws): check what is drawn."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import LineCollection, PathCollection, PolyCollection
from matplotlib.patches import Polygon, Rectangle

from bayesfair.frequentist import double_corrected_bootstrap
from bayesfair.report import plots

EPS = 0.02


@pytest.fixture
def ax():
    fig, ax = plt.subplots()
    yield ax
    plt.close(fig)


def _eps_band(ax, eps):
    """Patches spanning exactly [-eps, eps] horizontally (the axvspan)."""
    out = []
    for p in ax.patches:
        if isinstance(p, Rectangle | Polygon):
            x = p.get_path().transformed(p.get_patch_transform()).vertices[:, 0]
            if isinstance(p, Polygon):
                x = p.get_xy()[:, 0]
            if np.isclose(x.min(), -eps) and np.isclose(x.max(), eps):
                out.append(p)
    return out


# --------------------------------------------------------------------------- plot_difference
def test_plot_difference_overlays_models_band_probabilities_and_estimate(comparison, ax):
    row = comparison.pairs.iloc[0]
    out = plots.plot_difference(
        comparison.posteriors, "accuracy", epsilon=EPS, freq_estimate=row["freq_estimate"], ax=ax
    )
    assert out is ax
    assert ax.get_title() == "Δ accuracy: Female − Male"
    assert "posterior density" in ax.get_ylabel()
    # one histogram patch per model plus the ε band
    hist = [p for p in ax.patches if p.get_label() in ("BB", "BC")]
    assert len(hist) == 2
    assert len(_eps_band(ax, EPS)) == 1
    # the frequency estimate: a dashed vertical line at its value
    dashed = [ln for ln in ax.get_lines() if ln.get_linestyle() == "--"]
    assert len(dashed) == 1
    assert np.allclose(dashed[0].get_xdata(), row["freq_estimate"])
    # P(|Δ|<ε) and P(Δ>0) per model, and they match the posterior
    (text,) = [t.get_text() for t in ax.texts]
    assert text.count("P(|Δ|<0.02)") == 2 and text.count("P(Δ>0)") == 2
    p_bc = comparison.posteriors["bc"].prob_practically_fair("accuracy", EPS).iloc[0]
    assert f"BC: P(|Δ|<0.02) = {p_bc:.2f}" in text
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "BB" in legend and "BC" in legend


def _clears_the_bars(ax):
    """Every box at the top of the axes (legend, text) lies above the tallest bar."""
    ax.figure.canvas.draw()
    peak = max(p.get_xy()[:, 1].max() for p in ax.patches if isinstance(p, Polygon))
    to_data = ax.transData.inverted()
    for box in [ax.get_legend(), *ax.texts]:
        assert to_data.transform(box.get_window_extent().corners())[:, 1].min() > peak


def test_the_legends_sit_above_the_histograms(comparison, data):
    """Neither histogram's legend (nor the probabilities' box) covers a bar."""
    fig, axes = plt.subplots(1, 2)
    try:
        plots.plot_difference(comparison.posteriors, "accuracy", epsilon=EPS, ax=axes[0])
        _clears_the_bars(axes[0])
        res = double_corrected_bootstrap(data, "accuracy", n_resamples=300, random_seed=1)
        plots.plot_bootstrap_variance(res, truth=0.003, ax=axes[1])
        _clears_the_bars(axes[1])
    finally:
        plt.close(fig)


def test_plot_difference_new_axes_and_bad_input(comparison):
    ax = plots.plot_difference({"bb": comparison.posteriors["bb"]}, "tpr", epsilon=0.05)
    try:
        assert len(_eps_band(ax, 0.05)) == 1
        assert not [ln for ln in ax.get_lines() if ln.get_linestyle() == "--"]
    finally:
        plt.close(ax.figure)
    with pytest.raises(ValueError, match="epsilon"):
        plots.plot_difference(comparison.posteriors, "accuracy", epsilon=0)
    with pytest.raises(ValueError, match="at least one"):
        plots.plot_difference({}, "accuracy")


# --------------------------------------------------------------------------- forests
def test_plot_forest_intervals_per_method(comparison, ax):
    plots.plot_forest(comparison, ax=ax)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["Newcombe", "bootstrap", "Bernstein", "BB", "BC"]
    lines = [c for c in ax.collections if isinstance(c, LineCollection)]
    assert len(lines) == 5
    pairs = comparison.pairs
    # each method's segments are its intervals, one per row of the pair table
    bc = lines[4].get_segments()
    assert len(bc) == len(pairs) == 2
    for seg, (_, r) in zip(bc, pairs.iterrows(), strict=True):
        assert np.allclose(seg[:, 0], [r["bc_lower"], r["bc_upper"]])
    ticks = [t.get_text() for t in ax.get_yticklabels()]
    assert ticks == ["accuracy: Female − Male", "tpr: Female − Male"]
    assert len(_eps_band(ax, EPS)) == 1
    assert "95% intervals of Δ" in ax.get_title()


def test_plot_forest_one_metric(comparison, ax):
    plots.plot_forest(comparison, metric="tpr", ax=ax)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["tpr: Female − Male"]
    with pytest.raises(ValueError, match="not in the comparison"):
        plots.plot_forest(comparison, metric="fpr")


def test_plot_variance_forest(comparison, ax):
    plots.plot_variance_forest(comparison, ax=ax)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["uncorrected", "corrected", "double-corrected", "BB", "BC"]
    lines = [c for c in ax.collections if isinstance(c, LineCollection)]
    seg = lines[2].get_segments()  # double-corrected
    v = comparison.variance
    assert np.allclose(
        seg[0][:, 0],
        [v.loc["accuracy", "double_corrected_lower"], v.loc["accuracy", "double_corrected_upper"]],
    )
    assert [t.get_text() for t in ax.get_yticklabels()] == ["accuracy", "tpr"]
    assert "Between-group variance" in ax.get_title()


# --------------------------------------------------------------------------- calibration
def test_plot_calibration_curves_bands_and_binned_points(comparison, data, ax):
    plots.plot_calibration(comparison.posteriors["bc"], data, n_bins=5, ax=ax)
    assert "Calibration" in ax.get_title()
    assert ax.get_xlabel() == "score s"
    # identity + one posterior-mean curve per group
    assert len(ax.get_lines()) == 1 + 2
    bands = [c for c in ax.collections if isinstance(c, PolyCollection)]
    points = [c for c in ax.collections if isinstance(c, PathCollection)]
    assert len(bands) == 2 and len(points) == 2
    # about equal-count chunks of the labeled summary: 5 points per group, in score order,
    # each at its chunk's mean score and fraction of positives; pooled, they give the
    # group's mean score and positive rate (weights: the chunks' counts)
    female = data.groups == "Female"
    s, y = data.scores[female], data.labels[female]
    xy = np.asarray(points[0].get_offsets())
    assert xy.shape == (5, 2) and np.all(np.diff(xy[:, 0]) > 0)
    assert s.min() <= xy[0, 0] and xy[-1, 0] <= s.max()
    lab = data.labeled_summary()
    keep = lab.group == data.group_levels.index("Female")
    order = np.lexsort((lab.side[keep], lab.bin[keep]))
    count = lab.count[keep][order]
    cut = np.minimum((np.cumsum(count) - count / 2) * 5 // count.sum(), 4).astype(int)
    m = np.bincount(cut, weights=count, minlength=5)
    assert np.isclose(m @ xy[:, 0], s.sum()) and np.isclose(m @ xy[:, 1], y.sum())
    assert np.all(np.abs(m - s.size / 5) <= count.max())
    # the posterior mean curve lies inside its band
    mean = ax.get_lines()[1].get_ydata()
    band = bands[0].get_paths()[0].vertices[:, 1]
    assert mean.min() >= band.min() - 1e-12 and mean.max() <= band.max() + 1e-12


def test_plot_calibration_needs_bc(comparison, data):
    with pytest.raises(ValueError, match="a fit of 'rbc' or 'bc'"):
        plots.plot_calibration(comparison.posteriors["bb"], data)


def test_plot_reliability_one_panel_per_group(comparison):
    post = comparison.posteriors["bc"]
    check = post.calibration_check(warn=False)
    axes = plots.plot_reliability(post, check=check)
    assert len(axes) == len(post.groups)
    for ax, (_, row) in zip(axes, check.iterrows(), strict=True):
        assert ax.get_title().startswith(str(row["group"]))
        assert row["verdict"] in ax.get_title()
        # the map's band, and one count per bin adding up to the group's labels
        assert "map band" in [c.get_label() for c in ax.collections]
        counts = [int(t.get_text()) for t in ax.texts if t.get_gid() == "bin-count"]
        assert sum(counts) == row["n_labeled"]
    with pytest.raises(ValueError, match="a fit of 'rbc' or 'bc'"):
        plots.plot_reliability(comparison.posteriors["bb"])


# ------------------------------------------------------------- calibration within groups
def test_plot_reliability_curves_one_line_per_group_and_the_maps(comparison, ax):
    curve = comparison.reliability
    groups = list(dict.fromkeys(curve["group"]))
    out = plots.plot_reliability_curves(curve, comparison.posteriors["bc"], ax=ax)
    assert out is ax
    lines = {ln.get_label(): ln for ln in ax.get_lines()}
    for g in groups:  # the group's bins, in score order, at their share of positives
        part = curve[curve["group"] == g]
        assert np.allclose(lines[g].get_xdata(), part["mean_score"])
        assert np.allclose(lines[g].get_ydata(), part["positive_rate"])
    assert sum(label in groups for label in lines) == len(groups)
    assert np.allclose(lines["calibrated (identity)"].get_xdata(), [0, 1])
    maps = [ln for ln in ax.get_lines() if ln.get_gid() == "map"]
    assert len(maps) == len(groups)  # BC: one map per group, no shift
    assert lines[groups[0]].get_color() == maps[0].get_color()
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "BC map" in legend and set(groups) <= set(legend)
    ax.figure.canvas.draw()
    assert not ax.get_legend().get_window_extent().overlaps(ax.get_window_extent())


def test_plot_reliability_curves_rbc_shifts_each_side_and_bb_draws_no_map(comparison, data):
    import warnings

    import bayesfair as bf

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit(data, draws=100, tune=100, chains=1, random_seed=0, progressbar=False)
    for post, pieces in ((res, 2), (comparison.posteriors["bb"], 0), (None, 0)):
        fig, ax = plt.subplots()
        try:
            plots.plot_reliability_curves(comparison.reliability, post, ax=ax)
            maps = [ln for ln in ax.get_lines() if ln.get_gid() == "map"]
            assert len(maps) == pieces * len(data.group_levels)
            if pieces:  # the pieces meet at the threshold: below it, then from it
                assert maps[0].get_xdata().max() < 0.5 <= maps[1].get_xdata().min()
        finally:
            plt.close(fig)
    with pytest.raises(ValueError, match="reliability_curve"):
        plots.plot_reliability_curves(comparison.calibration_view)


# --------------------------------------------------------------------------- experiments
def test_plot_error_curves_two_panels():
    frame = pd.DataFrame(
        {
            "n_labeled": [10, 10, 40, 40] * 2,
            "method": ["freq"] * 4 + ["bc"] * 4,
            "abs_error": [0.2, 0.1, 0.05, 0.05, 0.1, 0.1, 0.02, 0.04],
            "covered": [1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, np.nan],
        }
    )
    mae_ax, cov_ax = plots.plot_error_curves(frame)
    try:
        assert mae_ax.figure is cov_ax.figure
        assert len(mae_ax.get_lines()) == 2
        assert len(cov_ax.get_lines()) == 3  # two methods + nominal line
        freq = mae_ax.get_lines()[0]
        assert np.allclose(freq.get_xdata(), [10, 40])
        assert np.allclose(freq.get_ydata(), [0.15, 0.05])
        bc_cov = cov_ax.get_lines()[1]
        assert np.allclose(bc_cov.get_ydata(), [1.0, 1.0])  # NaN coverage skipped
        assert "MAE" in mae_ax.get_title() and "Coverage" in cov_ax.get_title()
        assert [t.get_text() for t in mae_ax.get_legend().get_texts()] == ["frequency", "BC"]
    finally:
        plt.close(mae_ax.figure)
    with pytest.raises(ValueError, match="covered"):
        plots.plot_error_curves(frame.drop(columns="covered"))


# --------------------------------------------------------------------------- bootstrap
def test_plot_bootstrap_variance(data, ax):
    res = double_corrected_bootstrap(data, "accuracy", n_resamples=300, random_seed=1)
    plots.plot_bootstrap_variance(res, truth=0.003, ax=ax)
    hist = [p for p in ax.patches if isinstance(p, Polygon)]
    assert len(hist) == 3
    # two interval lines per estimator + the truth
    assert len(ax.get_lines()) == 7
    xs = sorted(float(ln.get_xdata()[0]) for ln in ax.get_lines() if ln.get_linestyle() == ":")
    expected = sorted(
        x
        for k in ("uncorrected", "corrected", "double_corrected")
        for x in getattr(res, k).interval
    )
    assert np.allclose(xs, expected)
    (truth,) = [ln for ln in ax.get_lines() if ln.get_linestyle() == "-"]
    assert truth.get_xdata()[0] == 0.003
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any(t.startswith("double-corrected [") for t in labels)
    assert "truth 0.0030" in labels
    assert "accuracy" in ax.get_title()


def test_the_reliability_legend_hides_no_point():
    """The legend of the calibration figure lies outside every axes' plotting area."""
    import warnings

    import matplotlib

    matplotlib.use("Agg")
    import bayesfair as bf
    from bayesfair.datasets import load_assessment
    from bayesfair.report.plots import plot_reliability

    data = load_assessment("adult-sex", "MLP", n_labeled=200, random_seed=0)  # scores pile at 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit(data, draws=100, tune=100, chains=1, random_seed=0, progressbar=False)
        axes = plot_reliability(res)
    fig = axes[0].figure
    fig.canvas.draw()
    legend = axes[0].get_legend().get_window_extent()
    for ax in axes:
        assert not legend.overlaps(ax.get_window_extent()), "the legend covers a plotting area"
    # the bins' counts: none overlaps another (they crowd where scores pile up near 0)
    renderer = fig.canvas.get_renderer()
    labels = [[t for t in ax.texts if t.get_gid() == "bin-count"] for ax in axes]
    assert max(map(len, labels)) >= 5
    for texts in labels:
        boxes = [t.get_window_extent(renderer) for t in texts]
        for i, a in enumerate(boxes):
            for b in boxes[i + 1 :]:
                assert not a.overlaps(b), (a, b)


def test_figures_drawn_together_use_distinct_colours():
    """Every pair of methods one figure can show differs by ΔE*ab ≥ 20 (CIE 1976, on
    sRGB), except the aliases that are one method under two names."""
    from matplotlib.colors import to_rgb

    def lab(colour):
        rgb = np.array(to_rgb(colour))
        lin = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
        srgb_to_xyz = [[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]
        xyz = np.array(srgb_to_xyz) @ lin / np.array([0.9505, 1.0, 1.089])  # D65 white
        f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
        return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])

    models = ["bb", "hbb", "bc", "rbc"]
    figures = {
        "variance": ["uncorrected", "corrected", "double_corrected", *models, "hbb_population"],
        "difference": ["newcombe", "bootstrap", "bernstein", "ppi", *models],
        "experiments": ["freq", "bernstein", "ppi", "bayes", "bb", "bc"],
    }
    for name, methods in figures.items():
        for i, a in enumerate(methods):
            for b in methods[i + 1 :]:
                gap = np.linalg.norm(lab(plots.COLORS[a]) - lab(plots.COLORS[b]))
                assert gap >= 20, f"{name}: {a} and {b} differ by ΔE {gap:.1f}"
