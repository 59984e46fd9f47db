"""The package's import structure (docs/architecture.md): layers, no cycles, lazy heavy imports.

The imports are read with ``ast`` (module level and inside functions), so the
test sees an import whether or not it has run.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "bayesfair"
_ROOT = "bayesfair."

#: The layers of docs/architecture.md, lowest first, by path below ``bayesfair.``: a
#: module is in the layer of the longest entry that names it or one of its packages. A
#: module imports only from its own layer or lower ones.
LAYERS = [
    ("foundations", ["exceptions", "_internal"]),
    ("vocabulary", ["_internal.validation", "metrics", "stats"]),
    (
        "summaries",
        ["data.summary", "data.proxy_summary", "data._inputs", "data.engines", "data.sources"],
    ),
    ("data", ["data", "datasets"]),
    (
        "models",
        [
            "models",
            "frequentist",
            "posterior.score_bins",
            "posterior.check_words",
            "posterior.calibration_test",
            "posterior.predictive_check",
            "posterior.stored_summary",
            "posterior.diagnostics",
            "posterior.checks",
            "posterior.sensitivity",
            "posterior.groups",
            "posterior.contrasts",
            "posterior.tables",
            "posterior.periods",
            "posterior.calibration_view",
        ],
    ),
    ("result", ["posterior", "posterior.result"]),
    ("fit and present", ["posterior.fitting", "report"]),
    ("workflows", ["labels", "report.compare", "experiments"]),
    ("entry points", ["cli", "__main__", ""]),
]

#: Modules that load numba or compile on import: imported inside the functions that
#: sample, like pymc and matplotlib, so that ``import bayesfair`` stays fast.
LAZY_MODULES = {
    "bayesfair.models._calibration_kernels",
    "bayesfair.models._calibration_native",
    "bayesfair.models._unlabeled_kernels",
    "bayesfair.models._shift_kernels",
    "bayesfair.models._proxy_kernels",
}

#: Third-party packages that only lazy modules may import at module level (pyarrow is
#: not among them: pandas imports it whenever it is installed).
HEAVY = {
    "pymc",
    "pytensor",
    "matplotlib",
    "numba",
    "nutpie",
    "arviz",
    "arviz_base",
    "arviz_stats",
    "dask",
    "distributed",
    "pyspark",
    "duckdb",
    "polars",
}


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


MODULES = _modules()


def _layer(module: str) -> int:
    rest = module.removeprefix("bayesfair").removeprefix(".")
    found = [
        (len(member), i)
        for i, (_, members) in enumerate(LAYERS)
        for member in members
        if rest == member or (member and rest.startswith(member + "."))
    ]
    if not found:
        raise AssertionError(f"{module} is in no layer: add it to LAYERS and docs/architecture.md")
    return max(found)[1]


def _target(module: str, node: ast.ImportFrom | ast.Import, alias: ast.alias) -> str | None:
    """The bayesfair module an import reads from (None for other packages)."""
    if isinstance(node, ast.Import):
        name = alias.name
    else:
        if node.level:
            base = module.split(".")
            if MODULES[module].name != "__init__.py":
                base = base[:-1]
            base = base[: len(base) - (node.level - 1)]
            name = ".".join(base + ([node.module] if node.module else []))
        else:
            name = node.module or ""
        if f"{name}.{alias.name}" in MODULES:  # `from bayesfair import plots`
            name = f"{name}.{alias.name}"
    if name.split(".")[0] != "bayesfair":
        return None
    while name not in MODULES:
        name = name.rsplit(".", 1)[0]
    return name


def _imports(module: str):
    """(target, inside a function, line) for every import of a bayesfair module."""
    tree = ast.parse(MODULES[module].read_text())
    in_function = set()
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            in_function |= {
                id(n) for n in ast.walk(fn) if isinstance(n, ast.Import | ast.ImportFrom)
            }
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                target = _target(module, node, alias)
                if target is not None and target != module:
                    yield target, id(node) in in_function, node.lineno


def _third_party_at_module_level(module: str):
    tree = ast.parse(MODULES[module].read_text())
    for node in tree.body:
        if isinstance(node, ast.Import):
            yield from ((a.name.split(".")[0], node.lineno) for a in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            yield node.module.split(".")[0], node.lineno


def test_every_module_has_a_layer():
    for module in MODULES:
        _layer(module)


def _with_parents(targets: set[str]) -> set[str]:
    """Importing ``bayesfair.a.b`` runs ``bayesfair.a``'s ``__init__`` first."""
    out = set(targets)
    for t in targets:
        parts = t.split(".")
        out |= {".".join(parts[:i]) for i in range(2, len(parts)) if ".".join(parts[:i]) in MODULES}
    return out


