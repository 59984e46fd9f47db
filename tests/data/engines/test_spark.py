"""bayesfair.data.engines.spark: a Spark DataFrame or files, aggregated in Spark SQL.

The checks made before a session starts run in the default suite. The tests on a
session use Spark in local mode (``local[2]``), one module-scoped session; like
``tests/data/engines/test_engines.py`` they are marked slow (local mode starts a JVM).
"""

import pytest
from frames import assert_same, assert_same_labeled, labeled_frame, score_frame, write_parts

from bayesfair.data.engines._common import EngineRun, LabelColumn, SummaryGrid
from bayesfair.data.engines.numpy import numpy_engine
from bayesfair.data.engines.spark import spark_engine
from bayesfair.exceptions import InvalidParameterError

# PySpark 4 calls pandas 3 with a deprecated keyword when it converts frames
pytestmark = pytest.mark.filterwarnings("ignore:The copy keyword is deprecated")

pytest.importorskip("pyspark")

GRID = SummaryGrid(threshold=0.5, score_clip=0.01, n_bins=64)


def _spark(source, group, *, scheduler=None, text=False, target=None):
    run = EngineRun(scheduler=scheduler, text_groups=text)
    return spark_engine(source, "score", group, GRID, run, target)


# ---------------------------------------------------------------------- before a session
def test_a_source_spark_cannot_read_is_named_before_a_session_starts(tmp_path):
    with pytest.raises(InvalidParameterError, match=r"takes a Spark DataFrame .* Got int\."):
        _spark(42, ["race"])
    with pytest.raises(InvalidParameterError, match="No file matches"):
        _spark(str(tmp_path / "none-*.parquet"), ["race"])


def test_an_unreachable_master_is_named_before_a_session_starts(tmp_path):
    path = write_parts(score_frame(100, seed=71), tmp_path, 1)
    with pytest.raises(
        InvalidParameterError, match=r"Could not reach the Spark master at 'spark://127\.0\.0\.1:1'"
    ):
        _spark(path, ["race"], scheduler="spark://127.0.0.1:1")


# ---------------------------------------------------------------------- on a session
@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("bayesfair-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .getOrCreate()
    )
    yield session
    session.stop()


@pytest.mark.slow
def test_integer_groups_and_the_complemented_label_of_a_spark_frame(spark):
    """Spark's schema holds an integer group column as text in the sums; the summary maps
    it back to the integers, as the in-memory engine has them. pos_label 0 counts zeros."""
    frame = labeled_frame(4_000, seed=72)
    sdf = spark.createDataFrame(frame).repartition(3)
    got = _spark(sdf, ["sex"], target=LabelColumn("label", 0.0))
    assert got.group_levels == [0, 1] and all(type(g) is int for g in got.group_levels)
    assert_same_labeled(numpy_engine(frame, "score", ["sex"], GRID, LabelColumn("label", 0.0)), got)
    assert got.positives.sum() == (frame["label"] == 0).sum()


@pytest.mark.slow
def test_bad_rows_are_named_by_value_and_file(spark, tmp_path):
    frame = labeled_frame(3_000, seed=73).astype({"label": float})
    frame.loc[10, "label"] = 3.0
    with pytest.raises(
        InvalidParameterError,
        match=r"Labels must be 0 or 1 \(or booleans\) without missing values: 1 row\(s\) are "
        r"not, the first \(value 3\.0\)\.",
    ):
        _spark(spark.createDataFrame(frame), ["race"], target=LabelColumn("label", 1.0))
    groups = score_frame(3_000, seed=74).astype({"race": object})
    groups.loc[2_500, "race"] = None  # the third of three files
    glob = write_parts(groups, tmp_path, 3)
    with pytest.raises(
        InvalidParameterError,
        match=r"Group column\(s\) \['race'\] must not contain missing values: 1 row\(s\) do, "
        r"the first in file '.*part-002\.parquet'",
    ):
        _spark(glob, ["race"])
    # the same files without the bad row: the in-memory summary
    good = tmp_path / "good"
    good.mkdir()
    ok = score_frame(3_000, seed=74)
    got = _spark(write_parts(ok, good, 3), ["race"])
    assert_same(numpy_engine(ok, "score", ["race"], GRID), got)


@pytest.mark.slow
def test_two_intersections_with_one_label_are_refused(spark):
    """Two group columns are joined with " & ": two combinations of values with one
    label are refused, as the in-memory engine refuses them."""
    frame = score_frame(200, seed=74).astype({"sex": str})
    frame.loc[5, ["race", "sex"]] = ["w & b", "0"]
    frame.loc[6, ["race", "sex"]] = ["w", "b & 0"]
    with pytest.raises(InvalidParameterError, match=r"get the same label 'w & b & 0'"):
        _spark(spark.createDataFrame(frame), ["race", "sex"])


@pytest.mark.slow
def test_whole_floats_in_an_intersection_are_written_as_integers(spark):
    """``1.0`` is written ``"1"`` in an intersection's label, as in memory."""
    frame = score_frame(300, seed=75).astype({"sex": float})
    frame.loc[:9, "sex"] = 2.5
    got = _spark(spark.createDataFrame(frame), ["race", "sex"])
    assert_same(numpy_engine(frame, "score", ["race", "sex"], GRID), got)  # in memory
    assert "w & 1" in got.group_levels and not any(g.endswith(".0") for g in got.group_levels)
