"""Prior sensitivity by power-scaling: ArviZ's statistic, the contract, and the verdicts.

Closed forms and a reference (ArviZ's ``psens`` on the same draws with the prior
written out with SciPy), real fits (small draws: plumbing, not calibration).
"""

import warnings

import numpy as np
import pytest
import xarray as xr
from scipy import stats

import bayesfair as bf
from bayesfair.models.beta_binomial import BetaPrior
from bayesfair.sensitivity import (
    SENSITIVITY_THRESHOLD,
    powerscale_sensitivity,
    verdict_holds,
    weighted_hdi,
)
from bayesfair.simulate import miscalibrated_scores
from bayesfair.stats import hdi

FAST = dict(draws=300, tune=300, chains=2, progressbar=False, random_seed=0)
SENSITIVITY_COLUMNS = ["metric", "group", "reference", "statistic", "threshold", "sensitive"]


def _quiet_fit(data, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small draws: R-hat warnings are expected
        return bf.fit(data, **{**FAST, **kwargs})


@pytest.fixture(scope="module")
def few_labels():
    """Two groups with four labels each (8 labeled, no unlabeled rows)."""
    s = np.full(8, 0.7)
    y = np.array([1, 1, 0, 1, 1, 0, 1, 1])
    g = np.repeat(["A", "B"], 4)
    return bf.AssessmentData(s, y, g, reference="A")


@pytest.fixture(scope="module")
def rbc_fit():
    rng = np.random.default_rng(3)
    lab, unl = miscalibrated_scores(10, 300, random_seed=rng.integers(1 << 30))
    data = bf.AssessmentData.from_frames(lab, unl, score="score", label="label", group="group")
    return _quiet_fit(data, metrics=["accuracy", "tpr"])


def test_statistic_is_arviz_psens(rbc_fit):
    """The rbc prior written out with SciPy, handed to ArviZ's psens: the same number."""
    import arviz as az

    post = rbc_fit.idata.posterior
    sds = {"a": (0.4, 0.15), "b": (0.4, 0.15), "c": (2.0, 0.75)}  # CalibrationPriors()
    log_prior = {}
    for p, (mu_sd, sig_sd) in sds.items():
        log_prior[f"mu_{p}"] = (("chain", "draw"), stats.norm(0, mu_sd).logpdf(post[f"mu_{p}"]))
        log_prior[f"sigma_{p}"] = (
            ("chain", "draw"), stats.halfnorm(scale=sig_sd).logpdf(post[f"sigma_{p}"])
        )  # fmt: skip
        log_prior[f"z_{p}"] = (post[f"z_{p}"].dims, stats.norm().logpdf(post[f"z_{p}"]))
    table = rbc_fit.sensitivity().set_index("metric")
    for metric in ("accuracy", "tpr"):
        d = rbc_fit.difference(metric)
        idata = az.InferenceData(posterior=xr.Dataset({"d": d}), log_prior=xr.Dataset(log_prior))
        expected = float(az.psens(idata, component="prior")["d"])
        assert table.loc[metric, "statistic"] == pytest.approx(expected, rel=1e-9)


def test_sensitivity_contract(rbc_fit):
    table = rbc_fit.sensitivity()
    assert list(table.columns) == SENSITIVITY_COLUMNS
    assert list(table["metric"]) == ["accuracy", "tpr"]
    assert (table["threshold"] == SENSITIVITY_THRESHOLD).all()
    assert table["sensitive"].dtype == bool
    assert (table["sensitive"] == (table["statistic"] >= table["threshold"])).all()
    assert list(rbc_fit.sensitivity(metrics=["tpr"])["metric"]) == ["tpr"]


def test_summary_reports_sensitivity_and_says_it(rbc_fit):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bf.exceptions.UndefinedRateWarning)
        summary = rbc_fit.summary()
    sens = rbc_fit.sensitivity()
    assert list(summary["prior_sensitive"]) == list(sens["sensitive"])
    for (_, row), flag in zip(summary.iterrows(), sens["sensitive"], strict=True):
        said = "rests on the prior" in row["note"]
        assert said == flag
        if flag:
            assert "label more of group" in row["note"]


