"""The beta-calibration model's log density, hand-written for nutpie (private).

:func:`bayesfair.models.calibration.build_calibration_model` is the
definition of the model. Compiling that PyMC model for nutpie costs ~10–60 s in
every new process (nutpie's numba wrapper around the PyTensor graph cannot be
cached on disk) and the compiled log density costs ~15–30 µs per gradient at
n_L = 100. This module writes the same log density and its gradient by hand as
two numba C callbacks (``cache=True``: compiled once per machine, loaded from
numba's disk cache in well under a second afterwards), and hands them to nutpie
as a :class:`nutpie.compile_pymc.CompiledPyMCModel`, so that nutpie samples it
exactly like the compiled PyMC model: same unconstrained parameters in the same
order (``mu_a, sigma_a_log__, z_a, mu_b, ...``), same deterministics
(``sigma_*, a, b, c``), same log density including PyMC's normalising constants,
same initial points (support point + U(−1, 1) jitter), same trace layout.
``tests/test_native.py`` checks log density, gradient and expansion against the
PyMC model for all variants.

The data (the labeled summary's cells, :func:`~bayesfair.models.calibration.
likelihood_data`; the variant and the prior scales; rbc's strata terms; the
partial centring) live in one float64 array passed to the callbacks as nutpie's
``user_data`` pointer, so one compiled pair of functions serves every variant,
prior, number of groups and labeled set.

**Coordinates.** Unlike the PyMC model, which is non-centred, each group's map
parameters are sampled partially centred and whitened, ``θ_g = m_g + L_g⁻ᵀ ε_g``
with ``P_g = H_g + diag(λ) = L_g L_gᵀ``, ``m_g = P_g⁻¹ (H_g θ̂_g + λ ∘ mu)``,
``λ = 1 / sigma²`` (:func:`preconditioner`): the same posterior in coordinates
where NUTS' step count does not grow with the labels. The log density includes
the change of variables' Jacobian (``−Σ ln L_ii`` per group), and the trace row
writes ``z = (θ − mu) / sigma``, so the trace means what the PyMC model's does
(``tests/test_native.py`` checks both). ``with_data(precondition=False)`` gives
the PyMC model's coordinates exactly.

This relies on nutpie's ``CompiledPyMCModel`` layout (nutpie 0.16);
:mod:`bayesfair.sampling` falls back to compiling the PyMC model when anything
here fails.
"""

from __future__ import annotations

import dataclasses
import math

import numba
import numpy as np
from nutpie.compile_pymc import CompiledPyMCModel

from bayesfair.models.likelihood import LIKELIHOOD_FIELDS

__all__ = ["NativeCalibrationModel", "compile_native_calibration"]

_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
_LOG2 = math.log(2.0)
# entries of the labeled summary, n_groups, variant code, the six prior scales, then the
# robust model (rbc): 1.0 when present, and the prior misfit probabilities (group, shared).
_HEADER = 12
# Arrays of the labeled likelihood per entry (models.likelihood.LIKELIHOOD_FIELDS), each of
# length n after the header: group, side, count, positives, mean ln c, mean ln(1 - c), their
# sums over the positives, their variances and covariance.
_FIELDS = len(LIKELIHOOD_FIELDS)
_VARIANT_CODE = {"beta": 0, "llo": 1, "temperature": 2}
# The partial centring, per group (module docstring): the labels' mode θ̂ (3) and their
# information matrix H about the group's map parameters (3 x 3, row-major); the first d
# entries of θ̂ and the leading d x d block of H are used.
_PRE = 12

_LOGP_SIG = numba.types.int64(
    numba.types.uint64,
    numba.types.CPointer(numba.types.double),
    numba.types.CPointer(numba.types.double),
    numba.types.CPointer(numba.types.double),
    numba.types.voidptr,
)
_EXPAND_SIG = numba.types.int64(
    numba.types.uint64,
    numba.types.uint64,
    numba.types.CPointer(numba.types.double),
    numba.types.CPointer(numba.types.double),
    numba.types.voidptr,
)


@numba.njit(cache=True, error_model="numpy")
def _logaddexp(u, v):
    hi = max(u, v)
    return hi + math.log1p(math.exp(-abs(u - v)))


