"""How narrow an honest interval can be where the groups are alike: a lower bound.

Every way of shifting the calibration map measured in
``benchmarks/differential_calibration.py`` lies on one curve: where the groups are
alike, each step narrower than about 1.3 times the pooled model's width is paid for
with coverage where one group's scores mean something else. This script computes a
lower bound on the width of an interval that keeps 95% for every distortion up to the
sizes measured, in the Gaussian limit of each cell. The limit experiment's computations
(:func:`~bayesfair.datasets.limits.pratt_bound`,
:func:`~bayesfair.datasets.limits.pratt_bound_on_paths`,
:func:`~bayesfair.datasets.limits.fixed_length_interval`) live in
``bayesfair.datasets.limits``, where the tests check them; this script plugs in the
measured runs.

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

from bayesfair.datasets.limits import fixed_length_interval, pratt_bound, pratt_bound_on_paths

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

DISTORTIONS = ("label_noise", "slope2", "slope05")
SIZES = [(k, n) for k in (2, 4) for n in (200, 2000)]
METRICS = ("accuracy", "tpr", "fpr")
LEVELS = (0.95, 0.90, 0.80)
#: The bound with the covariance moving, per row and seed (``--paths``: about 40 s a row
#: and seed); the page shows its mean over the seeds.
PATHS_CSV = ROOT / "benchmarks/results/adaptation_bound_paths.csv"


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
        t = bound_table(runs, fixed=False, paths=dict(random_seed=seed))
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
