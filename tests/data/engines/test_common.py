"""bayesfair.data.engines._common: what every engine shares (group values as text, file kinds,
the checks of scores, groups and labels, the optional engines' extras)."""

import dataclasses

import numpy as np
import pandas as pd
import pytest
from frames import assert_same, score_frame, write_parts

from bayesfair._internal.names import as_text
from bayesfair.data.engines._common import EXTRAS, EngineRun, LabelColumn, SummaryGrid
from bayesfair.data.engines.dask import dask_engine
from bayesfair.data.engines.duckdb import duckdb_engine
from bayesfair.data.engines.numpy import numpy_engine
from bayesfair.exceptions import InvalidParameterError

GRID = SummaryGrid(threshold=0.5, score_clip=0.01, n_bins=64)


# ---------------------------------------------------------------------- as_text
def test_as_text_writes_values_as_python_prints_them():
    got = as_text(pd.Series([True, False, 1, 2.5, "01", np.int64(7)], dtype=object))
    assert got.tolist() == ["True", "False", "1", "2.5", "01", "7"]


def test_as_text_keeps_missing_values_missing():
    got = as_text(pd.Series(["a", None, np.nan, 3], dtype=object))
    assert got.iloc[0] == "a" and got.iloc[3] == "3"
    assert got.isna().tolist() == [False, True, True, False]


def test_as_text_of_a_frame_converts_every_column_and_of_an_array_gives_a_series():
    frame = pd.DataFrame({"flag": [True, False], "level": [1.0, 2.5], "code": ["01", "1"]})
    got = as_text(frame)
    assert isinstance(got, pd.DataFrame) and list(got.columns) == ["flag", "level", "code"]
    assert got.to_numpy().tolist() == [["True", "1.0", "01"], ["False", "2.5", "1"]]
    series = as_text(np.array([0, 1, 1]))
    assert isinstance(series, pd.Series) and series.tolist() == ["0", "1", "1"]
    assert frame["flag"].dtype == bool  # the input is not changed


def test_extras_name_the_optional_engines_install_targets():
    assert EXTRAS == {"dask": "dask", "spark": "spark"}


# ---------------------------------------------------------------------- file lists and kinds
def test_a_gzipped_csv_is_a_csv(tmp_path):
    frame = score_frame(2_000, seed=31)
    frame.to_csv(tmp_path / "rows.csv.gz", index=False)
    ref = numpy_engine(frame, "score", ["race"], GRID)
    assert_same(ref, duckdb_engine(str(tmp_path / "rows.csv.gz"), "score", ["race"], GRID))


def test_a_list_of_files_equals_their_glob(tmp_path):
    frame = score_frame(3_000, seed=32)
    glob = write_parts(frame, tmp_path, 3)
    paths = sorted(str(p) for p in tmp_path.glob("*.parquet"))
    by_glob = duckdb_engine(glob, "score", ["race"], GRID)
    by_list = duckdb_engine(paths, "score", ["race"], GRID)
    assert_same(by_glob, by_list)
    assert by_list.n_total == 3_000


def test_files_must_be_parquet_or_csv_and_of_one_kind(tmp_path):
    frame = score_frame(200, seed=33)
    frame.to_json(tmp_path / "rows.json")
    with pytest.raises(
        InvalidParameterError, match=r"Parquet or CSV \(by extension\)\. Got \['\.json'\]"
    ):
        duckdb_engine(str(tmp_path / "rows.json"), "score", ["race"], GRID)
    frame.to_parquet(tmp_path / "a.parquet")
    frame.to_csv(tmp_path / "b.csv", index=False)
    both = [str(tmp_path / "a.parquet"), str(tmp_path / "b.csv")]
    with pytest.raises(InvalidParameterError, match=r"Got \['\.csv', '\.parquet'\]"):
        duckdb_engine(both, "score", ["race"], GRID)
    with pytest.raises(InvalidParameterError, match=r"No file matches '.*missing\.parquet'"):
        duckdb_engine(
            [str(tmp_path / "a.parquet"), str(tmp_path / "missing.parquet")],
            "score",
            ["race"],
            GRID,
        )


# ---------------------------------------------------------------------- the shared checks
def _bad(kind: str) -> pd.DataFrame:
    """1,000 labeled rows with one bad row (600): a score of 1.25, no group, or label 3."""
    frame = score_frame(1_000, seed=34).assign(label=(np.arange(1_000) % 2).astype(float))
    frame["race"] = frame["race"].astype(object)
    if kind == "score":
        frame.loc[600, "score"] = 1.25
    elif kind == "group":
        frame.loc[600, "race"] = None
    else:
        frame.loc[600, "label"] = 3.0
    return frame


MESSAGES = {
    "score": r"Column 'score' must hold scores in \[0, 1\] without missing values: 1 row",
    "group": r"Group column\(s\) \['race'\] must not contain missing values: 1 row",
    "label": r"Labels must be 0 or 1 \(or booleans\) without missing values: 1 row",
}
VALUES = {"score": "1.25", "label": "3.0"}


def _dask(frame):
    dd = pytest.importorskip("dask.dataframe")
    source = dd.from_pandas(frame, npartitions=3)
    return dask_engine(source, "score", ["race"], GRID, target=LabelColumn("label", 1.0))


def _duckdb(frame):
    import duckdb

    relation = duckdb.from_df(frame)
    return duckdb_engine(relation, "score", ["race"], GRID, target=LabelColumn("label", 1.0))


@pytest.mark.parametrize("kind", ["score", "group", "label"])
def test_a_partition_s_bad_row_is_refused_as_duckdb_refuses_it(kind):
    """The per-partition checks (run on Dask's workers) say what DuckDB's SQL says."""
    frame = _bad(kind)
    for engine in (_dask, _duckdb):
        with pytest.raises(InvalidParameterError, match=MESSAGES[kind]):
            engine(frame)


def test_a_bad_label_in_memory_is_named():
    frame = _bad("label")
    with pytest.raises(InvalidParameterError, match=MESSAGES["label"]):
        numpy_engine(frame, "score", ["race"], GRID, LabelColumn("label", 1.0))
    # with pos_label 0 the labels are complemented, and a label of 3 is still refused
    with pytest.raises(InvalidParameterError, match=MESSAGES["label"]):
        numpy_engine(frame, "score", ["race"], GRID, LabelColumn("label", 0.0))


@pytest.mark.parametrize("kind", ["score", "label"])
def test_the_offending_value_is_written_as_a_number_in_every_engine(kind):
    frame = _bad(kind)
    for engine in (_duckdb, _dask):
        with pytest.raises(InvalidParameterError) as error:
            engine(frame)
        assert f"(value {VALUES[kind]})" in str(error.value), str(error.value)


# ---------------------------------------------------------------------- parameter objects
def test_the_parameter_objects_are_frozen_and_a_run_defaults_to_local():
    grid = SummaryGrid(threshold=0.5, score_clip=0.01, n_bins=64)
    with pytest.raises(dataclasses.FrozenInstanceError):
        grid.n_bins = 32
    assert EngineRun() == EngineRun(scheduler=None, progressbar=False, text_groups=False)
    assert LabelColumn("label", 0.0).pos_label == 0.0
