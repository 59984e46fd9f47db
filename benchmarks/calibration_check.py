"""Size and power of the calibration check (``bayesfair.checks``), by simulation.

Data (:func:`bayesfair.simulate.miscalibrated_scores`, ``kind="none"``): K = 2 or 4
groups alike, every example with ``p ~ Beta(2, 2)``, ``y ~ Bernoulli(p)`` and a
calibrated score ``s = p``; n labeled examples and 2,000 unlabeled ones per group.
In the "flipped" cells 12% of group B's labeled examples (exactly round(0.12 n))
have their label flipped: B's labels then follow ``0.12 + 0.76 p`` where the others
follow ``p``.

1. **Fits.** ``--fits`` data sets per cell (K ∈ {2, 4}, n ∈ {100, 500}, alike or
   flipped), each fitted with the default model (``bf.fit(data, draws=300, tune=300,
   chains=2, progressbar=False, random_seed=s)``) and checked with
   ``res.calibration_check()``. For comparison the same fits give the earlier check
   (the posterior predictive p-value of :func:`bayesfair.checks.calibration_ppc`,
   Holm-adjusted) and the shift likelihood ratio taken at each group's
   posterior-median map instead of the profile (the first design considered).
2. **Summaries.** The check reads only the labeled summary a fit keeps, so its
   verdicts on a data set do not depend on the fit: ``--replicates`` more data sets
   per cell go through :func:`bayesfair.checks.calibration_verdicts` directly
   (also n = 2,000 labels per group), for tighter rates. Part 1 confirms that the
   fit's table agrees with the direct one.
3. **Oracle bound.** The most powerful test of the shift alternative knows the
   shared map and the flipped group's per-side shifts; its likelihood ratio is
   about non-central χ² with 2 degrees of freedom and non-centrality
   ``Σ_h n_h Δ_h² / E[p(1 − p) | h]`` (``Δ_h`` the side's change of positive share).
   Its power at level α (no Holm adjustment) bounds any test of that alternative.

Rates are given with binomial standard errors ``sqrt(r (1 − r) / m)``.

Run: ``python benchmarks/calibration_check.py`` (about 10 minutes on two cores);
writes ``docs/results/calibration_check.md``.
"""

from __future__ import annotations

import argparse
import math
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

import bayesfair as bf
from bayesfair import checks
from bayesfair.models.likelihood import likelihood_data
from bayesfair.models.shift import SHIFT_GRID, stratum_shift_loglik
from bayesfair.simulate import miscalibrated_scores

FLIP = 0.12
GROUPS = ("A", "B", "C", "D")
ALPHA = 0.05
OUT = Path(__file__).resolve().parents[1] / "docs" / "results" / "calibration_check.md"


def make_data(k: int, n: int, flipped: bool, seed: int, n_unlabeled: int = 2000):
    """K groups alike; with ``flipped``, 12% of group B's labels flipped."""
    lab, unl = miscalibrated_scores(
        n, n_unlabeled, kind="none", groups=GROUPS[:k], random_seed=seed
    )
    if flipped:
        rng = np.random.default_rng([seed, 7])
        idx = np.flatnonzero(lab["group"].to_numpy() == "B")
        pick = rng.choice(idx, round(FLIP * idx.size), replace=False)
        lab.loc[pick, "label"] = 1 - lab.loc[pick, "label"]
    return bf.AssessmentData.from_frames(
        lab, unl.drop(columns="label"), score="score", label="label", group="group", reference="A"
    )


def old_check(res, rng) -> np.ndarray:
    """The earlier verdicts' p-values: the posterior predictive check, Holm-adjusted."""
    post = res.idata.posterior
    k = post.sizes["group"]
    a, b, c = (
        post[v].transpose("chain", "draw", "group").values.reshape(-1, k) for v in ("a", "b", "c")
    )

    def probabilities(g, log_s, log_1ms):
        eta = c[:, g, None] + a[:, g, None] * log_s[None] - b[:, g, None] * log_1ms[None]
        return 0.5 * (1.0 + np.tanh(0.5 * eta))

    table = checks.calibration_ppc(res.labeled_cells(), probabilities, rng=rng)
    return checks.holm_adjust(table["p_value"].to_numpy())


def own_map_lr(res) -> np.ndarray:
    """Holm-adjusted p-values of the shift LR at each group's posterior-median map."""
    post = res.idata.posterior
    k = post.sizes["group"]
    a, b, c = (
        np.median(post[v].transpose("chain", "draw", "group").values.reshape(-1, k), axis=0)[None]
        for v in ("a", "b", "c")
    )
    labeled = res.labeled_cells()
    grid = np.union1d(SHIFT_GRID, np.linspace(-0.5, 0.5, 2001))  # fine near the maximum
    ll = stratum_shift_loglik(likelihood_data(labeled), a, b, c, k, grid)[0]
    zero = int(np.argmin(np.abs(grid)))
    lr = 2.0 * (ll.max(axis=-1) - ll[:, zero]).reshape(k, 2)
    df = (labeled.totals() > 0).sum(axis=1)
    p = np.where(df > 0, stats.chi2.sf(lr.sum(axis=1), np.maximum(df, 1)), np.nan)
    return checks.holm_adjust(p)


