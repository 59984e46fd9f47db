"""Hierarchical Bayesian beta calibration (Ji, Smyth & Steyvers 2020, §2.4), and rbc.

Each group g has its own calibration map (Kull et al. 2017 beta calibration,
Ji et al. Eq. 2)

    f_g(s) = σ(c_g + a_g log s − b_g log(1 − s)),   a_g, b_g > 0,

which is the identity at a = b = 1, c = 0. The groups share a population:

    log a_g ~ N(μ_a, σ_a),  log b_g ~ N(μ_b, σ_b),  c_g ~ N(μ_c, σ_c),
    μ_a, μ_b ~ N(0, 0.4),   μ_c ~ N(0, 2),
    σ_a, σ_b ~ HalfNormal(0.15),   σ_c ~ HalfNormal(0.75),

and labeled examples follow ``y_i ~ Bernoulli(f_{g_i}(s_i))``. The second
argument of every normal is a standard deviation. The model is written
non-centred (``log a_g = μ_a + σ_a z_a[g]`` with ``z_a ~ N(0, 1)``), which
removes the funnel between group effects and their scale when groups have
few labels.

**The labeled examples enter as a summary** (:mod:`bayesfair.data.summary`,
:mod:`bayesfair.models.likelihood`): per group, side and bin of the logit grid
coarsened to :data:`LIKELIHOOD_BINS` bins per group (w = 9.19 / 32 ≈ 0.29 logit units at
ε = 0.01), ``Σ y η`` exactly from the positives' sums and ``Σ softplus(η)`` to
second order about the bin's mean predictor with the bin's exact Var(η)
(:func:`binned_loglik`). The remainder is third order: per row at most
``max|σ''| / 6 · Δ³ ≈ 0.016 Δ³`` with ``Δ = max(a, b) · w``; measured against the
row-level likelihood on every bundled score set the posterior means of the
rates' differences move by < 0.001 posterior sd (``tests/statistical/test_oracle.py``).

Variants: ``"llo"`` (linear in log-odds, a = b; Turner et al. 2014) and
``"temperature"`` (a = b, c = 0; Guo et al. 2017).

Scores are clipped to ``[ε, 1 − ε]`` (default ε = 0.01) before taking logs,
so scores of exactly 0 or 1 give finite log-likelihoods. ε = 0.01 keeps
``log s`` within [−4.6, 0]; it is the clipping under which Ji et al.'s
Table 2 reproduces (``docs/reproduction.md``).

The robust model ``rbc`` (``discrepancy=DiscrepancyPrior()``) keeps this map
but lets each stratum, a group and a side of the threshold, follow a positive
rate of its own instead, with a spike-and-slab-like prior on which strata do
(one group's, or every group's on a side): Bayesian model averaging per
stratum (Hoeting et al. 1999) between the map and the stratified
Beta-binomial estimator, the Bayesian counterpart of the stratified estimator
that prediction-powered inference falls back on (Angelopoulos et al. 2023,
*Science* 382; Fisch et al. 2024, stratified PPI). The states are integrated
out, so the sampler sees exactly ``bc``'s parameters; :func:`sample_misfit`
draws them back per posterior draw. A misfitting stratum's own rate has a
prior centred on the ``bc`` map's mean over the stratum, taken at the ``bc``
posterior mode (:func:`free_center`) and a fixed concentration
(:class:`DiscrepancyPrior`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from numbers import Real
from typing import Literal

import numpy as np

from bayesfair._internal.validation import check_array
from bayesfair.exceptions import InvalidParameterError
from bayesfair.models.likelihood import (
    LIKELIHOOD_FIELDS,
    binned_loglik,
    entry_predictor,
    likelihood_data,
)
from bayesfair.models.shift import DEFAULT_SHIFT, ShiftPrior
from bayesfair.models.unlabeled import clip_scores, expected_counts

VARIANTS = ("beta", "llo", "temperature")
Variant = Literal["beta", "llo", "temperature"]


@dataclass(frozen=True)
class CalibrationPriors:
    """Hyperpriors of the hierarchical beta-calibration model (Ji et al. §2.4 defaults).

    All values are standard deviations: ``mu_a ~ N(0, mu_a_sd)``,
    ``sigma_a ~ HalfNormal(sigma_a_sd)``, and likewise for b and c. Each must be
    a positive finite number.

    Attributes
    ----------
    mu_a_sd : float, default 0.4
        Prior sd of ``mu_a``, the population mean of ``log a_g``.
    mu_b_sd : float, default 0.4
        Prior sd of ``mu_b``, the population mean of ``log b_g`` (variant
        ``"beta"`` only; the other variants set ``b = a``).
    mu_c_sd : float, default 2.0
        Prior sd of ``mu_c``, the population mean of the intercepts ``c_g``
        (unused by variant ``"temperature"``, where ``c = 0``).
    sigma_a_sd : float, default 0.15
        Scale of the half-normal prior of ``sigma_a``, the spread of ``log a_g``
        over the groups.
    sigma_b_sd : float, default 0.15
        Scale of the half-normal prior of ``sigma_b``, the spread of ``log b_g``
        (variant ``"beta"`` only).
    sigma_c_sd : float, default 0.75
        Scale of the half-normal prior of ``sigma_c``, the spread of ``c_g``
        (unused by variant ``"temperature"``).
    """

    mu_a_sd: float = 0.4
    mu_b_sd: float = 0.4
    mu_c_sd: float = 2.0
    sigma_a_sd: float = 0.15
    sigma_b_sd: float = 0.15
    sigma_c_sd: float = 0.75

    def describe(self) -> str:
        """The prior in words (reports)."""
        return (
            "calibration map σ(c + a log s − b log(1 − s)) per group, a, b, c drawn around "
            f"population means with normal priors (sd of the means {self.mu_a_sd:g}, "
            f"{self.mu_b_sd:g}, {self.mu_c_sd:g}; half-normal spreads {self.sigma_a_sd:g}, "
            f"{self.sigma_b_sd:g}, {self.sigma_c_sd:g})"
        )

    def to_dict(self) -> dict:
        """The record a fit keeps in ``settings["prior"]``."""
        return {"kind": type(self).__name__, **asdict(self)}

    def __post_init__(self):
        for name, value in asdict(self).items():
            number = isinstance(value, Real) and not isinstance(value, bool)
            if not (number and np.isfinite(value) and value > 0):
                raise InvalidParameterError(
                    f"The prior scale '{name}' must be a positive finite number. Got {value!r}."
                )


@dataclass(frozen=True)
class DiscrepancyPrior:
    """Prior of the robust model (``rbc``): where may the calibration map be wrong?

    The rates depend on the unlabeled examples only through the number of
    positives in each *stratum*, a group ``g`` and a side ``h`` of the
    threshold (ŷ = 0, ŷ = 1). In each stratum the labels follow either the
    group's calibration map (``y ~ Bernoulli(f_g(s))``) or, when the map is
    wrong there, a rate of the stratum's own (``y ~ Bernoulli(q[g, h])``),
    whatever the score. A side may be wrong for the classifier as a whole
    (indicator ``J[h] ~ Bernoulli(shared_prior_misfit)``: every group's stratum
    on that side follows its own rate) or for one group
    (``I[g, h] ~ Bernoulli(prior_misfit)``). The indicators and rates are
    integrated out in the sampler (the rate's Beta-binomial marginal likelihood
    is closed-form) and drawn back for each posterior draw.

    The own rate's prior is ``q ~ Beta(1 + κ m, 1 + κ (1 − m))``
    (:func:`rate_prior_shapes`), the Beta whose mode is the centre ``m[g, h]``:
    the ``bc`` map's mean over the stratum's assessed scores at the ``bc``
    posterior mode (:func:`free_center`). The centre is fixed before sampling,
    so that a misfitting stratum's labels move its own rate and not, through
    ``m``, the map of the other strata. Both shapes are at least 1, so the
    density is finite at 0 and 1: a stratum whose map mean is small does not
    get a rate piled up at 0 (with a mean-centred ``Beta(κ m, κ (1 − m))`` and
    ``m = 0.05``, κ = 2, a third of the prior mass lies below 10⁻⁴, and a
    358-row group with 84 positives got 0.6% posterior probability of having
    none). With κ = 2 (the default) the prior is ``Beta(2, 2)`` at ``m = 1/2``,
    a prior sample size of 4, and 20 labels carry five sixths of the weight: an
    off stratum's rate follows its labels.

    **Many groups.** ``prior_misfit`` is the probability for one stratum *with
    two groups*; with ``scale_with_groups`` (the default) a fit of K groups uses
    ``1 − (1 − prior_misfit)^(2/K)`` per stratum (:meth:`for_groups`), so that
    the prior probability that *some* group's stratum is off the map stays that
    of two groups (3.9% with the default 0.01), whatever K. This is the
    multiplicity adjustment of Bayesian testing (Scott & Berger 2010, *Ann.
    Statist.* 38(5), §1–2: a fixed per-hypothesis prior makes some "discovery"
    ever more probable as hypotheses are added). Without it, 60 groups give
    120 strata and a 70% prior probability that some stratum follows its own
    rate; with about 12 labels per group the labels cannot lower it, and that
    stratum's wide rate widens every joint statement about the groups. A
    group whose labels contradict its map still shows it: a likelihood ratio
    of many orders of magnitude overcomes prior odds of 1 : 3,000 as it does
    1 : 100 (``docs/results/many_groups.md``).

    The prior probabilities are small on purpose. With two or three labels per
    stratum (n_L = 10) the labels cannot tell the states apart and the states
    keep their prior odds; a misfit the labels can show (n_L = 200: an
    inverted classifier, a group the hierarchy cannot fit) has a likelihood
    ratio of many orders of magnitude, which overcomes prior odds of 1 : 100.
    The defaults (0.01 per stratum and per side, κ = 2) keep the intervals'
    coverage when a group's map is wrong; why these and not a retuned prior is
    in ``docs/concepts.md`` ("Why these priors").

    Attributes
    ----------
    prior_misfit : float
        Prior probability that one group's stratum does not follow the map
        (default 0.01).
    shared_prior_misfit : float
        Prior probability that a side does not follow the map in any group
        (default 0.01).
    concentration : float
        κ: a misfitting stratum's rate has the prior sample size κ + 2 (default 2).
    center : float, optional
        A fixed centre ``m`` for every stratum instead of :func:`free_center`
        (a prior that does not depend on the labels, as simulation-based
        calibration needs: with ``center=0.5`` and κ = 2 the rate is Beta(2, 2)).
    scale_with_groups : bool, default True
        Read ``prior_misfit`` as the probability with two groups and hold the
        probability that some group's stratum is off the map fixed as groups
        are added (:meth:`for_groups`). False: ``prior_misfit`` per stratum
        whatever the number of groups.
    label_free : {"prior", "carried"}, optional
        The own rate of an off-map stratum *without labels*. The default, None,
        lets the fit decide: "carried" over periods, "prior" (as None is read
        everywhere else) over groups. "prior": drawn from its prior, since nothing
        is known of how the map errs there. "carried"
        (:func:`carried_rates`): the map's rate over the stratum's examples plus
        the discrepancy of its side where there are labels (the labeled strata's
        own rates minus the map's rates over their labeled rows, pooled by
        labels). A fit over periods uses "carried" (:mod:`bayesfair.posterior.periods`): a
        period is the same group later, so the way the map errs on a side is
        carried to its label-free periods as the map itself is. With "prior", one
        heavily labeled period whose side misfits the map slightly turned every
        label-free period's rate on that side into its prior, whose mean lies
        far from its mode (NannyML's car-loan data, 50,000 labels in period 0:
        accuracy 0.85 against a true 0.96, ``docs/results/periods_nannyml.md``).
        Groups keep "prior": another group is another population. Only a stratum
        with *no* labels is carried: one with a few labels follows its own labels
        and the rate's prior when it is off the map, so with one or two labels on
        a side its rate is wide (and its mean pulled towards 1/2) where a
        label-free period's is not. A period's own labels are never overruled by
        the other periods' discrepancy.
    """

    prior_misfit: float = 0.01
    shared_prior_misfit: float = 0.01
    concentration: float = 2.0
    center: float | None = None
    scale_with_groups: bool = True
    label_free: Literal["prior", "carried"] | None = None
    shift: ShiftPrior | None = DEFAULT_SHIFT

    def describe(self) -> str:
        """The prior in words (reports)."""
        where = (
            "the calibration model's mode for that stratum"
            if self.center is None
            else f"{self.center:g}"
        )
        scaled = (
            " for two groups, scaled to keep the chance that some stratum is off fixed"
            if self.scale_with_groups
            else ""
        )
        carried = (
            "; a stratum without labels carries its side's discrepancy from the labeled ones"
            if self.label_free == "carried"
            else ""
        )
        shifted = "" if self.shift is None else f"; {self.shift.describe()}"
        return (
            "each group's side of the threshold is off the calibration map with prior "
            f"probability {self.prior_misfit:.3g}{scaled} (and each side in every group "
            f"with {self.shared_prior_misfit:.3g}); an off-map stratum's rate is "
            f"Beta(1 + κm, 1 + κ(1 − m)), mode m, with κ = {self.concentration:g} and "
            f"m = {where}{carried}{shifted}"
        )

    def to_dict(self) -> dict:
        """The record a fit keeps in ``settings["discrepancy"]``."""
        record = {"kind": type(self).__name__, **asdict(self)}
        record["shift"] = None if self.shift is None else self.shift.to_dict()
        return record

    def for_groups(self, k: int) -> DiscrepancyPrior:
        """The prior a fit of ``k`` groups uses: with ``scale_with_groups``, one whose
        per-stratum probability is ``1 − (1 − prior_misfit)^(2/k)`` (and which
        scales no further); unchanged with two groups or without scaling. The
        strata's shifts are scaled by their own rule (:meth:`ShiftPrior.for_groups`).

        Examples
        --------
        >>> round(DiscrepancyPrior().for_groups(60).prior_misfit, 6)
        0.000335
        >>> DiscrepancyPrior().for_groups(2) == DiscrepancyPrior()
        True
        """
        shift = None if self.shift is None else self.shift.for_groups(k)
        if not self.scale_with_groups or k == 2:
            return self if shift == self.shift else replace(self, shift=shift)
        per_stratum = -np.expm1(np.log1p(-self.prior_misfit) * 2.0 / max(int(k), 1))
        return replace(self, prior_misfit=float(per_stratum), scale_with_groups=False, shift=shift)

    def __post_init__(self):
        for name in ("prior_misfit", "shared_prior_misfit"):
            value = getattr(self, name)
            if not (isinstance(value, Real) and 0 < value < 1):
                raise InvalidParameterError(
                    f"The probability '{name}' must be in (0, 1). Got {value!r}."
                )
        k = self.concentration
        if isinstance(k, bool) or not (isinstance(k, Real) and np.isfinite(k) and k > 0):
            raise InvalidParameterError(
                f"The 'concentration' must be a positive number. Got {k!r}."
            )
        m = self.center
        if m is not None and not (isinstance(m, Real) and 0 < m < 1):
            raise InvalidParameterError(
                f"The 'center' must be None or a number in (0, 1). Got {m!r}."
            )
        # plain Python floats, so that the repr a fit records (settings["discrepancy"])
        # reads back whatever numbers were given (numpy scalars print as np.float64(…))
        plain = {
            "prior_misfit": float(self.prior_misfit),
            "shared_prior_misfit": float(self.shared_prior_misfit),
            "concentration": float(k),
            "center": None if m is None else float(m),
        }
        for name, value in plain.items():
            object.__setattr__(self, name, value)
        if not isinstance(self.scale_with_groups, bool):
            raise InvalidParameterError(
                f"'scale_with_groups' must be True or False. Got {self.scale_with_groups!r}."
            )
        if self.label_free not in (None, "prior", "carried"):
            raise InvalidParameterError(
                f"'label_free' must be None, 'prior' or 'carried'. Got {self.label_free!r}."
            )
        if self.shift is not None and not isinstance(self.shift, ShiftPrior):
            raise InvalidParameterError(
                f"'shift' must be None or a ShiftPrior. Got {self.shift!r}."
            )


# A stratum's centre is kept inside [ε, 1 − ε] so that the rate's prior stays proper.
_CENTER_CLIP = 1e-4


def rate_prior_shapes(center, concentration):
    """The Beta shapes ``(α, β)`` of a misfitting stratum's own rate.

    ``α = 1 + κ m``, ``β = 1 + κ (1 − m)``: the Beta whose *mode* is the centre
    ``m`` and whose prior sample size is ``κ + 2`` (:class:`DiscrepancyPrior`).
    Both shapes are at least 1, so the density stays finite at 0 and 1 and the
    rate cannot pile up there without labels that put it there.

    Parameters
    ----------
    center : array_like
        The centre ``m`` of each stratum (e.g. shape ``(n_groups, 2)``), clipped
        to ``[1e-4, 1 − 1e-4]`` so that the prior stays proper.
    concentration : float
        κ (:attr:`DiscrepancyPrior.concentration`).

    Returns
    -------
    alpha, beta : ndarray
        The two shapes, each of the shape of ``center``.
    """
    m = np.clip(np.asarray(center, dtype=float), _CENTER_CLIP, 1.0 - _CENTER_CLIP)
    return 1.0 + concentration * m, 1.0 + concentration * (1.0 - m)


def stratum_counts(labeled):
    """Labeled positives and examples per stratum (group, side), each shape ``(n_groups, 2)``.

    ``labeled`` is a :class:`~bayesfair.data.summary.ScoreSummary` of labeled rows.
    """
    return labeled.stratum_positives(), labeled.totals()


def free_log_likelihood(x, n, center, concentration=2.0) -> np.ndarray:
    """Log marginal likelihood of a stratum's labels under its own rate (0 if no label).

    ``log B(α + x, β + n − x) − log B(α, β)`` with ``(α, β)`` of
    :func:`rate_prior_shapes`: the labels of one stratum as exchangeable
    Bernoulli draws with rate ``q ~ Beta(α, β)`` (:class:`DiscrepancyPrior`).
    ``x``, ``n`` and ``center`` (m) broadcast.

    Parameters
    ----------
    x : array_like
        Labeled positives of each stratum.
    n : array_like
        Labeled examples of each stratum (``x ≤ n``).
    center : array_like
        The centre ``m`` of each stratum's rate (:func:`rate_prior_shapes`).
    concentration : float, default 2.0
        κ of the rate's prior.

    Returns
    -------
    ndarray
        The log marginal likelihood of each stratum, of the broadcast shape of
        ``x``, ``n`` and ``center``.
    """
    from scipy.special import betaln

    x, n = check_array(x, "x"), check_array(n, "n")
    center = check_array(center, "center")
    al, be = rate_prior_shapes(center, concentration)
    return betaln(al + x, be + n - x) - betaln(al, be)


def free_log_likelihoods(x, n, center, discrepancy) -> np.ndarray:
    """Every stratum's own-rate log marginal likelihood (``2 k``, group-major), then each
    side's under the shared state (2): the sampler's ``log_free`` data."""
    per = free_log_likelihood(x, n, center, discrepancy.concentration)
    return np.concatenate([per.reshape(-1), per.sum(axis=0)])


def draw_prior_rates(discrepancy, center, n, rng) -> np.ndarray:
    """Own rates of every stratum drawn from the prior, shape ``(n, k, 2)``.

    ``center`` (k, 2) is each stratum's m.
    """
    center = np.asarray(center, dtype=float)
    al, be = rate_prior_shapes(center, discrepancy.concentration)
    return rng.beta(al, be, size=(n, *center.shape))


def free_center(
    labeled,
    population=None,
    *,
    variant: Variant = "beta",
    priors: CalibrationPriors | None = None,
    start=None,
) -> np.ndarray:
    """The centre of a misfitting stratum's rate: ``bc``'s map mean at its posterior mode.

    Finds the mode of the ``bc`` posterior (the model without strata states)
    given the labeled summary ``labeled`` in its unconstrained parameters by
    L-BFGS from the prior's support point, and returns each stratum's mean of
    ``f_g(s)`` over ``population`` (a :class:`~bayesfair.data.summary.ScoreSummary`
    of the assessed scores; the labeled scores' when None), shape
    ``(n_groups, 2)``; 1/2 for a stratum without assessed examples. It depends
    on the data, as an empirical-Bayes choice does: the mode is one point
    computed before sampling (milliseconds), and the sampler treats the centre
    as known. ``start`` (unconstrained parameters of the native density)
    replaces the support point as the optimiser's start.

    Parameters
    ----------
    labeled : ScoreSummary
        The labeled rows (:mod:`bayesfair.data.summary`) the mode is fitted to.
    population : ScoreSummary, optional
        The assessed scores the map mean is taken over; default the labeled
        scores (``labeled.without_labels()``).
    variant : {"beta", "llo", "temperature"}, default "beta"
        The calibration family.
    priors : CalibrationPriors, optional
        Hyperprior scales; default ``CalibrationPriors()``.
    start : array_like, optional
        The optimiser's start in the native density's unconstrained
        parameters; default its support point. Unused when the mode is found
        on the PyMC model instead (the fallback when the native density fails).

    Returns
    -------
    ndarray, shape (n_groups, 2)
        Each stratum's centre, sides ŷ = 0 and ŷ = 1, clipped to
        ``[1e-4, 1 − 1e-4]``.
    """
    return center_and_mode(labeled, population, variant=variant, priors=priors, start=start)[0]


def center_and_mode(
    labeled, population=None, *, variant="beta", priors=None, start=None, solver=None
):
    """:func:`free_center`, and the mode in the native density's parameters (None if
    the PyMC fallback found it), to start the next search from. ``solver(objective,
    x0) -> x`` replaces L-BFGS (``objective`` returns the negative log density and its
    gradient)."""
    priors = priors or CalibrationPriors()
    if population is None:
        population = labeled.without_labels()
    try:
        a, b, c, x = _mode_native(labeled, variant, priors, start, solver)
    except Exception:  # nutpie's private API changed: the same mode from the PyMC model
        a, b, c = _mode_pymc(labeled, variant, priors)
        x = None
    counts = expected_counts(population, a[None], b[None], c[None])[0]
    totals = population.totals()
    with np.errstate(invalid="ignore", divide="ignore"):
        center = np.stack([counts[:, 3], counts[:, 0]], axis=-1) / totals  # fn, tp
    return np.clip(np.nan_to_num(center, nan=0.5), _CENTER_CLIP, 1.0 - _CENTER_CLIP), x


def _mode_native(labeled, variant, priors, start=None, solver=None):
    """``bc``'s posterior mode ``(a, b, c, x)`` by L-BFGS on the hand-written log density.

    ``x`` is the mode in the PyMC model's unconstrained parameters (non-centred),
    the parametrisation in which :func:`_mode_pymc` finds it too.
    """
    from scipy.optimize import minimize

    from bayesfair.models._calibration_kernels import calibration_logp_grad
    from bayesfair.models._calibration_native import compile_native_calibration, expand_draws

    # the PyMC model's (non-centred) coordinates, as _mode_pymc's: a mode depends on the
    # parametrisation, and the sampler's partial centring must not move the centre
    nat = compile_native_calibration(variant, priors, labeled.n_groups).with_data(
        precondition=False, **likelihood_data(labeled)
    )

    # a writable copy: the sampler's compiled density passes writable arrays, and the
    # same types here reuse its compiled code (a read-only array would compile anew)
    data = nat.user_data.copy()

    def objective(x):
        grad = np.empty_like(x)
        value = calibration_logp_grad(x, grad, data)
        return -value, -grad

    x0 = nat.support if start is None else start
    if solver is None:
        x = minimize(objective, x0, jac=True, method="L-BFGS-B").x
    else:
        x = solver(objective, x0)
    out = expand_draws(x, data)[0]
    k = labeled.n_groups
    a, b, c = (out[out.size - (3 - j) * k : out.size - (2 - j) * k] for j in range(3))
    return a, b, c, x


def _mode_pymc(labeled, variant, priors):
    """``bc``'s posterior mode (a, b, c) by L-BFGS on the PyMC model's log density."""
    from scipy.optimize import minimize

    model = build_calibration_model(labeled, variant=variant, priors=priors)
    f = model.logp_dlogp_function(ravel_inputs=True)
    f.set_extra_values({})
    start = model.initial_point()
    x0 = np.concatenate([np.ravel(start[v.name]) for v in model.value_vars])

    def objective(x):
        value, grad = f(x)
        return -value, -grad

    best = minimize(objective, x0, jac=True, method="L-BFGS-B")
    point, pos = {}, 0
    for v in model.value_vars:
        size = int(np.prod(start[v.name].shape, dtype=int))
        point[v.name] = best.x[pos : pos + size].reshape(start[v.name].shape)
        pos += size
    outputs = model.unobserved_value_vars
    values = dict(
        zip(
            [v.name for v in outputs],
            model.compile_fn(outputs, inputs=model.value_vars)(point),
            strict=True,
        )
    )
    return tuple(np.asarray(values[v], dtype=float) for v in ("a", "b", "c"))


def calibrate(scores, a, b, c, *, score_clip: float = 0.01) -> np.ndarray:
    """Evaluate beta-calibration maps ``f(s; a, b, c)`` (Ji et al. Eq. 2).

    ``scores`` broadcasts against ``a``, ``b`` and ``c``.

    Parameters
    ----------
    scores : float or array_like
        Classifier scores in [0, 1], clipped to ``[score_clip, 1 − score_clip]``
        before taking logs.
    a, b, c : float or array_like
        The map's parameters: ``f(s) = σ(c + a log s − b log(1 − s))``.
    score_clip : float, default 0.01
        ε of the clipping.

    Returns
    -------
    float or ndarray
        The calibrated probabilities, of the broadcast shape; a float when
        every input is a scalar.

    Examples
    --------
    >>> round(calibrate(0.3, 1.0, 1.0, 0.0), 12)  # the identity map
    0.3
    """
    scores = check_array(scores, "scores")
    a, b, c = (check_array(v, name, dtype=None) for v, name in ((a, "a"), (b, "b"), (c, "c")))
    s = clip_scores(scores, score_clip)
    eta = c + a * np.log(s) - b * np.log1p(-s)
    out = 0.5 * (1.0 + np.tanh(0.5 * eta))
    return float(out) if out.ndim == 0 else out


def build_calibration_model(
    labeled,
    *,
    variant: Variant = "beta",
    priors: CalibrationPriors | None = None,
    discrepancy: DiscrepancyPrior | None = None,
    center=None,
):
    """Build the hierarchical beta-calibration model as a ``pm.Model``.

    The labeled rows enter as a summary (:class:`~bayesfair.data.summary.ScoreSummary`)
    through the ``pm.Data`` containers of :func:`likelihood_data`, so that the
    log density costs O(bins) whatever the number of labeled rows, and a
    compiled model is reused on new labeled sets without recompiling. The
    likelihood of ``y_i ~ Bernoulli(f_g(s_i))`` is summed per entry as
    :func:`binned_loglik` states (a ``Potential`` named ``y_obs``).

    Parameters
    ----------
    labeled : ScoreSummary
        The labeled rows; its levels are the groups (groups without labels are
        informed by the hierarchy alone). Threshold and clipping are the summary's.
    variant : {"beta", "llo", "temperature"}
        The calibration family.
    priors : CalibrationPriors, optional
        Hyperprior scales; default the paper's.
    discrepancy : DiscrepancyPrior, optional
        The robust model ``rbc``: each stratum (group × side of the threshold)
        follows the map or a rate of its own, the states integrated out (no
        extra parameters). One more container: ``log_free`` (each stratum's
        Beta-binomial log marginal likelihood, :func:`free_log_likelihood`, at
        the fixed ``center``).
    center : array_like, shape (n_groups, 2), optional
        rbc: the centre of a misfitting stratum's rate; default the
        ``discrepancy``'s fixed one, else :func:`free_center`.

    Returns
    -------
    pymc.Model
        Free variables ``mu_*, sigma_*, z_*``; deterministics ``a, b, c``
        (dims ``group``).

    References
    ----------
    Ji, Smyth & Steyvers 2020, §2.4 and Eq. 2; Kull, Silva Filho & Flach 2017.
    """
    import pymc as pm
    import pytensor.tensor as pt

    if variant not in VARIANTS:
        raise InvalidParameterError(
            f"Unknown calibration variant {variant!r}. Choose one of {VARIANTS}."
        )
    priors = priors or CalibrationPriors()
    n_groups = labeled.n_groups
    lik = likelihood_data(labeled)
    coords = {"group": np.arange(n_groups)}
    with pm.Model(coords=coords) as model:
        d = {name: pm.Data(name, lik[name]) for name in LIKELIHOOD_FIELDS}
        a, b, c = _map_parameters(pm, variant, priors)
        g = d["group_idx"]
        ag, bg, cg = a[g], b[g], c[g]
        eta = cg + ag * d["mean_log_s"] - bg * d["mean_log_1ms"]
        v_eta = ag**2 * d["var_log_s"] + bg**2 * d["var_log_1ms"] - 2.0 * ag * bg * d["cov_log"]
        p = pm.math.sigmoid(eta)
        ll = (
            cg * d["positives"]
            + ag * d["pos_sum_log_s"]
            - bg * d["pos_sum_log_1ms"]
            - d["count"] * (pt.softplus(eta) + 0.5 * p * (1.0 - p) * v_eta)
        )
        if discrepancy is None:
            pm.Potential("y_obs", ll.sum())
            return model
        if center is None and discrepancy.center is not None:
            center = np.full((n_groups, 2), float(discrepancy.center))
        if center is None:
            center = free_center(labeled, variant=variant, priors=priors)
        x_st, n_st = stratum_counts(labeled)
        log_free = pm.Data("log_free", free_log_likelihoods(x_st, n_st, center, discrepancy))
        stratum = g * 2 + d["side"]
        ll_map = pt.inc_subtensor(pt.zeros(2 * n_groups)[stratum], ll).reshape((n_groups, 2))
        ll_free = log_free[: 2 * n_groups].reshape((n_groups, 2))
        ll_shared = log_free[2 * n_groups :]
        pg, ps = discrepancy.prior_misfit, discrepancy.shared_prior_misfit
        groupwise = pt.logaddexp(np.log1p(-pg) + ll_map, np.log(pg) + ll_free).sum(axis=0)
        pm.Potential(
            "y_obs",
            pt.logaddexp(np.log1p(-ps) + groupwise, np.log(ps) + ll_shared).sum(),
        )
    return model


def _map_parameters(pm, variant, priors):
    """The hierarchy over the groups' maps (non-centred): deterministics ``a, b, c``."""
    mu_a = pm.Normal("mu_a", 0.0, priors.mu_a_sd)
    sigma_a = pm.HalfNormal("sigma_a", priors.sigma_a_sd)
    z_a = pm.Normal("z_a", 0.0, 1.0, dims="group")
    a = pm.Deterministic("a", pm.math.exp(mu_a + sigma_a * z_a), dims="group")
    if variant == "beta":
        mu_b = pm.Normal("mu_b", 0.0, priors.mu_b_sd)
        sigma_b = pm.HalfNormal("sigma_b", priors.sigma_b_sd)
        z_b = pm.Normal("z_b", 0.0, 1.0, dims="group")
        b = pm.Deterministic("b", pm.math.exp(mu_b + sigma_b * z_b), dims="group")
    else:
        b = pm.Deterministic("b", a, dims="group")
    if variant == "temperature":
        c = pm.Deterministic("c", pm.math.zeros_like(a), dims="group")
    else:
        mu_c = pm.Normal("mu_c", 0.0, priors.mu_c_sd)
        sigma_c = pm.HalfNormal("sigma_c", priors.sigma_c_sd)
        z_c = pm.Normal("z_c", 0.0, 1.0, dims="group")
        c = pm.Deterministic("c", mu_c + sigma_c * z_c, dims="group")
    return a, b, c


