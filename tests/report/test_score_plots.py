"""The score's figures draw from the posterior's tables and refuse other tables."""

from __future__ import annotations

import pytest

from bayesfair.exceptions import InvalidParameterError
from bayesfair.posterior import score_view
from bayesfair.report.score_plots import plot_roc, plot_score_reliability, plot_threshold_gap


@pytest.fixture(scope="module")
def res(data, quiet_fit):
    return quiet_fit(data)


def _axes():
    from matplotlib.figure import Figure

    return Figure().subplots()


def test_roc_has_a_curve_per_group_and_the_reference(res):
    t = [0.1, 0.3, 0.5, 0.7, 0.9]
    ax = plot_roc(res.threshold_summary("tpr", t), res.threshold_summary("fpr", t), ax=_axes())
    labels = [line.get_label() for line in ax.get_lines()]
    assert any("(reference)" in label for label in labels)
    assert len(ax.collections) == len(res.groups) - 1  # one band per group but the reference


def test_the_gap_figure_shades_epsilon(res):
    table = res.threshold_summary("tpr", [0.3, 0.5, 0.7])
    ax = plot_threshold_gap(table, epsilon=0.05, ax=_axes())
    assert "true positive rate" in ax.get_ylabel()
    assert ax.get_xlim() == (0.0, 1.0)


def test_the_reliability_figure(res):
    ax = plot_score_reliability(score_view.reliability_summary(res, n_bins=5), ax=_axes())
    assert ax.get_xlabel() == "mean score"


@pytest.mark.parametrize("plot", [plot_threshold_gap, plot_score_reliability])
def test_another_table_is_refused(plot):
    import pandas as pd

    with pytest.raises(InvalidParameterError, match="'table' parameter must be"):
        plot(pd.DataFrame({"x": [1]}))
