"""Benchmark: the calibration models' fit (``rbc``, the default, or ``bc``) against JAGS.

The JAGS reference implements ``bc`` (Ji et al.'s model); ``rbc`` is ``bc`` plus
the spike-and-slab discrepancy (docs/concepts.md), so timing it against the
same reference measures what the robustness costs. ``--model bc`` times ``bc``.

Adult-sex, MLP scores (``data/scores/adult_race_scores.csv.gz``, the file Ji et
al. used), the rows that ``benchmarks/jags_reference.py`` draws: n_L = 100
labeled rows, n_U unlabeled rows drawn with replacement from the remaining 9,954
(seed 0). Measured side by side in one run, because the machine is shared and
only ratios taken in the same run are comparable:

1. one process: ``bayesfair.fit(data, MODEL)``, 4 chains x (1000 tuning + 1000
   draws), plus ``summary(["accuracy", "tpr", "fpr"])`` -- the first call
   (compile or load of the log density included) and the median of five later
   calls (target: at least 20x faster than JAGS); the JAGS
   reference, 4 chains x (1500 burn-in + 200 draws), on the same rows; posterior
   means of Δ accuracy / TPR / FPR (Female − Male) from both;
2. n_U scaling, n_U = 10^4 ... 10^7, each size in its own process (warm fit
   first, then the timed fit), wall time and peak resident memory;
3. a fresh Python process (imports, data loading, fit, summary) next to JAGS;
4. repeated fits: n_L = 10 labeled sets drawn as Ji et al. did
   (``split_labeled(..., method="ji2020")``), the rest unlabeled, 4 x (500 + 500),
   total time and the number of compiled models.

``--alternatives`` also times the other ways to sample the model that were
considered (the PyMC model compiled by nutpie, ``sampler="nutpie"``, and
``sampler="pymc"``).

Run: ``python benchmarks/bench_bc_speed.py`` (about 3 minutes plus the 10^7
data construction), ``--quick`` (n_U up to 10^5, 10 repeated fits),
``--skip-jags``, ``--max-nu 1e6``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED = 0
N_LABELED = 100
N_UNLABELED = 10_000
FIT = dict(draws=1000, tune=1000, chains=4)
SECOND_CALLS = 5  # timed fits after the first; their median is compared with JAGS
CELL_CALLS = 3  # timed fits per cell of section 5 (after a warm-up fit); the median is used
JAGS = dict(n_chains=4, n_burnin=1500, n_draws=200)
METRICS = ("accuracy", "tpr", "fpr")
JAGS_NAMES = {"accuracy": "acc", "tpr": "tpr", "fpr": "fpr"}
MODEL = "rbc"  # set by --model


# --------------------------------------------------------------------------- helpers
def load() -> str:
    """Load averages (1, 5, 15 min) and cores, for every timing printed."""
    one, five, fifteen = os.getloadavg()
    return f"load {one:.2f}/{five:.2f}/{fifteen:.2f} on {os.cpu_count()} cores"


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, MB.

    ``VmHWM`` of ``/proc/self/status`` where it exists: Linux's ``ru_maxrss`` keeps
    the high-water mark of the process image *before* ``exec``, so in a worker it
    reports at least the parent's resident memory at ``fork`` time.
    """
    hwm = hwm_mb()
    return hwm if hwm is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def reset_peak_rss() -> bool:
    """Reset the kernel's high-water mark of this process (Linux >= 4.0)."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        return False
    return True


def hwm_mb() -> float | None:
    """VmHWM: peak resident memory since the last :func:`reset_peak_rss`."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return None


def timed(fn):
    """(wall s, CPU s of this process, all threads, result)."""
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - w0, time.process_time() - c0, out


def adult_rows(n_unlabeled: int, seed: int = SEED):
    """The rows the JAGS reference gets: ``jags_reference._adult_split``."""
    sys.path.insert(0, str(HERE))
    from jags_reference import _adult_split

    df, labeled, unlabeled, _, _ = _adult_split(N_LABELED, n_unlabeled, seed)
    return df, labeled, unlabeled


