"""The limit experiment of many groups' gaps (``bayesfair.datasets.limits``): the
split bound's closed forms, the joint split, and ``gap_limit``'s variances and biases
against the estimates themselves, simulated on one design.

The Monte Carlo checks hold at about 4 standard errors each (a false failure well below
1 in 1,000 per comparison): a variance estimated from R draws has a relative standard
error of about √(2 / R), a mean one of sd / √R.
"""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from bayesfair.datasets.limits import (
    GAP_DISTORTIONS,
    gap_limit,
    independent_errors,
    joint_band_bounds,
    pratt_bound,
    pratt_bound_split,
)
from bayesfair.datasets.simulate import differential_calibration, distort_scores
from bayesfair.exceptions import InvalidParameterError


@pytest.mark.parametrize(
    "var_x, var_r, b", [(1e-4, 4e-4, 0.03), (4e-5, 3e-3, 0.085), (1e-4, 1e-4, 0.0)]
)
def test_split_bound_at_one_level_is_pratts(var_x, var_r, b):
    """With one level the larger of the two nulls' bounds is the nearer null's: the
    split bound is :func:`pratt_bound` of X and an independent rectifier."""
    cov = independent_errors(np.sqrt(var_x), np.sqrt(var_r))
    for level in (0.9, 0.95):
        split = pratt_bound_split(var_x, var_r, b, level, level)
        assert split == pytest.approx(pratt_bound(cov, b, level), rel=1e-5)


def test_split_bound_without_labels_at_two_levels():
    """Without a rectifier and with a stricter level where the groups are alike: below
    ``c = (z_alike − z) sd_x`` the alike null binds, up to B every bias is as likely as
    none, beyond it the distorted null binds: ``2 (sd_x G(z_alike) + (B − c) Φ(z))``,
    ``G(x) = x Φ(x) + φ(x)`` (swapping the two levels changes it)."""
    var_x, b = 1e-4, 0.05
    z_alike, z = norm.ppf(0.9999), norm.ppf(0.95)
    sd_x = np.sqrt(var_x)
    closed = 2 * (sd_x * (z_alike * norm.cdf(z_alike) + norm.pdf(z_alike)))
    closed += 2 * (b - (z_alike - z) * sd_x) * norm.cdf(z)
    assert pratt_bound_split(var_x, np.inf, b, 0.9999, 0.95) == pytest.approx(closed, rel=1e-6)


def test_split_bound_without_labels_and_its_monotony():
    """Without a rectifier (a group with no labels) every bias up to B is as likely as
    none: ``2 (B Φ(z) + sd_x (z Φ(z) + φ(z)))``; with a certain one (var_r = 0) β is
    known to be 0 and the bound is X's own at the alike level, which a nearly certain
    one approaches. A stricter level where the groups are
    alike, a larger B or a noisier rectifier only lengthen the bound."""
    var_x, b, z = 1e-4, 0.05, norm.ppf(0.95)
    closed = 2 * (b * norm.cdf(z) + np.sqrt(var_x) * (z * norm.cdf(z) + norm.pdf(z)))
    assert pratt_bound_split(var_x, np.inf, b, 0.95, 0.95) == pytest.approx(closed, rel=1e-6)
    levels = [pratt_bound_split(var_x, 1e-3, b, a, 0.95) for a in (0.95, 0.99, 0.999, 0.99999)]
    assert np.all(np.diff(levels) > 0)
    assert pratt_bound_split(var_x, 1e-3, 2 * b, 0.99, 0.95) > levels[1]
    assert pratt_bound_split(var_x, 4e-3, b, 0.99, 0.95) > levels[1]
    assert pratt_bound_split(var_x, np.inf, b, 0.99, 0.95) > pratt_bound_split(
        var_x, 4e-3, b, 0.99, 0.95
    )
    pinned = 2 * np.sqrt(var_x) * (norm.ppf(0.99) * 0.99 + norm.pdf(norm.ppf(0.99)))
    assert pratt_bound_split(var_x, 0.0, b, 0.99, 0.95) == pytest.approx(pinned, rel=1e-6)
    assert pratt_bound_split(var_x, 1e-12, b, 0.99, 0.95) == pytest.approx(pinned, rel=1e-3)
    with pytest.raises(InvalidParameterError, match="var_x"):
        pratt_bound_split(0.0, 1e-3, b, 0.99, 0.95)
    with pytest.raises(InvalidParameterError, match="levels"):
        pratt_bound_split(var_x, 1e-3, b, 1.0, 0.95)


