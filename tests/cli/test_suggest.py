"""``bayesfair suggest`` (:mod:`bayesfair.cli.suggest`): which unlabeled rows to label
next, written to a CSV file; its input checked before any fit."""

import importlib

import pandas as pd
import pytest
from click.testing import CliRunner

from bayesfair.cli import main
from bayesfair.datasets import load_scores

FEW = ["--draws", "100", "--chains", "1"]


@pytest.fixture(scope="module")
def paths(tmp_path_factory):
    """COMPAS-race LR: 60 labeled rows, and 600 unlabeled rows with an id column (unl.csv)
    and without one (noid.csv)."""
    d = tmp_path_factory.mktemp("suggest")
    df = load_scores("compas-race", "LR").reset_index()
    df = df.rename(columns={"row": "id"})[["id", "score", "label", "group"]]
    lab, unl = df.iloc[:60], df.iloc[60:660].drop(columns="label")
    out = {"lab": d / "lab.csv", "unl": d / "unl.csv", "noid": d / "noid.csv", "dir": d}
    lab.to_csv(out["lab"], index=False)
    unl.to_csv(out["unl"], index=False)
    unl.drop(columns="id").to_csv(out["noid"], index=False)
    return out


def _unwrapped(text: str) -> str:
    """The text without its white space: the progress lines are wrapped to 80 columns,
    wherever a path allows."""
    return "".join(text.split())


@pytest.fixture(scope="module")
def suggested(paths):
    out = paths["dir"] / "to_label.csv"
    args = [str(paths["lab"]), "--unlabeled", str(paths["unl"]), "--n", "7", "--out", str(out)]
    res = CliRunner().invoke(main, ["suggest", *args, *FEW], catch_exceptions=False)
    return res, out


def test_suggest_writes_the_rows_to_label(suggested, paths):
    res, out = suggested
    assert res.exit_code == 0, res.output
    table = pd.read_csv(out)
    assert list(table.columns) == ["position", "id", "group", "score", "gain"]
    assert len(table) == 7 and table["position"].is_unique
    unl = pd.read_csv(paths["unl"])
    rows = unl.iloc[table["position"]]
    # each suggestion is the unlabeled file's row at its position (0-based)
    assert table["id"].tolist() == rows["id"].tolist()
    assert table["group"].tolist() == rows["group"].tolist()
    assert table["score"].to_numpy() == pytest.approx(rows["score"].to_numpy())
    assert (table["gain"] > 0).all()
    counts = ", ".join(f"{g}: {k}" for g, k in table["group"].value_counts().items())
    said = _unwrapped(res.stderr)
    assert (
        _unwrapped("Fitting RBC to 60 labeled and 600 unlabeled examples (1 chains × 100 draws)")
        in said
    )
    assert said.endswith(_unwrapped(f"Wrote 7 rows to label to {out} ({counts})."))


def test_suggest_is_reproduced_by_its_seed_and_by_position_without_ids(suggested, paths, runner):
    """No id column: --by-position names the rows by position only; the same seed picks the
    same rows as with ids."""
    _, with_ids = suggested
    out = paths["dir"] / "by_position.csv"
    args = [str(paths["lab"]), "--unlabeled", str(paths["noid"]), "--n", "7", "--out", str(out)]
    res = runner.invoke(main, ["suggest", *args, "--by-position", "--quiet", *FEW])
    assert res.exit_code == 0, res.output
    assert res.stderr == ""
    table = pd.read_csv(out)
    assert list(table.columns) == ["position", "group", "score", "gain"]
    expected = pd.read_csv(with_ids).drop(columns="id")
    pd.testing.assert_frame_equal(table, expected)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--out", "picks.txt"], "The '--out' file must be a .csv file. Got 'picks.txt'."),
        (["--unlabeled", "{noid}"], "The unlabeled file has no id column ('id'; columns: score, "),
        (["--unlabeled", "{noid}", "--id", "case"], "has no column 'case' (--id case)"),
        (["--n", "601"], "--n 601 is more than the 600 unlabeled rows of"),
        (["--group", "race"], "has no column 'race' (--group race)"),
        (["--n", "0"], "Invalid value for '--n': 0 is not in the range x>=1."),
    ],
)
def test_suggest_refuses_bad_input_before_fitting(paths, runner, monkeypatch, args, message):
    module = importlib.import_module("bayesfair.cli.suggest")

    def no_fit(*a, **k):
        raise AssertionError("fitted before checking the input")

    monkeypatch.setattr(module, "fit", no_fit)
    monkeypatch.chdir(paths["dir"])
    args = [a.format(noid=paths["noid"]) for a in args]
    if "--unlabeled" not in args:
        args += ["--unlabeled", str(paths["unl"])]
    out = paths["dir"] / "refused.csv"
    res = runner.invoke(main, ["suggest", str(paths["lab"]), "--out", str(out), *args])
    assert res.exit_code == 2, res.output
    assert message in res.stderr
    assert not out.exists() and not (paths["dir"] / "picks.txt").exists()
