"""What an interval can attain in the Gaussian limit experiment of a biased and a
debiased estimate.

Where the groups are alike, the estimate X read through the map the groups share is the
most precise; where one group's scores mean something else it is biased by β, and only a
debiased estimate Y, read from that group's labels, stays unbiased. In the limit,

    X ~ N(θ + β, Σ₁₁),  Y ~ N(θ, Σ₂₂),  jointly normal with covariance Σ,

and an interval that keeps its level for every |β| ≤ B cannot be shorter, where β = 0,
than :func:`pratt_bound` (Pratt 1961; Armstrong & Kolesár 2018, §3–4).
:func:`pratt_bound_on_paths` lets Σ move with β; :func:`fixed_length_interval` is the
best interval of one width everywhere.

For many groups, :func:`gap_limit` gives each group's gap its (Σ, B) on one design of
:func:`~bayesfair.datasets.simulate.differential_calibration`, and
:func:`joint_band_bounds` the least width of a band that holds for all groups at once,
where a band must keep a higher level per group where they are alike
(:func:`pratt_bound_split`).

``benchmarks/adaptation_bound.py`` (two and four groups) and
``benchmarks/census_bound.py`` (census-style intersections) plug their designs in; the
tests check the closed forms and the limits against simulation.
"""

from __future__ import annotations

import numpy as np

from bayesfair.datasets.simulate import distort_scores
from bayesfair.exceptions import InvalidParameterError

#: The distortions of a group's map whose biases :func:`gap_limit` reports, as
#: ``name: (kind, amount)`` of :func:`~bayesfair.datasets.simulate.differential_calibration`.
GAP_DISTORTIONS = {
    "label_noise": ("label_noise", 0.12),
    "slope2": ("slope", 2.0),
    "slope05": ("slope", 0.5),
}

__all__ = [
    "GAP_DISTORTIONS",
    "fixed_length_interval",
    "gap_limit",
    "independent_errors",
    "joint_band_bounds",
    "most_powerful_power",
    "pratt_bound",
    "pratt_bound_on_paths",
    "pratt_bound_split",
]


def independent_errors(s0: float, s1: float) -> np.ndarray:
    """The covariance of the errors of ``(X, X − Z)`` when X and Z are independent, for
    :func:`pratt_bound`: the pooled estimate X efficient where the bias β is 0.

    Parameters
    ----------
    s0, s1 : float
        The standard deviations of X and Z.

    Returns
    -------
    numpy.ndarray, shape (2, 2)

    Examples
    --------
    >>> independent_errors(0.1, 0.2).round(2).tolist()
    [[0.01, 0.01], [0.01, 0.05]]
    """
    return np.array([[s0**2, s0**2], [s0**2, s0**2 + s1**2]])


