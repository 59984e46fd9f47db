"""The proxy summary: additive, and what summarising the probabilities costs."""

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from bayesfair.data.proxy_summary import PROXY_BINS, ProxySummary, summarize_proxy_rows
from bayesfair.datasets.simulate import proxy_audit
from bayesfair.models.proxy import (
    SEGMENTS_PER_SIDE,
    GroupCalibration,
    link_feature,
    map_predictor,
    segment_edges,
)


@pytest.fixture(scope="module")
def audit():
    return proxy_audit(k=3, n_labeled=600, n_unlabeled=4000, n_self_reported=300, random_seed=3)


def test_summaries_add():
    rng = np.random.default_rng(0)
    n = 3000
    s, p = rng.random(n), rng.dirichlet([1, 1, 1], size=n)
    codes, y = rng.integers(-1, 3, size=n), rng.integers(0, 2, size=n)
    whole = summarize_proxy_rows(s, p, codes, levels=["a", "b", "c"], threshold=0.5, labels=y)
    half = [
        summarize_proxy_rows(
            s[i], p[i], codes[i], levels=["a", "b", "c"], threshold=0.5, labels=y[i]
        )
        for i in (slice(0, 1234), slice(1234, None))
    ]
    both = half[0] + half[1]
    assert isinstance(both, ProxySummary) and both.n_entries == whole.n_entries
    for name in ("group", "label", "side", "bin", "cell", "count", "sum_log_s", "sum_p"):
        np.testing.assert_allclose(getattr(both, name), getattr(whole, name), rtol=1e-12)


def test_the_cells_cost_little_against_the_exact_row_sums(audit):
    """The latent model's expected counts per group and confusion cell, at a calibration
    away from the proxy as given (where the cells are not exact), from the summary and
    from every row on its own: within 0.2% of a group's rows (the module docstring's claim)."""
    rows = pd.concat([audit.labeled, audit.unlabeled], ignore_index=True)
    levels = sorted(audit.group_probabilities)
    p = rows[[audit.group_probabilities[g] for g in levels]].to_numpy()
    codes = np.full(len(rows), -1)
    coarse = summarize_proxy_rows(rows["score"], p, codes, levels=levels, threshold=0.5)
    exact = summarize_proxy_rows(
        rows["score"], p, codes, levels=levels, threshold=0.5, n_bins=1 << 20, resolution=10**6
    )
    assert coarse.n_entries < exact.n_entries / 3
    size = 3 + 2 * 2 * SEGMENTS_PER_SIDE
    phi = np.concatenate([[0.4, -0.3, 1.3], np.random.default_rng(0).normal(0, 0.7, size - 3)])
    cal = GroupCalibration(
        mean=phi,
        cov=np.zeros((size, size)),
        reference=0,
        n_groups=3,
        edges=segment_edges([coarse]),
        n_rows=1,
        fixed=False,
    )
    a, b, c = np.array([1.2, 0.8, 1.0]), np.array([0.9, 1.1, 1.0]), np.array([0.3, -0.4, 0.0])

    def expected(summary):
        pi = cal.probabilities(summary)
        q = expit(map_predictor(summary, a, b, c) + 2.0 * (link_feature(summary) - 0.3))
        w = pi * summary.count[:, None]
        return np.stack(
            [(w * q * summary.side[:, None]).sum(0), (w * (1 - q) * ~summary.side[:, None]).sum(0)]
        )

    got, want = expected(coarse), expected(exact)
    size = (cal.probabilities(exact) * exact.count[:, None]).sum(0)
    assert np.abs(got - want).max() / size.min() < 0.002
    assert coarse.n_bins == PROXY_BINS
