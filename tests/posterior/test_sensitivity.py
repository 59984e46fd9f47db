"""Prior sensitivity: the prior share of every gap, the contract, and the verdicts.

Closed forms (the conjugate Beta posterior against its prior), the prior predictive
draws a fit keeps, and real fits (small draws: plumbing, not calibration).
"""

import warnings

import numpy as np
import pytest
from scipy import stats

import bayesfair as bf
from bayesfair.datasets.simulate import miscalibrated_scores
from bayesfair.models.beta_binomial import BetaPrior
from bayesfair.models.request import PRIOR_DRAWS
from bayesfair.posterior.sensitivity import (
    SENSITIVITY_THRESHOLD,
    prior_share,
    verdict_holds,
    weighted_hdi,
)
from bayesfair.stats import hdi

SENSITIVITY_COLUMNS = ["metric", "group", "reference", "statistic", "threshold", "sensitive"]


@pytest.fixture(scope="module")
def few_labels():
    """Two groups with four labels each (8 labeled, no unlabeled rows)."""
    s = np.full(8, 0.7)
    y = np.array([1, 1, 0, 1, 1, 0, 1, 1])
    g = np.repeat(["A", "B"], 4)
    return bf.AssessmentData(s, y, g, reference="A")


@pytest.fixture(scope="module")
def rbc_fit(quiet_fit):
    rng = np.random.default_rng(3)
    lab, unl = miscalibrated_scores(10, 300, random_seed=rng.integers(1 << 30))
    data = bf.AssessmentData.from_frames(lab, unl, score="score", label="label", group="group")
    return quiet_fit(data, metrics=["accuracy", "tpr"])


def test_statistic_is_the_posterior_over_the_prior_variance(rbc_fit):
    """Var(Δ | data) / Var(Δ) with the prior draws the fit keeps (its ``prior`` group)."""
    prior = rbc_fit.idata.prior
    assert prior.sizes["draw"] == PRIOR_DRAWS and set(prior.data_vars) == {"accuracy", "tpr"}
    table = rbc_fit.sensitivity().set_index("metric")
    for metric in ("accuracy", "tpr"):
        d = rbc_fit.difference(metric).values.ravel()
        p = (prior[metric].sel(group="B") - prior[metric].sel(group="A")).values.ravel()
        expected = np.nanvar(d, ddof=1) / np.nanvar(p, ddof=1)
        assert table.loc[metric, "statistic"] == pytest.approx(expected, rel=1e-12)


def test_the_share_of_a_conjugate_posterior_is_its_closed_form(few_labels, quiet_fit):
    """bb with Dirichlet(1, 1, 1, 1) over the cells: accuracy's prior is Beta(2, 2), so
    Var(Δ) = 2/20 under the prior; the posterior's variance is the sum of the two
    Beta(2 + x, 2 + n − x) variances. The estimate's relative Monte Carlo SE is about
    sqrt(2/4000 + 2/2000) = 0.039; 4 SE allowed."""
    res = quiet_fit(few_labels, model="bb", metrics=["accuracy"], draws=2000)
    x = few_labels.labeled_examples.confusion_counts()
    correct, n = x[:, 0] + x[:, 2], x.sum(axis=1)
    post_var = sum(stats.beta(2 + c, 2 + m - c).var() for c, m in zip(correct, n, strict=True))
    expected = post_var / (2 / 20)
    share = res.sensitivity()["statistic"].iloc[0]
    assert abs(share / expected - 1) < 4 * np.sqrt(2 / 4000 + 2 / 2000)


@pytest.mark.slow
def test_prior_draws_of_every_model(few_labels, quiet_fit):
    """The prior group of bb and hbb: rates in [0, 1] whose mean is 1/2 by symmetry
    (μ ~ Beta(1, 1), symmetric size trend), within 5 Monte Carlo SEs."""
    for model in ("bb", "hbb"):
        prior = quiet_fit(few_labels, model=model, metrics=["tpr"]).idata.prior["tpr"].values
        assert prior.shape == (1, PRIOR_DRAWS, 2)
        assert np.all((prior >= 0) & (prior <= 1))
        assert abs(prior.mean() - 0.5) < 5 * prior.std() / np.sqrt(prior.size / 2)


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


