"""The numba kernel of the strata's shift likelihood (private; :mod:`bayesfair.models.shift`)."""

from __future__ import annotations

import math

import numba


@numba.njit(cache=True, parallel=True, error_model="numpy")
def shift_loglik(eta, v_eta, stratum, count, positives, grid, out):
    """Add each entry's log likelihood at each shift to its stratum: ``out[t, s, j]``.

    ``δ y − n [softplus(η̄ + δ) + ½ σ(1 − σ) Var(η)]`` per entry (the terms of
    :func:`bayesfair.models.likelihood.binned_loglik` that depend on the shift δ).
    ``eta``, ``v_eta``: (draws, entries); ``out``: (draws, strata, grid), zeroed.
    """
    n_draws, n_entries = eta.shape
    for t in numba.prange(n_draws):
        for e in range(n_entries):
            s = stratum[e]
            n = count[e]
            x = positives[e]
            for j in range(grid.size):
                d = grid[j]
                h = eta[t, e] + d
                z = math.exp(-abs(h))
                softplus = max(h, 0.0) + math.log1p(z)
                p = 1.0 / (1.0 + z) if h >= 0.0 else z / (1.0 + z)
                out[t, s, j] += d * x - n * (softplus + 0.5 * p * (1.0 - p) * v_eta[t, e])
