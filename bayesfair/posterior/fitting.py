"""``bayesfair.fit``: from :class:`AssessmentData` to a :class:`FairnessPosterior`.

The one flow: labeled counts (and, for ``bc``/``rbc``, unlabeled scores) ->
model -> per-draw, per-group confusion counts or rates -> the result object.
"""

from __future__ import annotations

import inspect
import warnings
from dataclasses import replace

import numpy as np
import pandas as pd
import xarray as xr

from bayesfair._internal.names import plain_scalar, resolve_name, suggest
from bayesfair._internal.netcdf import group_coordinate
from bayesfair._internal.threads import one_blas_thread
from bayesfair._internal.tree import get_group, has_group, make_tree
from bayesfair._internal.validation import (
    check_positive_int,
    run_record,
    seed_record,
    seed_sequence,
)
from bayesfair.data.assessment import AssessmentData
from bayesfair.exceptions import (
    CalibrationWarning,
    IgnoredOptionWarning,
    InvalidParameterError,
)
from bayesfair.metrics.rates import COUNT_NAMES, RATES, get_rate
from bayesfair.models.calibration import (
    VARIANTS,
    DiscrepancyPrior,
)
from bayesfair.models.catalogue import (
    DEFAULT_MODEL,
    MODEL_SPECS,
    models_with_map,
    named_models_with_map,
    verdict_order,
)
from bayesfair.models.request import FitRequest
from bayesfair.models.sampling import BACKENDS
from bayesfair.models.unlabeled import DEFAULT_BINS
from bayesfair.posterior.check_words import misfit_message
from bayesfair.posterior.periods import (
    drift_table,
    family_drift,
    group_over_periods,
    period_sizes,
    proxy_period_sizes,
)
from bayesfair.posterior.result import ESTIMANDS, RATES_GROUP, FairnessPosterior, PeriodPosterior

#: The models ``fit`` knows, with a one-line description (from the catalogue,
#: :mod:`bayesfair.models.catalogue`), from the simplest to the default.
MODELS = {name: MODEL_SPECS[name].description for name in reversed(verdict_order())}


def _resolve_prior(model: str, prior):
    """The model's typed prior: its default or the given one."""
    kind = MODEL_SPECS[model].prior_type
    if kind is None:
        raise InvalidParameterError(
            f"Model {model!r} cannot be fitted: its ModelSpec names no prior_type (the "
            "class of its prior, whose default instance a fit records)."
        )
    if prior is None:
        return kind()
    if isinstance(prior, kind):
        return prior
    raise InvalidParameterError(
        f"The 'prior' of model={model!r} must be a {kind.__name__}. Got {prior!r}."
    )


#: The values of ``fit``'s ``sampler``: ``"auto"``, ``bb``'s exact conjugate sampler, NUTS
#: by its default implementation, and NUTS by each implementation (:data:`BACKENDS`).
SAMPLERS = ("auto", "exact", "nuts", *BACKENDS[1:])

_NUTS_CHOICES = BACKENDS[1:]  # the samplers that name a NUTS implementation


def _check_sampler(sampler) -> str:
    """The canonical ``sampler`` (case-insensitive, as model names); a bad one lists them."""
    allowed = ", ".join(map(repr, SAMPLERS))
    if not isinstance(sampler, str):
        raise InvalidParameterError(
            f"The 'sampler' parameter must be one of {allowed}. Got {sampler!r} of type "
            f"{type(sampler).__name__}."
        )
    key = sampler.strip().lower()
    if key not in SAMPLERS:
        raise InvalidParameterError(
            f"The 'sampler' parameter must be one of {allowed}. Got {sampler!r}."
            f"{suggest(key, SAMPLERS)}"
        )
    return key


