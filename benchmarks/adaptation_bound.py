"""How narrow an honest interval can be where the groups are alike: a lower bound.

Every way of shifting the calibration map measured in
``benchmarks/differential_calibration.py`` lies on one curve: where the groups are
alike, each step narrower than about 1.3 times the pooled model's width is paid for
with coverage where one group's scores mean something else. This script computes the
bound behind that curve, in the Gaussian limit of each cell.

**The limit experiment.** For the gap θ of a metric between the distorted group and
another, the pooled model's estimate and the labels' estimate of its bias are, in the
limit, two independent normal statistics,

    X ~ N(θ + β, σ₀²)     (the pooled map's estimate: biased by β where g0 differs),
    Z ~ N(β, σ₁²)         (the labels' rectifier: the bias as the labels show it),

and a distortion of g0's map of the sizes measured moves β within [−B, B] (slope × 2
and × 0.5 move it in opposite directions; smaller distortions, 6% label noise or a
slope × 1.4, lie in between). An interval that keeps its level 1 − α for every θ and
every |β| ≤ B has, where the groups are alike (β = 0), an expected length of at least

    E|C| ≥ ∫ Φ(z₁₋α − d(Δ)) dΔ,   d(Δ)² = min over |β| ≤ B of (Δ − β)²/σ₀² + β²/σ₁²,

(Pratt 1961, *JASA* 56: the expected length is the integral over false values θ' of
the probability of covering them; ``θ' ∉ C`` is a level-α test of every null
``(θ', β)``, whose power against ``(θ, 0)`` is at most Neyman–Pearson's ``Φ(d − z₁₋α)``
for the nearest such null; Armstrong & Kolesár 2018, *Econometrica* 86, §3–4, for the
same argument over convex nuisance sets). With ``B = 0`` the bound is the pooled
statistic's own, ``2 σ₀ (z Φ(z) + φ(z))``; with ``B → ∞`` the rectified one with
``σ₀² + σ₁²``. The bound is for one point: an interval that attains it at β = 0 is wider
elsewhere, so intervals that are good everywhere are wider still.

**Plugged in.** Per cell with the groups alike (K groups, n_L labels) and metric:
σ₀ is the standard deviation of the pooled model's error over the data sets, σ₁² is
PPI++'s error variance less σ₀² (PPI++ is the labels' debiased estimate of the gap),
and B is the largest absolute mean error of the pooled model over the distorted cells
of the same K and n_L (12% label noise, slope × 2, slope × 0.5). The audit does not
know which group's scores differ, so either group's map may carry the bias: a bias β
of the gap is made least visibly by splitting it between the two groups in proportion
to their rectifiers' variances, and the labels then see it with the gap's rectifier
variance: σ₁² as above, the variance that debiasing adds to the pooled estimate's, so
that ``X − Z`` has PPI++'s variance and ``X`` the pooled model's (the set "both maps
may differ, by at most B together" lies inside "each may differ by up to B", so the
bound is conservative there).

**What it assumes.** The limit is Gaussian, with σ₀, σ₁ and B estimated (a bootstrap
gives their Monte Carlo error, not their bias: the largest of three mean errors is
biased upwards by about one standard error of a mean, 2–5% of B). A debiased estimate
more efficient than PPI++ would lower σ₁ and so the bound. The nuisance is one
direction (the gap's bias) of a larger space of distortions, which makes the bound
lower than the full space's. Each is estimated from ``--reps``
data sets per cell; the bound's Monte Carlo error is a bootstrap over the data sets
(each cell resampled, every quantity recomputed). The bound is divided by the pooled
model's mean width there, the ratio of the issue's criterion.

Usage::

    python benchmarks/adaptation_bound.py --reps 100 \
        --out benchmarks/results/adaptation_bound.csv.gz
    python benchmarks/adaptation_bound.py --report benchmarks/results/adaptation_bound.csv.gz
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


def pratt_bound(s0: float, s1: float, bound: float, ci_prob: float, n_points: int = 20001):
    """Least expected length, at β = 0, of an interval for θ that keeps ``ci_prob`` for
    every θ and every |β| ≤ ``bound`` (module docstring: the limit experiment).

    Parameters
    ----------
    s0 : float
        Standard deviation of the pooled estimate X.
    s1 : float
        Standard deviation of the labels' estimate Z of the bias.
    bound : float
        B, the largest bias the interval must cover (≥ 0).
    ci_prob : float
        The interval's level 1 − α.
    n_points : int
        Points of the numerical part of the integral (trapezoid rule).

    Returns
    -------
    float

    Notes
    -----
    The integrand is symmetric in Δ = θ − θ'. For ``0 ≤ Δ ≤ B (σ₀² + σ₁²) / σ₁²`` the
    nearest null's bias is ``Δ σ₁² / (σ₀² + σ₁²)`` and ``d = Δ / √(σ₀² + σ₁²)``: that part
    is ``√(σ₀² + σ₁²) [G(z) − G(z − Δ₁ / √(σ₀² + σ₁²))]`` with ``G(x) = x Φ(x) + φ(x)``.
    Beyond it the bias is B, ``d² = (Δ − B)²/σ₀² + B²/σ₁²``, integrated numerically up to
    ``Δ = B + (z + 9) σ₀``, where the integrand is below Φ(−9).
    """
    if not (s0 > 0 and s1 > 0 and bound >= 0 and 0 < ci_prob < 1):
        raise ValueError("s0, s1 > 0, bound ≥ 0 and 0 < ci_prob < 1 are required.")
    z = norm.ppf(ci_prob)
    total = np.hypot(s0, s1)

    def g(x):
        return x * norm.cdf(x) + norm.pdf(x)

    turn = bound * (total / s1) ** 2  # where the nearest null's bias reaches B
    inner = total * (g(z) - g(z - turn / total))
    top = bound + (z + 9.0) * s0
    outer = 0.0
    if top > turn:
        delta = np.linspace(turn, top, n_points)
        d = np.sqrt((delta - bound) ** 2 / s0**2 + bound**2 / s1**2)
        outer = np.trapezoid(norm.cdf(z - d), delta)
    return 2.0 * (inner + outer)


def fixed_length_interval(s0: float, s1: float, bound: float, ci_prob: float):
    """The shortest interval ``X − w Z ± h`` that keeps ``ci_prob`` for every |β| ≤ B
    (Armstrong & Kolesár 2018, §3: the bias-aware fixed-length interval).

    At a bias β its error is ``N((1 − w) β, σ₀² + w² σ₁²)``; the half-width is the
    critical value of ``|N(b, 1)|`` at the largest standardised bias
    ``b = (1 − w) B / sd``, times ``sd``; ``w`` is chosen to make it shortest.

    Returns
    -------
    width : float
    w : float
    """
    from scipy.optimize import brentq, minimize_scalar

    def width(w):
        sd = np.hypot(s0, w * s1)
        b = (1 - w) * bound / sd

        def miss(c):
            return norm.cdf(c - b) - norm.cdf(-c - b) - ci_prob

        return 2.0 * brentq(miss, 0.0, b + 10.0) * sd

    best = minimize_scalar(width, bounds=(0.0, 1.0), method="bounded", options={"xatol": 1e-6})
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


def plug_in(runs: pd.DataFrame) -> pd.DataFrame:
    """σ₀, σ₁, B and the pooled width per alike cell and metric (module docstring)."""
    runs = runs.assign(error=runs["estimate"] - runs["truth"])
    rows = []
    for k, n in SIZES:
        for metric in METRICS:
            part = runs[runs["metric"] == metric]
            alike = part[part["cell"] == f"alike:{k}:{n}"]
            pooled = alike.loc[alike["method"] == "pooled", "error"]
            ppi = alike.loc[alike["method"] == "ppi", "error"].dropna()
            s0 = pooled.std()
            s1 = np.sqrt(max(ppi.var() - s0**2, 1e-12))
            biases = [
                part.loc[
                    (part["cell"] == f"{kind}:{k}:{n}") & (part["method"] == "pooled"), "error"
                ].mean()
                for kind in DISTORTIONS
            ]
            width = alike.loc[alike["method"] == "pooled", "width"].mean()
            rows.append(
                dict(
                    cell=f"alike:{k}:{n}",
                    metric=metric,
                    s0=s0,
                    s1=s1,
                    B=np.max(np.abs(biases)),
                    pooled_width=width,
                )
            )
    return pd.DataFrame(rows)


def bound_table(runs: pd.DataFrame, fixed: bool = True) -> pd.DataFrame:
    """The bound at each level, as a multiple of the pooled model's width (and, with
    ``fixed``, the 95% fixed-length interval's width)."""
    t = plug_in(runs)
    for level in LEVELS:
        t[f"bound_{round(100 * level)}"] = [
            pratt_bound(r.s0, r.s1, r.B, level) / r.pooled_width for r in t.itertuples()
        ]
    if fixed:
        t["fixed_95"] = [
            fixed_length_interval(r.s0, r.s1, r.B, 0.95)[0] / r.pooled_width for r in t.itertuples()
        ]
    return t


