"""bayesfair.models._calibration_native: the hand-written calibration density as a nutpie
model (layout, initial points, packed data) and its partial centring (the
preconditioner), against the PyMC model of ``build_calibration_model``."""

import numpy as np
import pytest

from bayesfair.data.summary import summarize_arrays
from bayesfair.models._calibration_kernels import robust_loglik_batch
from bayesfair.models._calibration_native import (
    NativeCalibrationModel,
    compile_native_calibration,
    expand_draws,
    group_loglik,
    pack_data,
    preconditioner,
)
from bayesfair.models.calibration import (
    VARIANTS,
    CalibrationPriors,
    DiscrepancyPrior,
    build_calibration_model,
    free_log_likelihoods,
    likelihood_data,
    stratum_counts,
)

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
    nat = compile_native_calibration(variant, PRIORS, 3, disc).with_data(
        precondition=False, **likelihood_data(labeled), **extra
    )
    return variant, model, nat


def test_layout_matches_the_pymc_model(pair):
    _, model, nat = pair
    names = [name for name, _ in nat.trace_layout]
    shapes = [shape for _, shape in nat.trace_layout]
    assert names == [v.name for v in model.unobserved_value_vars]
    point = model.initial_point()
    free = [v.name for v in model.value_vars]
    assert names[: len(free)] == free
    assert [tuple(s) for s in shapes[: len(free)]] == [point[n].shape for n in free]
    assert nat.n_dim == sum(point[n].size for n in free)
    # nutpie stores the free point; complete_posterior adds the deterministics
    assert nat.shape_info[0] == free and nat.n_expanded == nat.n_dim


@pytest.mark.parametrize("variant", VARIANTS)
def test_complete_posterior_adds_each_draw_s_trace_row(variant):
    """nutpie stores the free points (ε for a partially centred group); the completed
    posterior holds z = (θ − mu) / sigma and the deterministics of each draw, row by
    row what expand_draws gives, with the group dimension and the other groups kept."""
    import xarray as xr

    from bayesfair._internal.tree import get_group, make_tree

    nat = compile_native_calibration(variant, PRIORS, 3).with_data(**likelihood_data(_data(n=600)))
    assert np.any(nat.user_data[-12:] != 0)  # partially centred: z is not the stored ε
    x = np.random.default_rng(1).normal(0, 0.5, (2, 5, nat.n_dim))  # (chain, draw, dim)
    names, slices, shapes = nat.shape_info
    stored = {}
    for name, sl, shape in zip(names, slices, shapes, strict=True):
        values = x[:, :, sl].reshape(2, 5, *shape)  # a scalar's shape is ()
        stored[name] = (("chain", "draw", *nat.dims.get(name, ())), values)
    stats = xr.Dataset({"diverging": (("chain", "draw"), np.zeros((2, 5), bool))})
    tree = make_tree({"posterior": xr.Dataset(stored), "sample_stats": stats})
    done = nat.complete_posterior(tree)
    post = get_group(done, "posterior")
    assert list(post.data_vars) == [name for name, _ in nat.trace_layout]
    assert post["a"].dims == ("chain", "draw", "group")
    expected = expand_draws(x.reshape(10, -1), nat.user_data)
    flat = np.concatenate([post[n].values.reshape(10, -1) for n in post.data_vars], axis=1)
    np.testing.assert_array_equal(flat, expected)
    assert not np.allclose(post["z_a"].values, stored["z_a"][1])  # z rewritten from ε
    assert "sample_stats" in done.children


def test_a_row_that_is_not_a_point_expands_to_nan_and_the_others_as_alone():
    nat = compile_native_calibration("beta", PRIORS, 3).with_data(**likelihood_data(_data()))
    x = np.random.default_rng(2).normal(0, 0.5, (3, nat.n_dim))
    x[1, 4] = np.nan
    rows = expand_draws(x, nat.user_data)
    assert np.isnan(rows[1]).all() and rows.shape == (3, len(expand_draws(x[0], nat.user_data)[0]))
    np.testing.assert_array_equal(rows[[0, 2]], expand_draws(x[[0, 2]], nat.user_data))


