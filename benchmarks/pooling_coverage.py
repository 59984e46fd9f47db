"""Two groups whose calibration maps differ by a known logit shift: coverage, width, MAE
of the default model (``rbc``), and how often the prior-sensitivity sentence appears.

Each group has ``n_unlabeled`` unlabeled and ``n_per_group`` labeled rows; a row's true
probability is ``p ~ Beta(2, 2)`` and its label ``y ~ Bernoulli(p)``. Group A reports
``s = p`` (calibrated); group B reports ``s = σ(logit p − shift)``, so B's true map is
``f_B(s) = σ(logit s + shift)``, inside the beta-calibration family (``c_B = shift``).
Truth = the realised Δ (B − A) on all rows of both groups (the assessed estimand).

Per cell (shift × labels per group): coverage of the 95% HDI with its Monte Carlo
standard error ``sqrt(c (1 − c) / reps)``, median width, MAE, and the share of
replicates in which ``summary()`` marks the gap ``prior_sensitive`` (the sentence).

Usage::

    python benchmarks/pooling_coverage.py --reps 200   # docs/results/pooling_coverage.md
    python benchmarks/pooling_coverage.py --reps 12 --out /tmp/pool.csv
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import expit, logit

import bayesfair as bf
from bayesfair.metrics.rates import rate_from_counts

METRICS = ("accuracy", "tpr", "fpr")
ROOT = Path(__file__).resolve().parents[1]


def shifted_groups(n_per_group: int, shift: float, n_unlabeled: int, seed: int):
    """The data and the true gaps of one replicate (module docstring)."""
    rng = np.random.default_rng(seed)
    s, y, g, lab = [], [], [], []
    for name, sh in (("A", 0.0), ("B", shift)):
        n = n_per_group + n_unlabeled
        p = rng.beta(2.0, 2.0, n)
        s.append(expit(logit(p) - sh))
        y.append((rng.random(n) < p).astype(int))
        g.append(np.full(n, name))
        lab.append(np.arange(n) < n_per_group)
    s, y, g, lab = map(np.concatenate, (s, y, g, lab))
    data = bf.AssessmentData(s[lab], y[lab], g[lab], s[~lab], g[~lab], reference="A")
    pred = s >= 0.5
    counts = {
        k: np.array(
            [
                (pred & (y == 1))[g == k].sum(),
                (pred & (y == 0))[g == k].sum(),
                (~pred & (y == 0))[g == k].sum(),
                (~pred & (y == 1))[g == k].sum(),
            ]
        )
        for k in ("A", "B")
    }
    truth = {
        m: float(rate_from_counts(counts["B"], m) - rate_from_counts(counts["A"], m))
        for m in METRICS
    }
    return data, truth


def run(shifts, sizes, reps, n_unlabeled, seed) -> pd.DataFrame:
    rows = []
    for shift in shifts:
        for n in sizes:
            start = time.perf_counter()
            for r in range(reps):
                data, truth = shifted_groups(n, shift, n_unlabeled, seed + r)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    res = bf.fit(
                        data, metrics=list(METRICS), random_seed=seed + r, progressbar=False
                    )
                    table = res.summary().set_index("metric")
                for m in METRICS:
                    t = table.loc[m]
                    rows.append(
                        {
                            "shift": shift,
                            "n_per_group": n,
                            "rep": r,
                            "metric": m,
                            "truth": truth[m],
                            "mean": t["mean"],
                            "lower": t["hdi_lower"],
                            "upper": t["hdi_upper"],
                            "prior_sensitive": bool(t["prior_sensitive"]),
                            "decision": t["decision"],
                        }
                    )
            print(
                f"shift {shift}, {n} labels per group: {reps} fits in "
                f"{time.perf_counter() - start:.0f} s",
                flush=True,
            )
    return pd.DataFrame(rows)


def cell_summary(df: pd.DataFrame) -> pd.DataFrame:
    df = df.assign(
        covered=(df["lower"] <= df["truth"]) & (df["truth"] <= df["upper"]),
        width=df["upper"] - df["lower"],
        error=(df["mean"] - df["truth"]).abs(),
    )
    out = df.groupby(["shift", "n_per_group", "metric"]).agg(
        reps=("covered", "size"),
        coverage=("covered", "mean"),
        median_width=("width", "median"),
        mae=("error", "mean"),
        sentence=("prior_sensitive", "mean"),
    )
    out["coverage_se"] = np.sqrt(out["coverage"] * (1 - out["coverage"]) / out["reps"])
    # a replicate "says it" when the summary flags any of its metrics
    said = df.groupby(["shift", "n_per_group", "rep"])["prior_sensitive"].any()
    any_metric = said.groupby(["shift", "n_per_group"]).mean().rename("sentence_any_metric")
    return out.reset_index().merge(any_metric.reset_index(), on=["shift", "n_per_group"])


def markdown(df: pd.DataFrame) -> str:
    """The cell table as Markdown (docs/results/pooling_coverage.md)."""
    cells = cell_summary(df)
    lines = [
        "| shift | labels per group | metric | reps | coverage (SE) | median width | MAE | "
        "sentence (this metric) | sentence (any metric) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for _, r in cells.iterrows():
        lines.append(
            f"| {r['shift']:g} | {r['n_per_group']} | {r['metric']} | {r['reps']} | "
            f"{r['coverage']:.3f} ({r['coverage_se']:.3f}) | {100 * r['median_width']:.1f} | "
            f"{100 * r['mae']:.1f} | {r['sentence']:.2f} | {r['sentence_any_metric']:.2f} |"
        )
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--shifts", type=float, nargs="+", default=[0.0, 1.0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[5, 20, 100])
    ap.add_argument("--n-unlabeled", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--out", default=str(ROOT / "docs" / "results" / "pooling_coverage_runs.csv.gz")
    )
    args = ap.parse_args(argv)
    df = run(args.shifts, args.sizes, args.reps, args.n_unlabeled, args.seed)
    df.to_csv(args.out, index=False)
    print(markdown(df))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
