"""The one verdict gate: the rule itself, and the cases it exists for.

The cases are a new user's: a group seen once, in the labeled file only, that headlined
a report as "unfair" with an interval of zero width; and a ten-row group whose labeled
calibration gap was called "unfair" on one positive.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import bayesfair as bf
from bayesfair.exceptions import InvalidParameterError
from bayesfair.metrics.verdicts import (
    MIN_LABELED,
    MIN_ROWS,
    TOO_FEW,
    Evidence,
    decide,
    needs_labels,
    population_interval,
    rate_evidence,
)
from bayesfair.report.document import findings
from bayesfair.report.groups import family_findings, group_findings


# ------------------------------------------------------------------------------ the rule
@pytest.mark.parametrize(
    ("labeled", "rows", "enough"),
    [
        (MIN_LABELED, MIN_ROWS, True),
        (MIN_LABELED - 1, 10_000, False),
        (500, MIN_ROWS - 1, False),
        (0, 0, False),
    ],
)
def test_the_gate_reads_labeled_rows_in_the_denominator_and_rows_assessed(labeled, rows, enough):
    e = Evidence("g", labeled, rows)
    assert e.enough is enough
    assert (e.shortfall() == "") is enough
    verdict = decide(0.05, 0.10, 0.02, [e, Evidence("ref", 100, 100)])
    assert verdict == ("unfair" if enough else TOO_FEW)


def test_a_rate_the_scores_decide_needs_no_labels():
    assert not needs_labels("selection_rate")
    assert all(needs_labels(m) for m in ("accuracy", "tpr", "fpr", "ppv", "base_rate"))
    e = rate_evidence("g", [0, 0, 0, 0], rows=400, metric="selection_rate")
    assert e.enough and e.labeled == 0
    assert not rate_evidence("g", [0, 0, 0, 0], rows=400, metric="accuracy").enough


def test_the_denominator_is_the_rates():
    counts = [12, 3, 40, 5]  # tp, fp, tn, fn
    assert rate_evidence("g", counts, 100, "tpr").labeled == 17
    assert rate_evidence("g", counts, 100, "fpr").labeled == 43
    assert rate_evidence("g", counts, 100, "ppv").labeled == 15
    assert rate_evidence("g", counts, 100, "accuracy").labeled == 60
    assert "labeled positives" in rate_evidence("g", [1, 0, 9, 0], 100, "tpr").shortfall()


def test_an_undefined_gap_stays_undefined_and_the_rule_is_the_rope_rules_above_the_gate():
    ok = [Evidence("a", 50, 50), Evidence("b", 50, 50)]
    assert decide(np.nan, np.nan, 0.02, [Evidence("a", 0, 0)]) == "undefined"
    assert decide(-0.01, 0.01, 0.02, ok) == "practically fair"
    assert decide(-0.01, 0.05, 0.02, ok) == "undecided"
    assert decide(-0.01, 0.05, 0.02) == "undecided"  # no evidence given: the ROPE rule


def test_the_population_interval_is_jeffreys():
    from scipy import stats

    lo, hi = population_interval(3, 10)
    assert lo == pytest.approx(stats.beta.ppf(0.025, 3.5, 7.5))
    assert hi == pytest.approx(stats.beta.ppf(0.975, 3.5, 7.5))
    assert population_interval(0, 5)[0] == 0.0 and population_interval(5, 5)[1] == 1.0
    lo, hi = population_interval([0, 2], [0, 4])
    assert np.isnan(lo[0]) and 0 < lo[1] < hi[1] < 1
    with pytest.raises(InvalidParameterError):
        population_interval(3, 2)


@pytest.mark.parametrize("n", [1, 2, 5, 10, 29, 100])
def test_the_population_interval_covers_on_average_at_its_level(n):
    """Exact coverage (a sum over the binomial, no Monte Carlo error) over a uniform grid
    of true rates: the Jeffreys interval's mean coverage lies within [0.945, 0.985] for a
    95% interval (measured 0.950–0.978); its minimum dips below, to 0.85–0.90 near the
    ends, as Brown, Cai & DasGupta (2001, Fig. 5) show: it is the interval of a group too
    few for a verdict, never one a verdict is read from."""
    from scipy import stats

    x = np.arange(n + 1)
    lo, hi = population_interval(x, np.full(n + 1, n))
    p = np.linspace(0.005, 0.995, 199)
    pmf = stats.binom.pmf(x[:, None], n, p[None, :])
    coverage = (pmf * ((lo[:, None] <= p) & (p <= hi[:, None]))).sum(axis=0)
    assert 0.945 <= coverage.mean() <= 0.985
    assert coverage.min() >= 0.85


# ------------------------------------------------------------------ the one-row group
def _race_audit(seed=1):
    """Four race groups and a fifth, Native, seen once, in the labeled rows only."""
    rng = np.random.default_rng(seed)

    def rows(n):
        g = rng.choice(["White", "Black", "Asian", "Hispanic"], n, p=[0.4, 0.2, 0.2, 0.2])
        y = rng.binomial(1, 0.4, n)
        s = 1 / (1 + np.exp(-(rng.normal(0, 1, n) + 3.0 * (y - 0.5))))
        return pd.DataFrame({"score": s, "y": y, "race": g})

    lab, unl = rows(200), rows(5000).drop(columns="y")
    lab.loc[0, "race"] = "Native"
    return bf.AssessmentData.from_frames(
        lab, unl, score="score", label="y", group="race", reference="White"
    )


@pytest.fixture(scope="module")
def one_row():
    data = _race_audit()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit(data, random_seed=0, draws=300, chains=2, progressbar=False)
        comp = bf.compare(
            data,
            ["accuracy", "fpr"],
            posteriors={"rbc": res},
            models=(),
            n_resamples=200,
            random_seed=0,
            progressbar=False,
        )
    return data, res, comp


def test_a_group_seen_once_is_too_few_in_every_view(one_row):
    _, res, _ = one_row
    view = res.group_summary(["accuracy", "fpr"]).set_index(["metric", "group"])
    for m in ("accuracy", "fpr"):
        row = view.loc[(m, "Native")]
        assert row["decision"] == TOO_FEW
        # its rate is that of the population its one row comes from, not the row's value
        assert row["rate_upper"] - row["rate_lower"] > 0.5
        assert np.isnan(row["gap_lower"]) and "too few for a verdict" in row["note"]
    pairs = res.summary(["accuracy", "fpr"]).set_index(["metric", "group"])
    assert (pairs.xs("Native", level="group")["decision"] == TOO_FEW).all()
    assert "Native: 1 labeled rows (10 needed)" in pairs.loc[("accuracy", "Native"), "note"]
    family = res.family_summary(["accuracy", "fpr"])
    assert all("Native" in s for s in family["set_aside"])
    assert (family["n_groups"] == 4).all()


def test_the_family_view_leaves_the_fits_draws_as_they_are(one_row):
    _, res, _ = one_row
    before = res.rates("accuracy").values.copy()
    res.family_summary("accuracy")
    np.testing.assert_array_equal(res.rates("accuracy").values, before)


def test_the_report_leads_with_no_such_group(one_row):
    _, _, comp = one_row
    said = [f["text"] for f in family_findings(comp) + group_findings(comp) + findings(comp)]
    native = [t for t in said if "Native" in t]
    assert native and all("unfair" not in t for t in native)
    first_screen = comp.to_markdown().splitlines()[:15]  # the answer
    assert first_screen[0].startswith("# Does the classifier treat the")
    assert not [line for line in first_screen if "Native" in line and "too few" not in line]
    for _, r in comp.group_view[comp.group_view["group"] == "Native"].iterrows():
        assert r["rbc_decision"] == TOO_FEW and r["freq_decision"] == TOO_FEW


# ------------------------------------------------------------- ten rows, one positive
def test_a_ten_row_calibration_verdict_is_too_few():
    """The labeled rows' calibration gap of a ten-row group with one positive rested on
    that one positive ("unfair", true gap −0.005); it is now too few."""
    rng = np.random.default_rng(0)
    big = pd.DataFrame({"score": rng.uniform(0.05, 0.95, 200), "group": "A"})
    big["y"] = rng.binomial(1, big["score"])
    small = pd.DataFrame({"score": np.full(10, 0.25), "group": "B", "y": [1] + [0] * 9})
    lab = pd.concat([big, small], ignore_index=True)
    data = bf.AssessmentData.from_frames(lab, score="score", label="y", group="group")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comp = bf.compare(
            data, ["accuracy"], models=(), n_resamples=200, random_seed=0, progressbar=False
        )
    view = comp.calibration_view.set_index("group")
    assert view.loc["B", "freq_decision"] == TOO_FEW
    assert view.loc["A", "freq_decision"] != TOO_FEW
