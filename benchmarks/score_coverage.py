"""The score beyond one threshold: coverage and width of the AUC gap, xAUC and the sweep.

Design (:func:`bayesfair.datasets.simulate.differential_calibration`): the MLP of Ji et
al. on UCI Adult, its scores drawn with replacement, K groups at random with equal
shares, labels ``y ~ Bernoulli(s)`` (the groups share one map), except in the cells
``label_noise``, where 12% of group g0's labels are flipped: its map differs (``0.12 +
0.76 s``) and so do its AUC and its rates. 20,000 unlabeled rows; ``n_L`` labeled rows.

Truth (:func:`bayesfair.datasets.simulate.score_truth`): over every assessed row by its
true label, g0 against g1: the AUC gap (ties ½), xAUC both ways, and the TPR gap at the
19 thresholds 0.05, 0.10, ..., 0.95.

Per data set:

* the default fit (``bf.fit``, ``rbc``): the 95% HDI of ``res.difference("auc")``,
  ``res.xauc`` and the joint band of ``res.threshold_summary("tpr")``;
* DeLong's interval of the AUC gap on the labeled rows (``bf.frequentist.auc_difference``);
* the prediction-powered AUC gap (``bf.frequentist.ppi_auc_difference``: the unlabeled
  scores as predictions, corrected run by run by the labeled rows);
* the default's joint band of g0's own TPR along the thresholds (``rate_band``) and of
  its share of positives by score range (``reliability``, ten ranges of width 0.1, the
  truth over g0's rows in each);
* the labeled-only band that keeps its level: Newcombe's interval at each threshold at
  the Bonferroni level (``bf.frequentist.threshold_band``).

Figures per cell: coverage (with its Monte Carlo SE) and mean width of each; the sweep's
coverage is of all 19 thresholds at once, its width the mean over the thresholds where
both bands are finite.

Usage::

    python benchmarks/score_coverage.py --reps 150 --out benchmarks/results/score_coverage.csv.gz
    python benchmarks/score_coverage.py --reps 2 --cells label_noise:2:200   # smoke
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import bayesfair as bf
from bayesfair.datasets.simulate import (
    differential_calibration,
    score_truth,
    simulated_assessment,
)
from bayesfair.posterior import score_view
from bayesfair.stats import hdi

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs/results/score_coverage.md"
KINDS = {"alike": ("none", None), "label_noise": ("label_noise", 0.12)}
DEFAULT_CELLS = [f"{kind}:{k}:{n}" for kind in KINDS for k in (2, 4) for n in (200, 2000)]
FIT = dict(draws=500, tune=500, chains=2, progressbar=False)
N_UNLABELED = 20_000


def replicate(kind: str, k: int, n_labeled: int, seed: int, fit=FIT) -> dict:
    """One data set of a cell: what each method's intervals say about the truth."""
    distortion, amount = KINDS[kind]
    labeled, unlabeled = differential_calibration(
        k, n_labeled, N_UNLABELED, kind=distortion, amount=amount, random_seed=seed
    )
    truth = score_truth((labeled, unlabeled), "g0", "g1")
    data = simulated_assessment(labeled, unlabeled)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit(data, random_seed=seed, **fit)
        auc = hdi(res.difference("auc", "g0", "g1").values.ravel(), 0.95)
        x = res.xauc("g0", "g1").set_index("positives")
        sweep = res.threshold_summary("tpr", ci_prob=0.95, reference="g1")
        sweep = sweep[sweep["group"] == "g0"]
        delong = bf.frequentist.auc_difference(data, group="g0", reference="g1")
        ppi = bf.frequentist.ppi_auc_difference(data, "g0", "g1", random_seed=seed)
        band = bf.frequentist.threshold_band(data, "tpr", group="g0", reference="g1")
    rate_band = sweep[["rate_lower", "rate_upper"]].to_numpy()
    rate_truth = truth["rate"]["g0"]
    curve = score_view.reliability_summary(res)
    curve = curve[curve["group"] == "g0"]
    rows = pd.concat([labeled, unlabeled])
    mine = rows[rows["group"] == "g0"]
    edges = np.linspace(0, 1, 11)
    which = np.clip(np.searchsorted(edges, mine["score"].to_numpy(), side="right") - 1, 0, 9)
    share = pd.Series(mine["label"].to_numpy()).groupby(which).mean()
    k = np.round(curve["score_lower"].to_numpy() * 10).astype(int)
    true_share = share.reindex(k).to_numpy()
    gap = truth["gap"]
    both = np.isfinite(band["gap_lower"].to_numpy()) & np.isfinite(band["gap_upper"].to_numpy())
    within = (sweep["gap_lower"].to_numpy() <= gap) & (gap <= sweep["gap_upper"].to_numpy())
    held = (band["gap_lower"].to_numpy() <= gap) & (gap <= band["gap_upper"].to_numpy())
    width = sweep["gap_upper"].to_numpy() - sweep["gap_lower"].to_numpy()
    band_width = band["gap_upper"].to_numpy() - band["gap_lower"].to_numpy()
    return {
        "auc_covered": bool(auc[0] <= truth["auc_gap"] <= auc[1]),
        "auc_width": auc[1] - auc[0],
        "auc_error": abs(float(np.nanmean(res.difference("auc", "g0", "g1"))) - truth["auc_gap"]),
        "delong_covered": bool(delong.interval[0] <= truth["auc_gap"] <= delong.interval[1]),
        "delong_width": delong.interval[1] - delong.interval[0],
        "delong_error": abs(delong.estimate - truth["auc_gap"]),
        "ppi_covered": bool(ppi.interval[0] <= truth["auc_gap"] <= ppi.interval[1]),
        "ppi_width": ppi.interval[1] - ppi.interval[0],
        "ppi_error": abs(ppi.estimate - truth["auc_gap"]),
        "xauc_covered_g0": bool(
            x.loc["g0", "lower"] <= truth["xauc"][("g0", "g1")] <= x.loc["g0", "upper"]
        ),
        "xauc_covered_g1": bool(
            x.loc["g1", "lower"] <= truth["xauc"][("g1", "g0")] <= x.loc["g1", "upper"]
        ),
        "sweep_covered": bool(within.all()),
        "sweep_width": float(width[both].mean()),
        "band_covered": bool(held[both].all()),
        "band_width": float(band_width[both].mean()),
        "rate_band_covered": bool(
            ((rate_band[:, 0] <= rate_truth) & (rate_truth <= rate_band[:, 1])).all()
        ),
        "reliability_covered": bool(
            (
                (curve["lower"].to_numpy() <= true_share)
                & (true_share <= curve["upper"].to_numpy())
            ).all()
        ),
        "positives_g0": int(labeled.loc[labeled["group"] == "g0", "label"].sum()),
    }


