"""A small group with five negative labels: how often does the default say it has no
positive at all, and where do those draws come from?

A Bank-like case, simulated: group A has 3,000 rows (195 labeled), group B 358 rows
(5 labeled, all negatives); scores ``s ~ Beta(1, 3)`` and labels ``y ~ Bernoulli(s)`` in
both groups (calibrated; about 84 positives in B). For each labeled set, the default
fit's share of draws in which B has no positive among its 358 assessed rows (its TPR is
0/0 there: ``prob_undefined("tpr")``), split by cause: a stratum of B drawn as off the
map (``posterior["misfit"]``; its rate from the own-rate prior) or the map itself (B's
``c`` far below the population's, in the hierarchy's prior tail, which five negatives
cannot rule out).

Usage::

    python benchmarks/undefined_draws.py --sets 20
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np

import bayesfair as bf


def bank_like(seed: int):
    """The data of one labeled set (module docstring) and B's number of positives."""
    rng = np.random.default_rng(seed)
    s_a = rng.beta(1, 3, 3000)
    y_a = (rng.random(3000) < s_a).astype(int)
    s_b = rng.beta(1, 3, 358)
    y_b = (rng.random(358) < s_b).astype(int)
    lab_b = np.zeros(358, bool)
    lab_b[np.flatnonzero(y_b == 0)[:5]] = True
    lab_a = np.zeros(3000, bool)
    lab_a[rng.choice(3000, 195, replace=False)] = True
    data = bf.AssessmentData(
        np.r_[s_a[lab_a], s_b[lab_b]],
        np.r_[y_a[lab_a], y_b[lab_b]],
        np.r_[np.full(lab_a.sum(), "A"), np.full(5, "B")],
        np.r_[s_a[~lab_a], s_b[~lab_b]],
        np.r_[np.full((~lab_a).sum(), "A"), np.full(353, "B")],
        reference="A",
    )
    return data, int(y_b.sum())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", type=int, default=20)
    args = ap.parse_args(argv)
    shares, by_map = [], []
    for seed in range(args.sets):
        data, positives = bank_like(seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = bf.fit(data, metrics=["tpr"], random_seed=seed, progressbar=False)
        none = np.isnan(res.rates("tpr").sel(group="B").values.ravel())
        off = res.idata.posterior["misfit"].sel(group="B").values.reshape(-1, 2).any(axis=1)
        shares.append(none.mean())
        by_map.append((none & ~off).mean())
        off_share = (none & off).mean()
        print(
            f"set {seed}: B has {positives} positives; P(none) = {none.mean():.4%} "
            f"(map {by_map[-1]:.4%}, an off stratum {off_share:.4%})",
            flush=True,
        )
    shares, by_map = np.array(shares), np.array(by_map)
    se = shares.std(ddof=1) / np.sqrt(shares.size)
    off_mean = shares.mean() - by_map.mean()
    print(
        f"mean P(no positive in B) = {shares.mean():.4%} (SE {se:.4%}); from the map "
        f"{by_map.mean():.4%}, from an off stratum {off_mean:.4%}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
