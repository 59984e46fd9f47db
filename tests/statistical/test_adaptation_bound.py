"""The bound on an honest interval's width where the groups are alike
(``bayesfair.datasets.limits.pratt_bound``, which ``benchmarks/adaptation_bound.py``
plugs its runs into): its closed-form limits, and that no interval of a
family whose coverage is exact falls below it while keeping its level.

The family: the normal-prior shrinkage intervals of the limit experiment (the shifts'
mechanism in the normal approximation). With ``β ~ N(0, τ²)`` the posterior of θ given
``X ~ N(θ + β, σ₀²)``, ``Z ~ N(β, σ₁²)`` is ``N(X − w Z, σ₀² + w σ₁²)``, ``w = τ² / (τ² +
σ₁²)``; its interval ``X − w Z ± z h`` has width ``2 z h`` and, at a bias β, error
``N((1 − w) β, σ₀² + w² σ₁²)``, so its coverage is exact (no Monte Carlo error) and
least at |β| = B. τ = 0 is the pooled interval, τ → ∞ the rectified one.
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.integrate import trapezoid
from scipy.stats import norm

from bayesfair.datasets.limits import (
    fixed_length_interval,
    independent_errors,
    most_powerful_power,
    pratt_bound,
    pratt_bound_on_paths,
)

ROOT = Path(__file__).resolve().parents[2]
#: The stored runs of ``benchmarks/adaptation_bound.py``: the pooled model's and PPI++'s
#: errors and widths per data set, and the bound with Σ moving per row and seed.
RUNS_CSV = ROOT / "benchmarks/results/adaptation_bound.csv.gz"
PATHS_CSV = ROOT / "benchmarks/results/adaptation_bound_paths.csv"
DISTORTIONS = ("label_noise", "slope2", "slope05")
SIZES = [(k, n) for k in (2, 4) for n in (200, 2000)]
METRICS = ("accuracy", "tpr", "fpr")
LEVELS = (0.95, 0.90, 0.80)


def _wide(runs: pd.DataFrame) -> dict:
    """Per cell, its data sets' errors and widths: columns ``(quantity, method, metric)``."""
    runs = runs.assign(error=runs["estimate"] - runs["truth"])
    wide = runs.pivot_table(
        index=["cell", "rep"], columns=["method", "metric"], values=["error", "width"]
    )
    return {cell: wide.loc[cell] for cell in runs["cell"].unique()}


def _error_cov(frame: pd.DataFrame, metric: str) -> np.ndarray:
    """The 2 × 2 covariance of the pooled model's and PPI++'s errors over a cell's data sets."""
    pairs = frame[[("error", "pooled", metric), ("error", "ppi", metric)]]
    return np.cov(pairs.dropna().to_numpy(), rowvar=False)


def plug_in(runs, picks: dict | None = None) -> pd.DataFrame:
    """Per alike cell and metric of the stored runs (or their :func:`_wide` form): Σ of the
    alike cell, B the largest absolute mean error of the pooled model over the distorted
    cells of the same size, each distorted cell's ``(bias, Σ_d)`` and the pooled model's
    mean 95% width; on the data sets ``picks`` per cell (a bootstrap's), or all of them."""
    wide = runs if isinstance(runs, dict) else _wide(runs)

    def cell(name):
        frame = wide[name]
        return frame if picks is None else frame.iloc[picks[name]]

    rows = []
    for k, n in SIZES:
        alike = cell(f"alike:{k}:{n}")
        distorted = [cell(f"{kind}:{k}:{n}") for kind in DISTORTIONS]
        for metric in METRICS:
            cov = _error_cov(alike, metric)
            biases = [frame[("error", "pooled", metric)].mean() for frame in distorted]
            paths = [
                (bias, _error_cov(frame, metric))
                for bias, frame in zip(biases, distorted, strict=True)
            ]
            rows.append(
                {
                    "cell": f"alike:{k}:{n}",
                    "metric": metric,
                    "B": np.max(np.abs(biases)),
                    "pooled_width": alike[("width", "pooled", metric)].mean(),
                    "cov": cov,
                    "paths": paths,
                }
            )
    return pd.DataFrame(rows)


def bound_table(runs, fixed: bool = True, picks: dict | None = None) -> pd.DataFrame:
    """The bound at each level as a multiple of the pooled model's width (and, with
    ``fixed``, the 95% fixed-length interval's width), per row of :func:`plug_in`."""
    t = plug_in(runs, picks)
    for level in LEVELS:
        t[f"bound_{round(100 * level)}"] = [
            pratt_bound(r.cov, r.B, level) / r.pooled_width for r in t.itertuples()
        ]
    if fixed:
        t["fixed_95"] = [
            fixed_length_interval(r.cov, r.B, 0.95)[0] / r.pooled_width for r in t.itertuples()
        ]
    return t


