"""The numba kernels of the beta-calibration log density (private): its log density and
gradient, rbc's strata-integrated likelihood, and the two C callbacks nutpie calls (the
log density, and the trace row, which is the free point itself).
:mod:`bayesfair.models._calibration_native` packs their data, hands them to nutpie and
computes each draw's deterministics; its docstring describes the model and coordinates.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from bayesfair.models.likelihood import LIKELIHOOD_FIELDS

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
    """Entry ``i``'s labeled log likelihood but one term, its derivatives in (a_g, b_g,
    c_g), g, and that term's factor and power.

    ``Σ y η − n [softplus(η̄) + ½ σ(η̄)(1 − σ(η̄)) Var(η)]`` over the entry's rows
    (:func:`bayesfair.models.likelihood.binned_loglik`), with ``softplus(η̄) = max(η̄, 0)
    + log(1 + e)``, ``e = exp(−|η̄|)``: the entry's ``− n log(1 + e)`` is left to the
    caller (:func:`_absorb`), which takes one logarithm for many entries.
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
    onep = 1.0 + e
    p = 1.0 / onep if eta >= 0.0 else e / onep
    q = p * (1.0 - p)
    ll = cc * pos + aa * ps1 - bb * ps2 - cnt * (max(eta, 0.0) + 0.5 * q * v_eta)
    d = p + 0.5 * q * (1.0 - 2.0 * p) * v_eta
    d_c = pos - cnt * d
    d_a = ps1 - cnt * (d * m1 + q * (aa * v1 - bb * cv))
    d_b = -ps2 + cnt * (d * m2 - q * (bb * v2 - aa * cv))
    return ll, d_a, d_b, d_c, g, onep, cnt


#: An entry of at most this many rows has its ``(1 + e)ⁿ`` multiplied in (:func:`_absorb`).
_POWER_ROWS = 64
#: A running product above this is taken into the logarithm: it then stays below
#: 1e250 · 2⁶⁴, far from overflow.
_PRODUCT_CAP = 1e250


@numba.njit(cache=True, inline="always", error_model="numpy")
def _absorb(product, ll, onep, cnt):
    """An entry's ``− n log(1 + e)`` (:func:`_entry_loglik`) into a running ``product`` of
    ``(1 + e)ⁿ`` (by squaring, for a whole n up to :data:`_POWER_ROWS`), or into ``ll``
    directly; returns both. The caller subtracts ``log(product)`` at the end: one
    logarithm for many entries instead of one each, a quarter of the gradient's time with
    many groups of few labels."""
    m = int(cnt)
    if m == cnt and m <= _POWER_ROWS:
        power = 1.0
        base = onep
        while m > 0:
            if m & 1:
                power *= base
            base *= base
            m >>= 1
        product *= power
        if product > _PRODUCT_CAP:
            ll -= math.log(product)
            product = 1.0
    else:
        ll -= cnt * math.log(onep)
    return product, ll


