"""The score's views of a fit: AUC as a metric, xAUC, the sweep and its joint band,
the reliability curve (plumbing on the bundled Adult-sex scores; coverage is
``tests/statistical/test_score_coverage.py``)."""

from __future__ import annotations

import copy
import types

import numpy as np
import pytest

from bayesfair.exceptions import InvalidParameterError
from bayesfair.posterior import score_view


@pytest.fixture(scope="module")
def res(data, quiet_fit):
    return quiet_fit(data)


@pytest.fixture(scope="module")
def res_expected(data, quiet_fit):
    return quiet_fit(data, estimand="expected")


@pytest.mark.parametrize("which", ["res", "res_expected"])
@pytest.mark.parametrize("metric", ["tpr", "fpr", "ppv", "selection_rate"])
def test_the_sweep_at_the_fits_threshold_is_the_posteriors_rate(request, which, metric):
    """The cells of a draw are scaled to its confusion counts: at the fit's threshold
    every rate is exactly the posterior's, under either estimand."""
    fit = request.getfixturevalue(which)
    draws = score_view.threshold_draws(fit, metric, [fit.settings["threshold"]])[..., 0]
    want = fit.rates(metric).transpose("chain", "draw", "group").values.reshape(draws.shape)
    np.testing.assert_allclose(draws, want, rtol=1e-9, atol=1e-12)


def test_auc_is_a_metric_of_difference_and_summary(res):
    d = res.difference("auc")
    assert d.dims == ("chain", "draw") and d.name == "auc_difference"
    assert np.all(np.abs(d.values) <= 1)
    auc = res.rates("auc")
    assert auc.dims == ("chain", "draw", "group") and np.all((auc > 0.5) & (auc <= 1))
    row = res.summary(metrics=["auc", "tpr"]).set_index("metric").loc["auc"]
    assert row["hdi_lower"] <= row["mean"] <= row["hdi_upper"]
    assert row["decision"] in {"practically fair", "unfair", "undecided", "too few"}
    assert "auc" not in res.metrics  # the fitted rates are not changed by reading it


def test_the_views_read_the_same_cells(res):
    first = res.rates("bnsp_auc").values.copy()
    score_view._DRAWS.pop(res)  # computed again from the cells, not from the cache
    np.testing.assert_array_equal(res.rates("bnsp_auc").values, first)


def test_xauc_has_both_directions(res):
    table = res.xauc()
    assert list(table.columns) == ["direction", "positives", "negatives", "mean", "lower", "upper"]
    assert len(table) == 2 and set(table["positives"]) == set(res.groups)
    assert (table["lower"] <= table["mean"]).all() and (table["mean"] <= table["upper"]).all()
    disparity = table.attrs["disparity"]
    assert disparity["lower"] <= disparity["mean"] <= disparity["upper"]


def test_threshold_summary_has_a_joint_band_per_gap(res):
    table = res.threshold_summary("tpr", thresholds=[0.3, 0.5, 0.7], epsilon=0.05)
    assert list(table.columns) == score_view.THRESHOLD_COLUMNS
    assert table["threshold"].tolist() == [0.3, 0.5, 0.7]
    assert (table["gap_lower"] <= table["gap"]).all() and (table["gap"] <= table["gap_upper"]).all()
    # a lower threshold selects more: the TPR falls along the thresholds
    assert table["rate"].is_monotonic_decreasing
    # the joint band is wider than each threshold's own HDI
    draws = score_view.threshold_draws(res, "tpr", [0.3, 0.5, 0.7])
    i, r = res.groups.index(table["group"][0]), res.groups.index(table["reference"][0])
    gap = draws[:, i] - draws[:, r]
    for j in range(3):
        lo, hi = np.quantile(gap[:, j], [0.025, 0.975])
        assert table["gap_upper"][j] - table["gap_lower"][j] > hi - lo
    assert table.attrs["metric"] == "tpr" and table.attrs["epsilon"] == 0.05


def test_the_gap_band_holds_for_the_draws_at_every_threshold_at_once(res):
    t = [0.2, 0.4, 0.6, 0.8]
    table = res.threshold_summary("fpr", thresholds=t, ci_prob=0.9)
    draws = score_view.threshold_draws(res, "fpr", t)
    i, r = res.groups.index(table["group"][0]), res.groups.index(table["reference"][0])
    gap = draws[:, i] - draws[:, r]
    inside = np.all((table["gap_lower"].values <= gap) & (gap <= table["gap_upper"].values), 1)
    assert inside.mean() >= 0.9


def test_reliability_summary_is_a_curve_per_group(res):
    table = score_view.reliability_summary(res, n_bins=5)
    assert set(table["group"]) == set(res.groups)
    assert table[["positive_rate", "lower", "upper"]].apply(lambda c: c.between(0, 1)).all().all()
    assert (table["mean_score"] >= table["score_lower"]).all()
    assert (table["mean_score"] <= table["score_upper"]).all()


