"""Compiled loop over draws × proxy entries for :mod:`bayesfair.models.proxy` (private).

numba is imported here, not in :mod:`bayesfair.models.proxy`, so that ``import
bayesfair`` stays light; the function is compiled once per machine (``cache=True``).
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np

# Draws per task: large enough that a task's overhead is negligible.
_TASK_DRAWS = 256


def entry_moments(lookup, rows, strata, abc, lam, z, n_strata: int, labeled: bool):
    """Per draw and stratum, the sum over entries of ``n P`` and ``n P Pᵀ`` and the
    expected score sums: the mean and second moment of the entries' multinomials.

    Parameters
    ----------
    lookup : tuple
        ``(beta (d,), alpha (d, K), table (d, S, K), seg (e,))``: the group logits are
        ``beta ln p + alpha + table[seg]`` (``GroupCalibration.lookup``,
        ``MixtureCalibration.lookup``).
    rows : ProxySummary
    strata : ndarray of int, shape (e,)
        Each entry's stratum, in ``range(n_strata)``.
    abc : tuple of ndarray, each (d, K)
        The maps.
    lam : ndarray, shape (d, K)
    z : ndarray, shape (e, K)
        The link's centred feature.
    n_strata : int
    labeled : bool
        Labeled entries: categories are the groups, weighted by the label's likelihood;
        else the (group, label) pairs.

    Returns
    -------
    mean : ndarray, shape (d, n_strata, C)
    outer : ndarray, shape (d, n_strata, C, C)
    score : ndarray, shape (d, n_strata, C)
    """
    beta, alpha, table, seg = lookup
    a, b, c = (np.ascontiguousarray(v, dtype=float) for v in abc)
    d, k = a.shape
    n_cat = k if labeled else 2 * k
    mean = np.zeros((d, n_strata, n_cat))
    outer = np.zeros((d, n_strata, n_cat, n_cat))
    score = np.zeros((d, n_strata, n_cat))
    data = (
        np.log(np.maximum(rows.mean_p, 1e-4)),
        np.ascontiguousarray(seg, dtype=np.int64),
        rows.sum_log_s / rows.count,
        rows.sum_log_1ms / rows.count,
        np.ascontiguousarray(z, dtype=float),
        rows.count.astype(float),
        np.ascontiguousarray(strata, dtype=np.int64),
        rows.label.astype(np.int64),
        rows.group.astype(np.int64),
        rows.sum_score / rows.count,
    )
    draws = (
        np.ascontiguousarray(beta, dtype=float),
        np.ascontiguousarray(alpha, dtype=float),
        np.ascontiguousarray(table, dtype=float),
        a,
        b,
        c,
        np.ascontiguousarray(lam, dtype=float),
    )
    blocks = [slice(i, i + _TASK_DRAWS) for i in range(0, d, _TASK_DRAWS)]

    def task(sl):
        args = tuple(v[sl] for v in draws)
        _moments(*args, *data, labeled, mean[sl], outer[sl], score[sl])

    workers = min(len(blocks), os.cpu_count() or 1)
    if workers > 1:
        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(task, blocks))
    else:
        for sl in blocks:
            task(sl)
    return mean, outer, score


@numba.njit(cache=True, nogil=True, error_model="numpy")
def _moments(
    beta,
    alpha,
    table,
    a,
    b,
    c,
    lam,
    log_p,
    seg,
    ls,
    l1,
    z,
    count,
    strata,
    label,
    group,
    mean_score,
    labeled,
    mean,
    outer,
    score,
):
    d, k = a.shape
    n_entries = log_p.shape[0]
    n_cat = mean.shape[2]
    logits = np.empty(k)
    prob = np.empty(n_cat)
    for i in range(d):
        for e in range(n_entries):
            if group[e] >= 0:  # a row of known group keeps it
                for g in range(k):
                    logits[g] = 0.0 if g == group[e] else -np.inf
            else:
                for g in range(k):
                    logits[g] = beta[i] * log_p[e, g] + alpha[i, g] + table[i, seg[e], g]
            top = logits.max()
            total = 0.0
            for g in range(k):
                logits[g] = math.exp(logits[g] - top)
                total += logits[g]
            for g in range(k):
                pi = logits[g] / total
                eta = c[i, g] + a[i, g] * ls[e] - b[i, g] * l1[e] + lam[i, g] * z[e, g]
                q = 0.5 * (1.0 + math.tanh(0.5 * eta))
                if labeled:
                    prob[g] = pi * (q if label[e] == 1 else 1.0 - q)
                else:
                    prob[g] = pi * q
                    prob[k + g] = pi * (1.0 - q)
            if labeled:
                norm = 0.0
                for g in range(k):
                    norm += prob[g]
                for g in range(k):
                    prob[g] /= norm
            t = strata[e]
            n = count[e]
            for x in range(n_cat):
                w = n * prob[x]
                mean[i, t, x] += w
                score[i, t, x] += w * mean_score[e]
                for y in range(n_cat):
                    outer[i, t, x, y] += w * prob[y]