def fixed_others_lr(labeled) -> np.ndarray:
    """Holm-adjusted p-values of the shift LR at a map fitted to the *other* groups'
    labels and then held fixed (ignores that map's estimation error)."""
    lik = likelihood_data(labeled)
    k = labeled.n_groups
    p = np.full(k, np.nan)
    for g in range(k):
        others = {key: v[lik["group_idx"] != g] for key, v in lik.items()}
        _, theta = checks._fit_shared(others, (), np.zeros(3))
        mine = {key: v[lik["group_idx"] == g] for key, v in lik.items()}
        free = tuple(sorted(set((2 * g + mine["side"]).tolist())))
        ll0 = checks._shared_loglik(np.r_[theta, np.zeros(len(free))], mine, free)[0]
        # shifts only: the map held at the others' fit
        from scipy.optimize import minimize

        fit = minimize(
            lambda d, th=theta, fr=free, mi=mine: -checks._shared_loglik(np.r_[th, d], mi, fr)[0],
            np.zeros(len(free)),
            method="L-BFGS-B",
            bounds=[(-10, 10)] * len(free),
        )
        p[g] = stats.chi2.sf(max(0.0, 2 * (-fit.fun - ll0)), len(free))
    return checks.holm_adjust(p)


def oracle_power(n: int, alpha: float = ALPHA) -> tuple[float, float]:
    """Power of the χ²(2) shift LR that knows the shared map and B's shifts (module doc)."""
    q = np.linspace(0.0005, 0.9995, 20_000)
    w = stats.beta.pdf(q, 2, 2)
    ncp = 0.0
    for side in (q < 0.5, q >= 0.5):
        ws = w[side] / w[side].sum()
        share = w[side].sum() / w.sum()
        delta = np.sum(ws * (FLIP - 2 * FLIP * q[side]))  # E[p' − p | side], p' = .12 + .76 p
        info = np.sum(ws * q[side] * (1 - q[side]))
        ncp += n * share * delta**2 / info
    crit = stats.chi2.ppf(1 - alpha, 2)
    return ncp, float(stats.ncx2.sf(crit, 2, ncp))


def rate(flags) -> str:
    flags = np.asarray(flags, dtype=float)
    m = flags.size
    r = flags.mean()
    return f"{int(flags.sum())}/{m} = {r:.2f} ± {math.sqrt(r * (1 - r) / m):.2f}"


def run_fits(n_fits: int) -> pd.DataFrame:
    rows = []
    for k in (2, 4):
        for n in (100, 500):
            for flipped in (False, True):
                for s in range(n_fits):
                    seed = 1000 * k + 10 * n + 5000 * flipped + s
                    data = make_data(k, n, flipped, seed)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        res = bf.fit(
                            data, draws=300, tune=300, chains=2, progressbar=False, random_seed=s
                        )
                    check = res.calibration_check(warn=False)
                    direct = checks.calibration_verdicts(data.labeled_summary(), ALPHA, 20)
                    same = np.allclose(
                        check["statistic"], direct["statistic"], equal_nan=True
                    ) and list(check["verdict"]) == list(direct["verdict"])
                    old = old_check(res, np.random.default_rng(s))
                    own = own_map_lr(res)
                    for g in range(k):
                        rows.append(
                            {
                                "K": k,
                                "n": n,
                                "flipped": flipped,
                                "seed": s,
                                "group": GROUPS[g],
                                "statistic": check["statistic"].iloc[g],
                                "p_adjusted": check["p_adjusted"].iloc[g],
                                "flag": check["verdict"].iloc[g] == "misfit",
                                "flag_old": old[g] < ALPHA,
                                "flag_own_map": own[g] < ALPHA,
                                "same_as_direct": same,
                            }
                        )
                    print(k, n, flipped, s, check["verdict"].tolist(), flush=True)
    return pd.DataFrame(rows)


def run_summaries(n_rep: int) -> pd.DataFrame:
    rows = []
    cells = [(k, n) for k in (2, 4) for n in (100, 500, 2000)]
    for k, n in cells:
        for flipped in (False, True):
            for r in range(n_rep):
                data = make_data(
                    k, n, flipped, 10**6 + 100_000 * k + 10 * n + 50_000 * flipped + r, 1
                )
                labeled = data.labeled_summary()
                table = checks.calibration_verdicts(labeled, ALPHA, 20)
                fixed = fixed_others_lr(labeled) if n == 500 else np.full(k, np.nan)
                for g in range(k):
                    rows.append(
                        {
                            "K": k,
                            "n": n,
                            "flipped": flipped,
                            "rep": r,
                            "group": GROUPS[g],
                            "flag": table["verdict"].iloc[g] == "misfit",
                            "flag_fixed_others": fixed[g] < ALPHA,
                        }
                    )
            print(k, n, flipped, flush=True)
    return pd.DataFrame(rows)


