"""Census-style intersections: how narrow an honest joint band can be where the groups
are alike, against the default's.

For each data set of ``benchmarks/census_intersections.py`` where no group differs
(K = 30 or 60 groups, 1,000 or 5,000 labels, the seeds of its stored runs), each
group's gap (accuracy and TPR) in the limit experiment of
:func:`bayesfair.datasets.limits.gap_limit`: X read through the map the groups share
(known: the most precise estimate where they are alike), Y debiased from the group's
labels (AIPW with the true map: the most precise estimate unbiased whatever the group's
map), and B, the smaller of the largest upward and downward biases of X when the
group's map is distorted as the census check distorts one (12% label noise, slope × 2,
slope × 0.5). Per group, the least expected width where the groups are alike
(:func:`~bayesfair.datasets.limits.pratt_bound_split`) of a band that

* ``own``: keeps 95% for that group, where the groups are alike and where its own map
  is distorted by up to B (what a joint 95% band must do at the least);
* ``joint``: holds for all K groups at once with probability 0.95, where the groups are
  alike and where any one is distorted, the groups' misses independent
  (:func:`~bayesfair.datasets.limits.joint_band_bounds`);
* ``joint, 90%``: the same at 0.90 (the census check's pass mark).

Per data set, the median over groups of each bound over the default's median joint
band on the same rows (``census_intersections.jsonl``, model ``default``): a band
narrower than the default by 30% in the median needs that ratio at or below 0.70.

What the bound is for, and what it assumes:

* bands that keep their level for *every* distortion of one group's map whose bias of
  X is at most B (of any size up to B, in the least favourable direction, where the
  rectifier Y − X is all the labels say about it); the check's three distortions show
  more in the labels (label noise at the extreme scores), so a band that had to cover
  only them could be narrower;
* the Gaussian limit, stretched by groups of 10–20 labels;
* ``joint``: the groups' misses independent; ``own`` needs no such assumption;
* its expected width, set against the default's realised widths.

It is an oracle's bound: it gives X the map exactly and holds at one point (a band
tuned to be shortest where the groups are alike is wider wherever one differs).

    python benchmarks/census_bound.py --out benchmarks/results/census_bound.csv
    python benchmarks/census_bound.py --page
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from bayesfair.datasets.limits import gap_limit, joint_band_bounds, pratt_bound_split

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from census_intersections import METRICS, data_set  # noqa: E402

CELLS = ("none:30:1000", "none:30:5000", "none:60:1000", "none:60:5000")
RUNS = ROOT / "benchmarks/results/census_intersections.jsonl"
OUT = ROOT / "benchmarks/results/census_bound.csv"
PAGE = ROOT / "docs/results/census_bound.md"
BOUNDS = ("own", "joint", "joint90")


def bounds_of(lab, unl, groups, metric: str) -> dict:
    """Per group, the three bounds (``own``, ``joint``, ``joint90``) of one data set."""
    lim = gap_limit(lab, unl, groups, metric)
    args = (lim["var_x"], lim["var_r"], lim["bound"])
    own = [pratt_bound_split(vx, vr, b, 0.95, 0.95) for vx, vr, b in zip(*args, strict=True)]
    joint, gamma, differs = joint_band_bounds(*args, ci_prob=0.95)
    joint90, *_ = joint_band_bounds(*args, ci_prob=0.90)
    return {
        "own": np.array(own),
        "joint": joint,
        "joint90": joint90,
        "gamma": gamma,
        "differs": differs,
        "limit": lim,
    }


def run(out: Path) -> pd.DataFrame:
    """Every stored default run of the cells: the bounds against its widths."""
    runs = [json.loads(line) for line in RUNS.open()]
    rows = []
    for cell in CELLS:
        start = time.perf_counter()
        for r in (r for r in runs if r["cell"] == cell and r["model"] == "default"):
            lab, unl, _, groups, odd = data_set(cell, r["rep"])
            for metric in METRICS:
                b = bounds_of(lab, unl, groups, metric)
                row = {"cell": cell, "rep": r["rep"], "metric": metric}
                row["default"] = r[metric]["median_width"]
                row["default_odd"] = r[metric]["odd_width"]
                row["gamma_alike"], row["gamma_differs"] = b["gamma"], b["differs"]
                row["labels_median"] = float(b["limit"]["n_labeled"].median())
                row["B_median"] = float(b["limit"]["bound"].median())
                for key in BOUNDS:
                    row[key] = float(np.median(b[key]))
                    row[f"{key}_odd"] = float(b[key][odd])
                rows.append(row)
        pd.DataFrame(rows).to_csv(out, index=False)
        print(f"{cell}: {time.perf_counter() - start:.0f} s", flush=True)
    return pd.DataFrame(rows)


def _ratios(x: pd.Series) -> str:
    return f"{x.median():.2f} ({x.min():.2f}–{x.max():.2f})"


def page(table: pd.DataFrame) -> str:
    """The results page: per cell and metric, each bound over the default's width."""
    lines = [
        "# Census-style intersections: how narrow an honest joint band can be",
        "",
        "Generated by `python benchmarks/census_bound.py --page` from",
        "`benchmarks/results/census_bound.csv` (design and assumptions: the script's",
        "docstring and `bayesfair.datasets.limits.gap_limit`). Per data set where the",
        "groups are alike: the median over groups of the least expected width, in the",
        "Gaussian limit, of a band that keeps its level for every distortion of one",
        "group's map whose bias is at most B (the census check's distortions' size),",
        "over the default's median joint band on the same rows; median (range) over the",
        "data sets. 0.70 is the default narrowed by 30%. *own*: each group's band keeps",
        "95%; *joint*: the band holds for all groups at once, misses independent.",
        "",
        "| cell | metric | data sets | labels per group (median) | B (points) "
        "| own 95% | joint 95% | joint 90% | joint 95% > 0.70 |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for (cell, metric), t in table.groupby(["cell", "metric"], sort=True):
        ratio = {key: t[key] / t["default"] for key in BOUNDS}
        lines.append(
            f"| {cell} | {metric} | {len(t)} | {t['labels_median'].median():.0f} "
            f"| {100 * t['B_median'].median():.1f} | {_ratios(ratio['own'])} "
            f"| {_ratios(ratio['joint'])} | {_ratios(ratio['joint90'])} "
            f"| {int((ratio['joint'] > 0.70).sum())} of {len(t)} |"
        )
    lines += [
        "",
        "## The distorted group's own band",
        "",
        "The group the census check distorts (at the upper quartile of the shares): the",
        "joint 95% bound for its band over the default's band of it, where no group differs.",
        "",
        "| cell | accuracy | TPR |",
        "|---|---|---|",
    ]
    for cell, t in table.groupby("cell", sort=True):
        cols = [_ratios(u["joint_odd"] / u["default_odd"]) for _, u in t.groupby("metric")]
        lines.append(f"| {cell} | " + " | ".join(cols) + " |")
    split = table[["gamma_alike", "gamma_differs"]].median()
    lines += [
        "",
        f"The joint split (median over the data sets): each band misses with probability "
        f"{split['gamma_alike']:.1e} where the groups are alike and "
        f"{split['gamma_differs']:.3f} where its own group differs.",
    ]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--page", action="store_true", help="write the page from --out")
    args = parser.parse_args(argv)
    table = pd.read_csv(args.out) if args.page else run(args.out)
    if args.page:
        PAGE.write_text(page(table))
    else:
        print(page(table))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
