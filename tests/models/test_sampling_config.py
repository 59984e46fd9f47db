"""Sampling configuration as arguments: sampler (and the deprecated backend), cores, the
bounded cache, fallbacks."""

import warnings

import numpy as np
import pytest

import bayesfair as bf
from bayesfair.exceptions import (
    IgnoredOptionWarning,
    InvalidParameterError,
    SamplingWarning,
)
from bayesfair.models import sampling
from bayesfair.posterior.fitting import SAMPLERS


def _data():
    rng = np.random.default_rng(0)
    s = rng.uniform(0, 1, 80)
    y = (rng.uniform(0, 1, 80) < s).astype(int)
    g = np.where(np.arange(80) % 2 == 0, "A", "B")
    s_u, g_u = rng.uniform(0, 1, 400), np.repeat(["A", "B"], 200)
    return bf.AssessmentData(s, y, g, unlabeled_scores=s_u, unlabeled_groups=g_u, reference="A")


def _draws(res) -> np.ndarray:
    return res.idata.rates["accuracy"].values


def test_no_module_level_switch_changes_results():
    assert not hasattr(sampling, "USE_NATIVE")
    assert sampling.BACKENDS == ("auto", "native", "nutpie", "pymc")
    assert SAMPLERS == ("auto", "exact", "nuts", "native", "nutpie", "pymc")


def test_an_unknown_sampler_lists_the_valid_ones(fast):
    allowed = "'auto', 'exact', 'nuts', 'native', 'nutpie', 'pymc'"
    with pytest.raises(
        InvalidParameterError,
        match=f"The 'sampler' parameter must be one of {allowed}. Got 'nativ'. "
        "Did you mean 'native'",
    ):
        bf.fit(_data(), "bc", metrics=["accuracy"], sampler="nativ", **fast, random_seed=0)
    with pytest.raises(InvalidParameterError, match=f"'sampler'.*{allowed}. Got 3 of type int"):
        bf.fit(_data(), "bb", metrics=["accuracy"], sampler=3, **fast, random_seed=0)


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_every_sampler_samples_bb(sampler, fast):
    """bb with each value: "auto"/"exact" draw from the conjugate posterior, the others
    with NUTS by the implementation they name (bb has no native density: "native" runs
    the compiled PyMC model, as "nutpie" does)."""
    with warnings.catch_warnings():
        # plumbing draws: R-hat (SamplingWarning) and pm.sample's own (RuntimeWarning)
        for category in (RuntimeWarning, SamplingWarning):
            warnings.simplefilter("ignore", category)
        res = bf.fit(_data(), "bb", metrics=["accuracy"], sampler=sampler, **fast, random_seed=0)
    exact = sampler in ("auto", "exact")
    assert res.settings["sampler"] == ("exact" if exact else "nuts")
    assert res.settings["backend"] == (sampler if sampler in sampling.BACKENDS else "auto")
    assert (
        _draws(res).shape == (fast["chains"], fast["draws"], 2) and np.isfinite(_draws(res)).all()
    )
    assert ("sample_stats" in res.idata.children) is not exact


def test_sampler_names_are_case_insensitive(fast):
    res = bf.fit(_data(), "bb", metrics=["accuracy"], sampler=" Exact", **fast, random_seed=0)
    assert res.settings["sampler"] == "exact"


def test_native_on_a_model_without_a_native_density_is_the_compiled_model(fast):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SamplingWarning)  # plumbing draws: R-hat
        a, b = (
            bf.fit(_data(), "bb", metrics=["accuracy"], sampler=s, cores=1, **fast, random_seed=0)
            for s in ("native", "nutpie")
        )
    np.testing.assert_array_equal(_draws(a), _draws(b))


@pytest.mark.slow
def test_native_and_compiled_backends_sample_the_same_posterior(fast):
    data = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        native = bf.fit(
            data, "bc", metrics=["accuracy"], sampler="native", cores=1, **fast, random_seed=0
        )
        pymc = bf.fit(
            data, "bc", metrics=["accuracy"], sampler="nutpie", cores=1, **fast, random_seed=0
        )
    assert native.settings["backend"] == "native" and pymc.settings["backend"] == "nutpie"
    a, b = (r.idata.posterior["mu_c"].values.ravel() for r in (native, pymc))
    # the same density (tests/models/test_native.py checks it to 1e-10); with 200 draws
    # each, means within 4 standard errors of their difference
    se = np.sqrt(a.var() / a.size + b.var() / b.size) * 2  # ESS about half the draws
    assert abs(a.mean() - b.mean()) < 4 * se


