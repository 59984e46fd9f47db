"""Speed of the PPI++ intervals: sufficient statistics against ``ppi_py`` on the rows.

Two groups (A calibrated, B's scores squared, as ``ppi_coverage.py``), 100
labeled examples and ``n_U`` unlabeled ones. Timed, per repeat, from a built
:class:`~bayesfair.AssessmentData` to the intervals of Δ accuracy, Δ TPR and
Δ FPR:

* **bayesfair** — three calls of :func:`bayesfair.frequentist.ppi_difference`
  (cross-fitted beta calibration, 5 folds). The unlabeled scores enter through
  the per-group, per-side histogram of :mod:`bayesfair.models.unlabeled`,
  computed once per data set (its cost is inside the timing: the cache is
  cleared before each repeat); a prediction then costs O(bins), not O(n_U).
* **reference** — the same estimator through the reference implementation on
  the rows: per group a 5-fold cross-fit of scikit-learn's
  ``LogisticRegression`` on the beta-calibration features, the ``n_U``
  unlabeled predictions averaged over the folds, and per stratum (group × side
  of the threshold) and metric ``ppi_py.ppi_mean_ci`` and
  ``ppi_py.ppi_mean_pointestimate`` on those arrays (the strata combine by the
  same delta method, whose cost is negligible).

Both run in the same process on the same data; the ratio is the figure to
compare across machines. Goals: under 50 ms at n_U = 10⁴ and under 2 s
at 10⁷.

Run: ``python benchmarks/bench_ppi_speed.py`` (about a minute);
``--sizes 10000 100000`` to choose n_U.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings

import numpy as np

METRICS = ("accuracy", "tpr", "fpr")


def make_data(n_labeled: int, n_unlabeled: int, seed: int = 0):
    import bayesfair as bf

    rng = np.random.default_rng(seed)

    def draw(n):
        g = rng.choice(np.array(["A", "B"]), n)
        p = rng.beta(2.0, 2.0, n)
        y = (rng.uniform(size=n) < p).astype(int)
        return np.where(g == "B", p**2, p), y, g

    s, y, g = draw(n_labeled)
    s_u, _, g_u = draw(n_unlabeled)
    return bf.AssessmentData(s, y, g, unlabeled_scores=s_u, unlabeled_groups=g_u, reference="A")


def run_bayesfair(data) -> None:
    from bayesfair.frequentist import ppi_difference

    data.unlabeled_examples.clear_cache()  # the reduction is part of the cost
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for m in METRICS:
            ppi_difference(data, m, group="B", reference="A", random_seed=0)


def run_reference(data) -> None:
    import ppi_py
    from sklearn.linear_model import LogisticRegression

    from bayesfair.frequentist._crossfit import logit_features
    from bayesfair.frequentist.ppi import SCORE_CLIP

    rng = np.random.default_rng(0)
    for code in range(data.n_groups):
        lab = data.group_codes == code
        unl = data.unlabeled_group_codes == code
        s, y, s_u = data.scores[lab], data.labels[lab].astype(float), data.unlabeled_scores[unl]
        x, x_u = logit_features(s, SCORE_CLIP), logit_features(s_u, SCORE_CLIP)
        folds = rng.permutation(y.size) % 5
        f, f_u = np.empty(y.size), np.zeros(s_u.size)
        for k in range(5):
            model = LogisticRegression(C=1.0).fit(x[folds != k], y[folds != k])
            f[folds == k] = model.predict_proba(x[folds == k])[:, 1]
            f_u += model.predict_proba(x_u)[:, 1] / 5
        side, side_u = s >= data.threshold, s_u >= data.threshold
        for _ in METRICS:
            for h in (False, True):
                args = (y[side == h], f[side == h], f_u[side_u == h])
                ppi_py.ppi_mean_pointestimate(*args)
                ppi_py.ppi_mean_ci(*args, alpha=0.05)


def timed(fn, data, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn(data)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[10_000, 1_000_000, 10_000_000])
    p.add_argument("--n-labeled", type=int, default=100)
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args(argv)
    run_bayesfair(make_data(args.n_labeled, 1_000, seed=1))  # imports and first calls
    run_reference(make_data(args.n_labeled, 1_000, seed=1))
    print("| n_U | bayesfair (s) | reference (s) | speed-up |")
    print("|---|---|---|---|")
    for n_u in args.sizes:
        data = make_data(args.n_labeled, n_u)
        repeats = args.repeats if n_u <= 1_000_000 else max(1, args.repeats // 2)
        ours = timed(run_bayesfair, data, repeats)
        ref = timed(run_reference, data, repeats)
        print(f"| {n_u:,} | {ours:.4f} | {ref:.3f} | {ref / ours:.1f}× |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
