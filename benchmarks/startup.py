"""Where a first answer's time goes: start-up against the same work in a warm process.

Each figure is the median of ``--reps`` runs, each run a fresh process:

- ``import bayesfair`` against ``import pandas`` (timed inside the process, around
  the import alone);
- ``bayesfair demo --quiet`` and ``bayesfair assess`` (200 labeled and 50,000
  unlabeled rows of the bundled Adult scores, by sex) as a user runs them (the
  wall time of the command);
- the same two commands run a second time in one process (``click``'s runner):
  the work alone, without imports or compilation;
- the demo with an empty numba cache (``NUMBA_CACHE_DIR``): the first run after
  ``pip install``, which compiles the package's numba kernels once per machine.

With ``--previous PYTHON`` the same figures are measured, in the same run, with
another interpreter that has the previous release installed (these machines
are shared and noisy: only ratios within one run are compared).

Usage::

    python benchmarks/startup.py [--reps 5] [--previous /path/to/python] [--out FILE]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]

IMPORT_TIME = (
    "import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
)

WARM = """
import sys, time
from click.testing import CliRunner
from bayesfair.cli import main
args = sys.argv[1:]
runner = CliRunner()
first = runner.invoke(main, args)
assert first.exit_code == 0, first.output
t = time.perf_counter()
runner.invoke(main, args)
print(time.perf_counter() - t)
"""


def make_files(folder: Path, n_labeled: int = 200, n_unlabeled: int = 50_000) -> list[str]:
    """A labeled and an unlabeled CSV from the bundled Adult scores; the assess arguments."""
    d = pd.read_csv(ROOT / "data/scores/adult_race_scores.csv.gz")
    rng = np.random.default_rng(0)
    rows = rng.choice(len(d), n_labeled + n_unlabeled, replace=True)
    cols = {"score_MultiLayerPerceptron": "score", "income-per-year": "label", "sex": "sex"}
    table = d.iloc[rows][list(cols)].rename(columns=cols)
    table.iloc[:n_labeled].to_csv(folder / "labeled.csv", index=False)
    table.iloc[n_labeled:].drop(columns="label").to_csv(folder / "unlabeled.csv", index=False)
    return [
        "assess",
        str(folder / "labeled.csv"),
        "--unlabeled",
        str(folder / "unlabeled.csv"),
        "--score",
        "score",
        "--label",
        "label",
        "--group",
        "sex",
        "--quiet",
    ]


def _median(runs: list[float]) -> float:
    return float(statistics.median(runs))


def _timed(command: list[str], env: dict | None = None) -> float:
    t = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, cwd=tempfile.gettempdir(), env=env)
    return time.perf_counter() - t


def _cold(command: list[str]) -> float:
    """The command with an empty numba cache: what the first run after ``pip install``
    compiles (numba's disk cache is the only state a run leaves; pip compiles the
    bytecode at install)."""
    with tempfile.TemporaryDirectory() as cache:
        return _timed(command, env={**os.environ, "NUMBA_CACHE_DIR": cache})


def _printed(command: list[str]) -> float:
    done = subprocess.run(
        command, check=True, capture_output=True, text=True, cwd=tempfile.gettempdir()
    )
    return float(done.stdout.strip().splitlines()[-1])


def measure(python: str, assess: list[str], reps: int) -> dict[str, float]:
    """The figures of one interpreter (seconds, medians of ``reps`` fresh processes)."""
    cli = [python, "-m", "bayesfair"]
    out = {}
    for module in ("pandas", "bayesfair"):
        code = IMPORT_TIME.format(module=module)
        out[f"import {module}"] = _median([_printed([python, "-c", code]) for _ in range(reps)])
    out["demo: first run (empty numba cache)"] = _median(
        [_cold([*cli, "demo", "--quiet"]) for _ in range(reps)]
    )
    for name, args in (("demo", ["demo", "--quiet"]), ("assess", assess)):
        out[f"{name}: command"] = _median([_timed([*cli, *args]) for _ in range(reps)])
        warm = [_printed([python, "-c", WARM, *args]) for _ in range(reps)]
        out[f"{name}: work in a warm process"] = _median(warm)
    return out


def _markdown(table: pd.DataFrame) -> str:
    """A Markdown table (without pandas' optional ``tabulate``)."""
    lines = ["| | " + " | ".join(table.columns) + " |", "|---" * (table.shape[1] + 1) + "|"]
    lines += [f"| {i} | " + " | ".join(str(v) for v in row) + " |" for i, row in table.iterrows()]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--previous", help="a Python with the previous release installed")
    ap.add_argument("--out", type=Path, help="write the table as Markdown here too")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        assess = make_files(Path(folder))
        pythons = {"this release": sys.executable}
        if args.previous:
            pythons["previous release"] = args.previous
        results = {name: measure(p, assess, args.reps) for name, p in pythons.items()}
    table = pd.DataFrame(results)
    ratios = {}
    for name, col in results.items():
        ratios[name] = {
            "import bayesfair / import pandas": col["import bayesfair"] / col["import pandas"],
            "demo: command / work": col["demo: command"] / col["demo: work in a warm process"],
            "assess: command / work": col["assess: command"]
            / col["assess: work in a warm process"],
        }
    text = (
        f"seconds, median of {args.reps} fresh processes\n\n"
        + _markdown(table.round(3))
        + "\n\nratios\n\n"
        + _markdown(pd.DataFrame(ratios).round(2))
    )
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