def _resolve_sampler(model, sampler, cores, stacklevel: int = 3) -> tuple[str, str, int | None]:
    """How draws are made: ``"exact"`` or ``"nuts"``, the NUTS backend, and ``cores``.

    The warnings point at the caller of ``fit`` (``stacklevel`` 3 from ``fit``, one more
    from a helper of it).
    """
    sampler = _check_sampler(sampler)
    has_exact = MODEL_SPECS[model].exact_sampler
    if sampler == "exact" and not has_exact:
        exact_models = [name for name, spec in MODEL_SPECS.items() if spec.exact_sampler]
        raise InvalidParameterError(
            "sampler='exact' exists only for "
            + ", ".join(f"model={name!r}" for name in exact_models)
            + " (the conjugate posterior)."
        )
    exact = has_exact and sampler in ("auto", "exact")
    if exact and cores is not None:
        warnings.warn(
            f"model={model!r} draws from its exact posterior (sampler={sampler!r}) and ignores "
            "'cores'; pass sampler='nuts' (or one of "
            f"{', '.join(map(repr, _NUTS_CHOICES))}) to sample it with NUTS.",
            IgnoredOptionWarning,
            stacklevel=stacklevel,
        )
    if cores is not None:
        cores = check_positive_int(cores, "cores")
    backend = sampler if sampler in _NUTS_CHOICES else "auto"
    return ("exact" if exact else "nuts"), backend, cores


def _warn_ignored(model: str, stacklevel: int = 3, **options) -> None:
    """Warn about options given (not None) to a model that does not use them (pointing at
    the caller of ``fit`` with ``stacklevel`` 3 from ``fit``)."""
    uses = {
        "variant": models_with_map(),
        "score_clip": models_with_map(),
        "n_bins": models_with_map(),
        "discrepancy": tuple(name for name, spec in MODEL_SPECS.items() if spec.absorbs_misfit),
    }
    ignored = [k for k, v in options.items() if v is not None and model not in uses[k]]
    if ignored:
        users = " / ".join(sorted({m for k in ignored for m in uses[k]}))
        warnings.warn(
            f"model={model!r} ignores {', '.join(map(repr, ignored))}: "
            f"{'they apply' if len(ignored) > 1 else 'it applies'} to {users} only.",
            IgnoredOptionWarning,
            stacklevel=stacklevel,
        )


