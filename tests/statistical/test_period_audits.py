"""Audits over time (slow): the drift flag's power and false flags, the period gaps' coverage.

The design is ``benchmarks/periods.py``'s (``bayesfair.datasets.simulate.drifting_periods``:
``p ~ Beta(2, 2)``, ``y ~ Bernoulli(p)``, calibrated scores ``s = p`` except the
drifting group's ``s = σ(logit p − 2)`` from the drift period on; prediction
``s >= 0.5``); the benchmark has the full tables (``benchmarks/results/periods.json.gz``,
``docs/results/periods.md``).

1. **Drift flag** (``bayesfair.posterior.periods.drift_table``, no fit; 300 runs). Groups A–H;
   100 labels per group in an earlier period and 50 in the checked period; B drifts by
   2 logits in the checked period. The benchmark's periods 1–5 between them have no
   labels, and the flag reads labeled rows only, so they are left out here (2 periods,
   a third of the time; the flag is the same). Power: the share of runs that flag B's
   checked period. False flags: the share of flagged checks among the seven other
   groups' checked period (2,100 checks, independent: a group's flag uses its own
   labels only). Asserted: the one-sided 99% Clopper–Pearson *lower* bound of the
   power is at least 0.60, and the one-sided 99% *upper* bound of the false-flag rate
   at most 0.10, so a pass shows each target at 99% confidence. Monte Carlo error: at
   a power of 0.96–0.98 (measured) the SE over 300 runs is 0.008–0.011 and the lower
   bound about 0.93–0.95; the test needs 201 of 300 flags and fails with probability
   under 10⁻⁷ at a power of 0.80. The null rate of the flag was 0.057 ± 0.003 with
   the χ² law's p-value (5,000 checks of this design, a little above its 0.05 level);
   at that rate the SE over 2,100 checks is 0.005 and the upper bound about 0.067; the
   test allows 178 flags (0.085) and fails with probability 10⁻⁷ at a rate of 0.057, 0.4% at 0.07.
   The same runs give the **family flag** (Holm over each run's eight checks): runs
   with any false family flag against runs with any false raw flag, and its power.
2. **Few labels** (``drift_table``, no fit; 100 null runs of 6 periods × 2 groups, 12
   labels a period, rare positives): the false-flag rate of the bootstrap's p-value
   within two standard errors of 0.05, where the χ² law's p-value flagged twice that.
3. **What a check can see**: the stated ``detectable_shift`` against the share of
   flags at that shift (25 and 100 labels in the checked period, 300 runs each).
4. **Coverage of the period gaps** (8 audits; the benchmark's "drift" scenario cut to
   6 periods). 100 labels per group in period 0 and 20 in each later period, 2,000
   unlabeled rows per group and period, B drifts by 2 from period 3. The truth of a
   period's gap (B − A) is the realised rate over all rows of the period, labeled and
   unlabeled, with their true labels (the estimand "assessed"). Asserted per metric
   (accuracy, TPR): the number of the 48 period gaps whose band holds the truth is
   at least the 1% quantile of Binomial(48, 0.95), i.e. 42 (0.875). The band is
   simultaneous over an audit's 6 gaps at 95% (``period_summary``), so each gap's own
   coverage should be at least 0.95 and the bound is conservative: at a coverage of
   0.95 a metric fails with probability 0.9%, at 0.97 0.1%, at 0.90 20% (the test
   guards against a collapse; the benchmark measures the coverage). The gaps of one
   audit share a fit, so they are not independent and the binomial understates the
   spread; in the benchmark the cluster SE (0.008–0.027) was close to the binomial one
   (0.008–0.018). Sampler: the suite's simulation settings (``draws=500, tune=500,
   chains=2``). The file ran in 38 s on 2 cores shared with other work (load average
   3.3).
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.stats import beta, binom

import bayesfair as bf
from bayesfair.datasets.simulate import drifting_periods
from bayesfair.metrics.rates import rate_from_counts
from bayesfair.posterior.periods import drift_table, family_drift

SHIFT = 2.0
FLAG_RUNS, FLAG_DRIFT_FROM = 300, 1
FLAG_LABELS = [100, 50]  # periods without labels change no flag
FLAG_GROUPS = ("A", "B", "C", "D", "E", "F", "G", "H")
POWER_TARGET, FALSE_FLAG_TARGET, BOUND_LEVEL = 0.60, 0.10, 0.99

METRICS = ["accuracy", "tpr"]
COVERAGE_REPS, COVERAGE_PERIODS, COVERAGE_DRIFT_FROM = 8, 6, 3
COVERAGE_LABELS = [100] + [20] * (COVERAGE_PERIODS - 1)
CLAIM, LEVEL = 0.95, 0.01
N_GAPS = COVERAGE_REPS * COVERAGE_PERIODS
MIN_COVERED = int(binom.ppf(LEVEL, N_GAPS, CLAIM))  # 42 of 48: fail below it


def audit_data(labeled, unlabeled):
    """The data of an audit over time (true labels and probabilities dropped)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # periods without labels are announced
        return bf.AssessmentData.from_frames(
            labeled,
            unlabeled.drop(columns=["label", "p"]),
            score="score",
            label="label",
            group="group",
            period="period",
        )


