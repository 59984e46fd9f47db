"""The report's verdicts hold as a family (slow): no "unfair" where nothing differs.

The design is ``benchmarks/family_verdicts.py``'s "alike" design (its 200 audits:
``docs/results/family_verdicts.md``): a real classifier's scores (Ji et al.'s Adult MLP,
drawn with replacement), four groups of equal shares sharing its calibration (labels
``y ~ Bernoulli(s)``), 200 labeled and 50,000 unlabeled rows, ``bayesfair.compare`` with
its defaults (BB and RBC, 4 chains × 1,000 draws; accuracy, TPR, FPR; ε = 0.02), as
``bayesfair assess`` runs it.

An audit raises a false alarm when the report prints "unfair" anywhere: a pair's
verdict (held by the band over pairs and metrics), the group view's or the family
view's verdict (joint over groups and metrics), or the calibration view's (joint over
groups); each is the verdict of the method the report rests on.

Level. 100 audits; the test fails when 12 or more raise a false alarm. If the
false-alarm probability of an audit were the 5% the report promises (at most), the test
would fail with probability 0.43% (binomial, P(X ≥ 12)); the benchmark measured 1.5%
(3 of 200). The rule before this stage, each pair's own 95% HDI with the comparators'
verdicts printed beside the model's, raised one in 15% of audits (30 of 200): at 15% the
test fails with probability 84%.

Runs in about 2–3 minutes on one core (1–1.5 s per audit).
"""

import warnings

import numpy as np
import pytest

import bayesfair as bf
from bayesfair.datasets.simulate import differential_calibration

pytestmark = pytest.mark.slow

AUDITS, MOST = 100, 11


def _printed_unfair(comp) -> int:
    """How many "unfair" verdicts the report prints."""
    view, calibrated = comp.view_method, comp.settings["calibration_model"] or "freq"
    printed = [
        comp.verdicts["verdict"],
        comp.group_view[f"{view}_decision"],
        comp.family_view[f"{view}_decision"],
        comp.calibration_view[f"{calibrated}_decision"],
    ]
    return int(sum((p == "unfair").sum() for p in printed))


def test_an_audit_of_alike_groups_prints_no_unfair():
    alarms = 0
    for seed in np.random.SeedSequence(20261128).generate_state(AUDITS):
        lab, unl = differential_calibration(4, 200, 50_000, kind="none", random_seed=int(seed))
        data = bf.AssessmentData.from_frames(
            lab.drop(columns="p"),
            unl.drop(columns=["label", "p"]),
            score="score",
            label="label",
            group="group",
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            comp = bf.compare(data, random_seed=int(seed), progressbar=False)
        alarms += _printed_unfair(comp) > 0
    assert alarms <= MOST, f"{alarms} of {AUDITS} audits of alike groups printed 'unfair'"