def fit(
    data: AssessmentData,
    model: str = DEFAULT_MODEL,
    *,
    metrics=None,
    draws: int = 1000,
    tune: int = 1000,
    chains: int = 4,
    random_seed=None,
    estimand: str | None = None,
    prior=None,
    variant: str | None = None,
    score_clip: float | None = None,
    sampler: str = "auto",
    target_accept: float | None = None,
    n_bins: int | None = None,
    progressbar: bool = True,
    discrepancy: DiscrepancyPrior | None = None,
    cores: int | None = None,
) -> FairnessPosterior:
    """Fit a fairness model and return posterior draws of every group's rates.

    Data with periods (``AssessmentData.from_frames(..., period=...)``) are audited
    over time by :func:`fit_periods`; ``fit`` refuses them.

    Parameters
    ----------
    data : AssessmentData
        Labeled (and optionally unlabeled) classifier outputs.
    model : {"rbc", "bc", "bb", "hbb"}
        ``"rbc"`` (default) the robust calibration model: hierarchical beta
        calibration in which each stratum (group × side of the threshold) may
        instead follow a positive rate of its own, so that a group whose scores
        the beta-calibration family describes badly falls back on its labeled
        examples (:class:`~bayesfair.models.calibration.DiscrepancyPrior`);
        ``"bc"`` the hierarchical beta calibration of Ji et al. (trusts the
        calibration family completely); ``"bb"`` the beta-binomial of the labeled
        counts (one Dirichlet over each group's four cells); ``"hbb"`` hierarchical
        beta-binomial on the labeled counts.
    metrics : list of str, optional
        Rates to compute (default: the whole catalogue, ``bayesfair.metrics.RATES``).
    draws, tune, chains : int
        Posterior draws and tuning steps per chain, and the number of chains.
    random_seed : None, int, numpy.random.SeedSequence or numpy.random.Generator, optional
        The one source of randomness (spawned into the sampler's and the
        predictive's generators). Recorded in ``settings["random_seed"]`` as
        the entropy and spawn key of its ``SeedSequence`` (fresh entropy when
        None), which rebuild it: ``np.random.SeedSequence(int(entropy),
        spawn_key=spawn_key)`` as ``random_seed`` repeats the fit.
    estimand : {"assessed", "expected"}, optional
        Which gap the posterior describes (calibration models only).
        ``"assessed"``: the rates on the assessed examples, labeled and
        unlabeled together (a finite population): labeled examples count with
        their labels, unlabeled ones with labels drawn from the calibrated
        probabilities. This is what an audit of a data set reports, and what
        the default interval covers. ``"expected"``: the classifier's expected
        rates in each group's score distribution (a new example's), i.e. the
        calibrated probabilities averaged over the unlabeled scores (Ji et
        al. Eq. 1, generalised to every rate), the labels of the unlabeled
        examples not drawn; the right target when the question is about the
        classifier on future data. A group's rows, labeled (with their labels)
        and unlabeled, are a sample of its score distribution, so each draw weighs
        them by a Bayesian bootstrap whose prior puts the weight of one row on the
        pooled scores of all groups
        (:func:`~bayesfair.models.unlabeled.bootstrap_entry_counts`): with
        thousands of rows per group this adds little, with a handful it is most of
        the width. A group without unlabeled rows has its labeled scores, through
        the map, as its sample. Both estimands have about the same posterior mean; with
        thousands of unlabeled rows per group they agree. Default:
        ``"assessed"`` when there are unlabeled examples, else ``"expected"``
        (the assessed examples would then all be labeled and their gap known
        exactly). ``bb`` and ``hbb`` model rates, not labels:
        their posterior is always for the expected rates.
    prior : BetaPrior, KappaPrior or CalibrationPriors, optional
        One typed form per model: ``bb`` a
        :class:`~bayesfair.models.beta_binomial.BetaPrior` (default Dirichlet(1) over
        each group's cells: uniform for TPR-like rates, Beta(2, 2) for accuracy);
        ``hbb`` a :class:`~bayesfair.models.beta_binomial.KappaPrior`; ``bc``
        and ``rbc`` a :class:`~bayesfair.models.calibration.CalibrationPriors`.
    variant : {"beta", "llo", "temperature"}, default "beta"
        ``bc``/``rbc`` only: the calibration family.
    score_clip : float, default 0.01
        ``bc``/``rbc`` only: ε of the clipping of scores to ``[ε, 1 − ε]``.
    sampler : {"auto", "exact", "nuts", "native", "nutpie", "pymc"}, default "auto"
        How the draws are made (:mod:`bayesfair.models.sampling`). ``"auto"``: ``bb``'s
        exact conjugate sampler for ``bb``, NUTS by its default implementation
        for the other models. ``"exact"``: the exact conjugate sampler
        (``bb`` only). ``"nuts"``: NUTS by its default implementation, the
        hand-written log density where the model has one (``bc``, ``rbc``), else
        the PyMC model compiled for nutpie. ``"native"``, ``"nutpie"``,
        ``"pymc"``: NUTS by that implementation, for every model (``bb`` too, which
        is then sampled with NUTS): the hand-written log density (``bc``, ``rbc``;
        ``bb`` and ``hbb``, which have none, use the compiled PyMC model), the
        PyMC model compiled for nutpie, or ``pm.sample``. Recorded in
        ``settings``: ``"sampler"`` is ``"exact"`` or ``"nuts"``, ``"backend"``
        the NUTS implementation asked for (``"auto"`` for the default one).
    target_accept : float, optional
        NUTS target acceptance rate. Default 0.99 for ``hbb`` and ``bc`` and
        0.9 for ``bb`` with NUTS. Simulation-based calibration and the Ji et al.
        reproduction found divergences at 0.9 for ``hbb`` (κ near 1 with very
        different groups: 15 of 100 simulated data sets) and for ``bc`` with
        many labels per group (n_L = 200: most fits), which 0.99 removes for
        about 35% more sampling time.
    n_bins : int, default 1024
        ``bc``/``rbc`` only: histogram bins per group and side of the threshold
        for the unlabeled reduction (:mod:`bayesfair.models.unlabeled`). The
        calibration-only options (``variant``, ``score_clip``, ``n_bins``,
        ``discrepancy``) given to a model that ignores them raise an
        :class:`~bayesfair.exceptions.IgnoredOptionWarning`.
    progressbar : bool
        Show the sampler's progress bar (PyMC's name for the option).
    discrepancy : DiscrepancyPrior, optional
        ``rbc`` only: where the calibration map may be wrong, and the prior of
        a misfitting stratum's rate.
    cores : int, optional
        Chains run in parallel; default ``min(chains, os.cpu_count())``. ``bb``'s
        exact sampler ignores it (an
        :class:`~bayesfair.exceptions.IgnoredOptionWarning`).

    Returns
    -------
    FairnessPosterior

    Warns
    -----
    SamplingWarning
        When R-hat > 1.01 or there are divergences, with advice.
    CalibrationWarning
        ``rbc`` and ``bc``: when the calibration check
        (:meth:`FairnessPosterior.calibration_check`) finds a group's map
        contradicted by its labeled examples; the message is also added to
        ``notes``.

    Notes
    -----
    With ``rbc`` each posterior draw also says which strata (group × side of
    the threshold) do not follow the calibration map (``posterior["misfit"]``)
    and how probable that is (``p_misfit``, and ``p_misfit_shared`` for a side
    in every group); see :class:`~bayesfair.models.calibration.DiscrepancyPrior`.

    References
    ----------
    Ji, Smyth & Steyvers 2020, §2 (bb, bc, Eq. 1); Hoeting et al. 1999 (Bayesian
    model averaging, rbc's per-stratum mixture); Angelopoulos et al. 2023 and
    Fisch et al. 2024 (the stratified estimator rbc falls back on).
    """
    _check_data(data)
    if data.period_levels is not None:
        raise InvalidParameterError(
            "These data have periods: bayesfair.fit_periods(data, ...) audits them over time "
            "(same arguments). To pool the periods, build the data without 'period'."
        )
    model = resolve_name(model, MODEL_SPECS, what="model", argument="model")
    spec = MODEL_SPECS[model]
    _warn_ignored(
        model, variant=variant, score_clip=score_clip, n_bins=n_bins, discrepancy=discrepancy
    )
    sampler, backend, cores = _resolve_sampler(model, sampler, cores)
    variant = "beta" if variant is None else variant
    score_clip = 0.01 if score_clip is None else score_clip
    n_bins = DEFAULT_BINS if n_bins is None else n_bins
    draws = check_positive_int(draws, "draws")
    chains = check_positive_int(chains, "chains")
    tune = check_positive_int(tune, "tune", minimum=0)
    estimand = _resolve_estimand(estimand, model, data)
    _check_score_clip(score_clip)
    metrics = (
        list(RATES) if metrics is None else list(dict.fromkeys(get_rate(m).name for m in metrics))
    )

    seed_seq, sampler_seed, rng, prior_rng = _streams(random_seed)

    notes = _no_labels_notes(data, model) + _unread_rows_notes(data, model)

    if target_accept is None:
        target_accept = spec.target_accept
    run = dict(
        draws=draws,
        tune=tune,
        chains=chains,
        random_seed=sampler_seed,
        progressbar=progressbar,
        target_accept=target_accept,
        backend=backend,
        cores=cores,
    )
    prior = _resolve_prior(model, prior)
    disc = None
    if spec.absorbs_misfit:  # the misfit prior of K groups (DiscrepancyPrior.for_groups)
        disc = (discrepancy or DiscrepancyPrior()).for_groups(data.n_groups)
    if spec.has_map and variant not in VARIANTS:
        raise InvalidParameterError(f"Unknown variant {variant!r}. Choose one of {VARIANTS}.")
    request = FitRequest(
        metrics=metrics,
        prior=prior,
        sampler=sampler,
        rng=rng,
        prior_rng=prior_rng,
        sampling=run,
        notes=notes,
        variant=variant,
        score_clip=score_clip,
        estimand=estimand,
        n_bins=n_bins,
        discrepancy=disc,
    )
    with one_blas_thread():
        idata, rate_draws, prior_draws = spec.fit(data, request)
    settings = _settings_record(data, spec, request, seed_record(seed_seq))
    idata = _attach(
        idata,
        data,
        metrics,
        rate_draws,
        score_clip=score_clip,
        n_bins=n_bins,
        prior_draws=prior_draws,
    )
    reference = group_coordinate(data.group_levels)[data.group_levels.index(data.reference)]
    result = FairnessPosterior(
        idata,
        model=model,
        reference=plain_scalar(reference),
        notes=notes,
        settings=settings,
        data=data,
    )
    result.check_diagnostics(stacklevel=2)
    if model in models_with_map() and data.n_labeled > 0:
        msg = misfit_message(model, result.calibration_check(warn=False))
        if msg:
            warnings.warn(msg, CalibrationWarning, stacklevel=2)
            result.notes.append(msg)
    return result


