"""Shared fixtures: the repository root and fitted results (small draws, plumbing only)."""

import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def data():
    """Bundled Adult-sex MLP scores: 100 random labels, the rest unlabeled."""
    from bayesfair.datasets import load_assessment

    return load_assessment("adult-sex", "MLP", n_labeled=100, random_seed=0)


@pytest.fixture(scope="session")
def no_positive_in_b():
    """80 rows, groups A and B; no positive label in B (its TPR has no labeled denominator)."""
    import numpy as np

    from bayesfair.data import AssessmentData

    rng = np.random.default_rng(0)
    s = rng.uniform(0, 1, 80)
    y = (rng.uniform(0, 1, 80) < s).astype(int)
    g = np.where(np.arange(80) % 2 == 0, "A", "B")
    y[g == "B"] = 0
    return AssessmentData(s, y, g, reference="A")


@pytest.fixture(scope="session")
def comparison(data):
    """A BB + BC comparison of accuracy and TPR (reports and plots read it)."""
    from bayesfair.compare import compare
    from bayesfair.posterior import SamplingWarning

    with warnings.catch_warnings():
        # 200 draws are for plumbing; R-hat/divergence warnings are expected here.
        warnings.simplefilter("ignore", SamplingWarning)
        return compare(
            data,
            ["accuracy", "tpr"],
            epsilon=0.02,
            models=("bb", "bc"),
            n_resamples=200,
            random_seed=0,
            fit_kwargs={"draws": 200, "tune": 200, "chains": 2},
            progressbar=False,
        )


#: Test files whose simulations take minutes (measured with ``--durations``), longest
#: first. They are collected first, so that pytest-xdist (one file per worker) starts
#: them at once and the workers finish together, instead of the longest starting last.
LONGEST_FIRST = (
    "statistical/test_variance_coverage.py",
    "statistical/test_pooling.py",
    "statistical/test_robust_coverage.py",
    "statistical/test_ppi_coverage.py",
    "statistical/test_small_group_tail.py",
    "statistical/test_sbc.py",
    "statistical/test_reproduction.py",
    "statistical/test_fair_enough_coverage.py",
    "labels/test_labels.py",
    "statistical/test_inverted_scores.py",
    "statistical/test_many_groups.py",
    "test_notebooks.py",
)


def pytest_collection_modifyitems(config, items):
    tests = Path(__file__).parent

    def rank(item):
        path = Path(str(item.fspath)).resolve()
        name = path.relative_to(tests).as_posix() if path.is_relative_to(tests) else ""
        return LONGEST_FIRST.index(name) if name in LONGEST_FIRST else len(LONGEST_FIRST)

    items.sort(key=rank)  # stable: the order within a file, and of the other files, is kept