def test_options_the_exact_sampler_ignores_are_warned_about(fast):
    with pytest.warns(IgnoredOptionWarning, match="ignores 'cores'; pass sampler='nuts'"):
        bf.fit(_data(), "bb", metrics=["accuracy"], cores=1, **fast, random_seed=0)
    with pytest.raises(TypeError, match="backend"):  # one option says how: 'sampler'
        bf.fit(_data(), "bb", metrics=["accuracy"], backend="nutpie", **fast, random_seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SamplingWarning)  # plumbing draws: R-hat
        warnings.simplefilter("error", IgnoredOptionWarning)  # NUTS uses cores: none ignored
        bf.fit(
            _data(), "bb", metrics=["accuracy"], sampler="nutpie", cores=1, **fast, random_seed=0
        )


@pytest.mark.parametrize(
    ("model", "kwargs", "message"),
    [("bc", {"sampler": "exact"}, "sampler='exact' exists only for model='bb'")],
)
def test_conflicting_choices_raise(model, kwargs, message, fast):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # raised before any warning
        with pytest.raises(InvalidParameterError, match=message):
            bf.fit(_data(), model, metrics=["accuracy"], **kwargs, **fast, random_seed=0)


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

    kwargs = dict(
        cache_key=("toy",),
        data={},
        draws=20,
        tune=20,
        chains=1,
        random_seed=1,
        progressbar=False,
        target_accept=0.8,
        native=broken,
    )
    with pytest.warns(RuntimeWarning, match="remembered"):
        sampling.sample_model(build, **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        idata = sampling.sample_model(build, **kwargs)  # no second attempt, no second warning
    assert len(calls) == 1
    assert idata.posterior["x"].shape == (1, 20)


def test_an_untested_nutpie_version_uses_the_public_path(monkeypatch, fast):
    import nutpie

    monkeypatch.setattr(nutpie, "__version__", "9.9.0")
    assert not sampling.nutpie_version_tested()
    # the cache is kept: the compiled PyMC model of the test above (same data) is reused
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit(_data(), "bc", metrics=["accuracy"], **fast, random_seed=0)
    # the compiled PyMC model (no native density), converted by nutpie itself
    assert sampling.CACHE.keys()[-1][1] == "pymc"
    assert res.idata.posterior.sizes["draw"] == fast["draws"]
    assert "warmup_posterior" not in res.idata.children


def test_a_cached_compiled_model_samples_each_fit_s_own_data(fast):
    """The second fit of the same structure reuses the compiled PyMC model and must read
    its own counts (nutpie 0.16.11 keys its data by identifiers, not names: a filter on
    the names once dropped every container, so every later fit sampled the first data).
    bb under NUTS against the exact Beta posterior mean of each data set."""
    from scipy import stats

    rng = np.random.default_rng(5)
    fits = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SamplingWarning)  # plumbing draws: R-hat
        for p in (0.2, 0.8):  # the same structure (two groups, one metric), other counts
            s = rng.uniform(size=200)
            y = (rng.uniform(size=200) < np.where(s > 0.5, p, 1 - p)).astype(int)
            data = bf.AssessmentData(s, y, np.repeat(["a", "b"], 100))
            res = bf.fit(data, "bb", metrics=["accuracy"], sampler="nutpie", **fast, random_seed=0)
            x, n = (data.labeled_examples.confusion_counts()[:, [0, 2]].sum(1), 100)
            fits.append((res.rates("accuracy").mean(("chain", "draw")).values, x, n))
    for draws_mean, x, n in fits:
        exact = stats.beta(1 + x, 1 + n - x)
        # 200 draws, an effective size of at least 20: the mean is within 4 sd / sqrt(20)
        np.testing.assert_array_less(np.abs(draws_mean - exact.mean()), 4 * exact.std() / 20**0.5)
