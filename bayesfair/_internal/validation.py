"""Checks of public arguments: one home for each (as scikit-learn's ``utils.validation``).

Every check raises :class:`~bayesfair.exceptions.InvalidParameterError`, which
is both a ``ValueError`` and a ``TypeError`` (as scikit-learn's of the same
name), so an argument of the wrong type and one of the wrong value are caught
the same way whichever function took them.
"""

from __future__ import annotations

import numbers

import numpy as np

from bayesfair._internal.names import suggest
from bayesfair._internal.threads import one_blas_thread
from bayesfair.exceptions import (
    HardPredictionWarning,
    InvalidParameterError,
    UndefinedRateWarning,
)

_SEED_TYPES = "None, a non-negative integer, a numpy SeedSequence or a numpy Generator"


def check_probability(value, argument: str = "ci_prob", *, allow_zero: bool = False) -> float:
    """Return ``value`` as a float, raising unless it is a real number in (0, 1).

    ``allow_zero`` admits 0 (``[0, 1)``), for a confidence level of a bound
    that is defined there (Ethayarajh's ρ).

    Examples
    --------
    >>> check_probability(0.9)
    0.9
    """
    rule = "[0, 1)" if allow_zero else "(0, 1)"
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(
            f"The '{argument}' parameter must be a number in {rule}. Got {value!r} instead."
        )
    out = float(value)
    if not (0.0 <= out < 1.0 if allow_zero else 0.0 < out < 1.0):
        raise InvalidParameterError(
            f"The '{argument}' parameter must be a number in {rule}. Got {value!r} instead."
        )
    return out


def check_epsilon(value, argument: str = "epsilon") -> float:
    """Return ``value`` as a float in ``(0, 1)`` (the half-width of a ROPE).

    A difference of two rates lies in [−1, 1]: with ε ≥ 1 every gap would be
    "practically fair", whatever the data.
    """
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(
            f"The '{argument}' parameter must be a positive, finite number. Got {value!r} of "
            f"type {type(value).__name__} instead."
        )
    value = float(value)
    if not (np.isfinite(value) and value > 0):
        raise InvalidParameterError(
            f"The '{argument}' parameter must be a positive, finite number. Got {value!r}."
        )
    if value >= 1:
        raise InvalidParameterError(
            f"The '{argument}' parameter must be below 1: it is a tolerance on a difference "
            f"of two rates, which lies in [-1, 1], so {value!r} would call every gap "
            "practically fair. Typical values are 0.01 to 0.1."
        )
    return value


def check_positive_int(value, argument: str, minimum: int = 1) -> int:
    """Return ``value`` as an int, raising unless it is an integer ``>= minimum``."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral):
        raise InvalidParameterError(
            f"The '{argument}' parameter must be an integer >= {minimum}. Got {value!r} of "
            f"type {type(value).__name__} instead."
        )
    if value < minimum:
        raise InvalidParameterError(
            f"The '{argument}' parameter must be an integer >= {minimum}. Got {value!r} instead."
        )
    return int(value)


def check_threshold(threshold) -> float:
    """The decision threshold as a float in (0, 1)."""
    if isinstance(threshold, np.ndarray) and threshold.ndim == 0:
        threshold = threshold.item()
    if isinstance(threshold, bool | np.bool_) or not isinstance(threshold, numbers.Real):
        raise InvalidParameterError(
            f"The 'threshold' parameter must be a float in (0, 1). Got {threshold!r} instead."
        )
    t = float(threshold)
    if not 0.0 < t < 1.0:
        raise InvalidParameterError(
            f"The 'threshold' parameter must be a float in (0, 1). Got {threshold!r} instead."
        )
    return t


def check_flag(value, argument: str) -> bool:
    """``value`` if it is a bool (Python's or NumPy's), else raise."""
    if not isinstance(value, bool | np.bool_):
        raise InvalidParameterError(
            f"The '{argument}' parameter must be True or False. Got {value!r} instead."
        )
    return bool(value)


def check_choice(value, options, argument: str):
    """``value`` if it is one of ``options`` (a dict's keys or a sequence), else raise."""
    try:
        known = value in options
    except TypeError:  # an unhashable value is not among a dict's keys
        known = False
    if not known:
        raise InvalidParameterError(
            f"The '{argument}' parameter must be one of {', '.join(map(repr, options))}. "
            f"Got {value!r}."
        )
    return value


def check_positive(value, argument: str, rule: str = "a positive number") -> np.ndarray:
    """Finite numbers above 0 (any shape) as a float array; ``rule`` words the message."""
    arr = np.asarray(value)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.number):
        raise InvalidParameterError(
            f"The '{argument}' parameter must be {rule}. Got {value!r} instead."
        )
    arr = arr.astype(float)
    bad = ~np.isfinite(arr) | (arr <= 0)
    if bad.any():
        first = arr.ravel()[bad.ravel()][0].item()
        raise InvalidParameterError(f"The '{argument}' parameter must be {rule}. Got {first!r}.")
    return arr