def pratt_bound(cov, bound: float, ci_prob: float, n_points: int = 4001) -> float:
    """Least expected length, at β = 0, of an interval for θ that keeps ``ci_prob`` for
    every θ and every |β| ≤ ``bound`` in the Gaussian limit experiment
    ``X ~ N(θ + β, Σ₁₁)``, ``Y ~ N(θ, Σ₂₂)`` (X a pooled estimate biased by β, Y a
    debiased one), jointly normal with covariance Σ.

    The expected length is the integral over false values θ' of the probability of
    covering them (Pratt 1961); ``θ' ∉ C`` is a level-α test of every null ``(θ', β)``,
    whose power against ``(θ, 0)`` is at most Neyman–Pearson's ``Φ(d − z₁₋α)`` for the
    nearest null (Armstrong & Kolesár 2018, §3–4), so that
    ``E|C| ≥ ∫ Φ(z₁₋α − d(Δ)) dΔ`` with ``d(Δ)² = min over |β| ≤ B of vᵀ Σ⁻¹ v``,
    ``v = (Δ − β, Δ)``. With ``bound = 0`` it is the bound of the best unbiased
    combination of X and Y; as ``bound → ∞``, that of Y alone.

    Parameters
    ----------
    cov : array_like, shape (2, 2)
        Covariance of the errors of the pooled estimate X and the debiased estimate
        Y = X − Z (:func:`independent_errors` for independent X and Z).
    bound : float
        B, the largest bias of X the interval must allow for (≥ 0).
    ci_prob : float
        The interval's level 1 − α.
    n_points : int
        Points of the numerical part of the integral (trapezoid rule).

    Returns
    -------
    float

    Notes
    -----
    Under ``(θ', β)`` the means of ``(X, Y)`` are ``(θ' + β, θ')``; against the truth
    ``(θ, 0)`` their difference is ``v = (Δ − β, Δ)``, ``Δ = θ − θ'``, at the distance
    ``d² = vᵀ Σ⁻¹ v``. The nearest null has ``β = Δ (1 − Σ₁₂ / Σ₂₂)`` while that is
    within ±B, and then ``d = |Δ| / √Σ₂₂`` (Y's own precision): that part is
    ``√Σ₂₂ [G(z) − G(z − Δ₁ / √Σ₂₂)]`` with ``G(x) = x Φ(x) + φ(x)``. Beyond it β = ±B
    and ``d²`` is a quadratic in Δ, integrated numerically until ``d = z + 9`` (the
    integrand is then below Φ(−9)). The integrand is symmetric in Δ.

    References
    ----------
    Pratt (1961), *JASA* 56; Armstrong and Kolesár (2018), *Econometrica* 86.

    Examples
    --------
    >>> round(float(pratt_bound(independent_errors(0.01, 0.02), 0.0, 0.95)) / 0.01, 3)
    3.331
    """
    from scipy.integrate import trapezoid
    from scipy.stats import norm

    cov = np.asarray(cov, dtype=float)
    if not (cov.shape == (2, 2) and np.all(np.linalg.eigvalsh(cov) > 0)):
        raise InvalidParameterError("cov must be a 2 × 2 positive definite matrix.")
    if not (bound >= 0 and 0 < ci_prob < 1):
        raise InvalidParameterError("bound ≥ 0 and 0 < ci_prob < 1 are required.")
    z = norm.ppf(ci_prob)
    sd_y = np.sqrt(cov[1, 1])
    slope = 1.0 - cov[0, 1] / cov[1, 1]  # the nearest null's β per unit of Δ

    def g(x):
        return x * norm.cdf(x) + norm.pdf(x)

    turn = np.inf if slope == 0 else bound / abs(slope)  # where the nearest β reaches ±B
    if not np.isfinite(turn):
        return 2.0 * sd_y * g(z)
    inner = sd_y * (g(z) - g(z - turn / sd_y))
    beta = bound * np.sign(slope)
    p = np.linalg.inv(cov)
    a = p[0, 0] + 2 * p[0, 1] + p[1, 1]  # d² = a Δ² + b Δ + c at β = ±B
    b = -2 * beta * (p[0, 0] + p[0, 1])
    c = p[0, 0] * beta**2 - (z + 9.0) ** 2
    disc = b**2 - 4 * a * c  # below 0: d > z + 9 for every Δ beyond the turn
    top = (-b + np.sqrt(disc)) / (2 * a) if disc > 0 else -np.inf
    outer = 0.0
    if top > turn:
        delta = np.linspace(turn, top, n_points)
        v = np.stack([delta - beta, delta])
        d = np.sqrt(np.maximum(np.einsum("in,ij,jn->n", v, p, v), 0.0))  # ≥ 0 but for rounding
        outer = trapezoid(norm.cdf(z - d), delta)
    return 2.0 * (inner + outer)