def assessment(labeled, unlabeled):
    """AssessmentData with the groups named as in the score file (Male = reference)."""
    import numpy as np

    from bayesfair import AssessmentData

    names = np.array(["Male", "Female"])  # codes of jags_reference: 0 Male, 1 Female
    (s_l, y_l, g_l), (s_u, g_u) = labeled, unlabeled
    return AssessmentData(s_l, y_l, names[g_l], s_u, names[g_u], reference="Male")


def fit_and_summarise(data, **kwargs):
    """The timed unit of work: fit, then the Δ table (Female − Male)."""
    import bayesfair
    from bayesfair.exceptions import SamplingWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SamplingWarning)
        res = bayesfair.fit(
            data,
            MODEL,
            random_seed=kwargs.pop("random_seed", 1),
            progressbar=False,
            **{**FIT, **kwargs},
        )
        table = res.summary(list(METRICS))
    warned = [str(w.message) for w in caught if issubclass(w.category, SamplingWarning)]
    return res, table, warned


def describe_fit(res) -> dict:
    diag = res.diagnostics()
    return {
        "max_rhat": float(diag["r_hat"].max()),
        "min_ess_bulk": float(diag["ess_bulk"].min()),
        "divergences": int(diag["divergences"].iloc[0]),
    }


def run_worker(args_list: list[str]) -> tuple[float, float, dict]:
    """Run this script as ``--worker ...`` in a fresh process; (wall s, CPU s, RESULT dict).

    ``--cold-numba-cache`` runs it with an empty ``NUMBA_CACHE_DIR``: what the first
    fit on a new machine (or after an upgrade of numba or bayesfair) costs.
    """
    import tempfile

    env = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="bench_bc_numba_") as tmp:
        if "--cold-numba-cache" in args_list:
            args_list = [a for a in args_list if a != "--cold-numba-cache"]
            env["NUMBA_CACHE_DIR"] = tmp
        cmd = [sys.executable, str(Path(__file__).resolve()), *args_list]
        c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
        wall = time.perf_counter() - t0
        c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (c1.ru_utime - c0.ru_utime) + (c1.ru_stime - c0.ru_stime)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(
            f"worker {args_list} failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n"
            f"{proc.stderr[-3000:]}"
        )
    return wall, cpu, json.loads(lines[-1][len("RESULT ") :])


# --------------------------------------------------------------------------- workers
def worker_fresh(args) -> dict:
    """A fresh process: import, load the rows, one fit + summary. Timed by the parent."""
    t0 = time.perf_counter()
    import bayesfair  # noqa: F401

    t_import = time.perf_counter() - t0
    t1 = time.perf_counter()
    _, labeled, unlabeled = adult_rows(N_UNLABELED)
    data = assessment(labeled, unlabeled)
    t_data = time.perf_counter() - t1
    kwargs = {}
    if args.no_native:
        kwargs = {"sampler": "nutpie"}
    if args.pymc_sampler:
        kwargs = {"sampler": "pymc"}
    wall, cpu, (res, table, _) = timed(lambda: fit_and_summarise(data, **kwargs))
    return {
        "import_s": t_import,
        "data_s": t_data,
        "fit_s": wall,
        "fit_cpu_s": cpu,
        "delta_mean": dict(zip(table["metric"], table["mean"].astype(float), strict=True)),
        "peak_rss_mb": peak_rss_mb(),
        **describe_fit(res),
    }


