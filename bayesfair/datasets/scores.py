"""The score sets of Ji et al. (2020) and their labeled / unlabeled splits."""

from __future__ import annotations

import logging
from typing import Literal, NamedTuple

import numpy as np
import pandas as pd

from bayesfair._internal.names import suggest
from bayesfair.data.assessment import AssessmentData
from bayesfair.datasets._files import _verified_path
from bayesfair.datasets.registry import _score_column, get_score_set
from bayesfair.exceptions import InvalidParameterError

logger = logging.getLogger("bayesfair")

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
        raise InvalidParameterError(f"The label column '{spec.label}' of {file} is not coded 0/1.")
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
        raise InvalidParameterError(
            f"The 'frame' parameter must be a pandas DataFrame. Got {type(frame).__name__}."
        )
    if method not in _SPLIT_METHODS:
        raise InvalidParameterError(
            f"The 'method' parameter must be one of {', '.join(map(repr, _SPLIT_METHODS))}. "
            f"Got {method!r} instead.{suggest(str(method), _SPLIT_METHODS)}"
        )
    n = len(frame)
    if isinstance(n_labeled, bool) or not isinstance(n_labeled, int | np.integer):
        raise InvalidParameterError(
            f"The 'n_labeled' parameter must be an integer in [1, {n}]. Got {n_labeled!r} instead."
        )
    n_labeled = int(n_labeled)
    if not 1 <= n_labeled <= n:
        raise InvalidParameterError(
            f"The 'n_labeled' parameter must be an integer in [1, {n}] (the number of rows). "
            f"Got {n_labeled} instead."
        )
    if method == "ji2020":
        if raw_group not in frame.columns:
            raise InvalidParameterError(
                f"Column '{raw_group}' (the 'raw_group' parameter) is not in the frame."
                f"{suggest(raw_group, map(str, frame.columns))} "
                f"Columns: {', '.join(map(str, frame.columns))}."
            )
        n_values = frame[raw_group].nunique(dropna=False)
        if n_labeled < n_values:
            raise InvalidParameterError(
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
    random_seed: int | np.random.Generator | None = None,
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
