"""Beta-binomial models of group rates from labeled counts.

``bb`` (Ji, Smyth & Steyvers 2020, §2.2, for all rates at once): each group's four
confusion cells have probabilities ``π_k ~ Dirichlet(α, α, α, α)`` and its labeled
counts are ``Multinomial(n_k, π_k)``. The posterior is conjugate,
``Dirichlet(α + counts_k)``, so :func:`sample_bb_cells` draws from it directly;
:func:`build_bb_cells_model` is the same model in PyMC, for NUTS and for checking.
Every rate of a draw is a ratio of its cells (:mod:`bayesfair.metrics`), so a draw's
rates are those of one population. A rate that is a share of two cells (TPR, FPR,
PPV, ...: numerator x, denominator n) has the paper's margin ``Beta(α + x, α + n −
x)``; a share of all rows (accuracy, selection rate, ...) sums two cells and has the
prior ``Beta(2α, 2α)``. Until 0.4 every rate was its own ``θ_rk ~ Beta(α, β)``, drawn
independently (:func:`sample_bb_exact`, :func:`build_bb_model`, kept for that form):
TPR + FNR then ran from 0.29 to 1.78 across the draws of one fit.

``hbb``: the group rates of each metric share a population whose mean may
depend on the group's size,

    θ_rk ~ Beta(μ_rk κ_r, (1 − μ_rk) κ_r),
    logit μ_rk = logit μ_r + b_r1 q1_rk + b_r2 q2_rk,

a quadratic trend in the centred log size ``z_rk = log n_rk − mean_j log n_rj``
(``q1 = z`` centred, ``q2 = z²`` orthogonalised against 1 and z:
:func:`size_basis`), with ``μ_r ~ Beta(1, 1)``, ``b_r ~ Normal(0, 1)``
(:data:`SIZE_EFFECT_SD`) and ``κ_r ~ Pareto(0.5, κ_min)``, ``κ_min = 1``.
``n_rk`` is the rate's denominator count in group k (for accuracy, the group
size); groups with ``n_rk = 0`` get ``z_rk = 0``. This pools many small groups
toward the population, and the population's between-group variance
(:func:`hbb_population_variance`) is the Bayesian counterpart of Lum et al.'s
corrected variance estimator.

Why the size trend. Partial pooling shrinks a group toward the mean of groups
*like it*; with a single population mean, "like it" ignores size, and when
size and rate are correlated the small groups, shrunk most, are the ones whose
rates lie far from the mean. In Lum et al.'s unequal-size, unequal-performance
scenario (§5.1, Table 2; small groups have low rates) the posterior of the
between-group variance was then biased by −0.004 (truth 0.055) and its 95%
interval covered in 0.76 of 200 replicates, while with equal sizes, or the
same sizes randomly permuted, the bias was negligible (−0.0004 to −0.001). A
linear trend in ``z`` alone over-corrects when the rates are not logit-linear in
log size (+0.006 on that scenario); the quadratic trend removes the bias (+0.0003). See
``docs/results/variance_coverage.md``. With equal sizes ``q = 0`` and the model
is the single-population model.

The prior of κ is that of Gelman et al., *Bayesian Data Analysis* (3rd ed.,
§5.3, rat tumours), ``p(α, β) ∝ (α + β)^(−5/2)`` for ``θ ~ Beta(α, β)``: with
``κ = α + β`` and ``μ = α/κ`` the Jacobian is κ, so ``p(μ, κ) ∝ κ^(−3/2)``,
uniform in μ and a Pareto(0.5) density in κ, truncated below at ``κ_min`` to
make it proper. (Releases before this one used Pareto(1.5, 1), i.e.
``p(α, β) ∝ (α + β)^(−7/2)``, with the same citation, which was wrong.)

It is also truncated above, at ``κ ≤`` :data:`KAPPA_MAX` ``= 1e8``: a population
standard deviation below ``0.5/sqrt(1e8) = 5e-5``, indistinguishable from equal
rates. The reason is numerical: the beta-binomial log density, a difference of
log Γ terms of size ``κ log κ``, loses all precision in float64 beyond
``κ ≈ 1e13`` and there shows a spurious maximum with enormous gradients; an
unbounded chain that reached it during warm-up stuck there (every transition
divergent), where all group rates are equal: its draws of the between-group
variance were ≈ 0, which halved the estimate in 2 of 60 fits without the bound
(truth 0.055). Below 1e8 the rounding error is negligible (about 2e-7 per
log Γ term).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from numbers import Real

import numpy as np

from bayesfair._internal.validation import check_array, check_count_array, check_counts
from bayesfair.exceptions import InvalidParameterError
from bayesfair.metrics.rates import COUNT_NAMES, get_rate

#: Shape α of the Pareto(α, κ_min) prior of κ: BDA3 §5.3's p(μ, κ) ∝ κ^(−3/2).
KAPPA_PARETO_ALPHA = 0.5
#: Upper truncation of the κ prior (see the module docstring: numerical safety).
KAPPA_MAX = 1e8
#: Prior standard deviation of the size-trend coefficients (logit per unit of log size).
SIZE_EFFECT_SD = 1.0
#: Names of the size-trend terms, the ``size_term`` coordinate of ``size_effect``.
SIZE_TERMS = ("log_size", "log_size_squared")  # q1, q2 of size_basis


def sample_bb_exact(
    successes,
    trials,
    *,
    alpha: float = 1.0,
    beta: float = 1.0,
    draws: int = 1000,
    chains: int = 4,
    rng: np.random.Generator,
) -> np.ndarray:
    """Draw from the conjugate posterior ``Beta(α + x, β + n − x)``.

    Parameters
    ----------
    successes, trials : array_like, shape (n_metrics, n_groups)
        Numerator and denominator counts of each rate per group.
    alpha, beta : float
        The Beta prior (default Beta(1, 1), as in Ji et al. 2020).
    draws, chains : int
        Output shape ``(chains, draws, ...)``, as from MCMC, for ArviZ.
    rng : numpy.random.Generator

    Returns
    -------
    ndarray, shape (chains, draws, n_metrics, n_groups)
        Independent exact draws; a group with no trials gets prior draws.
    """
    successes = check_array(successes, "successes", numeric=False)  # values: check_counts
    trials = check_array(trials, "trials", numeric=False)
    x, n = check_counts(successes, trials, shape="same", integer=False)
    return rng.beta(alpha + x, beta + n - x, size=(chains, draws, *x.shape))


def sample_bb_cells(
    counts,
    *,
    concentration: float = 1.0,
    draws: int = 1000,
    chains: int = 4,
    rng: np.random.Generator,
) -> np.ndarray:
    """Draw each group's four confusion cells from ``Dirichlet(α + counts)``.

    ``bb``'s posterior (the module docstring): with ``π_g ~ Dirichlet(α, α, α, α)``
    over the cells (TP, FP, TN, FN) and the group's labeled counts multinomial given
    ``π_g``, the posterior is ``Dirichlet(α + counts_g)``, drawn exactly (normalised
    Gamma draws). Every rate of a draw is then a ratio of its cells
    (:func:`bayesfair.metrics.rate_from_counts`), so the rates of one draw are those
    of one population: TPR + FNR = 1 and accuracy + error rate = 1 in every draw.

    Parameters
    ----------
    counts : array_like, shape (n_groups, 4)
        The labeled confusion counts per group, in the order of
        :data:`bayesfair.metrics.COUNT_NAMES`.
    concentration : float, default 1.0
        α, the Dirichlet's concentration on every cell (1: uniform over the cells).
    draws, chains : int
        Output shape ``(chains, draws, ...)``, as from MCMC.
    rng : numpy.random.Generator

    Returns
    -------
    ndarray, shape (chains, draws, n_groups, 4)
        Cell probabilities; each draw's four cells of a group sum to 1.
    """
    x = check_count_array(check_array(counts, "counts", numeric=False), "counts", integer=False)
    if x.ndim != 2 or x.shape[1] != 4:
        raise InvalidParameterError(
            f"The 'counts' array must have shape (n_groups, 4). Got {x.shape}."
        )
    # numpy's Dirichlet per group: exact for a small concentration too, where normalised
    # Gamma draws underflow to 0/0
    out = np.empty((chains, draws, *x.shape))
    for g in range(x.shape[0]):
        out[:, :, g] = rng.dirichlet(concentration + x[g], size=(chains, draws))
    return out


def build_bb_cells_model(counts, *, metrics, concentration: float = 1.0):
    """``bb`` as a ``pm.Model``: a Dirichlet over each group's four confusion cells.

    Its NUTS posterior agrees with :func:`sample_bb_cells`
    (``tests/models/test_models.py``).

    Parameters
    ----------
    counts : array_like, shape (n_groups, 4)
        The labeled confusion counts per group (whole numbers; a fractional count is
        refused), in the order of :data:`bayesfair.metrics.COUNT_NAMES`; a ``pm.Data``
        container, so that a compiled model takes other counts of the same shape.
    metrics : list of str
        Rate names: ``theta (metric, group)``, each a ratio of the cells.
    concentration : float, default 1.0
        α of ``Dirichlet(α, α, α, α)``.

    Returns
    -------
    pymc.Model
        Free ``cells (group, cell)``; deterministic ``theta (metric, group)``; data
        container ``counts``; observed ``x``.
    """
    import pymc as pm
    import pytensor.tensor as pt

    x = check_count_array(check_array(counts, "counts", numeric=False), "counts", integer=True)
    if x.ndim != 2 or x.shape[1] != 4:
        raise InvalidParameterError(
            f"The 'counts' array must have shape (n_groups, 4). Got {x.shape}."
        )
    k = x.shape[0]
    coords = {"metric": list(metrics), "group": np.arange(k), "cell": list(COUNT_NAMES)}
    with pm.Model(coords=coords) as model:
        cells = pm.Dirichlet(
            "cells", a=np.full((k, 4), float(concentration)), dims=("group", "cell")
        )
        data = pm.Data("counts", x.astype(np.int64), dims=("group", "cell"))
        pm.Multinomial("x", n=data.sum(axis=1), p=cells, observed=data, dims=("group", "cell"))
        rates = []
        for name in metrics:
            rate = get_rate(name)
            num = cells[:, rate.numerator_index].sum(axis=1)
            rates.append(num / cells[:, rate.denominator_index].sum(axis=1))
        pm.Deterministic("theta", pt.stack(rates), dims=("metric", "group"))
    return model


@dataclass(frozen=True)
class BetaPrior:
    """Prior of ``bb``: each group's four confusion cells ``~ Dirichlet(α, α, α, α)``.

    Every rate that is a share of two cells (TPR, FNR, FPR, TNR, PPV, FDR, NPV, FOR)
    then has the prior ``Beta(α, α)``, and a share of all rows (accuracy, error
    rate, selection rate, base rate) ``Beta(2α, 2α)`` (the module docstring). One
    Dirichlet makes a draw's rates those of one population, so ``beta`` equals
    ``alpha`` (its default) for a fit.

    Attributes
    ----------
    alpha : float, default 1.0
        α, the Dirichlet's concentration on every cell; a positive number.
    beta : float, optional
        Equal to ``alpha`` (the default): the Beta margins ``Beta(α, α)`` of the
        conditional rates.
    cells : bool, default True
        The Dirichlet over the cells. False: every rate its own ``Beta(alpha, beta)``,
        drawn independently (Ji et al.'s form as written): a draw's rates are then not
        one population's, and Fair Enough's clusters refuse it.
    """

    alpha: float = 1.0
    beta: float | None = None
    cells: bool = True

    def describe(self) -> str:
        """The prior in words (reports)."""
        if not self.cells or self.alpha != self.beta:  # each rate its own Beta, not a Dirichlet
            return f"each group's rate ~ Beta({self.alpha:g}, {self.beta:g}), each on its own"
        a = self.alpha
        flat = " (uniform over the cells)" if a == 1.0 else ""
        return (
            f"each group's confusion cells ~ Dirichlet({a:g}, {a:g}, {a:g}, {a:g}){flat}: "
            f"a rate within the positives, negatives or predictions ~ Beta({a:g}, {a:g}), "
            f"a share of all rows ~ Beta({2 * a:g}, {2 * a:g})"
        )

    def to_dict(self) -> dict:
        """The record a fit keeps in ``settings["prior"]``
        (:func:`~bayesfair.models.priors.prior_from_record` reads it back)."""
        return {"kind": type(self).__name__, **asdict(self)}

    def __post_init__(self):
        if self.beta is None:
            object.__setattr__(self, "beta", self.alpha)
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if isinstance(value, bool) or not (isinstance(value, Real) and value > 0):
                raise InvalidParameterError(
                    f"The 'prior' parameter: '{name}' must be a positive number. Got {value!r}."
                )


def bb_concentration(prior: BetaPrior) -> float:
    """The Dirichlet concentration α of a ``bb`` prior (``alpha == beta`` required).

    Parameters
    ----------
    prior : BetaPrior

    Returns
    -------
    float
    """
    if not prior.cells or prior.alpha != prior.beta:
        raise InvalidParameterError(
            "The 'prior' parameter: model='bb' draws each group's four confusion cells from "
            "one Dirichlet(α, α, α, α), so that a draw's rates are those of one population; "
            "give BetaPrior(alpha) (beta equal to alpha), or BetaPrior(alpha, beta, "
            "cells=False) for every rate its own Beta. Got "
            f"alpha={prior.alpha!r}, beta={prior.beta!r}, cells={prior.cells!r}."
        )
    return float(prior.alpha)


@dataclass(frozen=True)
class KappaPrior:
    """Prior of ``hbb``'s concentration: ``κ ~ Pareto(0.5, kappa_min)`` truncated at 1e8.

    BDA3 §5.3's ``p(μ, κ) ∝ κ^(−3/2)`` above ``kappa_min``.
    """

    kappa_min: float = 1.0

    def describe(self) -> str:
        """The prior in words (reports)."""
        return (
            "each group's rate ~ Beta(mκ, (1 − m)κ) around a population mean m (uniform, "
            f"with a trend in group size); concentration κ ~ Pareto(½, {self.kappa_min:g}), "
            f"truncated at {KAPPA_MAX:g}"
        )

    def to_dict(self) -> dict:
        """The record a fit keeps in ``settings["prior"]``."""
        return {"kind": type(self).__name__, **asdict(self)}

    def __post_init__(self):
        k = self.kappa_min
        if isinstance(k, bool) or not (isinstance(k, Real) and 0 < k < KAPPA_MAX):
            raise InvalidParameterError(
                f"The 'prior' parameter: 'kappa_min' must be a positive number below "
                f"{KAPPA_MAX:g}. Got {k!r}."
            )


def build_bb_model(successes, trials, *, metrics, alpha: float = 1.0, beta: float = 1.0):
    """The ``bb`` model as a ``pm.Model`` (dims ``metric``, ``group``).

    Its NUTS posterior agrees with :func:`sample_bb_exact`
    (``tests/models/test_models.py``).

    Parameters
    ----------
    successes, trials : array_like, shape (n_metrics, n_groups)
        Numerator and denominator counts of each rate per group: whole numbers
        (a binomial likelihood), which enter the model's ``pm.Data`` containers as
        integers; a fractional count is refused rather than truncated.
    metrics : list of str
        Rate names, the ``metric`` coordinate (one per row of the counts).
    alpha, beta : float, default 1.0
        The Beta prior of every rate (default Beta(1, 1), as in Ji et al. 2020).

    Returns
    -------
    pymc.Model
        Free ``theta (metric, group)``; data containers ``trials`` and
        ``successes``; observed ``x``.
    """
    import pymc as pm

    successes = check_array(successes, "successes", numeric=False)  # values: check_counts
    trials = check_array(trials, "trials", numeric=False)
    x, n = check_counts(successes, trials, shape="same", integer=True)
    coords = {"metric": list(metrics), "group": np.arange(x.shape[1])}
    with pm.Model(coords=coords) as model:
        theta = pm.Beta("theta", alpha=alpha, beta=beta, dims=("metric", "group"))
        trials_ = pm.Data("trials", n.astype(np.int64), dims=("metric", "group"))
        successes_ = pm.Data("successes", x.astype(np.int64), dims=("metric", "group"))
        pm.Binomial("x", n=trials_, p=theta, observed=successes_, dims=("metric", "group"))
    return model


def size_basis(trials) -> np.ndarray:
    """The size-trend basis of ``hbb``: centred log size and its orthogonalised square.

    With ``z_k = log n_k − mean_j log n_j`` (the mean over groups with
    ``n_j > 0``; groups with no trials get ``z_k = 0``, the typical size), the
    two columns are ``q1 = z − mean(z)`` and ``q2 = z² − c₀ − c₁ z``, the
    residual of ``z²`` on ``(1, z)`` over the groups: both have mean 0 over the
    groups and are orthogonal, so the trend coefficients are nearly
    uncorrelated with each other and with logit μ (fewer NUTS steps), and
    logit μ is the average of the groups' logit means. Units stay log size
    (not standardised), so the prior on the coefficients means the same for
    any data set, and the trend vanishes when all groups have the same size.

    Parameters
    ----------
    trials : array_like, shape (n_metrics, n_groups)
        Denominator counts of each rate per group.

    Returns
    -------
    ndarray, shape (n_metrics, n_groups, 2)

    Examples
    --------
    >>> q = size_basis([[10, 20, 40]])
    >>> q[0, :, 0].round(3).tolist(), q[0, :, 1].round(3).tolist()
    ([-0.693, 0.0, 0.693], [0.16, -0.32, 0.16])
    >>> bool(np.all(size_basis([[25, 25, 25]]) == 0))  # equal sizes: no trend
    True
    """
    n = np.atleast_2d(check_array(trials, "trials"))
    positive = n > 0
    log_n = np.log(np.where(positive, n, 1.0))
    count = positive.sum(axis=-1, keepdims=True)
    centre = np.where(positive, log_n, 0.0).sum(axis=-1, keepdims=True) / np.maximum(count, 1)
    z = np.where(positive, log_n - centre, 0.0)
    q1 = z - z.mean(axis=-1, keepdims=True)
    ss = (q1**2).sum(axis=-1, keepdims=True)
    z2 = z**2 - (z**2).mean(axis=-1, keepdims=True)
    slope = np.where(ss > 1e-12, (z2 * q1).sum(axis=-1, keepdims=True) / np.maximum(ss, 1e-12), 0)
    q2 = z2 - slope * q1
    basis = np.stack([q1, q2], axis=-1)
    return np.where(np.abs(basis) < 1e-12, 0.0, basis)


def hbb_group_means(mu, size_effect, basis) -> np.ndarray:
    """Population mean of each group's rate, ``expit(logit μ + b₁ q1_k + b₂ q2_k)``.

    Parameters
    ----------
    mu : array_like, shape (..., n_metrics)
        expit of the average over groups of the logit group means.
    size_effect : array_like, shape (..., n_metrics, 2)
        Coefficients of the two columns of :func:`size_basis` (:data:`SIZE_TERMS`).
    basis : array_like, shape (n_metrics, n_groups, 2)
        :func:`size_basis` of the denominators.

    Returns
    -------
    ndarray, shape (..., n_metrics, n_groups)
    """
    from scipy.special import expit, logit

    mu = check_array(mu, "mu")[..., None]
    b = check_array(size_effect, "size_effect")
    q = check_array(basis, "basis")
    return expit(logit(mu) + b[..., 0, None] * q[..., 0] + b[..., 1, None] * q[..., 1])


def hbb_population_variance(mu, size_effect, kappa, basis) -> np.ndarray:
    """Expected between-group variance of new groups of the observed sizes.

    For K new groups with the sizes of the data, ``θ_k ~ Beta(μ_k κ, (1 − μ_k) κ)``
    independently, the expected sample variance (``ddof = 1``) of the θ_k is

        ``(1/(K − 1)) Σ_k (μ_k − μ̄)² + (1/K) Σ_k μ_k (1 − μ_k)/(κ + 1)``

    (Lum et al. 2022, §4, the identity ``E[M_var(Y)] = M_var(μ) + mean σ_k²``
    with the group means μ_k and the population variances σ_k² of the θ_k).
    With equal sizes it is ``μ(1 − μ)/(κ + 1)``, the variance of the Beta
    population.

    Parameters
    ----------
    mu, size_effect, basis
        As in :func:`hbb_group_means`.
    kappa : array_like, shape (..., n_metrics)

    Returns
    -------
    ndarray, shape (..., n_metrics)
    """
    mu, size_effect = check_array(mu, "mu"), check_array(size_effect, "size_effect")
    kappa, basis = check_array(kappa, "kappa"), check_array(basis, "basis")
    m = hbb_group_means(mu, size_effect, basis)
    k = m.shape[-1]
    spread = np.var(m, axis=-1, ddof=1) if k > 1 else np.zeros(m.shape[:-1])
    return spread + np.mean(m * (1 - m), axis=-1) / (kappa + 1)


def build_hbb_model(successes, trials, *, metrics, kappa_min: float = 1.0):
    """The hierarchical beta-binomial ``hbb`` model as a ``pm.Model``.

    The group rates are integrated out: ``x_rk ~ BetaBinomial(n_rk, μ_rk κ_r,
    (1 − μ_rk) κ_r)``, so NUTS explores only ``(μ, b, κ)`` and meets no funnel
    between the group rates and their concentration (the centred form gave
    divergences with few groups). Draws of the group rates follow exactly
    from their conditional posterior ``θ_rk | μ, b, κ, x ~ Beta(μ_rk κ + x,
    (1 − μ_rk)κ + n − x)`` (:func:`sample_hbb_rates`). The population mean
    ``μ_rk`` follows a quadratic trend in the centred log size (module
    docstring, :func:`hbb_group_means`).

    Parameters
    ----------
    successes, trials : array_like, shape (n_metrics, n_groups)
    metrics : list of str
        Rate names, the ``metric`` coordinate.
    kappa_min : float
        Scale (lower bound) of the Pareto(0.5, κ_min) prior on the
        concentration κ, truncated above at :data:`KAPPA_MAX`.

    Returns
    -------
    pymc.Model
        Free ``mu (metric)``, ``size_effect (metric, size_term)``, ``kappa
        (metric)``; deterministic ``population_variance (metric)``
        (:func:`hbb_population_variance`). Data containers ``successes``,
        ``trials`` and ``size_basis`` (:func:`size_basis` of ``trials``).

    References
    ----------
    Gelman et al. 2013, *Bayesian Data Analysis*, 3rd ed., §5.3 (rat tumours;
    the prior p(α, β) ∝ (α + β)^(−5/2), i.e. p(μ, κ) ∝ κ^(−3/2)).
    Lum, Zhang & Bower 2022, §4 (the variance identity) and §5 (what the
    population variance corrects).
    """
    import pymc as pm

    successes = check_array(successes, "successes", numeric=False)  # values: check_counts
    trials = check_array(trials, "trials", numeric=False)
    x, n = check_counts(successes, trials, shape="same", integer=False)
    k = x.shape[1]
    coords = {"metric": list(metrics), "group": np.arange(k), "size_term": list(SIZE_TERMS)}
    with pm.Model(coords=coords) as model:
        mu = pm.Beta("mu", 1.0, 1.0, dims="metric")
        size_effect = pm.Normal("size_effect", 0.0, SIZE_EFFECT_SD, dims=("metric", "size_term"))
        kappa = pm.Truncated(
            "kappa",
            pm.Pareto.dist(alpha=KAPPA_PARETO_ALPHA, m=kappa_min),
            lower=kappa_min,
            upper=KAPPA_MAX,
            dims="metric",
        )
        q = pm.Data("size_basis", size_basis(n), dims=("metric", "group", "size_term"))
        mu_k = pm.math.invlogit(
            pm.math.logit(mu)[:, None]
            + size_effect[:, 0, None] * q[:, :, 0]
            + size_effect[:, 1, None] * q[:, :, 1]
        )
        spread = ((mu_k - mu_k.mean(axis=1, keepdims=True)) ** 2).sum(axis=1) / max(k - 1, 1)
        pm.Deterministic(
            "population_variance",
            spread + (mu_k * (1 - mu_k)).mean(axis=1) / (kappa + 1),
            dims="metric",
        )
        trials_ = pm.Data("trials", n.astype(np.int64), dims=("metric", "group"))
        successes_ = pm.Data("successes", x.astype(np.int64), dims=("metric", "group"))
        pm.BetaBinomial(
            "x",
            n=trials_,
            alpha=mu_k * kappa[:, None],
            beta=(1 - mu_k) * kappa[:, None],
            observed=successes_,
            dims=("metric", "group"),
        )
    return model


def sample_hbb_rates(mu, kappa, successes, trials, *, rng: np.random.Generator) -> np.ndarray:
    """Draw group rates from ``Beta(μ_k κ + x, (1 − μ_k)κ + n − x)`` for each posterior draw.

    Parameters
    ----------
    mu : array_like, shape (chain, draw, n_metrics) or (chain, draw, n_metrics, n_groups)
        Population mean, common to the groups or per group
        (:func:`hbb_group_means`).
    kappa : array_like, shape (chain, draw, n_metrics)
    successes, trials : array_like, shape (n_metrics, n_groups)

    Returns
    -------
    ndarray, shape (chain, draw, n_metrics, n_groups)
    """
    mu = check_array(mu, "mu", dtype=None)
    kappa = check_array(kappa, "kappa", dtype=None)
    successes = check_array(successes, "successes", numeric=False)  # values: check_counts
    trials = check_array(trials, "trials", numeric=False)
    x, n = check_counts(successes, trials, shape="same", integer=False)
    if mu.ndim == kappa.ndim:
        mu = mu[..., None]
    kappa = kappa[..., None]
    return rng.beta(mu * kappa + x, (1 - mu) * kappa + n - x)
