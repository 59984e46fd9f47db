"""Coverage of the default model after active selection, where the model is right and wrong.

The table in ``docs/guides/label-budgets.md``: synthetic data
(``bayesfair.datasets.simulate.miscalibrated_scores``, two groups of 1,020; group B's scores
calibrated or inverted), 20 random labels per group, then 60 more chosen at random,
by ``suggest_labels(within="stratum")``, ``within="score"`` or ``within="mixed"``; refit and check
whether the 95% interval of Δ accuracy covers the gap on all 2,040 examples.

    python benchmarks/active_coverage.py --kind inverted --how score --reps 40
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd

import bayesfair as bf
from bayesfair.datasets.simulate import miscalibrated_scores
from bayesfair.stats import hdi


def one(kind: str, how: str, r: int) -> tuple[bool, float]:
    lab, unl = miscalibrated_scores(20, 1000, kind=kind, random_seed=100 + r)
    both = pd.concat([lab, unl], ignore_index=True)
    rates = bf.AssessmentData(both.score, both.label, both.group, reference="A").rates("accuracy")
    truth = rates["B"] - rates["A"]
    data = bf.AssessmentData(lab.score, lab.label, lab.group, unl.score, unl.group, reference="A")
    if how == "random":
        pos = np.random.default_rng(r).choice(len(unl), 60, replace=False)
    else:
        res = bf.fit(
            data,
            draws=300,
            tune=300,
            chains=2,
            random_seed=r,
            progressbar=False,
            metrics=["accuracy"],
            cores=1,
        )
        pos = bf.suggest_labels(res, n=60, metric="accuracy", within=how, random_seed=r)[
            "position"
        ].to_numpy()
    lab2 = pd.concat([lab, unl.iloc[pos]], ignore_index=True)
    unl2 = unl.drop(index=unl.index[pos])
    data2 = bf.AssessmentData(
        lab2.score, lab2.label, lab2.group, unl2.score, unl2.group, reference="A"
    )
    res2 = bf.fit(
        data2,
        draws=500,
        tune=500,
        chains=2,
        random_seed=r,
        progressbar=False,
        metrics=["accuracy"],
        cores=1,
    )
    lo, hi = hdi(res2.difference("accuracy").values)
    return bool(lo <= truth <= hi), hi - lo


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kind", choices=["none", "inverted", "cubed"], default="inverted")
    ap.add_argument("--how", choices=["random", "stratum", "score", "mixed"], default="stratum")
    ap.add_argument("--reps", type=int, default=40)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    out = np.array([one(args.kind, args.how, r) for r in range(args.reps)])
    cover = out[:, 0].mean()
    se = np.sqrt(cover * (1 - cover) / args.reps)
    print(
        f"{args.kind}, {args.how}: coverage {cover:.3f} (MC SE {se:.3f}) over {args.reps} "
        f"data sets, mean width {out[:, 1].mean():.3f}"
    )
