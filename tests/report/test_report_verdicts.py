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
    estimates = comp.estimates.copy()
    row = (
        (estimates["metric"] == v.loc[i, "metric"])
        & (estimates["group"] == v.loc[i, "group"])
        & (estimates["reference"] == v.loc[i, "reference"])
        & (estimates["method"] == method)
    )
    assert row.sum() == 1
    estimates.loc[row, "decision"] = "unfair"  # the verdicts read the long table
    moved = dataclasses.replace(comp, estimates=estimates)
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


def test_the_metric_clusters_verdicts_pass_the_gate_and_hold_as_a_family(comparison4):
    """Fair Enough's verdicts (``compare(..., clusters=True)``): each metric of each pair
    decided at the level that holds them together, and "too few" for a pair with a group
    below the gate (a group of 5 labeled rows here)."""
    import warnings

    import bayesfair as bf
    from bayesfair.metrics.fair_enough import VERDICT_PROB, probability_verdict
    from bayesfair.metrics.verdicts import TOO_FEW, family_level

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comp = bf.compare(
            comparison4.posteriors["rbc"].data,
            ["accuracy"],
            models=("rbc",),
            posteriors={"rbc": comparison4.posteriors["rbc"]},
            n_resamples=50,
            random_seed=0,
            progressbar=False,
            clusters=True,
        )
    table = comp.clusters
    level = family_level(VERDICT_PROB, len(table))
    assert level > VERDICT_PROB
    expected = [probability_verdict(p, level) for p in table["prob_fair"]]
    assert list(table["verdict"]) == expected
    # a metric at P = 0.96 of lying in its fair range was "practically fair" alone
    assert probability_verdict(0.96) == "practically fair"
    assert probability_verdict(0.96, level) == "undecided"
    assert TOO_FEW not in set(table["verdict"])  # every group here has 47 labels or more


def test_a_pair_with_a_group_below_the_gate_has_no_cluster_verdict():
    import warnings

    import bayesfair as bf
    from bayesfair.datasets.simulate import differential_calibration
    from bayesfair.metrics.verdicts import TOO_FEW

    lab, unl = differential_calibration(
        3, 200, 2000, kind="none", weights=(0.02, 0.49, 0.49), random_seed=4
    )
    data = bf.AssessmentData.from_frames(
        lab.drop(columns="p"),
        unl.drop(columns=["label", "p"]),
        score="score",
        label="label",
        group="group",
        reference="g1",
    )
    assert (lab["group"] == "g0").sum() < 10
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comp = bf.compare(
            data,
            ["accuracy"],
            models=("rbc",),
            n_resamples=50,
            random_seed=0,
            fit_kwargs={"draws": 200, "tune": 200, "chains": 2},
            progressbar=False,
            clusters=True,
        )
    verdicts = comp.clusters.groupby("group")["verdict"].agg(set)
    assert verdicts["g0"] == {TOO_FEW} and TOO_FEW not in verdicts["g2"]
