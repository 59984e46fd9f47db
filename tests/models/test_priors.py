"""bayesfair.models.priors: the priors as records a fit keeps, and read back."""

import pytest

from bayesfair.exceptions import InvalidParameterError
from bayesfair.models.beta_binomial import BetaPrior, KappaPrior
from bayesfair.models.calibration import CalibrationPriors, DiscrepancyPrior
from bayesfair.models.priors import PRIOR_CLASSES, prior_from_record


@pytest.mark.parametrize(
    "prior",
    [
        BetaPrior(2.0),
        BetaPrior(2.0, 3.0, cells=False),
        KappaPrior(5.0),
        CalibrationPriors(mu_c_sd=1.5),
        DiscrepancyPrior(0.02, 0.05, 3.0, center=0.4, scale_with_groups=False),
    ],
)
def test_a_prior_describes_itself_and_reads_back_from_its_record(prior):
    """``to_dict`` is what a fit records; it reads back to the same prior."""
    assert prior_from_record(prior.to_dict()) == prior
    words = prior.describe()
    assert "(" in words and type(prior).__name__ not in words  # words, not a repr
    for bad in (repr(prior), {"kind": "BetaPrior", "gone": 1.0}, {"kind": "Nope"}):
        with pytest.raises(ValueError, match="this version can read"):
            prior_from_record(bad)
    with pytest.raises(ValueError, match="Not a DiscrepancyPrior"):
        prior_from_record(BetaPrior().to_dict(), "DiscrepancyPrior")


def test_the_classes_a_record_may_name():
    classes = (BetaPrior, KappaPrior, CalibrationPriors, DiscrepancyPrior)
    assert list(PRIOR_CLASSES.items()) == [(cls.__name__, cls) for cls in classes]


@pytest.mark.parametrize("record", [None, ""])
def test_no_record_is_no_prior(record):
    assert prior_from_record(record) is None
    assert prior_from_record(record, "BetaPrior") is None


def test_a_record_of_another_kind_is_refused():
    with pytest.raises(InvalidParameterError, match=r"Not a KappaPrior record .*BetaPrior"):
        prior_from_record(BetaPrior(2.0).to_dict(), "KappaPrior")
    assert prior_from_record(KappaPrior(4.0).to_dict(), "KappaPrior") == KappaPrior(4.0)


def test_a_record_is_not_changed_by_reading_it():
    record = BetaPrior(2.0).to_dict()
    assert prior_from_record(record) == BetaPrior(2.0)
    assert record == {"kind": "BetaPrior", "alpha": 2.0, "beta": 2.0, "cells": True}


@pytest.mark.parametrize(
    "record",
    [
        "BetaPrior(alpha=1.0, beta=1.0)",  # the text form of 0.3 and 0.4 builds
        {"kind": "BetaPrior", "alpha": 1.0, "beta": 1.0},  # 0.3: one Beta per rate
        {**DiscrepancyPrior().to_dict(), "tie": None},  # 0.2's option
    ],
)
def test_a_record_of_a_development_build_is_refused_with_what_to_do(record):
    """Results saved by 0.3/0.4 builds (never released) do not load silently as
    something else: the message says to refit."""
    with pytest.raises(
        InvalidParameterError, match="development build of bayesfair cannot be read: refit it"
    ):
        prior_from_record(record)
