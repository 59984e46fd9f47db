"""Statistical checks of the calibration check and the robust default model.

1. **Calibration check, false alarms and power.** ``R`` synthetic data sets per
   kind (:func:`bayesfair.datasets.simulate.miscalibrated_scores`: two groups, 100 labels
   and 2,000 unlabeled examples each; group A calibrated, group B calibrated,
   cubed or inverted), the default model fitted, ``calibration_check()`` read.
   Claims: a correctly specified group is flagged in at most 5% of data sets; a
   group with inverted scores in at least 90%; a cubed group at most as often as
   the most powerful test could (90% is out of reach of any test at
   100 labels: :func:`cubed_power_bound`), and the default model's intervals
   cover the assessed gap in every kind. Tolerances are two
   binomial standard errors at the claimed rate, one-sided: the false-alarm rate
   must be ≤ 0.05 + 2 sqrt(0.05 · 0.95 / R) and the detection rate ≥
   0.90 − 2 sqrt(0.9 · 0.1 / R), so a method exactly at the claimed rate fails
   with probability about 2.3% per check.
2. **Coverage where the calibration family is wrong, on real scores.** The cells
   of Ji et al.'s Table 3 (Δ TPR, n_L = 200) where ``bc`` covered least
   (COMPAS-sex NB: 0.00; German-age RF: 0.03), 50 labeled sets each: the default
   model's 95% intervals cover the realised Δ in at least 0.90 − 2 SE of runs,
   SE = sqrt(0.9 · 0.1 / 50); its MAE is at most BB's plus two
   standard errors of the paired difference. The full table (every cell, freq,
   bb, bc, rbc) is ``benchmarks/robust_coverage.py``'s, in ``docs/results/``.
   The Table 2 cells (Δ accuracy, n_L = 10) where groups are calibrated
   differently and ``bc`` covered least (Ricci MLP, German-age MLP) and German-sex
   MLP: the same coverage bound.
3. **An inverted group with few labels, and the choice of prior.** 40 data sets
   (two groups of 1,020, group B's scores inverted; 20 random labels per group and
   60 more at random, about 50 per group). Here the default falls short of the 0.90
   target (a documented limitation, ``docs/concepts.md``, "Why these priors"):
   over 200 data sets its 95% intervals of Δ accuracy covered 0.865 ± 0.024 with
   random labels and 0.835 ± 0.026 with ``within="mixed"``. The tests guard those
   measured levels (at least the measured rate less two binomial standard errors
   at 40 data sets, one-sided level about 2.3%). The retuned prior that was not
   adopted covered 6 fewer of those data sets than the default and none more
   (``docs/results/retuned_prior/``); it is no longer in the package.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import bayesfair as bf
from bayesfair.datasets.simulate import miscalibrated_scores
from bayesfair.experiments import run_experiment
from bayesfair.stats import hdi

pytestmark = pytest.mark.slow

R = 60


@pytest.fixture(scope="module")
def check_flags(simulation):
    rows = []
    for kind in ("none", "cubed", "inverted"):
        for r in range(R):
            lab, unl = miscalibrated_scores(100, 2000, kind=kind, random_seed=10_000 + r)
            data = bf.AssessmentData.from_frames(
                lab, unl, score="score", label="label", group="group", reference="A"
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = bf.fit(data, metrics=["accuracy"], random_seed=r, **simulation)
            check = res.calibration_check(warn=False).set_index("group")
            both = pd.concat([lab, unl])
            realised = (
                ((both["score"] >= 0.5) == (both["label"] == 1)).groupby(both["group"]).mean()
            )
            truth = realised["B"] - realised["A"]
            d = res.difference("accuracy", "B", "A").values
            lo, hi = hdi(d, 0.95)
            rows.append(
                {
                    "kind": kind,
                    "flag_A": check.loc["A", "verdict"] == "misfit",
                    "flag_B": check.loc["B", "verdict"] == "misfit",
                    "covered": lo <= truth <= hi,
                    "width": hi - lo,
                }
            )
    return pd.DataFrame(rows)


def test_calibration_check_false_alarms(check_flags):
    calibrated = check_flags[check_flags["kind"] == "none"]
    flags = np.concatenate([calibrated["flag_A"], calibrated["flag_B"]])
    rate = flags.mean()
    bound = 0.05 + 2 * math.sqrt(0.05 * 0.95 / flags.size)
    a_elsewhere = check_flags.loc[check_flags["kind"] != "none", "flag_A"].mean()
    print(
        f"false alarms: {rate:.3f} of {flags.size} calibrated groups (bound {bound:.3f}); "
        f"calibrated group A next to a distorted B: {a_elsewhere:.3f}"
    )
    assert rate <= bound
    assert a_elsewhere <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / (2 * R))


def cubed_power_bound(n_labels: int = 100, alpha: float = 0.05) -> float:
    """Power of the most powerful test of "beta map" against the cubed group, at n labels.

    The cubed group's true map ``f(s) = s^(1/3)`` against the beta-calibration
    map closest to it in Kullback–Leibler divergence (scores clipped to
    [0.01, 0.99] as the model clips them, ``p ~ Beta(2, 2)``). By
    Neyman–Pearson no test of the map family, knowing the alternative
    exactly, has more power than the likelihood-ratio test of these two
    simple hypotheses; with n labels its log ratio is about normal with means
    ±n·KL apart by 2n·KL and variance 2n·KL, so its power is about
    Φ(sqrt(2 n KL) − z_{1−α}).
    """
    from scipy import optimize, stats

    q = np.linspace(0.0005, 0.9995, 4000)
    w = stats.beta.pdf(q, 2, 2)
    w /= w.sum()
    s = np.clip(q**3, 0.01, 0.99)

    def log_loss(theta):
        a, b, c = theta
        f = 1 / (1 + np.exp(-(c + a * np.log(s) - b * np.log1p(-s))))
        return -np.sum(w * (q * np.log(f) + (1 - q) * np.log1p(-f)))

    fit = optimize.minimize(
        log_loss,
        [1 / 3, 1, np.log(3)],
        method="Nelder-Mead",
        options={"xatol": 1e-8, "fatol": 1e-12, "maxiter": 5000},
    )
    entropy = -np.sum(w * (q * np.log(q) + (1 - q) * np.log1p(-q)))
    kl = fit.fun - entropy
    return float(stats.norm.cdf(math.sqrt(2 * n_labels * kl) - stats.norm.ppf(1 - alpha)))


def test_a_cubed_group_cannot_be_told_from_a_beta_map_with_100_labels():
    # Detection in 90% of data sets is out of reach: the cubed map is all but
    # inside the beta family, so no test can: at 100 labels even the oracle test
    # has power about 0.17, and 90% would need about 1,800 labels per group.
    power = cubed_power_bound(100)
    needed = next(n for n in range(100, 10_000, 50) if cubed_power_bound(n) >= 0.9)
    print(f"cubed group: oracle power {power:.2f} at 100 labels; 90% at {needed} labels")
    assert power < 0.5
    assert needed > 1000


def test_calibration_check_power_on_a_cubed_group_is_within_the_oracle_bound(check_flags):
    # the check is a test of the same hypothesis: its rate is at most the oracle's
    # power, plus two binomial standard errors
    rate = check_flags.loc[check_flags["kind"] == "cubed", "flag_B"].mean()
    bound = cubed_power_bound(100)
    print(f"cubed: group B flagged in {rate:.3f} of {R} data sets (oracle power {bound:.2f})")
    assert rate <= bound + 2 * math.sqrt(bound * (1 - bound) / R)


def test_calibration_check_detects_an_inverted_group(check_flags):
    rate = check_flags.loc[check_flags["kind"] == "inverted", "flag_B"].mean()
    bound = 0.90 - 2 * math.sqrt(0.9 * 0.1 / R)
    print(f"inverted: group B flagged in {rate:.3f} of {R} data sets (bound {bound:.3f})")
    assert rate >= bound


@pytest.mark.parametrize("kind", ["none", "cubed", "inverted"])
def test_default_model_covers_the_synthetic_gap(check_flags, kind):
    # What matters when the check is silent: the intervals still cover. The
    # assessed Δ accuracy (B − A) on labeled and unlabeled examples together.
    rows = check_flags[check_flags["kind"] == kind]
    coverage = rows["covered"].mean()
    bound = 0.90 - 2 * math.sqrt(0.9 * 0.1 / R)
    print(f"{kind}: coverage {coverage:.3f} (bound {bound:.3f}), width {rows['width'].mean():.3f}")
    assert coverage >= bound


RUNS = 50


@pytest.mark.parametrize(("name", "classifier"), [("compas-sex", "NB"), ("german-age", "RF")])
def test_default_model_covers_where_bc_did_not(name, classifier, simulation):
    df = run_experiment(
        name,
        classifier,
        "tpr",
        200,
        n_runs=RUNS,
        methods=("bb", "rbc"),
        random_seed=0,
        **simulation,
    )
    runs = df.pivot_table(index="run", columns="method", values=["abs_error", "covered"])
    coverage = runs["covered", "rbc"].mean()
    bound = 0.90 - 2 * math.sqrt(0.9 * 0.1 / RUNS)
    diff = runs["abs_error", "rbc"] - runs["abs_error", "bb"]
    se = diff.std(ddof=1) / math.sqrt(RUNS)
    print(
        f"{name} {classifier} Δ TPR n_L=200: rbc coverage {coverage:.2f} (bound {bound:.3f}), "
        f"MAE rbc {100 * runs['abs_error', 'rbc'].mean():.1f} vs bb "
        f"{100 * runs['abs_error', 'bb'].mean():.1f} (paired diff {100 * diff.mean():+.1f} "
        f"± {100 * se:.1f})"
    )
    assert coverage >= bound
    assert diff.mean() <= 2 * se


@pytest.mark.parametrize(
    ("name", "classifier"), [("ricci-race", "MLP"), ("german-age", "MLP"), ("german-sex", "MLP")]
)
def test_default_model_covers_with_a_handful_of_labels(name, classifier, simulation):
    """Table 2 cells (Δ accuracy, n_L = 10: about five labels per group) where groups are
    calibrated differently and ``bc`` covered least (Ricci MLP 0.78, German-age MLP
    0.80): the default covers in at least 0.90 − 2 SE of 50 labeled sets. Its MAE is
    printed beside BB's, not asserted: on Ricci MLP it is higher (about 20 against 14
    points; ``docs/results/honest_edge.md``)."""
    df = run_experiment(
        name,
        classifier,
        "accuracy",
        10,
        n_runs=RUNS,
        methods=("bb", "rbc"),
        random_seed=0,
        **simulation,
    )
    runs = df.pivot_table(index="run", columns="method", values=["abs_error", "covered"])
    coverage = runs["covered", "rbc"].mean()
    bound = 0.90 - 2 * math.sqrt(0.9 * 0.1 / RUNS)
    print(
        f"{name} {classifier} Δ accuracy n_L=10: rbc coverage {coverage:.2f} (bound "
        f"{bound:.3f}), MAE rbc {100 * runs['abs_error', 'rbc'].mean():.1f} vs bb "
        f"{100 * runs['abs_error', 'bb'].mean():.1f}"
    )
    assert coverage >= bound


def _inverted_few_labels(r: int, sampler, discrepancy=None, within=None):
    """The setting of ``benchmarks/active_coverage.py``: does the 95% HDI of Δ accuracy
    cover the gap on all examples? The 60 labels at random, or (``within``) chosen by
    ``suggest_labels`` from a fit of the first 40. ``discrepancy=None``: the default."""
    lab, unl = miscalibrated_scores(20, 1000, kind="inverted", random_seed=100 + r)
    both = pd.concat([lab, unl], ignore_index=True)
    rates = bf.AssessmentData(both.score, both.label, both.group, reference="A").rates("accuracy")
    truth = rates["B"] - rates["A"]
    if within is None:
        pos = np.random.default_rng(r).choice(len(unl), 60, replace=False)
    else:
        first = bf.AssessmentData(
            lab.score, lab.label, lab.group, unl.score, unl.group, reference="A"
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = bf.fit(first, random_seed=r, metrics=["accuracy"], cores=1, **sampler)
            pos = bf.suggest_labels(res, n=60, metric="accuracy", within=within, random_seed=r)[
                "position"
            ].to_numpy()
    lab2 = pd.concat([lab, unl.iloc[pos]], ignore_index=True)
    unl2 = unl.drop(index=unl.index[pos])
    data = bf.AssessmentData(
        lab2.score, lab2.label, lab2.group, unl2.score, unl2.group, reference="A"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit(data, random_seed=r, metrics=["accuracy"], discrepancy=discrepancy, **sampler)
    lo, hi = hdi(res.difference("accuracy").values, 0.95)
    return bool(lo <= truth <= hi)


def test_default_prior_covers_an_inverted_group_with_few_labels(simulation):
    n = 40
    default = np.array([_inverted_few_labels(r, simulation) for r in range(n)])
    measured = 0.865  # 200 data sets (module docstring)
    bound = measured - 2 * math.sqrt(measured * (1 - measured) / n)
    print(
        f"inverted, ~50 labels per group: default covers {default.mean():.3f} (bound {bound:.3f})"
    )
    assert default.mean() >= bound


def test_mixed_acquisition_covers_an_inverted_group_through_its_guard(simulation):
    """``within="mixed"`` on the inverted group: the calibration check flags it in most
    data sets at 20 labels per group, and the batch is then chosen by stratum. Its
    coverage, 0.835 ± 0.026 over 200 data sets (0.75 without the guard when it was
    built), below the 0.90 target like random labels' 0.865 (module docstring): the
    guard keeps it there, at least the measured rate less two Monte Carlo standard
    errors at 40 data sets (one-sided level about 2.3%)."""
    n = 40
    covered = np.array([_inverted_few_labels(r, simulation, within="mixed") for r in range(n)])
    measured = 0.835  # 200 data sets
    bound = measured - 2 * math.sqrt(measured * (1 - measured) / n)
    print(f"inverted, mixed acquisition: covers {covered.mean():.3f} (bound {bound:.3f})")
    assert covered.mean() >= bound
