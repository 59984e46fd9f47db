"""Side-by-side tables: Bayesian posteriors next to frequentist intervals.

:func:`compare` returns a :class:`Comparison`; its main tables:

``pairs``
    one row per metric and (group, reference) pair: the frequency estimate of
    Δ with its Newcombe (hybrid Wilson), bootstrap-percentile and Bernstein
    intervals, and for each Bayesian model its posterior mean of Δ, 95% HDI
    and P(|Δ| < ε): the wide pivot of ``estimates``, one row per metric, pair and
    method (:mod:`bayesfair.report.estimates`).
``variance``
    one row per metric: Lum et al.'s uncorrected, corrected and
    double-corrected between-group variance with bootstrap intervals, and the
    posterior of the between-group variance of each Bayesian model (for
    ``hbb`` also its population variance).
``calibration_view``
    one row per group: calibration within groups, the group's mean score minus
    its share of positives, from the default model's
    :meth:`~bayesfair.posterior.FairnessPosterior.calibration_summary` beside the
    labeled rows' :func:`~bayesfair.frequentist.calibration_intervals`; the labeled
    rows' reliability curves are in ``reliability``.

It also holds the group and family views (many groups), the calibration check and
the metric clusters.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from bayesfair import frequentist as fq
from bayesfair._internal.netcdf import group_coordinate
from bayesfair._internal.threads import one_blas_thread
from bayesfair._internal.tree import get_group, has_group
from bayesfair._internal.validation import (
    check_epsilon,
    run_record,
    seed_record,
    seed_sequence,
)
from bayesfair.data.assessment import AssessmentData
from bayesfair.exceptions import (
    InvalidParameterError,
    SamplingWarning,
    SmallReferenceWarning,
    warnings_at_caller,
)
from bayesfair.metrics.fair_enough import VERDICT_PROB, probability_verdict
from bayesfair.metrics.rates import (
    COUNT_NAMES,
    UndefinedRateWarning,
    get_rate,
)
from bayesfair.metrics.verdicts import TOO_FEW, family_level
from bayesfair.models.catalogue import (
    DEFAULT_MODEL,
    LABELED_MODEL,
    MODEL_SPECS,
    models_with_map,
    named_models_with_map,
    verdict_order,
)
from bayesfair.posterior.checks import CHECK_COLUMNS
from bayesfair.posterior.fitting import fit, model_options
from bayesfair.posterior.groups import evidence
from bayesfair.posterior.proxy_view import proxy_assumption
from bayesfair.posterior.tables import difference_row
from bayesfair.report import prose
from bayesfair.report.document import comparison_html, comparison_json, comparison_markdown
from bayesfair.report.estimates import (
    ESTIMATE_COLUMNS,
    estimates_by_pair,
    pivot_pairs,
    set_aside,
)
from bayesfair.report.pair_methods import (
    SELECTIONS,
    PairContext,
    method_words,
    pair_method_records,
    set_aside_after,
)
from bayesfair.report.score import check_score_request, score_tables
from bayesfair.report.variance_rows import variance_row
from bayesfair.report.verdicts import pair_verdicts
from bayesfair.report.views import ViewSettings, calibration_view, group_views
from bayesfair.stats import min_interval_draws

__all__ = ["Comparison", "compare"]

DEFAULT_METRICS = ("accuracy", "tpr", "fpr")


@dataclass(frozen=True)
class Comparison:
    """Result of :func:`compare`.

    Attributes
    ----------
    pairs : pandas.DataFrame
        Per metric and group pair (see the module docstring): the wide table, the pivot
        of ``estimates`` (:func:`~bayesfair.report.estimates.pivot_pairs`).
    variance : pandas.DataFrame
        Per metric, between-group variance estimates with intervals; per Bayesian
        model ``<model>_mean/_lower/_upper`` over the draws in which every group's
        rate is defined, ``<model>_p_undefined`` (the share of the other draws) and a
        ``note`` that says when that share is not 0.
    groups : pandas.DataFrame
        Labeled and unlabeled example counts per group.
    settings : dict
        Threshold, reference group, ε, ``ci_prob``, models and their priors.
    posteriors : dict
        The fitted :class:`~bayesfair.posterior.FairnessPosterior` per model.
    estimates : pandas.DataFrame
        Every method's estimate of every pair's gap as one long table, one row per
        metric, pair and method (``metric, group, reference, method, estimate, lower,
        upper, half_width, effective_n, prob_practically_fair, p_undefined, decision,
        prior_sensitive``; a statistic a method does not give is empty); ``pairs`` is
        its pivot. Empty for a comparison built without it.
    calibration : pandas.DataFrame
        The calibration check of the calibration model's maps
        (:meth:`~bayesfair.posterior.FairnessPosterior.calibration_check`);
        empty when no calibration model was fitted.
    clusters : pandas.DataFrame
        ``compare(..., clusters=True)``: which fairness metrics say the same thing
        (:meth:`~bayesfair.posterior.FairnessPosterior.metric_clusters` of the
        calibration model), with ``group`` and ``reference`` columns, one block per
        pair; empty otherwise.
    group_view : pandas.DataFrame
        Per metric and group, the group's gap to all rows with a band that holds
        for the groups jointly: per Bayesian model ``<model>_gap``,
        ``<model>_gap_lower``, ``<model>_gap_upper``, ``<model>_prob_worst``,
        ``<model>_decision`` (:func:`bayesfair.posterior.groups.group_summary`), and the
        labeled rows' ``freq_gap``, ``freq_gap_lower``, ``freq_gap_upper``,
        ``freq_method`` (:func:`bayesfair.frequentist.group_intervals`) and
        ``freq_decision`` (the HDI + ROPE rule on that band).
    family_view : pandas.DataFrame
        Per metric, the family's verdict: per Bayesian model the columns of
        :func:`bayesfair.posterior.groups.family_summary` prefixed ``<model>_``, and
        ``freq_max_gap``, ``freq_max_gap_lower``, ``freq_max_gap_upper``,
        ``freq_decision`` from the frequentist band.
    calibration_view : pandas.DataFrame
        Calibration within groups, one row per group (the data's order): ``group,
        n_labeled, n_unlabeled``; the columns of
        :meth:`~bayesfair.posterior.FairnessPosterior.calibration_summary` of the
        model ``settings["calibration_model"]`` (the first fitted of RBC, BC, HBB,
        BB) prefixed ``<model>_`` (``<model>_mean_score``, ``<model>_positive_rate``
        with ``_lower``/``_upper``, ``<model>_calibration_gap`` with
        ``_lower``/``_upper``, ``<model>_decision``, ``<model>_prob_within``); the
        labeled rows' :func:`bayesfair.frequentist.calibration_intervals` prefixed
        ``freq_`` (the same names, Wilson and bootstrap-t intervals) with
        ``freq_decision`` (the HDI + ROPE rule on the bootstrap-t interval);
        ``sentence``, the gap in plain words where the verdict (the model's, else
        the labeled rows') is decided, ``""`` otherwise; ``note``. The gap is
        mean score − share of positives: positive where the scores overstate the
        group's positives. Empty for a comparison built without it.
    reliability : pandas.DataFrame
        The labeled rows' reliability curves
        (:func:`bayesfair.frequentist.reliability_curve`, one row per group and
        bin; the report's figure); empty when the labeled examples are a summary.
    verdicts : pandas.DataFrame
        One row per metric and pair, the verdict at ε and what it rests on
        (:func:`~bayesfair.report.verdicts.pair_verdicts`, held as a family over
        pairs and metrics): decided when the comparison is built, rendered by
        the reports.
    view_method : str
        The method the group and family verdicts rest on: the first fitted of RBC,
        BC, HBB, BB whose views exist, else ``"freq"`` (the labeled rows' max-|t|
        bootstrap).
    map_model : str or None
        The fitted model whose calibration maps the comparison reads (its calibration
        check, the disagreement sentences, the reliability figure): the first fitted of
        the models with maps (RBC, BC); None without one.
    """

    pairs: pd.DataFrame
    variance: pd.DataFrame
    groups: pd.DataFrame
    settings: dict
    posteriors: dict = field(default_factory=dict, repr=False)
    estimates: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False)
    calibration: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False)
    clusters: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False)
    scores: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False)
    sweep: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False)
    group_view: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False)
    family_view: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False)
    calibration_view: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False)
    reliability: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False)
    verdicts: pd.DataFrame = field(init=False, repr=False)
    view_method: str = field(init=False)
    map_model: str | None = field(init=False)

    def __post_init__(self):
        # the verdicts are decided here, once, from the tables above (a copy made with
        # dataclasses.replace decides its own); the reports only render them
        object.__setattr__(self, "verdicts", pair_verdicts(self))
        object.__setattr__(self, "view_method", _view_method(self.family_view))
        object.__setattr__(self, "map_model", _map_model(self.posteriors))

    @property
    def disagreements(self) -> list[str]:
        """One plain sentence per pair whose intervals disagree (the ``disagreement`` column)."""
        if "disagreement" not in self.pairs:
            return []
        return [d for d in self.pairs["disagreement"] if d]

    def to_frame(self) -> pd.DataFrame:
        """The pair table (one row per metric and group pair), a copy.

        As ``to_frame()`` of the Bernstein and the variance results: the
        result as one tidy table, intervals as ``*_lower``/``*_upper`` columns.
        """
        return self.pairs.copy()

    def to_markdown(self, digits: int = 3, detail: str = "summary") -> str:
        """The report as Markdown text (:func:`~bayesfair.report.comparison_markdown`).

        Parameters
        ----------
        digits : int, default 3
            Decimals of the tables.
        detail : {"summary", "full"}, default "summary"
            The answer first, then the sections it rests on; "full" adds every table.
        """
        return comparison_markdown(self, digits=digits, detail=detail)

    def to_html(self, figures: bool = True) -> str:
        """A self-contained HTML page: tables, settings, diagnostics, figures.

        Parameters
        ----------
        figures : bool, default True
            Embed the figures (PNG); False for a page of tables only.
        """
        return comparison_html(self, figures=figures)

    def to_json(self) -> str:
        """The comparison as JSON (NaN as null)."""
        return comparison_json(self)

    def __str__(self) -> str:
        return self.to_markdown()


def _provenance(data, arguments: dict) -> dict:
    """Versions, the time, and the call (``arguments``, as given to :func:`compare`), for
    the report's provenance block."""
    given = ", ".join(f"{name}={value!r}" for name, value in arguments.items())
    return run_record(f"bayesfair.compare(data, {given})", data)


#: With more than two groups, a reference group with fewer labeled examples is warned about.
MIN_REFERENCE_LABELS = 30


def _warn_small_reference(data, ref) -> None:
    """Warn when, with more than two groups, the reference has fewer than
    MIN_REFERENCE_LABELS labeled examples: every pair leans on it."""
    if data.n_groups <= 2:
        return
    n_ref = int(data.group_sizes().loc[ref, "n_labeled"])
    if n_ref < MIN_REFERENCE_LABELS:
        warnings.warn(
            f"The reference group {ref!r} has {n_ref} labeled examples (fewer than "
            f"{MIN_REFERENCE_LABELS}): every pair's difference inherits its uncertainty, and "
            "its luck. The group view compares each group with all rows instead "
            "(Comparison.group_view, FairnessPosterior.group_summary); or choose a larger "
            "reference.",
            SmallReferenceWarning,
            stacklevel=3,
        )


def _too_few_draws(posteriors, ci_prob) -> set:
    """Models whose draws are too few for an interval; warns once for each."""
    need = min_interval_draws(ci_prob)
    out = set()
    for name, res in posteriors.items():
        n = res.n_draws
        if n < need:
            out.add(name)
            warnings.warn(
                f"{name}: {n} posterior draws are too few for a {ci_prob:.0%} interval (at "
                f"least {need}); its intervals are not printed. Fit with more draws.",
                SamplingWarning,
                stacklevel=3,
            )
    return out


def _check_same_data(name, res, data) -> None:
    """Refuse a posterior fitted on other data: its groups and stored counts must match."""
    import numpy as np

    idata = getattr(res, "idata", None)
    if idata is None or not has_group(idata, "observed_data"):
        raise InvalidParameterError(
            f"posteriors[{name!r}] is not a result of bayesfair.fit. Got {type(res).__name__}."
        )
    obs = get_group(idata, "observed_data")
    same = list(obs.group.values) == list(group_coordinate(data.group_levels))
    if same:
        stored = np.stack([obs[c].values for c in COUNT_NAMES], axis=-1)
        same = np.array_equal(stored, data.labeled_examples.confusion_counts())
    constant = get_group(idata, "constant_data") if has_group(idata, "constant_data") else {}
    if same and "n_unlabeled" in constant:
        sizes = data.group_sizes()["n_unlabeled"].to_numpy()
        same = np.array_equal(constant["n_unlabeled"].values, sizes)
    if not same:
        raise InvalidParameterError(
            f"posteriors[{name!r}] was fitted on other data (its groups or labeled counts "
            "differ from 'data'); fit it on the data being compared, or leave it out."
        )


@warnings_at_caller
@one_blas_thread()
def compare(
    data: AssessmentData,
    metrics=DEFAULT_METRICS,
    *,
    epsilon: float = 0.02,
    reference=None,
    ci_prob: float = 0.95,
    models=(LABELED_MODEL, DEFAULT_MODEL),
    posteriors: dict | None = None,
    n_resamples: int = 2000,
    random_seed=None,
    fit_kwargs: dict | None = None,
    progressbar: bool = True,
    selection: str = "random",
    clusters: bool = False,
    score: bool = False,
) -> Comparison:
    """Compare Bayesian posteriors and frequentist intervals for group differences.

    Parameters
    ----------
    data : AssessmentData
    metrics : str or sequence of str
        Rates to compare (default accuracy, TPR, FPR); one name means that rate.
    epsilon : float
        Half-width of the region of practical equivalence for P(|Δ| < ε):
        positive and finite.
    reference : optional
        Reference group of the pairs; default ``data.reference``.
    ci_prob : float
        Probability of every interval.
    models : sequence of {"bb", "hbb", "bc", "rbc"}
        Bayesian models to fit; ``()`` for the frequentist columns only.
        Default: the labeled-only ``bb`` and the default model ``rbc``.
    posteriors : dict, optional
        Already fitted results by model name; they are used instead of fitting.
        Each must have been fitted on ``data`` (same groups and labeled
        counts), or the call raises.
    n_resamples : int
        Bootstrap samples of the frequentist intervals.
    random_seed : None, int, numpy.random.SeedSequence or numpy.random.Generator, optional
        Spawned into the bootstraps and the fits; recorded in
        ``settings["random_seed"]`` (entropy and spawn key, see :func:`bayesfair.fit`)
        and printed in the reports, so that a report can be reproduced from its contents.
    fit_kwargs : dict, optional
        Passed to :func:`bayesfair.fit` (e.g. ``draws``, ``chains``); not the
        arguments compare sets itself (``model``, ``metrics``, ``random_seed``,
        ``progressbar``).
    progressbar : bool
        Show the samplers' progress bars.
    selection : {"random", "stratum", "score", "mixed"}
        How the labeled examples were chosen: at random (default), or by
        :func:`bayesfair.suggest_labels` with ``within="stratum"``,
        ``"score"`` or ``"mixed"``. After active selection the intervals that assume labels
        drawn at random are left empty (NaN) and the note says why: Newcombe,
        bootstrap, Bernstein, Lum et al.'s variances and the labeled-only
        models ``bb`` and ``hbb`` (they do not condition on the scores the
        selection looked at), and PPI++ after ``"score"`` and ``"mixed"``
        (:mod:`bayesfair.labels`).
    clusters : bool, default False
        Also cluster the Fair-Enough metrics by their posterior draws under the
        calibration model (``rbc`` or ``bc`` must be among ``models``), per pair:
        the ``clusters`` table and the reports' section "Which metrics say the
        same thing", built from each draw's confusion counts.
    score : bool, default False
        Also read the score beyond the threshold under the calibration model: the
        ``scores`` table (each pair's AUC gap, posterior and DeLong's on the labeled
        rows) and the ``sweep`` (TPR and FPR along the thresholds 0.1–0.9 with joint
        bands), the reports' section "The score beyond one threshold" and its figures
        (:mod:`bayesfair.report.score`). Not for groups known as a proxy's probabilities.

    Returns
    -------
    Comparison
        ``pairs`` has a ``disagreement`` column: for a pair where two of the
        intervals of the calibration model, ``bb`` and Newcombe do not
        overlap, one plain sentence that says so, with the calibration
        check of the two groups; ``""`` otherwise.

    References
    ----------
    Ji, Smyth & Steyvers 2020 (Bayesian columns); Newcombe 1998; Lum, Zhang &
    Bower 2022 (variance); Ethayarajh 2020 (Bernstein).
    """
    metrics, epsilon = _checked_arguments(data, metrics, epsilon, selection, fit_kwargs)
    ref = data.reference if reference is None else data.resolve_group(reference, "reference")
    _warn_small_reference(data, ref)
    seq = seed_sequence(random_seed)
    # five children, in a fixed order so that a report's seed reproduces it: the
    # bootstraps, one unused (the fits take the root, below), PPI++, the group views and
    # the calibration view
    boot_seq, _, ppi_seq, view_seq, calibration_seq = seq.spawn(5)
    boot_seeds = boot_seq.spawn(2 * len(metrics))
    posteriors = dict(posteriors or {})
    for name, res in posteriors.items():
        _check_same_data(name, res, data)
    _check_views(data, set(models) | set(posteriors), clusters, score)
    view_model = _calibration_model(models, posteriors)
    options = (metrics, view_model, fit_kwargs, progressbar)
    # each model's fit takes the caller's seed itself (not a child of it), so that
    # bf.fit(data, model, random_seed=seed) gives the same draws
    posteriors.update(_fit_models(data, models, posteriors, options, seq))

    too_few = _too_few_draws(posteriors, ci_prob)
    calibrated = _map_model(posteriors)
    calibration = (
        posteriors[calibrated].calibration_check(warn=False)
        if calibrated is not None and posteriors[calibrated].model in models_with_map()
        else pd.DataFrame(columns=list(CHECK_COLUMNS))
    )
    pair_rows, estimate_rows, var_rows = [], [], []
    gone = [m for m in set_aside_after(selection) if m not in MODEL_SPECS or m in posteriors]
    views = ViewSettings(epsilon, ci_prob, n_resamples, selection)
    for i, metric in enumerate(metrics):
        with warnings.catch_warnings():
            # Undefined rates are stated in the table (NaN and the 'note' column).
            warnings.simplefilter("ignore", UndefinedRateWarning)
            rates = fq.rate_intervals(data, metric, ci_prob)
            diffs = fq.difference_intervals(
                data,
                metric,
                reference=ref,
                ci_prob=ci_prob,
                n_resamples=n_resamples,
                random_seed=boot_seeds[2 * i],
            )
        context = PairContext(data, metric, rates, diffs, ci_prob, ppi_seq)
        rows, records = _metric_pairs(context, posteriors, too_few, epsilon, gone, selection)
        pair_rows += rows
        estimate_rows += records
        var_rows.append(
            variance_row(data, metric, posteriors, too_few, views, boot_seeds[2 * i + 1])
        )

    estimates = set_aside(pd.DataFrame(estimate_rows, columns=ESTIMATE_COLUMNS), gone)
    settings = {
        "threshold": data.threshold,
        "reference": ref,
        "epsilon": epsilon,
        "ci_prob": ci_prob,
        "n_resamples": n_resamples,
        "models": list(posteriors),
        "priors": {name: res.settings.get("prior") for name, res in posteriors.items()},
        "positive_label": data.pos_label,
        "random_seed": seed_record(seq),
        "selection": selection,
        "estimands": {name: res.estimand_text for name, res in posteriors.items()},
        "proxy": _proxy_setting(data, posteriors),
        "provenance": _provenance(
            data,
            {
                "metrics": metrics,
                "epsilon": epsilon,
                "reference": ref,
                "ci_prob": ci_prob,
                "models": tuple(models),
                "n_resamples": n_resamples,
                "fit_kwargs": dict(fit_kwargs or {}),
            },
        ),
    }
    group_view, family_view = group_views(data, metrics, posteriors, too_few, views, view_seq)
    calibration_table, reliability = calibration_view(
        data,
        {view_model: posteriors[view_model]} if view_model not in (None, *too_few) else {},
        views,
        calibration_seq,
    )
    settings["calibration_model"] = calibration_table.attrs["model"]
    return Comparison(
        group_view=group_view,
        family_view=family_view,
        calibration_view=calibration_table,
        reliability=reliability,
        pairs=_pairs_table(pair_rows, estimates, list(posteriors), calibrated, calibration),
        estimates=estimates,
        variance=pd.concat(var_rows, ignore_index=True).set_index("metric"),
        groups=data.group_sizes(),
        settings=settings,
        posteriors=posteriors,
        calibration=calibration,
        clusters=_metric_clusters(posteriors, ref) if clusters else pd.DataFrame(),
        **_score_tables(posteriors, data, ref, epsilon, ci_prob) if score else {},
    )


def _check_views(data, models: set, clusters: bool, score: bool) -> None:
    """Refuse, before any fit, the views that need a calibration model without one."""
    if clusters and not set(models_with_map()) & models:
        raise InvalidParameterError(
            f"clusters=True needs a calibration model: include {named_models_with_map()} in "
            "'models'."
        )
    if score:
        check_score_request(data, models)


def _score_tables(posteriors: dict, data, reference, epsilon, ci_prob) -> dict:
    """``scores`` and ``sweep`` of ``compare(..., score=True)`` (:mod:`bayesfair.report.score`)."""
    calibrated = _map_model(posteriors)
    auc, sweep = score_tables(posteriors[calibrated], data, reference, epsilon, ci_prob)
    return {"scores": auc, "sweep": sweep}


def _map_model(posteriors: dict) -> str | None:
    """The first fitted model with calibration maps, in the catalogue's order (None)."""
    return next((m for m in models_with_map() if m in posteriors), None)


def _view_method(family_view: pd.DataFrame) -> str:
    """The first model of :func:`verdict_order` whose family view exists, else "freq"."""
    return next((m for m in verdict_order() if f"{m}_decision" in family_view), "freq")


def _fit_models(data, models, given: dict, options, seq) -> dict:
    """The fits of the models not ``given``, each seeded as ``bf.fit(random_seed=seq)``
    would be (a fresh copy of ``seq`` per model, whatever ``seq`` has spawned: one seed,
    one answer, through ``fit`` or ``compare``); the model of the calibration view
    (``options[1]``) also computes the base rate (its other rates' draws do not depend
    on it)."""
    fit_metrics, view_model, fit_kwargs, progressbar = options
    out = {}
    for name in models:
        if name in given:
            continue
        model_seq = np.random.SeedSequence(
            seq.entropy, spawn_key=seq.spawn_key, pool_size=seq.pool_size
        )
        # the calibration view reads the draws of each group's share of positives
        extra = ["base_rate"] if name == view_model and "base_rate" not in fit_metrics else []
        out[name] = fit(
            data,
            name,
            metrics=[*fit_metrics, *extra],
            random_seed=model_seq,
            progressbar=progressbar,
            **model_options(name, fit_kwargs),
        )
    return out


def _checked_arguments(data, metrics, epsilon, selection, fit_kwargs) -> tuple[list[str], float]:
    """:func:`compare`'s data, metrics (canonical names), ε, selection and fit_kwargs
    (which may not set what compare sets for every model), checked."""
    own = sorted(set(fit_kwargs or {}) & {"data", "model", "metrics", "random_seed", "progressbar"})
    if own:
        raise InvalidParameterError(
            f"'fit_kwargs' may not set {', '.join(map(repr, own))}: compare sets them for "
            "every model; pass them to compare itself (models=, metrics=, random_seed=, "
            "progressbar=)."
        )
    if not isinstance(data, AssessmentData):
        raise InvalidParameterError(
            f"The 'data' parameter must be an AssessmentData. Got {type(data).__name__}."
        )
    if isinstance(metrics, str):
        metrics = [metrics]
    metrics = [get_rate(m).name for m in metrics]
    if not metrics:
        raise InvalidParameterError(
            "The 'metrics' parameter must name at least one rate, e.g. ['accuracy', 'tpr']."
        )
    epsilon = check_epsilon(epsilon)
    if selection not in SELECTIONS:
        raise InvalidParameterError(
            "The 'selection' parameter must be 'random', 'stratum', 'score' or 'mixed'. "
            f"Got {selection!r}."
        )
    data.require_groups(2, "a side-by-side comparison of group differences")
    if data.period_levels is not None:
        raise InvalidParameterError(
            "This data has periods: compare sets the methods side by side at one time. "
            "For the audit over time, res = bayesfair.fit_periods(data) (a "
            "PeriodPosterior; res.period_summary() is its table), rendered with "
            "bayesfair.report.periods.period_markdown(res) (or period_html, period_json); "
            "to compare the methods on one period, build the data without 'period' from "
            "that period's rows."
        )
    return metrics, epsilon


#: The models whose calibration view a comparison shows, in order of preference (the
#: order the findings rest on).
CALIBRATION_MODELS = verdict_order()


def _calibration_model(models, posteriors) -> str | None:
    """The model of the calibration view: the first of CALIBRATION_MODELS to be fitted, or
    given with the draws of ``base_rate`` (a given result without them is passed over)."""
    for name in CALIBRATION_MODELS:
        given = posteriors.get(name)
        if (given is None and name in models) or (
            given is not None and "base_rate" in given.metrics
        ):
            return name
    return None


def _metric_clusters(posteriors: dict, reference) -> pd.DataFrame:
    """The calibration model's metric clusters for each group against the reference, their
    verdicts passed through the one gate (the pair's labeled rows and rows assessed, as
    accuracy's) and held as a family over every metric of every pair (each at
    :func:`~bayesfair.metrics.verdicts.family_level`)."""
    res = posteriors[_map_model(posteriors)]
    gate = evidence(res, "accuracy")
    tables = []
    for g in res.groups:
        if g != reference:
            t = res.metric_clusters(group=g, reference=reference)
            t.insert(0, "group", g)
            t.insert(1, "reference", reference)
            tables.append(t)
    out = pd.concat(tables, ignore_index=True)
    level = family_level(VERDICT_PROB, len(out))
    out["verdict"] = [
        TOO_FEW
        if not (gate[g].enough and gate[reference].enough)
        else probability_verdict(p, level)
        for g, p in zip(out["group"], out["prob_fair"], strict=True)
    ]
    out.attrs = tables[0].attrs  # the first pair's dendrogram (the report's figure)
    return out


def _proxy_setting(data, posteriors) -> dict | None:
    """What the report says of the rows whose group is a proxy's probabilities."""
    if data.proxy is None:
        return None
    assumptions = {
        n: text for n, res in posteriors.items() if (text := proxy_assumption(res.idata))
    }
    return {
        "rows": data.proxy.n_unknown(),
        "self_reported": data.proxy.n_self_reported(),
        "assumptions": assumptions,
        "weighted_assumes": prose.PROXY_ASSUMES["weighted"],
        "bounds_assume": prose.PROXY_ASSUMES["bounds"],
    }


def _metric_pairs(context: PairContext, posteriors, too_few, epsilon, gone, selection):
    """Every pair's own columns and estimates for one metric: the registered methods'
    (:func:`~bayesfair.report.pair_methods.pair_method_records`) and each posterior's,
    with the methods set aside after active selection (``gone``) said in its note."""
    pair_rows, estimate_rows = [], []
    for pair in context.diffs.index:
        out = _pair_columns(context, pair)
        records, notes = pair_method_records(context, pair)
        model_records, model_notes = _posterior_records(context, pair, posteriors, too_few, epsilon)
        notes = prose.undefined_among_labels(context.rates, context.metric, pair) + notes
        notes += model_notes
        if gone:
            out["freq_estimate"] = np.nan
            notes.append(prose.set_aside_note([method_words(m) for m in gone], selection))
        out["note"] = "; ".join(dict.fromkeys(notes))
        pair_rows.append(out)
        estimate_rows += records + model_records
    return pair_rows, estimate_rows


def _pair_columns(context: PairContext, pair) -> dict:
    """A pair's own columns: its groups' labeled sizes and successes, the frequency
    estimate of its gap."""
    rates, (g, r) = context.rates, pair
    return {
        "metric": context.metric,
        "group": g,
        "reference": r,
        "n_group": int(rates.loc[g, "trials"]),
        "n_reference": int(rates.loc[r, "trials"]),
        "successes_group": int(rates.loc[g, "successes"]),
        "successes_reference": int(rates.loc[r, "successes"]),
        "freq_estimate": context.diffs.loc[pair, "estimate"],
    }


def _posterior_records(context: PairContext, pair, posteriors, too_few, epsilon):
    """Each posterior's record of a pair's gap (mean, HDI, P(|Δ| < ε), decision) and the
    sentences of the pair's note it adds (undefined draws, the rate's note, the prior)."""
    metric, (g, r) = context.metric, pair
    records, undefined, prior_notes = [], [], []
    for name, res in posteriors.items():
        # the one computation of a difference's summary (the result's summary uses it too)
        d = difference_row(res, metric, pair, epsilon, context.ci_prob, name not in too_few)
        records.append(
            {
                "metric": metric,
                "group": g,
                "reference": r,
                "method": name,
                "estimate": d["mean"],
                "lower": d["hdi_lower"],
                "upper": d["hdi_upper"],
                "prob_practically_fair": d["prob_practically_fair"],
                "p_undefined": d["p_undefined"],
                "decision": d["decision"],
                "prior_sensitive": d["prior_sensitive"],
            }
        )
        if d["sentence"]:
            prior_notes.append(f"{name.upper()}: {d['sentence']}")
        if d["p_undefined"] > 0:
            undefined.append(f"{name.upper()} in {d['p_undefined']:.1%} of its draws")
    notes = [prose.undefined_draws(undefined)] if undefined else []
    notes += [n for res in posteriors.values() if (n := res.rate_note(metric, pair))]
    return records, notes + prior_notes


def _pairs_table(pair_rows, estimates, models, calibrated, calibration) -> pd.DataFrame:
    """The wide pair table (:func:`~bayesfair.report.estimates.pivot_pairs`) with each
    pair's disagreement sentence, read from the estimates: the calibration model's,
    the labeled rows' model's and Newcombe's intervals."""
    pairs = pivot_pairs(pd.DataFrame(pair_rows), estimates, models)
    compared = [(calibrated, calibrated), (LABELED_MODEL, LABELED_MODEL), ("Newcombe", "newcombe")]
    compared = [(name, m) for name, m in compared if m == "newcombe" or m in models]
    table = estimates_by_pair(estimates)
    sentences = []
    for pair in pairs[["metric", "group", "reference"]].to_dict("records"):
        key = (pair["metric"], pair["group"], pair["reference"])
        intervals = [
            (name, table[(*key, m)]["lower"], table[(*key, m)]["upper"]) for name, m in compared
        ]
        sentences.append(prose.disagreement(pair, intervals, calibrated, calibration))
    pairs["disagreement"] = sentences
    return pairs
