"""Contrasts of a fit's group rates: pairs, differences, ratios, variances and decisions.

Functions of a result (a :class:`~bayesfair.FairnessPosterior`, or anything with its
``rates``, ``groups``, ``reference`` and ``idata``) that return draws or numbers;
:class:`~bayesfair.FairnessPosterior` keeps thin methods of the same names.

Decision rule of :func:`bayesfair.stats.rope_decision` (Kruschke 2018, "HDI + ROPE"): with the
region of practical equivalence ``[−ε, ε]`` around Δ = 0, a pair is *practically
fair* when the 95% HDI of Δ lies entirely inside it, *unfair* when the HDI lies
entirely outside it, and *undecided* otherwise.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bayesfair._internal.tree import get_group
from bayesfair._internal.validation import check_epsilon, check_group, check_probability, takes
from bayesfair.exceptions import InvalidParameterError
from bayesfair.metrics.rates import composite_value, get_composite, get_metric, warn_undefined_draws
from bayesfair.stats import prob_within


@takes("FairnessPosterior")
def pair(result, group=None, reference=None) -> tuple:
    """Resolve a ``(group, reference)`` pair of a result's group labels.

    Parameters
    ----------
    result : FairnessPosterior
    group : optional
        May be omitted when there are exactly two groups.
    reference : optional
        Default: the fit's reference group.

    Returns
    -------
    tuple
        ``(group, reference)``.
    """
    groups = result.groups
    if len(groups) < 2:
        raise InvalidParameterError(
            f"A group difference needs at least 2 groups; the fit has {len(groups)} "
            f"({', '.join(map(str, groups))})."
        )
    ref = check_group(result.reference if reference is None else reference, groups, "reference")
    if group is None:
        others = [g for g in groups if g != ref]
        if len(others) > 1:
            raise InvalidParameterError(
                f"The 'group' parameter is required with {len(groups)} groups: name the "
                f"group to compare with the reference {ref!r}. Groups: "
                f"{', '.join(map(str, others))}."
            )
        group = others[0]
    return check_group(group, groups, "group"), ref


@takes("FairnessPosterior")
def pairs_for(result, group=None, reference=None) -> list[tuple]:
    """The pairs a table or decision covers: ``(group, reference)`` if ``group`` is given,
    else every other group against the reference.

    Parameters
    ----------
    result : FairnessPosterior
    group, reference : optional
        As in :func:`pair`.

    Returns
    -------
    list of tuple
    """
    groups = result.groups
    ref = check_group(result.reference if reference is None else reference, groups, "reference")
    if group is not None:
        return [pair(result, group, ref)]
    if len(groups) < 2:
        pair(result, None, ref)  # raises the clear error
    return [(g, ref) for g in groups if g != ref]


@takes("FairnessPosterior")
def difference(result, metric: str, group=None, reference=None):
    """Draws of Δ = rate(group) − rate(reference), ``DataArray (chain, draw)``.

    A draw is NaN where either rate is undefined.

    Parameters
    ----------
    result : FairnessPosterior
    metric : str
    group, reference : optional
        As in :func:`pair`.
    """
    g, ref = pair(result, group, reference)
    r = result.rates(metric)
    out = r.sel(group=g) - r.sel(group=ref)
    return out.rename(f"{get_metric(metric).name}_difference").drop_vars("group", errors="ignore")


@takes("FairnessPosterior")
def prob_undefined(result, metric: str, group=None, reference=None) -> float:
    """The share of draws in which Δ is undefined (a rate's denominator is empty in one of
    the two groups).

    Parameters
    ----------
    result : FairnessPosterior
    metric : str
    group, reference : optional
        As in :func:`pair`.
    """
    return float(np.isnan(difference(result, metric, group, reference).values).mean())


@takes("FairnessPosterior")
def ratio(result, metric: str, group=None, reference=None):
    """Draws of rate(group) / rate(reference), ``DataArray (chain, draw)``.

    Parameters
    ----------
    result : FairnessPosterior
    metric : str
    group, reference : optional
        As in :func:`pair`.
    """
    g, ref = pair(result, group, reference)
    r = result.rates(metric)
    num, den = r.sel(group=g), r.sel(group=ref)
    out = (num / den.where(den > 0)).rename(f"{get_metric(metric).name}_ratio")
    return out.drop_vars("group", errors="ignore")


@takes("FairnessPosterior")
def composite(result, name: str, group=None, reference=None):
    """Draws of a Fair-Enough composite (``bayesfair.metrics.COMPOSITES``).

    Parameters
    ----------
    result : FairnessPosterior
    name : str
        The composite's name.
    group : optional
        The group whose outcome is compared (the "unprivileged" one of Fair Enough).
    reference : optional
        The group it is compared with (the "privileged" one).
    """
    comp = get_composite(name)
    g, ref = pair(result, group, reference)
    ours = {r: result.rates(r).sel(group=g).values for r in comp.rates}
    theirs = {r: result.rates(r).sel(group=ref).values for r in comp.rates}
    template = result.rates(comp.rates[0]).sel(group=g).drop_vars("group", errors="ignore")
    return template.copy(data=composite_value(comp.name, ours, theirs)).rename(comp.name)


@takes("FairnessPosterior")
def between_group_variance(result, metric: str):
    """Per draw, the sample variance (ddof = 1) of the K group rates, ``(chain, draw)``.

    A draw in which a group's rate is undefined is NaN. Under independent priors
    (``bb``, and ``bc``'s per-group rates) this posterior inherits the upward bias of
    Lum et al. 2022 §4: it adds the average posterior variance of the group rates.

    Parameters
    ----------
    result : FairnessPosterior
    metric : str
    """
    r = result.rates(metric)  # a draw with an undefined group rate is NaN, not a smaller K
    out = r.var(dim="group", ddof=1, skipna=False)
    return out.rename(f"{get_metric(metric).name}_between_group_variance")


def _defined_variance(result, metric, what):
    """The between-group variance's defined draws; a warning if some are set aside."""
    v = between_group_variance(result, metric).values.ravel()
    warn_undefined_draws({f"the variance of {metric}": np.isnan(v).mean()}, what, 5)
    return v[~np.isnan(v)]


@takes("FairnessPosterior")
def variance_upper_bound(result, metric: str, ci_prob: float = 0.95) -> float:
    """One-sided posterior upper bound of the between-group variance: its ``ci_prob``
    quantile (Lum, Zhang & Bower 2022, §5.1 and Table 3).

    Parameters
    ----------
    result : FairnessPosterior
    metric : str
    ci_prob : float, default 0.95
        Posterior probability below the bound, in (0, 1).
    """
    ci_prob = check_probability(ci_prob)
    v = _defined_variance(result, metric, "The bound")
    return float(np.quantile(v, ci_prob)) if v.size else np.nan


@takes("FairnessPosterior")
def prob_variance_below(result, metric: str, delta: float) -> float:
    """``P(M_var(θ) < δ | data)``: the probability that the groups are practically equal
    for a tolerance δ on the variance of their rates.

    Parameters
    ----------
    result : FairnessPosterior
    metric : str
    delta : float
        Positive tolerance on the variance (squared rate units).
    """
    if isinstance(delta, bool) or not isinstance(delta, int | float) or not delta > 0:
        raise InvalidParameterError(
            f"The 'delta' parameter must be a positive number. Got {delta!r}."
        )
    v = _defined_variance(result, metric, "The probability")
    return float(np.mean(v < delta)) if v.size else np.nan


@takes("FairnessPosterior")
def population_variance(result, metric: str):
    """``hbb`` only: draws of the population between-group variance, ``(chain, draw)``
    (:func:`bayesfair.models.beta_binomial.hbb_population_variance`).

    Parameters
    ----------
    result : FairnessPosterior
    metric : str
    """
    if "population_variance" not in get_group(result.idata, "posterior"):
        raise InvalidParameterError(
            "The population variance exists only for a model with a population of group "
            f"rates (hierarchical); this fit is '{result.model}'."
        )
    name = get_metric(metric).name
    return (
        get_group(result.idata, "posterior")["population_variance"]
        .sel(metric=name)
        .drop_vars("metric")
    )


@takes("FairnessPosterior")
def max_min_gap(result, metric: str):
    """Per draw, max − min of the group rates, ``DataArray (chain, draw)``.

    Parameters
    ----------
    result : FairnessPosterior
    metric : str
    """
    r = result.rates(metric)
    return (r.max(dim="group") - r.min(dim="group")).rename(f"{get_metric(metric).name}_gap")


@takes("FairnessPosterior")
def prob_positive(result, metric: str, group=None, reference=None) -> float:
    """P(Δ > 0) over the defined draws: that ``group``'s rate exceeds the reference's.

    Parameters
    ----------
    result : FairnessPosterior
    metric : str
    group, reference : optional
        As in :func:`pair`.
    """
    d = difference(result, metric, group, reference).values
    d = d[~np.isnan(d)]
    return float(np.mean(d > 0)) if d.size else np.nan


@takes("FairnessPosterior")
def prob_practically_fair(
    result, metric: str, epsilon: float = 0.02, group=None, reference=None
) -> pd.Series:
    """P(|Δ| < ε) for each pair (each group against the reference, or the one given).

    Parameters
    ----------
    result : FairnessPosterior
    metric : str
    epsilon : float, default 0.02
    group, reference : optional
        As in :func:`pairs_for`.

    Returns
    -------
    pandas.Series
        Indexed by the compared group; the name says the reference.
    """
    epsilon = check_epsilon(epsilon)
    pairs = pairs_for(result, group, reference)
    draws = {f"{metric} of {g} vs {r}": difference(result, metric, g, r).values for g, r in pairs}
    warn_undefined_draws({k: np.isnan(d).mean() for k, d in draws.items()}, "P(|Δ| < ε)", 4)
    values = [prob_within(d, epsilon) for d in draws.values()]
    return pd.Series(
        values,
        index=pd.Index([g for g, _ in pairs], name="group", dtype=object),
        name=f"P(|Δ {get_metric(metric).name}| < {epsilon:g}) vs {pairs[0][1]!s}",
    )


@takes("FairnessPosterior")
def denominators(result, metric: str, groups) -> dict:
    """Each group's labeled examples in the rate's denominator.

    Parameters
    ----------
    result : FairnessPosterior
    metric : str
    groups : iterable
        Group labels of the result.
    """
    obs, den = get_group(result.idata, "observed_data"), get_metric(metric).denominator
    return {g: sum(int(obs[c].sel(group=g)) for c in den) for g in groups}