def _check_score_clip(score_clip) -> None:
    if not 0 < score_clip < 0.5:
        raise InvalidParameterError(
            f"The 'score_clip' parameter must be in (0, 0.5). Got {score_clip!r}."
        )


def _streams(random_seed) -> tuple:
    """A fit's random streams: its seed sequence, the sampler's seed, the generator of the
    predictive draws (the unlabeled labels, the strata's states) and of the prior draws."""
    seed_seq = seed_sequence(random_seed)
    sampler_seq, predictive_seq = seed_seq.spawn(2)
    sampler_seed = int(sampler_seq.generate_state(1)[0])
    rng = np.random.default_rng(predictive_seq)
    # the prior predictive draws (bayesfair.posterior.sensitivity): the root's fourth child, a
    # stream apart from the sampler's and the predictive's (the first two)
    prior_rng = np.random.default_rng(
        np.random.SeedSequence(seed_seq.entropy, spawn_key=(*seed_seq.spawn_key, 3))
    )
    return seed_seq, sampler_seed, rng, prior_rng


def _settings_record(data, spec, request: FitRequest, seed: dict) -> dict:
    """What a result records of its fit (``settings``), in the order it has always kept.

    Parameters
    ----------
    data : AssessmentData
    spec : ModelSpec
    request : FitRequest
        The fit's checked settings.
    seed : dict
        The seed sequence's record (:func:`~bayesfair._internal.validation.seed_record`).
    """
    run = request.sampling
    settings = {
        "model": spec.name,
        "draws": run["draws"],
        "tune": run["tune"],
        "chains": run["chains"],
        "random_seed": seed,
        "threshold": data.threshold,
        "estimand": request.estimand,
        "backend": run["backend"],
    }
    if spec.has_map:
        settings.update(
            sampler="nuts",
            variant=request.variant,
            score_clip=request.score_clip,
            prior=request.prior.to_dict(),
            n_bins=request.n_bins,
        )
    else:
        settings.update(sampler=request.sampler, prior=request.prior.to_dict())
    if request.discrepancy is not None:
        settings["discrepancy"] = request.discrepancy.to_dict()
    return settings