def test_a_flat_prior_is_not_scaled(few_labels):
    """bb's uniform prior: power-scaling leaves it flat, D = 0 (module docstring)."""
    table = _quiet_fit(few_labels, model="bb", metrics=["accuracy"]).sensitivity()
    assert table["statistic"].tolist() == [0.0]
    assert not table["sensitive"].any()


def test_a_verdict_that_the_prior_decides_is_undecided(few_labels):
    """Beta(200, 200) with four labels per group: the HDI + ROPE rule alone says
    "practically fair"; the gap is the prior's, and the summary says "undecided"."""
    res = _quiet_fit(few_labels, model="bb", prior=BetaPrior(200.0, 200.0), metrics=["accuracy"])
    d = res.difference("accuracy").values
    assert bf.stats.rope_decision(*hdi(d), 0.08) == "practically fair"
    row = res.summary(epsilon=0.08).iloc[0]
    assert row["prior_sensitive"]
    assert row["decision"] == "undecided"
    assert "with 4 labels in group B the gap is mostly the prior's" in row["note"]


def test_hbb_sensitivity_is_finite(few_labels):
    table = _quiet_fit(few_labels, model="hbb", metrics=["accuracy", "tpr"]).sensitivity()
    assert np.isfinite(table["statistic"]).all()


def test_undefined_draws_are_set_aside():
    rng = np.random.default_rng(0)
    x = rng.normal(size=4000)
    lp = -0.5 * x**2
    with_nan = np.r_[x, np.full(40, np.nan)]
    assert powerscale_sensitivity(with_nan, np.r_[lp, np.zeros(40)]) == pytest.approx(
        powerscale_sensitivity(x, lp)
    )
    assert np.isnan(powerscale_sensitivity(np.full(10, np.nan), np.zeros(10)))


def test_a_prior_that_is_the_posterior_is_sensitive_and_a_flat_one_is_not():
    """x ~ N(0, 1) whose whole posterior is its prior: scaling the prior by α gives
    N(0, 1/√α), D above the threshold (about 0.09, against a noise floor near 0.008 at
    4,000 draws); a constant log prior gives D = 0."""
    x = np.random.default_rng(1).normal(size=4000)
    assert powerscale_sensitivity(x, stats.norm.logpdf(x)) > SENSITIVITY_THRESHOLD
    assert powerscale_sensitivity(x, np.zeros_like(x)) == 0.0


def test_verdict_holds_and_flips():
    """Δ ~ N(0.03, 0.004) is "unfair" at ε = 0.02 (HDI about [0.022, 0.038]); a prior
    ∝ exp(−1000 Δ) at twice its strength moves the mean by −1000 σ² = −0.016 and the
    verdict with it; a flat prior leaves it."""
    x = np.random.default_rng(2).normal(0.03, 0.004, 8000)
    assert bf.stats.rope_decision(*hdi(x), 0.02) == "unfair"
    assert verdict_holds(x, np.zeros_like(x), 0.02)
    assert not verdict_holds(x, -1000.0 * x, 0.02)


def test_weighted_hdi_with_equal_weights_is_the_hdi():
    x = np.random.default_rng(3).gamma(2.0, size=3001)
    lo, hi = weighted_hdi(x, np.ones_like(x), 0.9)
    assert (lo, hi) == pytest.approx(tuple(hdi(x, 0.9)))
    # weights that zero the upper half: the interval of the lower half's draws
    w = (x <= np.median(x)).astype(float)
    lo_w, hi_w = weighted_hdi(x, w, 0.9)
    assert x.min() <= lo_w < hi_w <= np.median(x)


def test_compare_and_the_report_say_when_the_prior_decides(few_labels):
    """The side-by-side table carries each posterior's decision and flag, the sentence
    is in its notes and the Markdown report, and the finding's verdict is "undecided"."""
    from bayesfair.report import comparison_markdown, findings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comp = bf.compare(
            few_labels, ["accuracy"], epsilon=0.08, models=("bb",), n_boot=100, random_seed=0,
            fit_kwargs=dict(prior=BetaPrior(200.0, 200.0)), progressbar=False,
        )  # fmt: skip
    row = comp.pairs.iloc[0]
    assert row["bb_prior_sensitive"] and row["bb_decision"] == "undecided"
    assert "BB: Δ accuracy rests on the prior" in row["note"]
    assert findings(comp)[0]["verdict"] == "undecided"
    assert "label more of group B" in comparison_markdown(comp)
