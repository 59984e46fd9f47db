"""Model checks of a result (bayesfair.checks): Holm's adjustment, the check's contract,
the sampler's diagnostics."""

import warnings

import numpy as np
import pytest

import bayesfair as bf
from bayesfair import checks
from bayesfair.exceptions import SamplingWarning


def test_holm_adjustment_by_hand():
    # sorted 0.01, 0.03, 0.04 with K = 3: 3 × 0.01, max(0.03, 2 × 0.03), max(0.06, 1 × 0.04)
    np.testing.assert_allclose(checks.holm_adjust([0.04, 0.01, 0.03]), [0.06, 0.03, 0.06])
    out = checks.holm_adjust([0.2, np.nan, 0.6])  # NaN stays NaN and is not counted in K
    np.testing.assert_allclose(out, [0.4, np.nan, 0.6])
    assert checks.holm_adjust([0.9, 0.8]).tolist() == [1.0, 1.0]  # capped at 1


@pytest.fixture(scope="module")
def bb_fit():
    data = bf.datasets.load_assessment("adult-sex", "MLP", n_labeled=100, random_seed=0)
    return bf.fit(data, "bb", metrics=["accuracy"], draws=400, chains=2, random_seed=0)


def test_the_calibration_check_needs_a_calibration_map(bb_fit):
    with pytest.raises(ValueError, match="no calibration map to check"):
        checks.result_calibration_check(bb_fit)


def test_an_exact_sampler_has_nothing_to_diagnose(bb_fit):
    assert checks.check_result_diagnostics(bb_fit) == []


@pytest.mark.slow
def test_diagnostics_warn_with_advice_for_disagreeing_chains():
    data = bf.datasets.load_assessment("adult-sex", "MLP", n_labeled=100, random_seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SamplingWarning)
        res = bf.fit(data, "hbb", metrics=["accuracy"], draws=20, tune=5, chains=2, random_seed=1)
    table = checks.result_diagnostics(res)
    assert {"r_hat", "ess_bulk", "divergences"} <= set(table.columns)
    bad = table.index[table["r_hat"] > 1.0].tolist()
    assert bad  # 20 draws after 5 tuning steps: some chains disagree
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SamplingWarning)
        problems = checks.check_result_diagnostics(res, rhat_max=1.0)
    assert problems[0].startswith(f"R-hat above 1.0 for {bad}")
    assert [str(w.message) for w in caught] == problems  # each problem warned, once
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always", SamplingWarning)
        loose = checks.check_result_diagnostics(res, rhat_max=np.inf)
    assert not [p for p in loose if "R-hat" in p]


def test_a_result_without_kept_data_or_draws_says_so_plainly():
    """A hand-built result without ``constant_data`` has no labeled summary (None, not an
    AttributeError); a posterior without draws has an empty diagnostics table."""
    import arviz as az
    import xarray as xr

    from bayesfair.stats import diagnostics_table

    idata = az.InferenceData(posterior=xr.Dataset({"mu": ("x", np.zeros(3))}))
    kept = checks.stored_labeled_summary(
        idata, range(2), threshold=0.5, score_clip=0.01, n_bins=None
    )
    assert kept is None
    table = diagnostics_table(idata.posterior)
    assert table.empty and list(table.columns) == ["r_hat", "ess_bulk", "divergences"]


# ------------------------------------------------------------------ the likelihood-ratio test
def _rows(seed=3, n=400, shift=0.6):
    """Two groups of labeled rows; group 1's labels follow the map moved up by ``shift``
    on the side ŷ = 1 only."""
    rng = np.random.default_rng(seed)
    s = rng.beta(2.0, 2.0, 2 * n)
    g = np.repeat([0, 1], n)
    logit = np.log(s) - np.log1p(-s) + shift * ((g == 1) & (s >= 0.5))
    y = (rng.random(2 * n) < 1 / (1 + np.exp(-logit))).astype(int)
    return s, g, y


def _row_lr(s, g, y, group, clip=0.01):
    """The profile likelihood ratio from the rows, with the exact Bernoulli likelihood."""
    from scipy.optimize import minimize

    c = np.clip(s, clip, 1 - clip)
    side = (s >= 0.5).astype(int)
    dummies = np.stack([(g == group) & (side == h) for h in (0, 1)], axis=1).astype(float)
    dummies = dummies[:, dummies.any(axis=0)]

    def nll(theta, free):
        eta = theta[2] + np.exp(theta[0]) * np.log(c) - np.exp(theta[1]) * np.log1p(-c)
        if free:
            eta = eta + dummies @ theta[3:]
        return -np.sum(y * eta - np.logaddexp(0.0, eta))

    fit0 = minimize(nll, np.zeros(3), args=(False,), method="BFGS")
    fit1 = minimize(nll, np.r_[fit0.x, np.zeros(dummies.shape[1])], args=(True,), method="BFGS")
    return 2 * (fit0.fun - fit1.fun), dummies.shape[1]


