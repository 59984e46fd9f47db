"""The command line's files (:mod:`bayesfair.cli.files`): reading the tables users have
(group values, compression, separators, encodings, labels), the messages on malformed ones,
large files summarised by an engine, and the checks of ``--out`` before any fit."""

import gzip
import json
import os

import numpy as np
import pandas as pd
import pytest

import bayesfair.cli.files as cli_files
from bayesfair.cli._errors import BadInput
from bayesfair.cli.files import encoding_option, reading_engine

SMALL = ["--draws", "200", "--tune", "200", "--chains", "2", "--seed", "1"]
COLS = ["--score", "score", "--label", "label", "--group", "group"]


#: Few draws of BB on one metric: for the runs whose point is how a file is read.
QUICK = ["--draws", "100", "--tune", "100", "--chains", "2", "--seed", "1", "--model", "bb"]


def _write(path, text=None, data=None):
    if data is not None:
        path.write_bytes(data)
    else:
        path.write_text(text)
    return path


# --------------------------------------------------------------------------- the options
def test_reading_engine_reads_other_encodings_in_memory():
    for encoding in (None, "utf-8", "utf_8", "utf-8-sig"):
        assert reading_engine("duckdb", encoding) == "duckdb"
        assert reading_engine("spark", encoding) == "spark"
    assert reading_engine("duckdb", "latin-1") == "memory"
    assert reading_engine("memory", "cp1252") == "memory"
    with pytest.raises(BadInput, match="--encoding latin-1 needs --engine memory or duckdb"):
        reading_engine("dask", "latin-1")


def test_encoding_option_gives_the_codecs_name():
    assert encoding_option(None, None, None) is None
    assert encoding_option(None, None, "LATIN1") == "iso8859-1"
    assert encoding_option(None, None, "UTF8") == "utf-8"
    with pytest.raises(BadInput, match="--encoding klingon: unknown encoding"):
        encoding_option(None, None, "klingon")


# --------------------------------------------------------------------------- values users have
@pytest.mark.parametrize(
    ("groups", "expected"),
    [([1.0, 2.5], ("1.0", "2.5")), ([True, False], ("False", "True"))],
)
def test_float_and_boolean_group_values(quick_assess, make_frame, tmp_path, groups, expected):
    path = tmp_path / "lab.csv"
    make_frame(groups).to_csv(path, index=False)
    res = quick_assess(path, "--reference", expected[0])
    assert res.exit_code == 0, res.output
    assert f"{expected[1]} − {expected[0]}" in res.stdout


def test_codes_that_differ_only_in_a_leading_zero_stay_two_groups(
    quick_assess, make_frame, tmp_path
):
    path = tmp_path / "lab.csv"
    make_frame(["1", "01"]).to_csv(path, index=False)
    res = quick_assess(path, "--reference", "1")
    assert res.exit_code == 0, res.output
    assert "01 − 1" in res.stdout


@pytest.mark.parametrize("sep", [";", "\t", "|"])
def test_separators_are_sniffed(quick_assess, make_frame, tmp_path, sep):
    path = tmp_path / "lab.csv"
    make_frame(["a", "b"]).to_csv(path, index=False, sep=sep)
    res = quick_assess(path)
    assert res.exit_code == 0, res.output


def test_compressed_bom_and_windows_line_endings(quick_assess, make_frame, tmp_path):
    text = make_frame(["a", "b"]).to_csv(index=False, lineterminator="\r\n")
    path = tmp_path / "lab.csv.gz"
    with gzip.open(path, "wb") as fh:
        fh.write("\ufeff".encode() + text.encode())
    res = quick_assess(path)
    assert res.exit_code == 0, res.output


def test_float_labels_with_an_integer_pos_label(quick_assess, make_frame, tmp_path):
    frame = make_frame(["a", "b"])
    frame["label"] = frame["label"].astype(float)
    path = tmp_path / "lab.csv"
    frame.to_csv(path, index=False)
    res = quick_assess(path, "--pos-label", "1")
    assert res.exit_code == 0, res.output


def test_a_latin_1_file_says_how_and_reads_with_encoding(quick_assess, make_frame, tmp_path):
    frame = make_frame(["Fémale", "Male"])
    path, unl = tmp_path / "lab.csv", tmp_path / "unl.csv"
    frame.to_csv(path, index=False, encoding="latin-1")
    make_frame(["Fémale", "Male"], n=200, seed=3)[["score", "g"]].to_csv(
        unl, index=False, encoding="latin-1"
    )
    res = quick_assess(path)
    assert res.exit_code == 2
    assert "is not UTF-8 text" in res.stderr and "--encoding" in res.stderr
    res = quick_assess(path, "--encoding", "latin-1", "--unlabeled", unl)
    assert res.exit_code == 0, res.output
    # the unlabeled file, in DuckDB by default, is read in memory: one group spelled alike
    assert "occur in the unlabeled data" not in res.stderr
    res = quick_assess(path, "--encoding", "no-such-codec")
    assert res.exit_code == 2 and "--encoding no-such-codec: unknown encoding" in res.stderr
    res = quick_assess(path, "--encoding", "latin-1", "--unlabeled", unl, "--engine", "dask")
    assert res.exit_code == 2 and "needs --engine memory or duckdb" in res.stderr


