"""Unlabeled scores from files and engines: exactness, merging, AssessmentData on a summary."""

import warnings

import numpy as np
import pandas as pd
import pytest
from frames import (
    assert_same,
    assert_same_labeled,
    labeled_frame,
    score_frame,
    write_parts,
)

import bayesfair as bf
from bayesfair.exceptions import InvalidParameterError


def test_partial_summaries_add_up():
    frame = score_frame(9_000, seed=2)
    chunks = np.array_split(np.arange(len(frame)), 5)
    parts = [bf.summarize_unlabeled(frame.iloc[c], group="race") for c in chunks]
    assert_same(bf.summarize_unlabeled(frame, group="race"), sum(parts[1:], parts[0]))
    other = bf.summarize_unlabeled(frame, group="race", threshold=0.3)
    with pytest.raises(InvalidParameterError, match="same threshold"):
        parts[0] + other


def _labeled(seed=3, n=120):
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 2, n)
    return pd.DataFrame(
        {
            "score": p,
            "label": (rng.uniform(size=n) < p).astype(int),
            "race": rng.choice(["w", "b"], n),
        }
    )


def test_assessment_data_on_a_summary_fits_as_on_arrays(tmp_path):
    lab, unl = _labeled(), score_frame(30_000, seed=4)
    unl = unl[unl.race != "h"]
    arrays = bf.AssessmentData(lab.score, lab.label, lab.race, unl.score, unl.race, reference="w")
    summary = bf.AssessmentData(
        lab.score,
        lab.label,
        lab.race,
        reference="w",
        unlabeled=bf.summarize_unlabeled(write_parts(unl, tmp_path, 4), group="race"),
    )
    assert summary.n_unlabeled == arrays.n_unlabeled and summary.unlabeled_is_summary
    pd.testing.assert_frame_equal(summary.group_sizes(), arrays.group_sizes())
    table = summary.unlabeled_score_table()
    pd.testing.assert_series_equal(table["n"], arrays.unlabeled_score_table()["n"])
    np.testing.assert_allclose(table["mean_score"], arrays.unlabeled_score_table()["mean_score"])
    with pytest.raises(ValueError, match="holds its .* unlabeled examples as a summary"):
        _ = summary.unlabeled_scores
    # the in-memory summary gives the arrays' posterior exactly; DuckDB's to its sums' 1e-14
    exact = bf.AssessmentData(
        lab.score,
        lab.label,
        lab.race,
        reference="w",
        unlabeled=bf.summarize_unlabeled(unl, group="race"),
    )
    kw = dict(draws=100, tune=100, chains=1, random_seed=5, progressbar=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a, b = bf.fit(arrays, **kw), bf.fit(exact, **kw)
    for group in a.idata.children:
        for name, values in a.idata[group].data_vars.items():
            if name == "score_sum":  # a sum of the raw scores, over rows or over bins' sums
                np.testing.assert_allclose(values.values, b.idata[group][name].values, rtol=1e-13)
                continue
            np.testing.assert_array_equal(values.values, b.idata[group][name].values)
    np.testing.assert_array_equal(np.asarray(a.difference("tpr")), np.asarray(b.difference("tpr")))
    # DuckDB's sums differ in the last bits (summation order): the same posterior to 1e-8
    duck = bf.fit(summary, **kw)
    np.testing.assert_allclose(
        np.asarray(duck.difference("tpr")), np.asarray(a.difference("tpr")), rtol=0, atol=1e-8
    )
    ppi_a = bf.frequentist.ppi_difference(arrays, "tpr", random_seed=0)
    ppi_b = bf.frequentist.ppi_difference(summary, "tpr", random_seed=0)
    np.testing.assert_allclose(ppi_a.interval, ppi_b.interval, rtol=1e-10)


def test_bad_sources(tmp_path):
    frame = score_frame(3_000, seed=6)
    with pytest.raises(InvalidParameterError, match="No file matches"):
        bf.summarize_unlabeled(str(tmp_path / "nothing-*.parquet"))
    path = write_parts(frame, tmp_path, 3)
    with pytest.raises(InvalidParameterError, match=r"no column\(s\) \['grp'\]"):
        bf.summarize_unlabeled(path, group="grp")
    # files of 1,000 rows in row groups of 200: row 1,450 is in row group 3 of file 2
    bad = frame.copy()
    bad.loc[1450, "score"] = np.nan
    sub = tmp_path / "bad"
    sub.mkdir()
    glob = write_parts(bad, sub, 3, row_group_size=200)
    with pytest.raises(InvalidParameterError, match=r"part-001\.parquet"):
        bf.summarize_unlabeled(glob, group="race")
    bad.loc[1450, "score"] = 1.5
    write_parts(bad, sub, 3, row_group_size=200)
    with pytest.raises(InvalidParameterError, match=r"\[0, 1\].*part-001\.parquet.*1\.5"):
        bf.summarize_unlabeled(glob, group="race")
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    frame.iloc[:100].to_parquet(mixed / "a.parquet")
    frame.iloc[100:200].rename(columns={"score": "s"}).to_parquet(mixed / "b.parquet")
    with pytest.raises(InvalidParameterError, match="a.parquet|b.parquet"):
        bf.summarize_unlabeled(str(mixed / "*.parquet"), group="race")
    with pytest.raises(InvalidParameterError, match="'engine'"):
        bf.summarize_unlabeled(frame, engine="polars")
    lab = _labeled()
    summary = bf.summarize_unlabeled(frame, group="race", threshold=0.4)
    with pytest.raises(ValueError, match="threshold 0.4"):
        bf.AssessmentData(lab.score, lab.label, lab.race, unlabeled=summary)
    with pytest.raises(TypeError, match="summarize_unlabeled"):
        bf.AssessmentData(lab.score, lab.label, lab.race, unlabeled=frame)


def test_from_frames_reads_a_glob(tmp_path):
    lab, unl = _labeled(seed=8), score_frame(6_000, seed=9)
    unl = unl[unl.race != "h"]
    path = write_parts(unl, tmp_path, 3)
    data = bf.AssessmentData.from_frames(lab, path, score="score", label="label", group="race")
    direct = bf.AssessmentData.from_frames(lab, unl, score="score", label="label", group="race")
    assert data.unlabeled_is_summary and data.n_unlabeled == direct.n_unlabeled
    pd.testing.assert_frame_equal(data.group_sizes(), direct.group_sizes())


def test_polars_frames_and_settings_that_do_not_match_the_summary():
    pl = pytest.importorskip("polars")
    frame = score_frame(4_000, seed=10)
    ref = bf.summarize_unlabeled(frame, group=["race", "sex"])
    assert_same(ref, bf.summarize_unlabeled(pl.from_pandas(frame), group=["race", "sex"]))
    assert_same(ref, bf.summarize_unlabeled(pl.from_pandas(frame).lazy(), group=["race", "sex"]))
    lab = _labeled(seed=11)
    data = bf.AssessmentData(
        lab.score,
        lab.label,
        lab.race,
        unlabeled=bf.summarize_unlabeled(frame[frame.race != "h"], group="race"),
    )
    with pytest.raises(ValueError, match="score_clip=0.01 and n_bins=1024; this needs score_clip"):
        bf.fit(data, "bc", score_clip=0.02, draws=10, tune=10, chains=1)


@pytest.mark.parametrize("kind", ["parquet", "csv"])
def test_labeled_summary_is_the_same_from_files_and_in_memory(tmp_path, kind):
    """summarize(label=) on DuckDB equals NumPy, and equals AssessmentData's own."""
    frame = labeled_frame()
    ref = bf.summarize(frame, group="race", label="label")
    got = bf.summarize(write_parts(frame, tmp_path, 5, kind), group="race", label="label")
    assert_same_labeled(ref, got)
    data = bf.AssessmentData(frame["score"], frame["label"], frame["race"])
    assert_same_labeled(ref, data.labeled_summary())
    np.testing.assert_array_equal(ref.confusion_counts(), data.labeled_examples.confusion_counts())
    arrays = bf.summarize((frame["score"], frame["race"], frame["label"]))
    assert_same_labeled(ref, arrays)
    parts = [
        bf.summarize(frame.iloc[c], group="race", label="label")
        for c in np.array_split(np.arange(len(frame)), 3)
    ]
    assert_same_labeled(ref, parts[0] + parts[1] + parts[2])
    flipped = bf.summarize(frame, group="race", label="label", pos_label=0)
    np.testing.assert_allclose(flipped.positives, ref.count - ref.positives)


def test_summarize_without_label_is_refused_with_the_way_to_unlabeled_rows(tmp_path):
    """summarize reduces labeled rows; without ``label`` it names summarize_unlabeled."""
    frame = score_frame(3_000, seed=5)
    path = write_parts(frame, tmp_path, 2)
    pair = (frame["score"].to_numpy(), frame["race"].to_numpy())
    for source, kwargs in ((frame, {"group": "race"}), (path, {"group": "race"}), (pair, {})):
        with pytest.raises(InvalidParameterError, match=r"summarize_unlabeled\(\.\.\.\)"):
            bf.summarize(source, **kwargs)


def test_labeled_calls_of_summarize_do_not_warn():
    frame = labeled_frame(2_000)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert bf.summarize(frame, group="race", label="label").labeled
        assert bf.summarize((frame["score"], frame["race"], frame["label"])).labeled
        assert not bf.summarize_unlabeled(frame, group="race").labeled


def test_labeled_summary_refuses_bad_labels(tmp_path):
    frame = labeled_frame(2_000)
    frame.loc[17, "label"] = 2
    with pytest.raises(InvalidParameterError, match="Labels must be 0 or 1"):
        bf.summarize(frame, group="race", label="label")
    with pytest.raises(InvalidParameterError, match="Labels must be 0 or 1.*value 2"):
        bf.summarize(write_parts(frame, tmp_path, 2), group="race", label="label")
    with pytest.raises(InvalidParameterError, match="label"):
        bf.summarize(write_parts(frame.drop(columns="label"), tmp_path, 1, "csv"), label="label")
    with pytest.raises(ValueError, match="holds labels"):
        bf.AssessmentData(
            [0.2],
            [1],
            ["a"],
            unlabeled=bf.summarize(labeled_frame(50), group="race", label="label"),
        )


def test_the_grid_is_checked_before_the_engine_and_the_positive_label():
    frame = score_frame(50, seed=5)
    with pytest.raises(InvalidParameterError, match="'threshold'"):
        bf.summarize_unlabeled(frame, group="race", threshold=1.5, n_bins=0, engine="polars")
    with pytest.raises(InvalidParameterError, match="'n_bins' parameter must be positive"):
        bf.summarize_unlabeled(frame, group="race", n_bins=0, score_clip=0.7, engine="polars")
    with pytest.raises(InvalidParameterError, match=r"'score_clip' parameter must be in"):
        bf.summarize_unlabeled(frame, group="race", score_clip=0.7, engine="polars")
    with pytest.raises(InvalidParameterError, match="'engine'"):
        bf.summarize(frame, group="race", label="race", pos_label=2, engine="polars")
    with pytest.raises(InvalidParameterError, match="'pos_label' parameter must be 0 or 1"):
        bf.summarize(frame, group="race", label="race", pos_label=2)


def test_the_grid_and_the_run_reach_the_engine(tmp_path):
    frame = score_frame(400, seed=6)
    summary = bf.summarize_unlabeled(frame, group="race", threshold=0.3, score_clip=0.02, n_bins=32)
    assert (summary.threshold, summary.score_clip, summary.n_bins) == (0.3, 0.02, 32)
    by_duckdb = bf.summarize_unlabeled(
        write_parts(frame, tmp_path, 2, "csv"),
        group="race",
        n_bins=32,
        threshold=0.3,
        score_clip=0.02,
        text_groups=True,
    )
    assert_same(summary, by_duckdb)
