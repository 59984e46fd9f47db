"""Benchmark: what a fit's convergence diagnostics cost, through arviz-stats.

``bayesfair.stats`` takes R-hat, bulk ESS and the HDI from arviz-stats' array
interface. This benchmark measures, on the sampled variables of a default
(``rbc``) fit of Adult-sex MLP scores, n_L = 100, 4 chains × 1000 draws:

* **diagnostics**: :func:`bayesfair.stats.diagnostics_table` as every fit calls
  it (:func:`bayesfair.posterior.diagnostics.result_diagnostics`), all the
  variables' elements in one call of ``array_stats.rhat`` and one of
  ``array_stats.ess``, against ``arviz_stats.rhat(post)`` +
  ``arviz_stats.ess(post, method="bulk")`` on the same ``Dataset`` (a call per
  variable). The largest absolute difference is printed too (they must agree
  exactly: the same code on the same draws).
* **import**: the cumulative import time of ``arviz_stats`` (``python -X
  importtime``) in a fresh process that fits, where it is imported by the
  fit's diagnostics (once a process; later diagnostics and HDIs find it loaded).

Each figure is the median of 7 calls (3 fresh processes for the import).
Run: ``python benchmarks/bench_diagnostics.py`` (about half a minute).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
import warnings

import numpy as np

import bayesfair as bf
from bayesfair.posterior.diagnostics import POST_HOC
from bayesfair.stats import diagnostics_table

FIT = """
import warnings
import bayesfair as bf
data = bf.datasets.load_assessment("adult-sex", "MLP", n_labeled=100, random_seed=0)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    bf.fit(data, metrics=["accuracy"], draws=200, chains=2, random_seed=0, progressbar=False)
"""


def _median_seconds(fn, repeats: int = 7) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _import_seconds(repeats: int = 3) -> float:
    """Cumulative import time of ``arviz_stats`` (``-X importtime``) in a process that fits."""
    seconds = []
    for _ in range(repeats):
        run = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", FIT], capture_output=True, text=True
        )
        rows = [x.split("|") for x in run.stderr.splitlines() if x.startswith("import time:")]
        cumulative = [int(r[1]) for r in rows if r[2].strip() == "arviz_stats"]
        seconds.append(cumulative[0] / 1e6 if cumulative else 0.0)
    return statistics.median(seconds)


def main() -> None:
    import arviz_stats as azs

    data = bf.datasets.load_assessment("adult-sex", "MLP", n_labeled=100, random_seed=0)
    metrics = ["accuracy", "tpr", "fpr", "ppv"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit(data, metrics=metrics, draws=1000, chains=4, random_seed=0)
    post = res.idata.posterior.to_dataset().drop_vars(list(POST_HOC), errors="ignore")
    stats = res.idata.sample_stats.to_dataset()
    names = [v for v in post.data_vars if post[v].ndim >= 2 and not v.endswith("__")]
    sub = post[names]
    n_columns = sum(int(np.prod(post[v].shape[2:])) for v in names)

    def stacked():
        return diagnostics_table(post, stats)

    def per_variable():
        return azs.rhat(sub), azs.ess(sub, method="bulk")

    table = stacked()
    rhat_az, ess_az = per_variable()
    diff_rhat = max(abs(table.loc[v, "r_hat"] - float(rhat_az[v].max())) for v in names)
    diff_ess = max(abs(table.loc[v, "ess_bulk"] - float(ess_az[v].min())) for v in names)
    t_stacked, t_per_variable = _median_seconds(stacked), _median_seconds(per_variable)
    print(
        f"diagnostics, {n_columns} columns of {post.sizes['chain']} x {post.sizes['draw']} draws:"
    )
    print(
        f"  one call {t_stacked * 1e3:.1f} ms   per variable {t_per_variable * 1e3:.1f} ms   "
        f"ratio {t_per_variable / t_stacked:.2f}x"
    )
    print(f"  largest difference: R-hat {diff_rhat:.2e}, bulk ESS {diff_ess:.2e}")
    print(f"import of arviz_stats in a fitting process: {_import_seconds():.2f} s")


if __name__ == "__main__":
    main()