def test_joint_split_keeps_the_joint_level_and_lies_between_its_ends():
    """The split holds jointly where one group differs, ``(1 − γ₀)^(K − 1) (1 − γ₁) =
    ci_prob``; its median is no longer than either end of the split's range (all of
    the miss where the groups are alike, or almost none of it) and no shorter than
    each band keeping just ``ci_prob``. With one group it is :func:`pratt_bound_split`
    at ``ci_prob``."""
    rng = np.random.default_rng(3)
    k = 40
    var_x = rng.uniform(3e-5, 1.2e-4, k)
    var_r = rng.uniform(3e-4, 1e-2, k)
    bounds = rng.uniform(0.07, 0.09, k)
    widths, gamma, differs = joint_band_bounds(var_x, var_r, bounds)
    assert (1 - gamma) ** (k - 1) * (1 - differs) == pytest.approx(0.95, rel=1e-12)
    assert 0 < gamma < differs < 0.05
    most = 1 - 0.95 ** (1 / k)
    for g0 in (most, most * np.exp(-12)):
        g1 = 1 - 0.95 / (1 - g0) ** (k - 1)
        end = [
            pratt_bound_split(*a, 1 - g0, 1 - g1) for a in zip(var_x, var_r, bounds, strict=True)
        ]
        assert np.median(widths) <= np.median(end) + 1e-12
    own = [pratt_bound_split(*a, 0.95, 0.95) for a in zip(var_x, var_r, bounds, strict=True)]
    assert np.all(widths > np.array(own))
    one, gamma1, differs1 = joint_band_bounds(var_x[:1], var_r[:1], bounds[:1])
    assert one[0] == pytest.approx(own[0], rel=1e-9)
    assert gamma1 == pytest.approx(0.05) and differs1 == pytest.approx(0.05)


@pytest.fixture(scope="module")
def design():
    """One alike design of three unequal groups: 450 labeled and 4,500 unlabeled rows."""
    lab, unl = differential_calibration(
        3, 450, 4_500, kind="none", weights=[0.5, 0.3, 0.2], random_seed=11
    )
    return lab, unl, ["g0", "g1", "g2"]


_COUNTS = {  # the rate's counts, linear in the label q: Σ (a + b q) / Σ (c + d q)
    "accuracy": lambda yh, q: (yh * q + (1 - yh) * (1 - q), np.ones_like(q)),
    "tpr": lambda yh, q: (yh * q, q),
    "fpr": lambda yh, q: (yh * (1 - q), 1 - q),
}


def _estimates(metric, yhat, code, is_lab, q_unl, y, p_lab):
    """Per simulated draw of the labels ``y`` (draws × rows): the realised gap of group 0,
    X (the unlabeled rows read as ``q_unl``) and Y (X with each count's residuals on
    group 0's unlabeled rows estimated from its labeled rows', in the group's rate and
    in the rate of all rows)."""
    counts = _COUNTS[metric]
    read = np.where(is_lab, y, q_unl)
    mine, lab_mine = code == 0, is_lab & (code == 0)

    def gap(num, den):
        return num[:, mine].sum(1) / den[:, mine].sum(1) - num.sum(1) / den.sum(1)

    num_t, den_t = counts(yhat, y)
    truth = gap(num_t, den_t)
    num_x, den_x = counts(yhat, read)
    x = gap(num_x, den_x)
    num_r, den_r = (a - b for a, b in zip(counts(yhat, y), counts(yhat, p_lab), strict=True))
    scale = (~is_lab & mine).sum() / lab_mine.sum()
    num_fix, den_fix = scale * num_r[:, lab_mine].sum(1), scale * den_r[:, lab_mine].sum(1)
    num_mine, den_mine = num_x[:, mine].sum(1) + num_fix, den_x[:, mine].sum(1) + den_fix
    num_all, den_all = num_x.sum(1) + num_fix, den_x.sum(1) + den_fix
    y_hat = num_mine / den_mine - num_all / den_all
    ratios = {  # Y's and the truth's rates as (numerator, denominator) per draw, signed
        +1: [(num_mine, den_mine), (num_t.sum(1), den_t.sum(1))],
        -1: [(num_all, den_all), (num_t[:, mine].sum(1), den_t[:, mine].sum(1))],
    }
    return truth, x, y_hat, ratios


