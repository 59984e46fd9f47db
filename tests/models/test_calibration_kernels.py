"""bayesfair.models._calibration_kernels: the numba kernels of the beta-calibration log
density, against the PyMC model of ``build_calibration_model`` (the definition).

Log density and gradient, the C callback nutpie calls, the trace expansion, the
partially centred coordinates (a change of variables), and rbc's strata-integrated
likelihood, for every variant, bc and rbc.
"""

import ctypes

import numpy as np
import pytest

from bayesfair.data.summary import summarize_arrays
from bayesfair.models._calibration_kernels import calibration_logp_grad, robust_loglik_batch
from bayesfair.models._calibration_native import (
    compile_native_calibration,
    expand_draws,
    preconditioner,
)
from bayesfair.models.calibration import (
    VARIANTS,
    CalibrationPriors,
    DiscrepancyPrior,
    binned_loglik,
    build_calibration_model,
    entry_predictor,
    free_log_likelihoods,
    likelihood_data,
    stratum_counts,
)

PRIORS = CalibrationPriors(0.3, 0.5, 1.5, 0.2, 0.1, 0.6)
DISCREPANCY = DiscrepancyPrior(0.15, 0.3, 3.5)  # unlike the defaults
CENTER = np.array([[0.2, 0.7], [0.35, 0.9], [0.1, 0.5]])  # of a misfitting stratum's rate
#: A group's row of the preconditioner at the end of the packed data: θ̂ (3), H (3 × 3).
PRE_ROW = 12


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
    nat = compile_native_calibration(variant, PRIORS, 3, disc).with_data(
        precondition=False, **likelihood_data(labeled), **extra
    )
    return variant, model, nat


def test_logp_and_gradient_match_pymc(pair):
    _, model, nat = pair
    f = model.logp_dlogp_function(ravel_inputs=True)
    f.set_extra_values({})
    rng = np.random.default_rng(1)
    for scale in (0.3, 1.0, 2.0):
        x = rng.normal(0, scale, nat.n_dim)
        logp, grad = f(x)
        out = np.empty(nat.n_dim)
        value = calibration_logp_grad(x, out, nat.user_data)
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
    out = expand_draws(x, nat.user_data)[0]
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-14)


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
    plain = compile_native_calibration(variant, PRIORS, 3, disc).with_data(
        precondition=False, **fields
    )
    nat = compile_native_calibration(variant, PRIORS, 3, disc).with_data(**fields)
    pre = nat.user_data[-3 * PRE_ROW :].reshape(3, PRE_ROW)  # the packed tail
    if disc is None:
        np.testing.assert_array_equal(pre, preconditioner(nat.header, fields))
    assert np.all(pre[:, 3] > 0)  # every group's labels inform its map
    info = pre[:, 3:].reshape(-1, 3, 3)
    assert np.all(np.abs(info[:, 0, 1:]) > 0) or variant != "beta"  # correlated: whitened
    rng = np.random.default_rng(3)
    blocks = {"beta": 3, "llo": 2, "temperature": 1}[variant]
    for _ in range(5):
        x = rng.normal(0, 0.7, nat.n_dim)
        row = expand_draws(x, nat.user_data)[0]
        x_nc = row[: nat.n_dim]
        sig = np.exp(x[[j * (2 + 3) + 1 for j in range(blocks)]])
        jac = 0.0
        for g in range(3):  # ε ↦ z = (θ − mu) / sigma: L⁻ᵀ / sigma, L Lᵀ = H + diag(sigma⁻²)
            prec = info[g, :blocks, :blocks] + np.diag(sig**-2)
            jac += -0.5 * np.linalg.slogdet(prec)[1] - np.sum(np.log(sig))
        value = calibration_logp_grad(x, np.empty(nat.n_dim), nat.user_data)
        np.testing.assert_allclose(value, f(x_nc)[0] + jac, rtol=1e-9, atol=1e-6)
        ref = expand_draws(x_nc, plain.user_data)[0]
        np.testing.assert_allclose(row, ref, rtol=1e-9, atol=1e-12)
        grad = np.empty(nat.n_dim)
        calibration_logp_grad(x, grad, nat.user_data)
        h = 1e-6
        for i in range(nat.n_dim):
            e = np.zeros(nat.n_dim)
            e[i] = h
            up = calibration_logp_grad(x + e, np.empty(nat.n_dim), nat.user_data)
            down = calibration_logp_grad(x - e, np.empty(nat.n_dim), nat.user_data)
            np.testing.assert_allclose(grad[i], (up - down) / (2 * h), rtol=1e-5, atol=1e-4)