def check_count_array(values, argument: str, *, integer: bool = True) -> np.ndarray:
    """Non-negative integer counts of any shape (integer-valued floats accepted), as floats.

    ``integer=False`` accepts any finite non-negative numbers (expected counts,
    pseudo-counts). The message names the first bad value, and its position in
    a 1-d array.
    """
    arr = np.asarray(values)
    if (
        arr.dtype == bool
        or not np.issubdtype(arr.dtype, np.number)
        or np.issubdtype(arr.dtype, np.complexfloating)
    ):
        raise InvalidParameterError(
            f"The '{argument}' parameter must hold non-negative integers. "
            f"Got dtype {arr.dtype} instead."
        )
    as_float = arr.astype(float)
    bad = ~np.isfinite(as_float) | (as_float < 0)
    if integer:
        bad |= as_float != np.floor(as_float)
    if bad.any():
        k = int(np.flatnonzero(bad.ravel())[0])
        where = f" at position {k}" if arr.ndim == 1 else ""
        kind = "integers" if integer else "numbers"
        raise InvalidParameterError(
            f"The '{argument}' parameter must hold non-negative {kind}. "
            f"Got {arr.ravel()[k].item()!r}{where}."
        )
    return as_float


def check_counts(
    successes,
    trials,
    *,
    successes_name: str = "successes",
    trials_name: str = "trials",
    shape: str = "per group",
    integer: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """Successes and trials, with ``0 <= successes <= trials``.

    ``shape``: ``"per group"`` (one count per group: one-dimensional, equal and
    non-zero lengths; returned as int64), ``"same"`` (any equal shapes) or
    ``"broadcast"`` (broadcastable shapes); the last two return floats.
    ``integer=False`` accepts non-integer counts (:func:`check_count_array`).
    """
    x = check_count_array(successes, successes_name, integer=integer)
    n = check_count_array(trials, trials_name, integer=integer)
    if shape == "per group":
        for arr, name in ((x, successes_name), (n, trials_name)):
            if arr.ndim != 1:
                raise InvalidParameterError(
                    f"The '{name}' parameter must be one-dimensional (one count per group). "
                    f"Got shape {arr.shape}."
                )
            if arr.size == 0:
                raise InvalidParameterError(
                    f"The '{name}' parameter is empty: it needs one count per group."
                )
    if shape != "broadcast" and x.shape != n.shape:
        raise InvalidParameterError(
            f"Length mismatch: '{successes_name}' has {x.size} entries and '{trials_name}' has "
            f"{n.size}; they must be equal (one entry per group)."
            if shape == "per group"
            else f"'{successes_name}' and '{trials_name}' must have the same shape. Got "
            f"{x.shape} and {n.shape}."
        )
    try:
        over = np.broadcast_to(x > n, np.broadcast_shapes(x.shape, n.shape))
    except ValueError:
        raise InvalidParameterError(
            f"'{successes_name}' (shape {x.shape}) and '{trials_name}' (shape {n.shape}) do "
            "not broadcast."
        ) from None
    if over.any():
        k = int(np.flatnonzero(over.ravel())[0])
        xs, ns = np.broadcast_to(x, over.shape).ravel(), np.broadcast_to(n, over.shape).ravel()
        more = f" (and {int(over.sum()) - 1} more)" if over.sum() > 1 else ""
        raise InvalidParameterError(
            f"'{successes_name}' must not exceed '{trials_name}'. Got "
            f"{successes_name}={xs[k]:.15g} > {trials_name}={ns[k]:.15g} at position {k}{more}."
        )
    if shape == "per group":
        return x.astype(np.int64), n.astype(np.int64)
    return x, n


def check_pair(levels, default_reference, group=None, reference=None) -> tuple:
    """The ``(group, reference)`` labels of one comparison of a data set's groups.

    ``reference`` defaults to ``default_reference``; ``group`` may be omitted when
    there is exactly one other group. Both are matched as :func:`check_group` does.

    Parameters
    ----------
    levels : list
        The groups.
    default_reference
        The data's reference group.
    group, reference : optional

    Examples
    --------
    >>> check_pair(["a", "b"], "b")
    ('a', 'b')
    """
    reference = (
        default_reference if reference is None else check_group(reference, levels, "reference")
    )
    if group is None:
        others = [x for x in levels if x != reference]
        if len(others) != 1:
            raise InvalidParameterError(
                f"Name the 'group' to compare with {reference!r}: the data have "
                f"{len(levels)} groups."
            )
        group = others[0]
    group = check_group(group, levels)
    if group == reference:
        raise InvalidParameterError(f"The group and the reference are both {group!r}.")
    return group, reference


def check_group(label, levels, argument: str = "group"):
    """The stored group label equal to ``label``, also matching by string (``1`` and ``"1"``).

    Raises with the nearest group name suggested when there is none.

    Examples
    --------
    >>> check_group("1", [0, 1])
    1
    """
    for g in levels:
        if g == label and type(g) is not bool:
            return g
    for g in levels:
        if str(g) == str(label):
            return g
    names = [str(g) for g in levels]
    folded = [g for g in levels if str(g).casefold() == str(label).casefold()]
    if len(folded) == 1:  # 'male' for 'Male': said, not guessed
        raise InvalidParameterError(
            f"Unknown group {label!r} for the '{argument}' parameter: group names are "
            f"case-sensitive; did you mean {str(folded[0])!r}? Groups: {', '.join(names)}."
        )
    raise InvalidParameterError(
        f"Unknown group {label!r} for the '{argument}' parameter.{suggest(str(label), names)} "
        f"Groups: {', '.join(names)}."
    )


def seed_sequence(random_seed, argument: str = "random_seed") -> np.random.SeedSequence:
    """A ``SeedSequence`` from any accepted seed, to spawn independent streams from.

    None gives fresh entropy (recorded by :func:`seed_record`, so the result can
    still be reproduced); an int seeds it; a ``SeedSequence`` is used as it is;
    a ``Generator`` gives entropy drawn from it (so it advances, as a generator
    passed to scikit-learn does).
    """
    if isinstance(random_seed, np.random.SeedSequence):
        return random_seed
    if isinstance(random_seed, np.random.Generator):
        hi, lo = (int(w) for w in random_seed.integers(0, 2**63, size=2))
        return np.random.SeedSequence((hi << 64) | lo)
    if random_seed is None:
        return np.random.SeedSequence()
    return np.random.SeedSequence(_check_seed_int(random_seed, argument))


def check_random_state(random_seed, argument: str = "random_seed") -> np.random.Generator:
    """A ``Generator`` from None, a non-negative int, a ``SeedSequence`` or a ``Generator``.

    A ``Generator`` is returned as it is (the caller's stream advances).

    Examples
    --------
    >>> int(check_random_state(0).integers(10)) == int(check_random_state(0).integers(10))
    True
    """
    if isinstance(random_seed, np.random.Generator):
        return random_seed
    if random_seed is None or isinstance(random_seed, np.random.SeedSequence):
        return np.random.default_rng(random_seed)
    return np.random.default_rng(_check_seed_int(random_seed, argument))


def seed_record(seq: np.random.SeedSequence) -> dict:
    """What reproduces a ``SeedSequence``: its entropy (as a string) and spawn key.

    ``np.random.SeedSequence(int(rec["entropy"]), spawn_key=rec["spawn_key"])``
    rebuilds it; :func:`bayesfair.fit` and :func:`bayesfair.compare` accept it as
    ``random_seed``. The entropy is a string because it may exceed 64 bits
    (netCDF attributes and some JSON readers cannot hold such integers).
    """
    entropy = seq.entropy
    if isinstance(entropy, int | np.integer):
        entropy = str(int(entropy))
    else:  # a sequence of integers, as SeedSequence also accepts
        entropy = [str(int(w)) for w in entropy]
    return {"entropy": entropy, "spawn_key": [int(k) for k in seq.spawn_key]}


#: The packages whose versions a report's provenance lists.
PROVENANCE_PACKAGES = (
    "bayesfair",
    "numpy",
    "scipy",
    "pandas",
    "xarray",
    "pymc",
    "pytensor",
    "arviz",
    "nutpie",
    "duckdb",
)


def run_record(call: str, data) -> dict:
    """What a report's provenance says of the run: the time, the versions, the call, the
    data's size (the command line adds its input files and itself).

    Parameters
    ----------
    call : str
        The Python call, as the user could type it again.
    data : AssessmentData
        The data the call assessed.
    """
    from datetime import UTC, datetime
    from importlib.metadata import PackageNotFoundError, version

    versions = {}
    for name in PROVENANCE_PACKAGES:
        try:
            versions[name] = version(name)
        except PackageNotFoundError:
            continue
    return {
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "versions": versions,
        "call": call,
        "data": {
            "n_labeled": int(data.n_labeled),
            "n_unlabeled": int(data.n_unlabeled),
            "groups": [str(g) for g in data.group_levels],
        },
        "inputs": [],
    }


def sequence_from_record(record, child: int | None = None) -> np.random.SeedSequence:
    """Rebuild the ``SeedSequence`` of a :func:`seed_record` (or its ``child``-th child).

    A missing record (a result saved without one) gives ``SeedSequence(0)``; an int (a
    bare seed) is the entropy of a root sequence.
    """
    if isinstance(record, numbers.Integral):
        record = {"entropy": int(record), "spawn_key": []}
    record = record or {}
    entropy = record.get("entropy", 0)
    entropy = [int(w) for w in entropy] if isinstance(entropy, list) else int(entropy)
    key = tuple(int(k) for k in record.get("spawn_key", ()))
    return np.random.SeedSequence(entropy, spawn_key=key if child is None else (*key, child))


def _check_seed_int(random_seed, argument: str) -> int:
    if isinstance(random_seed, bool | np.bool_) or not isinstance(random_seed, numbers.Integral):
        raise InvalidParameterError(
            f"The '{argument}' parameter must be {_SEED_TYPES}. Got {random_seed!r} instead."
        )
    if random_seed < 0:
        raise InvalidParameterError(
            f"The '{argument}' parameter must be a non-negative integer. Got {random_seed!r}."
        )
    return int(random_seed)


def warn_surprising_examples(scores, labels, pos_label, *, stacklevel: int = 3) -> None:
    """Warn about labeled examples that are valid but would surprise silently.

    Every label the same (rates that need the other class are undefined:
    ``UndefinedRateWarning``), and every score 0 or 1 (hard predictions, which the
    calibration models cannot calibrate: ``HardPredictionWarning``).

    Parameters
    ----------
    scores : ndarray of float
        The labeled examples' scores.
    labels : ndarray of int
        Their labels as 0/1 (1: ``pos_label``).
    pos_label
        The positive label as the user gave it (for the message).
    stacklevel : int, default 3
        Of the warnings: 3 points at the caller of the function that calls this.
    """
    import warnings

    scores = np.asarray(scores, dtype=float)
    labels = np.asarray(labels)
    if labels.size and np.all(labels == labels.flat[0]):
        which = f"positive ({pos_label!r})" if labels.flat[0] == 1 else "negative"
        warnings.warn(
            f"Every labeled example is {which}: the rates that need the other class "
            "(TPR or FPR, PPV or NPV, …) are undefined.",
            UndefinedRateWarning,
            stacklevel=stacklevel,
        )
    if scores.size and np.all((scores == 0) | (scores == 1)):
        warnings.warn(
            "Every labeled score is 0 or 1: these look like hard predictions, not scores. "
            "Rates and the beta-binomial models are fine; the calibration models have "
            "nothing to calibrate (pass the classifier's probabilities to use them).",
            HardPredictionWarning,
            stacklevel=stacklevel,
        )


def renamed(**old_to_new):
    """Accept the name a published call uses for a parameter now spelt otherwise.

    The package's vocabulary is ``n_resamples`` and ``ci_prob``; four published calls
    spell them ``n_boot`` (``double_corrected_bootstrap`` and its ``_counts`` form)
    and ``confidence`` (``bernstein_half_width``, ``bernstein_required_n``), and keep
    working. ``@renamed(n_boot="n_resamples")``: a call with ``n_boot=`` passes the
    value on with a ``FutureWarning`` that names the current spelling; giving both
    names is an error. The signature shows the current name only. It is the package's
    one use of ``FutureWarning``.

    Parameters
    ----------
    **old_to_new : str
        The old names, each mapped to its new name.
    """
    import functools
    import warnings

    def wrap(func):
        @functools.wraps(func)
        def run(*args, **kwargs):
            for old, new in old_to_new.items():
                if old not in kwargs:
                    continue
                if new in kwargs:
                    raise InvalidParameterError(
                        f"Give '{new}' only: '{old}' is its old name. Got both."
                    )
                warnings.warn(
                    f"'{old}' is the earlier spelling of '{new}', which the package's "
                    f"other functions use: write '{new}'.",
                    FutureWarning,
                    stacklevel=2,
                )
                kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)

        return run

    return wrap


