"""rbc's labeled log likelihood outside the sampler: the sampler's packed data and kernel."""

import numpy as np
import pytest

import bayesfair as bf
from bayesfair.exceptions import InvalidParameterError


@pytest.fixture(scope="module")
def labeled():
    data = bf.datasets.load_assessment("compas-race", "LR", n_labeled=80, random_seed=0)
    return data.labeled_summary()


def test_the_packed_data_are_the_sampler_s_without_its_preconditioner(labeled):
    from bayesfair.models._calibration_native import compile_native_calibration
    from bayesfair.models.calibration import (
        CalibrationPriors,
        DiscrepancyPrior,
        free_log_likelihoods,
        likelihood_data,
        stratum_counts,
    )
    from bayesfair.models.robust_likelihood import robust_likelihood_data, robust_log_likelihood

    priors, disc = CalibrationPriors(), DiscrepancyPrior()
    k = len(labeled.levels)
    center = np.full((k, 2), 0.4)
    packed = robust_likelihood_data(labeled, center, priors, disc)
    log_free = free_log_likelihoods(*stratum_counts(labeled), center, disc)
    sampler = compile_native_calibration("beta", priors, k, disc).with_data(
        **likelihood_data(labeled), log_free=log_free
    )
    assert packed.shape == sampler.user_data.shape and not packed.flags.writeable
    pre = 12 * k  # the preconditioner's rows, last: the sampler's only
    np.testing.assert_array_equal(packed[:-pre], sampler.user_data[:-pre])
    assert not packed[-pre:].any() and sampler.user_data[-pre:].any()

    rng = np.random.default_rng(2)
    abc = np.stack(
        [
            np.exp(rng.normal(0, 0.3, (4, k))),
            np.exp(rng.normal(0, 0.3, (4, k))),
            rng.normal(0, 0.3, (4, k)),
        ],
        axis=1,
    )
    value, grad = robust_log_likelihood(abc, packed)
    same_value, same_grad = robust_log_likelihood(abc, sampler.user_data)
    np.testing.assert_array_equal(value, same_value)  # the preconditioner is not read
    np.testing.assert_array_equal(grad, same_grad)
    assert value.shape == (4,) and grad.shape == (4, 3, k) and np.all(value < 0)
    step = 1e-6  # the gradient is the slope
    for j in range(3):
        up, down = abc.copy(), abc.copy()
        up[:, j, 0] += step
        down[:, j, 0] -= step
        slope = (robust_log_likelihood(up, packed)[0] - robust_log_likelihood(down, packed)[0]) / (
            2 * step
        )
        np.testing.assert_allclose(grad[:, j, 0], slope, rtol=1e-5, atol=1e-6)
    with pytest.raises(InvalidParameterError, match=r"'abc' parameter must have shape"):
        robust_log_likelihood(abc[:, :2], packed)
