"""Speed of the label-budget tools: suggest_labels on 10^6 rows, a 6 x 50 plan.

Goals: ``suggest_labels`` on 10^6 unlabeled rows in
under 2 s; ``plan_labels`` with 6 budgets x 50 simulations (every method, both
strategies) in under 60 s. The reference in the same run is one NUTS fit of
the default model on the same data (4 x (500 + 500)): a planner that refitted
with NUTS would cost 6 x 50 x 2 of them.

    python benchmarks/bench_labels_speed.py
"""

from __future__ import annotations

import os
import time
import warnings

import numpy as np
import pandas as pd

import bayesfair as bf


def main() -> None:
    frame = bf.datasets.load_scores("adult-sex", "MLP").reset_index(drop=True)
    rng = np.random.default_rng(0)
    lab = frame.sample(100, random_state=0)
    rows = rng.integers(len(frame), size=1_000_000)
    unl = pd.DataFrame(
        {
            "id": np.arange(1_000_000) + 10**9,
            "score": frame["score"].to_numpy()[rows],
            "group": frame["group"].to_numpy()[rows],
        }
    )
    data = bf.AssessmentData.from_frames(
        lab, unl, score="score", label="label", group="group", id="id"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = time.perf_counter()
        res = bf.fit(
            data, draws=500, tune=500, random_seed=0, progressbar=False, metrics=["accuracy", "tpr"]
        )
        fit_s = time.perf_counter() - t
        times = {}
        for within in ("stratum", "score", "mixed"):
            times[within] = []
            for seed in range(3):
                t = time.perf_counter()
                bf.suggest_labels(res, n=50, metric="tpr", within=within, random_seed=seed)
                times[within].append(time.perf_counter() - t)
    print(f"load {os.getloadavg()[0]:.1f}; NUTS fit (reference) {fit_s:.2f} s")
    for within, ts in times.items():
        print(
            f"suggest_labels(within={within!r}), 10^6 rows, n=50: best {min(ts):.2f} s, "
            f"all {', '.join(f'{x:.2f}' for x in ts)} (goal < 2 s)"
        )

    small = bf.datasets.load_assessment("adult-sex", "MLP", n_labeled=20, random_seed=1)
    budgets = [20, 100, 200, 400, 600, 800]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = time.perf_counter()
        bf.fit(small, draws=500, tune=500, random_seed=0, progressbar=False, metrics=["tpr"])
        ref = time.perf_counter() - t
        t = time.perf_counter()
        bf.plan_labels(small, metric="tpr", epsilon=0.05, budgets=budgets, n_sims=50, random_seed=0)
        plan_s = time.perf_counter() - t
    print(
        f"plan_labels, 6 budgets x 50 sims x 2 strategies x 4 methods: {plan_s:.1f} s "
        f"(goal < 60 s) = {plan_s / ref:.0f} NUTS fits of {ref:.2f} s; with NUTS refits it "
        f"would be {6 * 50 * 2} fits, about {6 * 50 * 2 * ref / 60:.0f} min"
    )


if __name__ == "__main__":
    main()
