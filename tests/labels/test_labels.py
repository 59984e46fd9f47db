"""Label budgets and active labeling: suggest_labels, plan_labels, the CLI commands."""

import warnings

import numpy as np
import pandas as pd
import pytest

import bayesfair as bf
from bayesfair.exceptions import InvalidParameterError
from bayesfair.labels.acquisition import Acquisition, AcquisitionPosterior, Pool
from bayesfair.summary import ScoreSummary


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


@pytest.fixture(scope="module")
def frames():
    """COMPAS-race LR: 60 labeled rows and the rest as an unlabeled pool with ids."""
    df = bf.datasets.load_scores("compas-race", "LR").reset_index()
    df = df.rename(columns={"row": "case"})[["case", "score", "label", "group"]]
    return df.iloc[:60].copy(), df.iloc[60:].drop(columns="label").copy()


@pytest.fixture(scope="module")
def data(frames):
    lab, unl = frames
    return bf.AssessmentData.from_frames(
        lab, unl, score="score", label="label", group="group", id="case"
    )


@pytest.fixture(scope="module")
def res(data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 300 draws: plumbing, R-hat warnings expected
        return bf.fit(
            data,
            draws=300,
            tune=300,
            chains=2,
            random_seed=1,
            progressbar=False,
            metrics=["accuracy", "tpr", "ppv"],
        )


# ------------------------------------------------------------------ suggest_labels
def test_suggest_contract(res, data, frames):
    out = bf.suggest_labels(res, n=25, metric="tpr", random_seed=0)
    assert list(out.columns) == ["position", "case", "group", "score", "gain"]
    assert len(out) == 25 and out["position"].is_unique
    pos = out["position"].to_numpy()
    assert pos.min() >= 0 and pos.max() < data.n_unlabeled
    _, unl = frames
    # the position is the row of the unlabeled data; the id, group and score are that row's
    np.testing.assert_array_equal(out["case"], unl["case"].to_numpy()[pos])
    np.testing.assert_array_equal(out["group"], unl["group"].to_numpy()[pos])
    np.testing.assert_array_equal(out["score"], unl["score"].to_numpy()[pos])
    # greedy with diminishing returns: gains never increase along the batch
    assert np.all(np.diff(out["gain"].to_numpy()) <= 1e-15)
    assert (out["gain"] > 0).all()


def test_suggest_reproducible_and_within(res):
    a = bf.suggest_labels(res, n=10, metric="accuracy", random_seed=3)
    b = bf.suggest_labels(res, n=10, metric="accuracy", random_seed=3)
    pd.testing.assert_frame_equal(a, b)
    for within in ("score", "mixed"):
        picked = bf.suggest_labels(res, n=11, metric="accuracy", within=within, random_seed=3)
        assert len(picked) == 11 and picked["position"].is_unique
    with pytest.raises(InvalidParameterError, match="within"):
        bf.suggest_labels(res, n=5, within="bin")


def test_stratum_selection_is_random_within_strata(res, data):
    """Within a stratum the suggested rows are a uniform draw: over many seeds every row of
    the chosen stratum is about equally often suggested (chi-square, 0.1% level)."""
    from scipy.stats import chisquare

    seen = []
    for seed in range(300):
        out = bf.suggest_labels(res, n=1, metric="accuracy", random_seed=seed)
        seen.append(int(out["position"].iloc[0]))
    code = data.unlabeled_group_codes[seen[0]]
    side = data.unlabeled_scores[seen[0]] >= data.threshold
    members = np.flatnonzero(
        (data.unlabeled_group_codes == code) & ((data.unlabeled_scores >= data.threshold) == side)
    )
    assert set(seen) <= set(members.tolist())  # one stratum: the best one, every time
    # bins of 10 members: 300 draws over len(members) rows, uniform under H0
    bins = np.searchsorted(np.sort(members), seen) * 10 // len(members)
    counts = np.bincount(bins, minlength=10)
    assert chisquare(counts).pvalue > 1e-3


def test_acquisition_reads_the_fits_discrepancy_prior(res):
    """suggest_labels' stratum terms use the κ the fit used: its DiscrepancyPrior read back
    from the settings (the default and a custom one)."""
    from bayesfair.labels.acquisition import fitted_discrepancy, result_posterior
    from bayesfair.models.calibration import DiscrepancyPrior

    assert fitted_discrepancy(res.settings) == DiscrepancyPrior()
    custom = DiscrepancyPrior(0.02, 0.05, 3.0, center=0.4)
    assert fitted_discrepancy({"discrepancy": repr(custom)}) == custom
    assert fitted_discrepancy({}) == DiscrepancyPrior()
    # numpy numbers are stored as plain floats, so their repr reads back
    numpy_kappa = DiscrepancyPrior(concentration=np.float64(5.0))
    assert fitted_discrepancy({"discrepancy": repr(numpy_kappa)}) == numpy_kappa
    # a record written by 0.2 (which had a `tie` option) still reads
    old = "DiscrepancyPrior(prior_misfit=0.01, shared_prior_misfit=0.01, concentration=2.0, "
    assert fitted_discrepancy({"discrepancy": old + "center=None, tie=None)"}) == DiscrepancyPrior()
    for bad in ("os.system('x')", "DiscrepancyPrior(gone=1.0)", "DiscrepancyPrior(("):
        with pytest.raises(ValueError, match="Not a DiscrepancyPrior"):
            fitted_discrepancy({"discrepancy": bad})
    post = result_posterior(res, res.data, "accuracy")
    assert post.concentration == DiscrepancyPrior().concentration


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


def test_suggest_bad_input(res, data):
    with pytest.raises(InvalidParameterError, match="larger than the unlabeled pool"):
        bf.suggest_labels(res, n=data.n_unlabeled + 1)
    with pytest.raises(TypeError, match="objective"):  # removed in 0.3
        bf.suggest_labels(res, n=5, objective="information")
    with pytest.raises(ValueError, match="Unknown metric"):
        bf.suggest_labels(res, n=5, metric="tpx")
    with pytest.raises(InvalidParameterError, match="no draws of 'fpr'"):
        bf.suggest_labels(res, n=5, metric="fpr")
    bb = bf.fit(data, model="bb", random_seed=0, metrics=["accuracy"])
    with pytest.raises(InvalidParameterError, match="calibration model"):
        bf.suggest_labels(bb, n=5)
    res_file = bf.FairnessPosterior(
        res.idata, model=res.model, reference=res.reference, settings=res.settings
    )
    with pytest.raises(InvalidParameterError, match="pass data="):
        bf.suggest_labels(res_file, n=5)
    assert len(bf.suggest_labels(res_file, n=5, data=data)) == 5


def test_suggest_summary_backed_data_is_refused(res, data):
    summary = bf.summarize_unlabeled(
        (data.unlabeled_scores, data.unlabeled_groups), engine="numpy", score="score", group="group"
    )
    held = bf.AssessmentData(data.scores, data.labels, data.groups, unlabeled=summary)
    with pytest.raises(InvalidParameterError, match="as rows"):
        bf.suggest_labels(res, n=5, data=held)


def test_undefined_metric_is_an_error():
    # group "b" has no predicted positive anywhere: its PPV cannot be defined by labels
    rng = np.random.default_rng(0)
    s_a, s_b = rng.uniform(0, 1, 300), rng.uniform(0, 0.45, 300)
    scores = np.r_[s_a[:40], s_b[:40]]
    labels = (rng.uniform(size=80) < scores).astype(int)
    groups = ["a"] * 40 + ["b"] * 40
    data = bf.AssessmentData(
        scores, labels, groups, np.r_[s_a[40:], s_b[40:]], ["a"] * 260 + ["b"] * 260
    )
    with pytest.raises(InvalidParameterError, match="undefined for group"):
        bf.plan_labels(data, metric="ppv", budgets=[100], n_sims=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit(
            data, draws=100, tune=100, chains=1, random_seed=0, progressbar=False, metrics=["ppv"]
        )
    with pytest.raises(InvalidParameterError, match="undefined for group"):
        bf.suggest_labels(res, n=5, metric="ppv")


def test_ids_are_checked(frames):
    lab, unl = frames
    dup = unl.copy()
    dup.loc[dup.index[1], "case"] = dup["case"].iloc[0]
    with pytest.raises(ValueError, match="unique"):
        bf.AssessmentData.from_frames(
            lab, dup, score="score", label="label", group="group", id="case"
        )
    with pytest.raises(ValueError, match="Column 'cas'"):
        bf.AssessmentData.from_frames(
            lab, unl, score="score", label="label", group="group", id="cas"
        )


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


def test_compare_after_active_selection_blanks_what_is_not_valid(data, res):
    comp = bf.compare(
        data,
        ["accuracy"],
        models=("bb", "rbc"),
        posteriors={"rbc": res},
        n_resamples=100,
        random_seed=0,
        selection="stratum",
        fit_kwargs={"draws": 200, "tune": 100, "chains": 1},
        progressbar=False,
    )
    row = comp.pairs.iloc[0]
    for col in (
        "freq_estimate",
        "newcombe_lower",
        "bootstrap_upper",
        "bernstein_lower",
        "bb_lower",
        "bb_mean",
    ):
        assert np.isnan(row[col]), col
    assert np.isfinite(row["rbc_lower"]) and np.isfinite(row["ppi_lower"])
    assert "chosen actively" in row["note"] and comp.settings["selection"] == "stratum"
    assert np.isnan(comp.variance.loc["accuracy", "double_corrected"])
    by_score = bf.compare(
        data,
        ["accuracy"],
        models=("rbc",),
        posteriors={"rbc": res},
        n_resamples=100,
        random_seed=0,
        selection="score",
    )
    assert np.isnan(by_score.pairs.iloc[0]["ppi_lower"])
    mixed = bf.compare(
        data,
        ["accuracy"],
        models=("rbc",),
        posteriors={"rbc": res},
        n_resamples=100,
        random_seed=0,
        selection="mixed",
    )
    assert np.isnan(mixed.pairs.iloc[0]["ppi_lower"])
    assert np.isfinite(mixed.pairs.iloc[0]["rbc_lower"])
    with pytest.raises(InvalidParameterError, match="selection"):
        bf.compare(data, ["accuracy"], models=(), selection="active")


# ------------------------------------------------------------------ plan_labels
def test_plan_contract(data):
    plan = bf.plan_labels(
        data, metric="accuracy", epsilon=0.05, budgets=[60, 120], n_sims=4, random_seed=0
    )
    sims = pd.DataFrame(plan.attrs["simulations"])  # one return type: the simulations ride along
    assert {
        "strategy",
        "method",
        "group",
        "reference",
        "budget",
        "n_new",
        "width_median",
        "width_q10",
        "width_q90",
        "p_decision",
        "p_fair",
        "valid",
        "n_sims",
    } <= set(plan.columns)
    assert len(plan) == 2 * 4 * 2  # strategies x methods x budgets (one pair)
    assert set(plan["n_new"]) == {0, 60}
    assert (plan["n_sims"] == 4).all()
    active = plan[plan["strategy"] == "active"].set_index(["method", "budget"])["valid"]
    # stratum-level selection (the default) keeps PPI++ valid; labeled-only intervals are not
    assert active["bayes"].all() and active["ppi"].all()
    assert not active["newcombe"].any() and not active["bernstein"].any()
    assert plan.loc[plan["strategy"] == "random", "valid"].all()
    by_score = bf.plan_labels(
        data,
        metric="accuracy",
        budgets=[80],
        n_sims=2,
        random_seed=0,
        methods=["bayes", "ppi"],
        within="score",
    )
    assert not by_score.query("strategy == 'active' and method == 'ppi'")["valid"].any()
    mixed = bf.plan_labels(
        data,
        metric="accuracy",
        budgets=[80],
        n_sims=2,
        random_seed=0,
        methods=["bayes", "ppi"],
        within="mixed",
    )
    assert not mixed.query("strategy == 'active' and method == 'ppi'")["valid"].any()
    assert mixed.query("method == 'bayes'")["valid"].all()
    assert len(sims) == 4 * 2 * 4 * 2
    assert (sims["width"] > 0).all()
    # more labels never widen the median interval by much (same truths, nested labels)
    bayes = plan[(plan["method"] == "bayes") & (plan["strategy"] == "random")]
    assert bayes["width_median"].iloc[1] < bayes["width_median"].iloc[0]


def test_plan_without_labels_from_a_summary(data):
    summary = bf.summarize_unlabeled(
        (data.unlabeled_scores, data.unlabeled_groups), engine="numpy", score="score", group="group"
    )
    plan = bf.plan_labels(
        summary, metric="tpr", budgets=[40], n_sims=3, methods=["bayes"], random_seed=0
    )
    assert set(plan["strategy"]) == {"random", "active"}
    assert (plan["budget"] == 40).all() and (plan["n_new"] == 40).all()


def test_plan_bad_input(data):
    with pytest.raises(InvalidParameterError, match="smaller than the 60 labels"):
        bf.plan_labels(data, budgets=[30, 100], n_sims=2)
    with pytest.raises(InvalidParameterError, match="exceed"):
        bf.plan_labels(data, budgets=[10**6], n_sims=2)
    with pytest.raises(InvalidParameterError, match="'budgets' parameter must be an integer >= 1"):
        bf.plan_labels(data, budgets=[0], n_sims=2)
    with pytest.raises(InvalidParameterError, match="must be a list of label counts"):
        bf.plan_labels(data, budgets=100, n_sims=2)
    with pytest.raises(InvalidParameterError, match="Unknown method"):
        bf.plan_labels(data, budgets=[100], n_sims=2, methods=["wald"])
    with pytest.raises(InvalidParameterError, match="Unknown strategy"):
        bf.plan_labels(data, budgets=[100], n_sims=2, strategies=["greedy"])
    with pytest.raises(TypeError, match="AssessmentData or an unlabeled ScoreSummary"):
        bf.plan_labels(pd.DataFrame({"score": [0.1]}), budgets=[1])
    with pytest.raises(TypeError, match="design_prior"):  # removed in 0.3
        bf.plan_labels(data, budgets=[100], n_sims=2, design_prior={"mu_a_sd": 1.0})
    labeled_only = bf.AssessmentData(data.scores, data.labels, data.groups)
    with pytest.raises(InvalidParameterError, match="has none"):
        bf.plan_labels(labeled_only, budgets=[100])


def test_laplace_width_close_to_nuts(data):
    """The planner's refit (importance sampling from a Laplace fit of the maps' marginal
    posterior) against NUTS on the same data.

    Not a statistical test: a check of an approximation. The tolerance is the
    ±20% the planner is held to; the NUTS width's Monte Carlo error at 2,000
    draws is about 3%, the refit's at an effective sample size of 300 about 6%.
    """
    from bayesfair.labels.acquisition import SCORE_CLIP
    from bayesfair.labels.approximate import PARETO_K_MAX, Laplace
    from bayesfair.labels.planner import AuditState, fit_state
    from bayesfair.models.calibration import CalibrationPriors, DiscrepancyPrior
    from bayesfair.stats import hdi

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nuts = bf.fit(
            data,
            draws=500,
            tune=500,
            chains=4,
            random_seed=2,
            progressbar=False,
            metrics=["accuracy"],
        )
    lo, hi = hdi(nuts.difference("accuracy").values)
    laplace = Laplace(2, data.threshold, DiscrepancyPrior(), CalibrationPriors(), 2000)
    state = AuditState(
        np.asarray(data.scores, float),
        np.asarray(data.labels, np.int8),
        np.asarray(data.group_codes),
        Pool.from_summary(data.unlabeled_reduction(SCORE_CLIP)),
    )
    fitted = fit_state(laplace, state, "accuracy", np.random.default_rng(0))
    assert fitted.pareto_k < PARETO_K_MAX
    g, r = data.group_levels.index("Caucasian"), data.group_levels.index(data.reference)
    d = fitted.posterior.rates[:, g] - fitted.posterior.rates[:, r]
    lo2, hi2 = hdi(d)
    assert (hi2 - lo2) / (hi - lo) == pytest.approx(1.0, abs=0.2)


def test_importance_mixture_recovers_a_known_posterior():
    """The planner's importance sampler from a two-t mixture proposal (the adaptive step's),
    on a target it does not fit: a Gaussian in θ (k = 2, six dimensions) with its own mean and
    a correlated covariance. The weighted mean of each coordinate equals the truth within
    5 Monte Carlo SEs (SE from the effective sample size: sd / sqrt(ESS))."""
    from bayesfair.labels.approximate import PARETO_K_MAX, Laplace

    rng = np.random.default_rng(4)
    d = 6
    mean = rng.normal(0, 0.5, d)
    half = rng.normal(0, 0.3, (d, d))
    cov = half @ half.T + 0.05 * np.eye(d)
    prec = np.linalg.inv(cov)

    laplace = Laplace.__new__(Laplace)
    laplace.k, laplace.oversample, laplace.n_draws, laplace.target_floor = 2, 4, 5000, 0.1

    def gaussian(theta, data, floor):
        z = theta.reshape(len(theta), -1) - mean
        return -0.5 * np.einsum("ni,ij,nj->n", z, prec, z), None

    laplace.log_posterior = gaussian
    laplace.nu = 4.0

    def check(theta, w, k_hat):
        assert k_hat < PARETO_K_MAX
        flat = theta.reshape(len(theta), -1)
        ess = 1.0 / np.sum(w**2)
        se = np.sqrt(np.diag(cov) / ess)
        np.testing.assert_array_less(np.abs(w @ flat - mean), 5 * se)

    # a proposal off the target: the first t too narrow and shifted, the second wide
    first = (mean + 0.5, 0.4 * np.eye(d))
    second = (mean - 0.2, 1.5 * np.linalg.cholesky(cov))
    check(*laplace.importance([first, second], None, rng))
    # the adaptive step builds the second t itself from the first's weighted draws: the
    # first alone misses (k̂ > 0.7), the adapted mixture recovers the posterior
    assert laplace.importance([first], None, np.random.default_rng(5))[2] > PARETO_K_MAX
    check(*laplace.sample_weighted(*first, None, np.random.default_rng(5)))


def test_block_prior_integrates_the_hierarchy():
    """θ's prior with μ and σ integrated out, against two-dimensional adaptive quadrature
    (scipy): equal up to one constant (the normalisation), and the gradient against finite
    differences."""
    import math

    from scipy import integrate

    from bayesfair.labels.approximate import block_prior

    sd_mu, sd_sigma, floor = 0.4, 0.15, 0.1
    theta = np.array([[0.3, -0.2], [1.0, 1.2], [-0.5, 0.1], [0.05, 0.0]])
    value, grad = block_prior(theta, sd_mu, sd_sigma, floor)

    def pdf(x, mean, sd):  # the normal density, written out: dblquad calls it ~10^5 times
        return math.exp(-0.5 * ((x - mean) / sd) ** 2) / (sd * math.sqrt(2 * math.pi))

    def density(t):
        def f(m, s):
            return math.prod(pdf(ti, m, s) for ti in t) * pdf(m, 0, sd_mu) * 2 * pdf(s, 0, sd_sigma)

        return integrate.dblquad(f, floor * sd_sigma, 6 * sd_sigma, -3, 3, epsabs=1e-12)[0]

    offset = value - np.log([density(t) for t in theta])
    assert offset == pytest.approx(np.full(theta.shape[0], offset[0]), abs=1e-6)
    step = 1e-5
    numeric = np.stack(
        [
            (
                block_prior(theta + step * e, sd_mu, sd_sigma, floor)[0]
                - block_prior(theta - step * e, sd_mu, sd_sigma, floor)[0]
            )
            / (2 * step)
            for e in np.eye(2)
        ],
        axis=1,
    )
    np.testing.assert_allclose(grad, numeric, atol=1e-6)


# ------------------------------------------------------------------ command line
def test_cli_suggest_and_plan(frames, tmp_path):
    from click.testing import CliRunner

    from bayesfair.cli import main

    lab, unl = frames
    lab.to_csv(tmp_path / "lab.csv", index=False)
    unl.rename(columns={"case": "id"}).to_csv(tmp_path / "unl.csv", index=False)
    unl.drop(columns="case").to_csv(tmp_path / "noid.csv", index=False)
    runner = CliRunner()
    out = tmp_path / "to_label.csv"
    r = runner.invoke(
        main,
        [
            "suggest",
            str(tmp_path / "lab.csv"),
            "--unlabeled",
            str(tmp_path / "unl.csv"),
            "--n",
            "7",
            "--out",
            str(out),
            "--draws",
            "100",
            "--chains",
            "1",
            "--quiet",
        ],
    )
    assert r.exit_code == 0, r.output
    table = pd.read_csv(out)
    assert list(table.columns) == ["position", "id", "group", "score", "gain"] and len(table) == 7
    mixed = tmp_path / "mixed.csv"
    r = runner.invoke(
        main,
        [
            "suggest",
            str(tmp_path / "lab.csv"),
            "--unlabeled",
            str(tmp_path / "unl.csv"),
            "--n",
            "7",
            "--out",
            str(mixed),
            "--within",
            "mixed",
            "--draws",
            "100",
            "--chains",
            "1",
            "--quiet",
        ],
    )
    assert r.exit_code == 0, r.output
    assert pd.read_csv(mixed)["id"].is_unique and len(pd.read_csv(mixed)) == 7
    # bad input: nothing written
    for args, message in (
        (["--unlabeled", str(tmp_path / "noid.csv")], "no id column"),
        (["--unlabeled", str(tmp_path / "unl.csv"), "--n", "999999"], "more than the"),
    ):
        bad = tmp_path / "bad.csv"
        r = runner.invoke(main, ["suggest", str(tmp_path / "lab.csv"), *args, "--out", str(bad)])
        assert r.exit_code == 2 and message in r.output and not bad.exists()
    fig = tmp_path / "plan.png"
    r = runner.invoke(
        main,
        [
            "plan",
            str(tmp_path / "unl.csv"),
            "--labeled",
            str(tmp_path / "lab.csv"),
            "--metric",
            "tpr",
            "--epsilon",
            "0.05",
            "--budgets",
            "60,100",
            "--n-sims",
            "2",
            "--methods",
            "bayes,newcombe",
            "--plot",
            str(fig),
            "--quiet",
        ],
    )
    assert r.exit_code == 0, r.output
    assert fig.stat().st_size > 0 and "p_decision" in r.output
    assert "valid = no" in r.output  # Newcombe after active selection
    r = runner.invoke(
        main,
        [
            "plan",
            str(tmp_path / "unl.csv"),
            "--labeled",
            str(tmp_path / "lab.csv"),
            "--budgets",
            "10",
            "--plot",
            str(tmp_path / "no.png"),
        ],
    )
    assert r.exit_code == 2 and "smaller than the 60" in r.output
    assert not (tmp_path / "no.png").exists()


# ------------------------------------------------------------------ coverage (slow)
@pytest.mark.slow
@pytest.mark.parametrize("within", ["stratum", "mixed"])
def test_default_model_covers_after_active_selection(within):
    """Coverage of the default model's 95% interval of Δ accuracy after stratum-level
    (the default) or mixed active selection, on data where the calibration model is right
    (where it is wrong: ``benchmarks/active_coverage.py``, in the label-budgets guide).

    60 synthetic data sets (two calibrated groups of 1,020 examples: 20 random labels
    each, then 60 labels chosen by ``suggest_labels``); truth = the realised gap on
    all 2,040. The bound is the nominal 0.95 less two Monte Carlo standard errors of
    a binomial proportion at 60 replicates (one-sided level about 2.3%).
    """
    from bayesfair.simulate import miscalibrated_scores
    from bayesfair.stats import hdi

    reps, hits = 60, 0
    for r in range(reps):
        lab, unl = miscalibrated_scores(20, 1000, kind="none", random_seed=500 + r)
        both = pd.concat([lab, unl], ignore_index=True)
        rates = bf.AssessmentData(both.score, both.label, both.group, reference="A").rates(
            "accuracy"
        )
        truth = rates["B"] - rates["A"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            data = bf.AssessmentData(
                lab.score, lab.label, lab.group, unl.score, unl.group, reference="A"
            )
            res = bf.fit(
                data,
                draws=300,
                tune=300,
                chains=2,
                random_seed=r,
                progressbar=False,
                metrics=["accuracy"],
            )
            pos = bf.suggest_labels(res, n=60, metric="accuracy", within=within, random_seed=r)[
                "position"
            ]
            lab2 = pd.concat([lab, unl.iloc[pos]], ignore_index=True)
            unl2 = unl.drop(index=unl.index[pos])
            data2 = bf.AssessmentData(
                lab2.score, lab2.label, lab2.group, unl2.score, unl2.group, reference="A"
            )
            res2 = bf.fit(
                data2,
                draws=500,
                tune=500,
                chains=2,
                random_seed=r,
                progressbar=False,
                metrics=["accuracy"],
            )
        lo, hi = hdi(res2.difference("accuracy").values)
        hits += lo <= truth <= hi
    bound = 0.95 - 2 * np.sqrt(0.95 * 0.05 / reps)
    assert hits / reps >= bound, f"coverage {hits}/{reps} below {bound:.3f}"


def test_three_groups(tmp_path):
    """Three groups: one row per pair against the reference, and suggestions for all."""
    rng = np.random.default_rng(3)
    n = 1500
    g = rng.choice(["a", "b", "c"], size=n, p=[0.5, 0.3, 0.2])
    s = rng.beta(2, 2, n)
    y = (rng.random(n) < s).astype(int)
    data = bf.AssessmentData(s[:90], y[:90], g[:90], s[90:], g[90:])
    plan = bf.plan_labels(
        data,
        metric="accuracy",
        budgets=[150],
        n_sims=2,
        random_seed=0,
        methods=["bayes", "newcombe"],
    )
    assert set(zip(plan["group"], plan["reference"], strict=True)) == {("b", "a"), ("c", "a")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit(
            data,
            draws=200,
            tune=200,
            chains=1,
            random_seed=0,
            progressbar=False,
            metrics=["accuracy"],
        )
    out = bf.suggest_labels(res, n=30, random_seed=0)
    assert len(out) == 30 and set(out["group"]) <= {"a", "b", "c"}
    only_c = bf.suggest_labels(res, n=5, group="c", random_seed=0)
    assert set(only_c["group"]) <= {"a", "c"}  # the gap c − a involves only those two


def test_targeted_picks_guard_against_a_misfit():
    """On a fit whose calibration check flags a group (an inverted group, 50 labels per
    group), ``"mixed"`` picks by stratum instead and says so; ``"score"`` keeps its
    picks and warns; stratum-level picks, which keep coverage there, say nothing."""
    from bayesfair.exceptions import CalibrationWarning
    from bayesfair.simulate import miscalibrated_scores

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
    with pytest.warns(CalibrationWarning, match="map of B contradicted.*chosen by stratum"):
        mixed = bf.suggest_labels(res, n=10, within="mixed", random_seed=0)
    pd.testing.assert_frame_equal(mixed, by_stratum)
    with pytest.warns(CalibrationWarning, match="map of B contradicted.*Use within='stratum'"):
        by_score = bf.suggest_labels(res, n=10, within="score", random_seed=0)
    assert len(by_score) == 10 and not by_score["position"].isin(by_stratum["position"]).all()


def test_targeted_picks_are_quiet_when_the_check_passes(res):
    """No warning from "score" or "mixed" when no group's map is flagged."""
    assert not (res.calibration_check(warn=False)["verdict"] == "misfit").any()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for within in ("score", "mixed"):
            bf.suggest_labels(res, n=10, within=within, random_seed=0)
