"""Groups known as a proxy's probabilities: the default against weighting, bounds, BB, oracle.

Design: :func:`bayesfair.datasets.simulate.proxy_audit`: real (score, label, race)
triples of the Adult MLP of Ji et al. (2020), each group equally often, a place and a
name per row drawn from its group's shares, and a BISG proxy built from the
population's tables (calibrated, as BISG is where its tables are true). Cells vary

* ``K`` (groups: Adult's largest races; 6: three races by sex),
* ``informativeness`` of the proxy (``medium``: Dirichlet 0.5, ``low``: 2.0; ``census``:
  a first-name-and-ZCTA proxy built from census tables with the national shares as its
  prior, :func:`bayesfair.datasets.proxies.census_proxy_audit`),
* the ``link`` between proxy and outcome within a group (0, or 1.5: positives' places
  tilted by ``exp(1.5 v)``),
* ``n_self``: rows with a self-reported group, the first labeled ones.

1,000 labeled rows (``n_self`` when larger) and 20,000 unlabeled ones; every row not
self-reported has only the proxy. Per data set (seed = ``--seed + rep``, the same in
every cell), on each pair (each group against White) and metric (selection rate,
TPR, FPR, accuracy), against the truth over every row (labeled and unlabeled) by its
true group:

* ``default``: ``bf.fit(data)`` (``rbc`` with latent groups), its 95% HDI;
* ``weighted``: :func:`bayesfair.frequentist.proxy_weighted_difference`, its 95%
  percentile bootstrap interval;
* ``bounds``: :func:`bayesfair.frequentist.proxy_bounds`, widened at 95% (the
  estimate column holds the identified set's midpoint);
* ``bb``: ``bf.fit(data, model="bb")``, the self-reported labeled rows alone;
* ``oracle``: ``bf.fit`` on the same rows with every row's true group known.

Fits: ``draws=500, tune=500, chains=2``. The CSV has one row per (cell, rep, method,
metric, group) and is rewritten after every replicate; ``--resume`` skips done ones.

Usage::

    python benchmarks/proxy_groups.py --reps 20
    python benchmarks/proxy_groups.py --reps 1 --cells 2:medium:0:500     # smoke
    python benchmarks/proxy_groups.py --report
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
from bayesfair.datasets.proxies import census_proxy_audit
from bayesfair.datasets.simulate import proxy_audit
from bayesfair.frequentist import proxy_bounds, proxy_weighted_difference

ROOT = Path(__file__).resolve().parents[1]
CSV = ROOT / "benchmarks/results/proxy_groups.csv.gz"
PAGE = ROOT / "docs/results/proxy_groups.md"
METRICS = ("selection_rate", "tpr", "fpr", "accuracy")
FIT = dict(draws=500, tune=500, chains=2, progressbar=False)
N_LABELED, N_UNLABELED = 1000, 20_000
LINK = 1.5
#: The cells of the criteria (n_self >= 500), then the others.
CELLS = [
    f"{k}:{inf}:{link}:{n}"
    for k in (2, 4)
    for inf in ("medium", "low")
    for link in (0, LINK)
    for n in (500, 2000)
] + ["2:medium:1.5:200", "3:medium:1.5:5000", "6:medium:1.5:2000", "6:low:0:2000"]
#: Proxies built from census first-name and ZCTA tables (BIFG with national shares).
CENSUS_CELLS = [f"{k}:census:{link}:{n}" for k in (2, 4) for link in (0, LINK) for n in (500, 2000)]
CELLS += CENSUS_CELLS
BAR_MEAN, BAR_CELL = 0.90, 0.80


def parse(cell: str):
    k, inf, link, n = cell.split(":")
    return int(k), inf, float(link), int(n)


def make(cell: str, seed: int):
    k, inf, link, n_self = parse(cell)
    sizes = (k, max(N_LABELED, min(n_self, 2000)), N_UNLABELED, n_self)
    if inf == "census":
        audit = census_proxy_audit(*sizes, link=link, random_seed=seed)
    else:
        audit = proxy_audit(*sizes, informativeness=inf, link=link, random_seed=seed)
    data = audit.assessment_data()
    return audit, data


def _oracle(audit):
    lab = audit.labeled.assign(group=audit.labeled["true_group"])
    unl = audit.unlabeled.assign(group=audit.unlabeled["true_group"])
    return bf.AssessmentData.from_frames(
        lab[["score", "label", "group"]],
        unl[["score", "group"]],
        score="score",
        label="label",
        group="group",
        reference=next(iter(audit.group_probabilities)),
    )


def _posterior_rows(res, truth, ref, base: dict, method: str, sec: float) -> list[dict]:
    summ = res.summary(list(METRICS), reference=ref).set_index(["metric", "group"])
    out = []
    for (m, g), r in summ.iterrows():
        out.append(
            base
            | dict(method=method, metric=m, group=g, estimate=float(r["mean"]))
            | dict(lower=float(r["hdi_lower"]), upper=float(r["hdi_upper"]))
            | dict(truth=truth[m][g] - truth[m][ref], seconds=sec)
        )
    return out


def run_replicate(cell: str, rep: int, seed0: int) -> list[dict]:
    seed = seed0 + rep
    audit, data = make(cell, seed)
    groups = list(audit.group_probabilities)
    ref = groups[0]
    truth = {m: audit.truth(m) for m in METRICS}
    base = dict(cell=cell, rep=rep, seed=seed)
    rows = []
    fits = (("default", data, {}), ("bb", data, {"model": "bb"}), ("oracle", _oracle(audit), {}))
    for method, d, kw in fits:
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = bf.fit(d, metrics=list(METRICS), random_seed=seed, **FIT, **kw)
        rows += _posterior_rows(res, truth, ref, base, method, time.perf_counter() - t0)
    for m in METRICS:
        for g in groups[1:]:
            t = truth[m][g] - truth[m][ref]
            w = proxy_weighted_difference(data, m, group=g, reference=ref, random_seed=seed)
            rows.append(
                base
                | dict(method="weighted", metric=m, group=g, estimate=w.estimate)
                | dict(lower=w.interval.lower, upper=w.interval.upper, truth=t, seconds=0.0)
            )
            b = proxy_bounds(data, m, group=g, reference=ref, random_seed=seed)
            rows.append(
                base
                | dict(method="bounds", metric=m, group=g, estimate=float(np.mean(b.identified)))
                | dict(lower=b.interval.lower, upper=b.interval.upper, truth=t, seconds=0.0)
            )
    for r in rows:
        ok = np.isfinite(r["lower"]) and np.isfinite(r["upper"])
        r["covered"] = bool(r["lower"] <= r["truth"] <= r["upper"]) if ok else np.nan
        r["width"] = r["upper"] - r["lower"]
        r["abs_error"] = abs(r["estimate"] - r["truth"])
    return rows


def clopper_pearson(x: int, n: int, level: float = 0.95) -> tuple[float, float]:
    a = (1 - level) / 2
    lo = beta_dist.ppf(a, x, n - x + 1) if x > 0 else 0.0
    hi = beta_dist.ppf(1 - a, x + 1, n - x) if x < n else 1.0
    return float(lo), float(hi)


def table(runs: pd.DataFrame) -> pd.DataFrame:
    def one(d):
        c = d["covered"].dropna()
        lo, hi = clopper_pearson(int(c.sum()), len(c))
        return pd.Series(
            dict(
                n=len(c),
                coverage=c.mean(),
                cp_lower=lo,
                cp_upper=hi,
                mae=d["abs_error"].mean(),
                width=d["width"].mean(),
            )
        )

    return runs.groupby(["cell", "metric", "method"]).apply(one, include_groups=False)


def report(runs: pd.DataFrame, path: Path = PAGE) -> None:
    t = table(runs).reset_index()
    lines = [
        "# Groups known as a proxy's probabilities: the default beside weighting, bounds, "
        "BB and an oracle",
        "",
        "Made by `benchmarks/proxy_groups.py` (its docstring gives the design) from "
        "`benchmarks/results/proxy_groups.csv.gz`. A cell is `K:informativeness:link:n_self`. "
        "Coverage of the 95% interval each method reports, with its two-sided 95% "
        "Clopper–Pearson interval, over every pair and data set of the cell; MAE of the "
        "estimate (for the bounds, the identified set's midpoint); mean width.",
        "",
    ]
    crit = t[t["cell"].map(lambda c: parse(c)[3] >= 500)]
    default = crit[crit["method"] == "default"]
    lines += [
        "## The bars (cells with at least 500 self-reported rows)",
        "",
        f"- default coverage, mean over cells and metrics: {default['coverage'].mean():.3f} "
        f"(bar {BAR_MEAN}); lowest cell × metric: {default['coverage'].min():.3f} "
        f"(bar {BAR_CELL}).",
    ]
    for link in (0.0, LINK):
        part = crit[[parse(c)[2] == link for c in crit["cell"]]]
        piv = part.pivot_table(index="metric", columns="method", values="mae")
        width = part.pivot_table(index="metric", columns="method", values="width")
        lines.append(
            f"- link {link:g}: MAE default / weighted by metric: "
            + ", ".join(
                f"{m} {piv.loc[m, 'default'] / piv.loc[m, 'weighted']:.2f}" for m in piv.index
            )
        )
        lines.append(
            f"- link {link:g}: width default / BB by metric: "
            + ", ".join(
                f"{m} {width.loc[m, 'default'] / width.loc[m, 'bb']:.2f}" for m in width.index
            )
            + "; default / bounds: "
            + ", ".join(
                f"{m} {width.loc[m, 'default'] / width.loc[m, 'bounds']:.2f}" for m in width.index
            )
        )
    overall = t.groupby("method")[["coverage", "mae", "width"]].mean()
    lines += ["", "## Each method over every cell (mean of the cells × metrics)", ""]
    lines += ["| method | coverage | MAE | width |", "|---|---|---|---|"]
    for method, r in overall.iterrows():
        lines.append(f"| {method} | {r['coverage']:.3f} | {r['mae']:.4f} | {r['width']:.4f} |")
    cover = t.pivot_table(index="cell", columns="method", values="coverage").round(3)
    lines += ["", "## Coverage per cell (mean over its metrics)", ""]
    lines.append("| cell | " + " | ".join(cover.columns) + " |")
    lines.append("|---" * (len(cover.columns) + 1) + "|")
    for cell, r in cover.iterrows():
        lines.append(f"| {cell} | " + " | ".join(f"{v:.3f}" for v in r) + " |")
    lines += ["", "## Every cell", ""]
    lines.append("| cell | metric | method | n | coverage | CP 95% | MAE | width |")
    lines.append("|---|---|---|---|---|---|---|---|")
    for _, r in t.iterrows():
        lines.append(
            f"| {r['cell']} | {r['metric']} | {r['method']} | {int(r['n'])} | {r['coverage']:.3f} "
            f"| [{r['cp_lower']:.2f}, {r['cp_upper']:.2f}] | {r['mae']:.4f} | {r['width']:.4f} |"
        )
    path.write_text("\n".join(lines) + "\n")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--cells", nargs="*", default=CELLS)
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--report", action="store_true")
    parser.add_argument("--csv", type=Path, default=CSV)
    args = parser.parse_args(argv)
    if args.report:
        report(pd.read_csv(args.csv))
        return
    runs = pd.read_csv(args.csv) if args.resume and args.csv.exists() else pd.DataFrame()
    done = set() if runs.empty else set(zip(runs["cell"], runs["rep"], strict=True))
    for cell in args.cells:
        for rep in range(args.reps):
            if (cell, rep) in done:
                continue
            t0 = time.perf_counter()
            rows = pd.DataFrame(run_replicate(cell, rep, args.seed))
            runs = pd.concat([runs, rows], ignore_index=True)
            runs.to_csv(args.csv, index=False)
            print(f"{cell} rep {rep}: {time.perf_counter() - t0:.0f} s", flush=True)
    report(runs)


if __name__ == "__main__":
    main()
