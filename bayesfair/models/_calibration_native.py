"""The beta-calibration model's log density, hand-written for nutpie (private).

:func:`bayesfair.models.calibration.build_calibration_model` is the
definition of the model. Compiling that PyMC model for nutpie costs tens of seconds
in every new process (nutpie's numba wrapper around the PyTensor graph cannot be
cached on disk), and its compiled log density several times this module's per
gradient (``docs/benchmarks.md``, "Why it is fast: a hand-written log density"). This
module writes the same log density and its gradient by hand as
two numba C callbacks (``cache=True``: compiled once per machine, loaded from
numba's disk cache in well under a second afterwards), and hands them to nutpie
as a :class:`nutpie.compile_pymc.CompiledPyMCModel`, so that nutpie samples it
exactly like the compiled PyMC model: same unconstrained parameters in the same
order (``mu_a, sigma_a_log__, z_a, mu_b, ...``), same deterministics
(``sigma_*, a, b, c``), same log density including PyMC's normalising constants,
same initial points (support point + U(−1, 1) jitter), same trace layout. nutpie
stores each draw's free point; :meth:`NativeCalibrationModel.complete_posterior` adds
the deterministics for all draws at once in numpy (:func:`expand_draws`), which costs
no compilation. ``tests/models/test_calibration_kernels.py`` checks log density,
gradient and expansion against the PyMC model for all variants.

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
(the tests check both). ``with_data(precondition=False)`` gives
the PyMC model's coordinates exactly.

This relies on nutpie's ``CompiledPyMCModel`` layout (nutpie 0.16);
:mod:`bayesfair.models.sampling` falls back to compiling the PyMC model when anything
here fails.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from bayesfair._internal.optimize import damped_newton
from bayesfair._internal.tree import get_group, group_names, make_tree
from bayesfair.exceptions import InvalidParameterError
from bayesfair.models._calibration_kernels import (
    _FIELDS,
    _HEADER,
    _PRE,
    _VARIANT_CODE,
    _expand_cfunc,
    _logp_cfunc,
    robust_loglik_batch,
)
from bayesfair.models.likelihood import LIKELIHOOD_FIELDS
from bayesfair.models.sampling import import_nutpie


def _layout(variant: str, k: int):
    """Names and shapes of the trace variables, in the PyMC model's order."""
    blocks = ["a", "b", "c"] if variant == "beta" else ["a", "c"] if variant == "llo" else ["a"]
    free = []
    for v in blocks:
        free += [(f"mu_{v}", ()), (f"sigma_{v}_log__", ()), (f"z_{v}", (k,))]
    expanded = [(f"sigma_{v}", ()) for v in blocks] + [(v, (k,)) for v in ("a", "b", "c")]
    return free, expanded


