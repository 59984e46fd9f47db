"""The rate catalogue: confusion counts -> group rates -> fairness composites.

Everything in bayesfair is per-group confusion counts. A *rate* is a ratio of
sums of the four counts ``tp, fp, tn, fn``; each rate declares its numerator
and denominator once, here, and every layer (frequentist tables, the Bayesian
posterior, the bootstrap) computes it through :func:`rate_from_counts`.

Counts arrays have the four counts on their **last** axis, in the order of
:data:`COUNT_NAMES`, and any leading shape, e.g. ``(group, 4)`` for observed
counts or ``(chain, draw, group, 4)`` for posterior draws of counts.

A rate whose denominator is zero is undefined: it is ``NaN``, never 0.

References
----------
Majumder, Chakraborty, Bai, Stolee, Menzies. *Fair Enough: Searching for
Sufficient Measures of Fairness*, Table 1 (composites C0-C15, ideal values)
and §4 (the AIF360 fair ranges [-0.1, 0.1] and [0.8, 1.2]).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Literal

import numpy as np

from bayesfair._internal.names import resolve_name
from bayesfair._internal.validation import check_array
from bayesfair.exceptions import InvalidParameterError, UndefinedRateWarning
from bayesfair.metrics.scores import SCORE_METRICS, ScoreMetric

__all__ = [
    "CALIBRATION_COLUMNS",
    "COMPOSITES",
    "COUNT_NAMES",
    "RATES",
    "Composite",
    "Rate",
    "composite_value",
    "get_composite",
    "get_metric",
    "get_rate",
    "rate_fraction",
    "rate_from_counts",
    "undefined_rate_message",
    "warn_undefined_draws",
]

#: The columns of a calibration-within-groups table, in order: the Bayesian
#: :func:`~bayesfair.posterior.calibration_view.calibration_summary` and, up to ``decision``,
#: the frequentist :func:`~bayesfair.frequentist.calibration_intervals`.
CALIBRATION_COLUMNS = [
    "group",
    "n_labeled",
    "mean_score",
    "positive_rate",
    "positive_rate_lower",
    "positive_rate_upper",
    "calibration_gap",
    "calibration_gap_lower",
    "calibration_gap_upper",
    "decision",
    "n_unlabeled",
    "prob_within",
]

#: Order of the confusion counts on the last axis of every counts array.
COUNT_NAMES: tuple[str, ...] = ("tp", "fp", "tn", "fn")
_INDEX = {name: i for i, name in enumerate(COUNT_NAMES)}
_ALL = COUNT_NAMES


@dataclass(frozen=True)
class Rate:
    """A group rate declared as ``sum(numerator counts) / sum(denominator counts)``.

    Attributes
    ----------
    name : str
        Canonical short name, e.g. ``"tpr"``.
    label : str
        Human-readable name, e.g. ``"true positive rate"``.
    numerator, denominator : tuple of str
        Names from :data:`COUNT_NAMES` summed in the numerator and denominator.
    higher_is_better : bool or None
        Whether a higher rate is a better outcome for the group (``None`` when
        the rate has no direction, e.g. selection rate or base rate).
    """

    name: str
    label: str
    numerator: tuple[str, ...]
    denominator: tuple[str, ...]
    higher_is_better: bool | None

    @property
    def numerator_index(self) -> list[int]:
        return [_INDEX[c] for c in self.numerator]

    @property
    def denominator_index(self) -> list[int]:
        return [_INDEX[c] for c in self.denominator]


_RATE_LIST = [
    Rate("accuracy", "accuracy", ("tp", "tn"), _ALL, True),
    Rate("error_rate", "error rate", ("fp", "fn"), _ALL, False),
    Rate("tpr", "true positive rate (recall)", ("tp",), ("tp", "fn"), True),
    Rate("fnr", "false negative rate", ("fn",), ("tp", "fn"), False),
    Rate("fpr", "false positive rate", ("fp",), ("fp", "tn"), False),
    Rate("tnr", "true negative rate (specificity)", ("tn",), ("fp", "tn"), True),
    Rate("ppv", "positive predictive value (precision)", ("tp",), ("tp", "fp"), True),
    Rate("fdr", "false discovery rate", ("fp",), ("tp", "fp"), False),
    Rate("npv", "negative predictive value", ("tn",), ("tn", "fn"), True),
    Rate("for", "false omission rate", ("fn",), ("tn", "fn"), False),
    Rate("selection_rate", "selection rate", ("tp", "fp"), _ALL, None),
    Rate("base_rate", "base rate (prevalence)", ("tp", "fn"), _ALL, None),
]

#: The rate catalogue, by canonical name.
RATES: dict[str, Rate] = {r.name: r for r in _RATE_LIST}

_RATE_ALIASES = {
    "recall": "tpr",
    "sensitivity": "tpr",
    "specificity": "tnr",
    "precision": "ppv",
    "prevalence": "base_rate",
    "false_omission_rate": "for",
    "false_discovery_rate": "fdr",
    "error": "error_rate",
    "sr": "selection_rate",
    "roc_auc": "auc",
    "subgroup_auc": "auc",
}


def get_rate(name: str) -> Rate:
    """Look up a rate by name or alias; an unknown name raises with a suggestion.

    Examples
    --------
    >>> get_rate("recall").name
    'tpr'
    >>> get_rate("tpr_")
    Traceback (most recent call last):
    ...
    bayesfair.exceptions.InvalidParameterError: Unknown metric 'tpr_'. Did you mean 'tpr'? ...
    """
    found = get_metric(name)
    if isinstance(found, ScoreMetric):
        raise InvalidParameterError(
            f"'{found.name}' ({found.label}) is read from the scores along every threshold, "
            "not from the counts at one: the posterior gives it (res.difference, "
            "res.summary); on the labeled rows bayesfair.frequentist.auc_difference gives the "
            "AUC's gap."
        )
    return found


def get_metric(name: str) -> Rate | ScoreMetric:
    """Look up a rate or a score metric (:data:`~bayesfair.metrics.scores.SCORE_METRICS`)
    by name or alias: the one catalogue of what a posterior can report per group.

    Examples
    --------
    >>> get_metric("roc_auc").name, get_metric("recall").name
    ('auc', 'tpr')
    """
    catalogue = {**RATES, **SCORE_METRICS}
    canonical = resolve_name(
        name, catalogue, aliases=_RATE_ALIASES, what="metric", argument="metric"
    )
    return catalogue[canonical]


def rate_fraction(counts, metric: str) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(numerator, denominator)`` of a rate from a counts array.

    Parameters
    ----------
    counts : array_like, shape (..., 4)
        Confusion counts in the order of :data:`COUNT_NAMES`; may be real-valued
        (expected counts from a posterior draw).
    metric : str
        A name from :data:`RATES` or an alias.
    """
    counts = check_array(counts, "counts")
    rate = get_rate(metric)
    if counts.shape[-1:] != (4,):
        raise InvalidParameterError(
            f"The 'counts' array must have the 4 confusion counts {COUNT_NAMES} on its last "
            f"axis. Got shape {counts.shape} instead."
        )
    num = counts[..., rate.numerator_index].sum(axis=-1)
    den = counts[..., rate.denominator_index].sum(axis=-1)
    return num, den


