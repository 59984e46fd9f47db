"""bayesfair.frequentist.clusters: Fair Enough's clusters of metrics over bootstrap
resamples of the labeled rows (metric_clusters).

(Its table's contract and its clustering of the TPR and FPR families are tested in
tests/metrics/test_fair_enough.py.)
"""

import numpy as np
import pandas as pd
import pytest

import bayesfair as bf
from bayesfair.exceptions import InvalidParameterError
from bayesfair.frequentist.clusters import metric_clusters

METRICS = ["true_positive_rate_difference", "statistical_parity_difference"]


def _data(n_per_group=400, seed=0, groups=("A", "B")):
    """Labeled rows of known rates: TPR 0.8 in A and 0.6 in the other groups."""
    rng = np.random.default_rng(seed)
    rows = []
    for g in groups:
        y = rng.random(n_per_group) < 0.5
        tpr = 0.8 if g == "A" else 0.6
        yhat = np.where(y, rng.random(n_per_group) < tpr, rng.random(n_per_group) < 0.2)
        rows.append(pd.DataFrame({"score": np.where(yhat, 0.7, 0.3), "label": y, "group": g}))
    df = pd.concat(rows, ignore_index=True)
    return bf.AssessmentData(df.score, df.label.astype(int), df.group, reference="A")


def test_the_mean_is_the_metric_on_the_labeled_rows():
    data = _data()
    table = metric_clusters(data, n_resamples=50, random_seed=0, metrics=METRICS)
    row = table.set_index("metric")
    tpr = data.rates("tpr")
    assert row.loc["true_positive_rate_difference", "mean"] == pytest.approx(
        tpr["B"] - tpr["A"], abs=1e-12
    )
    selection = data.rates("selection_rate")
    assert row.loc["statistical_parity_difference", "mean"] == pytest.approx(
        selection["B"] - selection["A"], abs=1e-12
    )
    assert list(table["metric"]) == METRICS


def test_the_interval_narrows_as_the_labeled_rows_grow():
    """Four times the rows: the bootstrap interval about half as wide (at most 0.75 of it
    with 300 resamples)."""

    def width(n):
        table = metric_clusters(_data(n, seed=1), 300, 2, metrics=METRICS).set_index("metric")
        row = table.loc["true_positive_rate_difference"]
        return row["upper"] - row["lower"]

    small, large = width(250), width(1_000)
    assert 0 < large < 0.75 * small


def test_the_same_seed_gives_the_same_table_and_another_seed_other_draws():
    data = _data(60, seed=3)
    a = metric_clusters(data, 40, random_seed=5, metrics=METRICS)
    pd.testing.assert_frame_equal(a, metric_clusters(data, 40, random_seed=5, metrics=METRICS))
    b = metric_clusters(data, 40, random_seed=6, metrics=METRICS)
    assert not np.allclose(a["lower"], b["lower"])
    np.testing.assert_array_equal(a["mean"], b["mean"])  # the estimate does not resample


def test_with_three_groups_the_group_is_named():
    data = _data(200, seed=4, groups=("A", "B", "C"))
    with pytest.raises(InvalidParameterError, match="'group' parameter is required with 3"):
        metric_clusters(data, 20, random_seed=0, metrics=METRICS)
    table = metric_clusters(data, 20, random_seed=0, metrics=METRICS, group="C").set_index("metric")
    tpr = data.rates("tpr")
    assert table.loc["true_positive_rate_difference", "mean"] == pytest.approx(tpr["C"] - tpr["A"])
    swapped = metric_clusters(
        data, 20, random_seed=0, metrics=METRICS, group="A", reference="C"
    ).set_index("metric")
    assert swapped.loc["true_positive_rate_difference", "mean"] == pytest.approx(
        tpr["A"] - tpr["C"]
    )
    with pytest.raises(InvalidParameterError, match=r"Unknown group 'D' .* Groups: A, B, C\."):
        metric_clusters(data, 20, metrics=METRICS, group="D")


def test_bad_arguments():
    data = _data(30, seed=5)
    with pytest.raises(InvalidParameterError, match="n_resamples"):
        metric_clusters(data, n_resamples=1)
    with pytest.raises(InvalidParameterError, match="AssessmentData"):
        metric_clusters(pd.DataFrame({"score": [0.5]}))