def expand_draws(x: np.ndarray, data: np.ndarray) -> np.ndarray:
    """The trace rows of free points ``x`` (shape (N, n_dim), or one point): the free
    variables as the PyMC model defines them (``z = (θ − mu) / sigma``, whatever the
    partial centring), then sigma_a[, sigma_b][, sigma_c], a, b, c (:func:`_layout`).

    Each group's ``θ = m + L⁻ᵀ ε`` (module docstring), for all draws at once in numpy:
    nutpie stores the free point, and this runs once per fit (a numba expansion per
    draw cost seconds of compilation on a machine's first fit, for no speed a fit
    could see: ``docs/benchmarks.md``, "Start-up").
    """
    x = np.atleast_2d(np.asarray(x, dtype=np.float64))
    finite = np.all(np.isfinite(x), axis=1)
    if not finite.all():  # a row that is not a point gives a row of NaN, as the kernel did
        out = np.full((x.shape[0], _expanded_size(data, x.shape[1])), np.nan)
        out[finite] = expand_draws(x[finite], data)
        return out
    n, k, variant = int(data[0]), int(data[1]), int(data[2])
    d = _blocks_of(variant)
    starts = np.array([0, 2 + k, 4 + 2 * k][:d])
    pre = _HEADER + _FIELDS * n + (2 * k + 2 if data[9] > 0.5 else 0)
    rows = np.asarray(data[pre : pre + _PRE * k]).reshape(k, _PRE)
    theta_hat = rows[:, :d]
    info = rows[:, 3:].reshape(k, 3, 3)[:, :d, :d]
    mu = x[:, starts]  # (N, d)
    sigma = np.exp(x[:, starts + 1])
    lam = np.exp(-2.0 * x[:, starts + 1])
    eps = np.stack([x[:, s + 2 : s + 2 + k] for s in starts], axis=-1)  # (N, k, d)
    prec = info[None] + lam[:, None, :, None] * np.eye(d)  # P = H + diag(λ), (N, k, d, d)
    chol = _cholesky(prec)
    rhs = np.einsum("gij,gj->gi", info, theta_hat)[None] + (lam * mu)[:, None, :]
    mean = _back(chol, _forward(chol, rhs))  # P⁻¹ rhs
    theta = mean + _back(chol, eps)
    out = np.empty((x.shape[0], _expanded_size(data, x.shape[1])))
    out[:, : x.shape[1]] = x
    informed = np.any(info != 0.0, axis=(1, 2))  # else θ = mu + sigma ε: z is ε itself
    for j, s in enumerate(starts):
        z = (theta[:, :, j] - mu[:, j, None]) / sigma[:, j, None]
        out[:, s + 2 : s + 2 + k] = np.where(informed, z, eps[:, :, j])
    out[:, x.shape[1] : x.shape[1] + d] = sigma
    pos = x.shape[1] + d
    a = np.exp(theta[:, :, 0])
    out[:, pos : pos + k] = a
    if variant == 0:
        out[:, pos + k : pos + 2 * k] = np.exp(theta[:, :, 1])
        out[:, pos + 2 * k :] = theta[:, :, 2]
    else:
        out[:, pos + k : pos + 2 * k] = a
        out[:, pos + 2 * k :] = theta[:, :, 1] if variant == 1 else 0.0
    return out


def _cholesky(prec: np.ndarray) -> np.ndarray:
    """The lower Cholesky factors of a stack of d x d matrices (d ≤ 3), element by
    element over the stack: ``numpy.linalg`` spends most of its time per matrix on
    matrices this small."""
    d = prec.shape[-1]
    low = np.zeros(prec.shape)
    for i in range(d):
        for j in range(i + 1):
            v = prec[..., i, j] - sum(low[..., i, t] * low[..., j, t] for t in range(j))
            low[..., i, j] = np.sqrt(v) if i == j else v / low[..., j, j]
    return low


