"""The unlabeled reduction against the exact O(n_U) computation (issue: error < 1e-4)."""

import numpy as np
import pandas as pd
import pytest

from bayesfair.exceptions import InvalidParameterError
from bayesfair.metrics.rates import RATES, rate_from_counts
from bayesfair.models.unlabeled import (
    LABELED_PRIOR,
    PRIOR_ROWS,
    bootstrap_entry_counts,
    exact_expected_counts,
    expected_counts,
    reduce_unlabeled,
    sampled_counts,
)

SCORES = "data/scores/adult_race_scores.csv.gz"


def _adult(repo_root):
    d = pd.read_csv(repo_root / SCORES)
    s = d["score_MultiLayerPerceptron"].to_numpy()
    g = (d["sex"] == "Female").to_numpy().astype(int)
    return s, g


def _calibration_draws(rng, n, k):
    """Draws spanning the prior and beyond: a, b in [0.2, 5], c in [-4, 4]."""
    a = np.exp(rng.uniform(np.log(0.2), np.log(5), size=(n, k)))
    b = np.exp(rng.uniform(np.log(0.2), np.log(5), size=(n, k)))
    c = rng.uniform(-4, 4, size=(n, k))
    return a, b, c


@pytest.mark.parametrize("score_clip", [0.01, 1e-6])
def test_reduction_matches_exact_in_every_rate(repo_root, score_clip):
    s, g = _adult(repo_root)
    rng = np.random.default_rng(1)
    a, b, c = _calibration_draws(rng, 40, 2)
    summary = reduce_unlabeled(s, g, 2, score_clip=score_clip)
    approx = expected_counts(summary, a, b, c)
    exact = exact_expected_counts(s, g, 2, a, b, c, score_clip=score_clip)
    labeled = np.array([[3, 1, 5, 1], [2, 2, 4, 0]], dtype=float)  # a small labeled set
    for name in RATES:
        r_approx = rate_from_counts(approx + labeled, name)
        r_exact = rate_from_counts(exact + labeled, name)
        assert np.nanmax(np.abs(r_approx - r_exact)) < 1e-4, name
    # the reduction is a real compression
    assert summary.n_entries < s.size


def test_reduction_on_extreme_scores():
    """Scores piled up at 0, 1 and the threshold, 10^5 of them, three groups."""
    rng = np.random.default_rng(2)
    n = 100_000
    s = np.concatenate(
        [rng.beta(0.2, 0.2, n - 3000), np.zeros(1000), np.ones(1000), np.full(1000, 0.5)]
    )
    g = rng.integers(0, 3, s.size)
    a, b, c = _calibration_draws(rng, 10, 3)
    summary = reduce_unlabeled(s, g, 3)
    approx = expected_counts(summary, a, b, c)
    exact = exact_expected_counts(s, g, 3, a, b, c)
    assert np.all(np.isfinite(approx))
    for name in RATES:
        diff = rate_from_counts(approx, name) - rate_from_counts(exact, name)
        assert np.nanmax(np.abs(diff)) < 1e-4, name


def test_counts_conserve_group_sizes(repo_root):
    s, g = _adult(repo_root)
    summary = reduce_unlabeled(s, g, 2)
    a, b, c = _calibration_draws(np.random.default_rng(3), 5, 2)
    counts = expected_counts(summary, a, b, c)
    np.testing.assert_allclose(counts.sum(axis=-1), np.tile(np.bincount(g), (5, 1)))
    np.testing.assert_allclose(
        counts[..., 0] + counts[..., 1], np.tile(np.bincount(g[s >= 0.5], minlength=2), (5, 1))
    )


def test_sampled_counts_are_integers_with_expected_mean(repo_root):
    s, g = _adult(repo_root)
    summary = reduce_unlabeled(s, g, 2)
    a = np.ones((1, 2))
    b = np.ones((1, 2))
    c = np.zeros((1, 2))
    rng = np.random.default_rng(4)
    reps = np.stack([sampled_counts(summary, a, b, c, rng)[0] for _ in range(400)])
    assert np.allclose(reps, np.round(reps))
    expected = expected_counts(summary, a, b, c)[0]
    # Monte Carlo check of the mean: each count is a sum of Bernoullis, so its sd is at most
    # sqrt(n)/2; the mean of 400 replicates is within 4 standard errors (two-sided p < 1e-4).
    n_g = np.bincount(g)[:, None]
    se = np.sqrt(n_g) / 2 / np.sqrt(400)
    assert np.all(np.abs(reps.mean(axis=0) - expected) < 4 * se)


