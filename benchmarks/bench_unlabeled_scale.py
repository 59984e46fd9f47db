"""Summarising unlabeled scores at scale: DuckDB, Dask and Spark against pandas in memory.

The benchmark writes its own Parquet files with a fixed seed (``score`` as
float64 uniform on [0, 1], ``group`` as a string with 2 or 40 levels), in files
of 10⁷ rows, summarises them, and removes them. Each measurement runs in a
fresh Python process, so that its peak resident memory (``VmHWM``, which
includes the interpreter, NumPy and pandas, about 140 MB) is its own. For Dask
and Spark it is the driver's: the workers and the JVM are other processes.

* ``duckdb`` — :func:`bayesfair.summarize_unlabeled` on the glob (the default
  engine for files);
* ``pandas`` — the reference: ``pandas.read_parquet`` of every file into one
  frame, then the in-memory path (``summarize_unlabeled(frame)``);
* ``dask`` — the glob on a ``distributed.LocalCluster`` with 2 worker
  processes (one task per file; the workers' memory is not in the figure);
* ``spark`` — the glob in Spark local mode (``local[2]``).

Goals: 10⁸ rows with DuckDB under 1 GB peak memory; 10⁹ rows (≥ 8 GB of
Parquet) under 2 GB and 5 minutes on 2 cores.

Run::

    python benchmarks/bench_unlabeled_scale.py                 # 10^8 rows, 2 and 40 groups
    python benchmarks/bench_unlabeled_scale.py --rows 1000000000 --groups 2 --engines duckdb
    python benchmarks/bench_unlabeled_scale.py --rows 10000000 --engines duckdb pandas  # quick
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
import json, sys, time, warnings
warnings.simplefilter("ignore")
engine, glob = sys.argv[1], sys.argv[2]
import bayesfair as bf
start = time.perf_counter()
if engine == "pandas":
    import pandas as pd
    frame = pd.concat([pd.read_parquet(p) for p in sorted(__import__("glob").glob(glob))],
                      ignore_index=True)
    summary = bf.summarize_unlabeled(frame, engine="numpy")
elif engine == "dask":
    from distributed import Client, LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=":0") as cluster, Client(cluster) as client:
        start = time.perf_counter()
        summary = bf.summarize_unlabeled(glob, engine="dask", scheduler=client)
elif engine == "spark":
    from pyspark.sql import SparkSession
    spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
             .config("spark.driver.memory", "2g").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    start = time.perf_counter()
    summary = bf.summarize_unlabeled(glob, engine="spark")
else:
    summary = bf.summarize_unlabeled(glob, engine="duckdb")
seconds = time.perf_counter() - start
# VmHWM, not ru_maxrss: Linux carries ru_maxrss over exec from the forking parent
peak_mb = next(int(line.split()[1]) for line in open("/proc/self/status")
               if line.startswith("VmHWM")) / 1024
print(json.dumps({"seconds": seconds, "peak_mb": peak_mb, "rows": summary.n_total,
                  "counts": summary.count.tolist()[:50]}))
"""


def write_files(directory: Path, rows: int, groups: int, seed: int = 2026) -> tuple[str, float]:
    """Parquet files of ``rows`` rows in chunks; returns the glob and the size in GB."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    names = np.array([f"g{k:02d}" for k in range(groups)])
    written = 0
    k = 0
    while written < rows:
        n = min(ROWS_PER_FILE, rows - written)
        table = pa.table(
            {
                "score": rng.uniform(size=n),
                "group": pa.DictionaryArray.from_arrays(
                    pa.array(rng.integers(0, groups, n).astype(np.int32)), pa.array(names)
                ),
            }
        )
        pq.write_table(table, directory / f"part-{k:04d}.parquet", row_group_size=1 << 20)
        written += n
        k += 1
    size = sum(p.stat().st_size for p in directory.glob("*.parquet")) / 1e9
    return str(directory / "*.parquet"), size


def measure(engine: str, glob: str) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, engine, glob], capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr else "failed"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=int, default=100_000_000)
    p.add_argument("--groups", type=int, nargs="+", default=[2, 40])
    p.add_argument("--engines", nargs="+", default=["duckdb", "pandas", "dask", "spark"])
    p.add_argument("--keep", action="store_true", help="Keep the Parquet files.")
    args = p.parse_args(argv)
    print("| rows | groups | Parquet GB | engine | seconds | rows/s | peak MB | vs pandas |")
    print("|---|---|---|---|---|---|---|---|")
    for groups in args.groups:
        directory = Path(tempfile.mkdtemp(prefix="bayesfair-scale-"))
        try:
            start = time.perf_counter()
            glob, size = write_files(directory, args.rows, groups)
            print(
                f"wrote {args.rows:,} rows ({size:.1f} GB) in {time.perf_counter() - start:.0f} s",
                file=sys.stderr,
                flush=True,
            )
            results = {e: measure(e, glob) for e in args.engines}
            ref = results.get("pandas", {}).get("seconds")
            counts = {e: r.get("counts") for e, r in results.items() if "counts" in r}
            if len({json.dumps(c) for c in counts.values()}) > 1:
                print("warning: the engines' counts differ", file=sys.stderr)
            for engine, r in results.items():
                if "error" in r:
                    print(
                        f"| {args.rows:,} | {groups} | {size:.1f} | {engine} | failed: "
                        f"{r['error']} | | | |"
                    )
                    continue
                ratio = f"{ref / r['seconds']:.1f}×" if ref else "—"
                print(
                    f"| {args.rows:,} | {groups} | {size:.1f} | {engine} | {r['seconds']:.1f} | "
                    f"{r['rows'] / r['seconds']:.2e} | {r['peak_mb']:.0f} | {ratio} |",
                    flush=True,
                )
        finally:
            if not args.keep:
                shutil.rmtree(directory, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
