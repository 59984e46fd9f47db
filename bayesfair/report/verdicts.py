"""The headline verdicts of a comparison: one per metric and pair, held as a family.

:func:`pair_verdicts` decides, once, when a :class:`~bayesfair.report.compare.Comparison`
is built, the verdict the reports print for each metric and pair. Each passes the one
gate (:func:`bayesfair.metrics.verdicts.decide`); a "practically fair" or "unfair"
then stands only when the interval *of the family* agrees: every verdict of a report
is read off a band that holds for all its decided gaps at once, so that an audit in
which nothing differs shows no "unfair" in at least ``ci_prob`` of audits, whatever
the number of groups and metrics.

How the family is held
----------------------
- A Bayesian model's gaps (every metric and pair whose verdict rests on the model and
  passes the gate): the simultaneous credible band of their joint draws
  (:func:`bayesfair.stats.simultaneous_band`; Besag et al. 1995). The draws of all
  metrics and pairs come from one fit, so the band is exact for the posterior: with
  probability ``ci_prob`` every gap lies in its band at once.
- Newcombe's intervals (no Bayesian model, or one with too few draws): Bonferroni
  over the family, each interval at level ``1 − (1 − ci_prob) / m`` for ``m`` gaps.

A pair's own interval (the pairs table's HDI) stays what it was: the band is wider,
and only the verdict reads it. A verdict the pair's own interval leaves "undecided"
stays so (the band never turns an "undecided" into a finding).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from bayesfair._internal.validation import takes
from bayesfair.frequentist.intervals import newcombe_interval
from bayesfair.metrics.verdicts import Evidence, decide, shortfall_text
from bayesfair.models.catalogue import MODEL_SPECS, verdict_order
from bayesfair.posterior.checks import flagged_groups
from bayesfair.posterior.groups import evidence
from bayesfair.report.estimates import estimates_by_pair
from bayesfair.stats import simultaneous_band

__all__ = ["DECIDED", "VERDICT_COLUMNS", "family_bands", "pair_verdicts"]

#: The verdicts that are findings: a family band must agree before one is printed.
DECIDED = ("practically fair", "unfair")

#: The columns of :attr:`Comparison.verdicts`.
VERDICT_COLUMNS = [
    "metric",
    "group",
    "reference",
    "verdict",
    "estimate",
    "lower",
    "upper",
    "prob_practically_fair",
    "method",
    "set_aside",
    "without_labels",
    "shortfall",
    "family",
]


@takes("Comparison")
def pair_verdicts(comp) -> pd.DataFrame:
    """One verdict per metric and pair, and the method it rests on.

    The verdict is the HDI + ROPE rule (Kruschke 2018): *practically fair* when the
    interval lies inside [−ε, ε], *unfair* when it lies outside, *undecided*
    otherwise (and *undecided* where the prior decides, the posterior's own
    ``<model>_decision``), *too few* below the one gate
    (:func:`bayesfair.metrics.verdicts.decide`). The interval is the family's
    (:func:`family_bands`): a band that holds for every decided gap of the report at
    once, over pairs and metrics, so that the findings hold together.

    It rests on the first model of RBC, BC, HBB, BB that was fitted and has an
    interval. BC, which trusts its calibration maps completely, is set aside for the
    next model when the calibration check flags one of the pair's two groups (a misfit,
    or two groups whose calibrations differ; its interval may be wrong); RBC is never
    set aside: it exists to absorb a misfit (a misfitting stratum follows its own
    labeled rate), and one group's check says nothing about another group's map. With
    no Bayesian model, Newcombe's interval decides (also when the models have too few
    draws for one) and P(|Δ| < ε) is not given.

    Parameters
    ----------
    comp : Comparison
        Its ``estimates`` (each method's interval and decision), ``pairs`` (the pairs and
        their own columns), ``settings`` (``epsilon``, ``ci_prob``, ``models``),
        ``calibration``, ``groups`` and ``posteriors`` are read.

    Returns
    -------
    pandas.DataFrame
        :data:`VERDICT_COLUMNS`: the verdict; the estimate of the method it rests on
        (``"newcombe"`` or a model's name) and its family band (``lower``,
        ``upper``: the pair's own interval where the pair is not in a family, a
        verdict of "too few" or "undefined"); ``set_aside`` (the models passed over,
        a tuple); ``without_labels`` (the pair's groups without a labeled example, a
        tuple); ``shortfall`` (what the gate misses, "" if nothing); ``family`` (how
        many gaps the band holds jointly, 0 outside a family).
    """
    eps = comp.settings["epsilon"]
    sizes = comp.groups
    no_labels = set() if sizes is None else {str(g) for g in sizes.index[sizes["n_labeled"] == 0]}
    misfit = _misfits(comp.calibration)
    fits = getattr(comp, "posteriors", {})
    table = estimates_by_pair(comp.estimates)
    rows = []
    for _, r in comp.pairs.iterrows():
        key = (r["metric"], r["group"], r["reference"])
        method, set_aside = _method(comp, table, key, misfit)
        gate = (
            [evidence(fits[method], r["metric"])[x] for x in (r["group"], r["reference"])]
            if method in fits
            else _newcombe_gate(r, sizes)
        )
        est = table.get((*key, method), {})
        lo, hi = est.get("lower", np.nan), est.get("upper", np.nan)
        model = method in MODEL_SPECS
        rows.append(
            {
                "metric": r["metric"],
                "group": r["group"],
                "reference": r["reference"],
                "verdict": est["decision"] if model else decide(lo, hi, eps, gate),
                "estimate": est["estimate"] if model else r.get("freq_estimate", np.nan),
                "lower": lo,
                "upper": hi,
                "prob_practically_fair": est.get("prob_practically_fair", np.nan),
                "method": method,
                "set_aside": tuple(set_aside),
                "without_labels": tuple(
                    g for g in (r["group"], r["reference"]) if str(g) in no_labels
                ),
                "shortfall": shortfall_text(gate),
                "family": 0,
            }
        )
    out = pd.DataFrame(rows, columns=VERDICT_COLUMNS)
    return _held_as_family(out, comp)


def _misfits(calibration) -> set:
    """The groups the calibration check flags (as strings): a misfit, or either group of a
    pair whose calibrations differ (:func:`~bayesfair.posterior.checks.flagged_groups`)."""
    if calibration is None or not len(calibration):
        return set()
    return {str(g) for g in flagged_groups(calibration)}


def _method(comp, table: dict, key: tuple, misfit: set) -> tuple[str, list]:
    """The method a pair's verdict rests on, and the models set aside for it."""
    pair = {str(key[1]), str(key[2])}
    set_aside = []
    for m in verdict_order():
        fitted = m in comp.settings.get("models", ())
        if not fitted or math.isnan(table.get((*key, m), {}).get("lower", math.nan)):
            continue
        spec = MODEL_SPECS[m]
        if spec.has_map and not spec.absorbs_misfit and pair & misfit:
            set_aside.append(m)
            continue
        return m, set_aside
    return "newcombe", set_aside


