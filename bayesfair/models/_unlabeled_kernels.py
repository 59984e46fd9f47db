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

# Draws per task of moments_by_draw: large enough that a task's overhead is negligible.
_TASK_DRAWS = 512


def moments_by_draw(a, b, c, starts, log_s, log_1ms, count):
    """:func:`cell_moments` over all draws, split into blocks of draws computed on
    threads (the kernel releases the GIL; threads, not numba's parallel layer, so
    that concurrent fits in one process stay safe). The result does not depend on
    the number of threads."""
    a, b, c = (np.ascontiguousarray(v, dtype=float) for v in (a, b, c))
    n_draws = a.shape[0]
    n_cells = starts.size - 1
    mean = np.empty((n_draws, n_cells))
    var = np.empty((n_draws, n_cells))
    blocks = [slice(i, i + _TASK_DRAWS) for i in range(0, n_draws, _TASK_DRAWS)]

    def task(sl):
        mean[sl], var[sl] = cell_moments(a[sl], b[sl], c[sl], starts, log_s, log_1ms, count)

    workers = min(len(blocks), os.cpu_count() or 1)
    if workers <= 1:
        for sl in blocks:
            task(sl)
    else:
        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(task, blocks))
    return mean, var


@numba.njit(cache=True, nogil=True, fastmath=True, error_model="numpy")
def cell_moments(a, b, c, starts, log_s, log_1ms, count):
    """Per draw and (group, side) cell: the mean and variance of its unlabeled positives.

    ``Σ_b n_b p_b`` and ``Σ_b n_b p_b (1 − p_b)`` over the cell's bins, with
    ``p_b = σ(c_g + a_g ln s̄_b − b_g ln(1 − s)‾_b)``: the terms that
    :func:`bayesfair.models.unlabeled.sampled_counts` sums, without materialising
    the (draws × bins) array of probabilities. ``1 / (1 + exp(−η))`` is exact at
    both ends in IEEE arithmetic (``exp`` overflows to ``inf``, giving 0).

    Parameters
    ----------
    a, b, c : ndarray, shape (n_draws, n_groups)
    starts : ndarray of int, shape (n_cells + 1,)
        The entries are sorted by cell (``group * 2 + side``); cell ``j`` holds
        entries ``starts[j]:starts[j + 1]``.
    log_s, log_1ms, count : ndarray, shape (n_entries,)

    Returns
    -------
    mean, var : ndarray, shape (n_draws, n_cells)
    """
    n_draws = a.shape[0]
    n_cells = starts.size - 1
    mean = np.zeros((n_draws, n_cells))
    var = np.zeros((n_draws, n_cells))
    for t in range(n_draws):
        for cell in range(n_cells):
            g = cell // 2
            aa, bb, cc = a[t, g], b[t, g], c[t, g]
            m = 0.0
            v = 0.0
            for i in range(starts[cell], starts[cell + 1]):
                p = 1.0 / (1.0 + math.exp(-(cc + aa * log_s[i] - bb * log_1ms[i])))
                m += count[i] * p
                v += count[i] * p * (1.0 - p)
            mean[t, cell] = m
            var[t, cell] = v
    return mean, var