def test_a_verdict_that_the_prior_decides_is_undecided(few_labels, quiet_fit):
    """Accuracy ~ Beta(200, 200) a priori (a Dirichlet(100) over the cells) with four
    labels per group: the HDI + ROPE rule alone says "practically fair"; the gap is the
    prior's, and the prior's rule makes it "undecided" (the summary's verdict is "too
    few", the gate's, which comes first: test_the_gate_comes_before_the_prior)."""
    from bayesfair.posterior.sensitivity import prior_verdict

    res = quiet_fit(few_labels, model="bb", prior=BetaPrior(100.0), metrics=["accuracy"])
    d = res.difference("accuracy").values
    assert bf.stats.rope_decision(*hdi(d), 0.08) == "practically fair"
    decision, sensitive, sentence = prior_verdict(
        res, "accuracy", ("B", "A"), d, "practically fair", 0.08, 0.95
    )
    assert sensitive and decision == "undecided"
    assert "with 4 labels in group B the gap is mostly the prior's" in sentence
    row = res.summary(epsilon=0.08).iloc[0]
    assert row["prior_sensitive"] == res.sensitivity()["sensitive"].iloc[0]


def test_the_gate_comes_before_the_prior(few_labels, quiet_fit):
    """Four labels per group: "too few" for a verdict, whatever the prior; the prior's
    share is still said."""
    res = quiet_fit(few_labels, model="bb", prior=BetaPrior(100.0), metrics=["accuracy"])
    row = res.summary(epsilon=0.08).iloc[0]
    assert row["decision"] == "too few" and row["prior_sensitive"]
    assert "with 4 labels in group B the gap is mostly the prior's" in row["note"]
    assert "too few for a verdict (B: 4 labeled rows (10 needed)" in row["note"]


@pytest.mark.slow
def test_hbb_sensitivity_is_finite(few_labels, quiet_fit):
    table = quiet_fit(few_labels, model="hbb", metrics=["accuracy", "tpr"]).sensitivity()
    assert np.isfinite(table["statistic"]).all()


def test_prior_share_sets_undefined_draws_aside():
    rng = np.random.default_rng(0)
    post, prior = rng.normal(0, 1, 4000), rng.normal(0, 2, 2000)
    nan = np.full(30, np.nan)
    assert prior_share(np.r_[post, nan], np.r_[prior, nan]) == pytest.approx(
        post.var(ddof=1) / prior.var(ddof=1)
    )
    assert np.isnan(prior_share(nan, prior)) and np.isnan(prior_share(post, np.zeros(10)))


def test_verdict_holds_and_flips():
    """Δ ~ N(0.03, 0.004) is "unfair" at ε = 0.02 (HDI about [0.022, 0.038]); a prior
    ∝ exp(−1000 Δ) at twice its strength moves the mean by −1000 σ² = −0.016 and the
    verdict with it; a flat prior leaves it."""
    x = np.random.default_rng(2).normal(0.03, 0.004, 8000)
    assert bf.stats.rope_decision(*hdi(x), 0.02) == "unfair"
    assert verdict_holds(x, np.zeros_like(x), 0.02)
    assert not verdict_holds(x, -1000.0 * x, 0.02)


@pytest.mark.parametrize("n", [3001, 1000, 4000])
def test_weighted_hdi_with_equal_weights_is_the_hdi(n):
    """Also where ci_prob · n is a whole number (1,000 and 4,000 draws at 0.9 and 0.95),
    where it once spanned one draw fewer than arviz.hdi."""
    x = np.random.default_rng(3).gamma(2.0, size=n)
    for prob in (0.9, 0.95):
        lo, hi = weighted_hdi(x, np.ones_like(x), prob)
        assert (lo, hi) == pytest.approx(tuple(hdi(x, prob)))
    # weights that zero the upper half: the interval of the lower half's draws
    w = (x <= np.median(x)).astype(float)
    lo_w, hi_w = weighted_hdi(x, w, 0.9)
    assert x.min() <= lo_w < hi_w <= np.median(x)


def test_compare_and_the_report_say_when_the_prior_decides(few_labels):
    """The side-by-side table carries each posterior's decision and flag, the sentence
    is in its notes and the Markdown report; the finding says "too few" (four labels)."""
    from bayesfair.report.document import comparison_markdown, findings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comp = bf.compare(
            few_labels,
            ["accuracy"],
            epsilon=0.08,
            models=("bb",),
            n_resamples=100,
            random_seed=0,
            # Dirichlet(100) over the cells: accuracy ~ Beta(200, 200) a priori
            fit_kwargs=dict(prior=BetaPrior(100.0, 100.0)),
            progressbar=False,
        )
    row = comp.pairs.iloc[0]
    assert row["bb_prior_sensitive"] and row["bb_decision"] == "too few"
    assert "BB: Δ accuracy rests on the prior" in row["note"]
    assert findings(comp)[0]["verdict"] == "too few"
    assert "label more of group B" in comparison_markdown(comp)
