"""Name lookup with a "did you mean" suggestion, shared by every registry."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from bayesfair.exceptions import InvalidParameterError


def suggest(name: str, choices: Iterable[str]) -> str:
    """Return ``" Did you mean 'x'?"`` for the closest choice, or ``""``."""
    close = difflib.get_close_matches(str(name), list(choices), n=1, cutoff=0.5)
    return f" Did you mean '{close[0]}'?" if close else ""


def resolve_name(
    name: str,
    registry: Mapping[str, object],
    *,
    aliases: Mapping[str, str] | None = None,
    what: str,
    argument: str,
) -> str:
    """Return the canonical key for ``name`` (case-insensitive, aliases allowed).

    Raises
    ------
    TypeError
        If ``name`` is not a string.
    ValueError
        If ``name`` is unknown; the message suggests the nearest valid name.
    """
    if not isinstance(name, str):
        raise InvalidParameterError(
            f"The '{argument}' parameter must be a string naming a {what}. "
            f"Got {name!r} of type {type(name).__name__} instead."
        )
    aliases = aliases or {}
    key = name.strip().lower().replace("-", "_").replace(" ", "_")
    if key in registry:
        return key
    if key in aliases:
        return aliases[key]
    known = list(registry)
    raise InvalidParameterError(
        f"Unknown {what} '{name}'.{suggest(key, [*known, *aliases]) or suggest(name, known)} "
        f"Known {what}s: {', '.join(known)}."
    )


def plain_scalar(value: Any) -> Any:
    """A NumPy scalar as the Python scalar it holds (anything else unchanged), so that a
    group or label prints and serialises as the user wrote it.

    Parameters
    ----------
    value : object

    Returns
    -------
    object
    """
    return value.item() if isinstance(value, np.generic) else value


def as_text(values):
    """Group values as text, as a CSV file writes them: booleans ``"True"``/``"False"``,
    everything else ``str``, missing values kept (every engine's ``text_groups``).

    Parameters
    ----------
    values : array_like, pandas.Series or pandas.DataFrame

    Returns
    -------
    pandas.Series or pandas.DataFrame
    """
    import pandas as pd

    if isinstance(values, pd.DataFrame):
        return values.apply(as_text)
    series = pd.Series(values) if not isinstance(values, pd.Series) else values
    return series.astype(object).map(lambda v: v if isinstance(v, str) or pd.isna(v) else str(v))