def worker_scale(args) -> dict:
    """Warm fit at n_U = 10^4, then the timed fit at ``--n-unlabeled``; memory."""
    _, labeled, unlabeled = adult_rows(N_UNLABELED)
    fit_and_summarise(assessment(labeled, unlabeled), random_seed=0)  # compile / load
    rss_warm = peak_rss_mb()
    t0 = time.perf_counter()
    _, labeled, unlabeled = adult_rows(args.n_unlabeled)
    t_draw = time.perf_counter() - t0
    t0 = time.perf_counter()
    data = assessment(labeled, unlabeled)
    t_data = time.perf_counter() - t0
    rss_data = peak_rss_mb()
    reset = reset_peak_rss()
    wall, cpu, (res, table, _) = timed(lambda: fit_and_summarise(data))
    fit_peak = hwm_mb() if reset else None
    return {
        "n_unlabeled": data.n_unlabeled,
        "resample_s": t_draw,
        "assessment_data_s": t_data,
        "fit_s": wall,
        "fit_cpu_s": cpu,
        "peak_rss_warm_mb": rss_warm,
        "peak_rss_after_data_mb": rss_data,
        "peak_rss_mb": max(rss_data, peak_rss_mb()),
        "fit_peak_rss_mb": fit_peak,
        "delta_mean": dict(zip(table["metric"], table["mean"].astype(float), strict=True)),
        **describe_fit(res),
    }


