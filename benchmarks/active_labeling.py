"""Active labeling against random labeling, and the planner's calibration (NUTS loops).

On each bundled setting (Adult-sex, Adult-race, COMPAS-race x MLP, LR), 20
simulated labeling loops per strategy: start from 20 random labels of the test
split (the rest is the unlabeled pool; the realised gap on the whole split is
the truth), fit the default model (``rbc``, 4 chains x (500 + 500)), add a
batch of 20 labels, refit, ... up to 800 labels.

* ``random``: the batch is drawn at random from the pool. The loop records the
  95% HDI width of Δ accuracy and Δ TPR at every step until both are below
  their targets (0.10 and 0.20), then only at the planner's budgets
  (:data:`PLAN_BUDGETS`), so that the planner can be compared at each.
* ``active-{stratum,score,mixed}-{accuracy,tpr}``: the batch is
  ``bf.suggest_labels(res, n=20, metric=..., within=...)``; the loop stops when
  that metric's width is below its target (or at 800 labels).

Labels needed = the labels at the first fit whose width is below the target
(censored at 800 when never). Saving = 1 - median(active) / median(random).
Coverage = share of active loops whose final interval covers the realised Δ.
The planner (``bf.plan_labels`` from the 20 starting labels of a loop, random
strategy, 50 simulations; the median over the starts of several loops,
``--plan-starts``) is compared with the median width of the random loops at
each budget.

Run in parts (``--settings adult-sex:MLP ...``); each part appends its rows to
``--out`` (a CSV of fits); ``--report`` writes ``docs/results/active_labeling.md``.

    python benchmarks/active_labeling.py --settings adult-sex:MLP adult-sex:LR --out fits.csv
    python benchmarks/active_labeling.py --plan-starts 0,1,2,3,4,5,6,7,8,9 --plan-out plan.csv
    python benchmarks/active_labeling.py --report fits.csv plan.csv
"""

from __future__ import annotations

import argparse
import math
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import bayesfair as bf
from bayesfair.stats import hdi

SETTINGS = [
    ("adult-sex", "MLP"),
    ("adult-sex", "LR"),
    ("adult-race", "MLP"),
    ("adult-race", "LR"),
    ("compas-race", "MLP"),
    ("compas-race", "LR"),
]
TARGETS = {"accuracy": 0.10, "tpr": 0.20}
START, BATCH, MAX_LABELS, LOOPS = 20, 20, 800, 20
PLAN_BUDGETS = [100, 200, 400, 800]
#: random, and the acquisition targeting each metric: by stratum (the default), by score,
#: or half and half (``within="mixed"``)
STRATEGIES = ["random"] + [
    f"active-{w}-{m}" for w in ("stratum", "score", "mixed") for m in TARGETS
]
FIT = dict(draws=500, tune=500, chains=4, progressbar=False, metrics=list(TARGETS))


def _data(frame, labeled_idx, pool_idx, reference):
    lab, unl = frame.iloc[labeled_idx], frame.iloc[pool_idx]
    return bf.AssessmentData(
        lab["score"].to_numpy(),
        lab["label"].to_numpy(),
        lab["group"].to_numpy(),
        unl["score"].to_numpy(),
        unl["group"].to_numpy(),
        reference=reference,
    )


def truth(frame, reference) -> dict:
    data = bf.AssessmentData(frame["score"], frame["label"], frame["group"], reference=reference)
    ((grp, ref),) = data.pairs()
    return {m: float(data.rates(m)[grp] - data.rates(m)[ref]) for m in TARGETS}


def one_loop(
    frame, strategy: str, loop: int, reference, seed: int, plan_budgets: bool = True
) -> list[dict]:
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(frame))
    labeled, pool = list(order[:START]), order[START:]
    rows, reached = [], {m: False for m in TARGETS}
    while True:
        data = _data(frame, labeled, pool, reference)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = bf.fit(data, random_seed=int(rng.integers(2**31)), cores=1, **FIT)
        n = len(labeled)
        row = {"strategy": strategy, "loop": loop, "n_labels": n, "by_stratum": False}
        for m in TARGETS:
            lo, hi = hdi(res.difference(m).values, 0.95)
            row.update({f"{m}_lo": lo, f"{m}_hi": hi, f"{m}_width": hi - lo})
            reached[m] = reached[m] or hi - lo < TARGETS[m]
        rows.append(row)
        if n >= MAX_LABELS:
            break
        if strategy == "random":
            if all(reached.values()) and (not plan_budgets or n >= PLAN_BUDGETS[-1]):
                break
            step = BATCH
            if all(reached.values()):  # only the planner's budgets from here on
                step = min(b for b in PLAN_BUDGETS if b > n) - n
            take = np.arange(step)
        else:
            _, within, metric = strategy.split("-")
            if reached[metric]:
                break
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                todo = bf.suggest_labels(
                    res, n=BATCH, metric=metric, within=within, random_seed=rng
                )
            # a mixed batch chosen by stratum because the calibration check flagged a map
            row["by_stratum"] = any("chosen by stratum" in str(w.message) for w in caught)
            take = todo["position"].to_numpy()
        new = pool[take]
        labeled += list(new)
        pool = np.delete(pool, take)
    return rows


