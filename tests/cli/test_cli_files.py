"""The command line on the files users have: group values, compression, separators, labels."""

import gzip
import os

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from bayesfair.cli import main

SMALL = ["--draws", "100", "--tune", "100", "--chains", "2", "--seed", "1", "--model", "bb"]


@pytest.fixture
def runner():
    return CliRunner()


def _frame(groups, n=80, seed=0):
    rng = np.random.default_rng(seed)
    s = rng.uniform(size=n)
    return pd.DataFrame(
        {"score": s, "label": (rng.uniform(size=n) < s).astype(int),
         "g": rng.choice(np.asarray(groups, dtype=object), n)}
    )  # fmt: skip


def _assess(runner, path, *args):
    return runner.invoke(
        main,
        ["assess", str(path), "--score", "score", "--label", "label", "--group", "g",
         "--metrics", "accuracy", "--quiet", *SMALL, *map(str, args)],
        catch_exceptions=False,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("groups", "expected"),
    [([1.0, 2.5], ("1.0", "2.5")), ([True, False], ("False", "True"))],
)
def test_float_and_boolean_group_values(runner, tmp_path, groups, expected):
    path = tmp_path / "lab.csv"
    _frame(groups).to_csv(path, index=False)
    res = _assess(runner, path, "--reference", expected[0])
    assert res.exit_code == 0, res.output
    assert f"{expected[1]} − {expected[0]}" in res.stdout


def test_codes_that_differ_only_in_a_leading_zero_stay_two_groups(runner, tmp_path):
    path = tmp_path / "lab.csv"
    _frame(["1", "01"]).to_csv(path, index=False)
    res = _assess(runner, path, "--reference", "1")
    assert res.exit_code == 0, res.output
    assert "01 − 1" in res.stdout


@pytest.mark.parametrize("sep", [";", "\t", "|"])
def test_separators_are_sniffed(runner, tmp_path, sep):
    path = tmp_path / "lab.csv"
    _frame(["a", "b"]).to_csv(path, index=False, sep=sep)
    res = _assess(runner, path)
    assert res.exit_code == 0, res.output


def test_compressed_bom_and_windows_line_endings(runner, tmp_path):
    text = _frame(["a", "b"]).to_csv(index=False, lineterminator="\r\n")
    path = tmp_path / "lab.csv.gz"
    with gzip.open(path, "wb") as fh:
        fh.write("\ufeff".encode() + text.encode())
    res = _assess(runner, path)
    assert res.exit_code == 0, res.output


def test_float_labels_with_an_integer_pos_label(runner, tmp_path):
    frame = _frame(["a", "b"])
    frame["label"] = frame["label"].astype(float)
    path = tmp_path / "lab.csv"
    frame.to_csv(path, index=False)
    res = _assess(runner, path, "--pos-label", "1")
    assert res.exit_code == 0, res.output


def test_a_wrong_separator_is_named(runner, tmp_path):
    path = tmp_path / "lab.csv"
    _frame(["a", "b"]).to_csv(path, index=False, sep=";")
    res = _assess(runner, path, "--sep", ",")
    assert res.exit_code == 2
    assert "looks separated by ';': pass --sep ';'" in res.stderr


def test_messages_name_the_flag_and_the_line(runner, tmp_path):
    frame = _frame(["a", "b"])
    frame.loc[4, "score"] = 1.7
    path = tmp_path / "lab.csv"
    frame.to_csv(path, index=False)
    res = _assess(runner, path)
    assert res.exit_code == 2
    assert "--score score: line 6 of" in res.stderr and "holds 1.7" in res.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_out_in_a_read_only_directory_fails_before_fitting(runner, tmp_path):
    path = tmp_path / "lab.csv"
    _frame(["a", "b"]).to_csv(path, index=False)
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    res = _assess(runner, path, "--out", locked / "r.html")
    assert res.exit_code == 2 and "permission denied" in res.stderr
    assert "Fitting" not in res.stderr


