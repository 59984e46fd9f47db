"""bayesfair.labels.acquisition: which examples to label next (suggest_labels), the pool of
unlabeled cells and the acquisition's gains and greedy batches.

The tests of suggest_labels on a shared fit (the contract, reproducibility, random picks
within strata, bad input) are in tests/labels/test_labels.py.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import bayesfair as bf
from bayesfair.data.summary import ScoreSummary
from bayesfair.exceptions import InvalidParameterError
from bayesfair.labels.acquisition import Acquisition, AcquisitionPosterior, Pool


def _pool_of(group, scores, count, k, threshold=0.5):
    """A pool of one entry per score (in the order given), ``count`` examples each."""
    s, n = np.asarray(scores, float), np.asarray(count, float)
    ls, l1 = np.log(s), np.log1p(-s)
    summary = ScoreSummary(
        levels=tuple(range(k)),
        group=np.asarray(group),
        side=s >= threshold,
        bin=np.arange(s.size),
        count=n,
        sum_log_s=n * ls,
        sum_log_1ms=n * l1,
        sum_score=n * s,
        sum_sq_log_s=n * ls**2,
        sum_sq_log_1ms=n * l1**2,
        sum_log_s_log_1ms=n * ls * l1,
        threshold=threshold,
        score_clip=0.01,
        n_bins=s.size,
    )
    return Pool.from_summary(summary)


def test_map_gain_is_the_exact_variance_reduction():
    """The map term equals Var(Δ) before minus after a Bayesian update with one label.

    The groups' maps are correlated (as the hierarchy makes them): the gap's variance
    is that of vᵀφ with v = (J_1, −J_0) over the joint parameters, and a label in one
    group also moves the other group's map through the correlation.
    """
    rng = np.random.default_rng(0)
    n, k = 4000, 2
    block = np.array([[0.04, 0.01, 0.0], [0.01, 0.05, 0.01], [0.0, 0.01, 0.09]])
    cov = np.block([[block, 0.6 * block], [0.6 * block, block]])
    phi = rng.multivariate_normal([0.1, -0.2, 0.3] * 2, cov, size=n).reshape(n, k, 3)
    jac = np.array([0.3, -0.2, 0.5])
    rates = phi @ jac  # exactly linear in the parameters
    post = AcquisitionPosterior(
        a=np.exp(phi[..., 0]),
        b=np.exp(phi[..., 1]),
        c=phi[..., 2],
        rates=rates,
        p_free=None,
        center=None,
        x_st=np.zeros((k, 2)),
        n_st=np.zeros((k, 2)),
        counts=np.full((k, 4), 100.0),
        assessed=False,
        metric="accuracy",
    )
    pool = _pool_of([0, 1], [0.3, 0.7], [5.0, 5.0], k)
    acq = Acquisition(post, pool, [(1, 0)])
    gains = acq.gains()
    np.testing.assert_allclose(acq.jac, np.tile(jac, (k, 1)), atol=1e-10)
    sigma = acq.sigma
    v = np.r_[-jac, jac]  # Δ = r_1 − r_0
    for c in range(2):
        x = np.zeros(3 * k)
        x[3 * pool.group[c] : 3 * pool.group[c] + 3] = acq.x[c]
        after = np.linalg.inv(np.linalg.inv(sigma) + acq.w[c] * np.outer(x, x))
        assert gains[c] == pytest.approx(v @ sigma @ v - v @ after @ v, rel=1e-8)
    # ignoring the correlation (the sum of the groups' variances) would overstate the gain
    for c in range(2):
        g = pool.group[c]
        blk = slice(3 * g, 3 * g + 3)
        s_g, x = sigma[blk, blk], acq.x[c]
        alone = acq.w[c] * (jac @ s_g @ x) ** 2 / (1 + acq.w[c] * x @ s_g @ x)
        assert gains[c] < alone


def _correlated_acquisition(seed: int, rho: float = 0.5) -> tuple:
    """Two groups whose maps are correlated ``rho`` in the posterior, one cell per side."""
    rng = np.random.default_rng(seed)
    n, k = 4000, 2
    block = np.diag([0.04, 0.05, 0.09])
    cov = np.block([[block, rho * block], [rho * block, block]])
    phi = rng.multivariate_normal(np.zeros(6), cov, size=n).reshape(n, k, 3)
    post = AcquisitionPosterior(
        a=np.exp(phi[..., 0]),
        b=np.exp(phi[..., 1]),
        c=phi[..., 2],
        rates=phi[..., 2],
        p_free=None,
        center=None,
        x_st=np.zeros((k, 2)),
        n_st=np.zeros((k, 2)),
        counts=np.full((k, 4), 100.0),
        assessed=False,
        metric="accuracy",
    )
    pool = _pool_of([0, 1, 0, 1], [0.3, 0.7, 0.6, 0.2], [5.0, 5.0, 5.0, 5.0], k)
    return post, pool


def test_mixed_batch_is_a_stratum_half_and_a_joint_score_half():
    """within="mixed": the first n - n//2 picks are the stratum-level ones (Σ's block
    diagonal); the rest are the score-targeted picks of the joint Σ from the same
    posterior, whose greedy update is the exact rank-one Bayesian update (Sherman–Morrison)
    and shrinks the other group's block too, through the correlation."""
    post, pool = _correlated_acquisition(1)
    stratum_only = Acquisition(post, pool, [(1, 0)])
    s_picks, s_values = stratum_only.greedy(2, within="stratum", rng=np.random.default_rng(5))
    joint = Acquisition(post, pool, [(1, 0)])
    before = joint.sigma.copy()
    first_joint = int(np.argmax(joint.gains()))
    mixed = Acquisition(post, pool, [(1, 0)])
    picks, values = mixed.greedy(3, within="mixed", rng=np.random.default_rng(5))
    np.testing.assert_array_equal(picks[:2], s_picks)
    np.testing.assert_allclose(values[:2], s_values)
    c = int(picks[2])
    assert c == first_joint
    x = np.zeros(6)
    x[3 * pool.group[c] : 3 * pool.group[c] + 3] = mixed.x[c]
    expected = np.linalg.inv(np.linalg.inv(before) + mixed.w[c] * np.outer(x, x))
    np.testing.assert_allclose(mixed.sigma, expected, rtol=1e-8, atol=1e-12)
    other = slice(3 * (1 - pool.group[c]), 3 * (1 - pool.group[c]) + 3)
    assert np.trace(mixed.sigma[other, other]) < np.trace(before[other, other])