def test_sampled_totals_match_per_bin_binomial_draws(repo_root):
    """The normal draw of a large stratum's total against the exact per-bin binomials.

    4,000 draws each way for one fixed calibration map; the 2.5%, 50% and 97.5%
    quantiles of every stratum's total agree within 5 Monte Carlo standard errors of
    a quantile (sd × sqrt(q(1 − q)/n) / density, bounded here by 2 sd / sqrt(n) /
    phi(z_q) for a near-normal total) plus one count (the rounding).
    """
    s, g = _adult(repo_root)
    s = np.r_[s, np.full(30, 0.999)]  # a small stratum (few positives' variance): bin by bin
    g = np.r_[g, np.ones(30, dtype=int)]
    summary = reduce_unlabeled(s, g, 2)
    n_draws = 4000
    a, b, c = np.full((n_draws, 2), 1.3), np.full((n_draws, 2), 0.8), np.full((n_draws, 2), 0.2)
    ours = sampled_counts(summary, a, b, c, np.random.default_rng(5))
    # the reference: every bin drawn, at the map's probability of the bin's mean features
    eta = 0.2 + 1.3 * summary.mean_log_s - 0.8 * summary.mean_log_1ms
    p = 1.0 / (1.0 + np.exp(-eta))
    rng = np.random.default_rng(6)
    cell = summary.group * 2 + summary.side.astype(int)
    n_bin = summary.count.astype(int)
    exact = np.stack(
        [
            rng.binomial(n_bin[cell == st], p[cell == st], size=(n_draws, (cell == st).sum())).sum(
                axis=1
            )
            for st in range(4)
        ],
        axis=1,
    )
    ours_pos = np.stack([ours[:, 0, 3], ours[:, 0, 0], ours[:, 1, 3], ours[:, 1, 0]], axis=1)
    from scipy import stats

    for q in (0.025, 0.5, 0.975):
        sd = exact.std(axis=0)
        tol = 5 * 2 * sd / np.sqrt(n_draws) / stats.norm.pdf(stats.norm.ppf(q)) + 1
        np.testing.assert_array_less(
            np.abs(np.quantile(ours_pos, q, axis=0) - np.quantile(exact, q, axis=0)), tol
        )
    assert np.allclose(ours, np.round(ours))


@pytest.mark.parametrize("n, p", [(1, 0.3), (2, 0.7), (7, 0.05), (7, 0.95), (40, 0.5), (3, 0.0)])
def testbinomial_inversion_is_the_exact_quantile(n, p):
    """One uniform through the inverse CDF: the draw is Binomial(n, p)'s u-quantile for
    every u on a fine grid (an exact check, no Monte Carlo)."""
    from scipy import stats

    from bayesfair.models._unlabeled_kernels import binomial_inversion

    u = np.linspace(0.0005, 0.9995, 1000)
    ours = np.array([binomial_inversion.py_func(v, n, p) for v in u])
    # the flipped side sums the other outcome's mass: the same law, mirrored quantiles
    exact = stats.binom.ppf(u, n, p) if p <= 0.5 else n - stats.binom.ppf(u, n, 1 - p)
    assert np.array_equal(ours, exact)


def test_sampled_counts_depend_on_the_seed_not_the_threads(repo_root, monkeypatch):
    """Blocks of draws use their own generators, so one thread or several give the same
    counts, and the same seed gives the same counts again."""
    import os

    s, g = _adult(repo_root)
    summary = reduce_unlabeled(s[:3000], g[:3000] * 3 + (s[:3000] > 0.7), 6)  # small cells too
    a, b, c = _calibration_draws(np.random.default_rng(2), 1100, 6)  # three blocks of draws
    several = sampled_counts(summary, a, b, c, np.random.default_rng(9))
    monkeypatch.setattr(os, "cpu_count", lambda: 1)  # the kernels' module reads os.cpu_count
    one = sampled_counts(summary, a, b, c, np.random.default_rng(9))
    assert np.array_equal(several, one)
    assert not np.array_equal(one, sampled_counts(summary, a, b, c, np.random.default_rng(10)))


# ------------------------------------------------- the Bayesian bootstrap of "expected"
def _two_groups(rng, n=(400, 3)):
    """Group 0: n[0] scores from Beta(2, 3); group 1: n[1] scores, all below 0.5."""
    s = np.concatenate([rng.beta(2, 3, n[0]), rng.uniform(0.05, 0.45, n[1])])
    g = np.repeat([0, 1], n)
    return reduce_unlabeled(s, g, 2), s, g


def test_bootstrap_counts_keep_each_group_s_rows_and_repeat_with_the_seed():
    rng = np.random.default_rng(5)
    summary, _, g = _two_groups(rng)
    a, b, c = _calibration_draws(rng, 300, 2)
    counts = expected_counts(summary, a, b, c, score_seed=11)
    np.testing.assert_allclose(counts.sum(axis=-1), np.broadcast_to(np.bincount(g), (300, 2)))
    np.testing.assert_array_equal(counts, expected_counts(summary, a, b, c, score_seed=11))
    assert not np.array_equal(counts, expected_counts(summary, a, b, c, score_seed=12))
    with pytest.raises(InvalidParameterError, match="give 'score_seed' with it"):
        expected_counts(summary, a, b, c, labeled_counts=np.ones((2, 4)))


