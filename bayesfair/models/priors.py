"""The models' priors as records: what a fit writes into its settings and reads back.

A fit records each prior as a plain dictionary, ``prior.to_dict()`` (the class name
under ``"kind"`` and the fields), which a result saved to netCDF keeps as JSON.
A record this version did not write (the text form or the fields of a development
build) is refused with a message that says to refit.
"""

from __future__ import annotations

import numpy as np

from bayesfair.exceptions import InvalidParameterError
from bayesfair.models.beta_binomial import BetaPrior, KappaPrior
from bayesfair.models.calibration import CalibrationPriors, DiscrepancyPrior
from bayesfair.models.shift import ShiftPrior

#: The prior classes a record may name.
PRIOR_CLASSES = {
    cls.__name__: cls for cls in (BetaPrior, KappaPrior, CalibrationPriors, DiscrepancyPrior)
}


def prior_from_record(record, kind: str | None = None):
    """The prior a fit recorded, from ``prior.to_dict()``; None for no record.

    Parameters
    ----------
    record : dict or None
        ``settings["prior"]`` or ``settings["discrepancy"]`` of a result.
    kind : str, optional
        The class the record must name (e.g. ``"DiscrepancyPrior"``).

    Returns
    -------
    BetaPrior, KappaPrior, CalibrationPriors, DiscrepancyPrior or None

    Raises
    ------
    InvalidParameterError
        For a record of another kind, or one this version did not write (a text
        record, or fields it does not know or misses): refit with this version.
    """
    if record is None or record == "":
        return None
    try:
        fields = dict(record)
        name = fields.pop("kind")
        if kind is not None and name != kind:
            raise ValueError
        if name == "BetaPrior" and "cells" not in fields:
            raise ValueError
        if name == "DiscrepancyPrior":
            fields["shift"] = _shift_from_record(fields.get("shift"))
        return PRIOR_CLASSES[name](**fields)
    except (ValueError, TypeError, KeyError):
        raise InvalidParameterError(
            f"Not a {kind or 'prior'} record this version can read: {record!r}. A result "
            "saved by a development build of bayesfair cannot be read: refit it."
        ) from None


def _shift_from_record(record) -> ShiftPrior | None:
    """The strata's shift prior of a ``DiscrepancyPrior`` record (None: no shifts)."""
    if record is None:
        return None
    fields = dict(record)
    if fields.pop("kind", "ShiftPrior") != "ShiftPrior":
        raise ValueError(record)
    return ShiftPrior(**fields)


# ---------------------------------------------------------------------------
# The pieces of a log prior at every draw (prior sensitivity's power scaling)
# ---------------------------------------------------------------------------
_HALF_LOG_2PI = 0.5 * np.log(2.0 * np.pi)


def recorded_prior_numbers(record) -> dict:
    """The fields of the prior a fit recorded (``settings["prior"]``); empty without one.

    Parameters
    ----------
    record : dict or None

    Returns
    -------
    dict
    """
    prior = prior_from_record(record)
    return {} if prior is None else {k: v for k, v in prior.to_dict().items() if k != "kind"}


def stacked_draws(post, name: str) -> np.ndarray:
    """A posterior variable as ``(chain, draw, -1)``.

    Parameters
    ----------
    post : xarray.Dataset
        A posterior group.
    name : str

    Returns
    -------
    numpy.ndarray
    """
    v = post[name].transpose("chain", "draw", ...).values
    return v.reshape(v.shape[0], v.shape[1], -1)


def log_normal_pdf(x, sd) -> np.ndarray:
    """The log density of Normal(0, ``sd``) at ``x``.

    Parameters
    ----------
    x : array_like
    sd : float

    Returns
    -------
    numpy.ndarray
    """
    return -0.5 * (np.asarray(x) / sd) ** 2 - np.log(sd) - _HALF_LOG_2PI


def log_beta_pdf(x, a, b) -> np.ndarray:
    """The log density of Beta(``a``, ``b``) at ``x``.

    A draw of exactly 0 or 1 (a Beta draw underflows there when a shape is small) is
    taken at the nearest representable interior point, so that its density is finite.

    Parameters
    ----------
    x : array_like
    a, b : float or array_like

    Returns
    -------
    numpy.ndarray
    """
    from scipy.special import betaln

    x = np.clip(x, 1e-300, 1.0 - np.finfo(float).epsneg)
    return (a - 1.0) * np.log(x) + (b - 1.0) * np.log1p(-x) - betaln(a, b)
