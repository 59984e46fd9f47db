"""bayesfair.data.engines.duckdb: Parquet or CSV paths and globs, relations, SQL and polars frames,
summarised in DuckDB; the same summary as the in-memory engine."""

import duckdb
import numpy as np
import pandas as pd
import pytest
from frames import (
    assert_same,
    assert_same_labeled,
    coded_frame,
    labeled_frame,
    score_frame,
    write_parts,
)

import bayesfair as bf
from bayesfair.data.engines._common import EngineRun, LabelColumn, SummaryGrid
from bayesfair.data.engines.duckdb import duckdb_engine
from bayesfair.data.engines.numpy import numpy_engine
from bayesfair.exceptions import InvalidParameterError

GRID = SummaryGrid(threshold=0.5, score_clip=0.01, n_bins=64)


@pytest.mark.parametrize("parts", [1, 7, 64])
@pytest.mark.parametrize("group", ["race", ["race", "sex"]])
def test_duckdb_equals_the_in_memory_summary(tmp_path, parts, group):
    frame = score_frame()
    cols = [group] if isinstance(group, str) else group
    ref = bf.summarize_unlabeled(frame, group=group)
    got = bf.summarize_unlabeled(write_parts(frame, tmp_path, parts), group=group)
    assert_same(ref, got)
    assert got.n_total == len(frame) and got.attributes == (tuple(cols) if len(cols) > 1 else None)
    # the group labels are those AssessmentData builds from the same columns
    data = bf.AssessmentData(frame.score[:500], np.arange(500) % 2, frame[cols][:500])
    assert sorted(map(str, got.group_levels)) == sorted(map(str, data.group_levels))


def test_csv_and_sql_sources(tmp_path):
    import duckdb

    frame = score_frame(5_000, seed=1)
    ref = bf.summarize_unlabeled(frame, group="race")
    assert_same(ref, bf.summarize_unlabeled(write_parts(frame, tmp_path, 3, "csv"), group="race"))
    path = write_parts(frame, tmp_path, 2)
    assert_same(ref, bf.summarize_unlabeled(f"SELECT * FROM read_parquet('{path}')", group="race"))
    assert_same(ref, bf.summarize_unlabeled(duckdb.sql("SELECT * FROM frame"), group="race"))


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_text_groups_keep_what_the_file_says(tmp_path, kind):
    frame = coded_frame()
    path = write_parts(frame, tmp_path, 2, kind)
    for col, expected in (
        ("code", {"1", "01", "2"}),
        ("level", {"1.0", "2.5"}),
        ("flag", {"True", "False"}),
    ):
        got = bf.summarize_unlabeled(path, group=col, text_groups=True)
        assert set(got.group_levels) == expected, (col, got.group_levels)
        ref = bf.summarize_unlabeled(frame.astype({col: str}), group=col)
        assert_same(ref, got)


def test_a_missing_column_lists_the_file_s_own_columns(tmp_path):
    """DuckDB reads files with ``filename=True``; that column is not the file's and is
    not listed among its columns when one is missing."""
    path = tmp_path / "u.csv"
    pd.DataFrame({"score": [0.2, 0.7], "grp": ["a", "b"]}).to_csv(path, index=False)
    with pytest.raises(ValueError, match=r"has no column\(s\) \['group'\]") as err:
        bf.summarize_unlabeled(str(path), score="score", group="group", engine="duckdb")
    assert "['score', 'grp']" in str(err.value) and "filename" not in str(err.value)


# ---------------------------------------------------------------------- duckdb_engine itself
def test_a_relation_on_its_own_connection_with_progress_equals_numpy():
    """A relation of the user's own connection is summarised on that connection; the
    progress option changes nothing in the result."""
    frame = labeled_frame(4_000, seed=51)
    con = duckdb.connect()
    try:
        relation = con.from_df(frame)
        target = LabelColumn("label", 1.0)
        run = EngineRun(progressbar=True)
        got = duckdb_engine(relation, "score", ["race"], GRID, run, target=target)
    finally:
        con.close()
    assert_same_labeled(numpy_engine(frame, "score", ["race"], GRID, target), got)


def test_pos_label_zero_counts_the_zeros_as_positives(tmp_path):
    frame = labeled_frame(3_000, seed=52)
    path = write_parts(frame, tmp_path, 2)
    ref = numpy_engine(frame, "score", ["race"], GRID, LabelColumn("label", 0.0))
    got = duckdb_engine(path, "score", ["race"], GRID, target=LabelColumn("label", 0.0))
    assert_same_labeled(ref, got)
    assert got.positives.sum() == (frame["label"] == 0).sum()


