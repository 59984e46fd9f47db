"""The result of :func:`bayesfair.fit`: posterior draws of group rates, labelled.

:class:`FairnessPosterior` holds the draws (an ``xarray.DataTree`` laid out as
ArviZ 1's, which ``arviz_stats`` and ``arviz_plots`` take as it is), the model,
the reference group, notes and settings, and reads and writes itself as netCDF. It
computes nothing: its methods are thin calls of the modules that do, as ArviZ keeps
its data apart from ``summary``:

- :mod:`bayesfair.posterior.contrasts`: pairs, differences, ratios, variances, P(|Δ| < ε) and
  the HDI + ROPE decision (Kruschke 2018);
- :mod:`bayesfair.posterior.tables`: the table of differences
  (:func:`~bayesfair.posterior.tables.summary`);
- :mod:`bayesfair.posterior.groups`: the group and family views and impact ratios;
- :mod:`bayesfair.posterior.calibration_view`: each group's mean score against its share of
  positives (calibration within groups, in the large);
- :mod:`bayesfair.posterior.sensitivity`: how much of each gap is the prior's;
- :mod:`bayesfair.posterior.checks`: the calibration check and the sampler's diagnostics;
- :mod:`bayesfair.metrics.fair_enough`: which metrics say the same thing.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from bayesfair._internal.netcdf import read_parts, read_result, write_parts, write_result
from bayesfair._internal.tree import get_group, has_group
from bayesfair.exceptions import (
    InvalidParameterError,
)
from bayesfair.metrics.fair_enough import posterior_clusters
from bayesfair.posterior import (
    calibration_view,
    checks,
    contrasts,
    diagnostics,
    periods,
    proxy_view,
    score_view,
    sensitivity,
    stored_summary,
    tables,
)
from bayesfair.posterior import groups as _groups
from bayesfair.posterior.score_view import RATES_GROUP

#: What each estimand is, in words (summaries and reports print it).
ESTIMANDS = {
    "assessed": "the gap on the assessed examples (labeled and unlabeled together)",
    "expected": "the classifier's expected gap in each group's score distribution",
}


def estimand_words(estimand: str, proxy_assumption: str | None = None) -> str:
    """An estimand in words; with groups known as a proxy's probabilities, what those rest
    on too (:func:`bayesfair.posterior.proxy_view.proxy_assumption`).

    Parameters
    ----------
    estimand : {"assessed", "expected"}
    proxy_assumption : str, optional
    """
    text = ESTIMANDS[estimand]
    if proxy_assumption is None:
        return text
    return f"{text}, by their true groups: {proxy_assumption}"


class FairnessPosterior:
    """Posterior draws of per-group rates, with what a reader needs to use them.

    Created by :func:`bayesfair.fit`; not usually built by hand.

    Parameters
    ----------
    idata : xarray.DataTree
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
    settings : dict
        How the fit was made (sampler, priors as records, seed, threshold, ...).

    Attributes
    ----------
    data : AssessmentData or None
        The data of the fit (None for a posterior read from a file).
    """

    def __init__(self, idata, *, model: str, reference, notes=(), settings=None, data=None):
        self.idata = idata
        self.model = model
        self.reference = reference
        self.notes = list(notes)
        self.settings = dict(settings or {})
        self.data = data

    # ------------------------------------------------------------ what it holds
    @property
    def groups(self) -> list:
        """The group labels, in the fit's order."""
        return list(get_group(self.idata, RATES_GROUP).coords["group"].values.tolist())

    @property
    def metrics(self) -> list[str]:
        """The fitted rates."""
        return list(get_group(self.idata, RATES_GROUP).data_vars)

    @property
    def n_draws(self) -> int:
        """Posterior draws in all (chains × draws per chain): with fewer than
        :func:`~bayesfair.stats.min_interval_draws`, intervals rest on one or two draws."""
        post = get_group(self.idata, "posterior")
        return int(post.sizes.get("chain", 1) * post.sizes.get("draw", 1))

    @property
    def estimand(self) -> str:
        """``"assessed"`` or ``"expected"``: which gap the posterior describes (see ``fit``)."""
        return self.settings.get("estimand", "expected")

    @property
    def estimand_text(self) -> str:
        """The estimand in words, as summaries and reports print it (:func:`estimand_words`)."""
        return estimand_words(self.estimand, proxy_view.proxy_assumption(self.idata))

    def rates(self, metric: str):
        """Posterior draws of a rate (or a score metric, ``"auc"``, ...) per group,
        ``DataArray (chain, draw, group)``.

        A draw is NaN where the rate is undefined in that group (no example in
        its denominator: with the unlabeled examples' labels drawn, a small group
        may have no positive in some draws, so its TPR is 0/0 there).
        :meth:`summary` sets such draws aside and reports their share as
        ``p_undefined``; for your own statistics use NaN-aware functions
        (``numpy.nanquantile``, :func:`bayesfair.stats.hdi`) and
        :meth:`prob_undefined`.
        """
        return score_view.group_draws(self, metric)

    # ------------------------------------------------------------ contrasts
    def pair(self, group=None, reference=None) -> tuple:
        """Resolve a ``(group, reference)`` pair: :func:`bayesfair.posterior.contrasts.pair`.

        Parameters
        ----------
        group : optional
            May be omitted when there are exactly two groups.
        reference : optional
            Default: the fit's reference group.
        """
        return contrasts.pair(self, group, reference)

    def difference(self, metric: str, group=None, reference=None):
        """Draws of Δ = rate(group) − rate(reference), ``DataArray (chain, draw)``
        (:func:`bayesfair.posterior.contrasts.difference`; NaN where a rate is undefined).

        Parameters
        ----------
        metric : str
        group, reference : optional
            As in :meth:`pair`.
        """
        return contrasts.difference(self, metric, group, reference)

    def prob_undefined(self, metric: str, group=None, reference=None) -> float:
        """The share of draws in which Δ is undefined: the ``p_undefined`` of :meth:`summary`.

        Parameters
        ----------
        metric : str
        group, reference : optional
            As in :meth:`pair`.
        """
        return contrasts.prob_undefined(self, metric, group, reference)

    def ratio(self, metric: str, group=None, reference=None):
        """Draws of rate(group) / rate(reference), ``DataArray (chain, draw)``.

        Parameters
        ----------
        metric : str
        group, reference : optional
            As in :meth:`pair`.
        """
        return contrasts.ratio(self, metric, group, reference)

    def composite(self, name: str, group=None, reference=None):
        """Draws of a Fair-Enough composite (:func:`bayesfair.posterior.contrasts.composite`).

        Parameters
        ----------
        name : str
            A name of ``bayesfair.metrics.COMPOSITES``.
        group, reference : optional
            As in :meth:`pair`.
        """
        return contrasts.composite(self, name, group, reference)

    def between_group_variance(self, metric: str):
        """Per draw, the sample variance (ddof = 1) of the K group rates, ``(chain, draw)``
        (:func:`bayesfair.posterior.contrasts.between_group_variance`; Lum et al. 2022 §4 on its
        upward bias under independent priors)."""
        return contrasts.between_group_variance(self, metric)

    def variance_upper_bound(self, metric: str, ci_prob: float = 0.95) -> float:
        """The ``ci_prob`` quantile of the between-group variance: "the group rates'
        variance is below U with probability 0.95" (Lum et al. 2022, §5.1).

        Parameters
        ----------
        metric : str
        ci_prob : float, default 0.95
            Posterior probability below the bound, in (0, 1).
        """
        return contrasts.variance_upper_bound(self, metric, ci_prob)

    def prob_variance_below(self, metric: str, delta: float) -> float:
        """``P(M_var(θ) < δ | data)``: the groups are practically equal for a tolerance δ on
        the variance of their rates (δ = 0.02² allows rates about 0.02 from their mean).

        Parameters
        ----------
        metric : str
        delta : float
            Positive tolerance on the variance (squared rate units).
        """
        return contrasts.prob_variance_below(self, metric, delta)

    def population_variance(self, metric: str):
        """``hbb`` only: draws of the population between-group variance, ``(chain, draw)``
        (:func:`bayesfair.posterior.contrasts.population_variance`)."""
        return contrasts.population_variance(self, metric)

    def max_min_gap(self, metric: str):
        """Per draw, max − min of the group rates, ``DataArray (chain, draw)``."""
        return contrasts.max_min_gap(self, metric)

    def prob_positive(self, metric: str, group=None, reference=None) -> float:
        """P(Δ > 0): the posterior probability that ``group``'s rate exceeds the reference's
        (the ``prob_positive`` column of :meth:`summary`).

        Parameters
        ----------
        metric : str
        group, reference : optional
            As in :meth:`pair`.
        """
        return contrasts.prob_positive(self, metric, group, reference)

    def prob_practically_fair(self, metric: str, epsilon: float = 0.02, group=None, reference=None):
        """P(|Δ| < ε) for each pair, a ``pandas.Series`` indexed by the compared group.

        Parameters
        ----------
        metric : str
        epsilon : float, default 0.02
        group, reference : optional
            One pair, or (``group`` None) every group against the reference.
        """
        return contrasts.prob_practically_fair(self, metric, epsilon, group, reference)

    # ------------------------------------------------------------ tables and views
    def summary(self, metrics=None, epsilon: float = 0.02, ci_prob: float = 0.95, reference=None):
        """One row per metric and group-against-reference pair
        (:func:`bayesfair.posterior.tables.summary`).

        Columns: posterior mean and sd of Δ, HDI and ETI bounds, P(Δ > 0) (``prob_positive``),
        P(|Δ| < ε), the HDI + ROPE decision ("undecided" where a prior-sensitive decision
        changes with the prior at half or twice its strength), ``p_undefined`` (the share
        of draws in which Δ is undefined, set aside by every other column),
        ``prior_sensitive`` (:meth:`sensitivity`), a ``note`` and the ``estimand`` in words.

        Parameters
        ----------
        metrics : str or list of str, optional
            Default: every fitted metric.
        epsilon : float, default 0.02
        ci_prob : float, default 0.95
        reference : optional
            Default: the fit's reference group.
        """
        return tables.summary(self, metrics, epsilon, ci_prob, reference)

    def group_summary(self, metrics=None, epsilon: float = 0.02, ci_prob: float = 0.95):
        """Each group against all assessed rows, with a band that holds for the groups
        jointly: :func:`bayesfair.posterior.groups.group_summary`.

        Parameters
        ----------
        metrics : str or list of str, optional
        epsilon : float, default 0.02
        ci_prob : float, default 0.95
        """
        return _groups.group_summary(self, metrics, epsilon, ci_prob)

    def family_summary(self, metrics=None, epsilon: float = 0.02, ci_prob: float = 0.95):
        """Per metric, the family's verdict: :func:`bayesfair.posterior.groups.family_summary`.

        Parameters
        ----------
        metrics : str or list of str, optional
        epsilon : float, default 0.02
        ci_prob : float, default 0.95
        """
        return _groups.family_summary(self, metrics, epsilon, ci_prob)

    def impact_ratios(self, metric: str = "selection_rate", exclude_below=None, ci_prob=0.95):
        """Each group's rate over the most favoured group's, as a bias audit reports it:
        :func:`bayesfair.posterior.groups.impact_ratios` (which also runs from counts alone).

        Parameters
        ----------
        metric : str, default "selection_rate"
        exclude_below : float, optional
            Leave out the categories below this share of the rows (the rule's 2%).
        ci_prob : float, default 0.95

        Returns
        -------
        pandas.DataFrame
            As :func:`bayesfair.posterior.groups.impact_ratios`; its ``attrs`` add the
            fit's ``estimand`` and ``estimand_text`` (under ``"assessed"`` the selection
            rates are the assessed rows', exactly).
        """
        return _groups.result_impact_ratios(self, metric, exclude_below, ci_prob)

    def calibration_summary(self, ci_prob: float = 0.95, epsilon: float = 0.02):
        """Calibration within groups: each group's mean score minus its share of positives,
        with HDIs and the HDI + ROPE decision
        (:func:`bayesfair.posterior.calibration_view.calibration_summary`).

        Parameters
        ----------
        ci_prob : float, default 0.95
        epsilon : float, default 0.02
        """
        return calibration_view.calibration_summary(self, ci_prob, epsilon)

    def xauc(self, group=None, reference=None, ci_prob: float = 0.95):
        """xAUC both ways: the probability that a positive of one group outscores a
        negative of the other (:func:`bayesfair.posterior.score_view.xauc`).

        Parameters
        ----------
        group, reference : optional
            As in :meth:`pair`.
        ci_prob : float, default 0.95
        """
        return score_view.xauc(self, group, reference, ci_prob)

    def threshold_summary(
        self,
        metric: str = "tpr",
        thresholds=None,
        ci_prob: float = 0.95,
        epsilon: float = 0.02,
        reference=None,
    ):
        """A rate along the thresholds by group, and its gap, with bands that hold jointly
        over the thresholds, the gaps' over the pairs too
        (:func:`bayesfair.posterior.score_view.threshold_summary`).

        Parameters
        ----------
        metric : str, default "tpr"
        thresholds : array_like of float, optional
            Default 0.05, 0.10, ..., 0.95.
        ci_prob : float, default 0.95
        epsilon : float, default 0.02
        reference : optional
            Default: the fit's reference group.
        """
        return score_view.threshold_summary(self, metric, thresholds, ci_prob, epsilon, reference)

    def proxy_summary(self, ci_prob: float = 0.95, epsilon: float = 0.02):
        """How the proxy compares with the self-reported groups, per group, and how strong
        a link between proxy and outcome would have to be to change a verdict:
        :func:`bayesfair.posterior.proxy_view.proxy_summary`.

        Parameters
        ----------
        ci_prob : float, default 0.95
        epsilon : float, default 0.02
        """
        return proxy_view.proxy_summary(self, ci_prob=ci_prob, epsilon=epsilon)

    def sensitivity(self, metrics=None, reference=None):
        """Prior sensitivity of every gap (the prior share ``Var(Δ | data) / Var(Δ)``).

        Computed by :func:`bayesfair.posterior.sensitivity.result_sensitivity` (Schad,
        Betancourt & Vasishth 2021).

        Parameters
        ----------
        metrics : str or list of str, optional
        reference : optional
        """
        return sensitivity.result_sensitivity(self, metrics, reference)

    def prior_verdict(self, metric, pair, d, decision, epsilon, ci_prob) -> tuple:
        """``(decision, prior_sensitive, sentence)`` of one pair's draws of Δ:
        :func:`bayesfair.posterior.sensitivity.prior_verdict`.

        Parameters
        ----------
        metric : str
        pair : tuple
            ``(group, reference)``.
        d : ndarray
            The pair's draws of Δ.
        decision : str
            The HDI + ROPE decision.
        epsilon, ci_prob : float
        """
        return sensitivity.prior_verdict(self, metric, pair, d, decision, epsilon, ci_prob)

    def metric_clusters(self, metrics=None, group=None, reference=None):
        """Which fairness metrics say the same thing for this classifier:
        :func:`bayesfair.metrics.fair_enough.posterior_clusters` (Majumder et al.).

        Parameters
        ----------
        metrics : list of str, optional
        group, reference : optional
            As in :meth:`pair`.
        """
        return posterior_clusters(self, metrics, *self.pair(group, reference))

    @property
    def draws_counts(self) -> bool:
        """Whether the result keeps each draw's confusion counts per group (the posterior's
        ``cells``), every rate of a draw a ratio of them: ``rbc``, ``bc`` and ``bb`` fits.
        ``hbb`` draws each rate on its own."""
        return has_group(self.idata, "posterior") and "cells" in get_group(self.idata, "posterior")

    def count_draws(self):
        """Each draw's confusion counts per group over its assessed rows:
        :func:`bayesfair.posterior.groups.count_draws`."""
        return _groups.count_draws(self)

    def rate_note(self, metric: str, groups) -> str:
        """Which of ``groups`` have no labeled denominator for ``metric`` ("" if none).

        Parameters
        ----------
        metric : str
        groups : iterable
        """
        return tables.rate_note(self, metric, groups)

    # ------------------------------------------------------------ checks
    def calibration_check(
        self,
        *,
        alpha: float = 0.05,
        min_labels: int = 20,
        warn: bool = True,
    ):
        """Check each group's labeled examples against the calibration map the groups share.

        A likelihood-ratio test per group (:mod:`bayesfair.posterior.calibration_test`):
        one beta-calibration map shared by every group, against the same map with the
        group's labeled examples moved by an intercept of their own on each side of
        the threshold (the shifts ``rbc`` draws), the map refitted under both; the
        ratio is referred to χ² with as many degrees of freedom as the group has
        sides with labels. A group whose scores mean something else than the
        others' (noisier labels, over- or under-confident scores, an inverted
        classifier) gets a small p-value. The test reads only the labeled examples
        the fit keeps, so it is the same for ``bc`` and ``rbc`` and deterministic.
        The verdicts are a step-down: a flagged group gets a map of its own and the
        others are tested again, so a group is not flagged for being beside a
        distorted one. With two groups the data cannot say which of two disagreeing
        groups is the odd one: the table says the pair differs, and a group is a
        ``"misfit"`` only where its labels fit no beta map of its own either
        (:mod:`bayesfair.posterior.calibration_test`). Its power depends on the scores: on
        the Adult classifier's, a group with 12% of about 500 labels flipped was flagged in
        20 of 20 data sets (K = 4); on scores spread like Beta(2, 2), in about one
        in nine (``docs/results/calibration_check.md``).

        Parameters
        ----------
        alpha : float, default 0.05
            A group is a ``"misfit"`` when its p-value, adjusted by Holm's
            step-down over the K groups (column ``p_adjusted``), is below ``alpha``:
            the family-wise error rate, the probability that a family of groups
            sharing one map has any group flagged, is at most about ``alpha``,
            whatever K.
        min_labels : int, default 20
            A group with fewer labeled examples that is not a misfit gets the
            verdict ``"too few labels"``: the check cannot tell a fitting map from a
            wrong one with so few labels (a gross misfit is still reported as one).
        warn : bool, default True
            Issue a :class:`~bayesfair.exceptions.CalibrationWarning` naming
            the misfitting groups.

        Returns
        -------
        pandas.DataFrame
            One row per group: ``group``, ``n_labeled``, ``statistic`` (the
            likelihood ratio), ``p_value`` (χ², unadjusted), ``p_adjusted`` (Holm;
            the verdict's), ``verdict`` (``"ok"``, ``"misfit"``, ``"too few
            labels"``, or with two groups whose calibrations differ ``"differs from
            <the other group>"`` for each of the pair not a misfit) and ``where``
            (where on the score scale the group's labels depart most from the shared
            map, in words); ``attrs["p_adjusted"]``
            repeats the adjusted p-values and ``attrs["test"]`` holds the test's
            details (degrees of freedom, the fitted shifts).

        Raises
        ------
        ValueError
            For ``bb`` and ``hbb``, which have no calibration map.
        """
        return checks.result_calibration_check(  # the warning points past the check
            self, alpha=alpha, min_labels=min_labels, warn=warn, stacklevel=4
        )

    def labeled_cells(self):
        """The labeled examples' summary kept with the result, or None
        (:func:`bayesfair.posterior.stored_summary.labeled_cells`)."""
        return stored_summary.labeled_cells(self)

    def diagnostics(self):
        """R-hat (max), bulk ESS (min) per sampled variable and the number of divergences
        (:func:`bayesfair.posterior.diagnostics.result_diagnostics`)."""
        return diagnostics.result_diagnostics(self)

    def check_diagnostics(self, rhat_max: float = 1.01, stacklevel: int = 2) -> list[str]:
        """Warn (``SamplingWarning``) with advice when R-hat > ``rhat_max`` or divergences > 0.

        Parameters
        ----------
        rhat_max : float, default 1.01
        stacklevel : int, default 2
            Of the warnings, counted from this method's caller.
        """
        # past this method, the function and its argument check
        # (bayesfair._internal.validation.takes)
        return diagnostics.check_result_diagnostics(self, rhat_max, stacklevel + 3)

    # ------------------------------------------------------------ persistence
    def to_netcdf(self, path) -> Path:
        """Save to netCDF; :meth:`from_netcdf` restores everything. This object is not changed."""
        return write_result(self.idata, self._record(), path)

    @classmethod
    def from_netcdf(cls, path) -> FairnessPosterior:
        """Load a result saved with :meth:`to_netcdf`."""
        return cls._from_record(*read_result(path))

    def _record(self) -> dict:
        """What a file keeps of the result beside its tree (read by :meth:`_from_record`)."""
        return dict(
            model=self.model,
            reference=self.reference,
            notes=self.notes,
            settings=self.settings,
            group_types=[type(g).__name__ for g in self.groups],
        )

    @classmethod
    def _from_record(cls, idata, meta: dict) -> FairnessPosterior:
        keys = ("model", "reference", "notes", "settings")
        return cls(idata, **{key: meta[key] for key in keys})

    def __repr__(self) -> str:
        post = get_group(self.idata, "posterior")
        return (
            f"FairnessPosterior(model={self.model!r}, groups={self.groups!r}, "
            f"reference={self.reference!r}, metrics={self.metrics!r}, "
            f"chains={post.sizes['chain']}, draws={post.sizes['draw']})"
        )