def test_bootstrap_counts_are_dirichlet_over_the_rows_and_the_pooled_prior():
    """The share of a group's rows above the threshold against its law: for entries
    holding ``m`` of the group's ``n`` rows and a share ``q₀`` of G₀, the Dirichlet
    ``(n_e, …, α G₀(e))`` aggregates to ``Beta(m + α q₀, n − m + α (1 − q₀))``. 20,000
    draws: the mean within 5 Monte Carlo SE, the variance within 5 SE of a sample
    variance, ``σ² sqrt((2 + κ) / N)`` with ``κ`` the Beta's excess kurtosis (large for
    the three-row group, whose share above is nearly always small)."""
    from scipy import stats

    rng = np.random.default_rng(6)
    summary, s, g = _two_groups(rng)
    n_draws = 20_000
    # a map with p = 1 everywhere: a draw's positives are its rows, tp those above 0.5
    a, b, c = np.zeros((n_draws, 2)), np.zeros((n_draws, 2)), np.full((n_draws, 2), 50.0)
    counts = expected_counts(summary, a, b, c, score_seed=3)
    for group in (0, 1):
        _, own, prior, cells = bootstrap_entry_counts(summary, group, 10, score_seed=3)
        n = np.sum(g == group)
        np.testing.assert_allclose(own.sum(axis=1) + prior.sum(axis=1), n)
        assert not cells.any()  # no labeled rows given
        above = counts[:, group, 0] / n
        m, q0 = np.sum(s[g == group] >= 0.5), np.mean(s >= 0.5)
        law = stats.beta(m + PRIOR_ROWS * q0, n - m + PRIOR_ROWS * (1 - q0))
        mu, var, kurt = (float(v) for v in law.stats(moments="mvk"))
        assert abs(above.mean() - mu) < 5 * np.sqrt(var / n_draws)
        assert abs(above.var() - var) < 5 * var * np.sqrt((2 + kurt) / n_draws)


def test_labeled_rows_join_their_group_s_sample_with_their_labels():
    """With the labeled rows' cells given, each draw's counts hold every row of the
    group (labeled and unlabeled), and the labeled cells' share of them is Dirichlet,
    each cell with Jeffreys's half row more:
    a group of 30 labeled rows and 2 unlabeled ones is as uncertain as 32 rows are,
    not 2 (its share of true positives has the Beta's sd within 5 Monte Carlo SE, the
    sd's relative SE being ``sqrt((2 + κ) / N) / 2`` by the delta method)."""
    from scipy import stats

    rng = np.random.default_rng(8)
    s = rng.uniform(size=402)
    g = np.repeat([0, 1], [400, 2])
    summary = reduce_unlabeled(s, g, 2)
    labeled = np.array([[40, 10, 30, 20], [9, 6, 9, 6]], dtype=float)  # tp, fp, tn, fn
    n_draws = 20_000
    a, b, c = np.zeros((n_draws, 2)), np.zeros((n_draws, 2)), np.full((n_draws, 2), -50.0)
    counts = expected_counts(summary, a, b, c, score_seed=4, labeled_counts=labeled)
    np.testing.assert_allclose(counts.sum(axis=-1), np.broadcast_to([500.0, 32.0], (n_draws, 2)))
    share = counts[:, 1, 0] / 32  # p = 0: the unlabeled rows add no true positive
    law = stats.beta(9 + LABELED_PRIOR, 32 - 9 + PRIOR_ROWS + 3 * LABELED_PRIOR)
    kurt = float(law.stats(moments="k"))
    assert abs(share.std() / law.std() - 1) < 5 * np.sqrt((2 + kurt) / n_draws) / 2


def test_three_rows_below_the_threshold_do_not_make_a_tpr_of_zero_certain():
    """The pooled prior puts some of a tiny group's rows above the threshold in some
    draws; a group of 400 rows barely moves (its mean within 1% of the fixed rows')."""
    rng = np.random.default_rng(7)
    summary, _, _ = _two_groups(rng)
    a, b, c = np.ones((2000, 2)), np.ones((2000, 2)), np.zeros((2000, 2))
    tpr = rate_from_counts(expected_counts(summary, a, b, c, score_seed=1), "tpr")
    fixed = rate_from_counts(expected_counts(summary, a[:1], b[:1], c[:1]), "tpr")
    assert fixed[0, 1] == 0.0
    assert np.mean(tpr[:, 1] > 0.05) > 0.1
    assert abs(tpr[:, 0].mean() / fixed[0, 0] - 1) < 0.01