def _unread_rows_notes(data, model) -> list[str]:
    """A labeled-only model on data with group probabilities: which rows it leaves out."""
    if data.proxy is None or MODEL_SPECS[model].has_map:
        return []
    return [
        f"{data.proxy.n_unknown():,} rows' groups are known only from the proxy: "
        f"model={model!r} reads the labeled rows of self-reported group alone, not them "
        f"(the calibration models {named_models_with_map('and')} assess every row)."
    ]


def _no_labels_notes(data, model) -> list[str]:
    """The result's note on groups without a labeled example.

    No warning here: such a group can only come from the unlabeled data, and
    :class:`~bayesfair.AssessmentData` warned about it when the data were built
    (``UnlabeledGroupWarning``); a second, near-identical warning per fit said nothing new.
    """
    counts = data.labeled_examples.confusion_counts()
    no_labels = [g for g, n in zip(data.group_levels, counts.sum(axis=1), strict=True) if n == 0]
    spec = MODEL_SPECS[model]
    if data.proxy is not None and data.n_labeled == 0 and spec.has_map:
        return []  # the maps are fitted to the labeled rows shared among the groups
    if not no_labels:
        return []
    return [f"Group(s) {no_labels} have no labeled example: their rates {spec.no_labels}."]


#: fit options that only the calibration models take.
CALIBRATION_OPTIONS = ("estimand", "discrepancy", "variant", "score_clip", "n_bins")


def model_options(model: str, fit_kwargs) -> dict:
    """The options of ``fit_kwargs`` that apply to ``model``.

    Harnesses that fit several models with one set of options (``compare``,
    ``run_experiment``) pass the calibration models' own options
    (:data:`CALIBRATION_OPTIONS`) to ``bc``/``rbc`` only.
    """
    options = dict(fit_kwargs or {})
    spec = MODEL_SPECS.get(model)
    if spec is not None and not spec.has_map:
        options = {k: v for k, v in options.items() if k not in CALIBRATION_OPTIONS}
    return options


