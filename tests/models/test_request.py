"""bayesfair.models.request: one object from fit to a model, one back."""

import dataclasses

import numpy as np
import pytest

from bayesfair.models.request import PRIOR_DRAWS, FitDraws, FitRequest


def test_a_request_is_one_frozen_object_with_the_calibration_defaults():
    rng = np.random.default_rng(0)
    request = FitRequest(["tpr"], None, "exact", rng, rng, {"draws": 10})
    assert (request.variant, request.score_clip, request.estimand) == ("beta", 0.01, "expected")
    assert request.notes == [] and request.discrepancy is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.metrics = ["fpr"]
    other = FitRequest(["tpr"], None, "exact", rng, rng, {"draws": 10})
    assert other.notes is not request.notes  # each fit its own notes


def test_the_draws_unpack_as_three():
    idata, rates, prior = FitDraws("tree", {"tpr": 1}, {"tpr": 2})
    assert (idata, rates, prior) == ("tree", {"tpr": 1}, {"tpr": 2})
    assert PRIOR_DRAWS == 2000
