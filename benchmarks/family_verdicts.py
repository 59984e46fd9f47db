"""False findings when nothing differs, and the worse group found when one does.

Design (:func:`bayesfair.datasets.simulate.differential_calibration`): a real
classifier's scores (the MLP of Ji et al. 2020 on UCI Adult), four groups of equal
shares, 200 labeled and 50,000 unlabeled rows, ``bayesfair.compare`` with its defaults
(BB and RBC, accuracy, TPR and FPR, ε = 0.02, 95%), as ``bayesfair assess`` runs it.

* ``alike``: every group shares the classifier's calibration (labels ~ Bernoulli(s)):
  no true gap beyond the chance of the assessed rows. Counted per audit: any
  "unfair" the report prints (the pair verdicts; the group, family and calibration
  views' verdicts, each of the method the report rests on), with a one-sided 95%
  Clopper–Pearson upper bound; beside it the same count for the pairs' own 95% HDIs
  (each pair's interval alone, the rule before the verdicts were held as a family), and
  for every method's own verdict that the tables keep as data (BB's and the labeled
  rows' beside the model's), from the same fits.
* ``worse``: 10% of g0's labels flipped (its accuracy about 7 points lower, every
  other group alike). Counted per audit: whether the group view names g0 the
  worst-off in accuracy (highest ``P(worst)``), whether an accuracy verdict of a pair
  with g0 is "unfair", whether a pair of two alike groups is called "unfair".

Usage::

    python benchmarks/family_verdicts.py --audits 200          # both designs
    python benchmarks/family_verdicts.py --audits 2 --designs alike  # smoke
    python benchmarks/family_verdicts.py --markdown-only

Writes ``benchmarks/results/family_verdicts.csv`` (one row per audit, appended as it
goes; ``--resume`` continues) and ``docs/results/family_verdicts.md``.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import beta as beta_dist

import bayesfair as bf
from bayesfair.datasets.simulate import differential_calibration

ROOT = Path(__file__).resolve().parents[1]
CSV = ROOT / "benchmarks/results/family_verdicts.csv"
MARKDOWN = ROOT / "docs/results/family_verdicts.md"
DESIGNS = {"alike": ("none", None), "worse": ("label_noise", 0.10)}
N_LABELED, N_UNLABELED, K = 200, 50_000, 4


def audit(design: str, seed: int) -> dict:
    """One audit of one data set: what the report says."""
    kind, amount = DESIGNS[design]
    labeled, unlabeled = differential_calibration(
        K, N_LABELED, N_UNLABELED, kind=kind, amount=amount, random_seed=seed
    )
    data = bf.AssessmentData.from_frames(
        labeled.drop(columns="p"),
        unlabeled.drop(columns=["label", "p"]),
        score="score",
        label="label",
        group="group",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comp = bf.compare(data, random_seed=seed, progressbar=False)
    v, gv, cv = comp.verdicts, comp.group_view, comp.calibration_view
    view, calibrated = comp.view_method, comp.settings["calibration_model"] or "freq"
    # the verdicts the report prints: one per quantity, of the method it rests on
    views = {
        "group_view": gv[f"{view}_decision"],
        "family_view": comp.family_view[f"{view}_decision"],
        "calibration_view": cv[f"{calibrated}_decision"],
    }
    # every method's own verdict, kept in the tables as data (comparators included)
    every = [gv.filter(like="decision"), comp.family_view.filter(like="decision")]
    every.append(cv.filter(like="decision"))
    method = v["method"].iloc[0]
    accuracy = gv[gv["metric"] == "accuracy"]
    worst = accuracy.loc[accuracy[f"{comp.view_method}_prob_worst"].idxmax(), "group"]
    g0 = v[(v["metric"] == "accuracy") & ((v["group"] == "g0") | (v["reference"] == "g0"))]
    others = v[(v["group"] != "g0") & (v["reference"] != "g0")]
    return {
        "design": design,
        "seed": seed,
        "reference": data.reference,
        "method": method,
        "pairs_unfair": int((v["verdict"] == "unfair").sum()),
        "pairs_unfair_own_hdi": int((comp.pairs[f"{method}_decision"] == "unfair").sum()),
        **{f"{k}_unfair": int((t == "unfair").to_numpy().sum()) for k, t in views.items()},
        "any_method_unfair": int(sum((t == "unfair").to_numpy().sum() for t in every)),
        "misfits": int((comp.calibration["verdict"] == "misfit").sum()),
        "worst_named": str(worst),
        "g0_accuracy_unfair": bool((g0["verdict"] == "unfair").any()),
        "others_unfair": int((others["verdict"] == "unfair").sum()),
        "g0_group_view_unfair": bool(
            (accuracy.loc[accuracy["group"] == "g0", f"{comp.view_method}_decision"] == "unfair")
            .to_numpy()
            .any()
        ),
    }


def upper_bound(hits: int, n: int, level: float = 0.95) -> float:
    """One-sided Clopper–Pearson upper bound of a proportion."""
    return 1.0 if hits >= n else float(beta_dist.ppf(level, hits + 1, n - hits))


def lower_bound(hits: int, n: int, level: float = 0.95) -> float:
    """One-sided Clopper–Pearson lower bound of a proportion."""
    return 0.0 if hits <= 0 else float(beta_dist.ppf(1 - level, hits, n - hits + 1))


def markdown(runs: pd.DataFrame) -> str:
    lines = [
        "# False findings when nothing differs, and the worse group found",
        "",
        "Written by `benchmarks/family_verdicts.py` (its docstring has the design): four",
        "groups, 200 labeled and 50,000 unlabeled rows of a real classifier's scores,",
        "`bayesfair.compare` with its defaults (BB and RBC; accuracy, TPR, FPR; ε = 0.02).",
        "Shares with a one-sided 95% Clopper–Pearson bound.",
        "",
    ]
    alike = runs[runs["design"] == "alike"]
    if len(alike):
        n = len(alike)
        report = (
            alike[["pairs_unfair", "group_view_unfair", "family_view_unfair"]]
            .add(alike["calibration_view_unfair"], axis=0)
            .sum(axis=1)
            > 0
        )
        rows = [
            ("any 'unfair' anywhere in the report", int(report.sum())),
            ("an 'unfair' pair verdict (family band)", int((alike["pairs_unfair"] > 0).sum())),
            (
                "an 'unfair' pair by its own 95% HDI (before)",
                int((alike["pairs_unfair_own_hdi"] > 0).sum()),
            ),
            ("an 'unfair' in the group view", int((alike["group_view_unfair"] > 0).sum())),
            ("an 'unfair' in the family view", int((alike["family_view_unfair"] > 0).sum())),
            (
                "an 'unfair' in the calibration view",
                int((alike["calibration_view_unfair"] > 0).sum()),
            ),
            (
                "an 'unfair' of any method in the tables (comparators' own rules, not printed)",
                int((alike["any_method_unfair"] > 0).sum()),
            ),
            ("a calibration-check misfit", int((alike["misfits"] > 0).sum())),
        ]
        lines += [
            f"## Groups alike ({n} audits)",
            "",
            "| audits with … | count | share | 95% upper bound |",
            "|---|---|---|---|",
            *(f"| {what} | {c} | {c / n:.3f} | {upper_bound(c, n):.3f} |" for what, c in rows),
            "",
        ]
    worse = runs[runs["design"] == "worse"]
    if len(worse):
        n = len(worse)
        rows = [
            ("g0 named worst-off in accuracy (highest P(worst))", (worse["worst_named"] == "g0")),
            ("an accuracy verdict of a pair with g0 'unfair'", worse["g0_accuracy_unfair"]),
            ("g0 'unfair' in the group view (accuracy)", worse["g0_group_view_unfair"]),
            ("any pair of two alike groups called 'unfair'", worse["others_unfair"] > 0),
        ]
        lines += [
            f"## One group worse: 10% of g0's labels flipped ({n} audits)",
            "",
            "| audits where … | count | share | 95% bounds |",
            "|---|---|---|---|",
        ]
        for what, hit in rows:
            c = int(hit.sum())
            lines.append(
                f"| {what} | {c} | {c / n:.3f} | "
                f"[{lower_bound(c, n):.3f}, {upper_bound(c, n):.3f}] |"
            )
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--audits", type=int, default=200)
    parser.add_argument("--designs", default="alike,worse")
    parser.add_argument("--seed0", type=int, default=20261128)
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--markdown-only", action="store_true")
    args = parser.parse_args()
    if not args.markdown_only:
        done = pd.read_csv(CSV) if args.resume and CSV.exists() else pd.DataFrame()
        if not args.resume and CSV.exists():
            CSV.unlink()
        for design in args.designs.split(","):
            for i in range(args.audits):
                seed = args.seed0 + i
                if len(done) and ((done["design"] == design) & (done["seed"] == seed)).any():
                    continue
                start = time.perf_counter()
                row = pd.DataFrame([audit(design, seed)])
                row.to_csv(CSV, mode="a", header=not CSV.exists(), index=False)
                print(
                    f"{design} {i + 1}/{args.audits} {time.perf_counter() - start:.1f} s",
                    flush=True,
                )
    MARKDOWN.write_text(markdown(pd.read_csv(CSV)) + "\n")
    print(MARKDOWN.read_text())


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
