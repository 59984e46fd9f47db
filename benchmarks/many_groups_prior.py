"""Paired: the group-scaled misfit prior against the previous one, K = 60, one group distorted.

``unequal60_d1`` of ``benchmarks/many_groups.py`` (group 0 scored a logit of 1 away, 5
labels), the same data and seed fitted with ``DiscrepancyPrior()`` (new) and
``DiscrepancyPrior(scale_with_groups=False)`` (old): joint coverage of the accuracy gaps,
coverage of group 0's gap, median band width and group 0's width.

    python benchmarks/many_groups_prior.py 12
"""

import sys
import warnings

import numpy as np

import bayesfair as bf
from bayesfair.datasets.simulate import many_groups, rate_truth, unequal_group_sizes
from bayesfair.models.calibration import DiscrepancyPrior

FIT_METRICS = ["accuracy", "tpr", "fpr", "base_rate", "selection_rate"]  # many_groups.py's

warnings.simplefilter("ignore")
n_lab, n_unl = unequal_group_sizes(60)
out = []
for r in range(int(sys.argv[1])):
    seed = 31_000 + r
    lab, unl = many_groups(60, n_lab, n_unl, distorted=(0,), shift=1.0, random_seed=seed)
    data = bf.AssessmentData.from_frames(
        lab, unl.drop(columns=["label", "p"]), score="score", label="label", group="group"
    )
    truth = rate_truth((lab, unl), list(data.group_levels))
    rec = {}
    for name, disc in (
        ("new", DiscrepancyPrior()),
        ("old", DiscrepancyPrior(scale_with_groups=False)),
    ):
        res = bf.fit(
            data, random_seed=seed, progressbar=False, metrics=FIT_METRICS, discrepancy=disc
        )
        t = res.group_summary(["accuracy"]).set_index("group").loc[list(res.groups)]
        gap = truth["accuracy"]["gap"]
        inside = (t.gap_lower.to_numpy() <= gap) & (gap <= t.gap_upper.to_numpy())
        rec[name] = dict(
            joint=bool(inside.all()),
            g0=bool(inside[0]),
            width=float((t.gap_upper - t.gap_lower).median()),
            g0_width=float(t.gap_upper.iloc[0] - t.gap_lower.iloc[0]),
        )
    out.append(rec)
    print(r, rec, flush=True)
for name in ("new", "old"):
    print(
        name,
        "joint",
        sum(o[name]["joint"] for o in out),
        "/",
        len(out),
        "g0",
        sum(o[name]["g0"] for o in out),
        "median width",
        np.median([o[name]["width"] for o in out]).round(3),
        "g0 width",
        np.median([o[name]["g0_width"] for o in out]).round(3),
    )
