"""Many groups (slow): false alarms with 32 alike groups, joint coverage with 30 unequal ones.

The design is ``benchmarks/many_groups.py``'s (``bayesfair.datasets.simulate.many_groups``:
``p ~ Beta(2, 2)``, ``y ~ Bernoulli(p)``, calibrated scores ``s = p`` except the
distorted groups' ``s = σ(logit p − 1)``; prediction ``s >= 0.5``), with the default
model (``rbc``) and its default estimand ("assessed": the truth is the realised rate on
all rows of a group, labeled and unlabeled, with their true labels; a gap is a group's
rate minus the rate over all rows of all groups: ``rate_truth``). The benchmark has the full table
(``benchmarks/results/many_groups.json.gz``).

Sampler settings: ``draws=1000, tune=1000, chains=2`` (the default is 4 chains): 2,000
draws, half the default. The file ran in 104 s on 2 cores at a load of 1.5 (expect
about twice that when the cores are shared with other fits). 500 + 500 draws ran in
66 s, but gave an R-hat warning and one TPR band twice as wide as 1,000 + 1,000 did in
a trial audit. The joint band is read off 2,000 draws: the Monte Carlo error of its
calibrated pointwise level (each group's interval at a level found so that 95% of the
draws are inside all 30–32 intervals) is a few percent of the band's width, small next
to the binomial error of 8–10 audits. The benchmark uses the defaults.

1. **Null, 32 alike groups** (12 labels and 2,000 unlabeled rows per group, 8 audits):
   an audit raises a false alarm when any group is "unfair" at ε = 0.02 in
   ``group_summary`` or the family is "unfair" at ε = 0.05 in ``family_summary``
   (accuracy and TPR, 95% joint bands). Asserted: at most 1 of the 8 audits does.
   Level: a joint band that covers with probability 0.95 gives a false "unfair" for
   one metric with probability at most 0.05 whenever the true gaps lie within ±ε
   (the family interval is the band's projection, so it adds no case of its own);
   if an audit's false-alarm probability were 0.05 the test would fail with
   probability 5.7% (two or more of 8, binomial), at 0.10 (the union bound over the
   two metrics) 18.7%. The benchmark's null cells (12 labels, 10,000 unlabeled rows,
   20 or 12 audits) had no false alarm; bands of about ±0.06 (accuracy) and ±0.10
   (TPR) around gaps near 0 cannot lie beyond ±0.02 without a gross error.
2. **Coverage, 30 unequal groups, group 0 distorted** (``unequal_group_sizes``: group
   ``i`` has ``(5, 0, 20, 1, 40, 2, 10, 3)[i % 8]`` labels and ``(500, 2000, 8000)[i %
   3]`` unlabeled rows; group 0 is distorted and has 5 labels and 500 unlabeled rows;
   10 audits). Per metric, the number of audits whose 95% band holds all 30 true
   gaps is compared with the 1% quantile of Binomial(10, 0.90), which is 6: the
   test fails when fewer than 6 of 10 audits cover. A method whose joint coverage
   is 0.90 fails a metric with probability 0.16% (P(X ≤ 5)); 0.33% for the two
   metrics. Power is low (at a true coverage of 0.80 a metric fails with
   probability 3.3%, at 0.70 15%): the test guards against a collapse, the
   benchmark measures the coverage.
"""

import warnings

import pytest
from scipy.stats import binom

import bayesfair as bf
from bayesfair.datasets.simulate import many_groups, rate_truth, unequal_group_sizes

pytestmark = pytest.mark.slow

FIT = {"draws": 1000, "tune": 1000, "chains": 2}
FIT_METRICS = ["accuracy", "tpr", "fpr", "base_rate", "selection_rate"]
METRICS = ["accuracy", "tpr"]
NULL_AUDITS, NULL_MAX_ALARMS = 8, 1
COVERAGE_REPS, CLAIM, LEVEL = 10, 0.90, 0.01
MIN_COVERING = int(binom.ppf(LEVEL, COVERAGE_REPS, CLAIM))  # 6: fail below it


def _audit(k, n_labeled, n_unlabeled, distorted, seed):
    """Data, fit and the realised truth of one simulated audit."""
    lab, unl = many_groups(k, n_labeled, n_unlabeled, distorted=distorted, random_seed=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # groups without labels are announced
        data = bf.AssessmentData.from_frames(
            lab, unl.drop(columns=["label", "p"]), score="score", label="label", group="group"
        )
        res = bf.fit(data, random_seed=seed, progressbar=False, metrics=FIT_METRICS, **FIT)
    return res, rate_truth((lab, unl), list(data.group_levels), METRICS)


def test_alike_groups_raise_no_false_unfair():
    alarms = []
    for seed in range(NULL_AUDITS):
        res, _ = _audit(32, 12, 2_000, (), 7_000 + seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            groups = res.group_summary(metrics=METRICS, epsilon=0.02, ci_prob=0.95)
            family = res.family_summary(metrics=METRICS, epsilon=0.05, ci_prob=0.95)
        alarm = bool(
            (groups["decision"] == "unfair").any() or (family["decision"] == "unfair").any()
        )
        alarms.append(alarm)
        print(
            f"\naudit {seed}: group decisions {groups['decision'].value_counts().to_dict()}, "
            f"family {family['decision'].tolist()}, max-min upper "
            f"{family['max_gap_upper'].round(3).tolist()}"
        )
    assert sum(alarms) <= NULL_MAX_ALARMS, f"false 'unfair' in {sum(alarms)} of {NULL_AUDITS}"


def test_unequal_groups_joint_band_covers_with_a_distorted_group():
    n_lab, n_unl = unequal_group_sizes(30)
    assert n_lab[0] == 5 and n_unl[0] == 500  # the distorted group has labels to see it by
    covering = dict.fromkeys(METRICS, 0)
    for seed in range(COVERAGE_REPS):
        res, truth = _audit(30, n_lab, n_unl, (0,), 8_000 + seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            table = res.group_summary(metrics=METRICS, epsilon=0.02, ci_prob=0.95)
        for m in METRICS:
            t = table[table["metric"] == m].set_index("group").loc[list(res.groups)]
            gap = truth[m]["gap"]
            inside = (t["gap_lower"].to_numpy() <= gap) & (gap <= t["gap_upper"].to_numpy())
            covering[m] += bool(inside.all())
            print(
                f"\nseed {seed} {m}: {int((~inside).sum())} of 30 gaps outside; group 0 "
                f"true {gap[0]:+.3f}, band [{t['gap_lower'].iloc[0]:+.3f}, "
                f"{t['gap_upper'].iloc[0]:+.3f}]"
            )
    print(f"\ncovering audits of {COVERAGE_REPS}: {covering} (fail below {MIN_COVERING})")
    for m in METRICS:
        assert covering[m] >= MIN_COVERING, (
            f"{m}: joint band covered in {covering[m]} of {COVERAGE_REPS} audits; "
            f"P(X < {MIN_COVERING}) = {binom.cdf(MIN_COVERING - 1, COVERAGE_REPS, CLAIM):.4f} "
            f"at coverage {CLAIM}"
        )
