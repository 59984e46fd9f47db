"""``run_grid`` on a Dask ``LocalCluster`` (2 worker processes) against the serial run.

The same grid twice with the same seed: serially in this process, then with
``scheduler=`` on a 2-process cluster. Checks that the tables are equal (every
column but ``seconds``) and prints both wall times and the speed-up. The
serial run goes first, so it pays for the compilation of the models; the
cluster's workers compile their own on their first task (and keep them), which
is inside the cluster's time too.

Run: ``python benchmarks/bench_grid_dask.py`` (German-sex LR, Δ TPR, n_L 20 and
60, 12 runs each, ``freq``, ``bb``, ``rbc``, one chain per fit; under a minute on
2 cores). With ``--chains 2`` each serial fit already samples its chains on both
cores, and the cluster has little left to gain.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings

import pandas as pd


def main(argv=None) -> int:
    from distributed import Client, LocalCluster

    from bayesfair.experiments import run_grid

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=12)
    p.add_argument("--draws", type=int, default=500)
    p.add_argument("--chains", type=int, default=1)
    args = p.parse_args(argv)
    kw = dict(
        methods=("freq", "bb", "rbc"),
        n_runs=args.runs,
        draws=args.draws,
        tune=args.draws,
        chains=args.chains,
        random_seed=2026,
        progressbar=False,
    )
    grid = ("german-sex", "LR", "tpr")
    sizes = (20, 60)
    warnings.simplefilter("ignore")
    start = time.perf_counter()
    serial = run_grid(*grid, n_labeled=sizes, **kw)
    t_serial = time.perf_counter() - start
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        Client(cluster) as client,
    ):
        start = time.perf_counter()
        spread = run_grid(*grid, n_labeled=sizes, scheduler=client, **kw)
        t_cluster = time.perf_counter() - start
    cols = [c for c in serial.columns if c != "seconds"]
    pd.testing.assert_frame_equal(serial[cols], spread[cols])
    fits = len(serial[serial.method != "freq"])
    print(
        f"{fits} fits; serial {t_serial:.1f} s, 2-worker LocalCluster {t_cluster:.1f} s, "
        f"speed-up {t_serial / t_cluster:.2f}×; tables equal"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
