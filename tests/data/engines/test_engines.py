"""The Dask and Spark engines: the same summary as in memory, on a real cluster and in local mode.

Dask runs on a ``distributed.LocalCluster`` with two worker processes; Spark in
local mode (``local[2]``). Both are slow to start (seconds), so each gets one
module-scoped fixture; the Spark tests are marked slow (local mode starts a JVM).
"""

import numpy as np
import pandas as pd
import pytest
from frames import assert_same, coded_frame, score_frame, write_parts

import bayesfair as bf
from bayesfair.exceptions import InvalidParameterError

# PySpark 4 calls pandas 3 with a deprecated keyword when it converts frames
pytestmark = pytest.mark.filterwarnings("ignore:The copy keyword is deprecated")

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


@pytest.mark.parametrize("parts", [1, 7, 64])
@pytest.mark.parametrize("group", ["race", ["race", "sex"]])
def test_dask_equals_the_in_memory_summary(client, parts, group):
    frame = score_frame()
    ref = bf.summarize_unlabeled(frame, group=group)
    got = bf.summarize_unlabeled(dd.from_pandas(frame, npartitions=parts), group=group)
    assert_same(ref, got)
    assert len(client.scheduler_info()["workers"]) == 2


def test_dask_reads_files_and_names_a_bad_one(client, tmp_path):
    frame = score_frame(6_000, seed=3)
    path = write_parts(frame, tmp_path, 7)
    assert_same(
        bf.summarize_unlabeled(frame, group="race"),
        bf.summarize_unlabeled(path, group="race", engine="dask", scheduler=client),
    )
    bad = frame.copy()
    bad.loc[1450, "score"] = -0.5  # files of 1,000 rows: row group 3 (of 200 rows) of file 2
    sub = tmp_path / "bad"
    sub.mkdir()
    glob = write_parts(bad.iloc[:6000], sub, 6, row_group_size=200)
    with pytest.raises(InvalidParameterError, match=r"part-001\.parquet.*-0\.5"):
        bf.summarize_unlabeled(glob, group="race", engine="dask")


def test_unreachable_dask_scheduler():
    with pytest.raises(InvalidParameterError, match="tcp://127.0.0.1:1"):
        bf.summarize_unlabeled(str(__file__), engine="dask", scheduler="tcp://127.0.0.1:1")


@pytest.fixture(scope="module")
def spark():
    pyspark = pytest.importorskip("pyspark")
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
    del pyspark


@pytest.mark.slow
@pytest.mark.parametrize("parts", [1, 7, 64])
@pytest.mark.parametrize("group", ["race", "sex", ["race", "sex"]])
def test_spark_equals_the_in_memory_summary(spark, parts, group):
    frame = score_frame(8_000, seed=5)
    ref = bf.summarize_unlabeled(frame, group=group)
    got = bf.summarize_unlabeled(spark.createDataFrame(frame).repartition(parts), group=group)
    assert_same(ref, got)


@pytest.mark.slow
def test_spark_reads_files_and_names_a_bad_one(spark, tmp_path):
    frame = score_frame(6_000, seed=6)
    path = write_parts(frame, tmp_path, 4)
    assert_same(
        bf.summarize_unlabeled(frame, group="race"),
        bf.summarize_unlabeled(path, group="race", engine="spark"),
    )
    bad = frame.copy()
    bad.loc[3100, "score"] = np.nan  # the third of four files
    sub = tmp_path / "bad"
    sub.mkdir()
    glob = write_parts(bad, sub, 4)
    with pytest.raises(InvalidParameterError, match=r"part-002\.parquet"):
        bf.summarize_unlabeled(glob, group="race", engine="spark")
    with pytest.raises(InvalidParameterError, match=r"no column\(s\) \['grp'\]"):
        bf.summarize_unlabeled(path, group="grp", engine="spark")


def test_a_missing_extra_names_it(monkeypatch):
    import builtins

    real = builtins.__import__

    def fake(name, *args, **kwargs):
        if name.startswith("pyspark"):
            raise ImportError("No module named 'pyspark'", name="pyspark")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake)
    monkeypatch.delitem(__import__("sys").modules, "pyspark", raising=False)
    with pytest.raises(ImportError, match=r"bayesfair\[spark\]"):
        bf.summarize_unlabeled(pd.DataFrame({"score": [0.5], "group": ["a"]}), engine="spark")


def test_run_grid_on_the_cluster_equals_the_serial_run(client):
    from bayesfair.experiments import run_grid

    kw = dict(
        methods=("freq", "bb", "rbc"),
        n_runs=3,
        draws=60,
        tune=60,
        chains=1,
        random_seed=11,
        progressbar=False,
    )
    serial = run_grid("german-sex", "LR", "tpr", n_labeled=(20, 60), **kw)
    spread = run_grid("german-sex", "LR", "tpr", n_labeled=(20, 60), scheduler=client, **kw)
    # workers ran the tasks: both processes took part
    assert len(client.scheduler_info()["workers"]) == 2
    cols = [c for c in serial.columns if c != "seconds"]
    pd.testing.assert_frame_equal(serial[cols], spread[cols])


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_dask_text_groups(client, tmp_path, kind):
    frame = coded_frame()
    path = write_parts(frame, tmp_path, 3, kind)
    for col in ("code", "level", "flag"):
        ref = bf.summarize_unlabeled(frame.astype({col: str}), group=col)
        assert_same(ref, bf.summarize_unlabeled(path, group=col, engine="dask", text_groups=True))
    ddf = dd.from_pandas(frame, npartitions=4)
    ref = bf.summarize_unlabeled(frame.astype({"flag": str}), group="flag")
    assert_same(ref, bf.summarize_unlabeled(ddf, group="flag", text_groups=True))


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_spark_text_groups(spark, tmp_path, kind):
    frame = coded_frame()
    path = write_parts(frame, tmp_path, 3, kind)
    for col in ("code", "level", "flag"):
        ref = bf.summarize_unlabeled(frame.astype({col: str}), group=col)
        got = bf.summarize_unlabeled(path, group=col, engine="spark", text_groups=True)
        assert_same(ref, got)


def test_dask_labeled_summary_equals_numpy(client, tmp_path):
    from frames import assert_same_labeled, labeled_frame

    frame = labeled_frame(6_000, seed=21)
    ref = bf.summarize(frame, group=["race", "sex"], label="label")
    got = bf.summarize(dd.from_pandas(frame, npartitions=5), group=["race", "sex"], label="label")
    assert_same_labeled(ref, got)
    path = write_parts(frame, tmp_path, 3)
    assert_same_labeled(
        ref.with_levels(ref.levels),
        bf.summarize(path, group=["race", "sex"], label="label", engine="dask", scheduler=client),
    )


@pytest.mark.slow
def test_spark_labeled_summary_equals_numpy(spark):
    from frames import assert_same_labeled, labeled_frame

    frame = labeled_frame(6_000, seed=22)
    ref = bf.summarize(frame, group="race", label="label")
    got = bf.summarize(spark.createDataFrame(frame).repartition(4), group="race", label="label")
    assert_same_labeled(ref, got)