def test_out_is_checked_before_fitting(runner, tmp_path, monkeypatch):
    # as root, a read-only directory is writable: check the order with a missing one,
    # and that a denied write is refused before the fit (os.access mocked)
    path = tmp_path / "lab.csv"
    _frame(["a", "b"]).to_csv(path, index=False)
    import importlib

    cli_module = importlib.import_module("bayesfair.cli.assess")

    def no_fit(*args, **kwargs):
        raise AssertionError("fitted before checking --out")

    monkeypatch.setattr(cli_module, "compare", no_fit)
    res = _assess(runner, path, "--out", tmp_path / "no" / "such" / "r.html")
    assert res.exit_code == 2 and "does not exist" in res.stderr
    monkeypatch.setattr(os, "access", lambda *a, **k: False)
    res = _assess(runner, path, "--out", tmp_path / "r.html")
    assert res.exit_code == 2 and "permission denied" in res.stderr


def test_surprises_become_warnings(runner, tmp_path):
    path, unl = tmp_path / "lab.csv", tmp_path / "unl.csv"
    _frame(["a", "b"]).to_csv(path, index=False)
    _frame(["a", "b"], n=300, seed=1)[["score", "g"]].to_csv(unl, index=False)
    res = _assess(runner, path, "--unlabeled", unl, "--chains", "1")
    assert res.exit_code == 0, res.output
    assert "--model bb uses the labeled examples only" in res.stderr
    assert "--chains 1: convergence cannot be checked" in res.stderr
    hard = _frame(["a", "b"])
    hard["score"] = (hard["score"] > 0.5).astype(float)
    hard.to_csv(path, index=False)
    res = _assess(runner, path)
    assert "look like hard predictions" in res.stderr


