"""The ``bayesfair assess`` command: reports, exit codes, and malformed files."""

import importlib
import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from bayesfair.cli import main
from bayesfair.datasets import load_scores, split_labeled

SMALL = ["--draws", "200", "--tune", "200", "--chains", "2", "--seed", "1"]
COLS = ["--score", "score", "--label", "label", "--group", "group"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("assess")
    frame = load_scores("adult-sex", "MLP")
    labeled, unlabeled = split_labeled(frame, 100, 0, "random")
    labeled = labeled[["score", "label", "group", "race"]].reset_index(drop=True)
    unlabeled = unlabeled[["score", "group", "race"]].reset_index(drop=True)
    paths = {"lab": d / "lab.csv", "unl": d / "unl.csv", "unl_pq": d / "unl.parquet"}
    labeled.to_csv(paths["lab"], index=False)
    unlabeled.to_csv(paths["unl"], index=False)
    unlabeled.to_parquet(paths["unl_pq"])
    return paths


@pytest.fixture
def runner():
    return CliRunner()


def _run(runner, *args):
    return runner.invoke(main, ["assess", *map(str, args)], catch_exceptions=False)


# --------------------------------------------------------------------------- success
def test_assess_json_bb(runner, files, tmp_path):
    out = tmp_path / "report.json"
    res = _run(runner, files["lab"], "--unlabeled", files["unl_pq"], *COLS, "--model", "bb",
               "--out", out, *SMALL)  # fmt: skip
    assert res.exit_code == 0, res.output
    doc = json.loads(out.read_text())
    assert doc["settings"]["models"] == ["bb"]
    assert doc["settings"]["reference"] == "Male"  # most labeled examples
    assert [p["metric"] for p in doc["pairs"]] == ["accuracy", "tpr", "fpr"]
    assert "newcombe_lower" in doc["pairs"][0]  # frequentist columns always there
    # with unlabeled data, the PPI++ interval and its effective n too
    assert doc["pairs"][0]["ppi_lower"] < doc["pairs"][0]["ppi_upper"]
    assert doc["pairs"][0]["ppi_effective_n"] > 0
    assert "reference group 'Male'" in res.stderr
    assert "Wrote json report" in res.stderr
    assert res.stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]  # no temp file left


def test_assess_markdown_to_stdout_quiet(runner, files):
    res = _run(runner, files["lab"], *COLS, "--model", "bb", "--metrics", "accuracy",
               "--reference", "Female", "--epsilon", "0.05", "--quiet", *SMALL)  # fmt: skip
    assert res.exit_code == 0, res.output
    assert res.stderr == ""
    assert "| accuracy | Male − Female |" in res.stdout
    assert "ε = 0.05" in res.stdout
    assert "PPI++" not in res.stdout  # no unlabeled file: no prediction-powered column


def test_assess_bc_html_also_fits_bb(runner, files, tmp_path):
    out = tmp_path / "report.html"
    res = _run(runner, files["lab"], "--unlabeled", files["unl"], *COLS, "--model", "bc",
               "--metrics", "accuracy", "--out", out, *SMALL)  # fmt: skip
    assert res.exit_code == 0, res.output
    page = out.read_text()
    assert "<td>models</td><td>BB, BC</td>" in page
    assert '<img src="data:image/png;base64,' in page
    assert "Reliability per group: the BC calibration map" in page
    assert "Fitting BB, BC" in res.stderr
    assert "Traceback" not in res.stderr


