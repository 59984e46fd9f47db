"""Power of PPI++ against Newcombe on the bundled score sets (slow): ``benchmarks/ppi_power.py``.

The labeled sets are drawn as ``benchmarks/ppi_power.py`` draws them (the same seeds),
and compared on what this file asserts: PPI++'s and Newcombe's widths and PPI++'s
coverage (the benchmark also reports the oracle's).

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
import warnings

import numpy as np
import pandas as pd
import pytest

import bayesfair as bf
from bayesfair.datasets import get_score_set, load_scores
from bayesfair.frequentist import newcombe_interval, ppi_difference

pytestmark = pytest.mark.slow

RUNS = 200
METRICS = ("accuracy", "tpr")
#: ``benchmarks/ppi_power.py``'s cells, in the order of their seeds.
CELLS = [
    (name, clf, n)
    for name, clf in [
        ("adult-sex", "MLP"),
        ("adult-sex", "LR"),
        ("compas-race", "MLP"),
        ("compas-race", "LR"),
    ]
    for n in (200, 1000)
]


def _labeled_counts(y, yhat, groups, g, metric):
    """A group's successes and trials of ``metric`` on the labeled rows."""
    sel = groups == g
    if metric == "accuracy":
        return float((y[sel] == yhat[sel]).sum()), float(sel.sum())
    pos = sel & (y == 1)
    return float(yhat[pos].sum()), float(pos.sum())


def run_cell(name, clf, n_labeled, runs, seed) -> pd.DataFrame:
    """``runs`` labeled sets of ``n_labeled`` rows of a score set (simple random samples
    of the split, the rest unlabeled): per set and metric, the width of the 95% interval
    of Δ (unprivileged − privileged) by PPI++ and by Newcombe, and whether PPI++'s covers
    the realised Δ on the whole split."""
    frame = load_scores(name, clf)
    sset = get_score_set(name)
    priv, unpriv = sset.privileged_group, sset.unprivileged_group
    s, y, g = frame["score"].to_numpy(), frame["label"].to_numpy(), frame["group"].to_numpy()
    yhat = (s >= 0.5).astype(int)
    full = bf.AssessmentData(s, y, g, reference=priv)
    truth = {m: float(full.rates(m)[unpriv] - full.rates(m)[priv]) for m in METRICS}
    rng = np.random.default_rng(seed)
    rows = []
    for run in range(runs):
        idx = rng.permutation(s.size)
        lab, unl = idx[:n_labeled], idx[n_labeled:]
        data = bf.AssessmentData(
            s[lab], y[lab], g[lab], unlabeled_scores=s[unl], unlabeled_groups=g[unl], reference=priv
        )
        for m in METRICS:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = ppi_difference(data, m, group=unpriv, reference=priv, random_seed=rng)
                x1, n1 = _labeled_counts(y[lab], yhat[lab], g[lab], unpriv, m)
                x2, n2 = _labeled_counts(y[lab], yhat[lab], g[lab], priv, m)
                lo, hi = (float(v) for v in newcombe_interval(x1, n1, x2, n2))
            for method, (a, b) in (("ppi", res.interval), ("newcombe", (lo, hi))):
                covered = float(a <= truth[m] <= b) if np.isfinite(a) else np.nan
                rows.append(
                    {"run": run, "metric": m, "method": method, "width": b - a, "covered": covered}
                )
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def results():
    seeds = np.random.SeedSequence(2026).spawn(len(CELLS))
    return {cell: run_cell(*cell, RUNS, seed) for cell, seed in zip(CELLS, seeds, strict=True)}


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
