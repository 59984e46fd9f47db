"""``bayesfair assess`` (:mod:`bayesfair.cli.assess`): its reports, models and options,
its warnings, and its exit codes. How it reads files: ``test_files.py``."""

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

SMALL = ["--draws", "200", "--tune", "200", "--chains", "2", "--seed", "1"]
COLS = ["--score", "score", "--label", "label", "--group", "group"]


#: Few draws of BB on one metric: for the runs whose point is how a file is read.
QUICK = ["--draws", "100", "--tune", "100", "--chains", "2", "--seed", "1", "--model", "bb"]


# --------------------------------------------------------------------------- success
def test_assess_json_bb(run_assess, files, tmp_path):
    out = tmp_path / "report.json"
    res = run_assess(
        files["lab"], "--unlabeled", files["unl_pq"], *COLS, "--model", "bb", "--out", out, *SMALL
    )
    assert res.exit_code == 0, res.output
    doc = json.loads(out.read_text())
    assert doc["settings"]["models"] == ["bb"]
    assert doc["settings"]["reference"] == "Male"  # most labeled examples
    assert [p["metric"] for p in doc["pairs"]] == ["accuracy", "tpr", "fpr"]
    assert "newcombe_lower" in doc["pairs"][0]  # frequentist columns always there
    # with unlabeled data, the PPI++ interval and its effective n too
    assert doc["pairs"][0]["ppi_lower"] < doc["pairs"][0]["ppi_upper"]
    assert doc["pairs"][0]["ppi_effective_n"] > 0
    # calibration within groups: one record per group, BB's columns and the labeled rows'
    assert [r["group"] for r in doc["calibration"]] == ["Female", "Male"]
    assert {"bb_calibration_gap", "freq_calibration_gap", "sentence"} <= set(doc["calibration"][0])
    assert "reference group 'Male'" in res.stderr
    assert "Wrote json report" in res.stderr
    assert res.stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]  # no temp file left


def test_assess_markdown_to_stdout_quiet(run_assess, files):
    res = run_assess(
        files["lab"],
        *COLS,
        "--model",
        "bb",
        "--metrics",
        "accuracy",
        "--reference",
        "Female",
        "--epsilon",
        "0.05",
        "--quiet",
        "--detail",
        "full",
        *SMALL,
    )
    assert res.exit_code == 0, res.output
    assert res.stderr == ""
    assert "| accuracy | Male − Female |" in res.stdout
    assert "ε = 0.05" in res.stdout
    assert "PPI++" not in res.stdout  # no unlabeled file: no prediction-powered column
    # calibration within groups: BB's share of positives beside the labeled rows' alone
    section = res.stdout.split("## Calibration within groups", 1)[1]
    assert "| group | method | rows | mean score | share of positives | gap |" in section
    assert "| Female | BB |" in section and "| Male | labeled rows |" in section


def test_assess_bc_html_also_fits_bb(run_assess, files, tmp_path):
    out = tmp_path / "report.html"
    res = run_assess(
        files["lab"],
        "--unlabeled",
        files["unl"],
        *COLS,
        "--model",
        "bc",
        "--metrics",
        "accuracy",
        "--out",
        out,
        *SMALL,
    )
    assert res.exit_code == 0, res.output
    page = out.read_text()
    assert "<td>models</td><td>BB, BC</td>" in page
    assert '<img src="data:image/png;base64,' in page
    assert "Reliability per group: the BC calibration map" in page
    assert '<h2 id="calibration-within-groups">Calibration within groups</h2>' in page
    assert "<figcaption>Calibration within groups: each group" in page
    assert "Fitting BB, BC" in res.stderr
    assert "Traceback" not in res.stderr


