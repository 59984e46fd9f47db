"""Fixtures of the command line's tests: a runner, the bundled scores as files, and small
labeled tables with a quick ``assess`` to read them."""

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from bayesfair.cli import main
from bayesfair.datasets import load_scores, split_labeled

#: Few draws of BB on one metric: for the runs whose point is how a file is read.
QUICK = ["--draws", "100", "--tune", "100", "--chains", "2", "--seed", "1", "--model", "bb"]


@pytest.fixture
def runner():
    return CliRunner()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Adult-sex MLP scores: 100 labeled rows (lab.csv) and the rest unlabeled (unl.csv,
    unl.parquet), with the columns score, label, group and race."""
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
def run_assess(runner):
    """``bayesfair assess ARGS`` (exceptions of the test itself are raised, not caught)."""

    def run(*args):
        return runner.invoke(main, ["assess", *map(str, args)], catch_exceptions=False)

    return run


def _frame(groups, n=80, seed=0):
    rng = np.random.default_rng(seed)
    s = rng.uniform(size=n)
    return pd.DataFrame(
        {
            "score": s,
            "label": (rng.uniform(size=n) < s).astype(int),
            "g": rng.choice(np.asarray(groups, dtype=object), n),
        }
    )


@pytest.fixture(scope="session")
def make_frame():
    """``make_frame(groups, n=80, seed=0)``: a labeled table (score, label, g) whose group
    column ``g`` takes the values ``groups``."""
    return _frame


@pytest.fixture
def quick_assess(runner):
    """``quick_assess(path, ARGS)``: ``bayesfair assess`` of a ``make_frame`` file (columns
    score, label, g), accuracy only, BB with few draws, --quiet."""

    def run(path, *args):
        return runner.invoke(
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
                "--quiet",
                *QUICK,
                *map(str, args),
            ],
            catch_exceptions=False,
        )

    return run
