"""AUC, xAUC and a 100-threshold sweep on 10⁷ unlabeled rows, against one threshold.

One data set of :func:`bayesfair.datasets.simulate.differential_calibration` (two
groups, real Adult MLP scores, 12% of g0's labels flipped): 1,000 labeled rows and
``--rows`` unlabeled rows in memory. Timed in the same process, ``--repeats`` times in
alternation (the machine is shared: the ratio of medians is the figure):

* ``one threshold``: from the arrays to today's answer: ``AssessmentData`` (its
  binned summary of the rows), ``bf.fit`` (defaults: ``rbc``, 4 chains × 1,000 draws)
  and ``res.summary()``;
* ``with the score``: the same, then ``res.summary(metrics=["auc"])``, ``res.xauc()``
  and ``res.threshold_summary("tpr", thresholds=100 thresholds)``.

The score's views read the fit's cells (O(cells) a draw), never the rows again. Goal
(issue): ``with the score`` at most 2× ``one threshold``. Writes
``docs/results/bench_score_scale.txt``.

Run::

    python benchmarks/bench_score_scale.py                          # 10^7 rows
    python benchmarks/bench_score_scale.py --rows 1000000 --repeats 1   # quick
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from pathlib import Path

import numpy as np

import bayesfair as bf
from bayesfair.datasets.simulate import differential_calibration

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs/results/bench_score_scale.txt"
THRESHOLDS = np.round(np.linspace(0.01, 0.99, 100), 4)


def _run(labeled, unlabeled, with_score: bool) -> float:
    start = time.perf_counter()
    data = bf.AssessmentData.from_frames(
        labeled, unlabeled, score="score", label="label", group="group", reference="g1"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit(data, random_seed=0, progressbar=False)
    res.summary()
    if with_score:
        res.summary(metrics=["auc"])
        res.xauc()
        res.threshold_summary("tpr", thresholds=THRESHOLDS)
    return time.perf_counter() - start


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    labeled, unlabeled = differential_calibration(
        2, 1000, args.rows, kind="label_noise", random_seed=0
    )
    labeled = labeled.drop(columns="p")
    unlabeled = unlabeled.drop(columns=["label", "p"])
    one, both = [], []
    for _ in range(args.repeats):
        one.append(_run(labeled, unlabeled, with_score=False))
        both.append(_run(labeled, unlabeled, with_score=True))
    ratio = statistics.median(both) / statistics.median(one)
    lines = [
        f"rows: {args.rows:,} unlabeled, 1,000 labeled, 2 groups; repeats: {args.repeats}",
        f"one threshold (data, fit, summary): median {statistics.median(one):.1f} s",
        f"with AUC, xAUC and a 100-threshold sweep: median {statistics.median(both):.1f} s",
        f"ratio: {ratio:.2f} (goal: at most 2)",
    ]
    print("\n".join(lines))
    if args.rows >= 10_000_000:
        OUT.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