#: Draws per block of :func:`sample_misfit`'s labeled log likelihoods.
_MISFIT_BLOCK = 256


def sample_misfit(
    labeled,
    a,
    b,
    c,
    discrepancy: DiscrepancyPrior,
    rng: np.random.Generator,
    *,
    center=None,
):
    """Draw which strata do not follow the map, and their rates, for each posterior draw.

    Given a draw of (a, b, c), per side ``h``: the shared indicator ``J[h]`` is
    Bernoulli with its conditional probability under the labeled data (Bayes'
    rule on the mixture the sampler integrated out); given ``J[h] = 0`` each
    group's ``I[g, h]`` likewise. A stratum is *free* when ``J[h]`` or
    ``I[g, h]``; its rate is drawn from ``Beta(α + x, β + n − x)`` with the
    prior's shapes (:func:`rate_prior_shapes`).

    Parameters
    ----------
    labeled : ScoreSummary
        The labeled rows (:mod:`bayesfair.data.summary`); the map's likelihood per
        stratum is :func:`binned_loglik`'s, as in the sampler.
    a, b, c : array_like, shape (..., n_groups)
    center : array_like, shape (n_groups, 2), optional
        The rate's centre, as given to :func:`build_calibration_model`;
        default :func:`free_center` over the labeled scores.

    Returns
    -------
    free : ndarray of bool, shape (..., n_groups, 2)
    rate : ndarray, shape (..., n_groups, 2)
        The stratum's own rate (drawn for every stratum; used where ``free``).
    p_shared : ndarray, shape (..., 2)
        P(J[h] = 1 | θ, y).
    p_free : ndarray, shape (..., n_groups, 2)
        P(stratum free | θ, y).
    """
    a, b, c = (np.asarray(v, dtype=float) for v in (a, b, c))
    lead = a.shape[:-1]
    k = labeled.n_groups
    a, b, c = (v.reshape(-1, k) for v in (a, b, c))
    n_draws = a.shape[0]
    lik = likelihood_data(labeled)
    onehot = np.zeros((lik["count"].size, 2 * k))
    onehot[np.arange(lik["count"].size), lik["group_idx"] * 2 + lik["side"]] = 1.0
    # in blocks of draws whose temporaries stay in cache (half the time with 56 groups)
    blocks = range(0, n_draws, _MISFIT_BLOCK)
    ll_map = np.concatenate(
        [
            binned_loglik(lik, *(v[i : i + _MISFIT_BLOCK] for v in (a, b, c))) @ onehot
            for i in blocks
        ]
        or [np.zeros((0, 2 * k))]
    ).reshape(n_draws, k, 2)
    x_st, n_st = stratum_counts(labeled)
    if center is None and discrepancy.center is not None:
        center = np.full((k, 2), float(discrepancy.center))
    if center is None:
        center = free_center(labeled)
    center = np.clip(np.asarray(center, dtype=float), _CENTER_CLIP, 1.0 - _CENTER_CLIP)
    al, be = rate_prior_shapes(center, discrepancy.concentration)
    log_free = free_log_likelihoods(x_st, n_st, center, discrepancy)
    ll_free, ll_shared = log_free[: 2 * k].reshape(1, k, 2), log_free[2 * k :]
    pg, ps = discrepancy.prior_misfit, discrepancy.shared_prior_misfit
    u_map, u_free = np.log1p(-pg) + ll_map, np.log(pg) + ll_free
    inner = np.logaddexp(u_map, u_free)  # (draws, k, 2)
    p_i = np.exp(u_free - inner)  # P(I = 1 | J = 0)
    v0 = np.log1p(-ps) + inner.sum(axis=1)
    v1 = np.log(ps) + ll_shared[None, :]
    p_j = 1.0 / (1.0 + np.exp(np.clip(v0 - v1, -700.0, 700.0)))  # (draws, 2)
    j = rng.random(p_j.shape) < p_j
    i = rng.random(p_i.shape) < p_i
    free = j[:, None, :] | i
    rate = rng.beta(
        np.broadcast_to(al + x_st, free.shape),
        np.broadcast_to(be + (n_st - x_st), free.shape),
    )
    p_free = p_j[:, None, :] + (1.0 - p_j[:, None, :]) * p_i
    return (
        free.reshape(*lead, k, 2),
        rate.reshape(*lead, k, 2),
        p_j.reshape(*lead, 2),
        p_free.reshape(*lead, k, 2),
    )