def pratt_bound_on_paths(
    cov0,
    paths,
    ci_prob: float,
    n_steps: int = 11,
    n_deltas: int = 121,
    n_draws: int = 20_000,
    random_seed: int = 0,
) -> float:
    """The bound of :func:`pratt_bound` where a distortion also changes the errors'
    covariance: each distortion ``d`` moves the pair ``(β, Σ)`` from ``(0, Σ₀)`` to
    ``(β_d, Σ_d)`` along the straight path ``(t β_d, (1 − t) Σ₀ + t Σ_d)``, t in [0, 1],
    and the interval must keep ``ci_prob`` at every point of every path, in both signs
    (the audit does not know which of the two groups differs).

    Pratt's argument is the same; against the truth ``N(0, Σ₀)`` the nearest null is now
    the one whose most powerful test (Neyman–Pearson, a quadratic likelihood ratio when
    the covariances differ) has the least power, found over ``n_steps`` points of each
    path. Each test's power is estimated from ``n_draws`` common normal draws under the
    null and under the truth (:func:`most_powerful_power`), and the integral is the
    trapezoid rule on ``n_deltas`` points of Δ up to the point where every null is
    rejected with probability above 1 − 10⁻⁴.

    Parameters
    ----------
    cov0 : array_like, shape (2, 2)
        Σ₀, the covariance of the errors of X and Y where the groups are alike.
    paths : list of (float, array_like)
        Per distortion, its bias β_d of X and the covariance Σ_d of the errors
        ``(X − θ − β_d, Y − θ)`` there.
    ci_prob : float
        The interval's level 1 − α.
    n_steps : int, default 11
        Points of each path (its ends included).
    n_deltas : int, default 121
        Points of Δ in the integral.
    n_draws : int, default 20,000
        Normal draws of each power.
    random_seed : int, default 0
        Of the draws.

    Returns
    -------
    float

    Notes
    -----
    The path is an interpolation: only its ends are given. With ``Σ_d = Σ₀`` it is
    :func:`pratt_bound` at ``B = max |β_d|`` restricted to the points of the paths.
    """
    from scipy.integrate import trapezoid

    cov0 = np.asarray(cov0, dtype=float)
    rng = np.random.default_rng(random_seed)
    draws = rng.standard_normal((2, n_draws, 2))  # common to every null: a smooth integrand
    betas, covs = [], []
    for beta_d, cov_d in paths:
        for t in np.linspace(0.0, 1.0, n_steps):
            for sign in (1.0, -1.0):
                betas.append(sign * t * beta_d)
                covs.append((1.0 - t) * cov0 + t * np.asarray(cov_d, dtype=float))
    betas, covs = np.array(betas), np.array(covs)
    sd_y = np.sqrt(cov0[1, 1])

    def least_power(delta: float) -> float:
        means = np.stack([betas - delta, np.full_like(betas, -delta)], axis=1)
        return float(most_powerful_power(means, covs, cov0, ci_prob, draws).min())

    top = 4.0 * sd_y
    while least_power(top) < 1.0 - 1e-4:
        top *= 1.5
    deltas = np.linspace(0.0, top, n_deltas)
    covered = [1.0 - least_power(delta) for delta in deltas]
    return 2.0 * trapezoid(covered, deltas)


def most_powerful_power(mean, cov_null, cov0, ci_prob: float, draws):
    """The power of the most powerful level-α test of ``N(mean, cov_null)`` against
    ``N(0, cov0)`` (Neyman–Pearson: reject where the log likelihood ratio exceeds its
    1 − α quantile under the null), from normal draws; for many nulls at once.

    Parameters
    ----------
    mean : array_like, shape (m, 2) or (2,)
        Each null's mean, less the truth's.
    cov_null : array_like, shape (m, 2, 2) or (2, 2)
        Each null's covariance.
    cov0 : array_like, shape (2, 2)
        The truth's covariance.
    ci_prob : float
        1 − α.
    draws : numpy.ndarray, shape (2, n, 2)
        Standard normal draws: the first for the nulls, the second for the truth.

    Returns
    -------
    numpy.ndarray, shape (m,), or float for one null
    """
    one = np.ndim(mean) == 1
    mean = np.atleast_2d(np.asarray(mean, dtype=float))[:, None, :]  # (m, 1, 2)
    cov_null = np.asarray(cov_null, dtype=float).reshape(-1, 2, 2)
    cov0 = np.asarray(cov0, dtype=float)
    p_null, p0 = np.linalg.inv(cov_null), np.linalg.inv(cov0)
    half_log_dets = 0.5 * (np.linalg.slogdet(cov_null)[1] - np.linalg.slogdet(cov0)[1])

    def quad(x, p):  # xᵀ P x per draw, P of shape (m, 2, 2) or (2, 2)
        p = p.reshape(-1, 1, 2, 2)
        a, b, c = p[..., 0, 0], p[..., 0, 1], p[..., 1, 1]
        return a * x[..., 0] ** 2 + 2 * b * x[..., 0] * x[..., 1] + c * x[..., 1] ** 2

    def log_ratio(x):  # log N(x; 0, Σ₀) − log N(x; mean, Σ_null), shape (m, n)
        return 0.5 * (quad(x - mean, p_null) - quad(x, p0)) + half_log_dets[:, None]

    under_null = mean + np.einsum("nj,mij->mni", draws[0], np.linalg.cholesky(cov_null))
    under_truth = (draws[1] @ np.linalg.cholesky(cov0).T)[None]
    threshold = np.quantile(log_ratio(under_null), ci_prob, axis=1)
    power = np.mean(log_ratio(under_truth) > threshold[:, None], axis=1)
    return float(power[0]) if one else power


