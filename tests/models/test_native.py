"""The speed paths agree with what they replace.

* the hand-written calibration log density (``bayesfair.models._calibration_native``)
  against the PyMC model of ``build_calibration_model``: log density, gradient,
  trace expansion, parameter layout and initial points, for every variant;
* the raw-trace conversion of ``bayesfair.sampling`` against nutpie's own;
* the vectorised R-hat / bulk ESS of ``bayesfair.posterior`` against arviz.
"""

import ctypes
import warnings

import numpy as np
import pytest

from bayesfair.models.calibration import (
    VARIANTS,
    CalibrationPriors,
    DiscrepancyPrior,
    build_calibration_model,
    free_log_likelihoods,
    likelihood_data,
    stratum_counts,
)
from bayesfair.summary import summarize_arrays

native = pytest.importorskip("bayesfair.models._calibration_native")
kernels = pytest.importorskip("bayesfair.models._calibration_kernels")

PRIORS = CalibrationPriors(0.3, 0.5, 1.5, 0.2, 0.1, 0.6)
DISCREPANCY = DiscrepancyPrior(0.15, 0.3, 3.5)  # unlike the defaults
CENTER = np.array([[0.2, 0.7], [0.35, 0.9], [0.1, 0.5]])  # of a misfitting stratum's rate


def _data(n=80, k=3, seed=0):
    """A labeled summary of ``n`` random rows in ``k`` groups."""
    rng = np.random.default_rng(seed)
    s = np.clip(rng.uniform(0, 1, n), 0.01, 0.99)
    y = (rng.uniform(0, 1, n) < s).astype(int)
    g = rng.integers(0, k, n)
    return summarize_arrays(s, g, range(k), labels=y)


@pytest.fixture(
    scope="module",
    params=[(v, None) for v in VARIANTS] + [(v, DISCREPANCY) for v in VARIANTS],
    ids=[*VARIANTS, *(f"{v}-rbc" for v in VARIANTS)],
)
def pair(request):
    """(variant, PyMC model, native model with data) on the same data; bc and rbc."""
    variant, disc = request.param
    labeled = _data()
    model = build_calibration_model(
        labeled, variant=variant, priors=PRIORS, discrepancy=disc, center=CENTER
    )
    extra = {}
    if disc is not None:
        extra = {"log_free": free_log_likelihoods(*stratum_counts(labeled), CENTER, disc)}
    nat = native.compile_native_calibration(variant, PRIORS, 3, disc).with_data(
        precondition=False, **likelihood_data(labeled), **extra
    )
    return variant, model, nat


def test_layout_matches_the_pymc_model(pair):
    _, model, nat = pair
    names, _, shapes = nat.shape_info
    assert names == [v.name for v in model.unobserved_value_vars]
    point = model.initial_point()
    free = [v.name for v in model.value_vars]
    assert names[: len(free)] == free
    assert [tuple(s) for s in shapes[: len(free)]] == [point[n].shape for n in free]
    assert nat.n_dim == sum(point[n].size for n in free)


def test_logp_and_gradient_match_pymc(pair):
    _, model, nat = pair
    f = model.logp_dlogp_function(ravel_inputs=True)
    f.set_extra_values({})
    rng = np.random.default_rng(1)
    for scale in (0.3, 1.0, 2.0):
        x = rng.normal(0, scale, nat.n_dim)
        logp, grad = f(x)
        out = np.empty(nat.n_dim)
        value = kernels.calibration_logp_grad(x, out, nat.user_data)
        np.testing.assert_allclose(value, logp, rtol=1e-10, atol=1e-6)
        np.testing.assert_allclose(out, grad, rtol=1e-9, atol=1e-9 * max(1.0, np.abs(grad).max()))


def _call_logp(nat, x, fill=0.0):
    """nutpie's call of the C log density: (return code, logp array, gradient)."""
    out, logp = np.empty(nat.n_dim), np.full(1, fill)
    p = ctypes.POINTER(ctypes.c_double)
    code = nat.compiled_logp_func.ctypes(
        nat.n_dim,
        x.ctypes.data_as(p),
        out.ctypes.data_as(p),
        logp.ctypes.data_as(p),
        ctypes.c_void_p(nat.user_data.ctypes.data),
    )
    return code, logp, out


