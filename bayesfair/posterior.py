"""The result of :func:`bayesfair.fit`: posterior draws of group rates and what follows.

Two layers, as in arviz-stats: NumPy functions over arrays whose leading axes
are ``(chain, draw)`` do the arithmetic (:mod:`bayesfair.stats`), and
:class:`FairnessPosterior` wraps the ``arviz.InferenceData`` and labels
everything with groups and metrics.

Decision rule of :meth:`FairnessPosterior.rope_decision` (Kruschke 2018,
"HDI + ROPE"): with the region of practical equivalence ``[−ε, ε]`` around
Δ = 0, a pair is *practically fair* when the 95% HDI of Δ lies entirely inside
it, *unfair* when the HDI lies entirely outside it, and *undecided* otherwise.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from bayesfair import groups as _groups
from bayesfair._netcdf import read_result, write_result
from bayesfair._validation import (
    check_epsilon,
    check_group,
    check_probability,
    check_random_state,
    sequence_from_record,
)
from bayesfair.checks import misfit_message, result_calibration_verdicts, stored_labeled_summary
from bayesfair.exceptions import (
    CalibrationWarning,
    InvalidParameterError,
    SamplingWarning,
)
from bayesfair.fair_enough import posterior_clusters
from bayesfair.metrics import composite_value, get_composite, get_rate, warn_undefined_draws
from bayesfair.sensitivity import (
    SENSITIVITY_THRESHOLD,
    log_prior_draws,
    prior_sentence,
    prior_share,
    verdict_holds,
)
from bayesfair.stats import Interval, diagnostics_table, eti, hdi, prob_within, rope_decision

__all__ = ["FairnessPosterior", "eti", "hdi", "prob_within"]

RATES_GROUP = "rates"
#: rbc's variables drawn after sampling (not by the sampler).
POST_HOC = ("misfit", "p_misfit", "p_misfit_shared")
#: The decisions of the HDI + ROPE rule that a prior-sensitive gap must keep.
ROPE_VERDICTS = ("practically fair", "unfair")


#: What each estimand is, in words (summaries and reports print it).
ESTIMANDS = {
    "assessed": "the gap on the assessed examples (labeled and unlabeled together)",
    "expected": "the classifier's expected gap in each group's score distribution",
}


# ---------------------------------------------------------------------------
# Labeled layer
# ---------------------------------------------------------------------------
class FairnessPosterior:
    """Posterior draws of per-group rates and the fairness quantities derived from them.

    Created by :func:`bayesfair.fit`; not usually built by hand.

    Attributes
    ----------
    idata : arviz.InferenceData
        ``posterior`` (model parameters), ``sample_stats``, ``observed_data``
        (labeled confusion counts per group), ``constant_data`` (unlabeled
        example counts), ``rates`` (per-group rate draws, one variable per
        metric, dims ``chain, draw, group``) and ``prior`` (the rates' prior
        predictive draws, one chain: :meth:`sensitivity`).
    model : str
        ``"rbc"``, ``"bc"``, ``"bb"`` or ``"hbb"``.
    reference
        The default reference group of differences and ratios.
    notes : list of str
        Statements about the fit the reader must know (groups without labels,
        rates driven by the prior, ...).
    """

    def __init__(self, idata, *, model: str, reference, notes=(), settings=None):
        self.idata = idata
        self.model = model
        self.reference = reference
        self.notes = list(notes)
        self.settings = dict(settings or {})
        #: The AssessmentData of the fit (None for a posterior read from a file).
        self.data = None

    # ------------------------------------------------------------ lookups
    @property
    def groups(self) -> list:
        return list(self.idata[RATES_GROUP].coords["group"].values.tolist())

    @property
    def metrics(self) -> list[str]:
        return list(self.idata[RATES_GROUP].data_vars)

    def _group(self, label, argument="group"):
        return check_group(label, self.groups, argument)

    def pair(self, group=None, reference=None) -> tuple:
        """Resolve a ``(group, reference)`` pair of labels as the other methods do.

        ``reference`` defaults to the fit's reference group; ``group`` may be
        omitted when there are exactly two groups.
        """
        if len(self.groups) < 2:
            raise InvalidParameterError(
                f"A group difference needs at least 2 groups; the fit has {len(self.groups)} "
                f"({', '.join(map(str, self.groups))})."
            )
        ref = self._group(self.reference if reference is None else reference, "reference")
        if group is None:
            others = [g for g in self.groups if g != ref]
            if len(others) > 1:
                raise InvalidParameterError(
                    f"The 'group' parameter is required with {len(self.groups)} groups: name the "
                    f"group to compare with the reference {ref!r}. Groups: "
                    f"{', '.join(map(str, others))}."
                )
            group = others[0]
        return self._group(group), ref

    def rates(self, metric: str):
        """Posterior draws of a rate per group, ``DataArray (chain, draw, group)``.

        A draw is NaN where the rate is undefined in that group (no example in
        its denominator: with the unlabeled examples' labels drawn, a small group
        may have no positive in some draws, so its TPR is 0/0 there).
        :meth:`summary` sets such draws aside and reports their share as
        ``p_undefined``; for your own statistics use NaN-aware functions
        (``numpy.nanquantile``, :func:`bayesfair.stats.hdi`) and
        :meth:`prob_undefined`.
        """
        name = get_rate(metric).name
        if name not in self.idata[RATES_GROUP]:
            raise InvalidParameterError(
                f"The metric '{name}' was not fitted; fitted metrics: {', '.join(self.metrics)}. "
                "Pass it in 'metrics' to bayesfair.fit."
            )
        return self.idata[RATES_GROUP][name]

    # ------------------------------------------------------------ derived quantities
    def difference(self, metric: str, group=None, reference=None):
        """Draws of Δ = rate(group) − rate(reference), ``DataArray (chain, draw)``.

        With two groups ``group`` defaults to the non-reference group. A draw is
        NaN where either rate is undefined (see :meth:`rates`).
        """
        g, ref = self.pair(group, reference)
        r = self.rates(metric)
        out = r.sel(group=g) - r.sel(group=ref)
        return out.rename(f"{get_rate(metric).name}_difference").drop_vars("group", errors="ignore")

    def prob_undefined(self, metric: str, group=None, reference=None) -> float:
        """The share of draws in which Δ of ``metric`` is undefined (a rate's denominator
        is empty in one of the two groups): the ``p_undefined`` of :meth:`summary`."""
        return float(np.isnan(self.difference(metric, group, reference).values).mean())

    def ratio(self, metric: str, group=None, reference=None):
        """Draws of rate(group) / rate(reference), ``DataArray (chain, draw)``."""
        g, ref = self.pair(group, reference)
        r = self.rates(metric)
        num, den = r.sel(group=g), r.sel(group=ref)
        out = (num / den.where(den > 0)).rename(f"{get_rate(metric).name}_ratio")
        return out.drop_vars("group", errors="ignore")

    def composite(self, name: str, group=None, reference=None):
        """Draws of a Fair-Enough composite (``bayesfair.metrics.COMPOSITES``).

        ``group`` is the unprivileged group and ``reference`` the privileged one.
        """
        comp = get_composite(name)
        g, ref = self.pair(group, reference)
        unpriv = {r: self.rates(r).sel(group=g).values for r in comp.rates}
        priv = {r: self.rates(r).sel(group=ref).values for r in comp.rates}
        template = self.rates(comp.rates[0]).sel(group=g).drop_vars("group", errors="ignore")
        return template.copy(data=composite_value(comp.name, unpriv, priv)).rename(comp.name)

    def between_group_variance(self, metric: str):
        """Per draw, the sample variance (ddof = 1) of the K group rates, ``(chain, draw)``.

        A draw in which a group's rate is undefined is NaN. Under independent
        priors (``bb``, and ``bc``'s per-group rates) this
        posterior inherits the upward bias of Lum et al. 2022 §4: it adds the
        average posterior variance of the group rates. For ``hbb`` see also
        :meth:`population_variance`.
        """
        r = self.rates(metric)  # a draw with an undefined group rate is NaN, not a smaller K
        out = r.var(dim="group", ddof=1, skipna=False)
        return out.rename(f"{get_rate(metric).name}_between_group_variance")

    def variance_upper_bound(self, metric: str, ci_prob: float = 0.95) -> float:
        """One-sided posterior upper bound of the between-group variance.

        The ``ci_prob`` quantile of :meth:`between_group_variance`: the
        posterior probability that the variance of the K group rates exceeds
        it is ``1 − ci_prob``. When the true variance may be 0 (equal rates),
        a two-sided interval of this positive quantity cannot contain 0, but
        the upper bound says how large the disparity can plausibly be: "the
        group rates' variance is below U with probability 0.95".

        Parameters
        ----------
        metric : str
        ci_prob : float, default 0.95
            Posterior probability below the bound, in (0, 1).

        Returns
        -------
        float

        References
        ----------
        Lum, Zhang & Bower 2022, §5.1 and Table 3 (the equal-performance
        scenarios, true variance 0).
        """
        ci_prob = check_probability(ci_prob)
        v = self._defined_variance(metric, "The bound")
        return float(np.quantile(v, ci_prob)) if v.size else np.nan

    def prob_variance_below(self, metric: str, delta: float) -> float:
        """Posterior probability that the between-group variance is below ``delta``.

        ``P(M_var(θ) < δ | data)`` with ``M_var(θ)`` the sample variance
        (ddof = 1) of the K group rates (:meth:`between_group_variance`): the
        probability that the groups are *practically equal* for a tolerance δ
        on the variance (δ = 0.02² = 0.0004 allows rates that typically differ
        from their mean by about 0.02).

        Parameters
        ----------
        metric : str
        delta : float
            Positive tolerance on the variance (squared rate units).

        Returns
        -------
        float
        """
        if isinstance(delta, bool) or not isinstance(delta, int | float) or not delta > 0:
            raise InvalidParameterError(
                f"The 'delta' parameter must be a positive number. Got {delta!r}."
            )
        v = self._defined_variance(metric, "The probability")
        return float(np.mean(v < delta)) if v.size else np.nan

    def _defined_variance(self, metric, what):
        """The between-group variance's defined draws; a warning if some are set aside."""
        v = self.between_group_variance(metric).values.ravel()
        warn_undefined_draws({f"the variance of {metric}": np.isnan(v).mean()}, what, 3)
        return v[~np.isnan(v)]

    def population_variance(self, metric: str):
        """``hbb`` only: draws of the population between-group variance, ``(chain, draw)``.

        The expected sample variance (ddof = 1) of the rates of K *new* groups
        with the sizes of the data, drawn from the fitted population
        (:func:`bayesfair.models.beta_binomial.hbb_population_variance`):
        ``M_var(μ_k) + mean_k μ_k(1 − μ_k)/(κ + 1)``, where ``μ_k`` is the
        population mean at group k's size. With equal group sizes it is
        ``μ(1 − μ)/(κ + 1)``. :meth:`between_group_variance` is the variance
        of *these* K groups' rates, the estimand of Lum et al. (2022).
        """
        if "population_variance" not in self.idata.posterior:
            raise InvalidParameterError(
                f"The population variance exists only for model='hbb'; this fit is '{self.model}'."
            )
        name = get_rate(metric).name
        return self.idata.posterior["population_variance"].sel(metric=name).drop_vars("metric")

    def max_min_gap(self, metric: str):
        """Per draw, max − min of the group rates, ``DataArray (chain, draw)``."""
        r = self.rates(metric)
        return (r.max(dim="group") - r.min(dim="group")).rename(f"{get_rate(metric).name}_gap")

    def prob_direction(self, metric: str, group=None, reference=None) -> float:
        """P(Δ > 0): the posterior probability that ``group``'s rate exceeds the reference's."""
        d = self.difference(metric, group, reference).values
        d = d[~np.isnan(d)]
        return float(np.mean(d > 0)) if d.size else np.nan

    def _pairs_for(self, group, reference):
        ref = self._group(self.reference if reference is None else reference, "reference")
        if group is not None:
            return [self.pair(group, ref)]
        if len(self.groups) < 2:
            self.pair(None, ref)  # raises the clear error
        return [(g, ref) for g in self.groups if g != ref]

    def prob_practically_fair(
        self, metric: str, epsilon: float = 0.02, group=None, reference=None
    ) -> pd.Series:
        """P(|Δ| < ε) for each pair (each group vs the reference, or the one given).

        Returns
        -------
        pandas.Series
            Indexed by the compared group; the name says the reference.
        """
        epsilon = check_epsilon(epsilon)
        pairs = self._pairs_for(group, reference)
        draws = {f"{metric} of {g} vs {r}": self.difference(metric, g, r).values for g, r in pairs}
        warn_undefined_draws({k: np.isnan(d).mean() for k, d in draws.items()}, "P(|Δ| < ε)")
        values = [prob_within(d, epsilon) for d in draws.values()]
        return pd.Series(
            values,
            index=pd.Index([g for g, _ in pairs], name="group", dtype=object),
            name=f"P(|Δ {get_rate(metric).name}| < {epsilon:g}) vs {pairs[0][1]!s}",
        )

    def rope_decision(
        self, metric: str, epsilon: float = 0.02, group=None, reference=None, ci_prob: float = 0.95
    ) -> pd.Series:
        """Three-way decision per pair by the HDI + ROPE rule (module docstring), "undecided"
        where a prior-sensitive decision changes with the prior (:meth:`prior_verdict`).

        Returns ``"practically fair"``, ``"unfair"`` or ``"undecided"`` per pair.
        """
        epsilon, ci_prob = check_epsilon(epsilon), check_probability(ci_prob)
        pairs = self._pairs_for(group, reference)
        out, undefined = [], {}
        for g, r in pairs:
            d = self.difference(metric, g, r).values
            undefined[f"{metric} of {g} vs {r}"] = np.isnan(d).mean()
            rule = rope_decision(*hdi(d, ci_prob), epsilon)
            out.append(self.prior_verdict(metric, (g, r), d, rule, epsilon, ci_prob)[0])
        warn_undefined_draws(undefined, "The decision")
        return pd.Series(
            out, index=pd.Index([g for g, _ in pairs], name="group", dtype=object), name="decision"
        )

    def interval(self, values, ci_prob: float = 0.95, kind: str = "hdi") -> Interval:
        """HDI (``kind="hdi"``) or equal-tailed (``"eti"``) interval of a DataArray of draws.

        :func:`bayesfair.stats.hdi` (``arviz.hdi``) or :func:`bayesfair.stats.eti`;
        NaN draws (an undefined rate) are dropped.
        """
        ci_prob = check_probability(ci_prob)
        if kind not in ("hdi", "eti"):
            raise InvalidParameterError(
                f"The 'kind' parameter must be 'hdi' or 'eti'. Got {kind!r}."
            )
        return (hdi if kind == "hdi" else eti)(np.asarray(values), ci_prob)

    # ------------------------------------------------------------ tables
    def summary(
        self,
        metrics=None,
        epsilon: float = 0.02,
        ci_prob: float = 0.95,
        reference=None,
    ) -> pd.DataFrame:
        """One row per metric and group-vs-reference pair.

        Columns: posterior mean and sd of Δ, HDI and ETI bounds, P(Δ > 0),
        P(|Δ| < ε), the HDI + ROPE decision, ``p_undefined`` (the share of draws
        in which Δ is undefined, set aside by every other column),
        ``prior_sensitive`` (:meth:`sensitivity`), a ``note`` for rates that the
        labeled data do not inform in a group (e.g. no positive labels) and for
        a gap that rests on the prior (one sentence naming the group to label),
        and the ``estimand`` in words (which gap the intervals are for). Where
        draws were set aside, one :class:`~bayesfair.exceptions.UndefinedRateWarning`
        names the metrics and groups.

        The decision of a prior-sensitive gap is "undecided" where it changes with
        the prior at half or twice its strength (:meth:`prior_verdict`).
        """
        epsilon, ci_prob = check_epsilon(epsilon), check_probability(ci_prob)
        metrics = _groups.metric_list(self, metrics)
        rows, undefined = [], {}
        for m in metrics:
            r = self.rates(m)
            for g, ref in self._pairs_for(None, reference):
                # the difference once; decision and P(Δ > 0) as rope_decision/prob_direction
                d = (r.sel(group=g) - r.sel(group=ref)).values
                h, e = hdi(d, ci_prob), eti(d, ci_prob)
                decision, sensitive, sentence = self.prior_verdict(
                    m, (g, ref), d, rope_decision(*h, epsilon), epsilon, ci_prob
                )
                notes = [self.rate_note(m, (g, ref)), sentence]
                valid = d[~np.isnan(d)]
                p_undefined = undefined[f"{m} of {g} vs {ref}"] = 1.0 - valid.size / d.size
                rows.append(
                    {
                        "metric": m,
                        "group": g,
                        "reference": ref,
                        "mean": float(valid.mean()) if valid.size else np.nan,
                        "sd": float(valid.std()) if valid.size else np.nan,
                        "hdi_lower": h[0],
                        "hdi_upper": h[1],
                        "eti_lower": e[0],
                        "eti_upper": e[1],
                        "prob_positive": float(np.mean(valid > 0)) if valid.size else np.nan,
                        "prob_practically_fair": prob_within(d, epsilon),
                        "decision": decision,
                        "p_undefined": p_undefined,
                        "prior_sensitive": sensitive,
                        "note": "; ".join(n for n in notes if n),
                        "estimand": self.estimand_text,
                    }
                )
        warn_undefined_draws(undefined)
        return pd.DataFrame(rows)

    def group_summary(self, metrics=None, epsilon: float = 0.02, ci_prob: float = 0.95):
        """Each group against all assessed rows, with a band that holds for the groups jointly.

        :func:`bayesfair.groups.group_summary` (the view for many groups: no
        reference group; one row per metric and group).
        """
        return _groups.group_summary(self, metrics, epsilon, ci_prob)

    def family_summary(self, metrics=None, epsilon: float = 0.02, ci_prob: float = 0.95):
        """Per metric, the family's verdict: max − min, P(all within ε), the worst group,
        min/max. :func:`bayesfair.groups.family_summary`."""
        return _groups.family_summary(self, metrics, epsilon, ci_prob)

    def impact_ratios(
        self, metric: str = "selection_rate", exclude_below=None, ci_prob: float = 0.95
    ):
        """Each group's rate over the most favoured group's, as a bias audit reports it, with
        a joint band, P(ratio < 0.8) and P(most selected):
        :func:`bayesfair.groups.impact_ratios` (which also runs from counts alone)."""
        return _groups.result_impact_ratios(self, metric, exclude_below, ci_prob)

    def sensitivity(self, metrics=None, reference=None) -> pd.DataFrame:
        """Prior sensitivity of every gap: how much of Δ's answer is the prior's.

        The *prior share* ``Var(Δ | data) / Var(Δ)`` (one minus the posterior
        contraction, :mod:`bayesfair.sensitivity`) against the fit's prior
        predictive draws (the ``prior`` group; for ``bc``/``rbc`` the pooling and
        calibration priors). Undefined draws of Δ are set aside.

        Parameters
        ----------
        metrics : list of str, optional
            Default: every fitted metric.
        reference : optional
            The reference group (default the fit's).

        Returns
        -------
        pandas.DataFrame
            One row per metric and pair: ``metric``, ``group``, ``reference``,
            ``statistic`` (the prior share; NaN for a result without prior draws,
            saved before 0.3, or without defined draws), ``threshold`` (0.5) and
            ``sensitive`` (``statistic >= threshold``).

        References
        ----------
        Schad, Betancourt & Vasishth 2021, Psychol. Methods 26(1) (posterior
        contraction); Betancourt 2018, *Calibrating model-based inferences*, §2.2.
        """
        metrics = _groups.metric_list(self, metrics)
        rows = []
        for m in metrics:
            for g, ref in self._pairs_for(None, reference):
                stat = self._prior_statistic(m, (g, ref), self.difference(m, g, ref).values)
                rows.append(
                    {
                        "metric": m,
                        "group": g,
                        "reference": ref,
                        "statistic": stat,
                        "threshold": SENSITIVITY_THRESHOLD,
                        "sensitive": bool(stat >= SENSITIVITY_THRESHOLD),
                    }
                )
        return pd.DataFrame(rows)

    def _log_prior(self, metric: str):
        """The power-scaled prior at every draw (one array for the calibration models,
        whose prior does not depend on the metric; one per metric for bb/hbb)."""
        cache = self.__dict__.setdefault("_log_priors", {})
        key = metric if self.model in ("bb", "hbb") else None
        if key not in cache:
            cache[key] = log_prior_draws(self.idata, self.model, self.settings, metric)
        return cache[key]

    def _prior_statistic(self, metric: str, pair, d) -> float:
        """The prior share of Δ (NaN without the fit's prior draws)."""
        if "prior" not in self.idata.groups() or metric not in self.idata.prior:
            return np.nan
        r = self.idata.prior[metric]
        return prior_share(d, (r.sel(group=pair[0]) - r.sel(group=pair[1])).values)

    def prior_verdict(self, metric, pair, d, decision, epsilon, ci_prob) -> tuple:
        """``(decision, prior_sensitive, sentence)`` of one pair's draws of Δ ``d``.

        The HDI + ROPE ``decision`` is kept unless the gap is prior-sensitive and the
        rule decides otherwise with the prior power-scaled by α = 1/2 or 2
        (:func:`~bayesfair.sensitivity.verdict_holds`): then "undecided". The sentence
        is :func:`~bayesfair.sensitivity.prior_sentence`'s ("" if not sensitive)."""
        stat = self._prior_statistic(metric, pair, d)
        if not stat >= SENSITIVITY_THRESHOLD:
            return decision, False, ""
        lp = self._log_prior(metric)
        if decision in ROPE_VERDICTS and (lp is None or not verdict_holds(d, lp, epsilon, ci_prob)):
            decision = "undecided"
        return decision, True, prior_sentence(metric, self._denominators(metric, pair), stat)

    def metric_clusters(self, metrics=None, group=None, reference=None) -> pd.DataFrame:
        """Which fairness metrics say the same thing for this classifier, with its
        uncertainty: :func:`bayesfair.fair_enough.posterior_clusters` (Majumder et al.)."""
        return posterior_clusters(self, metrics, *self.pair(group, reference))

    @property
    def estimand(self) -> str:
        """``"assessed"`` or ``"expected"``: which gap the posterior describes (see ``fit``)."""
        return self.settings.get("estimand", "expected")

    @property
    def estimand_text(self) -> str:
        """The estimand in words, as summaries and reports print it."""
        return ESTIMANDS[self.estimand]

    def _denominators(self, metric: str, groups) -> dict:
        """Each group's labeled examples in the rate's denominator."""
        obs, den = self.idata.observed_data, get_rate(metric).denominator
        return {g: sum(int(obs[c].sel(group=g)) for c in den) for g in groups}

    def rate_note(self, metric: str, groups) -> str:
        """Say which of ``groups`` have no labeled denominator for ``metric`` ("" if none)."""
        rate = get_rate(metric)
        notes = []
        for g, den in self._denominators(metric, groups).items():
            if den == 0:
                if self.model in ("bc", "rbc"):
                    notes.append(
                        f"'{g}' has no labeled {'+'.join(rate.denominator)}: informed by the "
                        "calibration model and the unlabeled scores only"
                    )
                else:
                    notes.append(
                        f"'{g}' has no labeled {'+'.join(rate.denominator)}: the posterior is "
                        "the prior"
                    )
        return "; ".join(notes)

    def calibration_check(
        self,
        *,
        alpha: float = 0.05,
        min_labels: int = 20,
        max_draws: int = 1000,
        random_seed=None,
        warn: bool = True,
    ) -> pd.DataFrame:
        """Check each group's calibration map against its labeled examples.

        A binned posterior predictive check (:mod:`bayesfair.checks`): for
        each group, the labeled examples are binned by score on each side of
        the threshold, and the observed number of positives per bin is
        compared with the map's predictions through a posterior predictive
        p-value. A map that the labels contradict (too flat, shifted,
        decreasing where the labels increase, as for an inverted classifier)
        gets a small p-value.

        Parameters
        ----------
        alpha : float, default 0.05
            A group is a ``"misfit"`` when its p-value, adjusted by Holm's
            step-down over the K groups (``attrs["p_adjusted"]``), is below ``alpha``: the
            probability that a calibrated family has any group flagged is at most
            about ``alpha``, whatever K. Posterior predictive p-values are
            conservative (unadjusted, 5 of 120 calibrated groups with 100 labels
            each were below 0.05, 4.2%; ``tests/statistical/test_robust_coverage.py``).
        min_labels : int, default 20
            A group with fewer labeled examples whose p-value is not below
            ``alpha`` gets the verdict ``"too few labels"``: the check cannot
            tell a fitting map from a wrong one with so few labels (a gross
            misfit is still reported as one).
        max_draws : int, default 1000
            Posterior draws used (evenly thinned).
        random_seed : None, int, SeedSequence or Generator, optional
            Seed of the replicated labels. None (the default) derives it from
            the fit's recorded seed (``settings["random_seed"]``, its third
            child stream), so that repeated calls agree and a repeated fit
            gives the same check.
        warn : bool, default True
            Issue a :class:`~bayesfair.exceptions.CalibrationWarning` naming
            the misfitting groups.

        Returns
        -------
        pandas.DataFrame
            One row per group: ``group``, ``n_labeled``, ``statistic`` (the
            posterior mean of the binned discrepancy), ``p_value`` and ``verdict``
            (``"ok"``, ``"misfit"`` or ``"too few labels"``); ``attrs["p_adjusted"]``
            holds the Holm-adjusted p-values.

        Raises
        ------
        ValueError
            For ``bb`` and ``hbb``, which have no calibration map.
        """
        if self.model not in ("bc", "rbc"):
            raise InvalidParameterError(
                f"The '{self.model}' model has no calibration map to check; "
                "calibration_check needs a fit with model='bc' or 'rbc'."
            )
        if not (isinstance(alpha, float | int) and 0 < alpha < 1):
            raise InvalidParameterError(f"The 'alpha' parameter must be in (0, 1). Got {alpha!r}.")
        key = (float(alpha), min_labels, max_draws, random_seed)
        cache = self.__dict__.setdefault("_calibration_checks", {})
        if key not in cache or not (random_seed is None or isinstance(random_seed, int)):
            seed = random_seed
            if seed is None:
                seed = sequence_from_record(self.settings.get("random_seed"), child=2)
            cache[key] = result_calibration_verdicts(
                self, alpha, min_labels, max_draws, check_random_state(seed)
            )
        out = cache[key].copy()
        message = misfit_message(self.model, out, alpha)
        if warn and message:
            warnings.warn(message, CalibrationWarning, stacklevel=2)
        return out

    def labeled_cells(self):
        """The labeled examples' summary kept with the result (a
        :class:`~bayesfair.summary.ScoreSummary` whose levels are the result's
        group positions), or None if the result has none."""
        return stored_labeled_summary(
            self.idata,
            range(len(self.groups)),
            threshold=float(self.settings.get("threshold", 0.5)),
            score_clip=float(self.settings.get("score_clip") or 0.01),
            n_bins=self.settings.get("n_bins"),
        )

    def diagnostics(self) -> pd.DataFrame:
        """R-hat (max), bulk ESS (min) per sampled variable and the number of divergences.

        rbc's ``misfit``, ``p_misfit`` and ``p_misfit_shared`` are left out: they are
        drawn after sampling, from their conditional given each draw, so their mixing
        is the sampled parameters' (and with K groups they are 4K + 2 more columns)."""
        stats = self.idata.sample_stats if "sample_stats" in self.idata.groups() else None
        post = self.idata.posterior.drop_vars(list(POST_HOC), errors="ignore")
        return diagnostics_table(post, stats)

    def check_diagnostics(self, rhat_max: float = 1.01, stacklevel: int = 2) -> list[str]:
        """Warn (``SamplingWarning``) with advice when R-hat > 1.01 or divergences > 0."""
        if self.settings.get("sampler") == "exact":
            return []
        diag = self.diagnostics()
        problems = []
        bad = diag.index[diag["r_hat"] > rhat_max].tolist()
        if bad:
            problems.append(
                f"R-hat above {rhat_max} for {bad} (max {diag['r_hat'].max():.3f}): the chains "
                "disagree. Increase 'tune' and 'draws', or check the data for a group with "
                "very few labels."
            )
        n_div = int(diag["divergences"].iloc[0]) if len(diag) else 0
        if n_div > 0:
            problems.append(
                f"{n_div} divergent transition(s): the posterior may be biased. Increase "
                "'target_accept' (e.g. 0.99) or check the priors."
            )
        for p in problems:
            warnings.warn(p, SamplingWarning, stacklevel=stacklevel + 1)
        return problems

    # ------------------------------------------------------------ persistence
    def to_netcdf(self, path) -> Path:
        """Save to netCDF; :meth:`from_netcdf` restores everything. This object is not changed."""
        types = [type(g).__name__ for g in self.groups]
        meta = dict(
            model=self.model,
            reference=self.reference,
            notes=self.notes,
            settings=self.settings,
            group_types=types,
        )
        return write_result(self.idata, meta, path)

    @classmethod
    def from_netcdf(cls, path) -> FairnessPosterior:
        """Load a result saved with :meth:`to_netcdf`."""
        idata, meta = read_result(path)
        return cls(
            idata,
            model=meta["model"],
            reference=meta["reference"],
            notes=meta["notes"],
            settings=meta["settings"],
        )

    def __repr__(self) -> str:
        post = self.idata.posterior
        return (
            f"FairnessPosterior(model={self.model!r}, groups={self.groups!r}, "
            f"reference={self.reference!r}, metrics={self.metrics!r}, "
            f"chains={post.sizes['chain']}, draws={post.sizes['draw']})"
        )
