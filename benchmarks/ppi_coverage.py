"""Coverage of the PPI++ intervals in a simulation with known truth (validity).

Two equal groups; each example has a true probability ``p ~ Beta(2, 2)`` and a
label ``y ~ Bernoulli(p)``. Group A's classifier reports ``s = p`` (calibrated),
group B's ``s = p²`` (miscalibrated: the cross-fitted calibration must repair
it, and the residuals must debias what it cannot). ŷ = 1[s ≥ 0.5]. Per
replicate: ``n_L`` labeled examples (groups at random) and 20,000 unlabeled;
95% PPI++ and classical intervals of Δ accuracy, Δ TPR and Δ FPR (B − A)
against the truth, the rates of the population (computed once from 4 × 10⁶
draws, Monte Carlo error below 5e-4).

Run: ``python benchmarks/ppi_coverage.py`` (2,000 replicates per n_L, about
two minutes); ``--reps 200`` for a quick look. Writes ``docs/results/ppi_coverage.md``.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
METRICS = ("accuracy", "tpr", "fpr")
N_UNLABELED = 20_000


SCENARIOS = ("squared", "misfit")


def draw(n, rng, scenario: str = "squared"):
    """``n`` examples: scores, labels, groups (A calibrated; B squared or folded).

    ``misfit``: B's score is ``|2p − 1|``, which no beta calibration (nor any
    monotone map) can turn back into ``p``: P(y = 1 | s) is 1/2 at every score.
    The calibrated predictions are then wrong for B, the case where PPI++ must
    stay valid by its rectifier alone.
    """
    g = rng.choice(np.array(["A", "B"]), n)
    p = rng.beta(2.0, 2.0, n)
    y = (rng.uniform(size=n) < p).astype(int)
    s_b = p**2 if scenario == "squared" else np.abs(2.0 * p - 1.0)
    s = np.where(g == "B", s_b, p)
    return s, y, g


def truth(n: int = 4_000_000, seed: int = 12345, scenario: str = "squared") -> dict:
    """The population Δ (B − A) of each metric, from ``n`` draws."""
    from bayesfair.data.examples import count_confusion
    from bayesfair.metrics.rates import rate_fraction

    s, y, g = draw(n, np.random.default_rng(seed), scenario)
    counts = count_confusion(s >= 0.5, y, (g == "B").astype(int), 2)
    out = {}
    for m in METRICS:
        num, den = rate_fraction(counts, m)
        out[m] = float(num[1] / den[1] - num[0] / den[0])
    return out


def replicate(n_labeled: int, rng, truths: dict, scenario: str = "squared") -> list[dict]:
    """One labeled + unlabeled draw; coverage and width of PPI++ and classical per metric."""
    import bayesfair as bf
    from bayesfair.frequentist import ppi_difference

    s, y, g = draw(n_labeled, rng, scenario)
    s_u, _, g_u = draw(N_UNLABELED, rng, scenario)
    data = bf.AssessmentData(s, y, g, unlabeled_scores=s_u, unlabeled_groups=g_u, reference="A")
    rows = []
    for m in METRICS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = ppi_difference(data, m, group="B", reference="A", random_seed=rng)
        t = truths[m]
        for kind, (lo, hi) in (("ppi", res.interval), ("classical", res.classical_interval)):
            rows.append(
                {
                    "n_labeled": n_labeled,
                    "metric": m,
                    "method": kind,
                    "covered": float(lo <= t <= hi) if np.isfinite(lo) else np.nan,
                    "width": hi - lo,
                    "defined": bool(np.isfinite(lo)),
                }
            )
    return rows


def run(sizes, reps: int, seed: int = 0, scenario: str = "squared") -> pd.DataFrame:
    truths = truth(scenario=scenario)
    rows = []
    for n_labeled, seq in zip(sizes, np.random.SeedSequence(seed).spawn(len(sizes)), strict=True):
        rng = np.random.default_rng(seq)
        start = time.perf_counter()
        for _ in range(reps):
            rows += replicate(n_labeled, rng, truths, scenario)
        print(
            f"n_L = {n_labeled}: {reps} replicates in {time.perf_counter() - start:.0f} s",
            file=sys.stderr,
            flush=True,
        )
    return pd.DataFrame(rows)


def summary(df: pd.DataFrame) -> pd.DataFrame:
    return (
        df.groupby(["n_labeled", "metric", "method"])
        .agg(coverage=("covered", "mean"), width=("width", "median"), defined=("defined", "mean"))
        .reset_index()
    )


def _section(table: pd.DataFrame) -> list[str]:
    wide = table.pivot_table(
        index=["n_labeled", "metric"], columns="method", values=["coverage", "width"]
    )
    lines = [
        "| n_L | metric | PPI++ coverage | classical coverage | PPI++ width | "
        "classical width | width ratio |",
        "|---|---|---|---|---|---|---|",
    ]
    for (n_l, m), r in wide.iterrows():
        lines.append(
            f"| {n_l} | {m} | {r['coverage', 'ppi']:.3f} | {r['coverage', 'classical']:.3f} | "
            f"{r['width', 'ppi']:.3f} | {r['width', 'classical']:.3f} | "
            f"{r['width', 'ppi'] / r['width', 'classical']:.2f} |"
        )
    return lines


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--reps", type=int, default=2000)
    p.add_argument("--sizes", type=int, nargs="+", default=[50, 100, 200, 500, 1000])
    p.add_argument("--out", type=Path, default=ROOT / "docs" / "results" / "ppi_coverage.md")
    args = p.parse_args(argv)
    squared = _section(summary(run(args.sizes, args.reps)))
    misfit = _section(summary(run(args.sizes, args.reps, scenario="misfit")))
    se = np.sqrt(0.95 * 0.05 / args.reps)
    text = "\n".join(
        [
            "# PPI++ coverage with a known truth",
            "",
            "Generated by `benchmarks/ppi_coverage.py`: two groups, A calibrated; 95% intervals",
            "of Δ (B − A) against the population Δ; "
            f"{args.reps} replicates per n_L (Monte Carlo SE of a coverage near 0.95: {se:.3f});",
            "median widths. `ppi`: stratified PPI++ with cross-fitted calibration; `classical`:",
            "the same estimator at λ = 0.",
            "",
            "## B's scores squared (the beta calibration can repair them)",
            "",
            *squared,
            "",
            "## B's scores folded, s = |2p − 1| (the calibration model is wrong)",
            "",
            "No monotone map recovers p from s: P(y = 1 | s) = 1/2 at every score, and the",
            "cross-fitted predictions for B carry no information. The interval must stay",
            "valid through the rectifier alone; what little it gains over the classical one",
            "comes from group A's calibrated scores.",
            "",
            *misfit,
            "",
        ]
    )
    args.out.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
