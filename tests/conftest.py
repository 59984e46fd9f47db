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
