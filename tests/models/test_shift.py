"""The strata's shifts (bayesfair.models.shift): likelihood, conditional draws, counts."""

import numpy as np
import pytest
from scipy.stats import norm

from bayesfair.data.summary import summarize_arrays
from bayesfair.exceptions import InvalidParameterError
from bayesfair.models.calibration import DiscrepancyPrior
from bayesfair.models.likelihood import binned_loglik, likelihood_data
from bayesfair.models.priors import prior_from_record
from bayesfair.models.shift import (
    SHIFT_GRID,
    ShiftPrior,
    sample_shifts,
    shifted_counts,
    stratum_shift_loglik,
)
from bayesfair.models.unlabeled import expected_counts, sampled_counts


def _labeled(rng, n=(300, 120), flip=(0.0, 0.0)):
    """Two groups with scores ~ Beta(2, 2) and labels from the identity map, a share
    of group g's labels flipped."""
    scores, labels, groups = [], [], []
    for g, (size, r) in enumerate(zip(n, flip, strict=True)):
        s = rng.beta(2.0, 2.0, size)
        y = rng.random(size) < s
        y = np.where(rng.random(size) < r, ~y, y)
        scores.append(s), labels.append(y.astype(int)), groups.append(np.full(size, g))
    return summarize_arrays(
        np.concatenate(scores), np.concatenate(groups), [0, 1], labels=np.concatenate(labels)
    )


@pytest.fixture(scope="module")
def labeled():
    return _labeled(np.random.default_rng(3))


