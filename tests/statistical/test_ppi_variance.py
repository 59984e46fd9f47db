"""Between-group variance from PPI++ rates: plumbing (fast) and coverage by simulation (slow).

The simulation is ``benchmarks/ppi_variance.py``'s design, drawn by
``bayesfair.datasets.simulate.lum_score_design`` and ``lum_score_rows``; its truth is
``lum_score_tpr_variance``.
"""

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import bayesfair as bf
from bayesfair.datasets.simulate import lum_score_design, lum_score_rows, lum_score_tpr_variance
from bayesfair.exceptions import InvalidParameterError, UndefinedRateWarning
from bayesfair.frequentist import double_corrected_bootstrap_counts, ppi_between_group_variance


def _data(seed=0, k=4, n=80, big_n=2000):
    rng = np.random.default_rng(seed)
    groups = np.array([f"g{i}" for i in range(k)])
    g, g_u = rng.choice(groups, n * k), rng.choice(groups, big_n)
    p, p_u = rng.beta(2, 2, g.size), rng.beta(2, 2, big_n)
    y = (rng.uniform(size=g.size) < p).astype(int)
    return bf.AssessmentData(p, y, g, unlabeled_scores=p_u, unlabeled_groups=g_u)


def test_result_and_reproducibility():
    data = _data()
    res = ppi_between_group_variance(data, "accuracy", random_seed=3)
    assert res.groups == ("g0", "g1", "g2", "g3") and res.dropped_groups == ()
    lo, hi = res.interval
    assert lo < res.upper_bound < hi  # the 95% quantile lies inside the 2.5%–97.5% interval
    # the corrected estimate: sample variance of the rates minus their mean variance
    expected = np.var(res.group_rates, ddof=1) - res.group_variances.mean()
    assert res.estimate == pytest.approx(expected)
    again = ppi_between_group_variance(data, "accuracy", random_seed=3)
    assert again.interval == res.interval and again.random_seed == res.random_seed
    frame = res.to_frame()
    assert list(frame.estimator) == ["ppi", "classical"]


def test_a_group_without_its_denominator_is_dropped_with_a_warning():
    data = _data(seed=1)
    y = data.labels.copy()
    y[data.groups == "g2"] = 0  # no labeled positive in g2: its TPR is undefined
    data = bf.AssessmentData(
        data.scores,
        y,
        data.groups,
        unlabeled_scores=data.unlabeled_scores,
        unlabeled_groups=data.unlabeled_groups,
    )
    with pytest.warns(UndefinedRateWarning, match="'g2'"):
        res = ppi_between_group_variance(data, "tpr", random_seed=0)
    assert res.dropped_groups == ("g2",) and len(res.groups) == 3


def test_bad_input():
    data = _data(k=2)
    with pytest.raises(InvalidParameterError, match="'n_resamples'"):
        ppi_between_group_variance(data, n_resamples=1)
    with pytest.raises(InvalidParameterError, match="need unlabeled"):
        ppi_between_group_variance(bf.AssessmentData(data.scores, data.labels, data.groups))
    one = bf.AssessmentData(
        data.scores,
        data.labels,
        np.full(data.n_labeled, "a"),
        unlabeled_scores=data.unlabeled_scores,
        unlabeled_groups=np.full(data.n_unlabeled, "a"),
    )
    with pytest.raises(ValueError, match="at least 2 groups"):
        ppi_between_group_variance(one)


REPS = 200
K = 8
N_UNLABELED = 2_500
#: ``benchmarks/ppi_variance.py``'s scenarios, in the order of their seeds.
SCENARIOS = (
    "equal_size_unequal_perf",
    "unequal_size_unequal_perf",
    "equal_size_equal_perf",
    "unequal_size_equal_perf",
)