def _forward(low: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``L⁻¹ v`` for a stack of lower factors ``low`` (..., d, d) and vectors (..., d)."""
    out = np.empty(v.shape)
    for i in range(v.shape[-1]):
        w = v[..., i] - sum(low[..., i, t] * out[..., t] for t in range(i))
        out[..., i] = w / low[..., i, i]
    return out


def _back(low: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``L⁻ᵀ v`` for a stack of lower factors ``low`` (..., d, d) and vectors (..., d)."""
    d = v.shape[-1]
    out = np.empty(v.shape)
    for i in range(d - 1, -1, -1):
        w = v[..., i] - sum(low[..., t, i] * out[..., t] for t in range(i + 1, d))
        out[..., i] = w / low[..., i, i]
    return out


def _expanded_size(data: np.ndarray, n_dim: int) -> int:
    """The length of a trace row: the free point, the sigmas, then a, b, c per group."""
    return n_dim + _blocks_of(int(data[2])) + 3 * int(data[1])


def _blocks_of(variant: int) -> int:
    """The map parameters per group of a variant code: beta (a, b, c) 3, llo (a, c) 2,
    temperature (a) 1."""
    return 3 if variant == 0 else 2 if variant == 1 else 1


def pack_data(header: np.ndarray, fields: dict, log_free=None, precondition: bool = True):
    """The ``user_data``: header, the labeled likelihood's arrays (``fields``, keyed by
    :data:`~bayesfair.models.likelihood.LIKELIHOOD_FIELDS`)[, log_free], then the
    preconditioner (:func:`preconditioner`; every group non-centred without
    ``precondition``)."""
    n = np.asarray(fields["count"]).size
    k = int(header[1])
    disc = header[9] > 0.5
    if disc != (log_free is not None):
        raise InvalidParameterError("log_free is needed exactly for the robust model.")
    out = np.zeros(_HEADER + _FIELDS * n + (2 * k + 2 if disc else 0) + _PRE * k)
    out[:_HEADER] = header
    out[0] = n
    for j, name in enumerate(LIKELIHOOD_FIELDS):
        values = np.asarray(fields[name], dtype=np.float64)
        if values.shape != (n,):
            raise InvalidParameterError(f"The labeled field {name!r} must have shape ({n},).")
        out[_HEADER + j * n : _HEADER + (j + 1) * n] = values
    end = _HEADER + _FIELDS * n
    if disc:
        out[end : end + 2 * k + 2] = np.asarray(log_free, dtype=np.float64).reshape(2 * k + 2)
    if precondition and n:
        # the robust model's labeled likelihood reads the packed data (its pre region unused)
        out[-_PRE * k :] = preconditioner(header, fields, out if disc else None).ravel()
    out.flags.writeable = False
    return out


def group_loglik(fields, sel, theta, variant):
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
        c * f["positives"]
        + a * f["pos_sum_log_s"]
        - b * f["pos_sum_log_1ms"]
        - n_ * (np.logaddexp(0.0, eta) + 0.5 * q * v_eta)
    )
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
    d = _blocks_of(variant)
    blocks = [0, 1, 2] if variant == 0 else [0, 2] if variant == 1 else [0]
    s0 = np.array([math.hypot(header[3 + v], header[6 + v]) for v in blocks])
    out = np.zeros((k, _PRE))
    if packed is not None:
        return _robust_preconditioner(header, packed, d, s0, out)
    groups = np.asarray(fields["group_idx"], dtype=np.intp)

    def penalised(sel, th):
        if not np.all(np.abs(th) <= _MODE_BOUND):
            return -np.inf, np.zeros(d)
        ll, gr = group_loglik(fields, sel, th, variant)
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

    # with many groups the full Hessian (2 k d gradients per Newton step, a dense k d
    # solve) costs more than the sampling; the groups are coupled only through the
    # shared side indicator, so block-diagonal curvature (2 d gradients) steers Newton
    # to the same mode, and only the diagonal blocks are kept below anyway
    blocks = k if k > _BLOCKWISE_GROUPS else 1
    mode = _penalised_mode(penalised, k * d, blocks=blocks)
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


#: Above this many groups the robust preconditioner's Newton steps use block-diagonal
#: curvature (one 3 × 3 block per group).
_BLOCKWISE_GROUPS = 4


def _penalised_mode(penalised, d, blocks: int = 1):
    """Damped Newton ascent on a penalised log likelihood; ``(θ̂, −Hessian)`` or None.

    ``blocks > 1``: the ``d`` coordinates are ``blocks`` equal blocks (one per group),
    and the Hessian is taken block-diagonal (:func:`_block_hessian`): the ascent still
    stops only where the exact gradient vanishes, so the mode is the same.

    The ascent is :func:`~bayesfair._internal.optimize.damped_newton` on the
    negative, from θ = 0: each step solves ``(H + δI) s = g`` with the damping δ
    raised until the matrix is positive definite, is shortened so that no
    coordinate moves more than ``_MAX_STEP``, and is halved until the value
    rises enough. None when the search does not converge to a point with a
    positive definite negative Hessian; the caller then keeps the non-centred
    coordinates, which give the same posterior (only the sampler's coordinates
    depend on θ̂ and h).
    """
    th = np.zeros(d)
    if not np.isfinite(penalised(th)[0]):
        return None
    curvature = _hessian if blocks == 1 else (lambda g, x: _block_hessian(g, x, blocks))

    def negative(t):
        value, grad = penalised(t)
        return -value, -grad

    def negative_hessian(t):
        return -curvature(lambda u: penalised(u)[1], t)

    th, hess = damped_newton(
        negative, th, negative_hessian, max_iter=200, xtol=1e-8, max_step=_MAX_STEP
    )
    value, grad = penalised(th)
    if not np.all(np.isfinite(hess)) or np.max(np.abs(grad)) > 1e-3 * max(1.0, abs(value)):
        return None
    if not _positive_definite(hess):
        return None
    return th, hess