# --------------------------------------------------------------------------- sections
def section_one_process(args, rows: list) -> dict:
    import numpy as np

    from bayesfair.models import sampling

    print("\n== 1. one process: n_L = 100, n_U = 10^4, 4 x (1000 + 1000) ==")
    df, labeled, unlabeled = adult_rows(N_UNLABELED)
    data = assessment(labeled, unlabeled)
    print(
        f"Adult-sex MLP: {len(df)} rows; labeled {data.n_labeled} "
        f"(Male {int(np.sum(labeled[2] == 0))}, Female {int(np.sum(labeled[2] == 1))}), "
        f"unlabeled {data.n_unlabeled} drawn with replacement from the other rows (seed {SEED})"
    )
    out = {}
    repeats = []
    for i in range(1 + SECOND_CALLS):
        name = "first call" if i == 0 else f"call {i + 1}"
        wall, cpu, (res, table, warned) = timed(lambda: fit_and_summarise(data))
        d = describe_fit(res)
        out[name] = {"wall": wall, "cpu": cpu, "load": load(), "table": table, **d}
        if i:
            repeats.append(out[name])
        print(
            f"bayesfair {name:12s} {wall:7.2f} s wall, {cpu:6.2f} s CPU  [{load()}]  "
            f"max R-hat {d['max_rhat']:.4f}, divergences {d['divergences']}, "
            f"min bulk ESS {d['min_ess_bulk']:.0f}" + (f"  WARNED: {warned}" if warned else "")
        )
    # the later calls' median (the same work each time: a shared machine's noise is one-sided)
    out["second call"] = sorted(repeats, key=lambda r: r["wall"])[len(repeats) // 2]
    print(f"later calls, median   {out['second call']['wall']:7.2f} s wall")
    print(f"compiled models in this process: {len(sampling.CACHE)}")

    if args.alternatives:
        for name in ("PyMC-compiled nutpie, first", "PyMC-compiled nutpie, second"):
            wall, cpu, (res, _, _) = timed(lambda: fit_and_summarise(data, sampler="nutpie"))
            out[name] = {"wall": wall, "cpu": cpu, "load": load(), **describe_fit(res)}
            print(f"{name:34s} {wall:7.2f} s wall, {cpu:6.2f} s CPU  [{load()}]")

    truth = _truth(df)
    jags = None
    if not args.skip_jags:
        sys.path.insert(0, str(HERE))
        from jags_reference import jags_available, rhat, run_jags_bc

        if jags_available():
            c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            r = run_jags_bc(*labeled, *unlabeled, n_groups=2, seed=SEED, **JAGS)
            wall = time.perf_counter() - t0
            c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (c1.ru_utime - c0.ru_utime) + (c1.ru_stime - c0.ru_stime)
            max_rhat = max(float(np.max(rhat(r[p]))) for p in ("a", "b", "c"))
            jags = {"wall": wall, "cpu": cpu, "load": load(), "r": r, "max_rhat": max_rhat}
            print(
                f"JAGS 4 x (1500 + 200)  {wall:7.2f} s wall (jags process "
                f"{r['wall_time_s']:.2f} s), {cpu:6.2f} s CPU  [{load()}]  peak RSS "
                f"{r['peak_rss_mb']:.0f} MB, max R-hat of a, b, c {max_rhat:.3f}"
            )
        else:
            print("JAGS not installed: skipped (apt-get install -y jags)")
    out["jags"] = jags

    print("\nΔ = Female − Male   bayesfair mean (sd)    JAGS mean (sd)      |diff|   truth")
    second = out["second call"]["table"].set_index("metric")
    for m in METRICS:
        mean, sd = second.loc[m, "mean"], second.loc[m, "sd"]
        line = f"  Δ {m:<9s}        {mean:+.4f} ({sd:.4f})"
        if jags is not None:
            d = (jags["r"][JAGS_NAMES[m]][..., 1] - jags["r"][JAGS_NAMES[m]][..., 0]).ravel()
            line += f"    {d.mean():+.4f} ({d.std():.4f})    {abs(d.mean() - mean):.4f}"
        else:
            line += " " * 36
        print(line + f"   {truth[m]:+.4f}")

    s = out["second call"]
    rows.append(
        (f"1. {MODEL} fit, first call (+ nutpie/arviz import)", out["first call"], jags, None)
    )
    rows.append((f"1. {MODEL} fit, later calls' median (same process)", s, jags, 20.0))
    return out


def _truth(df) -> dict:
    sys.path.insert(0, str(HERE))
    from jags_reference import LABEL, SCORE, _true_metrics

    t = _true_metrics(
        df[SCORE].to_numpy(float),
        df[LABEL].to_numpy(int),
        df["sex"].map({"Male": 0, "Female": 1}).to_numpy(),
    )
    return {"accuracy": t["acc"], "tpr": t["tpr"], "fpr": t["fpr"]}


def section_scaling(args, rows: list) -> list:
    print("\n== 2. n_U scaling (each size in its own process; warm fit first, then timed) ==")
    sizes = [n for n in (10**4, 10**5, 10**6, 10**7) if n <= args.max_nu]
    results = []
    print(
        f"{'n_U':>10s} {'fit+summary s':>14s} {'vs 10^4':>8s} {'fit CPU s':>9s} "
        f"{'AssessmentData s':>16s} {'fit peak MB':>11s} {'process peak MB':>15s}  load"
    )
    for n in sizes:
        _, _, r = run_worker(["--worker", "scale", "--model", MODEL, "--n-unlabeled", str(n)])
        results.append(r)
        base = results[0]["fit_s"]
        fit_peak = r["fit_peak_rss_mb"]
        print(
            f"{n:>10,d} {r['fit_s']:14.2f} {r['fit_s'] - base:+8.2f} {r['fit_cpu_s']:9.2f} "
            f"{r['assessment_data_s']:16.2f} "
            f"{(f'{fit_peak:.0f}' if fit_peak else 'n/a'):>11s} "
            f"{r['peak_rss_mb']:15.0f}  [{load()}]"
        )
    if len(results) > 1:
        top = results[-1]
        rows.append(
            (
                f"2. fit time, n_U 10^4 -> {top['n_unlabeled']:.0e}",
                {"wall": top["fit_s"] - results[0]["fit_s"], "load": load()},
                None,
                None,
            )
        )
        rows.append(
            (
                f"2. peak memory at n_U = {top['n_unlabeled']:.0e} (process)",
                {"mem": top["peak_rss_mb"], "load": load()},
                None,
                None,
            )
        )
    return results


def section_fresh(args, rows: list, jags) -> dict:
    print("\n== 3. fresh Python process: import + data + fit + summary ==")
    out = {}
    variants = [("bayesfair (native log density)", [])]
    if args.alternatives:
        variants += [
            ("same, cold numba cache (1st run on a machine)", ["--cold-numba-cache"]),
            ("PyMC model compiled by nutpie", ["--no-native"]),
            ("sampler='pymc', 1st (C cache fill)", ["--pymc-sampler"]),
            ("sampler='pymc', 2nd (C cache warm)", ["--pymc-sampler"]),
        ]
    for name, extra in variants:
        wall, cpu, r = run_worker(["--worker", "fresh", "--model", MODEL, *extra])
        out[name] = {"wall": wall, "cpu": cpu, "load": load(), **r}
        print(
            f"{name:42s} {wall:7.2f} s wall, {cpu:6.2f} s CPU  (import {r['import_s']:.2f}, "
            f"data {r['data_s']:.2f}, "
            f"fit+summary {r['fit_s']:.2f}; peak {r['peak_rss_mb']:.0f} MB; "
            f"max R-hat {r['max_rhat']:.4f})  [{load()}]"
        )
    if jags is not None:
        print(f"{'JAGS (section 1, same run)':42s} {jags['wall']:7.2f} s")
    first = out["bayesfair (native log density)"]
    rows.append(("3. fresh process, end to end", first, jags, 1.0))
    return out


def section_repeated(args, rows: list) -> dict:
    import numpy as np

    import bayesfair
    from bayesfair import AssessmentData
    from bayesfair.datasets import get_score_set, load_scores, split_labeled
    from bayesfair.exceptions import SamplingWarning
    from bayesfair.models import sampling

    n_fits = 10 if args.quick else args.fits
    print(
        f"\n== 4. {n_fits} repeated fits: n_L = 10 (ji2020 draw), rest unlabeled, "
        "4 x (500 + 500) =="
    )
    spec = get_score_set("adult-sex")
    frame = load_scores("adult-sex", "MLP")
    correct = (frame["score"] >= 0.5).astype(int) == frame["label"]
    truth = correct[frame["group"] == "Female"].mean() - correct[frame["group"] == "Male"].mean()
    keys_before = set(sampling.CACHE.keys())
    times, errors, warned = [], [], 0
    t_all = time.perf_counter()
    c_all = time.process_time()
    for seed in range(n_fits):
        t0 = time.perf_counter()
        labeled, unlabeled = split_labeled(frame, 10, seed, method="ji2020")
        # labels are 0/1 and pos_label is left out: a labeled set of 10 may hold no positive
        data = AssessmentData.from_frames(
            labeled,
            unlabeled,
            score="score",
            label="label",
            group="group",
            threshold=0.5,
            reference=spec.privileged_group,
        )
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", SamplingWarning)
            res = bayesfair.fit(
                data, MODEL, draws=500, tune=500, chains=4, random_seed=seed, progressbar=False
            )
        warned += any(issubclass(w.category, SamplingWarning) for w in caught)
        errors.append(float(res.difference("accuracy").mean()) - truth)
        times.append(time.perf_counter() - t0)
    total = time.perf_counter() - t_all
    cpu = time.process_time() - c_all
    new_keys = set(sampling.CACHE.keys()) - keys_before
    t = np.array(times)
    print(
        f"total {total:.1f} s wall, {cpu:.1f} s CPU  [{load()}]; per fit: first "
        f"{t[0]:.2f} s, median {np.median(t):.2f} s, max {t.max():.2f} s, last 10 mean "
        f"{t[-10:].mean():.2f} s"
    )
    print(
        f"compiled models: {len(sampling.CACHE)} in the cache, {len(new_keys)} added by "
        f"these {n_fits} fits; fits with a SamplingWarning: {warned}"
    )
    print(
        f"Δ accuracy MAE x100 vs the whole split (truth {truth:+.4f}): "
        f"{100 * np.mean(np.abs(errors)):.1f} (independent implementation, BC, 100 runs: 1.7)"
    )
    rows.append((f"4. {n_fits} repeated fits, total", {"wall": total, "load": load()}, None, None))
    return {"total": total, "times": times, "new_keys": len(new_keys), "warned": warned}


def section_labeled(args, rows: list) -> dict:
    """Cost against the labeled count: n_L = 10^2 ... 10^5 x models, in this process.

    Labeled rows are drawn with replacement from the whole adult split (the
    likelihood sees only their summary, so repeats cost nothing extra); n_U =
    10^4 rows, and at n_L = 10^5 also n_U = 10^7 given as a summary. Each cell:
    a warm-up fit on the same data, then three timed fits + Δ table, of which the
    median counts; the ratio is to the same model's n_L = 100 time in this run.
    """
    import numpy as np

    import bayesfair
    from bayesfair import AssessmentData

    df, _, _ = adult_rows(N_UNLABELED)
    print("\n== 5. labeled scaling: n_L 10^2 ... 10^5, n_U = 10^4 (10^7 as a summary) ==")
    rng = np.random.default_rng(SEED)
    cols = _adult_columns(df)
    s_all, y_all, g_all = cols
    names = np.array(["Male", "Female"])
    iu = rng.choice(s_all.size, N_UNLABELED)
    big = rng.choice(s_all.size, 10**7)
    big_summary = bayesfair.summarize_unlabeled((s_all[big], names[g_all[big]]))
    del big
    cases = [(n, "10^4") for n in (100, 1_000, 10_000, 100_000)] + [(100_000, "10^7")]
    models = args.labeled_models.split(",")
    out = {}
    print(
        f"{'model':6s} {'n_L':>8s} {'n_U':>5s} {'fit s':>8s} {'x n_L=100':>10s} "
        f"{'steps/draw':>10s} {'R-hat':>6s}  load"
    )
    for model in models:
        base = None
        for n, nu in cases:
            il = rng.choice(s_all.size, n, replace=True)
            unl = (
                {"unlabeled": big_summary}
                if nu == "10^7"
                else {"unlabeled_scores": s_all[iu], "unlabeled_groups": names[g_all[iu]]}
            )
            data = AssessmentData(s_all[il], y_all[il], names[g_all[il]], reference="Male", **unl)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                bayesfair.fit(
                    data, model, random_seed=0, progressbar=False, draws=200, tune=200, chains=4
                )
                timings = [
                    timed(lambda data=data, model=model: _fit_table(data, model))
                    for _ in range(CELL_CALLS)
                ]
                wall, cpu, res = sorted(timings, key=lambda t: t[0])[CELL_CALLS // 2]
            base = wall if base is None else base
            stats = res.idata.get("sample_stats")
            steps = (
                float(stats["n_steps"].mean())
                if stats is not None and "n_steps" in stats
                else float("nan")
            )
            rhat = float(res.diagnostics()["r_hat"].max()) if model != "bb" else float("nan")
            out[(model, n, nu)] = {
                "wall": wall,
                "cpu": cpu,
                "ratio": wall / base,
                "steps": steps,
                "rhat": rhat,
            }
            print(
                f"{model:6s} {n:>8,d} {nu:>5s} {wall:8.2f} {wall / base:10.2f} "
                f"{steps:10.1f} {rhat:6.3f}  [{load()}]",
                flush=True,
            )
    for model in models:
        worst = max(out[(model, n, nu)]["ratio"] for n, nu in cases if n >= 10_000)
        rows.append(
            (
                f"5. {model}: worst n_L >= 10^4 / n_L = 100",
                {"ratio": worst, "load": load()},
                None,
                None,
            )
        )
    return out


def _adult_columns(df):
    """Scores, labels and group codes (0 Male, 1 Female) of the whole adult split."""
    import numpy as np

    s = df["score_MultiLayerPerceptron"].to_numpy(float)
    y = df["income-per-year"].to_numpy().astype(int)
    g = (df["sex"] == "Female").to_numpy().astype(int)
    return s, y, np.asarray(g)


def _fit_table(data, model):
    import bayesfair

    res = bayesfair.fit(data, model, random_seed=1, progressbar=False, **FIT)
    res.summary(list(METRICS))
    return res


# --------------------------------------------------------------------------- main
def summary_table(rows: list, repeated: dict | None) -> None:
    def line(name, ours, jags="", ratio="", target="", met="", cpu="", where=""):
        print(
            f"{name:48s} {ours:>10s} {jags:>8s} {ratio:>7s}  {target:8s} {met:3s}  {cpu:>9s}"
            f"  [{where}]"
        )

    print("\n== summary ==")
    print(
        f"{'measure':48s} {'bayesfair':>10s} {'JAGS':>8s} {'ratio':>7s}  {'target':8s} met  "
        f"{'CPU ratio':>9s}  load"
    )
    for name, ours, jags, target_ratio in rows:
        if "ratio" in ours:
            met = "yes" if ours["ratio"] <= 2 else "NO"
            line(name, f"{ours['ratio']:.2f}x", target="<= 2x", met=met, where=ours["load"])
        elif "mem" in ours:
            met = "yes" if ours["mem"] < 2048 else "NO"
            line(name, f"{ours['mem']:.0f} MB", target="< 2 GB", met=met, where=ours["load"])
        elif name.startswith("2."):
            met = "yes" if ours["wall"] <= 2 else "NO"
            line(name, f"{ours['wall']:+.2f} s", target="<= +2 s", met=met, where=ours["load"])
        elif name.startswith("4."):
            met = "yes" if ours["wall"] < 120 else "NO"
            line(name, f"{ours['wall']:.1f} s", target="< 120 s", met=met, where=ours["load"])
        elif jags is None:
            line(name, f"{ours['wall']:.2f} s", where=ours["load"])
        else:
            ratio = jags["wall"] / ours["wall"]
            target = "" if target_ratio is None else f">= {target_ratio:g}x"
            met = "" if target_ratio is None else ("yes" if ratio >= target_ratio else "NO")
            cpu = f"{jags['cpu'] / ours['cpu']:.1f}x" if ours.get("cpu") else ""
            line(
                name,
                f"{ours['wall']:.2f} s",
                f"{jags['wall']:.2f} s",
                f"{ratio:.1f}x",
                target,
                met,
                cpu,
                ours["load"],
            )
    if repeated is not None:
        print(
            f"   (4.: {repeated['new_keys']} model(s) compiled during the repeated fits; "
            "0 means no recompilation after section 1)"
        )


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="n_U up to 10^5 and 10 repeated fits")
    p.add_argument("--skip-jags", action="store_true", help="do not run the JAGS reference")
    p.add_argument("--max-nu", type=float, default=1e7, help="largest n_U of the scaling")
    p.add_argument("--fits", type=int, default=100, help="repeated fits in section 4")
    p.add_argument(
        "--alternatives",
        action="store_true",
        help="also time a cold numba cache, the PyMC-compiled nutpie model, sampler='pymc'",
    )
    p.add_argument("--model", choices=["rbc", "bc"], default="rbc", help="the model timed")
    p.add_argument(
        "--labeled",
        action="store_true",
        help="only section 1 (against JAGS) and section 5 (cost against n_L)",
    )
    p.add_argument("--labeled-models", default="rbc,bc,bb", help="models of section 5")
    p.add_argument("--worker", choices=["fresh", "scale"], help=argparse.SUPPRESS)
    p.add_argument("--n-unlabeled", type=int, default=N_UNLABELED, help=argparse.SUPPRESS)
    p.add_argument("--no-native", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--pymc-sampler", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    global MODEL
    MODEL = args.model

    if args.worker:
        warnings.simplefilter("ignore")
        result = (worker_fresh if args.worker == "fresh" else worker_scale)(args)
        print("RESULT " + json.dumps(result))
        return 0

    if args.quick:
        args.max_nu = min(args.max_nu, 1e5)
    from importlib.metadata import version

    import bayesfair  # not nutpie/arviz: the first fit below imports them, as a user's does

    print(
        f"bench_bc_speed: bayesfair {bayesfair.__version__}, nutpie {version('nutpie')}, "
        f"numba {version('numba')}, Python {sys.version.split()[0]}; {load()}"
    )
    rows: list = []
    one = section_one_process(args, rows)
    if args.labeled:
        section_labeled(args, rows)
        summary_table(rows, None)
        return 0
    section_scaling(args, rows)
    section_fresh(args, rows, one["jags"])
    repeated = section_repeated(args, rows)
    section_labeled(args, rows)
    summary_table(rows, repeated)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