@numba.njit(cache=True, inline="always", error_model="numpy")
def _entry_loglik(data, n, i, a, b, c):
    """Entry ``i``'s labeled log likelihood and its derivatives in (a_g, b_g, c_g), and g.

    ``Σ y η − n [softplus(η̄) + ½ σ(η̄)(1 − σ(η̄)) Var(η)]`` over the entry's rows
    (:func:`bayesfair.models.likelihood.binned_loglik`).
    """
    base = _HEADER
    g = int(data[base + i])
    cnt = data[base + 2 * n + i]
    pos = data[base + 3 * n + i]
    m1 = data[base + 4 * n + i]
    m2 = data[base + 5 * n + i]
    ps1 = data[base + 6 * n + i]
    ps2 = data[base + 7 * n + i]
    v1 = data[base + 8 * n + i]
    v2 = data[base + 9 * n + i]
    cv = data[base + 10 * n + i]
    aa, bb, cc = a[g], b[g], c[g]
    eta = cc + aa * m1 - bb * m2
    v_eta = aa * aa * v1 + bb * bb * v2 - 2.0 * aa * bb * cv
    e = math.exp(-abs(eta))
    softplus = max(eta, 0.0) + math.log1p(e)
    p = 1.0 / (1.0 + e) if eta >= 0.0 else e / (1.0 + e)
    q = p * (1.0 - p)
    ll = cc * pos + aa * ps1 - bb * ps2 - cnt * (softplus + 0.5 * q * v_eta)
    d = p + 0.5 * q * (1.0 - 2.0 * p) * v_eta
    d_c = pos - cnt * d
    d_a = ps1 - cnt * (d * m1 + q * (aa * v1 - bb * cv))
    d_b = -ps2 + cnt * (d * m2 - q * (bb * v2 - aa * cv))
    return ll, d_a, d_b, d_c, g


@numba.njit(cache=True, error_model="numpy")
def _robust_loglik(data, n, k, a, b, c, d_a, d_b, d_c, scratch):
    """rbc's labeled log likelihood, the strata's states (map or own rate) integrated out.

    Per side h: logaddexp(log(1 − π_s) + Σ_g logaddexp(log(1 − π_g) + log L_map[g, h],
    log π_g + log L_free[g, h]), log π_s + Σ_g log L_free[g, h]), where L_free is the
    stratum's Beta-binomial marginal likelihood (data, not a parameter). Adds
    d logp / d(a, b, c) into ``d_a, d_b, d_c``: each entry's map gradient weighted by
    the posterior probability that its stratum follows the map. ``scratch``: at least
    ``4 k + 3 n`` floats of work space (no allocation per gradient).
    """
    pg = data[10]
    ps = data[11]
    side = data[_HEADER + n : _HEADER + 2 * n]
    start = _HEADER + _FIELDS * n
    log_free = data[start : start + 2 * k]
    log_shared = data[start + 2 * k : start + 2 * k + 2]
    m = 2 * k
    ll_map = scratch[:m]
    ll_map[:] = 0.0
    w_map = scratch[m : 2 * m]  # P(stratum follows the map | θ, y)
    w_map[:] = 0.0
    grads = scratch[2 * m : 2 * m + 3 * n].reshape((n, 3))
    for i in range(n):
        ll, ga, gb, gc, g = _entry_loglik(data, n, i, a, b, c)
        ll_map[g * 2 + int(side[i])] += ll
        grads[i, 0] = ga
        grads[i, 1] = gb
        grads[i, 2] = gc
    lpg, l1pg = math.log(pg), math.log1p(-pg)
    lps, l1ps = math.log(ps), math.log1p(-ps)
    logp = 0.0
    for h in range(2):
        v0 = l1ps
        v1 = lps + log_shared[h]
        for g in range(k):
            st = g * 2 + h
            v0 += _logaddexp(l1pg + ll_map[st], lpg + log_free[st])
        outer = _logaddexp(v0, v1)
        logp += outer
        p_not_shared = math.exp(v0 - outer)
        for g in range(k):
            st = g * 2 + h
            inner = _logaddexp(l1pg + ll_map[st], lpg + log_free[st])
            w_map[st] = p_not_shared * math.exp(l1pg + ll_map[st] - inner)
    for i in range(n):
        g = int(data[_HEADER + i])
        w = w_map[g * 2 + int(side[i])]
        d_a[g] += w * grads[i, 0]
        d_b[g] += w * grads[i, 1]
        d_c[g] += w * grads[i, 2]
    return logp


@numba.njit(cache=True, inline="always", error_model="numpy")
def _blocks(k, variant):
    """Start of each active block (mu, log sigma, z[k]) in x: a[, b][, c]."""
    if variant == 0:
        return np.array([0, 2 + k, 4 + 2 * k])
    if variant == 1:
        return np.array([0, 2 + k])
    return np.array([0])


@numba.njit(cache=True, inline="always", error_model="numpy")
def _scales(data, variant, j):
    """Prior sds of block j's mu and sigma (blocks a, b, c; llo has a, c)."""
    v = 2 if variant == 1 and j == 1 else j
    return data[3 + v], data[6 + v]


@numba.njit(cache=True, inline="always", error_model="numpy")
def _pre_start(data, n, k):
    """Where the preconditioner's region begins in ``data`` (after log_free, if any)."""
    return _HEADER + _FIELDS * n + (2 * k + 2 if data[9] > 0.5 else 0)