def test_clean_runs_print_nothing_on_stderr(tmp_path):
    """`demo` and `assess` with --quiet on bundled data: stdout has the report, stderr nothing."""
    import subprocess
    import sys

    from bayesfair.datasets import load_scores

    frame = load_scores("adult-sex", "MLP")
    frame[["score", "label", "group"]].iloc[:200].to_csv(tmp_path / "lab.csv", index=False)
    frame[["score", "group"]].iloc[200:].to_csv(tmp_path / "unl.csv", index=False)
    for args in (
        ["demo", "--quiet"],
        ["assess", "lab.csv", "--unlabeled", "unl.csv", "--score", "score", "--label", "label",
         "--group", "group", "--quiet"],
    ):  # fmt: skip
        proc = subprocess.run(
            [sys.executable, "-m", "bayesfair.cli", *args], cwd=tmp_path, capture_output=True,
            text=True, check=False,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr == "", proc.stderr
        assert "| accuracy |" in proc.stdout


def test_demo_prints_its_warnings_like_assess(runner):
    res = runner.invoke(
        main, ["demo", "--quiet", "--draws", "60", "--chains", "2"], catch_exceptions=False
    )
    assert res.exit_code == 0
    lines = res.stderr.strip().splitlines()
    assert lines, "60 draws should warn about convergence"
    assert all(line.startswith("bayesfair: warning: ") for line in lines), lines
    assert ".py:" not in res.stderr


def test_datasets_fits_80_columns_and_names_what_demo_takes(runner):
    from bayesfair.datasets import get_score_set

    res = runner.invoke(main, ["datasets"], catch_exceptions=False)
    assert res.exit_code == 0
    lines = res.stdout.splitlines()
    assert max(map(len, lines)) <= 80
    section = lines[: lines.index("")]
    names = [line.split()[0] for line in section[2:]]
    assert names == ["adult-race", "adult-sex", "german-age", "german-sex", "compas-race",
                     "compas-sex", "ricci-race"]  # fmt: skip
    for name in names:  # exactly as demo --dataset accepts them
        assert get_score_set(name).name == name
    bad = runner.invoke(main, ["demo", "--dataset", "adult", "--quiet"])
    assert bad.exit_code == 2
    assert "'adult' is a raw data set" in bad.stderr and "adult-race" in bad.stderr


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0"])
def test_epsilon_must_be_positive_and_finite(runner, tmp_path, value):
    path = tmp_path / "lab.csv"
    _frame(["a", "b"]).to_csv(path, index=False)
    res = _assess(runner, path, "--epsilon", value)
    assert res.exit_code == 2
    assert f"--epsilon {float(value)}: must be a positive, finite number" in res.stderr


def test_one_draw_is_refused_or_warned(runner, tmp_path):
    path = tmp_path / "lab.csv"
    _frame(["a", "b"]).to_csv(path, index=False)
    res = _assess(runner, path, "--draws", "1", "--tune", "1", "--chains", "1")
    assert res.exit_code == 0, res.output
    assert "bb: 1 posterior draws are too few for a 95% interval (at least 200)" in res.stderr
    # the report prints no interval for bb (its HDI cell is "—"), only its mean
    lines = res.stdout.splitlines()
    row = next(line for line in lines if line.startswith("| accuracy |"))
    header = next(line for line in lines if line.startswith("| metric | pair |"))
    cells = dict(zip(header.split(" | "), row.split(" | "), strict=True))
    assert cells["BB HDI"] == "—" and cells["BB mean"] != "—"


def test_the_report_opens_with_findings_and_carries_its_provenance(runner, tmp_path):
    import hashlib
    import json

    path, unl = tmp_path / "lab.csv", tmp_path / "unl.csv"
    _frame(["a", "b"], n=200).to_csv(path, index=False)
    _frame(["a", "b"], n=500, seed=3)[["score", "g"]].to_csv(unl, index=False)
    out = tmp_path / "r.json"
    res = _assess(runner, path, "--unlabeled", unl, "--out", out, "--epsilon", "0.05")
    assert res.exit_code == 0, res.output
    doc = json.loads(out.read_text())
    (finding,) = doc["findings"]
    assert finding["method"] == "bb" and "rests on BB" in finding["text"]
    (pair,) = doc["pairs"]
    assert finding["verdict"] == pair["bb_decision"]  # the finding says the table's verdict
    prov = doc["provenance"]
    assert {"bayesfair", "numpy", "pymc", "arviz"} <= set(prov["versions"])
    assert prov["call"].startswith("bayesfair assess ")
    lab_in, unl_in = prov["inputs"]
    assert lab_in["rows"] == 200 and unl_in["rows"] == 500
    assert lab_in["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    md = _assess(runner, path, "--epsilon", "0.05")
    assert md.stdout.startswith("Findings:\n\n- accuracy, a vs b: ")
    assert (
        "| call | bayesfair assess" in md.stdout
        and "| BB prior | each group's rate ~ Beta(1, 1)" in md.stdout
    )


def test_progress_fits_80_columns(runner, tmp_path):
    path = tmp_path / "lab.csv"
    _frame(["a", "b"]).to_csv(path, index=False)
    res = runner.invoke(
        main,
        ["assess", str(path), "--score", "score", "--label", "label", "--group", "g",
         "--metrics", "accuracy", "--draws", "200", "--tune", "200", "--chains", "2",
         "--model", "bb"],
        catch_exceptions=False,
    )  # fmt: skip
    assert res.exit_code == 0
    lines = res.stderr.splitlines()
    assert any(line.startswith("Fitted in ") for line in lines)
    assert max(map(len, lines)) <= 80, max(lines, key=len)


def test_a_large_labeled_file_is_summarised_not_loaded(runner, tmp_path, monkeypatch):
    """Above ``LABELED_ROWS_IN_MEMORY`` rows the labeled Parquet file goes through the
    engine's summary (here the limit is lowered to 100 rows): the report's counts,
    frequentist intervals and BB posterior equal those from the loaded rows, PPI++ is
    left out with a note, and the provenance counts every row."""
    import json

    import bayesfair.cli.files as cli

    rng = np.random.default_rng(5)
    frame = _frame(["a", "b"], n=400, seed=5)
    unl = pd.DataFrame({"score": rng.uniform(size=300), "g": rng.choice(["a", "b"], 300)})
    lab_path, unl_path = tmp_path / "lab.parquet", tmp_path / "unl.parquet"
    frame.to_parquet(lab_path)
    unl.to_parquet(unl_path)
    args = ["--unlabeled", unl_path, "--out"]
    loaded = _assess(runner, lab_path, *args, tmp_path / "loaded.json")
    assert loaded.exit_code == 0, loaded.output
    monkeypatch.setattr(cli, "LABELED_ROWS_IN_MEMORY", 100)
    summarised = _assess(runner, lab_path, *args, tmp_path / "summary.json")
    assert summarised.exit_code == 0, summarised.output
    a = json.loads((tmp_path / "loaded.json").read_text())
    b = json.loads((tmp_path / "summary.json").read_text())
    ra, rb = a["pairs"][0], b["pairs"][0]
    for key in (
        "n_group",
        "n_reference",
        "freq_estimate",
        "newcombe_lower",
        "newcombe_upper",
        "bootstrap_lower",
        "bootstrap_upper",
        "bernstein_lower",
        "bb_mean",
        "bb_lower",
    ):
        assert ra[key] == pytest.approx(rb[key], rel=1e-12), key
    assert ra["ppi_lower"] is not None and rb["ppi_lower"] is None
    assert "PPI++ is omitted" in rb["note"] and "PPI++ is omitted" not in ra["note"]
    assert a["variance"] == b["variance"]
    rows = {i["role"]: i["rows"] for i in b["provenance"]["inputs"]}
    assert rows == {"labeled": 400, "unlabeled": 300}


def test_a_summarised_labeled_file_needs_0_1_labels(runner, tmp_path, monkeypatch):
    """Text labels cannot be summarised unloaded: the error says to recode them."""
    import bayesfair.cli.files as cli

    frame = _frame(["a", "b"], n=200)
    frame["label"] = np.where(frame["label"] == 1, "yes", "no")
    path = tmp_path / "lab.parquet"
    frame.to_parquet(path)
    monkeypatch.setattr(cli, "LABELED_ROWS_IN_MEMORY", 100)
    res = _assess(runner, path, "--pos-label", "yes")
    assert res.exit_code == 2
    assert "recode the labels" in res.output


def test_a_header_that_repeats_a_column_is_refused(runner, tmp_path):
    """pandas would read the first 'score' and rename the second 'score.1': refused,
    naming the repeated column."""
    path = tmp_path / "lab.csv"
    frame = _frame(["a", "b"])
    frame.insert(3, "dup", frame["score"])
    path.write_text(frame.to_csv(index=False).replace("dup", "score", 1))
    res = _assess(runner, path)
    assert res.exit_code == 2
    assert "repeats the column name(s) ['score'] in its header" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_a_latin_1_file_says_how_and_reads_with_encoding(runner, tmp_path):
    frame = _frame(["Fémale", "Male"])
    path, unl = tmp_path / "lab.csv", tmp_path / "unl.csv"
    frame.to_csv(path, index=False, encoding="latin-1")
    _frame(["Fémale", "Male"], n=200, seed=3)[["score", "g"]].to_csv(
        unl, index=False, encoding="latin-1"
    )
    res = _assess(runner, path)
    assert res.exit_code == 2
    assert "is not UTF-8 text" in res.stderr and "--encoding" in res.stderr
    res = _assess(runner, path, "--encoding", "latin-1", "--unlabeled", unl)
    assert res.exit_code == 0, res.output
    # the unlabeled file, in DuckDB by default, is read in memory: one group spelled alike
    assert "occur in the unlabeled data" not in res.stderr
    res = _assess(runner, path, "--encoding", "no-such-codec")
    assert res.exit_code == 2 and "--encoding no-such-codec: unknown encoding" in res.stderr
    res = _assess(runner, path, "--encoding", "latin-1", "--unlabeled", unl, "--engine", "dask")
    assert res.exit_code == 2 and "needs --engine memory or duckdb" in res.stderr


def test_errors_name_the_flag_not_the_api_parameter(runner, tmp_path):
    path = tmp_path / "lab.csv"
    _frame(["Female", "Male"]).to_csv(path, index=False)
    res = _assess(runner, path, "--reference", "male")
    assert res.exit_code == 2
    assert "Unknown group 'male' for --reference" in res.stderr
    assert "did you mean 'Male'?" in res.stderr and "parameter" not in res.stderr
    res = _assess(runner, path, "--threshold", "1.5")
    assert res.exit_code == 2 and "--threshold must be a float in (0, 1)" in res.stderr


def test_a_group_only_in_the_unlabeled_file_is_one_warning(runner, tmp_path):
    path, unl = tmp_path / "lab.csv", tmp_path / "unl.csv"
    _frame(["a", "b"]).to_csv(path, index=False)
    _frame(["a", "b", "c"], n=300, seed=1)[["score", "g"]].to_csv(unl, index=False)
    res = _assess(runner, path, "--unlabeled", unl, "--model", "rbc")
    assert res.exit_code == 0, res.output
    lines = [line for line in res.stderr.splitlines() if "['c']" in line]
    assert len(lines) == 1, res.stderr
    assert "occur in the unlabeled data but have no labeled example" in lines[0]