def bootstrap(runs: pd.DataFrame, n_boot: int, seed: int) -> pd.DataFrame:
    """The mean bound ratio over the alike cells and metrics, per level, recomputed on
    data sets resampled within each cell (every method's rows of a data set together)."""
    rng = np.random.default_rng(seed)
    wide = _wide(runs)
    out = []
    for _ in range(n_boot):
        picks = {name: rng.integers(0, len(frame), len(frame)) for name, frame in wide.items()}
        t = bound_table(wide, fixed=False, picks=picks)
        out.append({level: t[f"bound_{round(100 * level)}"].mean() for level in LEVELS})
    return pd.DataFrame(out)


def _g(x):
    return x * norm.cdf(x) + norm.pdf(x)


@pytest.mark.parametrize("level", [0.8, 0.9, 0.95])
def test_the_bound_is_the_pooled_statistic_s_without_bias_and_the_rectified_one_without_limit(
    level,
):
    z = norm.ppf(level)
    s0, s1 = 0.012, 0.037
    cov = independent_errors(s0, s1)
    # without bias the integral is all the trapezoid rule's (4,001 points: error O(h²))
    assert pratt_bound(cov, 0.0, level) == pytest.approx(2 * s0 * _g(z), rel=1e-6)
    rectified = 2 * np.hypot(s0, s1) * _g(z)
    assert pratt_bound(cov, 1e6, level) == pytest.approx(rectified, rel=1e-12)
    between = [pratt_bound(cov, b, level) for b in np.linspace(0, 0.3, 31)]
    assert np.all(np.diff(between) >= -1e-12)  # a wider nuisance set, a longer interval
    assert between[0] < between[-1] <= rectified * (1 + 1e-9)


@pytest.mark.parametrize(
    "cov, b",
    [
        (independent_errors(0.01, 0.02), 0.015),
        (
            np.array([[0.0115**2, 0.52 * 0.0115 * 0.0414], [0.52 * 0.0115 * 0.0414, 0.0414**2]]),
            0.048,
        ),
        (np.array([[4.0, 1.5], [1.5, 1.0]]) * 1e-4, 0.02),  # Cov > Var(Y): β opposes Δ
    ],
)
def test_the_bound_matches_its_integral_on_a_fine_grid(cov, b):
    """The closed form of the inner part and the trapezoid rule of the outer part, against
    the integral of Φ(z − min_β d) with d² = vᵀ Σ⁻¹ v minimised over a grid of β; and
    with B = 0 it is the best unbiased combination's, 2 G(z) / √(1ᵀ Σ⁻¹ 1)."""
    level = 0.95
    z = norm.ppf(level)
    p = np.linalg.inv(cov)
    brute = _bound_on_grid(cov, np.linspace(-b, b, 3001), level, n_points=4001)
    assert pratt_bound(cov, b, level) == pytest.approx(brute, rel=1e-4)
    best = 2 * _g(z) / np.sqrt(p.sum())
    assert pratt_bound(cov, 0.0, level) == pytest.approx(best, rel=1e-6)


@pytest.mark.parametrize(
    "s0, s1, b",
    [
        (0.012, 0.037, 0.052),  # alike:2:200, accuracy (20 data sets a cell)
        (0.008, 0.018, 0.024),  # alike:4:2000, accuracy
        (0.041, 0.084, 0.115),  # alike:2:200, TPR
    ],
)
@pytest.mark.parametrize("level", [0.8, 0.9, 0.95])
def test_no_shrinkage_interval_that_keeps_its_level_is_narrower_than_the_bound(s0, s1, b, level):
    """Over τ from 0 to 10 B and each interval's level ``q`` from 0.5 to 0.999: every
    interval whose least coverage over |β| ≤ B is at least ``level`` is at least as wide
    as the bound; and the bound is not vacuous (an interval comes within 25% of it)."""
    bound = pratt_bound(independent_errors(s0, s1), b, level)
    widths = []
    for tau in np.concatenate([[0.0], np.geomspace(1e-3, 10, 60) * b]):
        w = tau**2 / (tau**2 + s1**2)
        spread = np.sqrt(s0**2 + w * s1**2)  # the posterior sd: the interval's half-width / z
        err_sd = np.sqrt(s0**2 + w**2 * s1**2)
        half = norm.ppf(0.5 + np.linspace(0.5, 0.999, 200) / 2) * spread
        shift = (1 - w) * b
        least = norm.cdf((half - shift) / err_sd) - norm.cdf((-half - shift) / err_sd)
        widths.extend(2 * half[least >= level])
    assert widths and min(widths) >= bound * (1 - 1e-6)
    assert min(widths) <= 1.25 * bound