def test_assess_clusters_in_every_format(runner, files, tmp_path):
    """--clusters: the section "Which metrics say the same thing" in Markdown and HTML
    (with its dendrogram) and the JSON's metric_clusters records; refused for bb."""
    res = _run(runner, files["lab"], "--unlabeled", files["unl"], *COLS, "--metrics", "tpr",
               "--clusters", "--quiet", *SMALL)  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "Which metrics say the same thing (one metric per cluster):" in res.stdout
    assert "| metric (representative) |" in res.stdout
    html = tmp_path / "report.html"
    res = _run(runner, files["lab"], "--unlabeled", files["unl"], *COLS, "--metrics", "tpr",
               "--clusters", "--out", html, "--quiet", *SMALL)  # fmt: skip
    page = html.read_text()
    assert "<h2>Which metrics say the same thing</h2>" in page
    assert "cut at the most stable height" in page  # the dendrogram's caption
    out = tmp_path / "report.json"
    res = _run(runner, files["lab"], "--unlabeled", files["unl"], *COLS, "--metrics", "tpr",
               "--clusters", "--out", out, "--quiet", *SMALL)  # fmt: skip
    records = json.loads(out.read_text())["metric_clusters"]
    assert len(records) == 25 and {"metric", "cluster", "representative"} <= set(records[0])
    res = _run(runner, files["lab"], *COLS, "--model", "bb", "--clusters", "--quiet", *SMALL)
    assert res.exit_code == 2 and "needs a calibration model" in res.stderr


def test_assess_intersectional_groups(runner, files, tmp_path):
    out = tmp_path / "r.md"
    res = _run(runner, files["lab"], *COLS[:4], "--group", "group,race", "--model", "bb",
               "--metrics", "accuracy", "--out", out, "--quiet", *SMALL)  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "Male & White" in out.read_text()


# --------------------------------------------------------------------------- bad input
def _write(path, text=None, data=None):
    if data is not None:
        path.write_bytes(data)
    else:
        path.write_text(text)
    return path


BAD_FILES = {
    "missing column": (
        "lab.csv",
        "score,label,sex\n0.2,0,a\n0.8,1,b\n",
        "has no column 'group' (--group group); its columns are ['score', 'label', 'sex']",
    ),
    "non-numeric score": (
        "lab.csv",
        "score,label,group\n0.2,0,a\nhigh,1,b\n",
        "--score score: line 3 of",
    ),
    "empty file": ("lab.csv", "", "is empty"),
    "header only": ("lab.csv", "score,label,group\n", "has a header but no rows"),
    "three labels": (
        "lab.csv",
        "score,label,group\n0.2,0,a\n0.8,1,b\n0.5,2,a\n",
        "--label label: the labels take 3 values",
    ),
    "score out of range": (
        "lab.csv",
        "score,label,group\n0.2,0,a\n1.8,1,b\n",
        "holds 1.8, not a score in [0, 1]",
    ),
    "unknown suffix": ("lab.xlsx", "whatever", "use .csv, .tsv or .parquet"),
    "not utf-8": ("lab.csv", None, "is not UTF-8 text"),
    "corrupt parquet": ("lab.parquet", "this is not parquet", "Cannot parse the labeled file"),
    "ragged csv": (
        "lab.csv",
        'score,label,group\n0.2,0,a\n0.8,1,b,c,d\n"unterminated\n',
        "Cannot parse the labeled file",
    ),
}


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_assess_malformed_labeled_file(runner, tmp_path, case):
    name, text, message = BAD_FILES[case]
    if case == "not utf-8":
        src = _write(tmp_path / name, data=b"score,label,group\n0.2,0,\xff\xfe\x00\x81\n")
    else:
        src = _write(tmp_path / name, text)
    out = tmp_path / "report.html"
    res = _run(runner, src, *COLS, "--model", "bb", "--out", out, *SMALL)
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("bayesfair: error: ")
    assert message in lines[0]
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--metrics", "tpr_"], "Did you mean 'tpr'?"),
        (["--reference", "Femal"], "Unknown group 'Femal' for --reference"),
        (["--threshold", "1.5"], "--threshold must be a float in (0, 1)"),
        (["--pos-label", "yes"], "--pos-label yes: not a value of --label label"),
        (["--out", "report.pdf"], "use .html, .md or .json"),
        (["--out", "no/such/dir/report.html"], "does not exist"),
        (["--unlabeled", "missing.csv"], "No file matches 'missing.csv'"),
    ],
)
def test_assess_bad_arguments(runner, files, tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    res = _run(runner, files["lab"], *COLS, "--model", "bb", *args, *SMALL)
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], res.stderr
    assert list(tmp_path.iterdir()) == []