def _resolve_estimand(estimand, model, data) -> str:
    if estimand is not None and estimand not in ESTIMANDS:
        raise InvalidParameterError(
            f"The 'estimand' parameter must be one of {', '.join(map(repr, ESTIMANDS))}. "
            f"Got {estimand!r}."
        )
    if not MODEL_SPECS[model].has_map:
        if estimand == "assessed":
            raise InvalidParameterError(
                f"model={model!r} models the group rates, not the labels of the unlabeled "
                "examples: its posterior is for estimand='expected'. Use a calibration model "
                f"({named_models_with_map()}) for the gap on the assessed examples."
            )
        return "expected"
    if data.proxy is not None:
        if estimand == "expected":
            raise InvalidParameterError(
                "With group probabilities the estimand is the rate over the assessed rows by "
                "their true groups: estimand='assessed' (the default)."
            )
        return "assessed"
    if estimand is None:
        return "assessed" if data.n_unlabeled > 0 else "expected"
    return estimand


def _attach(
    idata,
    data: AssessmentData,
    metrics,
    rate_draws,
    *,
    score_clip=0.01,
    n_bins=None,
    prior_draws=None,
):
    """Label groups; return the tree with observed counts and the ``rates`` group.

    ``prior_draws`` (metric -> ``(draw, group)``), the rates' prior predictive draws,
    become the ``prior`` group (one chain).

    ``constant_data`` keeps the labeled examples' summary (``labeled_*`` on the
    ``labeled_cell`` dimension; :func:`~bayesfair.posterior.checks.stored_labeled_summary`
    reads it back) for the calibration check: its size does not grow with the
    labeled set; and ``score_sum``, each group's sum of raw scores over the assessed
    rows (:func:`bayesfair.posterior.calibration_view.assessed_mean_score`)."""
    labels = group_coordinate(data.group_levels)
    posterior = get_group(idata, "posterior")
    if "group" in posterior.dims:
        posterior = posterior.assign_coords(group=labels)
    rates = xr.Dataset(
        {m: (("chain", "draw", "group"), rate_draws[m]) for m in metrics},
        coords={"chain": posterior.chain.values, "draw": posterior.draw.values, "group": labels},
    )
    counts = data.labeled_examples.confusion_counts()
    observed = xr.Dataset(
        {name: (("group",), counts[:, i]) for i, name in enumerate(COUNT_NAMES)},
        coords={"group": labels},
    )
    sizes = data.group_sizes()
    extra = {}
    if "misfit_center" in posterior:  # rbc: the fixed centre of a misfitting stratum's rate
        extra["misfit_center"] = (("group", "side"), posterior["misfit_center"].values)
        posterior = posterior.drop_vars("misfit_center")
    if "proxy_density" in posterior:  # a mixture's score densities, which proxy_phi indexes
        extra["proxy_density"] = (
            ("proxy_replicate", "group", "score_cell"),
            posterior["proxy_density"].values,
        )
        posterior = posterior.drop_vars("proxy_density")
    constant = xr.Dataset(
        {
            "n_labeled": (("group",), sizes["n_labeled"].to_numpy()),
            "n_unlabeled": (("group",), sizes["n_unlabeled"].to_numpy()),
            # the raw scores' sum over the assessed rows (calibration_view's mean score)
            "score_sum": (
                ("group",),
                data.labeled_examples.score_sums() + data.unlabeled_examples.score_sums(),
            ),
            **_cell_variables(data.labeled_summary(score_clip, n_bins)),
            **extra,
        },
        coords={"group": labels},
    )
    groups = {"posterior": posterior, "observed_data": observed, "constant_data": constant}
    if has_group(idata, "sample_stats"):
        groups["sample_stats"] = get_group(idata, "sample_stats")
    if prior_draws:
        groups["prior"] = xr.Dataset(
            {m: (("chain", "draw", "group"), v[None]) for m, v in prior_draws.items()},
            coords={"group": labels},
        )
    return make_tree({**groups, RATES_GROUP: rates})


def _cell_variables(labeled) -> dict:
    """The labeled summary as ``constant_data`` variables on the ``labeled_cell`` dimension."""
    cols = labeled._columns()
    out = {"labeled_group": (("labeled_cell",), labeled.group.astype(np.int64))}
    out.update({f"labeled_{k}": (("labeled_cell",), np.asarray(v)) for k, v in cols.items()})
    return out