def test_c_callback_reports_like_nutpie_expects(pair):
    _, model, nat = pair
    f = model.logp_dlogp_function(ravel_inputs=True)
    f.set_extra_values({})
    x = np.full(nat.n_dim, 0.1)
    code, logp, _ = _call_logp(nat, x)
    assert code == 0
    np.testing.assert_allclose(logp[0], f(x)[0], atol=1e-6)


def test_c_callback_refuses_a_point_where_sigma_is_out_of_range(pair):
    """A group scale ``exp(u)`` beyond float range (u = ±400, as a diverging
    trajectory in tuning can reach) makes the callback return a non-zero code
    (nutpie's divergence), not raise inside the C callback: an exception there is
    only printed, and the sampler would read a stale log density."""
    import sys

    _, _, nat = pair
    seen = []
    hook, sys.unraisablehook = sys.unraisablehook, seen.append
    try:
        for u in (400.0, -400.0):
            code, logp, out = _call_logp(nat, np.full(nat.n_dim, u), fill=123.0)
            assert code != 0 or (np.isfinite(logp[0]) and np.all(np.isfinite(out)))
            assert logp[0] != 123.0
    finally:
        sys.unraisablehook = hook
    assert not seen


def test_expansion_matches_pymc(pair):
    _, model, nat = pair
    fn = model.compile_fn(model.unobserved_value_vars, inputs=model.value_vars)
    rng = np.random.default_rng(2)
    point = {k: rng.normal(0, 1, v.shape) for k, v in model.initial_point().items()}
    x = np.concatenate([np.ravel(point[v.name]) for v in model.value_vars])
    expected = np.concatenate([np.ravel(v) for v in fn(point)])
    out = np.empty(nat.n_expanded)
    kernels.calibration_expand(x, out, nat.user_data)
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-14)


def test_initial_points_are_jittered_support_points(pair):
    _, model, nat = pair
    support = np.concatenate([np.ravel(v) for v in model.initial_point().values()])
    draws = np.stack([nat.initial_point_func(seed) for seed in range(50)])
    assert np.all(np.abs(draws - support) <= 1.0)
    assert np.ptp(draws, axis=0).min() > 1.0  # jittered
    np.testing.assert_array_equal(nat.initial_point_func(7), nat.initial_point_func(7))


