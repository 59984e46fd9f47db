"""Fair Enough: the metrics of Table 1 from counts, and the clusters of metrics.

Closed forms against row-level definitions (AIF360's formulas on the benefit vector),
the paper's stated dendrogram cut, algebraic identities that must cluster together and
independent metrics that must not, and the contract of both entry points.
"""

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest

import bayesfair as bf
from bayesfair.exceptions import InvalidParameterError
from bayesfair.metrics.fair_enough import (
    FAIR_ENOUGH_METRICS,
    cluster_metrics,
    counts_from_rates,
    differential_fairness,
    fair_enough_values,
    generalized_entropy,
    stable_cut,
)
from bayesfair.metrics.rates import rate_from_counts

COLUMNS = ["metric", "cluster", "representative", "insensitive", "verdict"]


def _benefit(counts):
    """The row-level benefit b = ŷ − y + 1 of every example of the given groups."""
    tp, fp, tn, fn = (int(v) for v in counts)
    return np.r_[np.ones(tp), np.full(fp, 2.0), np.ones(tn), np.zeros(fn)]


def _ge_rows(b, alpha):
    """AIF360's generalized_entropy_index on a benefit vector."""
    mu = b.mean()
    if alpha == 1:
        return np.mean(np.log((b / mu) ** b) / mu)
    return np.mean((b / mu) ** alpha - 1) / (alpha * (alpha - 1))


@pytest.mark.parametrize("alpha", [1.0, 2.0, 0.5, 3.0])
def test_generalized_entropy_is_the_row_level_index(alpha):
    counts = np.array([[30, 10, 50, 10], [20, 25, 40, 15], [5, 0, 7, 3]])
    b = np.concatenate([_benefit(c) for c in counts])
    assert generalized_entropy(counts, alpha) == pytest.approx(_ge_rows(b, alpha), rel=1e-12)
    # between groups: each example's benefit replaced by its group's mean
    between = np.concatenate([np.full(int(c.sum()), _benefit(c).mean()) for c in counts])
    assert generalized_entropy(counts, alpha, between=True) == pytest.approx(
        _ge_rows(between, alpha), rel=1e-12
    )


def test_differential_fairness_is_the_largest_log_ratio():
    pos, n = np.array([3, 10, 0]), np.array([10, 20, 5])
    p = (pos + 1.0) / (n + 2.0)
    expected = max(
        abs(np.log(q[i]) - np.log(q[j]))
        for q in (p, 1 - p)
        for i, j in itertools.combinations(range(3), 2)
    )
    assert differential_fairness(pos, n) == pytest.approx(expected)


def test_counts_are_rebuilt_from_three_rates():
    counts = np.array([[30.0, 10, 50, 10], [20, 25, 40, 15]])
    n = counts.sum(axis=1)
    rates = [rate_from_counts(counts, m) for m in ("accuracy", "selection_rate", "base_rate")]
    np.testing.assert_allclose(counts_from_rates(*rates, n), counts)


def test_stable_cut_reproduces_the_papers_cut():
    """Majumder et al. §3.4.5: the classification dendrogram is cut at 0.57, the clusters
    unchanged between 0.49 and 0.64. A dendrogram of nine leaves built to merge heights
    whose widest gap between consecutive merges is (0.49, 0.64)."""
    from scipy.cluster.hierarchy import is_valid_linkage

    tree = np.array(
        [
            [0, 1, 0.05, 2],
            [2, 3, 0.12, 2],
            [4, 5, 0.22, 2],
            [9, 10, 0.33, 4],
            [6, 7, 0.42, 2],
            [11, 8, 0.49, 3],
            [12, 13, 0.64, 6],
            [14, 15, 0.74, 9],
        ]
    )
    assert is_valid_linkage(tree)
    cut, lo, hi = stable_cut(tree)
    assert (lo, hi) == (0.49, 0.64)
    # the middle of the stable range, 0.565: the paper's 0.57 to its two decimals
    assert cut == pytest.approx(0.565) and abs(cut - 0.57) <= 0.005 + 1e-12