@numba.njit(cache=True, inline="always", error_model="numpy")
def _whiten(data, pre, g, d, mu, lam, eps, chol, mean, theta):
    """Group g's map parameters θ from (mu, λ = 1/sigma², ε), partially centred.

    ``θ = m + L⁻ᵀ ε`` with ``P = H + diag(λ) = L Lᵀ`` and ``m = P⁻¹ (H θ̂ + λ ∘ mu)``
    (module docstring): the mean and Cholesky factor of θ's conditional posterior
    had the labels' likelihood been Gaussian with mode θ̂ and information H. Writes
    L into ``chol``, m into ``mean`` and θ into ``theta`` (the first d entries);
    returns ``−Σ ln L_ii``, the log Jacobian of ε ↦ θ.
    """
    base = pre + _PRE * g
    for i in range(d):
        for j in range(i + 1):
            v = data[base + 3 + 3 * i + j] + (lam[i] if i == j else 0.0)
            for t in range(j):
                v -= chol[i, t] * chol[j, t]
            chol[i, j] = math.sqrt(v) if i == j else v / chol[j, j]
    # m: solve L y = H θ̂ + λ mu, then Lᵀ m = y
    for i in range(d):
        v = lam[i] * mu[i]
        for j in range(d):
            v += data[base + 3 + 3 * i + j] * data[base + j]
        for t in range(i):
            v -= chol[i, t] * mean[t]
        mean[i] = v / chol[i, i]
    _back(chol, mean, d)
    # θ = m + L⁻ᵀ ε
    for i in range(d):
        theta[i] = eps[i]
    _back(chol, theta, d)
    log_jac = 0.0
    for i in range(d):
        theta[i] += mean[i]
        log_jac -= math.log(chol[i, i])
    return log_jac


@numba.njit(cache=True, inline="always", error_model="numpy")
def _back(chol, v, d):
    """``v ← L⁻ᵀ v`` in place (back substitution with the lower factor's transpose)."""
    for i in range(d - 1, -1, -1):
        w = v[i]
        for t in range(i + 1, d):
            w -= chol[t, i] * v[t]
        v[i] = w / chol[i, i]


@numba.njit(cache=True, inline="always", error_model="numpy")
def _forward(chol, v, d):
    """``v ← L⁻¹ v`` in place (forward substitution)."""
    for i in range(d):
        w = v[i]
        for t in range(i):
            w -= chol[i, t] * v[t]
        v[i] = w / chol[i, i]


@numba.njit(cache=True, error_model="numpy")
def _group_values(x, data, n, k, variant, theta, chol, mean, small):
    """The groups' map parameters θ (ln a[, ln b][, c] per active block) into ``theta``
    (shape (3, k)), and the log prior of x: each block's hyperpriors, θ_g ~ N(mu, sigma)
    and the Jacobian of θ's partial centring (module docstring). Each group's Cholesky
    factor and conditional mean go to ``chol`` (k, 3, 3) and ``mean`` (k, 3); ``small``
    is work space of 12 floats."""
    starts = _blocks(k, variant)
    d = starts.size
    pre = _pre_start(data, n, k)
    mu = small[0:3]
    lam = small[3:6]
    eps = small[6:9]
    th = small[9:12]
    lp = 0.0
    for j in range(d):
        s = starts[j]
        sd_mu, sd_sig = _scales(data, variant, j)
        mu[j] = x[s]
        u = x[s + 1]
        sig = math.exp(u)
        lam[j] = math.exp(-2.0 * u)
        lp += -0.5 * (mu[j] / sd_mu) ** 2 - math.log(sd_mu) - _HALF_LOG_2PI
        lp += _LOG2 - _HALF_LOG_2PI - math.log(sd_sig) - 0.5 * (sig / sd_sig) ** 2 + u
        lp -= k * (u + _HALF_LOG_2PI)  # the groups' N(mu, sigma) normalising constants
    for g in range(k):
        for j in range(d):
            eps[j] = x[starts[j] + 2 + g]
        lp += _whiten(data, pre, g, d, mu, lam, eps, chol[g], mean[g], th)
        for j in range(d):
            theta[j, g] = th[j]
            dev = th[j] - mu[j]
            lp -= 0.5 * dev * dev * lam[j]
    return lp


@numba.njit(cache=True, inline="always", error_model="numpy")
def _scratch_size(n, k, disc):
    """Floats of work space per gradient: the groups' blocks, 36 small ones, rbc's."""
    return 24 * k + 36 + (4 * k + 3 * n if disc else 0)