@numba.njit(cache=True, error_model="numpy")
def _robust_loglik(data, n, k, a, b, c, d_a, d_b, d_c, scratch):
    """rbc's labeled log likelihood, the strata's states (map or own rate) integrated out.

    Per side h: logaddexp(log(1 − π_s) + Σ_g logaddexp(log(1 − π_g) + log L_map[g, h],
    log π_g + log L_free[g, h]), log π_s + Σ_g log L_free[g, h]), where L_free is the
    stratum's Beta-binomial marginal likelihood (data, not a parameter). Adds
    d logp / d(a, b, c) into ``d_a, d_b, d_c``: each entry's map gradient weighted by
    the posterior probability that its stratum follows the map. ``scratch``: at least
    ``6 k + 3 n`` floats of work space (no allocation per gradient).
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
    products = scratch[2 * m + 3 * n : 3 * m + 3 * n]  # each stratum's (1 + e)ⁿ
    products[:] = 1.0
    for i in range(n):
        ll, ga, gb, gc, g, onep, cnt = _entry_loglik(data, n, i, a, b, c)
        st = g * 2 + int(side[i])
        products[st], ll_map[st] = _absorb(products[st], ll_map[st] + ll, onep, cnt)
        grads[i, 0] = ga
        grads[i, 1] = gb
        grads[i, 2] = gc
    for st in range(m):
        ll_map[st] -= math.log(products[st])
    lpg, l1pg = math.log(pg), math.log1p(-pg)
    lps, l1ps = math.log(ps), math.log1p(-ps)
    logp = 0.0
    for h in range(2):
        v0 = l1ps
        v1 = lps + log_shared[h]
        spread = 1.0  # Π (1 + e) over the groups: their log1p terms in one logarithm
        for g in range(k):
            st = g * 2 + h
            # logaddexp(follows, free) = max + log1p(e), e = exp(−|follows − free|), and
            # the stratum's P(follows the map | θ, y, not shared), kept for the weights
            follows = l1pg + ll_map[st]
            free = lpg + log_free[st]
            if follows >= free:
                e = math.exp(free - follows)
                w_map[st] = 1.0 / (1.0 + e)
                v0 += follows
            else:
                e = math.exp(follows - free)
                w_map[st] = e / (1.0 + e)
                v0 += free
            spread *= 1.0 + e
            if spread > 1e300:  # (1 + e) ≤ 2: after a thousand groups
                v0 += math.log(spread)
                spread = 1.0
        v0 += math.log(spread)
        outer = _logaddexp(v0, v1)
        logp += outer
        p_not_shared = math.exp(v0 - outer)
        for g in range(k):
            w_map[g * 2 + h] *= p_not_shared
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


@numba.njit(cache=True, error_model="numpy")
def _whiten(data, pre, g, d, mu, lam, eps, inv, mean, theta, low):
    """Group g's map parameters θ from (mu, λ = 1/sigma², ε), partially centred.

    ``θ = m + L⁻ᵀ ε`` with ``P = H + diag(λ) = L Lᵀ`` and ``m = P⁻¹ (H θ̂ + λ ∘ mu)``
    (module docstring): the mean and Cholesky factor of θ's conditional posterior
    had the labels' likelihood been Gaussian with mode θ̂ and information H. Writes
    the inverse factor L⁻¹ (lower triangle) into ``inv``, m into ``mean`` and θ into
    ``theta`` (the first d entries); ``low`` (3 x 3) is work space for L. Returns
    ``−Σ ln L_ii``, the log Jacobian of ε ↦ θ. Every solve is a product with L⁻¹,
    whose diagonal is the only division (the gradient's back-transform reuses it).
    Used for d < 3 (``llo``, ``temperature``), compiled as a function of its own, not
    inlined (a first fit compiles less); the beta maps' d = 3 is :func:`_whiten3`.
    """
    base = pre + _PRE * g
    for i in range(d):
        for j in range(i + 1):
            v = data[base + 3 + 3 * i + j] + (lam[i] if i == j else 0.0)
            for t in range(j):
                v -= low[i, t] * low[j, t]
            if i == j:
                low[i, i] = math.sqrt(v)
                inv[i, i] = 1.0 / low[i, i]
            else:
                low[i, j] = v * inv[j, j]
    for j in range(d):  # the rest of L⁻¹, column by column
        for i in range(j + 1, d):
            v = 0.0
            for t in range(j, i):
                v += low[i, t] * inv[t, j]
            inv[i, j] = -v * inv[i, i]
    # m = L⁻ᵀ L⁻¹ (H θ̂ + λ mu), the rows of H θ̂ + λ mu into theta for the moment
    for i in range(d):
        v = lam[i] * mu[i]
        for j in range(d):
            v += data[base + 3 + 3 * i + j] * data[base + j]
        theta[i] = v
    _lower(inv, theta, d)
    for i in range(d):
        mean[i] = theta[i] + 0.0
        theta[i] = eps[i]
    _upper(inv, mean, d)
    # θ = m + L⁻ᵀ ε
    _upper(inv, theta, d)
    det = 1.0
    for i in range(d):
        theta[i] += mean[i]
        det *= inv[i, i]
    return math.log(det)  # −Σ ln L_ii = Σ ln (L⁻¹)_ii, one logarithm


@numba.njit(cache=True, inline="always", error_model="numpy")
def _whiten3(data, base, mu, lam, eps, inv, mean, theta):
    """:func:`_whiten` for d = 3, its loops written out: the same operations in the same
    order. A third of the gradient's time per group with many groups, where loops over a
    d known only at run time are not unrolled (and unrolling them in the compiler cost
    more than a second of a first fit's compilation); the tests hold the density and
    gradient to the PyMC model's for every variant, and so this one to the generic one's
    (``llo``, ``temperature``)."""
    h = data[base + 3 : base + 12]  # H, row-major
    t0, t1, t2 = data[base], data[base + 1], data[base + 2]  # θ̂
    l00 = math.sqrt(h[0] + lam[0])
    r0 = 1.0 / l00
    l10 = h[3] * r0
    l20 = h[6] * r0
    l11 = math.sqrt(h[4] + lam[1] - l10 * l10)
    r1 = 1.0 / l11
    l21 = (h[7] - l20 * l10) * r1
    l22 = math.sqrt(h[8] + lam[2] - l20 * l20 - l21 * l21)
    r2 = 1.0 / l22
    i10 = -(l10 * r0) * r1
    i20 = -(l20 * r0 + l21 * i10) * r2
    i21 = -(l21 * r1) * r2
    inv[0, 0], inv[1, 1], inv[2, 2] = r0, r1, r2
    inv[1, 0], inv[2, 0], inv[2, 1] = i10, i20, i21
    # m = L⁻ᵀ L⁻¹ (H θ̂ + λ mu)
    v0 = lam[0] * mu[0] + h[0] * t0 + h[1] * t1 + h[2] * t2
    v1 = lam[1] * mu[1] + h[3] * t0 + h[4] * t1 + h[5] * t2
    v2 = lam[2] * mu[2] + h[6] * t0 + h[7] * t1 + h[8] * t2
    y0 = r0 * v0
    y1 = i10 * v0 + r1 * v1
    y2 = i20 * v0 + i21 * v1 + r2 * v2
    m0 = r0 * y0 + i10 * y1 + i20 * y2
    m1 = r1 * y1 + i21 * y2
    m2 = r2 * y2
    mean[0], mean[1], mean[2] = m0, m1, m2
    # θ = m + L⁻ᵀ ε
    theta[0] = (r0 * eps[0] + i10 * eps[1] + i20 * eps[2]) + m0
    theta[1] = (r1 * eps[1] + i21 * eps[2]) + m1
    theta[2] = r2 * eps[2] + m2
    return math.log(r0 * r1 * r2)


@numba.njit(cache=True, inline="always", error_model="numpy")
def _lower(inv, v, d):
    """``v ← L⁻¹ v`` in place, ``inv`` holding L⁻¹ (lower triangular)."""
    for i in range(d - 1, -1, -1):
        w = 0.0
        for t in range(i + 1):
            w += inv[i, t] * v[t]
        v[i] = w


@numba.njit(cache=True, inline="always", error_model="numpy")
def _upper(inv, v, d):
    """``v ← L⁻ᵀ v`` in place, ``inv`` holding L⁻¹ (lower triangular)."""
    for i in range(d):
        w = 0.0
        for t in range(i, d):
            w += inv[t, i] * v[t]
        v[i] = w


@numba.njit(cache=True, error_model="numpy")
def _group_values(x, data, n, k, variant, theta, inv, mean, small):
    """The groups' map parameters θ (ln a[, ln b][, c] per active block) into ``theta``
    (shape (3, k)), and the log prior of x: each block's hyperpriors, θ_g ~ N(mu, sigma)
    and the Jacobian of θ's partial centring (module docstring). Each group's inverse
    Cholesky factor and conditional mean go to ``inv`` (k, 3, 3) and ``mean`` (k, 3);
    ``small`` is work space of 33 floats."""
    starts = _blocks(k, variant)
    d = starts.size
    pre = _pre_start(data, n, k)
    mu = small[0:3]
    lam = small[3:6]
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
    return lp + _whiten_groups(x, data, pre, k, d, starts, small, inv, mean, theta)


@numba.njit(cache=True, inline="always", error_model="numpy")
def _whiten_groups(x, data, pre, k, d, starts, small, inv, mean, theta):
    """Every group's θ from x (:func:`_whiten`) into ``theta``; returns the groups'
    N(mu, sigma) log densities and Jacobians (less their normalising constants)."""
    mu = small[0:3]
    lam = small[3:6]
    eps = small[6:9]
    th = small[9:12]
    low = small[24:33].reshape((3, 3))
    lp = 0.0
    for g in range(k):
        for j in range(d):
            eps[j] = x[starts[j] + 2 + g]
        if d == 3:  # the beta maps': the same arithmetic, written out
            lp += _whiten3(data, pre + _PRE * g, mu, lam, eps, inv[g], mean[g], th)
        else:
            lp += _whiten(data, pre, g, d, mu, lam, eps, inv[g], mean[g], th, low)
        for j in range(d):
            theta[j, g] = th[j]
            dev = th[j] - mu[j]
            lp -= 0.5 * dev * dev * lam[j]
    return lp


@numba.njit(cache=True, inline="always", error_model="numpy")
def _groups_gradient(x, grad, k, d, starts, small, inv, mean, theta, dh):
    """Each group's d logp / dθ (``dh``: the likelihood's) to its ε, into ``grad``, and the
    groups' parts of d logp / d(mu, ln sigma) added to ``small``'s ``dmu``, ``du``."""
    mu = small[0:3]
    lam = small[3:6]
    dmu = small[6:9]
    du = small[9:12]
    gth = small[12:15]
    r = small[15:18]
    q = small[18:21]
    for g in range(k):
        li = inv[g]  # L⁻¹
        for j in range(d):
            dev = theta[j, g] - mu[j]
            gth[j] = dh[j, g] - dev * lam[j]  # d logp / dθ: likelihood and the group's prior
            dmu[j] += dev * lam[j]
            du[j] += dev * dev * lam[j]
            r[j] = gth[j]
        _lower(li, r, d)  # r = L⁻¹ gθ: the gradient in ε
        for j in range(d):
            grad[starts[j] + 2 + g] = r[j]
            q[j] = r[j]
        _upper(li, q, d)  # q = P⁻¹ gθ
        for j in range(d):
            # dθ/dmu_j = P⁻¹ λ_j e_j
            dmu[j] += lam[j] * q[j]
            # dθ/dλ_j = P⁻¹ e_j (mu_j − m_j) − L⁻ᵀ Xᵀ ε, X = Φ(v vᵀ), v = L⁻¹ e_j (the
            # Cholesky factor's derivative; Φ: lower triangle, diagonal halved), so
            # εᵀ X r = Σ_a ε_a v_a (Σ_{b<a} v_b r_b + ½ v_a r_a), v_a = 0 for a < j
            quad = 0.0
            norm = 0.0
            below = 0.0
            for a_ in range(j, d):
                va = li[a_, j]
                norm += va * va
                quad += x[starts[a_] + 2 + g] * va * (below + 0.5 * va * r[a_])
                below += va * r[a_]
            dth_dlam = q[j] * (mu[j] - mean[g, j]) - quad
            # d/du_j = −2 λ_j d/dλ_j; the Jacobian −Σ ln L_ii has d/dλ_j = −½ (P⁻¹)_jj
            du[j] += -2.0 * lam[j] * dth_dlam + lam[j] * norm


@numba.njit(cache=True, inline="always", error_model="numpy")
def _scratch_size(n, k, disc):
    """Floats of work space per gradient: the groups' blocks, 36 small ones, rbc's."""
    return 24 * k + 36 + (6 * k + 3 * n if disc else 0)


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
    inv = buf[3 * k : 12 * k].reshape((k, 3, 3))
    mean = buf[12 * k : 15 * k].reshape((k, 3))
    work = buf[15 * k : 21 * k]  # a, b, c and d logp / d(a, b, c) per group
    dh = buf[21 * k : 24 * k].reshape((3, k))
    small = buf[24 * k : 24 * k + 36]
    logp = _group_values(x, data, n, k, variant, theta, inv, mean, small)
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
        product = 1.0
        for i in range(n):
            ll, ga, gb, gc, g, onep, cnt = _entry_loglik(data, n, i, a, b, c)
            product, logp = _absorb(product, logp + ll, onep, cnt)
            d_a[g] += ga
            d_b[g] += gb
            d_c[g] += gc
        logp -= math.log(product)
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
    _groups_gradient(x, grad, k, d, starts, small, inv, mean, theta, dh)
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
    scratch = np.empty(6 * k + 3 * n)
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


@numba.cfunc(_EXPAND_SIG, cache=True, error_model="numpy")
def _expand_cfunc(dim, n_expanded, x_, out_, user_data_):
    # the trace row is the free point itself; its deterministics are computed for all
    # draws at once after sampling (_calibration_native.expand_draws): a numba
    # expansion here cost seconds of compilation on a machine's first fit
    # (docs/benchmarks.md, "Start-up")
    x = numba.carray(x_, (dim,))
    out = numba.carray(out_, (n_expanded,))
    for j in range(dim):
        out[j] = x[j]
    return 0
