"""Warnings and exceptions of bayesfair."""

from __future__ import annotations

__all__ = ["CalibrationWarning", "InvalidParameterError"]


class InvalidParameterError(ValueError, TypeError):
    """A public function got an argument of the wrong type or value.

    Both a ``ValueError`` and a ``TypeError`` (as scikit-learn's exception of
    the same name), so code that catches either keeps working.
    """


class CalibrationWarning(UserWarning):
    """A group's calibration map does not describe its labeled examples.

    Raised by :meth:`bayesfair.FairnessPosterior.calibration_check` (and so by
    :func:`bayesfair.fit` for the calibration models) when the posterior
    predictive check of a group's map fails: the model's rates for that group
    lean on a calibration the labels contradict.
    """
