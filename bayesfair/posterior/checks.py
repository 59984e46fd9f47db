"""A result's calibration check: the table ``FairnessPosterior.calibration_check`` returns.

:func:`result_calibration_check` runs the step-down likelihood-ratio test
(:mod:`bayesfair.posterior.calibration_test`) on the labeled summary a fit keeps
(:mod:`bayesfair.posterior.stored_summary`), once per fit and arguments (kept while the
result lives), and warns with the sentence of
:func:`~bayesfair.posterior.check_words.misfit_message`. Its table has the columns
:data:`CHECK_COLUMNS`; with two groups whose calibrations differ each of the pair not a
misfit has the verdict ``"differs from <the other group>"`` (:func:`name_the_pair`), and
:func:`flagged_groups` reads the groups a table flags.
"""

from __future__ import annotations

import warnings
import weakref

import pandas as pd

from bayesfair._internal.validation import takes
from bayesfair.exceptions import CalibrationWarning, InvalidParameterError
from bayesfair.models.catalogue import models_with_map, named_models_with_map
from bayesfair.posterior.calibration_test import calibration_verdicts
from bayesfair.posterior.check_words import misfit_message

__all__ = [
    "CHECK_COLUMNS",
    "flagged_groups",
    "name_the_pair",
    "result_calibration_check",
    "result_calibration_verdicts",
]

#: The columns of the check's table (:meth:`~bayesfair.FairnessPosterior.calibration_check`).
CHECK_COLUMNS = ("group", "n_labeled", "statistic", "p_value", "p_adjusted", "verdict", "where")
#: Per result, its calibration checks by their arguments (computed once; forgotten with it).
_CHECKS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@takes("FairnessPosterior")
def result_calibration_check(
    result,
    alpha: float = 0.05,
    min_labels: int = 20,
    warn: bool = True,
    stacklevel: int = 3,
) -> pd.DataFrame:
    """The calibration check of a ``bc``/``rbc`` fit (:func:`result_calibration_verdicts`),
    computed once per fit and arguments, with its warning.

    Parameters
    ----------
    result : FairnessPosterior
    alpha, min_labels, warn
        As in :meth:`bayesfair.FairnessPosterior.calibration_check` (the test reads
        neither draws nor random numbers: :mod:`bayesfair.posterior.calibration_test`).
    stacklevel : int, default 3
        Of the ``CalibrationWarning`` (3: the caller of this function, past its
        argument check).

    Returns
    -------
    pandas.DataFrame
    """
    if result.model not in models_with_map():
        raise InvalidParameterError(
            f"The '{result.model}' model has no calibration map to check; "
            f"calibration_check needs a fit of {named_models_with_map()}."
        )
    if not (isinstance(alpha, float | int) and 0 < alpha < 1):
        raise InvalidParameterError(f"The 'alpha' parameter must be in (0, 1). Got {alpha!r}.")
    key = (float(alpha), min_labels)
    cache = _CHECKS.setdefault(result, {})
    if key not in cache:
        cache[key] = result_calibration_verdicts(result, alpha, min_labels)
    out = cache[key].copy()
    out.attrs = dict(cache[key].attrs)
    message = misfit_message(result.model, out, alpha)
    # said once per fit: bayesfair.fit warned with this very sentence (and kept it)
    if warn and message and message not in result.notes:
        warnings.warn(message, CalibrationWarning, stacklevel=stacklevel)
    return out


@takes("FairnessPosterior")
def result_calibration_verdicts(result, alpha, min_labels) -> pd.DataFrame:
    """:func:`~bayesfair.posterior.calibration_test.calibration_verdicts` of the labeled
    summary a fit keeps (``result.labeled_cells()``), one row per group (the computation
    behind :meth:`~bayesfair.posterior.FairnessPosterior.calibration_check`).

    Parameters
    ----------
    result : FairnessPosterior
        A fit of a calibration model (``bc`` or ``rbc``). Its draws are not read:
        the test needs only the labeled examples
        (:mod:`bayesfair.posterior.calibration_test`).
    alpha, min_labels
        As in :func:`~bayesfair.posterior.calibration_test.calibration_verdicts`.

    Returns
    -------
    pandas.DataFrame
        :func:`~bayesfair.posterior.calibration_test.calibration_verdicts`'s table with
        the group labels in a first column ``group``.

    Raises
    ------
    InvalidParameterError
        When the result keeps no labeled examples (saved by an older bayesfair).
    """
    labeled = result.labeled_cells()
    if labeled is None:
        raise InvalidParameterError(
            "This result does not store its labeled examples (saved by an older "
            "bayesfair); refit it to run the calibration check."
        )
    table = calibration_verdicts(labeled, alpha, min_labels)
    table.insert(0, "group", result.groups)
    return name_the_pair(table)


def name_the_pair(table: pd.DataFrame) -> pd.DataFrame:
    """With two tested groups whose calibrations differ (the step-down's
    ``pair_differs``), each group of the pair that is not a ``"misfit"`` has the verdict
    ``"differs from <other>"``: the check found a difference, and the verdict column
    says so, naming the partner (which of the two is off the data cannot say:
    :mod:`bayesfair.posterior.calibration_test`). Other tables are returned as they are.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`~bayesfair.posterior.calibration_test.calibration_verdicts`'s table with a
        ``group`` column.
    """
    if not table.attrs["test"].attrs.get("pair_differs", False):
        return table
    tested = table.index[table["p_value"].notna()].tolist()
    out = table.copy()
    out.attrs = dict(table.attrs)
    for k, other in zip(tested, tested[::-1], strict=True):
        if out.loc[k, "verdict"] != "misfit":
            out.loc[k, "verdict"] = f"differs from {table.loc[other, 'group']}"
    return out


def flagged_groups(table: pd.DataFrame) -> list:
    """The groups a calibration check flags: a ``"misfit"``, or one of a pair whose
    calibrations differ (``"differs from <other>"``, :func:`name_the_pair`: either may be
    the one whose map is off, so both are flagged).

    Parameters
    ----------
    table : pandas.DataFrame
        A calibration check's table (``group`` and ``verdict`` columns).

    Returns
    -------
    list
        The groups, in the table's order.
    """
    verdict = table["verdict"].astype(str)
    hit = (verdict == "misfit") | verdict.str.startswith("differs from")
    return table.loc[hit, "group"].tolist()