def test_mixed_halves_share_the_pool_and_start_from_the_posterior():
    """The score half never takes more from a cell than the stratum half left, and it
    starts from the posterior's label counts (restored after the stratum half): its
    first gain, stratum term included, is the fresh acquisition's best gain."""
    post, pool = _correlated_acquisition(3)
    k = 2
    post = AcquisitionPosterior(
        a=post.a,
        b=post.b,
        c=post.c,
        rates=post.rates,
        p_free=np.full((k, 2), 0.3),
        center=np.full((k, 2), 0.5),
        x_st=np.zeros((k, 2)),
        n_st=np.zeros((k, 2)),
        counts=post.counts,
        assessed=False,
        metric="accuracy",
    )
    fresh = Acquisition(post, pool, [(1, 0)])
    best = fresh.gains().max()
    picks, values = Acquisition(post, pool, [(1, 0)]).greedy(
        2, within="mixed", rng=np.random.default_rng(0)
    )
    assert values[1] == pytest.approx(best, rel=1e-10)
    one_each = Pool(base=pool.base, count=np.ones(4))
    for seed in range(20):
        acq = Acquisition(post, one_each, [(1, 0)])
        picks, _ = acq.greedy(4, within="mixed", rng=np.random.default_rng(seed))
        assert np.all(np.bincount(picks, minlength=4) <= 1)
    with pytest.raises(InvalidParameterError, match="ran out"):
        Acquisition(post, one_each, [(1, 0)]).greedy(
            5, within="mixed", rng=np.random.default_rng(0)
        )