@numba.njit(cache=True, error_model="numpy")
def calibration_logp_grad(x, grad, data):
    """Log density of the unconstrained point ``x``; writes its gradient to ``grad``."""
    n = int(data[0])
    k = int(data[1])
    variant = int(data[2])
    disc = data[9] > 0.5
    starts = _blocks(k, variant)

    # one allocation per gradient: every work array is a view of this buffer
    buf = np.zeros(_scratch_size(n, k, disc))
    theta = buf[: 3 * k].reshape((3, k))
    chol = buf[3 * k : 12 * k].reshape((k, 3, 3))
    mean = buf[12 * k : 15 * k].reshape((k, 3))
    work = buf[15 * k : 21 * k]  # a, b, c and d logp / d(a, b, c) per group
    dh = buf[21 * k : 24 * k].reshape((3, k))
    small = buf[24 * k : 24 * k + 36]
    logp = _group_values(x, data, n, k, variant, theta, chol, mean, small)
    a = work[:k]
    b = work[k : 2 * k]
    c = work[2 * k : 3 * k]
    d_a = work[3 * k : 4 * k]
    d_b = work[4 * k : 5 * k]
    d_c = work[5 * k :]
    for g in range(k):
        a[g] = math.exp(theta[0, g])
        if variant == 0:
            b[g] = math.exp(theta[1, g])
            c[g] = theta[2, g]
        else:
            b[g] = a[g]
            c[g] = theta[1, g] if variant == 1 else 0.0

    if not disc:
        # the labeled summary: y ~ Bernoulli(logit = c + a log s - b log(1 - s)), per entry
        for i in range(n):
            ll, ga, gb, gc, g = _entry_loglik(data, n, i, a, b, c)
            logp += ll
            d_a[g] += ga
            d_b[g] += gb
            d_c[g] += gc
    else:
        logp += _robust_loglik(data, n, k, a, b, c, d_a, d_b, d_c, buf[24 * k + 36 :])

    # the likelihood's d logp / dθ (θ = ln a, ln b, c: d/dh of exp(h) is exp(h))
    for g in range(k):
        if variant == 0:
            dh[0, g] = d_a[g] * a[g]
            dh[1, g] = d_b[g] * b[g]
            dh[2, g] = d_c[g]
        else:
            dh[0, g] = (d_a[g] + d_b[g]) * a[g]
            if variant == 1:
                dh[1, g] = d_c[g]
    # to the unconstrained parameters (mu, u = ln sigma, ε) of each block
    d = starts.size
    mu = small[0:3]
    lam = small[3:6]
    dmu = small[6:9]
    du = small[9:12]
    for j in range(d):
        s = starts[j]
        sd_mu, sd_sig = _scales(data, variant, j)
        mu[j] = x[s]
        lam[j] = math.exp(-2.0 * x[s + 1])
        dmu[j] = -mu[j] / (sd_mu * sd_mu)
        du[j] = 1.0 - (math.exp(x[s + 1]) / sd_sig) ** 2 - k
    gth = small[12:15]
    r = small[15:18]
    q = small[18:21]
    v = small[21:24]
    for g in range(k):
        L = chol[g]
        for j in range(d):
            dev = theta[j, g] - mu[j]
            gth[j] = dh[j, g] - dev * lam[j]  # d logp / dθ: likelihood and the group's prior
            dmu[j] += dev * lam[j]
            du[j] += dev * dev * lam[j]
            r[j] = gth[j]
        _forward(L, r, d)  # r = L⁻¹ gθ: the gradient in ε
        for j in range(d):
            grad[starts[j] + 2 + g] = r[j]
            q[j] = r[j]
        _back(L, q, d)  # q = P⁻¹ gθ
        for j in range(d):
            # dθ/dmu_j = P⁻¹ λ_j e_j
            dmu[j] += lam[j] * q[j]
            # dθ/dλ_j = P⁻¹ e_j (mu_j − m_j) − L⁻ᵀ Xᵀ ε, X = Φ(L⁻¹ e_j e_jᵀ L⁻ᵀ) (the
            # Cholesky factor's derivative; Φ: lower triangle, diagonal halved)
            for i in range(d):
                v[i] = 1.0 if i == j else 0.0
            _forward(L, v, d)
            quad = 0.0
            norm = 0.0
            for a_ in range(d):
                ea = x[starts[a_] + 2 + g]
                norm += v[a_] * v[a_]
                for b_ in range(a_ + 1):
                    xab = v[a_] * v[b_] * (0.5 if a_ == b_ else 1.0)
                    quad += ea * xab * r[b_]
            dth_dlam = q[j] * (mu[j] - mean[g, j]) - quad
            # d/du_j = −2 λ_j d/dλ_j; the Jacobian −Σ ln L_ii has d/dλ_j = −½ (P⁻¹)_jj
            du[j] += -2.0 * lam[j] * dth_dlam + lam[j] * norm
    for j in range(d):
        grad[starts[j]] = dmu[j]
        grad[starts[j] + 1] = du[j]
    return logp


@numba.njit(cache=True, error_model="numpy")
def robust_loglik_batch(abc, data):
    """rbc's labeled log likelihood at each row of ``abc`` (shape (N, 3, k): a, b, c per
    group), and its gradient in (a, b, c)."""
    n = int(data[0])
    k = int(data[1])
    out = np.empty(abc.shape[0])
    grad = np.zeros(abc.shape)
    scratch = np.empty(4 * k + 3 * n)
    for i in range(abc.shape[0]):
        out[i] = _robust_loglik(
            data,
            n,
            k,
            abc[i, 0],
            abc[i, 1],
            abc[i, 2],
            grad[i, 0],
            grad[i, 1],
            grad[i, 2],
            scratch,
        )
    return out, grad