def test_initial_points_are_jittered_support_points(pair):
    _, model, nat = pair
    support = np.concatenate([np.ravel(v) for v in model.initial_point().values()])
    draws = np.stack([nat.initial_point_func(seed) for seed in range(50)])
    assert np.all(np.abs(draws - support) <= 1.0)
    assert np.ptp(draws, axis=0).min() > 1.0  # jittered
    np.testing.assert_array_equal(nat.initial_point_func(7), nat.initial_point_func(7))


def test_preconditioner_mode_search_stays_bounded_on_flat_labels():
    """The mode search of the partial centring converges or gives up, never overflows.

    A cubed group of ``miscalibrated_scores`` (seed 10004) once sent undamped
    Newton steps to ln a ≈ 1400 and ``math.exp`` overflowed inside ``fit``. Now
    every group's θ̂ is finite and a stationary point of the penalised labeled
    log likelihood (gradient by central differences ≈ 0), or the group keeps the
    non-centred coordinates (H = 0), which leave the posterior unchanged.
    """
    from bayesfair.datasets.simulate import miscalibrated_scores

    lab, _ = miscalibrated_scores(100, 2000, kind="cubed", random_seed=10_004)
    codes = (lab["group"].to_numpy() == "B").astype(int)
    labeled = summarize_arrays(
        lab["score"].to_numpy(), codes, ["A", "B"], labels=lab["label"].to_numpy()
    )
    fields = likelihood_data(labeled)
    # the default priors
    header = compile_native_calibration("beta", CalibrationPriors(), 2).header
    pre = preconditioner(header, fields)
    assert np.all(np.isfinite(pre))
    s0 = np.hypot(header[3:6], header[6:9])
    for g in range(2):
        if not np.any(pre[g, 3:]):
            continue
        sel = fields["group_idx"] == g

        def value(t, sel=sel):
            return group_loglik(fields, sel, t, 0)[0] - 0.5 * np.sum((t / s0) ** 2)

        th = pre[g, :3]
        for j in range(3):
            e = np.zeros(3)
            e[j] = 1e-5
            slope = (value(th + e) - value(th - e)) / 2e-5
            assert abs(slope) < 1e-3, (g, j, slope)


def test_rbc_native_model_needs_the_strata():
    nat = compile_native_calibration("beta", PRIORS, 2, DISCREPANCY)
    with pytest.raises(KeyError, match="log_free"):
        nat.with_data(**likelihood_data(_data(k=2)))


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
    nat = compile_native_calibration("beta", CalibrationPriors(), 2, disc)
    packed = pack_data(nat.header, fields, log_free, precondition=False)
    pre = preconditioner(nat.header, fields, packed)
    assert np.all(np.isfinite(pre)) and np.all(pre[:, 3] > 0)
    s0 = np.hypot(nat.header[3:6], nat.header[6:9])

    def value(th):
        t = th.reshape(2, 3)
        abc = np.stack([np.exp(t[:, 0]), np.exp(t[:, 1]), t[:, 2]])[None]
        return robust_loglik_batch(abc, packed)[0][0] - 0.5 * np.sum((t / s0) ** 2)

    th = pre[:, :3].ravel()
    for j in range(6):
        e = np.zeros(6)
        e[j] = 1e-5
        slope = (value(th + e) - value(th - e)) / 2e-5
        assert abs(slope) < 1e-3 * max(1.0, abs(value(th))), (j, slope)
    bc_pre = preconditioner(nat.header, fields)
    assert np.max(np.abs(bc_pre[1, :3] - pre[1, :3])) > 0.1  # not bc's compromise


# ------------------------------------------------------------------ the model record
@pytest.mark.parametrize(("variant", "blocks"), [("beta", 3), ("llo", 2), ("temperature", 1)])
def test_the_model_s_dimensions_and_header(variant, blocks):
    k = 4
    nat = compile_native_calibration(variant, PRIORS, k)
    assert isinstance(nat, NativeCalibrationModel)
    assert nat.n_dim == blocks * (2 + k)
    names = [name for name, _ in nat.trace_layout]
    assert len(names) == 3 * blocks + blocks + 3  # mu, log sigma, z; the sigmas; a, b, c
    assert names[-3:] == ["a", "b", "c"] and names[0] == "mu_a" and names[1] == "sigma_a_log__"
    header = nat.header
    assert header[1] == k and header[9] == 0.0  # no discrepancy: bc
    np.testing.assert_array_equal(header[3:9], [0.3, 0.5, 1.5, 0.2, 0.1, 0.6])
    robust = compile_native_calibration(variant, PRIORS, k, DISCREPANCY).header
    assert tuple(robust[9:12]) == (1.0, 0.15, 0.3)


