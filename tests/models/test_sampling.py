"""bayesfair.models.sampling: the compiled-model cache, the backends, sample_model and the
conversion of nutpie's raw trace.

fit's sampler options (and the cache's eviction, a failed native compile, an untested
nutpie) are tested in tests/models/test_sampling_config.py. The model sampled here is the
native calibration density (numba-cached: no compile per test).
"""

import warnings

import numpy as np
import pytest

from bayesfair.data.summary import summarize_arrays
from bayesfair.exceptions import InvalidParameterError
from bayesfair.models import sampling
from bayesfair.models._calibration_native import compile_native_calibration
from bayesfair.models.calibration import CalibrationPriors, likelihood_data
from bayesfair.models.sampling import (
    BACKENDS,
    TESTED_NUTPIE,
    ModelCache,
    check_backend,
    clear_cache,
    nutpie_to_idata,
    nutpie_version_tested,
    sample_model,
)


def _data(n=80, k=2, seed=0):
    """A labeled summary of ``n`` random rows in ``k`` groups."""
    rng = np.random.default_rng(seed)
    s = np.clip(rng.uniform(0, 1, n), 0.01, 0.99)
    y = (rng.uniform(0, 1, n) < s).astype(int)
    g = rng.integers(0, k, n)
    return summarize_arrays(s, g, range(k), labels=y)


def test_raw_trace_conversion_matches_nutpie():
    import nutpie

    nat = compile_native_calibration("beta", CalibrationPriors(), 2).with_data(
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


# ------------------------------------------------------------------ the cache
def test_the_cache_s_bookkeeping():
    cache = ModelCache(maxsize=3)
    assert cache.get(None) is None and cache.get("x") is None
    cache.put(None, "ignored")
    assert len(cache) == 0
    for key in ("a", "b", "c"):
        cache.put(key, key.upper())
    cache.put("a", "A2")  # stored again: the newest
    assert list(cache) == ["b", "c", "a"] and cache.keys() == ["b", "c", "a"]
    assert cache.get("a") == "A2" and len(cache) == 3
    cache.put("d", "D")
    assert cache.keys() == ["c", "a", "d"]
    cache.clear()
    assert len(cache) == 0 and cache.get("a") is None
    for bad in (0, True, 2.0, "3"):
        with pytest.raises(InvalidParameterError, match="'maxsize' parameter must be an integer"):
            ModelCache(bad)


def test_clear_cache_forgets_the_process_s_models(monkeypatch):
    monkeypatch.setattr(sampling, "CACHE", ModelCache())
    sampling.CACHE.put(("model",), object())
    clear_cache()
    assert len(sampling.CACHE) == 0


# ------------------------------------------------------------------ backends and versions
def test_backend_names():
    assert BACKENDS == ("auto", "native", "nutpie", "pymc")
    assert check_backend("NutPie") == "nutpie" and check_backend(" pymc ") == "pymc"
    with pytest.raises(InvalidParameterError, match="Unknown backend 'stan'"):
        check_backend("stan")


@pytest.mark.parametrize(
    ("version", "tested"),
    [("0.16.0", True), ("0.16.9", True), ("0.15.2", False), ("1.16.0", False)],
)
def test_the_nutpie_versions_whose_private_api_is_used(monkeypatch, version, tested):
    import nutpie

    assert TESTED_NUTPIE == ("0.16",)
    monkeypatch.setattr(nutpie, "__version__", version)
    assert nutpie_version_tested() is tested


# ------------------------------------------------------------------ sample_model
def test_a_native_model_is_compiled_once_per_key_and_reused_with_new_data(monkeypatch):
    monkeypatch.setattr(sampling, "CACHE", ModelCache())
    calls = []

    def native():
        calls.append(1)
        return compile_native_calibration("beta", CalibrationPriors(), 2)

    def build():
        raise AssertionError("the PyMC model is not needed")

    kw = dict(draws=30, tune=30, chains=1, cores=1, progressbar=False, target_accept=0.9)
    run = dict(build=build, cache_key=("toy-bc", 2), native=native, **kw)
    first = sample_model(data=likelihood_data(_data(seed=1)), random_seed=4, **run)
    same = sample_model(data=likelihood_data(_data(seed=1)), random_seed=4, **run)
    other = sample_model(data=likelihood_data(_data(seed=2)), random_seed=4, **run)
    assert len(calls) == 1 and sampling.CACHE.keys() == [(("toy-bc", 2), "native")]
    assert first.posterior["a"].shape == (1, 30, 2)
    assert set(first.children) == {"posterior", "sample_stats"}
    np.testing.assert_array_equal(first.posterior["a"].values, same.posterior["a"].values)
    assert not np.array_equal(first.posterior["a"].values, other.posterior["a"].values)


def test_nutpie_is_imported_without_arviz_until_arviz_is_used():
    """The placeholder defers ArviZ's import (most of a first answer's wait): a fit loads
    only arviz-stats' array functions for its diagnostics (and arviz-base with them), never
    ArviZ's plots, and anything that uses ArviZ gets the real module: nutpie's own public
    results, and a user's ``import arviz`` (the same module object)."""
    import subprocess
    import sys

    code = """
import sys, warnings
import numpy as np
from bayesfair.models.sampling import import_nutpie
nutpie = import_nutpie()
print("after nutpie", "arviz_base" in sys.modules)
from bayesfair.datasets import load_assessment
import bayesfair as bf
data = load_assessment("adult-sex", "MLP", n_labeled=60, random_seed=0)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    bf.fit(data, metrics=["accuracy"], draws=100, tune=100, chains=2, random_seed=0,
           progressbar=False)
print("after fit", "arviz_stats" in sys.modules, "arviz_plots" in sys.modules)
import arviz_plots  # a part of ArviZ on its own first: it scans sys.modules as it loads
from bayesfair.models._calibration_native import compile_native_calibration
from bayesfair.models.calibration import CalibrationPriors, likelihood_data
nat = compile_native_calibration("beta", CalibrationPriors(), 2).with_data(
    **likelihood_data(data.labeled_summary()))
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    tree = nutpie.sample(nat, draws=20, tune=20, chains=1, progress_bar=False)
print("public result", type(tree).__name__, "a" in nat.complete_posterior(tree).posterior)
import arviz
print("same module", arviz is sys.modules["arviz"], callable(arviz.from_dict))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:4] == [
        "after nutpie False",
        "after fit True False",
        "public result DataTree True",
        "same module True True",
    ]