@numba.cfunc(_LOGP_SIG, cache=True, error_model="numpy")
def _logp_cfunc(dim, x_, out_, logp_, user_data_):
    head = numba.carray(user_data_, (_HEADER,), np.float64)
    n = int(head[0])
    k = int(head[1])
    size = _HEADER + _FIELDS * n + (2 * k + 2 if head[9] > 0.5 else 0) + _PRE * k
    data = numba.carray(user_data_, (size,), np.float64)
    x = numba.carray(x_, (dim,))
    out = numba.carray(out_, (dim,))
    logp = calibration_logp_grad(x, out, data)
    logp_[0] = logp
    for j in range(dim):
        if not np.isfinite(out[j]):
            return 3
    if not np.isfinite(logp):
        return 4
    return 0


@numba.njit(cache=True, error_model="numpy")
def calibration_expand(x, out, data):
    """The trace row of ``x``: the free variables as the PyMC model defines them
    (``z = (θ − mu) / sigma``, whatever the partial centring), then sigma_a[, sigma_b][,
    sigma_c], a, b, c."""
    n = int(data[0])
    k = int(data[1])
    variant = int(data[2])
    starts = _blocks(k, variant)
    d = starts.size
    dim = x.size
    theta = np.zeros((3, k))
    _group_values(x, data, n, k, variant, theta, np.zeros((k, 3, 3)), np.zeros((k, 3)),
                  np.zeros(12))  # fmt: skip
    out[:dim] = x
    pre = _pre_start(data, n, k)
    for j in range(d):
        s = starts[j]
        sig = math.exp(x[s + 1])
        out[dim + j] = sig
        for g in range(k):
            informed = False
            for t in range(9):
                informed = informed or data[pre + _PRE * g + 3 + t] != 0.0
            if informed:  # else θ = mu + sigma ε: z is ε itself
                out[s + 2 + g] = (theta[j, g] - x[s]) / sig
    pos = dim + d
    for g in range(k):
        a = math.exp(theta[0, g])
        out[pos + g] = a
        if variant == 0:
            out[pos + k + g] = math.exp(theta[1, g])
            out[pos + 2 * k + g] = theta[2, g]
        else:
            out[pos + k + g] = a
            out[pos + 2 * k + g] = theta[1, g] if variant == 1 else 0.0


@numba.cfunc(_EXPAND_SIG, cache=True, error_model="numpy")
def _expand_cfunc(dim, n_expanded, x_, out_, user_data_):
    head = numba.carray(user_data_, (_HEADER,), np.float64)
    n = int(head[0])
    k = int(head[1])
    size = _HEADER + _FIELDS * n + (2 * k + 2 if head[9] > 0.5 else 0) + _PRE * k
    data = numba.carray(user_data_, (size,), np.float64)
    x = numba.carray(x_, (dim,))
    out = numba.carray(out_, (n_expanded,))
    calibration_expand(x, out, data)
    return 0


def _layout(variant: str, k: int):
    """Names and shapes of the trace variables, in the PyMC model's order."""
    blocks = ["a", "b", "c"] if variant == "beta" else ["a", "c"] if variant == "llo" else ["a"]
    free = []
    for v in blocks:
        free += [(f"mu_{v}", ()), (f"sigma_{v}_log__", ()), (f"z_{v}", (k,))]
    expanded = [(f"sigma_{v}", ()) for v in blocks] + [(v, (k,)) for v in ("a", "b", "c")]
    return free, expanded


def pack_data(header: np.ndarray, fields: dict, log_free=None, precondition: bool = True):
    """The ``user_data``: header, the labeled likelihood's arrays (``fields``, keyed by
    :data:`~bayesfair.models.likelihood.LIKELIHOOD_FIELDS`)[, log_free], then the
    preconditioner (:func:`preconditioner`; every group non-centred without
    ``precondition``)."""
    n = np.asarray(fields["count"]).size
    k = int(header[1])
    disc = header[9] > 0.5
    if disc != (log_free is not None):
        raise ValueError("log_free is needed exactly for the robust model.")
    out = np.zeros(_HEADER + _FIELDS * n + (2 * k + 2 if disc else 0) + _PRE * k)
    out[:_HEADER] = header
    out[0] = n
    for j, name in enumerate(LIKELIHOOD_FIELDS):
        values = np.asarray(fields[name], dtype=np.float64)
        if values.shape != (n,):
            raise ValueError(f"The labeled field {name!r} must have shape ({n},).")
        out[_HEADER + j * n : _HEADER + (j + 1) * n] = values
    end = _HEADER + _FIELDS * n
    if disc:
        out[end : end + 2 * k + 2] = np.asarray(log_free, dtype=np.float64).reshape(2 * k + 2)
    if precondition and n:
        # the robust model's labeled likelihood reads the packed data (its pre region unused)
        out[-_PRE * k :] = preconditioner(header, fields, out if disc else None).ravel()
    out.flags.writeable = False
    return out


