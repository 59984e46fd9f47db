"""The frequentist methods of a comparison's pairs, registered like the models.

Each method beside the Bayesian models is one :class:`PairMethod` in
:data:`PAIR_METHODS`: its name, its words in a note, the statistics the wide pair
table shows, the label selections after which its interval still holds, and the
function that computes its estimate of one pair's gap. :func:`~bayesfair.compare`
orchestrates (one :class:`PairContext` per metric, every registered method per pair);
each method computes here, from :mod:`bayesfair.frequentist`; the sentences a pair's
note holds are :mod:`bayesfair.report.prose`'s.

The methods, in the order of their columns:

- ``newcombe``: Newcombe's hybrid score interval of the difference (Newcombe 1998);
- ``bootstrap``: the percentile bootstrap of the labeled rows, left empty where a group
  has fewer than :data:`MIN_BOOTSTRAP_TRIALS` labeled examples in the rate's
  denominator or resamples to itself (0 or all successes);
- ``ppi``: prediction-powered inference, PPI++ (Angelopoulos et al. 2023), with the
  unlabeled scores;
- ``bernstein``: Ethayarajh's (2020) Bernstein interval, clipped to [−1, 1];
- ``proxy_weighted`` and ``proxy_bounds``: for groups known as a proxy's probabilities,
  the weighted estimator and the bounds without a linking assumption.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from bayesfair import frequentist as fq
from bayesfair.exceptions import SparseStratumWarning
from bayesfair.frequentist.bootstrap import resamples_to_itself
from bayesfair.metrics.rates import UndefinedRateWarning
from bayesfair.models.catalogue import MODEL_SPECS
from bayesfair.report import prose

#: Fewest labeled examples in a rate's denominator, in each group of a pair, for its
#: percentile-bootstrap interval: below it a group's resampled rate takes at most
#: ``n + 1`` values, the percentiles fall on a few of them, and the interval is as
#: coarse as the data (with 1–3 labels it covered 15 of 21 truths in a user's run).
MIN_BOOTSTRAP_TRIALS = 10

#: The label selections (:func:`bayesfair.suggest_labels`' ``within``, and "random").
SELECTIONS = ("random", "stratum", "score", "mixed")


@dataclass(frozen=True)
class PairContext:
    """What every method reads for one metric's pairs.

    Parameters
    ----------
    data : AssessmentData
    metric : str
    rates : pandas.DataFrame
        Each group's labeled ``successes`` and ``trials`` of the rate
        (:func:`bayesfair.frequentist.rate_intervals`).
    diffs : pandas.DataFrame
        Each pair's frequency estimate with Newcombe's and the bootstrap's intervals
        (:func:`bayesfair.frequentist.difference_intervals`), indexed by pair.
    ci_prob : float
    ppi_seed : numpy.random.SeedSequence
        PPI++'s cross-fitting folds (the same for every pair and rate).
    """

    data: object
    metric: str
    rates: pd.DataFrame
    diffs: pd.DataFrame
    ci_prob: float
    ppi_seed: object


@dataclass(frozen=True)
class PairMethod:
    """A frequentist method of a pair's gap.

    Parameters
    ----------
    name : str
        Its key in the tables (``"newcombe"``).
    words : str
        Its name in a sentence (``"Newcombe"``).
    stats : tuple of str
        The statistics the wide pair table shows, in order.
    valid_after : tuple of str
        The selections of the labeled rows after which its interval holds.
    compute : callable
        ``compute(context, pair) -> (statistics, notes)``: its estimate of the pair's gap
        (keys among ``estimate, lower, upper, half_width, effective_n``) and the
        sentences for the pair's note.
    needs_proxy : bool
        Whether it exists only for groups known as a proxy's probabilities.
    """

    name: str
    words: str
    stats: tuple
    valid_after: tuple
    compute: Callable
    needs_proxy: bool = False


def _newcombe(context: PairContext, pair) -> tuple[dict, list]:
    row = context.diffs.loc[pair]
    stats = {
        "estimate": row["estimate"],
        "lower": row["newcombe_lower"],
        "upper": row["newcombe_upper"],
    }
    return stats, []


def _bootstrap(context: PairContext, pair) -> tuple[dict, list]:
    row, rates = context.diffs.loc[pair], context.rates
    few = [x for x in pair if 0 < rates.loc[x, "trials"] < MIN_BOOTSTRAP_TRIALS]
    # a group of 0 or all successes resamples to itself (fq.bootstrap_difference)
    fixed = [
        x
        for x in pair
        if x not in few and resamples_to_itself(rates.loc[x, "successes"], rates.loc[x, "trials"])
    ]
    # a handful of labels: the resamples take a few values; Newcombe's still holds
    lower, upper = (np.nan, np.nan) if few else (row["bootstrap_lower"], row["bootstrap_upper"])
    notes = []
    if few:
        notes.append(prose.few_for_bootstrap(few, MIN_BOOTSTRAP_TRIALS))
    if fixed:
        notes.append(prose.fixed_for_bootstrap(fixed))
    return {"estimate": row["estimate"], "lower": lower, "upper": upper}, notes


def _ppi(context: PairContext, pair) -> tuple[dict, list]:
    """PPI++ estimate, interval and effective n (NaN without unlabeled data), and what it
    warned about a sparse stratum (an undefined rate is stated in the note already)."""
    data = context.data
    stats = dict.fromkeys(["estimate", "lower", "upper", "effective_n"], np.nan)
    if data.n_unlabeled == 0:
        return stats, []
    if data.labeled_is_summary:  # PPI++ cross-fits its predictions on the labeled rows
        return stats, [prose.PPI_NEEDS_ROWS]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("ignore", UndefinedRateWarning)
        warnings.simplefilter("always", SparseStratumWarning)
        res = fq.ppi_difference(
            data,
            context.metric,
            group=pair[0],
            reference=pair[1],
            ci_prob=context.ci_prob,
            random_seed=context.ppi_seed,
        )
    notes = [f"PPI++: {w.message}" for w in caught if w.category is SparseStratumWarning]
    lo, hi = res.interval
    # a difference of two rates lies in [-1, 1]: a normal interval of a few labels can
    # run past it; clipped, and said
    stats.update(estimate=res.estimate, lower=max(lo, -1.0), upper=min(hi, 1.0))
    if lo < -1.0 or hi > 1.0:
        notes.append(prose.ppi_clipped(lo, hi))
    stats["effective_n"] = res.effective_n
    return stats, notes


def _bernstein(context: PairContext, pair) -> tuple[dict, list]:
    row = context.diffs.loc[pair]
    try:
        b = fq.bernstein_interval(
            context.data, context.metric, group=pair[0], reference=pair[1], ci_prob=context.ci_prob
        )
        # a difference of two rates lies in [-1, 1]: clip, and keep the half-width
        bounds = (max(b.interval[0], -1.0), min(b.interval[1], 1.0), b.half_width)
    except ValueError:  # undefined rate in one of the groups
        bounds = (np.nan, np.nan, np.nan)
    stats = {"estimate": row["estimate"], "lower": bounds[0], "upper": bounds[1]}
    return {**stats, "half_width": bounds[2]}, []


#: The proxy comparators' seed: fixed, so that a report is reproducible as its resamples.
PROXY_SEED = 0


def _proxy_weighted(context: PairContext, pair) -> tuple[dict, list]:
    w = fq.proxy_weighted_difference(
        context.data, context.metric, *pair, ci_prob=context.ci_prob, random_seed=PROXY_SEED
    )
    return {"estimate": w.estimate, "lower": w.interval[0], "upper": w.interval[1]}, []


def _proxy_bounds(context: PairContext, pair) -> tuple[dict, list]:
    b = fq.proxy_bounds(
        context.data, context.metric, *pair, ci_prob=context.ci_prob, random_seed=PROXY_SEED
    )
    return {"lower": b.interval[0], "upper": b.interval[1]}, []


#: The methods, in the order of their columns and records.
PAIR_METHODS: dict[str, PairMethod] = {
    method.name: method
    for method in (
        PairMethod("newcombe", "Newcombe", ("lower", "upper"), ("random",), _newcombe),
        PairMethod("bootstrap", "bootstrap", ("lower", "upper"), ("random",), _bootstrap),
        PairMethod(
            "ppi",
            "PPI++",
            ("estimate", "lower", "upper", "effective_n"),
            ("random", "stratum"),
            _ppi,
        ),
        PairMethod(
            "bernstein", "Bernstein", ("lower", "upper", "half_width"), ("random",), _bernstein
        ),
        PairMethod(
            "proxy_weighted",
            "the proxy-weighted estimator",
            ("estimate", "lower", "upper"),
            SELECTIONS,
            _proxy_weighted,
            needs_proxy=True,
        ),
        PairMethod(
            "proxy_bounds",
            "the proxy bounds",
            ("lower", "upper"),
            SELECTIONS,
            _proxy_bounds,
            needs_proxy=True,
        ),
    )
}


def pair_method_records(context: PairContext, pair) -> tuple[list[dict], list[str]]:
    """Every registered method's record of one pair's gap, and the sentences of its note.

    Parameters
    ----------
    context : PairContext
    pair : tuple
        ``(group, reference)``.

    Returns
    -------
    records : list of dict
        One per method (``metric, group, reference, method`` and its statistics), in the
        order of :data:`PAIR_METHODS`; the proxy methods only for data with group
        probabilities.
    notes : list of str
    """
    records, notes = [], []
    for method in PAIR_METHODS.values():
        if method.needs_proxy and context.data.proxy is None:
            continue
        stats, said = method.compute(context, pair)
        key = {"metric": context.metric, "group": pair[0], "reference": pair[1]}
        records.append({**key, "method": method.name, **stats})
        notes += said
    return records, notes


def invalid_after(selection: str) -> tuple[str, ...]:
    """The registered methods whose intervals do not hold after ``selection``.

    Parameters
    ----------
    selection : {"random", "stratum", "score", "mixed"}

    Returns
    -------
    tuple of str
    """
    return tuple(name for name, m in PAIR_METHODS.items() if selection not in m.valid_after)


def set_aside_after(selection: str) -> tuple[str, ...]:
    """The methods, registered and fitted alike, whose intervals assume labels drawn at
    random and so do not hold after ``selection``: the registry's (:func:`invalid_after`),
    then the models' (their catalogue entries' ``valid_after_selection``).

    Parameters
    ----------
    selection : {"random", "stratum", "score", "mixed"}

    Returns
    -------
    tuple of str
    """
    if selection == "random":
        return ()
    models = [n for n, spec in reversed(MODEL_SPECS.items()) if not spec.valid_after_selection]
    return (*invalid_after(selection), *models)


def method_words(name: str) -> str:
    """A method's name in a sentence: the labeled rows (``"freq"``), a registered method,
    a model.

    Parameters
    ----------
    name : str

    Returns
    -------
    str
    """
    if name == "freq":
        return "the labeled rows' intervals"
    if name in PAIR_METHODS:
        return PAIR_METHODS[name].words
    return MODEL_SPECS[name].display
