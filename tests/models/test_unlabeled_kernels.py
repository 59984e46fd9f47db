"""bayesfair.models._unlabeled_kernels: the compiled draws of each (group, side) cell's
unlabeled positives, against their binomial laws.

(binomial_inversion's quantiles on a fine grid, and the independence of the draws from
the number of threads through ``sampled_counts``, are tested in
tests/models/test_unlabeled.py.)
"""

import numpy as np
import pytest

from bayesfair.models._unlabeled_kernels import (
    binomial_inversion,
    cell_positives,
    positives_by_draw,
)

# Two groups, four cells (group * 2 + side): cell 0 has two bins, cell 1 one, cell 2
# none, cell 3 three. Entries are sorted by cell.
SCORES = np.array([0.1, 0.3, 0.45, 0.6, 0.8, 0.95])
COUNT = np.array([5.0, 3.0, 1.0, 4.0, 2.0, 6.0])
STARTS = np.array([0, 2, 3, 3, 6])
TOTALS = np.array([8.0, 1.0, 0.0, 12.0])
GROUP_OF_CELL = np.array([0, 0, 1, 1])


def _probabilities(a, b, c):
    """Each entry's p = σ(c + a ln s − b ln(1 − s)) for one draw of its group's map."""
    g = np.repeat(GROUP_OF_CELL, np.diff(STARTS))
    eta = c[g] + a[g] * np.log(SCORES) - b[g] * np.log1p(-SCORES)
    return 1 / (1 + np.exp(-eta))


def _draw(a, b, c, min_variance, seed, per_cell=False):
    """The kernel's draws; ``c`` per group (each cell takes its group's) or ``per_cell``."""
    pos = np.empty((a.shape[0], 4))
    c = c if per_cell else c[:, GROUP_OF_CELL]
    args = (a, b, c, STARTS, np.log(SCORES), np.log1p(-SCORES), COUNT, TOTALS, min_variance)
    cell_positives(np.random.default_rng(seed), *args, pos)
    return pos


def test_binomial_inversion_at_the_edges():
    assert binomial_inversion(0.7, 0, 0.4) == 0  # no trial
    assert binomial_inversion(0.999, 9, 0.0) == 0
    assert binomial_inversion(0.001, 9, 1.0) == 9
    assert binomial_inversion(1e-12, 5, 0.5) == 0 and binomial_inversion(1 - 1e-12, 5, 0.5) == 5
    # the compiled function and its Python source agree
    for u in np.linspace(0.01, 0.99, 25):
        assert binomial_inversion(u, 12, 0.3) == binomial_inversion.py_func(u, 12, 0.3)


@pytest.mark.parametrize("min_variance", [np.inf, 0.0])
def test_certain_maps_give_certain_counts(min_variance):
    """c = ±800 with a = b = 0: every example positive, or none, in either drawing mode."""
    ones, zeros = np.ones((3, 2)), np.zeros((3, 2))
    all_in = _draw(zeros, zeros, 800 * ones, min_variance, seed=0)
    none = _draw(zeros, zeros, -800 * ones, min_variance, seed=0)
    np.testing.assert_array_equal(all_in, np.tile(TOTALS, (3, 1)))
    np.testing.assert_array_equal(none, 0.0)
    # each cell reads its own intercept (a group's map shifted per side)
    sides = np.tile([-800.0, 800.0, -800.0, 800.0], (3, 1))
    mixed = _draw(zeros, zeros, sides, min_variance, seed=0, per_cell=True)
    np.testing.assert_array_equal(mixed, np.tile([0.0, 1.0, 0.0, 12.0], (3, 1)))


@pytest.mark.parametrize("min_variance", [np.inf, 0.0])
def test_each_cell_s_draws_follow_the_binomial_sum_and_stay_in_range(min_variance):
    """Bin by bin (``min_variance`` infinite: exact binomials) the mean and variance over
    20,000 draws of one map are Σ n p and Σ n p (1 − p), within 5 standard errors (the
    variance within 6%). As a rounded, clipped normal total (0: every cell) the mean is
    within 0.05 of Σ n p. Every draw is a whole number in [0, the cell's examples]."""
    n_draws = 20_000
    a = np.tile([1.3, 0.7], (n_draws, 1))
    b = np.tile([0.9, 1.2], (n_draws, 1))
    c = np.tile([0.4, -0.2], (n_draws, 1))
    pos = _draw(a, b, c, min_variance, seed=1)
    p = _probabilities(a[0], b[0], c[0])
    mean = np.add.reduceat(COUNT * p, STARTS[:-1])
    var = np.add.reduceat(COUNT * p * (1 - p), STARTS[:-1])
    mean[2] = var[2] = 0.0  # reduceat gives an empty cell its next entry: no bins there
    assert np.all(pos == np.round(pos)) and np.all((pos >= 0) & (pos <= TOTALS))
    assert (pos[:, 2] == 0).all()
    if np.isinf(min_variance):
        assert np.all(np.abs(pos.mean(axis=0) - mean) <= 5 * np.sqrt(var / n_draws) + 1e-12)
        assert np.all(np.abs(pos.var(axis=0)[[0, 1, 3]] / var[[0, 1, 3]] - 1) < 0.06)
    else:
        np.testing.assert_allclose(pos.mean(axis=0), mean, atol=0.05)


def test_positives_by_draw_is_the_kernel_in_blocks_of_draws(monkeypatch):
    """1,100 draws in three blocks of their own generators: the same seed gives the same
    counts, whether the blocks run on one thread or several."""
    import os

    rng = np.random.default_rng(2)
    n_draws = 1_100
    a, b = np.exp(rng.normal(0, 0.3, (n_draws, 2))), np.exp(rng.normal(0, 0.3, (n_draws, 2)))
    c = rng.normal(0, 1, (n_draws, 2))[:, GROUP_OF_CELL]  # each cell its group's intercept
    args = (a, b, c, STARTS, np.log(SCORES), np.log1p(-SCORES), COUNT, TOTALS, np.inf)
    several = positives_by_draw(*args, np.random.default_rng(3))
    assert several.shape == (n_draws, 4)
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    np.testing.assert_array_equal(positives_by_draw(*args, np.random.default_rng(3)), several)
    assert not np.array_equal(positives_by_draw(*args, np.random.default_rng(4)), several)
    # each block is cell_positives with the block's own seed, drawn from the generator given
    seeds = np.random.default_rng(3).integers(0, 2**63, size=3)
    first = np.empty((512, 4))
    block = (a[:512], b[:512], c[:512], *args[3:])
    cell_positives(np.random.default_rng(seeds[0]), *block, first)
    np.testing.assert_array_equal(several[:512], first)