def test_the_shift_likelihood_is_the_binned_likelihood_with_the_intercept_moved(labeled):
    lik = likelihood_data(labeled)
    rng = np.random.default_rng(0)
    a, b = np.exp(rng.normal(0, 0.2, (5, 2))), np.exp(rng.normal(0, 0.2, (5, 2)))
    c = rng.normal(0, 0.5, (5, 2))
    grid = np.linspace(-1.5, 2.0, 8)  # evenly spaced, with 0 at position 3
    got = stratum_shift_loglik(lik, a, b, c, 2, grid)
    stratum = lik["group_idx"] * 2 + lik["side"]
    for j, d in enumerate(grid):
        for s in range(4):
            moved = np.where(np.arange(2) == s // 2, d, 0.0)  # move group s // 2 only
            on = stratum == s
            full = binned_loglik(lik, a, b, c + moved)[:, on].sum(axis=1)
            base = binned_loglik(lik, a, b, c)[:, on].sum(axis=1)
            other_side = stratum == (s ^ 1)
            # moving c moves the other side's entries too: take this stratum's alone
            assert on.any() and not (on & other_side).any()
            ref0 = got[:, s, 3]
            # the kernel's interpolation bound: w⁴/384 per row, w the table's step (its
            # module docstring), for each of the two points compared
            w = (grid[1] - grid[0]) / 10
            bound = 2 * w**4 / 384 * lik["count"][on].sum()
            np.testing.assert_allclose(got[:, s, j] - ref0, full - base, rtol=0, atol=bound)


def test_a_fixed_spread_gives_the_exact_conditional_posterior(labeled):
    """τ fixed at 0.5 (floor 0.5, scale → 0): each stratum's shift is drawn from
    exp(L(δ)) N(δ; 0, 0.5²); its mean matches quadrature within 4 Monte Carlo SE plus
    the grid's half step."""
    lik = likelihood_data(labeled)
    n = 4000
    a, b, c = np.full((n, 2), 1.3), np.full((n, 2), 0.8), np.full((n, 2), 0.2)
    shift, tau = sample_shifts(
        labeled, a, b, c, ShiftPrior(scale=1e-9, floor=0.5), np.random.default_rng(1)
    )
    assert shift.shape == (n, 2, 2) and np.all(tau == 0.5)
    fine = np.linspace(-5, 5, 20001)
    ll = stratum_shift_loglik(lik, a[:1], b[:1], c[:1], 2, fine)[0]  # (4, fine)
    post = np.exp(ll - ll.max(axis=1, keepdims=True)) * norm.pdf(fine, 0, 0.5)
    post /= post.sum(axis=1, keepdims=True)
    mean = post @ fine
    sd = np.sqrt(post @ fine**2 - mean**2)
    got = shift.reshape(n, 4)
    step = SHIFT_GRID[1] - SHIFT_GRID[0]
    assert np.all(np.abs(got.mean(axis=0) - mean) < 4 * sd / np.sqrt(n) + step / 2)
    assert np.all(np.abs(got.std(axis=0) / sd - 1) < 0.1)


def test_a_stratum_without_labels_draws_its_shift_from_the_prior():
    rng = np.random.default_rng(5)
    labeled = _labeled(rng, n=(200, 0))
    n = 4000
    ones = np.ones((n, 2))
    shift, _ = sample_shifts(labeled, ones, ones, 0 * ones, ShiftPrior(1e-9, 0.7), rng)
    free = shift[:, 1, :].ravel()  # group 1 has no labels
    # sd of a normal's sample sd: σ / √(2n); 5 SE, plus the grid's cell (variance step²/12)
    assert abs(free.std() - 0.7) < 5 * 0.7 / np.sqrt(2 * free.size) + 0.01
    assert abs(free.mean()) < 5 * 0.7 / np.sqrt(free.size)


def test_the_spread_grows_when_a_group_differs():
    """Labels like the map keep τ at its floor more often than a group with 30% of
    its labels flipped (whose strata need shifts of about ±1)."""
    rng = np.random.default_rng(7)
    alike = _labeled(rng, n=(400, 400))
    noisy = _labeled(rng, n=(400, 400), flip=(0.0, 0.3))
    ones = np.ones((1000, 2))
    prior = ShiftPrior(scale=1.0, floor=0.1)
    _, tau_alike = sample_shifts(alike, ones, ones, 0 * ones, prior, rng)
    shift, tau_noisy = sample_shifts(noisy, ones, ones, 0 * ones, prior, rng)
    assert np.median(tau_noisy) > 2 * np.median(tau_alike)
    # the flipped group's labels pull its ŷ = 1 side down and its ŷ = 0 side up
    assert shift[:, 1, 1].mean() < -0.5 and shift[:, 1, 0].mean() > 0.5


def test_a_group_shares_the_pooled_map_with_its_posterior_probability():
    """τ fixed at 0.7 and a prior share of 1/2: a group's shifts are both 0 in a share
    of draws equal to its exact posterior probability p L(0) / (p L(0) + (1 − p) ∫ L(δ)
    N(δ; 0, 0.7²) dδ) (quadrature on a fine grid), within 4 binomial SE plus 0.01 for
    the sampler's grid; the group with 30% of its labels flipped almost never shares."""
    rng = np.random.default_rng(11)
    labeled = _labeled(rng, n=(150, 150), flip=(0.0, 0.3))
    n, share, tau = 4000, 0.5, 0.7
    a, b, c = np.full((n, 2), 1.0), np.full((n, 2), 1.0), np.zeros((n, 2))
    shift, _ = sample_shifts(labeled, a, b, c, ShiftPrior(1e-9, tau, share=share), rng)
    shared = np.all(shift == 0.0, axis=2).mean(axis=0)  # per group
    fine = np.linspace(-5, 5, 20001)
    ll = stratum_shift_loglik(likelihood_data(labeled), a[:1], b[:1], c[:1], 2, fine)[0]
    zero = np.argmin(np.abs(fine))
    top = ll.max(axis=1, keepdims=True)
    prior = norm.pdf(fine, 0, tau) * (fine[1] - fine[0])
    own = np.log(np.exp(ll - top) @ prior) + top[:, 0]  # per stratum
    log_odds = (ll[:, zero] - own).reshape(2, 2).sum(axis=1)  # share against own, per group
    exact = 1 / (1 + np.exp(-log_odds))
    assert exact[0] > 0.5 and exact[1] < 0.01
    assert np.all(np.abs(shared - exact) < 4 * np.sqrt(exact * (1 - exact) / n) + 0.01)
    # a group that shares keeps the pooled map on both sides; one that does not, shifts
    assert np.all((shift[:, :, 0] == 0) == (shift[:, :, 1] == 0))


def test_overwhelming_evidence_for_a_shift_draws_without_overflow():
    """20,000 labels in a group with 40% of them flipped: the odds of sharing are far
    below exp(−700), and the draw says "own shifts" without a floating-point warning
    (the suite turns warnings into errors)."""
    rng = np.random.default_rng(12)
    labeled = _labeled(rng, n=(2000, 20000), flip=(0.0, 0.4))
    ones = np.ones((50, 2))
    shift, _ = sample_shifts(labeled, ones, ones, 0 * ones, ShiftPrior(share=0.5), rng)
    assert np.all(shift[:, 1, :] != 0)


def test_shifted_counts_take_each_side_from_its_own_shift(labeled):
    unl = summarize_arrays(np.random.default_rng(2).beta(2, 2, 5000), np.zeros(5000, int), [0, 1])
    a = b = np.ones((3, 2))
    c = np.zeros((3, 2))
    zero = np.zeros((3, 2, 2))
    np.testing.assert_allclose(
        shifted_counts(expected_counts, unl, a, b, c, zero), expected_counts(unl, a, b, c)
    )
    up = zero.copy()
    up[..., 1] = 1.0  # ŷ = 1 side only
    got = shifted_counts(expected_counts, unl, a, b, c, up)
    base = expected_counts(unl, a, b, c)
    np.testing.assert_allclose(got[..., 2:], base[..., 2:])  # tn, fn unchanged
    assert np.all(got[:, 0, 0] > base[:, 0, 0])  # more true positives
    np.testing.assert_allclose(got.sum(axis=-1), base.sum(axis=-1))
    drawn = shifted_counts(sampled_counts, unl, a, b, c, up, np.random.default_rng(0))
    assert drawn.shape == base.shape and np.all(drawn >= 0)


def test_the_prior_checks_its_numbers_and_reads_back_from_its_record():
    with pytest.raises(InvalidParameterError, match="'scale' must be a positive"):
        ShiftPrior(scale=0)
    with pytest.raises(InvalidParameterError, match="'floor' must be a finite number"):
        ShiftPrior(floor=-1)
    for bad in (1.0, -0.1, True):
        with pytest.raises(InvalidParameterError, match="'share' must be a probability"):
            ShiftPrior(share=bad)
    with pytest.raises(InvalidParameterError, match="'shift' must be None or a ShiftPrior"):
        DiscrepancyPrior(shift=1.0)
    grid = ShiftPrior(scale=1.0, floor=0.5).tau_grid()
    assert grid.min() == 0.5 and np.all(np.diff(grid) >= 0)
    prior = DiscrepancyPrior()
    assert prior_from_record(prior.to_dict()) == prior
    assert prior_from_record(DiscrepancyPrior(shift=None).to_dict()).shift is None
    old = {k: v for k, v in prior.to_dict().items() if k != "shift"}  # before shifts
    assert prior_from_record(old).shift is None
    assert "spread of at least 0.5" in prior.describe()
    shares = DiscrepancyPrior(shift=ShiftPrior(share=0.5))
    assert prior_from_record(shares.to_dict()) == shares
    assert "shares the pooled map" in shares.describe()
    assert "shares" not in prior.describe()


def _assert_exact_mixture_means(labeled, shift, spreads, log_prior):
    """Each stratum's mean drawn shift (maps a = b = 1, c = 0; two groups) against the
    exact mean under its group's mixture of normal priors of the given spreads, Σ_j w_j
    E[δ | spread_j] with w_j ∝ prior_j Π_h ∫ L_h(δ) N(δ; 0, spread_j²) dδ (quadrature on a
    fine grid): within 4 Monte Carlo SE plus 0.01 for the sampler's grid."""
    one = np.ones((1, 2))
    fine = np.linspace(-5, 5, 20001)
    ll = stratum_shift_loglik(likelihood_data(labeled), one, one, 0 * one, 2, fine)[0]
    like = np.exp(ll - ll.max(axis=1, keepdims=True))  # (4 strata, fine)
    dens = norm.pdf(fine[None, :], 0, np.asarray(spreads)[:, None])  # (spreads, fine)
    mass, first = like @ dens.T, (like * fine) @ dens.T  # (strata, spreads)
    for g in range(2):
        log_w = np.log(mass[2 * g : 2 * g + 2]).sum(axis=0) + log_prior
        w = np.exp(log_w - log_w.max())
        w /= w.sum()
        for h in range(2):
            s = 2 * g + h
            exact = np.sum(w * first[s] / mass[s])
            got = shift[:, g, h]
            assert abs(got.mean() - exact) < 4 * got.std() / np.sqrt(got.size) + 0.01


def test_local_scales_draw_each_group_s_shifts_from_their_exact_posterior():
    """τ fixed at 0.4 and a multiplier λ_g per group on the prior's grid (``local``):
    each stratum's mean shift equals the exact posterior mean under the group's mixture
    prior, Σ_j w_j E[δ | τ λ_j] with w_j ∝ Π_h ∫ L_h(δ) N(δ; 0, τ² λ_j²) dδ (quadrature
    on a fine grid), within 4 Monte Carlo SE plus 0.01 for the sampler's grid. The
    flipped group's means are 0.33 and −0.21; without λ they would be 0.40 and −0.25,
    with a λ per side instead of per group 0.36 and −0.18: each outside the tolerance
    (0.025)."""
    rng = np.random.default_rng(13)
    labeled = _labeled(rng, n=(150, 150), flip=(0.0, 0.3))
    n, tau = 4000, 0.4
    a, b, c = np.full((n, 2), 1.0), np.full((n, 2), 1.0), np.zeros((n, 2))
    prior = ShiftPrior(1e-9, tau, local=True)
    shift, drawn_tau = sample_shifts(labeled, a, b, c, prior, rng)
    assert np.all(drawn_tau == tau)
    lams = prior.lambda_grid()
    assert lams.size > 1 and np.all(np.diff(lams) > 0)
    _assert_exact_mixture_means(labeled, shift, tau * lams, np.zeros(lams.size))


def test_local_scales_are_refused_unless_a_boolean_and_read_back_from_their_record():
    for bad in (1, "yes", None):
        with pytest.raises(InvalidParameterError, match="'local' must be True or False"):
            ShiftPrior(local=bad)
    local = DiscrepancyPrior(shift=ShiftPrior(floor=0.0, local=True))
    assert prior_from_record(local.to_dict()) == local
    assert "multiplier of its own" in local.describe()
    assert "multiplier" not in DiscrepancyPrior().describe()
    np.testing.assert_array_equal(ShiftPrior().lambda_grid(), [1.0])


def test_an_odd_group_draws_its_shifts_from_the_exact_two_spread_posterior():
    """τ fixed at 0.1 and an odd group's least spread 0.6 with prior probability 0.2:
    each stratum's mean shift is Σ_j w_j E[δ | spread_j] with w ∝ (0.8, 0.2) times each
    spread's likelihood of the group's two sides (quadrature on a fine grid), within 4
    Monte Carlo SE plus 0.01 for the sampler's grid. The flipped group's shifts are
    then more than 1.5 times (about twice) their size without the odd option."""
    rng = np.random.default_rng(14)
    labeled = _labeled(rng, n=(150, 150), flip=(0.0, 0.3))
    n, tau = 4000, 0.1
    a, b, c = np.full((n, 2), 1.0), np.full((n, 2), 1.0), np.zeros((n, 2))
    prior = ShiftPrior(1e-9, tau, odd=0.2, odd_floor=0.6)
    spreads, log_prior = prior.group_spreads(prior.tau_grid())
    np.testing.assert_allclose(spreads[0], [tau, 0.6])
    np.testing.assert_allclose(np.exp(log_prior), [0.8, 0.2])
    shift, _ = sample_shifts(labeled, a, b, c, prior, rng)
    _assert_exact_mixture_means(labeled, shift, np.array([tau, 0.6]), log_prior)
    plain, _ = sample_shifts(labeled, a, b, c, ShiftPrior(1e-9, tau), rng)
    odd_size, plain_size = np.abs(shift[:, 1].mean(axis=0)), np.abs(plain[:, 1].mean(axis=0))
    print(f"flipped group's mean shifts: {odd_size} with the odd option, {plain_size} without")
    assert (odd_size > 1.5 * plain_size).all()  # the flipped group is set apart


def test_odd_groups_keep_the_floor_of_few_groups_and_check_their_numbers():
    scaled = ShiftPrior(odd=0.1, scale_with_groups=True).for_groups(60)
    assert scaled.odd_floor == 0.5 and scaled.floor < 0.25
    assert "odd with prior probability 0.1" in scaled.describe()
    assert "at least 0.5" in scaled.describe()
    assert prior_from_record(DiscrepancyPrior(shift=scaled).to_dict()).shift == scaled
    for bad in (-0.1, 1.0, True, "0.1"):
        with pytest.raises(InvalidParameterError, match="'odd' must be a probability"):
            ShiftPrior(odd=bad)
    local = ShiftPrior(odd=0.1, local=True, scale_with_groups=True).for_groups(60)
    assert local.group_spreads([0.2])[0].shape == (1, local.lambda_grid().size)
    assert "is odd" not in local.describe()
    assert ShiftPrior().group_spreads([0.5, 1.0])[0].shape == (2, 1)  # few groups: one
    with pytest.raises(InvalidParameterError, match="'odd_floor'"):
        ShiftPrior(odd_floor=-1.0)