def test_assess_clusters_in_every_format(run_assess, files, tmp_path):
    """--clusters: the section "Which metrics say the same thing" in Markdown and HTML
    (with its dendrogram) and the JSON's metric_clusters records; refused for bb."""
    common = [files["lab"], "--unlabeled", files["unl"], *COLS, "--metrics", "tpr", "--clusters"]
    res = run_assess(*common, "--quiet", *SMALL)
    assert res.exit_code == 0, res.output
    assert "## Which metrics say the same thing" in res.stdout
    assert "| metric (representative) |" in res.stdout
    html = tmp_path / "report.html"
    res = run_assess(*common, "--out", html, "--quiet", *SMALL)
    page = html.read_text()
    assert '<h2 id="clusters">Which metrics say the same thing</h2>' in page
    assert "cut at the most stable height" in page  # the dendrogram's caption
    out = tmp_path / "report.json"
    res = run_assess(*common, "--out", out, "--quiet", *SMALL)
    records = json.loads(out.read_text())["metric_clusters"]
    assert len(records) == 25 and {"metric", "cluster", "representative"} <= set(records[0])
    res = run_assess(files["lab"], *COLS, "--model", "bb", "--clusters", "--quiet", *SMALL)
    assert res.exit_code == 2 and "needs a calibration model" in res.stderr


def test_assess_score_in_markdown_and_html(run_assess, files, tmp_path):
    """--score-views: the section of the score beyond one threshold, and in HTML its three
    figures; refused without a calibration map."""
    common = [files["lab"], "--unlabeled", files["unl"], *COLS, "--metrics", "tpr", "--score-views"]
    res = run_assess(*common, "--quiet", *SMALL)
    assert res.exit_code == 0, res.output
    assert "## The score beyond one threshold" in res.stdout
    html = tmp_path / "report.html"
    res = run_assess(*common, "--out", html, "--quiet", *SMALL)
    page = html.read_text()
    assert "ROC curves by group" in page and "Gap in true positive rate" in page
    res = run_assess(files["lab"], *COLS, "--model", "bb", "--score-views", "--quiet", *SMALL)
    assert res.exit_code == 2 and "--score-views reads the score" in res.stderr


def test_assess_intersectional_groups(run_assess, files, tmp_path):
    out = tmp_path / "r.md"
    res = run_assess(
        files["lab"],
        *COLS[:4],
        "--group",
        "group,race",
        "--model",
        "bb",
        "--metrics",
        "accuracy",
        "--out",
        out,
        "--quiet",
        *SMALL,
    )
    assert res.exit_code == 0, res.output
    text = out.read_text()
    assert "Male & White" in text
    assert text.endswith("|\n") or text.endswith(".\n")  # a text file ends with a newline
    assert not text.endswith("\n\n")


def test_assess_markdown_with_unlabeled_shows_ppi(run_assess, files):
    res = run_assess(
        files["lab"],
        "--unlabeled",
        files["unl"],
        *COLS,
        "--model",
        "bb",
        "--metrics",
        "tpr",
        "--quiet",
        "--detail",
        "full",
        *SMALL,
    )
    assert res.exit_code == 0, res.output
    assert "PPI++" in res.stdout and "PPI++ n_eff" in res.stdout


