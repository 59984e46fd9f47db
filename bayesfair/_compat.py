"""Old import paths, kept for one minor version (until 0.5) with a ``FutureWarning``.

Version 0.4 moved the package's flat modules into sub-packages that show the flow of
data (docs/architecture.md): ``bayesfair.fitting`` is now
``bayesfair.posterior.fitting``, ``bayesfair.plots`` is ``bayesfair.report.plots``, and
so on (:data:`MOVED`). An import of an old path still works: a finder on
:data:`sys.meta_path` answers for the old name with the module at its new path (the
same module object, so a function patched on one is patched on both) and warns once
per old path, at the line that imports it. ``bayesfair.data``, ``bayesfair.metrics``,
``bayesfair.posterior`` and ``bayesfair.report`` kept their names as packages and
re-export what their modules made public.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
import warnings
from pathlib import Path

#: old module (below ``bayesfair.``) -> its place since 0.4.
MOVED = {
    "_names": "_internal.names",
    "_progress": "_internal.progress",
    "_tree": "_internal.tree",
    "_netcdf": "_internal.netcdf",
    "_render": "_internal.render",
    "_validation": "_internal.validation",
    "fair_enough": "metrics.fair_enough",
    "summary": "data.summary",
    "_inputs": "data._inputs",
    "engines": "data.engines",
    "sources": "data.sources",
    "examples": "data.examples",
    "simulate": "datasets.simulate",
    "sampling": "models.sampling",
    "checks": "posterior.checks",
    "sensitivity": "posterior.sensitivity",
    "groups": "posterior.groups",
    "contrasts": "posterior.contrasts",
    "tables": "posterior.tables",
    "periods": "posterior.periods",
    "calibration_view": "posterior.calibration_view",
    "fitting": "posterior.fitting",
    "plots": "report.plots",
    "group_plots": "report.group_plots",
    "report_groups": "report.groups",
    "report_periods": "report.periods",
    "compare": "report.compare",
}

_PACKAGE = "bayesfair"
#: Frames the warning skips, so that it points at the user's import line.
_SKIP = (
    "<frozen importlib",
    str(Path(importlib.__file__).resolve().parent),
    str(Path(__file__).resolve().parent),
)


def new_name(fullname: str) -> str | None:
    """The module an old dotted name now lives at, or None if it did not move."""
    head, _, rest = fullname.partition(".")
    if head != _PACKAGE or not rest:
        return None
    for old, new in MOVED.items():
        if rest == old or rest.startswith(old + "."):
            return f"{_PACKAGE}.{new}{rest[len(old) :]}"
    return None


class _AliasLoader:
    """Loads an old name as the module at its new path (and warns)."""

    def __init__(self, target: str):
        self.target = target

    def create_module(self, spec):
        return None  # a placeholder; exec_module swaps in the real module

    def exec_module(self, module):
        old = module.__name__
        warnings.warn(
            f"{old} moved to {self.target} in bayesfair 0.4; the old path will stop "
            "working in 0.5. Import from the new path.",
            FutureWarning,
            skip_file_prefixes=_SKIP,
        )
        sys.modules[old] = importlib.import_module(self.target)


class MovedModuleFinder:
    """A meta path finder for the old module paths.

    It goes first on :data:`sys.meta_path`: placed after the normal finders, an old
    sub-package's modules (``bayesfair.engines.dask``) would be found again through
    the aliased parent's ``__path__`` and loaded a second time under the old name.
    It answers only for names in :data:`MOVED`, whose files no longer exist.
    """

    @staticmethod
    def find_spec(fullname, path=None, target=None):
        new = new_name(fullname)
        if new is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(new))


def install() -> None:
    """Put the finder on :data:`sys.meta_path`, once."""
    if not any(isinstance(f, MovedModuleFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, MovedModuleFinder())
