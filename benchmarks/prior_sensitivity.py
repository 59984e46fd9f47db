"""Power-scaling sensitivity against the prior share: which tells "mostly the prior's"?

The two diagnostics of :mod:`bayesfair.posterior.sensitivity`'s docstring on the two-group data
of ``pooling_coverage.py`` (maps that agree or differ by a logit shift; 5, 20 or 100
labels per group): for each fit and gap, the power-scaling sensitivity D of
Kallioinen et al. (2023), exactly ArviZ's ``psens`` (checked against it on the first
fit: ``--check-arviz``), with its threshold 0.05, and the prior share
Var(Δ | data) / Var(Δ) with its threshold 0.5. Prints, per cell, the share of fits each
flags. D was measured and not adopted (docs/concepts.md, "Prior sensitivity"); its code
lives here.

Usage::

    python benchmarks/prior_sensitivity.py --reps 20 [--check-arviz]
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd
from pooling_coverage import METRICS, shifted_groups

import bayesfair as bf
from bayesfair.posterior.sensitivity import log_prior_draws, powerscale_log_weights


def cjs_distance(draws, weights) -> float:
    """Cumulative Jensen–Shannon distance between draws and the same draws weighted.

    ``arviz.stats.stats._cjs_dist`` (Nguyen & Vreeken 2015; Kallioinen et al.
    2023, eq. 9), normalised to [0, 1] by the sum of the two ECDF integrals.
    """
    x = np.asarray(draws, dtype=float)
    w = np.asarray(weights, dtype=float)
    order = np.argsort(x, kind="stable")
    x, w = x[order], w[order]
    n = x.size
    width = np.diff(x)
    cdf_p = np.linspace(1 / n, 1 - 1 / n, n - 1)
    cdf_q = np.cumsum(w / w.sum())[:-1]
    int_p, int_q = cdf_p @ width, cdf_q @ width
    if int_p + int_q <= 0:  # a constant quantity: no distance
        return 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        log_p = np.where(cdf_p > 0, np.log2(np.where(cdf_p > 0, cdf_p, 1.0)), 0.0)
        log_q = np.where(cdf_q > 0, np.log2(np.where(cdf_q > 0, cdf_q, 1.0)), 0.0)
        mid = 0.5 * (cdf_p + cdf_q)
        log_m = np.where(mid > 0, np.log2(np.where(mid > 0, mid, 1.0)), 0.0)
    pq = np.sum(width * cdf_p * (log_p - log_m)) + 0.5 / np.log(2) * (int_q - int_p)
    qp = np.sum(width * cdf_q * (log_q - log_m)) + 0.5 / np.log(2) * (int_p - int_q)
    return float(np.sqrt((max(pq, 0.0) + max(qp, 0.0)) / (int_p + int_q)))


def powerscale_sensitivity(draws, log_component, delta: float = 0.01) -> float:
    """The power-scaling sensitivity D of a quantity (module docstring, eq. 10).

    Parameters
    ----------
    draws : array_like
        Draws of the quantity (any shape; flattened). NaN draws (an undefined
        rate) are set aside with their log component.
    log_component : array_like
        The power-scaled component's log density at each draw, same size.
    delta : float, default 0.01

    Returns
    -------
    float
        NaN when fewer than two draws are defined; 0 for a constant quantity
        or a component that does not vary (a flat prior).
    """
    x = np.asarray(draws, dtype=float).ravel()
    lc = np.asarray(log_component, dtype=float).ravel()
    keep = ~np.isnan(x)
    x, lc = x[keep], lc[keep]
    if x.size < 2:
        return np.nan
    if np.ptp(lc) == 0 or np.ptp(x) == 0:
        return 0.0
    total = 0.0
    for alpha in (1.0 / (1.0 + delta), 1.0 + delta):
        w = np.exp(powerscale_log_weights(lc, alpha)[0])
        total += max(cjs_distance(x, w), cjs_distance(-x, w))
    return float(total / (2.0 * np.log2(1.0 + delta)))


def check_against_arviz(res) -> float:
    """D of Δ accuracy here and ArviZ's psens with the prior written out (their difference)."""
    import arviz_stats as azs
    import xarray as xr
    from scipy import stats

    from bayesfair._internal.tree import make_tree

    post = res.idata.posterior
    log_prior = {}
    for p, (mu_sd, sig_sd) in {"a": (0.4, 0.15), "b": (0.4, 0.15), "c": (2.0, 0.75)}.items():
        log_prior[f"mu_{p}"] = (("chain", "draw"), stats.norm(0, mu_sd).logpdf(post[f"mu_{p}"]))
        log_prior[f"sigma_{p}"] = (
            ("chain", "draw"),
            stats.halfnorm(scale=sig_sd).logpdf(post[f"sigma_{p}"]),
        )
        log_prior[f"z_{p}"] = (post[f"z_{p}"].dims, stats.norm().logpdf(post[f"z_{p}"]))
    d = res.difference("accuracy")
    idata = make_tree({"posterior": xr.Dataset({"d": d}), "log_prior": xr.Dataset(log_prior)})
    ours = powerscale_sensitivity(
        d.values, log_prior_draws(res.idata, res.model, res.settings, "accuracy")
    )
    return abs(ours - float(azs.psense(idata, group="prior")["d"]))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--check-arviz", action="store_true")
    args = ap.parse_args(argv)
    rows = []
    for shift in (0.0, 1.0):
        for n in (5, 20, 100):
            for r in range(args.reps):
                data, _ = shifted_groups(n, shift, 1000, r)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    res = bf.fit(data, metrics=list(METRICS), random_seed=r, progressbar=False)
                if args.check_arviz and not rows:
                    print(f"|D - arviz.psens| = {check_against_arviz(res):.2e}")
                lp = log_prior_draws(res.idata, res.model, res.settings, "accuracy")
                table = res.sensitivity().set_index("metric")
                for m in METRICS:
                    d = res.difference(m).values
                    rows.append(
                        {
                            "shift": shift,
                            "n_per_group": n,
                            "rep": r,
                            "metric": m,
                            "D": powerscale_sensitivity(d, lp),
                            "share": table.loc[m, "statistic"],
                        }
                    )
    df = pd.DataFrame(rows)
    df["D_flags"], df["share_flags"] = df["D"] >= 0.05, df["share"] >= 0.5
    out = df.groupby(["shift", "n_per_group", "metric"])[
        ["D", "D_flags", "share", "share_flags"]
    ].agg(["median", "mean"])
    cols = [("D", "median"), ("D_flags", "mean"), ("share", "median"), ("share_flags", "mean")]
    print(out[cols].round(3).to_string())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
