"""The numba kernel of the strata's shift likelihood: its fast path against the direct one."""

import numpy as np

from bayesfair.models._shift_kernels import (
    draw_on_grid,
    draw_on_grid_parallel,
    shift_loglik,
    shift_loglik_parallel,
    tables,
)

#: ``shift_loglik``'s ``top`` when the rows are left as they are.
NO_TOP = np.empty((0, 0))


def _direct(eta, v_eta, stratum, count, positives, grid, n_strata):
    out = np.zeros((eta.shape[0], n_strata, grid.size))
    for j, d in enumerate(grid):
        h = eta + d
        p = 1.0 / (1.0 + np.exp(-h))
        entry = d * positives - count * (np.logaddexp(0.0, h) + 0.5 * p * (1 - p) * v_eta)
        for s in range(n_strata):
            out[:, s, j] = entry[:, stratum == s].sum(axis=1)
    return out


def _inputs(seed=0):
    rng = np.random.default_rng(seed)
    eta = rng.normal(0, 3, (7, 9))
    eta[0, :3] = [44.0, -48.0, 27.0]  # beyond the tables' ±45 at some shifts: asymptotes
    v_eta = rng.uniform(0, 0.2, (7, 9))
    stratum = rng.integers(0, 4, 9).astype(np.int64)
    count = rng.integers(1, 30, 9).astype(float)
    positives = np.floor(count * rng.uniform(0, 1, 9))
    grid = np.linspace(-5, 5, 201)
    return eta, v_eta, stratum, count, positives, grid


def test_the_interpolated_and_the_asymptotic_terms_agree_with_numpy():
    eta, v_eta, stratum, count, positives, grid = _inputs()
    out = np.zeros((7, 4, grid.size))
    shift_loglik(eta, v_eta, stratum, count, positives, grid, out, NO_TOP, *tables(0.05))
    expected = _direct(eta, v_eta, stratum, count, positives, grid, 4)
    # the interpolation's error bound (module docstring): 1e-11 per row, times the rows
    np.testing.assert_allclose(out, expected, rtol=0, atol=1e-11 * count.sum())


def test_the_parallel_kernel_is_the_serial_one_over_threads():
    """The same sums, draw by draw (each draw writes its own rows of ``out``)."""
    inputs = _inputs(1)
    serial, parallel = np.zeros((7, 4, 201)), np.zeros((7, 4, 201))
    shift_loglik(*inputs, serial, NO_TOP, *tables(0.05))
    shift_loglik_parallel(*inputs, parallel, NO_TOP, *tables(0.05))
    np.testing.assert_array_equal(parallel, serial)
    tops = np.zeros((2, 7, 4))
    shift_loglik(*inputs, serial, tops[0], *tables(0.05))
    shift_loglik_parallel(*inputs, parallel, tops[1], *tables(0.05))
    np.testing.assert_array_equal(parallel, serial)
    np.testing.assert_array_equal(tops[1], tops[0])


def test_small_work_stays_on_one_thread_and_large_work_spreads(monkeypatch):
    """The parallel kernel (about 3.5 s more to compile, once) is called only above
    ``PARALLEL_WORK`` entries × draws × shifts; both give the same numbers."""
    import bayesfair.models._shift_kernels as kernels  # the module under test, patched
    from bayesfair.data.summary import summarize_arrays
    from bayesfair.models.likelihood import likelihood_data
    from bayesfair.models.shift import SHIFT_GRID, stratum_shift_loglik

    rng = np.random.default_rng(3)
    s = rng.beta(2.0, 2.0, 400)
    labeled = summarize_arrays(s, rng.integers(0, 2, 400), [0, 1], labels=rng.random(400) < s)
    lik = likelihood_data(labeled)
    rng = np.random.default_rng(1)
    a, b = np.exp(rng.normal(0, 0.2, (256, 2))), np.exp(rng.normal(0, 0.2, (256, 2)))
    c = rng.normal(0, 0.5, (256, 2))
    called = []
    for name in ("shift_loglik", "shift_loglik_parallel"):
        kernel = getattr(kernels, name)
        monkeypatch.setattr(
            kernels, name, lambda *args, k=kernel, n=name: called.append(n) or k(*args)
        )
    small = stratum_shift_loglik(lik, a, b, c, 2)
    work = lik["count"].size * 256 * SHIFT_GRID.size
    assert work < kernels.PARALLEL_WORK and called == ["shift_loglik"]
    monkeypatch.setattr(kernels, "PARALLEL_WORK", work)
    large = stratum_shift_loglik(lik, a, b, c, 2)
    assert called[-1] == ("shift_loglik_parallel" if _numba_threads() > 1 else "shift_loglik")
    np.testing.assert_array_equal(large, small)


