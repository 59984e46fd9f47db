"""The cost of a default fit with many groups against two groups, on the same rows.

UCI Adult (the MLP's scores of the bundled ``adult-race`` set, 10,054 rows), 1,000
labeled at random, the rest unlabeled. The same rows are fitted with two groups
(sex) and with the intersections race × sex × age band (56 groups occur), each
``--repeats`` times, interleaved so that the machine's load falls on both alike.
Reported: the median wall time of each, their ratio, where the time of each fit goes
(profiled once: sampling, the preconditioner, the draws' expansion, the strata's
shifts, drawing the unlabeled labels, the diagnostics, the prior draws, the
calibration check), and NUTS alone in the many-group fit over the whole two-group fit:
the least the ratio can be when everything but the sampler costs nothing.

    python benchmarks/many_groups_cost.py --repeats 3 --out docs/results/many_groups_cost.json
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import bayesfair as bf

#: The functions whose cumulative time the breakdown reports.
PARTS = {
    "sampling": "sample_model",
    "preconditioner": "preconditioner",
    "draws expanded": "complete_posterior",
    "strata's shifts": "sample_shifts",
    "unlabeled labels": "sampled_counts",
    "diagnostics": "diagnostics_table",
    "prior draws": "calibration_prior_counts",
    "calibration check": "calibration_verdicts",
}


def rows(n_labeled: int = 1000, seed: int = 0):
    """The labeled and unlabeled frames with the columns ``sex`` and ``intersection``."""
    scores = bf.datasets.load_scores("adult-race", "MLP")
    raw = bf.datasets.load_raw("adult").dropna().reset_index(drop=True)
    age = raw.loc[scores.index, "age"].to_numpy()
    band = pd.cut(
        age,
        [0, 25, 35, 45, 55, 65, 200],
        right=False,
        labels=["<25", "25-34", "35-44", "45-54", "55-64", "65+"],
    )
    frame = scores.assign(
        intersection=scores["raw_group"].astype(str)
        + " & "
        + scores["sex"].astype(str)
        + " & "
        + np.asarray(band, dtype=str)
    )
    pick = np.random.default_rng(seed).choice(len(frame), n_labeled, replace=False)
    labeled = frame.iloc[pick]
    return labeled, frame.drop(labeled.index).drop(columns="label")


def one_fit(labeled, unlabeled, group, seed, profile=False):
    data = bf.AssessmentData.from_frames(
        labeled, unlabeled, score="score", label="label", group=group
    )
    prof = cProfile.Profile() if profile else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        if prof:
            prof.enable()
        bf.fit(data, random_seed=seed, progressbar=False)
        if prof:
            prof.disable()
        seconds = time.perf_counter() - start
    parts = {}
    if prof:
        stats = pstats.Stats(prof).stats
        for label, name in PARTS.items():
            parts[label] = sum(v[3] for k, v in stats.items() if k[2] == name)
    return data.n_groups, seconds, parts


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    labeled, unlabeled = rows()
    one_fit(labeled, unlabeled, "sex", 0)  # compile and warm the caches
    one_fit(labeled, unlabeled, "intersection", 0)
    times = {"sex": [], "intersection": []}
    k = {}
    for r in range(args.repeats):
        for group in times:
            k[group], seconds, _ = one_fit(labeled, unlabeled, group, r + 1)
            times[group].append(seconds)
            print(f"{group:>12} ({k[group]} groups): {seconds:.2f} s", flush=True)
    breakdown = {g: one_fit(labeled, unlabeled, g, 99, profile=True)[2] for g in times}
    med = {g: float(np.median(t)) for g, t in times.items()}
    # NUTS inside the many-group fit against the whole two-group fit: the ratio's floor
    sampling = breakdown["intersection"]["sampling"] - breakdown["intersection"]["draws expanded"]
    result = {
        "groups": k,
        "seconds": times,
        "median_seconds": med,
        "ratio": med["intersection"] / med["sex"],
        "nuts_alone_over_two_group_fit": sampling / med["sex"],
        "breakdown_seconds": breakdown,
    }
    print(json.dumps(result, indent=2))
    if args.out:
        args.out.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
