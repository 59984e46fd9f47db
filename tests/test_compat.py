"""The module paths before 0.4 (``bayesfair._compat``): they load the moved module, the
same object, with a ``FutureWarning`` at the importing line."""

import importlib
import sys
import warnings

import pytest

import bayesfair as bf
from bayesfair._compat import MOVED, new_name


@pytest.mark.parametrize("old", sorted(MOVED))
def test_every_old_path_loads_the_module_at_its_new_path(old, monkeypatch):
    monkeypatch.delitem(sys.modules, f"bayesfair.{old}", raising=False)
    with pytest.warns(FutureWarning, match=f"bayesfair.{old} moved to bayesfair.{MOVED[old]}"):
        module = importlib.import_module(f"bayesfair.{old}")
    assert module is importlib.import_module(f"bayesfair.{MOVED[old]}")


def test_the_warning_points_at_the_importing_line(monkeypatch):
    monkeypatch.delitem(sys.modules, "bayesfair.fitting", raising=False)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        from bayesfair.fitting import fit  # the line the warning names
    line = sys._getframe().f_lineno - 1
    assert fit is bf.fit
    assert [(w.category, w.filename, w.lineno) for w in record] == [(FutureWarning, __file__, line)]


def test_a_moved_subpackage_s_modules_are_not_loaded_twice(monkeypatch):
    for name in ("bayesfair.engines", "bayesfair.engines.numpy"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    with pytest.warns(FutureWarning) as record:
        old = importlib.import_module("bayesfair.engines.numpy")
    moved = sorted(str(w.message).split()[0] for w in record)
    assert moved == ["bayesfair.engines", "bayesfair.engines.numpy"]
    new = importlib.import_module("bayesfair.data.engines.numpy")
    assert old is new
    assert old.__name__ == "bayesfair.data.engines.numpy"


def test_the_old_compare_module_path_keeps_bf_compare_the_function(monkeypatch):
    monkeypatch.delitem(sys.modules, "bayesfair.compare", raising=False)
    with pytest.warns(FutureWarning):
        from bayesfair.compare import Comparison
    assert callable(bf.compare) and not isinstance(bf.compare, type(sys))
    assert Comparison is bf.Comparison


def test_packages_that_kept_their_names_load_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from bayesfair.data import AssessmentData
        from bayesfair.metrics import get_rate
        from bayesfair.posterior import FairnessPosterior
        from bayesfair.report import comparison_markdown
    assert AssessmentData is bf.AssessmentData and FairnessPosterior is bf.FairnessPosterior
    assert get_rate("tpr").name == "tpr" and callable(comparison_markdown)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("bayesfair.fitting", "bayesfair.posterior.fitting"),
        ("bayesfair.engines.dask", "bayesfair.data.engines.dask"),
        ("bayesfair.posterior.fitting", None),  # a new path is not an old one
        ("bayesfair.datasets", None),  # never moved
        ("bayesfair.fittings", None),  # only whole names
        ("bayesfair", None),
        ("numpy.fitting", None),
    ],
)
def test_new_name(name, expected):
    assert new_name(name) == expected