def fixed_length_interval(cov, bound: float, ci_prob: float) -> tuple[float, float]:
    """The shortest interval ``(1 − w) X + w Y ± h`` of :func:`pratt_bound`'s limit
    experiment that keeps ``ci_prob`` for every |β| ≤ ``bound`` (Armstrong & Kolesár
    2018, §3: the bias-aware fixed-length interval).

    At a bias β its error is normal with mean ``(1 − w) β`` and variance
    ``(1 − w)² Σ₁₁ + w² Σ₂₂ + 2 w (1 − w) Σ₁₂``; the half-width is the critical value of
    ``|N(b, 1)|`` at the largest standardised bias ``b = |1 − w| B / sd``, times ``sd``;
    ``w`` in [−1, 2] is chosen to make it shortest.

    Parameters
    ----------
    cov : array_like, shape (2, 2)
        Covariance of the errors of X and Y.
    bound : float
        B, the largest bias of X.
    ci_prob : float
        The interval's level.

    Returns
    -------
    width : float
    w : float
    """
    from scipy.optimize import brentq, minimize_scalar
    from scipy.stats import norm

    cov = np.asarray(cov, dtype=float)

    def width(w):
        var = (1 - w) ** 2 * cov[0, 0] + w**2 * cov[1, 1] + 2 * w * (1 - w) * cov[0, 1]
        sd = np.sqrt(var)
        b = abs(1 - w) * bound / sd

        def miss(h):
            return norm.cdf(h - b) - norm.cdf(-h - b) - ci_prob

        return 2.0 * brentq(miss, 0.0, b + 10.0) * sd

    best = minimize_scalar(width, bounds=(-1.0, 2.0), method="bounded", options={"xatol": 1e-6})
    return float(best.fun), float(best.x)