def fit_periods(data: AssessmentData, model: str = DEFAULT_MODEL, **kwargs) -> PeriodPosterior:
    """Audit over time: each group fitted over its periods, and the drift flags.

    Each group's periods share one fit (a period is the same group later: a
    stratum without labels in one period carries its rate from the group's other
    periods), and each group's labels are tested for drift between periods
    (:mod:`bayesfair.posterior.periods` describes the model and the flag).

    Parameters
    ----------
    data : AssessmentData
        Data with a period column (``AssessmentData.from_frames(..., period=...)``).
    model : {"rbc", "bc", "bb", "hbb"}, default "rbc"
        As in :func:`fit`.
    **kwargs
        Every other keyword of :func:`fit` (``metrics``, ``draws``, ``random_seed``,
        ...), passed to each group's fit; each group gets its own child of
        ``random_seed``'s seed sequence.

    Returns
    -------
    PeriodPosterior
        Its :meth:`~bayesfair.posterior.PeriodPosterior.period_summary` is the table
        of the audit; :func:`bayesfair.report.periods.period_markdown` (and
        ``period_html``, ``period_json``) the report.

    Raises
    ------
    InvalidParameterError
        When ``data`` has no periods (:func:`fit` fits it) or is not an
        :class:`~bayesfair.data.AssessmentData`.
    """
    _check_data(data)
    if data.period_levels is None:
        raise InvalidParameterError(
            "These data have no periods: bayesfair.fit(data, ...) fits them. Give a period "
            "column (AssessmentData.from_frames(..., period='quarter')) for an audit over time."
        )
    bound = inspect.signature(fit).bind(data, model, **kwargs)  # fit's keywords, or TypeError
    bound.apply_defaults()
    return _fit_periods(dict(bound.arguments))


def _fit_proxy_periods(data, options: dict, arguments: dict) -> PeriodPosterior:
    """An audit over time of data with group probabilities: each period fitted on its own.

    A row of unknown group cannot be given to one group's fit over its periods, so each
    period is one :func:`fit` with its latent groups (its own maps: a period borrows no
    map from the others, and a period without a labeled row is not fitted, its rates
    NaN). Each group's rates over the periods are then read from the period fits
    (:func:`_period_group_fit`); the drift flags read the
    labeled rows of self-reported group, as for any audit over time.
    """
    seed_seq = seed_sequence(arguments["random_seed"])
    by_period = {}
    for value, child in zip(
        data.period_levels, seed_seq.spawn(len(data.period_levels)), strict=True
    ):
        sub = data.proxy.by_period[value]
        labeled = sub.n_labeled + sub.proxy.n_unknown("labeled")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", IgnoredOptionWarning)
            by_period[value] = None if labeled == 0 else fit(sub, random_seed=child, **options)
    fits = {g: _period_group_fit(by_period, data.period_levels, g) for g in data.group_levels}
    clip = 0.01 if options["score_clip"] is None else options["score_clip"]
    drift = family_drift(
        pd.concat([drift_table(data, g, clip) for g in data.group_levels], ignore_index=True)
    )
    first = next(f for f in by_period.values() if f is not None)
    settings = {**first.settings, "random_seed": seed_record(seed_seq)}
    settings |= {"periods": "per period, groups latent", "proxy_assumption": first.estimand_text}
    options_text = ", ".join(f"{k}={v!r}" for k, v in arguments.items() if k != "data")
    settings["provenance"] = run_record(f"bayesfair.fit_periods(data, {options_text})", data)
    sizes = proxy_period_sizes(data, by_period)
    return PeriodPosterior(fits, data.period_levels, data.reference, sizes, drift, settings)


