"""``bayesfair plan`` (:mod:`bayesfair.cli.plan`): how many labels a decision needs, as a
printed table, a figure and a CSV file; its input checked before anything is written."""

import pandas as pd
import pytest

from bayesfair.cli import main
from bayesfair.datasets import load_scores

SHOWN = [
    "strategy",
    "method",
    "group",
    "reference",
    "budget",
    "n_new",
    "width",
    "10%-90%",
    "p_decision",
    "valid",
]


@pytest.fixture(scope="module")
def paths(tmp_path_factory):
    """COMPAS-race LR: 60 labeled rows (lab.csv) and 600 unlabeled ones (unl.csv)."""
    d = tmp_path_factory.mktemp("plan")
    df = load_scores("compas-race", "LR")[["score", "label", "group"]]
    out = {"lab": d / "lab.csv", "unl": d / "unl.csv", "dir": d}
    df.iloc[:60].to_csv(out["lab"], index=False)
    df.iloc[60:660].drop(columns="label").to_csv(out["unl"], index=False)
    return out


def test_plan_prints_the_table_and_writes_the_figure_and_the_csv(paths, runner):
    fig, table_csv = paths["dir"] / "plan.png", paths["dir"] / "plan.csv"
    args = [str(paths["unl"]), "--labeled", str(paths["lab"]), "--metric", "tpr"]
    args += ["--epsilon", "0.05", "--budgets", "80,100", "--n-sims", "1"]
    args += ["--methods", "bayes,newcombe", "--plot", str(fig), "--out", str(table_csv)]
    res = runner.invoke(main, ["plan", *args], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert fig.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = pd.read_csv(table_csv)
    assert {"strategy", "method", "budget", "n_new", "width_median", "p_decision"} <= set(table)
    assert set(table["budget"]) == {80, 100} and set(table["method"]) == {"bayes", "newcombe"}
    assert set(table["strategy"]) == {"random", "active"}
    assert (table["n_new"] == table["budget"] - 60).all()  # 60 labels collected
    assert len(table) == 2 * 2 * 2  # strategies × methods × budgets (one pair of groups)
    # Newcombe after active selection assumes random labels: not valid, and said so
    invalid = table[~table["valid"]]
    assert set(zip(invalid["strategy"], invalid["method"], strict=True)) == {("active", "newcombe")}
    answer, blank, *lines = res.stdout.splitlines()
    # the answer first: about how many labels decide the worst-off group's gap, or none
    pair = f"{table['group'].iloc[0]} − {table['reference'].iloc[0]}"
    assert f"the gap true positive rate (recall) of {pair} at ε = 0.05" in answer
    assert answer.startswith(("About ", "No budget up to 100 labels")) and blank == ""
    assert lines[0].split() == SHOWN
    assert len(lines) == 1 + len(table) + 1
    assert lines[-1].startswith("valid = no: this interval assumes labels drawn at random")
    first = lines[1].split()
    assert first[SHOWN.index("width")] == f"{table['width_median'].iloc[0]:.3f}"
    # the simulations' progress bar, then where the files went
    assert "plan: simulations" in res.stderr
    said = "".join(res.stderr.split())  # wrapped to 80 columns wherever the paths allow
    assert said.endswith(
        "".join(f"Wrote the figure to {fig} and the table to {table_csv}.".split())
    )


def test_plan_from_the_unlabeled_file_alone(paths, runner):
    """No labels yet: every label of a budget is new; Bayes rows are all valid (no note)."""
    fig = paths["dir"] / "alone.svg"
    args = [str(paths["unl"]), "--budgets", "40", "--n-sims", "1", "--methods", "bayes"]
    res = runner.invoke(main, ["plan", *args, "--plot", str(fig), "--quiet"])
    assert res.exit_code == 0, res.output
    assert fig.read_text().lstrip().startswith("<?xml")
    answer, _, *lines = res.stdout.splitlines()
    assert "decide" in answer and "ε = 0.02" in answer
    assert lines[0].split() == SHOWN
    rows = [dict(zip(SHOWN, line.split(), strict=True)) for line in lines[1:]]
    assert [r["strategy"] for r in rows] == ["random", "active"]
    assert all(r["budget"] == r["n_new"] == "40" and r["valid"] == "yes" for r in rows)
    assert "valid = no" not in res.stdout
    assert res.stderr == ""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--labeled", "{lab}", "--budgets", "10"], "smaller than the 60"),
        (["--budgets", "40,many"], "The '--budgets' option must be label counts"),
        (["--group", " , "], "The '--group' option must name at least one column."),
        (["--epsilon", "2"], "--epsilon 2.0: must be below 1"),
        (["--out", "{dir}/no/such/plan.csv"], "the directory '{dir}/no/such' does not exist"),
        (["--plot", "{dir}/no/such/plan.png"], "the directory '{dir}/no/such' does not exist"),
        (["--score", "prob"], "prob"),
    ],
)
def test_plan_refuses_bad_input_and_writes_nothing(paths, runner, args, message):
    fig = paths["dir"] / "refused.png"
    fill = {"lab": paths["lab"], "dir": paths["dir"]}
    args = [a.format(**fill) for a in args]
    res = runner.invoke(
        main, ["plan", str(paths["unl"]), "--plot", str(fig), "--n-sims", "1", *args]
    )
    assert res.exit_code == 2, res.output
    (line,) = res.stderr.strip().splitlines()
    assert line.startswith("bayesfair: error: ") and message.format(**fill) in line
    assert not fig.exists() and not (paths["dir"] / "no").exists()