def test_covariance_when_rates_are_undefined_in_different_draws():
    """Draws where one group's rate is undefined (NaN) and the other's is not: each
    group's block comes from its own draws, the maps are taken as independent, and the
    gains stay positive (a joint covariance over the few shared draws would be empty)."""
    rng = np.random.default_rng(0)
    n, k = 400, 2
    phi = rng.normal(size=(n, k, 3)) * 0.2
    rates = phi @ np.array([0.3, -0.2, 0.5])
    rates[: n // 2, 0] = np.nan
    rates[n // 2 :, 1] = np.nan
    post = AcquisitionPosterior(
        a=np.exp(phi[..., 0]),
        b=np.exp(phi[..., 1]),
        c=phi[..., 2],
        rates=rates,
        p_free=None,
        center=None,
        x_st=np.zeros((k, 2)),
        n_st=np.zeros((k, 2)),
        counts=np.full((k, 4), 100.0),
        assessed=False,
        metric="accuracy",
    )
    pool = _pool_of([0, 1], [0.3, 0.7], [5.0, 5.0], k)
    acq = Acquisition(post, pool, [(1, 0)])
    assert np.all(acq.gains() > 0)
    np.testing.assert_allclose(acq.sigma[:3, 3:], 0.0)
    own = np.cov(phi[n // 2 :, 0, :], rowvar=False)
    np.testing.assert_allclose(acq.sigma[:3, :3], own)


@pytest.mark.parametrize("within", ["stratum", "score"])
def test_stratum_and_score_picks_use_the_groups_variances(within):
    """ "stratum" and "score" rank by Σ's block diagonal (the groups' maps as independent:
    the map term w (J_gᵀ Σ_gg x)² / (1 + w xᵀ Σ_gg x) per group and gap) and update only
    the picked group's block. One cell per stratum, so both pick the best cell."""
    post, pool = _correlated_acquisition(2)
    acq = Acquisition(post, pool, [(1, 0)])
    joint = acq.sigma.copy()
    picks, values = acq.greedy(1, within=within, rng=np.random.default_rng(0))
    expected = []
    for c in range(pool.group.size):
        g = pool.group[c]
        s_g, x, w = joint[3 * g : 3 * g + 3, 3 * g : 3 * g + 3], acq.x[c], acq.w[c]
        expected.append(w * (acq.jac[g] @ s_g @ x) ** 2 / (1 + w * x @ s_g @ x))
    assert values[0] == pytest.approx(max(expected), rel=1e-8)
    assert int(picks[0]) == int(np.argmax(expected))
    np.testing.assert_allclose(acq.sigma[:3, 3:], 0.0)


def test_suggest_without_ids_has_no_id_column(data):
    plain = bf.AssessmentData(
        data.scores, data.labels, data.groups, data.unlabeled_scores, data.unlabeled_groups
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit(
            plain,
            draws=100,
            tune=100,
            chains=1,
            random_seed=0,
            progressbar=False,
            metrics=["accuracy"],
        )
    out = bf.suggest_labels(res, n=5, random_seed=0)
    assert list(out.columns) == ["position", "group", "score", "gain"]


def test_targeted_picks_guard_against_a_misfit():
    """On a fit whose calibration check flags a group (an inverted group, 50 labels per
    group), ``"mixed"`` picks by stratum instead and says so; ``"score"`` keeps its
    picks and warns; stratum-level picks, which keep coverage there, say nothing."""
    from bayesfair.datasets.simulate import miscalibrated_scores
    from bayesfair.exceptions import CalibrationWarning

    lab, unl = miscalibrated_scores(50, 1000, kind="inverted", random_seed=100)
    data = bf.AssessmentData(lab.score, lab.label, lab.group, unl.score, unl.group, reference="A")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit(
            data,
            draws=300,
            tune=300,
            chains=2,
            random_seed=0,
            progressbar=False,
            metrics=["accuracy"],
        )
    assert res.calibration_check(warn=False).set_index("group").loc["B", "verdict"] == "misfit"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        by_stratum = bf.suggest_labels(res, n=10, within="stratum", random_seed=0)
    with pytest.warns(CalibrationWarning, match="flags A and B .*chosen by stratum"):
        mixed = bf.suggest_labels(res, n=10, within="mixed", random_seed=0)
    pd.testing.assert_frame_equal(mixed, by_stratum)
    with pytest.warns(CalibrationWarning, match="flags A and B .*Use within='stratum'"):
        by_score = bf.suggest_labels(res, n=10, within="score", random_seed=0)
    assert len(by_score) == 10 and not by_score["position"].isin(by_stratum["position"]).all()


# ------------------------------------------------------------------ the pool and the terms
def test_the_pool_merges_bins_exactly_and_counts_what_is_left():
    rng = np.random.default_rng(6)
    s = rng.uniform(size=3_000)
    g = rng.integers(0, 2, 3_000)
    summary = bf.summarize_unlabeled((s, g), n_bins=64)
    pool = Pool.from_summary(summary, coarsen=4)
    assert pool.base.n_bins == 16 and pool.count.sum() == 3_000
    np.testing.assert_array_equal(pool.totals(), summary.totals())
    np.testing.assert_allclose(pool.log_s * pool.base.count, pool.base.sum_log_s)
    assert Pool.from_summary(summary, coarsen=5).base.n_bins == 64  # 5 does not divide 64
    pool.count[0] -= 1.0
    left = pool.summary()
    assert left.n_total == 2_999 and pool.base.n_total == 3_000
    assert pool.totals().sum() == 2_999
    assert pool.n_groups == 2 and pool.side.dtype == np.intp


def _posterior(assessed, p_free=None):
    rng = np.random.default_rng(0)
    n, k = 2_000, 2
    phi = rng.normal(0, 0.2, (n, k, 3))
    return AcquisitionPosterior(
        a=np.exp(phi[..., 0]),
        b=np.exp(phi[..., 1]),
        c=phi[..., 2],
        rates=phi @ np.array([0.3, -0.2, 0.5]),
        p_free=p_free,
        center=None if p_free is None else np.full((k, 2), 0.5),
        x_st=np.zeros((k, 2)),
        n_st=np.zeros((k, 2)),
        counts=np.full((k, 4), 100.0),
        assessed=assessed,
        metric="accuracy",
    )


def test_the_flip_effect_and_the_label_s_own_term():
    """At counts of 100 each, one negative of side ŷ = 0 turning positive (tn → fn) lowers
    accuracy by 1/400, one of side ŷ = 1 (fp → tp) raises it by as much. For the assessed
    gap a label also removes its own Bernoulli uncertainty, w · flip² per gap involving
    the group (one gap here)."""
    pool = _pool_of([0, 0, 1, 1], [0.2, 0.7, 0.4, 0.9], [5.0] * 4, 2)
    expected = Acquisition(_posterior(False), pool, [(1, 0)])
    assessed = Acquisition(_posterior(True), pool, [(1, 0)])
    np.testing.assert_allclose(expected.flip, [[-1 / 400, 1 / 400], [-1 / 400, 1 / 400]])
    own = assessed.gains() - expected.gains()
    np.testing.assert_allclose(own, expected.w * (1 / 400) ** 2, rtol=1e-10)
    np.testing.assert_allclose(expected.w, expected.f * (1 - expected.f))


def test_a_stratum_that_may_be_off_the_map_gains_from_its_labels():
    pool = _pool_of([0, 0, 1, 1], [0.2, 0.7, 0.4, 0.9], [5.0] * 4, 2)
    plain = Acquisition(_posterior(False), pool, [(1, 0)]).gains()
    off = np.array([[0.0, 0.0], [0.0, 0.5]])  # group 1's ŷ = 1 side: even odds
    robust = Acquisition(_posterior(False, p_free=off), pool, [(1, 0)]).gains()
    np.testing.assert_allclose(robust[:3], plain[:3], rtol=1e-12)
    assert robust[3] > plain[3]


def test_score_picks_have_diminishing_gains_and_stop_when_the_pool_is_empty():
    post, pool = _correlated_acquisition(4)
    picks, values = Acquisition(post, pool, [(1, 0)]).greedy(8, within="score")
    assert np.all(np.diff(values) <= 1e-15) and values[-1] > 0
    assert np.all(np.bincount(picks, minlength=4) <= pool.count)
    with pytest.raises(InvalidParameterError, match="ran out"):
        Acquisition(post, pool, [(1, 0)]).greedy(21, within="score")


def test_fitted_discrepancy_reads_the_record_a_fit_keeps():
    from bayesfair.labels.acquisition import WITHIN, fitted_discrepancy
    from bayesfair.models.calibration import DiscrepancyPrior

    custom = DiscrepancyPrior(0.02, 0.05, 3.0, center=0.4)
    assert fitted_discrepancy({"discrepancy": custom.to_dict()}) == custom
    assert fitted_discrepancy({"discrepancy": None}) == DiscrepancyPrior()
    with pytest.raises(InvalidParameterError, match="Not a DiscrepancyPrior"):
        fitted_discrepancy({"discrepancy": {"kind": "BetaPrior", "alpha": 1.0, "beta": 1.0}})
    assert set(WITHIN) == {"stratum", "score", "mixed"}


def test_suggest_labels_refuses_what_is_not_a_posterior(data):
    with pytest.raises(InvalidParameterError, match="FairnessPosterior"):
        bf.suggest_labels(data, n=5)