def test_assess_accepts_zero_tuning_draws_as_fit_does(tmp_path):
    rng = np.random.default_rng(1)
    s = rng.uniform(0, 1, 40)
    frame = pd.DataFrame(
        {
            "score": s,
            "label": (rng.uniform(size=40) < s).astype(int),
            "group": np.repeat(["A", "B"], 20),
        }
    )
    path = tmp_path / "labeled.csv"
    frame.to_csv(path, index=False)
    result = CliRunner().invoke(
        main,
        [
            "assess",
            str(path),
            *COLS,
            "--model",
            "bb",
            "--tune",
            "0",
            "--draws",
            "50",
            "--chains",
            "1",
            "--quiet",
        ],
    )
    assert "--tune" not in result.stderr, result.stderr
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("engine", ["duckdb", "memory"])
def test_assess_intersections_with_unlabeled_rows_on_every_engine(
    run_assess, files, tmp_path, engine
):
    """Intersections with an unlabeled file on every local engine and the default model: the
    labeled and unlabeled summaries (group columns recorded or not) add up, and the family
    verdicts come first (4 groups)."""
    out = tmp_path / "r.md"
    res = run_assess(
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
    assert text.startswith("# Does the classifier treat the ")
    assert "Male & White" in text


def test_one_draw_is_refused_or_warned(quick_assess, make_frame, tmp_path):
    path = tmp_path / "lab.csv"
    make_frame(["a", "b"]).to_csv(path, index=False)
    res = quick_assess(path, "--draws", "1", "--tune", "1", "--chains", "1", "--detail", "full")
    assert res.exit_code == 0, res.output
    assert "bb: 1 posterior draws are too few for a 95% interval (at least 200)" in res.stderr
    # the report prints no interval for bb (its HDI cell is "—"), only its mean
    lines = res.stdout.splitlines()
    row = next(line for line in lines if line.startswith("| accuracy |"))
    header = next(line for line in lines if line.startswith("| metric | pair |"))
    cells = dict(zip(header.split(" | "), row.split(" | "), strict=True))
    assert cells["BB HDI"] == "—" and cells["BB mean"] != "—"


def test_the_report_opens_with_findings_and_carries_its_provenance(
    quick_assess, make_frame, tmp_path
):
    import hashlib

    path, unl = tmp_path / "lab.csv", tmp_path / "unl.csv"
    make_frame(["a", "b"], n=200).to_csv(path, index=False)
    make_frame(["a", "b"], n=500, seed=3)[["score", "g"]].to_csv(unl, index=False)
    out = tmp_path / "r.json"
    res = quick_assess(path, "--unlabeled", unl, "--out", out, "--epsilon", "0.05")
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
    md = quick_assess(path, "--epsilon", "0.05", "--detail", "full")
    assert md.stdout.startswith("# Does the classifier treat the 2 groups alike in accuracy?\n\n")
    assert "## Findings\n\n- accuracy, a vs b: " in md.stdout
    assert (
        "| call | bayesfair assess" in md.stdout
        and "| BB prior | each group's confusion cells ~ Dirichlet(1, 1, 1, 1)" in md.stdout
    )


# --------------------------------------------------------------------------- progress, warnings
def test_progress_fits_80_columns(runner, make_frame, tmp_path):
    path = tmp_path / "lab.csv"
    make_frame(["a", "b"]).to_csv(path, index=False)
    res = runner.invoke(
        main,
        [
            "assess",
            str(path),
            "--score",
            "score",
            "--label",
            "label",
            "--group",
            "g",
            "--metrics",
            "accuracy",
            "--draws",
            "200",
            "--tune",
            "200",
            "--chains",
            "2",
            "--model",
            "bb",
        ],
        catch_exceptions=False,
    )
    assert res.exit_code == 0
    lines = res.stderr.splitlines()
    assert any(line.startswith("Fitted in ") for line in lines)
    assert max(map(len, lines)) <= 80, max(lines, key=len)


def test_surprises_become_warnings(quick_assess, make_frame, tmp_path):
    path, unl = tmp_path / "lab.csv", tmp_path / "unl.csv"
    make_frame(["a", "b"]).to_csv(path, index=False)
    make_frame(["a", "b"], n=300, seed=1)[["score", "g"]].to_csv(unl, index=False)
    res = quick_assess(path, "--unlabeled", unl, "--chains", "1")
    assert res.exit_code == 0, res.output
    assert "--model bb uses the labeled examples only" in res.stderr
    assert "--chains 1: convergence cannot be checked" in res.stderr
    hard = make_frame(["a", "b"])
    hard["score"] = (hard["score"] > 0.5).astype(float)
    hard.to_csv(path, index=False)
    res = quick_assess(path)
    assert "look like hard predictions" in res.stderr


def test_a_group_only_in_the_unlabeled_file_is_one_warning(quick_assess, make_frame, tmp_path):
    path, unl = tmp_path / "lab.csv", tmp_path / "unl.csv"
    make_frame(["a", "b"]).to_csv(path, index=False)
    make_frame(["a", "b", "c"], n=300, seed=1)[["score", "g"]].to_csv(unl, index=False)
    res = quick_assess(path, "--unlabeled", unl, "--model", "rbc")
    assert res.exit_code == 0, res.output
    lines = [line for line in res.stderr.splitlines() if "['c']" in line]
    assert len(lines) == 1, res.stderr
    assert "occur in the unlabeled data but have no labeled example" in lines[0]


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--metrics", "tpr_"], "Did you mean 'tpr'?"),
        (["--reference", "Femal"], "Unknown group 'Femal' for --reference"),
        (["--threshold", "1.5"], "--threshold 1.5: must lie between 0 and 1"),
        (["--pos-label", "yes"], "--pos-label yes: not a value of --label label"),
        (["--out", "report.pdf"], "use .html, .md or .json"),
        (["--out", "no/such/dir/report.html"], "does not exist"),
        (["--unlabeled", "missing.csv"], "No file matches 'missing.csv'"),
    ],
)
def test_assess_bad_arguments(run_assess, files, tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    res = run_assess(files["lab"], *COLS, "--model", "bb", *args, *SMALL)
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], res.stderr
    assert list(tmp_path.iterdir()) == []


