"""Coercion and checks of user input shared by :mod:`bayesfair.data` and
:mod:`bayesfair.data.sources`.

Scores, labels and group columns are turned into plain arrays here, once, with
the error messages users see; both the in-memory data set and the engines that
summarise rows where they live call these (so neither imports the other).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from bayesfair._internal.names import plain_scalar, suggest
from bayesfair.exceptions import InvalidParameterError

#: Separator of attribute values in the label of an intersectional group.
INTERSECTION_SEP = " & "


def _readonly(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


def _as_scores(values: Any, argument: str) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise InvalidParameterError(
            f"The '{argument}' parameter must be one-dimensional. Got shape {arr.shape}."
        )
    if arr.dtype == bool:
        raise InvalidParameterError(
            f"The '{argument}' parameter must hold numeric scores in [0, 1]. Got booleans."
        )
    if not np.issubdtype(arr.dtype, np.number):
        bad = next((v for v in arr.tolist() if not _is_number(v)), None)
        shown = f"the non-numeric value {bad!r}" if bad is not None else f"dtype {arr.dtype}"
        raise InvalidParameterError(
            f"The '{argument}' parameter must hold numeric scores in [0, 1]. Got {shown}."
        )
    out = np.array(arr, dtype=float)
    n_nan = int(np.isnan(out).sum())
    if n_nan:
        first = int(np.flatnonzero(np.isnan(out))[0])
        raise InvalidParameterError(
            f"The '{argument}' parameter must not contain NaN. Got {n_nan} NaN value(s), "
            f"the first at position {first}."
        )
    outside = (out < 0) | (out > 1)
    if outside.any():
        first = int(np.flatnonzero(outside)[0])
        raise InvalidParameterError(
            f"The '{argument}' parameter must lie in [0, 1] (scores are probabilities). "
            f"Got {int(outside.sum())} value(s) outside, e.g. {float(out[first])!r} at "
            f"position {first}."
        )
    return out


def _is_number(v: Any) -> bool:
    try:
        float(v)
    except (TypeError, ValueError):
        return False
    return True


def _as_labels(values: Any, pos_label: Any, argument: str = "labels") -> tuple[np.ndarray, Any]:
    """Return labels coded 0/1 and the positive label actually used."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise InvalidParameterError(
            f"The '{argument}' parameter must be one-dimensional. Got shape {arr.shape}."
        )
    series = pd.Series(arr)
    if series.isna().any():
        raise InvalidParameterError(
            f"The '{argument}' parameter must not contain missing values. "
            f"Got {int(series.isna().sum())} missing value(s)."
        )
    distinct = list(pd.unique(series))
    if pos_label is None and arr.dtype != bool:
        words = series.astype(str).str.strip().str.lower()
        if set(words.unique()) <= {"true", "false"}:  # booleans written as text (Parquet)
            return (words == "true").to_numpy().astype(np.int8), True
    if len(distinct) > 2:
        shown = ", ".join(repr(plain_scalar(v)) for v in distinct[:6])
        raise InvalidParameterError(
            f"The '{argument}' parameter must be binary (two distinct values). "
            f"Got {len(distinct)} distinct values: {shown}{' ...' if len(distinct) > 6 else ''}."
        )
    if pos_label is None:
        if arr.dtype == bool:
            return arr.astype(np.int8), True
        if all(_is_number(v) and float(v) in (0.0, 1.0) for v in distinct):
            return np.asarray([float(v) for v in arr]).astype(np.int8), 1
        shown = ", ".join(repr(plain_scalar(v)) for v in distinct)
        raise InvalidParameterError(
            f"The '{argument}' parameter has values {shown}, which are not {{0, 1}} or bool: "
            "say which one is positive with 'pos_label'."
        )
    matches = [v for v in distinct if v == pos_label or str(v) == str(pos_label)]
    if not matches and len(distinct) < 2:
        # A labeled set with a single class is valid (e.g. ten labels, no positive).
        binary = all(_is_number(v) and float(v) in (0.0, 1.0) for v in distinct)
        if not (binary and _is_number(pos_label) and float(pos_label) in (0.0, 1.0)):
            warnings.warn(
                f"No value of '{argument}' equals pos_label={pos_label!r} (all are "
                f"{plain_scalar(distinct[0])!r}): every labeled example is taken as negative.",
                UserWarning,
                stacklevel=4,
            )
        return (series == pos_label).to_numpy().astype(np.int8), plain_scalar(pos_label)
    if not matches:
        shown = ", ".join(repr(plain_scalar(v)) for v in distinct)
        raise InvalidParameterError(
            f"The 'pos_label' parameter must be one of the values of '{argument}' ({shown}). "
            f"Got {pos_label!r} instead."
        )
    return (series == matches[0]).to_numpy().astype(np.int8), plain_scalar(matches[0])


