"""The numba kernel of the strata's shift likelihood (private; :mod:`bayesfair.models.shift`).

The entry's terms that depend on the shift δ are ``softplus(h)`` and ``σ(h)(1 − σ(h))``
at ``h = η̄ + δ``, two functions of one variable. They are read from tables on a grid of
``h`` ten times finer than the shifts' grid, by cubic Hermite interpolation with their
exact derivatives (``softplus' = σ``, ``q' = q (1 − 2σ)`` for ``q = σ(1 − σ)``). Since the
shifts are evenly spaced, ``h`` falls at the same fraction of a table cell for every
shift of one entry and draw: the four Hermite weights are computed once, and each shift
costs a few multiplications instead of a logarithm and an exponential. The error of the
interpolation is at most ``w⁴/384 · max|f⁗|`` per row with ``w`` the table's step and
``max|f⁗| ≤ 1`` for both functions (``w = 0.005`` at the default shift grid: below
2·10⁻¹² per row), far below the second-order remainder of the binned likelihood itself
(:func:`bayesfair.models.likelihood.binned_loglik`).
"""

from __future__ import annotations

import math

import numba
import numpy as np

#: The tables cover h in [−_RANGE, _RANGE]; beyond, softplus is linear and σ(1 − σ) is 0
#: to double precision (σ(45) = 1 − 3·10⁻²⁰).
_RANGE = 45.0
#: Table points per step of the shifts' grid.
_FINE = 10


def tables(step: float):
    """Values and derivatives of softplus and σ(1 − σ) on the table's grid (and its step)."""
    w = step / _FINE
    n = math.ceil(2 * _RANGE / w) + 1
    h = -_RANGE + w * np.arange(n)
    sig = 0.5 * (1.0 + np.tanh(0.5 * h))
    softplus = np.logaddexp(0.0, h)
    q = sig * (1.0 - sig)
    return np.stack([softplus, sig, q, q * (1.0 - 2.0 * sig)]), w


@numba.njit(cache=True, error_model="numpy")
def shift_loglik(eta, v_eta, stratum, count, positives, grid, out, top, table, w):
    """Each stratum's log likelihood at each shift, the sum of its entries': ``out[t, s, j]``.

    ``δ y − n [softplus(η̄ + δ) + ½ σ(1 − σ) Var(η)]`` per entry (the terms of
    :func:`bayesfair.models.likelihood.binned_loglik` that depend on the shift δ).
    ``eta``, ``v_eta``: (draws, entries); ``out``: (draws, strata, grid), overwritten;
    ``top``: (draws, strata), each row's maximum, which is then subtracted from the row
    (the relative log likelihood :func:`bayesfair.models.shift.sample_shifts` needs), or
    of length 0 to leave the rows as they are;
    ``grid`` evenly spaced with step ``_FINE · w``; ``table``, ``w`` from :func:`tables`.
    One thread; :func:`shift_loglik_parallel` is the same over the draws in parallel.
    """
    for t in range(eta.shape[0]):
        _draw_shift_loglik(t, eta, v_eta, stratum, count, positives, grid, out, top, table, w)


@numba.njit(cache=True, parallel=True, error_model="numpy")
def shift_loglik_parallel(eta, v_eta, stratum, count, positives, grid, out, top, table, w):
    """:func:`shift_loglik` with the draws spread over numba's threads.

    Compiling a parallel loop costs seconds more, once per machine, than the serial
    one (``docs/benchmarks.md``, "Start-up");
    :func:`bayesfair.models.shift.stratum_shift_loglik` calls this only for work large
    enough to repay it (:data:`PARALLEL_WORK`), so a first small fit does not wait for
    it.
    """
    for t in numba.prange(eta.shape[0]):
        _draw_shift_loglik(t, eta, v_eta, stratum, count, positives, grid, out, top, table, w)


#: Entries × draws × shifts of a fit's shifts (all its draws) above which the parallel
#: kernels are worth their compilation (at 4,000 draws and 201 shifts: about 100 labeled
#: cells, e.g. 10 groups; a demo-sized fit stays serial).
PARALLEL_WORK = 80_000_000