def test_assess_unexpected_error_exits_1_without_partial_report(
    run_assess, files, tmp_path, monkeypatch
):
    cli_module = importlib.import_module("bayesfair.cli.assess")  # where the command calls from

    def broken(*args, **kwargs):
        raise RuntimeError("sampler exploded\nsecond line")

    monkeypatch.setattr(cli_module, "compare", broken)
    out = tmp_path / "r.html"
    res = run_assess(files["lab"], *COLS, "--model", "bb", "--out", out, "--quiet")
    assert res.exit_code == 1
    assert res.stderr.strip() == "bayesfair: internal error: RuntimeError: sampler exploded"
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------- ε, errors
@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0"])
def test_epsilon_must_be_positive_and_finite(quick_assess, make_frame, tmp_path, value):
    path = tmp_path / "lab.csv"
    make_frame(["a", "b"]).to_csv(path, index=False)
    res = quick_assess(path, "--epsilon", value)
    assert res.exit_code == 2
    assert f"--epsilon {float(value)}: must be a positive, finite number" in res.stderr


def test_assess_refuses_an_epsilon_of_one_or_more(run_assess, files):
    res = run_assess(files["lab"], *COLS, "--epsilon", "5", "--quiet", *SMALL)
    assert res.exit_code == 2
    assert "--epsilon 5.0: must be below 1" in res.stderr


def test_errors_name_the_flag_not_the_api_parameter(quick_assess, make_frame, tmp_path):
    path = tmp_path / "lab.csv"
    make_frame(["Female", "Male"]).to_csv(path, index=False)
    res = quick_assess(path, "--reference", "male")
    assert res.exit_code == 2
    assert "Unknown group 'male' for --reference" in res.stderr
    assert "did you mean 'Male'?" in res.stderr and "parameter" not in res.stderr
    res = quick_assess(path, "--threshold", "1.5")
    assert res.exit_code == 2 and "--threshold 1.5: must lie between 0 and 1" in res.stderr


def test_the_columns_default_to_score_label_and_group_as_in_plan_and_suggest(
    runner, make_frame, tmp_path
):
    """``assess`` reads the columns ``score``, ``label`` and ``group`` unless told
    otherwise (as ``plan`` and ``suggest`` do); a missing default column is named."""
    from bayesfair.cli import main

    path = tmp_path / "lab.csv"
    make_frame(["A", "B"]).rename(columns={"g": "group"}).to_csv(path, index=False)
    quick = ["--model", "bb", "--draws", "100", "--tune", "100", "--chains", "2"]
    args = ["assess", str(path), "--metrics", "accuracy", "--quiet", *quick]
    res = runner.invoke(main, args)
    assert res.exit_code == 0, res.output
    assert "accuracy" in res.stdout
    make_frame(["A", "B"]).to_csv(path, index=False)  # its group column is 'g'
    res = runner.invoke(main, args)
    assert res.exit_code == 2 and "'group'" in res.stderr


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
    proc = _python_m(
        files["lab"],
        "--unlabeled",
        files["unl"],
        *COLS,
        "--model",
        "bb",
        "--metrics",
        "accuracy,tpr",
        "--out",
        out,
        "--detail",
        "full",
        *SMALL,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert "| accuracy | Female − Male |" in out.read_text()

    bad = tmp_path / "bad.csv"
    bad.write_text("score,label,group\n0.2,0,a\n0.8,1,b\n0.5,2,a\n")
    out2 = tmp_path / "bad_report.html"
    proc = _python_m(bad, *COLS, "--out", out2, cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "bayesfair: error: --label label: the labels take 3 values (0, 1, 2); a binary label "
        "is needed."
    ]
    assert "Traceback" not in proc.stderr
    assert not out2.exists()
