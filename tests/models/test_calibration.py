"""bayesfair.models.calibration: the hierarchical beta calibration (bc) and the robust
model's strata (rbc): priors, the calibration map, the strata's own rates and their draws.

Fits of the models are tested in tests/models/test_robust.py and tests/posterior/test_fitting.py.
"""

from dataclasses import replace

import numpy as np
import pytest
from scipy import stats

from bayesfair.data.summary import summarize_arrays
from bayesfair.exceptions import InvalidParameterError
from bayesfair.models.calibration import (
    VARIANTS,
    CalibrationPriors,
    DiscrepancyPrior,
    build_calibration_model,
    calibrate,
    carried_rates,
    draw_prior_rates,
    free_center,
    free_log_likelihood,
    free_log_likelihoods,
    rate_prior_shapes,
    sample_misfit,
    stratum_counts,
)
from bayesfair.models.shift import ShiftPrior


# ------------------------------------------------------------------ the priors
def test_discrepancy_prior_validation():
    for bad in (
        {"concentration": 0},
        {"concentration": (2.0, 5.0)},
        {"concentration": float("inf")},
        {"concentration": True},
        {"center": 1.0},
        {"prior_misfit": 1.0},
        {"shared_prior_misfit": -0.1},
    ):
        with pytest.raises(ValueError, match="must be"):
            DiscrepancyPrior(**bad)


@pytest.mark.parametrize("value", [True, False])
def test_a_prior_scale_is_a_number_not_a_boolean(value):
    with pytest.raises(ValueError, match="'sigma_c_sd' must be a positive finite number"):
        CalibrationPriors(sigma_c_sd=value)


# ------------------------------------------------------------------ the strata's own rates
def test_free_log_likelihood_is_the_beta_binomial_marginal():
    from scipy import integrate

    x, n = 3, 7
    # Beta(1 + κ m, 1 + κ (1 − m)) with κ = 2, m = 1/2 is Beta(2, 2), density 6 q (1 − q)
    value, _ = integrate.quad(lambda q: q**x * (1 - q) ** (n - x) * 6 * q * (1 - q), 0, 1)
    np.testing.assert_allclose(np.exp(free_log_likelihood(x, n, 0.5, 2.0)), value, rtol=1e-9)
    m, kappa = 0.8, 2.0
    value, _ = integrate.quad(
        lambda q: q**x * (1 - q) ** (n - x) * stats.beta.pdf(q, 1 + kappa * m, 1 + kappa * (1 - m)),
        0,
        1,
    )
    np.testing.assert_allclose(np.exp(free_log_likelihood(x, n, m, kappa)), value, rtol=1e-7)
    assert free_log_likelihood(0, 0, 0.3) == 0.0


@pytest.mark.parametrize("m", [1e-4, 0.05, 0.5, 0.95])
def test_own_rate_prior_has_its_mode_at_the_centre_and_no_pile_up(m):
    """The mode-centred Beta: mode m, both shapes ≥ 1 (a finite density at 0 and 1), so a
    small centre does not put the rate's mass at 0 (the mean-centred Beta(κ m, κ (1 − m))
    with m = 0.05, κ = 2 had a third of its mass below 1e-4)."""
    al, be = rate_prior_shapes(m, 2.0)
    assert al >= 1 and be >= 1
    assert (al - 1) / (al + be - 2) == pytest.approx(m)
    assert stats.beta.cdf(1e-4, al, be) < 1e-3
    assert stats.beta.cdf(1e-4, 2 * 0.05, 2 * 0.95) > 0.3  # the old prior, for the record


def _labeled(s, y, g, k):
    return summarize_arrays(np.asarray(s, float), np.asarray(g, int), range(k), labels=y)


def test_stratum_counts():
    x, n = stratum_counts(_labeled([0.2, 0.7, 0.5, 0.1], [1, 0, 1, 1], [0, 0, 1, 1], 2))
    np.testing.assert_array_equal(n, [[1, 1], [1, 1]])
    np.testing.assert_array_equal(x, [[1, 0], [1, 1]])