# --------------------------------------------------------------------------- malformed files
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
    "scores as percentages": (
        "lab.csv",
        "score,label,group\n20,0,a\n80,1,b\n",
        "look like percentages: divide the column by 100",
    ),
    "decimal comma": (
        "lab.csv",
        'score;label;group\n"0,2";0;a\n"0,8";1;b\n',
        "written with a decimal comma: write the file with decimal points",
    ),
    "yes/no labels": (
        "lab.csv",
        "score,label,group\n0.2,no,a\n0.8,yes,b\n",
        "--label has values 'no', 'yes', which are not {0, 1} or bool: say which one is "
        "positive with --pos-label",
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
def test_assess_malformed_labeled_file(run_assess, tmp_path, case):
    name, text, message = BAD_FILES[case]
    if case == "not utf-8":
        src = _write(tmp_path / name, data=b"score,label,group\n0.2,0,\xff\xfe\x00\x81\n")
    else:
        src = _write(tmp_path / name, text)
    out = tmp_path / "report.html"
    res = run_assess(src, *COLS, "--model", "bb", "--out", out, *SMALL)
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("bayesfair: error: ")
    assert message in lines[0]
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]


def test_assess_unreadable_paths(run_assess, tmp_path):
    res = run_assess(tmp_path / "nope.csv", *COLS)
    assert res.exit_code == 2 and "does not exist" in res.stderr
    folder = tmp_path / "dir.csv"
    folder.mkdir()
    res = run_assess(folder, *COLS)
    assert res.exit_code == 2 and "is not a regular file" in res.stderr


def test_assess_parquet_without_pyarrow(run_assess, files, tmp_path, monkeypatch):
    def no_pyarrow(*args, **kwargs):
        raise ImportError("Unable to find a usable engine; tried using: 'pyarrow', 'fastparquet'.")

    monkeypatch.setattr(pd, "read_parquet", no_pyarrow)
    out = tmp_path / "r.json"
    res = run_assess(
        files["lab"], "--unlabeled", files["unl_pq"], "--engine", "memory", *COLS, "--out", out
    )
    assert res.exit_code == 2
    assert "needs pyarrow, which is not installed" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_a_wrong_separator_is_named(quick_assess, make_frame, tmp_path):
    path = tmp_path / "lab.csv"
    make_frame(["a", "b"]).to_csv(path, index=False, sep=";")
    res = quick_assess(path, "--sep", ",")
    assert res.exit_code == 2
    assert "looks separated by ';': pass --sep ';'" in res.stderr


def test_messages_name_the_flag_and_the_line(quick_assess, make_frame, tmp_path):
    frame = make_frame(["a", "b"])
    frame.loc[4, "score"] = 1.7
    path = tmp_path / "lab.csv"
    frame.to_csv(path, index=False)
    res = quick_assess(path)
    assert res.exit_code == 2
    assert "--score score: line 6 of" in res.stderr and "holds 1.7" in res.stderr


def test_a_header_that_repeats_a_column_is_refused(quick_assess, make_frame, tmp_path):
    """pandas would read the first 'score' and rename the second 'score.1': refused,
    naming the repeated column."""
    path = tmp_path / "lab.csv"
    frame = make_frame(["a", "b"])
    frame.insert(3, "dup", frame["score"])
    path.write_text(frame.to_csv(index=False).replace("dup", "score", 1))
    res = quick_assess(path)
    assert res.exit_code == 2
    assert "repeats the column name(s) ['score'] in its header" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


# --------------------------------------------------------------------------- unlabeled sources
def test_assess_unlabeled_missing_group_column(run_assess, files, tmp_path):
    unl = _write(tmp_path / "u.csv", "score,sex\n0.3,a\n")
    out = tmp_path / "r.json"
    res = run_assess(files["lab"], "--unlabeled", unl, *COLS, "--out", out, *SMALL)
    assert res.exit_code == 2
    assert "u.csv' has no column(s) ['group']" in res.stderr
    assert not out.exists()