# ------------------------------------------------------------------ closed forms
def _no_labels(variant, k=2, disc=None):
    """The native model's packed data without any labeled row (the prior alone)."""
    nat = compile_native_calibration(variant, PRIORS, k, disc)
    fields = {name: np.empty(0) for name in likelihood_data(_data(k=k))}
    extra = {"log_free": np.zeros(2 * k + 2)} if disc is not None else {}
    return nat, nat.with_data(precondition=False, **fields, **extra).user_data


@pytest.mark.parametrize("variant", VARIANTS)
def test_without_labels_the_log_density_is_the_non_centred_prior(variant):
    """Per block: mu ~ N(0, s_mu), sigma ~ HalfNormal(s_sigma) in u = ln sigma (with the
    Jacobian sigma), z_g ~ N(0, 1): written out with scipy."""
    from scipy import stats

    k = 3
    nat, data = _no_labels(variant, k)
    scales = {
        "a": (PRIORS.mu_a_sd, PRIORS.sigma_a_sd),
        "b": (PRIORS.mu_b_sd, PRIORS.sigma_b_sd),
        "c": (PRIORS.mu_c_sd, PRIORS.sigma_c_sd),
    }
    blocks = {"beta": "abc", "llo": "ac", "temperature": "a"}[variant]
    x = np.random.default_rng(5).normal(0, 0.8, nat.n_dim)
    expected = 0.0
    for j, letter in enumerate(blocks):
        mu, u, z = x[j * (2 + k)], x[j * (2 + k) + 1], x[j * (2 + k) + 2 : (j + 1) * (2 + k)]
        sd_mu, sd_sigma = scales[letter]
        expected += stats.norm(0, sd_mu).logpdf(mu)
        expected += stats.halfnorm(scale=sd_sigma).logpdf(np.exp(u)) + u
        expected += stats.norm.logpdf(z).sum()
    grad = np.empty(nat.n_dim)
    assert calibration_logp_grad(x, grad, data) == pytest.approx(expected, rel=1e-12)
    # the gradient: d/dz = −z, d/dmu = −mu / s_mu², d/du = 1 − (sigma / s_sigma)²
    for j, letter in enumerate(blocks):
        s = j * (2 + k)
        sd_mu, sd_sigma = scales[letter]
        assert grad[s] == pytest.approx(-x[s] / sd_mu**2)
        assert grad[s + 1] == pytest.approx(1 - (np.exp(x[s + 1]) / sd_sigma) ** 2)
        np.testing.assert_allclose(grad[s + 2 : s + 2 + k], -x[s + 2 : s + 2 + k])


@pytest.mark.parametrize("variant", VARIANTS)
def test_without_labels_the_trace_row_is_the_maps_of_the_prior(variant):
    """a = exp(mu_a + sigma_a z_a) (b likewise, or a; c = mu_c + sigma_c z_c, or 0), after
    the free variables and the sigmas."""
    k = 2
    nat, data = _no_labels(variant, k)
    x = np.random.default_rng(6).normal(0, 0.5, nat.n_dim)
    out = expand_draws(x, data)[0]
    blocks = {"beta": "abc", "llo": "ac", "temperature": "a"}[variant]
    theta = {}
    for j, letter in enumerate(blocks):
        mu, sigma = x[j * (2 + k)], np.exp(x[j * (2 + k) + 1])
        theta[letter] = mu + sigma * x[j * (2 + k) + 2 : (j + 1) * (2 + k)]
        assert out[nat.n_dim + j] == pytest.approx(sigma)
    np.testing.assert_array_equal(out[: nat.n_dim], x)
    a = np.exp(theta["a"])
    b = np.exp(theta["b"]) if "b" in theta else a
    c = theta.get("c", np.zeros(k))
    tail = out[nat.n_dim + len(blocks) :]
    np.testing.assert_allclose(tail, np.concatenate([a, b, c]), rtol=1e-12)


