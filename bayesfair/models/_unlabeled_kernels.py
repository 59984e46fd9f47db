"""Compiled loops over draws × summary cells for :mod:`bayesfair.models.unlabeled` (private).

numba is imported here, not in :mod:`bayesfair.models.unlabeled`, so that
``import bayesfair`` stays light; the functions are compiled once per machine
(``cache=True``).
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np

# Draws per task of positives_by_draw: large enough that a task's overhead is negligible.
_TASK_DRAWS = 512


def positives_by_draw(a, b, c, starts, log_s, log_1ms, count, totals, min_variance, rng):
    """:func:`cell_positives` over all draws, split into blocks of ``_TASK_DRAWS`` draws.

    Each block draws from its own generator, seeded from ``rng``, and the blocks run
    on threads (the kernel releases the GIL; threads, not numba's parallel layer, so
    that concurrent fits in one process stay safe). The result depends on ``rng``
    and not on the number of threads.
    """
    a, b, c = (np.ascontiguousarray(v, dtype=float) for v in (a, b, c))  # c: per cell
    n_draws = a.shape[0]
    pos = np.empty((n_draws, starts.size - 1))
    blocks = [slice(i, i + _TASK_DRAWS) for i in range(0, n_draws, _TASK_DRAWS)]
    seeds = rng.integers(0, 2**63, size=len(blocks))
    totals = np.asarray(totals, dtype=float)

    def task(j):
        sl = blocks[j]
        block_rng = np.random.default_rng(seeds[j])
        args = (a[sl], b[sl], c[sl], starts, log_s, log_1ms, count, totals, min_variance)
        cell_positives(block_rng, *args, pos[sl])

    workers = min(len(blocks), os.cpu_count() or 1)
    if workers <= 1:
        for j in range(len(blocks)):
            task(j)
    else:
        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(task, range(len(blocks))))
    return pos


@numba.njit(cache=True, nogil=True, error_model="numpy")
def cell_positives(rng, a, b, c, starts, log_s, log_1ms, count, totals, min_variance, pos):
    """Per draw and (group, side) cell: its unlabeled positives, drawn.

    The cell's bins have ``p_b = σ(c_j + a_g ln s̄_b − b_g ln(1 − s)‾_b)`` (``g`` the
    cell's group, ``c_j`` the cell's own intercept: its group's, moved by the side's
    shift where the strata's shifts apply); its total
    ``Σ_b Binomial(n_b, p_b)`` has mean ``μ = Σ n_b p_b`` and variance
    ``V = Σ n_b p_b (1 − p_b)``. Where ``V ≥ min_variance`` the total is drawn as
    ``round(μ + √V Z)`` clipped to ``[0, totals[cell]]``, else bin by bin
    (:func:`binomial_inversion`), all in one pass over the cell's bins (with many
    groups most cells are small, and drawing them cell by cell from Python cost
    seconds per fit). ``1 / (1 + exp(−η))`` is exact at both ends in IEEE
    arithmetic (``exp`` overflows to ``inf``, giving 0).

    Parameters
    ----------
    rng : numpy.random.Generator
        Its state is advanced by the draws.
    a, b : ndarray, shape (n_draws, n_groups)
    c : ndarray, shape (n_draws, n_cells)
        The intercept of each cell (``group * 2 + side``).
    starts : ndarray of int, shape (n_cells + 1,)
        The entries are sorted by cell (``group * 2 + side``); cell ``j`` holds
        entries ``starts[j]:starts[j + 1]``.
    log_s, log_1ms, count : ndarray, shape (n_entries,)
    totals : ndarray, shape (n_cells,)
        The cell's number of examples.
    min_variance : float
    pos : ndarray, shape (n_draws, n_cells)
        Written in place.
    """
    n_draws = a.shape[0]
    n_cells = starts.size - 1
    longest = 0
    for cell in range(n_cells):
        longest = max(longest, starts[cell + 1] - starts[cell])
    probs = np.empty(longest)
    for t in range(n_draws):
        for cell in range(n_cells):
            g = cell // 2
            aa, bb, cc = a[t, g], b[t, g], c[t, cell]
            lo, hi = starts[cell], starts[cell + 1]
            m = 0.0
            v = 0.0
            for i in range(lo, hi):
                p = 1.0 / (1.0 + math.exp(-(cc + aa * log_s[i] - bb * log_1ms[i])))
                probs[i - lo] = p
                m += count[i] * p
                v += count[i] * p * (1.0 - p)
            if v >= min_variance:
                x = math.floor(m + math.sqrt(v) * rng.standard_normal() + 0.5)
                pos[t, cell] = min(max(x, 0.0), totals[cell])
            else:
                total = 0
                for i in range(lo, hi):
                    total += binomial_inversion(rng.random(), int(count[i]), probs[i - lo])
                pos[t, cell] = total


@numba.njit(cache=True, inline="always", error_model="numpy")
def binomial_inversion(u, n, p):
    """The ``u``-quantile of Binomial(n, p): an exact draw from one uniform ``u``.

    The probability mass is summed upward from 0 occurrences of the rarer outcome (p
    or 1 − p, whichever is ≤ ½), so the loop runs about ``n min(p, 1 − p) + 1``
    times; :func:`cell_positives` calls it only in cells whose variance is small,
    where that is a few steps.
    """
    flip = p > 0.5
    r = 1.0 - p if flip else p
    x = 0
    if r > 0.0 and n > 0:
        ratio = r / (1.0 - r)
        # most bins of a small group hold one example: no logarithm there
        mass = 1.0 - r if n == 1 else math.exp(n * math.log1p(-r))
        cum = mass
        while u > cum and x < n:
            mass *= ratio * (n - x) / (x + 1)
            x += 1
            cum += mass
    return n - x if flip else x
