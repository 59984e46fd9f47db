"""The between-group variance of ``hbb``: its prior, its new summaries, and its coverage.

Fast tests check the model's pieces (the BDA3 prior of κ, the size-trend basis,
the population variance) and :meth:`FairnessPosterior.variance_upper_bound` and
:meth:`FairnessPosterior.prob_variance_below`.

The slow test is a frequentist check on Lum, Zhang & Bower (2022, §5.1,
Table 2): K = 100 groups, true rates μ_k fixed, counts drawn from eq. (1). The
estimand is ``M_var(μ)``, the sample variance (ddof = 1) of the K true rates,
and the posterior summarised is that of the sample variance (ddof = 1) of the
K group rates (:meth:`FairnessPosterior.between_group_variance`), the same
functional.

Levels and Monte Carlo error
----------------------------
* Coverage: R = 100 replicates per unequal-performance scenario (the suite's time
  budget; ``docs/results/variance_coverage.md`` reports 200, from
  ``benchmarks/variance_coverage.py --reps 200``). The 95% equal-tailed posterior
  interval must cover the truth in at least ``0.9 − 2·sqrt(0.9·0.1/R)`` = 0.84 of
  them: a coverage of 0.9 minus two Monte Carlo standard errors computed at p = 0.9.
* RMSE of the posterior mean against the double-corrected bootstrap's point
  estimate (Lum et al.'s corrected estimator, eq. 2; §5.3) on the *same*
  replicates. With ``u_i`` and ``w_i`` the squared errors of the two, and
  ``D = sqrt(mean u) − sqrt(mean w)``, the delta method gives

      Var(D) ≈ [Var(u)/(4 ū) + Var(w)/(4 w̄) − Cov(u, w)/(2 sqrt(ū w̄))] / R,

  and the test requires ``D ≤ 2·SE(D)``: the hierarchical posterior is no
  worse than the bootstrap up to two Monte Carlo standard errors of the
  paired difference.
* Equal performance (truth 0, on the boundary): a two-sided interval of a
  positive quantity cannot cover 0, so the test computes the 95% upper bound
  and P(variance < δ), δ = 0.001, over R_EQ = 30 replicates, checks they are
  finite and that the bound is at least the posterior mean, and prints them
  next to the bootstrap interval (figures in ``docs/results/variance_coverage.md``).

Sampling: the suite's simulation settings, 2 chains × 500 draws after 500 tuning steps
(fit's defaults otherwise, target_accept = 0.99). R-hat warnings are silenced (with
1,000 draws the largest
of 100 group rates' R-hat exceeds 1.01 by chance); divergences are counted and
printed.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import pytest

import bayesfair as bf
from bayesfair.data.assessment import AssessmentData
from bayesfair.datasets.simulate import lum_scenario, simulate_counts
from bayesfair.exceptions import SamplingWarning
from bayesfair.models.beta_binomial import (
    KAPPA_MAX,
    KAPPA_PARETO_ALPHA,
    build_hbb_model,
    hbb_group_means,
    hbb_population_variance,
    size_basis,
)


# --------------------------------------------------------------------------- fast
def test_kappa_prior_is_bda3():
    """log p(κ) = −(3/2) log κ + const: BDA3 §5.3's p(α, β) ∝ (α + β)^(−5/2) in (μ, κ).

    The old prior, Pareto(1.5, 1), has slope −5/2 and fails. The truncation at
    KAPPA_MAX keeps the sampler where the beta-binomial density is exact.
    """
    import pymc as pm

    assert KAPPA_PARETO_ALPHA == 0.5
    model = build_hbb_model([[3, 4]], [[5, 9]], metrics=["accuracy"])
    kappa = np.array([1.5, 3.0, 10.0, 100.0, 1e4])
    logp = np.array([float(pm.logp(model["kappa"], np.array([k])).eval()[0]) for k in kappa])
    slope = np.diff(logp) / np.diff(np.log(kappa))
    np.testing.assert_allclose(slope, -1.5, atol=1e-9)
    # Pareto(0.5, 1) truncated to [1, KAPPA_MAX]: density 0.5 κ^(−3/2) / (1 − KAPPA_MAX^(−1/2))
    norm = np.log1p(-(KAPPA_MAX**-0.5))
    np.testing.assert_allclose(logp[0], np.log(0.5) - 1.5 * np.log(1.5) - norm, atol=1e-9)
    assert float(pm.logp(model["kappa"], np.array([2 * KAPPA_MAX])).eval()[0]) == -np.inf
    # mu is uniform: p(μ, κ) ∝ κ^(−3/2) has no μ term
    mu = [0.1, 0.5, 0.9]
    lp_mu = [float(pm.logp(model["mu"], np.array([m])).eval()[0]) for m in mu]
    np.testing.assert_allclose(lp_mu, 0.0, atol=1e-9)


def test_size_basis():
    q = size_basis([[10, 20, 40, 80], [50, 50, 50, 50], [10, 0, 30, 90]])
    assert q.shape == (3, 4, 2)
    np.testing.assert_allclose(q.sum(axis=1), 0.0, atol=1e-12)  # mean zero
    np.testing.assert_allclose((q[..., 0] * q[..., 1]).sum(axis=1), 0.0, atol=1e-12)
    np.testing.assert_allclose(q[0, :, 0], np.log([10, 20, 40, 80]) - np.log(10 * 80) / 2)
    np.testing.assert_array_equal(q[1], 0.0)  # equal sizes: no trend
    assert np.isfinite(q).all()  # an empty group does not give log 0


def test_population_variance_reduces_to_beta_variance_with_equal_sizes():
    rng = np.random.default_rng(0)
    mu, kappa = rng.uniform(size=(5, 1)), 1 + rng.pareto(0.5, size=(5, 1))
    b = rng.normal(size=(5, 1, 2))
    basis = size_basis([[40, 40, 40]])
    np.testing.assert_allclose(
        hbb_population_variance(mu, b, kappa, basis), mu * (1 - mu) / (kappa + 1)
    )
    # with unequal sizes: the law of total variance over the K group means
    basis = size_basis([[10, 40, 90]])
    m = hbb_group_means(mu, b, basis)
    np.testing.assert_allclose(
        hbb_population_variance(mu, b, kappa, basis),
        m.var(axis=-1, ddof=1) + (m * (1 - m)).mean(axis=-1) / (kappa + 1),
    )


def test_model_population_variance_matches_numpy():
    model = build_hbb_model([[2, 9, 30]], [[10, 20, 40]], metrics=["accuracy"])
    mu, b, kappa = np.array([0.6]), np.array([[0.8, -0.5]]), np.array([5.0])
    value = model["population_variance"].eval(
        {model["mu"]: mu, model["size_effect"]: b, model["kappa"]: kappa}
    )
    expected = hbb_population_variance(mu, b, kappa, size_basis([[10, 20, 40]]))
    np.testing.assert_allclose(value, expected, rtol=1e-10)


@pytest.fixture(scope="module")
def small_bb():
    """A bb fit of 5 groups (exact sampler, no compilation)."""
    rng = np.random.default_rng(3)
    sizes = np.array([8, 15, 30, 12, 40])
    groups = np.repeat([f"g{i}" for i in range(sizes.size)], sizes)
    labels = rng.random(groups.size) < 0.7
    data = AssessmentData(np.full(groups.size, 0.9), labels.astype(int), groups)
    return bf.fit(data, model="bb", metrics=["accuracy"], draws=500, chains=2, random_seed=1)


def test_variance_upper_bound_and_probability(small_bb):
    v = small_bb.between_group_variance("accuracy").values.ravel()
    ub = small_bb.variance_upper_bound("accuracy")
    assert ub == pytest.approx(np.quantile(v, 0.95))
    assert ub >= v.mean()
    assert small_bb.variance_upper_bound("accuracy", ci_prob=0.5) == pytest.approx(np.median(v))
    assert small_bb.prob_variance_below("accuracy", ub) == pytest.approx(0.95, abs=2e-3)
    p = [small_bb.prob_variance_below("accuracy", d) for d in (1e-6, 0.01, 0.1, 1.0)]
    assert p == sorted(p) and p[0] == 0.0 and p[-1] == 1.0
    assert small_bb.prob_variance_below("ACCURACY", 0.01) == pytest.approx(np.mean(v < 0.01))
    with pytest.raises(ValueError, match="'delta'"):
        small_bb.prob_variance_below("accuracy", 0)
    with pytest.raises(ValueError, match="'ci_prob'"):
        small_bb.variance_upper_bound("accuracy", ci_prob=1.5)


# --------------------------------------------------------------------------- slow
R = 100
R_EQ = 30
DELTA = 0.001
SEEDS = {
    "equal_size_unequal_perf": 2201,
    "unequal_size_unequal_perf": 2202,
    "equal_size_equal_perf": 2203,
    "unequal_size_equal_perf": 2204,
}


def counts_to_data(x, n) -> AssessmentData:
    """An AssessmentData whose accuracy in group k is x_k / n_k."""
    groups = np.repeat(np.arange(len(n)), n)
    correct = np.concatenate([np.arange(nk) < xk for xk, nk in zip(x, n, strict=True)])
    return AssessmentData(np.full(correct.size, 0.9), correct.astype(int), groups)


def run_scenario(name: str, reps: int, sampler) -> dict:
    """Fit hbb and the double-corrected bootstrap to ``reps`` replicates of a scenario."""
    from bayesfair.frequentist import double_corrected_bootstrap_counts

    sc = lum_scenario(name)
    xs = simulate_counts(sc.mu, sc.n_k, random_seed=SEEDS[name], n_replicates=reps)
    rows = []
    n_divergent = 0
    for i, x in enumerate(xs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SamplingWarning)
            res = bf.fit(
                counts_to_data(x, sc.n_k), "hbb", metrics=["accuracy"], random_seed=i, **sampler
            )
        n_divergent += int(res.idata.sample_stats["diverging"].sum()) > 0
        v = res.between_group_variance("accuracy").values.ravel()
        boot = double_corrected_bootstrap_counts(x, sc.n_k, n_resamples=1000, random_seed=i)
        dc = boot.double_corrected
        rows.append(
            [
                v.mean(),
                *np.quantile(v, [0.025, 0.975]),
                res.variance_upper_bound("accuracy", 0.95),
                res.prob_variance_below("accuracy", DELTA),
                dc.estimate,
                *dc.interval,
                np.quantile(dc.draws, 0.95),
            ]
        )
    a = np.array(rows)
    return {
        "truth": sc.true_variance,
        "mean": a[:, 0],
        "lower": a[:, 1],
        "upper": a[:, 2],
        "ub95": a[:, 3],
        "p_below": a[:, 4],
        "boot": a[:, 5],
        "boot_lower": a[:, 6],
        "boot_upper": a[:, 7],
        "boot_ub95": a[:, 8],
        "n_divergent": n_divergent,
    }


def rmse_difference(err_a, err_b) -> tuple[float, float]:
    """``D = RMSE(a) − RMSE(b)`` over paired replicates and its delta-method SE."""
    u, w = np.asarray(err_a) ** 2, np.asarray(err_b) ** 2
    r = u.size
    mu_u, mu_w = u.mean(), w.mean()
    cov = np.cov(u, w, ddof=1)
    var_d = (
        cov[0, 0] / (4 * mu_u) + cov[1, 1] / (4 * mu_w) - cov[0, 1] / (2 * np.sqrt(mu_u * mu_w))
    ) / r
    return float(np.sqrt(mu_u) - np.sqrt(mu_w)), float(np.sqrt(max(var_d, 0.0)))


@pytest.fixture(scope="module")
def lum_results(simulation):
    start = time.perf_counter()
    out = {
        name: run_scenario(name, R, simulation) for name in SEEDS if name.endswith("unequal_perf")
    }
    out |= {
        name: run_scenario(name, R_EQ, simulation) for name in SEEDS if name.endswith("_equal_perf")
    }
    out["seconds"] = time.perf_counter() - start
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name", ["equal_size_unequal_perf", "unequal_size_unequal_perf"])
def test_hbb_variance_covers_and_is_as_accurate_as_the_bootstrap(lum_results, name):
    r = lum_results[name]
    t = r["truth"]
    covered = (r["lower"] <= t) & (t <= r["upper"])
    boot_covered = (r["boot_lower"] <= t) & (t <= r["boot_upper"])
    err, boot_err = r["mean"] - t, r["boot"] - t
    d, se = rmse_difference(err, boot_err)
    threshold = 0.9 - 2 * np.sqrt(0.9 * 0.1 / R)
    print(
        f"\n{name} (R = {R}, {lum_results['seconds']:.0f} s for all scenarios, "
        f"{r['n_divergent']} fits with divergences)\n"
        f"  hbb : bias {err.mean():+.5f}  RMSE {np.sqrt(np.mean(err**2)):.5f}  "
        f"coverage {covered.mean():.3f}  mean width {np.mean(r['upper'] - r['lower']):.4f}\n"
        f"  boot: bias {boot_err.mean():+.5f}  RMSE {np.sqrt(np.mean(boot_err**2)):.5f}  "
        f"coverage {boot_covered.mean():.3f}  mean width "
        f"{np.mean(r['boot_upper'] - r['boot_lower']):.4f}\n"
        f"  RMSE(hbb) − RMSE(boot) = {d:+.5f} (SE {se:.5f}); coverage threshold {threshold:.3f}"
    )
    assert covered.mean() >= threshold
    assert d <= 2 * se


@pytest.mark.slow
@pytest.mark.parametrize("name", ["equal_size_equal_perf", "unequal_size_equal_perf"])
def test_hbb_variance_upper_bound_with_equal_rates(lum_results, name):
    r = lum_results[name]
    assert r["truth"] == 0.0
    assert np.isfinite(r["ub95"]).all() and np.isfinite(r["p_below"]).all()
    assert (r["ub95"] >= r["mean"]).all()
    print(
        f"\n{name} (R = {R_EQ}, truth 0; means over replicates; "
        f"{r['n_divergent']} fits with divergences)\n"
        f"  hbb : posterior mean {r['mean'].mean():.5f}  95% upper bound {r['ub95'].mean():.5f} "
        f"(max {r['ub95'].max():.5f})  P(var < {DELTA}) {r['p_below'].mean():.3f} "
        f"(min {r['p_below'].min():.3f})\n"
        f"  boot: estimate {r['boot'].mean():+.5f}  95% interval "
        f"[{r['boot_lower'].mean():+.5f}, {r['boot_upper'].mean():+.5f}]  one-sided 95% "
        f"upper {r['boot_ub95'].mean():.5f}  (two-sided coverage of 0: "
        f"{np.mean((r['boot_lower'] <= 0) & (r['boot_upper'] >= 0)):.2f})"
    )