def _random_maps(rng, n: int, k: int) -> np.ndarray:
    """``n`` random maps of ``k`` groups, shape (n, 3, k): a, b, c."""
    a, b = np.exp(rng.normal(0, 0.3, (n, k))), np.exp(rng.normal(0, 0.3, (n, k)))
    return np.stack([a, b, rng.normal(0, 1, (n, k))], axis=1)


def _rbc_loglik(fields, log_free, abc) -> np.ndarray:
    """rbc's labeled log likelihood written out from the entries' binned log likelihoods
    and the strata's own-rate marginals: per side, the shared state or each stratum's
    map-or-own mixture."""
    k = abc.shape[2]
    entries = binned_loglik(fields, abc[:, 0], abc[:, 1], abc[:, 2])  # (draws, entries)
    stratum = fields["group_idx"] * 2 + fields["side"]
    ll_map = np.stack([entries[:, stratum == j].sum(axis=1) for j in range(2 * k)], axis=1)
    pg, ps = DISCREPANCY.prior_misfit, DISCREPANCY.shared_prior_misfit
    inner = np.logaddexp(np.log1p(-pg) + ll_map, np.log(pg) + log_free[: 2 * k])
    return sum(
        np.logaddexp(np.log1p(-ps) + inner[:, h::2].sum(axis=1), np.log(ps) + log_free[2 * k + h])
        for h in range(2)
    )


def test_robust_loglik_batch_integrates_the_strata_s_states():
    """rbc's labeled log likelihood at (a, b, c), written out from the entries' binned log
    likelihoods and the strata's own-rate marginals: per side, the shared state or each
    stratum's map-or-own mixture; and its gradient against central differences."""
    k = 3
    labeled = _data(n=300, k=k, seed=7)
    fields = likelihood_data(labeled)
    log_free = free_log_likelihoods(*stratum_counts(labeled), CENTER, DISCREPANCY)
    nat = compile_native_calibration("beta", PRIORS, k, DISCREPANCY)
    data = nat.with_data(precondition=False, **fields, log_free=log_free).user_data
    abc = _random_maps(np.random.default_rng(8), 4, k)
    value, grad = robust_loglik_batch(abc, data)
    np.testing.assert_allclose(value, _rbc_loglik(fields, log_free, abc), rtol=1e-12)
    step = 1e-6
    for i in range(3):
        for g in range(k):
            e = np.zeros_like(abc)
            e[:, i, g] = step
            numeric = (
                robust_loglik_batch(abc + e, data)[0] - robust_loglik_batch(abc - e, data)[0]
            ) / (2 * step)
            np.testing.assert_allclose(grad[:, i, g], numeric, rtol=1e-5, atol=1e-5)


def test_rbc_s_strata_over_many_groups_pass_the_product_s_cap():
    """rbc adds its groups' ``log(1 + e)`` terms per side as one logarithm of their
    product, taken into the sum whenever it passes 1e300: with 5,000 groups it does
    (checked below), and the likelihood is still the written-out one."""
    k = 5000
    labeled = _data(n=4 * k, k=k, seed=11)
    fields = likelihood_data(labeled)
    log_free = free_log_likelihoods(*stratum_counts(labeled), CENTER[:1].repeat(k, 0), DISCREPANCY)
    nat = compile_native_calibration("beta", PRIORS, k, DISCREPANCY)
    data = nat.with_data(precondition=False, **fields, log_free=log_free).user_data
    abc = _random_maps(np.random.default_rng(12), 2, k)
    expected = _rbc_loglik(fields, log_free, abc)
    # the groups' log(1 + e) terms of a side: e = exp(−|follows − free|) per stratum
    entries = binned_loglik(fields, abc[:, 0], abc[:, 1], abc[:, 2])
    stratum = fields["group_idx"] * 2 + fields["side"]
    ll_map = np.stack([entries[:, stratum == j].sum(axis=1) for j in range(2 * k)], axis=1)
    pg = DISCREPANCY.prior_misfit
    gap = np.log1p(-pg) + ll_map - (np.log(pg) + log_free[: 2 * k])
    terms = np.log1p(np.exp(-np.abs(gap)))
    assert min(terms[:, h::2].sum(axis=1).min() for h in range(2)) > np.log(1e300) + np.log(2)
    np.testing.assert_allclose(robust_loglik_batch(abc, data)[0], expected, rtol=1e-12)