#: What :func:`takes` checks an argument for: attributes each kind of object has.
_KINDS = {
    "AssessmentData": ("labeled_examples", "group_levels"),
    "FairnessPosterior": ("rates", "idata", "model"),
    "PeriodPosterior": ("fits", "periods", "rate_draws"),
    "Comparison": ("pairs", "posteriors", "settings"),
}


def takes(kind: str):
    """Decorate a function whose first argument must be an ``AssessmentData``, a
    ``FairnessPosterior`` or a ``Comparison``: anything else raises
    :class:`~bayesfair.exceptions.InvalidParameterError` naming the argument, instead of
    an ``AttributeError`` from deep inside.

    The check is by the attributes the kind has (this module sits below the classes);
    an object that has them is taken as one. The function then runs with one BLAS
    thread (:mod:`bayesfair._internal.threads`: why), and the caller's setting is back
    when it returns.

    Parameters
    ----------
    kind : {"AssessmentData", "FairnessPosterior", "Comparison"}
    """
    import functools
    import inspect

    need = _KINDS[kind]

    def wrap(func):
        name = next(iter(inspect.signature(func).parameters))

        @functools.wraps(func)
        def run(*args, **kwargs):
            obj = args[0] if args else kwargs.get(name)
            if not all(hasattr(obj, attr) for attr in need):
                raise InvalidParameterError(
                    f"The '{name}' parameter must be a {kind}. Got {type(obj).__name__}."
                )
            with one_blas_thread():
                return func(*args, **kwargs)

        return run

    return wrap