def _replicate(design, rng) -> dict:
    """One data set of a design (``lum_score_design``: K = 8 groups, each miscalibrated its
    own way where their performance differs, 2,500 unlabeled rows per group): estimate,
    95% interval and upper bound of PPI++, its classical twin and the double-corrected
    bootstrap on the labeled counts (1,000 resamples)."""
    s, y, g = lum_score_rows(design, design.n_labeled, rng)
    s_u, _, g_u = lum_score_rows(design, np.full(K, N_UNLABELED), rng)
    data = bf.AssessmentData(s, y, g, unlabeled_scores=s_u, unlabeled_groups=g_u)
    res = ppi_between_group_variance(data, "tpr", random_seed=rng)
    pos = y == 1
    codes = data.group_codes
    tp = np.bincount(codes[pos], weights=(s[pos] >= 0.5), minlength=K)
    npos = np.bincount(codes[pos], minlength=K)
    dcb = double_corrected_bootstrap_counts(tp, npos, n_resamples=1000, random_seed=rng)
    return {
        "ppi": (res.estimate, *res.interval, res.upper_bound),
        "classical": (res.classical_estimate, *res.classical_interval, res.classical_upper_bound),
        "dcb": (
            dcb.double_corrected.estimate,
            *dcb.double_corrected.interval,
            float(np.quantile(dcb.double_corrected.draws, 0.95)),
        ),
    }


def _run(reps: int, seed: int) -> pd.DataFrame:
    """``reps`` data sets per scenario, each scenario its own stream of ``seed``."""
    rows = []
    seqs = np.random.SeedSequence(seed).spawn(len(SCENARIOS))
    for name, seq in zip(SCENARIOS, seqs, strict=True):
        design = lum_score_design(name, K)
        truth = lum_score_tpr_variance(design)
        rng = np.random.default_rng(seq)
        for rep in range(reps):
            for method, (est, lo, hi, ub) in _replicate(design, rng).items():
                rows.append(
                    {
                        "scenario": name,
                        "rep": rep,
                        "method": method,
                        "truth": truth,
                        "estimate": est,
                        "lower": lo,
                        "upper": hi,
                        "upper_bound": ub,
                    }
                )
    df = pd.DataFrame(rows)
    df["covered"] = (df.lower <= df.truth) & (df.truth <= df.upper)
    df["sq_error"] = (df.estimate - df.truth) ** 2
    return df


@pytest.fixture(scope="module")
def simulation():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _run(REPS, seed=11)


@pytest.mark.slow
@pytest.mark.parametrize("scenario", ["equal_size_unequal_perf", "unequal_size_unequal_perf"])
def test_unequal_performance_coverage_and_rmse(simulation, scenario):
    """Claim: coverage ≥ 0.90 and RMSE no worse than the double-corrected bootstrap.

    Coverage, one-sided test at level 1%: fail below 0.90 − 2.326 · sqrt(0.09/200)
    = 0.851. RMSE: the paired mean difference of squared errors (PPI++ − bootstrap)
    must not exceed 2.326 of its standard errors.
    """
    df = simulation[simulation.scenario == scenario]
    ppi = df[df.method == "ppi"].set_index("rep")
    dcb = df[df.method == "dcb"].set_index("rep")
    floor = 0.90 - 2.326 * math.sqrt(0.09 / REPS)
    print(
        scenario,
        "coverage",
        ppi.covered.mean(),
        "rmse",
        np.sqrt(ppi.sq_error.mean()),
        "dcb rmse",
        np.sqrt(dcb.sq_error.mean()),
    )
    assert ppi.covered.mean() >= floor
    diff = ppi.sq_error - dcb.sq_error
    assert diff.mean() <= 2.326 * diff.std(ddof=1) / math.sqrt(REPS)


@pytest.mark.slow
@pytest.mark.parametrize("scenario", ["equal_size_equal_perf", "unequal_size_equal_perf"])
def test_equal_performance_upper_bound(simulation, scenario):
    """With truth 0 the one-sided 95% upper bound must be ≥ 0 in ≥ 90% of replicates (1% level)."""
    ppi = simulation[(simulation.scenario == scenario) & (simulation.method == "ppi")]
    floor = 0.90 - 2.326 * math.sqrt(0.09 / REPS)
    print(
        scenario,
        "upper bound >= 0:",
        (ppi.upper_bound >= 0).mean(),
        "median upper bound",
        ppi.upper_bound.median(),
    )
    assert (ppi.upper_bound >= 0).mean() >= floor
