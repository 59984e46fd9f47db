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
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Hashable

__all__ = ["clear_cache", "sample_model"]

_COMPILED: dict[Hashable, object] = {}


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
    """
    if nuts_sampler == "nutpie" and _nutpie_available():
        import nutpie

        compiled = _COMPILED.get(cache_key) if cache_key is not None else None
        if compiled is None:
            with warnings.catch_warnings():
                # numba explains that the generated wrapper cannot be cached on disk.
                warnings.simplefilter("ignore")
                compiled = nutpie.compile_pymc_model(build())
            if cache_key is not None:
                _COMPILED[cache_key] = compiled
        compiled = compiled.with_data(**data) if data else compiled
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            return nutpie.sample(
                compiled,
                draws=draws,
                tune=tune,
                chains=chains,
                cores=min(chains, 2),
                seed=seed,
                target_accept=target_accept,
                progress_bar=progressbar,
            )
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
