"""Readers of the raw data sets (Adult, German credit, COMPAS, Ricci, UCI Adult)."""

from __future__ import annotations

import itertools
from typing import Literal

import numpy as np
import pandas as pd

from bayesfair._internal.names import suggest
from bayesfair.datasets._files import _verified_path
from bayesfair.exceptions import InvalidParameterError

# ---------------------------------------------------------------------- raw readers

_UCI_ADULT_COLUMNS = (
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education-num",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
    "native-country",
    "income",
)
#: Lum et al. (2022, §6): 8 ten-year age groups from 15 to 95.
AGE_BIN_EDGES: tuple[int, ...] = tuple(range(15, 96, 10))


def _read_adult() -> pd.DataFrame:
    return pd.read_csv(_verified_path("raw/adult.csv.gz"), na_values=["?"])


def _read_german() -> pd.DataFrame:
    frame = pd.read_csv(_verified_path("raw/german.csv.gz"))
    male = frame["personal_status"].isin(["A91", "A93", "A94"])
    # Friedler et al.'s coding, which produced the score sets' sex and age columns
    # (checked row by row against german_*_scores).
    return frame.assign(
        sex=np.where(male, "male", "female"),
        age_group=np.where(frame["age"] >= 25, "adult", "youth"),
    )


def _read_compas(file: str) -> pd.DataFrame:
    frame = pd.read_csv(_verified_path(file))
    # The ProPublica header repeats decile_score, priors_count (and, in the violent
    # file, two_year_recid); pandas renames the repeats 'x.1'. They are identical copies.
    repeats = [
        c
        for c in frame.columns
        if c.endswith(".1") and c[:-2] in frame.columns and frame[c].equals(frame[c[:-2]])
    ]
    return frame.drop(columns=repeats)


def _read_ricci() -> pd.DataFrame:
    frame = pd.read_csv(_verified_path("raw/ricci.csv.gz"))
    # Friedler et al. (after Miao 2010): a passing grade is Combine >= 70.
    return frame.assign(Class=(frame["Combine"] >= 70).astype("int64"))


def _read_uci_part(file: str, split: str) -> pd.DataFrame:
    frame = pd.read_csv(
        _verified_path(file),
        header=None,
        names=list(_UCI_ADULT_COLUMNS),
        # The test file starts with a junk line ("|1x3 Cross validator").
        skiprows=1 if split == "test" else 0,
        skipinitialspace=True,
        na_values=["?"],
    )
    # The test file writes its labels with a trailing full stop (">50K.").
    income = frame["income"].str.rstrip(".")
    unknown = sorted(set(income.dropna()) - {"<=50K", ">50K"})
    if unknown or income.isna().any():
        raise InvalidParameterError(
            f"Unexpected income values in {file}: {unknown or 'missing values'}."
        )
    return frame.assign(income=(income == ">50K").astype("int64"), split=split)


def _age_groups(age: pd.Series) -> pd.Categorical:
    edges = AGE_BIN_EDGES
    labels = [f"({lo}, {hi}]" for lo, hi in itertools.pairwise(edges)]
    return pd.cut(age, bins=list(edges), labels=labels, ordered=True)


def load_uci_adult(split: Literal["test", "train", "all"] = "test") -> pd.DataFrame:
    """Load the full UCI Adult data as used by Lum et al. (2022, §6).

    Parameters
    ----------
    split : {"test", "train", "all"}, default "test"
        The UCI test file (16,281 rows), the training file (32,561 rows), or
        both (48,842 rows, training rows first).

    Returns
    -------
    pandas.DataFrame
        The 14 UCI attributes under their names in ``uci-adult.names``
        (strings stripped, ``'?'`` read as missing), and

        * ``income`` — the label, 1 for ``>50K`` and 0 for ``<=50K`` (the test
          file's trailing full stop removed);
        * ``age_group`` — ten-year age bins ``(15, 25]``, ..., ``(85, 95]``, an
          ordered categorical with 8 levels;
        * ``split`` — ``"train"`` or ``"test"``, the file the row comes from.

        The index runs from 0 (for ``"all"``: over the concatenation).

    References
    ----------
    Lum, Zhang, Bower (2022), §6: 8 age groups from 15 to 95 and the 5 race
    groups, 40 intersections.

    Examples
    --------
    >>> test = load_uci_adult("test")
    >>> test.shape
    (16281, 17)
    >>> test["age_group"].cat.categories[[0, -1]].tolist()
    ['(15, 25]', '(85, 95]']
    >>> int(test["income"].sum())
    3846
    """
    parts = {"train": "raw/uci-adult.data.gz", "test": "raw/uci-adult.test.gz"}
    if split not in (*parts, "all"):
        raise InvalidParameterError(
            "The 'split' parameter must be one of 'test', 'train', 'all'. "
            f"Got {split!r} instead.{suggest(str(split), [*parts, 'all'])}"
        )
    chosen = list(parts) if split == "all" else [split]
    frame = pd.concat([_read_uci_part(parts[s], s) for s in chosen], ignore_index=True)
    return frame.assign(age_group=_age_groups(frame["age"]))


def load_selection_example(table: str | None = "intersectional") -> pd.DataFrame:
    """The worked example of a selection audit in New York City's rule on automated
    employment decision tools (Local Law 144; 6 RCNY § 5-301(b), "Resume Screening").

    Per category, the applicants and the selected (2,571 applicants of known
    category; 250 more of unknown category are not in the table), with the
    selection rates and impact ratios as the rule prints them (rounded there).
    Counts only; ``data/README.md`` gives the provenance.

    Parameters
    ----------
    table : {"intersectional", "sex", "race_ethnicity"} or None, default "intersectional"
        Which of the rule's three tables; None returns all rows with their ``table``.

    Returns
    -------
    pandas.DataFrame
        ``table, ethnicity, sex, race, applicants, selected,
        published_selection_rate, published_impact_ratio`` and ``category``
        (the category's name: its non-empty parts joined by " / ").
    """
    frame = pd.read_csv(_verified_path("nyc_ll144/dcwp_example_selection.csv"))
    parts = frame[["ethnicity", "sex", "race"]].astype("string")
    frame["category"] = [
        " / ".join(p for p in row if isinstance(p, str) and p) for row in parts.to_numpy()
    ]
    if table is None:
        return frame
    tables = sorted(frame["table"].unique())
    if table not in tables:
        raise ValueError(f"Unknown table {table!r}; choose one of {tables} or None.")
    return frame[frame["table"] == table].reset_index(drop=True)