def test_sample_misfit_without_labels_keeps_the_prior():
    k, draws = 2, 20_000
    ones, zeros = np.ones((draws, k)), np.zeros((draws, k))
    prior = DiscrepancyPrior()
    free, rate, p_s, p_free = sample_misfit(
        _labeled([], [], [], k),
        ones,
        ones,
        zeros,
        prior,
        np.random.default_rng(2),
        center=np.full((k, 2), 0.3),
    )
    expected = prior.shared_prior_misfit + (1 - prior.shared_prior_misfit) * prior.prior_misfit
    np.testing.assert_allclose(p_s, prior.shared_prior_misfit)
    np.testing.assert_allclose(p_free, expected)
    # 20,000 × 4 indicator draws: the frequency within 5 binomial SEs
    se = np.sqrt(expected * (1 - expected) / free.size)
    assert abs(free.mean() - expected) < 5 * se
    assert free.shape == rate.shape == (draws, k, 2)
    # without labels a stratum's own rate is its prior, Beta(1 + κ m, 1 + κ (1 − m)):
    # mode m, mean (1 + κ m) / (κ + 2) = 0.4 at m = 0.3, κ = 2
    se = rate.std() / np.sqrt(rate.size)
    assert abs(rate.mean() - 0.4) < 5 * se


def test_sample_misfit_follows_contradicting_labels():
    # group 1's labels contradict a confident map on both sides; group 0's agree
    s = np.r_[np.full(30, 0.05), np.full(30, 0.95), np.full(30, 0.05), np.full(30, 0.95)]
    y = np.r_[np.zeros(30), np.ones(30), np.ones(30), np.zeros(30)]
    g = np.repeat([0, 1], 60)
    ones, zeros = np.ones((500, 2)), np.zeros((500, 2))
    _, rate, _, p_free = sample_misfit(
        _labeled(s, y, g, 2),
        ones,
        ones,
        zeros,
        DiscrepancyPrior(),
        np.random.default_rng(0),
        center=np.full((2, 2), 0.5),
    )
    # group 1 is free; group 0 only as far as "the whole side is off" stays plausible
    # (a free stratum of 30 zeros is nearly as likely as the map's 5%)
    assert p_free[:, 1].min() > 0.99 and p_free[:, 0].max() < 0.5
    # a free stratum's rate is its labeled rate's Beta posterior: the prior Beta(2, 2)
    # (m = 1/2, κ = 2) and 30 positives of 30, Beta(32, 2)
    np.testing.assert_allclose(rate[:, 1, 0].mean(), 32 / 34, atol=0.01)


def test_the_shared_term_is_the_product_of_the_strata():
    x, n = np.array([[1.0, 2.0], [0.0, 1.0]]), np.array([[2.0, 2.0], [3.0, 1.0]])
    center = np.full((2, 2), 0.4)
    disc = DiscrepancyPrior(concentration=3.0)
    out = free_log_likelihoods(x, n, center, disc)
    np.testing.assert_allclose(out[4:], free_log_likelihood(x, n, center, 3.0).sum(axis=0))


def test_prior_rates_are_independent_beta_draws():
    rng = np.random.default_rng(4)
    n = 40_000
    disc = DiscrepancyPrior(concentration=4.0)
    center = np.array([[0.5, 0.2], [0.7, 0.5]])
    rate = draw_prior_rates(disc, center, n, rng)
    assert rate.shape == (n, 2, 2)
    # Beta(1 + κ m, 1 + κ (1 − m)): mean (1 + κ m) / (κ + 2), variance mean (1 − mean) /
    # (κ + 3). Each within 5 Monte Carlo SEs of the exact moments (two-sided level about
    # 6e-7 per cell): SE of the mean sqrt(var / n), of the sample variance
    # sqrt((μ4 − var²) / n), μ4 from the Beta's kurtosis.
    beta = stats.beta(1 + 4.0 * center, 1 + 4.0 * (1 - center))
    mean, var = beta.mean(), beta.var()
    np.testing.assert_allclose(mean, (1 + 4.0 * center) / 6.0)
    np.testing.assert_allclose(var, mean * (1 - mean) / 7.0)
    mu4 = (beta.stats(moments="k") + 3.0) * var**2
    assert np.all(np.abs(rate.mean(axis=0) - mean) < 5 * np.sqrt(var / n))
    assert np.all(np.abs(rate.var(axis=0) - var) < 5 * np.sqrt((mu4 - var**2) / n))
    # strata are independent: the correlation within 5 SEs of 0
    r = np.corrcoef(rate[:, 0, 0], rate[:, 1, 0])[0, 1]
    assert abs(r) < 5 / np.sqrt(n)