def lower_bound(k, n, level=BOUND_LEVEL):
    """One-sided Clopper–Pearson lower bound of a binomial proportion."""
    return float(beta.ppf(1 - level, k, n - k + 1)) if k > 0 else 0.0


def upper_bound(k, n, level=BOUND_LEVEL):
    """One-sided Clopper–Pearson upper bound of a binomial proportion."""
    return float(beta.ppf(level, k + 1, n - k)) if k < n else 1.0


def realised_gaps(labeled, unlabeled, n_periods):
    """B − A of each period's realised rates over all its rows, per metric."""
    rows = pd.concat([labeled, unlabeled], ignore_index=True)
    counts = np.zeros((n_periods, 2, 4))
    for (period, group), part in rows.groupby(["period", "group"]):
        pred = part["score"].to_numpy() >= 0.5
        y = part["label"].to_numpy()
        counts[int(period), ("A", "B").index(group)] = [
            np.sum(pred & (y == 1)),
            np.sum(pred & (y == 0)),
            np.sum(~pred & (y == 0)),
            np.sum(~pred & (y == 1)),
        ]
    gaps = {}
    for metric in METRICS:
        rate = rate_from_counts(counts, metric)
        gaps[metric] = rate[:, 1] - rate[:, 0]
    return gaps


@pytest.fixture(scope="module")
def flags():
    """B's flags of the checked period (drifted) and the other groups' (not), over the
    runs; and per run, the family flags (:func:`bayesfair.posterior.periods.family_drift` over the
    run's eight checks): B's, and whether any other group's was raised."""
    drifted, null, family = [], [], []
    for seed in range(FLAG_RUNS):
        lab, unl = drifting_periods(
            len(FLAG_LABELS),
            FLAG_LABELS,
            10,
            groups=FLAG_GROUPS,
            drift_group="B",
            drift_from=FLAG_DRIFT_FROM,
            shift=SHIFT,
            random_seed=9_000 + seed,
        )
        data = audit_data(lab, unl)
        tables = []
        for group in FLAG_GROUPS:
            table = drift_table(data, group)
            tables.append(table)
            flag = bool(table.loc[table["period"] == FLAG_DRIFT_FROM, "drift"].iloc[0])
            (drifted if group == "B" else null).append(flag)
        checked = family_drift(pd.concat(tables, ignore_index=True)).dropna(subset=["drift_p"])
        is_b = checked["group"] == "B"
        family.append(
            (checked.loc[is_b, "drift_family"].any(), checked.loc[~is_b, "drift_family"].any())
        )
    return np.array(drifted), np.array(null), np.array(family)


@pytest.mark.slow
def test_drift_flag_finds_a_drift_of_two_logits(flags):
    drifted, _, _ = flags
    k, n = int(drifted.sum()), drifted.size
    bound = lower_bound(k, n)
    print(f"\npower {k}/{n} = {k / n:.3f}, one-sided 99% lower bound {bound:.3f}")
    assert bound >= POWER_TARGET, f"power {k}/{n}: lower bound {bound:.3f} < {POWER_TARGET}"


