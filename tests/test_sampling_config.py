"""Sampling configuration as arguments: backend, cores, the bounded cache, fallbacks."""

import warnings

import numpy as np
import pytest

import bayesfair as bf
from bayesfair import sampling
from bayesfair.exceptions import IgnoredOptionWarning

FAST = dict(draws=100, tune=100, chains=2, progressbar=False, random_seed=0)


def _data():
    rng = np.random.default_rng(0)
    s = rng.uniform(0, 1, 80)
    y = (rng.uniform(0, 1, 80) < s).astype(int)
    g = np.where(np.arange(80) % 2 == 0, "A", "B")
    s_u, g_u = rng.uniform(0, 1, 400), np.repeat(["A", "B"], 200)
    return bf.AssessmentData(s, y, g, unlabeled_scores=s_u, unlabeled_groups=g_u, reference="A")


def test_no_module_level_switch_changes_results():
    assert not hasattr(sampling, "USE_NATIVE")
    assert sampling.BACKENDS == ("auto", "native", "nutpie", "pymc")


def test_an_unknown_backend_lists_the_valid_ones():
    with pytest.raises(ValueError, match="Did you mean 'native'.*auto, native, nutpie, pymc"):
        bf.fit(_data(), "bc", metrics=["accuracy"], backend="nativ", **FAST)


def test_native_and_compiled_backends_sample_the_same_posterior():
    data = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        native = bf.fit(data, "bc", metrics=["accuracy"], backend="native", cores=1, **FAST)
        pymc = bf.fit(data, "bc", metrics=["accuracy"], backend="nutpie", cores=1, **FAST)
    assert native.settings["backend"] == "native" and pymc.settings["backend"] == "nutpie"
    a, b = (r.idata.posterior["mu_c"].values.ravel() for r in (native, pymc))
    # the same density (tests/models/test_native.py checks it to 1e-10); with 200 draws
    # each, means within 4 standard errors of their difference
    se = np.sqrt(a.var() / a.size + b.var() / b.size) * 2  # ESS about half the draws
    assert abs(a.mean() - b.mean()) < 4 * se


def test_options_the_exact_sampler_ignores_are_warned_about():
    with pytest.warns(IgnoredOptionWarning, match="ignores 'backend', 'cores'"):
        bf.fit(_data(), "bb", metrics=["accuracy"], backend="nutpie", cores=1, **FAST)


def test_the_cache_is_bounded_and_least_recently_used_goes_first():
    cache = sampling.ModelCache(maxsize=2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # "a" is now the most recent
    cache.put("c", 3)
    assert cache.keys() == ["a", "c"] and cache.get("b") is None
    with pytest.raises(ValueError, match="maxsize"):
        sampling.ModelCache(0)


def test_a_failed_native_compile_is_remembered(monkeypatch):
    calls = []

    def broken():
        calls.append(1)
        raise RuntimeError("no native density here")

    monkeypatch.setattr(sampling, "CACHE", sampling.ModelCache())
    import pymc as pm

    def build():
        with pm.Model() as model:
            pm.Normal("x", 0.0, 1.0)
        return model

    kwargs = dict(cache_key=("toy",), data={}, draws=20, tune=20, chains=1, seed=1,
                  progressbar=False, target_accept=0.8, native=broken)  # fmt: skip
    with pytest.warns(RuntimeWarning, match="remembered"):
        sampling.sample_model(build, **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        idata = sampling.sample_model(build, **kwargs)  # no second attempt, no second warning
    assert len(calls) == 1
    assert idata.posterior["x"].shape == (1, 20)


def test_an_untested_nutpie_version_uses_the_public_path(monkeypatch):
    import nutpie

    monkeypatch.setattr(nutpie, "__version__", "9.9.0")
    assert not sampling.nutpie_version_tested()
    # the cache is kept: the compiled PyMC model of the test above (same data) is reused
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit(_data(), "bc", metrics=["accuracy"], **FAST)
    # the compiled PyMC model (no native density), converted by nutpie itself
    assert sampling.CACHE.keys()[-1][1] == "pymc"
    assert res.idata.posterior.sizes["draw"] == 100
    assert "warmup_posterior" not in res.idata.groups()
