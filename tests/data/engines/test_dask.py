"""bayesfair.data.engines.dask: a Dask DataFrame or files, summed per partition.

Most tests run on Dask's local scheduler (no client); one runs on a real
``distributed.LocalCluster`` with two worker processes, reached by its address.
"""

import pytest
from frames import assert_same, assert_same_labeled, coded_frame, labeled_frame, write_parts

from bayesfair.data.engines._common import EngineRun, LabelColumn, SummaryGrid
from bayesfair.data.engines.dask import dask_client, dask_engine
from bayesfair.data.engines.numpy import numpy_engine
from bayesfair.exceptions import InvalidParameterError

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

GRID = SummaryGrid(threshold=0.5, score_clip=0.01, n_bins=64)
LABEL = LabelColumn("label", 1.0)


def _dask(source, group, *, scheduler=None, progress=False, text=False, target=None):
    run = EngineRun(scheduler=scheduler, progressbar=progress, text_groups=text)
    return dask_engine(source, "score", group, GRID, run, target)


# ---------------------------------------------------------------------- local scheduler
@pytest.mark.parametrize("kind", ["parquet", "csv"])
def test_files_are_summed_one_task_each_as_in_memory(tmp_path, kind):
    frame = labeled_frame(4_000, seed=61)
    path = write_parts(frame, tmp_path, 4, kind)
    got = _dask(path, ["race", "sex"], target=LABEL)
    ref = numpy_engine(frame, "score", ["race", "sex"], GRID, LABEL)
    assert_same_labeled(ref, got)
    assert got.attributes == ("race", "sex") and got.n_total == 4_000


def test_text_groups_of_a_dask_frame_and_of_csv_files(tmp_path):
    frame = coded_frame(2_000, seed=62)
    ref = numpy_engine(frame.astype({"code": str}), "score", ["code"], GRID)
    from_files = _dask(write_parts(frame, tmp_path, 2, "csv"), ["code"], text=True)
    assert_same(ref, from_files)
    assert set(from_files.group_levels) == {"1", "01", "2"}  # "01" is not the number 1
    flags = _dask(dd.from_pandas(frame, npartitions=3), ["flag"], text=True)
    assert flags.group_levels == ["False", "True"]
    assert_same(numpy_engine(frame.astype({"flag": str}), "score", ["flag"], GRID), flags)


def test_pos_label_zero_on_partitions():
    frame = labeled_frame(3_000, seed=63)
    zero_is_positive = LabelColumn("label", 0.0)
    got = _dask(dd.from_pandas(frame, npartitions=4), ["race"], target=zero_is_positive)
    assert_same_labeled(numpy_engine(frame, "score", ["race"], GRID, zero_is_positive), got)
    assert got.positives.sum() == (frame["label"] == 0).sum()


def test_sources_and_columns_it_cannot_read_are_named(tmp_path):
    frame = labeled_frame(500, seed=64)
    with pytest.raises(InvalidParameterError, match="takes a Dask DataFrame or a path or glob"):
        _dask(frame, ["race"])
    with pytest.raises(InvalidParameterError, match=r"no column\(s\) \['grp'\]; it has \['score'"):
        _dask(dd.from_pandas(frame, npartitions=2), ["grp"])
    path = write_parts(frame, tmp_path, 2)
    with pytest.raises(
        InvalidParameterError, match=r"The file '.*part-00[01]\.parquet' has no column\(s\) \['y'\]"
    ):
        _dask(path, ["race"], target=LabelColumn("y", 1.0))
    with pytest.raises(InvalidParameterError, match="No file matches"):
        _dask(str(tmp_path / "none-*.parquet"), ["race"])


def test_dask_client_without_a_scheduler_and_at_an_unreachable_address():
    assert dask_client(None) is None
    with pytest.raises(InvalidParameterError, match=r"Could not reach the Dask scheduler at "):
        dask_client("tcp://127.0.0.1:1")


# ---------------------------------------------------------------------- a real cluster
@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


def test_a_cluster_sums_the_files_on_its_workers(client, tmp_path):
    """dask_client gives the client it is given, or one connected to an address; files
    summed by the workers (with a progress bar) equal the in-memory summary."""
    assert dask_client(client) is client
    address = client.scheduler.address
    other = dask_client(address)
    try:
        assert isinstance(other, distributed.Client) and other is not client
        assert other.scheduler.address == address
        assert len(other.scheduler_info()["workers"]) == 2
    finally:
        other.close()
    frame = labeled_frame(6_000, seed=65)
    path = write_parts(frame, tmp_path, 6)
    got = _dask(path, ["race"], scheduler=client, progress=True, target=LABEL)
    assert_same_labeled(numpy_engine(frame, "score", ["race"], GRID, LABEL), got)
    # a Dask frame without a scheduler named: the current client computes it
    ddf = dd.from_pandas(frame.drop(columns="label"), npartitions=5)
    assert_same(numpy_engine(frame, "score", ["race"], GRID), _dask(ddf, ["race"]))
    assert distributed.get_client() is client