def test_models_without_a_map_and_files_and_proxies_say_why(res, data, quiet_fit, tmp_path):
    with pytest.raises(InvalidParameterError, match="calibration map"):
        quiet_fit(data, model="bb").rates("auc")
    res.to_netcdf(tmp_path / "fit.nc")
    loaded = type(res).from_netcdf(tmp_path / "fit.nc")
    with pytest.raises(InvalidParameterError, match="read from a file"):
        loaded.xauc()
    proxied = copy.copy(res)
    proxied.data = types.SimpleNamespace(proxy=object())
    with pytest.raises(InvalidParameterError, match="proxy"):
        proxied.threshold_summary()


def test_a_sweep_of_a_score_metric_is_refused(res):
    with pytest.raises(InvalidParameterError, match="read from the scores"):
        res.threshold_summary("auc")


@pytest.fixture(scope="module")
def deciles(quiet_fit):
    """Scores on a grid of tenths: many rows tied at every threshold of the grid."""
    import bayesfair as bf

    rng = np.random.default_rng(9)
    s = rng.integers(1, 10, 3000) / 10
    y = (rng.random(3000) < s).astype(int)
    g = np.where(rng.random(3000) < 0.5, "a", "b")
    data = bf.AssessmentData(s[:400], y[:400], g[:400], s[400:], g[400:], reference="a")
    return data, quiet_fit(data)


def test_rows_tied_at_a_threshold_count_as_selected(deciles):
    """ŷ = 1[s ≥ t]: a cell of rows all at 0.3 is at or above 0.3, though the mean of
    its scores may round below it (the rows of every cell are counted against the rows)."""
    data, fit = deciles
    cells = score_view.score_cells(fit)
    every = np.concatenate([data.scores, data.unlabeled_scores])
    for t in (0.3, 0.5, 0.6, 0.7):
        cut = cells.cuts([t])[0]
        assert cells.group_rows[:, cut:].sum() == (every >= t).sum()


def test_a_labeled_only_fit_reads_its_scores_through_the_map(deciles, quiet_fit):
    """Without unlabeled rows the expected rates are the map's over the labeled scores
    (every group's sample): the sweep at the threshold is still the posterior's rate."""
    import bayesfair as bf

    data, _ = deciles
    labeled = bf.AssessmentData(data.scores, data.labels, data.groups, reference="a")
    fit = quiet_fit(labeled)
    assert fit.estimand == "expected"
    draws = score_view.threshold_draws(fit, "tpr", [0.5])[..., 0]
    want = fit.rates("tpr").transpose("chain", "draw", "group").values.reshape(draws.shape)
    np.testing.assert_allclose(draws, want, rtol=1e-9)
    assert np.isfinite(fit.rates("auc").values).all()


def test_a_run_whose_map_underflows_gets_its_rate_spread(res):
    """A steep map can give a run exactly zero expected positives (the logistic function
    underflows); its drawn rate is then spread over its rows, not divided by zero."""
    cells = score_view.score_cells(res)
    mine = np.flatnonzero((cells.group == 0) & (cells.side == 0))
    zero = np.zeros((3, mine.size))
    out = score_view._segment_rates(cells, 0, 0, mine, zero, np.random.default_rng(0))
    assert np.isfinite(out).all() and (out <= cells.count[mine]).all() and out.sum() > 0


def test_the_gap_bands_hold_over_the_pairs_as_a_family(quiet_fit):
    """Four alike groups: the gaps' band covers every pair and threshold at once in at
    least ci_prob of the draws, and is wider than one pair's own joint band."""
    from bayesfair.datasets.simulate import differential_calibration, simulated_assessment
    from bayesfair.stats import simultaneous_band

    labeled, unlabeled = differential_calibration(4, 400, 4000, kind="none", random_seed=2)
    fit = quiet_fit(simulated_assessment(labeled, unlabeled))
    t = [0.3, 0.5, 0.7]
    table = fit.threshold_summary("tpr", thresholds=t, ci_prob=0.9)
    draws = score_view.threshold_draws(fit, "tpr", t)
    r = fit.groups.index("g1")
    others = [g for g in fit.groups if g != "g1"]
    gaps = np.concatenate([draws[:, fit.groups.index(g)] - draws[:, r] for g in others], axis=1)
    lower = table.set_index(["group", "threshold"]).loc[[(g, x) for g in others for x in t]]
    inside = (lower["gap_lower"].values <= gaps) & (gaps <= lower["gap_upper"].values)
    assert inside.all(axis=1).mean() >= 0.9
    alone = simultaneous_band(gaps[:, :3], 0.9)
    width = (table["gap_upper"] - table["gap_lower"]).values[:3]
    assert (width > np.asarray(alone.upper) - np.asarray(alone.lower)).all()
