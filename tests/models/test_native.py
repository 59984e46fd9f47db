"""The R-hat / bulk ESS of ``bayesfair.stats`` (read by the posterior's diagnostics)
are arviz-stats' own, column by column of a (chain, draw, m) array.

The native calibration density's tests are in tests/models/test_calibration_kernels.py
and tests/models/test_calibration_native.py; the raw-trace conversion's in
tests/models/test_sampling.py.
"""

import warnings

import numpy as np
import pytest


@pytest.mark.parametrize("n_draws", [400, 401])
def test_diagnostics_are_arviz_stats_column_by_column(n_draws):
    """Ranked once for all columns, each split chain's ties averaged: arviz-stats'
    numbers to the last bit (an odd draw count drops the middle draw, as it does)."""
    import arviz_stats as azs

    from bayesfair.stats import ess_bulk, rank_rhat

    rng = np.random.default_rng(3)
    x = rng.normal(size=(4, n_draws, 8))
    x[:, :, 1] = np.cumsum(x[:, :, 1], axis=1)  # poorly mixed
    x[:, :, 2] = 0.0  # constant: R-hat NaN, ESS = number of draws
    x[0, :, 3] += 1.5  # one chain off
    x[:, :, 4] = np.round(x[:, :, 4])  # ties
    for t in range(1, n_draws):  # autocorrelated
        x[:, t, 5] = 0.9 * x[:, t - 1, 5] + x[:, t, 5]
    # two values, half the split draws each: the folded draws are constant, so the tail
    # R-hat is NaN and arviz-stats keeps the bulk's
    x[:, :, 6] = np.arange(n_draws) % 2
    x[:, :, 7] = np.where(np.arange(n_draws) % 2, np.inf, -np.inf)  # a NaN median
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r_ref = np.array([azs.rhat(x[:, :, j]) for j in range(8)], dtype=float)
        e_ref = np.array([azs.ess(x[:, :, j], method="bulk") for j in range(8)], dtype=float)
        np.testing.assert_array_equal(rank_rhat(x), r_ref)
        np.testing.assert_array_equal(ess_bulk(x), e_ref)
        assert np.isnan(r_ref[2]) and e_ref[2] == 1600 and r_ref[1] > 1.1 and r_ref[3] > 1.1
        assert np.isfinite(r_ref[6])
        short = x[:, :6]  # split chains of 3 draws: arviz-stats' own R-hat and bulk ESS
        np.testing.assert_array_equal(
            ess_bulk(short), [azs.ess(short[:, :, j], method="bulk") for j in range(8)]
        )
        np.testing.assert_array_equal(
            rank_rhat(short), [azs.rhat(short[:, :, j]) for j in range(8)]
        )
        x[1, 5, 0] = np.nan
        assert np.isnan(rank_rhat(x)[0]) and np.isnan(ess_bulk(x)[0])
        assert np.all(np.isnan(rank_rhat(x[:1])))  # one chain: no R-hat
        assert np.all(np.isnan(ess_bulk(x[:, :3])))  # three draws: no ESS


def test_diagnostics_table_reads_every_element_of_every_variable():
    import xarray as xr

    from bayesfair.stats import diagnostics_table, ess_bulk, rank_rhat

    rng = np.random.default_rng(5)
    a = rng.normal(size=(4, 200))
    b = rng.normal(size=(4, 200, 3))
    b[0, :, 2] += 2.0  # the element that sets b's R-hat
    post = xr.Dataset(
        {
            "a": (("chain", "draw"), a),
            "b": (("chain", "draw", "k"), b),
            "b_log__": (("chain", "draw", "k"), b),  # transformed: left out
        }
    )
    stats = xr.Dataset({"diverging": (("chain", "draw"), np.zeros((4, 200), bool))})
    stats["diverging"][1, 7] = True
    table = diagnostics_table(post, stats)
    assert list(table.index) == ["a", "b"] and (table["divergences"] == 1).all()
    assert table.loc["b", "r_hat"] == rank_rhat(b).max() > 1.2
    assert table.loc["b", "ess_bulk"] == ess_bulk(b).min()
    assert table.loc["a", "r_hat"] == rank_rhat(a[:, :, None])[0]
    assert diagnostics_table(post[[]]).empty
