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
