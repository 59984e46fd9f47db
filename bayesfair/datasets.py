"""Loaders for the data bundled with bayesfair (the top-level ``data/`` folder).

Two kinds of data are bundled (provenance, licences and quirks in
``data/README.md``):

* **score sets** — the test splits of Ji et al. (2020) with the scores of five
  classifiers per row. :func:`load_scores` returns one as a tidy frame with the
  columns ``score, label, group, raw_group`` and the other sensitive columns;
  :func:`load_assessment` splits it into a labeled and an unlabeled part and
  returns an :class:`~bayesfair.data.AssessmentData`.
* **raw datasets** — Adult, German credit, COMPAS (two outcomes), Ricci, and
  the full UCI Adult of Lum et al. (2022, §6): :func:`load_raw`,
  :func:`load_uci_adult`.

Every file is checked against ``data/SHA256SUMS`` before it is read (once per
process and file); :func:`verify_checksums` checks them all.

The label, its positive value and the privileged group of each score set are
declared once, in :data:`SCORE_SETS`; :func:`list_datasets` shows them.

References
----------
Ji, Smyth, Steyvers (2020). *Can I Trust My Fairness Metric? Assessing
Fairness with Unlabeled Data and Bayesian Inference.* NeurIPS. §3, Table 1.

Lum, Zhang, Bower (2022). *De-biasing "bias" measurement.* FAccT. §6.

Friedler, Scheidegger, Venkatasubramanian, Choudhary, Hamilton, Roth (2019).
*A comparative study of fairness-enhancing interventions in machine learning.*
FAT*. (The preprocessing behind the score sets.)
"""

from __future__ import annotations

import hashlib
import itertools
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, NamedTuple

import numpy as np
import pandas as pd

from bayesfair._names import resolve_name, suggest
from bayesfair.data import AssessmentData
from bayesfair.exceptions import ChecksumError

__all__ = [
    "RAW_DATASETS",
    "SCORE_SETS",
    "ChecksumError",
    "LabeledSplit",
    "RawDataset",
    "ScoreSet",
    "data_dir",
    "get_score_set",
    "list_datasets",
    "load_assessment",
    "load_raw",
    "load_scores",
    "load_uci_adult",
    "split_labeled",
    "verify_checksums",
]

logger = logging.getLogger("bayesfair")

CHECKSUM_FILE = "SHA256SUMS"


# ---------------------------------------------------------------------- locating and checking


def data_dir() -> Path:
    """Return the folder that holds the bundled data and its ``SHA256SUMS``.

    A wheel carries the data inside the package (``bayesfair/_data``, copied
    there by ``setup.py`` at build time); an editable install or a source
    checkout reads the repository's top-level ``data/`` folder.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    FileNotFoundError
        If neither folder holds a ``SHA256SUMS`` file.
    """
    package = Path(__file__).resolve().parent
    candidates = (package / "_data", package.parent / "data")
    for candidate in candidates:
        if (candidate / CHECKSUM_FILE).is_file():
            return candidate
    looked = " and ".join(str(c) for c in candidates)
    raise FileNotFoundError(
        f"bayesfair's bundled data was not found: no {CHECKSUM_FILE} in {looked}. "
        "Install bayesfair from a wheel (which carries bayesfair/_data) or work in a "
        "source checkout that has the top-level data/ folder."
    )


def _expected_digests(directory: Path) -> dict[str, str]:
    """Parse ``SHA256SUMS`` (``<hex>  <relative path>`` per line) into ``{path: hex}``."""
    digests = {}
    text = (directory / CHECKSUM_FILE).read_text(encoding="utf-8")
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        digest, sep, name = line.strip().partition(" ")
        if not sep or len(digest) != 64:
            raise ChecksumError(
                f"Line {number} of {directory / CHECKSUM_FILE} is not '<sha256>  <file>': {line!r}."
            )
        digests[name.strip().lstrip("*")] = digest.lower()
    return digests


def _sha256(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


# Files already found to match, keyed by (path, size, mtime): a loader hashes a
# file once per process, and a file changed on disk is hashed again.
_VERIFIED: set[tuple[str, int, int, str]] = set()


def _check_file(directory: Path, name: str, expected: str) -> Path:
    path = directory / name
    if not path.is_file():
        raise ChecksumError(f"Bundled data file '{name}' is listed in {CHECKSUM_FILE} but missing.")
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns, expected)
    if key not in _VERIFIED:
        actual = _sha256(path)
        if actual != expected:
            raise ChecksumError(
                f"Bundled data file '{name}' does not match {CHECKSUM_FILE}: "
                f"expected sha256 {expected}, got {actual}. The file is corrupted or was "
                "changed; restore it from the repository or reinstall bayesfair."
            )
        _VERIFIED.add(key)
    return path