def test_column_names_with_quotes_and_spaces(tmp_path):
    frame = score_frame(2_000, seed=53).rename(columns={"score": 'the "score"', "race": "my race"})
    frame.to_parquet(tmp_path / "odd.parquet")
    got = duckdb_engine(str(tmp_path / "odd.parquet"), 'the "score"', ["my race"], GRID)
    assert_same(numpy_engine(frame, 'the "score"', ["my race"], GRID), got)


def test_bad_rows_in_files_name_the_file(tmp_path):
    frame = labeled_frame(3_000, seed=54)
    frame["race"] = frame["race"].astype(object)
    frame.loc[2_100, "race"] = None  # the third of three files
    glob = write_parts(frame, tmp_path, 3)
    with pytest.raises(
        InvalidParameterError,
        match=r"Group column\(s\) \['race'\] must not contain missing values: 1 row\(s\) do, "
        r"the first in file '.*part-002\.parquet'",
    ):
        duckdb_engine(glob, "score", ["race"], GRID)
    labels = labeled_frame(3_000, seed=54)
    labels.loc[1_500, "label"] = 5  # the second of three files
    sub = tmp_path / "labels"
    sub.mkdir()
    glob = write_parts(labels, sub, 3)
    with pytest.raises(
        InvalidParameterError, match=r"the first in file '.*part-001\.parquet' \(value 5\.0\)"
    ):
        duckdb_engine(glob, "score", ["race"], GRID, target=LabelColumn("label", 1.0))


def test_a_failing_query_and_an_unknown_source_are_named():
    with pytest.raises(InvalidParameterError, match="The query failed in DuckDB"):
        duckdb_engine("SELECT * FROM no_such_table", "score", ["race"], GRID)
    for source in (42, []):
        with pytest.raises(InvalidParameterError, match="The source must be a path or glob"):
            duckdb_engine(source, "score", ["race"], GRID)
    relation = duckdb.from_df(pd.DataFrame({"score": [0.1, 0.9], "race": ["a", "b"]}))
    with pytest.raises(InvalidParameterError, match=r"The relation has no column\(s\) \['sex'\]"):
        duckdb_engine(relation, "score", ["race", "sex"], GRID)


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_two_intersections_with_one_label_are_refused(engine, tmp_path):
    """Several group columns are joined with " & ": ("w & b", "0") and ("w", "b & 0")
    would be one intersection, so they are refused by name; a value holding the
    separator that makes no such pair ("R & D") is kept."""
    frame = score_frame(200, seed=74).astype({"sex": str})
    frame.loc[5, ["race", "sex"]] = ["w & b", "0"]
    frame.loc[6, ["race", "sex"]] = ["w", "b & 0"]
    source = frame if engine == "numpy" else write_parts(frame, tmp_path, 1)
    with pytest.raises(InvalidParameterError, match=r"get the same label 'w & b & 0'"):
        bf.summarize_unlabeled(source, group=["race", "sex"], engine=engine)
    frame.loc[5:6, ["race", "sex"]] = [["R & D", "0"], ["R & D", "1"]]
    if engine == "duckdb":
        (tmp_path / "ok").mkdir()
    source = frame if engine == "numpy" else write_parts(frame, tmp_path / "ok", 1)
    got = bf.summarize_unlabeled(source, group=["race", "sex"], engine=engine)
    assert {"R & D & 0", "R & D & 1"} <= set(got.group_levels)


@pytest.mark.parametrize("engine", ["numpy", "duckdb"])
def test_whole_floats_in_an_intersection_are_written_as_integers(engine, tmp_path):
    """A group column read as floats (a missing value elsewhere in the file) joins the
    same intersections as one read as integers: ``1.0`` is written ``"1"``, as ``1``
    and ``1.0`` are one group in a single column; ``2.5`` stays ``"2.5"``."""
    frame = score_frame(300, seed=75).astype({"sex": float})
    frame.loc[:9, "sex"] = 2.5
    source = frame if engine == "numpy" else write_parts(frame, tmp_path, 1)
    got = bf.summarize_unlabeled(source, group=["race", "sex"], engine=engine)
    assert {"w & 0", "w & 1", "b & 1"} <= set(got.group_levels)
    assert not any(level.endswith(".0") for level in got.group_levels)
    as_integers = frame.astype({"sex": object})
    as_integers.loc[10:, "sex"] = as_integers.loc[10:, "sex"].astype(int)
    assert_same(bf.summarize_unlabeled(as_integers, group=["race", "sex"]), got)
