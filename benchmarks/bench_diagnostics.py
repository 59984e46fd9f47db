"""Benchmark: the posterior statistics of a fit, bayesfair's NumPy layer against ArviZ.

``bayesfair.stats`` keeps its own rank-normalised R-hat and bulk ESS (vectorised
over every column of a fit) instead of calling ArviZ. This
benchmark is the reason, measured on the same draws in the same run:

* **diagnostics**: R-hat and bulk ESS of every sampled variable of a default
  (``rbc``) fit of Adult-sex MLP scores, n_L = 100, 4 chains × 1000 draws, as
  :meth:`FairnessPosterior.diagnostics` computes them, against
  ``arviz.rhat(post)`` + ``arviz.ess(post, method="bulk")`` on the same
  ``Dataset``. The largest absolute difference is printed too (the two must
  agree to rounding, ``tests/models/test_native.py``).

The HDI is ``arviz.hdi`` itself (it was as fast as the own routine: 0.26 ms
against 0.31 ms for four gaps of 4,000 draws, measured when it replaced it).

Each figure is the median of 7 calls. Run: ``python benchmarks/bench_diagnostics.py``
(about a minute, most of it the fit and ArviZ's import).
"""

from __future__ import annotations

import statistics
import time
import warnings

import numpy as np

import bayesfair as bf
from bayesfair.stats import ess_bulk, rank_rhat, split_chains, z_scale


def _median_seconds(fn, repeats: int = 7) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _columns(post, names):
    blocks = [
        post[v]
        .transpose("chain", "draw", ...)
        .values.reshape(post.sizes["chain"], post.sizes["draw"], -1)
        for v in names
    ]
    return np.concatenate(blocks, axis=2)


def main() -> None:
    import arviz_stats as azs

    data = bf.datasets.load_assessment("adult-sex", "MLP", n_labeled=100, random_seed=0)
    metrics = ["accuracy", "tpr", "fpr", "ppv"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit(data, metrics=metrics, draws=1000, chains=4, random_seed=0)
    post = res.idata.posterior.to_dataset()
    names = [v for v in post.data_vars if post[v].ndim >= 2 and not v.endswith("__")]
    x = _columns(post, names)
    sub = post[names]

    def ours():
        z = z_scale(split_chains(x))
        return rank_rhat(x, z), ess_bulk(x, z)

    def theirs():
        return azs.rhat(sub), azs.ess(sub, method="bulk")

    rhat_ours, ess_ours = ours()
    rhat_az, ess_az = theirs()
    diff_rhat = np.nanmax(
        np.abs(rhat_ours - _columns(rhat_az.expand_dims(chain=[0], draw=[0]), names).ravel())
    )
    diff_ess = np.nanmax(
        np.abs(ess_ours - _columns(ess_az.expand_dims(chain=[0], draw=[0]), names).ravel())
    )
    t_ours, t_az = _median_seconds(ours), _median_seconds(theirs)
    print(f"diagnostics, {x.shape[2]} columns of {x.shape[0]} x {x.shape[1]} draws:")
    print(f"  bayesfair {t_ours:.3f} s   arviz {t_az:.3f} s   ratio {t_az / t_ours:.1f}x")
    print(f"  largest difference: R-hat {diff_rhat:.2e}, bulk ESS {diff_ess:.2e}")


if __name__ == "__main__":
    main()
