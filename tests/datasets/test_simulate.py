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
