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
    """``to_dict`` is what a fit records; it and the repr older versions recorded both
    read back to the same prior (with ast, no regular expression, no eval)."""
    assert prior_from_record(prior.to_dict()) == prior
    assert prior_from_record(repr(prior)) == prior
    words = prior.describe()
    assert "(" in words and type(prior).__name__ not in words  # words, not a repr
    for bad in ("os.system('x')", "BetaPrior(gone=1.0)", "BetaPrior((", {"kind": "Nope"}):
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


def test_a_record_of_another_kind_is_refused_whatever_its_form():
    with pytest.raises(InvalidParameterError, match=r"Not a KappaPrior record .*BetaPrior"):
        prior_from_record("BetaPrior(alpha=2.0, beta=3.0)", "KappaPrior")
    assert prior_from_record("KappaPrior(kappa_min=4.0)", "KappaPrior") == KappaPrior(4.0)


def test_a_record_is_not_changed_by_reading_it():
    record = BetaPrior(2.0).to_dict()
    assert prior_from_record(record) == BetaPrior(2.0)
    assert record == {"kind": "BetaPrior", "alpha": 2.0, "beta": 2.0, "cells": True}


def test_a_bb_record_before_the_dirichlet_reads_as_one_beta_per_rate():
    """A record of 0.3 (no ``cells``) was a fit of one Beta per rate: it reads back so, and
    says so; a fit refuses that form."""
    old = prior_from_record({"kind": "BetaPrior", "alpha": 1.0, "beta": 1.0})
    assert old == BetaPrior(1.0, 1.0, cells=False)
    assert old.describe() == "each group's rate ~ Beta(1, 1), each on its own"
    assert prior_from_record("BetaPrior(alpha=1.0, beta=1.0)") == old
    assert "Dirichlet(1, 1, 1, 1)" in prior_from_record(BetaPrior().to_dict()).describe()


@pytest.mark.parametrize(
    "text",
    [
        "BetaPrior(2.0, 3.0)",  # positional values: not what a repr writes
        "BetaPrior(alpha=__import__('os').getcwd())",  # not a literal
        "bayesfair.BetaPrior(alpha=1.0)",  # not a plain name
        "[BetaPrior(alpha=1.0)]",
        "BetaPrior(alpha=-1.0)",  # read, but not a valid prior
    ],
)
def test_only_a_call_of_a_known_class_with_literal_fields_is_read(text):
    with pytest.raises(InvalidParameterError, match="Not a prior record this version can read"):
        prior_from_record(text)


def test_the_removed_tie_option_of_0_2_is_dropped_from_a_dict_record_too():
    record = {**DiscrepancyPrior().to_dict(), "tie": None}
    assert prior_from_record(record, "DiscrepancyPrior") == DiscrepancyPrior()
