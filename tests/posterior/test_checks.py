"""A result's calibration check (bayesfair.posterior.checks): it needs a calibration map."""

import pytest

import bayesfair as bf
from bayesfair.posterior import checks


@pytest.fixture(scope="module")
def bb_fit():
    data = bf.datasets.load_assessment("adult-sex", "MLP", n_labeled=100, random_seed=0)
    return bf.fit(data, "bb", metrics=["accuracy"], draws=400, chains=2, random_seed=0)


def test_the_calibration_check_needs_a_calibration_map(bb_fit):
    with pytest.raises(ValueError, match="no calibration map to check"):
        checks.result_calibration_check(bb_fit)
