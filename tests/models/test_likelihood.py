"""bayesfair.models.likelihood: the labeled likelihood's data (a coarsened summary) and
its binned log likelihood, against the row-level Bernoulli log likelihood."""

import numpy as np
import pytest

from bayesfair.data.summary import bin_edges, summarize_arrays
from bayesfair.models.likelihood import (
    LIKELIHOOD_BINS,
    LIKELIHOOD_FIELDS,
    binned_loglik,
    entry_predictor,
    likelihood_data,
    likelihood_grid,
)


def _rows(n=2_000, k=2, seed=0):
    rng = np.random.default_rng(seed)
    s = rng.uniform(0.0, 1.0, n)
    y = (rng.uniform(size=n) < s).astype(int)
    g = rng.integers(0, k, n)
    return s, y, g


def _row_loglik(s, y, g, a, b, c, clip=0.01):
    """Σ_i y log p + (1 − y) log(1 − p), p = σ(c + a ln s − b ln(1 − s)), row by row."""
    s = np.clip(s, clip, 1 - clip)
    eta = c[g] + a[g] * np.log(s) - b[g] * np.log1p(-s)
    return float(np.sum(y * eta - np.logaddexp(0.0, eta)))


@pytest.mark.parametrize(
    ("n_bins", "grid"),
    [(8, 8), (32, 32), (1024, 32), (1000, 25), (48, 24), (34, 17), (1009, 1009), (66, 22)],
)
def test_the_grid_is_the_largest_divisor_up_to_32(n_bins, grid):
    """A divisor keeps the coarse edges on the summary's grid; below 16 the summary's own
    grid is kept (1009 is prime)."""
    assert LIKELIHOOD_BINS == 32
    assert likelihood_grid(n_bins) == grid


def test_likelihood_data_holds_every_row_and_label():
    s, y, g = _rows()
    lik = likelihood_data(summarize_arrays(s, g, range(2), labels=y))
    assert tuple(lik) == LIKELIHOOD_FIELDS
    sizes = {v.shape for v in lik.values()}
    assert len(sizes) == 1 and next(iter(sizes))[0] <= 2 * 2 * 32
    assert lik["count"].sum() == 2_000 and lik["positives"].sum() == y.sum()
    assert lik["group_idx"].dtype == np.int64 and set(lik["side"]) == {0, 1}
    for k in range(2):
        assert lik["count"][lik["group_idx"] == k].sum() == (g == k).sum()
    c = np.clip(s, 0.01, 0.99)
    np.testing.assert_allclose((lik["count"] * lik["mean_log_s"]).sum(), np.log(c).sum())
    np.testing.assert_allclose(lik["pos_sum_log_1ms"].sum(), np.log1p(-c)[y == 1].sum())
    assert np.all(lik["var_log_s"] >= 0) and np.all(lik["var_log_1ms"] >= 0)


def test_likelihood_data_needs_labels():
    s, _, g = _rows(50)
    with pytest.raises(ValueError, match="needs a summary of labeled rows"):
        likelihood_data(summarize_arrays(s, g, range(2)))


def test_binned_loglik_is_exact_when_an_entry_s_rows_share_a_score():
    """Rows of one score per entry: Var(η) = 0 and softplus is taken at the rows' own η,
    so the binned likelihood is the row-level one to rounding."""
    s = np.repeat([0.03, 0.2, 0.45, 0.6, 0.97], 40)
    rng = np.random.default_rng(1)
    y = (rng.uniform(size=s.size) < s).astype(int)
    g = np.tile([0, 1], s.size // 2)
    lik = likelihood_data(summarize_arrays(s, g, range(2), labels=y))
    a, b, c = np.array([[1.4, 0.7]]), np.array([[0.9, 1.2]]), np.array([[0.3, -0.5]])
    per_entry = binned_loglik(lik, a, b, c)
    assert per_entry.shape == (1, lik["count"].size)
    expected = _row_loglik(s, y, g, a[0], b[0], c[0])
    assert per_entry.sum() == pytest.approx(expected, rel=1e-12)


def test_binned_loglik_s_error_is_within_its_third_order_bound():
    """Scores spread over each bin: the remainder is at most 0.016 Δ³ per row with
    Δ = max(a, b) · w (module docstring of bayesfair.models.calibration), and the second-
    order term makes the binned likelihood closer than the mean predictor alone."""
    s, y, g = _rows(4_000, seed=2)
    lik = likelihood_data(summarize_arrays(s, g, range(2), labels=y))
    a, b, c = np.array([1.3, 0.8]), np.array([0.8, 1.1]), np.array([0.2, -0.4])
    draws = [a[None], b[None], c[None]]
    binned = float(binned_loglik(lik, *draws).sum())
    exact = _row_loglik(s, y, g, a, b, c)
    lo, hi = bin_edges(0.01)
    width = (hi - lo) / 32
    bound = s.size * 0.016 * (max(a.max(), b.max()) * width) ** 3
    assert abs(binned - exact) <= bound
    # without the variance term: softplus at the entry's mean predictor only
    first = {**lik, "var_log_s": 0 * lik["var_log_s"], "var_log_1ms": 0 * lik["var_log_1ms"]}
    first["cov_log"] = 0 * lik["cov_log"]
    assert abs(binned - exact) < abs(float(binned_loglik(first, *draws).sum()) - exact)


def test_binned_loglik_evaluates_many_draws_at_once():
    s, y, g = _rows(500, k=3, seed=3)
    lik = likelihood_data(summarize_arrays(s, g, range(3), labels=y))
    rng = np.random.default_rng(4)
    a, b = np.exp(rng.normal(0, 0.3, (6, 3))), np.exp(rng.normal(0, 0.3, (6, 3)))
    c = rng.normal(0, 1, (6, 3))
    together = binned_loglik(lik, a, b, c)
    assert together.shape == (6, lik["count"].size)
    for t in range(6):
        one = binned_loglik(lik, a[t : t + 1], b[t : t + 1], c[t : t + 1])[0]
        np.testing.assert_allclose(together[t], one, rtol=1e-14)


def test_entry_predictor_is_the_mean_and_variance_of_the_entry_s_row_predictors():
    """One entry holding every row (scores in one bin of the likelihood's 32): its
    predictor's mean and variance are the rows' mean and variance of
    η = c + a ln s − b ln(1 − s), to rounding (the summary keeps the sums and the sums
    of squares and products of ln s and ln(1 − s))."""
    rng = np.random.default_rng(5)
    # the 32 bins are equal in logit(s) over [logit 0.01, logit 0.99]: bin 19 is s in
    # [0.703, 0.759]
    s = rng.uniform(0.71, 0.75, 300)
    y = (rng.uniform(size=s.size) < s).astype(int)
    lik = likelihood_data(summarize_arrays(s, np.zeros(s.size, int), range(1), labels=y))
    assert lik["count"].tolist() == [300.0]
    a, b, c = np.array([[1.0], [2.5]]), np.array([[1.0], [0.4]]), np.array([[0.0], [-1.0]])
    eta, v_eta = entry_predictor(lik, a, b, c)
    rows = c + a * np.log(s) - b * np.log1p(-s)  # (2 draws, 300 rows)
    np.testing.assert_allclose(eta[:, 0], rows.mean(axis=1), rtol=1e-10)
    np.testing.assert_allclose(v_eta[:, 0], rows.var(axis=1), rtol=1e-9)
