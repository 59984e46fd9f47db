"""Generators with known truth: Lum et al. (2022) Table 2 scenarios and eq. (1)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bayesfair.datasets.simulate import LUM_SCENARIOS, lum_scenario, simulate_counts


def test_table2_scenarios():
    eq = lum_scenario("equal_size_equal_perf")
    assert (eq.n_k == 50).all() and (eq.mu == 0.8).all() and eq.true_variance == 0.0
    un = lum_scenario("unequal_size_unequal_perf")
    assert un.n_k.min() == 10 and un.n_k.max() == 90 and un.n_k.sum() == 5000
    assert set(range(10, 91)) <= set(un.n_k.tolist())  # every size 10..90 occurs (§5.1)
    assert un.mu[0] == pytest.approx(0.1) and un.mu[-1] == pytest.approx(0.9)
    assert un.true_variance == pytest.approx(0.055, abs=5e-4)
    assert un.true_variance == pytest.approx(np.var(un.mu, ddof=1))
    np.testing.assert_allclose(un.sampling_variance, un.mu * (1 - un.mu) / un.n_k)
    assert lum_scenario("unequal_size_equal_perf").true_variance == 0.0
    assert set(LUM_SCENARIOS) == {
        "equal_size_equal_perf",
        "unequal_size_equal_perf",
        "equal_size_unequal_perf",
        "unequal_size_unequal_perf",
    }


def test_scenario_bad_input():
    with pytest.raises(ValueError, match=r"Unknown scenario 'equal_size'\. Did you mean"):
        lum_scenario("equal_size")
    with pytest.raises(ValueError, match=r"'K' parameter must be an integer >= 2\. Got 1"):
        lum_scenario("equal_size_equal_perf", K=1)
    with pytest.raises(ValueError, match=r"too small"):
        lum_scenario("equal_size_equal_perf", K=100, n=10)


def test_simulate_counts():
    s = lum_scenario("unequal_size_unequal_perf")
    a = simulate_counts(s.mu, s.n_k, random_seed=1, n_replicates=3000)
    assert a.shape == (3000, 100) and (a <= s.n_k).all() and (a >= 0).all()
    np.testing.assert_array_equal(a, simulate_counts(s.mu, s.n_k, random_seed=1, n_replicates=3000))
    # per-group means within 4.5 binomial standard errors (Bonferroni over 100 groups at 0.1%)
    se = np.sqrt(s.n_k * s.mu * (1 - s.mu) / 3000)
    assert np.all(np.abs(a.mean(axis=0) - s.n_k * s.mu) < 4.5 * se)
    with pytest.raises(ValueError, match=r"'mu' must lie in \[0, 1\]\. Got 1\.5"):
        simulate_counts([0.5, 1.5], [3, 3])
    with pytest.raises(ValueError, match=r"equal length"):
        simulate_counts([0.5], [3, 3])


def test_differential_calibration_distorts_one_group_and_keeps_the_truth():
    from bayesfair.datasets.simulate import differential_calibration

    lab, unl = differential_calibration(4, 300, 20_000, kind="none", random_seed=0)
    assert len(lab) == 300 and len(unl) == 20_000
    assert set(lab.columns) == {"score", "label", "group", "p"}
    assert sorted(unl.group.unique()) == ["g0", "g1", "g2", "g3"]
    np.testing.assert_array_equal(unl.p, unl.score)  # alike: the identity map
    # 12% of g0's labels flipped: its map is 0.12 + 0.76 s, the others' the identity
    _, noisy = differential_calibration(4, 300, 40_000, kind="label_noise", random_seed=1)
    g0 = noisy[noisy.group == "g0"]
    np.testing.assert_allclose(g0.p, 0.12 + 0.76 * g0.score)
    other = noisy[noisy.group != "g0"]
    np.testing.assert_array_equal(other.p, other.score)
    se = np.sqrt(0.25 / len(g0))  # the labels follow p: mean label within 5 SE of mean p
    assert abs(g0.label.mean() - g0.p.mean()) < 5 * se
    # over-confident scores (k = 2) leave every decision unchanged: s' ≥ 0.5 iff s ≥ 0.5
    _, steep = differential_calibration(2, 100, 5_000, kind="slope", amount=2.0, random_seed=2)
    g0 = steep[steep.group == "g0"]
    np.testing.assert_array_equal(g0.score >= 0.5, g0.p >= 0.5)
    assert (np.abs(g0.score - 0.5) >= np.abs(g0.p - 0.5) - 1e-12).all()  # more extreme
    _, shape = differential_calibration(2, 100, 5_000, kind="shape", random_seed=3)
    g0 = shape[shape.group == "g0"]
    np.testing.assert_allclose(g0.score, g0.p**3)
    with pytest.raises(ValueError, match="label-noise 'amount'"):
        differential_calibration(kind="label_noise", amount=0.6)
    with pytest.raises(ValueError, match="'distorted' must hold"):
        differential_calibration(k=2, distorted=(5,))
    with pytest.raises(ValueError, match="Did you mean 'slope'"):
        differential_calibration(kind="slop")


def test_score_truth_is_counted_pair_by_pair():
    from bayesfair.datasets.simulate import differential_calibration, score_truth

    labeled, unlabeled = differential_calibration(2, 150, 250, kind="label_noise", random_seed=4)
    truth = score_truth((labeled, unlabeled), "g0", "g1", "fpr", [0.3, 0.6])
    rows = pd.concat([labeled, unlabeled])

    def pairs(p, n):
        diff = np.subtract.outer(p, n)
        return float(((diff > 0) + 0.5 * (diff == 0)).mean())

    part = {g: rows[rows["group"] == g] for g in ("g0", "g1")}
    s = {g: part[g]["score"].to_numpy() for g in part}
    y = {g: part[g]["label"].to_numpy() == 1 for g in part}
    for g in part:
        assert truth["auc"][g] == pytest.approx(pairs(s[g][y[g]], s[g][~y[g]]))
    assert truth["xauc"][("g1", "g0")] == pytest.approx(pairs(s["g1"][y["g1"]], s["g0"][~y["g0"]]))
    fpr = {g: [(s[g][~y[g]] >= t).mean() for t in (0.3, 0.6)] for g in part}
    np.testing.assert_allclose(truth["gap"], np.subtract(fpr["g0"], fpr["g1"]))


def test_two_group_rows_distort_group_b_only_and_the_truth_is_counted():
    from bayesfair.datasets.simulate import two_group_rows, two_group_truth

    s, y, g = two_group_rows(4_000, random_seed=0)
    assert s.shape == y.shape == g.shape == (4_000,) and set(g) == {"A", "B"}
    a, b = g == "A", g == "B"
    # A calibrated: the mean label follows the mean score; B's scores are p², lower
    assert abs(y[a].mean() - s[a].mean()) < 5 * np.sqrt(0.25 / a.sum())
    assert s[b].mean() < s[a].mean() - 0.1
    folded, _, g2 = two_group_rows(1_000, random_seed=1, scenario="misfit")
    assert folded[g2 == "B"].min() >= 0
    again = two_group_rows(4_000, random_seed=0)
    for x, x_again in zip((s, y, g), again, strict=True):
        np.testing.assert_array_equal(x, x_again)
    # the truth is the gap of the rates counted over the rows drawn with its seed
    truth = two_group_truth("squared", ("accuracy", "tpr"), n_rows=2_000, random_seed=5)
    s, y, g = two_group_rows(2_000, random_seed=5)
    pred = s >= 0.5
    acc = {k: (pred == y)[g == k].mean() for k in "AB"}
    tpr = {k: pred[(g == k) & (y == 1)].mean() for k in "AB"}
    assert truth["accuracy"] == pytest.approx(acc["B"] - acc["A"])
    assert truth["tpr"] == pytest.approx(tpr["B"] - tpr["A"])
    with pytest.raises(ValueError, match="Did you mean 'misfit'"):
        two_group_rows(10, scenario="misfi")


def test_lum_score_design_and_its_truth():
    from bayesfair.datasets.simulate import (
        lum_score_design,
        lum_score_rows,
        lum_score_tpr_variance,
    )

    equal = lum_score_design("equal_size_equal_perf")
    assert (equal.n_labeled == 100).all() and (equal.gamma == 1).all()
    assert lum_score_tpr_variance(equal) == 0.0  # the same population in every group
    unequal = lum_score_design("unequal_size_unequal_perf")
    assert unequal.n_labeled.tolist() == [40, 63, 86, 109, 131, 154, 177, 200]
    np.testing.assert_allclose(np.sort(unequal.gamma), np.geomspace(0.5, 2.0, 8))
    s, y, g = lum_score_rows(unequal, unequal.n_labeled, random_seed=0)
    assert s.size == unequal.n_labeled.sum() and g[0] == "g0" and g[-1] == "g7"
    assert ((s >= 0) & (s <= 1)).all() and set(np.unique(y)) <= {0, 1}
    # the truth from its draws, against the TPRs of one large draw of rows
    truth = lum_score_tpr_variance(unequal, n_draws=200_000)
    s, y, g = lum_score_rows(unequal, np.full(8, 200_000), random_seed=1)
    tpr = [(s[(g == f"g{k}") & (y == 1)] >= 0.5).mean() for k in range(8)]
    assert truth > 0 and truth == pytest.approx(np.var(tpr, ddof=1), rel=0.05)


def test_rate_truth_and_unequal_sizes():
    from bayesfair.datasets.simulate import many_groups, rate_truth, unequal_group_sizes

    n_lab, n_unl = unequal_group_sizes(10)
    assert n_lab == [5, 0, 20, 1, 40, 2, 10, 3, 5, 0]
    assert n_unl == [500, 2000, 8000, 500, 2000, 8000, 500, 2000, 8000, 500]
    lab, unl = many_groups(10, n_lab, n_unl, distorted=(0,), random_seed=2)
    groups = [f"g{i}" for i in range(10)]
    truth = rate_truth((lab, unl), groups, ("accuracy", "tpr"))
    rows = pd.concat([lab, unl])
    pred = rows["score"] >= 0.5
    correct = pred == (rows["label"] == 1)
    np.testing.assert_allclose(truth["accuracy"]["rate"], correct.groupby(rows["group"]).mean())
    np.testing.assert_allclose(truth["accuracy"]["gap"], truth["accuracy"]["rate"] - correct.mean())
    tpr = pred[rows["label"] == 1].groupby(rows["group"][rows["label"] == 1]).mean()
    np.testing.assert_allclose(truth["tpr"]["rate"], tpr)
    with pytest.raises(ValueError, match="one of 'groups'"):
        rate_truth((lab, unl), groups[:3])


def test_the_limit_experiment_bound_and_its_interval():
    """The closed forms of :func:`pratt_bound` at its ends (the pooled estimate's and
    the debiased one's own bound), and a fixed-length interval between them; the
    quadrature and Monte Carlo checks are in ``tests/statistical/test_adaptation_bound.py``."""
    from scipy.stats import norm

    from bayesfair.datasets.limits import (
        fixed_length_interval,
        independent_errors,
        most_powerful_power,
        pratt_bound,
        pratt_bound_on_paths,
    )

    z = norm.ppf(0.95)
    g = z * norm.cdf(z) + norm.pdf(z)
    cov = independent_errors(0.01, 0.03)
    np.testing.assert_allclose(cov, [[1e-4, 1e-4], [1e-4, 1e-3]])
    assert pratt_bound(cov, 0.0, 0.95) == pytest.approx(2 * 0.01 * g, rel=1e-6)
    assert pratt_bound(cov, 1e6, 0.95) == pytest.approx(2 * np.sqrt(1e-3) * g, rel=1e-9)
    width, w = fixed_length_interval(cov, 0.02, 0.95)
    assert pratt_bound(cov, 0.02, 0.95) <= width <= 2 * norm.ppf(0.975) * np.sqrt(1e-3)
    assert 0 <= w <= 1
    draws = np.random.default_rng(0).standard_normal((2, 20_000, 2))
    # with equal covariances the most powerful test is linear, of power Φ(d − z) at the
    # Mahalanobis distance d: here d² = δ² / 0.03² (Z's variance), so d = 2z gives Φ(z)
    far = most_powerful_power([0.0, -2 * z * 0.03], cov, cov, 0.95, draws)
    assert far == pytest.approx(0.95, abs=0.01)
    on_paths = pratt_bound_on_paths(cov, [(0.02, cov)], 0.95, n_steps=3, n_deltas=31)
    assert on_paths == pytest.approx(pratt_bound(cov, 0.02, 0.95), rel=0.05)
    with pytest.raises(ValueError, match="positive definite"):
        pratt_bound(np.zeros((2, 2)), 0.0, 0.95)


def test_census_weights_are_products_of_the_categories_shares():
    from bayesfair.datasets.simulate import CENSUS_SHARES, census_weights
    from bayesfair.exceptions import InvalidParameterError

    for k, ages in ((60, "age6"), (30, "age3")):
        w = census_weights(k)
        assert w.shape == (k,) and w.sum() == pytest.approx(1.0, abs=1e-12)
        expected = np.multiply.outer(
            np.multiply.outer(CENSUS_SHARES["sex"], CENSUS_SHARES["race"]), CENSUS_SHARES[ages]
        ).ravel()
        np.testing.assert_allclose(w, expected / expected.sum(), rtol=1e-12)
    with pytest.raises(InvalidParameterError, match="30 or 60 groups"):
        census_weights(10)
