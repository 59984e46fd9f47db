"""The robust model's (``rbc``) labeled log likelihood, for use outside the sampler.

The sampler reads ``rbc``'s labeled likelihood inside its compiled log density
(:mod:`bayesfair.models._calibration_native`), the strata's misfit states summed
out. Code that needs the same likelihood at many calibration maps at once (the
planner's Laplace fit and importance sampling, :mod:`bayesfair.labels.approximate`)
reads it here: :func:`robust_likelihood_data` packs a labeled summary as the
sampler does, and :func:`robust_log_likelihood` evaluates the likelihood and its
gradient at a batch of maps ``(a, b, c)`` per group, by the sampler's own kernel.
"""

from __future__ import annotations

import numpy as np

from bayesfair._internal.validation import check_array
from bayesfair.exceptions import InvalidParameterError
from bayesfair.models.calibration import free_log_likelihoods, stratum_counts
from bayesfair.models.likelihood import likelihood_data


def robust_likelihood_data(labeled, center, priors, discrepancy) -> np.ndarray:
    """The packed data of ``rbc``'s labeled likelihood for :func:`robust_log_likelihood`.

    The labeled summary's cells (:func:`~bayesfair.models.likelihood.likelihood_data`)
    and every stratum's own-rate log marginal likelihood
    (:func:`~bayesfair.models.calibration.free_log_likelihoods` at ``center``), in
    the sampler's layout, without the sampler's preconditioner (which the
    likelihood does not read).

    Parameters
    ----------
    labeled : ScoreSummary
        The labeled rows' summary (:class:`~bayesfair.data.summary.ScoreSummary`);
        its ``levels`` are the groups.
    center : array_like, shape (n_groups, 2)
        The centre of each stratum's rate
        (:func:`~bayesfair.models.calibration.free_center`).
    priors : CalibrationPriors
        The hyperpriors (their scales are part of the packed header).
    discrepancy : DiscrepancyPrior
        The robust model's prior.

    Returns
    -------
    numpy.ndarray
        The packed data, read-only.
    """
    from bayesfair.models._calibration_native import calibration_header, pack_data

    n_groups = len(labeled.levels)
    x_st, n_st = stratum_counts(labeled)
    log_free = free_log_likelihoods(x_st, n_st, center, discrepancy)
    header = calibration_header("beta", priors, n_groups, discrepancy)
    return pack_data(header, likelihood_data(labeled), log_free, precondition=False)


def robust_log_likelihood(abc, data) -> tuple[np.ndarray, np.ndarray]:
    """``rbc``'s labeled log likelihood at each of N maps, and its gradient in ``(a, b, c)``.

    The strata's misfit states are summed out, as in the sampler's log density
    (the same compiled kernel).

    Parameters
    ----------
    abc : array_like, shape (N, 3, n_groups)
        Per row, the maps' ``a``, ``b`` (both positive) and ``c`` per group.
    data : numpy.ndarray
        :func:`robust_likelihood_data`'s packed data.

    Returns
    -------
    value : numpy.ndarray, shape (N,)
        The log likelihood of each row.
    grad : numpy.ndarray, shape (N, 3, n_groups)
        Its gradient in ``a``, ``b`` and ``c``.
    """
    from bayesfair.models._calibration_kernels import robust_loglik_batch

    abc = check_array(abc, "abc", ndim=3)
    if abc.shape[1:] != (3, int(data[1])):
        raise InvalidParameterError(
            f"The 'abc' parameter must have shape (N, 3, {int(data[1])}). Got {abc.shape}."
        )
    return robust_loglik_batch(np.ascontiguousarray(abc), data)