@numba.njit(cache=True, error_model="numpy")
def _draw_shift_loglik(t, eta, v_eta, stratum, count, positives, grid, out, top, table, w):
    """Draw ``t`` of :func:`shift_loglik`."""
    n_entries = eta.shape[1]
    n_grid = grid.size
    n_table = table.shape[1]
    stride = round((grid[1] - grid[0]) / w)
    lo = -_RANGE
    out[t] = 0.0  # the draw's rows, zeroed where they are written (no page faults ahead)
    for e in range(n_entries):
        s = stratum[e]
        n = count[e]
        x = positives[e]
        half_v = 0.5 * v_eta[t, e]
        h0 = eta[t, e] + grid[0]
        pos = (h0 - lo) / w
        i0 = math.floor(pos)
        f = pos - i0
        # cubic Hermite basis at fraction f (values at i, i + 1; slopes times w)
        f2 = f * f
        f3 = f2 * f
        b00 = 2.0 * f3 - 3.0 * f2 + 1.0
        b10 = (f3 - 2.0 * f2 + f) * w
        b01 = -2.0 * f3 + 3.0 * f2
        b11 = (f3 - f2) * w
        for j in range(n_grid):
            i = i0 + j * stride
            if i >= 0 and i + 1 < n_table:
                softplus = (
                    b00 * table[0, i]
                    + b10 * table[1, i]
                    + b01 * table[0, i + 1]
                    + b11 * table[1, i + 1]
                )
                q = (
                    b00 * table[2, i]
                    + b10 * table[3, i]
                    + b01 * table[2, i + 1]
                    + b11 * table[3, i + 1]
                )
            else:  # beyond the tables: the asymptotes
                h = h0 + grid[j] - grid[0]
                softplus = max(h, 0.0) + math.log1p(math.exp(-abs(h)))
                q = 0.0
            out[t, s, j] += grid[j] * x - n * (softplus + half_v * q)
    if top.shape[0] > 0:  # each stratum's row less its maximum, while it is in cache
        for s in range(out.shape[1]):
            m = out[t, s, 0]
            for j in range(1, n_grid):
                m = max(m, out[t, s, j])
            top[t, s] = m
            for j in range(n_grid):
                out[t, s, j] -= m


@numba.njit(cache=True, error_model="numpy")
def _grid_row(like, weights, column, u, out, t):
    """Draw ``t`` of :func:`draw_on_grid`."""
    n_strata, n_grid = like.shape[1], like.shape[2]
    for s in range(n_strata):
        col = column[t, s]
        total = 0.0
        for j in range(n_grid):
            total += like[t, s, j] * weights[j, col]
        target = u[t, s] * total
        acc = 0.0
        pick = n_grid - 1
        for j in range(n_grid):
            acc += like[t, s, j] * weights[j, col]
            if acc >= target and acc > 0.0:
                pick = j
                break
        out[t, s] = pick


@numba.njit(cache=True, error_model="numpy")
def draw_on_grid(like, weights, column, u):
    """Each stratum's grid index drawn from ``like · weights[:, column]`` by inversion.

    ``like``: (draws, strata, grid), the relative likelihoods; ``weights``: (grid,
    columns), the prior's weights at each spread; ``column``: (draws, strata), the spread
    each stratum's shift is drawn under; ``u``: (draws, strata), uniform on [0, 1). The
    index is the first whose cumulative mass reaches ``u`` times the total (the last if
    there is no mass), as ``numpy.searchsorted`` on the cumulative sums. One thread;
    :func:`draw_on_grid_parallel` is the same over the draws in parallel.
    """
    out = np.empty(column.shape, dtype=np.int64)
    for t in range(like.shape[0]):
        _grid_row(like, weights, column, u, out, t)
    return out


@numba.njit(cache=True, parallel=True, error_model="numpy")
def draw_on_grid_parallel(like, weights, column, u):
    """:func:`draw_on_grid` with the draws spread over numba's threads."""
    out = np.empty(column.shape, dtype=np.int64)
    for t in numba.prange(like.shape[0]):
        _grid_row(like, weights, column, u, out, t)
    return out
