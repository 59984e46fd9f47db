"""The research record (``benchmarks/``) stands apart from the tests: no file under
``tests/`` imports a benchmark, by module name or by path (``sys.path``,
``importlib.util.spec_from_file_location``, ``runpy.run_path``, ...). What the two share,
the simulators and their truths, lives in :mod:`bayesfair.datasets.simulate`; a test's
own harness lives in the test. Reading a stored result file is not an import."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
BENCHMARKS = ROOT / "benchmarks"

#: Calls that put code on the import path or load it from a file.
LOADERS = {
    "insert",  # sys.path.insert
    "append",  # sys.path.append
    "extend",  # sys.path.extend
    "spec_from_file_location",
    "SourceFileLoader",
    "run_path",
    "import_module",
    "__import__",
    "exec",
}


def _benchmark_modules() -> set[str]:
    return {"benchmarks"} | {path.stem for path in BENCHMARKS.glob("*.py")}


def _call_name(node: ast.Call) -> str:
    func = node.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def benchmark_imports(source: str, modules: set[str]) -> list[str]:
    """Each import of a module in ``modules`` and each loader call whose arguments name
    ``benchmarks``, as ``"line: what"``.

    Parameters
    ----------
    source : str
        A Python file's text.
    modules : set of str
        The names a benchmark is imported by (``benchmarks`` and the scripts' stems).
    """
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""]
        elif isinstance(node, ast.Call) and _call_name(node) in LOADERS:
            arguments = " ".join(ast.unparse(a) for a in [*node.args, *node.keywords])
            if "benchmarks" in arguments:
                found.append(f"{node.lineno}: {ast.unparse(node)}")
            continue
        else:
            continue
        found += [f"{node.lineno}: import {n}" for n in names if n.split(".")[0] in modules]
    return found


def test_no_test_imports_a_benchmark():
    modules = _benchmark_modules()
    assert len(modules) > 10  # the scripts were found
    offenders = [
        f"{path.relative_to(ROOT)}:{hit}"
        for path in sorted([*TESTS.rglob("*.py"), ROOT / "conftest.py"])
        if path.exists()
        for hit in benchmark_imports(path.read_text(), modules)
    ]
    assert offenders == []


@pytest.mark.parametrize(
    "source",
    [
        'import sys\nsys.path.insert(0, str(ROOT / "benchmarks"))\n',
        "import ppi_power\n",
        "from many_groups import realised_truth\n",
        "from benchmarks.jags_reference import run_jags_bc\n",
        'spec = importlib.util.spec_from_file_location("m", "benchmarks/two_groups.py")\n',
        'runpy.run_path(str(ROOT / "benchmarks" / "periods.py"))\n',
    ],
)
def test_the_check_sees_each_way_of_importing_a_benchmark(source):
    assert benchmark_imports(source, _benchmark_modules())


def test_the_check_lets_a_test_read_a_stored_result():
    source = 'runs = pd.read_csv(ROOT / "benchmarks/results/adaptation_bound.csv.gz")\n'
    assert benchmark_imports(source, _benchmark_modules()) == []