def rate_from_counts(counts, metric: str) -> np.ndarray:
    """Compute a rate from counts; ``NaN`` where the denominator is zero.

    No warning is issued here: callers that know the group labels warn with
    them (see :meth:`bayesfair.AssessmentData.rates`).

    Parameters
    ----------
    counts : array_like, shape (..., 4)
        Confusion counts in the order of :data:`COUNT_NAMES`; may be real-valued
        (expected counts from a posterior draw).
    metric : str
        A name from :data:`RATES` or an alias.

    Returns
    -------
    numpy.ndarray, shape (...)
        The rate, a proportion in [0, 1] for non-negative counts; NaN where the
        denominator is not positive.

    Examples
    --------
    >>> rate_from_counts([[8, 1, 9, 2], [0, 3, 7, 0]], "tpr")
    array([0.8, nan])
    """
    num, den = rate_fraction(counts, metric)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def undefined_rate_message(rate, groups) -> str:
    """The one message for a rate that is undefined (zero denominator) in some groups.

    ``rate`` is a :class:`~bayesfair.metrics.Rate` (or its name); ``groups`` the
    groups concerned. Callers add what they do about it in a second sentence.

    Parameters
    ----------
    rate : Rate or str
        The rate, or its name or alias (:func:`get_rate`).
    groups : iterable
        The labels of the groups where it is undefined.

    Returns
    -------
    str

    Examples
    --------
    >>> print(undefined_rate_message("fpr", ["A"]))  # doctest: +NORMALIZE_WHITESPACE
    The false positive rate ('fpr') is undefined for group(s) ['A']: its
    denominator (fp + tn) is 0 there.
    """
    rate = get_rate(rate) if isinstance(rate, str) else rate
    return (
        f"The {rate.label} ('{rate.name}') is undefined for group(s) {list(groups)}: its "
        f"denominator ({' + '.join(rate.denominator)}) is 0 there."
    )


