"""The numba kernel of the strata's shift likelihood (private; :mod:`bayesfair.models.shift`)."""

from __future__ import annotations

import math

import numba

# Beyond this |η + δ| the logistic terms are taken branch-wise (exp(h) would lose digits).
_SAFE = 30.0


@numba.njit(cache=True, parallel=True, error_model="numpy")
def shift_loglik(eta, v_eta, stratum, count, positives, grid, out):
    """Add each entry's log likelihood at each shift to its stratum: ``out[t, s, j]``.

    ``δ y − n [softplus(η̄ + δ) + ½ σ(1 − σ) Var(η)]`` per entry (the terms of
    :func:`bayesfair.models.likelihood.binned_loglik` that depend on the shift δ).
    ``eta``, ``v_eta``: (draws, entries); ``out``: (draws, strata, grid), zeroed;
    ``grid`` evenly spaced. Along the grid ``u = exp(η̄ + δ)`` is carried by one
    multiplication per step (softplus = log1p(u), σ = u / (1 + u)), where
    ``|η̄ + δ| ≤ 30``; beyond, each point is computed on its own.
    """
    n_draws, n_entries = eta.shape
    n_grid = grid.size
    step = grid[1] - grid[0]
    ratio = math.exp(step)
    for t in numba.prange(n_draws):
        for e in range(n_entries):
            s = stratum[e]
            n = count[e]
            x = positives[e]
            half_v = 0.5 * v_eta[t, e]
            h0 = eta[t, e] + grid[0]
            fast = abs(h0) <= _SAFE and abs(h0 + step * (n_grid - 1)) <= _SAFE
            u = math.exp(h0)
            for j in range(n_grid):
                d = grid[j]
                if fast:
                    softplus = math.log1p(u)
                    p = u / (1.0 + u)
                    u *= ratio
                else:
                    h = eta[t, e] + d
                    z = math.exp(-abs(h))
                    softplus = max(h, 0.0) + math.log1p(z)
                    p = 1.0 / (1.0 + z) if h >= 0.0 else z / (1.0 + z)
                out[t, s, j] += d * x - n * (softplus + half_v * p * (1.0 - p))