def run(
    settings, out: Path, plan_out: Path, loops: int, strategies=None, plan_budgets: bool = True
) -> None:
    """Loop-major (loop 0 of every setting, then loop 1, ...), so that a run cut short
    has as many loops of each setting; (setting, loop) pairs already in ``out`` and
    plans already in ``plan_out`` are skipped, so a run can be resumed."""
    done = set()
    if out.exists():
        old = pd.read_csv(out)
        done = set(zip(old["setting"], old["loop"], strict=True))
    planned = set(pd.read_csv(plan_out)["setting"]) if plan_out.exists() else set()
    frames = {}
    for name, clf in settings:
        frame = bf.datasets.load_scores(name, clf).reset_index(drop=True)[
            ["score", "label", "group"]
        ]
        reference = frame["group"].value_counts().index[0]
        frames[(name, clf)] = (frame, reference, truth(frame, reference))
        if f"{name}:{clf}" in planned or not plan_budgets:
            continue
        # the planner, from loop 0's starting labels (same seed as the loop)
        order = np.random.default_rng(7).permutation(len(frame))
        data = _data(frame, order[:START], order[START:], reference)
        plans = []
        for m in TARGETS:
            t1 = time.perf_counter()
            plan = bf.plan_labels(
                data,
                metric=m,
                epsilon=0.05,
                budgets=PLAN_BUDGETS,
                n_sims=50,
                methods=["bayes"],
                random_seed=0,
            )
            plans.append(
                plan.assign(metric=m, setting=f"{name}:{clf}", seconds=time.perf_counter() - t1)
            )
        pd.concat(plans).to_csv(plan_out, mode="a", header=not plan_out.exists(), index=False)
    for loop in range(loops):
        for (name, clf), (frame, reference, real) in frames.items():
            if (f"{name}:{clf}", loop) in done:
                continue
            t0 = time.perf_counter()
            rows = []
            for strategy in strategies or STRATEGIES:
                rows += one_loop(
                    frame,
                    strategy,
                    loop,
                    reference,
                    seed=1000 * loop + 7,
                    plan_budgets=plan_budgets,
                )
            fits = pd.DataFrame(rows).assign(
                setting=f"{name}:{clf}", **{f"{m}_truth": v for m, v in real.items()}
            )
            fits.to_csv(out, mode="a", header=not out.exists(), index=False)
            print(
                f"{name}:{clf} loop {loop}: {len(fits)} fits in {time.perf_counter() - t0:.0f} s",
                flush=True,
            )


def plan_starts(settings, starts, out: Path) -> None:
    """The planner from the 20 starting labels of each loop in ``starts`` (random only)."""
    rows = []
    for name, clf in settings:
        frame = bf.datasets.load_scores(name, clf).reset_index(drop=True)[
            ["score", "label", "group"]
        ]
        reference = frame["group"].value_counts().index[0]
        for loop in starts:
            order = np.random.default_rng(1000 * loop + 7).permutation(len(frame))
            data = _data(frame, order[:START], order[START:], reference)
            for m in TARGETS:
                t = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    p = bf.plan_labels(
                        data,
                        metric=m,
                        epsilon=0.05,
                        budgets=PLAN_BUDGETS,
                        n_sims=50,
                        methods=["bayes"],
                        strategies=["random"],
                        random_seed=loop,
                    )
                rows.append(
                    p.assign(
                        metric=m,
                        setting=f"{name}:{clf}",
                        start=loop,
                        seconds=time.perf_counter() - t,
                    )
                )
    pd.concat(rows).to_csv(out, index=False)


