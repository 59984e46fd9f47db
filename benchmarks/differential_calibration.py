"""Groups that differ: coverage and width when one group's scores mean something else.

Design (:func:`bayesfair.datasets.simulate.differential_calibration`): a real classifier's scores
(the MLP of Ji et al. on UCI Adult, drawn with replacement), K groups at random with
equal shares, labels ``y ~ Bernoulli(s)`` (every group shares the identity map), except
in group ``g0``, whose scores mean something else:

* ``label_noise``: 12% of g0's labels flipped (map ``0.12 + 0.76 s``);
* ``slope2`` / ``slope05``: g0's scores are ``σ(k logit s)``, k = 2 (over-confident) or
  0.5 (under-confident): decisions, and so true gaps, unchanged;
* ``intercept``: g0's scores are ``σ(logit s − 1)``;
* ``shape``: g0's scores are ``s³`` (a map no beta map fits);
* ``alike``: no group distorted;
* ``newuser`` (``newuser:4:200``): not Adult's scores but a scikit-learn logistic
  regression trained on ``make_classification`` data (400,000 rows, 10 features, the
  first 100,000 for training), four race-like groups of shares 0.55 (g1), 0.20 (g0),
  0.15, 0.10, and 12% of g0's labels flipped (the classifier is about 9 points less
  accurate there): the case an auditor met, where the pooled model covered g0's
  accuracy gap once in 20 labeled sets. No oracle (the true P(y | x) is not a map of
  the score).

Each cell is (distortion, K, n_L) with 50,000 unlabeled rows. For every replicate the
gap ``g0 − g1`` of accuracy, TPR and FPR on the assessed rows (labeled and unlabeled,
true labels) is the truth; each method's 95% interval for it is recorded:

* ``default``: ``bf.fit(data)`` (``rbc`` with the strata's shifts);
* ``pooled``: ``rbc`` without shifts (``DiscrepancyPrior(shift=None)``, the default of 0.4);
* ``bc``: the hierarchical beta calibration of Ji et al.;
* ``bb``: independent Beta-binomial on the labeled rows;
* ``ppi``: PPI++ (``bf.frequentist.ppi_difference``), the gap of the expected rates;
* ``oracle``: every group's true map known: the labeled rows with their labels, the
  unlabeled ones' labels drawn from the true ``p`` (the narrowest honest interval);
* ``floor03``, ``learned`` (``--methods``): the shifts with a floor of 0.3, or none
  (τ learned from the labels alone), for the choice of the default's floor;
* ``share50``, ``share75`` (``--methods``): each group shares the pooled map without
  shifts with prior probability 0.5 or 0.75 (``ShiftPrior(share=...)``, a spike and
  slab per group), else has the default's shifts.
* ``local``, ``local05`` (``--methods``): τ learned (no floor, half-normal scale 1 or
  0.5) and each group's shifts scaled by a multiplier of its own, ``λ_g ~
  HalfCauchy(1)`` (``ShiftPrior(local=True)``, a local–global prior): a distorted group
  escapes the spread that the groups like the others set.
* ``fixed_floor`` (``--methods``): the floor of 0.5 whatever the number of groups (the
  default lowers it beyond four groups, ``ShiftPrior.for_groups``);
* ``tightc``, ``tightc_learned`` (``--methods``): the groups' map intercepts held
  together (``CalibrationPriors(sigma_c_sd=0.05)``), so that a group's own intercept
  comes from its shifts alone, with the default's shifts or τ learned alone.
* ``loose05_learned``, ``loose1_learned`` (``--methods``): the groups' slopes free to
  differ (``CalibrationPriors(sigma_a_sd=..., sigma_b_sd=...)``, 0.5 or 1 against 0.15),
  so that a distorted group's slope does not pull the others', with τ learned alone.

Figures per cell, method and metric: coverage with its Monte Carlo SE and a one-sided
95% Clopper–Pearson lower bound, mean width, mean absolute error of the point estimate.

Usage::

    python benchmarks/differential_calibration.py --reps 20 \
        --out benchmarks/results/differential_calibration.csv
    python benchmarks/differential_calibration.py --reps 2 --cells label_noise:4:200  # smoke
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
from bayesfair.models.calibration import CalibrationPriors, DiscrepancyPrior
from bayesfair.models.shift import ShiftPrior
from bayesfair.stats import hdi

ROOT = Path(__file__).resolve().parents[1]
METRICS = ("accuracy", "tpr", "fpr")
KINDS = {
    "alike": ("none", None),
    "label_noise": ("label_noise", 0.12),
    "slope2": ("slope", 2.0),
    "slope05": ("slope", 0.5),
    "intercept": ("intercept", 1.0),
    "shape": ("shape", 3.0),
}
DEFAULT_CELLS = [
    f"{kind}:{k}:{n}"
    for kind in ("alike", "label_noise", "slope2", "slope05")
    for k in (2, 4)
    for n in (200, 2000)
]
METHODS = ("default", "pooled", "bc", "bb", "ppi", "oracle")
#: Other spreads of the strata's shifts, measured for the choice of the default's floor.
VARIANTS = {
    "floor03": DiscrepancyPrior(shift=ShiftPrior(scale=1.0, floor=0.3)),
    "learned": DiscrepancyPrior(shift=ShiftPrior(scale=1.0, floor=0.0)),
    "share50": DiscrepancyPrior(shift=ShiftPrior(scale=1.0, floor=0.5, share=0.5)),
    "share75": DiscrepancyPrior(shift=ShiftPrior(scale=1.0, floor=0.5, share=0.75)),
    "local": DiscrepancyPrior(shift=ShiftPrior(scale=1.0, floor=0.0, local=True)),
    "local05": DiscrepancyPrior(shift=ShiftPrior(scale=0.5, floor=0.0, local=True)),
    "fixed_floor": DiscrepancyPrior(shift=ShiftPrior(scale_with_groups=False)),
}
#: Variants of the maps' own prior: the intercepts held together (their spread's scale
#: 0.05 against 0.75), with the default's shifts or τ learned alone.
TIGHT_INTERCEPTS = CalibrationPriors(sigma_c_sd=0.05)
#: Or the slopes free to differ (their spreads' scale 0.5 or 1 against 0.15), so that a
#: distorted group's slope does not pull the others', with τ learned alone.
MAP_VARIANTS = {
    "tightc": dict(prior=TIGHT_INTERCEPTS),
    "loose05_learned": dict(
        prior=CalibrationPriors(sigma_a_sd=0.5, sigma_b_sd=0.5), discrepancy=VARIANTS["learned"]
    ),
    "loose1_learned": dict(
        prior=CalibrationPriors(sigma_a_sd=1.0, sigma_b_sd=1.0), discrepancy=VARIANTS["learned"]
    ),
    "tightc_learned": dict(prior=TIGHT_INTERCEPTS, discrepancy=VARIANTS["learned"]),
}
FIT = dict(draws=500, tune=500, chains=2, progressbar=False)


def rates(frame: pd.DataFrame, metric: str) -> float:
    pred = frame["score"].to_numpy() >= 0.5
    pos = frame["label"].to_numpy() == 1
    if metric == "accuracy":
        return float((pred == pos).mean())
    if metric == "tpr":
        return float(pred[pos].mean())
    return float(pred[~pos].mean())


def oracle_draws(labeled, unlabeled, metric, group, rng, n_draws=2000) -> np.ndarray:
    """The gap's draws when every map is known: unlabeled labels ~ Bernoulli(p)."""
    out = np.empty(n_draws)
    parts = {}
    for g in (group, "g1"):
        lab, unl = labeled[labeled["group"] == g], unlabeled[unlabeled["group"] == g]
        pred_l = lab["score"].to_numpy() >= 0.5
        pos_l = lab["label"].to_numpy() == 1
        pred_u = unl["score"].to_numpy() >= 0.5
        p_u = unl["p"].to_numpy()
        parts[g] = (pred_l, pos_l, pred_u, p_u)
    for t in range(n_draws):
        value = []
        for g in (group, "g1"):
            pred_l, pos_l, pred_u, p_u = parts[g]
            pos_u = rng.random(p_u.size) < p_u
            pred = np.concatenate([pred_l, pred_u])
            pos = np.concatenate([pos_l, pos_u])
            if metric == "accuracy":
                value.append((pred == pos).mean())
            elif metric == "tpr":
                value.append(pred[pos].mean())
            else:
                value.append(pred[~pos].mean())
        out[t] = value[0] - value[1]
    return out