def _period_group_fit(by_period: dict, levels: list, group) -> FairnessPosterior | None:
    """One group's rates over the periods, read from the period fits, as the fit of the
    group whose groups are its period codes that :class:`PeriodPosterior` holds.

    The period fits are independent, so their draws stack (draw ``i`` of every period
    together is a draw of the joint posterior). The observed counts are the group's
    labeled rows of known group in each period; the rows assessed, those and the
    posterior mean of the latent rows the period's fit gave the group.
    """
    fitted = [(code, f) for code, v in enumerate(levels) if (f := by_period[v]) is not None]
    if not fitted:
        return None
    codes = [code for code, _ in fitted]
    first = fitted[0][1]
    label = group_coordinate(first.groups)[first.groups.index(group)]
    rates = xr.Dataset(
        {
            m: xr.concat(
                [f.rates(m).sel(group=label, drop=True) for _, f in fitted], "group"
            ).transpose("chain", "draw", "group")
            for m in first.metrics
        }
    ).assign_coords(group=codes)
    observed = xr.Dataset(
        {
            c: ("group", [int(f.idata["observed_data"][c].sel(group=label)) for _, f in fitted])
            for c in COUNT_NAMES
        },
        coords={"group": codes},
    )
    latent = [
        float(f.idata["posterior"]["proxy_cells"].sel(group=label).sum("cell").mean())
        for _, f in fitted
    ]
    sizes = [f.idata["constant_data"] for _, f in fitted]
    constant = xr.Dataset(
        {
            "n_labeled": ("group", [int(c["n_labeled"].sel(group=label)) for c in sizes]),
            "n_unlabeled": (
                "group",
                [
                    int(c["n_unlabeled"].sel(group=label)) + round(n)
                    for c, n in zip(sizes, latent, strict=True)
                ],
            ),
        },
        coords={"group": codes},
    )
    post = first.idata["posterior"]
    posterior = xr.Dataset(
        {"draw_index": (("chain", "draw"), np.zeros((post.sizes["chain"], post.sizes["draw"])))}
    )
    tree = make_tree(
        {
            "posterior": posterior,
            "observed_data": observed,
            "constant_data": constant,
            RATES_GROUP: rates,
        }
    )
    return FairnessPosterior(tree, model=first.model, reference=codes[0], settings=first.settings)


def _check_data(data) -> None:
    if not isinstance(data, AssessmentData):
        raise InvalidParameterError(
            f"The 'data' parameter must be an AssessmentData. Got {type(data).__name__}."
        )


def _fit_periods(arguments: dict) -> PeriodPosterior:
    """:func:`fit_periods`: each group's fit over its periods, the drift flags.

    :mod:`bayesfair.posterior.periods` describes the model and the flag. ``arguments`` are
    :func:`fit`'s, passed on to each group's fit with the sampler resolved here; each
    group gets its own child of ``random_seed``'s sequence.
    """
    data = arguments["data"]
    model = resolve_name(arguments["model"], MODEL_SPECS, what="model", argument="model")
    ignored = ("variant", "score_clip", "n_bins", "discrepancy")
    # the warnings point at the caller of fit or fit_periods, a frame further up from here
    _warn_ignored(model, stacklevel=4, **{name: arguments[name] for name in ignored})
    sampler, backend, cores = _resolve_sampler(
        model, arguments["sampler"], arguments["cores"], stacklevel=4
    )
    arguments = {**arguments, "model": model}
    options = {k: v for k, v in arguments.items() if k not in ("data", "random_seed")}
    options["sampler"] = "exact" if sampler == "exact" else "nuts" if backend == "auto" else backend
    options["cores"] = cores
    if data.proxy is not None:  # latent groups: each period fitted with its own rows
        return _fit_proxy_periods(data, options, arguments)
    disc = options.get("discrepancy")
    carry = disc is None or (isinstance(disc, DiscrepancyPrior) and disc.label_free is None)
    if MODEL_SPECS[options["model"]].absorbs_misfit and carry:  # a period is the same group later
        options["discrepancy"] = replace(
            disc or DiscrepancyPrior(), label_free="carried", shift=None
        )
    seed_seq = seed_sequence(arguments["random_seed"])
    fits = {}
    for group, child in zip(data.group_levels, seed_seq.spawn(data.n_groups), strict=True):
        sub = group_over_periods(data, group)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", IgnoredOptionWarning)  # said once, by the caller's fit
            fits[group] = None if sub is None else fit(sub, random_seed=child, **options)
    clip = 0.01 if options["score_clip"] is None else options["score_clip"]
    drift = family_drift(
        pd.concat([drift_table(data, g, clip) for g in data.group_levels], ignore_index=True)
    )
    first = next(f for f in fits.values() if f is not None)
    settings = {**first.settings, "random_seed": seed_record(seed_seq), "periods": "per group"}
    options_text = ", ".join(f"{k}={v!r}" for k, v in arguments.items() if k != "data")
    settings["provenance"] = run_record(f"bayesfair.fit_periods(data, {options_text})", data)
    return PeriodPosterior(
        fits, data.period_levels, data.reference, period_sizes(data), drift, settings
    )
