"""Scores that rank the labels backwards, with ten labels: what the labels can show, and
what following them would cost (Ji et al.'s Table 2 cell Ricci MLP).

Ricci MLP: 40 rows; the MLP predicts every row negative and its scores rank the labels
backwards (AUC 0.18), so Δ accuracy is the groups' gap in base rates, 44.5 points. With
n_L = 10 the default's MAE (20–25) exceeds the Beta-binomial's (14–20 with one Beta(1, 1)
per rate before 0.4; about 20 with the Dirichlet over the cells since), the one cell of
Ji et al.'s tables where it does. ``benchmarks/offstate_tradeoff.py`` has the table;
``docs/results/honest_edge.md`` the discussion. ``R`` labeled sets per cell, drawn as Ji
et al. drew them (``split_labeled(method="ji2020")``, seeds 0, 1, ...), fitted with the
suite's simulation settings (``tests/conftest.py``).

Claims and their tolerances:

1. the summary says that the gap rests on the prior in at least 0.80 of Ricci MLP's sets
   (one-sided, two binomial standard errors at 0.80);
2. the labels see the inversion: the default's probability that some stratum is off the
   map is larger on Ricci MLP than on Adult-race MLP, where the map is right
   (Mann–Whitney, one-sided, level 0.001);
3. the bound: following the labels as far as the model can (prior misfit probability
   0.5 per stratum and per side, against the default's 0.01), Ricci MLP's MAE is still
   not below BB's (paired over the same sets: the mean difference is above −2 standard
   errors), while Adult-race MLP's MAE grows by at least half (paired: the mean of
   ``err_0.5 − 1.5 err_default`` is above 0 by two standard errors). No prior of this
   model meets BB's MAE on Ricci MLP and keeps the scores' use where the map is right.
   (Before the strata's shifts of 0.4 the claim was "at least doubles": the default's
   MAE there was 1.7 against 6.5. The shifts, whose spread is at least 0.5 on the logit
   scale, raised the default's own MAE at n_L = 10 to 3.8, against 8.0 for the prior of
   0.5 on the same 30 sets, so the factor of the claim was lowered to what a ratio of
   2.1 still shows at two standard errors.)
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.stats import mannwhitneyu

import bayesfair as bf
from bayesfair.datasets import get_score_set, load_scores, split_labeled
from bayesfair.models.calibration import DiscrepancyPrior

pytestmark = pytest.mark.slow

R = 30
FOLLOW = DiscrepancyPrior(prior_misfit=0.5, shared_prior_misfit=0.5)


def _cell(name: str, clf: str, discrepancies, sampler) -> pd.DataFrame:
    """Per labeled set: the truth, bb's estimate, and per prior (None: the default) the
    estimate, P(some stratum off) and whether the summary says the sentence."""
    spec = get_score_set(name)
    frame = load_scores(name, clf)
    u, p = spec.unprivileged_group, spec.privileged_group
    acc = ((frame["score"] >= 0.5).astype(int) == frame["label"]).groupby(frame["group"]).mean()
    rows = []
    for r in range(R):
        lab, unl = split_labeled(frame, 10, random_seed=r, method="ji2020")
        data = bf.AssessmentData(
            lab["score"], lab["label"], lab["group"], unl["score"], unl["group"], reference=p
        )
        row = {"truth": acc[u] - acc[p]}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            bb = bf.fit(data, model="bb", metrics=["accuracy"], random_seed=r, **sampler)
            row["bb"] = float(bb.difference("accuracy").values.mean())
            for key, disc in discrepancies.items():
                res = bf.fit(data, metrics=["accuracy"], random_seed=r, discrepancy=disc, **sampler)
                t = res.summary().set_index("metric").loc["accuracy"]
                misfit = res.idata.posterior["misfit"].values
                row[key] = t["mean"]
                row[f"{key}_off"] = misfit.reshape(*misfit.shape[:2], -1).any(-1).mean()
                row[f"{key}_said"] = bool(t["prior_sensitive"])
        rows.append(row)
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def cells(simulation):
    both = {"default": None, "follow": FOLLOW}
    return {
        "ricci": _cell("ricci-race", "MLP", both, simulation),
        "adult": _cell("adult-race", "MLP", both, simulation),
    }


def _err(d, key):
    return (d[key] - d["truth"]).abs()


def test_the_summary_says_that_ricci_mlps_gap_rests_on_the_prior(cells):
    said = cells["ricci"]["default_said"].mean()
    print(f"\nRicci MLP: the sentence in {said:.2f} of {R} labeled sets")
    assert said >= 0.80 - 2 * math.sqrt(0.80 * 0.20 / R)


def test_the_labels_see_the_inversion(cells):
    ricci, adult = cells["ricci"]["default_off"], cells["adult"]["default_off"]
    print(f"median P(off): Ricci MLP {ricci.median():.2f}, Adult-race MLP {adult.median():.2f}")
    assert mannwhitneyu(ricci, adult, alternative="greater").pvalue < 1e-3


def test_following_the_labels_does_not_reach_bbs_mae_and_costs_the_right_maps(cells):
    ricci, adult = cells["ricci"], cells["adult"]
    gap = _err(ricci, "follow") - _err(ricci, "bb")
    print(
        f"Ricci MLP MAE ×100: default {100 * _err(ricci, 'default').mean():.1f}, "
        f"prior 0.5 {100 * _err(ricci, 'follow').mean():.1f} (P(off) "
        f"{ricci['follow_off'].median():.2f}), bb {100 * _err(ricci, 'bb').mean():.1f}"
    )
    assert gap.mean() > -2 * gap.std(ddof=1) / math.sqrt(R)
    cost = _err(adult, "follow") - 1.5 * _err(adult, "default")
    print(
        f"Adult-race MLP MAE ×100: default {100 * _err(adult, 'default').mean():.1f}, "
        f"prior 0.5 {100 * _err(adult, 'follow').mean():.1f}"
    )
    assert cost.mean() > 2 * cost.std(ddof=1) / math.sqrt(R)
    assert np.isfinite(gap).all() and np.isfinite(cost).all()
