"""``bayesfair assess --period``: an audit over time from two files."""

import json

import pytest
from click.testing import CliRunner

from bayesfair.cli import main
from bayesfair.datasets.simulate import drifting_periods


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("periods")
    lab, unl = drifting_periods(
        3, [80, 0, 60], 300, drift_group="B", drift_from=2, shift=3.0, random_seed=4
    )
    lab.drop(columns=["p", "drifted"]).to_csv(folder / "lab.csv", index=False)
    unl.drop(columns=["p", "drifted", "label"]).to_csv(folder / "unl.csv", index=False)
    return folder


def _run(files, *extra):
    paths = [str(files / "lab.csv"), "--unlabeled", str(files / "unl.csv")]
    columns = ["--score", "score", "--label", "label", "--group", "group"]
    sampling = ["--draws", "200", "--tune", "200", "--chains", "2", "--metrics", "accuracy"]
    args = ["assess", *paths, *columns, *sampling, *extra]
    return CliRunner().invoke(main, args)


def test_a_period_column_gives_the_report_over_time(files, tmp_path):
    out = tmp_path / "report.json"
    result = _run(files, "--period", "period", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "Drift: B's" in result.output  # the drift warning, as the report words it
    payload = json.loads(out.read_text())
    assert [r["period"] for r in payload["periods"]] == [0, 1, 2]
    assert payload["periods"][2]["drift"] is True
    # provenance, as every report closes with: versions, the files' digests, the command
    prov = payload["provenance"]
    assert {"bayesfair", "numpy", "pymc", "arviz"} <= set(prov["versions"])
    assert [i["role"] for i in prov["inputs"]] == ["labeled", "unlabeled"]
    assert all(len(i["sha256"]) == 64 for i in prov["inputs"])
    assert prov["call"].startswith("bayesfair assess ") and "--period period" in prov["call"]


def test_an_unknown_period_column_names_the_flag(files):
    result = _run(files, "--period", "quarter", "--quiet")
    assert result.exit_code == 2
    assert "Column 'quarter' (--period) is not in the labeled data" in result.output