def test_assess_streams_a_glob_through_duckdb(run_assess, files, tmp_path):
    frame = pd.read_csv(files["unl"])
    for k, rows in enumerate(np.array_split(np.arange(len(frame)), 3)):
        frame.iloc[rows].to_parquet(tmp_path / f"log-{k}.parquet")
    out = tmp_path / "report.json"
    bb_tpr = ["--model", "bb", "--metrics", "tpr"]
    glob = tmp_path / "log-*.parquet"
    res = run_assess(files["lab"], "--unlabeled", glob, *COLS, *bb_tpr, "--out", out, *SMALL)
    assert res.exit_code == 0, res.output
    assert f"Summarised {len(frame):,} unlabeled rows with duckdb" in res.stderr
    direct = run_assess(
        files["lab"],
        "--unlabeled",
        files["unl"],
        "--engine",
        "memory",
        *COLS,
        *bb_tpr,
        "--out",
        tmp_path / "d.json",
        *SMALL,
    )
    assert direct.exit_code == 0
    a = json.loads(out.read_text())["pairs"][0]
    b = json.loads((tmp_path / "d.json").read_text())["pairs"][0]
    assert a["ppi_lower"] == pytest.approx(b["ppi_lower"], rel=1e-9)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--unlabeled", "nothing-*.parquet"], "No file matches 'nothing-*.parquet'"),
        (["--scheduler", "tcp://127.0.0.1:1"], "needs --engine dask or spark"),
        (
            ["--engine", "dask", "--scheduler", "tcp://127.0.0.1:1"],
            "Could not reach the Dask scheduler at 'tcp://127.0.0.1:1'",
        ),
    ],
)
def test_assess_bad_unlabeled_sources(run_assess, files, tmp_path, args, message):
    if "--unlabeled" not in args:
        args = ["--unlabeled", str(files["unl_pq"]), *args]
    out = tmp_path / "r.json"
    res = run_assess(files["lab"], *args, *COLS, "--out", out, *SMALL)
    assert res.exit_code == 2, res.output
    assert message in res.stderr
    assert not out.exists()


def test_assess_names_the_file_with_a_bad_score(run_assess, files, tmp_path):
    frame = pd.read_csv(files["unl"])
    frame.loc[len(frame) - 5, "score"] = 1.5
    for k, rows in enumerate(np.array_split(np.arange(len(frame)), 2)):
        frame.iloc[rows].to_parquet(tmp_path / f"log-{k}.parquet")
    res = run_assess(files["lab"], "--unlabeled", tmp_path / "log-*.parquet", *COLS, *SMALL)
    assert res.exit_code == 2
    assert "log-1.parquet" in res.stderr and "1.5" in res.stderr


# --------------------------------------------------------------------------- large labeled files
def test_a_large_labeled_file_is_summarised_not_loaded(
    quick_assess, make_frame, tmp_path, monkeypatch
):
    """Above ``LABELED_ROWS_IN_MEMORY`` rows the labeled Parquet file goes through the
    engine's summary (here the limit is lowered to 100 rows): the report's counts,
    frequentist intervals and BB posterior equal those from the loaded rows, PPI++ is
    left out with a note, and the provenance counts every row."""
    rng = np.random.default_rng(5)
    frame = make_frame(["a", "b"], n=400, seed=5)
    unl = pd.DataFrame({"score": rng.uniform(size=300), "g": rng.choice(["a", "b"], 300)})
    lab_path, unl_path = tmp_path / "lab.parquet", tmp_path / "unl.parquet"
    frame.to_parquet(lab_path)
    unl.to_parquet(unl_path)
    args = ["--unlabeled", unl_path, "--out"]
    loaded = quick_assess(lab_path, *args, tmp_path / "loaded.json")
    assert loaded.exit_code == 0, loaded.output
    monkeypatch.setattr(cli_files, "LABELED_ROWS_IN_MEMORY", 100)
    summarised = quick_assess(lab_path, *args, tmp_path / "summary.json")
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


def test_a_summarised_labeled_file_needs_0_1_labels(
    quick_assess, make_frame, tmp_path, monkeypatch
):
    """Text labels cannot be summarised unloaded: the error says to recode them."""
    frame = make_frame(["a", "b"], n=200)
    frame["label"] = np.where(frame["label"] == 1, "yes", "no")
    path = tmp_path / "lab.parquet"
    frame.to_parquet(path)
    monkeypatch.setattr(cli_files, "LABELED_ROWS_IN_MEMORY", 100)
    res = quick_assess(path, "--pos-label", "yes")
    assert res.exit_code == 2
    assert "recode the labels" in res.output