def interval(draws) -> tuple[float, float, float]:
    d = np.asarray(draws, dtype=float).ravel()
    d = d[np.isfinite(d)]
    lo, hi = hdi(d, 0.95)
    return float(np.mean(d)), float(lo), float(hi)


_NEW_USER: dict = {}


def new_user_case(n_labeled: int, seed: int, flip: float = 0.12):
    """The logistic-regression case (module docstring): labeled and unlabeled frames."""
    from sklearn.datasets import make_classification
    from sklearn.linear_model import LogisticRegression

    if not _NEW_USER:  # the data and the classifier are fixed; groups and flips are seeded
        x, y = make_classification(
            n_samples=400_000,
            n_features=10,
            n_informative=5,
            n_redundant=2,
            flip_y=0.03,
            class_sep=0.9,
            weights=[0.65, 0.35],
            random_state=0,
        )
        _NEW_USER["x"], _NEW_USER["y"] = x, y
    x, y = _NEW_USER["x"], _NEW_USER["y"]
    rng = np.random.default_rng(seed)
    n = y.size
    group = np.array(["g1", "g0", "g2", "g3"])[rng.choice(4, size=n, p=[0.55, 0.2, 0.15, 0.10])]
    noisy = (group == "g0") & (rng.random(n) < flip)
    y = np.where(noisy, 1 - y, y)
    train = np.arange(n) < 100_000
    score = LogisticRegression(max_iter=1000).fit(x[train], y[train]).predict_proba(x)[:, 1]
    frame = pd.DataFrame({"score": score, "label": y, "group": group, "p": np.nan})[~train]
    assessed = frame.sample(n_labeled + 50_000, random_state=seed).reset_index(drop=True)
    return assessed.iloc[:n_labeled], assessed.iloc[n_labeled:]