def carried_rates(labeled, population, a, b, c, rate) -> np.ndarray:
    """Own rates of label-free strata carried from the labeled ones (``label_free="carried"``).

    For each draw and side ``h``, the discrepancy of the map where there are
    labels, ``δ_h = Σ_g n[g, h] (q[g, h] − p̄[g, h]) / Σ_g n[g, h]`` over the
    labeled strata: ``q`` their own rate (``rate``, drawn by :func:`sample_misfit`)
    and ``p̄`` the map's mean probability over their labeled rows (each entry's
    ``σ(η̄)`` to second order in its spread, as :func:`binned_loglik` takes
    ``softplus``). A stratum without labels on a side with labels gets the map's
    mean probability over its examples in ``population`` plus ``δ_h``, clipped to
    [0, 1]; every other stratum keeps its ``rate``.

    Parameters
    ----------
    labeled : ScoreSummary
        The labeled rows.
    population : ScoreSummary
        The examples whose positives the rate draws (the unlabeled ones).
    a, b, c : array_like, shape (..., n_groups)
        Draws of the maps.
    rate : array_like, shape (..., n_groups, 2)
        :func:`sample_misfit`'s own rates.

    Returns
    -------
    ndarray, shape (..., n_groups, 2)
    """
    k = labeled.n_groups
    rate = np.asarray(rate, dtype=float)
    _, n_st = stratum_counts(labeled)
    on_side = n_st.sum(axis=0)  # labeled examples per side
    totals = population.totals()
    use = (n_st == 0) & (on_side > 0)[None, :] & (totals > 0)
    if not use.any():
        return rate
    own = rate.reshape(-1, k, 2)
    a, b, c = (np.asarray(v, dtype=float).reshape(-1, k) for v in (a, b, c))
    lik = likelihood_data(labeled)
    g = lik["group_idx"]
    eta, v_eta = entry_predictor(lik, a, b, c)
    p = 0.5 * (1.0 + np.tanh(0.5 * eta))
    p = p + 0.5 * p * (1.0 - p) * (1.0 - 2.0 * p) * v_eta
    onehot = np.zeros((g.size, 2 * k))
    onehot[np.arange(g.size), g * 2 + lik["side"]] = lik["count"]
    map_labeled = (p @ onehot).reshape(-1, k, 2)  # expected positives of the labeled rows
    with np.errstate(invalid="ignore", divide="ignore"):
        delta = ((own * n_st).sum(axis=1) - map_labeled.sum(axis=1)) / on_side  # (draws, 2)
        counts = expected_counts(population, a, b, c)
        map_rate = np.stack([counts[..., 3], counts[..., 0]], axis=-1) / totals
    carried = np.clip(map_rate + delta[:, None, :], 0.0, 1.0)
    return np.where(use, carried, own).reshape(rate.shape)
