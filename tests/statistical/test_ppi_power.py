"""Power of PPI++ against Newcombe on the bundled score sets (slow): ``benchmarks/ppi_power.py``.

Claims: the median PPI++ width for Δ TPR is at most 0.80 of
Newcombe's, and for Δ accuracy at most 1.03 of it, on Adult-sex and COMPAS-race
(MLP, LR) at n_L = 200 and 1,000, over 200 random labeled sets. Test of each
ratio, one-sided at level 1%: fail when the measured ratio exceeds the bound by
more than 2.326 bootstrap standard errors of the median ratio (resampling the
labeled sets). Coverage of the realised Δ: at least 0.90, one-sided at 1%
(fail below 0.90 − 2.326 · sqrt(0.09/200) = 0.851).

Adult-sex MLP at n_L = 200 does not meet the TPR claim (ratio 0.91): its smaller
group has about seven labeled positives, and the same estimator given the oracle
calibration as its predictions reaches only 0.88 there (``docs/results/ppi_power.md``),
so no better calibration can close the gap at that n_L. It is an expected failure.
"""

import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import ppi_power

pytestmark = pytest.mark.slow

RUNS = 200
CELLS = [(name, clf, n) for name, clf in ppi_power.CELLS for n in ppi_power.SIZES]


@pytest.fixture(scope="module")
def results():
    seeds = np.random.SeedSequence(2026).spawn(len(CELLS))
    return {
        cell: ppi_power.run_cell(*cell, RUNS, seed) for cell, seed in zip(CELLS, seeds, strict=True)
    }


def _median_ratio(df, metric, rng, n_resamples=400):
    sub = df[df.metric == metric]
    ppi = sub[sub.method == "ppi"].set_index("run").width
    ref = sub[sub.method == "newcombe"].set_index("run").width.loc[ppi.index]
    ratio = np.median(ppi) / np.median(ref)
    idx = rng.integers(0, ppi.size, (n_resamples, ppi.size))
    boot = np.median(ppi.to_numpy()[idx], axis=1) / np.median(ref.to_numpy()[idx], axis=1)
    return ratio, boot.std(ddof=1)


def _params():
    for cell in CELLS:
        for metric, bound in (("accuracy", 1.03), ("tpr", 0.80)):
            marks = ()
            if cell == ("adult-sex", "MLP", 200) and metric == "tpr":
                marks = pytest.mark.xfail(
                    strict=True, reason="about 7 labeled positives in the smaller group"
                )
            yield pytest.param(
                cell, metric, bound, marks=marks, id=f"{'-'.join(map(str, cell))}-{metric}"
            )


@pytest.mark.parametrize(("cell", "metric", "bound"), list(_params()))
def test_width_ratio_and_coverage(results, cell, metric, bound):
    df = results[cell]
    ratio, se = _median_ratio(df, metric, np.random.default_rng(0))
    cov = df[(df.metric == metric) & (df.method == "ppi")].covered.mean()
    print(cell, metric, f"ratio {ratio:.3f} ± {se:.3f}, coverage {cov:.3f}")
    assert cov >= 0.90 - 2.326 * math.sqrt(0.09 / RUNS)
    assert ratio - 2.326 * se <= bound
