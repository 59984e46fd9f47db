"""bayesfair.models.calibration_fit: the calibration family's fit, its counts under the
prior, rbc's counts in misfitting strata, and its log prior."""

import warnings

import numpy as np
import pytest
from scipy import stats

import bayesfair as bf
from bayesfair.data.summary import summarize_arrays
from bayesfair.models.calibration import CalibrationPriors, DiscrepancyPrior
from bayesfair.models.calibration_fit import (
    calibration_log_prior,
    calibration_prior_counts,
    fit_calibration,
    robust_unlabeled_counts,
)
from bayesfair.models.catalogue import MODEL_SPECS
from bayesfair.models.request import PRIOR_DRAWS, FitDraws, FitRequest
from bayesfair.models.shift import ShiftPrior
from bayesfair.models.unlabeled import expected_counts


def _request(**options):
    """A small NUTS run's request (plumbing draws)."""
    sampling = dict(
        draws=100,
        tune=100,
        chains=2,
        random_seed=3,
        progressbar=False,
        target_accept=0.99,
        backend="auto",
        cores=1,
    )
    return FitRequest(
        metrics=["accuracy", "tpr"],
        prior=CalibrationPriors(),
        sampler="nuts",
        rng=np.random.default_rng(1),
        prior_rng=np.random.default_rng(2),
        sampling=sampling,
        **options,
    )