def count_confusion(predictions, labels, group_codes, n_groups: int) -> np.ndarray:
    """Confusion counts per group, shape ``(n_groups, 4)`` in the order tp, fp, tn, fn.

    ``predictions`` and ``labels`` are 0/1 (ŷ = 1[score ≥ threshold], Ji et al.
    §2.1); ``group_codes`` in ``range(n_groups)``. The one counting of
    :meth:`AssessmentData.confusion_counts` and of the experiment harness.

    Parameters
    ----------
    predictions, labels : array_like of 0/1
        Each row's prediction and true label.
    group_codes : array_like of int
        Each row's group, in ``range(n_groups)``.
    n_groups : int
        The number of groups (rows of the result).
    """
    pred = np.asarray(predictions).astype(bool)
    y = np.asarray(labels).astype(bool)
    cell = np.select([pred & y, pred & ~y, ~pred & ~y], [0, 1, 2], default=3)
    flat = np.bincount(np.asarray(group_codes, dtype=np.intp) * 4 + cell, minlength=4 * n_groups)
    return flat.reshape(n_groups, 4)


def _as_groups(values: Any, argument: str) -> tuple[pd.Series, list[str] | None]:
    """Return one label per row (vectorised), joining several attributes into intersections."""
    if isinstance(values, pd.DataFrame):
        frame = values
    elif isinstance(values, Mapping):
        frame = pd.DataFrame(dict(values))
    else:
        arr = np.asarray(values, dtype=object) if not isinstance(values, np.ndarray) else values
        if arr.ndim == 1:
            frame = pd.DataFrame({0: arr})
        elif arr.ndim == 2:
            frame = pd.DataFrame(arr)
        else:
            raise InvalidParameterError(
                f"The '{argument}' parameter must be one- or two-dimensional. "
                f"Got shape {arr.shape}."
            )
        attributes = None
    if isinstance(values, pd.DataFrame | Mapping):
        attributes = [str(c) for c in frame.columns]
    missing = frame.isna().to_numpy().any(axis=1)
    if missing.any():
        raise InvalidParameterError(
            f"The '{argument}' parameter must not contain missing values. "
            f"Got {int(missing.sum())} missing value(s), the first at position "
            f"{int(np.flatnonzero(missing)[0])}."
        )
    if frame.shape[1] == 1:
        labels = frame.iloc[:, 0].reset_index(drop=True)
    else:
        parts = [
            _as_text(frame.iloc[:, col].reset_index(drop=True)) for col in range(frame.shape[1])
        ]
        labels = parts[0]
        for part in parts[1:]:
            labels = labels + INTERSECTION_SEP + part.to_numpy()
        if any(INTERSECTION_SEP in v for part in parts for v in pd.unique(part)):
            _refuse_shared_labels(argument, labels, parts)
    return labels, attributes


def _as_text(column: pd.Series) -> pd.Series:
    """A group column's values as text for an intersection's label. A whole float is
    written as an integer (``1.0`` as ``"1"``), as ``1`` and ``1.0`` are one group in a
    single column: a column read as integers in one file and as floats in another (a
    missing value elsewhere in it) would otherwise split every intersection in two."""
    codes, uniques = pd.factorize(column, sort=False)
    text = np.array([_value_text(u) for u in uniques] or [""], dtype=object)
    return pd.Series(text[codes], index=column.index, dtype=object)


def _value_text(v: Any) -> str:
    v = plain_scalar(v)
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _refuse_shared_labels(argument: str, labels: pd.Series, parts: list) -> None:
    """Refuse two combinations of the group columns' values joined into one label."""
    combos = pd.DataFrame({"label": labels, **dict(enumerate(parts))}).drop_duplicates()
    shared = combos[combos["label"].duplicated(keep=False)]
    if len(shared):
        first = shared[shared["label"] == shared["label"].iloc[0]]
        tuples = [tuple(row) for row in first.drop(columns="label").to_numpy()[:2]]
        raise ambiguous_intersection(argument, first["label"].iloc[0], tuples)


def ambiguous_intersection(argument: str, label, combinations=()) -> InvalidParameterError:
    """The error for two intersections that get one label.

    Several group columns are joined into one label per row with
    :data:`INTERSECTION_SEP`, so values holding it can make two intersections one
    (``("a & b", "c")`` and ``("a", "b & c")``); a value holding it alone is fine.
    """
    which = " and ".join(map(repr, combinations))
    which = f" ({which})" if which else ""
    return InvalidParameterError(
        f"The '{argument}' parameter combines several group columns into labels joined by "
        f"{INTERSECTION_SEP!r}, and two intersections{which} get the same label "
        f"{label!r}. Rename the values that hold {INTERSECTION_SEP!r}."
    )