def labels_needed(fits: pd.DataFrame, metric: str, strategy: str) -> pd.Series:
    """Per loop: labels at the first fit below the target (MAX_LABELS + BATCH if never)."""
    sub = fits[fits["strategy"] == strategy]
    out = {}
    for loop, f in sub.groupby("loop"):
        hit = f[f[f"{metric}_width"] < TARGETS[metric]]["n_labels"]
        out[loop] = int(hit.min()) if len(hit) else MAX_LABELS + BATCH
    return pd.Series(out)


def neyman_saving(name: str, clf: str, metric: str) -> float:
    """The saving of an oracle stratum-level design for a stratified estimator.

    The labels-only post-stratified estimator of Δ (strata: group × side of the
    threshold, sizes known) has variance Σ w_h² σ_h² / n_h, with w_h the stratum's
    weight in Δ (accuracy: its share of the group, signed; TPR: the delta method's
    derivative in the stratum's positive rate) and σ_h its within-stratum standard
    deviation, computed here from every label of the split (an oracle). Random labels
    put n_h ∝ N_h; Neyman allocation n_h ∝ |w_h| σ_h is the best stratum-level design
    (Cochran 1977, §5.5). Returns 1 − V_Neyman / V_random, the share of labels the best
    stratum-level design saves *for this estimator*. The default model also learns from
    the scores within a stratum, so its acquisition can save more.
    """
    frame = bf.datasets.load_scores(name, clf).reset_index(drop=True)
    reference = frame["group"].value_counts().index[0]
    w, sd, share = [], [], []
    for group, d in frame.groupby("group"):
        sign = -1.0 if group == reference else 1.0
        side = (d["score"] >= 0.5).to_numpy()
        y = d["label"].to_numpy()
        if metric == "accuracy":
            correct = (side == (y == 1)).astype(float)
            for h in (False, True):
                w.append(sign * np.mean(side == h))
                sd.append(correct[side == h].std())
                share.append(np.sum(side == h) / len(frame))
        else:  # TPR = N1 m1 / (N1 m1 + N0 m0), m_h the positive rate on side h
            n1, n0 = side.sum(), (~side).sum()
            m1, m0 = y[side].mean(), y[~side].mean()
            total = n1 * m1 + n0 * m0
            tpr = n1 * m1 / total
            w += [sign * -n0 * tpr / total, sign * n1 * (1 - tpr) / total]
            sd += [y[~side].std(), y[side].std()]
            share += [n0 / len(frame), n1 / len(frame)]
    w, sd, share = (np.asarray(v) for v in (w, sd, share))
    return float(1 - np.sum(np.abs(w) * sd) ** 2 / np.sum(w**2 * sd**2 / share))


def _acquisitions(fits: pd.DataFrame) -> list[str]:
    """The acquisitions (``within``) that have loops in ``fits``, in :data:`STRATEGIES` order."""
    present = set(fits["strategy"])
    return [
        w
        for w in ("stratum", "score", "mixed")
        if any(f"active-{w}-{m}" in present for m in TARGETS)
    ]


def _covering(f: pd.DataFrame, strategy: str, metric: str) -> float:
    """Share of loops whose final interval covers the realised Δ."""
    final = f[f["strategy"] == strategy].sort_values("n_labels").groupby("loop").tail(1)
    return float(
        (
            (final[f"{metric}_lo"] <= final[f"{metric}_truth"])
            & (final[f"{metric}_truth"] <= final[f"{metric}_hi"])
        ).mean()
    )