def _verified_path(name: str) -> Path:
    """Return the path of a bundled file after checking it against ``SHA256SUMS``."""
    directory = data_dir()
    digests = _expected_digests(directory)
    if name not in digests:
        raise ChecksumError(f"Bundled data file '{name}' is not listed in {CHECKSUM_FILE}.")
    return _check_file(directory, name, digests[name])


def verify_checksums() -> tuple[str, ...]:
    """Check every bundled file against ``SHA256SUMS``.

    Returns
    -------
    tuple of str
        The files checked, as listed in ``SHA256SUMS`` (paths relative to
        :func:`data_dir`).

    Raises
    ------
    ChecksumError
        If a listed file is missing or its SHA-256 digest differs; the message
        names every such file.

    Examples
    --------
    >>> "scores/adult_race_scores.csv.gz" in verify_checksums()
    True
    """
    directory = data_dir()
    digests = _expected_digests(directory)
    problems = []
    for name, expected in digests.items():
        try:
            _check_file(directory, name, expected)
        except ChecksumError as error:
            problems.append(str(error))
    if problems:
        raise ChecksumError(" ".join(problems))
    return tuple(digests)


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
    ValueError: Unknown score set 'adult-rase'. Did you mean 'adult-race'? The score sets: ...
    """
    try:
        key = resolve_name(
            name, SCORE_SETS, aliases=_SCORE_SET_ALIASES, what="dataset", argument="name"
        )
    except ValueError:
        names = [s.name for s in _SCORE_SET_LIST]
        known = ", ".join(names)
        if name.strip().lower().replace("_", "-") in {r.name for r in _RAW_LIST}:
            raise ValueError(
                f"'{name}' is a raw data set (load_raw), without classifier scores; this needs "
                f"a score set: {known}."
            ) from None
        raise ValueError(
            f"Unknown score set '{name}'.{suggest(name.strip().lower(), names)} The score "
            f"sets: {known}."
        ) from None
    return SCORE_SETS[key]


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
        raise ValueError(f"Unexpected income values in {file}: {unknown or 'missing values'}.")
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
        raise ValueError(
            "The 'split' parameter must be one of 'test', 'train', 'all'. "
            f"Got {split!r} instead.{suggest(str(split), [*parts, 'all'])}"
        )
    chosen = list(parts) if split == "all" else [split]
    frame = pd.concat([_read_uci_part(parts[s], s) for s in chosen], ignore_index=True)
    return frame.assign(age_group=_age_groups(frame["age"]))


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


# ---------------------------------------------------------------------- score sets


def load_scores(name: str, classifier: str = "MLP", *, as_in_paper: bool = True) -> pd.DataFrame:
    """Load a test split of Ji et al. (2020) with one classifier's scores.

    Parameters
    ----------
    name : str
        ``"adult-race"``, ``"adult-sex"``, ``"german-age"``, ``"german-sex"``,
        ``"compas-race"`` (alias ``"propublica-recidivism-race"``),
        ``"compas-sex"`` or ``"ricci-race"``.
    classifier : str, default "MLP"
        ``"MLP"``, ``"LR"``, ``"NB"`` (Gaussian naive Bayes), ``"DT"``
        (decision tree) or ``"RF"`` (random forest), case-insensitive; also
        the file's column names (``"score_LR"``, ``"MultiLayerPerceptron"``) and
        the repaired-data variants (``"Feldman-LR"``, ``"score_Feldman-LR"``).
    as_in_paper : bool, default True
        Read the file Ji et al. computed their results from. This matters only
        for ``"adult-sex"``, whose paper rows used ``adult_race_scores`` (same
        rows, labels and groups; other DT, RF and MLP fits). ``False`` reads
        ``adult_sex_scores``.

    Returns
    -------
    pandas.DataFrame
        One row per test example, indexed by ``row`` (the row number in Friedler
        et al.'s preprocessed dataset), with the columns

        * ``score`` — the classifier's score, in [0, 1];
        * ``label`` — the true label, 0/1 as coded in the file, positive = 1;
        * ``group`` — the binarised sensitive attribute: the set's
          ``privileged_group`` or ``unprivileged_group`` (see
          :data:`SCORE_SETS`);
        * ``raw_group`` — the raw value of the sensitive attribute;
        * the set's other sensitive columns, unchanged.

    Raises
    ------
    ValueError
        For an unknown set or classifier (with the nearest valid name).
    ChecksumError
        If the file does not match ``SHA256SUMS``.

    Notes
    -----
    In the German sets the scores are P(credit = bad) while ``label`` = 1 means
    good credit; Ji et al. used the files as they are, so this loader does too.

    References
    ----------
    Ji, Smyth, Steyvers (2020), §3 and Table 1: test splits (a random third of
    each dataset) and privileged groups (gender male, age adult, race white or
    Caucasian).

    Examples
    --------
    >>> frame = load_scores("compas-race", "LR")
    >>> frame.columns.tolist()
    ['score', 'label', 'group', 'raw_group', 'sex', 'sex-race']
    >>> frame["group"].value_counts().to_dict()
    {'Non-Caucasian': 1327, 'Caucasian': 729}
    >>> frame["raw_group"].nunique()
    6
    """
    spec = get_score_set(name)
    column = _score_column(classifier)
    file = spec.paper_file if as_in_paper else spec.file
    source = pd.read_csv(_verified_path(file), index_col=0)
    source.index.name = "row"

    labels = source[spec.label]
    if not labels.isin([0, 1]).all():
        raise ValueError(f"The label column '{spec.label}' of {file} is not coded 0/1.")
    raw_group = source[spec.attribute].astype(str)
    privileged = raw_group.isin(spec.privileged_values)
    frame = pd.DataFrame(
        {
            "score": source[column].astype(float),
            "label": labels.astype("int64"),
            "group": np.where(privileged, spec.privileged_group, spec.unprivileged_group),
            "raw_group": raw_group,
        },
        index=source.index,
    )
    frame = frame.join(source[list(spec.other_sensitive)])
    if spec.note:
        logger.info("bayesfair: %s: %s", spec.name, spec.note)
    return frame


# ---------------------------------------------------------------------- labeled / unlabeled


class LabeledSplit(NamedTuple):
    """A frame split into a labeled and an unlabeled part (rows in their original order)."""

    labeled: pd.DataFrame
    unlabeled: pd.DataFrame


_SPLIT_METHODS = ("random", "ji2020")


def _check_split_args(frame, n_labeled, method, raw_group) -> tuple[int, str]:
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(
            f"The 'frame' parameter must be a pandas DataFrame. Got {type(frame).__name__}."
        )
    if method not in _SPLIT_METHODS:
        raise ValueError(
            f"The 'method' parameter must be one of {', '.join(map(repr, _SPLIT_METHODS))}. "
            f"Got {method!r} instead.{suggest(str(method), _SPLIT_METHODS)}"
        )
    n = len(frame)
    if isinstance(n_labeled, bool) or not isinstance(n_labeled, int | np.integer):
        raise TypeError(
            f"The 'n_labeled' parameter must be an integer in [1, {n}]. Got {n_labeled!r} instead."
        )
    n_labeled = int(n_labeled)
    if not 1 <= n_labeled <= n:
        raise ValueError(
            f"The 'n_labeled' parameter must be an integer in [1, {n}] (the number of rows). "
            f"Got {n_labeled} instead."
        )
    if method == "ji2020":
        if raw_group not in frame.columns:
            raise ValueError(
                f"Column '{raw_group}' (the 'raw_group' parameter) is not in the frame."
                f"{suggest(raw_group, map(str, frame.columns))} "
                f"Columns: {', '.join(map(str, frame.columns))}."
            )
        n_values = frame[raw_group].nunique(dropna=False)
        if n_labeled < n_values:
            raise ValueError(
                f"With method='ji2020' the 'n_labeled' parameter must be at least the number "
                f"of distinct values of '{raw_group}' ({n_values}), so that every group gets "
                f"a labeled example. Got {n_labeled} instead."
            )
    return n_labeled, method


def split_labeled(
    frame: pd.DataFrame,
    n_labeled: int,
    random_seed: int | np.random.Generator | None = None,
    method: Literal["random", "ji2020"] = "random",
    raw_group: str = "raw_group",
) -> LabeledSplit:
    """Split a frame into a labeled set of ``n_labeled`` rows and an unlabeled rest.

    Parameters
    ----------
    frame : pandas.DataFrame
        The rows to split; not modified.
    n_labeled : int
        Size of the labeled set, in ``[1, len(frame)]``.
    random_seed : int, numpy.random.Generator or None
        Seed of the permutation (``numpy.random.default_rng(random_seed)``).
    method : {"random", "ji2020"}, default "random"
        ``"random"``: the first ``n_labeled`` rows of a random permutation, a
        simple random sample. ``"ji2020"``: as Ji et al.'s authors drew labeled
        sets — permute, move the first row (in permuted order) of every distinct
        value of ``raw_group`` to the front, label the first ``n_labeled`` rows.
        Every raw group then has a labeled example, so ``n_labeled`` must be at
        least the number of distinct values.
    raw_group : str, default "raw_group"
        The column whose values must all be labeled (``"ji2020"`` only).

    Returns
    -------
    LabeledSplit
        ``(labeled, unlabeled)``: disjoint, together all rows of ``frame``, each
        in the original row order with the original index.

    Raises
    ------
    TypeError
        If ``frame`` is not a DataFrame or ``n_labeled`` not an integer.
    ValueError
        For ``n_labeled`` outside ``[1, len(frame)]``, below the number of raw
        groups with ``"ji2020"``, an unknown method or a missing column.

    Notes
    -----
    For one seed the labeled sets are nested: the set of size 10 lies inside the
    set of size 20. The authors permuted with ``sklearn.utils.shuffle`` (NumPy's
    legacy ``RandomState``), so a given seed picks other rows than here; the
    sampling scheme is the same.

    References
    ----------
    Ji, Smyth, Steyvers (2020), §4; the authors' code, ``Dataset.shuffle`` in
    ``src/utils.py`` of ``disiji/bayesian-fairness-assess``.

    Examples
    --------
    >>> frame = pd.DataFrame({"raw_group": list("aaaaaaab"), "score": range(8)})
    >>> labeled, unlabeled = split_labeled(frame, 2, random_seed=0, method="ji2020")
    >>> sorted(labeled["raw_group"])
    ['a', 'b']
    >>> len(unlabeled)
    6
    """
    n_labeled, method = _check_split_args(frame, n_labeled, method, raw_group)
    order = np.random.default_rng(random_seed).permutation(len(frame))
    if method == "ji2020":
        values = frame[raw_group].iloc[order].reset_index(drop=True)
        first = ~values.duplicated(keep="first").to_numpy()
        order = np.concatenate([order[first], order[~first]])
    is_labeled = np.zeros(len(frame), dtype=bool)
    is_labeled[order[:n_labeled]] = True
    # Explicit copies: under pandas 2 without copy-on-write a later assignment to a
    # part would otherwise raise SettingWithCopyWarning.
    return LabeledSplit(frame.iloc[is_labeled].copy(), frame.iloc[~is_labeled].copy())


def load_assessment(
    name: str,
    classifier: str = "MLP",
    n_labeled: int = 100,
    random_seed: int | np.random.Generator | None = 0,
    method: Literal["random", "ji2020"] = "random",
    threshold: float = 0.5,
    *,
    as_in_paper: bool = True,
) -> AssessmentData:
    """Load a score set and split it into a labeled and an unlabeled part.

    Parameters
    ----------
    name, classifier, as_in_paper
        As in :func:`load_scores`.
    n_labeled, random_seed, method
        As in :func:`split_labeled`; the raw sensitive values are the groups
        that ``"ji2020"`` labels at least once.
    threshold : float, default 0.5
        Decision threshold: ``ŷ = 1[score >= threshold]``.

    Returns
    -------
    AssessmentData
        Groups are the binarised ``group`` column, the reference is the
        privileged group, the positive label is 1.

    Examples
    --------
    >>> data = load_assessment("adult-sex", "LR", n_labeled=50, random_seed=1)
    >>> data.n_labeled, data.n_unlabeled, data.reference
    (50, 10004, 'Male')
    """
    spec = get_score_set(name)
    frame = load_scores(name, classifier, as_in_paper=as_in_paper)
    labeled, unlabeled = split_labeled(frame, n_labeled, random_seed, method)
    return AssessmentData.from_frames(
        labeled,
        unlabeled if len(unlabeled) else None,
        score="score",
        label="label",
        group="group",
        threshold=threshold,
        pos_label=spec.positive_label,
        reference=spec.privileged_group,
    )


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