def _group_loglik(fields, sel, theta, variant):
    """One group's labeled log likelihood (bc) and its gradient in θ = (ln a[, ln b][, c])."""
    f = {name: np.asarray(fields[name], dtype=float)[sel] for name in LIKELIHOOD_FIELDS}
    a = math.exp(theta[0])
    b = math.exp(theta[1]) if variant == 0 else a
    c = theta[-1] if variant != 2 else 0.0
    eta = c + a * f["mean_log_s"] - b * f["mean_log_1ms"]
    v_eta = a * a * f["var_log_s"] + b * b * f["var_log_1ms"] - 2.0 * a * b * f["cov_log"]
    p = 0.5 * (1.0 + np.tanh(0.5 * eta))
    q = p * (1.0 - p)
    n_ = f["count"]
    ll = np.sum(
        c * f["positives"] + a * f["pos_sum_log_s"] - b * f["pos_sum_log_1ms"]
        - n_ * (np.logaddexp(0.0, eta) + 0.5 * q * v_eta)
    )  # fmt: skip
    dd = p + 0.5 * q * (1.0 - 2.0 * p) * v_eta
    d_c = np.sum(f["positives"] - n_ * dd)
    d_a = np.sum(
        f["pos_sum_log_s"]
        - n_ * (dd * f["mean_log_s"] + q * (a * f["var_log_s"] - b * f["cov_log"]))
    )
    d_b = np.sum(
        -f["pos_sum_log_1ms"]
        + n_ * (dd * f["mean_log_1ms"] - q * (b * f["var_log_1ms"] - a * f["cov_log"]))
    )
    if variant == 0:
        grad = np.array([d_a * a, d_b * b, d_c])
    elif variant == 1:
        grad = np.array([(d_a + d_b) * a, d_c])
    else:
        grad = np.array([(d_a + d_b) * a])
    return ll, grad


def preconditioner(
    header: np.ndarray, fields: dict, packed: np.ndarray | None = None
) -> np.ndarray:
    """Per group: the labels' mode θ̂ and information matrix H (partial centring).

    The groups' map parameters ``θ_g = (ln a, ln b, c)`` have the prior
    ``N(mu, diag sigma²)``. Sampled non-centred (``θ = mu + sigma z``), a group
    whose labels pin θ down forces the sampler into ever smaller steps as labels
    are added (its cost grew like the square root of the labeled count); sampled
    centred, a group with few labels forms a funnel with sigma. Each group's θ
    is therefore sampled as ``θ = m + L⁻ᵀ ε`` with ``P = H + diag(λ) = L Lᵀ``,
    ``m = P⁻¹ (H θ̂ + λ ∘ mu)``, ``λ = 1 / sigma²``: the mean and Cholesky factor
    of θ's conditional posterior given (mu, sigma), had the labels' likelihood
    been Gaussian with mode θ̂ and information H (Papaspiliopoulos, Roberts &
    Sköld 2007, *Stat. Sci.* 22(1), on partial non-centring, here with the full
    matrix so that the strong correlation of ln a, ln b and c within a
    well-labeled group is whitened too). Without labels (H = 0) this is the
    non-centred form; with many it is centred and whitened; the posterior is
    the same either way, only the sampler's coordinates change.

    θ̂ comes from Newton's method on the labeled log likelihood of the model
    being sampled plus a N(0, s²) penalty per parameter (s² the sum of its two
    prior variances, so the mode exists for separable labels); H is the negative
    Hessian of the unpenalised log likelihood there, its negative eigenvalues
    (if any) set to 0. For ``bc`` that is each group's own likelihood. For the
    robust model (``packed``, the packed data with its strata terms) it is the
    likelihood with the strata's states integrated out, maximised over all
    groups at once (the shared state couples them) and each group's block of H
    kept: a stratum whose labels contradict the map then does not pull θ̂ to a
    compromise that no posterior draw is near, and does not inform H (whitening
    at ``bc``'s compromise made the robust model's chains stall between its
    modes; measured on COMPAS NB scores at n_L = 200, R-hat up to 10 on the
    strata's states). No mode found: every group keeps the non-centred
    coordinates.

    Returns
    -------
    ndarray, shape (n_groups, 12)
        Per group: θ̂ (3), then H (3 × 3, row-major); the first d of θ̂ and the
        leading d × d block of H are used (d = 3 for beta, 2 llo, 1 temperature).
    """
    k, variant = int(header[1]), int(header[2])
    d = 3 if variant == 0 else 2 if variant == 1 else 1
    blocks = [0, 1, 2] if variant == 0 else [0, 2] if variant == 1 else [0]
    s0 = np.array([math.hypot(header[3 + v], header[6 + v]) for v in blocks])
    out = np.zeros((k, _PRE))
    if packed is not None:
        return _robust_preconditioner(header, packed, d, s0, out)
    groups = np.asarray(fields["group_idx"], dtype=np.intp)

    def penalised(sel, th):
        if not np.all(np.abs(th) <= _MODE_BOUND):
            return -np.inf, np.zeros(d)
        ll, gr = _group_loglik(fields, sel, th, variant)
        return ll - 0.5 * np.sum((th / s0) ** 2), gr - th / s0**2

    for g in range(k):
        sel = groups == g
        if not sel.any():
            continue
        mode = _penalised_mode(lambda t, sel=sel: penalised(sel, t), d)
        if mode is None:  # no mode found: this group stays non-centred (h = 0)
            continue
        th, hess = mode
        _store(out, g, th, _nearest_psd(hess - np.diag(1.0 / s0**2)))
    return out


