"""The pair verdicts held as a family (:mod:`bayesfair.report.verdicts`): a finding
stands only where a band that holds for all the report's decided gaps at once agrees."""

import dataclasses

import numpy as np

from bayesfair.frequentist.intervals import newcombe_interval
from bayesfair.report.verdicts import family_bands, pair_verdicts


def test_the_band_holds_for_all_decided_gaps_at_once(comparison4):
    comp = comparison4
    v = comp.verdicts
    open_ = v[v["verdict"].isin(["practically fair", "unfair", "undecided"])]
    assert len(open_) >= 6 and (open_["family"] == len(open_)).all()
    assert (v.loc[~v.index.isin(open_.index), "family"] == 0).all()
    res = comp.posteriors[open_["method"].iloc[0]]
    draws = np.column_stack(
        [
            res.difference(r["metric"], r["group"], r["reference"]).values.ravel()
            for _, r in open_.iterrows()
        ]
    )
    inside = (draws >= open_["lower"].to_numpy()) & (draws <= open_["upper"].to_numpy())
    joint = inside.all(axis=1).mean()
    assert joint >= comp.settings["ci_prob"]  # the band's definition, over these draws
    # each band is at least as wide as the pair's own 95% HDI
    own = comp.pairs.loc[open_.index]
    method = open_["method"].iloc[0]
    width = open_["upper"] - open_["lower"]
    assert (width >= (own[f"{method}_upper"] - own[f"{method}_lower"]) - 1e-9).all()


def test_a_finding_the_band_does_not_support_is_undecided(comparison4):
    """A pair whose own rule says "unfair" (its ``<model>_decision``, from its own 95%
    HDI) while the family's band crosses ε is "undecided": the rule before took the
    pair's own decision."""
    comp = comparison4
    v = comp.verdicts
    eps = comp.settings["epsilon"]
    crossing = v.index[(v["family"] > 0) & (v["lower"] < eps) & (v["upper"] > -eps)]
    i = crossing[0]
    method = v.loc[i, "method"]
    pairs = comp.pairs.copy()
    pairs.loc[i, f"{method}_decision"] = "unfair"
    moved = dataclasses.replace(comp, pairs=pairs)
    assert moved.verdicts.loc[i, "verdict"] == "undecided"
    assert (moved.verdicts.drop(index=i)["verdict"] == v.drop(index=i)["verdict"]).all()


def test_newcombe_verdicts_are_held_by_bonferroni(comparison4):
    comp = dataclasses.replace(
        comparison4, posteriors={}, settings={**comparison4.settings, "models": []}
    )
    v = comp.verdicts
    open_ = v[v["family"] > 0]
    assert len(open_) and (open_["method"] == "newcombe").all()
    m = len(open_)
    p = comp.pairs.loc[open_.index]
    lo, hi = newcombe_interval(
        p["successes_group"], p["n_group"], p["successes_reference"], p["n_reference"], 1 - 0.05 / m
    )
    np.testing.assert_allclose(open_["lower"], lo)
    np.testing.assert_allclose(open_["upper"], hi)
    assert family_bands(comp, pair_verdicts(comp)).keys() == set(open_.index)
