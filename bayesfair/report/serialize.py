"""A report as JSON: the records of its sections in one document, NaN and infinities
as ``null``.

The sections (:func:`bayesfair.report.sections.comparison_sections`) each carry their
records (raw numbers, shown or not); :func:`json_document` joins them and writes
strict JSON (``allow_nan=False``): NumPy scalars as Python numbers, anything else that
JSON has no type for as its string.
"""

from __future__ import annotations

import json
import math

import numpy as np


def jsonable(v):
    """``v`` with what JSON has no type for converted: dictionaries' keys as strings,
    tuples as lists, NumPy scalars as Python numbers, NaN and infinities as None, any
    other object as its string."""
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [jsonable(x) for x in v]
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if v is None or isinstance(v, bool | int | float | str):
        return v
    return str(v)


def json_document(sections) -> str:
    """The JSON document of a report: the union of its sections' records, in their order.

    Parameters
    ----------
    sections : list of Section
        The report's sections (:class:`~bayesfair._internal.render.Section`).

    Returns
    -------
    str
        Indented JSON, non-ASCII characters as they are.
    """
    doc = {}
    for section in sections:
        doc.update(section.records)
    return json.dumps(jsonable(doc), indent=2, ensure_ascii=False, allow_nan=False)