def test_packed_data_layout_and_its_checks():
    k = 3
    labeled = _data(n=120, k=k, seed=2)
    fields = likelihood_data(labeled)
    n = fields["count"].size
    header = compile_native_calibration("beta", PRIORS, k).header
    packed = pack_data(header, fields)
    assert packed.size == 12 + 11 * n + 12 * k
    assert packed[0] == n and not packed.flags.writeable
    np.testing.assert_array_equal(packed[12 + 2 * n : 12 + 3 * n], fields["count"])
    plain = pack_data(header, fields, precondition=False)
    assert not plain[-12 * k :].any()  # every group non-centred
    np.testing.assert_array_equal(packed[-12 * k :], preconditioner(header, fields).ravel())
    with pytest.raises(ValueError, match="log_free is needed exactly for the robust model"):
        pack_data(header, fields, log_free=np.zeros(2 * k + 2))
    with pytest.raises(ValueError, match=r"'positives' must have shape"):
        pack_data(header, {**fields, "positives": fields["positives"][:-1]})
    robust = compile_native_calibration("beta", PRIORS, k, DISCREPANCY).header
    log_free = free_log_likelihoods(*stratum_counts(labeled), CENTER, DISCREPANCY)
    assert pack_data(robust, fields, log_free).size == 12 + 11 * n + 2 * k + 2 + 12 * k
    with pytest.raises(ValueError, match="log_free is needed"):
        pack_data(robust, fields)


def test_with_data_needs_exactly_the_likelihood_s_fields():
    nat = compile_native_calibration("beta", PRIORS, 2)
    fields = likelihood_data(_data(k=2))
    ready = nat.with_data(**fields)
    assert ready.user_data[0] == fields["count"].size and nat.user_data[0] == 0
    missing = {k: v for k, v in fields.items() if k != "cov_log"}
    with pytest.raises(KeyError, match=r"missing \['cov_log'\]"):
        nat.with_data(**missing)
    with pytest.raises(KeyError, match="with_data needs"):
        nat.with_data(**fields, log_free=np.zeros(6))


@pytest.mark.parametrize(("variant", "code"), [("beta", 0), ("llo", 1), ("temperature", 2)])
def test_group_loglik_is_the_group_s_binned_log_likelihood(variant, code):
    from bayesfair.models.likelihood import binned_loglik

    fields = likelihood_data(_data(n=200, k=2, seed=9))
    sel = fields["group_idx"] == 1
    theta = np.array([0.2, -0.3, 0.5])[: {0: 3, 1: 2, 2: 1}[code]]
    a = np.exp(theta[0])
    b = np.exp(theta[1]) if code == 0 else a
    c = theta[-1] if code != 2 else 0.0
    ll, grad = group_loglik(fields, sel, theta, code)
    per_entry = binned_loglik(
        fields, np.array([[1.0, a]]), np.array([[1.0, b]]), np.array([[0.0, c]])
    )
    assert ll == pytest.approx(per_entry[0, sel].sum(), rel=1e-12)
    step = 1e-6
    for j in range(theta.size):
        e = np.zeros_like(theta)
        e[j] = step
        numeric = (
            group_loglik(fields, sel, theta + e, code)[0]
            - group_loglik(fields, sel, theta - e, code)[0]
        ) / (2 * step)
        assert grad[j] == pytest.approx(numeric, rel=1e-5, abs=1e-6), (variant, j)


def test_a_group_without_labels_stays_non_centred():
    s = np.array([0.2, 0.8, 0.6, 0.3] * 25)
    y = (np.arange(100) % 3 == 0).astype(int)
    labeled = summarize_arrays(s, np.zeros(100, dtype=int), range(2), labels=y)  # group 1 empty
    header = compile_native_calibration("beta", PRIORS, 2).header
    pre = preconditioner(header, likelihood_data(labeled))
    assert pre.shape == (2, 12)
    assert np.any(pre[0]) and not np.any(pre[1])