# --------------------------------------------------------------------------- --out
@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_out_in_a_read_only_directory_fails_before_fitting(quick_assess, make_frame, tmp_path):
    path = tmp_path / "lab.csv"
    make_frame(["a", "b"]).to_csv(path, index=False)
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    res = quick_assess(path, "--out", locked / "r.html")
    assert res.exit_code == 2 and "permission denied" in res.stderr
    assert "Fitting" not in res.stderr


def test_out_is_checked_before_fitting(quick_assess, make_frame, tmp_path, monkeypatch):
    # as root, a read-only directory is writable: check the order with a missing one,
    # and that a denied write is refused before the fit (os.access mocked)
    path = tmp_path / "lab.csv"
    make_frame(["a", "b"]).to_csv(path, index=False)
    import importlib

    cli_module = importlib.import_module("bayesfair.cli.assess")

    def no_fit(*args, **kwargs):
        raise AssertionError("fitted before checking --out")

    monkeypatch.setattr(cli_module, "compare", no_fit)
    res = quick_assess(path, "--out", tmp_path / "no" / "such" / "r.html")
    assert res.exit_code == 2 and "does not exist" in res.stderr
    monkeypatch.setattr(os, "access", lambda *a, **k: False)
    res = quick_assess(path, "--out", tmp_path / "r.html")
    assert res.exit_code == 2 and "permission denied" in res.stderr


def test_a_report_replaces_the_file_it_overwrites_whole(quick_assess, make_frame, tmp_path):
    """--out over an existing file: the new report replaces it (no temporary file left)."""
    path, out = tmp_path / "lab.csv", tmp_path / "r.md"
    make_frame(["a", "b"]).to_csv(path, index=False)
    out.write_text("an old report, longer than the new one? " * 1000)
    res = quick_assess(path, "--out", out)
    assert res.exit_code == 0, res.output
    text = out.read_text()
    assert text.startswith("# Does the classifier") and "an old report" not in text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lab.csv", "r.md"]
    assert oct(out.stat().st_mode & 0o777) == oct(0o666 & ~_umask())


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_a_stray_score_above_1_is_not_taken_for_percentages(run_assess, tmp_path):
    """The percentage hint needs most scores above 1, not one stray value."""
    src = _write(tmp_path / "lab.csv", "score,label,group\n0.2,0,a\n0.7,1,b\n0.4,0,a\n1.8,1,b\n")
    res = run_assess(src, *COLS, "--model", "bb", *SMALL)
    assert res.exit_code == 2 and "holds 1.8, not a score in [0, 1]" in res.stderr
    assert "percentages" not in res.stderr


# ------------------------------------------------ errors that name the flag and the fix
def _audit_files(tmp_path, n=60):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "score": rng.uniform(0.05, 0.95, n),
            "label": rng.integers(0, 2, n),
            "group": rng.choice(["a", "b"], n),
        }
    )
    lab = tmp_path / "lab.csv"
    frame.to_csv(lab, index=False)
    return frame, lab


@pytest.mark.parametrize("value", ["50", "1.5", "0", "-0.2"])
def test_a_threshold_outside_0_1_is_refused_before_any_file_is_read(run_assess, tmp_path, value):
    _, lab = _audit_files(tmp_path)
    res = run_assess(lab, *COLS, "--threshold", value, *SMALL)
    assert res.exit_code == 2 and f"--threshold {float(value):g}: must lie between 0 and 1" in (
        res.stderr
    )
    assert "Summarised" not in res.stderr and "labeled and" not in res.stderr
    assert ("divide the scores by 100" in res.stderr) is (value == "50")


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("", "The --unlabeled file '{path}' is empty (0 bytes)."),
        ("score,group\n", "The --unlabeled file '{path}' has no rows (a header only)"),
    ],
)
def test_an_empty_or_header_only_unlabeled_file_is_named(run_assess, tmp_path, content, expected):
    _, lab = _audit_files(tmp_path)
    unl = _write(tmp_path / "unl.csv", content)
    res = run_assess(lab, "--unlabeled", unl, *COLS, *SMALL)
    assert res.exit_code == 2 and expected.format(path=unl) in res.stderr
    assert "No --unlabeled file" not in res.stderr


def test_percent_scores_in_the_unlabeled_file_name_the_flag_and_the_fix(run_assess, tmp_path):
    frame, lab = _audit_files(tmp_path)
    unl = tmp_path / "unl.csv"
    frame.drop(columns="label").assign(score=frame["score"] * 100).to_csv(unl, index=False)
    res = run_assess(lab, "--unlabeled", unl, *COLS, *SMALL)
    assert res.exit_code == 2
    assert f"The --unlabeled file '{unl}'" in res.stderr
    assert "look like percentages: divide the column by 100" in res.stderr