def run_cell(cell: str, reps: int, seed0: int, methods=METHODS) -> list[dict]:
    kind, k, n_l = cell.split(":")
    k, n_l = int(k), int(n_l)
    rows = []
    for rep in range(reps):
        seed = seed0 + rep
        if kind == "newuser":
            labeled, unlabeled = new_user_case(n_l, seed)
        else:
            dist, amount = KINDS[kind]
            labeled, unlabeled = differential_calibration(
                k, n_l, 50_000, kind=dist, amount=amount, random_seed=seed
            )
        assessed = pd.concat([labeled, unlabeled])
        truth = {
            m: rates(assessed[assessed.group == "g0"], m)
            - rates(assessed[assessed.group == "g1"], m)
            for m in METRICS
        }
        data = bf.AssessmentData.from_frames(
            labeled.drop(columns="p"),
            unlabeled.drop(columns=["label", "p"]),
            score="score",
            label="label",
            group="group",
        )
        fits = {
            "default": dict(),
            "pooled": dict(discrepancy=DiscrepancyPrior(shift=None)),
            "bc": dict(model="bc"),
            "bb": dict(model="bb"),
            **{name: dict(discrepancy=prior) for name, prior in VARIANTS.items()},
            **MAP_VARIANTS,
        }
        for method, kw in fits.items():
            if method not in methods:
                continue
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = bf.fit(data, metrics=list(METRICS), random_seed=seed, **FIT, **kw)
            sec = time.perf_counter() - t0
            for m in METRICS:
                est, lo, hi = interval(res.difference(m, group="g0", reference="g1").values)
                rows.append(_row(cell, rep, method, m, est, lo, hi, truth[m], sec))
        rng = np.random.default_rng(seed)
        for m in METRICS if "ppi" in methods else ():
            t0 = time.perf_counter()
            try:
                pp = bf.frequentist.ppi_difference(
                    data, metric=m, group="g0", reference="g1", random_seed=seed
                )
                est, (lo, hi) = pp.estimate, pp.interval
            except Exception:  # a group without labels in the rate's denominator
                est, lo, hi = np.nan, np.nan, np.nan
            rows.append(_row(cell, rep, "ppi", m, est, lo, hi, truth[m], time.perf_counter() - t0))
        for m in METRICS if "oracle" in methods and kind != "newuser" else ():
            t0 = time.perf_counter()
            est, lo, hi = interval(oracle_draws(labeled, unlabeled, m, "g0", rng, 1000))
            rows.append(
                _row(cell, rep, "oracle", m, est, lo, hi, truth[m], time.perf_counter() - t0)
            )
    return rows


def _row(cell, rep, method, metric, est, lo, hi, truth, sec) -> dict:
    return dict(
        cell=cell,
        rep=rep,
        method=method,
        metric=metric,
        estimate=est,
        lower=lo,
        upper=hi,
        truth=truth,
        covered=bool(lo <= truth <= hi) if np.isfinite(lo) else np.nan,
        width=hi - lo,
        abs_error=abs(est - truth),
        seconds=sec,
    )


def table(runs: pd.DataFrame) -> pd.DataFrame:
    """Coverage (SE, one-sided 95% Clopper–Pearson lower bound), mean width, MAE."""

    def one(d):
        c = d["covered"].dropna().astype(bool)
        n, x = c.size, int(c.sum())
        lower = beta_dist.ppf(0.05, x, n - x + 1) if x > 0 else 0.0
        return pd.Series(
            dict(
                reps=n,
                coverage=x / n if n else np.nan,
                se=np.sqrt((x / n) * (1 - x / n) / n) if n else np.nan,
                cp_lower=lower,
                width=d["width"].mean(),
                mae=d["abs_error"].mean(),
            )
        )

    return runs.groupby(["cell", "metric", "method"]).apply(one).reset_index()