def test_no_import_cycles():
    def ancestors(m):  # loaded before m itself: not an edge of m's
        parts = m.split(".")
        return {".".join(parts[:i]) for i in range(1, len(parts) + 1)}

    graph = {m: _with_parents({t for t, _, _ in _imports(m)}) - ancestors(m) for m in MODULES}
    state: dict[str, int] = {}  # 1 on the stack, 2 done

    def visit(node, stack):
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycle = [*stack[stack.index(nxt) :], nxt]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt, [*stack, nxt])
        state[node] = 2

    for module in MODULES:
        if module not in state:
            visit(module, [module])


def test_no_import_from_a_higher_layer():
    upward = [
        f"{m}:{line} imports {t} ({LAYERS[_layer(t)][0]} above {LAYERS[_layer(m)][0]})"
        for m in MODULES
        for t, _, line in _imports(m)
        if _layer(t) > _layer(m) and not (m == "bayesfair" or t.startswith(m + "."))
    ]
    assert upward == []


def test_own_modules_are_imported_at_module_level():
    inside = [
        f"{m}:{line} imports {t} inside a function"
        for m in MODULES
        for t, in_function, line in _imports(m)
        if in_function and t not in LAZY_MODULES
    ]
    assert inside == []


def test_heavy_packages_only_in_lazy_modules():
    found = [
        f"{m}:{line} imports {pkg} at module level"
        for m in MODULES
        if m not in LAZY_MODULES
        for pkg, line in _third_party_at_module_level(m)
        if pkg in HEAVY
    ]
    assert found == []


def test_import_bayesfair_loads_no_heavy_package():
    """Nor scipy.stats (about a second to import): the statistics import it when used."""
    code = (
        "import sys, bayesfair, bayesfair.cli\n"
        f"print(sorted(m for m in {sorted(HEAVY | {'scipy.stats'})!r} if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_import_bayesfair_loads_nothing_but_the_package():
    """``import bayesfair`` runs its ``__init__`` only (the public names load their
    module on first use), so that the command line and ``import bayesfair`` start at
    once; and every module imports on its own, whichever is imported first."""
    code = (
        "import sys, importlib, bayesfair\n"
        "print(sorted(m for m in ('numpy', 'pandas', 'scipy', 'xarray') if m in sys.modules))\n"
        f"for name in {sorted(m for m in MODULES if not m.endswith('__main__'))!r}:\n"
        "    for m in [m for m in sys.modules if m.startswith('bayesfair')]:\n"
        "        del sys.modules[m]\n"
        "    importlib.import_module(name)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_no_function_over_120_lines():
    """Counted without the docstring: a numpydoc docstring documents every parameter,
    and splitting the function would not shorten it."""
    long = []
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            lines = node.end_lineno - node.lineno + 1
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                lines -= first.end_lineno - first.lineno + 1
            if lines > 120:
                long.append(f"{module}.{node.name}: {lines} lines")
    assert long == []


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of a module's docstring nodes (a module's, a class's, a function's)."""
    kinds = ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef
    return {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, kinds)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }


def test_at_most_four_modules_outside_models_name_a_model():
    """What a model is, everything but how to fit it, is its ``ModelSpec`` in
    ``models/catalogue.py``: outside ``models/`` a model's name appears as a string (not
    in a docstring) only in the modules that fit, compare and run the models and in
    prior sensitivity's per-model priors."""
    from bayesfair.models.catalogue import MODEL_SPECS

    naming = set()
    for module, path in MODULES.items():
        if module.startswith("bayesfair.models"):
            continue
        tree = ast.parse(path.read_text())
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and node.value in MODEL_SPECS:
                naming |= set() if id(node) in docs else {module}
    assert len(naming) <= 4, sorted(naming)


