"""Bad input to every public function that takes the package's objects, generated (as
scikit-learn's ``test_public_functions``): a function whose first argument is the data,
a result or a comparison, given something else, raises ``InvalidParameterError``
naming that argument, not an ``AttributeError`` from deep inside."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import bayesfair
from bayesfair.exceptions import InvalidParameterError

#: The names a first argument has when it is one of the package's objects.
OBJECT_ARGUMENTS = {"data", "result", "posterior", "comparison", "comp", "res"}
#: Functions whose first argument takes more than one kind of object (checked by them).
OWN_CHECKS = {
    "bayesfair.labels.planner.plan_labels",  # AssessmentData or an unlabeled ScoreSummary
    "bayesfair.plots.plot_bootstrap_variance",  # a frequentist variance result
}


def _functions():
    seen = set()
    modules = [bayesfair]
    for info in pkgutil.walk_packages(bayesfair.__path__, "bayesfair."):
        parts = info.name.split(".")[1:]
        if not any(p.startswith("_") for p in parts) and parts[0] != "cli":
            modules.append(importlib.import_module(info.name))
    for module in modules:
        for name in getattr(module, "__all__", []):
            func = getattr(module, name, None)
            if not inspect.isfunction(func) or id(func) in seen:
                continue
            seen.add(id(func))
            qualified = f"{func.__module__}.{func.__name__}"
            first = next(iter(inspect.signature(func).parameters), None)
            if first in OBJECT_ARGUMENTS and qualified not in OWN_CHECKS:
                yield pytest.param(func, first, id=qualified)


FUNCTIONS = list(_functions())


def test_the_walk_finds_the_functions_users_call():
    names = {p.id for p in FUNCTIONS}
    assert {"bayesfair.fitting.fit", "bayesfair.compare.compare"} <= names
    assert len(names) > 40


@pytest.mark.parametrize(("func", "first"), FUNCTIONS)
def test_a_wrong_object_is_named(func, first):
    required = [
        p
        for p in inspect.signature(func).parameters.values()
        if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    args = ["not the right object"] + ["accuracy"] * (len(required) - 1)
    with pytest.raises(InvalidParameterError, match=f"'{first}' parameter must be"):
        func(*args)