@pytest.mark.parametrize(
    "cov, b",
    [
        (independent_errors(0.012, 0.037), 0.052),
        (independent_errors(0.008, 0.018), 0.024),
        (np.array([[0.0136**2, 0.53 * 0.0136 * 0.059], [0.53 * 0.0136 * 0.059, 0.059**2]]), 0.06),
    ],
)
def test_the_fixed_length_interval_keeps_its_level_and_is_no_shorter_than_the_bound(cov, b):
    """Its exact coverage over |β| ≤ B is at least 0.95, least at ±B (to 1e-6), and its
    width lies between the bound and the debiased estimate's own interval."""
    width, w = fixed_length_interval(cov, b, 0.95)
    sd = np.sqrt((1 - w) ** 2 * cov[0, 0] + w**2 * cov[1, 1] + 2 * w * (1 - w) * cov[0, 1])
    beta = np.linspace(-b, b, 201)
    mean = (1 - w) * beta
    cover = norm.cdf((width / 2 - mean) / sd) - norm.cdf((-width / 2 - mean) / sd)
    assert cover.min() >= 0.95 - 1e-6 and cover.min() == pytest.approx(0.95, abs=1e-6)
    assert pratt_bound(cov, b, 0.95) <= width <= 2 * norm.ppf(0.975) * np.sqrt(cov[1, 1])


@pytest.mark.slow
def test_the_stored_runs_put_the_bound_at_95_percent_above_1_3_times_the_pooled_width():
    """The criterion "width at most 1.3 times the pooled model's where the groups are
    alike" against the bound, from the stored runs (200 data sets per cell,
    ``benchmarks/results/adaptation_bound.csv.gz``): the mean 95% bound over the alike
    cells and metrics, and the 2.5% quantile of its bootstrap over the data sets (100
    resamples), are above 1.3; the 90% bound's mean is below it (the bound does not
    exclude 1.3 for intervals that keep 90% only); the fixed-length interval is no
    shorter than the bound in any cell."""
    runs = pd.read_csv(RUNS_CSV)
    assert runs.groupby("cell")["rep"].nunique().min() >= 200
    table = bound_table(runs)
    assert table["bound_95"].mean() > 1.3
    assert np.quantile(bootstrap(runs, 100, seed=1)[0.95], 0.025) > 1.3
    assert table["bound_90"].mean() < 1.3
    assert np.all(table["fixed_95"] >= table["bound_95"])


def _bound_on_grid(cov, betas, level, n_points=20_001):
    """:func:`pratt_bound` with β restricted to the points ``betas``: the nearest null by
    the Mahalanobis distance (exact where the covariance does not move), the integral on
    ``n_points`` points of Δ (the trapezoid rule)."""
    z = norm.ppf(level)
    p = np.linalg.inv(cov)
    delta = np.linspace(0, 20 * np.sqrt(cov[1, 1]) + 2 * np.max(np.abs(betas)), n_points)
    v0 = delta[:, None] - np.asarray(betas)[None, :]
    v1 = np.broadcast_to(delta[:, None], v0.shape)
    d2 = p[0, 0] * v0**2 + 2 * p[0, 1] * v0 * v1 + p[1, 1] * v1**2
    return 2 * trapezoid(norm.cdf(z - np.sqrt(np.maximum(d2.min(axis=1), 0))), delta)


def test_the_bound_on_paths_is_the_fixed_covariance_bound_when_the_covariance_stays():
    """With Σ_d = Σ₀ on a path to β_d the most powerful tests are the linear ones of
    :func:`pratt_bound`, and the Monte Carlo bound (its powers from normal draws) equals
    the exact bound over the same nulls, β in ±{0, β_d / 5, …, β_d}: the mean over five
    seeds within four single-run Monte Carlo sd of it (taking the min over noisy powers
    biases a run by about one sd). A grid of β gives fewer nulls, so a lower bound than
    every |β| ≤ B does: 1.6% lower with six steps, under 1% with the default eleven."""
    cov = np.array([[0.0115**2, 0.52 * 0.0115 * 0.0414], [0.52 * 0.0115 * 0.0414, 0.0414**2]])
    beta_d = 0.048
    settings = dict(n_steps=6, n_deltas=61, n_draws=4_000)
    runs = np.array(
        [
            pratt_bound_on_paths(cov, [(beta_d, cov)], 0.95, random_seed=s, **settings)
            for s in range(5)
        ]
    )
    grid = np.concatenate([t * beta_d * np.array([1.0, -1.0]) for t in np.linspace(0, 1, 6)])
    exact = _bound_on_grid(cov, grid, 0.95)
    assert abs(runs.mean() - exact) <= 4 * runs.std(ddof=1)
    continuous = pratt_bound(cov, beta_d, 0.95)
    assert exact <= continuous
    eleven = np.concatenate([t * beta_d * np.array([1.0, -1.0]) for t in np.linspace(0, 1, 11)])
    assert _bound_on_grid(cov, eleven, 0.95) >= 0.99 * continuous


