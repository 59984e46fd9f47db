"""Writing and reading a result's tree with bayesfair's metadata
(:mod:`bayesfair._internal.netcdf`)."""

import json
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

from bayesfair._internal.netcdf import read_parts, read_result, write_parts, write_result
from bayesfair._internal.tree import make_tree


@pytest.fixture
def idata():
    """Two chains of five draws of a 3-vector, a custom ``rates`` group and an attribute."""
    theta = np.arange(30, dtype=float).reshape(2, 5, 3) / 30
    posterior = xr.Dataset({"theta": (("chain", "draw", "group"), theta)})
    rates = xr.Dataset({"accuracy": (("chain", "draw", "group"), 1 - theta)})
    return make_tree({"posterior": posterior, "rates": rates}, attrs={"origin": "a test"})


META = {
    "model": "bb",
    "reference": "a",
    "notes": ["first note", "second note"],
    "settings": {"draws": 5, "threshold": 0.5},
}


def test_a_result_comes_back_with_its_draws_groups_and_metadata(idata, tmp_path):
    path = write_result(idata, META, str(tmp_path / "result.nc"))
    assert path == tmp_path / "result.nc" and isinstance(path, Path) and path.exists()
    back, meta = read_result(path)
    assert meta == META
    assert set(back.children) == {"posterior", "rates"}
    np.testing.assert_array_equal(back.posterior["theta"], idata.posterior["theta"])
    np.testing.assert_array_equal(back.rates["accuracy"], idata.rates["accuracy"])
    assert back.attrs["origin"] == "a test"  # the data's own attributes are kept
    assert json.loads(back.attrs["bayesfair"]) == META  # the metadata, as JSON text


def test_writing_leaves_the_inference_data_unchanged(idata, tmp_path):
    before = dict(idata.attrs)
    write_result(idata, META, tmp_path / "result.nc")
    assert dict(idata.attrs) == before and "bayesfair" not in idata.attrs
    assert set(idata.children) == {"posterior", "rates"}


def test_numpy_scalars_are_written_as_python_values(idata, tmp_path):
    """At the top level and in the dictionaries of the metadata (a result's settings)."""
    meta = {
        "reference": np.int64(3),
        "threshold": np.float64(0.25),
        "flag": np.bool_(True),
        "settings": {"draws": np.int32(200), "ci_prob": np.float32(0.5), "name": "x"},
    }
    _, back = read_result(write_result(idata, meta, tmp_path / "r.nc"))
    assert back == {
        "reference": 3,
        "threshold": 0.25,
        "flag": True,
        "settings": {"draws": 200, "ci_prob": 0.5, "name": "x"},
    }
    assert type(back["reference"]) is int and type(back["flag"]) is bool


def test_writing_again_replaces_the_file(idata, tmp_path):
    path = tmp_path / "r.nc"
    write_result(idata, META, path)
    write_result(idata, {**META, "model": "rbc"}, path)
    _, meta = read_result(path)
    assert meta["model"] == "rbc"


def test_a_file_without_bayesfairs_metadata_is_refused(idata, tmp_path):
    path = tmp_path / "plain.nc"
    idata.to_netcdf(str(path))
    with pytest.raises(KeyError, match="bayesfair"):
        read_result(path)


def test_several_results_in_one_file_keep_their_own_metadata_and_dates(idata, tmp_path):
    """``write_parts``: a node per result with its metadata; the whole's at the root, dates
    and NumPy scalars kept; a value JSON has no form for is refused by name."""
    import pandas as pd

    when = pd.Timestamp("2026-03-01")
    meta = {"periods": [when, np.int64(2)], "note": "whole"}
    parts = {"fit_0": (idata, {"model": "bb"}), "fit_2": (idata, {"model": "rbc"})}
    path = write_parts(parts, meta, tmp_path / "parts.nc")
    back, whole = read_parts(path)
    assert whole == {"periods": [when, 2], "note": "whole"}
    assert isinstance(whole["periods"][0], pd.Timestamp)
    assert {name: m for name, (_, m) in back.items()} == {
        "fit_0": {"model": "bb"},
        "fit_2": {"model": "rbc"},
    }
    tree, _ = back["fit_2"]
    xr.testing.assert_equal(tree["posterior"].to_dataset(), idata["posterior"].to_dataset())
    assert tree.attrs["origin"] == "a test"
    import datetime

    labels = [pd.Period("2026Q1"), datetime.date(2026, 1, 31), datetime.datetime(2026, 2, 1, 9)]
    _, whole = read_parts(write_parts(parts, {"periods": labels}, tmp_path / "more.nc"))
    assert whole["periods"] == labels
    assert [type(v) for v in whole["periods"]] == [type(v) for v in labels]
    with pytest.raises(TypeError, match="complex cannot be saved"):
        write_parts(parts, {"period": 1j}, tmp_path / "bad.nc")
