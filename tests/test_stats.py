"""bayesfair.stats: the one interval type, HDI/ETI against ArviZ, and every public interval.

``test_every_public_interval_is_an_interval`` walks ``bayesfair.__all__`` and
``bayesfair.frequentist.__all__``: every result type with an interval field
declares it an :class:`~bayesfair.Interval`, and every function or method that
returns an interval returns one, whatever its arguments.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
import typing

import numpy as np
import pytest

import bayesfair as bf
import bayesfair.frequentist as fq
from bayesfair import Interval
from bayesfair.stats import eti, hdi


def test_interval_is_a_pair_with_its_level_and_kind():
    iv = Interval(0.1, 0.4, ci_prob=0.9, kind="eti")
    lo, hi = iv
    assert (lo, hi) == (0.1, 0.4) and iv == (0.1, 0.4) and len(iv) == 2
    assert iv.lower == 0.1 and iv.upper == 0.4 and iv.ci_prob == 0.9 and iv.kind == "eti"
    assert iv.width == pytest.approx(0.3)
    np.testing.assert_array_equal(np.asarray(iv), [0.1, 0.4])
    for twin in (pickle.loads(pickle.dumps(iv)), copy.deepcopy(iv)):
        assert twin == iv and (twin.ci_prob, twin.kind) == (0.9, "eti")
    with pytest.raises(AttributeError):
        iv.kind = "hdi"
    assert repr(iv) == "Interval(lower=0.1, upper=0.4, ci_prob=0.9, kind='eti')"


@pytest.mark.parametrize("n", [10, 101, 1000, 4000])
@pytest.mark.parametrize("ci_prob", [0.5, 0.9, 0.95])
def test_hdi_and_eti_equal_arviz_and_numpy(n, ci_prob):
    import arviz_stats as azs

    x = np.random.default_rng(n).gamma(2.0, size=n)
    np.testing.assert_array_equal(hdi(x, ci_prob), azs.hdi(x, ci_prob))
    np.testing.assert_array_equal(
        eti(x, ci_prob), np.quantile(x, [(1 - ci_prob) / 2, (1 + ci_prob) / 2])
    )
    assert hdi(x, ci_prob).kind == "hdi" and eti(x, ci_prob).kind == "eti"


def test_intervals_drop_nan_draws_and_are_nan_without_draws():
    x = np.r_[np.linspace(0, 1, 101), np.nan]
    assert hdi(x, 0.5) == hdi(x[:-1], 0.5)
    assert np.isnan(hdi([np.nan], 0.9)).all() and np.isnan(eti([], 0.9)).all()


def _types(module) -> list[type]:
    return [obj for name in module.__all__ if inspect.isclass(obj := getattr(module, name))]


def test_every_result_type_declares_its_intervals_as_interval():
    fields = []
    for cls in _types(bf) + _types(fq):
        if not dataclasses.is_dataclass(cls):
            continue
        hints = typing.get_type_hints(cls)
        for f in dataclasses.fields(cls):
            if f.name.endswith("interval"):
                fields.append(f"{cls.__name__}.{f.name}")
                assert hints[f.name] is Interval, f"{cls.__name__}.{f.name}: {hints[f.name]}"
    assert len(fields) >= 6  # bootstrap, Bernstein, PPI (2), PPI variance (2)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    n, m = 300, 3000
    g, gu = rng.choice(["A", "B"], n), rng.choice(["A", "B"], m)
    s, su = rng.uniform(size=n), rng.uniform(size=m)
    y = (rng.uniform(size=n) < s).astype(int)
    return bf.AssessmentData(s, y, g, su, gu)


def test_every_public_interval_is_an_interval(data):
    x, n = np.array([30, 40, 25]), np.array([50, 60, 70])
    draws = np.random.default_rng(1).normal(size=(4, 500))
    boot = fq.double_corrected_bootstrap_counts(x, n, n_resamples=200, random_seed=0)
    ppi = fq.ppi_difference(data, "tpr", random_seed=0)
    var = fq.ppi_between_group_variance(data, "tpr", n_resamples=200, random_seed=0)
    res = bf.fit(data, "bb", metrics=["accuracy"], draws=200, chains=2, random_seed=0)
    found = {
        "wilson_interval": fq.wilson_interval(x, n),
        "wilson_interval (scalar)": fq.wilson_interval(3, 10),
        "newcombe_interval": fq.newcombe_interval(30, 50, 40, 60),
        "percentile_interval": fq.percentile_interval(draws[0], 0.9),
        "percentile_interval (rows)": fq.percentile_interval(draws, 0.9),
        "bootstrap_difference": fq.bootstrap_difference(30, 50, 40, 60, n_resamples=200).interval,
        "bernstein_interval": fq.bernstein_interval(data, "accuracy").interval,
        "ppi_mean_interval": fq.ppi_mean_interval([0, 1, 1], [0.2, 0.8, 0.6], [0.5])[1],
        "ppi_difference": ppi.interval,
        "ppi_difference (classical)": ppi.classical_interval,
        "ppi_differences": fq.ppi_differences(data, "tpr", random_seed=0)[0].interval,
        "ppi_between_group_variance": var.interval,
        "ppi_between_group_variance (classical)": var.classical_interval,
        "double_corrected_bootstrap_counts": boot.double_corrected.interval,
        "stats.hdi of a difference": bf.stats.hdi(res.difference("accuracy")),
        "stats.eti of a difference": bf.stats.eti(res.difference("accuracy")),
    }
    for est in (boot.uncorrected, boot.corrected):
        assert isinstance(est.interval, Interval)
    for name, iv in found.items():
        assert isinstance(iv, Interval), name
        assert 0 < iv.ci_prob < 1 and iv.kind, name
        assert np.all(np.asarray(iv.lower) <= np.asarray(iv.upper)), name
    kinds = {iv.kind for iv in found.values()}
    assert kinds == {
        "wilson",
        "newcombe",
        "percentile bootstrap",
        "bernstein",
        "ppi",
        "classical",
        "hdi",
        "eti",
    }


def test_tables_name_their_bounds_lower_and_upper(data):
    """Every table column of a bound ends in ``lower`` or ``upper``, in pairs."""
    res = bf.fit(data, "bb", metrics=["accuracy"], draws=200, chains=2, random_seed=0)
    tables = [
        res.summary(),
        fq.rate_intervals(data, "accuracy"),
        fq.difference_intervals(data, "accuracy", n_resamples=200, random_seed=0),
        fq.ppi_difference(data, "tpr", random_seed=0).to_frame(),
        fq.bernstein_interval(data, "accuracy").to_frame(),
        fq.double_corrected_bootstrap(data, "accuracy", n_resamples=200, random_seed=0).to_frame(),
    ]
    for table in tables:
        lowers = {c.removesuffix("lower") for c in table.columns if c.endswith("lower")}
        uppers = {c.removesuffix("upper") for c in table.columns if c.endswith("upper")}
        assert lowers and lowers == uppers, list(table.columns)


def test_results_holding_intervals_convert_with_asdict_and_scalars_give_floats():
    b = fq.bootstrap_difference(30, 50, 40, 60, n_resamples=100, random_seed=0)
    as_dict = dataclasses.asdict(b)
    assert as_dict["interval"] == b.interval
    lo, hi = fq.wilson_interval(3, 10)
    assert type(lo) is float and type(hi) is float
    lo, hi = fq.newcombe_interval(3, 10, 4, 10)
    assert type(lo) is float and type(hi) is float
    with pytest.raises(bf.exceptions.InvalidParameterError, match="'ci_prob'"):
        hdi([1.0, 2.0, 3.0], 1.5)
    with pytest.raises(bf.exceptions.InvalidParameterError, match="'ci_prob'"):
        eti([1.0, 2.0, 3.0], 0)