def bootstrap(runs: pd.DataFrame, n_boot: int, seed: int) -> pd.DataFrame:
    """The mean bound ratio over the alike cells and metrics, per level, recomputed on
    data sets resampled within each cell (every method's rows of a data set together)."""
    rng = np.random.default_rng(seed)
    reps = runs.groupby("cell")["rep"].unique()
    out = []
    for _ in range(n_boot):
        picked = pd.concat(
            pd.DataFrame({"cell": cell, "rep": rng.choice(ids, ids.size)})
            for cell, ids in reps.items()
        )
        picked["copy"] = np.arange(len(picked))  # a data set drawn twice counts twice
        resampled = picked.merge(runs, on=["cell", "rep"]).drop(columns="rep")
        resampled = resampled.rename(columns={"copy": "rep"})
        t = bound_table(resampled, fixed=False)
        out.append({level: t[f"bound_{round(100 * level)}"].mean() for level in LEVELS})
    return pd.DataFrame(out)


def report(runs: pd.DataFrame, path: Path, n_boot: int = 200) -> None:
    """``docs/results/adaptation_bound.md``: the bound per cell and metric, beside the
    widths of the default and of τ learned alone (``differential_calibration``'s runs)."""
    t = bound_table(runs)
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
        "Written by `benchmarks/adaptation_bound.py` (its docstring has the argument): the",
        "least expected width, where the groups are alike, of an interval for the gap g0 − g1",
        "that keeps its level for every distortion of g0's map up to the sizes measured (12%",
        "label noise, slope × 2 and × 0.5, and everything in between), in the Gaussian limit",
        "of each cell, as a multiple of the pooled model's mean width there. `s0`: the pooled",
        "model's error sd; `s1`: the labels' (PPI++'s error variance less s0²); `B`: the",
        "largest bias of the pooled model over the distorted cells of the same size.",
        _count(reps) + " `default` and `learned`:",
        "the widths of the default and of τ learned alone against the pooled model's",
        "(`docs/results/differential_calibration.md`, 20 data sets per cell).",
        "",
        "`fixed, 95%`: the shortest interval of the form X − w Z ± h that keeps 95% for every",
        "|β| ≤ B (Armstrong & Kolesár's bias-aware fixed-length interval): a width an honest",
        "interval attains everywhere, where the bound is the least at one point.",
        "",
        "| cell | metric | s0 | s1 | B | bound, 95% | bound, 90% | bound, 80% | fixed, 95% "
        "| default | learned |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in t.itertuples():
        lines.append(
            f"| {r.cell} | {r.metric} | {r.s0:.4f} | {r.s1:.4f} | {r.B:.4f} | "
            f"{r.bound_95:.2f} | {r.bound_90:.2f} | {r.bound_80:.2f} | {r.fixed_95:.2f} | "
            f"{r.default:.2f} | "
            f"{r.learned:.2f} |"
        )
    lines += [
        "",
        "## Mean over the alike cells and metrics",
        "",
        f"With a bootstrap 95% interval over the data sets ({n_boot} resamples).",
        "",
        "| level the interval keeps | least width / pooled width | bootstrap 95% interval |",
        "|---|---|---|",
    ]
    for level in LEVELS:
        mean = t[f"bound_{round(100 * level)}"].mean()
        lo, hi = np.quantile(boot[level], [0.025, 0.975])
        lines.append(f"| {level:.0%} | {mean:.2f} | [{lo:.2f}, {hi:.2f}] |")
    lines += [
        f"| 95%, the fixed-length interval | {t['fixed_95'].mean():.2f} | |",
        f"| the default (measured) | {t['default'].mean():.2f} | |",
        f"| τ learned alone (measured) | {t['learned'].mean():.2f} | |",
        "",
    ]
    path.write_text("\n".join(lines))


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
    ap.add_argument("--out", default=str(ROOT / "benchmarks/results/adaptation_bound.csv.gz"))
    a = ap.parse_args()
    page = ROOT / "docs/results/adaptation_bound.md"
    if a.report:
        runs = pd.concat([pd.read_csv(f) for f in a.report])
    else:
        sizes = [tuple(int(v) for v in size.split(":")) for size in a.sizes]
        runs = run(a.reps, a.seed, Path(a.out), sizes)
        if sorted(sizes) != sorted(SIZES):  # a part of the runs: the page needs them all
            return
    report(runs, page)
    print(page.read_text())


if __name__ == "__main__":
    main()