def _positive_definite(matrix) -> bool:
    """Whether a symmetric matrix is positive definite (its Cholesky factor exists)."""
    try:
        np.linalg.cholesky(matrix)
    except np.linalg.LinAlgError:
        return False
    return True


def _block_hessian(grad, x, blocks, h=1e-4):
    """The diagonal blocks of the Hessian by central differences, 2 m gradients for
    ``blocks`` blocks of m coordinates: coordinate j of every block is moved at once,
    and each block reads its own gradient (the cross-block terms, which this ignores,
    are what the moves of the other blocks add)."""
    d = x.size
    m = d // blocks
    out = np.zeros((d, d))
    for j in range(m):
        e = np.zeros(d)
        e[j::m] = h
        col = ((grad(x + e) - grad(x - e)) / (2 * h)).reshape(blocks, m)
        for b in range(blocks):
            out[b * m : (b + 1) * m, b * m + j] = col[b]
    for b in range(blocks):
        sl = slice(b * m, (b + 1) * m)
        out[sl, sl] = 0.5 * (out[sl, sl] + out[sl, sl].T)
    return out


def _hessian(grad, x, h=1e-4):
    """Central differences of an analytic gradient (symmetrised)."""
    d = x.size
    out = np.empty((d, d))
    for j in range(d):
        e = np.zeros(d)
        e[j] = h
        out[:, j] = (grad(x + e) - grad(x - e)) / (2 * h)
    return 0.5 * (out + out.T)


# nutpie without ArviZ's import (import_nutpie says why)
CompiledPyMCModel = import_nutpie().compile_pymc.CompiledPyMCModel


@dataclasses.dataclass(frozen=True)
class NativeCalibrationModel(CompiledPyMCModel):
    """nutpie's compiled-PyMC-model record, filled with the hand-written callbacks."""

    header: np.ndarray | None = None
    support: np.ndarray | None = None  # the initial points' centre, before jitter
    trace_layout: tuple = ()  # the full trace's (name, shape) pairs, as _layout gives them

    def complete_posterior(self, tree):
        """The sampled tree with each draw's deterministics (:func:`expand_draws`):
        nutpie stored the free points; their ``z`` become the PyMC model's and
        ``sigma_*``, ``a``, ``b``, ``c`` are added, in the PyMC model's order."""
        import xarray as xr

        posterior = get_group(tree, "posterior")
        free = [(name, shape) for name, shape in self.trace_layout if name in posterior]
        n_chain, n_draw = posterior.sizes["chain"], posterior.sizes["draw"]
        x = np.concatenate(
            [posterior[name].values.reshape(n_chain * n_draw, -1) for name, _ in free], axis=1
        )
        rows = expand_draws(x, self.user_data)
        variables, pos = {}, 0
        for name, shape in self.trace_layout:
            size = int(np.prod(shape, dtype=int))
            values = rows[:, pos : pos + size].reshape(n_chain, n_draw, *shape)
            dims = ("chain", "draw", *self.dims.get(name, ()))
            variables[name] = xr.DataArray(values, dims=dims)
            pos += size
        completed = xr.Dataset(variables, coords=posterior.coords, attrs=posterior.attrs)
        groups = {name: get_group(tree, name) for name in group_names(tree)}
        return make_tree({**groups, "posterior": completed}, attrs=tree.attrs)

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


def calibration_header(variant: str, priors, n_groups: int, discrepancy=None) -> np.ndarray:
    """The header of the packed data (:func:`pack_data`): the variant, the number of
    groups, the prior scales and, for the robust model, its misfit priors."""
    return np.array(
        [
            0.0,
            int(n_groups),
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
    # nutpie stores the free point; complete_posterior adds the rest after sampling
    names = [n for n, _ in free]
    shapes = [s for _, s in free]
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

    header = calibration_header(variant, priors, k, discrepancy)
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
        shared_var_keys={},
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
        trace_layout=tuple(free + expanded),
    )