def run_cell(cell: str, reps: int, seed0: int) -> list[dict]:
    kind, k, n_l = cell.split(":")
    out = []
    for rep in range(reps):
        row = replicate(kind, int(k), int(n_l), seed0 + rep)
        out.append({"cell": cell, "rep": rep, **row})
    return out


def summarise(frame: pd.DataFrame) -> pd.DataFrame:
    cols = {
        "auc": "auc_covered",
        "delong": "delong_covered",
        "ppi": "ppi_covered",
        "xauc_g0": "xauc_covered_g0",
        "xauc_g1": "xauc_covered_g1",
        "sweep": "sweep_covered",
        "band": "band_covered",
        "rate_band": "rate_band_covered",
        "reliability": "reliability_covered",
    }
    rows = []
    for cell, part in frame.groupby("cell", sort=False):
        row = {"cell": cell, "reps": len(part)}
        for name, col in cols.items():
            row[f"{name}_coverage"] = part[col].mean()
        row["auc_width_ratio"] = part["auc_width"].mean() / part["delong_width"].mean()
        row["auc_mae"] = part["auc_error"].mean()
        row["delong_mae"] = part["delong_error"].mean()
        row["ppi_width_ratio"] = part["ppi_width"].mean() / part["delong_width"].mean()
        row["ppi_mae"] = part["ppi_error"].mean()
        row["sweep_width_ratio"] = part["sweep_width"].mean() / part["band_width"].mean()
        rows.append(row)
    return pd.DataFrame(rows)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=100)
    parser.add_argument("--cells", nargs="*", default=DEFAULT_CELLS)
    parser.add_argument("--seed", type=int, default=61_000)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    rows = []
    for cell in args.cells:
        start = time.perf_counter()
        rows += run_cell(cell, args.reps, args.seed)
        print(f"{cell}: {time.perf_counter() - start:.0f} s", flush=True)
        frame = pd.DataFrame(rows)
        if args.out is not None:
            frame.to_csv(args.out, index=False)
    table = summarise(pd.DataFrame(rows))
    with pd.option_context("display.width", 200, "display.max_columns", 30):
        print(table.round(3).to_string(index=False))
    if args.out is not None:
        write_results(table)


def write_results(table: pd.DataFrame) -> None:
    """``docs/results/score_coverage.md``: the figures per cell, and over the cells."""
    from bayesfair._internal.render import markdown_table

    shown = table.copy()
    mean = shown.drop(columns="cell").mean().to_frame().T.assign(cell="mean over the cells")
    shown = pd.concat([shown, mean[shown.columns]], ignore_index=True)
    reps = int(table["reps"].min())
    lines = [
        "# The score beyond one threshold: coverage and width",
        "",
        f"Written by `benchmarks/score_coverage.py` (its docstring has the design); {reps} "
        "data sets per cell. Coverage of the 95% intervals of g0 − g1 over every assessed "
        f"row (Monte Carlo SE about {np.sqrt(0.95 * 0.05 / reps):.3f} at 0.95); `auc`: the "
        "default fit's HDI of the AUC gap; `delong`, `ppi`: DeLong's and the "
        "prediction-powered interval; `xauc_g0`, `xauc_g1`: xAUC, each direction; "
        "`sweep`: the default's joint band of the TPR gap at 19 thresholds, all at once; "
        "`band`: Newcombe at the Bonferroni level on the labeled rows. Width ratios are "
        "of mean widths against DeLong's (AUC) and the labeled band's (sweep); MAE the "
        "mean absolute error of the gap's point estimate.",
        "",
        markdown_table(shown.round(3)),
        "",
    ]
    RESULTS.write_text("\n".join(lines))


if __name__ == "__main__":
    main()