def warn_undefined(values, groups, metric: str, stacklevel: int = 2) -> None:
    """Warn, naming the groups, where a rate is undefined (zero denominator)."""
    values = np.asarray(values)
    bad = [g for g, v in zip(groups, values, strict=True) if np.isnan(v)]
    if bad:
        warnings.warn(
            f"{undefined_rate_message(metric, bad)} It is reported as NaN.",
            UndefinedRateWarning,
            stacklevel=stacklevel + 1,
        )


# ---------------------------------------------------------------------------
# Composites (Fair Enough, Table 1)
# ---------------------------------------------------------------------------

#: AIF360 fair ranges (Majumder et al. §4), by the ideal value of a composite.
FAIR_RANGES: dict[float, tuple[float, float]] = {0.0: (-0.1, 0.1), 1.0: (0.8, 1.2)}


@dataclass(frozen=True)
class Composite:
    """A fairness composite of one unprivileged and one privileged group.

    Attributes
    ----------
    name : str
        AIF360/Fair-Enough name, e.g. ``"average_odds_difference"``.
    kind : {"difference", "ratio", "average_odds", "average_abs_odds"}
        How the group rates combine.
    rates : tuple of str
        The rates it uses (two for the odds composites).
    ideal : float
        The value at which both groups are treated equally (0 or 1).
    mid : str
        The metric id in Majumder et al. Table 1.
    """

    name: str
    kind: Literal["difference", "ratio", "average_odds", "average_abs_odds"]
    rates: tuple[str, ...]
    ideal: float
    mid: str

    @property
    def fair_range(self) -> tuple[float, float]:
        """The AIF360 range in which the composite counts as fair."""
        return FAIR_RANGES[self.ideal]


_COMPOSITE_LIST = [
    Composite("true_positive_rate_difference", "difference", ("tpr",), 0.0, "C0"),
    Composite("false_positive_rate_difference", "difference", ("fpr",), 0.0, "C1"),
    Composite("false_negative_rate_difference", "difference", ("fnr",), 0.0, "C2"),
    Composite("false_omission_rate_difference", "difference", ("for",), 0.0, "C3"),
    Composite("false_discovery_rate_difference", "difference", ("fdr",), 0.0, "C4"),
    Composite("false_positive_rate_ratio", "ratio", ("fpr",), 1.0, "C5"),
    Composite("false_negative_rate_ratio", "ratio", ("fnr",), 1.0, "C6"),
    Composite("false_omission_rate_ratio", "ratio", ("for",), 1.0, "C7"),
    Composite("false_discovery_rate_ratio", "ratio", ("fdr",), 1.0, "C8"),
    Composite("average_odds_difference", "average_odds", ("fpr", "tpr"), 0.0, "C9"),
    Composite("average_abs_odds_difference", "average_abs_odds", ("fpr", "tpr"), 0.0, "C10"),
    Composite("error_rate_difference", "difference", ("error_rate",), 0.0, "C11"),
    Composite("error_rate_ratio", "ratio", ("error_rate",), 1.0, "C12"),
    Composite("disparate_impact", "ratio", ("selection_rate",), 1.0, "C14"),
    Composite("statistical_parity_difference", "difference", ("selection_rate",), 0.0, "C15"),
    Composite("equal_opportunity_difference", "difference", ("tpr",), 0.0, "C0"),
    Composite("accuracy_difference", "difference", ("accuracy",), 0.0, "-"),
]

