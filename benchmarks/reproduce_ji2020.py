"""Reproduce Ji, Smyth & Steyvers (2020), Tables 2 and 3, on the bundled score files.

Table 2: MAE ×100 of Δ accuracy at n_L = 10; Table 3: MAE ×100 of Δ TPR at
n_L = 200; 100 labeled sets per cell in the paper. Every bundled
dataset–attribute pair (Adult race and sex, German age and sex, COMPAS-R race
and sex, Ricci race; the paper's Bank and COMPAS-VR rows have no bundled score
file) and four classifiers (MLP, LR, RF, NB). Ricci (40 rows) has no Table 3
row, as in the paper.

Labeled sets are drawn as the authors drew them
(``split_labeled(..., method="ji2020")``), the rest of the split is unlabeled,
the truth is Δ on the whole split, Δ = rate(unprivileged) − rate(privileged)
(:mod:`bayesfair.experiments`). BB is Beta(1, 1); BC is the paper's
hierarchical beta calibration with its priors, scores clipped to [0.01, 0.99].

Outputs (in ``--out``, default ``docs/results/``):

* ``ji2020_table2_runs.csv.gz``, ``ji2020_table3_runs.csv.gz`` — one row per run and
  method (written after every cell, so ``--resume`` continues a partial run);
* ``ji2020_table2_summary.csv``, ``ji2020_table3_summary.csv`` — MAE, its Monte
  Carlo SE, coverage and width per cell (:func:`bayesfair.experiments.mae_table`);
* ``ji2020_coverage_runs.csv.gz`` (with ``--coverage``) — Adult-sex MLP at
  n_L = 10, 20, 100, 500;
* ``ji2020_tables.md`` — our Freq / BB / BC next to the paper's.

Usage::

    python benchmarks/reproduce_ji2020.py                 # 100 runs, both tables
    python benchmarks/reproduce_ji2020.py --runs 30 --tables 3 --resume
    python benchmarks/reproduce_ji2020.py --coverage      # also the coverage table
    python benchmarks/reproduce_ji2020.py --fast          # a smoke run (minutes)
    python benchmarks/reproduce_ji2020.py --markdown-only # rebuild the Markdown

The full run costs about 5,600 BC fits: 0.3–2 s each on 2 shared cores, one
to three hours (50 + 30 runs took 35 + 29 min with the PyMC-compiled model
of commit e2a0053; the native log density is 2–4× faster). ``--runs 30``
takes about a third of the full run.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from bayesfair.experiments import mae_table, run_experiment, run_grid
from bayesfair.models.beta_binomial import BetaPrior

ROOT = Path(__file__).resolve().parents[1]
CLASSIFIERS = ("MLP", "LR", "RF", "NB")
PAIRS = (
    "adult-race",
    "adult-sex",
    "german-age",
    "german-sex",
    "compas-race",
    "compas-sex",
    "ricci-race",
)
PAPER_ROWS = {
    "adult-race": "Adult, Race",
    "adult-sex": "Adult, Gender",
    "german-age": "German, Age",
    "german-sex": "German, Gender",
    "compas-race": "Compas-R, Race",
    "compas-sex": "Compas-R, Gender",
    "ricci-race": "Ricci, Race",
}
NAN = float("nan")  # the paper's "—": Freq could not be estimated in some run

# Ji et al. 2020, Table 2: MAE ×100 of Δ accuracy, n_L = 10; per classifier (Freq, BB, BC).
PAPER_TABLE2 = {
    "adult-race": {
        "MLP": (16.5, 18.5, 3.9),
        "LR": (16.4, 18.7, 2.9),
        "RF": (16.5, 18.2, 3.2),
        "NB": (17.6, 18.9, 3.6),
    },
    "adult-sex": {
        "MLP": (19.7, 17.4, 5.1),
        "LR": (19.1, 16.1, 2.2),
        "RF": (17.7, 17.4, 4.8),
        "NB": (19.7, 16.2, 5.4),
    },
    "german-age": {
        "MLP": (34.6, 19.8, 5.0),
        "LR": (37.1, 21.2, 8.7),
        "RF": (33.6, 18.7, 8.2),
        "NB": (36.6, 20.4, 11.5),
    },
    "german-sex": {
        "MLP": (30.7, 21.6, 8.2),
        "LR": (25.6, 17.4, 6.3),
        "RF": (27.7, 19.3, 8.6),
        "NB": (30.0, 20.1, 6.5),
    },
    "compas-race": {
        "MLP": (31.5, 21.0, 4.2),
        "LR": (31.7, 20.4, 4.8),
        "RF": (29.3, 20.3, 2.4),
        "NB": (33.5, 23.2, 8.4),
    },
    "compas-sex": {
        "MLP": (33.7, 21.6, 5.0),
        "LR": (34.3, 21.9, 3.8),
        "RF": (36.3, 23.3, 4.4),
        "NB": (40.5, 25.5, 13.7),
    },
    "ricci-race": {
        "MLP": (23.5, 17.7, 14.6),
        "LR": (14.6, 14.6, 7.9),
        "RF": (6.3, 12.2, 2.1),
        "NB": (8.9, 13.1, 1.6),
    },
}

# Ji et al. 2020, Table 3: MAE ×100 of Δ TPR, n_L = 200 (no Ricci row).
PAPER_TABLE3 = {
    "adult-race": {
        "MLP": (NAN, 12.5, 5.8),
        "LR": (NAN, 14.7, 7.0),
        "RF": (NAN, 14.3, 4.6),
        "NB": (NAN, 14.6, 3.0),
    },
    "adult-sex": {
        "MLP": (16.3, 14.3, 4.3),
        "LR": (15.8, 14.0, 4.6),
        "RF": (16.1, 14.2, 7.3),
        "NB": (15.0, 13.4, 11.5),
    },
    "german-age": {
        "MLP": (4.7, 4.7, 3.0),
        "LR": (5.6, 5.4, 2.6),
        "RF": (5.1, 5.1, 3.1),
        "NB": (6.8, 6.5, 2.8),
    },
    "german-sex": {
        "MLP": (0.7, 1.0, 1.6),
        "LR": (3.3, 3.3, 2.1),
        "RF": (3.1, 3.2, 2.1),
        "NB": (4.8, 4.7, 2.2),
    },
    "compas-race": {
        "MLP": (NAN, 7.6, 2.5),
        "LR": (NAN, 7.9, 2.6),
        "RF": (NAN, 9.2, 2.1),
        "NB": (NAN, 4.5, 2.0),
    },
    "compas-sex": {
        "MLP": (10.0, 9.5, 1.9),
        "LR": (10.0, 9.4, 1.8),
        "RF": (11.3, 10.7, 2.6),
        "NB": (5.6, 5.5, 0.3),
    },
}

TABLES = {
    2: dict(metric="accuracy", n_labeled=10, paper=PAPER_TABLE2),
    3: dict(metric="tpr", n_labeled=200, paper=PAPER_TABLE3),
}
COVERAGE_N = (10, 20, 100, 500)
# The paper's BC: the expected gap of Eq. 1 (fit's default became the assessed gap).
#: The paper's models: BC for the expected gap (Eq. 1), BB with every rate its own
#: Beta(1, 1) (bb's default since 0.4 is one Dirichlet over each group's cells).
PAPER_BC = {
    "bc": {"estimand": "expected"},
    "bb": {"prior": BetaPrior(1.0, 1.0, cells=False)},
}


def _cells(table: int, pairs, classifiers):
    paper = TABLES[table]["paper"]
    return [(p, c) for p in pairs if p in paper for c in classifiers]


def run_table(table: int, args, out: Path) -> pd.DataFrame:
    """Run every cell of a table, appending each finished cell to the runs CSV."""
    spec = TABLES[table]
    path = out / f"ji2020_table{table}_runs.csv.gz"
    done = pd.read_csv(path) if (args.resume and path.exists()) else None
    frames = [] if done is None else [done]
    finished = set() if done is None else set(zip(done["dataset"], done["classifier"], strict=True))
    cells = _cells(table, args.pairs, args.classifiers)
    for i, (pair, clf) in enumerate(cells, 1):
        if (pair, clf) in finished:
            continue
        start = time.perf_counter()
        df = run_experiment(
            pair,
            clf,
            spec["metric"],
            spec["n_labeled"],
            n_runs=args.runs,
            methods=("freq", "bb", "bc"),
            method="ji2020",
            draws=args.draws,
            tune=args.tune,
            chains=args.chains,
            random_seed=args.seed,
            progressbar=args.progress,
            method_kwargs=PAPER_BC,
        )
        frames.append(df)
        pd.concat(frames, ignore_index=True).to_csv(path, index=False)
        bc = mae_table(df).set_index("method").loc["bc"]
        print(
            f"[Table {table}] {i}/{len(cells)} {pair} {clf}: BC MAE {bc['mae']:.1f} "
            f"± {bc['mae_se']:.1f} (paper {spec['paper'][pair][clf][2]}), "
            f"{time.perf_counter() - start:.0f} s",
            file=sys.stderr,
            flush=True,
        )
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def run_coverage(args, out: Path) -> pd.DataFrame:
    """Adult-sex MLP: coverage and width of BB and BC intervals vs n_L."""
    df = run_grid(
        "adult-sex",
        "MLP",
        "accuracy",
        n_labeled=COVERAGE_N,
        n_runs=args.runs,
        methods=("freq", "bb", "bc"),
        method="ji2020",
        draws=args.draws,
        tune=args.tune,
        chains=args.chains,
        random_seed=args.seed,
        progressbar=args.progress,
        method_kwargs=PAPER_BC,
    )
    df.to_csv(out / "ji2020_coverage_runs.csv.gz", index=False)
    return df


# --------------------------------------------------------------------------- Markdown
def _fmt(value: float, se: float | None = None, undefined: int = 0) -> str:
    if np.isnan(value):
        return "—"
    text = f"{value:.1f}" if se is None or np.isnan(se) else f"{value:.1f} ± {se:.1f}"
    return f"{text} †{undefined}" if undefined else text


def markdown_table(table: int, summary: pd.DataFrame) -> str:
    """Our Freq/BB/BC MAE (± Monte Carlo SE) next to the paper's, one row per cell."""
    spec = TABLES[table]
    paper = spec["paper"]
    lines = [
        f"### Table {table}: MAE ×100 of Δ {spec['metric']}, n_L = {spec['n_labeled']}",
        "",
        "| dataset, attribute | classifier | runs | truth Δ | Freq | BB | BC "
        "| paper Freq / BB / BC | BC coverage (width) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    s = summary.set_index(["dataset", "classifier", "method"])
    for pair, by_clf in paper.items():
        for clf, values in by_clf.items():
            if (pair, clf, "bc") not in s.index:
                continue
            rows = {m: s.loc[(pair, clf, m)] for m in ("freq", "bb", "bc")}
            ours = [_fmt(r["mae"], r["mae_se"], int(r["n_undefined"])) for r in rows.values()]
            theirs = " / ".join(_fmt(v) for v in values)
            bc = rows["bc"]
            lines.append(
                f"| {PAPER_ROWS[pair]} | {clf} | {int(bc['n_runs'])} | {bc['truth']:.1f} | "
                f"{' | '.join(ours)} | {theirs} | {bc['coverage']:.2f} ({bc['width']:.0f}) |"
            )
    lines += [
        "",
        "± is the Monte Carlo standard error of our MAE over the runs. †k: the frequency "
        "estimate was undefined (a group without labeled positives) in k runs; our Freq MAE "
        "averages the other runs, the paper prints “—”. Coverage: fraction of 95% "
        "equal-tailed posterior intervals containing the truth; width ×100.",
        "",
    ]
    return "\n".join(lines)


def markdown_coverage(df: pd.DataFrame) -> str:
    summary = mae_table(df)
    lines = [
        "### Coverage of 95% intervals, Adult-sex MLP, Δ accuracy",
        "",
        "| n_L | runs | Freq (Newcombe) coverage | BB coverage | BC coverage "
        "| Freq width | BB width | BC width | BB MAE | BC MAE |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    s = summary.set_index(["n_labeled", "method"])
    for n in sorted(summary["n_labeled"].unique()):
        f, b, c = (s.loc[(n, m)] for m in ("freq", "bb", "bc"))
        lines.append(
            f"| {n} | {int(c['n_runs'])} | {f['coverage']:.2f} | {b['coverage']:.2f} | "
            f"{c['coverage']:.2f} | {f['width']:.1f} | {b['width']:.1f} | {c['width']:.1f} | "
            f"{b['mae']:.1f} | {c['mae']:.1f} |"
        )
    lines += ["", "Widths and MAE ×100. Freq coverage counts defined intervals only.", ""]
    return "\n".join(lines)


def write_markdown(out: Path) -> Path:
    parts = [
        "# Ji et al. (2020) Tables 2 and 3: bayesfair vs the paper",
        "",
        "Generated by `benchmarks/reproduce_ji2020.py`; discussion in `docs/reproduction.md`.",
        "",
    ]
    for table in TABLES:
        path = out / f"ji2020_table{table}_runs.csv.gz"
        if path.exists():
            summary = mae_table(pd.read_csv(path))
            summary.to_csv(out / f"ji2020_table{table}_summary.csv", index=False)
            parts.append(markdown_table(table, summary))
    cov = out / "ji2020_coverage_runs.csv.gz"
    if cov.exists():
        parts.append(markdown_coverage(pd.read_csv(cov)))
    target = out / "ji2020_tables.md"
    target.write_text("\n".join(parts))
    return target


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=100, help="labeled sets per cell (100)")
    parser.add_argument("--tables", type=int, nargs="*", choices=(2, 3), default=[2, 3])
    parser.add_argument("--pairs", nargs="+", choices=PAIRS, default=list(PAIRS))
    parser.add_argument("--classifiers", nargs="+", choices=CLASSIFIERS, default=list(CLASSIFIERS))
    parser.add_argument("--draws", type=int, default=500)
    parser.add_argument("--tune", type=int, default=500)
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--seed", type=int, default=2020)
    parser.add_argument("--coverage", action="store_true", help="also the coverage table")
    parser.add_argument("--resume", action="store_true", help="skip cells already in the CSVs")
    parser.add_argument("--markdown-only", action="store_true", help="only rebuild the Markdown")
    parser.add_argument(
        "--fast", action="store_true", help="smoke run: 5 runs, 2 chains × 200 draws, to /tmp"
    )
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "results")
    parser.add_argument("--no-progress", dest="progress", action="store_false")
    args = parser.parse_args(argv)
    if args.fast:
        args.runs, args.draws, args.tune, args.chains = 5, 200, 200, 2
        if args.out == ROOT / "docs" / "results":
            args.out = Path("/tmp/bayesfair_ji2020_fast")
    args.out.mkdir(parents=True, exist_ok=True)
    if not args.markdown_only:
        start = time.perf_counter()
        for table in args.tables:
            run_table(table, args, args.out)
        if args.coverage:
            run_coverage(args, args.out)
        print(f"done in {time.perf_counter() - start:.0f} s", file=sys.stderr)
    print(f"wrote {write_markdown(args.out)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