class PeriodPosterior:
    """A fit of data with periods: each group's fit over its periods, and the drift flags.

    :func:`bayesfair.fit_periods` returns it for data with a period column; the model
    and the flag are described in :mod:`bayesfair.posterior.periods`. It holds the draws; the
    tables are functions of it (:func:`bayesfair.posterior.periods.period_summary`).

    Parameters
    ----------
    fits : dict
        Group label -> :class:`FairnessPosterior` of its periods (groups are period
        codes), or None for a group without labeled rows.
    periods : list
        The periods in time order (``data.period_levels``).
    reference
        The reference group of the gaps.
    sizes : pandas.DataFrame
        Indexed by ``(period, group)``: ``n_labeled``, ``n_unlabeled``.
    drift : pandas.DataFrame
        One row per group and period: ``period, group, n_labeled, statistic, drift_p,
        drift, detectable_shift, detectable_change``
        (:func:`bayesfair.posterior.periods.drift_table`)
        and ``drift_p_family, drift_family`` (:func:`bayesfair.posterior.periods.family_drift`).
    settings : dict
        The fit's settings (model, draws, seed, ...).
    """

    def __init__(self, fits: dict, periods: list, reference, sizes, drift, settings: dict):
        self.fits = fits
        self.periods = list(periods)
        self.groups = list(fits)
        self.reference = reference
        self.sizes = sizes
        self.drift = drift
        self.settings = settings
        fitted = [f for f in fits.values() if f is not None]
        self.metrics = fitted[0].metrics if fitted else []

    def rate_draws(self, metric: str, group):
        """Draws of ``group``'s rate in every period, shape ``(n_periods, n_draws)``.

        Chains are pooled; a period without any row of the group (or a group
        without a fit) is NaN.

        Parameters
        ----------
        metric : str
        group
            One of :attr:`groups`.
        """
        fit = self.fits[group]
        n = self.settings["draws"] * self.settings["chains"]
        out = np.full((len(self.periods), n), np.nan)
        if fit is not None:
            rates = fit.rates(metric).values.reshape(n, -1)
            for j, code in enumerate(fit.groups):
                out[int(code)] = rates[:, j]
        return out

    def drift_of(self, group, period) -> tuple[bool, float]:
        """``(drift, p-value)`` of ``group``'s labels in ``period`` (False, NaN without).

        Parameters
        ----------
        group, period
            One of :attr:`groups` and of :attr:`periods`.
        """
        hit = self.drift[(self.drift["group"] == group) & (self.drift["period"] == period)]
        if hit.empty:
            return False, np.nan
        return bool(hit["drift"].iloc[0]), float(hit["drift_p"].iloc[0])

    def period_summary(self, metrics=None, epsilon: float = 0.02, ci_prob: float = 0.95):
        """Each period's gaps: :func:`bayesfair.posterior.periods.period_summary`.

        Parameters
        ----------
        metrics : str or list of str, optional
        epsilon : float, default 0.02
        ci_prob : float, default 0.95
        """
        return periods.period_summary(self, metrics, epsilon, ci_prob)

    def to_netcdf(self, path) -> Path:
        """Save to netCDF (one file: a node per group's fit, the periods, sizes, drift
        checks and settings at its root); :meth:`from_netcdf` restores everything. This
        object is not changed.

        Parameters
        ----------
        path : str or path-like
        """
        parts, fitted = {}, []
        for i, fit in enumerate(self.fits.values()):
            fitted.append(fit is not None)
            if fit is not None:
                parts[f"fit_{i}"] = (fit.idata, fit._record())
        meta = dict(
            kind="PeriodPosterior",
            groups=self.groups,
            fitted=fitted,
            periods=self.periods,
            reference=self.reference,
            sizes=self.sizes.reset_index().to_dict(orient="list"),
            drift=self.drift.to_dict(orient="list"),
            settings=self.settings,
        )
        return write_parts(parts, meta, path)

    @classmethod
    def from_netcdf(cls, path) -> PeriodPosterior:
        """Load an audit over time saved with :meth:`to_netcdf`.

        Parameters
        ----------
        path : str or path-like
        """
        import pandas as pd

        parts, meta = read_parts(path)
        if meta.get("kind") != "PeriodPosterior":
            raise InvalidParameterError(
                f"{path} holds no audit over time; FairnessPosterior.from_netcdf reads a fit."
            )
        fits = {}
        for i, (group, fitted) in enumerate(zip(meta["groups"], meta["fitted"], strict=True)):
            fits[group] = None
            if fitted:
                fits[group] = FairnessPosterior._from_record(*parts[f"fit_{i}"])
        sizes = pd.DataFrame(meta["sizes"]).set_index(["period", "group"])
        drift = pd.DataFrame(meta["drift"])
        return cls(fits, meta["periods"], meta["reference"], sizes, drift, meta["settings"])

    def __repr__(self) -> str:
        return (
            f"PeriodPosterior(periods={len(self.periods)}, groups={self.groups!r}, "
            f"reference={self.reference!r}, metrics={self.metrics!r}, "
            f"drifted={int(self.drift['drift'].sum())})"
        )
