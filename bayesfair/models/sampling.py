"""Sampling PyMC models, with compiled models cached across calls.

Model builders (:mod:`bayesfair.models`) only describe models; this module
samples them. The default NUTS sampler is nutpie (Rust NUTS over a
numba-compiled log density); ``sampler="pymc"`` of :func:`bayesfair.fit`
(``backend="pymc"`` here) uses ``pm.sample``.

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
gradient is several times cheaper).

Backends (``backend=`` of :func:`sample_model`; :func:`bayesfair.fit` takes them as
its ``sampler=``, where ``"nuts"`` is ``"auto"``):

* ``"auto"`` (default): the native density when the model has one and the
  installed nutpie is a tested version (:data:`TESTED_NUTPIE`), else the PyMC
  model compiled for nutpie;
* ``"native"``: the native density (it falls back, with a warning, where it is
  unavailable);
* ``"nutpie"``: the PyMC model compiled for nutpie (the reference the native
  density is tested against);
* ``"pymc"``: ``pm.sample``.

The native density and the fast trace conversion use nutpie's private API;
both run only on the nutpie versions in :data:`TESTED_NUTPIE` and fall back to
nutpie's public functions on any other version or any failure. A failed native
compile is remembered for the process, not retried on every fit.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import types
import warnings
from collections import OrderedDict
from collections.abc import Callable, Hashable

from bayesfair._internal.names import resolve_name
from bayesfair._internal.tree import get_group, has_group, make_tree
from bayesfair.exceptions import InvalidParameterError

#: The sampling backends (module docstring).
BACKENDS = ("auto", "native", "nutpie", "pymc")

#: nutpie versions (major.minor) whose private API the fast paths use.
TESTED_NUTPIE = ("0.16",)

_FAILED = object()  # a cache entry: this native compile failed in this process


class ModelCache:
    """Compiled models by structure key, least recently used first out.

    Parameters
    ----------
    maxsize : int
        Models kept; a compiled PyMC model holds tens of MB, a native one little.
    """

    def __init__(self, maxsize: int = 32):
        if isinstance(maxsize, bool) or not isinstance(maxsize, int) or maxsize < 1:
            raise InvalidParameterError(
                f"The 'maxsize' parameter must be an integer >= 1. Got {maxsize!r}."
            )
        self.maxsize = maxsize
        self._items: OrderedDict[Hashable, object] = OrderedDict()

    def get(self, key: Hashable):
        if key is None or key not in self._items:
            return None
        self._items.move_to_end(key)
        return self._items[key]

    def put(self, key: Hashable, value) -> None:
        """Store ``value`` under ``key`` as the most recently used, evicting the least
        recently used beyond ``maxsize``.

        Parameters
        ----------
        key : hashable or None
            Structure key; None stores nothing.
        value : object
            The compiled model (or the marker of a failed native compile).
        """
        if key is None:
            return
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.maxsize:
            self._items.popitem(last=False)

    def clear(self) -> None:
        self._items.clear()

    def keys(self) -> list:
        return list(self._items)

    def __iter__(self):
        return iter(list(self._items))

    def __len__(self) -> int:
        return len(self._items)


#: The process's compiled models.
CACHE = ModelCache()


def clear_cache() -> None:
    """Forget compiled models and remembered failures (the next fit compiles again)."""
    CACHE.clear()


def _initializing(name: str) -> bool:
    """Whether the module ``name`` is being imported right now."""
    module = sys.modules.get(name)
    spec = getattr(module, "__spec__", None) if module is not None else None
    return bool(getattr(spec, "_initializing", False))


class _DeferredModule(types.ModuleType):
    """A placeholder in ``sys.modules`` that imports the real module on first use.

    It carries the real module's spec (so that an ``import`` statement finds it
    and asks nothing more), and the first attribute read that it lacks imports
    the real module (unchanged, as a plain ``import`` would), takes its place in
    ``sys.modules`` and copies its namespace, so that code holding the
    placeholder sees the real module from then on.
    """

    _parts: tuple[str, ...] = ()  # the packages the real module is made of

    def __getattr__(self, name):
        if any(_initializing(m) for m in self._parts):
            # a part of the real module is being imported on its own (``import
            # arviz_plots``) and something scans sys.modules meanwhile: loading the
            # whole now would import that part half-made
            raise AttributeError(name)
        real_name = self.__spec__.name
        if sys.modules.get(real_name) is self:
            del sys.modules[real_name]
        real = importlib.import_module(real_name)
        self.__dict__.update(real.__dict__)
        return getattr(real, name)


def import_nutpie():
    """``nutpie``, imported without loading ArviZ until something uses ArviZ.

    nutpie imports all of ArviZ at its top (a third of a first answer's wait:
    ``docs/benchmarks.md``, "Start-up") to build the results of its public
    ``sample``. bayesfair reads nutpie's raw trace instead (:func:`nutpie_to_idata`)
    and needs none of it, so when ArviZ is not imported yet, ``sys.modules["arviz"]``
    is first a placeholder that imports ArviZ the first time anything reads from it
    (nutpie's public results, a user's ``import arviz`` followed by any use). The
    standard library's ``importlib.util.LazyLoader`` cannot serve: on Python 3.12 an
    ``import`` statement reads the module's ``__spec__``, which loads it.
    """
    if "nutpie" not in sys.modules and "arviz" not in sys.modules:
        spec = importlib.util.find_spec("arviz")
        if spec is not None:
            placeholder = _DeferredModule("arviz")
            placeholder._parts = ("arviz_base", "arviz_stats", "arviz_plots")
            placeholder.__spec__ = spec
            placeholder.__file__ = spec.origin
            placeholder.__path__ = list(spec.submodule_search_locations or [])
            placeholder.__loader__ = spec.loader
            placeholder.__package__ = "arviz"
            sys.modules["arviz"] = placeholder
    import nutpie

    return nutpie


def nutpie_version_tested() -> bool:
    """Whether the installed nutpie is one whose private API the fast paths were tested on."""
    try:
        nutpie = import_nutpie()
    except ImportError:  # pragma: no cover - nutpie is a dependency
        return False
    return ".".join(nutpie.__version__.split(".")[:2]) in TESTED_NUTPIE


def check_backend(backend) -> str:
    """The canonical backend name; an unknown one lists the valid ones."""
    return resolve_name(backend, dict.fromkeys(BACKENDS), what="backend", argument="backend")


def sample_model(
    build: Callable[[], object],
    *,
    cache_key: Hashable | None,
    data: dict,
    draws: int,
    tune: int,
    chains: int,
    random_seed: int,
    progressbar: bool,
    target_accept: float,
    backend: str = "auto",
    cores: int | None = None,
    native: Callable[[], object] | None = None,
):
    """Sample a model with NUTS and return its draws as an ``xarray.DataTree``.

    Parameters
    ----------
    build : callable
        Returns the ``pm.Model``; called only when no compiled model is cached.
    cache_key : hashable or None
        Structure key for the compiled-model cache (None: do not cache).
    data : dict
        Values of the model's ``pm.Data`` containers for this fit.
    draws, tune, chains, random_seed, progressbar, target_accept
        As in ``pm.sample`` (``random_seed`` an int).
    backend : {"auto", "native", "nutpie", "pymc"}
        Module docstring.
    cores : int, optional
        Chains run in parallel; default ``min(chains, os.cpu_count())``.
    native : callable, optional
        Returns a ready nutpie model of the same density as ``build()`` (with a
        ``with_data`` method). Any exception falls back to the compiled PyMC model.
    """
    backend = check_backend(backend)
    if cores is None:
        cores = min(chains, os.cpu_count() or 1)
    if backend == "pymc":
        return _sample_pymc(
            build, data, draws, tune, chains, cores, random_seed, progressbar, target_accept
        )
    nutpie = import_nutpie()
    tested = nutpie_version_tested()
    use_native = native is not None and (backend == "native" or (backend == "auto" and tested))
    compiled = None
    if use_native:
        key = None if cache_key is None else (cache_key, "native")
        compiled = CACHE.get(key)
        if compiled is _FAILED:
            compiled = None
        elif compiled is None:
            try:
                compiled = native()
                CACHE.put(key, compiled)
            except Exception as err:
                CACHE.put(key, _FAILED)
                warnings.warn(
                    f"The native log density is unavailable ({err!r}); compiling the PyMC "
                    "model instead (remembered for this process).",
                    RuntimeWarning,
                    stacklevel=3,
                )
    compiled_pymc = compiled is None
    if compiled is None:
        key = None if cache_key is None else (cache_key, "pymc")
        compiled = CACHE.get(key)
        if compiled is None:
            with warnings.catch_warnings():
                # numba explains that the generated wrapper cannot be cached on disk.
                warnings.simplefilter("ignore")
                compiled = nutpie.compile_pymc_model(build())
            CACHE.put(key, compiled)
    if data and compiled_pymc:
        # nutpie keeps only the containers the compiled graph reads (bc ignores 'side')
        data = {k: v for k, v in data.items() if k in _shared_names(compiled)}
    compiled = compiled.with_data(**data) if data else compiled
    # save_warmup=False: fit discards the warm-up draws, so nutpie need not store them
    options = dict(
        draws=draws,
        tune=tune,
        chains=chains,
        cores=cores,
        seed=random_seed,
        target_accept=target_accept,
        progress_bar=progressbar,
        save_warmup=False,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        tree = None
        if tested:
            raw = nutpie.sample(compiled, return_raw_trace=True, **options)
            try:
                tree = nutpie_to_idata(raw, compiled)
            except Exception as err:  # pragma: no cover - a nutpie change
                warnings.warn(
                    f"nutpie's raw trace could not be read ({err!r}); sampling again through "
                    "nutpie's public interface.",
                    RuntimeWarning,
                    stacklevel=3,
                )
        if tree is None:
            tree = _public_idata(nutpie.sample(compiled, **options))
    # a native model stores the free points; it adds each draw's deterministics itself
    complete = getattr(compiled, "complete_posterior", None)
    return tree if complete is None else complete(tree)


def _shared_names(compiled) -> set[str]:
    """The names of the data containers a compiled PyMC model reads.

    Where nutpie keeps the names on ``shared_var_keys``' variables (0.16.11 keys
    ``shared_data`` by an identifier of its own), they are read there; otherwise the
    keys of ``shared_data`` are the names. A filter on nutpie 0.16.11's keys alone
    would drop every container, and each fit would sample the data the model was
    compiled with.
    """
    keys = getattr(compiled, "shared_var_keys", None)
    if keys:
        return {var.name for var in keys}
    return set(compiled.shared_data)


def _public_idata(idata):
    """nutpie's own result, without the warm-up groups (as the fast path returns)."""
    names = ("posterior", "sample_stats")
    return make_tree({g: get_group(idata, g) for g in names if has_group(idata, g)})


