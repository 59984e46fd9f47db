"""Sampling PyMC models, with compiled models cached across calls.

Model builders (:mod:`bayesfair.models`) only describe models; this module
samples them. The default NUTS sampler is nutpie (Rust NUTS over a
numba-compiled PyMC log-density); ``nuts_sampler="pymc"`` uses ``pm.sample``.

Compiling a model costs seconds, sampling a small one well under a second.
Models keep their data in ``pm.Data`` containers, so a compiled model is
cached per *structure* (model kind, variant, priors, number of groups) and
reused for new data through ``CompiledModel.with_data``, without recompiling.
Repeated fits (experiment harnesses, refits on new labeled sets) therefore
pay the compile once per process. Numba caches what it can on disk; the
remainder is compiled once per process.

A model may also come with a *native* compiler (``native=``): a hand-written
log density for nutpie that needs no PyMC compile at all. The beta-calibration
model has one (:mod:`bayesfair.models._calibration_native`, numba C callbacks
cached on disk, so a new process loads them in well under a second and each
gradient is several times cheaper). Set :data:`USE_NATIVE` to False to sample
the compiled PyMC model instead (the reference the native one is tested against).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Hashable

__all__ = ["USE_NATIVE", "clear_cache", "sample_model"]

_COMPILED: dict[Hashable, object] = {}

#: Use a model's native (hand-written) nutpie log density when it has one.
USE_NATIVE = True


def clear_cache() -> None:
    """Forget compiled models (the next fit compiles again)."""
    _COMPILED.clear()


def _nutpie_available() -> bool:
    try:
        import nutpie  # noqa: F401
    except ImportError:  # pragma: no cover - nutpie is a dependency
        return False
    return True


def sample_model(
    build: Callable[[], object],
    *,
    cache_key: Hashable | None,
    data: dict,
    draws: int,
    tune: int,
    chains: int,
    seed: int,
    progressbar: bool,
    target_accept: float,
    nuts_sampler: str = "nutpie",
    native: Callable[[], object] | None = None,
):
    """Sample a model with NUTS and return an ``arviz.InferenceData``.

    Parameters
    ----------
    build : callable
        Returns the ``pm.Model``; called only when no compiled model is cached.
    cache_key : hashable or None
        Structure key for the compiled-model cache (None: do not cache).
    data : dict
        Values of the model's ``pm.Data`` containers for this fit.
    draws, tune, chains, seed, progressbar, target_accept
        As in ``pm.sample``.
    nuts_sampler : {"nutpie", "pymc"}
    native : callable, optional
        nutpie only: returns a ready nutpie model of the same density as
        ``build()`` (with a ``with_data`` method), used instead of compiling
        ``build()`` when :data:`USE_NATIVE` is true. Any exception falls back to
        the compiled PyMC model.
    """
    if nuts_sampler == "nutpie" and _nutpie_available():
        import nutpie

        use_native = native is not None and USE_NATIVE
        key = None if cache_key is None else (cache_key, "native" if use_native else "pymc")
        compiled = _COMPILED.get(key) if key is not None else None
        if compiled is None and use_native:
            try:
                compiled = native()
            except Exception as err:  # pragma: no cover - depends on the nutpie version
                warnings.warn(
                    f"The native log density is unavailable ({err!r}); compiling the PyMC "
                    "model instead.",
                    RuntimeWarning,
                    stacklevel=3,
                )
                key = None if cache_key is None else (cache_key, "pymc")
                compiled = _COMPILED.get(key) if key is not None else None
        if compiled is None:
            with warnings.catch_warnings():
                # numba explains that the generated wrapper cannot be cached on disk.
                warnings.simplefilter("ignore")
                compiled = nutpie.compile_pymc_model(build())
        if key is not None:
            _COMPILED[key] = compiled
        compiled = compiled.with_data(**data) if data else compiled
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            raw = nutpie.sample(
                compiled,
                draws=draws,
                tune=tune,
                chains=chains,
                cores=min(chains, 2),
                seed=seed,
                target_accept=target_accept,
                progress_bar=progressbar,
                return_raw_trace=True,
            )
        return _nutpie_to_idata(raw, compiled)
    if nuts_sampler not in ("nutpie", "pymc"):
        raise ValueError(
            f"The 'nuts_sampler' parameter must be 'nutpie' or 'pymc'. Got {nuts_sampler!r}."
        )
    import pymc as pm

    model = build()
    with model:
        if data:
            pm.set_data(data)
        return pm.sample(
            draws=draws,
            tune=tune,
            chains=chains,
            random_seed=seed,
            progressbar=progressbar,
            target_accept=target_accept,
            compute_convergence_checks=False,
        )


# nutpie's sample statistics that its InferenceData leaves out by default (and the
# chain/draw index columns, which are the coordinates).
_NUTPIE_SKIPPED_STATS = (
    "chain",
    "draw",
    "gradient",
    "unconstrained_draw",
    "mass_matrix_inv",
    "mass_matrix_eigvals",
    "mass_matrix_stds",
    "divergence_start",
    "divergence_end",
    "divergence_momentum",
    "divergence_start_gradient",
)


def _nutpie_to_idata(raw, compiled):
    """nutpie's raw trace -> ``InferenceData(posterior, sample_stats)``, post-warm-up only.

    The same arrays, dims and coordinates as ``nutpie.sample`` returns (it converts
    with nutpie's own column reader), without the warm-up groups, which ``fit``
    discards, and without ``arviz.from_dict``'s per-variable overhead (~0.5 s per
    fit).
    """
    import arviz as az
    import numpy as np
    import xarray as xr
    from arviz.data.base import make_attrs
    from nutpie.sample import _add_arrow_data

    draw_batches, stat_batches = raw.get_arrow_trace()
    n_chains = len(draw_batches)
    n_tune = [int(b.column("tuning").to_numpy().sum()) for b in stat_batches]
    n_post = max(b.num_rows - t for b, t in zip(stat_batches, n_tune, strict=True))
    groups = {}
    coords_all = {name: np.asarray(vals) for name, vals in (compiled.coords or {}).items()}
    for group, batches, skip in (
        ("posterior", draw_batches, []),
        ("sample_stats", stat_batches, list(_NUTPIE_SKIPPED_STATS)),
    ):
        arrays, dims = {}, {}
        for chain, (batch, t) in enumerate(zip(batches, n_tune, strict=True)):
            part = batch.slice(t, batch.num_rows - t)
            _add_arrow_data(arrays, n_post, part, chain, n_chains, dims, skip)
        variables, coords = {}, {"chain": np.arange(n_chains), "draw": np.arange(n_post)}
        for name, values in arrays.items():
            item_dims = list(dims.get(name, []))
            item_dims += [f"{name}_dim_{i}" for i in range(len(item_dims), values.ndim - 2)]
            for dim, size in zip(item_dims, values.shape[2:], strict=True):
                if dim not in coords:
                    coords[dim] = coords_all.get(dim, np.arange(size))
            variables[name] = (("chain", "draw", *item_dims), values)
        groups[group] = xr.Dataset(variables, coords=coords, attrs=make_attrs())
    return az.InferenceData(**groups)