@pytest.mark.parametrize(
    "mean, cov_null",
    [
        ([0.02, -0.03], [[2.5**2 * 1.3e-4, 1.0e-4], [1.0e-4, 2.0e-3]]),  # X 2.5 times as noisy
        ([-0.01, 0.0], [[1.5**2 * 1.3e-4, 4.0e-4], [4.0e-4, 1.7e-3]]),
        ([0.0, 0.0], [[4 * 1.3e-4, 2.5e-4], [2.5e-4, 1.7e-3]]),  # the same mean: power by spread
    ],
)
def test_the_most_powerful_test_s_power_matches_quadrature_when_the_covariances_differ(
    mean, cov_null
):
    """Against an independent computation: the likelihood ratio on a 1,201² grid of ±8
    sd, its cells taken from the largest ratio down until the null's mass reaches α; the
    Monte Carlo power within four of its sd, the binomial one plus the threshold's
    (the power moves by the ratio k at the threshold per unit of level: sd² = (p (1 −
    p) + k² α (1 − α)) / n)."""
    from scipy.stats import multivariate_normal

    cov0 = np.array([[1.3e-4, 2.5e-4], [2.5e-4, 1.7e-3]])
    alpha, n = 0.05, 40_000
    draws = np.random.default_rng(7).standard_normal((2, n, 2))
    power = most_powerful_power(mean, cov_null, cov0, 1 - alpha, draws)

    reach = 8 * np.sqrt(np.maximum(np.diag(cov0), np.diag(cov_null))) + np.abs(mean)
    axes = [np.linspace(-r, r, 1201) for r in reach]
    x = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1)
    cell = (axes[0][1] - axes[0][0]) * (axes[1][1] - axes[1][0])
    f_truth = multivariate_normal(np.zeros(2), cov0).pdf(x).ravel() * cell
    f_null = multivariate_normal(mean, cov_null).pdf(x).ravel() * cell
    order = np.argsort(-(f_truth / np.maximum(f_null, 1e-300)))
    size = np.cumsum(f_null[order])
    last = np.searchsorted(size, alpha)
    exact = f_truth[order][: last + 1].sum()
    k = f_truth[order][last] / f_null[order][last]
    sd = np.sqrt((exact * (1 - exact) + k**2 * alpha * (1 - alpha)) / n)
    assert abs(power - exact) <= 4 * sd


@pytest.mark.slow
def test_where_the_covariance_moves_with_the_distortion_the_bound_is_higher_still():
    """The stored bound with Σ moving along each distortion's path
    (``benchmarks/results/adaptation_bound_paths.csv``, written by the script's
    ``--paths``: 20,000 draws, several seeds). Over the seeds' means, with the Monte
    Carlo standard error of that mean from the spread of the seeds (a seed moves every
    row alike: the draws are shared), at four standard errors: the mean over the alike
    cells and metrics is above the bound with Σ fixed, and the mean over the two-group
    cells alone (where no third group's labels see the pooled map's pull) above 1.3.
    One row (the two-group row with the least bound) is computed again with a new seed
    and lies within four of its seed-to-seed sd of the stored mean."""
    runs = pd.read_csv(RUNS_CSV)
    per_seed = pd.read_csv(PATHS_CSV).pivot_table(
        index=["cell", "metric"], columns="seed", values="bound_95_paths"
    )
    n_seeds = per_seed.shape[1]
    assert n_seeds >= 3
    fixed = bound_table(runs, fixed=False).set_index(["cell", "metric"])
    assert set(per_seed.index) == set(fixed.index)

    def mean_and_se(rows):
        seed_means = rows.mean(axis=0)
        return seed_means.mean(), seed_means.std(ddof=1) / np.sqrt(n_seeds)

    mean, se = mean_and_se(per_seed)
    assert mean - 4 * se > fixed["bound_95"].mean()
    two = per_seed[per_seed.index.get_level_values("cell").str.startswith("alike:2:")]
    mean_two, se_two = mean_and_se(two)
    assert mean_two - 4 * se_two > 1.3

    cell, metric = two.mean(axis=1).idxmin()
    plug = plug_in(runs).set_index(["cell", "metric"]).loc[(cell, metric)]
    again = pratt_bound_on_paths(plug["cov"], plug["paths"], 0.95, random_seed=n_seeds + 100)
    row = per_seed.loc[(cell, metric)]
    tolerance = 4 * row.std(ddof=1) * np.sqrt(1 + 1 / n_seeds)
    assert abs(again / plug["pooled_width"] - row.mean()) <= tolerance