def summary_table(fits: pd.DataFrame) -> str:
    """The condensed table of ``docs/benchmarks.md``: one row per setting."""
    names = {"adult-sex": "Adult-sex", "adult-race": "Adult-race", "compas-race": "COMPAS-race"}
    acq = _acquisitions(fits)
    head = ["setting"]
    for m in ("accuracy", "TPR"):
        head += [f"Δ {m}: random → {acq[0]} (saving)", *acq[1:]]
    head += [f"coverage, {' / '.join(acq)}", "loops"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for setting, f in fits.groupby("setting", sort=False):
        name, clf = setting.split(":")
        cells, cover = [], {w: [] for w in acq}
        for m in TARGETS:
            rnd = labels_needed(f, m, "random").median()
            for i, w in enumerate(acq):
                act = labels_needed(f, m, f"active-{w}-{m}").median()
                cover[w].append(_covering(f, f"active-{w}-{m}", m))
                saving = f"{act:.0f} ({1 - act / rnd:.0%})"
                cells.append(f"{rnd:.0f} → {saving}" if i == 0 else saving)

        def span(values):
            lo, hi = min(values), max(values)
            return f"{lo:.2f}" if lo == hi else f"{lo:.2f}–{hi:.2f}"

        lines.append(
            f"| {names.get(name, name)} {clf} | {' | '.join(cells)} | "
            f"{' / '.join(span(cover[w]) for w in acq)} | "
            f"{f['loop'].nunique()} |"
        )
    return "\n".join(lines)


REPORT_HEADER = """# Active labeling against random labeling, and the planner's calibration

Produced by `benchmarks/active_labeling.py` (the method is in
[Benchmarks](../benchmarks.md#label-budgets-and-active-labeling)): 20 loops per
strategy on each of the six settings; acquisitions by stratum (the default),
score-targeted and mixed (half of each batch by stratum, half score-targeted with
the maps' joint covariance). The fits are in `active_labeling_fits.csv.gz`, the
plans in `active_labeling_plans.csv`; earlier variants (the joint criterion for
every label, and mixed without its guard and in an earlier implementation) in
`active_labeling_variants.csv.gz`. Column `by_stratum`: a mixed batch that its
guard chose by stratum (the fit's calibration check flagged a group).

"Labels" includes the 20 starting labels; a loop that never reaches the target
counts as 820. Savings of at least 25% at the 20-label granularity need, e.g.,
random 120 → active 90. The oracle Neyman saving is the share of labels that the
best stratum-level allocation (group × side of the threshold, within-stratum
standard deviations from every label of the split) saves for the labels-only
stratified estimator (`neyman_saving` in the script): what choosing *how many*
labels each stratum gets can give an estimator that does not learn from the
scores within a stratum. The planner's width is the median over the plans from
the starts of loops 0–9 (each plan: 50 simulations from that loop's 20 labels,
the refits importance-sampled from a Laplace fit of the maps' marginal posterior).

"""


def report(fits_path: Path, plan_path: Path, out: Path) -> str:
    fits = pd.read_csv(fits_path)
    plan = pd.read_csv(plan_path)
    lines = [
        "| setting | metric | acquisition | labels, random (median) | labels, active "
        "(median) | saving | oracle Neyman saving, stratified estimator | active loops "
        "covering | loops |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    acq = _acquisitions(fits)
    wins = {(w, m): 0 for w in acq for m in TARGETS}
    for setting, f in fits.groupby("setting", sort=False):
        for m in TARGETS:
            rnd = labels_needed(f, m, "random")
            oracle = neyman_saving(*setting.split(":"), m)
            for w in acq:
                name = f"active-{w}-{m}"
                act = labels_needed(f, m, name)
                saving = 1 - act.median() / rnd.median()
                cover = _covering(f, name, m)
                wins[(w, m)] += saving >= 0.25
                lines.append(
                    f"| {setting} | {m} | {w} | {rnd.median():.0f} | "
                    f"{act.median():.0f} | {saving:.0%} | {oracle:.0%} | {cover:.2f} | "
                    f"{len(act)} |"
                )
    n_set = fits["setting"].nunique()
    lines += [
        "",
        "Settings with a saving of at least 25%: "
        + "; ".join(f"{w}, {m}: {k} of {n_set}" for (w, m), k in wins.items())
        + ".",
    ]
    lines += [
        "",
        "| setting | metric | budget | planned median width | measured median "
        "width (random loops) | ratio | plan seconds |",
        "|---|---|---|---|---|---|---|",
    ]
    within = {m: 0 for m in TARGETS}
    plan = plan[plan["strategy"] == "random"]
    if "start" not in plan:
        plan = plan.assign(start=0)
    planned = plan.groupby(["setting", "metric", "budget"], sort=False).agg(
        width=("width_median", "median"), starts=("start", "nunique"), seconds=("seconds", "mean")
    )
    for (setting, m), p in planned.groupby(level=["setting", "metric"], sort=False):
        f = fits[(fits["setting"] == setting) & (fits["strategy"] == "random")]
        ok = True
        for (_, _, budget), r in p.iterrows():
            measured = f[f["n_labels"] == budget][f"{m}_width"]
            if measured.empty:
                continue
            ratio = r["width"] / measured.median()
            ok &= abs(ratio - 1) <= 0.20
            lines.append(
                f"| {setting} | {m} | {budget} | {r['width']:.3f} ({int(r['starts'])}) | "
                f"{measured.median():.3f} (n={len(measured)}) | {ratio:.2f} | "
                f"{r['seconds']:.0f} |"
            )
        within[m] += ok
    lines += [
        "",
        f"Settings where every budget is within ±20%: accuracy {within['accuracy']} "
        f"of {n_set}, TPR {within['tpr']} of {n_set}.",
    ]
    text = REPORT_HEADER + "\n".join(lines) + "\n"
    out.write_text(text)
    return text


def paired_rerun(old: pd.DataFrame, new: pd.DataFrame) -> str:
    """A re-run against stored fits, loop by loop (the loops share their seeds).

    Per setting, metric and strategy: the labels needed (paired by loop: mean of
    new − old and its Monte Carlo SE, sd of the loop-wise differences / √loops),
    and the share of loops whose final interval covers the realised Δ, old and new.
    Per setting and metric: the median width of the random loops at each planner
    budget, old and new."""
    lines = [
        "| setting | metric | strategy | loops | labels old (mean) | labels new (mean) | "
        "new − old (SE) | z | covering old | covering new |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    zs = []
    for setting in new["setting"].unique():
        fo, fn = old[old["setting"] == setting], new[new["setting"] == setting]
        for m in TARGETS:
            for strategy in ["random"] + [f"active-{w}-{m}" for w in _acquisitions(fn)]:
                a, b = labels_needed(fo, m, strategy), labels_needed(fn, m, strategy)
                loops = a.index.intersection(b.index)
                if len(loops) < 2:
                    continue
                d = (b[loops] - a[loops]).to_numpy(float)
                se = d.std(ddof=1) / math.sqrt(len(d))
                z = d.mean() / se if se > 0 else 0.0
                zs.append(z)
                co = _covering(fo[fo["loop"].isin(loops)], strategy, m)
                cn = _covering(fn[fn["loop"].isin(loops)], strategy, m)
                lines.append(
                    f"| {setting} | {m} | {strategy} | {len(loops)} | {a[loops].mean():.0f} | "
                    f"{b[loops].mean():.0f} | {d.mean():+.0f} ({se:.0f}) | {z:+.1f} | "
                    f"{co:.2f} | {cn:.2f} |"
                )
    zs = np.asarray(zs)
    lines += [
        "",
        f"{len(zs)} rows; |z| > 2 in {int((np.abs(zs) > 2).sum())} (about 1 in 20 "
        f"expected by chance); mean z {zs.mean():+.2f}.",
    ]
    lines += [
        "",
        "| setting | metric | budget | median width, random loops, old | new |",
        "|---|---|---|---|---|",
    ]
    for setting in new["setting"].unique():
        for m in TARGETS:
            for budget in PLAN_BUDGETS:
                w = [
                    f[
                        (f["setting"] == setting)
                        & (f["strategy"] == "random")
                        & (f["n_labels"] == budget)
                    ][f"{m}_width"].median()
                    for f in (old, new)
                ]
                lines.append(f"| {setting} | {m} | {budget} | {w[0]:.3f} | {w[1]:.3f} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--settings", nargs="*", default=[f"{n}:{c}" for n, c in SETTINGS])
    ap.add_argument("--loops", type=int, default=LOOPS)
    ap.add_argument("--out", type=Path, default=Path("active_fits.csv"))
    ap.add_argument("--plan-out", type=Path, default=Path("active_plan.csv"))
    ap.add_argument("--report", nargs=2, type=Path, metavar=("FITS", "PLAN"))
    ap.add_argument(
        "--plan-starts",
        default=None,
        metavar="L,L,...",
        help="only plan, from the starting labels of these loops, into --plan-out",
    )
    ap.add_argument(
        "--strategies",
        nargs="*",
        default=None,
        choices=STRATEGIES,
        help="only these strategies (default all)",
    )
    ap.add_argument(
        "--no-plan-budgets",
        action="store_true",
        help="random loops stop once both targets are reached (no planner "
        "budgets beyond; no plans)",
    )
    ap.add_argument("--markdown", type=Path, default=Path("docs/results/active_labeling.md"))
    ap.add_argument(
        "--paired",
        nargs=2,
        type=Path,
        metavar=("OLD", "NEW"),
        help="compare two CSVs of fits loop by loop (a re-run against stored fits)",
    )
    args = ap.parse_args()
    settings = [tuple(s.split(":")) for s in args.settings]
    if args.paired:
        print(paired_rerun(*(pd.read_csv(f) for f in args.paired)))
    elif args.report:
        print(report(*args.report, args.markdown))
        print(summary_table(pd.read_csv(args.report[0])))
    elif args.plan_starts:
        plan_starts(settings, [int(x) for x in args.plan_starts.split(",")], args.plan_out)
    else:
        run(
            settings, args.out, args.plan_out, args.loops, args.strategies, not args.no_plan_budgets
        )
