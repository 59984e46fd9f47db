"""Between-group variance of ``hbb`` variants on Lum et al.'s scenarios: bias, RMSE, coverage.

The diagnostic behind the ``hbb`` size trend and prior
(``docs/results/variance_coverage.md``). For each scenario of Lum, Zhang &
Bower (2022, §5.1, Table 2) and each model variant, the posterior of the sample
variance (ddof = 1) of the K = 100 group rates is summarised over replicates:
bias and RMSE of its mean against ``M_var(μ)`` (ddof = 1), coverage of its
95% equal-tailed interval, its one-sided 95% upper bound and P(variance < δ).

Variants (collapsed beta-binomial, NUTS on the population parameters, group
rates drawn exactly from their conditional Beta posterior):

* ``legacy``: one population mean, κ ~ Pareto(1.5, 1) (``hbb`` before the fix);
* ``bda3``: one population mean, κ ~ Pareto(0.5, 1) (the corrected BDA3 prior);
* ``linear``: ``bda3`` plus a linear trend of logit μ_k in centred log size
  (slope ~ Normal(0, 2));
* ``hbb``: the package's model, ``bayesfair.fit(data, model="hbb")`` (quadratic
  trend, Pareto(0.5, 1)).

Scenarios: Lum et al.'s four, plus ``shuffled``: the unequal-size,
unequal-performance scenario with the group sizes randomly permuted
(``numpy.random.default_rng(123)``), so that size and rate are unrelated.

Replicates use the seeds of ``tests/statistical/test_variance_coverage.py`` (fit seed i
for replicate i), so the figures pair with the test's; ``--seed`` sets one data
seed for all scenarios instead (the diagnostic used ``--seed 7 --reps 60``). Fits: 2 chains × 500
draws after 500 tuning steps, target_accept 0.99.

``--empirical-bayes`` runs instead a cheap screen of population mean functions
(none, linear, quadratic, cubic in log size) with plug-in hyperparameters
(:func:`empirical_bayes_screen`), over the two unequal-performance scenarios,
``shuffled`` and ``reversed`` (sizes in reverse order: large groups have the low
rates).

Run::

    python benchmarks/variance_coverage.py --variants legacy --reps 200 --reps-equal 50
    python benchmarks/variance_coverage.py --empirical-bayes --reps 200
    python benchmarks/variance_coverage.py --variants legacy,bda3,linear --reps 60 --seed 7 \\
        --scenarios equal_size_unequal_perf,unequal_size_unequal_perf,shuffled
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

SEEDS = {
    "equal_size_unequal_perf": 2201,
    "unequal_size_unequal_perf": 2202,
    "equal_size_equal_perf": 2203,
    "unequal_size_equal_perf": 2204,
    "shuffled": 2202,
}
DELTA = 0.001
#: Prior sd of the ``linear`` variant's slope (logit per unit of log size).
SLOPE_SD = 2.0
RUN = dict(draws=500, tune=500, chains=2, progressbar=False, target_accept=0.99)


def scenario(name: str):
    """True rates, sizes and M_var(μ) of a scenario (``shuffled``: sizes permuted)."""
    from bayesfair.datasets.simulate import lum_scenario

    sc = lum_scenario("unequal_size_unequal_perf" if name == "shuffled" else name)
    n = np.array(sc.n_k)
    if name == "shuffled":
        n = np.random.default_rng(123).permutation(n)
    return np.array(sc.mu), n, sc.true_variance


def build_variant(x, n, kappa_alpha: float, linear: bool):
    """A single-metric collapsed hbb with one population mean (optionally a linear trend)."""
    import pymc as pm

    with pm.Model() as model:
        mu = pm.Beta("mu", 1.0, 1.0)
        kappa = pm.Pareto("kappa", alpha=kappa_alpha, m=1.0)
        z = pm.Data("z", np.zeros(n.size))
        if linear:
            slope = pm.Normal("slope", 0.0, SLOPE_SD)
            mu_k = pm.math.invlogit(pm.math.logit(mu) + slope * z)
        else:
            mu_k = mu + 0 * z
        pm.Deterministic("mu_k", mu_k)
        trials = pm.Data("trials", n.astype(np.int64))
        successes = pm.Data("successes", x.astype(np.int64))
        pm.BetaBinomial(
            "x", n=trials, alpha=mu_k * kappa, beta=(1 - mu_k) * kappa, observed=successes
        )
    return model


def variance_draws(variant: str, x, n, seed: int) -> np.ndarray:
    """Posterior draws of the sample variance (ddof = 1) of the K group rates."""
    from bayesfair.models.sampling import sample_model

    if variant == "hbb":
        import bayesfair as bf
        from bayesfair.exceptions import SamplingWarning

        groups = np.repeat(np.arange(n.size), n)
        correct = np.concatenate([np.arange(nk) < xk for xk, nk in zip(x, n, strict=True)])
        data = bf.AssessmentData(np.full(correct.size, 0.9), correct.astype(int), groups)
        run = {k: v for k, v in RUN.items() if k != "target_accept"}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SamplingWarning)
            res = bf.fit(data, "hbb", metrics=["accuracy"], random_seed=seed, **run)
        return res.between_group_variance("accuracy").values.ravel()
    kappa_alpha, linear = {"legacy": (1.5, False), "bda3": (0.5, False), "linear": (0.5, True)}[
        variant
    ]
    z = np.log(n) - np.log(n).mean()
    idata = sample_model(
        lambda: build_variant(x, n, kappa_alpha, linear),
        cache_key=("variance-benchmark", variant, n.size),
        data={"successes": x.astype(np.int64), "trials": n.astype(np.int64), "z": z},
        seed=seed,
        **RUN,
    )
    post = idata.posterior
    mu_k = post["mu_k"].values.reshape(-1, n.size)
    kappa = post["kappa"].values.reshape(-1, 1)
    theta = np.random.default_rng(seed).beta(mu_k * kappa + x, (1 - mu_k) * kappa + n - x)
    return theta.var(axis=1, ddof=1)


def run(variant: str, name: str, reps: int, seed: int | None = None) -> dict:
    from bayesfair.datasets.simulate import simulate_counts

    mu, n, truth = scenario(name)
    seed = SEEDS[name] if seed is None else seed
    xs = simulate_counts(mu, n, random_seed=seed, n_replicates=reps)
    rows = []
    for i, x in enumerate(xs):
        v = variance_draws(variant, x, n, i)
        lo, hi = np.quantile(v, [0.025, 0.975])
        rows.append([v.mean(), lo <= truth <= hi, np.quantile(v, 0.95), np.mean(v < DELTA)])
    a = np.array(rows, dtype=float)
    err = a[:, 0] - truth
    return {
        "bias": err.mean(),
        "bias_se": err.std(ddof=1) / np.sqrt(reps),
        "rmse": float(np.sqrt(np.mean(err**2))),
        "coverage": a[:, 1].mean(),
        "ub95": a[:, 2].mean(),
        "p_below": a[:, 3].mean(),
    }


def empirical_bayes_screen(reps: int, seed: int) -> None:
    """Cheap screen of population mean functions: plug-in (MAP) hyperparameters.

    For each replicate, maximise the collapsed posterior of (mean-function
    coefficients, κ) (κ ~ Pareto(0.5, 1), coefficients other than the intercept
    ~ Normal(0, 2)), then compute E[M_var(θ) | data, hyperparameters] exactly:
    the sample variance of the conditional posterior means plus the mean
    conditional posterior variance. No MCMC; used to choose the trend.
    """
    from scipy import optimize, special

    from bayesfair.datasets.simulate import simulate_counts

    def log_bb(x, n, a, b):
        return special.betaln(x + a, n - x + b) - special.betaln(a, b)

    def design(n, kind):
        z = np.log(n) - np.log(n).mean()
        cols = {"none": [], "linear": [z], "quadratic": [z, z**2], "cubic": [z, z**2, z**3]}
        return np.column_stack([np.ones_like(z), *cols[kind]])

    def estimate(x, n, X):
        p = X.shape[1]

        def neg_log_post(par):
            kappa = 1.0 + np.exp(par[p])
            m = special.expit(X @ par[:p])
            lp = log_bb(x, n, m * kappa, (1 - m) * kappa).sum()
            return -(lp - 1.5 * np.log(kappa) + par[p] - 0.5 * np.sum(par[1:p] ** 2) / 4.0)

        par = optimize.minimize(neg_log_post, np.r_[np.zeros(p), 1.0], method="BFGS").x
        kappa, m = 1.0 + np.exp(par[p]), special.expit(X @ par[:p])
        a, b = m * kappa + x, (1 - m) * kappa + n - x
        mean, var = a / (a + b), a * b / ((a + b) ** 2 * (a + b + 1))
        return np.var(mean, ddof=1) + var.mean()

    print("| scenario | mean function | R | bias | RMSE |\n|---|---|---|---|---|")
    for name in ("equal_size_unequal_perf", "unequal_size_unequal_perf", "shuffled", "reversed"):
        base = "unequal_size_unequal_perf" if name == "reversed" else name
        mu, n, truth = scenario(base)
        if name == "reversed":  # large groups have the low rates
            n = n[::-1].copy()
        xs = simulate_counts(mu, n, random_seed=seed, n_replicates=reps)
        kinds = ["none"] if name.startswith("equal") else ["none", "linear", "quadratic", "cubic"]
        for kind in kinds:
            err = np.array([estimate(x, n, design(n, kind)) for x in xs]) - truth
            print(
                f"| {name} | {kind} | {reps} | {err.mean():+.4f} | "
                f"{np.sqrt(np.mean(err**2)):.4f} |",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--variants", default="legacy")
    parser.add_argument("--scenarios", default=",".join(k for k in SEEDS if k != "shuffled"))
    parser.add_argument("--reps", type=int, default=200, help="replicates, unequal performance")
    parser.add_argument("--reps-equal", type=int, default=50, help="replicates, equal performance")
    parser.add_argument("--seed", type=int, default=None, help="data seed for every scenario")
    parser.add_argument(
        "--empirical-bayes", action="store_true", help="only the plug-in screen of mean functions"
    )
    args = parser.parse_args()
    warnings.simplefilter("ignore", FutureWarning)
    if args.empirical_bayes:
        empirical_bayes_screen(args.reps, 7 if args.seed is None else args.seed)
        return
    print(
        "| scenario | variant | R | bias (SE) | RMSE | coverage | mean 95% upper bound | "
        f"P(var < {DELTA}) |\n|---|---|---|---|---|---|---|---|"
    )
    for name in args.scenarios.split(","):
        reps = args.reps_equal if name.endswith("_equal_perf") else args.reps
        for variant in args.variants.split(","):
            start = time.perf_counter()
            r = run(variant, name, reps, args.seed)
            print(
                f"| {name} | {variant} | {reps} | {r['bias']:+.4f} ({r['bias_se']:.4f}) | "
                f"{r['rmse']:.4f} | {r['coverage']:.3f} | {r['ub95']:.4f} | "
                f"{r['p_below']:.3f} |  <!-- {time.perf_counter() - start:.0f} s -->",
                flush=True,
            )


if __name__ == "__main__":
    main()