def _held_as_family(verdicts: pd.DataFrame, comp) -> pd.DataFrame:
    """The verdicts with each decided gap's interval replaced by its family band, and a
    finding the band does not support turned "undecided"."""
    eps = comp.settings["epsilon"]
    out = verdicts.copy()
    for index, (lo, hi, size) in family_bands(comp, verdicts).items():
        out.loc[index, ["lower", "upper", "family"]] = [lo, hi, size]
        if out.loc[index, "verdict"] in DECIDED:
            held = decide(lo, hi, eps)
            out.loc[index, "verdict"] = held if held == out.loc[index, "verdict"] else "undecided"
    out["family"] = out["family"].astype(int)
    return out


@takes("Comparison")
def family_bands(comp, verdicts: pd.DataFrame) -> dict:
    """Each decided gap's family band: row index -> ``(lower, upper, family size)``.

    A gap is in a family when its verdict passed the gate and is defined (one of
    "practically fair", "unfair", "undecided"); the family is every such gap resting
    on the same method (see the module's docstring for each method's band).

    Parameters
    ----------
    comp : Comparison
        Its ``posteriors``, ``pairs`` and ``settings["ci_prob"]`` (default 0.95)
        are read; a gap whose draws or counts the comparison lacks (one built by
        hand) keeps its own interval.
    verdicts : pandas.DataFrame
        The pair verdicts before the family (:data:`VERDICT_COLUMNS`), in the order of
        ``comp.pairs``.
    """
    ci_prob = comp.settings.get("ci_prob", 0.95)
    fits = getattr(comp, "posteriors", {})
    open_ = verdicts["verdict"].isin([*DECIDED, "undecided"])
    bands = {}
    for method, members in verdicts[open_].groupby("method", sort=False):
        index = list(members.index)
        if method == "newcombe":
            if "successes_group" not in comp.pairs:
                continue  # a comparison built by hand, without counts: the pairs' own
            lo, hi = _bonferroni_newcombe(comp.pairs.loc[index], ci_prob)
        elif method in fits:
            res = fits[method]
            draws = np.column_stack(
                [
                    res.difference(v["metric"], v["group"], v["reference"]).values.ravel()
                    for v in members.to_dict("records")
                ]
            )
            lo, hi = simultaneous_band(draws, ci_prob)
        else:
            continue  # a comparison built by hand, without its fits: the pairs' own
        for i, k in enumerate(index):
            bands[k] = (float(lo[i]), float(hi[i]), len(index))
    return bands


def _bonferroni_newcombe(pairs: pd.DataFrame, ci_prob: float):
    """Newcombe's intervals of ``pairs``, each at the Bonferroni level of their family."""
    level = 1.0 - (1.0 - ci_prob) / len(pairs)
    interval = newcombe_interval(
        pairs["successes_group"].to_numpy(),
        pairs["n_group"].to_numpy(),
        pairs["successes_reference"].to_numpy(),
        pairs["n_reference"].to_numpy(),
        level,
    )
    return np.atleast_1d(interval[0]), np.atleast_1d(interval[1])


def _newcombe_gate(r, sizes) -> list[Evidence]:
    """The evidence behind Newcombe's interval of a pair: the labeled rows alone (each
    group's labeled rows in the rate's denominator, and its labeled rows as its rows
    assessed: they are all the interval reads). Empty without the pair's sizes (a
    comparison built by hand): the ROPE rule alone."""
    out = []
    if "n_group" not in r:
        return out
    for g, n in (("group", "n_group"), ("reference", "n_reference")):
        rows = int(r[n]) if sizes is None else int(sizes.loc[r[g], "n_labeled"])
        out.append(Evidence(r[g], int(r[n]), rows))
    return out