@pytest.mark.slow
def test_drift_flag_rarely_flags_a_period_that_did_not_move(flags):
    _, null, _ = flags
    k, n = int(null.sum()), null.size
    bound = upper_bound(k, n)
    print(f"\nfalse flags {k}/{n} = {k / n:.3f}, one-sided 99% upper bound {bound:.3f}")
    assert bound <= FALSE_FLAG_TARGET, (
        f"false flags {k}/{n}: upper bound {bound:.3f} > {FALSE_FLAG_TARGET}"
    )


@pytest.mark.slow
def test_the_family_flag_keeps_the_audit_s_false_flags_at_its_level(flags):
    """Over a run's seven undrifted groups, a raw flag somewhere is likely (about
    1 − 0.943⁷ ≈ 0.34); Holm's family flag keeps the chance of any false flag at its
    level, while B's two-logit drift with 50 labels is still found. Asserted: the
    one-sided 99% Clopper–Pearson upper bound of the runs with a false family flag is
    at most FALSE_FLAG_TARGET (0.10; Holm's 0.05 with the χ² test slightly liberal),
    the raw flags' share of such runs is at least 0.2 (the problem is real here), and
    the lower bound of the family flag's power at least POWER_TARGET."""
    _, null, family = flags
    per_run = null.reshape(FLAG_RUNS, len(FLAG_GROUPS) - 1).any(axis=1)
    k_raw, k_family, k_power = int(per_run.sum()), int(family[:, 1].sum()), int(family[:, 0].sum())
    n = FLAG_RUNS
    print(
        f"\nruns with a false flag: raw {k_raw}/{n}, family {k_family}/{n} (upper bound "
        f"{upper_bound(k_family, n):.3f}); family power {k_power}/{n} (lower bound "
        f"{lower_bound(k_power, n):.3f})"
    )
    assert k_raw / n >= 0.2
    assert upper_bound(k_family, n) <= FALSE_FLAG_TARGET
    assert lower_bound(k_power, n) >= POWER_TARGET


def _stated_and_found(n_checked: int, runs: int) -> tuple[float, int]:
    """The median ``detectable_shift`` of B's checked period over ``runs`` undrifted data
    sets (100 labels before, ``n_checked`` in it; A and B), then the flags of ``runs``
    data sets drifted by that shift."""
    design = dict(n_periods=2, n_labeled=[100, n_checked], n_unlabeled=10, drift_from=1)

    def check(seed, shift):
        lab, unl = drifting_periods(**design, drift_group="B", shift=shift, random_seed=seed)
        table = drift_table(audit_data(lab, unl), "B").set_index("period")
        return table.loc[1, "detectable_shift"], bool(table.loc[1, "drift"])

    stated = float(np.median([check(20_000 + seed, 0.0)[0] for seed in range(runs)]))
    found = sum(check(30_000 + seed, stated)[1] for seed in range(runs))
    return stated, found


@pytest.mark.slow
@pytest.mark.parametrize("n_checked", [25, 100])
def test_a_check_flags_the_shift_it_says_it_can_see(n_checked):
    """``detectable_shift`` is the logit shift flagged in at least DRIFT_POWER (0.80) of
    audits. Measured (300 runs each): 0.83 at 25 labels, 0.78–0.80 at 100 (the
    information at no shift alone had stated a shift found in 0.72 at 25 labels).
    Asserted: the one-sided 99% Clopper–Pearson upper bound of the flags' share is at
    least 0.80 (at least 223 of 300 flags), so the test fails when the power is shown,
    at 99%, to fall short of the statement: with probability 0.007 at a true power of
    0.80 and 0.80 at 0.72."""
    from bayesfair.posterior.periods import DRIFT_POWER

    runs = 300
    stated, found = _stated_and_found(n_checked, runs)
    print(f"\n{n_checked} labels: stated shift {stated:.2f} logits, flagged {found}/{runs}")
    assert np.isfinite(stated)
    assert upper_bound(found, runs) >= DRIFT_POWER


