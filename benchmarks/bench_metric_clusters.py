"""Benchmark: ``metric_clusters`` on a fit of five groups, 4 x 1000 draws, 25 metrics.

A default fit (``rbc``) of five groups (UCI Adult scores, race: five groups; 500
labeled rows, the rest unlabeled), then ``res.metric_clusters()`` timed: the median of
five calls (target: under a second).

Usage::

    python benchmarks/bench_metric_clusters.py
"""

from __future__ import annotations

import statistics
import time
import warnings

import bayesfair as bf


def main() -> int:
    frame = bf.datasets.load_scores("adult-race", "MLP")
    print(f"groups: {frame['raw_group'].nunique()} raw values")
    frame = frame.assign(group=frame["raw_group"])
    lab = frame.sample(500, random_state=0)
    unl = frame.drop(index=lab.index)
    data = bf.AssessmentData(lab.score, lab.label, lab.group, unl.score, unl.group)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit(data, random_seed=0, progressbar=False)
        ref = res.reference
        other = next(g for g in res.groups if g != ref)
        times = []
        for _ in range(5):
            start = time.perf_counter()
            table = res.metric_clusters(group=other)
            times.append(time.perf_counter() - start)
    print(
        f"{len(res.groups)} groups, {res.idata.posterior.sizes['draw'] * 4} draws, "
        f"{len(table)} metrics, {table['cluster'].nunique()} clusters: median "
        f"{statistics.median(times):.3f} s (target < 1 s)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
