"""The registry of bundled data (``bayesfair/registry.json``): score sets, raw data sets,
classifiers, and the catalogue :func:`list_datasets`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import pandas as pd

from bayesfair._internal.names import resolve_name, suggest
from bayesfair.datasets.raw import (
    _read_adult,
    _read_compas,
    _read_german,
    _read_ricci,
    load_uci_adult,
)
from bayesfair.exceptions import InvalidParameterError

# ---------------------------------------------------------------------- the registries


def _registry() -> dict:
    """The bundled data sets and their coding, from ``bayesfair/registry.json``."""
    import json
    from importlib.resources import files

    return json.loads(files("bayesfair").joinpath("registry.json").read_text(encoding="utf-8"))


_REGISTRY = _registry()

#: Short classifier names and the score-column suffix of Ji et al.'s files.
CLASSIFIERS: dict[str, str] = dict(_REGISTRY["classifiers"])
# Canonical keys: "mlp", ..., and "feldman_mlp", ... for the classifiers that
# Ji et al. trained on data repaired with Feldman et al.'s disparate-impact remover.
_CLASSIFIER_COLUMNS = {
    **{key: f"score_{suffix}" for key, suffix in CLASSIFIERS.items()},
    **{f"feldman_{key}": f"score_Feldman-{suffix}" for key, suffix in CLASSIFIERS.items()},
}
_CLASSIFIER_ALIASES = {
    alias: key
    for key, column in _CLASSIFIER_COLUMNS.items()
    for alias in (
        column.lower().replace("-", "_"),
        column.lower()[len("score_") :].replace("-", "_"),
    )
    if alias != key
}


def _score_column(classifier: str) -> str:
    key = resolve_name(
        classifier,
        _CLASSIFIER_COLUMNS,
        aliases=_CLASSIFIER_ALIASES,
        what="classifier",
        argument="classifier",
    )
    return _CLASSIFIER_COLUMNS[key]


@dataclass(frozen=True)
class ScoreSet:
    """One test split of Ji et al. (2020) with classifier scores, and its coding.

    Attributes
    ----------
    name : str
        Public name, e.g. ``"adult-race"``.
    file : str
        The set's own file, relative to :func:`data_dir`.
    paper_file : str
        The file Ji et al. computed their results from; differs from ``file``
        only for ``"adult-sex"`` (see ``data/README.md``).
    dataset : str
        Name of the raw dataset in :data:`RAW_DATASETS`.
    n_rows : int
        Number of test rows.
    label : str
        Label column of the file; its values are 0/1.
    positive_label : int
        The value of ``label`` that is the positive class (always 1).
    label_meaning : str
        What ``label == positive_label`` means.
    attribute : str
        The sensitive column whose values become ``raw_group``.
    privileged_values : tuple of str
        The raw values that make up the privileged group.
    privileged_group, unprivileged_group : str
        The labels of the two binarised groups in the ``group`` column.
    other_sensitive : tuple of str
        Further sensitive columns of the file, kept as they are.
    note : str
        A known quirk, if any.
    """

    name: str
    file: str
    paper_file: str
    dataset: str
    n_rows: int
    label: str
    positive_label: int
    label_meaning: str
    attribute: str
    privileged_values: tuple[str, ...]
    privileged_group: str
    unprivileged_group: str
    other_sensitive: tuple[str, ...]
    note: str = ""


def _tuples(row: dict, keys) -> dict:
    return {k: (tuple(v) if k in keys else v) for k, v in row.items()}


_SCORE_SET_LIST = [
    ScoreSet(**_tuples(row, ("privileged_values", "other_sensitive")))
    for row in _REGISTRY["score_sets"]
]

#: The score sets of Ji et al. (2020), keyed as :func:`resolve_name` normalises
#: names (``"adult_race"``); the public name is the ``name`` attribute.
SCORE_SETS: dict[str, ScoreSet] = {s.name.replace("-", "_"): s for s in _SCORE_SET_LIST}
_SCORE_SET_ALIASES = dict(_REGISTRY["score_set_aliases"])


def get_score_set(name: str) -> ScoreSet:
    """Look up a score set by name or alias; an unknown name raises with a suggestion.

    Examples
    --------
    >>> get_score_set("propublica-recidivism-race").privileged_group
    'Caucasian'
    >>> get_score_set("adult-rase")
    Traceback (most recent call last):
    ...
    bayesfair.exceptions.InvalidParameterError: Unknown score set 'adult-rase'. Did you ...
    """
    try:
        key = resolve_name(
            name, SCORE_SETS, aliases=_SCORE_SET_ALIASES, what="dataset", argument="name"
        )
    except InvalidParameterError:
        if not isinstance(name, str):
            raise
        names = [s.name for s in _SCORE_SET_LIST]
        known = ", ".join(names)
        if name.strip().lower().replace("_", "-") in {r.name for r in _RAW_LIST}:
            raise InvalidParameterError(
                f"'{name}' is a raw data set (load_raw), without classifier scores; this needs "
                f"a score set: {known}."
            ) from None
        raise InvalidParameterError(
            f"Unknown score set '{name}'.{suggest(name.strip().lower(), names)} The score "
            f"sets: {known}."
        ) from None
    return SCORE_SETS[key]


@dataclass(frozen=True)
class RawDataset:
    """A raw dataset bundled in ``data/raw`` and how it is coded.

    Attributes
    ----------
    name : str
        Public name, e.g. ``"compas"``.
    files : tuple of str
        Its file(s), relative to :func:`data_dir`.
    n_rows : int
        Number of rows :func:`load_raw` returns.
    label : str
        The label column.
    positive_label : int or str
        The value of ``label`` that is the positive class.
    label_meaning : str
        What the positive label means.
    sensitive : tuple of str
        Sensitive columns.
    privileged : tuple of str or None
        The privileged value of each sensitive column (Ji et al. Table 1), or
        ``None`` where the column has none (Lum et al.'s age groups).
    description : str
        Source and what :func:`load_raw` changes.
    """

    name: str
    files: tuple[str, ...]
    n_rows: int
    label: str
    positive_label: int | str
    label_meaning: str
    sensitive: tuple[str, ...]
    privileged: tuple[str | None, ...]
    description: str
    reader: Callable[[], pd.DataFrame] = field(repr=False, compare=False)


def _reader(spec: str) -> Callable[[], pd.DataFrame]:
    """The loader a registry entry names: ``"adult"``, ``"compas:<file>"``, ..."""
    kind, _, arg = spec.partition(":")
    readers = {
        "adult": lambda: _read_adult(),
        "german": lambda: _read_german(),
        "compas": lambda: _read_compas(arg),
        "ricci": lambda: _read_ricci(),
        "uci_adult": lambda: load_uci_adult("all"),
    }
    return readers[kind]


_RAW_LIST = [
    RawDataset(
        **_tuples(
            {k: v for k, v in row.items() if k != "reader"}, ("files", "sensitive", "privileged")
        ),
        reader=_reader(row["reader"]),
    )
    for row in _REGISTRY["raw_datasets"]
]

#: The raw datasets, keyed as :func:`resolve_name` normalises names.
RAW_DATASETS: dict[str, RawDataset] = {r.name.replace("-", "_"): r for r in _RAW_LIST}
_RAW_ALIASES = dict(_REGISTRY["raw_aliases"])


def load_raw(name: str) -> pd.DataFrame:
    """Load a raw bundled dataset.

    Parameters
    ----------
    name : str
        ``"adult"``, ``"german"``, ``"compas"`` (alias
        ``"propublica-recidivism"``), ``"compas-violent"`` (alias
        ``"propublica-violent-recidivism"``), ``"ricci"`` or ``"uci-adult"``.

    Returns
    -------
    pandas.DataFrame
        The file's columns, with the coding of :data:`RAW_DATASETS` (label,
        positive label, sensitive columns, privileged values) and the changes
        its ``description`` lists. ``"uci-adult"`` is :func:`load_uci_adult`
        with ``split="all"``.

    Raises
    ------
    ValueError
        For an unknown name (with the nearest valid one).
    ChecksumError
        If the file does not match ``SHA256SUMS``.

    Examples
    --------
    >>> german = load_raw("german")
    >>> german["credit"].value_counts().sort_index().to_dict()
    {1: 700, 2: 300}
    >>> german["age_group"].value_counts().to_dict()
    {'adult': 851, 'youth': 149}
    """
    key = resolve_name(name, RAW_DATASETS, aliases=_RAW_ALIASES, what="dataset", argument="name")
    return RAW_DATASETS[key].reader()


# ---------------------------------------------------------------------- catalogue


def list_datasets() -> pd.DataFrame:
    """Describe every bundled score set and raw dataset.

    Returns
    -------
    pandas.DataFrame
        One row per score set (``kind == "scores"``) and raw dataset
        (``kind == "raw"``), indexed by ``name``, with the columns ``kind``,
        ``file``, ``n_rows``, ``label``, ``positive_label``, ``group`` (the
        sensitive column(s)), ``privileged_group``, ``classifiers`` and
        ``description``. The figures come from :data:`SCORE_SETS` and
        :data:`RAW_DATASETS`; no file is read.

    Examples
    --------
    >>> table = list_datasets()
    >>> table.loc["compas-sex", "privileged_group"]
    'Male'
    >>> int(table.loc["compas-sex", "n_rows"])
    2056
    >>> int((table["kind"] == "raw").sum())
    6
    """
    classifiers = ", ".join(
        [key.upper() for key in CLASSIFIERS] + [f"Feldman-{key.upper()}" for key in CLASSIFIERS]
    )
    rows = [
        {
            "name": s.name,
            "kind": "scores",
            "file": s.file,
            "n_rows": s.n_rows,
            "label": s.label,
            "positive_label": str(s.positive_label),
            "group": s.attribute,
            "privileged_group": s.privileged_group,
            "unprivileged_group": s.unprivileged_group,
            "classifiers": classifiers,
            "description": (
                f"Ji et al. (2020) test split; label 1 = {s.label_meaning}. {s.note}".strip()
            ),
        }
        for s in _SCORE_SET_LIST
    ]
    rows += [
        {
            "name": r.name,
            "kind": "raw",
            "file": ", ".join(r.files),
            "n_rows": r.n_rows,
            "label": r.label,
            "positive_label": str(r.positive_label),
            "group": ", ".join(r.sensitive),
            "privileged_group": ", ".join(
                f"{column}={value}"
                for column, value in zip(r.sensitive, r.privileged, strict=True)
                if value is not None
            ),
            "unprivileged_group": "",
            "classifiers": "",
            "description": f"{r.description} Positive label = {r.label_meaning}.",
        }
        for r in _RAW_LIST
    ]
    return pd.DataFrame(rows).set_index("name")
