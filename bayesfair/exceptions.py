"""Warnings and exceptions of bayesfair, in one module: import them from here."""

from __future__ import annotations

__all__ = [
    "CalibrationWarning",
    "ChecksumError",
    "HardPredictionWarning",
    "IgnoredOptionWarning",
    "InvalidParameterError",
    "RandomBatchWarning",
    "SamplingWarning",
    "SmallReferenceWarning",
    "SparseStratumWarning",
    "UndefinedRateWarning",
    "UnlabeledGroupWarning",
]


class InvalidParameterError(ValueError, TypeError):
    """A public function got an argument of the wrong type or value.

    Both a ``ValueError`` and a ``TypeError`` (as scikit-learn's exception of
    the same name), so code that catches either keeps working.
    """


class CalibrationWarning(UserWarning):
    """A group's calibration map does not describe its labeled examples.

    Raised by :meth:`bayesfair.FairnessPosterior.calibration_check` (and so by
    :func:`bayesfair.fit` for the calibration models, once per fit) when the check
    flags a group: its labels reject the map the groups share (the step-down
    likelihood-ratio test of :mod:`bayesfair.posterior.calibration_test`), or, with two
    groups, the two are calibrated differently. The model's rates for that group lean on a
    calibration its labels contradict (RBC follows the group's own labels there).
    """


class ChecksumError(OSError):
    """A bundled data file is missing from, or does not match, ``SHA256SUMS``."""


class SamplingWarning(UserWarning):
    """The sampler's diagnostics failed (R-hat, divergences)."""


class UndefinedRateWarning(UserWarning):
    """A rate has a zero denominator in some group and is reported as NaN."""


class UnlabeledGroupWarning(UserWarning):
    """A group occurs in the unlabeled data but has no labeled example."""


class HardPredictionWarning(UserWarning):
    """Every score is 0 or 1: hard predictions, not scores.

    Raised by :class:`bayesfair.AssessmentData`. The rates and the beta-binomial
    models are unaffected; the calibration models have nothing to calibrate (every
    example sits at one of two scores)."""


class IgnoredOptionWarning(UserWarning):
    """An option was given to a function or model that does not use it."""


class SparseStratumWarning(UserWarning):
    """A stratum (group × side of the threshold) has too few labels for its estimator.

    Raised by :func:`bayesfair.frequentist.ppi_difference`, which then falls back
    on the largest variance of a rate there.
    """


class RandomBatchWarning(UserWarning):
    """:func:`bayesfair.suggest_labels` returned a simple random sample: it could not
    show that its chosen batch would teach more than a random one
    (:mod:`bayesfair.labels.against_random`)."""


class SmallReferenceWarning(UserWarning):
    """With more than two groups, the reference group of the pairs has few labeled examples:
    every pair's difference inherits its uncertainty (and its luck)."""


def warnings_at_caller(func):
    """Decorate a public function that calls others: the package's warnings raised inside
    it are re-raised at the line that called it, not inside the package.

    A function such as :func:`bayesfair.compare` calls ``fit`` and others, whose
    ``stacklevel`` points at their caller, which is then package code. Warnings of other
    libraries keep their own place (and so their default filters)."""
    import functools
    import os
    import warnings

    package = os.path.dirname(__file__)

    @functools.wraps(func)
    def run(*args, **kwargs):
        caught = []
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                out = func(*args, **kwargs)
        finally:  # outside the block, so that the caller's filters decide (not "always")
            for w in caught:
                if type(w.message).__module__.startswith("bayesfair") or str(w.filename).startswith(
                    package
                ):
                    warnings.warn(w.message, w.category, stacklevel=2)
                else:
                    warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        return out

    return run