def test_the_likelihood_ratio_agrees_with_a_direct_computation_on_the_rows():
    """The check's statistic (from the binned summary, ``Σ softplus`` to second order)
    against the profile likelihood ratio computed from the rows with the exact
    likelihood; its p-value is the χ² tail at the group's sides, and the verdict is
    taken on the Holm-adjusted p-value."""
    from scipy.stats import chi2

    from bayesfair.summary import summarize_arrays

    s, g, y = _rows()
    labeled = summarize_arrays(s, g, range(2), labels=y)
    table = checks.calibration_verdicts(labeled, 0.05, 20)
    for group in (0, 1):
        direct, df = _row_lr(s, g, y, group)
        assert df == 2
        assert table["statistic"].iloc[group] == pytest.approx(direct, rel=0.02, abs=0.05)
        assert table["p_value"].iloc[group] == pytest.approx(chi2.sf(direct, 2), rel=0.05)
    np.testing.assert_allclose(table["p_adjusted"], checks.holm_adjust(table["p_value"]))
    assert (table["verdict"] == "misfit").tolist() == (table["p_adjusted"] < 0.05).tolist()
    assert list(table.columns) == list(checks.CHECK_COLUMNS[1:])


def test_the_likelihood_ratio_is_the_shift_likelihood_at_the_fitted_map():
    """``LR_g = 2 Σ_h [L_gh(δ̂_h) − L_gh(0)]`` at the map fitted with the group's shifts
    (:func:`stratum_shift_loglik`), plus twice what that map loses against the null's
    map on the likelihood without shifts; the shifts maximise ``L_gh`` on a fine grid."""
    from bayesfair.models.likelihood import binned_loglik, likelihood_data
    from bayesfair.models.shift import stratum_shift_loglik
    from bayesfair.summary import summarize_arrays

    s, g, y = _rows(seed=5, n=300)
    labeled = summarize_arrays(s, g, range(2), labels=y)
    test = checks.shift_lr_test(labeled)
    lik = likelihood_data(labeled)
    a0, b0, c0 = test.attrs["null_map"]
    null = binned_loglik(lik, [[a0, a0]], [[b0, b0]], [[c0, c0]]).sum()
    for group in (0, 1):
        a, b, c = test.attrs["maps"][group]
        shifts = test[["shift_below", "shift_above"]].iloc[group].to_numpy()
        grid = np.r_[0.0, shifts, np.linspace(-2, 2, 4001)]
        ll = stratum_shift_loglik(lik, [[a, a]], [[b, b]], [[c, c]], 2, grid)[0]
        mine = ll[2 * group : 2 * group + 2]
        np.testing.assert_allclose(mine[[0, 1], [1, 2]], mine.max(axis=1), atol=1e-6)
        gain = 2 * (mine[[0, 1], [1, 2]] - mine[:, 0]).sum()
        moved = binned_loglik(lik, [[a, a]], [[b, b]], [[c, c]]).sum()
        assert gain + 2 * (moved - null) == pytest.approx(test["statistic"].iloc[group], abs=1e-6)


def test_the_check_flags_a_group_off_the_shared_map_and_says_where():
    """Six groups of 500 labels, the last with 40% of its labels random (P(y = 1) =
    0.2 + 0.6 s): it alone is flagged (on this seed; a strong departure also pulls the
    shared map from the others, ``docs/results/calibration_check.md``)."""
    from bayesfair.summary import summarize_arrays

    k, n = 6, 500
    rng = np.random.default_rng(1)
    s = rng.beta(2.0, 2.0, k * n)
    g = np.repeat(np.arange(k), n)
    p = np.where(g == k - 1, 0.2 + 0.6 * s, s)
    y = (rng.random(k * n) < p).astype(int)
    table = checks.calibration_verdicts(summarize_arrays(s, g, range(k), labels=y), 0.05, 20)
    assert table["verdict"].tolist() == ["ok"] * (k - 1) + ["misfit"]
    where = table["where"].iloc[-1]
    assert where.startswith("at scores near ") and "for the shared map" in where


@pytest.mark.slow
def test_the_check_s_size_and_power_on_fits():
    """Size and power through ``bf.fit`` (``benchmarks/calibration_check.py``: the
    design and the measured rates). Four groups alike, 2,000 labels each, 10 fits: a
    fit with any group flagged was measured at 0.07 ± 0.04 (40 fits; per group 0.02);
    "at most 2 of 10" fails with probability P(Bin(10, 0.07) ≥ 3) ≈ 3%. With 12% of B's
    labels flipped B was flagged in 0.83 ± 0.05 of 60 data sets; "at least 6 of 10"
    (0.83 less two binomial standard errors at 10 fits, 0.59) fails with probability
    P(Bin(10, 0.83) ≤ 5) ≈ 3%. At 500 labels a 12% flip is out of reach: even the
    test that knows the shared map and B's shifts has power 0.51 there."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from calibration_check import make_data

    flagged_b, any_alike = 0, 0
    for s in range(10):
        for flipped in (False, True):
            data = make_data(4, 2000, flipped, 70_000 + s, n_unlabeled=500)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = bf.fit(data, draws=300, tune=300, chains=2, progressbar=False, random_seed=s)
            check = res.calibration_check(warn=False).set_index("group")
            if flipped:
                flagged_b += check.loc["B", "verdict"] == "misfit"
            else:
                any_alike += (check["verdict"] == "misfit").any()
    print(f"B flagged in {flagged_b}/10 fits; alike fits with a flag: {any_alike}/10")
    assert flagged_b >= 6
    assert any_alike <= 2
