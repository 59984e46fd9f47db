"""Every public callable of two or more arguments documents them in a numpydoc
``Parameters`` section.

Public: the names in the ``__all__`` of every module whose path has no
underscored part (the command line aside: its options are its documentation),
and the public methods of the classes among them. A class documents its
constructor's arguments under ``Parameters`` or, for a dataclass record,
``Attributes``.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import bayesfair


def _public_modules():
    yield bayesfair
    for info in pkgutil.walk_packages(bayesfair.__path__, "bayesfair."):
        parts = info.name.split(".")[1:]
        if any(p.startswith("_") for p in parts) or parts[0] == "cli":
            continue
        yield importlib.import_module(info.name)


def _arguments(func) -> int:
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return 0
    return sum(
        p.name not in ("self", "cls") and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        for p in params
    )


def _callables():
    """(qualified name, object, docstring sections that may list the arguments)."""
    seen = set()
    for module in _public_modules():
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name, None)
            if not (inspect.isclass(obj) or inspect.isfunction(obj)) or id(obj) in seen:
                continue
            if not obj.__module__.startswith("bayesfair"):
                continue
            seen.add(id(obj))
            qualified = f"{obj.__module__}.{obj.__qualname__}"
            if inspect.isfunction(obj):
                yield qualified, obj, ("Parameters",)
                continue
            yield qualified, obj.__init__, ("Parameters", "Attributes"), obj
            for attr, member in vars(obj).items():
                func = getattr(member, "__func__", member)
                if not attr.startswith("_") and inspect.isfunction(func):
                    yield f"{qualified}.{attr}", func, ("Parameters",)


def _undocumented() -> list[str]:
    out = []
    for qualified, func, sections, *owner in _callables():
        doc = inspect.getdoc(owner[0] if owner else func) or ""
        documented = any(f"{s}\n{'-' * len(s)}" in doc for s in sections)
        if _arguments(func) >= 2 and not documented:
            out.append(qualified)
    return sorted(out)


def test_every_public_callable_of_two_or_more_arguments_has_parameters():
    assert _undocumented() == []


@pytest.mark.parametrize(
    "qualified", ["bayesfair.posterior.fitting.fit", "bayesfair.report.compare.compare"]
)
def test_the_check_sees_the_main_entry_points(qualified):
    """The walk reaches the functions users call first (so an empty list means something)."""
    assert qualified in {q for q, *_ in _callables()}
