"""The labeled-count models' fits: every group's rates drawn from its labeled counts.

A model of this family reads each group's labeled confusion counts and nothing else
(no calibration map, no unlabeled scores). It is three functions, which its
:class:`~bayesfair.models.catalogue.ModelSpec` names (``fit_counts``, ``prior_rates``
and ``log_prior``) and :func:`fit_labeled` runs for :func:`bayesfair.fit`:

- ``fit_counts(counts, metrics, prior, sampler, rng, run)`` returns a tree whose
  ``posterior`` holds ``theta`` (dims ``chain, draw, metric, group``) and, where the
  model draws one population per draw, its ``cells`` (``chain, draw, group, cell``);
  ``counts`` are the labeled counts ``(group, 4)``, ``sampler`` is ``"exact"`` or
  ``"nuts"``, ``run`` the sampler's settings (:func:`~bayesfair.models.sampling.sample_model`);
- ``prior_rates(prior, trials, n, rng, metrics)`` returns ``n`` prior draws of the
  rates, ``(n, n_metrics, n_groups)``, with ``trials`` each rate's labeled denominator
  per group;
- ``log_prior(idata, settings, metric)`` returns the prior's log density at every draw,
  ``(chain, draw)``, for prior sensitivity's power scaling (None where the draws do not
  hold what it needs).

``bb`` (Ji et al. 2020, §2.2; one Dirichlet over each group's cells) and
``hbb`` (a hierarchical beta-binomial whose mean follows the group's size) are the
two here.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from bayesfair._internal.tree import assign, get_group, make_tree
from bayesfair._internal.validation import check_array, check_count_array, takes
from bayesfair.metrics.rates import COUNT_NAMES, get_rate, rate_fraction, rate_from_counts
from bayesfair.models.beta_binomial import (
    KAPPA_MAX,
    KAPPA_PARETO_ALPHA,
    SIZE_EFFECT_SD,
    bb_concentration,
    build_bb_cells_model,
    build_bb_model,
    build_hbb_model,
    hbb_group_means,
    sample_bb_cells,
    sample_bb_exact,
    sample_hbb_rates,
    size_basis,
)
from bayesfair.models.priors import (
    log_beta_pdf,
    log_normal_pdf,
    recorded_prior_numbers,
    stacked_draws,
)
from bayesfair.models.request import PRIOR_DRAWS, FitDraws, FitRequest
from bayesfair.models.sampling import sample_model


def labeled_fractions(counts, metrics) -> tuple[np.ndarray, np.ndarray]:
    """Each rate's numerator and denominator counts.

    Parameters
    ----------
    counts : array_like, shape (n_groups, 4)
        The labeled confusion counts.
    metrics : list of str

    Returns
    -------
    successes, trials : ndarray, shape (n_metrics, n_groups)
    """
    fractions = [rate_fraction(counts, m) for m in metrics]
    return np.stack([f[0] for f in fractions]), np.stack([f[1] for f in fractions])


def fit_bb(counts, metrics, prior, sampler, rng, run) -> xr.DataTree:
    """``bb``'s draws: one Dirichlet over each group's cells (``cells`` and ``theta``), or,
    for ``BetaPrior(..., cells=False)``, every rate its own Beta (Ji et al.'s §2.2 as
    written, ``theta`` only: its rates are not one population's).

    Parameters
    ----------
    counts : ndarray, shape (n_groups, 4)
        The labeled confusion counts.
    metrics : list of str
    prior : BetaPrior
    sampler : {"exact", "nuts"}
    rng : numpy.random.Generator
        The exact sampler's stream.
    run : dict
        :func:`~bayesfair.models.sampling.sample_model`'s settings (draws, chains, ...).

    Returns
    -------
    xarray.DataTree
    """
    counts = check_count_array(check_array(counts, "counts"), "counts")
    k = counts.shape[0]
    coords = {"metric": metrics, "group": np.arange(k), "cell": list(COUNT_NAMES)}
    if not prior.cells:
        x, n = labeled_fractions(counts, metrics)
        alpha, beta = prior.alpha, prior.beta
        if sampler != "exact":
            return sample_model(
                lambda: build_bb_model(x, n, metrics=metrics, alpha=alpha, beta=beta),
                cache_key=("bb", tuple(metrics), k, float(alpha), float(beta)),
                data={"successes": x.astype(np.int64), "trials": n.astype(np.int64)},
                **run,
            )
        theta = sample_bb_exact(
            x, n, alpha=alpha, beta=beta, draws=run["draws"], chains=run["chains"], rng=rng
        )
        variables = {"theta": (("chain", "draw", "metric", "group"), theta)}
    else:
        alpha = bb_concentration(prior)
        if sampler != "exact":
            return sample_model(
                lambda: build_bb_cells_model(counts, metrics=metrics, concentration=alpha),
                cache_key=("bb-cells", tuple(metrics), k, float(alpha)),
                data={"counts": counts.astype(np.int64)},
                **run,
            )
        cells = sample_bb_cells(
            counts, concentration=alpha, draws=run["draws"], chains=run["chains"], rng=rng
        )
        theta = np.stack([rate_from_counts(cells, m) for m in metrics], axis=2)
        variables = {
            "cells": (("chain", "draw", "group", "cell"), cells),
            "theta": (("chain", "draw", "metric", "group"), theta),
        }
    chains, draws = theta.shape[:2]
    coords |= {"chain": np.arange(chains), "draw": np.arange(draws)}
    if "cells" not in variables:
        del coords["cell"]
    return make_tree({"posterior": xr.Dataset(variables, coords=coords)})


def fit_hbb(counts, metrics, prior, sampler, rng, run) -> xr.DataTree:
    """``hbb``'s draws: NUTS for the population (mean by size, concentration κ), then
    every group's rate from its conditional Beta given each draw (``theta``).

    Parameters
    ----------
    counts, metrics, sampler, rng, run
        As :func:`fit_bb` (``hbb`` has no exact sampler: ``sampler`` is ``"nuts"``).
    prior : KappaPrior

    Returns
    -------
    xarray.DataTree
    """
    counts = check_count_array(check_array(counts, "counts"), "counts")
    x, n = labeled_fractions(counts, metrics)
    k = counts.shape[0]
    kappa_min = prior.kappa_min
    q = size_basis(n)
    idata = sample_model(
        lambda: build_hbb_model(x, n, metrics=metrics, kappa_min=kappa_min),
        cache_key=("hbb-size-trend", tuple(metrics), k, kappa_min),
        data={"successes": x.astype(np.int64), "trials": n.astype(np.int64), "size_basis": q},
        **run,
    )
    post = get_group(idata, "posterior")
    group_means = hbb_group_means(
        post["mu"].transpose("chain", "draw", "metric").values,
        post["size_effect"].transpose("chain", "draw", "metric", "size_term").values,
        q,
    )
    theta = sample_hbb_rates(
        group_means, post["kappa"].transpose("chain", "draw", "metric").values, x, n, rng=rng
    )
    assign(idata, "posterior", theta=(("chain", "draw", "metric", "group"), theta))
    return idata


def bb_prior_rates(prior, trials, n: int, rng, metrics=None) -> np.ndarray:
    """Group rates under ``bb``'s prior, ``(n, n_metrics, k)``.

    Each group's cells ``~ Dirichlet(α, α, α, α)`` and the ``metrics`` as ratios of
    them (one population per draw); for ``BetaPrior(..., cells=False)`` or without
    ``metrics``, each rate ``Beta(α, β)`` on its own.

    Parameters
    ----------
    prior : BetaPrior
    trials : array_like, shape (n_metrics, k)
        Labeled examples in each metric's denominator per group (only its shape is used).
    n : int
        Number of prior draws.
    rng : numpy.random.Generator
    metrics : list of str, optional
        The rates, one per row of ``trials``.

    Returns
    -------
    numpy.ndarray, shape (n, n_metrics, k)
    """
    trials = np.asarray(trials, dtype=float)
    if metrics is not None and prior.cells:
        cells = rng.dirichlet(np.full(4, bb_concentration(prior)), size=(n, trials.shape[1]))
        return np.stack([rate_from_counts(cells, m) for m in metrics], axis=1)
    return rng.beta(prior.alpha, prior.beta, size=(n, *trials.shape))


def hbb_prior_rates(prior, trials, n: int, rng, metrics=None) -> np.ndarray:
    """Group rates under ``hbb``'s prior, ``(n, n_metrics, k)``.

    ``μ ~ Beta(1, 1)``, the size trend's coefficients ``~ N(0, SIZE_EFFECT_SD)``,
    ``κ ~ Pareto(1/2, κ_min)`` truncated at ``KAPPA_MAX`` (by its inverse CDF),
    ``θ_g ~ Beta(m_g κ, (1 − m_g) κ)`` with ``m_g`` the size trend's mean at group g's
    labeled denominator.

    Parameters
    ----------
    prior : KappaPrior
    trials : array_like, shape (n_metrics, k)
        Labeled examples in each metric's denominator per group.
    n : int
        Number of prior draws.
    rng : numpy.random.Generator
    metrics : list of str, optional
        Unused (the prior is the same for every rate).

    Returns
    -------
    numpy.ndarray, shape (n, n_metrics, k)
    """
    trials = np.asarray(trials, dtype=float)
    m_count = trials.shape[0]
    mu = rng.uniform(size=(n, m_count))
    effect = rng.normal(0.0, SIZE_EFFECT_SD, (n, m_count, 2))
    top = 1.0 - (prior.kappa_min / KAPPA_MAX) ** KAPPA_PARETO_ALPHA  # F(KAPPA_MAX)
    u = rng.uniform(0.0, top, (n, m_count))
    kappa = prior.kappa_min * (1.0 - u) ** (-1.0 / KAPPA_PARETO_ALPHA)
    means = hbb_group_means(mu, effect, size_basis(trials))
    kap = kappa[..., None]
    return rng.beta(np.maximum(means * kap, 1e-300), np.maximum((1.0 - means) * kap, 1e-300))


@takes("AssessmentData")
def fit_labeled(data, spec, request: FitRequest) -> FitDraws:
    """A labeled-count model's fit: its ``fit_counts`` on the labeled counts, the rates'
    draws and their prior draws (its ``prior_rates``).

    Parameters
    ----------
    data : AssessmentData
    spec : ModelSpec
        The model's catalogue entry.
    request : FitRequest

    Returns
    -------
    FitDraws
    """
    metrics = request.metrics
    counts = data.labeled_examples.confusion_counts()
    idata = spec.fit_counts(
        counts, metrics, request.prior, request.sampler, request.rng, request.sampling
    )
    theta = (
        get_group(idata, "posterior")["theta"].transpose("chain", "draw", "metric", "group").values
    )
    _, trials = labeled_fractions(counts, metrics)
    prior = spec.prior_rates(request.prior, trials, PRIOR_DRAWS, request.prior_rng, metrics)
    return FitDraws(
        idata,
        {m: theta[:, :, i, :] for i, m in enumerate(metrics)},
        {m: prior[:, i, :] for i, m in enumerate(metrics)},
    )


def _rate_draws(idata, metric: str) -> np.ndarray:
    return get_group(idata, "rates")[metric].transpose("chain", "draw", "group").values


def bb_log_prior(idata, settings: dict, metric: str) -> np.ndarray:
    """``bb``'s prior density of ``metric``'s group rates at every draw, ``(chain, draw)``.

    Dirichlet(α) over the cells: a rate of j of its denominator's d cells has the margin
    Beta(jα, (d − j)α) (Beta(2α, 2α) for accuracy, Beta(α, α) for TPR); a prior with
    ``cells=False``, or draws without cells, each rate Beta(α, β) on its own.

    Parameters
    ----------
    idata : xarray.DataTree
        The fit's draws (its ``rates`` group, and ``posterior["cells"]``).
    settings : dict
        The fit's settings (``settings["prior"]``, Dirichlet(1) without one).
    metric : str

    Returns
    -------
    numpy.ndarray, shape (chain, draw)
    """
    numbers = recorded_prior_numbers(settings.get("prior"))
    a, b = numbers.get("alpha", 1.0), numbers.get("beta", 1.0)
    if "cells" in get_group(idata, "posterior"):
        rate = get_rate(metric)
        j, d = len(rate.numerator), len(rate.denominator)
        a, b = j * a, (d - j) * a
    return np.nansum(log_beta_pdf(_rate_draws(idata, metric), a, b), axis=-1)


def hbb_log_prior(idata, settings: dict, metric: str) -> np.ndarray | None:
    """``hbb``'s prior density at every draw, ``(chain, draw)``: the group rates' Beta
    around the size trend, κ's Pareto and the trend's Normal coefficients, for ``metric``.

    Parameters
    ----------
    idata : xarray.DataTree
        The fit's draws (``posterior``: ``mu``, ``kappa``, ``size_effect``; the
        ``rates`` group; ``observed_data``'s counts).
    settings : dict
        Unused: κ_min enters as a constant.
    metric : str

    Returns
    -------
    numpy.ndarray, shape (chain, draw), or None
        None when the draws do not hold κ (a hand-built posterior).
    """
    post = get_group(idata, "posterior")
    if "kappa" not in post:
        return None
    i = list(post.coords["metric"].values).index(metric)
    obs = get_group(idata, "observed_data")
    counts = np.stack([obs[c].values for c in COUNT_NAMES], axis=-1)
    n = rate_fraction(counts, metric)[1][None]
    kappa = stacked_draws(post, "kappa")[..., i]
    effect = post["size_effect"].transpose("chain", "draw", "metric", "size_term").values
    mu = post["mu"].transpose("chain", "draw", "metric").values
    m = hbb_group_means(mu[..., i : i + 1], effect[..., i : i + 1, :], size_basis(n))[..., 0, :]
    k = kappa[..., None]
    lp = np.nansum(log_beta_pdf(_rate_draws(idata, metric), m * k, (1.0 - m) * k), axis=-1)
    lp += -(KAPPA_PARETO_ALPHA + 1.0) * np.log(kappa)
    lp += log_normal_pdf(effect[..., i, :], SIZE_EFFECT_SD).sum(axis=-1)
    return lp
