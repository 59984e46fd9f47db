"""Labels to a decision: batches that ``suggest_labels`` chooses against random batches.

Design (:func:`bayesfair.datasets.simulate.differential_calibration`, so the truth is
known): a real classifier's scores (Ji et al.'s Adult MLP, drawn with replacement), two
groups of equal shares, 20,020 rows; in g0 nothing different (``alike``), 12% of its
labels flipped (``label_noise``: its map differs), or its scores over-confident
(``slope2``). Each loop starts from 20 labeled rows drawn at random (the rest is the
unlabeled pool, its labels hidden), fits the default model (``bf.fit``, 2 chains ×
(500 + 500)), and adds a batch of 10 labels, refits, ... until the 95% HDI of the
accuracy gap g0 − g1 is at most 0.12 wide (the stop; 600 labels at most):

* ``random``: the batch is a simple random sample of the pool;
* ``suggest``: the batch is ``bf.suggest_labels(res, n=10)`` (its defaults: accuracy,
  within strata, and its check against a random batch).

Paired: loop ``i`` of both strategies starts from the same data and the same 20
labels. Recorded per loop: the labels at the stop (600 when never), whether the final
interval covers the realised gap (on all 20,020 rows), and how many of the suggested
batches were random (the check could not show a gain).

Usage::

    python benchmarks/active_vs_random.py --loops 20
    python benchmarks/active_vs_random.py --loops 1 --designs alike   # smoke
    python benchmarks/active_vs_random.py --report

Writes ``benchmarks/results/active_vs_random.csv`` (one row per loop, appended) and
``docs/results/active_vs_random.md``.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import bayesfair as bf
from bayesfair.datasets.simulate import differential_calibration

ROOT = Path(__file__).resolve().parents[1]
CSV = ROOT / "benchmarks/results/active_vs_random.csv"
PAGE = ROOT / "docs/results/active_vs_random.md"
DESIGNS = {
    "alike": {"kind": "none"},
    "label_noise": {"kind": "label_noise", "amount": 0.12},
    "slope2": {"kind": "slope", "amount": 2.0},
}
START, BATCH, MAX_LABELS, TARGET, N_ROWS = 20, 10, 600, 0.12, 20_000
FIT = {"draws": 500, "tune": 500, "chains": 2, "progressbar": False}


def _accuracy(frame: pd.DataFrame) -> float:
    return float(((frame["score"].to_numpy() >= 0.5) == (frame["label"].to_numpy() == 1)).mean())


def loop(design: str, strategy: str, seed: int) -> dict:
    """One labeling loop (module docstring)."""
    lab, unl = differential_calibration(2, START, N_ROWS, random_seed=seed, **DESIGNS[design])
    rows = pd.concat([lab, unl], ignore_index=True).drop(columns="p")
    truth = _accuracy(rows[rows["group"] == "g0"]) - _accuracy(rows[rows["group"] == "g1"])
    labeled = np.zeros(len(rows), dtype=bool)
    labeled[:START] = True
    rng = np.random.default_rng(seed + 7)
    random_batches = batches = 0
    while True:
        pool = np.flatnonzero(~labeled)
        data = bf.AssessmentData.from_frames(
            rows[labeled],
            rows.iloc[pool].drop(columns="label"),
            score="score",
            label="label",
            group="group",
            reference="g1",
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = bf.fit(data, metrics=["accuracy"], random_seed=int(rng.integers(2**31)), **FIT)
            row = res.summary("accuracy").iloc[0]
        lo, hi = float(row["hdi_lower"]), float(row["hdi_upper"])
        n = int(labeled.sum())
        if hi - lo <= TARGET or n >= MAX_LABELS:
            break
        if strategy == "random":
            chosen = rng.choice(pool, size=BATCH, replace=False)
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                table = bf.suggest_labels(res, n=BATCH, random_seed=int(rng.integers(2**31)))
            chosen = pool[table["position"].to_numpy()]
            batches += 1
            random_batches += table.attrs.get("batch") == "random"
        labeled[chosen] = True
    return {
        "design": design,
        "strategy": strategy,
        "seed": seed,
        "labels": n if hi - lo <= TARGET else MAX_LABELS,
        "reached": hi - lo <= TARGET,
        "covered": lo <= truth <= hi,
        "width": hi - lo,
        "truth": truth,
        "batches": batches,
        "random_batches": random_batches,
    }


def report(runs: pd.DataFrame) -> str:
    lines = [
        "# Labels to a decision: suggested batches against random ones",
        "",
        "Written by `benchmarks/active_vs_random.py` (its docstring has the design): two",
        "groups of a real classifier's scores, loops from 20 random labels adding batches of",
        f"10 until the 95% HDI of the accuracy gap is at most {TARGET} wide (at most",
        f"{MAX_LABELS} labels). Paired loops: the same data and starting labels for both.",
        "",
        "| design | loops | median labels, random | median labels, suggest | ratio | "
        "paired: suggest fewer / equal / more | median paired difference [90% bootstrap] | "
        "coverage random | coverage suggest | random batches of the suggested |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for design, part in runs.groupby("design", sort=False):
        r = part[part["strategy"] == "random"].set_index("seed")
        s = part[part["strategy"] == "suggest"].set_index("seed")
        both = r.index.intersection(s.index)
        if not len(both):
            continue
        r, s = r.loc[both], s.loc[both]
        diff = s["labels"] - r["labels"]
        share = s["random_batches"].sum() / max(s["batches"].sum(), 1)
        lo, hi = _bootstrap_median(diff.to_numpy())
        lines.append(
            f"| {design} | {len(both)} | {r['labels'].median():.0f} | "
            f"{s['labels'].median():.0f} | {s['labels'].median() / r['labels'].median():.2f} | "
            f"{(diff < 0).sum()} / {(diff == 0).sum()} / {(diff > 0).sum()} | "
            f"{np.median(diff):+.0f} [{lo:+.0f}, {hi:+.0f}] | "
            f"{r['covered'].mean():.2f} | {s['covered'].mean():.2f} | {share:.0%} |"
        )
    return "\n".join(lines) + "\n"


def _bootstrap_median(diff: np.ndarray, n: int = 4000, seed: int = 0) -> tuple[float, float]:
    """A 90% percentile bootstrap interval of the median of the paired differences."""
    rng = np.random.default_rng(seed)
    medians = np.median(rng.choice(diff, size=(n, diff.size), replace=True), axis=1)
    return float(np.quantile(medians, 0.05)), float(np.quantile(medians, 0.95))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--loops", type=int, default=20)
    ap.add_argument("--designs", default=",".join(DESIGNS))
    ap.add_argument("--seed0", type=int, default=500)
    ap.add_argument("--report", action="store_true")
    args = ap.parse_args()
    if not args.report:
        done = pd.read_csv(CSV) if CSV.exists() else pd.DataFrame()
        for i in range(args.loops):
            for design in args.designs.split(","):
                for strategy in ("random", "suggest"):
                    seed = args.seed0 + i
                    if (
                        len(done)
                        and (
                            (done["design"] == design)
                            & (done["strategy"] == strategy)
                            & (done["seed"] == seed)
                        ).any()
                    ):
                        continue
                    start = time.perf_counter()
                    out = pd.DataFrame([loop(design, strategy, seed)])
                    out.to_csv(CSV, mode="a", header=not CSV.exists(), index=False)
                    took = time.perf_counter() - start
                    print(f"{design} {strategy} {seed}: {out['labels'].iloc[0]} ({took:.0f} s)")
    PAGE.write_text(report(pd.read_csv(CSV)))
    print(PAGE.read_text())


if __name__ == "__main__":
    main()
