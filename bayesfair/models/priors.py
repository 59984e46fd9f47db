"""The models' priors as records: what a fit writes into its settings and reads back.

A fit records each prior as a plain dictionary, ``prior.to_dict()`` (the class name
under ``"kind"`` and the fields), which a result saved to netCDF keeps as JSON.
A ``DiscrepancyPrior`` record without a ``shift`` (written before ``rbc`` had strata
shifts, 0.3 and the early 0.4 builds) reads back with ``shift=None``, the model that
made it.
Results written before 0.5 recorded the prior's repr (``"BetaPrior(alpha=1.0,
beta=1.0)"``); :func:`prior_from_record` still reads those, parsing the call with
:mod:`ast` (never ``eval``) and accepting only the known classes and literal values.
"""

from __future__ import annotations

import ast

from bayesfair.exceptions import InvalidParameterError
from bayesfair.models.beta_binomial import BetaPrior, KappaPrior
from bayesfair.models.calibration import CalibrationPriors, DiscrepancyPrior
from bayesfair.models.shift import ShiftPrior

__all__ = ["PRIOR_CLASSES", "prior_from_record"]

#: The prior classes a record may name.
PRIOR_CLASSES = {
    cls.__name__: cls for cls in (BetaPrior, KappaPrior, CalibrationPriors, DiscrepancyPrior)
}


def prior_from_record(record, kind: str | None = None):
    """The prior a fit recorded: from ``prior.to_dict()``, or from the repr older
    versions wrote; None for no record.

    Parameters
    ----------
    record : dict, str or None
        ``settings["prior"]`` or ``settings["discrepancy"]`` of a result.
    kind : str, optional
        The class the record must name (e.g. ``"DiscrepancyPrior"``).

    Returns
    -------
    BetaPrior, KappaPrior, CalibrationPriors, DiscrepancyPrior or None
    """
    if record is None or record == "":
        return None
    try:
        if isinstance(record, dict):
            fields = dict(record)
            name = fields.pop("kind")
        else:
            name, fields = _parse_repr(str(record))
        if kind is not None and name != kind:
            raise ValueError
        fields.pop("tie", None)  # an option of 0.2's DiscrepancyPrior, since removed
        if name == "BetaPrior":  # records before 0.4 had no cells: one Beta per rate
            fields.setdefault("cells", False)
        if name == "DiscrepancyPrior":  # older records had no shifts: None, not the default
            fields["shift"] = _shift_from_record(fields.get("shift"))
        return PRIOR_CLASSES[name](**fields)
    except (ValueError, TypeError, KeyError, SyntaxError):
        raise InvalidParameterError(
            f"Not a {kind or 'prior'} record this version can read: {record!r}."
        ) from None


def _shift_from_record(record) -> ShiftPrior | None:
    """The strata's shift prior of a ``DiscrepancyPrior`` record (None: no shifts)."""
    if record is None:
        return None
    fields = dict(record)
    if fields.pop("kind", "ShiftPrior") != "ShiftPrior":
        raise ValueError(record)
    return ShiftPrior(**fields)


def _parse_repr(text: str) -> tuple[str, dict]:
    """``"Name(field=literal, ...)"`` as ``(name, fields)``, read with :mod:`ast`."""
    call = ast.parse(text, mode="eval").body
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and not call.args):
        raise ValueError(text)
    return call.func.id, {kw.arg: _literal(kw.value) for kw in call.keywords}


def _literal(node):
    """A keyword's value: a literal, or a nested ``ShiftPrior(...)`` call as its record."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.args:
        if node.func.id != "ShiftPrior":
            raise ValueError(node.func.id)
        return {
            "kind": "ShiftPrior",
            **{kw.arg: ast.literal_eval(kw.value) for kw in node.keywords},
        }
    return ast.literal_eval(node)