def _sample_pymc(build, data, draws, tune, chains, cores, seed, progressbar, target_accept):
    import pymc as pm

    model = build()
    with model:
        if data:
            pm.set_data(data)
        return pm.sample(
            draws=draws,
            tune=tune,
            chains=chains,
            cores=cores,
            random_seed=seed,
            progressbar=progressbar,
            target_accept=target_accept,
            compute_convergence_checks=False,
        )


# nutpie's sample statistics that its result leaves out by default (and the
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
    "transformed_position",
    "transformed_gradient",
    "transformation_mu",
)


def nutpie_to_idata(raw, compiled):
    """nutpie's raw trace -> a tree of ``posterior`` and ``sample_stats``, post-warm-up only.

    The same arrays, dims and coordinates as ``nutpie.sample`` returns (it converts
    with nutpie's own column reader), without the warm-up groups, which ``fit``
    discards, and without ``arviz_base.from_dict``'s per-variable overhead.
    """
    import numpy as np
    import xarray as xr
    from nutpie import __version__ as nutpie_version
    from nutpie.sample import _add_arrow_data

    draw_batches, stat_batches = raw.get_arrow_trace()
    n_chains = len(draw_batches)
    n_tune = [int(b.column("tuning").to_numpy().sum()) for b in stat_batches]
    n_post = max(b.num_rows - t for b, t in zip(stat_batches, n_tune, strict=True))
    groups = {}
    coords_all = {name: np.asarray(vals) for name, vals in (compiled.coords or {}).items()}
    attrs = {"inference_library": "nutpie", "inference_library_version": nutpie_version}
    for group_name, batches, skip in (
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
        groups[group_name] = xr.Dataset(variables, coords=coords, attrs=attrs)
    return make_tree(groups)