#: An entry's count in each case of the test below: as drawn; 64 rows each (whole, the
#: largest multiplied in, so many that a stratum's product passes its cap); over 64
#: rows; fractional (weighted rows).
COUNT_CASES = {
    "as-drawn": lambda n: n,
    "64-rows-each-past-the-product-cap": lambda n: np.full_like(n, 64.0),
    "over-64-rows": lambda n: 40.0 * n,
    "fractional": lambda n: 1.37 * n,
}


@pytest.mark.parametrize("case", COUNT_CASES)
def test_the_entries_log_terms_in_one_logarithm_keep_every_count(case):
    """The entries' ``− n log(1 + e)`` enter as one logarithm of a running product of
    ``(1 + e)ⁿ`` for whole counts up to 64 (taken into the logarithm when it passes
    1e250), and one by one otherwise: the log density is the entries' binned log
    likelihoods summed (bc) and integrated per stratum (rbc), whatever the counts."""
    k = 3
    labeled = _data(n=600, k=k, seed=7)
    fields = likelihood_data(labeled)
    if case.startswith("64"):  # each entry thrice: more rows per stratum than binning gives
        fields = {f: np.tile(v, 3) for f, v in fields.items()}
    count = COUNT_CASES[case](fields["count"])
    share = fields["positives"] / fields["count"]
    fields = {**fields, "count": count, "positives": np.round(share * count, 2)}
    rng = np.random.default_rng(9)
    abc = _random_maps(rng, 3, k)
    stratum = fields["group_idx"] * 2 + fields["side"]
    if case.startswith("64"):  # the cap is passed on the way in some stratum
        eta = entry_predictor(fields, abc[:, 0], abc[:, 1], abc[:, 2])[0]
        terms = fields["count"] * np.log1p(np.exp(-np.abs(eta)))
        by_stratum = np.stack([terms[:, stratum == j].sum(axis=1) for j in range(2 * k)])
        assert by_stratum.max() > np.log(1e250) + 64 * np.log(2)
    log_free = free_log_likelihoods(*stratum_counts(labeled), CENTER, DISCREPANCY)
    rbc = compile_native_calibration("beta", PRIORS, k, DISCREPANCY)
    data = rbc.with_data(precondition=False, **fields, log_free=log_free).user_data
    expected = _rbc_loglik(fields, log_free, abc)
    np.testing.assert_allclose(robust_loglik_batch(abc, data)[0], expected, rtol=1e-12)
    # bc: the log density at one point with these labels and with none (the prior's
    # terms cancel) against the entries' binned log likelihoods at that point's maps
    bc = compile_native_calibration("beta", PRIORS, k)
    none = {f: 0.0 * v if f in _LABEL_SUMS else v for f, v in fields.items()}
    x = rng.normal(0, 0.3, bc.n_dim)
    with_labels, without = (
        calibration_logp_grad(
            x, np.empty(bc.n_dim), bc.with_data(precondition=False, **f).user_data
        )
        for f in (fields, none)
    )
    row = expand_draws(x, bc.with_data(precondition=False, **fields).user_data)[0]
    a, b, c = (row[-3 * k :][i * k : (i + 1) * k][None] for i in range(3))
    total = binned_loglik(fields, a, b, c).sum()
    np.testing.assert_allclose(with_labels - without, total, rtol=1e-11, atol=1e-9)


#: The labeled fields that hold counts of rows or sums over them (zero: no labels).
_LABEL_SUMS = ("count", "positives", "pos_sum_log_s", "pos_sum_log_1ms")
