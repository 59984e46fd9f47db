"""The binned labeled likelihood against the exact row-level one (the oracle).

The calibration models take the labeled examples as a summary
(:func:`bayesfair.models.calibration.likelihood_data`): per cell, exact sums
for the linear part and a second-order expansion of ``softplus`` about the
cell's mean predictor. The oracle is the row-level log likelihood,
``Σ_i y_i η_i − softplus(η_i)`` (and, for ``rbc``, the same mixture over the
strata's states built on it).

The comparison is by importance weighting: each posterior draw of a binned
fit is weighted by ``exp(ℓ_exact(θ) − ℓ_binned(θ))``, which turns the binned
posterior into the row-level one. The weighted and unweighted summaries of
Δ accuracy, Δ TPR and Δ FPR come from the *same* draws, so their difference
is the effect of binning with little Monte Carlo noise of its own; the
effective sample size of the weights is checked so that the weighted
summaries are themselves reliable (≥ 90% of the draws). Criteria:
posterior means within 0.05 posterior sds, the 95% interval's ends within
0.1 sds, or one atom where the draws are discrete (the assessed rates of a
small finite population take few values, so a quantile moves by whole
atoms).

Every bundled score set (MLP scores), n_L ∈ {10, 200, 2000} labeled rows
drawn from the test split (with replacement where the split is smaller,
which changes nothing about the likelihood), the rest unlabeled.
"""

import warnings

import numpy as np
import pytest

import bayesfair as bf
from bayesfair.datasets import SCORE_SETS, load_scores
from bayesfair.models.calibration import (
    DiscrepancyPrior,
    binned_loglik,
    free_log_likelihoods,
    likelihood_data,
    stratum_counts,
)

pytestmark = pytest.mark.slow

FIT = dict(draws=1000, tune=1000, chains=4, progressbar=False)
METRICS = ("accuracy", "tpr", "fpr")


def exact_loglik(scores, labels, codes, a, b, c, *, threshold, score_clip):
    """Row-level labeled log likelihood per stratum, shape ``(n_draws, k, 2)``."""
    s = np.clip(scores, score_clip, 1.0 - score_clip)
    ls, l1 = np.log(s), np.log1p(-s)
    k = a.shape[1]
    side = (scores >= threshold).astype(int)
    out = np.zeros((a.shape[0], k, 2))
    for g in range(k):
        for h in (0, 1):
            sel = (codes == g) & (side == h)
            if not sel.any():
                continue
            eta = c[:, g : g + 1] + a[:, g : g + 1] * ls[sel] - b[:, g : g + 1] * l1[sel]
            out[:, g, h] = (labels[sel] * eta - np.logaddexp(0.0, eta)).sum(axis=1)
    return out


def binned_by_stratum(labeled, a, b, c):
    lik = likelihood_data(labeled)
    k = labeled.n_groups
    per_entry = binned_loglik(lik, a, b, c)
    out = np.zeros((a.shape[0], k * 2))
    np.add.at(out.T, lik["group_idx"] * 2 + lik["side"], per_entry.T)
    return out.reshape(-1, k, 2)


def robust(ll_map, labeled, center, disc):
    """rbc's labeled log likelihood from the map's per-stratum log likelihood."""
    k = labeled.n_groups
    log_free = free_log_likelihoods(*stratum_counts(labeled), center, disc)
    ll_free, ll_shared = log_free[: 2 * k].reshape(k, 2), log_free[2 * k :]
    pg, ps = disc.prior_misfit, disc.shared_prior_misfit
    inner = np.logaddexp(np.log1p(-pg) + ll_map, np.log(pg) + ll_free).sum(axis=1)
    return np.logaddexp(np.log1p(-ps) + inner, np.log(ps) + ll_shared).sum(axis=1)


def _atom(x, at):
    """The gap from ``at`` to the next distinct value among the draws ``x``."""
    values = np.unique(x)
    i = np.searchsorted(values, at)
    gaps = np.diff(values[max(i - 1, 0) : i + 2])
    return float(gaps.max()) if gaps.size else 0.0


def weighted_summary(x, w):
    order = np.argsort(x)
    cdf = np.cumsum(w[order])
    lo, hi = (x[order][np.searchsorted(cdf, q)] for q in (0.025, 0.975))
    return float(np.sum(w * x)), float(lo), float(hi)


@pytest.mark.parametrize("n_labeled", [10, 200, 2000])
@pytest.mark.parametrize("name", sorted(SCORE_SETS))
def test_binned_posterior_matches_the_row_level_one(name, n_labeled):
    frame = load_scores(name, "MLP")
    rng = np.random.default_rng(7)
    take = rng.choice(len(frame), n_labeled, replace=n_labeled > len(frame) // 2)
    rest = np.setdiff1d(np.arange(len(frame)), take)
    lab, unl = frame.iloc[take], frame.iloc[rest]
    data = bf.AssessmentData(lab["score"], lab["label"], lab["group"], unl["score"], unl["group"])
    for model in ("bc", "rbc"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = bf.fit(data, model, metrics=list(METRICS), random_seed=3, **FIT)
        post = res.idata.posterior
        k = data.n_groups
        a, b, c = (post[v].transpose("chain", "draw", "group").values.reshape(-1, k) for v in "abc")
        labeled = data.labeled_summary()
        codes = np.asarray(data.group_codes)
        exact = exact_loglik(
            np.asarray(data.scores),
            np.asarray(data.labels, float),
            codes,
            a,
            b,
            c,
            threshold=data.threshold,
            score_clip=0.01,
        )
        binned = binned_by_stratum(labeled, a, b, c)
        if model == "rbc":
            center = res.idata.constant_data["misfit_center"].transpose("group", "side").values
            disc = DiscrepancyPrior()
            log_w = robust(exact, labeled, center, disc) - robust(binned, labeled, center, disc)
        else:
            log_w = (exact - binned).sum(axis=(1, 2))
        w = np.exp(log_w - log_w.max())
        w /= w.sum()
        ess = 1.0 / np.sum(w**2)
        assert ess > 0.9 * w.size, (model, ess)
        for metric in METRICS:
            d = res.difference(metric).transpose("chain", "draw").values.reshape(-1)
            ok = np.isfinite(d)
            d, wm = d[ok], w[ok] / w[ok].sum()
            sd = d.std()
            if sd == 0:
                continue
            mean_w, lo_w, hi_w = weighted_summary(d, wm)
            _, lo, hi = weighted_summary(d, np.full(d.size, 1.0 / d.size))  # same estimator
            assert abs(mean_w - d.mean()) < 0.05 * sd, (model, metric)
            # the assessed rates are discrete (counts over a finite set): a quantile can
            # only move by whole atoms, so one atom is the ends' resolution
            tol = max(0.1 * sd, _atom(d, lo), _atom(d, hi))
            assert abs(lo_w - lo) <= tol and abs(hi_w - hi) <= tol, (model, metric)