#: The Fair-Enough composites, by name.
COMPOSITES: dict[str, Composite] = {c.name: c for c in _COMPOSITE_LIST}

_COMPOSITE_ALIASES = {
    "aod": "average_odds_difference",
    "eod": "equal_opportunity_difference",
    "spd": "statistical_parity_difference",
    "di": "disparate_impact",
}


def get_composite(name: str) -> Composite:
    """Look up a composite by name or alias; an unknown name raises with a suggestion."""
    canonical = resolve_name(
        name, COMPOSITES, aliases=_COMPOSITE_ALIASES, what="composite", argument="name"
    )
    return COMPOSITES[canonical]


def composite_value(name: str, group: dict, reference: dict) -> np.ndarray:
    """Evaluate a composite from the rates of the two groups.

    Parameters
    ----------
    name : str
        A name from :data:`COMPOSITES`.
    group, reference : dict of str to array_like
        The rates the composite needs (see ``Composite.rates``) of the compared group
        (Majumder et al.'s "unprivileged" one) and of the reference ("privileged");
        arrays broadcast, so posterior draws work as well as point estimates.

    Returns
    -------
    numpy.ndarray
        ``group - reference`` for differences, ``group / reference`` for ratios
        (NaN where the reference's rate is 0), and the (absolute) average odds
        difference of Majumder et al. C9/C10.

    Examples
    --------
    >>> float(composite_value("average_odds_difference",
    ...                       {"fpr": 0.25, "tpr": 0.75}, {"fpr": 0.125, "tpr": 0.5}))
    0.1875
    """
    comp = get_composite(name)
    u = {r: np.asarray(group[r], dtype=float) for r in comp.rates}
    p = {r: np.asarray(reference[r], dtype=float) for r in comp.rates}
    if comp.kind == "difference":
        (r,) = comp.rates
        return np.asarray(u[r] - p[r])
    if comp.kind == "ratio":
        (r,) = comp.rates
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(p[r] > 0, u[r] / np.where(p[r] > 0, p[r], 1.0), np.nan)
    diffs = [u[r] - p[r] for r in comp.rates]
    if comp.kind == "average_odds":
        return np.asarray(0.5 * (diffs[0] + diffs[1]))
    return np.asarray(0.5 * (np.abs(diffs[0]) + np.abs(diffs[1])))


def warn_undefined_draws(shares, what: str = "The summary", stacklevel: int = 2) -> None:
    """One warning for posterior draws set aside because a quantity is undefined in them.

    ``shares`` maps a description ("tpr of B vs A") to the share of draws in which
    it is undefined (a group with no example in the rate's denominator in that
    draw); entries with share 0 are left out, and nothing is said if none is left.
    ``what`` names the result that is over the defined draws.

    Parameters
    ----------
    shares : dict of str to float
        Description of a quantity to the share of draws in which it is
        undefined, in [0, 1] (written as a percentage with one decimal).
    what : str, default "The summary"
        The result computed over the defined draws, the subject of a sentence.
    stacklevel : int, default 2
        As :func:`warnings.warn`'s, counted from the caller of this function
        (2: the warning points at the caller's caller).

    Warns
    -----
    UndefinedRateWarning
        When some share is positive.
    """
    said = [f"{name} in {share:.1%}" for name, share in shares.items() if share > 0]
    if said:
        warnings.warn(
            f"Some posterior draws are undefined ({'; '.join(said)} of them: a group with "
            f"no example in the rate's denominator there). {what} is over the defined "
            "draws; 'p_undefined' (summary(), prob_undefined()) gives the share set aside.",
            UndefinedRateWarning,
            stacklevel=stacklevel + 1,
        )
