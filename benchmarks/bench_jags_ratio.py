"""Benchmark: the default fit and ``bc`` against JAGS in one run, and a first demo.

The speed targets of the calibration models, measured side by side because the machine
is shared and only ratios taken in one run compare:

1. JAGS, Ji et al.'s model as the paper ran it (``jags_reference.py``: 4 chains ×
   (1500 burn-in + 200 draws)), on the rows ``bench_bc_speed.py`` uses (Adult-sex MLP
   scores, n_L = 100 labeled rows, n_U = 10⁴ unlabeled, seed 0);
2. ``bayesfair.fit(data, model)`` plus the Δ table, 4 × (1000 + 1000), for ``rbc`` (the
   default) and ``bc``: a first call, then the median of five calls in the same process.
   Targets: the default at least 25× faster than JAGS, ``bc`` at least 40×. NUTS's own
   time inside those calls is printed too: JAGS's time over it is the most any trimming
   of the rest of a fit could reach at the default sampler settings;
3. ``bayesfair demo`` in a fresh process with an empty numba cache (the first run after
   an install compiles the log density): target under 12 s. It is run before and after
   the timed fits, and its median of three is reported.

Every line prints the machine's load. Run: ``python benchmarks/bench_jags_ratio.py``
(about two minutes); ``--calls 5``; ``--json out.json`` keeps the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_bc_speed as speed  # noqa: E402 - the rows and the timed unit of work

TARGETS = {"rbc": 25.0, "bc": 40.0}
DEMO_TARGET_S = 12.0


class SamplingClock:
    """Times NUTS alone inside a fit: wraps the calibration fit's ``sample_model``."""

    def __init__(self):
        from bayesfair.models import calibration_fit

        self.module, self.original, self.seconds = calibration_fit, calibration_fit.sample_model, []

        def timed_sampling(*args, **kwargs):
            t0 = time.perf_counter()
            out = self.original(*args, **kwargs)
            self.seconds.append(time.perf_counter() - t0)
            return out

        calibration_fit.sample_model = timed_sampling

    def restore(self):
        self.module.sample_model = self.original


def time_model(data, model: str, calls: int) -> dict:
    """First call and the median of ``calls`` later calls of fit + Δ table (wall, CPU), and
    the median time of NUTS alone in those calls (the floor of the fit's time)."""
    speed.MODEL = model
    first_wall, _, _ = speed.timed(lambda: speed.fit_and_summarise(data))
    clock = SamplingClock()
    later = [speed.timed(lambda: speed.fit_and_summarise(data)) for _ in range(calls)]
    clock.restore()
    walls, cpus = [w for w, _, _ in later], [c for _, c, _ in later]
    result = later[walls.index(sorted(walls)[len(walls) // 2])][2][0]
    sampling = statistics.median(clock.seconds)
    print(
        f"{model:4s} first {first_wall:6.2f} s; later {', '.join(f'{w:.2f}' for w in walls)} s "
        f"-> median {statistics.median(walls):.2f} s wall, {statistics.median(cpus):.2f} s CPU; "
        f"NUTS alone {sampling:.2f} s  [{speed.load()}]"
    )
    return {
        "first_s": first_wall,
        "median_s": statistics.median(walls),
        "median_cpu_s": statistics.median(cpus),
        "walls_s": walls,
        "sampling_s": sampling,
        **speed.describe_fit(result),
    }


def time_jags(labeled, unlabeled) -> dict:
    """One JAGS run of the paper's 4 × (1500 + 200) on the same rows (wall, CPU)."""
    import resource

    from jags_reference import jags_available, run_jags_bc

    if not jags_available():
        raise SystemExit("JAGS is not installed: apt-get install -y jags")
    c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    run_jags_bc(*labeled, *unlabeled, n_groups=2, seed=speed.SEED, **speed.JAGS)
    wall = time.perf_counter() - t0
    c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (c1.ru_utime - c0.ru_utime) + (c1.ru_stime - c0.ru_stime)
    print(f"JAGS 4 x (1500 + 200) {wall:6.2f} s wall, {cpu:.2f} s CPU  [{speed.load()}]")
    return {"wall_s": wall, "cpu_s": cpu}


def time_first_demo() -> float:
    """``bayesfair demo`` in a fresh process whose numba cache is empty (wall seconds)."""
    with tempfile.TemporaryDirectory(prefix="bench_demo_numba_") as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        t0 = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "bayesfair", "demo"], env=env, capture_output=True, text=True
        )
        wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    print(f"first demo (empty numba cache) {wall:6.2f} s  [{speed.load()}]")
    return wall


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--calls", type=int, default=5, help="timed calls after the first")
    p.add_argument("--json", type=Path, help="write the figures to this file")
    args = p.parse_args(argv)

    demos = [time_first_demo()]
    _, labeled, unlabeled = speed.adult_rows(speed.N_UNLABELED)
    data = speed.assessment(labeled, unlabeled)
    jags = time_jags(labeled, unlabeled)
    fits = {model: time_model(data, model, args.calls) for model in TARGETS}
    demos += [time_first_demo(), time_first_demo()]

    print("\nmeasure                       bayesfair     JAGS    ratio  target  met")
    out = {"jags": jags, "fits": fits, "demo_s": demos}
    for model, target in TARGETS.items():
        ratio = jags["wall_s"] / fits[model]["median_s"]
        out[f"{model}_ratio"] = ratio
        bound = jags["wall_s"] / fits[model]["sampling_s"]
        out[f"{model}_sampling_bound"] = bound
        print(
            f"{model} median of {args.calls:<2d}            {fits[model]['median_s']:7.2f} s "
            f"{jags['wall_s']:7.2f} s {ratio:7.1f}x  {target:5.0f}x  {ratio >= target}"
            f"   (NUTS alone: at most {bound:.1f}x)"
        )
    demo = statistics.median(demos)
    print(
        f"first demo, median of 3        {demo:7.2f} s                  "
        f"< {DEMO_TARGET_S:.0f} s  {demo < DEMO_TARGET_S}"
    )
    if args.json:
        args.json.write_text(json.dumps(out, indent=2, default=float))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