def test_a_fit_s_shifts_choose_the_threads_for_all_their_draws(monkeypatch):
    """``sample_shifts`` decides once from the fit's entries × draws × shifts, so that
    every chunk of a large fit spreads over the threads (a chunk alone would not reach
    ``PARALLEL_WORK``), and the draws are the serial ones."""
    import bayesfair.models._shift_kernels as kernels  # the module under test, patched
    from bayesfair.data.summary import summarize_arrays
    from bayesfair.models.likelihood import likelihood_data
    from bayesfair.models.shift import DEFAULT_SHIFT, SHIFT_CHUNK, SHIFT_GRID, sample_shifts

    rng = np.random.default_rng(7)
    s = rng.beta(2.0, 2.0, 300)
    labeled = summarize_arrays(s, rng.integers(0, 2, 300), [0, 1], labels=rng.random(300) < s)
    n = 3 * SHIFT_CHUNK
    a, b = np.exp(rng.normal(0, 0.2, (n, 2))), np.exp(rng.normal(0, 0.2, (n, 2)))
    c = rng.normal(0, 0.5, (n, 2))
    called = []
    for name in ("shift_loglik", "shift_loglik_parallel", "draw_on_grid", "draw_on_grid_parallel"):
        kernel = getattr(kernels, name)
        monkeypatch.setattr(
            kernels, name, lambda *args, k=kernel, n=name: called.append(n) or k(*args)
        )
    serial = sample_shifts(labeled, a, b, c, DEFAULT_SHIFT, np.random.default_rng(0))
    assert called == ["shift_loglik", "draw_on_grid"] * 3
    work = likelihood_data(labeled)["count"].size * n * SHIFT_GRID.size
    monkeypatch.setattr(kernels, "PARALLEL_WORK", work)
    called.clear()
    parallel = sample_shifts(labeled, a, b, c, DEFAULT_SHIFT, np.random.default_rng(0))
    if _numba_threads() > 1:
        assert called == ["shift_loglik_parallel", "draw_on_grid_parallel"] * 3
    for got, expected in zip(parallel, serial, strict=True):
        np.testing.assert_array_equal(got, expected)


def _numba_threads() -> int:
    import numba

    return numba.get_num_threads()


def test_with_top_each_row_peaks_at_zero_less_its_maximum():
    """The relative log likelihood ``sample_shifts`` exponentiates: each stratum's row
    less its largest value, that value written to ``top``."""
    eta, v_eta, stratum, count, positives, grid = _inputs(2)
    plain, relative = np.zeros((7, 4, grid.size)), np.zeros((7, 4, grid.size))
    top = np.full((7, 4), np.nan)
    shift_loglik(eta, v_eta, stratum, count, positives, grid, plain, NO_TOP, *tables(0.05))
    shift_loglik(eta, v_eta, stratum, count, positives, grid, relative, top, *tables(0.05))
    np.testing.assert_array_equal(top, plain.max(axis=-1))
    np.testing.assert_array_equal(relative, plain - top[..., None])
    assert (relative.max(axis=-1) == 0.0).all()


def test_a_grid_draw_is_numpy_s_inversion_of_the_cumulative_sums():
    rng = np.random.default_rng(4)
    like = rng.uniform(0, 1, (50, 8, 201))
    like[0, 0] = 0.0  # no mass at all: the last point (numpy's count gives the first)
    weights = rng.uniform(0, 1, (201, 5))
    column = rng.integers(0, 5, (50, 8))
    u = rng.random((50, 8))
    got = draw_on_grid(like, weights, column, u)
    cdf = np.cumsum(like * weights.T[column], axis=-1)
    expected = (cdf < (u * cdf[..., -1])[..., None]).sum(axis=-1).clip(max=200)
    expected[0, 0] = 200
    np.testing.assert_array_equal(got, expected)


def test_grid_draws_follow_their_distribution():
    """10⁵ draws from one known distribution on 5 points: each point's frequency within
    4.5 binomial standard errors of its probability (a family-wise level of about 3e-5)."""
    rng = np.random.default_rng(5)
    p = np.array([0.1, 0.0, 0.4, 0.2, 0.3])
    n = 100_000
    like = np.broadcast_to(p, (n, 1, 5)).copy()
    got = draw_on_grid(like, np.ones((5, 1)), np.zeros((n, 1), dtype=np.int64), rng.random((n, 1)))
    freq = np.bincount(got.ravel(), minlength=5) / n
    se = np.sqrt(p * (1 - p) / n)
    assert (np.abs(freq - p) <= 4.5 * se).all()


def test_the_parallel_grid_kernel_is_the_serial_one_over_threads():
    rng = np.random.default_rng(6)
    ll = np.exp(rng.normal(-5, 2, (40, 6, 201)))  # relative likelihoods
    weights = rng.uniform(0, 1, (201, 3))
    column = rng.integers(0, 3, (40, 6))
    u = rng.random((40, 6))
    np.testing.assert_array_equal(
        draw_on_grid_parallel(ll, weights, column, u), draw_on_grid(ll, weights, column, u)
    )