def test_the_version_is_written_once():
    project = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text())["project"]
    assert "version" not in project and "version" in project["dynamic"]
    from importlib.metadata import version

    import bayesfair

    assert version("bayesfair") == bayesfair.__version__


TESTS = Path(__file__).resolve().parent


def test_tests_mirror_the_package_and_import_no_private_name():
    """Tests live beside their module's folder (``tests/<subpackage>/``, slow simulations in
    ``tests/statistical/``, files the tests read in ``tests/fixtures/``), and no test
    imports an underscored name of the package (a private module's public names, such as
    ``bayesfair._internal.validation.check_group``, are fine)."""
    folders = {p.name for p in TESTS.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))}
    subpackages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    assert folders - {"statistical", "fixtures"} <= subpackages, folders
    offenders = []
    for path in sorted(TESTS.rglob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("bayesfair"):
                offenders += [
                    f"{path.relative_to(TESTS)}: {node.module}.{a.name}"
                    for a in node.names
                    if a.name.startswith("_")
                ]
    assert not offenders, offenders


def _code_lines(path: Path, name: str) -> int:
    """Lines of code of class ``name`` in ``path``: no blank line, comment or docstring."""
    source = path.read_text()
    tree = ast.parse(source)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name)
    docstrings = set()
    for node in ast.walk(cls):
        if isinstance(node, ast.ClassDef | ast.FunctionDef) and ast.get_docstring(node):
            first = node.body[0]
            docstrings.update(range(first.lineno, first.end_lineno + 1))
    lines = source.splitlines()
    return sum(
        1
        for number in range(cls.lineno, cls.end_lineno + 1)
        if number not in docstrings
        and lines[number - 1].strip()
        and not lines[number - 1].strip().startswith("#")
    )


@pytest.mark.parametrize(
    ("module", "name"),
    [("posterior/result.py", "FairnessPosterior"), ("data/assessment.py", "AssessmentData")],
)
def test_the_containers_hold_no_computation(module, name):
    """The result and the data are containers: their computations live in modules by
    responsibility (contrasts, tables, checks, sensitivity; examples), so each class is
    at most 150 lines of code, docstrings aside."""
    assert _code_lines(PACKAGE / module, name) <= 150


def test_formatting_is_not_a_budget():
    """``ruff format`` owns the layout: at most five skip markers of ruff's formatter in
    the package, its tests and benchmarks together (kept for tables of numbers only)."""
    marker = "# fmt" + ": skip"  # split, so that this file does not count itself
    roots = [PACKAGE, TESTS, PACKAGE.parent / "benchmarks"]
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{number}"
        for root in roots
        for path in sorted(root.rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if marker in line
    ]
    assert len(found) <= 5, found


def test_every_module_has_its_test_file():
    """Tests mirror the package: ``bayesfair/<sub>/<name>.py`` is tested in
    ``tests/<sub>/test_<name>.py`` (a leading underscore dropped), or, where that file's
    name is taken elsewhere (the test folders are not packages, so names are unique),
    in ``test_<sub>_<name>.py``."""
    names = {path.name for path in TESTS.rglob("test_*.py")}
    missing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name in ("__init__.py", "__main__.py"):
            continue
        stem = path.stem.lstrip("_")
        sub = path.parent.relative_to(PACKAGE).parts
        choices = {f"test_{stem}.py"} | {f"test_{part}_{stem}.py" for part in sub}
        if not choices & names:
            missing.append(str(path.relative_to(PACKAGE)))
    assert missing == []


def test_the_top_level_holds_at_most_eight_modules():
    """The package's top level is its entry (``__init__``, ``__main__``), what every layer
    shares (``exceptions``, ``stats``) and the paper experiments; everything else lives in
    the sub-package of its step in the flow."""
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= 8, top


