"""JAGS reference implementation of hierarchical Bayesian beta calibration (BC).

This is the *reference* side of the bayesfair speed benchmark: the model of
Ji, Smyth & Steyvers (2020, NeurIPS, §2.3–2.4) written the way the paper did
it, as a JAGS graphical model in which every unlabeled example's calibrated
probability ``p_j`` and expected correctness ``z_j`` (Eq. 1) is a
deterministic node, and the group accuracy / TPR / FPR are deterministic nodes
built from the labeled confusion counts plus the expected unlabeled counts.
Cost and memory are therefore linear in ``n_U`` — that is the point of the
comparison, not an accident. (Measured here: the ``n_U``-dependent time is in
``compile``/``initialize`` and in the monitored iterations; JAGS does not
evaluate the per-row nodes during burn-in because nothing stochastic depends on
them and they are not monitored yet, so the 1500 burn-in iterations are cheap.)

Calibration model (Eq. 2), with ``a, b > 0``::

    f(s; a, b, c) = 1 / (1 + exp(-c - a log s + b log(1 - s)))
    log a_g ~ N(mu_a, sigma_a), log b_g ~ N(mu_b, sigma_b), c_g ~ N(mu_c, sigma_c)
    mu_a, mu_b ~ N(0, 0.4), mu_c ~ N(0, 2)
    sigma_a, sigma_b ~ N+(0, 0.15), sigma_c ~ N+(0, 0.75)   (half-normal)
    y_i ~ Bernoulli(f(s_i; a_{g_i}, b_{g_i}, c_{g_i}))       (labeled)

The second argument of N(., .) is a standard deviation (JAGS ``dnorm`` takes a
precision, so ``tau = 1 / sd^2``). Scores are clipped to [0.01, 0.99] and
predictions are ``yhat = 1[s >= threshold]`` (on the clipped score; identical
to the raw score for any threshold inside [0.01, 0.99]).

JAGS is driven through its command-line script interface (no R needed): data
and per-chain initial values are written in R dump format, the model to a
``.bug`` file, and a ``.cmd`` script compiles, burns in, monitors and writes
CODA output, which is parsed back into arrays of shape ``(chain, draw, ...)``.

Install JAGS on Debian/Ubuntu with ``apt-get install -y jags`` (and
``apt-get install -y time`` for GNU ``/usr/bin/time``, used for the peak
memory of the JAGS process). Run the Adult benchmark with::

    python benchmarks/jags_reference.py                 # n_U = 10^4
    python benchmarks/jags_reference.py --n-unlabeled 100000
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

__all__ = ["JAGS_MODEL", "jags_available", "rhat", "run_jags_bc"]

CLIP = (0.01, 0.99)

#: The JAGS model, verbatim. Data: sL, yL, gL (labeled), sU, yhatU, gU
#: (unlabeled), the indicator matrices InU / PosU / NegU (n_U x G:
#: 1[g_j = g], 1[g_j = g, yhat_j = 1], 1[g_j = g, yhat_j = 0]), the per-group
#: unlabeled sizes nUg / nPosU / nNegU, labeled sizes nLg and the labeled confusion
#: counts tpL / fpL / tnL / fnL (constants).
JAGS_MODEL = """\
model {
  # hyperpriors (second argument of N(.,.) is an SD; JAGS dnorm takes precision)
  mu_a ~ dnorm(0, 1 / (0.4 * 0.4))
  mu_b ~ dnorm(0, 1 / (0.4 * 0.4))
  mu_c ~ dnorm(0, 1 / (2 * 2))
  sigma_a ~ dnorm(0, 1 / (0.15 * 0.15)) T(0,)
  sigma_b ~ dnorm(0, 1 / (0.15 * 0.15)) T(0,)
  sigma_c ~ dnorm(0, 1 / (0.75 * 0.75)) T(0,)

  # group-level beta-calibration parameters
  for (g in 1:G) {
    log_a[g] ~ dnorm(mu_a, 1 / (sigma_a * sigma_a))
    log_b[g] ~ dnorm(mu_b, 1 / (sigma_b * sigma_b))
    c[g] ~ dnorm(mu_c, 1 / (sigma_c * sigma_c))
    a[g] <- exp(log_a[g])
    b[g] <- exp(log_b[g])
  }

  # labeled likelihood: y_i ~ Bernoulli(f(s_i; a, b, c))
  for (i in 1:nL) {
    yL[i] ~ dbern(ilogit(c[gL[i]] + a[gL[i]] * log(sL[i]) - b[gL[i]] * log(1 - sL[i])))
  }

  # unlabeled: calibrated P(y_j = 1) and z_j = P(yhat_j = y_j), deterministic nodes
  for (j in 1:nU) {
    pU[j] <- ilogit(c[gU[j]] + a[gU[j]] * log(sU[j]) - b[gU[j]] * log(1 - sU[j]))
    zU[j] <- yhatU[j] * pU[j] + (1 - yhatU[j]) * (1 - pU[j])
  }

  # group metrics: observed labeled counts + expected unlabeled counts
  for (g in 1:G) {
    tpU[g] <- inprod(pU[1:nU], PosU[1:nU, g])
    fnU[g] <- inprod(pU[1:nU], NegU[1:nU, g])
    fpU[g] <- nPosU[g] - tpU[g]
    tnU[g] <- nNegU[g] - fnU[g]
    TP[g] <- tpL[g] + tpU[g]
    FP[g] <- fpL[g] + fpU[g]
    TN[g] <- tnL[g] + tnU[g]
    FN[g] <- fnL[g] + fnU[g]
    # Eq. (1): labeled correctness indicators + unlabeled z_j
    acc[g] <- (tpL[g] + tnL[g] + inprod(zU[1:nU], InU[1:nU, g])) / (nLg[g] + nUg[g])
    tpr[g] <- TP[g] / (TP[g] + FN[g])
    fpr[g] <- FP[g] / (FP[g] + TN[g])
  }
}
"""

#: Nodes monitored (the per-row pU / zU are deliberately not monitored).
MONITORS = (
    "acc",
    "tpr",
    "fpr",
    "a",
    "b",
    "c",
    "mu_a",
    "mu_b",
    "mu_c",
    "sigma_a",
    "sigma_b",
    "sigma_c",
)

_RNG = "base::Mersenne-Twister"


def jags_available() -> bool:
    """True when the ``jags`` command-line program is on the PATH."""
    return shutil.which("jags") is not None


# --------------------------------------------------------------------------- #
# R dump writing / CODA reading
# --------------------------------------------------------------------------- #
def _fmt(x) -> str:
    x = float(x)
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    return repr(x)


def _r_value(v) -> str:
    if isinstance(v, str):
        return '"' + v + '"'
    arr = np.asarray(v)
    if arr.ndim == 0:
        return _fmt(arr)
    flat = ", ".join(_fmt(x) for x in arr.ravel(order="F"))  # R is column-major
    if arr.ndim == 1:
        return f"c({flat})"
    dims = ", ".join(f"{d}L" for d in arr.shape)
    return f"structure(c({flat}), .Dim = c({dims}))"


def _write_rdump(path: Path, values: dict) -> None:
    with open(path, "w") as fh:
        for name, v in values.items():
            fh.write(f'"{name}" <- {_r_value(v)}\n')


def _read_coda(workdir: Path, stem: str, n_chains: int) -> dict[str, np.ndarray]:
    index = []
    with open(workdir / f"{stem}index.txt") as fh:
        for line in fh:
            name, start, end = line.split()
            index.append((name, int(start) - 1, int(end)))
    chains = []
    for k in range(1, n_chains + 1):
        vals = np.loadtxt(workdir / f"{stem}chain{k}.txt", usecols=1, ndmin=1)
        chains.append({name: vals[s:e] for name, s, e in index})
    # group "acc[1]", "acc[2]" ... into acc[..., g]
    bases: dict[str, list[tuple[int, str]]] = {}
    for name, _, _ in index:
        m = re.fullmatch(r"([^\[]+)(?:\[(\d+)\])?", name)
        base, idx = m.group(1), m.group(2)
        bases.setdefault(base, []).append((int(idx) if idx else 0, name))
    out = {}
    for base, items in bases.items():
        items.sort()
        arr = np.stack([np.stack([ch[n] for _, n in items], axis=-1) for ch in chains])
        if items[0][0] == 0:  # scalar node
            arr = arr[..., 0]
        out[base] = arr
    return out


# --------------------------------------------------------------------------- #
# diagnostics
# --------------------------------------------------------------------------- #
def rhat(x: np.ndarray) -> np.ndarray:
    """Rank-normalised split R-hat over the first two axes (chain, draw): the package's.

    :func:`bayesfair.stats.rank_rhat` (Vehtari et al. 2021, as ``arviz.rhat``),
    for draws of any trailing shape; one implementation for both samplers.
    """
    from bayesfair.stats import rank_rhat

    x = np.asarray(x, dtype=float)
    return rank_rhat(x.reshape(x.shape[0], x.shape[1], -1)).reshape(x.shape[2:])


# --------------------------------------------------------------------------- #
# the runner
# --------------------------------------------------------------------------- #
def _initial_values(rng: np.random.Generator, n_groups: int, chain: int, seed: int) -> dict:
    """Dispersed starting values drawn from the prior (half-width-limited)."""
    mu_a, mu_b = rng.normal(0, 0.4, 2)
    mu_c = rng.normal(0, 2.0)
    sig_a, sig_b = np.abs(rng.normal(0, 0.15, 2)) + 1e-3
    sig_c = abs(rng.normal(0, 0.75)) + 1e-3
    return {
        "mu_a": mu_a,
        "mu_b": mu_b,
        "mu_c": mu_c,
        "sigma_a": sig_a,
        "sigma_b": sig_b,
        "sigma_c": sig_c,
        "log_a": rng.normal(mu_a, sig_a, n_groups),
        "log_b": rng.normal(mu_b, sig_b, n_groups),
        "c": rng.normal(mu_c, sig_c, n_groups),
        ".RNG.name": _RNG,
        ".RNG.seed": int(seed) * 1000 + chain + 1,
    }


def _peak_rss_from_time(stderr: str) -> float | None:
    m = re.search(r"Maximum resident set size \(kbytes\):\s*(\d+)", stderr)
    return int(m.group(1)) / 1024.0 if m else None


def run_jags_bc(
    scores_l,
    y_l,
    g_l,
    scores_u,
    g_u,
    n_groups: int,
    threshold: float = 0.5,
    n_chains: int = 4,
    n_burnin: int = 1500,
    n_draws: int = 200,
    seed: int = 0,
    workdir: str | os.PathLike | None = None,
) -> dict:
    """Fit the paper's BC model in JAGS and return posterior draws.

    Parameters
    ----------
    scores_l, y_l, g_l : labeled scores in [0, 1], labels in {0, 1}, group codes
        in ``0..n_groups-1``.
    scores_u, g_u : unlabeled scores and group codes. Every group needs at
        least one labeled or unlabeled example for its metrics to be defined.
    threshold : decision threshold, ``yhat = 1[s >= threshold]``.
    n_chains, n_burnin, n_draws : 4 x (1500 + 200) as in the paper.
    seed : seeds the initial values and each chain's JAGS RNG.
    workdir : directory for the JAGS files; a temporary directory (removed
        afterwards) when None. A given ``workdir`` is kept.

    Returns
    -------
    dict with arrays of shape ``(chain, draw, n_groups)`` for ``acc``, ``tpr``,
    ``fpr``, ``a``, ``b``, ``c`` and ``(chain, draw)`` for the hyperparameters
    ``mu_a ... sigma_c``; ``wall_time_s`` (the ``jags`` subprocess only),
    ``peak_rss_mb`` (of the ``jags`` process, from GNU time when available),
    ``peak_rss_source``, ``total_time_s`` (including writing data and reading
    CODA), ``jags_stdout``, ``model``, ``command``.
    """
    if not jags_available():
        raise RuntimeError("JAGS is not installed (apt-get install -y jags).")
    sL = np.clip(np.asarray(scores_l, float), *CLIP)
    yL = np.asarray(y_l).astype(int)
    gL = np.asarray(g_l).astype(int)
    sU = np.clip(np.asarray(scores_u, float), *CLIP)
    gU = np.asarray(g_u).astype(int)
    G = int(n_groups)
    if not (len(sL) == len(yL) == len(gL)) or len(sU) != len(gU):
        raise ValueError("Labeled (or unlabeled) inputs differ in length.")
    if len(sL) == 0 or len(sU) == 0:
        raise ValueError("The JAGS reference needs at least one labeled and one unlabeled row.")
    if set(np.unique(yL)) - {0, 1}:
        raise ValueError("Labels must be 0/1.")
    for gg in (gL, gU):
        if gg.min() < 0 or gg.max() >= G:
            raise ValueError(f"Group codes must lie in 0..{G - 1}.")
    yhatL = (sL >= threshold).astype(int)
    yhatU = (sU >= threshold).astype(int)

    onehotU = (gU[:, None] == np.arange(G)[None, :]).astype(int)
    posU = onehotU * yhatU[:, None]
    negU = onehotU * (1 - yhatU[:, None])
    onehotL = gL[:, None] == np.arange(G)[None, :]
    data = {
        "G": G,
        "nL": len(sL),
        "nU": len(sU),
        "sL": sL,
        "yL": yL,
        "gL": gL + 1,
        "sU": sU,
        "yhatU": yhatU,
        "gU": gU + 1,
        "InU": onehotU,
        "PosU": posU,
        "NegU": negU,
        "nUg": onehotU.sum(0),
        "nPosU": posU.sum(0),
        "nNegU": negU.sum(0),
        "nLg": onehotL.sum(0),
        "tpL": (onehotL & ((yhatL == 1) & (yL == 1))[:, None]).sum(0),
        "fpL": (onehotL & ((yhatL == 1) & (yL == 0))[:, None]).sum(0),
        "tnL": (onehotL & ((yhatL == 0) & (yL == 0))[:, None]).sum(0),
        "fnL": (onehotL & ((yhatL == 0) & (yL == 1))[:, None]).sum(0),
    }

    t_total = time.perf_counter()
    tmp = None
    if workdir is None:
        tmp = tempfile.mkdtemp(prefix="jags_bc_")
        wd = Path(tmp)
    else:
        wd = Path(workdir)
        wd.mkdir(parents=True, exist_ok=True)
    try:
        (wd / "model.bug").write_text(JAGS_MODEL)
        _write_rdump(wd / "data.R", data)
        rng = np.random.default_rng(seed)
        lines = ['model in "model.bug"', 'data in "data.R"', f"compile, nchains({n_chains})"]
        for k in range(n_chains):
            _write_rdump(wd / f"inits{k + 1}.R", _initial_values(rng, G, k, seed))
            lines.append(f'parameters in "inits{k + 1}.R", chain({k + 1})')
        lines += ["initialize", f"update {n_burnin}"]
        lines += [f"monitor {m}" for m in MONITORS]
        lines += [f"update {n_draws}", "coda *", "exit"]
        (wd / "run.cmd").write_text("\n".join(lines) + "\n")

        gnu_time = "/usr/bin/time" if Path("/usr/bin/time").exists() else None
        cmd = ([gnu_time, "-v"] if gnu_time else []) + ["jags", "run.cmd"]
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, cwd=wd, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        if proc.returncode != 0 or not (wd / "CODAindex.txt").exists():
            raise RuntimeError(
                f"JAGS failed (exit {proc.returncode}).\nstdout:\n{proc.stdout[-3000:]}\n"
                f"stderr:\n{proc.stderr[-3000:]}"
            )
        peak = _peak_rss_from_time(proc.stderr) if gnu_time else None
        source = "GNU time -v (jags process)"
        if peak is None:
            # ru_maxrss of the largest child so far, in kB on Linux
            peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
            source = "getrusage(RUSAGE_CHILDREN).ru_maxrss (largest child so far)"
        draws = _read_coda(wd, "CODA", n_chains)
        if any(v.shape[1] != n_draws for v in draws.values()):
            raise RuntimeError("CODA output does not hold the expected number of draws.")
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    out = dict(draws)
    out.update(
        wall_time_s=wall,
        total_time_s=time.perf_counter() - t_total,
        peak_rss_mb=peak,
        peak_rss_source=source,
        jags_stdout=proc.stdout,
        model=JAGS_MODEL,
        command=" ".join(cmd),
        script="\n".join(lines) + "\n",
    )
    return out


# --------------------------------------------------------------------------- #
# CLI: Adult-sex, MLP scores
# --------------------------------------------------------------------------- #
ADULT = Path(__file__).resolve().parents[1] / "data" / "scores" / "adult_race_scores.csv.gz"
SCORE = "score_MultiLayerPerceptron"
LABEL = "income-per-year"


def _adult_split(n_labeled: int, n_unlabeled: int, seed: int):
    """n_L labeled rows at random; n_U unlabeled rows from the remaining rows.

    Without replacement when n_U <= number of remaining rows; otherwise
    n_U rows drawn *with replacement* (i.i.d.) from the remainder (the file has
    10,054 rows, so n_L = 100 leaves 9,954 and n_U = 10^4 needs resampling).
    """
    import pandas as pd

    df = pd.read_csv(ADULT)
    rng = np.random.default_rng(seed)
    perm = rng.permutation(len(df))
    lab, rest = perm[:n_labeled], perm[n_labeled:]
    replace = n_unlabeled > len(rest)
    unl = rng.choice(rest, size=n_unlabeled, replace=replace)
    codes = {"Male": 0, "Female": 1}  # 0 = privileged / reference
    g = df["sex"].map(codes).to_numpy()
    s = df[SCORE].to_numpy(float)
    y = df[LABEL].to_numpy(int)
    return df, (s[lab], y[lab], g[lab]), (s[unl], g[unl]), replace, len(rest)


def _true_metrics(s, y, g, threshold=0.5):
    yhat = (np.clip(s, *CLIP) >= threshold).astype(int)
    res = {}
    for k in (0, 1):
        m = g == k
        res[k] = dict(
            acc=np.mean(yhat[m] == y[m]),
            tpr=yhat[m & (y == 1)].mean(),
            fpr=yhat[m & (y == 0)].mean(),
        )
    return {met: res[1][met] - res[0][met] for met in ("acc", "tpr", "fpr")}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n-labeled", type=int, default=100)
    p.add_argument("--n-unlabeled", type=int, default=10_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--chains", type=int, default=4)
    p.add_argument("--burnin", type=int, default=1500)
    p.add_argument("--draws", type=int, default=200)
    p.add_argument("--show-model", action="store_true", help="print the JAGS model text")
    args = p.parse_args(argv)
    if not jags_available():
        print("JAGS not found: apt-get install -y jags", file=sys.stderr)
        return 1
    df, (sL, yL, gL), (sU, gU), replaced, n_rest = _adult_split(
        args.n_labeled, args.n_unlabeled, args.seed
    )
    print(
        f"Adult-sex, {SCORE}: {len(df)} rows; n_L = {len(sL)} "
        f"(Male {np.sum(gL == 0)}, Female {np.sum(gL == 1)}), n_U = {len(sU)} "
        + (
            f"(drawn WITH replacement from the {n_rest} remaining rows)"
            if replaced
            else f"(without replacement from the {n_rest} remaining rows)"
        )
    )
    if args.show_model:
        print(JAGS_MODEL)
    r = run_jags_bc(
        sL,
        yL,
        gL,
        sU,
        gU,
        n_groups=2,
        n_chains=args.chains,
        n_burnin=args.burnin,
        n_draws=args.draws,
        seed=args.seed,
    )
    print(f"command: {r['command']}  ({args.chains} chains x ({args.burnin} + {args.draws}))")
    print(f"JAGS wall time: {r['wall_time_s']:.2f} s   (total incl. I/O {r['total_time_s']:.2f} s)")
    print(f"JAGS peak RSS: {r['peak_rss_mb']:.1f} MB   [{r['peak_rss_source']}]")
    truth = _true_metrics(
        df[SCORE].to_numpy(float),
        df[LABEL].to_numpy(int),
        df["sex"].map({"Male": 0, "Female": 1}).to_numpy(),
    )
    print("\nDelta = Female - Male    posterior mean   95% interval          truth (all rows)")
    for met in ("acc", "tpr", "fpr"):
        d = (r[met][..., 1] - r[met][..., 0]).ravel()
        lo, hi = np.quantile(d, [0.025, 0.975])
        print(
            f"  Delta {met:<4}              {d.mean():+.4f}        [{lo:+.4f}, {hi:+.4f}]"
            f"     {truth[met]:+.4f}"
        )
    print("\nGroup posterior means (Male, Female):")
    for met in ("acc", "tpr", "fpr", "a", "b", "c"):
        m = r[met].mean(axis=(0, 1))
        print(f"  {met:<4} {m[0]:.4f}  {m[1]:.4f}")
    print("\nrank-normalised split R-hat (Male, Female):")
    for par in ("a", "b", "c", "acc", "tpr", "fpr"):
        rh = rhat(r[par])
        print(f"  {par:<4} {rh[0]:.4f}  {rh[1]:.4f}")
    hyp = ", ".join(
        f"{h} {float(rhat(r[h])):.3f}"
        for h in ("mu_a", "mu_b", "mu_c", "sigma_a", "sigma_b", "sigma_c")
    )
    print(f"hyperparameter R-hat: {hyp}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
