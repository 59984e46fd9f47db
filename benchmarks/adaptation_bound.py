"""How narrow an honest interval can be where the groups are alike: a lower bound.

Every way of shifting the calibration map measured in
``benchmarks/differential_calibration.py`` lies on one curve: where the groups are
alike, each step narrower than about 1.3 times the pooled model's width is paid for
with coverage where one group's scores mean something else. This script computes a
lower bound on the width of an interval that keeps 95% for every distortion up to the
sizes measured, in the Gaussian limit of each cell.

**The limit experiment.** For the gap θ of a metric between the distorted group and
another, the pooled model's estimate X and a debiased estimate Y from the labels
(PPI++) are, in the limit, jointly normal with the covariance Σ of their errors,

    X ~ N(θ + β, Σ₁₁)     (the pooled map's estimate: biased by β where a map differs),
    Y ~ N(θ, Σ₂₂)         (the labels' debiased estimate: no bias, more variance),

and a distortion of a group's map of the sizes measured moves β within [−B, B] (slope
× 2 and × 0.5 move it in opposite directions; smaller distortions, 6% label noise or a
slope × 1.4, lie in between). An interval that keeps its level 1 − α for every θ and
every |β| ≤ B has, where the groups are alike (β = 0), an expected length of at least

    E|C| ≥ ∫ Φ(z₁₋α − d(Δ)) dΔ,   d(Δ)² = min over |β| ≤ B of vᵀ Σ⁻¹ v,  v = (Δ − β, Δ),

(Pratt 1961, *JASA* 56: the expected length is the integral over false values θ' of
the probability of covering them; ``θ' ∉ C`` is a level-α test of every null
``(θ', β)``, whose power against ``(θ, 0)`` is at most Neyman–Pearson's ``Φ(d − z₁₋α)``
for the nearest such null; Armstrong & Kolesár 2018, *Econometrica* 86, §3–4, for the
same argument over convex nuisance sets). With ``B = 0`` the bound is that of the best
unbiased combination of X and Y; with ``B → ∞`` that of Y alone. The bound is for one
point: an interval that attains it at β = 0 is wider elsewhere, so intervals that are
good everywhere are wider still (:func:`fixed_length_interval`: the best of one width).

**Plugged in.** Per cell with the groups alike (K groups, n_L labels) and metric:
Σ is the covariance of the pooled model's and PPI++'s errors over the data sets (both
on the same data sets), and B is the largest absolute mean error of the pooled model
over the distorted cells of the same K and n_L (12% label noise, slope × 2, slope ×
0.5). Each is estimated from ``--reps`` data sets per cell; the bound's Monte Carlo
error is a bootstrap over the data sets (each cell resampled, every quantity
recomputed). The bound is divided by the pooled model's mean 95% width there, the
ratio of the criterion (also for the 90% and 80% bounds).

**What it assumes, and where it may err.**

* The limit is Gaussian. Where a map differs the pooled model's error is also more
  variable (its sd 1.0–2.7 times that of the alike cell). :func:`pratt_bound_on_paths`
  lets Σ move with β, along a straight path to each distorted cell's measured pair
  (β_d, Σ_d), with the most powerful tests of a quadratic likelihood ratio. That bound
  is higher (1.47 against 1.38 in the mean): a null noisier in X puts more of its mass
  beside the truth, so an interval that must cover it there is longer. The path between
  the measured ends is an interpolation.
* The bound is over intervals built from the gap's two estimates (X, Y). β is one
  direction of a larger space of distortions: the bound holds for "each group's map
  may differ, up to a bias B of the gap", and the audit does not know which group's
  scores differ. Each group's own pair of estimates says more than the gap's: where
  exactly one of K = 4 groups differs, the other groups' labels also see the pull of
  the pooled map, and with K = 2 the two groups' discrepancies move together. A bound
  that used them would be lower; the two-group cells, where only the second applies,
  give 1.39 with Σ moving.
* B is the largest of three mean errors, biased upwards by about one standard error of
  a mean (2–5% of B), and it is not corrected for the pooled model's bias where the
  groups are alike (below 0.002).
* A debiased estimate more efficient than PPI++ would lower the bound.

Usage::

    python benchmarks/adaptation_bound.py --reps 100 \
        --out benchmarks/results/adaptation_bound.csv.gz
    python benchmarks/adaptation_bound.py --report benchmarks/results/adaptation_bound.csv.gz \
        [--paths 0 1 2 3]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import norm

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

DISTORTIONS = ("label_noise", "slope2", "slope05")
SIZES = [(k, n) for k in (2, 4) for n in (200, 2000)]
METRICS = ("accuracy", "tpr", "fpr")
LEVELS = (0.95, 0.90, 0.80)
#: The bound with the covariance moving, per row and seed (``--paths``: about 40 s a row
#: and seed); the page shows its mean over the seeds.
PATHS_CSV = ROOT / "benchmarks/results/adaptation_bound_paths.csv"


def independent(s0: float, s1: float) -> np.ndarray:
    """The covariance of the errors of ``(X, X − Z)`` when X and Z are independent with
    standard deviations ``s0`` and ``s1`` (the pooled estimate efficient where β = 0)."""
    return np.array([[s0**2, s0**2], [s0**2, s0**2 + s1**2]])


def pratt_bound(cov, bound: float, ci_prob: float, n_points: int = 4001) -> float:
    """Least expected length, at β = 0, of an interval for θ that keeps ``ci_prob`` for
    every θ and every |β| ≤ ``bound`` (module docstring: the limit experiment).

    Parameters
    ----------
    cov : array_like, shape (2, 2)
        Covariance of the errors of the pooled estimate X and the debiased estimate
        Y = X − Z (:func:`independent` for independent X and Z).
    bound : float
        B, the largest bias of X the interval must allow for (≥ 0).
    ci_prob : float
        The interval's level 1 − α.
    n_points : int
        Points of the numerical part of the integral (trapezoid rule).

    Returns
    -------
    float

    Notes
    -----
    Under ``(θ', β)`` the means of ``(X, Y)`` are ``(θ' + β, θ')``; against the truth
    ``(θ, 0)`` their difference is ``v = (Δ − β, Δ)``, ``Δ = θ − θ'``, at the distance
    ``d² = vᵀ Σ⁻¹ v``. The nearest null has ``β = Δ (1 − Σ₁₂ / Σ₂₂)`` while that is
    within ±B, and then ``d = |Δ| / √Σ₂₂`` (Y's own precision): that part is
    ``√Σ₂₂ [G(z) − G(z − Δ₁ / √Σ₂₂)]`` with ``G(x) = x Φ(x) + φ(x)``. Beyond it β = ±B
    and ``d²`` is a quadratic in Δ, integrated numerically until ``d = z + 9`` (the
    integrand is then below Φ(−9)). The integrand is symmetric in Δ.
    """
    from scipy.integrate import trapezoid

    cov = np.asarray(cov, dtype=float)
    if not (cov.shape == (2, 2) and np.all(np.linalg.eigvalsh(cov) > 0)):
        raise ValueError("cov must be a 2 × 2 positive definite matrix.")
    if not (bound >= 0 and 0 < ci_prob < 1):
        raise ValueError("bound ≥ 0 and 0 < ci_prob < 1 are required.")
    z = norm.ppf(ci_prob)
    sd_y = np.sqrt(cov[1, 1])
    slope = 1.0 - cov[0, 1] / cov[1, 1]  # the nearest null's β per unit of Δ

    def g(x):
        return x * norm.cdf(x) + norm.pdf(x)

    turn = np.inf if slope == 0 else bound / abs(slope)  # where the nearest β reaches ±B
    if not np.isfinite(turn):
        return 2.0 * sd_y * g(z)
    inner = sd_y * (g(z) - g(z - turn / sd_y))
    beta = bound * np.sign(slope)
    p = np.linalg.inv(cov)
    a = p[0, 0] + 2 * p[0, 1] + p[1, 1]  # d² = a Δ² + b Δ + c at β = ±B
    b = -2 * beta * (p[0, 0] + p[0, 1])
    c = p[0, 0] * beta**2 - (z + 9.0) ** 2
    disc = b**2 - 4 * a * c  # below 0: d > z + 9 for every Δ beyond the turn
    top = (-b + np.sqrt(disc)) / (2 * a) if disc > 0 else -np.inf
    outer = 0.0
    if top > turn:
        delta = np.linspace(turn, top, n_points)
        v = np.stack([delta - beta, delta])
        d = np.sqrt(np.maximum(np.einsum("in,ij,jn->n", v, p, v), 0.0))  # ≥ 0 but for rounding
        outer = trapezoid(norm.cdf(z - d), delta)
    return 2.0 * (inner + outer)


def pratt_bound_on_paths(
    cov0,
    paths,
    ci_prob: float,
    n_steps: int = 11,
    n_deltas: int = 121,
    n_draws: int = 20_000,
    seed: int = 0,
) -> float:
    """The bound of :func:`pratt_bound` where a distortion also changes the errors'
    covariance: each measured distortion ``d`` moves the pair ``(β, Σ)`` from ``(0, Σ₀)``
    to ``(β_d, Σ_d)`` along the straight path ``(t β_d, (1 − t) Σ₀ + t Σ_d)``, t in [0, 1],
    and the interval must keep ``ci_prob`` at every point of every path, in both signs
    (the audit does not know which of the two groups differs).

    Pratt's argument is the same; against the truth ``N(0, Σ₀)`` the nearest null is now
    the one whose most powerful test (Neyman–Pearson, a quadratic likelihood ratio when
    the covariances differ) has the least power, found over ``n_steps`` points of each
    path. Each test's power is estimated from ``n_draws`` common normal draws under the
    null and under the truth (the threshold at the null's 1 − α quantile of the log
    ratio), and the integral is the trapezoid rule on ``n_deltas`` points of Δ up to the
    point where every null is rejected with probability above 1 − 10⁻⁴.

    Parameters
    ----------
    cov0 : array_like, shape (2, 2)
        Σ₀, the covariance of the errors of X and Y where the groups are alike.
    paths : list of (float, array_like)
        Per distortion, its bias β_d of X and the covariance Σ_d of the errors
        ``(X − θ − β_d, Y − θ)`` there.
    ci_prob : float
        The interval's level 1 − α.

    Returns
    -------
    float

    Notes
    -----
    The path is an interpolation, not a measurement: only its ends are measured. With
    ``Σ_d = Σ₀`` it is :func:`pratt_bound` at ``B = max |β_d|`` restricted to the
    measured directions, which the tests check.
    """
    from scipy.integrate import trapezoid

    cov0 = np.asarray(cov0, dtype=float)
    rng = np.random.default_rng(seed)
    draws = rng.standard_normal((2, n_draws, 2))  # common to every null: a smooth integrand
    betas, covs = [], []
    for beta_d, cov_d in paths:
        for t in np.linspace(0.0, 1.0, n_steps):
            for sign in (1.0, -1.0):
                betas.append(sign * t * beta_d)
                covs.append((1.0 - t) * cov0 + t * np.asarray(cov_d, dtype=float))
    betas, covs = np.array(betas), np.array(covs)
    sd_y = np.sqrt(cov0[1, 1])

    def least_power(delta: float) -> float:
        means = np.stack([betas - delta, np.full_like(betas, -delta)], axis=1)
        return float(most_powerful_power(means, covs, cov0, ci_prob, draws).min())

    top = 4.0 * sd_y
    while least_power(top) < 1.0 - 1e-4:
        top *= 1.5
    deltas = np.linspace(0.0, top, n_deltas)
    covered = [1.0 - least_power(delta) for delta in deltas]
    return 2.0 * trapezoid(covered, deltas)


def most_powerful_power(mean, cov_null, cov0, ci_prob: float, draws) -> np.ndarray:
    """The power of the most powerful level-α test of ``N(mean, cov_null)`` against
    ``N(0, cov0)`` (Neyman–Pearson: reject where the log likelihood ratio exceeds its
    1 − α quantile under the null), from normal draws; for many nulls at once.

    Parameters
    ----------
    mean : array_like, shape (m, 2) or (2,)
        Each null's mean, less the truth's.
    cov_null : array_like, shape (m, 2, 2) or (2, 2)
        Each null's covariance.
    cov0 : array_like, shape (2, 2)
        The truth's covariance.
    ci_prob : float
        1 − α.
    draws : ndarray, shape (2, n, 2)
        Standard normal draws: the first for the nulls, the second for the truth.

    Returns
    -------
    ndarray, shape (m,), or float for one null
    """
    one = np.ndim(mean) == 1
    mean = np.atleast_2d(np.asarray(mean, dtype=float))[:, None, :]  # (m, 1, 2)
    cov_null = np.asarray(cov_null, dtype=float).reshape(-1, 2, 2)
    cov0 = np.asarray(cov0, dtype=float)
    p_null, p0 = np.linalg.inv(cov_null), np.linalg.inv(cov0)
    half_log_dets = 0.5 * (np.linalg.slogdet(cov_null)[1] - np.linalg.slogdet(cov0)[1])

    def quad(x, p):  # xᵀ P x per draw, P of shape (m, 2, 2) or (2, 2)
        p = p.reshape(-1, 1, 2, 2)
        a, b, c = p[..., 0, 0], p[..., 0, 1], p[..., 1, 1]
        return a * x[..., 0] ** 2 + 2 * b * x[..., 0] * x[..., 1] + c * x[..., 1] ** 2

    def log_ratio(x):  # log N(x; 0, Σ₀) − log N(x; mean, Σ_null), shape (m, n)
        return 0.5 * (quad(x - mean, p_null) - quad(x, p0)) + half_log_dets[:, None]

    under_null = mean + np.einsum("nj,mij->mni", draws[0], np.linalg.cholesky(cov_null))
    under_truth = (draws[1] @ np.linalg.cholesky(cov0).T)[None]
    threshold = np.quantile(log_ratio(under_null), ci_prob, axis=1)
    power = np.mean(log_ratio(under_truth) > threshold[:, None], axis=1)
    return float(power[0]) if one else power


def fixed_length_interval(cov, bound: float, ci_prob: float):
    """The shortest interval ``(1 − w) X + w Y ± h`` that keeps ``ci_prob`` for every
    |β| ≤ B (Armstrong & Kolesár 2018, §3: the bias-aware fixed-length interval).

    At a bias β its error is normal with mean ``(1 − w) β`` and variance
    ``(1 − w)² Σ₁₁ + w² Σ₂₂ + 2 w (1 − w) Σ₁₂``; the half-width is the critical value of
    ``|N(b, 1)|`` at the largest standardised bias ``b = |1 − w| B / sd``, times ``sd``;
    ``w`` in [−1, 2] is chosen to make it shortest.

    Returns
    -------
    width : float
    w : float
    """
    from scipy.optimize import brentq, minimize_scalar

    cov = np.asarray(cov, dtype=float)

    def width(w):
        var = (1 - w) ** 2 * cov[0, 0] + w**2 * cov[1, 1] + 2 * w * (1 - w) * cov[0, 1]
        sd = np.sqrt(var)
        b = abs(1 - w) * bound / sd

        def miss(h):
            return norm.cdf(h - b) - norm.cdf(-h - b) - ci_prob

        return 2.0 * brentq(miss, 0.0, b + 10.0) * sd

    best = minimize_scalar(width, bounds=(-1.0, 2.0), method="bounded", options={"xatol": 1e-6})
    return float(best.fun), float(best.x)


def run(reps: int, seed0: int, out: Path, sizes=SIZES) -> pd.DataFrame:
    """The pooled model and PPI++ on every cell (``differential_calibration.run_cell``)."""
    from differential_calibration import run_cell

    rows = []
    for k, n in sizes:
        for kind in ("alike", *DISTORTIONS):
            cell = f"{kind}:{k}:{n}"
            t0 = time.perf_counter()
            rows += run_cell(cell, reps, seed0, methods=("pooled", "ppi"))
            pd.DataFrame(rows).to_csv(out, index=False)
            print(f"{cell}: {time.perf_counter() - t0:.0f} s", flush=True)
    return pd.DataFrame(rows)


def _wide(runs: pd.DataFrame) -> dict:
    """Per cell, its data sets' errors and widths: a frame indexed by data set with
    columns ``(quantity, method, metric)``."""
    runs = runs.assign(error=runs["estimate"] - runs["truth"])
    wide = runs.pivot_table(
        index=["cell", "rep"], columns=["method", "metric"], values=["error", "width"]
    )
    return {cell: wide.loc[cell] for cell in runs["cell"].unique()}


def _error_cov(frame: pd.DataFrame, metric: str) -> np.ndarray:
    """The 2 × 2 covariance of the pooled model's and PPI++'s errors over a cell's data
    sets (each data set's two errors together)."""
    pairs = frame[[("error", "pooled", metric), ("error", "ppi", metric)]]
    return np.cov(pairs.dropna().to_numpy(), rowvar=False)


def plug_in(runs, picks: dict | None = None) -> pd.DataFrame:
    """Σ, B and the pooled width per alike cell and metric (module docstring).

    Parameters
    ----------
    runs : DataFrame or dict
        The runs, or their :func:`_wide` form.
    picks : dict, optional
        Per cell, the positions of the data sets to use (a bootstrap's resample); all
        of them by default.
    """
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
                dict(
                    cell=f"alike:{k}:{n}",
                    metric=metric,
                    s0=np.sqrt(cov[0, 0]),
                    s_ppi=np.sqrt(cov[1, 1]),
                    corr=cov[0, 1] / np.sqrt(cov[0, 0] * cov[1, 1]),
                    B=np.max(np.abs(biases)),
                    pooled_width=alike[("width", "pooled", metric)].mean(),
                    cov=cov,
                    paths=paths,
                )
            )
    return pd.DataFrame(rows)


def bound_table(
    runs, fixed: bool = True, picks: dict | None = None, paths: dict | None = None
) -> pd.DataFrame:
    """The bound at each level, as a multiple of the pooled model's width (and, with
    ``fixed``, the 95% fixed-length interval's width); ``runs`` and ``picks`` as in
    :func:`plug_in`. With ``paths`` (keyword arguments of :func:`pratt_bound_on_paths`,
    ``{}`` for its defaults), also the 95% bound where a distortion moves the covariance
    as well (``bound_95_paths``: about 45 s a row with the defaults)."""
    t = plug_in(runs, picks)
    if paths is not None:
        t["bound_95_paths"] = [
            pratt_bound_on_paths(r.cov, r.paths, 0.95, **paths) / r.pooled_width
            for r in t.itertuples()
        ]
    for level in LEVELS:
        t[f"bound_{round(100 * level)}"] = [
            pratt_bound(r.cov, r.B, level) / r.pooled_width for r in t.itertuples()
        ]
    if fixed:
        t["fixed_95"] = [
            fixed_length_interval(r.cov, r.B, 0.95)[0] / r.pooled_width for r in t.itertuples()
        ]
    return t


def paths_table(runs, seeds) -> pd.DataFrame:
    """The 95% bound with Σ moving (:func:`pratt_bound_on_paths`, its defaults), per alike
    row and seed, as a multiple of the pooled width."""
    frames = []
    for seed in seeds:
        t = bound_table(runs, fixed=False, paths=dict(seed=seed))
        frames.append(t[["cell", "metric", "bound_95_paths"]].assign(seed=seed))
    return pd.concat(frames, ignore_index=True)


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


def report(runs: pd.DataFrame, path: Path, n_boot: int = 200) -> None:
    """``docs/results/adaptation_bound.md``: the bound per cell and metric, beside the
    widths of the default and of τ learned alone (``differential_calibration``'s runs)."""
    t = bound_table(runs)
    paths = pd.read_csv(PATHS_CSV)
    per_seed = paths.pivot_table(index=["cell", "metric"], columns="seed", values="bound_95_paths")
    t["bound_95_paths"] = [per_seed.loc[(r.cell, r.metric)].mean() for r in t.itertuples()]
    seed_means = per_seed.mean(axis=0)  # each seed's mean over the rows
    paths_se = seed_means.std(ddof=1) / np.sqrt(len(seed_means))
    boot = bootstrap(runs, n_boot, seed=0)
    shifts = pd.read_csv(ROOT / "benchmarks/results/differential_calibration.csv.gz")
    widths = shifts.pivot_table(index=["cell", "metric"], columns="method", values="width")
    for method in ("default", "learned"):
        t[method] = [
            widths.loc[(r.cell, r.metric), method] / widths.loc[(r.cell, r.metric), "pooled"]
            for r in t.itertuples()
        ]
    reps = runs.groupby("cell")["rep"].nunique()
    lines = [
        "# How narrow an honest interval can be where the groups are alike",
        "",
        "Written by `benchmarks/adaptation_bound.py` (its docstring has the argument and",
        "its assumptions): the least expected width, where the groups are alike, of an",
        "interval for the gap g0 − g1 that keeps its level for every distortion of a group's",
        "map up to the sizes measured (12% label noise, slope × 2 and × 0.5, and everything",
        "in between), in the Gaussian limit of each cell, as a multiple of the pooled",
        "model's mean 95% width there. `s0`, `s_ppi`, `corr`: the sd of the pooled model's",
        "and PPI++'s errors and their correlation on the same data sets; `B`: the largest",
        "bias of the pooled model over the distorted cells of the same size.",
        _count(reps) + " `default` and `learned`:",
        "the widths of the default and of τ learned alone against the pooled model's",
        "(`docs/results/differential_calibration.md`, 20 other data sets per cell: their",
        "Monte Carlo error is a few percent, so a difference of 0.02 is not a finding).",
        "",
        "`fixed, 95%`: the shortest interval of the form (1 − w) X + w Y ± h that keeps 95%",
        "for every |β| ≤ B (Armstrong & Kolesár's bias-aware fixed-length interval): a",
        "width an honest interval attains everywhere, where the bound is the least at one",
        "point.",
        "",
        "`Σ moves, 95%`: the 95% bound where a distortion changes the covariance of the two",
        "errors as well as the bias (the pooled model's error is 1.0–2.7 times as variable",
        "in the distorted cells): along a straight path from the alike cell's (0, Σ₀) to",
        "each distorted cell's measured (β_d, Σ_d), most powerful tests of quadratic ratio,",
        f"powers from 20,000 normal draws, the mean over {len(seed_means)} seeds (the draws are",
        "shared by the rows, so a seed moves every row alike: the Monte Carlo standard",
        f"error of the mean over the rows is {paths_se:.3f}). A null that is noisier in X puts",
        "more of its mass beside the truth, so an interval that must cover it there is",
        "longer.",
        "",
        "| cell | metric | s0 | s_ppi | corr | B | bound, 95% | bound, 90% | bound, 80% "
        "| Σ moves, 95% | fixed, 95% | default | learned |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in t.itertuples():
        lines.append(
            f"| {r.cell} | {r.metric} | {r.s0:.4f} | {r.s_ppi:.4f} | {r.corr:.2f} | {r.B:.4f} | "
            f"{r.bound_95:.2f} | {r.bound_90:.2f} | {r.bound_80:.2f} | "
            f"{r.bound_95_paths:.2f} | {r.fixed_95:.2f} | "
            f"{r.default:.2f} | "
            f"{r.learned:.2f} |"
        )
    lines += [
        "",
        "## Mean over the alike cells and metrics",
        "",
        f"With a bootstrap 95% interval over the data sets ({n_boot} resamples), and the",
        "range over the cells and metrics.",
        "",
        "| level the interval keeps | least width / pooled width | bootstrap 95% interval "
        "| range |",
        "|---|---|---|---|",
    ]
    for level in LEVELS:
        col = t[f"bound_{round(100 * level)}"]
        lo, hi = np.quantile(boot[level], [0.025, 0.975])
        lines.append(f"| {level:.0%} | {col.mean():.2f} | [{lo:.2f}, {hi:.2f}] | {_span(col)} |")
    two = t["cell"].str.startswith("alike:2:")
    lines += [
        f"| 95%, Σ moving with the distortion | {t['bound_95_paths'].mean():.2f} | "
        f"± {paths_se:.3f} (Monte Carlo) | {_span(t['bound_95_paths'])} |",
        f"| 95%, Σ moving, the two-group cells only | "
        f"{t.loc[two, 'bound_95_paths'].mean():.2f} | | {_span(t.loc[two, 'bound_95_paths'])} |",
        f"| 95%, the fixed-length interval | {t['fixed_95'].mean():.2f} | | "
        f"{_span(t['fixed_95'])} |",
        f"| the default (measured) | {t['default'].mean():.2f} | | {_span(t['default'])} |",
        f"| τ learned alone (measured) | {t['learned'].mean():.2f} | | {_span(t['learned'])} |",
        "",
    ]
    path.write_text("\n".join(lines))


def _span(col: pd.Series) -> str:
    return f"{col.min():.2f}–{col.max():.2f}"


def _count(reps: pd.Series) -> str:
    """The data sets per cell, in words."""
    low, high = int(reps.min()), int(reps.max())
    return f"{low} data sets per cell." if low == high else f"{low}–{high} data sets per cell."


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("--seed", type=int, default=5000)
    ap.add_argument(
        "--sizes", nargs="*", default=[f"{k}:{n}" for k, n in SIZES], help="K:n_L, e.g. 2:200"
    )
    ap.add_argument("--report", nargs="*", help="CSV files of earlier runs: the page only")
    ap.add_argument(
        "--paths",
        nargs="*",
        type=int,
        help="seeds of the bound with Σ moving, stored in adaptation_bound_paths.csv "
        "(with --report)",
    )
    ap.add_argument("--out", default=str(ROOT / "benchmarks/results/adaptation_bound.csv.gz"))
    a = ap.parse_args()
    if a.paths and not a.report:
        ap.error("--paths needs --report (the seeds are computed from stored runs)")
    page = ROOT / "docs/results/adaptation_bound.md"
    if a.report:
        runs = pd.concat([pd.read_csv(f) for f in a.report])
        if a.paths:
            paths_table(runs, a.paths).to_csv(PATHS_CSV, index=False, float_format="%.5f")
    else:
        sizes = [tuple(int(v) for v in size.split(":")) for size in a.sizes]
        runs = run(a.reps, a.seed, Path(a.out), sizes)
        if sorted(sizes) != sorted(SIZES):  # a part of the runs: the page needs them all
            return
    report(runs, page)
    print(page.read_text())


if __name__ == "__main__":
    main()