def check_array(
    values, argument: str, *, ndim=None, min_ndim: int = 0, dtype=float, numeric: bool = True
):
    """An array of real numbers (bool, integer or float), or raise naming ``argument``.

    The check at the top of the public functions that take draws, counts or
    values: a string, None, a dict, a ragged nested list, an array of strings,
    of complex numbers or of dates raise
    :class:`~bayesfair.exceptions.InvalidParameterError` saying what the
    parameter must be, instead of NumPy's error from deep inside. The values
    themselves are not checked: NaN and infinities pass (functions that drop
    undefined draws keep doing so), and so do negative or fractional numbers
    (:func:`check_count_array`, :func:`check_positive`).

    Parameters
    ----------
    values : array_like
        The argument as the user gave it.
    argument : str
        Its name, for the message.
    ndim : int, optional
        The number of dimensions it must have (0: a single number).
    min_ndim : int, default 0
        The fewest dimensions it may have (1 for a function over the last axis).
    dtype : {float, None}, default float
        What to return: ``np.asarray(values, dtype=float)``, what the public
        functions computed before this check (so their results are unchanged),
        or with None ``np.asarray(values)`` in its own dtype.
    numeric : bool, default True
        False checks only that NumPy reads ``values`` as a rectangular array
        (of the dimensions asked) and returns ``np.asarray(values)``: for a
        caller whose own check of the values follows (:func:`check_counts`,
        :func:`check_positive`), whose messages say more ("non-negative
        integers") but which cannot read a ragged list.

    Returns
    -------
    numpy.ndarray
        Without a copy when ``values`` is already an array of that dtype. An
        array of Python objects (numbers and None, as pandas' nullable columns
        give) is converted as NumPy converts it (None becomes NaN).

    Examples
    --------
    >>> check_array([1, 2], "values")
    array([1., 2.])
    >>> try:
    ...     check_array(["a", "b"], "values")
    ... except InvalidParameterError as err:
    ...     print(err)
    The 'values' parameter must be an array of numbers. Got list ['a', 'b'], which holds strings.
    """
    import reprlib
    from collections.abc import Mapping, Set

    def got(holds: str = "") -> str:
        if values is None:
            return "None"
        if hasattr(values, "dtype") and hasattr(values, "shape"):  # arrays, Series
            text = f"{type(values).__name__} of dtype {values.dtype} and shape {values.shape}"
        else:
            text = f"{type(values).__name__} {reprlib.repr(values)}"
        return f"{text}, which holds {holds}" if holds else text

    rule = f"The '{argument}' parameter must be an array of numbers."
    if numeric and (values is None or isinstance(values, str | bytes | Mapping | Set)):
        raise InvalidParameterError(f"{rule} Got {got()}.")
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError) as err:
        why = "nested lists of different lengths" if "inhomogeneous" in str(err) else str(err)
        raise InvalidParameterError(
            f"The '{argument}' parameter must be a rectangular array of numbers. Got "
            f"{got()}: {why}."
        ) from None
    kind = arr.dtype.kind
    if not numeric or kind in "biuf":
        pass
    elif kind == "O":  # Python objects: numbers (and None) are read as NumPy reads them
        if any(isinstance(v, str | bytes) for v in arr.flat):
            raise InvalidParameterError(f"{rule} Got {got('strings')}.")
        try:
            as_float = np.asarray(values, dtype=float)
        except (TypeError, ValueError):
            raise InvalidParameterError(f"{rule} Got {got()}.") from None
    else:
        holds = {"c": "complex numbers", "M": "dates", "m": "durations", "V": "records"}
        raise InvalidParameterError(f"{rule} Got {got(holds.get(kind, 'strings'))}.")
    if ndim is not None and arr.ndim != ndim:
        shape = "a single number" if ndim == 0 else f"{ndim}-dimensional"
        raise InvalidParameterError(
            f"The '{argument}' parameter must be {shape}. Got shape {arr.shape}."
        )
    if arr.ndim < min_ndim:
        raise InvalidParameterError(
            f"The '{argument}' parameter must be at least {min_ndim}-dimensional. Got shape "
            f"{arr.shape}."
        )
    if dtype is None or not numeric:
        return arr
    return as_float if kind == "O" else arr.astype(float, copy=False)