@pytest.mark.slow
def test_period_gaps_cover_before_and_after_a_drift(simulation):
    covered = dict.fromkeys(METRICS, 0)
    for seed in range(COVERAGE_REPS):
        lab, unl = drifting_periods(
            COVERAGE_PERIODS,
            COVERAGE_LABELS,
            2_000,
            drift_group="B",
            drift_from=COVERAGE_DRIFT_FROM,
            shift=SHIFT,
            random_seed=10_000 + seed,
        )
        truth = realised_gaps(lab, unl, COVERAGE_PERIODS)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = bf.fit_periods(audit_data(lab, unl), random_seed=seed, **simulation)
            table = res.period_summary(METRICS, epsilon=0.02, ci_prob=0.95)
        assert res.reference == "A"
        for metric in METRICS:
            t = table[(table["metric"] == metric) & (table["group"] == "B")]
            t = t.sort_values("period")
            gap = truth[metric]
            inside = (t["lower"].to_numpy() <= gap) & (gap <= t["upper"].to_numpy())
            covered[metric] += int(inside.sum())
            print(
                f"\nseed {seed} {metric}: outside in periods "
                f"{np.flatnonzero(~inside).tolist()}; true {np.round(gap, 3).tolist()}"
            )
    print(f"\ncovered of {N_GAPS}: {covered} (fail below {MIN_COVERED})")
    for metric in METRICS:
        assert covered[metric] >= MIN_COVERED, (
            f"{metric}: {covered[metric]} of {N_GAPS} period gaps covered; "
            f"P(X < {MIN_COVERED}) = {binom.cdf(MIN_COVERED - 1, N_GAPS, CLAIM):.4f} "
            f"at coverage {CLAIM}"
        )


FEW_RUNS, FEW_PERIODS, FEW_LABELS = 100, 6, 12


@pytest.fixture(scope="module")
def few_label_checks():
    """Null audits with few labels: 6 periods × 2 groups, 12 labels a period, rare
    positives (``s ~ Beta(1, 6)``, ``y ~ Bernoulli(s)`` in every period: nothing
    drifts). Per run: the checks' flags, and what the χ² law's p-value of the same
    statistics would have flagged (the p-value before the bootstrap)."""
    from scipy.special import chdtrc

    flagged, chi2_flagged = [], []
    for run in range(FEW_RUNS):
        rng = np.random.default_rng([83, run])
        rows, unlabeled = [], []
        for t in range(FEW_PERIODS):
            for group in ("A", "B"):
                s = rng.beta(1, 6, FEW_LABELS + 20)
                y = rng.binomial(1, s[:FEW_LABELS])
                rows.append(pd.DataFrame({"score": s[:FEW_LABELS], "label": y, "group": group}))
                rows[-1]["period"] = t
                unlabeled.append(pd.DataFrame({"score": s[FEW_LABELS:], "group": group}))
                unlabeled[-1]["period"] = t
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            data = bf.AssessmentData.from_frames(
                pd.concat(rows),
                pd.concat(unlabeled),
                score="score",
                label="label",
                group="group",
                period="period",
            )
        table = pd.concat([drift_table(data, g) for g in ("A", "B")])
        table = table[table["drift_p"].notna()]
        flagged.append(table["drift"].to_numpy())
        chi2_flagged.append(chdtrc(1, table["statistic"].to_numpy(float)) < 0.05)
    return np.array(flagged), np.array(chi2_flagged)


@pytest.mark.slow
def test_with_few_labels_a_check_flags_a_still_period_at_its_level(few_label_checks):
    """The false-flag rate of 1,000 null checks (100 runs × 10) is within two standard
    errors of 0.05 (one-sided; the SE from the runs' own counts, as a run's checks share
    their baselines), and the χ² law's p-value of the same statistics is not: it
    flagged 8.7–11% of such checks, so the claim has power. Measured here: 0.038, and
    0.085 with the χ² law; 0.051–0.060 with the bootstrap over 1,000–1,400 checks of
    three other such designs."""
    flagged, chi2_flagged = few_label_checks
    per_run = flagged.mean(axis=1)
    rate, se = per_run.mean(), per_run.std(ddof=1) / np.sqrt(per_run.size)
    chi2_rate = chi2_flagged.mean()
    print(f"false flags: bootstrap {rate:.3f} (SE {se:.4f}), chi-square {chi2_rate:.3f}")
    assert rate <= 0.05 + 2 * se
    assert chi2_rate > 0.05 + 2 * se
