"""Validity of the PPI++ intervals by simulation (slow): ``benchmarks/ppi_coverage.py``'s design.

Two groups, A calibrated and B's scores squared (p²), 20,000 unlabeled examples,
1,000 replicates per n_L.

The issue asks for coverage ≥ 0.93 at every n_L ≥ 100. That is **not met yet**:
measured over two seeds (``docs/results/ppi_coverage.md``), Δ FPR covers 0.918 at
n_L = 100 and 0.929 at 200 (the classical interval of the same estimator likewise),
and at n_L = 1,000 Δ accuracy and Δ TPR covered 0.954 / 0.941 with one seed and
0.929 / 0.926 with another: the true coverage is near 0.93–0.95, a little below
nominal (the variance treats the cross-fitted predictor as fixed and the strata's
shares as known). What this test guards is the package's floor for every printed
interval, the same as for the Bayesian models: at n_L = 500 and 1,000 the 95%
intervals of Δ accuracy, TPR and FPR cover in at least 90% of 1,000 replicates.
Level: a method with true coverage 0.93 falls below 0.90 with probability about
1e-4 (3.7 standard errors of 0.008), so a failure means a real loss of coverage.
"""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from ppi_coverage import run, summary

pytestmark = pytest.mark.slow

REPS = 1000


@pytest.fixture(scope="module")
def table():
    return summary(run([500, 1000], REPS, seed=7))


@pytest.mark.parametrize("n_labeled", [500, 1000])
@pytest.mark.parametrize("metric", ["accuracy", "tpr", "fpr"])
def test_ppi_intervals_cover(table, n_labeled, metric):
    row = table[(table.n_labeled == n_labeled) & (table.metric == metric)].set_index("method")
    print(
        f"n_L={n_labeled} {metric}: PPI++ coverage {row.loc['ppi', 'coverage']:.3f}, "
        f"width {row.loc['ppi', 'width']:.3f} (classical {row.loc['classical', 'width']:.3f})"
    )
    assert row.loc["ppi", "coverage"] >= 0.90
    assert row.loc["ppi", "defined"] == 1.0
    # never wider than the classical interval of the same estimator by more than its noise
    assert row.loc["ppi", "width"] <= 1.02 * row.loc["classical", "width"]
    assert np.isfinite(row.loc["ppi", "width"])
