"""Prediction-powered intervals (PPI++): the reference implementation, and bad input."""

import warnings

import numpy as np
import pytest

import bayesfair as bf
from bayesfair.exceptions import (
    InvalidParameterError,
    SparseStratumWarning,
    UndefinedRateWarning,
)
from bayesfair.frequentist import ppi_difference, ppi_differences, ppi_mean_interval

ppi_py = pytest.importorskip("ppi_py")


@pytest.mark.parametrize("lam", [0.0, 1.0, None])
def test_a_mean_matches_ppi_py(lam):
    # the accuracy of one group as a plain mean: correctness against its prediction
    rng = np.random.default_rng(3)
    n, big_n = 150, 4000
    p, p_u = rng.beta(2, 2, n), rng.beta(2, 2, big_n)
    y = (rng.uniform(size=n) < p).astype(float)
    f, f_u = (
        np.clip(p + rng.normal(0, 0.1, n), 0, 1),
        np.clip(p_u + rng.normal(0, 0.1, big_n), 0, 1),
    )
    est, (lo, hi), used = ppi_mean_interval(y, f, f_u, lam=lam, ci_prob=0.9)
    ref_lo, ref_hi = ppi_py.ppi_mean_ci(y, f, f_u, alpha=0.1, lam=lam)
    np.testing.assert_allclose([lo, hi], [float(ref_lo[0]), float(ref_hi[0])], rtol=0, atol=1e-8)
    ref_est = ppi_py.ppi_mean_pointestimate(y, f, f_u, lam=lam)
    np.testing.assert_allclose(est, float(np.ravel(ref_est)[0]), atol=1e-8)
    if lam is not None:
        assert used == lam
    else:
        assert 0.0 <= used <= 1.0


def _data(seed=0, n=300, big_n=3000, miscalibrated="B"):
    rng = np.random.default_rng(seed)
    g, g_u = rng.choice(["A", "B"], n), rng.choice(["A", "B"], big_n)
    p, p_u = rng.beta(2, 2, n), rng.beta(2, 2, big_n)
    y = (rng.uniform(size=n) < p).astype(int)
    s = np.where(g == miscalibrated, p**2, p)
    s_u = np.where(g_u == miscalibrated, p_u**2, p_u)
    return bf.AssessmentData(s, y, g, unlabeled_scores=s_u, unlabeled_groups=g_u, reference="A")


def test_difference_result_shape_and_classical_interval():
    data = _data()
    res = ppi_difference(data, "tpr", group="B", reference="A", ci_prob=0.95, random_seed=0)
    assert res.metric == "tpr" and (res.group, res.reference) == ("B", "A")
    lo, hi = res.interval
    assert lo < res.estimate < hi
    c_lo, c_hi = res.classical_interval
    assert c_lo < c_hi and res.n_labeled == 300
    # effective n is n_L times the variance ratio: the interval widths tell it
    ratio = ((c_hi - c_lo) / (hi - lo)) ** 2
    assert res.effective_n == pytest.approx(300 * ratio, rel=1e-9)
    assert all(0.0 <= v <= 1.0 for v in res.lam.values())
    frame = res.to_frame()
    assert {"estimate", "lower", "upper", "classical_lower", "effective_n"} <= set(frame.columns)
    # two groups: the group may be left out; ppi_differences gives every group, the
    # same for a seed
    assert ppi_difference(data, "tpr", random_seed=0).interval == res.interval
    (only,) = ppi_differences(data, "tpr", random_seed=0)
    assert only.interval == res.interval


def test_with_lambda_zero_the_estimate_is_the_stratified_labeled_one():
    # with raw, uninformative scores (all 0.5) the tuned λ is 0 and PPI++ is the
    # classical stratified estimate
    data = _data()
    flat = bf.AssessmentData(
        np.full(300, 0.5),
        data.labels,
        data.groups,
        unlabeled_scores=np.full(3000, 0.5),
        unlabeled_groups=data.unlabeled_groups,
        reference="A",
    )
    res = ppi_difference(flat, "accuracy", predictions="scores", random_seed=0)
    assert res.interval == pytest.approx(res.classical_interval)
    assert set(res.lam.values()) == {0.0}


def test_no_labeled_positive_in_a_group_gives_nan_and_names_it():
    data = _data()
    labels = data.labels.copy()
    labels[data.groups == "B"] = 0
    no_pos = bf.AssessmentData(
        data.scores,
        labels,
        data.groups,
        unlabeled_scores=data.unlabeled_scores,
        unlabeled_groups=data.unlabeled_groups,
        reference="A",
    )
    with pytest.warns(UndefinedRateWarning, match=r"\['B'\]"):
        res = ppi_difference(no_pos, "tpr", random_seed=0)
    assert np.isnan(res.estimate) and np.isnan(res.interval[0])


def _one_label_in_b():
    """40 labels in A, one in B; returns the data and the generator for more draws."""
    rng = np.random.default_rng(1)
    s = rng.uniform(size=41)
    y = (rng.uniform(size=41) < s).astype(int)
    g = np.array(["A"] * 40 + ["B"])
    data = bf.AssessmentData(
        s,
        y,
        g,
        unlabeled_scores=rng.uniform(size=500),
        unlabeled_groups=rng.choice(["A", "B"], 500),
        reference="A",
    )
    return data, rng


