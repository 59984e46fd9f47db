"""Coverage of the 95% intervals of the metric-clusters tables, against a known truth.

``miscalibrated_scores`` (two groups, 100 labeled and 2,000 unlabeled rows each; group
B calibrated, or cubed: a map the calibration family fits badly), ``R`` data sets per
kind. Truth: each metric on all 2,100 rows of each group with their labels (the assessed
population). Intervals: the posterior's 95% HDI of ``res.metric_clusters()`` (the
default model) and the basic bootstrap interval of
``bf.frequentist.metric_clusters(n_resamples=400)`` on the labeled rows.

Claims, each at 0.90 less two binomial standard errors at R data sets (one-sided level
about 2.3% for a method exactly at 0.90):

* every posterior interval below, in both kinds;
* the bootstrap intervals of the metrics below but two: the between-group generalized
  entropy index (0.84 with calibrated groups over 200 data sets) and the FDR ratio
  (0.755 with a cubed group) fall short, measured and documented in
  ``docs/results/fair_enough.md``, not asserted.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import bayesfair as bf
from bayesfair.datasets.simulate import miscalibrated_scores
from bayesfair.metrics.fair_enough import fair_enough_values

pytestmark = pytest.mark.slow

R = 100
METRICS = [
    "generalized_entropy_index",
    "theil_index",
    "between_group_generalized_entropy_index",
    "differential_fairness_bias_amplification",
    "false_discovery_rate_ratio",
    "average_abs_odds_difference",
    "error_rate_ratio",
]
NOT_ASSERTED_BOOTSTRAP = {"between_group_generalized_entropy_index", "false_discovery_rate_ratio"}


def _counts(frame) -> np.ndarray:
    """Confusion counts of groups B and A (in that order)."""
    out = []
    for g in ("B", "A"):
        x = frame[frame["group"] == g]
        yhat, y = x["score"] >= 0.5, x["label"] == 1
        out.append([(yhat & y).sum(), (yhat & ~y).sum(), (~yhat & ~y).sum(), (~yhat & y).sum()])
    return np.array(out, dtype=float)


@pytest.fixture(scope="module", params=["none", "cubed"])
def covered(request, simulation):
    rows = []
    for r in range(R):
        lab, unl = miscalibrated_scores(100, 2000, kind=request.param, random_seed=30_000 + r)
        truth = fair_enough_values(_counts(pd.concat([lab, unl]))[None], 0, 1)
        data = bf.AssessmentData(
            lab.score, lab.label, lab.group, unl.score, unl.group, reference="A"
        )
        labeled_only = bf.AssessmentData(lab.score, lab.label, lab.group, reference="A")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = bf.fit(data, random_seed=r, **simulation)
            tables = {
                "posterior": res.metric_clusters(metrics=METRICS, group="B"),
                "bootstrap": bf.frequentist.metric_clusters(
                    labeled_only, n_resamples=400, random_seed=r, metrics=METRICS, group="B"
                ),
            }
        for method, table in tables.items():
            for _, row in table.iterrows():
                t = float(truth[row["metric"]][0])
                rows.append(
                    {
                        "method": method,
                        "metric": row["metric"],
                        "covered": bool(row["lower"] <= t <= row["upper"]),
                    }
                )
    return request.param, pd.DataFrame(rows).groupby(["method", "metric"])["covered"].mean()


@pytest.mark.parametrize("method", ["posterior", "bootstrap"])
def test_cluster_table_intervals_cover(covered, method):
    kind, coverage = covered
    bound = 0.90 - 2 * math.sqrt(0.9 * 0.1 / R)
    checked = [m for m in METRICS if method == "posterior" or m not in NOT_ASSERTED_BOOTSTRAP]
    cov = coverage[method]
    print(f"{kind} {method}: " + ", ".join(f"{m} {cov[m]:.2f}" for m in METRICS))
    low = {m: float(cov[m]) for m in checked if cov[m] < bound}
    assert low == {}, f"coverage below {bound:.3f}: {low}"
