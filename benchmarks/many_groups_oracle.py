"""The known-calibration oracle of benchmarks/many_groups.py: the width of the joint band of
the gaps if each group's calibration were known exactly.

With every row's true P(y = 1 | score) known (the simulation's ``p``), the only
uncertainty about the assessed rates is the labels of the unlabeled rows: per group and
side of the threshold, their positives are a sum of independent Bernoulli(p) (drawn
here from its normal law, each group's sides having at least 500 rows × p(1 − p) of
variance in these cells). The labeled rows count with their labels. The band is
:func:`bayesfair.stats.simultaneous_band` of the gap draws, as the group view's.

    python benchmarks/many_groups_oracle.py --reps 10
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import pandas as pd

from bayesfair.datasets.simulate import many_groups
from bayesfair.stats import simultaneous_band

LABEL_PATTERN, UNLABELED_PATTERN = (5, 0, 20, 1, 40, 2, 10, 3), (500, 2000, 8000)
CELLS = {
    "null32": (32, 12, 10_000, ()),
    "unequal30_d1": (30, "unequal", "unequal", (0,)),
    "unequal60_d1": (60, "unequal", "unequal", (0,)),
}


def oracle_width(lab, unl, groups, rng, draws=4000):
    """Median over groups of the oracle's joint band width, accuracy and TPR."""
    out = {}
    lab_pred, unl_pred = lab["score"] >= 0.5, unl["score"] >= 0.5
    k = len(groups)
    pos = np.zeros((draws, k, 2))  # unlabeled positives per side (ŷ = 0, 1)
    n_side = np.zeros((k, 2))
    lab_pos = np.zeros((k, 2))
    lab_n = np.zeros((k, 2))
    for i, g in enumerate(groups):
        for side in (0, 1):
            u = unl[(unl["group"] == g) & (unl_pred == bool(side))]
            mean, var = u["p"].sum(), (u["p"] * (1 - u["p"])).sum()
            pos[:, i, side] = mean + np.sqrt(var) * rng.standard_normal(draws)
            n_side[i, side] = len(u)
            lb = lab[(lab["group"] == g) & (lab_pred == bool(side))]
            lab_pos[i, side], lab_n[i, side] = lb["label"].sum(), len(lb)
    tp = pos[..., 1] + lab_pos[:, 1]
    fn = pos[..., 0] + lab_pos[:, 0]
    n1, n0 = n_side[:, 1] + lab_n[:, 1], n_side[:, 0] + lab_n[:, 0]
    correct = tp + (n0 - fn)
    acc = correct / (n0 + n1)
    acc_all = correct.sum(1) / (n0 + n1).sum()
    tpr = tp / (tp + fn)
    tpr_all = tp.sum(1) / (tp + fn).sum(1)
    for name, rate, overall in (("accuracy", acc, acc_all), ("tpr", tpr, tpr_all)):
        lo, hi = simultaneous_band(rate - overall[:, None], 0.95)
        out[name] = float(np.median(hi - lo))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--seed", type=int, default=20_250_000)
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    result = {}
    for cell, (k, n_lab, n_unl, distorted) in CELLS.items():
        if n_lab == "unequal":
            n_lab = np.resize(LABEL_PATTERN, k)
            n_unl = np.resize(UNLABELED_PATTERN, k)
        widths = []
        for r in range(args.reps):
            lab, unl = many_groups(k, n_lab, n_unl, distorted=distorted, random_seed=args.seed + r)
            groups = sorted(
                pd.unique(lab["group"]).tolist()
                + [g for g in pd.unique(unl["group"]) if g not in set(lab["group"])]
            )
            widths.append(oracle_width(lab, unl, groups, rng))
        result[cell] = {m: float(np.median([w[m] for w in widths])) for m in ("accuracy", "tpr")}
        print(cell, result[cell], flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
