"""bayesfair.report.serialize: a report's sections as one strict JSON document."""

import json
import math

import numpy as np
import pandas as pd

from bayesfair._internal.render import Section
from bayesfair.report.serialize import json_document, jsonable


def test_what_json_has_no_type_for_is_converted():
    value = {
        1: (np.float64(0.5), np.int64(3), np.bool_(True)),
        "nan": math.nan,
        "inf": [np.float64(np.inf), -math.inf],
        "when": pd.Timestamp("2024-01-02"),
        "none": None,
    }
    assert jsonable(value) == {
        "1": [0.5, 3, True],
        "nan": None,
        "inf": [None, None],
        "when": "2024-01-02 00:00:00",
        "none": None,
    }


def test_the_document_is_the_union_of_the_sections_records_shown_or_not():
    sections = [
        Section("a", "A", (("text", "shown"),), {"a": [1, 2], "b": {"x": math.nan}}),
        Section("c", "C", (), {"c": "ε"}, shown=False),
        Section("d", "D", (("text", "no records"),)),
    ]
    text = json_document(sections)
    assert "NaN" not in text and "ε" in text  # strict JSON, non-ASCII as it is
    assert json.loads(text) == {"a": [1, 2], "b": {"x": None}, "c": "ε"}
    assert text.startswith('{\n  "a": [')  # indented
