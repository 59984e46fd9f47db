"""An audit over time of data with group probabilities: each period fitted with its own
latent groups, read as every audit over time is."""

import warnings

import numpy as np
import pandas as pd
import pytest

import bayesfair as bf
from bayesfair.datasets.simulate import proxy_audit
from bayesfair.exceptions import InvalidParameterError
from bayesfair.report.periods import period_markdown


def _frames(seed=0):
    audit = proxy_audit(k=2, n_labeled=900, n_unlabeled=4500, n_self_reported=600, random_seed=seed)
    lab, unl = audit.frames()
    rng = np.random.default_rng(seed + 777)  # not the audit's stream
    lab["month"] = rng.integers(0, 3, len(lab))
    unl["month"] = rng.integers(0, 3, len(unl))
    return audit, lab, unl


def _data(audit, lab, unl):
    return bf.AssessmentData.from_frames(
        lab,
        unl,
        score="score",
        label="label",
        group="group",
        group_probabilities=audit.group_probabilities,
        reference="White",
        period="month",
    )


@pytest.fixture(scope="module")
def fitted():
    audit, lab, unl = _frames()
    data = _data(audit, lab, unl)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit_periods(
            data,
            metrics=["selection_rate", "tpr"],
            random_seed=0,
            draws=300,
            tune=300,
            chains=2,
            progressbar=False,
        )
    return audit, lab, unl, data, res


def test_each_period_holds_its_own_rows(fitted):
    _, lab, unl, data, _ = fitted
    assert data.period_levels == [0, 1, 2]
    for value, sub in data.proxy.by_period.items():
        n_rows = sub.n_labeled + sub.n_unlabeled + sub.proxy.n_unknown()
        assert n_rows == (lab["month"] == value).sum() + (unl["month"] == value).sum()


def test_every_period_and_group_has_its_gap_and_the_rows_the_fit_gave_it(fitted):
    audit, lab, unl, _, res = fitted
    table = res.period_summary(["selection_rate"])
    assert len(table) == 3 and table["mean"].notna().all()
    rows = pd.concat(
        [
            audit.labeled.assign(month=lab["month"].to_numpy()),
            audit.unlabeled.assign(month=unl["month"].to_numpy()),
        ]
    )
    for _, r in table.iterrows():
        mine = rows[rows["month"] == r["period"]]
        n_black = (mine["true_group"] == "Black").sum()
        # the rows assessed: self-reported and latent (posterior mean), near the truth's
        assert abs(r["n_labeled"] + r["n_unlabeled"] - n_black) < 0.15 * n_black
        assert r["lower"] <= r["mean"] <= r["upper"]
    draws = res.rate_draws("selection_rate", "Black")
    assert draws.shape == (3, 600) and np.isfinite(draws).all()


def test_the_report_says_how_the_periods_were_fitted(fitted):
    *_, res = fitted
    text = period_markdown(res, ["selection_rate"])
    assert "fitted on its own" in text and "latent groups" in text
    assert "calibrated on" in text and "self-reported" in text
    assert "RBC per period" in text and "RBC per group" not in text


def test_a_period_without_a_row_of_known_group_is_refused():
    audit, lab, unl = _frames(1)
    lab = lab.copy()
    lab.loc[lab["group"].isna(), "month"] = 9
    with pytest.raises(InvalidParameterError, match=r"\[9\].*no row whose group is known"):
        _data(audit, lab, unl)


def test_the_audit_round_trips_through_a_file(fitted, tmp_path):
    *_, res = fitted
    path = res.to_netcdf(tmp_path / "audit.nc")
    back = bf.PeriodPosterior.from_netcdf(path)
    pd.testing.assert_frame_equal(
        back.period_summary(["selection_rate"]), res.period_summary(["selection_rate"])
    )