def pratt_bound_split(
    var_x: float,
    var_r: float,
    bound: float,
    alike_prob: float,
    ci_prob: float,
    n_points: int = 8001,
) -> float:
    """:func:`pratt_bound` for an interval that keeps ``alike_prob`` where β = 0 and
    ``ci_prob`` for every 0 < |β| ≤ ``bound``, with X and the rectifier R = Y − X
    independent.

    A band that holds for K groups at once must keep more than its joint level in each
    group where the groups are alike, and at least its joint level in a group whose map
    differs (:func:`joint_band_bounds` splits the joint level). Each null ``(θ', β)``
    bounds the probability of covering θ' by ``Φ(z − d)``, z its own level's quantile
    and d its distance from the truth (Pratt 1961), so that

        E|C| ≥ ∫ max(Φ(z_alike − d₀(Δ)), Φ(z − d_B(Δ))) dΔ,

    ``d₀ = |Δ| / √var_x`` the null with β = 0 and ``d_B² = (Δ − β)² / var_x + β² / var_r``
    the nearest one with ``|β| ≤ B`` (``β = Δ var_r / (var_x + var_r)`` clipped to ±B):
    under ``(θ', β)`` X's mean is ``θ' + β`` and R's is ``−β``. With equal levels it is
    :func:`pratt_bound` with ``independent_errors(√var_x, √var_r)``.

    Parameters
    ----------
    var_x : float
        Variance of X's error (> 0).
    var_r : float
        Variance of the rectifier R (≥ 0; ``inf`` for a group without labels, where
        only X is read and every bias up to B is as likely as none; 0 where the labeled
        rows' residuals are certain, rows at p = 0 or 1, which in the limit pin β: the
        bound is then X's own, low).
    bound : float
        B (≥ 0).
    alike_prob, ci_prob : float
        The levels at β = 0 and at 0 < |β| ≤ B, in (0, 1).
    n_points : int
        Points of the trapezoid rule over Δ.

    Returns
    -------
    float

    Examples
    --------
    >>> same = pratt_bound_split(1e-4, 4e-4, 0.03, 0.95, 0.95)
    >>> bool(abs(same - pratt_bound(independent_errors(0.01, 0.02), 0.03, 0.95)) < 1e-6)
    True
    >>> bool(pratt_bound_split(1e-4, 4e-4, 0.03, 0.9999, 0.95) > same)
    True
    """
    from scipy.integrate import trapezoid
    from scipy.stats import norm

    if not (var_x > 0 and var_r >= 0 and np.isfinite(var_x)):
        raise InvalidParameterError("var_x must be positive and finite, var_r non-negative.")
    if not (bound >= 0 and 0 < alike_prob < 1 and 0 < ci_prob < 1):
        raise InvalidParameterError("bound ≥ 0 and levels in (0, 1) are required.")
    z_alike, z = norm.ppf(alike_prob), norm.ppf(ci_prob)
    sd_x = np.sqrt(var_x)
    top = bound + (max(z_alike, z) + 9.0) * sd_x  # beyond it both nulls are rejected
    delta = np.linspace(0.0, top, n_points)
    share = 1.0 if np.isinf(var_r) else var_r / (var_x + var_r)
    beta = np.clip(delta * share, -bound, bound)  # 0 where var_r is 0: R pins β
    far = (delta - beta) ** 2 / var_x
    if 0 < var_r < np.inf:
        far += beta**2 / var_r
    covered = np.maximum(norm.cdf(z_alike - delta / sd_x), norm.cdf(z - np.sqrt(far)))
    return float(2.0 * trapezoid(covered, delta))


def joint_band_bounds(var_x, var_r, bounds, ci_prob: float = 0.95):
    """The least expected width of each group's band, where the groups are alike, for a
    band that holds for all K groups at once with probability ``ci_prob``, where they
    are alike and where any one group's map is distorted by up to its B.

    Each group's band keeps ``1 − γ₀`` where the groups are alike and ``1 − γ₁`` where
    its own map differs; with the groups' misses independent (each band read mostly
    from its group's rows), holding jointly in the world where one group differs asks
    ``(1 − γ₀)^(K − 1) (1 − γ₁) ≥ ci_prob``, and where none does ``(1 − γ₀)^K ≥
    ci_prob``, which the first implies for γ₁ ≥ γ₀. One split for all groups (the audit
    does not know which group differs), chosen to make the median over the groups of
    :func:`pratt_bound_split` least: the bound of a median band width.

    Parameters
    ----------
    var_x, var_r, bounds : array_like, shape (K,)
        Per group, as :func:`pratt_bound_split` (:func:`gap_limit`'s columns).
    ci_prob : float, default 0.95
        The band's joint level.

    Returns
    -------
    widths : numpy.ndarray, shape (K,)
    gamma_alike, gamma_differs : float
        The split: each band's miss probability where the groups are alike and where
        its own group differs.
    """
    from scipy.optimize import minimize_scalar

    var_x, var_r, bounds = (np.asarray(a, dtype=float) for a in (var_x, var_r, bounds))
    k = var_x.size
    if not (var_r.shape == bounds.shape == var_x.shape == (k,) and k >= 1):
        raise InvalidParameterError("var_x, var_r and bounds must be 1-D and of one length.")
    if not 0 < ci_prob < 1:
        raise InvalidParameterError(f"ci_prob must be in (0, 1). Got {ci_prob}.")
    most = 1.0 - ci_prob ** (1.0 / k)  # γ₀ = γ₁: the whole miss where the groups are alike

    def split(log_gamma):
        gamma = np.exp(log_gamma)
        return gamma, 1.0 - ci_prob / (1.0 - gamma) ** (k - 1)

    def widths(log_gamma):
        gamma, differs = split(log_gamma)
        return np.array(
            [
                pratt_bound_split(vx, vr, b, 1.0 - gamma, 1.0 - differs)
                for vx, vr, b in zip(var_x, var_r, bounds, strict=True)
            ]
        )

    grid = np.log(most) + np.linspace(-12.0, 0.0, 13)  # γ₀ from most · e⁻¹² to most
    medians = [np.median(widths(g)) for g in grid]
    i = int(np.argmin(medians))
    low, high = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
    best = minimize_scalar(lambda g: np.median(widths(g)), bounds=(low, high), method="bounded")
    log_gamma = best.x if best.fun < medians[i] else grid[i]
    gamma, differs = split(log_gamma)
    return widths(log_gamma), float(gamma), float(differs)


