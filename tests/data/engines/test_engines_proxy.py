"""Rows with group probabilities summarised by every engine: the same entries as in memory.

Dask on a ``distributed.LocalCluster`` with two worker processes, Spark in local mode
(slow: it starts a JVM), DuckDB on Parquet files; every engine's summary equals the
in-memory one entry by entry (the sums to floating-point error), and a fit from a
DuckDB-read source equals in distribution one from the rows.
"""

import numpy as np
import pytest

import bayesfair as bf
from bayesfair.data.proxy_summary import ProxySummary
from bayesfair.datasets.simulate import proxy_audit
from bayesfair.exceptions import InvalidParameterError

pytestmark = pytest.mark.filterwarnings("ignore:The copy keyword is deprecated")
FIELDS = (
    "group",
    "label",
    "side",
    "bin",
    "cell",
    "count",
    "sum_log_s",
    "sum_log_1ms",
    "sum_score",
    "sum_p",
)


@pytest.fixture(scope="module")
def audit():
    return proxy_audit(k=3, n_labeled=300, n_unlabeled=8000, n_self_reported=1000, random_seed=5)


def _same(a: ProxySummary, b: ProxySummary):
    assert a.levels == b.levels and a.n_entries == b.n_entries
    for name in FIELDS:
        np.testing.assert_allclose(getattr(a, name), getattr(b, name), rtol=1e-9, atol=1e-9)


def _memory(audit):
    _, unl = audit.frames()
    return unl, bf.summarize_proxy(unl, "score", "group", audit.group_probabilities)


def test_memory_is_the_rows_summary(audit):
    unl, summary = _memory(audit)
    assert summary.n_total == len(unl)
    assert summary.known.sum() > 0 and (~summary.known).sum() > 0  # rows of both kinds
    columns = [audit.group_probabilities[g] for g in summary.levels]
    np.testing.assert_allclose(summary.sum_p.sum(axis=0), unl[columns].sum(), rtol=1e-12)


def test_duckdb_reads_parquet_files_to_the_same_summary(audit, tmp_path):
    unl, summary = _memory(audit)
    for i, part in enumerate(np.array_split(np.arange(len(unl)), 3)):
        unl.iloc[part].to_parquet(tmp_path / f"part-{i}.parquet")
    got = bf.summarize_proxy(
        str(tmp_path / "*.parquet"), "score", "group", audit.group_probabilities
    )
    _same(summary, got)


def test_duckdb_names_bad_rows(audit, tmp_path):
    unl, _ = _memory(audit)
    bad = unl.copy()
    bad.loc[3, audit.group_probabilities["White"]] = 0.9  # no longer sums to 1
    bad.to_parquet(tmp_path / "bad.parquet")
    with pytest.raises(InvalidParameterError, match="do not sum to 1"):
        bf.summarize_proxy(
            str(tmp_path / "bad.parquet"), "score", "group", audit.group_probabilities
        )
    bad = unl.copy()
    bad.loc[4, "group"] = "Martian"
    bad.to_parquet(tmp_path / "bad2.parquet")
    with pytest.raises(InvalidParameterError, match="does not name"):
        bf.summarize_proxy(
            str(tmp_path / "bad2.parquet"), "score", "group", audit.group_probabilities
        )


def test_a_source_goes_into_the_data_and_its_known_rows_are_assessed(audit, tmp_path, fast):
    lab, unl = audit.frames()
    path = tmp_path / "unl.parquet"
    unl.to_parquet(path)
    data = bf.AssessmentData.from_frames(
        lab,
        str(path),
        score="score",
        label="label",
        group="group",
        group_probabilities=audit.group_probabilities,
        reference="White",
    )
    assert data.proxy.assess_known and data.n_unlabeled == 0
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit(data, random_seed=0, **fast)
    cells = res.idata["posterior"]["cells"].sum(("group", "cell")).values
    np.testing.assert_allclose(cells, len(lab) + len(unl))
    # the rows of known group in the source stay in their group in every draw
    known = unl["group"].value_counts()
    sizes = res.idata["posterior"]["cells"].sum("cell")
    for g, n in known.items():
        assert (sizes.sel(group=g).values >= n).all()


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


def test_dask_equals_the_in_memory_summary(audit, client):
    unl, summary = _memory(audit)
    got = bf.summarize_proxy(
        dd.from_pandas(unl, npartitions=5), "score", "group", audit.group_probabilities
    )
    _same(summary, got)
    assert len(client.scheduler_info()["workers"]) == 2


@pytest.mark.slow
def test_spark_equals_the_in_memory_summary(audit):
    pytest.importorskip("pyspark")
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("bayesfair-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .getOrCreate()
    )
    unl, summary = _memory(audit)
    sdf = session.createDataFrame(unl.astype({"group": object}).where(unl.notna(), None))
    got = bf.summarize_proxy(sdf, "score", "group", audit.group_probabilities)
    _same(summary, got)
