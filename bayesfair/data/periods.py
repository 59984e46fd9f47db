"""Periods of an audit over time: their order, and each row's period code.

:func:`attach_periods` orders the periods of both sides (dates, numbers, or labels;
an ordered pandas ``Categorical`` keeps its order) and gives every row of each
side its period code.
"""

from __future__ import annotations

from datetime import date

import numpy as np
import pandas as pd

from bayesfair._internal.names import plain_scalar
from bayesfair.data._inputs import _encode, _readonly, check_lengths
from bayesfair.data.examples import ExampleSet
from bayesfair.exceptions import InvalidParameterError


def attach_periods(labeled: ExampleSet, unlabeled: ExampleSet, periods, unlabeled_periods):
    """Order the periods of both sides and give each row its period code.

    A period column orders the rows in time: dates, numbers, or labels (an ordered
    pandas ``Categorical`` keeps its order; other labels are sorted). Periods need
    rows on both sides (a summary has no rows to date), one value per row, none
    missing. A period may have unlabeled rows only, or labeled rows only.

    Parameters
    ----------
    labeled, unlabeled : ExampleSet
        The data's two sides; their ``period_codes`` are set (read-only arrays).
    periods, unlabeled_periods : array_like or None
        Each labeled and unlabeled row's period. Both None: no periods.

    Returns
    -------
    list or None
        The periods in time order, or None without periods.
    """
    if periods is None and unlabeled_periods is None:
        return None
    if periods is None or (unlabeled_periods is None and unlabeled.n_total):
        missing = "periods" if periods is None else "unlabeled_periods"
        raise InvalidParameterError(
            f"'{missing}' is missing: with periods, every row needs one, labeled and unlabeled."
        )
    if labeled.is_summary or unlabeled.is_summary:
        raise InvalidParameterError(
            "Periods need the examples as rows (a summary keeps no period per row); pass "
            "frames or arrays, or summarise each period's rows into its own data set."
        )
    sides = {"periods": (periods, labeled), "unlabeled_periods": (unlabeled_periods, unlabeled)}
    values = {}
    for name, (given, examples) in sides.items():
        series = pd.Series([] if given is None else given).reset_index(drop=True)
        check_lengths(**{name: len(series), f"{examples.side} rows": examples.n_total})
        if series.isna().any():
            first = int(np.flatnonzero(series.isna().to_numpy())[0])
            raise InvalidParameterError(
                f"The '{name}' parameter must not contain missing periods; position {first} is."
            )
        values[name] = series
    levels = _period_order(list(values.values()))
    for (_, examples), series in zip(sides.values(), values.values(), strict=True):
        examples.period_codes = _readonly(_encode(series, levels))
    return levels


def _text_period_kind(value: str) -> str:
    """``"number"``, ``"date"`` (ISO 8601) or ``"text"``: how a period read as text sorts."""
    try:
        float(value)
        return "number"
    except ValueError:
        pass
    try:
        date.fromisoformat(value)
        return "date"
    except ValueError:
        return "text"


def _period_order(series: list) -> list:
    """The periods of all sides in time order (the rules of :func:`attach_periods`)."""
    ordered = [s for s in series if isinstance(s.dtype, pd.CategoricalDtype) and s.cat.ordered]
    if ordered:
        levels = [plain_scalar(v) for v in ordered[0].cat.categories]
        unknown = {plain_scalar(v) for s in series for v in pd.unique(s)} - set(levels)
        if unknown:
            raise InvalidParameterError(
                f"Period(s) {sorted(map(str, unknown))} are not among the ordered categories "
                f"{levels}."
            )
        used = {plain_scalar(v) for s in series for v in pd.unique(s)}
        return [v for v in levels if v in used]
    seen = {plain_scalar(v) for s in series for v in pd.unique(s.astype(object))}
    texts = [v for v in seen if isinstance(v, str)]
    kinds = {}
    for v in sorted(texts):
        kinds.setdefault(_text_period_kind(v), []).append(v)
    if len(kinds) > 1:  # text read from a file: one kind, or its order is not time's
        found = "; ".join(f"{kind}: {', '.join(vals[:3])}" for kind, vals in kinds.items())
        raise InvalidParameterError(
            f"The periods mix kinds of label ({found}), so they have no one order in time "
            "(as text, '10' sorts before '9' and '2024Q2' before '2024-03-01'). Write every "
            "period as one kind: numbers, ISO dates (2024-03-01) or labels that sort in "
            "time (2024Q1)."
        )
    if len(texts) == len(seen) and set(kinds) == {"number"}:
        return sorted(seen, key=float)  # '9' before '10'
    if len(texts) == len(seen) and set(kinds) == {"date"}:
        return sorted(seen, key=date.fromisoformat)
    try:
        return sorted(seen)
    except TypeError as err:
        raise InvalidParameterError(
            "Periods must be comparable to be put in time order: dates, numbers, or labels "
            f"of one kind (an ordered pandas Categorical for labels in another order). Got "
            f"{sorted(map(repr, seen))[:5]}."
        ) from err