def test_assess_unreadable_paths(runner, tmp_path):
    res = _run(runner, tmp_path / "nope.csv", *COLS)
    assert res.exit_code == 2 and "does not exist" in res.stderr
    folder = tmp_path / "dir.csv"
    folder.mkdir()
    res = _run(runner, folder, *COLS)
    assert res.exit_code == 2 and "is not a regular file" in res.stderr


def test_assess_unlabeled_missing_group_column(runner, files, tmp_path):
    unl = _write(tmp_path / "u.csv", "score,sex\n0.3,a\n")
    out = tmp_path / "r.json"
    res = _run(runner, files["lab"], "--unlabeled", unl, *COLS, "--out", out, *SMALL)
    assert res.exit_code == 2
    assert "u.csv' has no column(s) ['group']" in res.stderr
    assert not out.exists()


def test_assess_parquet_without_pyarrow(runner, files, tmp_path, monkeypatch):
    def no_pyarrow(*args, **kwargs):
        raise ImportError("Unable to find a usable engine; tried using: 'pyarrow', 'fastparquet'.")

    monkeypatch.setattr(pd, "read_parquet", no_pyarrow)
    out = tmp_path / "r.json"
    res = _run(runner, files["lab"], "--unlabeled", files["unl_pq"], "--engine", "memory",
               *COLS, "--out", out)  # fmt: skip
    assert res.exit_code == 2
    assert "needs pyarrow, which is not installed" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_assess_unexpected_error_exits_1_without_partial_report(
    runner, files, tmp_path, monkeypatch
):
    cli_module = importlib.import_module("bayesfair.cli.assess")  # where the command calls from

    def broken(*args, **kwargs):
        raise RuntimeError("sampler exploded\nsecond line")

    monkeypatch.setattr(cli_module, "compare", broken)
    out = tmp_path / "r.html"
    res = _run(runner, files["lab"], *COLS, "--model", "bb", "--out", out, "--quiet")
    assert res.exit_code == 1
    assert res.stderr.strip() == "bayesfair: internal error: RuntimeError: sampler exploded"
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------- subprocess
def _python_m(*args, cwd):
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    return subprocess.run(
        [sys.executable, "-m", "bayesfair", "assess", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=600,
        check=False,
    )


def test_subprocess_success_and_malformed(files, tmp_path):
    out = tmp_path / "report.md"
    proc = _python_m(files["lab"], "--unlabeled", files["unl"], *COLS, "--model", "bb",
                     "--metrics", "accuracy,tpr", "--out", out, *SMALL, cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "| accuracy | Female − Male |" in out.read_text()

    bad = _write(tmp_path / "bad.csv", "score,label,group\n0.2,0,a\n0.8,1,b\n0.5,2,a\n")
    out2 = tmp_path / "bad_report.html"
    proc = _python_m(bad, *COLS, "--out", out2, cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "bayesfair: error: --label label: the labels take 3 values (0, 1, 2); a binary label "
        "is needed."
    ]
    assert "Traceback" not in proc.stderr
    assert not out2.exists()


def test_assess_markdown_with_unlabeled_shows_ppi(runner, files):
    res = _run(runner, files["lab"], "--unlabeled", files["unl"], *COLS, "--model", "bb",
               "--metrics", "tpr", "--quiet", *SMALL)  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "PPI++" in res.stdout and "PPI++ n_eff" in res.stdout


def test_assess_streams_a_glob_through_duckdb(runner, files, tmp_path):
    frame = pd.read_csv(files["unl"])
    for k, rows in enumerate(np.array_split(np.arange(len(frame)), 3)):
        frame.iloc[rows].to_parquet(tmp_path / f"log-{k}.parquet")
    out = tmp_path / "report.json"
    res = _run(runner, files["lab"], "--unlabeled", tmp_path / "log-*.parquet", *COLS,
               "--model", "bb", "--metrics", "tpr", "--out", out, *SMALL)  # fmt: skip
    assert res.exit_code == 0, res.output
    assert f"Summarised {len(frame):,} unlabeled rows with duckdb" in res.stderr
    direct = _run(runner, files["lab"], "--unlabeled", files["unl"], "--engine", "memory",
                  *COLS, "--model", "bb", "--metrics", "tpr", "--out", tmp_path / "d.json",
                  *SMALL)  # fmt: skip
    assert direct.exit_code == 0
    a = json.loads(out.read_text())["pairs"][0]
    b = json.loads((tmp_path / "d.json").read_text())["pairs"][0]
    assert a["ppi_lower"] == pytest.approx(b["ppi_lower"], rel=1e-9)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--unlabeled", "nothing-*.parquet"], "No file matches 'nothing-*.parquet'"),
        (["--scheduler", "tcp://127.0.0.1:1"], "needs --engine dask or spark"),
        (["--engine", "dask", "--scheduler", "tcp://127.0.0.1:1"],
         "Could not reach the Dask scheduler at 'tcp://127.0.0.1:1'"),
    ],
)  # fmt: skip
def test_assess_bad_unlabeled_sources(runner, files, tmp_path, args, message):
    if "--unlabeled" not in args:
        args = ["--unlabeled", str(files["unl_pq"]), *args]
    out = tmp_path / "r.json"
    res = _run(runner, files["lab"], *args, *COLS, "--out", out, *SMALL)
    assert res.exit_code == 2, res.output
    assert message in res.stderr
    assert not out.exists()


