"""bayesfair.labels.against_random: a suggested batch is kept only where it can be shown
to teach more than a random one; otherwise suggest_labels returns a random sample."""

import warnings

import numpy as np
import pytest

import bayesfair as bf
import bayesfair.labels.acquisition as acquisition
from bayesfair.data.summary import ScoreSummary
from bayesfair.exceptions import RandomBatchWarning
from bayesfair.labels.acquisition import Acquisition, AcquisitionPosterior, Pool
from bayesfair.labels.against_random import batch_reduction, prob_beats_random


def _acquisition(seed=0, n_draws=4000):
    """Two groups whose maps are correlated in the posterior, two cells per group."""
    rng = np.random.default_rng(seed)
    k = 2
    block = np.array([[0.04, 0.01, 0.0], [0.01, 0.05, 0.01], [0.0, 0.01, 0.09]])
    cov = np.block([[block, 0.5 * block], [0.5 * block, block]])
    phi = rng.multivariate_normal([0.1, -0.2, 0.3] * 2, cov, size=n_draws).reshape(-1, k, 3)
    post = AcquisitionPosterior(
        a=np.exp(phi[..., 0]),
        b=np.exp(phi[..., 1]),
        c=phi[..., 2],
        rates=phi @ np.array([0.3, -0.2, 0.5]),
        p_free=None,
        center=None,
        x_st=np.zeros((k, 2)),
        n_st=np.zeros((k, 2)),
        counts=np.full((k, 4), 100.0),
        assessed=False,
        metric="accuracy",
    )
    s = np.array([0.3, 0.7, 0.2, 0.8])
    n = np.array([50.0, 5.0, 50.0, 5.0])
    ls, l1 = np.log(s), np.log1p(-s)
    summary = ScoreSummary(
        levels=(0, 1),
        group=np.array([0, 0, 1, 1]),
        side=s >= 0.5,
        bin=np.arange(4),
        count=n,
        sum_log_s=n * ls,
        sum_log_1ms=n * l1,
        sum_score=n * s,
        sum_sq_log_s=n * ls**2,
        sum_sq_log_1ms=n * l1**2,
        sum_log_s_log_1ms=n * ls * l1,
        threshold=0.5,
        score_clip=0.01,
        n_bins=4,
    )
    pool = Pool.from_summary(summary)
    return post, pool


def test_the_batch_reduction_is_the_greedy_steps_at_once():
    """At the posterior-mean maps, the closed form for a whole batch equals the sum of the
    greedy's one-label gains (its rank-one updates), for one label and for three."""
    post, pool = _acquisition()
    mean = (post.a.mean(0), post.b.mean(0), post.c.mean(0))
    acq = Acquisition(post, pool, [(1, 0)])
    one = np.zeros(4)
    one[2] = 1.0
    assert batch_reduction(acq, one, mean) == pytest.approx(acq.gains()[2], rel=1e-8)
    # three labels, one at a time: each a rank-one update of the maps' joint covariance
    sigma, total = acq.sigma.copy(), 0.0
    for c in (2, 2, 0):
        x = np.zeros(sigma.shape[0])
        x[3 * pool.group[c] : 3 * pool.group[c] + 3] = acq.x[c]
        sx = sigma @ x
        total += acq.w[c] * float((acq.gaps @ sx) @ (acq.gaps @ sx)) / (1 + acq.w[c] * x @ sx)
        sigma = sigma - acq.w[c] * np.outer(sx, sx) / (1 + acq.w[c] * x @ sx)
    three = np.array([1.0, 0.0, 2.0, 0.0])
    assert batch_reduction(acq, three, mean) == pytest.approx(total, rel=1e-8)


def test_a_batch_no_better_than_random_is_not_kept():
    post, pool = _acquisition()
    acq = Acquisition(post, pool, [(1, 0)])
    rng = np.random.default_rng(1)
    # the random batch's own expected allocation is never better than itself
    n = 11
    random = np.repeat(np.arange(4), (n * pool.count / pool.count.sum()).round().astype(int))
    assert prob_beats_random(acq, random, int(random.size), rng) < 0.5
    picks, _ = Acquisition(post, pool, [(1, 0)]).greedy(n, "score")
    assert prob_beats_random(acq, picks, n, rng) >= 0.9


def test_suggest_labels_falls_back_on_a_random_sample_and_says_so(data, monkeypatch):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit(data, draws=200, tune=200, chains=2, random_seed=0, progressbar=False)
    kept = bf.suggest_labels(res, n=12, random_seed=0)
    assert kept.attrs["batch"] == "chosen" and kept.attrs["prob_beats_random"] >= 0.9
    monkeypatch.setattr(acquisition, "SURE", 1.01)  # no batch can show that much
    with pytest.warns(RandomBatchWarning, match="could not show that its batch beats a random"):
        table = bf.suggest_labels(res, n=12, random_seed=0)
    assert table.attrs["batch"] == "random" and table["gain"].isna().all()
    assert table["position"].is_unique and table["position"].between(0, data.n_unlabeled - 1).all()
