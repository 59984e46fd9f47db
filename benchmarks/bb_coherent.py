"""``bb`` as one Dirichlet over each group's four cells, against the independent Beta(1, 1)
per rate it replaced: what moved on Ji et al.'s Table 2 (Δ accuracy, n_L = 10).

For each case, labeled sets of 10 drawn as the authors drew them
(``split_labeled(method="ji2020")``, seeds 0, 1, ...), the truth Δ on the whole split:

- ``coherent``: ``bayesfair.fit(model="bb")`` (exact Dirichlet draws; accuracy's prior
  Beta(2, 2) as the sum of two cells);
- ``per_rate``: each group's accuracy ``Beta(1 + x, 1 + n − x)`` on its own (the model
  before 0.4: ``fit(model="bb", prior=BetaPrior(1, 1, cells=False))``).

Per method: MAE ×100 of the posterior mean of Δ, coverage of the 95% HDI (± its binomial
SE) and the mean width ×100; the paired difference of the absolute errors. Written to
``docs/results/bb_coherent.md``. Run: ``python benchmarks/bb_coherent.py [n_sets]``.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import bayesfair as bf
from bayesfair.datasets import get_score_set, load_scores, split_labeled
from bayesfair.models.beta_binomial import BetaPrior
from bayesfair.stats import hdi

CASES = [
    ("adult-sex", "MLP"),
    ("adult-sex", "LR"),
    ("compas-race", "MLP"),
    ("compas-race", "LR"),
    ("german-age", "LR"),
    ("german-age", "MLP"),
    ("ricci-race", "MLP"),
]
DRAWS, CHAINS = 1000, 4
#: bb before 0.4 (Ji et al.'s form as written): every rate its own Beta(1, 1)
PER_RATE = BetaPrior(1.0, 1.0, cells=False)


def run_case(name: str, classifier: str, n_sets: int) -> pd.DataFrame:
    """One row per labeled set and method: error, covered, width of Δ accuracy."""
    spec = get_score_set(name)
    frame = load_scores(name, classifier)
    u, p = spec.unprivileged_group, spec.privileged_group
    correct = (frame["score"] >= 0.5).astype(int) == frame["label"]
    accuracy = correct.groupby(frame["group"]).mean()
    truth = accuracy[u] - accuracy[p]
    rows = []
    for r in range(n_sets):
        lab, _ = split_labeled(frame, 10, random_seed=r, method="ji2020")
        data = bf.AssessmentData(lab["score"], lab["label"], lab["group"], reference=p)
        d = {}
        for method, prior in (("coherent", BetaPrior()), ("per_rate", PER_RATE)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = bf.fit(
                    data,
                    "bb",
                    metrics=["accuracy"],
                    prior=prior,
                    draws=DRAWS,
                    chains=CHAINS,
                    random_seed=r,
                )
            d[method] = res.difference("accuracy", u, p).values.ravel()
        d_new, d_old = d["coherent"], d["per_rate"]
        for method, d in (("coherent", d_new), ("per_rate", d_old)):
            lo, hi = hdi(d, 0.95)
            rows.append(
                {
                    "case": f"{name} {classifier}",
                    "set": r,
                    "method": method,
                    "truth": truth,
                    "abs_error": abs(d.mean() - truth),
                    "covered": lo <= truth <= hi,
                    "width": hi - lo,
                }
            )
    return pd.DataFrame(rows)


def summary(runs: pd.DataFrame) -> pd.DataFrame:
    """Per case and method: MAE ×100, coverage ± SE, width ×100, and the paired
    difference of the absolute errors (coherent − per rate) ± its SE, ×100."""
    out = []
    for case, block in runs.groupby("case", sort=False):
        wide = block.pivot(index="set", columns="method", values="abs_error")
        diff = 100 * (wide["coherent"] - wide["per_rate"])
        paired = f"{diff.mean():+.1f} ± {diff.std(ddof=1) / np.sqrt(len(diff)):.1f}"
        for method, m in block.groupby("method"):
            cov = m["covered"].mean()
            out.append(
                {
                    "case": case,
                    "truth ×100": round(100 * m["truth"].iloc[0], 1),
                    "method": method,
                    "MAE ×100": round(100 * m["abs_error"].mean(), 1),
                    "coverage": f"{cov:.3f} ± {np.sqrt(cov * (1 - cov) / len(m)):.3f}",
                    "width ×100": round(100 * m["width"].mean(), 1),
                    "paired Δ MAE ×100": paired,
                }
            )
    return pd.DataFrame(out)


def main(n_sets: int = 200) -> None:
    runs = pd.concat([run_case(name, clf, n_sets) for name, clf in CASES], ignore_index=True)
    table = summary(runs)
    lines = [
        "# `bb` as one Dirichlet over the cells: what moved",
        "",
        f"Written by `benchmarks/bb_coherent.py` ({n_sets} labeled sets of 10 per case,",
        "drawn as Ji et al. drew them; Δ accuracy; its docstring has the design).",
        '`coherent` is `fit(model="bb")` since 0.4 (accuracy\'s prior Beta(2, 2), the sum',
        "of two cells of a Dirichlet(1, 1, 1, 1)); `per_rate` is each rate's own Beta(1, 1),",
        "the model before. The paired column is the coherent model's absolute error less",
        "the old one's, on the same labeled sets.",
        "",
        "| " + " | ".join(table.columns) + " |",
        "|" + "---|" * len(table.columns),
    ]
    lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in table.to_numpy()]
    out = Path(__file__).resolve().parents[1] / "docs" / "results" / "bb_coherent.md"
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
