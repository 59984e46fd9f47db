"""``bayesfair assess`` on a labeled set too large to load: peak memory and time.

The benchmark writes its own Parquet files with a fixed seed: a labeled set of
10⁷ rows (``score`` = σ(N(0, 1.5²)), ``label`` ~ Bernoulli(score), so the scores
are calibrated; ``group`` A or B, 60/40) and an unlabeled set of 10⁸ rows drawn
the same way without labels, in files of 10⁷ rows. It then runs the command
line, each run in a fresh process whose peak resident memory (``VmHWM`` of the
``bayesfair`` process, read at its exit: interpreter, PyMC, nutpie and DuckDB
included) is its own:

* ``summary`` — ``bayesfair assess lab.parquet --unlabeled 'unl/*.parquet'``:
  above ``LABELED_ROWS_IN_MEMORY`` (10⁶) labeled rows the labeled file is
  summarised by DuckDB as the unlabeled ones are, and nothing is loaded;
* ``loaded`` — the reference, the same labeled file read into memory (as every
  labeled file was before; ``--engine memory``) without the unlabeled set, which
  that path would also load.

Goal: 10⁷ labeled and 10⁸ unlabeled rows with peak memory under 1 GB.

Run::

    python benchmarks/bench_assess_memory.py                          # 10^7 / 10^8
    python benchmarks/bench_assess_memory.py --labeled 2000000 --unlabeled 10000000  # quick
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROWS_PER_FILE = 10_000_000

_CHILD = r"""
import json, os, runpy, sys, time
sys.argv = ["bayesfair", *sys.argv[1:]]
start = time.perf_counter()
try:
    runpy.run_module("bayesfair.cli", run_name="__main__")
except SystemExit as exc:
    code = exc.code or 0
else:
    code = 0
peak_mb = next(int(line.split()[1]) for line in open("/proc/self/status")
               if line.startswith("VmHWM")) / 1024
print(json.dumps({"seconds": time.perf_counter() - start, "peak_mb": peak_mb, "code": code}),
      file=sys.stderr)
"""


def write_files(directory: Path, rows: int, labeled: bool, seed: int) -> str:
    """Parquet files of ``rows`` rows in chunks of 10⁷; the file, or the glob of several
    (the in-memory reference reads one labeled file, so keep ``--labeled`` ≤ 10⁷)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    names = np.array(["A", "B"])
    directory.mkdir(parents=True, exist_ok=True)
    written, k = 0, 0
    while written < rows:
        n = min(ROWS_PER_FILE, rows - written)
        score = 1.0 / (1.0 + np.exp(-rng.normal(0.0, 1.5, n)))
        columns = {
            "score": score,
            "group": pa.DictionaryArray.from_arrays(
                pa.array((rng.uniform(size=n) < 0.4).astype(np.int32)), pa.array(names)
            ),
        }
        if labeled:
            columns["label"] = (rng.uniform(size=n) < score).astype(np.int8)
        pq.write_table(
            pa.table(columns), directory / f"part-{k:04d}.parquet", row_group_size=1 << 20
        )
        written, k = written + n, k + 1
    return str(directory / "part-0000.parquet") if k == 1 else str(directory / "*.parquet")


def run(args: list[str]) -> dict:
    """One ``bayesfair`` command in a fresh process: its seconds, peak MB and exit code."""
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, *args], capture_output=True, text=True, check=False
    )
    lines = [ln for ln in proc.stderr.strip().splitlines() if ln.startswith("{")]
    out = json.loads(lines[-1]) if lines else {"code": proc.returncode}
    out["stderr"] = "\n".join(ln for ln in proc.stderr.splitlines() if not ln.startswith("{"))
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--labeled", type=int, default=10_000_000)
    p.add_argument("--unlabeled", type=int, default=100_000_000)
    p.add_argument("--draws", type=int, default=1000)
    p.add_argument("--keep", action="store_true", help="Keep the Parquet files.")
    args = p.parse_args(argv)
    directory = Path(tempfile.mkdtemp(prefix="bayesfair-assess-"))
    try:
        start = time.perf_counter()
        lab = write_files(directory / "lab", args.labeled, True, 2026)
        unl = write_files(directory / "unl", args.unlabeled, False, 2027)
        size = sum(f.stat().st_size for f in directory.rglob("*.parquet")) / 1e9
        print(
            f"wrote {args.labeled:,} labeled and {args.unlabeled:,} unlabeled rows "
            f"({size:.2f} GB of Parquet) in {time.perf_counter() - start:.0f} s",
            flush=True,
        )
        common = [
            "--score",
            "score",
            "--label",
            "label",
            "--group",
            "group",
            "--quiet",
            "--draws",
            str(args.draws),
            "--tune",
            str(args.draws),
        ]
        report = directory / "report.json"
        results = {
            "summary": run(["assess", lab, "--unlabeled", unl, "--out", str(report), *common]),
            "loaded": run(
                [
                    "assess",
                    lab,
                    "--engine",
                    "memory",
                    "--out",
                    str(directory / "loaded.json"),
                    *common,
                ]
            ),
        }
        print("\n| run | labeled rows | unlabeled rows | seconds | peak MB | exit |")
        print("|---|---|---|---|---|---|")
        for name, r in results.items():
            n_u = args.unlabeled if name == "summary" else 0
            print(
                f"| {name} | {args.labeled:,} | {n_u:,} | {r.get('seconds', float('nan')):.1f} "
                f"| {r.get('peak_mb', float('nan')):.0f} | {r.get('code')} |"
            )
        s, ref = results["summary"], results["loaded"]
        if "peak_mb" in s and "peak_mb" in ref:
            print(
                f"\nsummary path: {s['peak_mb']:.0f} MB peak (goal < 1024), "
                f"{ref['peak_mb'] / s['peak_mb']:.1f}× less than loading the labeled rows "
                "alone"
            )
        if report.exists():
            doc = json.loads(report.read_text())
            rows = {i["role"]: i["rows"] for i in doc["provenance"]["inputs"]}
            print(f"report: rows {rows}; first finding: {doc['findings'][0]['text']}")
        for name, r in results.items():
            if r.get("code"):
                print(f"{name} failed:\n{r['stderr'][-2000:]}")
    finally:
        if not args.keep:
            shutil.rmtree(directory, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