#: Per metric, its counts as linear in a row's label q: the rate of a set of rows is
#: ``Σ (a + b q) / Σ (c + d q)``, with ``(a, b, c, d)`` functions of the decision ŷ.
_RATE_COUNTS = {
    "accuracy": lambda yhat: (1 - yhat, 2 * yhat - 1, np.ones_like(yhat), np.zeros_like(yhat)),
    "tpr": lambda yhat: (np.zeros_like(yhat), yhat, np.zeros_like(yhat), np.ones_like(yhat)),
    "fpr": lambda yhat: (yhat, -yhat, np.ones_like(yhat), -np.ones_like(yhat)),
}


def gap_limit(
    labeled,
    unlabeled,
    groups,
    metric: str = "accuracy",
    threshold: float = 0.5,
    distortions=None,
):
    """Each group's gap in the limit experiment, on one design where the groups are alike.

    The design is :func:`~bayesfair.datasets.simulate.differential_calibration`'s with
    ``kind="none"``: each row's score is its true probability p (the map the groups
    share is the identity), some rows labeled (a simple random sample). The gap of
    group j is its rate less the rate of all rows (the estimand of
    :meth:`~bayesfair.FairnessPosterior.group_summary`), on every row. Two estimates:

    - **X**, read through the shared map: the rate with the labeled rows' labels and
      the unlabeled rows' p. Where the groups are alike it is the most precise estimate
      (the map known; a fitted map adds its own error).
    - **Y = X + R**, debiased: R estimates group j's unlabeled rows' residuals ``y − p``
      (in the group's rate and in the rate of all rows) from its labeled rows'
      (prediction-powered inference, AIPW with the true regression: the least variance
      of an estimate unbiased whatever group j's map, in the limit; the other groups'
      rows are read through the shared map, which is theirs in the worlds compared).

    Linearised in the labels, with ``h_i`` row i's influence on the gap's rate,
    ``h_i^(j)`` and ``h_i^(all)`` its influence on the group's and on all rows' rate, and
    ``t_i = (N_u,j / n_j) (h_i^(j) − h_i^(all))`` for group j's labeled rows (N_u,j
    unlabeled and n_j labeled rows in the group),

        X − θ = Σ_unlabeled h_i (p_i − y_i),   R = Σ_labeled t_i (y_i − p_i),

    independent, of variances ``Σ h² p (1 − p)`` and ``Σ t² p (1 − p)``. If group j's map
    is distorted (:func:`~bayesfair.datasets.simulate.distort_scores`, applied to its
    rows), X reads its unlabeled rows' reported scores as their probabilities and its
    expectation moves by the bias β (the gap's rate from expected counts with the
    claimed probabilities, against the true ones); Y stays unbiased.

    Parameters
    ----------
    labeled, unlabeled : pandas.DataFrame
        Columns ``score``, ``group`` and ``p`` (``score`` equal to ``p``: the groups
        alike); ``label`` is not read.
    groups : sequence of str
        The groups, in the order of the rows returned.
    metric : {"accuracy", "tpr", "fpr"}, default "accuracy"
    threshold : float, default 0.5
        ŷ = 1[score ≥ threshold].
    distortions : dict, optional
        ``name: (kind, amount)``; default :data:`GAP_DISTORTIONS`.

    Returns
    -------
    pandas.DataFrame
        Indexed by group: ``n_labeled``; ``var_x`` and ``var_r`` (``inf`` for a group
        without labels); ``bias_<name>`` per distortion; and ``bound``, the smaller of the
        largest upward and the largest downward bias (the distortions move X both
        ways, so an interval must allow every |β| ≤ ``bound``).
    """
    import pandas as pd

    distortions = GAP_DISTORTIONS if distortions is None else dict(distortions)
    if metric not in _RATE_COUNTS:
        raise InvalidParameterError(
            f"metric must be one of {sorted(_RATE_COUNTS)}. Got {metric!r}."
        )
    rows = pd.concat([labeled, unlabeled], ignore_index=True)
    if not np.allclose(rows["score"], rows["p"]):
        raise InvalidParameterError(
            "gap_limit takes a design where the groups are alike (score = p)."
        )
    groups = list(groups)
    if not rows["group"].isin(groups).all():
        raise InvalidParameterError("Every row's group must be one of 'groups'.")
    code = rows["group"].map({g: i for i, g in enumerate(groups)}).to_numpy()
    rows_per_group = np.bincount(code, minlength=len(groups))
    empty = [g for g, n in zip(groups, rows_per_group, strict=True) if n == 0]
    if empty:
        raise InvalidParameterError(f"Groups without rows have no gap: {empty}.")
    is_lab = np.arange(len(rows)) < len(labeled)
    p = rows["p"].to_numpy(dtype=float)
    counts = _RATE_COUNTS[metric]

    def sums(yhat, q, members):  # the rate's numerator and denominator over some rows
        a, b, c, d = counts(yhat)
        return np.sum((a + b * q)[members]), np.sum((c + d * q)[members])

    def influence(yhat, members):  # ∂ rate / ∂ y_i over the rows of ``members``
        num, den = sums(yhat, p, members)
        _, b, _, d = counts(yhat)
        return np.where(members, (b - num / den * d) / den, 0.0)

    yhat = (rows["score"].to_numpy() >= threshold).astype(float)
    var_y = p * (1.0 - p)
    everyone = np.ones(len(rows), dtype=bool)
    h_all = influence(yhat, everyone)
    records = []
    for j in range(len(groups)):
        mine = code == j
        n_j, u_j = (is_lab & mine).sum(), (~is_lab & mine).sum()
        h_gap = influence(yhat, mine) - h_all
        var_x = float(np.sum((h_gap**2 * var_y)[~is_lab]))
        if n_j == 0:
            var_r = np.inf
        else:
            t = u_j / n_j * h_gap
            var_r = float(np.sum((t**2 * var_y)[is_lab & mine]))
        record = {"group": groups[j], "n_labeled": int(n_j), "var_x": var_x, "var_r": var_r}
        for name, (kind, amount) in distortions.items():
            reported, true_p = p.copy(), p.copy()
            reported[mine], true_p[mine] = distort_scores(p[mine], kind, amount)
            decided = (reported >= threshold).astype(float)
            claimed = np.where(is_lab, true_p, reported)  # X's expected labels
            gaps = []
            for q in (claimed, true_p):
                num, den = sums(decided, q, mine)
                num_all, den_all = sums(decided, q, everyone)
                gaps.append(num / den - num_all / den_all)
            record[f"bias_{name}"] = float(gaps[0] - gaps[1])
        biases = np.array([record[f"bias_{name}"] for name in distortions])
        record["bound"] = float(min(max(biases.max(), 0.0), max(-biases.min(), 0.0)))
        records.append(record)
    return pd.DataFrame(records).set_index("group")
