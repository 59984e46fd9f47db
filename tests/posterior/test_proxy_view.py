"""Fits with groups known as a proxy's probabilities: the latent rows in every draw's
counts, the assumption named in every verdict, and ``proxy_summary``."""

import warnings

import numpy as np
import pandas as pd
import pytest

import bayesfair as bf
from bayesfair.datasets.simulate import proxy_audit
from bayesfair.exceptions import InvalidParameterError

METRICS = ["selection_rate", "tpr", "fpr", "accuracy"]


def _data(n_self, link=0.0, seed=0, k=2):
    audit = proxy_audit(
        k=k, n_labeled=600, n_unlabeled=4000, n_self_reported=n_self, link=link, random_seed=seed
    )
    data = audit.assessment_data()
    return audit, data


@pytest.fixture(scope="module")
def fitted(fast_module):
    audit, data = _data(400, link=1.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit(data, metrics=[*METRICS, "base_rate"], random_seed=1, **fast_module)
    return audit, data, res


@pytest.fixture(scope="module")
def fast_module():
    return {"draws": 200, "tune": 200, "chains": 2, "progressbar": False}


def test_every_draw_counts_every_row_once(fitted):
    audit, data, res = fitted
    cells = res.idata["posterior"]["cells"].sum(("group", "cell")).values
    np.testing.assert_allclose(cells, 600 + 4000)
    latent = res.idata["posterior"]["proxy_cells"].sum(("group", "cell")).values
    np.testing.assert_allclose(latent, data.proxy.n_unknown())
    # the decisions are the rows': every draw's selected rows are the data's
    selected = res.idata["posterior"]["cells"].sel(cell=["tp", "fp"]).sum(("group", "cell"))
    rows = np.concatenate([audit.labeled["score"], audit.unlabeled["score"]])
    np.testing.assert_allclose(selected.values, (rows >= 0.5).sum())


def test_the_assumption_is_named_in_every_verdict(fitted):
    _, _, res = fitted
    table = res.summary(metrics=METRICS)
    assert table["estimand"].str.contains("true groups").all()
    assert table["estimand"].str.contains("calibrated on 400 self-reported rows").all()
    assert any("self-reported" in n for n in res.notes)


def test_without_self_reported_rows_the_assumption_is_said_and_the_fit_runs(fast):
    audit, data = _data(0)
    assert data.n_labeled == 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit(data, metrics=METRICS, random_seed=2, **fast)
    table = res.summary(metrics=METRICS)
    assert table["estimand"].str.contains("assumed calibrated").all()
    assert any("ASSUMED" in n for n in res.notes)
    assert any("shared among the groups" in n for n in res.notes)
    assert "proxy_density" in res.idata["constant_data"].data_vars
    # the selection rate needs no label: under the assumption, which holds here (no
    # link), the mixture gives each group's decisions back
    truth = audit.truth("selection_rate")
    row = table[table["metric"] == "selection_rate"].iloc[0]
    assert row["hdi_lower"] - 0.02 < truth["Black"] - truth["White"] < row["hdi_upper"] + 0.02


def test_the_expected_estimand_is_refused(fast):
    _, data = _data(200)
    with pytest.raises(InvalidParameterError, match="assessed"):
        bf.fit(data, estimand="expected", **fast)


def test_bb_reads_the_self_reported_rows_only(fast):
    _, data = _data(300)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit(data, model="bb", random_seed=0, **fast)
    observed = res.idata["observed_data"]
    total = sum(
        float(observed[v].sum()) for v in observed.data_vars if v in ("tp", "fp", "tn", "fn")
    )
    assert total in (0.0, 300.0)
    assert data.labeled_examples.confusion_counts().sum() == 300
    assert any("reads the labeled rows of self-reported group alone" in n for n in res.notes)


def test_proxy_summary_compares_the_proxy_with_the_self_reported_groups(fitted):
    audit, data, res = fitted
    table = res.proxy_summary()
    assert list(table["group"]) == data.group_levels
    assert table["n_self_reported"].sum() == 400
    lab = audit.labeled.iloc[:400]
    for _, row in table.iterrows():
        column = audit.group_probabilities[row["group"]]
        assert row["mean_probability"] == pytest.approx(lab[column].mean())
        assert row["share"] == pytest.approx((lab["group"] == row["group"]).mean())
        assert row["share_lower"] < row["share"] < row["share_upper"]
        assert row["unknown_rows_lower"] <= row["unknown_rows"] <= row["unknown_rows_upper"]
        assert row["link_lower"] < row["link"] < row["link_upper"]
    assert table["unknown_rows"].sum() == pytest.approx(data.proxy.n_unknown())
    assert set(table["link_to_change"].dropna()) <= {1.0, 2.0, 4.0, 8.0}


def test_proxy_summary_needs_a_proxy(fast):
    data = bf.AssessmentData(scores=[0.2, 0.8, 0.6, 0.1], labels=[0, 1, 1, 0], groups=list("aabb"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit(data, random_seed=0, **fast)
    with pytest.raises(InvalidParameterError, match="group probabilities"):
        res.proxy_summary()


def test_every_view_reads_the_latent_rows(fitted):
    """The group views, the impact ratios and the calibration view are over every
    assessed row by its true group: each group's selection rate (decided by the scores,
    so its interval is narrow) is within 0.03 of its rate over all rows by true group."""
    audit, _, res = fitted
    truth = audit.truth("selection_rate")
    groups = res.group_summary(["selection_rate"]).set_index("group")
    for g, t in truth.items():
        assert abs(groups.loc[g, "rate"] - t) < 0.03
    family = res.family_summary(["selection_rate"])
    assert len(family) == 1 and family["decision"].notna().all()
    ratios = res.impact_ratios().set_index("group")
    expected = truth["Black"] / truth["White"]
    assert ratios.loc["Black", "ratio_lower"] < expected * 1.3
    assert ratios.loc["Black", "ratio_upper"] > expected / 1.3
    calibration = res.calibration_summary().set_index("group")
    rows = pd.concat([audit.labeled, audit.unlabeled])
    for g in truth:
        mean_score = rows.loc[rows["true_group"] == g, "score"].mean()
        assert abs(calibration.loc[g, "mean_score"] - mean_score) < 0.02
