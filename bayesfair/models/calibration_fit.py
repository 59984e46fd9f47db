"""The calibration family's fit: maps on the labeled summary, then every draw's counts.

:func:`fit_calibration` is ``bc``'s and ``rbc``'s entry in the catalogue
(:mod:`bayesfair.models.catalogue`): NUTS on the maps (Ji, Smyth & Steyvers 2020,
§2.3–2.4), each draw's unlabeled positives through its maps, the strata's shifts
(:mod:`bayesfair.models.shift`), ``rbc``'s misfitting strata
(:func:`robust_unlabeled_counts`), and rows of unknown group through the proxy
(:mod:`bayesfair.models.proxy`). :func:`calibration_prior_counts` is the same model
under its prior (the prior predictive a fit keeps); :func:`calibration_log_prior` its
prior density at every draw (prior sensitivity).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import xarray as xr

from bayesfair._internal.tree import assign, get_group
from bayesfair._internal.validation import takes
from bayesfair.exceptions import InvalidParameterError
from bayesfair.metrics.rates import COUNT_NAMES, rate_from_counts
from bayesfair.models.calibration import (
    CalibrationPriors,
    build_calibration_model,
    carried_rates,
    draw_prior_rates,
    free_center,
    free_log_likelihoods,
    likelihood_data,
    sample_misfit,
    stratum_counts,
)
from bayesfair.models.priors import log_normal_pdf, recorded_prior_numbers, stacked_draws
from bayesfair.models.proxy import (
    fit_group_calibration,
    fit_link,
    fit_score_mixture,
    latent_counts,
    mixture_responsibilities,
)
from bayesfair.models.request import PRIOR_DRAWS, FitDraws, FitRequest
from bayesfair.models.sampling import sample_model
from bayesfair.models.shift import map_counts, shifted_counts
from bayesfair.models.unlabeled import expected_counts, sampled_counts


@takes("AssessmentData")
def fit_calibration(data, request: FitRequest) -> FitDraws:
    """The calibration family's fit (``bc``, and ``rbc`` with ``request.discrepancy``).

    The maps are sampled with NUTS on the labeled summary
    (:func:`~bayesfair.models.calibration.build_calibration_model`, or its hand-written
    log density); each draw's unlabeled positives follow from its maps (and the strata's
    shifts, :func:`~bayesfair.models.shift.map_counts`), ``rbc``'s misfitting strata
    from their own rates (:func:`robust_unlabeled_counts`), rows of unknown group from
    the proxy (:mod:`bayesfair.models.proxy`). Every draw's confusion counts over the
    assessed rows go to ``posterior["cells"]``; the rates are ratios of them.

    Parameters
    ----------
    data : AssessmentData
    request : FitRequest
        ``prior`` is a :class:`~bayesfair.models.calibration.CalibrationPriors`;
        ``discrepancy`` the misfit prior for the data's groups (``rbc``) or None.

    Returns
    -------
    FitDraws
    """
    rng, prior_rng, notes = request.rng, request.prior_rng, request.notes
    metrics, priors, variant = request.metrics, request.prior, request.variant
    score_clip, estimand, n_bins = request.score_clip, request.estimand, request.n_bins
    disc = request.discrepancy
    k = data.n_groups
    labeled = data.labeled_summary(score_clip, n_bins)
    proxy_calibration = None
    if data.proxy is not None:
        proxy_calibration, shared = _proxy_calibration(data, rng, notes)
        labeled = labeled if shared is None else shared
    if data.n_unlabeled == 0 and estimand == "expected":
        notes.append(
            "No unlabeled data: the calibration model's rates are model-based estimates over "
            "the labeled scores (each example's calibrated probability in place of its label), "
            "taken as a sample of each group's scores (a Bayesian bootstrap)."
        )
        labeled_counts = np.zeros((k, 4))
        summary = labeled.without_labels()
    else:
        labeled_counts = data.labeled_examples.confusion_counts().astype(float)
        summary = data.unlabeled_reduction(score_clip, n_bins)
        summary, labeled_counts = _groups_without_unlabeled(
            data, labeled, summary, labeled_counts, estimand, notes
        )
    model_data = likelihood_data(labeled)
    disc_key = None if disc is None else replace(disc, shift=None)
    center = None
    if disc is not None:
        if disc.center is None:
            center = free_center(labeled, summary, variant=variant, priors=priors)
        else:
            center = np.full((k, 2), float(disc.center))
        model_data["log_free"] = free_log_likelihoods(*stratum_counts(labeled), center, disc)
    idata = sample_model(
        lambda: build_calibration_model(
            labeled, variant=variant, priors=priors, discrepancy=disc, center=center
        ),
        # the shifts are drawn after sampling: the sampled model is the same with or without
        cache_key=("bc", variant, priors, k, disc_key),
        native=lambda: _native_calibration(variant, priors, k, disc_key),
        data=model_data,
        **request.sampling,
    )
    post = get_group(idata, "posterior")
    a, b, c = (post[v].transpose("chain", "draw", "group").values for v in ("a", "b", "c"))
    prior = None if disc is None else disc.shift
    if estimand == "expected":
        # the labeled rows are rows of each group's sample: weighed in the same bootstrap
        # as the unlabeled ones (their labels as they are), and counted in u_counts
        labeled_counts, in_sample = np.zeros_like(labeled_counts), labeled_counts
    else:
        in_sample = None
    u_counts, shift, tau = map_counts(
        labeled,
        summary,
        a,
        b,
        c,
        prior=prior,
        estimand=estimand,
        rng=rng,
        labeled_counts=in_sample,
    )
    if shift is not None:
        assign(
            idata,
            "posterior",
            shift=(("chain", "draw", "group", "side"), shift),
            shift_spread=(("chain", "draw"), tau),
        )
    if disc is not None:
        u_counts = _robust_counts(labeled, summary, u_counts, (a, b, c), request, idata, center)
    total = u_counts + labeled_counts
    if data.proxy is not None:
        total = total + _latent_group_counts(data, proxy_calibration, (a, b, c), rng, idata, notes)
    # every draw's confusion counts over the assessed rows: its rates are ratios of them
    assign(idata, "posterior", cells=_cells_array(total))
    # every assessed score with its label unknown: the population of the prior predictive
    population = summary if data.n_unlabeled == 0 else summary + labeled.without_labels()
    prior_counts = calibration_prior_counts(
        population,
        priors,
        variant,
        disc,
        center=center,
        estimand=estimand,
        n=PRIOR_DRAWS,
        rng=prior_rng,
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        prior_draws = {m: rate_from_counts(prior_counts, m) for m in metrics}
    rates = {}
    with np.errstate(invalid="ignore", divide="ignore"):
        for m in metrics:
            rates[m] = rate_from_counts(total, m)
            share = np.isnan(rates[m]).mean(axis=(0, 1))
            for g, q in zip(data.group_levels, share, strict=True):
                if q > 0:
                    notes.append(
                        f"'{g}': {m} is undefined in {q:.1%} of the draws (no example in its "
                        "denominator among the assessed examples in those draws); its "
                        "intervals and probabilities use the other draws."
                    )
    return FitDraws(idata, rates, prior_draws)


def _proxy_calibration(data, rng, notes):
    """The proxy's calibration, and the map model's labeled rows when none has its group.

    With self-reported rows beside the proxy, the calibration is fitted to them
    (:func:`~bayesfair.models.proxy.fit_group_calibration`); without, each group's
    score distribution is learned from the mixture the proxy weighs
    (:func:`~bayesfair.models.proxy.fit_score_mixture`). With no labeled row of known
    group, the maps are fitted to the labeled rows shared among the groups by their
    EM responsibilities (fractional rows).

    Returns
    -------
    calibration : GroupCalibration or MixtureCalibration
    labeled : ScoreSummary or None
        The fractional labeled rows (None: the labeled rows of known group serve).
    """
    proxy = data.proxy
    mixture = best = None
    if proxy.n_self_reported() == 0 or data.n_labeled == 0:
        mixture, best = fit_score_mixture(proxy, rng)
    calibration = (
        mixture
        if proxy.n_self_reported() == 0
        else fit_group_calibration(proxy, data.group_levels.index(data.reference))
    )
    if data.n_labeled > 0:
        return calibration, None
    rows = proxy.labeled.select(~proxy.labeled.known)
    if rows.n_entries == 0:
        raise InvalidParameterError(
            "No labeled row: the calibration model needs labeled rows, of known group or "
            "with the proxy's probabilities."
        )
    notes.append(
        "No labeled row has a self-reported group: the calibration maps are fitted to the "
        "labeled rows shared among the groups by their probabilities under the maps and "
        "the groups' score distributions (EM; the shares' own uncertainty is not "
        "propagated to the maps)."
    )
    return calibration, rows.as_score_summary(mixture_responsibilities(rows, best))


def _latent_group_counts(data, calibration, abc, rng, idata, notes) -> np.ndarray:
    """The rows of unknown group: each draw's counts per group (:mod:`bayesfair.models.proxy`).

    The proxy's calibration and link are added to the posterior (``proxy_phi``,
    ``proxy_link``); what they rest on goes to the notes.
    """
    proxy = data.proxy
    link = fit_link(proxy, *(v.mean(axis=(0, 1)) for v in abc))
    counts, score_sum, phi, lam = latent_counts(proxy, *abc, calibration, link, rng)
    extra = ("proxy_parameter",) if phi.ndim == 3 else ()
    assign(
        idata,
        "posterior",
        proxy_phi=(("chain", "draw", *extra), phi),
        proxy_link=(("chain", "draw", "group"), lam),
        proxy_cells=_cells_array(counts),
        proxy_score_sum=(("chain", "draw", "group"), score_sum),
    )
    if not extra:  # a mixture's replicates, which proxy_phi indexes
        assign(
            idata,
            "posterior",
            proxy_density=(("proxy_replicate", "group", "score_cell"), calibration.density),
        )
    notes.append(proxy_note(proxy, calibration, link, data.group_levels))
    # every summary row names what the rows of unknown group rest on (its estimand text)
    post = get_group(idata, "posterior")
    post.attrs["proxy_assumption"] = (
        f"the groups of {proxy.n_unknown():,} rows from the proxy, {calibration.assumption}"
    )
    idata["posterior"] = xr.DataTree(post)
    return counts


def proxy_note(proxy, calibration, link, levels) -> str:
    """What the rows of unknown group rest on, in words (the result's notes).

    Parameters
    ----------
    proxy : ProxySummary
        The data's rows with group probabilities.
    calibration : GroupCalibration or MixtureCalibration
        The proxy's calibration (``fixed`` when nothing in the data checks it).
    link : Link
        The proxy's link to the outcome within a group (``learned`` per group).
    levels : list
        The group levels.

    Returns
    -------
    str
    """
    unknown = proxy.n_unknown()
    if calibration.fixed:
        return (
            f"{unknown:,} rows' groups are known only from the proxy, and no row's group is "
            "self-reported beside it: the proxy is ASSUMED calibrated and independent of the "
            "score and the outcome given the group (nothing in the data checks either; each "
            "group's score distribution is learned from how the scores vary with the "
            "proxy); see bayesfair.frequentist.proxy_bounds for what holds without that "
            "assumption."
        )
    unlearned = [g for g, ok in zip(levels, link.learned, strict=True) if not ok]
    text = (
        f"{unknown:,} rows' groups are known only from the proxy, calibrated on "
        f"{calibration.n_rows:,} rows whose group is self-reported (taken as a random "
        "sample of the rows); its link to the outcome within a group is learned from "
        f"{int(link.n_rows.sum()):,} labeled ones."
    )
    if unlearned:
        text += (
            f" No labeled row of {', '.join(map(repr, unlearned))} carries the proxy: there "
            "the proxy is assumed independent of the outcome given the group."
        )
    return text


def _groups_without_unlabeled(data, labeled, summary, labeled_counts, estimand, notes):
    """Groups with labeled rows only, among groups with unlabeled ones.

    ``"assessed"``: their rates are their labeled rows', known exactly; a note says so
    (a verdict on such a group is about those rows). ``"expected"``: their labeled
    scores become their sample of scores, so that their rates are the map's over those
    scores, weighed by the Bayesian bootstrap like every group's
    (:func:`~bayesfair.models.unlabeled.expected_counts`), not their labeled rows'
    counts, which would be a population known exactly from a few rows.

    Returns
    -------
    summary : ScoreSummary
    labeled_counts : ndarray, shape (n_groups, 4)
    """
    lacking = summary.totals().sum(axis=1) == 0
    if not lacking.any() or data.proxy is not None:  # rows of unknown group join them
        return summary, labeled_counts
    names = ", ".join(f"'{g}'" for g, m in zip(data.group_levels, lacking, strict=True) if m)
    if estimand == "assessed":
        notes.append(
            f"{names}: no unlabeled rows; the assessed examples are the labeled ones, whose "
            "rates are known exactly: a gap or verdict on them describes those rows only "
            "(estimand='expected' gives the rates of the group's scores)."
        )
        return summary, labeled_counts
    notes.append(
        f"{names}: no unlabeled rows; the expected rates are the calibration model's over "
        "the labeled scores, taken as a sample of the group's scores (a Bayesian bootstrap)."
    )
    own = labeled.without_labels().with_counts(np.where(lacking[labeled.group], labeled.count, 0))
    labeled_counts = np.where(lacking[:, None], 0.0, labeled_counts)
    return (summary + own).with_levels(summary.levels), labeled_counts


def _cells_array(counts: np.ndarray) -> xr.DataArray:
    """``(chain, draw, group, 4)`` counts as the posterior's ``cells`` variable."""
    return xr.DataArray(
        counts, dims=("chain", "draw", "group", "cell"), coords={"cell": list(COUNT_NAMES)}
    )


def _robust_counts(labeled, summary, u_counts, abc, request: FitRequest, idata, center):
    """rbc: replace the map's unlabeled positives in the strata drawn as not following it.

    :func:`robust_unlabeled_counts` on the labeled summary; the draws of the
    indicators and the probabilities of a misfit are added to the posterior
    (``misfit``, ``p_misfit``, ``p_misfit_shared``); the rate's fixed centre goes
    to ``constant_data`` (``misfit_center``).
    """
    out, free, p_free, p_shared = robust_unlabeled_counts(
        labeled,
        summary,
        u_counts,
        abc,
        request.discrepancy,
        request.estimand,
        request.rng,
        center=center,
    )
    dims = ("chain", "draw", "group", "side")
    assign(
        idata,
        "posterior",
        misfit=(dims, free.astype(np.int8)),
        p_misfit=(dims, p_free),
        p_misfit_shared=(("chain", "draw", "side"), p_shared),
        misfit_center=(("group", "side"), center),
    )
    return out


def robust_unlabeled_counts(labeled, summary, u_counts, abc, disc, estimand, rng, *, center):
    """The unlabeled counts of ``rbc``: the map's, except in the strata drawn as free.

    Per posterior draw, :func:`~bayesfair.models.calibration.sample_misfit` says
    which strata (group, side) are *free* given the labeled summary and draws
    their own rate q; there the positives of the rows ``u_counts`` holds (``summary``'s,
    and under ``"expected"`` the labeled rows of the bootstrap's sample too) are
    ``n q`` (expected, ``n`` the draw's rows on that side) or ``Binomial(n, q)``
    (assessed).

    Parameters
    ----------
    labeled : ScoreSummary
        The labeled summary the misfit states are drawn from.
    summary : ScoreSummary
        The unlabeled summary (for a stratum's carried rate).
    u_counts : ndarray, shape (chain, draw, n_groups, 4)
        The map's counts of the rows the draw holds.
    abc : tuple of ndarray
        The maps' ``a``, ``b``, ``c`` draws, each ``(chain, draw, n_groups)``.
    disc : DiscrepancyPrior
        The misfit prior for the data's groups.
    estimand : {"assessed", "expected"}
    rng : numpy.random.Generator
    center : ndarray, shape (n_groups, 2)
        Each stratum's centre of its own rate.

    Returns
    -------
    counts : ndarray, shape (..., n_groups, 4)
    free, p_free : ndarray, shape (..., n_groups, 2)
    p_shared : ndarray, shape (..., 2)
    """
    free, rate, p_shared, p_free = sample_misfit(labeled, *abc, disc, rng, center=center)
    if disc.label_free == "carried":
        rate = carried_rates(labeled, summary, *abc, rate)
    # the rows the counts hold with ŷ = 0, ŷ = 1 in each draw: the unlabeled ones, and
    # under "expected" the labeled ones too (its bootstrap moves them from draw to draw;
    # drawn labels do not)
    tp, fp, tn, fn = np.moveaxis(u_counts, -1, 0)
    totals = np.stack([tn + fn, tp + fp], axis=-1)
    if estimand == "expected":
        own = totals * rate
    else:
        own = rng.binomial(np.rint(totals).astype(np.int64), rate).astype(float)
    pos = np.stack([u_counts[..., 3], u_counts[..., 0]], axis=-1)  # fn (ŷ = 0), tp (ŷ = 1)
    pos = np.where(free, own, pos)
    out = np.stack(
        [pos[..., 1], totals[..., 1] - pos[..., 1], totals[..., 0] - pos[..., 0], pos[..., 0]],
        axis=-1,
    )
    return out, free, p_free, p_shared


def _native_calibration(variant, priors, k, disc=None):
    from bayesfair.models._calibration_native import compile_native_calibration

    return compile_native_calibration(variant, priors, k, disc)


# ---------------------------------------------------------------------------
# Prior predictive draws, kept with a fit
# ---------------------------------------------------------------------------
def calibration_prior_counts(
    population, priors, variant: str, discrepancy, *, center, estimand: str, n: int, rng
) -> np.ndarray:
    """Confusion counts of every group under the calibration model's prior, ``(n, k, 4)``.

    ``population`` is the :class:`~bayesfair.data.summary.ScoreSummary` of every
    assessed score (labeled and unlabeled, labels unknown). Per draw: the maps'
    hyperparameters and group effects from their priors (``CalibrationPriors``;
    ``llo`` has ``b = a``, ``temperature`` also ``c = 0``); for ``rbc``
    (``discrepancy`` given) the strata's states from their prior probabilities and
    an off stratum's rate from :func:`~bayesfair.models.calibration.draw_prior_rates`
    at ``center``, and the strata's shifts from their prior (``discrepancy.shift``:
    ``τ = max(floor, |N(0, scale)|)``, ``δ ~ N(0, τ)``, or δ = 0 for a group that
    shares the pooled map, with probability ``share``); then the positives of each
    stratum, drawn (``"assessed"``) or expected (``"expected"``).

    Parameters
    ----------
    population : ScoreSummary
        Every assessed score, labels unknown; its totals per group and side are
        the rows the counts are drawn for.
    priors : CalibrationPriors
        The hyperpriors' standard deviations.
    variant : {"beta", "llo", "temperature"}
        The calibration map: ``"beta"`` draws ``a``, ``b`` and ``c``; any other
        value sets ``b = a``, and ``"temperature"`` also ``c = 0``.
    discrepancy : DiscrepancyPrior or None
        ``rbc``'s prior of the strata's misfit; None for ``bc``.
    center : array_like, shape (k, 2)
        Each stratum's centre ``m`` of its own rate (side ŷ = 0, ŷ = 1); used
        only with ``discrepancy``.
    estimand : {"assessed", "expected"}
        ``"expected"``: the expected positives; any other value draws them.
    n : int
        Number of prior draws.
    rng : numpy.random.Generator
        The source of randomness.

    Returns
    -------
    numpy.ndarray, shape (n, k, 4)
        Counts ``tp, fp, tn, fn`` per draw and group (``k = population.n_groups``);
        not integers with ``estimand="expected"``.
    """
    k = population.n_groups

    def block(mu_sd, sigma_sd):
        mu = rng.normal(0.0, mu_sd, (n, 1))
        sigma = np.abs(rng.normal(0.0, sigma_sd, (n, 1)))
        return mu + sigma * rng.standard_normal((n, k))

    a = np.exp(block(priors.mu_a_sd, priors.sigma_a_sd))
    b = np.exp(block(priors.mu_b_sd, priors.sigma_b_sd)) if variant == "beta" else a
    c = block(priors.mu_c_sd, priors.sigma_c_sd) if variant != "temperature" else 0.0 * a
    shift = None if discrepancy is None else discrepancy.shift
    if shift is not None:  # the strata's shifts from their prior (models.shift)
        tau = np.maximum(np.abs(rng.normal(0.0, shift.scale, (n, 1, 1))), shift.floor)
        delta = tau * rng.standard_normal((n, k, 2))
        if shift.local:  # each group's own multiplier: HalfCauchy(1) on the sampler's grid
            delta *= rng.choice(shift.lambda_grid(), size=(n, k, 1))
        if shift.share > 0:  # a group that shares the pooled map has no shifts
            delta *= rng.random((n, k, 1)) >= shift.share
    expected = estimand == "expected"
    counts_fn, extra = (expected_counts, ()) if expected else (sampled_counts, (rng,))
    if shift is None:
        counts = counts_fn(population, a, b, c, *extra)
    else:
        counts = shifted_counts(counts_fn, population, a, b, c, delta, *extra)
    if discrepancy is None:
        return counts
    shared = rng.random((n, 1, 2)) < discrepancy.shared_prior_misfit
    free = shared | (rng.random((n, k, 2)) < discrepancy.prior_misfit)
    rate = draw_prior_rates(discrepancy, center, n, rng)
    totals = population.totals()  # (k, 2): ŷ = 0, ŷ = 1
    if estimand == "expected":
        own = totals * rate
    else:
        own = rng.binomial(np.broadcast_to(totals.astype(np.int64), rate.shape), rate)
    pos = np.where(free, own, np.stack([counts[..., 3], counts[..., 0]], axis=-1))
    return np.stack(
        [pos[..., 1], totals[:, 1] - pos[..., 1], totals[:, 0] - pos[..., 0], pos[..., 0]],
        axis=-1,
    ).astype(float)


def calibration_log_prior(idata, settings: dict, metric: str) -> np.ndarray | None:
    """The calibration models' power-scaled prior at every draw, ``(chain, draw)``.

    The hyperparameters' Normal and half-Normal priors and the standardised group
    effects' Normal(0, 1), as recorded in ``settings["prior"]`` (the defaults of
    :class:`~bayesfair.models.calibration.CalibrationPriors` otherwise); only the terms
    that vary with the draws. The prior does not depend on ``metric``. None when the
    draws do not hold the hyperparameters (a hand-built posterior).

    Parameters
    ----------
    idata : xarray.DataTree
        The fit's draws.
    settings : dict
        The fit's settings.
    metric : str
        Unused: one prior for every rate.

    Returns
    -------
    numpy.ndarray, shape (chain, draw), or None
    """
    post = get_group(idata, "posterior")
    if "sigma_a" not in post:
        return None
    numbers = {**CalibrationPriors().__dict__, **recorded_prior_numbers(settings.get("prior"))}
    total = 0.0
    for p in ("a", "b", "c"):
        if f"mu_{p}" not in post:  # llo has no b block; temperature no b and c
            continue
        mu_sd, sig_sd = numbers.get(f"mu_{p}_sd"), numbers.get(f"sigma_{p}_sd")
        mu, sig = stacked_draws(post, f"mu_{p}")[..., 0], stacked_draws(post, f"sigma_{p}")[..., 0]
        total = total + log_normal_pdf(mu, mu_sd)
        total = total + np.log(2.0) + log_normal_pdf(sig, sig_sd)  # half-normal
        total = total + log_normal_pdf(stacked_draws(post, f"z_{p}"), 1.0).sum(axis=-1)
    return np.asarray(total, dtype=float)