# ------------------------------------------------------------------ more of the priors
def test_calibration_priors_default_to_ji_et_al_s_and_record_themselves():
    priors = CalibrationPriors()
    assert (priors.mu_a_sd, priors.mu_b_sd, priors.mu_c_sd) == (0.4, 0.4, 2.0)
    assert (priors.sigma_a_sd, priors.sigma_b_sd, priors.sigma_c_sd) == (0.15, 0.15, 0.75)
    record = CalibrationPriors(mu_c_sd=1.5).to_dict()
    assert record["kind"] == "CalibrationPriors" and record["mu_c_sd"] == 1.5
    assert "sd of the means 0.4, 0.4, 1.5" in CalibrationPriors(mu_c_sd=1.5).describe()
    for bad in (0.0, -1.0, float("inf"), float("nan"), "0.4"):
        with pytest.raises(ValueError, match="'mu_a_sd' must be a positive finite number"):
            CalibrationPriors(mu_a_sd=bad)


@pytest.mark.parametrize("k", [3, 5, 60])
def test_for_groups_keeps_the_chance_that_some_stratum_is_off(k):
    """With K groups the per-stratum probability q solves (1 − q)^(2K) = (1 − p)^4: the
    chance that some stratum of the K groups is off the map is that of two groups."""
    prior = DiscrepancyPrior(prior_misfit=0.03)
    scaled = prior.for_groups(k)
    q = scaled.prior_misfit
    assert 1 - (1 - q) ** (2 * k) == pytest.approx(1 - (1 - 0.03) ** 4, rel=1e-12)
    assert q < 0.03 and not scaled.scale_with_groups
    assert scaled.for_groups(k) == scaled  # scales once
    assert scaled.shared_prior_misfit == prior.shared_prior_misfit
    assert prior.for_groups(2) is prior
    fixed = DiscrepancyPrior(prior_misfit=0.03, scale_with_groups=False)
    assert fixed.for_groups(k) is fixed  # the default shifts keep their floor too
    scaled_shift = replace(fixed, shift=ShiftPrior(scale_with_groups=True))
    assert scaled_shift.for_groups(k).prior_misfit == 0.03  # the floor scales on its own
    assert scaled_shift.for_groups(k).shift == ShiftPrior(scale_with_groups=True).for_groups(k)


@pytest.mark.parametrize("k", [11, 30, 60])
def test_the_shifts_floor_falls_as_the_square_root_of_the_groups(k):
    """The floor up to ten groups, times √(10 / K) beyond; the rest unchanged; once."""
    prior = ShiftPrior(scale=0.7, floor=0.5, share=0.2, scale_with_groups=True)
    scaled = prior.for_groups(k)
    assert scaled.floor == pytest.approx(0.5 * np.sqrt(10 / k), rel=1e-12)
    assert (scaled.scale, scaled.share, scaled.local) == (0.7, 0.2, False)
    assert not scaled.scale_with_groups and scaled.for_groups(k) is scaled
    assert prior.for_groups(2) is prior and prior.for_groups(10) is prior
    assert ShiftPrior().for_groups(k) == ShiftPrior()  # the default keeps its floor
    four = ShiftPrior(scale_with_groups=True, floor_groups=4).for_groups(k)
    assert four.floor == pytest.approx(0.5 * np.sqrt(4 / k), rel=1e-12)
    for bad in (1, 2.5, True, "10"):
        with pytest.raises(InvalidParameterError, match="'floor_groups'"):
            ShiftPrior(floor_groups=bad)
    assert DiscrepancyPrior(shift=None).for_groups(k).shift is None
    with pytest.raises(InvalidParameterError, match="scale_with_groups"):
        ShiftPrior(scale_with_groups="yes")


def test_discrepancy_prior_stores_plain_floats_and_describes_itself():
    prior = DiscrepancyPrior(np.float64(0.02), 0.05, np.float64(3), center=np.float64(0.25))
    assert type(prior.prior_misfit) is float and type(prior.concentration) is float
    assert repr(prior) == (
        "DiscrepancyPrior(prior_misfit=0.02, shared_prior_misfit=0.05, concentration=3.0, "
        "center=0.25, scale_with_groups=True, label_free=None, "
        "shift=ShiftPrior(scale=1.0, floor=0.5, share=0.0, local=False, "
        "scale_with_groups=False, odd=0.05, odd_floor=None, floor_groups=10))"
    )
    words = prior.describe()
    assert "probability 0.02 for two groups" in words and "κ = 3 and m = 0.25" in words
    assert "the calibration model's mode" in DiscrepancyPrior().describe()
    with pytest.raises(ValueError, match="'scale_with_groups' must be True or False"):
        DiscrepancyPrior(scale_with_groups=1)
    with pytest.raises(ValueError, match="'label_free' must be None, 'prior' or 'carried'"):
        DiscrepancyPrior(label_free="borrowed")
    assert "carries its side's discrepancy" in DiscrepancyPrior(label_free="carried").describe()


