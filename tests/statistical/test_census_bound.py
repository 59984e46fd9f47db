"""How narrow an honest joint band can be on census-style intersections, against the
default's band on the same rows (``benchmarks/census_bound.py`` runs every cell of the
census check).

Design: 30 groups of census-style shares, 1,000 labels and 70,000 unlabeled rows on the
Adult classifier's scores, no group distorted; five data sets on seeds the benchmark
does not use. Per data set the default is fitted (real sampling) and its median joint
95% band of the accuracy and TPR gaps is set against the median over groups of
:func:`~bayesfair.datasets.limits.joint_band_bounds`: the least expected width, in the
Gaussian limit, of a band that holds for all groups at once (misses independent) where
they are alike and where any one group's map is distorted with a bias up to the census
check's distortions'.

What is checked:

* the bound lies below the default's band, both metrics, every data set (a sanity
  check: the default keeps its level in the census check, and a bound above a band
  that covers would point to an error, though covering three distortions does not put
  the default in the bound's class);
* on accuracy gaps the median ratio over the five data sets is above 0.70: in the median
  data set no band in the bound's class is 30% narrower than the default. Here the
  ratios ran 0.67–0.85 (median 0.77; TPR 0.69–0.78); with the benchmark's eleven (one
  below 0.70), 3 of 16 data sets fell below 0.70, so over draws of five seeds the median
  falls below 0.70 about 5% of the time. On these fixed seeds the margin (0.07) is far
  above the sampler's Monte Carlo error in the widths (about 1%).
"""

import warnings

import numpy as np
import pytest

import bayesfair as bf
from bayesfair.datasets.limits import gap_limit, joint_band_bounds
from bayesfair.datasets.simulate import (
    census_weights,
    differential_calibration,
    simulated_assessment,
)

pytestmark = pytest.mark.slow

K, LABELS, UNLABELED = 30, 1_000, 70_000
METRICS = ["accuracy", "tpr"]
SEEDS = [70_000 + 1_000 * K + rep for rep in range(100, 105)]  # the benchmark's end at 20


def _ratios(seed: int) -> dict:
    """Per metric, the median joint bound over the default's median joint band."""
    lab, unl = differential_calibration(
        K, LABELS, UNLABELED, kind="none", weights=census_weights(K), random_seed=seed
    )
    data = simulated_assessment(lab, unl, reference=None)
    groups = list(data.group_levels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit(data, random_seed=seed, progressbar=False, metrics=METRICS)
    table = res.group_summary(metrics=METRICS)
    out = {}
    for metric in METRICS:
        t = table[table["metric"] == metric].set_index("group").loc[groups]
        width = np.median(t["gap_upper"] - t["gap_lower"])
        limit = gap_limit(lab, unl, groups, metric)
        bounds, *_ = joint_band_bounds(limit["var_x"], limit["var_r"], limit["bound"])
        out[metric] = float(np.median(bounds) / width)
    return out


def test_no_joint_band_is_30_percent_narrower_than_the_default_on_accuracy():
    ratios = [_ratios(seed) for seed in SEEDS]
    for metric in METRICS:
        assert all(r[metric] < 1 for r in ratios), ratios
    assert np.median([r["accuracy"] for r in ratios]) > 0.70, ratios
