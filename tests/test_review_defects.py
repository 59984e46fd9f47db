"""Defects found in review, each with the test that failed before its fix."""

import re
import tomllib
import warnings
from pathlib import Path

import numpy as np
from click.testing import CliRunner

import bayesfair as bf
from bayesfair.cli import main

FAST = dict(draws=50, tune=50, chains=1)


def _data():
    rng = np.random.default_rng(0)
    s = rng.uniform(0, 1, 80)
    y = (rng.uniform(0, 1, 80) < s).astype(int)
    g = np.where(np.arange(80) % 2 == 0, "A", "B")
    y[g == "B"] = 0  # no positive label in B: its TPR has no labeled denominator
    return bf.AssessmentData(s, y, g, reference="A")


def test_rate_note_accepts_metric_aliases():
    res = bf.fit(_data(), "bb", metrics=["tpr"], random_seed=0, progressbar=False, **FAST)
    assert res.rate_note("recall", ["B"]) == res.rate_note("tpr", ["B"]) != ""


def test_html_and_markdown_print_the_variance_table_alike():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comp = bf.compare(_data(), ["accuracy"], models=("bb",), n_boot=100, random_seed=0,
                          fit_kwargs=FAST)  # fmt: skip
    from bayesfair.report import comparison_html, comparison_markdown

    def decimals(text):
        return sorted({len(m) for m in re.findall(r"\d\.(\d+)", text)})

    md = comparison_markdown(comp)
    html = comparison_html(comp, figures=False)
    md_var = md[md.index("Between-group variance") : md.index("What the intervals")]
    start = html.index('class="variance"')
    html_var = html[start : html.index("</table>", start)]
    assert decimals(md_var) == decimals(html_var) == [4]


def test_demo_reports_an_unexpected_error_in_one_line(monkeypatch):
    import bayesfair.cli.commands as cli_module

    def broken(*args, **kwargs):
        raise RuntimeError("boom\nsecond line")

    monkeypatch.setattr(cli_module, "compare", broken)
    result = CliRunner().invoke(main, ["demo", "--dataset", "ricci-race", "--classifier", "LR",
                                       "--n-labeled", "10", "--quiet"])  # fmt: skip
    assert result.exit_code == 1
    assert "internal error: RuntimeError: boom" in result.output
    assert "second line" not in result.output and "Traceback" not in result.output


def test_assess_accepts_zero_tuning_draws_as_fit_does(tmp_path):
    import pandas as pd

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


def test_the_version_is_written_once():
    root = Path(__file__).resolve().parents[1]
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    assert "version" not in project and "version" in project["dynamic"]
    from importlib.metadata import version

    assert version("bayesfair") == bf.__version__