def test_the_fit_gives_every_draw_s_counts_over_the_assessed_rows():
    """``fit_calibration`` on a request: the draws' cells hold every assessed row of each
    group (labeled with their labels, unlabeled with drawn ones), the rates are ratios of
    them, and the prior predictive has PRIOR_DRAWS draws per group."""
    rng = np.random.default_rng(0)
    scores = rng.uniform(0.02, 0.98, 300)
    labels = (rng.uniform(size=300) < scores).astype(int)
    groups = np.tile(["A", "B"], 150)
    data = bf.AssessmentData(scores[:120], labels[:120], groups[:120], scores[120:], groups[120:])
    request = _request(estimand="assessed", n_bins=64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # plumbing draws
        out = fit_calibration(data, request)
    assert isinstance(out, FitDraws)
    cells = out.idata["posterior"]["cells"].values  # (chain, draw, group, 4)
    totals = data.group_sizes()[["n_labeled", "n_unlabeled"]].sum(axis=1).to_numpy()
    np.testing.assert_allclose(cells.sum(axis=-1), np.broadcast_to(totals, cells.shape[:-1]))
    tp, fn = cells[..., 0], cells[..., 3]
    np.testing.assert_allclose(out.rates["tpr"], tp / (tp + fn))
    assert out.prior_rates["accuracy"].shape == (PRIOR_DRAWS, 2)
    # the catalogue's entries for bc and rbc are this fit
    assert MODEL_SPECS["bc"].fit_map is fit_calibration
    assert MODEL_SPECS["rbc"].fit_map is fit_calibration


def test_the_log_prior_is_the_hyperpriors_density_and_none_without_them():
    """One draw of the hyperparameters with every z at 0: the log prior is the sum of the
    Normal and half-Normal log densities (scipy); a posterior without them gives None."""
    import xarray as xr

    from bayesfair._internal.tree import make_tree

    values = {
        "mu_a": 0.3,
        "sigma_a": 0.5,
        "mu_b": -0.2,
        "sigma_b": 0.4,
        "mu_c": 0.1,
        "sigma_c": 0.7,
    }
    post = {name: (("chain", "draw"), np.full((1, 1), v)) for name, v in values.items()}
    post.update({f"z_{p}": (("chain", "draw", "group"), np.zeros((1, 1, 2))) for p in "abc"})
    tree = make_tree({"posterior": xr.Dataset(post)})
    priors = CalibrationPriors()
    expected = 0.0
    for p in "abc":
        expected += stats.norm.logpdf(values[f"mu_{p}"], 0, getattr(priors, f"mu_{p}_sd"))
        expected += stats.halfnorm.logpdf(values[f"sigma_{p}"], 0, getattr(priors, f"sigma_{p}_sd"))
        expected += 2 * stats.norm.logpdf(0.0)
    got = calibration_log_prior(tree, {"prior": priors.to_dict()}, "tpr")
    np.testing.assert_allclose(got, [[expected]], rtol=1e-12)
    empty = make_tree({"posterior": xr.Dataset({"theta": (("chain", "draw"), np.zeros((1, 1)))})})
    assert calibration_log_prior(empty, {}, "tpr") is None


# ------------------------------------------------------------------ rbc's unlabeled counts
def _robust_inputs():
    """Group 1's labels contradict a confident identity map on both sides; group 0's agree."""
    s = np.r_[np.full(30, 0.05), np.full(30, 0.95), np.full(30, 0.05), np.full(30, 0.95)]
    y = np.r_[np.zeros(30), np.ones(30), np.ones(30), np.zeros(30)]
    g = np.repeat([0, 1], 60)
    labeled = summarize_arrays(s, g, range(2), labels=y)
    rng = np.random.default_rng(1)
    u = rng.uniform(0.01, 0.99, 400)
    summary = summarize_arrays(u, np.repeat([0, 1], 200), range(2))
    return labeled, summary


@pytest.mark.parametrize("estimand", ["expected", "assessed"])
def test_robust_counts_replace_the_map_s_positives_in_free_strata(estimand):
    labeled, summary = _robust_inputs()
    n = 2_000
    ones, zeros = np.ones((n, 2)), np.zeros((n, 2))
    if estimand == "expected":  # the map's unlabeled counts, as fit computes them
        u_counts = bf.models.unlabeled.expected_counts(summary, ones, ones, zeros)
    else:
        u_counts = bf.models.unlabeled.sampled_counts(
            summary, ones, ones, zeros, np.random.default_rng(3)
        )
    center = np.full((2, 2), 0.5)
    rng = np.random.default_rng(2)
    out, free, p_free, p_shared = robust_unlabeled_counts(
        labeled,
        summary,
        u_counts,
        (ones, ones, zeros),
        DiscrepancyPrior(),
        estimand,
        rng,
        center=center,
    )
    assert out.shape == (n, 2, 4) and free.shape == p_free.shape == (n, 2, 2)
    assert p_shared.shape == (n, 2)
    totals = summary.totals()
    # every draw keeps each group's unlabeled examples, on their sides
    np.testing.assert_allclose(out.sum(axis=-1), np.broadcast_to(totals.sum(axis=1), (n, 2)))
    np.testing.assert_allclose(out[..., 0] + out[..., 1], np.broadcast_to(totals[:, 1], (n, 2)))
    # a stratum that follows the map keeps the map's positives (fn on ŷ = 0, tp on ŷ = 1)
    keep = ~free[..., 0, 1]
    np.testing.assert_array_equal(out[keep, 0, 0], u_counts[keep, 0, 0])
    assert p_free[:, 1].min() > 0.99  # group 1 is off the map
    # there the positives follow its labeled rate: on ŷ = 1, 0 of 30 labels positive, so
    # Beta(1 + 2 m, 1 + 2 (1 − m) + 30) at m = 1/2: mean 2 / 34 of the side's examples
    tp_share = out[:, 1, 0] / totals[1, 1]
    assert tp_share.mean() == pytest.approx(2 / 34, abs=0.01)
    if estimand == "assessed":
        assert np.all(out == np.round(out))
    assert np.isfinite(out).all()


def test_robust_counts_carry_the_labeled_discrepancy_to_a_stratum_without_labels():
    """label_free="carried": where a stratum without labels is drawn off the map, its
    positives are the map's rate plus the labeled side's discrepancy, not a draw from
    the rate's prior. Group 0 has labels whose ŷ = 1 side is 0.2 below the identity
    map; group 1 has none. With the shared misfit nearly sure (prior 0.99), group 1's
    ŷ = 1 positives sit about 0.2 below its map's under "carried", and spread over the
    prior's range under "prior"."""
    rng = np.random.default_rng(4)
    s = rng.uniform(0.55, 0.95, 2_000)
    y = (rng.random(s.size) < s - 0.2).astype(int)
    labeled = summarize_arrays(s, np.zeros(s.size, int), range(2), labels=y)
    u = rng.uniform(0.55, 0.95, 1_000)
    summary = summarize_arrays(u, np.repeat([0, 1], 500), range(2))
    n = 1_000
    ones, zeros = np.ones((n, 2)), np.zeros((n, 2))
    u_counts = bf.models.unlabeled.expected_counts(summary, ones, ones, zeros)
    map_share = u_counts[:, 1, 0] / summary.totals()[1, 1]
    shares = {}
    for label_free in ("prior", "carried"):
        disc = DiscrepancyPrior(shared_prior_misfit=0.99, label_free=label_free)
        out, free, _, _ = robust_unlabeled_counts(
            labeled,
            summary,
            u_counts,
            (ones, ones, zeros),
            disc,
            "expected",
            np.random.default_rng(5),
            center=np.full((2, 2), 0.75),
        )
        off = free[:, 1, 1]
        assert off.mean() > 0.9
        shares[label_free] = (out[off, 1, 0] / summary.totals()[1, 1]) - map_share[off]
    # the discrepancy is estimated from 2,000 labels: its sd is about 0.01
    assert shares["carried"].mean() == pytest.approx(-0.2, abs=0.03)
    assert shares["carried"].std() < 0.02
    assert shares["prior"].std() > 0.1  # Beta(1 + 2m, 1 + 2(1 − m)): sd about 0.2


def test_calibration_prior_counts_leave_a_sharing_group_on_the_pooled_map():
    """Maps fixed at the identity (hyperprior sds of 1e-9), misfit 1e-12, shifts of spread
    3: a group keeps the identity map's expected counts exactly in a share of draws
    equal to ``ShiftPrior.share`` (0.5, within 4 binomial SE), and never without it."""
    rng = np.random.default_rng(4)
    pop = summarize_arrays(rng.uniform(0.01, 0.99, 400), rng.integers(0, 2, 400), range(2))
    tiny = CalibrationPriors(**{f"{p}_{v}_sd": 1e-9 for p in ("mu", "sigma") for v in "abc"})
    center = np.full((2, 2), 0.4)
    pooled = expected_counts(pop, np.ones((1, 2)), np.ones((1, 2)), np.zeros((1, 2)))[0]
    n = 2000
    for share in (0.0, 0.5):
        disc = DiscrepancyPrior(
            prior_misfit=1e-12, shared_prior_misfit=1e-12, shift=ShiftPrior(3.0, 3.0, share=share)
        )
        counts = calibration_prior_counts(
            pop, tiny, "beta", disc, center=center, estimand="expected", n=n, rng=rng
        )
        kept = np.all(np.isclose(counts, pooled, rtol=0, atol=1e-6), axis=-1)  # (n, k)
        if share == 0:
            assert not kept.any()
        else:
            assert np.all(np.abs(kept.mean(axis=0) - share) <= 4 * np.sqrt(0.25 / n))
            # each group chooses on its own: both kept in about share² of draws
            both = kept.all(axis=1).mean()
            assert abs(both - share**2) <= 4 * np.sqrt(share**2 * (1 - share**2) / n)


def test_calibration_prior_counts_draw_local_scales_with_heavier_tails():
    """Maps fixed at the identity, τ = 1: with ``local=True`` each group's shifts are
    scaled by λ ~ HalfCauchy(1) (on the sampler's grid), so a side's positives (scores
    0.5–0.6) reach 97% of its examples (a shift above about 3.3) far more often than
    with τ alone (P ≈ 0.0005 for a normal shift; P(Z λ > 3.3) ≈ 0.07 with λ): the local
    share exceeds the plain one by more than 4 binomial SE of their difference."""
    rng = np.random.default_rng(5)
    pop = summarize_arrays(rng.uniform(0.5, 0.6, 400), rng.integers(0, 2, 400), range(2))
    tiny = CalibrationPriors(**{f"{p}_{v}_sd": 1e-9 for p in ("mu", "sigma") for v in "abc"})
    center = np.full((2, 2), 0.4)
    n = 4000
    high = {}
    for local in (False, True):
        disc = DiscrepancyPrior(
            prior_misfit=1e-12, shared_prior_misfit=1e-12, shift=ShiftPrior(1e-9, 1.0, local=local)
        )
        counts = calibration_prior_counts(
            pop, tiny, "beta", disc, center=center, estimand="expected", n=n, rng=rng
        )
        positives = counts[..., 0] / (counts[..., 0] + counts[..., 1])  # ŷ = 1 side
        high[local] = (positives > 0.97).mean()
    se = np.sqrt((high[True] * (1 - high[True]) + high[False] * (1 - high[False])) / (2 * n))
    assert high[True] - high[False] > 4 * se and high[True] > 0.05


def test_calibration_prior_counts_keep_every_strata_total():
    """Whatever the draws, each group keeps its examples on each side of the threshold."""
    rng = np.random.default_rng(0)
    pop = summarize_arrays(rng.uniform(0.01, 0.99, 300), rng.integers(0, 3, 300), range(3))
    disc = DiscrepancyPrior(prior_misfit=0.3, shared_prior_misfit=0.3)
    center = np.full((3, 2), 0.4)
    for estimand in ("assessed", "expected"):
        for variant in ("beta", "llo", "temperature"):
            counts = calibration_prior_counts(
                pop,
                CalibrationPriors(),
                variant,
                disc,
                center=center,
                estimand=estimand,
                n=500,
                rng=rng,
            )
            totals = pop.totals()
            np.testing.assert_allclose(
                counts[..., 0] + counts[..., 1], np.broadcast_to(totals[:, 1], (500, 3))
            )
            np.testing.assert_allclose(
                counts[..., 2] + counts[..., 3], np.broadcast_to(totals[:, 0], (500, 3))
            )
            assert np.all(counts >= 0)