@pytest.mark.parametrize("disc", [None, DISCREPANCY], ids=["bc", "rbc"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_partial_centring_is_a_change_of_variables(variant, disc):
    """The partially centred coordinates (``preconditioner``) give the same posterior.

    x_w (partially centred, whitened) maps to the PyMC model's x (non-centred,
    z = (θ − mu) / sigma). The densities of a change of variables differ by the log
    Jacobian ``Σ_g [−½ ln det(H_g + diag sigma⁻²) − Σ_v ln sigma_v]``: the expansion
    gives x, so this checks log density, the map and the trace row at random points;
    and the gradient against central differences of the log density. For bc and for
    the robust model, whose θ̂ and H come from its own labeled likelihood.
    """
    labeled = _data(n=3000, k=3, seed=4)  # enough labels that the centring is partial
    fields = likelihood_data(labeled)
    model = build_calibration_model(
        labeled, variant=variant, priors=PRIORS, discrepancy=disc, center=CENTER
    )
    f = model.logp_dlogp_function(ravel_inputs=True)
    f.set_extra_values({})
    if disc is not None:
        fields = {
            **fields,
            "log_free": free_log_likelihoods(*stratum_counts(labeled), CENTER, disc),
        }
    plain = native.compile_native_calibration(variant, PRIORS, 3, disc).with_data(
        precondition=False, **fields
    )
    nat = native.compile_native_calibration(variant, PRIORS, 3, disc).with_data(**fields)
    pre = nat.user_data[-3 * native._PRE :].reshape(3, native._PRE)  # the packed tail
    if disc is None:
        np.testing.assert_array_equal(pre, native.preconditioner(nat.header, fields))
    assert np.all(pre[:, 3] > 0)  # every group's labels inform its map
    info = pre[:, 3:].reshape(-1, 3, 3)
    assert np.all(np.abs(info[:, 0, 1:]) > 0) or variant != "beta"  # correlated: whitened
    rng = np.random.default_rng(3)
    blocks = {"beta": 3, "llo": 2, "temperature": 1}[variant]
    for _ in range(5):
        x = rng.normal(0, 0.7, nat.n_dim)
        row = np.empty(nat.n_expanded)
        kernels.calibration_expand(x, row, nat.user_data)
        x_nc = row[: nat.n_dim]
        sig = np.exp(x[[j * (2 + 3) + 1 for j in range(blocks)]])
        jac = 0.0
        for g in range(3):  # ε ↦ z = (θ − mu) / sigma: L⁻ᵀ / sigma, L Lᵀ = H + diag(sigma⁻²)
            prec = info[g, :blocks, :blocks] + np.diag(sig**-2)
            jac += -0.5 * np.linalg.slogdet(prec)[1] - np.sum(np.log(sig))
        value = kernels.calibration_logp_grad(x, np.empty(nat.n_dim), nat.user_data)
        np.testing.assert_allclose(value, f(x_nc)[0] + jac, rtol=1e-9, atol=1e-6)
        ref = np.empty(plain.n_expanded)
        kernels.calibration_expand(x_nc, ref, plain.user_data)
        np.testing.assert_allclose(row, ref, rtol=1e-9, atol=1e-12)
        grad = np.empty(nat.n_dim)
        kernels.calibration_logp_grad(x, grad, nat.user_data)
        h = 1e-6
        for i in range(nat.n_dim):
            e = np.zeros(nat.n_dim)
            e[i] = h
            up = kernels.calibration_logp_grad(x + e, np.empty(nat.n_dim), nat.user_data)
            down = kernels.calibration_logp_grad(x - e, np.empty(nat.n_dim), nat.user_data)
            np.testing.assert_allclose(grad[i], (up - down) / (2 * h), rtol=1e-5, atol=1e-4)


def test_preconditioner_mode_search_stays_bounded_on_flat_labels():
    """The mode search of the partial centring converges or gives up, never overflows.

    A cubed group of ``miscalibrated_scores`` (seed 10004) once sent undamped
    Newton steps to ln a ≈ 1400 and ``math.exp`` overflowed inside ``fit``. Now
    every group's θ̂ is finite and a stationary point of the penalised labeled
    log likelihood (gradient by central differences ≈ 0), or the group keeps the
    non-centred coordinates (H = 0), which leave the posterior unchanged.
    """
    from bayesfair.simulate import miscalibrated_scores

    lab, _ = miscalibrated_scores(100, 2000, kind="cubed", random_seed=10_004)
    codes = (lab["group"].to_numpy() == "B").astype(int)
    labeled = summarize_arrays(
        lab["score"].to_numpy(), codes, ["A", "B"], labels=lab["label"].to_numpy()
    )
    fields = likelihood_data(labeled)
    # the default priors
    header = native.compile_native_calibration("beta", CalibrationPriors(), 2).header
    pre = native.preconditioner(header, fields)
    assert np.all(np.isfinite(pre))
    s0 = np.hypot(header[3:6], header[6:9])
    for g in range(2):
        if not np.any(pre[g, 3:]):
            continue
        sel = fields["group_idx"] == g

        def value(t, sel=sel):
            return native.group_loglik(fields, sel, t, 0)[0] - 0.5 * np.sum((t / s0) ** 2)

        th = pre[g, :3]
        for j in range(3):
            e = np.zeros(3)
            e[j] = 1e-5
            slope = (value(th + e) - value(th - e)) / 2e-5
            assert abs(slope) < 1e-3, (g, j, slope)


def test_rbc_native_model_needs_the_strata():
    nat = native.compile_native_calibration("beta", PRIORS, 2, DISCREPANCY)
    with pytest.raises(KeyError, match="log_free"):
        nat.with_data(**likelihood_data(_data(k=2)))


def test_raw_trace_conversion_matches_nutpie():
    import nutpie

    from bayesfair.sampling import nutpie_to_idata

    nat = native.compile_native_calibration("beta", CalibrationPriors(), 2).with_data(
        **likelihood_data(_data(k=2))
    )
    kw = dict(draws=60, tune=60, chains=2, cores=1, seed=5, progress_bar=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = nutpie.sample(nat, **kw)
        ours = nutpie_to_idata(nutpie.sample(nat, return_raw_trace=True, **kw), nat)
    for group in ("posterior", "sample_stats"):
        a, b = ref[group], ours[group]
        assert list(a.data_vars) == list(b.data_vars)
        for name in a.data_vars:
            assert a[name].dims == b[name].dims
            assert a[name].dtype == b[name].dtype
            np.testing.assert_array_equal(a[name].values, b[name].values)
        for dim in a.dims:
            np.testing.assert_array_equal(a[dim].values, b[dim].values)


def test_vectorised_diagnostics_match_arviz():
    import arviz as az

    from bayesfair.stats import ess_bulk, rank_rhat, split_chains, z_scale

    rng = np.random.default_rng(3)
    x = rng.normal(size=(4, 400, 6))
    x[:, :, 1] = np.cumsum(x[:, :, 1], axis=1)  # poorly mixed
    x[:, :, 2] = 0.0  # constant: R-hat NaN, ESS = number of draws
    x[0, :, 3] += 1.5  # one chain off
    x[:, :, 4] = np.round(x[:, :, 4])  # ties
    for t in range(1, 400):  # autocorrelated
        x[:, t, 5] = 0.9 * x[:, t - 1, 5] + x[:, t, 5]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r_ref = np.array([az.rhat(x[:, :, j]) for j in range(6)], dtype=float)
        e_ref = np.array([az.ess(x[:, :, j], method="bulk") for j in range(6)], dtype=float)
        np.testing.assert_allclose(rank_rhat(x), r_ref, rtol=1e-10, equal_nan=True)
        np.testing.assert_allclose(ess_bulk(x), e_ref, rtol=1e-10)
        z = z_scale(split_chains(x))  # shared by FairnessPosterior.diagnostics
        np.testing.assert_allclose(rank_rhat(x, z), r_ref, rtol=1e-10, equal_nan=True)
        np.testing.assert_allclose(ess_bulk(x, z), e_ref, rtol=1e-10)
        x[1, 5, 0] = np.nan
        assert np.isnan(rank_rhat(x)[0]) and np.isnan(ess_bulk(x)[0])
        assert np.all(np.isnan(rank_rhat(x[:1])))  # one chain: no R-hat


def test_robust_preconditioner_is_the_robust_likelihoods_mode():
    """The robust model whitens at the mode of its own labeled likelihood.

    A group whose ŷ = 1 side contradicts every calibration map: bc's mode is a
    compromise between the sides, rbc's (the strata's states integrated out)
    follows the side that fits. θ̂ is a stationary point of rbc's penalised labeled
    log likelihood (all groups jointly: the shared state couples them), and it is
    not bc's compromise.
    """
    rng = np.random.default_rng(5)
    n = 1500
    s = np.clip(rng.uniform(0, 1, n), 0.01, 0.99)
    g = rng.integers(0, 2, n)
    y = (rng.uniform(0, 1, n) < s).astype(int)
    flip = (g == 1) & (s >= 0.5)
    y[flip] = (rng.uniform(0, 1, flip.sum()) < 0.1).astype(int)  # inverted above 0.5
    labeled = summarize_arrays(s, g, range(2), labels=y)
    disc = DiscrepancyPrior()
    center = np.full((2, 2), 0.5)
    fields = likelihood_data(labeled)
    log_free = free_log_likelihoods(*stratum_counts(labeled), center, disc)
    nat = native.compile_native_calibration("beta", CalibrationPriors(), 2, disc)
    packed = native.pack_data(nat.header, fields, log_free, precondition=False)
    pre = native.preconditioner(nat.header, fields, packed)
    assert np.all(np.isfinite(pre)) and np.all(pre[:, 3] > 0)
    s0 = np.hypot(nat.header[3:6], nat.header[6:9])

    def value(th):
        t = th.reshape(2, 3)
        abc = np.stack([np.exp(t[:, 0]), np.exp(t[:, 1]), t[:, 2]])[None]
        return kernels.robust_loglik_batch(abc, packed)[0][0] - 0.5 * np.sum((t / s0) ** 2)

    th = pre[:, :3].ravel()
    for j in range(6):
        e = np.zeros(6)
        e[j] = 1e-5
        slope = (value(th + e) - value(th - e)) / 2e-5
        assert abs(slope) < 1e-3 * max(1.0, abs(value(th))), (j, slope)
    bc_pre = native.preconditioner(nat.header, fields)
    assert np.max(np.abs(bc_pre[1, :3] - pre[1, :3])) > 0.1  # not bc's compromise