def _as_pandas(frame):
    """A polars (or any ``to_pandas``/interchange) frame as pandas; pandas unchanged."""
    if isinstance(frame, pd.DataFrame) or frame is None:
        return frame
    if type(frame).__module__.startswith("polars") and hasattr(frame, "to_pandas"):
        return frame.to_pandas()
    if hasattr(frame, "__dataframe__"):
        return pd.api.interchange.from_dataframe(frame)
    return frame


def _is_lazy(frame) -> bool:
    return type(frame).__name__ == "LazyFrame"


def _encode(labels: pd.Series, levels: list) -> np.ndarray:
    """Integer codes of ``labels`` in ``levels`` (vectorised)."""
    codes, uniques = pd.factorize(labels, sort=False)
    position = {u: i for i, u in enumerate(levels)}
    lookup = np.array([position[plain_scalar(u)] for u in uniques], dtype=np.intp)
    return lookup[codes] if codes.size else np.empty(0, dtype=np.intp)


def _ordered_levels(labeled: pd.Series, unlabeled: pd.Series) -> list:
    """The groups of both sets of rows, sorted; groups that differ only in type refused."""
    seen: dict = {}  # level -> the rows it was first seen in
    for rows, s in (("labeled", labeled), ("unlabeled", unlabeled)):
        for v in pd.unique(s):
            seen.setdefault(plain_scalar(v), rows)
    as_text: dict = {}
    for v, rows in seen.items():
        other = as_text.setdefault(str(v), v)
        if other is not v:  # e.g. 1 in the labeled rows and '1' in the unlabeled ones
            where = (
                f"both in the {rows} rows' group column"
                if seen[other] == rows
                else f"{other!r} in the {seen[other]} rows and {v!r} in the {rows} ones"
            )
            raise InvalidParameterError(
                f"The groups {other!r} ({type(other).__name__}) and {v!r} "
                f"({type(v).__name__}) differ only in type ({where}): they seem to be one "
                "group written in two types (a CSV and a Parquet file, say). Convert the "
                "column, e.g. with .astype(str)."
            )
    levels = list(seen)
    try:
        return sorted(levels)
    except TypeError:
        return sorted(levels, key=str)


def _check_ids(ids, n: int) -> np.ndarray:
    """``unlabeled_ids``: one per row, none missing, unique (read-only copy)."""
    arr = np.array(ids, dtype=object) if not isinstance(ids, np.ndarray) else ids.copy()
    if arr.ndim != 1 or arr.size != n:
        raise InvalidParameterError(
            f"'unlabeled_ids' must hold one id per unlabeled example ({n}). Got shape {arr.shape}."
        )
    series = pd.Series(arr)
    if series.isna().any():
        raise InvalidParameterError(
            f"'unlabeled_ids' must not be missing: {int(series.isna().sum())} are, the "
            f"first at position {int(np.flatnonzero(series.isna().to_numpy())[0])}."
        )
    dup = series.duplicated()
    if dup.any():
        first = series[dup].iloc[0]
        raise InvalidParameterError(
            f"'unlabeled_ids' must be unique, so that a suggested example can be found "
            f"again: {int(dup.sum())} repeat, e.g. {plain_scalar(first)!r}."
        )
    return _readonly(arr)


def check_columns(frame: pd.DataFrame, which: str, **columns: list[str]) -> None:
    """Every named column is in ``frame``; else name the argument and the nearest column."""
    for argument, names in columns.items():
        for name in names:
            if name not in frame.columns:
                raise InvalidParameterError(
                    f"Column '{name}' (the '{argument}' parameter) is not in the {which} "
                    f"data.{suggest(name, map(str, frame.columns))} "
                    f"Columns: {', '.join(map(str, frame.columns))}."
                )


def check_lengths(**lengths: int) -> None:
    """The arrays named by the keywords have one length."""
    if len(set(lengths.values())) > 1:
        shown = ", ".join(f"'{k}' has {v}" for k, v in lengths.items())
        raise InvalidParameterError(f"Length mismatch: {shown} entries; they must be equal.")


class RowAttribute:
    """A read-only array of one side's rows (``AssessmentData.scores``,
    ``.unlabeled_scores``, ...): the field ``field`` of the owner's example set
    ``side`` (:mod:`bayesfair.data.examples`), whose ``rows`` raises, naming the
    attribute, when the side is held as a summary."""

    def __init__(self, side: str, field: str, doc: str = ""):
        self.side, self.field = side, field
        self.__doc__ = doc + " Not available when the examples are held as a summary."

    def __set_name__(self, owner, name: str):
        self.name = name

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return getattr(getattr(obj, self.side).rows(self.name), self.field)

    def __set__(self, obj, value):
        raise AttributeError(f"AssessmentData.{self.name} is read-only.")
