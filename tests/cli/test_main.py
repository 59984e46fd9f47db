"""The ``bayesfair`` command (:mod:`bayesfair.cli.main`): its subcommands, help and
version, and the entry point ``python -m bayesfair.cli`` (``bayesfair/cli/__main__.py``)."""

import runpy
import subprocess
import sys

import pytest

import bayesfair
from bayesfair.cli import main

COMMANDS = ["assess", "datasets", "demo", "plan", "suggest"]


def test_main_holds_the_five_commands():
    assert sorted(main.commands) == COMMANDS
    assert main.name == "main"


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_lists_every_command_with_its_summary(runner, flag):
    res = runner.invoke(main, [flag])
    assert res.exit_code == 0
    assert "Bayesian and corrected-frequentist assessment of a classifier's group" in res.stdout
    listed = res.stdout.split("Commands:")[1].strip().splitlines()
    assert [line.split()[0] for line in listed] == COMMANDS
    assert "Which unlabeled rows to label next" in res.stdout


@pytest.mark.parametrize("command", COMMANDS)
def test_each_command_has_its_help(runner, command):
    res = runner.invoke(main, [command, "-h"])
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith(f"Usage: main {command} [OPTIONS]")


def test_version_is_the_packages(runner):
    res = runner.invoke(main, ["--version"])
    assert res.exit_code == 0
    assert res.stdout.strip().endswith(f"version {bayesfair.__version__}")


def test_an_unknown_command_is_a_usage_error(runner):
    res = runner.invoke(main, ["asess"])
    assert res.exit_code == 2
    assert "Error: No such command 'asess'. (Did you mean one of: 'assess'," in res.stderr


def test_python_m_bayesfair_cli_runs_the_command(monkeypatch, capsys):
    """``python -m bayesfair.cli`` (its ``__main__``), run in this process."""
    monkeypatch.setattr(sys, "argv", ["bayesfair", "--version"])
    with pytest.raises(SystemExit) as info:
        runpy.run_module("bayesfair.cli", run_name="__main__")
    assert info.value.code == 0
    assert capsys.readouterr().out.endswith(f", version {bayesfair.__version__}\n")


@pytest.mark.slow
def test_clean_runs_print_nothing_on_stderr(tmp_path):
    """`demo` and `assess` with --quiet on bundled data: stdout has the report, stderr nothing."""
    from bayesfair.datasets import load_scores

    frame = load_scores("adult-sex", "MLP")
    frame[["score", "label", "group"]].iloc[:200].to_csv(tmp_path / "lab.csv", index=False)
    frame[["score", "group"]].iloc[200:].to_csv(tmp_path / "unl.csv", index=False)
    assess = ["assess", "lab.csv", "--unlabeled", "unl.csv", "--score", "score"]
    assess += ["--label", "label", "--group", "group", "--quiet"]
    for args in (["demo", "--quiet"], assess):
        proc = subprocess.run(
            [sys.executable, "-m", "bayesfair.cli", *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr == "", proc.stderr
        assert proc.stdout.startswith("# Does the classifier treat the 2 groups alike")
        assert "\n## Findings\n" in proc.stdout