def report(fits: pd.DataFrame, sums: pd.DataFrame, seconds: float) -> str:
    lines = [
        "# Calibration check: size and power",
        "",
        "Written by `benchmarks/calibration_check.py` (module docstring: the design). The",
        "check (`bayesfair/checks.py`): for each group, the profile likelihood ratio of the",
        "labeled examples of all groups under one beta-calibration map shared by every group",
        "against the same with the group's examples moved by an intercept of their own on each",
        "side of the threshold, referred to χ² with as many degrees of freedom as the group has",
        "sides with labels; a group is a misfit when its Holm-adjusted p-value (over the K",
        f'groups) is below α = {ALPHA}. Data: `miscalibrated_scores(kind="none")`, groups',
        "alike (p ~ Beta(2, 2), calibrated scores), n labels and 2,000 unlabeled examples per",
        f'group; "flipped": {FLIP:.0%} of group B\'s labels flipped. Rates ± binomial standard',
        "errors.",
        "",
        "## 1. Fits (`bf.fit(data, draws=300, tune=300, chains=2, random_seed=s)`)",
        "",
        "Per cell, the share of fits in which a group is flagged: the check (`verdict ==",
        '"misfit"`), the earlier posterior predictive check (Holm-adjusted), and the shift',
        "likelihood ratio at each group's posterior-median map (the first design considered).",
        'In the "alike" cells every group counts (size, per group); in the "flipped" cells B',
        'is the distorted group and "others" are the groups like one another (A, C, D).',
        "",
        "| K | n per group | data | group(s) | check | earlier check (PPC) "
        "| shift LR at own posterior map |",
        "|---|---|---|---|---|---|---|",
    ]
    for (k, n, flipped), cell in fits.groupby(["K", "n", "flipped"]):
        parts = (
            [("B", cell[cell["group"] == "B"]), ("others", cell[cell["group"] != "B"])]
            if flipped
            else [("each", cell)]
        )
        for name, sub in parts:
            lines.append(
                f"| {k} | {n} | {'flipped' if flipped else 'alike'} | {name} | {rate(sub['flag'])} "
                f"| {rate(sub['flag_old'])} | {rate(sub['flag_own_map'])} |"
            )
    alike = fits[~fits["flipped"]]
    any_flag = alike.groupby(["K", "n", "seed"])["flag"].any()
    lines += [
        "",
        f"Fits whose table equals the direct computation on the data's labeled summary: "
        f"{fits.groupby(['K', 'n', 'flipped', 'seed'])['same_as_direct'].first().mean():.0%}.",
        f"Alike data, fits with any group flagged (family-wise): {rate(any_flag)}.",
        "",
        "## 2. Summaries (the check on the labeled summary alone, more data sets)",
        "",
        "| K | n per group | data | group(s) | flagged | map of the others held fixed |",
        "|---|---|---|---|---|---|",
    ]
    for (k, n, flipped), cell in sums.groupby(["K", "n", "flipped"]):
        parts = (
            [("B", cell[cell["group"] == "B"]), ("others", cell[cell["group"] != "B"])]
            if flipped
            else [("each", cell)]
        )
        for name, sub in parts:
            fixed = rate(sub["flag_fixed_others"]) if n == 500 else ""
            lines.append(
                f"| {k} | {n} | {'flipped' if flipped else 'alike'} | {name} | "
                f"{rate(sub['flag'])} | {fixed} |"
            )
    lines += [
        "",
        "## 3. Oracle bound of the shift alternative",
        "",
        "The χ²(2) likelihood ratio of a test that knows the shared map and B's per-side shifts",
        "(non-centrality Σ_h n_h Δ_h² / E[p(1 − p) | h]; 12% flipped moves each side's positive",
        "share by about 4.5 points), at level 0.05 without Holm's adjustment:",
        "",
        "| labels in B | non-centrality | oracle power |",
        "|---|---|---|",
    ]
    for n in (100, 500, 2000):
        ncp, power = oracle_power(n)
        lines.append(f"| {n} | {ncp:.1f} | {power:.2f} |")
    lines += ["", f"Run time: {seconds / 60:.1f} minutes.", ""]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fits", type=int, default=10)
    parser.add_argument("--replicates", type=int, default=100)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    t0 = time.time()
    fits = run_fits(args.fits)
    sums = run_summaries(args.replicates)
    text = report(fits, sums, time.time() - t0)
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
