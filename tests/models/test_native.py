"""The vectorised R-hat / bulk ESS of ``bayesfair.stats`` (read by the posterior's
diagnostics) agree with arviz.

The native calibration density's tests moved to tests/models/test_calibration_kernels.py
and tests/models/test_calibration_native.py; the raw-trace conversion's to
tests/models/test_sampling.py.
"""

import warnings

import numpy as np


def test_vectorised_diagnostics_match_arviz():
    import arviz_stats as azs

    from bayesfair.stats import ess_bulk, rank_rhat, split_chains, z_scale

    rng = np.random.default_rng(3)
    x = rng.normal(size=(4, 400, 6))
    x[:, :, 1] = np.cumsum(x[:, :, 1], axis=1)  # poorly mixed
    x[:, :, 2] = 0.0  # constant: R-hat NaN, ESS = number of draws
    x[0, :, 3] += 1.5  # one chain off
    x[:, :, 4] = np.round(x[:, :, 4])  # ties
    for t in range(1, 400):  # autocorrelated
        x[:, t, 5] = 0.9 * x[:, t - 1, 5] + x[:, t, 5]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r_ref = np.array([azs.rhat(x[:, :, j]) for j in range(6)], dtype=float)
        e_ref = np.array([azs.ess(x[:, :, j], method="bulk") for j in range(6)], dtype=float)
        np.testing.assert_allclose(rank_rhat(x), r_ref, rtol=1e-10, equal_nan=True)
        np.testing.assert_allclose(ess_bulk(x), e_ref, rtol=1e-10)
        z = z_scale(split_chains(x))  # shared by FairnessPosterior.diagnostics
        np.testing.assert_allclose(rank_rhat(x, z), r_ref, rtol=1e-10, equal_nan=True)
        np.testing.assert_allclose(ess_bulk(x, z), e_ref, rtol=1e-10)
        x[1, 5, 0] = np.nan
        assert np.isnan(rank_rhat(x)[0]) and np.isnan(ess_bulk(x)[0])
        assert np.all(np.isnan(rank_rhat(x[:1])))  # one chain: no R-hat
