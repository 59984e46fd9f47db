"""Two groups, one distorted: coverage of the default's gaps and of its calibration view.

Design: the data generator and the truth of ``benchmarks/differential_calibration.py``
(:func:`bayesfair.datasets.simulate.differential_calibration`): real Adult MLP scores
drawn with replacement, two groups (k = 2) at random with equal shares, labels
``y ~ Bernoulli(s)``, except in group ``g0``:

* ``label_noise``: 12% of g0's labels flipped (map ``0.12 + 0.76 s``);
* ``slope2``: g0's scores over-confident, ``σ(2 logit s)`` (decisions, and so the true
  gaps, unchanged);

with 50,000 unlabeled rows and n_labeled in {200, 500, 1000}: six cells, ``--reps``
data sets each (seed ``--seed + rep``, the same seeds in every cell, as in
``differential_calibration.py``).

Per data set, two fits (``draws=500, tune=500, chains=2``, seed = the data set's):

* ``default``: ``bf.fit(data)`` (model ``"rbc"``);
* ``bb``: ``bf.fit(data, model="bb")``, the labeled rows alone.

Recorded, against the truth on the assessed rows (labeled and unlabeled, true labels):

* the gap ``g0 − g1`` of accuracy, TPR and FPR: the 95% HDI that ``res.summary``
  reports (``hdi_lower``, ``hdi_upper``, ``reference="g1"``), covers the truth?, its
  width, the absolute error of its mean;
* the calibration view of the default fit (``res.calibration_summary()``), per group:
  the share of positives (``positive_rate`` and its HDI) against the true share of
  positives among the group's assessed rows, and the calibration gap (mean score −
  share of positives; the interval reported, a band simultaneous over the two groups)
  against its truth (the mean raw score of the group's assessed rows − the true
  share). Also, for context, the plain 95% HDI of the gap's draws
  (method ``default_hdi``).

The CSV has one row per (cell, replicate, method, quantity, group) and is rewritten
after every replicate; ``--resume`` skips the replicates already in it.

Usage::

    python benchmarks/two_groups.py --reps 20
    python benchmarks/two_groups.py --reps 1 --cells label_noise:200   # smoke
    python benchmarks/two_groups.py --reps 20 --resume
    python benchmarks/two_groups.py --report   # the results page from the CSV only
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import beta as beta_dist

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from differential_calibration import FIT, KINDS, METRICS, rates  # noqa: E402

import bayesfair as bf  # noqa: E402
from bayesfair.datasets.simulate import differential_calibration  # noqa: E402
from bayesfair.posterior.calibration_view import calibration_gap  # noqa: E402
from bayesfair.stats import hdi  # noqa: E402

K = 2
N_UNLABELED = 50_000
CELLS = [f"{kind}:{n}" for kind in ("label_noise", "slope2") for n in (200, 500, 1000)]
#: The metrics fitted: the three gaps and the share of positives (the calibration view's).
FIT_METRICS = [*METRICS, "base_rate"]
CSV = ROOT / "benchmarks/results/two_groups.csv.gz"
PAGE = ROOT / "docs/results/two_groups.md"
#: The bars checked.
BAR_MEAN, BAR_CELL, BAR_CALIB = 0.90, 0.80, 0.90


def make_data(kind: str, n_l: int, seed: int):
    dist, amount = KINDS[kind]
    labeled, unlabeled = differential_calibration(
        K, n_l, N_UNLABELED, kind=dist, amount=amount, random_seed=seed
    )
    assessed = pd.concat([labeled, unlabeled])
    data = bf.AssessmentData.from_frames(
        labeled.drop(columns="p"),
        unlabeled.drop(columns=["label", "p"]),
        score="score",
        label="label",
        group="group",
    )
    return data, assessed


def _divergences(res) -> int:
    try:
        return int(np.asarray(res.idata.sample_stats["diverging"]).sum())
    except Exception:  # the exact sampler has none
        return 0


def _row(cell, rep, seed, method, quantity, group, est, lo, hi, truth, sec, **extra) -> dict:
    ok = np.isfinite(lo) and np.isfinite(hi)
    return dict(
        cell=cell,
        rep=rep,
        seed=seed,
        method=method,
        quantity=quantity,
        group=group,
        estimate=est,
        lower=lo,
        upper=hi,
        truth=truth,
        covered=bool(lo <= truth <= hi) if ok else np.nan,
        width=hi - lo,
        error=est - truth,
        abs_error=abs(est - truth),
        seconds=sec,
        **extra,
    )


def run_replicate(cell: str, rep: int, seed0: int) -> list[dict]:
    kind, n_l = cell.split(":")
    n_l = int(n_l)
    seed = seed0 + rep
    data, assessed = make_data(kind, n_l, seed)
    g0, g1 = assessed[assessed.group == "g0"], assessed[assessed.group == "g1"]
    truth = {m: rates(g0, m) - rates(g1, m) for m in METRICS}
    rows = []
    for method, kw in (("default", {}), ("bb", {"model": "bb"})):
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = bf.fit(data, metrics=FIT_METRICS, random_seed=seed, **FIT, **kw)
            sec = time.perf_counter() - t0
            summ = res.summary(list(METRICS), reference="g1").set_index(["metric", "group"])
        div = _divergences(res)
        for m in METRICS:
            r = summ.loc[(m, "g0")]
            rows.append(
                _row(
                    cell,
                    rep,
                    seed,
                    method,
                    m,
                    "g0-g1",
                    float(r["mean"]),
                    float(r["hdi_lower"]),
                    float(r["hdi_upper"]),
                    truth[m],
                    sec,
                    divergences=div,
                )
            )
        if method != "default":
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cal = res.calibration_summary().set_index("group")
            gap_draws = calibration_gap(res)
        for g, part in (("g0", g0), ("g1", g1)):
            share = float(part["label"].mean())
            mean_score = float(part["score"].mean())
            c = cal.loc[g]
            extra = dict(divergences=div, mean_score_reported=float(c["mean_score"]))
            extra["mean_score_true"] = mean_score
            rows.append(
                _row(
                    cell,
                    rep,
                    seed,
                    "default",
                    "positive_rate",
                    g,
                    float(c["positive_rate"]),
                    float(c["positive_rate_lower"]),
                    float(c["positive_rate_upper"]),
                    share,
                    sec,
                    **extra,
                )
            )
            rows.append(
                _row(
                    cell,
                    rep,
                    seed,
                    "default",
                    "calibration_gap",
                    g,
                    float(c["calibration_gap"]),
                    float(c["calibration_gap_lower"]),
                    float(c["calibration_gap_upper"]),
                    mean_score - share,
                    sec,
                    **extra,
                )
            )
            d = gap_draws.sel(group=g).values.ravel()
            d = d[np.isfinite(d)]
            lo, hi = hdi(d, 0.95)
            rows.append(
                _row(
                    cell,
                    rep,
                    seed,
                    "default_hdi",
                    "calibration_gap",
                    g,
                    float(d.mean()),
                    float(lo),
                    float(hi),
                    mean_score - share,
                    sec,
                    **extra,
                )
            )
    return rows


# --------------------------------------------------------------------------- tables


def _cov(c: pd.Series) -> tuple[int, int, float, float, float]:
    c = c.dropna().astype(bool)
    n, x = c.size, int(c.sum())
    p = x / n if n else np.nan
    se = np.sqrt(p * (1 - p) / n) if n else np.nan
    lower = beta_dist.ppf(0.05, x, n - x + 1) if x > 0 else 0.0
    return n, x, p, se, lower


def table(runs: pd.DataFrame, by) -> pd.DataFrame:
    def one(d):
        n, x, p, se, lower = _cov(d["covered"])
        return pd.Series(
            dict(
                reps=n,
                covered=x,
                coverage=p,
                se=se,
                cp_lower=lower,
                width=d["width"].mean(),
                mae=d["abs_error"].mean(),
                bias=d["error"].mean(),
            )
        )

    return runs.groupby(by, sort=False).apply(one, include_groups=False).reset_index()


def _cell_order(cells) -> list[str]:
    return [c for c in CELLS if c in set(cells)] + sorted(set(cells) - set(CELLS))


def _f(v, fmt=".2f") -> str:
    return "–" if v is None or (isinstance(v, float) and not np.isfinite(v)) else format(v, fmt)


def report(runs: pd.DataFrame, path: Path = PAGE) -> None:
    runs = runs.copy()
    cells = _cell_order(runs["cell"].unique())
    gaps = runs[runs["quantity"].isin(METRICS)]
    calib = runs[runs["quantity"].isin(["positive_rate", "calibration_gap"])]
    tg = table(gaps, ["cell", "quantity", "method"])
    lines = [
        "# Two groups, one distorted: coverage of the gaps and of the calibration view",
        "",
        "Written by `benchmarks/two_groups.py` (its docstring has the design). Real Adult",
        "MLP scores, two groups at random with equal shares, 50,000 unlabeled rows; group",
        "g0's scores mean something else: `label_noise` (12% of g0's labels flipped) or",
        "`slope2` (g0's scores σ(2 logit s), over-confident; decisions and true gaps",
        "unchanged). Each cell is `distortion:n_labeled`. The truth is computed on the",
        "assessed rows (labeled and unlabeled, true labels).",
        "",
        'Fits: `default` is `bf.fit(data)` (model `rbc`), `bb` is `bf.fit(data, model="bb")`',
        "(labeled rows only), both with `draws=500, tune=500, chains=2`. The interval of a",
        'gap g0 − g1 is the 95% HDI that `res.summary(reference="g1")` reports. Coverage ±',
        "its Monte Carlo SE; `cp` the one-sided 95% Clopper–Pearson lower bound of the",
        "coverage; width the mean width; MAE the mean absolute error of the posterior mean;",
        "bias the mean signed error (estimate − truth).",
        "",
        "## Gaps g0 − g1 per cell",
        "",
    ]
    for cell in cells:
        part = tg[tg["cell"] == cell]
        if part.empty:
            continue
        reps = int(part["reps"].max())
        lines += [f"### {cell} ({reps} data sets)", ""]
        lines += [
            "| metric | method | coverage | cp | width | MAE | bias |",
            "|---|---|---|---|---|---|---|",
        ]
        for m in METRICS:
            for method in ("default", "bb"):
                r = part[(part["quantity"] == m) & (part["method"] == method)]
                if r.empty:
                    continue
                r = r.iloc[0]
                lines.append(
                    f"| {m} | {method} | {r.coverage:.2f} ± {r.se:.2f} | {r.cp_lower:.2f} "
                    f"| {r.width:.3f} | {r.mae:.3f} | {r.bias:+.3f} |"
                )
        lines.append("")

    # calibration view
    lines += [
        "## Calibration view of the default fit",
        "",
        "`res.calibration_summary()` per group: the share of positives (`positive_rate`,",
        "its 95% HDI) against the true share of positives among the group's assessed rows;",
        "the calibration gap (mean score − share of positives; the interval reported, a",
        "band simultaneous over the two groups) against the mean raw score minus the true",
        "share. `gap (HDI)` is the plain 95% HDI of the gap's draws, for context. Coverage",
        "over both groups (2 × data sets) and for g0 alone; width is the mean over both",
        "groups.",
        "",
        "| cell | quantity | coverage, both groups | cp | coverage, g0 | coverage, g1 | width "
        "| bias g0 | bias g1 |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    calib_rows = []
    for cell in cells:
        for (quantity, method), label in (
            (("positive_rate", "default"), "share of positives"),
            (("calibration_gap", "default"), "calibration gap"),
            (("calibration_gap", "default_hdi"), "gap (HDI)"),
        ):
            d = calib[
                (calib["cell"] == cell)
                & (calib["quantity"] == quantity)
                & (calib["method"] == method)
            ]
            if d.empty:
                continue
            _, _, p, se, lo = _cov(d["covered"])
            _, _, p0, se0, _ = _cov(d.loc[d["group"] == "g0", "covered"])
            _, _, p1, se1, _ = _cov(d.loc[d["group"] == "g1", "covered"])
            b0 = d.loc[d["group"] == "g0", "error"].mean()
            b1 = d.loc[d["group"] == "g1", "error"].mean()
            calib_rows.append(dict(cell=cell, quantity=label, both=p, g0=p0, g1=p1))
            lines.append(
                f"| {cell} | {label} | {p:.2f} ± {se:.2f} | {lo:.2f} | {p0:.2f} ± {se0:.2f} "
                f"| {p1:.2f} ± {se1:.2f} | {d['width'].mean():.3f} | {b0:+.3f} | {b1:+.3f} |"
            )
    lines.append("")
    ms = calib.dropna(subset=["mean_score_reported"])
    if not ms.empty:
        dev = (ms["mean_score_reported"] - ms["mean_score_true"]).abs().max()
        lines += [
            f"The reported `mean_score` agrees with the mean raw score of the group's assessed "
            f"rows to within {dev:.1e} in every data set.",
            "",
        ]

    # summary
    d = tg[tg["method"] == "default"]
    per_cell = d.groupby("cell", sort=False)["coverage"].mean().reindex(cells)
    worst = d.loc[d["coverage"].idxmin()] if not d.empty else None
    wid = tg.pivot_table(index=["cell", "quantity"], columns="method", values="width")
    ratio = (wid["default"] / wid["bb"]).groupby(level="cell").mean().reindex(cells)
    cal_df = pd.DataFrame(calib_rows)
    mean_cov = d["coverage"].mean()
    complete = len(cells) == len(CELLS)
    lines += [
        "## Summary",
        "",
        f"Default's coverage of the gaps, averaged over the {len(cells)} cells × 3 metrics "
        f"run: **{mean_cov:.3f}** ({'all six cells' if complete else 'not all six cells'}).",
    ]
    if worst is not None:
        lines.append(
            f"Worst cell and metric: `{worst.cell}` {worst.quantity}, coverage "
            f"{worst.coverage:.2f} (cp {worst.cp_lower:.2f})."
        )
    lines += [
        "",
        "| cell | default coverage (mean of 3 metrics) | worst metric | width default / bb "
        "(mean of 3 metrics) | share of positives coverage | calibration gap coverage |",
        "|---|---|---|---|---|---|",
    ]
    for cell in cells:
        dc = d[d["cell"] == cell]
        w = dc.loc[dc["coverage"].idxmin()]
        sh = cal_df[(cal_df.cell == cell) & (cal_df.quantity == "share of positives")]
        gp = cal_df[(cal_df.cell == cell) & (cal_df.quantity == "calibration gap")]
        lines.append(
            f"| {cell} | {per_cell[cell]:.2f} | {w.quantity} {w.coverage:.2f} "
            f"| {ratio[cell]:.2f} | {_f(sh.both.iloc[0] if len(sh) else None)} "
            f"| {_f(gp.both.iloc[0] if len(gp) else None)} |"
        )
    lines.append("")

    # bars
    worst_cell_cov = d["coverage"].min()
    cal_main = cal_df[cal_df.quantity.isin(["share of positives", "calibration gap"])]
    cal_worst = cal_main["both"].min() if not cal_main.empty else np.nan
    ok_mean = mean_cov >= BAR_MEAN
    ok_cell = worst_cell_cov >= BAR_CELL
    ok_cal = cal_worst >= BAR_CALIB
    lines += [
        "## Bars checked",
        "",
        f"1. Default's gap coverage averaged over the cells and metrics ≥ {BAR_MEAN:.2f}: "
        f"{mean_cov:.3f}, **{'pass' if ok_mean else 'fail'}**.",
        f"2. Default's gap coverage ≥ {BAR_CELL:.2f} in each cell (every metric): lowest "
        f"{worst_cell_cov:.2f}, **{'pass' if ok_cell else 'fail'}**"
        + (
            ""
            if ok_cell
            else " ("
            + ", ".join(
                f"`{r.cell}` {r.quantity} {r.coverage:.2f}"
                for r in d[d["coverage"] < BAR_CELL].itertuples()
            )
            + ")"
        )
        + ".",
        f"3. Calibration view's coverage ≥ {BAR_CALIB:.2f} in each cell (share of positives "
        f"and calibration gap as reported, over both groups): lowest {cal_worst:.2f}, "
        f"**{'pass' if ok_cal else 'fail'}**"
        + (
            ""
            if ok_cal
            else " ("
            + ", ".join(
                f"`{r.cell}` {r.quantity} {r.both:.2f}"
                for r in cal_main[cal_main["both"] < BAR_CALIB].itertuples()
            )
            + ")"
        )
        + ".",
        "",
    ]
    if not complete:
        lines += [
            f"Cells run: {', '.join(cells)}; the bars above hold for these cells only.",
            "",
        ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines))


# --------------------------------------------------------------------------- main


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--cells", nargs="*", default=CELLS)
    ap.add_argument("--out", default=str(CSV))
    ap.add_argument("--page", default=str(PAGE))
    ap.add_argument("--resume", action="store_true", help="skip replicates already in --out")
    ap.add_argument("--report", action="store_true", help="write the page from --out only")
    a = ap.parse_args()
    out, page = Path(a.out), Path(a.page)
    if a.report:
        report(pd.read_csv(out), page)
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    rows: list[dict] = []
    done: set[tuple[str, int]] = set()
    if a.resume and out.exists():
        old = pd.read_csv(out)
        rows = old.to_dict("records")
        done = {(c, int(r)) for c, r in old[["cell", "rep"]].drop_duplicates().itertuples(False)}
    for cell in a.cells:
        for rep in range(a.reps):
            if (cell, rep) in done:
                continue
            t0 = time.perf_counter()
            rows += run_replicate(cell, rep, a.seed)
            tmp = out.with_name(out.name + ".tmp")
            gzip = "gzip" if out.name.endswith(".gz") else None
            pd.DataFrame(rows).to_csv(tmp, index=False, compression=gzip)
            tmp.replace(out)
            print(f"{cell} rep {rep}: {time.perf_counter() - t0:.1f} s", flush=True)
    runs = pd.DataFrame(rows)
    print(table(runs, ["cell", "quantity", "method"]).round(3).to_string(index=False))
    report(runs, page)


if __name__ == "__main__":
    main()