def test_numpy_integers_and_float32_are_numbers_to_the_priors():
    assert DiscrepancyPrior(concentration=np.int64(3)).concentration == 3.0
    assert CalibrationPriors(mu_a_sd=np.float32(0.5)).mu_a_sd == 0.5


@pytest.mark.parametrize("m", [0.0, 1.0, -3.0])
def test_rate_prior_shapes_clip_the_centre_inside_the_unit_interval(m):
    al, be = rate_prior_shapes(m, 2.0)
    clipped = min(max(m, 1e-4), 1 - 1e-4)
    assert (al, be) == pytest.approx((1 + 2 * clipped, 1 + 2 * (1 - clipped)))
    al, be = rate_prior_shapes(np.array([[0.2, 0.5], [0.9, 0.3]]), 4.0)
    np.testing.assert_allclose(al, [[1.8, 3.0], [4.6, 2.2]])
    np.testing.assert_allclose(al + be, 6.0)


# ------------------------------------------------------------------ the map
def test_calibrate_is_ji_et_al_s_equation_2():
    s = np.array([0.02, 0.3, 0.5, 0.9])
    a, b, c = 1.7, 0.6, -0.4
    expected = 1 / (1 + np.exp(-(c + a * np.log(s) - b * np.log(1 - s))))
    np.testing.assert_allclose(calibrate(s, a, b, c), expected, rtol=1e-13)
    # the identity at a = b = 1, c = 0, and a float for scalars
    assert calibrate(0.3, 1.0, 1.0, 0.0) == pytest.approx(0.3, abs=1e-15)
    assert isinstance(calibrate(0.3, 1.0, 1.0, 0.0), float)


def test_calibrate_clips_the_scores_and_broadcasts_against_the_parameters():
    assert calibrate(0.0, 1.0, 1.0, 0.0) == pytest.approx(0.01)
    assert calibrate(1.0, 1.0, 1.0, 0.0, score_clip=0.05) == pytest.approx(0.95)
    draws_a = np.array([[0.5], [1.0], [2.0]])  # three draws of one group's a
    out = calibrate(np.array([0.2, 0.8]), draws_a, 1.0, 0.0)
    assert out.shape == (3, 2)
    np.testing.assert_allclose(out[1], [0.2, 0.8])
    # a larger a pushes a score below 1/2 further down (b = 1, c = 0)
    assert out[0, 0] > out[1, 0] > out[2, 0]


# ------------------------------------------------------------------ the model and its centre
def test_build_calibration_model_refuses_an_unknown_variant():
    labeled = summarize_arrays(np.array([0.2, 0.7]), np.array([0, 0]), range(1), labels=[0, 1])
    with pytest.raises(ValueError, match=r"Unknown calibration variant 'platt'\. Choose one"):
        build_calibration_model(labeled, variant="platt")
    assert VARIANTS == ("beta", "llo", "temperature")


def test_build_calibration_model_has_the_variants_free_variables():
    labeled = _labeled([0.2, 0.7, 0.4, 0.9], [0, 1, 0, 1], [0, 0, 1, 1], 2)
    free = {
        variant: {v.name for v in build_calibration_model(labeled, variant=variant).free_RVs}
        for variant in VARIANTS
    }
    blocks = {"beta": "abc", "llo": "ac", "temperature": "a"}
    for variant, letters in blocks.items():
        assert free[variant] == {f"{p}_{x}" for x in letters for p in ("mu", "sigma", "z")}


def test_free_center_is_the_map_mean_of_calibrated_labels():
    """Labels drawn from the scores themselves: bc's mode is near the identity map, so a
    stratum's centre is near the mean score of its side (the population's)."""
    rng = np.random.default_rng(11)
    n = 4_000
    s = rng.uniform(0.02, 0.98, n)
    y = (rng.uniform(size=n) < s).astype(int)
    g = rng.integers(0, 2, n)
    labeled = summarize_arrays(s, g, range(2), labels=y)
    center = free_center(labeled)
    assert center.shape == (2, 2)
    for k in range(2):
        for side, rows in ((0, s < 0.5), (1, s >= 0.5)):
            mean = s[(g == k) & rows].mean()
            assert center[k, side] == pytest.approx(mean, abs=0.03), (k, side)
    # a population of other scores moves the centre with them
    high = summarize_arrays(np.full(100, 0.9), np.repeat([0, 1], 50), range(2))
    moved = free_center(labeled, high)
    assert moved[:, 1] == pytest.approx([0.9, 0.9], abs=0.05)
    np.testing.assert_allclose(moved[:, 0], 0.5)  # no population score below 1/2