def _second_order(ratios) -> float:
    """E[Y − θ] to second order: Y's counts are unbiased for the truth's, so the first
    order cancels, and a ratio N / D has E ≈ E N / E D − Cov(N, D) / (E D)² +
    E N Var(D) / (E D)³ (its Hessian against the counts' covariance)."""

    def term(num, den):
        mean_d = den.mean()
        return -np.cov(num, den)[0, 1] / mean_d**2 + num.mean() * den.var() / mean_d**3

    return sum(sign * term(*pair) for sign, pairs in ratios.items() for pair in pairs)


@pytest.mark.parametrize("metric", ["accuracy", "tpr", "fpr"])
def test_gap_limit_variances_and_biases_match_simulation(design, metric):
    """On a fixed design, labels drawn 4,000 times: X's error and the rectifier Y − X have
    the variances ``gap_limit`` gives and are uncorrelated; Y is unbiased (TPR and FPR,
    ratios, up to their second-order term, computed from the draws' moments: the
    mean error is checked against it within 4 standard errors of both); and with group
    0's map distorted, the mean of X's error is ``gap_limit``'s bias."""
    lab, unl, groups = design
    limit = gap_limit(lab, unl, groups, metric)
    rows = pd.concat([lab, unl], ignore_index=True)
    p = rows["p"].to_numpy()
    code = rows["group"].map({g: i for i, g in enumerate(groups)}).to_numpy()
    is_lab = np.arange(len(rows)) < len(lab)
    yhat = (p >= 0.5).astype(float)
    rng = np.random.default_rng(5)
    draws = 4_000
    y = (rng.random((draws, len(rows))) < p).astype(float)
    truth, x, y_est, ratios = _estimates(metric, yhat, code, is_lab, p, y, p)
    err_x, rect = x - truth, y_est - x
    tol = 4 * np.sqrt(2 / draws)
    assert np.var(err_x) == pytest.approx(limit.loc["g0", "var_x"], rel=tol)
    assert np.var(rect) == pytest.approx(limit.loc["g0", "var_r"], rel=tol)
    assert abs(np.corrcoef(err_x, rect)[0, 1]) < 4 / np.sqrt(draws)
    bias, se = np.mean(y_est - truth), np.std(y_est - truth) / np.sqrt(draws)
    expected = _second_order(ratios)  # 0 for accuracy, whose denominators are fixed
    if metric == "accuracy":
        assert expected == pytest.approx(0.0, abs=1e-15)
    assert bias == pytest.approx(expected, abs=4 * np.hypot(se, expected * np.sqrt(2 / draws)))
    for name, (kind, amount) in GAP_DISTORTIONS.items():
        reported, true_p = p.copy(), p.copy()
        reported[code == 0], true_p[code == 0] = distort_scores(p[code == 0], kind, amount)
        y = (rng.random((draws, len(rows))) < true_p).astype(float)
        decided = (reported >= 0.5).astype(float)
        truth, x, *_ = _estimates(metric, decided, code, is_lab, reported, y, true_p)
        se = np.std(x - truth) / np.sqrt(draws)
        assert np.mean(x - truth) == pytest.approx(limit.loc["g0", f"bias_{name}"], abs=4 * se)


def test_gap_limit_bound_and_groups_without_labels(design):
    """B is the smaller of the largest upward and downward biases; a group without
    labels has no rectifier (``var_r`` infinite); a distorted design, an unknown
    metric or group are refused."""
    lab, unl, groups = design
    limit = gap_limit(lab, unl, groups)
    biases = limit[[f"bias_{name}" for name in GAP_DISTORTIONS]].to_numpy()
    expect = np.minimum(biases.max(axis=1).clip(0), (-biases.min(axis=1)).clip(0))
    np.testing.assert_allclose(limit["bound"], expect)
    assert (limit["bound"] > 0).all()  # label noise and slope × 0.5 move X both ways
    no_labels = gap_limit(lab[lab["group"] != "g2"], unl, groups)
    assert no_labels.loc["g2", "n_labeled"] == 0 and np.isinf(no_labels.loc["g2", "var_r"])
    assert np.isfinite(no_labels.loc[["g0", "g1"], "var_r"]).all()
    bent = unl.assign(score=distort_scores(unl["p"].to_numpy(), "slope", 2.0)[0])
    with pytest.raises(InvalidParameterError, match="alike"):
        gap_limit(lab, bent, groups)
    with pytest.raises(InvalidParameterError, match="metric"):
        gap_limit(lab, unl, groups, "ppv")
    with pytest.raises(InvalidParameterError, match="groups"):
        gap_limit(lab, unl, groups[:2])
    with pytest.raises(InvalidParameterError, match=r"without rows.*g3"):
        gap_limit(lab, unl, [*groups, "g3"])
