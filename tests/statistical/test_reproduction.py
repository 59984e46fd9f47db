"""Reproduction of Ji, Smyth & Steyvers (2020), Table 2: MAE of Δ accuracy at n_L = 10.

On the bundled score files, labeled sets of 10 rows are drawn as the authors
drew them (``split_labeled(..., method="ji2020")``: every raw sensitive value
labeled once), the rest of the test split is unlabeled, and the truth is Δ on
the whole split (Ji et al. §3–4). For each case we check two claims of the
paper's Table 2:

1. **BC is as accurate as the paper's BC**: our BC MAE ×100 is at most the
   paper's value + 1.5 points. If our implementation had the paper's expected
   MAE, a false failure needs our MAE to exceed its expectation by 1.5 points,
   i.e. by 1.5 / SE standard errors. The test requires SE ≤ 0.6 (asserted, so
   too few runs fail loudly instead of passing by luck), which bounds that
   false-failure probability by P(Z > 2.5) = 0.6 % per case. The number of runs
   per case is chosen for that: 50 where BC's errors are small (Adult,
   COMPAS: SE ≈ 0.35–0.5; BC's errors are long-tailed, a few runs with a
   badly placed labeled example dominate), 100 for German-age LR (SE ≈ 0.6
   at 50 runs). The
   paper's own value carries Monte Carlo error of the same order (100 runs);
   being *lower* than the paper is allowed, since the claim is "BC is this
   good", and our BC is often better (``docs/reproduction.md``).
2. **BC beats BB**: the mean of the paired per-run differences
   |error_BC| − |error_BB| (same labeled sets) plus 3.09 of its standard errors
   is below 0: a one-sided test at α = 0.001.

German-age with the MLP does not reproduce (a strict xfail): the youth group
(15.6 % of 334 rows) gets about two labels in a set of ten, and the MLP is
calibrated very differently in the two groups (its true accuracy gap is 27
points), so the hierarchical calibration shrinks youth toward adult and BC's
MAE is ≈ 18–21, not the paper's 5.0; BC is then no better than BB. The paper's
number cannot come from the model as described on these scores (see
``docs/reproduction.md``).

Sampling: the suite's simulation settings (2 chains × 500 draws); the MAE is of
posterior means, whose Monte Carlo error at 1,000 draws is far below the runs' spread.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from bayesfair.experiments import mae_table, run_experiment

pytestmark = pytest.mark.slow

#: Ji et al. 2020 Table 2 (Δ accuracy, n_L = 10, MAE ×100): (Freq, BB, BC).
PAPER = {
    ("adult-sex", "MLP"): (19.7, 17.4, 5.1),
    ("adult-sex", "LR"): (19.1, 16.1, 2.2),
    ("compas-race", "MLP"): (31.5, 21.0, 4.2),
    ("compas-race", "LR"): (31.7, 20.4, 4.8),
    ("german-age", "LR"): (37.1, 21.2, 8.7),
    ("german-age", "MLP"): (34.6, 19.8, 5.0),
}
RUNS = {("german-age", "LR"): 100}
TOLERANCE = 1.5  # MAE ×100 points above the paper's BC
MAX_SE = 0.6  # so that TOLERANCE >= 2.5 standard errors
Z_ONE_SIDED = 3.09  # α = 0.001
SETTINGS = dict(
    n_labeled=10,
    methods=("freq", "bb", "bc"),
    method="ji2020",
    random_seed=2020,
    method_kwargs={"bc": {"estimand": "expected"}},  # the paper's Eq. 1
)


def _run_case(name: str, classifier: str, sampler) -> dict:
    """Run the case and print our MAEs next to the paper's; return what the tests check."""
    df = run_experiment(
        name, classifier, "accuracy", n_runs=RUNS.get((name, classifier), 50), **SETTINGS, **sampler
    )
    table = mae_table(df).set_index("method")
    paper = dict(zip(("freq", "bb", "bc"), PAPER[(name, classifier)], strict=True))
    errors = df.pivot(index="run", columns="method", values="abs_error")
    diff = 100 * (errors["bc"] - errors["bb"])
    diff_se = diff.std(ddof=1) / math.sqrt(len(diff))
    print(
        f"\n{name} {classifier}: truth Δ = {table['truth'].iloc[0]:.1f}, "
        f"{len(errors)} runs, {df['seconds'].sum():.0f} s of fits"
    )
    for m in ("freq", "bb", "bc"):
        row = table.loc[m]
        print(
            f"  {m:>4}: MAE {row['mae']:5.1f} ± {row['mae_se']:.2f} (paper {paper[m]}), "
            f"coverage {row['coverage']:.2f}, width {row['width']:.0f}"
        )
    print(f"  paired BC − BB: {diff.mean():.1f} ± {diff_se:.2f}")
    assert np.isfinite(df["estimate"]).all()  # n_L = 10 accuracy is always defined
    return {
        "mae": table.loc["bc", "mae"],
        "se": table.loc["bc", "mae_se"],
        "paper": paper["bc"],
        "diff": diff.mean(),
        "diff_se": diff_se,
    }


@pytest.mark.parametrize(
    ("name", "classifier"),
    [
        ("adult-sex", "MLP"),
        ("adult-sex", "LR"),
        ("compas-race", "MLP"),
        ("compas-race", "LR"),
        ("german-age", "LR"),
    ],
)
def test_table2_bc(name, classifier, simulation):
    r = _run_case(name, classifier, simulation)
    assert r["se"] <= MAX_SE, (
        f"Monte Carlo SE of BC's MAE is {r['se']:.2f} > {MAX_SE}: use more runs for the "
        "comparison with the paper to mean something."
    )
    assert r["mae"] <= r["paper"] + TOLERANCE, (
        f"BC MAE {r['mae']:.2f} (± {r['se']:.2f}) exceeds the paper's {r['paper']} + {TOLERANCE}"
    )
    assert r["diff"] + Z_ONE_SIDED * r["diff_se"] < 0, (
        f"BC is not more accurate than BB: paired difference {r['diff']:.2f} ± {r['diff_se']:.2f}"
    )


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason=(
        "German-age MLP does not reproduce Ji et al.'s BC MAE of 5.0: with ~2 youth labels "
        "per set and group calibrations far apart, the hierarchical calibration gives MAE "
        "≈ 18–21 and no gain over BB (docs/reproduction.md)."
    ),
)
def test_table2_bc_german_age_mlp_does_not_reproduce(simulation):
    r = _run_case("german-age", "MLP", simulation)
    # Only the paper comparison is asserted: it alone is expected to fail.
    assert r["mae"] <= r["paper"] + TOLERANCE, (
        f"BC MAE {r['mae']:.2f} (± {r['se']:.2f}) exceeds the paper's {r['paper']} + {TOLERANCE}"
    )
