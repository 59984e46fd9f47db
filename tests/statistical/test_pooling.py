"""Two groups whose calibration maps differ by a known logit shift: coverage, and when
the summary says that a gap rests on the prior.

``miscalibrated_scores(kind="shifted", shift=1.0)``: group B's true map is
σ(logit s + 1), inside the beta-calibration family; 1,000 unlabeled rows per group and
5, 20 or 100 labeled. ``R`` data sets per cell, fitted with the suite's simulation
settings (``tests/conftest.py``: 2 chains × 500 draws; the 200-replicate table is
``benchmarks/pooling_coverage.py``'s, ``docs/results/pooling_coverage.md``).

Claims and their tolerances (each one-sided, two binomial standard errors at the
claimed rate, so a method exactly at the claim fails with probability about 2.3%):

1. the default's 95% HDI of Δ accuracy covers the realised gap in at least 0.90 of data
   sets with 20 and with 100 labels per group;
2. with 5 labels per group, the summary of accuracy, TPR and FPR says the sentence
   ("rests on the prior") for at least one of them in at least 0.80 of data sets;
3. with 100 labels per group and maps that agree, in at most 0.10.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import bayesfair as bf
from bayesfair.datasets.simulate import miscalibrated_scores

pytestmark = pytest.mark.slow

R = 60
METRICS = ["accuracy", "tpr", "fpr"]


def _replicate(kind: str, n_per_group: int, r: int, sampler) -> tuple[bool, bool]:
    """(does the HDI of Δ accuracy cover the realised gap, does the summary say the
    sentence for any metric) for one data set."""
    lab, unl = miscalibrated_scores(n_per_group, 1000, kind=kind, shift=1.0, random_seed=20_000 + r)
    both = pd.concat([lab, unl], ignore_index=True)
    rates = bf.AssessmentData(both.score, both.label, both.group, reference="A").rates("accuracy")
    truth = rates["B"] - rates["A"]
    data = bf.AssessmentData(lab.score, lab.label, lab.group, unl.score, unl.group, reference="A")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit(data, metrics=METRICS, random_seed=r, **sampler)
        table = res.summary().set_index("metric")
    row = table.loc["accuracy"]
    covered = bool(row["hdi_lower"] <= truth <= row["hdi_upper"])
    said = table["note"].str.contains("rests on the prior").any()
    assert said == table["prior_sensitive"].any()
    return covered, bool(said)


@pytest.fixture(scope="module")
def cells(simulation):
    return {
        (kind, n): np.array([_replicate(kind, n, r, simulation) for r in range(R)])
        for kind, n in [("shifted", 5), ("shifted", 20), ("shifted", 100), ("none", 100)]
    }


@pytest.mark.parametrize("n_per_group", [20, 100])
def test_default_covers_when_the_maps_differ(cells, n_per_group):
    coverage = cells["shifted", n_per_group][:, 0].mean()
    bound = 0.90 - 2 * math.sqrt(0.9 * 0.1 / R)
    print(f"shift 1.0, {n_per_group} labels per group: coverage {coverage:.3f} (bound {bound:.3f})")
    assert coverage >= bound


def test_the_sentence_appears_with_five_labels_per_group(cells):
    said = cells["shifted", 5][:, 1].mean()
    bound = 0.80 - 2 * math.sqrt(0.8 * 0.2 / R)
    print(
        f"shift 1.0, 5 labels per group: the sentence in {said:.3f} (bound {bound:.3f}); "
        f"coverage {cells['shifted', 5][:, 0].mean():.3f}"
    )
    assert said >= bound


def test_the_sentence_is_rare_with_a_hundred_labels_per_group(cells):
    said = cells["none", 100][:, 1].mean()
    bound = 0.10 + 2 * math.sqrt(0.1 * 0.9 / R)
    print(f"maps alike, 100 labels per group: the sentence in {said:.3f} (bound {bound:.3f})")
    assert said <= bound