def test_a_group_with_one_label_and_identical_scores_do_not_crash():
    data, rng = _one_label_in_b()
    y, g = data.labels, data.groups
    with pytest.warns(SparseStratumWarning, match="'B', side"):
        res = ppi_difference(data, "accuracy", random_seed=0)
    assert np.isfinite(res.interval).all() and res.interval[1] - res.interval[0] > 0.5
    same = bf.AssessmentData(
        np.full(41, 0.7),
        y,
        g,
        unlabeled_scores=np.full(500, 0.7),
        unlabeled_groups=rng.choice(["A", "B"], 500),
        reference="A",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SparseStratumWarning)
        res = ppi_difference(same, "accuracy", random_seed=0)
    assert np.isfinite(res.estimate)


def test_bad_arguments():
    data = _data()
    with pytest.raises(InvalidParameterError, match="'predictions'"):
        ppi_difference(data, predictions="oracle")
    with pytest.raises(InvalidParameterError, match="'ci_prob'"):
        ppi_difference(data, ci_prob=1.2)
    with pytest.raises(InvalidParameterError, match="need unlabeled"):
        ppi_difference(bf.AssessmentData(data.scores, data.labels, data.groups), "accuracy")
    three = bf.AssessmentData(
        data.scores,
        data.labels,
        np.resize(["A", "B", "C"], data.n_labeled),
        data.unlabeled_scores,
        np.resize(["A", "B", "C"], data.n_unlabeled),
    )
    with pytest.raises(InvalidParameterError, match="name the 'group'.*ppi_differences"):
        ppi_difference(three, "accuracy")
    assert [r.group for r in ppi_differences(three, "accuracy", random_seed=0)] == ["B", "C"]
    with pytest.raises(InvalidParameterError, match="'lam'"):
        ppi_mean_interval([0, 1, 1], [0.2, 0.8, 0.6], [0.5], lam=1.5)


def _compare(data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bf.compare(
            data,
            ["accuracy"],
            models=("bb",),
            n_resamples=100,
            random_seed=0,
            fit_kwargs=dict(draws=50, tune=50, chains=1),
        )


def test_compare_and_the_report_show_the_ppi_column():
    from bayesfair.report.document import comparison_markdown

    data = _data()
    comp = _compare(data)
    row = comp.pairs.iloc[0]
    direct = ppi_difference(
        data,
        "accuracy",
        group="B",
        reference="A",
        random_seed=np.random.SeedSequence(0).spawn(3)[2],
    )
    assert (row["ppi_lower"], row["ppi_upper"]) == pytest.approx(direct.interval)
    assert row["ppi_effective_n"] == pytest.approx(direct.effective_n)
    full = comparison_markdown(comp, detail="full")
    assert "PPI++" in full and "n_eff" in full
    # without unlabeled data there is no PPI++ interval, and no column in the report
    labeled = bf.AssessmentData(data.scores, data.labels, data.groups, reference="A")
    bare = _compare(labeled)
    assert np.isnan(bare.pairs.iloc[0]["ppi_lower"])
    assert "PPI++" not in comparison_markdown(bare)


def test_compare_states_a_sparse_stratum_in_the_pair_note():
    data, _ = _one_label_in_b()
    note = _compare(data).pairs.iloc[0]["note"]
    assert "PPI++: Group 'B', side" in note


def test_the_newton_calibration_fit_is_scikit_learns():
    from sklearn.linear_model import LogisticRegression

    from bayesfair.frequentist._crossfit import logit_features, penalised_logistic

    rng = np.random.default_rng(5)
    s = rng.beta(2, 3, 80)
    y = (rng.uniform(size=80) < s**1.5).astype(float)
    x = logit_features(s, 0.01)
    ours = penalised_logistic(x, y)
    ref = LogisticRegression(C=1.0, tol=1e-12, max_iter=10_000).fit(x, y)
    np.testing.assert_allclose(ours, [ref.intercept_[0], *ref.coef_[0]], atol=1e-6)


def test_own_predictions_and_predictions_outside_the_unit_interval():
    data = _data(seed=4)
    # the raw scores passed as one's own predictions equal predictions="scores"
    # up to the histogram's bin-mean approximation (documented bound 1e-4)
    own = (
        np.clip(data.scores, 0.01, 0.99),
        np.clip(data.unlabeled_scores, 0.01, 0.99),
    )
    a = ppi_difference(data, "fpr", group="B", reference="A", predictions=own)
    b = ppi_difference(data, "fpr", group="B", reference="A", predictions="scores")
    np.testing.assert_allclose(a.interval, b.interval, atol=1e-4)
    bad = (own[0] * 2.0, own[1])
    with pytest.raises(InvalidParameterError, match=r"labeled predictions must be probabilities"):
        ppi_difference(data, "fpr", predictions=bad)
    with pytest.raises(InvalidParameterError, match=r"unlabeled predictions have 3 values"):
        ppi_difference(data, "fpr", predictions=(own[0], [0.1, 0.2, 0.3]))
    with pytest.raises(InvalidParameterError, match=r"'k_folds'"):
        ppi_difference(data, "fpr", k_folds=1)


def test_the_unlabeled_reduction_is_computed_once():
    data = _data(seed=6)
    first = data.unlabeled_reduction(0.01)
    ppi_difference(data, "accuracy", random_seed=0)
    assert data.unlabeled_reduction(0.01) is first
