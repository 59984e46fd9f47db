"""Paired comparison of a re-run against stored runs: did a change move the tables?

A re-run (``robust_coverage.py --rerun ...``, ``reproduce_ji2020.py``) draws the
same labeled sets with the same seeds as the stored runs, so each run's absolute
error, coverage indicator and width can be differenced run by run. Per cell and
method this prints (and writes as Markdown) the old and new coverage, MAE and
mean width, the paired differences new − old with their Monte Carlo standard
errors (sd of the run-wise differences / √runs) and z = difference / SE. A change
that leaves the posterior alone (a new parametrisation of the sampler, a
likelihood approximation within its error bound) moves no cell's MAE or
coverage by more than about 2 SE, except by chance (about 1 cell in 20 at
|z| > 2).

Usage::

    python benchmarks/paired_rerun.py OLD.csv NEW.csv --methods rbc bc \\
        --title "rbc and bc re-run" --out docs/results/robust_rerun_whitened.md
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np
import pandas as pd

KEYS = ["dataset", "classifier", "method", "run"]


def paired(old: pd.DataFrame, new: pd.DataFrame, methods) -> pd.DataFrame:
    """One row per (method, cell) with runs in both files: old, new, differences, SEs."""
    keys = KEYS + (["n_labeled"] if "n_labeled" in old and "n_labeled" in new else [])
    cols = [*keys, "abs_error", "covered", "width"]
    both = old[cols].merge(new[cols], on=keys, suffixes=("_old", "_new"))
    both = both[both["method"].isin(methods)]
    cell_keys = ["method", "dataset", "classifier", *keys[len(KEYS) :]]
    rows = []
    for key, g in both.groupby(cell_keys):
        method, dataset, clf = key[:3]
        n = len(g)
        name = f"{dataset} {clf}" + (f" n_L={key[3]}" if len(key) > 3 else "")
        row = {"method": method, "cell": name, "runs": n}
        for name, col, scale in (
            ("cov", "covered", 1.0),
            ("mae", "abs_error", 100.0),
            ("width", "width", 100.0),
        ):
            o, w = g[f"{col}_old"].to_numpy(float) * scale, g[f"{col}_new"].to_numpy(float) * scale
            ok = ~(np.isnan(o) | np.isnan(w))
            d = w[ok] - o[ok]
            se = float(np.std(d, ddof=1) / math.sqrt(ok.sum())) if ok.sum() > 1 else float("nan")
            row[f"{name}_old"] = float(np.mean(o[ok])) if ok.any() else float("nan")
            row[f"{name}_new"] = float(np.mean(w[ok])) if ok.any() else float("nan")
            row[f"d_{name}"] = float(np.mean(d)) if ok.any() else float("nan")
            row[f"d_{name}_se"] = se
            row[f"z_{name}"] = row[f"d_{name}"] / se if se > 0 else float("nan")
        rows.append(row)
    return pd.DataFrame(rows)


def summary_lines(table: pd.DataFrame) -> list[str]:
    """Per method: mean coverage and MAE old → new, and the largest |z|."""
    out = []
    for method, g in table.groupby("method"):
        z = pd.concat([g["z_mae"], g["z_cov"]]).abs()
        out.append(
            f"- `{method}`: {len(g)} cells; mean coverage {g['cov_old'].mean():.3f} → "
            f"{g['cov_new'].mean():.3f}, mean MAE ×100 {g['mae_old'].mean():.2f} → "
            f"{g['mae_new'].mean():.2f}; cells with |z| > 2: "
            f"{int((g['z_mae'].abs() > 2).sum())} (MAE), {int((g['z_cov'].abs() > 2).sum())} "
            f"(coverage); largest |z| {z.max():.2f}."
        )
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("old", type=Path)
    p.add_argument("new", type=Path)
    p.add_argument("--methods", nargs="+", required=True)
    p.add_argument("--title", default="Paired re-run")
    p.add_argument("--note", default="")
    p.add_argument("--out", type=Path, default=None, help="append the Markdown to this file")
    args = p.parse_args(argv)
    table = paired(pd.read_csv(args.old), pd.read_csv(args.new), args.methods)
    shown = [
        "method",
        "cell",
        "runs",
        "cov_old",
        "cov_new",
        "d_cov",
        "d_cov_se",
        "mae_old",
        "mae_new",
        "d_mae",
        "d_mae_se",
        "width_old",
        "width_new",
        "z_mae",
        "z_cov",
    ]
    text = "\n".join(
        [
            f"## {args.title}",
            "",
            *([args.note, ""] if args.note else []),
            *summary_lines(table),
            "",
            "```",
            table[shown].to_string(index=False, float_format=lambda v: f"{v:.3f}"),
            "```",
            "",
        ]
    )
    print(text)
    if args.out is not None:
        with open(args.out, "a", encoding="utf-8") as fh:
            fh.write(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
