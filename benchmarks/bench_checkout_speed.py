"""Benchmark: the default fit and its summary, this checkout against another one.

The size of ``bench_bc_speed.py`` (Adult-sex MLP scores; n_L = 100 labeled rows at
random and n_U = 10⁴ unlabeled ones drawn with replacement from the rest, seed 0; 4
chains x (1000 + 1000)): ``fit(data)`` then ``summary(["accuracy", "tpr", "fpr"])``, the median
of ``--fits`` calls after a warm-up fit, each checkout in its own process, the two
alternated ``--rounds`` times (the machine is shared: only ratios taken in one run are
comparable). Prints each round's medians and the ratio of this checkout's to the other's.

Usage::

    git worktree add /tmp/base <commit>
    python benchmarks/bench_checkout_speed.py /tmp/base --rounds 3 --fits 5
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, statistics, sys, time, warnings
import numpy as np
sys.path.insert(0, sys.argv[1])
import bayesfair as bf
from bayesfair.datasets import load_scores
warnings.simplefilter("ignore")
frame = load_scores("adult-sex", "MLP")
rng = np.random.default_rng(0)
lab = frame.sample(n=100, random_state=0)
rest = frame.drop(index=lab.index)
unl = rest.iloc[rng.integers(0, len(rest), 10_000)]
data = bf.AssessmentData(lab.score, lab.label, lab.group, unl.score, unl.group)
bf.fit(data, random_seed=0, progressbar=False).summary(["accuracy", "tpr", "fpr"])
times = []
for i in range(int(sys.argv[2])):
    start = time.perf_counter()
    bf.fit(data, random_seed=i + 1, progressbar=False).summary(["accuracy", "tpr", "fpr"])
    times.append(time.perf_counter() - start)
print(json.dumps(statistics.median(times)))
"""


def median_time(checkout: Path, fits: int) -> float:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(checkout), str(fits)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("other", type=Path, help="the other checkout (a git worktree)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--fits", type=int, default=5)
    args = ap.parse_args(argv)
    ratios = []
    for r in range(args.rounds):
        other = median_time(args.other, args.fits)
        this = median_time(ROOT, args.fits)
        ratios.append(this / other)
        print(
            f"round {r + 1}: this {this:.3f} s, other {other:.3f} s, ratio {ratios[-1]:.2f}",
            flush=True,
        )
    ratios.sort()
    print(f"median ratio {ratios[len(ratios) // 2]:.2f} (range {ratios[0]:.2f}-{ratios[-1]:.2f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
