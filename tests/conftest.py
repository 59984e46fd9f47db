"""Shared fixtures: the repository root and fitted results (small draws, plumbing only)."""

import warnings
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: The suite's two sets of sampler settings. ``FAST``: fits whose test reads what a fit
#: returns (its shape, names, records, warnings), not how good it is; 400 draws are too
#: few for any statistical claim, and R-hat warnings are expected. ``SIMULATION``: fits
#: inside a coverage or power simulation; with 500–1,000 effective draws the Monte Carlo
#: error of a 95% interval's end is about 0.1 posterior sd (0.05 with the default's
#: 4 × 1,000), small beside the interval's width of about 4 sd. A file
#: that needs more says so in its docstring (the joint band of ``test_many_groups``,
#: the precision comparison of ``test_oracle``). Tests take them through the fixtures
#: ``fast`` and ``simulation``.
FAST = {"draws": 200, "tune": 200, "chains": 2, "progressbar": False}
SIMULATION = {"draws": 500, "tune": 500, "chains": 2, "progressbar": False}


@pytest.fixture(scope="session", autouse=True)
def one_blas_thread_per_worker():
    """One BLAS thread in each test process. pytest-xdist runs a worker per core, and
    OpenBLAS's threads on top of them only wait for one another. bayesfair's own
    functions limit themselves (``bayesfair._internal.threads``); this covers the
    tests' own numerics and the models they sample with PyMC directly."""
    import scipy.linalg  # noqa: F401  (SciPy's OpenBLAS, so that the limit covers it)
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        yield


@pytest.fixture(scope="session")
def fast() -> Mapping:
    """Sampler settings for plumbing (read-only; ``{**fast, ...}`` to add to them)."""
    return MappingProxyType(FAST)


@pytest.fixture(scope="session")
def fit_kwargs() -> Mapping:
    """The plumbing settings as ``compare``'s ``fit_kwargs`` (its own ``progressbar``
    covers the fits)."""
    return MappingProxyType({k: v for k, v in FAST.items() if k != "progressbar"})


@pytest.fixture(scope="session")
def simulation() -> Mapping:
    """Sampler settings for the fits of a simulation (read-only)."""
    return MappingProxyType(SIMULATION)


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def quiet_fit(fast):
    """``bf.fit`` with the plumbing settings and seed 0 (keyword arguments override
    them), its warnings silenced: on plumbing draws R-hat warnings are expected."""
    import bayesfair as bf

    def fit(data, **kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return bf.fit(data, **{"random_seed": 0, **fast, **kwargs})

    return fit


@pytest.fixture(scope="session")
def data():
    """Bundled Adult-sex MLP scores: 100 random labels, the rest unlabeled."""
    from bayesfair.datasets import load_assessment

    return load_assessment("adult-sex", "MLP", n_labeled=100, random_seed=0)


@pytest.fixture(scope="session")
def no_positive_in_b():
    """80 rows, groups A and B; no positive label in B (its TPR has no labeled denominator)."""
    import numpy as np

    from bayesfair.data.assessment import AssessmentData

    rng = np.random.default_rng(0)
    s = rng.uniform(0, 1, 80)
    y = (rng.uniform(0, 1, 80) < s).astype(int)
    g = np.where(np.arange(80) % 2 == 0, "A", "B")
    y[g == "B"] = 0
    return AssessmentData(s, y, g, reference="A")


@pytest.fixture(scope="session")
def comparison(data):
    """A BB + BC comparison of accuracy and TPR (reports and plots read it)."""
    from bayesfair.exceptions import SamplingWarning
    from bayesfair.report.compare import compare

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
            fit_kwargs={k: v for k, v in FAST.items() if k != "progressbar"},
            progressbar=False,
        )


@pytest.fixture(scope="session")
def comparison4():
    """The default comparison (BB and RBC; accuracy, TPR, FPR) of a four-group audit: a
    real classifier's scores, 200 labeled and 20,000 unlabeled rows, 10% of g0's labels
    flipped (its accuracy about 7 points lower)."""
    import bayesfair as bf
    from bayesfair.datasets.simulate import differential_calibration

    lab, unl = differential_calibration(
        4, 200, 20_000, kind="label_noise", amount=0.10, random_seed=3
    )
    data = bf.AssessmentData.from_frames(
        lab.drop(columns="p"),
        unl.drop(columns=["label", "p"]),
        score="score",
        label="label",
        group="group",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bf.compare(
            data,
            n_resamples=200,
            random_seed=1,
            fit_kwargs={"draws": 500, "tune": 500, "chains": 2},
            progressbar=False,
        )


#: Test files whose simulations take minutes (measured with ``--durations``), longest
#: first. They are collected first, so that pytest-xdist (one file per worker) starts
#: them at once and the workers finish together, instead of the longest starting last.
LONGEST_FIRST = (
    "statistical/test_variance_coverage.py",
    "statistical/test_pooling.py",
    "statistical/test_robust_coverage.py",
    "statistical/test_family_verdicts.py",
    "statistical/test_ppi_coverage.py",
    "statistical/test_small_group_tail.py",
    "statistical/test_sbc.py",
    "statistical/test_reproduction.py",
    "statistical/test_fair_enough_coverage.py",
    "labels/test_labels.py",
    "statistical/test_inverted_scores.py",
    "statistical/test_many_groups.py",
    "test_notebooks.py",
    "cli/test_main.py",
    "cli/test_assess.py",
    "statistical/test_period_audits.py",
)


def pytest_collection_modifyitems(config, items):
    tests = Path(__file__).parent

    def rank(item):
        path = Path(str(item.fspath)).resolve()
        name = path.relative_to(tests).as_posix() if path.is_relative_to(tests) else ""
        return LONGEST_FIRST.index(name) if name in LONGEST_FIRST else len(LONGEST_FIRST)

    items.sort(key=rank)  # stable: the order within a file, and of the other files, is kept


# ------------------------------------------------------------------ the command line's
#: Few draws of BB on one metric: for the runs whose point is how a file is read.
QUICK = ["--draws", "100", "--tune", "100", "--chains", "2", "--seed", "1", "--model", "bb"]


@pytest.fixture
def runner():
    """A click test runner (``tests/cli``)."""
    from click.testing import CliRunner

    return CliRunner()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Adult-sex MLP scores: 100 labeled rows (lab.csv) and the rest unlabeled (unl.csv,
    unl.parquet), with the columns score, label, group and race."""
    d = tmp_path_factory.mktemp("assess")
    from bayesfair.datasets import load_scores, split_labeled

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

    from bayesfair.cli import main

    def run(*args):
        return runner.invoke(main, ["assess", *map(str, args)], catch_exceptions=False)

    return run


def _frame(groups, n=80, seed=0):
    import numpy as np
    import pandas as pd

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

    from bayesfair.cli import main

    def run(path, *args):
        columns = ["--score", "score", "--label", "label", "--group", "g"]
        return runner.invoke(
            main,
            ["assess", str(path), *columns, "--metrics", "accuracy", "--quiet", *QUICK]
            + [str(a) for a in args],
            catch_exceptions=False,
        )

    return run
