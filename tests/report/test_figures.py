"""bayesfair.report.figures: the report's figures, each a caption and a base64 PNG."""

import base64
import dataclasses

import matplotlib

matplotlib.use("Agg")

import pandas as pd

from bayesfair.report.figures import comparison_figures, draws_reliability


def test_the_figures_of_a_comparison_of_two_groups(comparison):
    figures = comparison_figures(comparison)
    captions = [caption for caption, _ in figures]
    # Δ per pair (2), forest, variance forest, calibration maps (a bc fit), the reliability
    # curves of calibration within groups
    assert len(figures) == 6
    assert captions[0].startswith("Posterior of Δ accuracy (Female − Male)")
    assert captions[2:4] == ["Intervals of Δ by method.", "Between-group variance by estimator."]
    assert captions[4].startswith("Reliability per group: the BC calibration map")
    assert captions[5].startswith("Calibration within groups: each group's labeled rows")
    for _, png in figures:
        assert base64.b64decode(png).startswith(b"\x89PNG\r\n\x1a\n")


def test_the_reliability_figure_is_drawn_where_there_are_curves(comparison):
    assert draws_reliability(comparison)
    without = dataclasses.replace(comparison, reliability=pd.DataFrame())
    assert not draws_reliability(without)
    captions = [caption for caption, _ in comparison_figures(without)]
    assert len(captions) == 5 and not captions[-1].startswith("Calibration within groups")