def _store(out, g, theta_hat, info) -> None:
    """Group g's row of the preconditioner: θ̂, then H in the leading d × d block of a
    3 × 3 matrix. Nothing (the group stays non-centred) without information."""
    if info is None or not np.any(info):
        return
    d = theta_hat.size
    out[g, :d] = theta_hat
    full = np.zeros((3, 3))
    full[:d, :d] = info
    out[g, 3:] = full.ravel()


def _robust_preconditioner(header, packed, d, s0, out):
    """:func:`preconditioner` of the robust model: the joint mode of the groups' maps
    under rbc's labeled likelihood (strata integrated out) and each group's block of
    the information there."""
    k, variant = int(header[1]), int(header[2])

    def penalised(flat):
        th = flat.reshape(k, d)
        if not np.all(np.abs(th) <= _MODE_BOUND):
            return -np.inf, np.zeros(flat.size)
        abc = np.empty((1, 3, k))
        abc[0, 0] = np.exp(th[:, 0])
        abc[0, 1] = np.exp(th[:, 1]) if variant == 0 else abc[0, 0]
        abc[0, 2] = th[:, -1] if variant != 2 else 0.0
        ll, g = robust_loglik_batch(abc, packed)
        g_a, g_b, g_c = g[0]
        if variant == 0:
            grad = np.stack([g_a * abc[0, 0], g_b * abc[0, 1], g_c], axis=1)
        elif variant == 1:
            grad = np.stack([(g_a + g_b) * abc[0, 0], g_c], axis=1)
        else:
            grad = ((g_a + g_b) * abc[0, 0])[:, None]
        return ll[0] - 0.5 * np.sum((th / s0) ** 2), (grad - th / s0**2).ravel()

    mode = _penalised_mode(penalised, k * d)
    if mode is None:  # every group non-centred
        return out
    th, hess = mode
    th = th.reshape(k, d)
    for g in range(k):
        block = hess[g * d : (g + 1) * d, g * d : (g + 1) * d]
        _store(out, g, th[g], _nearest_psd(block - np.diag(1.0 / s0**2)))
    return out


def _nearest_psd(matrix):
    """The symmetric matrix with the negative eigenvalues of ``matrix`` set to 0 (None
    when it is not finite). The labels' information is positive semidefinite where
    their log likelihood is concave in θ; elsewhere this keeps ``P = H + diag(λ)``
    positive definite, which is all the coordinates need (the posterior does not
    depend on H)."""
    if not np.all(np.isfinite(matrix)):
        return None
    values, vectors = np.linalg.eigh(0.5 * (matrix + matrix.T))
    return (vectors * np.maximum(values, 0.0)) @ vectors.T


_MODE_BOUND = 30.0  # |ln a|, |ln b|, |c| beyond this is no calibration map
_MAX_STEP = 1.0  # largest Newton move per coordinate (a trust region)


def _penalised_mode(penalised, d):
    """Damped Newton ascent on a penalised log likelihood; ``(θ̂, −Hessian)`` or None.

    Each step solves ``(H + δI) s = g`` with the damping δ raised until the
    matrix is positive definite, is shortened so that no coordinate moves more
    than ``_MAX_STEP``, and is halved until the value rises. None when the
    search does not converge to a point with a positive definite negative
    Hessian; the caller then keeps the non-centred coordinates, which give the
    same posterior (only the sampler's coordinates depend on θ̂ and h).
    """
    th = np.zeros(d)
    value, grad = penalised(th)
    if not np.isfinite(value):
        return None
    for _ in range(200):
        hess = -_hessian(lambda t: penalised(t)[1], th)
        if not np.all(np.isfinite(hess)):
            return None
        step = None
        for damping in (0.0, 1e-6, 1e-4, 1e-2, 1.0, 1e2):
            try:
                chol = np.linalg.cholesky(hess + damping * np.eye(d))
            except np.linalg.LinAlgError:
                continue
            step = np.linalg.solve(chol.T, np.linalg.solve(chol, grad))
            break
        if step is None:
            step = grad / max(np.max(np.abs(grad)), 1.0)  # plain ascent
        step *= min(1.0, _MAX_STEP / max(np.max(np.abs(step)), 1e-300))
        size = 1.0
        while size >= 1e-6:
            new_value, new_grad = penalised(th + size * step)
            if np.isfinite(new_value) and new_value >= value - 1e-12:
                break
            size *= 0.5
        else:
            break
        th, value, grad = th + size * step, new_value, new_grad
        if np.max(np.abs(size * step)) < 1e-8:
            break
    hess = -_hessian(lambda t: penalised(t)[1], th)
    if not np.all(np.isfinite(hess)) or np.max(np.abs(grad)) > 1e-3 * max(1.0, abs(value)):
        return None
    try:
        np.linalg.cholesky(hess)
    except np.linalg.LinAlgError:
        return None
    return th, hess


