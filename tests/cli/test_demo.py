"""``bayesfair demo`` (:mod:`bayesfair.cli.demo`): a bundled classifier assessed with BB
and RBC, its warnings and its errors in one line each."""

import pytest
from click.testing import CliRunner

from bayesfair.cli import main

#: Ricci (40 rows), half of them labeled: the smallest bundled score set.
RICCI = ["--dataset", "ricci-race", "--classifier", "LR", "--n-labeled", "20"]
FEW = ["--draws", "100", "--chains", "2"]


@pytest.fixture(scope="module")
def ricci_report():
    """``demo`` on Ricci, accuracy at ε = 0.05, progress shown."""
    args = [*RICCI, *FEW, "--metrics", "accuracy", "--epsilon", "0.05", "--detail", "full"]
    return CliRunner().invoke(main, ["demo", *args], catch_exceptions=False)


def _table_rows(markdown: str) -> list[str]:
    """The lines of the table of differences (the report minus its timestamp)."""
    return [line for line in markdown.splitlines() if line.startswith("| accuracy |")]


def test_demo_reports_bb_and_rbc_on_a_bundled_score_set(ricci_report):
    res = ricci_report
    assert res.exit_code == 0, res.output
    progress = " ".join(res.stderr.split())
    assert (
        "Dataset ricci-race (LR scores): 20 labeled, 20 unlabeled examples; reference group "
        "'White'." in progress
    )
    header = next(line for line in res.stdout.splitlines() if line.startswith("| metric | pair |"))
    assert "| BB mean |" in header and "| RBC mean |" in header
    # a pair is a row of the models' table and of the frequentist one
    bayes, freq = [r for r in _table_rows(res.stdout) if "Non-white − White" in r]
    assert bayes.startswith("| accuracy | Non-white − White | 7/13 |")
    assert "| accuracy | Non-white − White | " in freq and freq.count("[") >= 2
    assert "ε = 0.05" in res.stdout and "Random seed: 0" in res.stdout
    # seven labeled Non-white rows: the finding is the gate's, and says what is missing
    assert "Non-white vs White: too few for a verdict (Non-white: 7 labeled rows" in res.stdout


def test_demo_is_reproduced_by_its_seed_and_quiet_keeps_only_warnings(runner, ricci_report):
    args = [*RICCI, *FEW, "--metrics", "accuracy", "--epsilon", "0.05", "--quiet", "--detail"]
    args.append("full")
    again = runner.invoke(main, ["demo", *args], catch_exceptions=False)
    assert again.exit_code == 0, again.output
    assert _table_rows(again.stdout) == _table_rows(ricci_report.stdout)
    assert all(line.startswith("bayesfair: warning: ") for line in again.stderr.splitlines())
    other = runner.invoke(main, ["demo", *args, "--seed", "3"], catch_exceptions=False)
    assert "Random seed: 3" in other.stdout
    assert _table_rows(other.stdout) != _table_rows(ricci_report.stdout)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--dataset", "adult-sexx"], "Unknown score set 'adult-sexx'. Did you mean 'adult-sex'?"),
        (["--dataset", "ricci-race", "--classifier", "XGB"], "Unknown classifier 'XGB'."),
        (
            ["--dataset", "ricci-race", "--n-labeled", "50"],
            "--n-labeled must be an integer in [1, 40] (the number of rows). Got 50 instead.",
        ),
        (["--metrics", " , "], "The '--metrics' option must name at least one rate"),
        (["--metrics", "acuracy"], "Unknown metric 'acuracy'. Did you mean 'accuracy'?"),
        (["--epsilon", "0"], "--epsilon 0.0: must be a positive, finite number."),
    ],
)
def test_demo_refuses_bad_options_in_one_line(runner, args, message):
    res = runner.invoke(main, ["demo", *args, "--quiet"])
    assert res.exit_code == 2, res.output
    (line,) = res.stderr.strip().splitlines()
    assert line.startswith("bayesfair: error: ") and message in line
    assert res.stdout == ""


def test_demo_reports_an_unexpected_error_in_one_line(runner, monkeypatch):
    import bayesfair.cli.demo as cli_module

    def broken(*args, **kwargs):
        raise RuntimeError("boom\nsecond line")

    monkeypatch.setattr(cli_module, "compare", broken)
    result = runner.invoke(main, ["demo", *RICCI[:4], "--n-labeled", "10", "--quiet"])
    assert result.exit_code == 1
    assert "internal error: RuntimeError: boom" in result.output
    assert "second line" not in result.output and "Traceback" not in result.output


def test_demo_prints_its_warnings_like_assess(runner):
    res = runner.invoke(
        main, ["demo", "--quiet", "--draws", "60", "--chains", "2"], catch_exceptions=False
    )
    assert res.exit_code == 0
    lines = res.stderr.strip().splitlines()
    assert lines, "60 draws should warn about convergence"
    assert all(line.startswith("bayesfair: warning: ") for line in lines), lines
    assert ".py:" not in res.stderr