def test_ruff_owns_the_layout():
    """``ruff format --check`` and ``ruff check`` pass on the package, its tests and its
    benchmarks (the notebooks' sources keep the layout of their cells)."""
    paths = [str(PACKAGE), str(TESTS), str(PACKAGE.parent / "benchmarks")]
    for command in (["format", "--check"], ["check"]):
        done = subprocess.run(
            [sys.executable, "-m", "ruff", *command, *paths], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stdout + done.stderr


def _calls_of_warn_with(category: str) -> list[str]:
    """``file:line`` of every ``warnings.warn(..., <category>, ...)`` in the package."""
    sites = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "warn"):
                continue
            args = [*node.args, *(k.value for k in node.keywords)]
            if any(isinstance(a, ast.Name) and a.id == category for a in args):
                sites.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    return sites


def test_no_compatibility_layer_and_at_most_three_future_warnings():
    """No module finder for old paths, no renamed or deprecated names of unreleased
    versions: what warns of a coming change is at most three sites (today one, the
    published spellings ``n_boot`` and ``confidence``)."""
    assert not (PACKAGE / "_compat.py").exists()
    sites = _calls_of_warn_with("FutureWarning")
    assert 1 <= len(sites) <= 3, sites


def _private_imports_across_subpackages() -> list[str]:
    """Imports of a private module or name of another sub-package (``_internal`` is the
    package's own plumbing, private to users, public to every layer)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).parts
        home = parts[0] if len(parts) > 1 else None
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.ImportFrom) and (node.module or "").startswith(_ROOT)):
                continue
            target = node.module.split(".")[1:]
            if not target or target[0] == home or target[0] == "_internal":
                continue
            private = [p for p in target if p.startswith("_")]
            private += [a.name for a in node.names if a.name.startswith("_")]
            if private:
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.module} {private}")
    return found


def test_no_private_name_is_imported_across_subpackages():
    """A sub-package's private modules and names are its own: another sub-package reads
    what it makes public."""
    assert _private_imports_across_subpackages() == []


def _model_names_outside_models() -> list[str]:
    """String constants (docstrings aside) that are a model's name, or quote one, in a
    module outside ``bayesfair/models``."""
    from bayesfair.models.catalogue import MODEL_SPECS

    quoted = [f"'{name}'" for name in MODEL_SPECS]
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).parts[0] == "models":
            continue
        tree = ast.parse(path.read_text())
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
            and node.body
            and isinstance(node.body[0], ast.Expr)
        }
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                continue
            if id(node) in docstrings:
                continue
            if node.value in MODEL_SPECS or any(q in node.value for q in quoted):
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.value[:40]!r}")
    return found


def test_no_model_name_outside_models():
    """Everything the package knows about a model is on its catalogue entry: no module
    outside ``bayesfair/models`` names a model (a default reads ``DEFAULT_MODEL``, a
    message ``named_models_with_map``)."""
    assert _model_names_outside_models() == []


def _is_wide_name(node) -> bool:
    """An f-string that names a column after a method: ``f"{method}_lower"``."""
    return (
        isinstance(node, ast.JoinedStr)
        and len(node.values) > 1
        and isinstance(node.values[0], ast.FormattedValue)
        and isinstance(node.values[1], ast.Constant)
        and str(node.values[1].value).startswith("_")
    )


def _wide_columns_written() -> list[str]:
    """Subscript assignments and dictionary keys ``f"{method}_<stat>"`` in the package."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            targets = []
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    targets += list(t.elts) if isinstance(t, ast.Tuple) else [t]
                keys = [t.slice for t in targets if isinstance(t, ast.Subscript)]
            elif isinstance(node, ast.Dict):
                keys = [k for k in node.keys if k is not None]
            elif isinstance(node, ast.DictComp):
                keys = [node.key]
            else:
                continue
            found += [
                f"{path.relative_to(PACKAGE)}:{node.lineno}" for k in keys if _is_wide_name(k)
            ]
    return found


def test_a_method_s_column_is_written_only_by_the_long_table_s_pivots():
    """One table: a comparison's estimates are long (one row per method); the wide
    ``<method>_<stat>`` columns the reports display are written by
    ``report.estimates``' pivots alone (``pivot_pairs``, ``widen``)."""
    assert _wide_columns_written() == []
    # the check sees the form it forbids
    tree = ast.parse('table[f"{m}_lower"] = 1\nrow = {f"{m}_mean": 2}')
    keys = [tree.body[0].targets[0].slice, tree.body[1].value.keys[0]]
    assert all(_is_wide_name(k) for k in keys)