def _hessian(grad, x, h=1e-4):
    """Central differences of an analytic gradient (symmetrised)."""
    d = x.size
    out = np.empty((d, d))
    for j in range(d):
        e = np.zeros(d)
        e[j] = h
        out[:, j] = (grad(x + e) - grad(x - e)) / (2 * h)
    return 0.5 * (out + out.T)


@dataclasses.dataclass(frozen=True)
class NativeCalibrationModel(CompiledPyMCModel):
    """nutpie's compiled-PyMC-model record, filled with the hand-written callbacks."""

    header: np.ndarray | None = None
    support: np.ndarray | None = None  # the initial points' centre, before jitter

    def with_data(self, precondition: bool = True, **updates):
        """New labeled data: the fields of
        :func:`~bayesfair.models.likelihood.likelihood_data` (rbc: and ``log_free``).

        ``precondition=False`` samples every group non-centred, exactly the PyMC
        model's coordinates (the tests compare the two that way)."""
        needed = set(LIKELIHOOD_FIELDS) | ({"log_free"} if self.header[9] else set())
        missing = needed - set(updates)
        if missing or len(updates) != len(needed):
            raise KeyError(f"with_data needs {sorted(needed)}; missing {sorted(missing)}.")
        log_free = updates.pop("log_free", None)
        user_data = pack_data(self.header, updates, log_free, precondition)
        return dataclasses.replace(self, user_data=user_data)


def compile_native_calibration(
    variant: str, priors, n_groups: int, discrepancy=None
) -> NativeCalibrationModel:
    """A nutpie model of ``build_calibration_model(..., variant, priors)`` with ``n_groups``.

    ``discrepancy`` (a ``DiscrepancyPrior``) gives the robust model ``rbc``.

    Call :meth:`NativeCalibrationModel.with_data` with the labeled data before sampling.
    """
    import pandas as pd

    k = int(n_groups)
    free, expanded = _layout(variant, k)
    names = [n for n, _ in free + expanded]
    shapes = [s for _, s in free + expanded]
    slices, pos = [], 0
    for s in shapes:
        size = int(np.prod(s, dtype=int))
        slices.append(slice(pos, pos + size))
        pos += size
    n_dim = sum(int(np.prod(s, dtype=int)) for _, s in free)

    support = np.zeros(n_dim)  # support points: mu = z = 0, sigma = its prior scale
    scales = {
        "a": priors.sigma_a_sd,
        "b": priors.sigma_b_sd,
        "c": priors.sigma_c_sd,
    }
    unconstrained = []
    for (name, shape), sl in zip(free, slices, strict=False):
        if name.endswith("_log__"):
            support[sl] = math.log(scales[name[len("sigma_")]])
        unconstrained += [name] if shape == () else [f"{name}_{i}" for i in range(shape[0])]

    def initial_point(seed=None):
        # PyMC's default for nutpie: support point + U(-1, 1) jitter on every free variable.
        return support + np.random.default_rng(seed).uniform(-1.0, 1.0, n_dim)

    header = np.array(
        [
            0.0,
            k,
            _VARIANT_CODE[variant],
            priors.mu_a_sd,
            priors.mu_b_sd,
            priors.mu_c_sd,
            priors.sigma_a_sd,
            priors.sigma_b_sd,
            priors.sigma_c_sd,
            0.0 if discrepancy is None else 1.0,
            0.0 if discrepancy is None else discrepancy.prior_misfit,
            0.0 if discrepancy is None else discrepancy.shared_prior_misfit,
        ],
        dtype=np.float64,
    )
    dims = {name: ("group",) for name, shape in free + expanded if shape != ()}
    return NativeCalibrationModel(
        dims=dims,
        _n_dim=n_dim,
        _coords={
            "group": pd.Index(np.arange(k)),
            "unconstrained_parameter": pd.Index(unconstrained),
        },
        _shapes=dict(zip(names, shapes, strict=True)),
        compiled_logp_func=_logp_cfunc,
        compiled_expand_func=_expand_cfunc,
        initial_point_func=initial_point,
        shared_data={},
        user_data=pack_data(
            header,
            {name: np.empty(0) for name in LIKELIHOOD_FIELDS},
            None if discrepancy is None else np.zeros(2 * k + 2),
        ),
        n_expanded=pos,
        shape_info=(names, slices, [np.array(s, dtype=int) for s in shapes]),
        logp_func=None,
        expand_func=None,
        header=header,
        support=support,
    )
