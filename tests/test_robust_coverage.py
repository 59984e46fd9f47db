"""Statistical checks of the trust issue: the calibration check and the robust default.

1. **Calibration check, false alarms and power.** ``R`` synthetic data sets per
   kind (:func:`bayesfair.simulate.miscalibrated_scores`: two groups, 100 labels
   and 2,000 unlabeled examples each; group A calibrated, group B calibrated,
   cubed or inverted), the default model fitted, ``calibration_check()`` read.
   Claims: a correctly specified group is flagged in at most 5% of data sets; a
   group with cubed or inverted scores in at least 90%. Tolerances are two
   binomial standard errors at the claimed rate, one-sided: the false-alarm rate
   must be ≤ 0.05 + 2 sqrt(0.05 · 0.95 / R) and the detection rate ≥
   0.90 − 2 sqrt(0.9 · 0.1 / R), so a method exactly at the claimed rate fails
   with probability about 2.3% per check.
2. **Coverage where the calibration family is wrong, on real scores.** The cells
   of Ji et al.'s Table 3 (Δ TPR, n_L = 200) where ``bc`` covered least
   (COMPAS-sex NB: 0.00; German-age RF: 0.03), 50 labeled sets each: the default
   model's 95% intervals cover the realised Δ in at least 0.90 − 2 SE of runs,
   SE = sqrt(0.9 · 0.1 / 50) (the issue's rule); its MAE is at most BB's plus two
   standard errors of the paired difference. The full table (every cell, freq,
   bb, bc, rbc) is ``benchmarks/robust_coverage.py``'s, in ``docs/results/``.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import bayesfair as bf
from bayesfair.experiments import run_experiment
from bayesfair.simulate import miscalibrated_scores

pytestmark = pytest.mark.slow

R = 60
FIT = dict(draws=300, tune=300, chains=2, progressbar=False)


@pytest.fixture(scope="module")
def check_flags():
    rows = []
    for kind in ("none", "cubed", "inverted"):
        for r in range(R):
            lab, unl = miscalibrated_scores(100, 2000, kind=kind, random_seed=10_000 + r)
            data = bf.AssessmentData.from_frames(
                lab, unl, score="score", label="label", group="group", reference="A"
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = bf.fit(data, metrics=["accuracy"], random_seed=r, **FIT)
            check = res.calibration_check(warn=False).set_index("group")
            rows.append(
                {
                    "kind": kind,
                    "flag_A": check.loc["A", "verdict"] == "misfit",
                    "flag_B": check.loc["B", "verdict"] == "misfit",
                }
            )
    return pd.DataFrame(rows)


def test_calibration_check_false_alarms(check_flags):
    calibrated = check_flags[check_flags["kind"] == "none"]
    flags = np.concatenate([calibrated["flag_A"], calibrated["flag_B"]])
    rate = flags.mean()
    bound = 0.05 + 2 * math.sqrt(0.05 * 0.95 / flags.size)
    a_elsewhere = check_flags.loc[check_flags["kind"] != "none", "flag_A"].mean()
    print(
        f"false alarms: {rate:.3f} of {flags.size} calibrated groups (bound {bound:.3f}); "
        f"calibrated group A next to a distorted B: {a_elsewhere:.3f}"
    )
    assert rate <= bound
    assert a_elsewhere <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / (2 * R))


CUBED_NOT_DETECTED = pytest.mark.xfail(
    strict=True,
    reason=(
        "not met: with 100 labels the beta-calibration map of a cubed group (c shifted by "
        "about +1) fits its labels within binomial noise (its largest misfit, 0.10 against "
        "0.21 at scores below 0.03, rests on about 20 examples), so the binned check flags "
        "it in about 0-10% of data sets, not 90%"
    ),
)


@pytest.mark.parametrize("kind", [pytest.param("cubed", marks=CUBED_NOT_DETECTED), "inverted"])
def test_calibration_check_detects_a_distorted_group(check_flags, kind):
    rate = check_flags.loc[check_flags["kind"] == kind, "flag_B"].mean()
    bound = 0.90 - 2 * math.sqrt(0.9 * 0.1 / R)
    print(f"{kind}: group B flagged in {rate:.3f} of {R} data sets (bound {bound:.3f})")
    assert rate >= bound


RUNS = 50


@pytest.mark.parametrize(("name", "classifier"), [("compas-sex", "NB"), ("german-age", "RF")])
def test_default_model_covers_where_bc_did_not(name, classifier):
    df = run_experiment(
        name,
        classifier,
        "tpr",
        200,
        n_runs=RUNS,
        methods=("bb", "rbc"),
        draws=500,
        tune=500,
        chains=4,
        random_seed=0,
        progressbar=False,
    )
    runs = df.pivot_table(index="run", columns="method", values=["abs_error", "covered"])
    coverage = runs["covered", "rbc"].mean()
    bound = 0.90 - 2 * math.sqrt(0.9 * 0.1 / RUNS)
    diff = runs["abs_error", "rbc"] - runs["abs_error", "bb"]
    se = diff.std(ddof=1) / math.sqrt(RUNS)
    print(
        f"{name} {classifier} Δ TPR n_L=200: rbc coverage {coverage:.2f} (bound {bound:.3f}), "
        f"MAE rbc {100 * runs['abs_error', 'rbc'].mean():.1f} vs bb "
        f"{100 * runs['abs_error', 'bb'].mean():.1f} (paired diff {100 * diff.mean():+.1f} "
        f"± {100 * se:.1f})"
    )
    assert coverage >= bound
    assert diff.mean() <= 2 * se