def test_assess_names_the_file_with_a_bad_score(runner, files, tmp_path):
    frame = pd.read_csv(files["unl"])
    frame.loc[len(frame) - 5, "score"] = 1.5
    for k, rows in enumerate(np.array_split(np.arange(len(frame)), 2)):
        frame.iloc[rows].to_parquet(tmp_path / f"log-{k}.parquet")
    res = _run(runner, files["lab"], "--unlabeled", tmp_path / "log-*.parquet", *COLS, *SMALL)
    assert res.exit_code == 2
    assert "log-1.parquet" in res.stderr and "1.5" in res.stderr


def test_demo_reports_an_unexpected_error_in_one_line(monkeypatch):
    import bayesfair.cli.demo as cli_module

    def broken(*args, **kwargs):
        raise RuntimeError("boom\nsecond line")

    monkeypatch.setattr(cli_module, "compare", broken)
    result = CliRunner().invoke(main, ["demo", "--dataset", "ricci-race", "--classifier", "LR",
                                       "--n-labeled", "10", "--quiet"])  # fmt: skip
    assert result.exit_code == 1
    assert "internal error: RuntimeError: boom" in result.output
    assert "second line" not in result.output and "Traceback" not in result.output


def test_assess_accepts_zero_tuning_draws_as_fit_does(tmp_path):
    rng = np.random.default_rng(1)
    s = rng.uniform(0, 1, 40)
    frame = pd.DataFrame({"score": s, "label": (rng.uniform(size=40) < s).astype(int),
                          "group": np.repeat(["A", "B"], 20)})  # fmt: skip
    path = tmp_path / "labeled.csv"
    frame.to_csv(path, index=False)
    result = CliRunner().invoke(main, ["assess", str(path), "--score", "score", "--label",
                                       "label", "--group", "group", "--model", "bb", "--tune", "0",
                                       "--draws", "50", "--chains", "1", "--quiet"])  # fmt: skip
    assert "--tune" not in result.stderr, result.stderr
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("engine", ["duckdb", "memory"])
def test_assess_intersections_with_unlabeled_rows_on_every_engine(runner, files, tmp_path, engine):
    """Intersections with an unlabeled file on every local engine and the default model: the
    labeled and unlabeled summaries (group columns recorded or not) add up, and the family
    verdicts come first (4 groups)."""
    out = tmp_path / "r.md"
    res = _run(
        runner,
        files["lab"],
        "--unlabeled",
        files["unl"],
        *COLS[:4],
        "--group",
        "group,race",
        "--engine",
        engine,
        "--metrics",
        "accuracy",
        "--out",
        out,
        "--quiet",
        *SMALL,
    )
    assert res.exit_code == 0, res.output
    text = out.read_text()
    assert text.startswith("Family verdicts (")
    assert "Male & White" in text


def test_assess_refuses_an_epsilon_of_one_or_more(runner, files):
    res = _run(runner, files["lab"], *COLS, "--epsilon", "5", "--quiet", *SMALL)
    assert res.exit_code == 2
    assert "--epsilon 5.0: must be below 1" in res.stderr
