"""Plumbing of the repeated-subsampling harness (fast: Freq and the exact BB only)."""

import math

import numpy as np
import pandas as pd
import pytest

from bayesfair._internal.validation import sequence_from_record
from bayesfair.datasets import load_scores
from bayesfair.experiments import (
    COLUMNS,
    frequency_difference,
    group_counts,
    mae_table,
    run_experiment,
    run_grid,
)
from bayesfair.frequentist.intervals import newcombe_interval

#: run_experiment's settings for plumbing: the frequentist methods and BB on few draws
EXPERIMENT = dict(methods=("freq", "bb"), draws=200, chains=2, progressbar=False)


def test_rows_columns_and_truth():
    df = run_experiment("german-sex", "LR", n_runs=3, random_seed=1, **EXPERIMENT)
    assert list(df.columns) == list(COLUMNS)
    assert len(df) == 6 and df.groupby("method").size().to_dict() == {"bb": 3, "freq": 3}
    frame = load_scores("german-sex", "LR")
    correct = (frame["score"] >= 0.5) == frame["label"].astype(bool)
    acc = correct.groupby(frame["group"]).mean()
    assert df["truth"].unique().tolist() == pytest.approx([acc["female"] - acc["male"]])
    np.testing.assert_allclose(df["abs_error"], (df["estimate"] - df["truth"]).abs())
    np.testing.assert_allclose(df["width"], df["upper"] - df["lower"])
    assert ((df["n_labeled_group"] + df["n_labeled_reference"]) == 10).all()


def test_reproducible_and_independent_of_the_other_methods():
    a = run_experiment("german-sex", "LR", n_runs=3, random_seed=5, **EXPERIMENT)
    b = run_experiment("german-sex", "LR", n_runs=3, random_seed=5, **EXPERIMENT)
    only_bb = run_experiment(
        "german-sex", "LR", n_runs=3, random_seed=5, **{**EXPERIMENT, "methods": ("bb",)}
    )
    cols = ["estimate", "lower", "upper"]
    pd.testing.assert_frame_equal(a[cols], b[cols])
    np.testing.assert_array_equal(
        a.loc[a["method"] == "bb", cols].to_numpy(), only_bb[cols].to_numpy()
    )


def test_frequency_difference_is_newcombe_and_nan_when_undefined():
    counts = np.array([[8, 1, 9, 2], [5, 3, 7, 5]])  # tp, fp, tn, fn
    est, lo, hi = frequency_difference(counts, "tpr")
    nl, nu = newcombe_interval(8, 10, 5, 10)
    assert (est, lo, hi) == pytest.approx((0.3, float(nl), float(nu)))
    assert all(math.isnan(v) for v in frequency_difference([[0, 1, 2, 0], [1, 0, 0, 1]], "tpr"))


def test_group_counts():
    counts = group_counts([0.9, 0.2, 0.7, 0.4], [1, 0, 0, 1], [0, 0, 1, 1], 2, 0.5)
    np.testing.assert_array_equal(counts, [[1, 0, 1, 0], [0, 1, 0, 1]])


def test_undefined_frequency_runs_are_counted_not_averaged():
    # Ricci with 3 labels (one per raw race value): often no positive label in a group.
    df = run_experiment(
        "ricci-race", "LR", "tpr", n_labeled=3, n_runs=8, random_seed=0, **EXPERIMENT
    )
    freq = df[df["method"] == "freq"]
    n_nan = int(freq["estimate"].isna().sum())
    assert 0 < n_nan < len(freq)
    assert df.loc[df["method"] == "bb", "estimate"].notna().all()
    row = mae_table(df).set_index("method").loc["freq"]
    assert row["n_undefined"] == n_nan
    assert row["mae"] == pytest.approx(100 * freq["abs_error"].mean())  # NaN skipped


def test_mae_table_arithmetic():
    df = pd.DataFrame(
        {
            "dataset": "d",
            "classifier": "c",
            "metric": "accuracy",
            "n_labeled": 10,
            "method": "bb",
            "run": range(4),
            "estimate": [0.1, 0.2, 0.3, 0.4],
            "truth": 0.2,
            "abs_error": [0.1, 0.0, 0.1, 0.2],
            "lower": [0.0, 0.1, 0.25, 0.1],
            "upper": [0.3, 0.3, 0.35, 0.3],
            "covered": [1.0, 1.0, 0.0, 1.0],
            "width": [0.3, 0.2, 0.1, 0.2],
        }
    )
    row = mae_table(df).iloc[0]
    assert row["mae"] == pytest.approx(10.0)
    assert row["mae_se"] == pytest.approx(100 * np.std([0.1, 0, 0.1, 0.2], ddof=1) / 2)
    assert row["coverage"] == 0.75
    assert row["coverage_se"] == pytest.approx(math.sqrt(0.75 * 0.25 / 4))
    assert row["width"] == pytest.approx(20.0)
    assert (row["n_runs"], row["n_undefined"]) == (4, 0)


def test_run_grid_one_summary_row_per_size():
    df = run_grid("german-sex", "LR", n_labeled=(5, 20), n_runs=2, random_seed=0, **EXPERIMENT)
    table = mae_table(df)
    assert sorted(set(zip(table["n_labeled"], table["method"], strict=True))) == [
        (5, "bb"),
        (5, "freq"),
        (20, "bb"),
        (20, "freq"),
    ]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"methods": ("bcc",)}, "Did you mean 'bc'"),
        ({"n_runs": 0}, "'n_runs' parameter must be an integer >= 1"),
        ({"interval": "hpd"}, "'interval' parameter must be 'eti' or 'hdi'"),
        ({"ci_prob": 1.5}, "'ci_prob' parameter must be a number in"),
        ({"metric": "tpr_"}, "Did you mean 'tpr'"),
    ],
)
def test_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        run_experiment("german-sex", "LR", **{"progressbar": False, **kwargs})


def test_run_grid_nests_its_labeled_sets_under_one_recorded_seed():
    kw = dict(n_runs=2, methods=("freq",), progressbar=False)
    grid = run_grid("german-sex", "LR", "accuracy", n_labeled=(10, 20), random_seed=5, **kw)
    assert grid.attrs["random_seed"] == {"entropy": "5", "spawn_key": []}
    for n in (10, 20):
        alone = run_experiment("german-sex", "LR", "accuracy", n, random_seed=5, **kw)
        np.testing.assert_array_equal(grid[grid.n_labeled == n].estimate, alone.estimate)
    fresh = run_grid("german-sex", "LR", "accuracy", n_labeled=(10,), **kw)
    root = sequence_from_record(fresh.attrs["random_seed"])
    again = run_grid("german-sex", "LR", "accuracy", n_labeled=(10,), random_seed=root, **kw)
    np.testing.assert_array_equal(fresh.estimate, again.estimate)