def report(runs: pd.DataFrame, path: Path) -> None:
    """``docs/results/differential_calibration.md`` from the runs: coverage and width by cell."""
    t = table(runs)
    lines = [
        "# Groups that differ: coverage and width",
        "",
        "Written by `benchmarks/differential_calibration.py` (its docstring has the design):",
        "real Adult MLP scores, K groups at random, group g0 calibrated differently; the 95%",
        "interval of the gap g0 − g1 on the assessed rows, per method. `default` is `rbc`",
        "with the strata's shifts (0.4), `pooled` the same model without them (the default",
        "before), `bc` Ji et al.'s model, `bb` the labeled rows alone, `ppi` PPI++, `oracle`",
        "every group's true map known. Coverage ± its Monte Carlo SE (`cp` the one-sided 95%",
        "Clopper–Pearson lower bound); width the mean width; MAE the mean absolute error.",
        "",
    ]
    for cell, part in t.groupby("cell", sort=False):
        reps = int(part["reps"].max())
        lines += [f"## {cell} ({reps} data sets)", ""]
        lines += ["| metric | method | coverage | cp | width | MAE |", "|---|---|---|---|---|---|"]
        for _, r in part.iterrows():
            lines.append(
                f"| {r.metric} | {r.method} | {r.coverage:.2f} ± {r.se:.2f} | {r.cp_lower:.2f} "
                f"| {r.width:.3f} | {r.mae:.3f} |"
            )
        lines.append("")
    summary = _summary(t)
    lines += [
        "## Summary",
        "",
        "Over the distorted cells and metrics each method ran on (`cells` counts its",
        "cells, alike ones included): mean and worst coverage, and the mean width per",
        "cell against `bb`'s there; over the alike cells, the width against the pooled",
        "model's.",
        _same_data_sentence(runs),
        "",
        "| " + " | ".join(summary.columns) + " |",
    ]
    lines.append("|" + "---|" * summary.shape[1])
    for _, r in summary.iterrows():
        cells = [f"{v:.2f}" if isinstance(v, float) else str(v) for v in r]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    path.write_text("\n".join(lines))


def _same_data_sentence(runs: pd.DataFrame) -> str:
    """Whether every method ran on the same data sets: the same truth in each cell,
    replicate and metric (read from the runs, not assumed)."""
    spread = runs.groupby(["cell", "rep", "metric"])["truth"].agg(lambda v: v.max() - v.min())
    if (spread <= 1e-12).all():
        return (
            "Every method ran on the same data sets (the same truth in every cell, "
            "replicate and metric), so their differences are paired."
        )
    return "The methods did not all run on the same data sets: compare them with care."


def _summary(t: pd.DataFrame) -> pd.DataFrame:
    """Per method: mean and worst coverage over the distorted cells and metrics; the width
    against bb's there, and against the pooled model's where the groups are alike."""
    alike = t["cell"].str.startswith("alike")
    width = t.pivot_table(index=["cell", "metric"], columns="method", values="width")
    rows = []
    for method in t["method"].unique():
        d = t[(t["method"] == method) & ~alike]
        row = dict(
            method=method,
            cells=t.loc[t["method"] == method, "cell"].nunique(),
            mean_coverage=d["coverage"].mean(),
            worst=d["coverage"].min(),
        )
        w = width[method]
        is_alike = w.index.get_level_values("cell").str.startswith("alike")
        if "bb" in width:
            row["width_vs_bb_distorted"] = (w / width["bb"])[~is_alike].mean()
        if "pooled" in width:
            row["width_vs_pooled_alike"] = (w / width["pooled"])[is_alike].mean()
        rows.append(row)
    return pd.DataFrame(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--cells", nargs="*", default=DEFAULT_CELLS)
    ap.add_argument("--methods", nargs="*", default=list(METHODS))
    ap.add_argument(
        "--report", nargs="*", help="CSV files of earlier runs: write the results page only"
    )
    ap.add_argument("--out", default=str(ROOT / "benchmarks/results/differential_calibration.csv"))
    a = ap.parse_args()
    page = ROOT / "docs/results/differential_calibration.md"
    if a.report:
        report(pd.concat([pd.read_csv(f) for f in a.report]), page)
        return
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    rows = []
    for cell in a.cells:
        t0 = time.perf_counter()
        rows += run_cell(cell, a.reps, a.seed, a.methods)
        pd.DataFrame(rows).to_csv(out, index=False)
        print(f"{cell}: {time.perf_counter() - t0:.0f} s", flush=True)
    print(table(pd.DataFrame(rows)).round(3).to_string(index=False))
    report(pd.DataFrame(rows), page)


if __name__ == "__main__":
    main()