def test_a_ratio_and_its_reciprocal_cluster_together_and_independent_metrics_do_not():
    rng = np.random.default_rng(0)
    x = rng.lognormal(0, 0.2, 4000)
    y = rng.normal(0, 0.05, 4000)
    table = cluster_metrics(
        {"r": x, "r_inverse": 1 / x, "d": y, "d_negated": -y},
        ideals={"r": 1.0, "r_inverse": 1.0, "d": 0.0, "d_negated": 0.0},
    ).set_index("metric")
    c = table["cluster"]
    assert c["r"] == c["r_inverse"] and c["d"] == c["d_negated"] and c["r"] != c["d"]
    assert table["representative"].sum() == 2


@pytest.fixture(scope="module")
def bundled_fits(fast):
    """The default model on every bundled score set (every classifier), 200 labeled rows
    each (Ricci's split has 40 rows: 20 labeled)."""
    fits = {}
    listing = bf.datasets.list_datasets()
    for name in listing.index[listing["kind"] == "scores"]:
        for clf in ("MLP", "LR", "RF", "NB"):
            frame = bf.datasets.load_scores(name, clf)
            lab = frame.sample(min(200, len(frame) // 2), random_state=0)
            unl = frame.drop(index=lab.index)
            data = bf.AssessmentData(lab.score, lab.label, lab.group, unl.score, unl.group)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fits[name, clf] = bf.fit(data, **fast, random_seed=0)
    return fits


def test_algebraic_identities_cluster_together_on_every_bundled_score_set(bundled_fits):
    """Δ TPR and Δ FNR (and C0 under its fairlearn name), Δ accuracy and Δ error rate,
    Δ FPR and Δ TNR: one is an affine function of the other in every draw, |ρ| = 1, so
    they merge at height 0 and no cut separates them."""
    identities = {
        "tpr": (
            "true_positive_rate_difference",
            "false_negative_rate_difference",
            "equal_opportunity_difference",
        ),
        "accuracy": ("error_rate_difference", "accuracy_difference"),
    }
    for name, res in bundled_fits.items():
        table = res.metric_clusters(
            metrics=[m for group in identities.values() for m in group]
            + ["false_positive_rate_difference"]
        )
        c = table.set_index("metric")["cluster"]
        for rate, group in identities.items():
            gap = res.difference(rate).values
            if np.nanmax(gap) > np.nanmin(gap):  # a constant gap (a classifier that
                # predicts one class: German-sex MLP's Δ TPR is 0 in every draw) is alone
                assert c[list(group)].nunique() == 1, (name, group)
        # Δ FPR and Δ TNR (not a Fair-Enough metric: its draws straight from the fit)
        fpr, tnr = res.difference("fpr").values.ravel(), res.difference("tnr").values.ravel()
        pair = cluster_metrics(
            {"fpr": fpr, "tnr": tnr, "tpr": res.difference("tpr").values},
            ideals={"fpr": 0.0, "tnr": 0.0, "tpr": 0.0},
        )
        c = pair.set_index("metric")["cluster"]
        if np.nanmax(fpr) > np.nanmin(fpr):  # a constant Δ FPR (German-sex MLP) is alone
            assert c["fpr"] == c["tnr"], (name, "fpr/tnr")


def test_metric_clusters_contract(bundled_fits):
    res = next(iter(bundled_fits.values()))
    table = res.metric_clusters()
    assert list(table.columns[: len(COLUMNS)]) == COLUMNS
    assert list(table["metric"]) == list(FAIR_ENOUGH_METRICS)
    assert table["representative"].dtype == bool and table["insensitive"].dtype == bool
    assert (table.groupby("cluster")["representative"].sum() == 1).all()
    for _, members in table.groupby("cluster"):
        fair = (members["verdict"] == "practically fair").all()
        assert members["insensitive"].all() == fair


def test_groups_that_differ_only_in_fpr_split_the_tpr_and_fpr_families():
    """Labeled rows of two groups with equal TPR and different FPR: over bootstrap
    resamples Δ TPR and Δ FPR are independent (they are made of different rows), so the
    TPR family (Δ TPR, Δ FNR) and the FPR family (Δ FPR, its ratio) fall apart."""
    rng = np.random.default_rng(1)
    rows = []
    for g, fpr in (("A", 0.1), ("B", 0.3)):
        y = rng.random(3000) < 0.4
        yhat = np.where(y, rng.random(3000) < 0.8, rng.random(3000) < fpr)
        rows.append(
            pd.DataFrame({"score": np.where(yhat, 0.7, 0.3), "label": y.astype(int), "group": g})
        )
    df = pd.concat(rows)
    data = bf.AssessmentData(df.score, df.label, df.group, reference="A")
    table = bf.frequentist.metric_clusters(
        data,
        n_resamples=200,
        random_seed=0,
        metrics=[
            "true_positive_rate_difference",
            "false_negative_rate_difference",
            "false_positive_rate_difference",
            "false_positive_rate_ratio",
        ],
    ).set_index("metric")
    c = table["cluster"]
    assert c["true_positive_rate_difference"] == c["false_negative_rate_difference"]
    assert c["false_positive_rate_difference"] == c["false_positive_rate_ratio"]
    assert c["true_positive_rate_difference"] != c["false_positive_rate_difference"]


def test_frequentist_contract_and_bad_input(no_positive_in_b):
    table = bf.frequentist.metric_clusters(no_positive_in_b, random_seed=0)
    assert list(table.columns[: len(COLUMNS)]) == COLUMNS
    row = table.set_index("metric").loc["true_positive_rate_difference"]
    assert row["verdict"] == "undefined" and "undefined in every draw" in row["note"]
    # the same seed, the same table
    pd.testing.assert_frame_equal(
        table, bf.frequentist.metric_clusters(no_positive_in_b, random_seed=0)
    )
    one = bf.AssessmentData(np.array([0.2, 0.8]), np.array([0, 1]), np.array(["A", "A"]))
    with pytest.raises(InvalidParameterError, match="two groups"):
        bf.frequentist.metric_clusters(one)
    with pytest.raises(InvalidParameterError, match="Did you mean"):
        bf.frequentist.metric_clusters(no_positive_in_b, metrics=["theil_indx"])


def test_a_constant_metric_is_a_cluster_of_its_own():
    """With every row's prediction known (no unlabeled rows drawn), the selection rates
    are fixed: disparate impact is constant across draws, alone, and said so."""
    rng = np.random.default_rng(2)
    values = {
        "disparate_impact": np.full(500, 1.1),
        "statistical_parity_difference": rng.normal(0, 0.01, 500),
        "average_odds_difference": rng.normal(0, 0.01, 500),
    }
    table = cluster_metrics(values).set_index("metric")
    assert "constant" in table.loc["disparate_impact", "note"]
    assert table.loc["disparate_impact", "representative"]
    assert (table["cluster"] == table.loc["disparate_impact", "cluster"]).sum() == 1


def test_models_without_coherent_counts_are_refused(no_positive_in_b, fast):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit(no_positive_in_b, model="hbb", **fast, random_seed=0)
    with pytest.raises(InvalidParameterError, match="keeps only its rates"):
        res.metric_clusters()


def test_bb_draws_are_counts_and_cluster(no_positive_in_b, fast):
    """bb draws each group's cells from one Dirichlet: its draws are one population's, so
    every composite of a draw is coherent and the clusters are computed from them."""
    res = bf.fit(no_positive_in_b, model="bb", **fast, random_seed=0)
    assert res.draws_counts
    accuracy = res.rates("accuracy").values
    error = res.rates("error_rate").values
    np.testing.assert_allclose(accuracy + error, 1.0, atol=1e-12)
    clusters = res.metric_clusters().set_index("metric")
    assert len(clusters) == len(FAIR_ENOUGH_METRICS)
    # in every draw the TPR gap is minus the FNR gap: the two measure one thing
    cluster = clusters["cluster"]
    assert cluster["true_positive_rate_difference"] == cluster["false_negative_rate_difference"]


def test_values_are_the_catalogues_composites():
    counts = np.array([[[30.0, 10, 50, 10], [20, 25, 40, 15]]])
    v = fair_enough_values(counts, 1, 0)
    tpr = rate_from_counts(counts, "tpr")[0]
    assert v["true_positive_rate_difference"][0] == pytest.approx(tpr[1] - tpr[0])
    fpr = rate_from_counts(counts, "fpr")[0]
    assert v["false_positive_rate_ratio"][0] == pytest.approx(fpr[1] / fpr[0])
    assert v["coefficient_of_variation"][0] == pytest.approx(
        2 * np.sqrt(generalized_entropy(counts[0], 2.0))
    )
