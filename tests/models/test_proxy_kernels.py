"""The compiled moments of :mod:`bayesfair.models._proxy_kernels` against NumPy's."""

import numpy as np

from bayesfair.data.proxy_summary import summarize_proxy_rows
from bayesfair.models._proxy_kernels import entry_moments


def test_the_moments_are_numpys():
    rng = np.random.default_rng(0)
    n, d, k = 500, 7, 3
    s, p = rng.random(n), rng.dirichlet([1, 1, 1], size=n)
    codes = np.where(rng.random(n) < 0.2, rng.integers(0, k, n), -1)
    rows = summarize_proxy_rows(s, p, codes, levels=["a", "b", "c"], threshold=0.5, n_bins=8)
    e = rows.n_entries
    beta, alpha = rng.normal(1, 0.2, d), rng.normal(0, 0.5, (d, k))
    table, seg = rng.normal(0, 0.5, (d, 4, k)), rng.integers(0, 4, e)
    a, b, c = (rng.normal(1, 0.1, (d, k)) for _ in range(3))
    lam, z = rng.normal(0, 1, (d, k)), rng.normal(0, 0.3, (e, k))
    strata = rows.side.astype(int)
    mean, outer, score = entry_moments(
        (beta, alpha, table, seg), rows, strata, (a, b, c), lam, z, 2, labeled=False
    )
    logits = (
        beta[:, None, None] * np.log(np.maximum(rows.mean_p, 1e-4)) + alpha[:, None] + table[:, seg]
    )
    logits = np.where(
        rows.known[:, None], np.where(np.arange(k) == rows.group[:, None], 0, -np.inf), logits
    )
    pi = np.exp(logits - logits.max(-1, keepdims=True))
    pi /= pi.sum(-1, keepdims=True)
    ls, l1 = rows.sum_log_s / rows.count, rows.sum_log_1ms / rows.count
    eta = c[:, None] + a[:, None] * ls[:, None] - b[:, None] * l1[:, None] + lam[:, None] * z
    q = 1 / (1 + np.exp(-eta))
    prob = np.concatenate([pi * q, pi * (1 - q)], axis=-1)
    for t in (0, 1):
        w = rows.count * (strata == t)
        np.testing.assert_allclose(mean[:, t], np.einsum("dec,e->dc", prob, w), rtol=1e-9)
        want = np.einsum("dec,def,e->dcf", prob, prob, w)
        np.testing.assert_allclose(outer[:, t], want, rtol=1e-9, atol=1e-12)
        got_score = np.einsum("dec,e->dc", prob, w * rows.sum_score / rows.count)
        np.testing.assert_allclose(score[:, t], got_score, rtol=1e-9, atol=1e-12)