def test_sample_misfit_keeps_the_draws_leading_axes():
    labeled = _labeled([0.2, 0.7, 0.4, 0.9], [0, 1, 0, 1], [0, 0, 1, 1], 2)
    ones = np.ones((3, 5, 2))
    free, rate, p_shared, p_free = sample_misfit(
        labeled, ones, ones, 0 * ones, DiscrepancyPrior(), np.random.default_rng(0), center=None
    )
    assert free.shape == rate.shape == p_free.shape == (3, 5, 2, 2)
    assert p_shared.shape == (3, 5, 2) and free.dtype == bool
    assert np.all((rate > 0) & (rate < 1))


@pytest.mark.parametrize("slope", [1.0, 4.0])
def test_carried_rates_give_label_free_strata_the_map_plus_the_labeled_discrepancy(slope):
    """Group 0 is labeled, group 1 has no labels. Under the map a = b = slope, c = 0
    the map's rate of a stratum is the mean of σ(slope · logit s) over its rows. Group
    0's own rates sit 0.05 above that mean on side ŷ = 1 and 0.03 below it on side
    ŷ = 0, so group 1's carried rates are its own rows' map mean shifted by the same
    amounts; group 0's rates are left as drawn. The rows here are scores already on
    the summary's grid and inside its clip, so the binned likelihood's only error is
    its expansion of σ to second order in a bin's spread: under 1e-4 at these slopes
    (without the second-order term, or with its sign flipped, the error at slope 4 is
    about 3.5e-3)."""
    rng = np.random.default_rng(0)
    grid = (np.arange(1024) + 0.5) / 1024
    grid = grid[(grid > 0.01) & (grid < 0.99)]
    s0, s1 = rng.choice(grid, 3_000), rng.choice(grid[grid < 0.7], 3_000)
    y0 = (rng.random(s0.size) < s0).astype(int)
    labeled = _labeled(s0, y0, np.zeros(s0.size, int), 2)
    population = summarize_arrays(np.concatenate([s0, s1]), np.repeat([0, 1], 3_000), range(2))
    ab, c = np.full((3, 2), slope), np.zeros((3, 2))

    def on_map(s):
        return 1.0 / (1.0 + ((1.0 - s) / s) ** slope)

    mean0 = [on_map(s0[s0 < 0.5]).mean(), on_map(s0[s0 >= 0.5]).mean()]
    rate = np.empty((3, 2, 2))
    rate[:, 0] = np.add(mean0, [-0.03, 0.05])
    rate[:, 1] = 0.5  # the prior's draws of the label-free group, to be replaced
    out = carried_rates(labeled, population, ab, ab, c, rate)
    np.testing.assert_array_equal(out[:, 0], rate[:, 0])
    want = [on_map(s1[s1 < 0.5]).mean() - 0.03, on_map(s1[s1 >= 0.5]).mean() + 0.05]
    np.testing.assert_allclose(out[:, 1], np.broadcast_to(want, (3, 2)), atol=1e-4)


def test_carried_rates_leave_a_side_without_any_labels_to_its_prior():
    s = np.array([0.1, 0.2, 0.3, 0.4])  # every label on side ŷ = 0
    labeled = _labeled(s, [0, 1, 0, 0], np.zeros(4, int), 2)
    population = summarize_arrays(np.array([0.3, 0.8, 0.2, 0.9]), np.array([0, 0, 1, 1]), range(2))
    ones = np.ones((1, 2))
    rate = np.full((1, 2, 2), 0.37)
    out = carried_rates(labeled, population, ones, ones, 0 * ones, rate)
    assert out[0, 1, 1] == 0.37 and out[0, 0, 1] == 0.37  # side ŷ = 1: no labels anywhere
    # side ŷ = 0 of the label-free group: its map rate (its one row there, 0.2) plus the
    # labeled side's discrepancy (own rate 0.37 against the map's mean 0.25)
    assert out[0, 1, 0] == pytest.approx(0.2 + (0.37 - 0.25), abs=1e-3)
