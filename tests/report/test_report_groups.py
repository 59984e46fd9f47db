"""The many-group part of a report (:mod:`bayesfair.report.groups`): the family's verdicts,
the groups' gaps to all rows, and when a report leads with them.

The comparisons here are built by hand (a :class:`~bayesfair.report.compare.Comparison` is a
dataclass), so each number in a sentence or a table is known; one test reads a real
:func:`bayesfair.compare`."""

import base64
import math
import re

import pandas as pd
import pytest

from bayesfair.exceptions import InvalidParameterError
from bayesfair.report.compare import Comparison
from bayesfair.report.groups import (
    MANY_GROUPS,
    family_findings,
    family_table,
    group_findings,
    group_html,
    group_markdown,
    group_table,
    leads_with_family,
    many_groups,
    pair_findings_html,
    view_method,
)

SETTINGS = {"epsilon": 0.02, "ci_prob": 0.9}


def _family(methods=("bb",)):
    """One row per metric: accuracy (unfair for the Bayesian methods) and fpr."""
    rows = []
    for metric, gap in (("accuracy", 0.12), ("fpr", 0.01)):
        row = {"metric": metric}
        for m in methods:
            row |= {
                f"{m}_max_gap": gap,
                f"{m}_max_gap_lower": gap - 0.05,
                f"{m}_max_gap_upper": gap + 0.05,
                f"{m}_prob_all_within": 0.01,
                f"{m}_worst_group": "g1",
                f"{m}_prob_worst": 0.8,
                f"{m}_min_ratio": 0.85,
                f"{m}_min_ratio_lower": 0.7,
                f"{m}_min_ratio_upper": 0.95,
                f"{m}_decision": "unfair" if gap > 0.1 else "undecided",
            }
        row |= {
            "freq_max_gap": gap + 0.01,
            "freq_max_gap_lower": math.nan if metric == "fpr" else 0.0,
            "freq_max_gap_upper": 0.3,
            "freq_decision": "undecided",
        }
        rows.append(row)
    return pd.DataFrame(rows)


def _groups_view(k, methods=("bb",)):
    """Per metric and group: g1's accuracy gap is unfair; every other gap undecided or fair."""
    rows = []
    for metric in ("accuracy", "fpr"):
        for i in range(k):
            unfair = metric == "accuracy" and i == 1
            lo, hi = (-0.2, -0.05) if unfair else (-0.01, 0.03)
            row = {"metric": metric, "group": f"g{i}", "n_labeled": 10 + i, "n_unlabeled": 100}
            for m in methods:
                row |= {
                    f"{m}_gap": (lo + hi) / 2,
                    f"{m}_gap_lower": lo,
                    f"{m}_gap_upper": hi,
                    f"{m}_prob_worst": 0.9 if unfair else 0.1 / (k - 1),
                    f"{m}_decision": "unfair" if unfair else "undecided",
                }
            flo, fhi = (-0.3, -0.03) if metric == "fpr" and i == 0 else (-0.1, 0.1)
            row |= {"freq_gap": (flo + fhi) / 2, "freq_gap_lower": flo, "freq_gap_upper": fhi}
            row["freq_method"] = "max-t bootstrap"
            row["freq_decision"] = "unfair" if fhi < -SETTINGS["epsilon"] else "undecided"
            rows.append(row)
    return pd.DataFrame(rows)


def _comparison(k, methods=("bb",), family=True, n_pairs=None):
    groups = pd.DataFrame(
        {"n_labeled": range(10, 10 + k), "n_unlabeled": 100}, index=[f"g{i}" for i in range(k)]
    )
    n_pairs = n_pairs if n_pairs is not None else k - 1
    pairs = pd.DataFrame(
        {
            "metric": ["accuracy"] * n_pairs,
            "group": [f"g{i % (k - 1) + 1}" for i in range(n_pairs)],
            "reference": "g0",
        }
    )
    return Comparison(
        pairs=pairs,
        variance=pd.DataFrame(),
        groups=groups,
        settings=dict(SETTINGS),
        family_view=_family(methods) if family else pd.DataFrame(),
        group_view=_groups_view(k, methods),
    )


# --------------------------------------------------------------------------- when
def test_a_report_leads_with_the_family_above_two_groups():
    assert not leads_with_family(_comparison(2))
    assert leads_with_family(_comparison(3))
    assert not leads_with_family(_comparison(3, family=False))  # no family view: no lead


def test_pairs_are_folded_above_many_groups():
    assert MANY_GROUPS == 5
    assert [many_groups(_comparison(k)) for k in (2, 3, 5, 6, 30)] == [
        False,
        False,
        False,
        True,
        True,
    ]
    assert not many_groups(_comparison(8, family=False))


@pytest.mark.parametrize(
    ("methods", "method"),
    [
        (("bb", "rbc"), "rbc"),
        (("bb", "bc"), "bc"),
        (("bb", "hbb"), "hbb"),
        (("bb",), "bb"),
        ((), "freq"),
    ],
)
def test_the_verdicts_rest_on_the_first_bayesian_method_fitted(methods, method):
    assert view_method(_comparison(3, methods)) == method


def test_every_function_takes_only_a_comparison():
    with pytest.raises(InvalidParameterError, match="The 'comp' parameter must be a Comparison"):
        family_findings({"family_view": _family()})
    for func in (leads_with_family, many_groups, view_method, group_findings):
        with pytest.raises(InvalidParameterError, match="Got DataFrame."):
            func(_family())


# --------------------------------------------------------------------------- findings
def test_family_findings_say_the_verdict_and_what_it_rests_on():
    accuracy, fpr = family_findings(_comparison(6))
    assert accuracy == {
        "metric": "accuracy",
        "verdict": "unfair",
        "max_gap": 0.12,
        "lower": pytest.approx(0.07),
        "upper": pytest.approx(0.17),
        "method": "bb",
        "text": "accuracy, all 6 groups: unfair at ε = 0.02. max − min of the estimated "
        "rates = 0.120; of the true rates: 90% (joint over the 2 metrics) interval "
        "[0.070, 0.170], P(max − min < 0.02) = 0.01; worst off: g1 (P = 0.80); min/max "
        "0.850 [0.700, 0.950]; rests on the beta-binomial (BB, labeled examples only).",
    }
    assert fpr["verdict"] == "undecided" and fpr["text"].startswith(
        "false positive rate, all 6 groups: undecided at ε = 0.02. max − min of the "
        "estimated rates = 0.010"
    )


def test_family_findings_of_the_bootstrap_leave_out_the_probabilities():
    (accuracy, _) = family_findings(_comparison(3, methods=()))
    assert accuracy["method"] == "freq" and accuracy["max_gap"] == pytest.approx(0.13)
    assert accuracy["text"] == (
        "accuracy, all 3 groups: undecided at ε = 0.02. max − min = 0.130, 90% (joint over "
        "the 2 metrics) interval [0.000, 0.300]; rests on the max-|t| bootstrap of the "
        "labeled examples."
    )


def test_no_family_view_no_family_findings():
    assert family_findings(_comparison(3, family=False)) == []


def test_group_findings_name_only_the_unfair_groups():
    (finding,) = group_findings(_comparison(4, methods=("bb", "rbc")))
    assert finding == {
        "metric": "accuracy",
        "group": "g1",
        "verdict": "unfair",
        "method": "rbc",
        "text": "accuracy, g1 against all rows: unfair at ε = 0.02. gap = -0.125, joint band "
        "[-0.200, -0.050]; rests on the robust calibration model (RBC).",
    }


def test_group_findings_of_the_bootstrap_say_its_verdicts():
    """Without a Bayesian view the findings say the bootstrap's verdicts (decided with the
    view): fpr of g0 lies below −ε there, every other band crosses it."""
    (finding,) = group_findings(_comparison(4, methods=()))
    assert (finding["metric"], finding["group"], finding["method"]) == ("fpr", "g0", "freq")
    assert (
        "gap = -0.165, joint band [-0.300, -0.030]; rests on the max-|t| bootstrap"
        in (finding["text"])
    )


# --------------------------------------------------------------------------- tables
def test_family_table_has_a_row_per_metric_and_method():
    table = family_table(_comparison(3, methods=("bb", "rbc")), digits=2)
    assert list(table.columns) == ["metric", "method", "max − min", "interval", "verdict"]
    assert table["method"].tolist() == ["RBC", "BB", "bootstrap (labeled)"] * 2
    first = table.iloc[0].tolist()
    assert first == ["accuracy", "RBC", "0.12", "[0.07, 0.17]", "unfair"]
    # a bound that is NaN is a dash, not "nan"
    assert table.iloc[5]["interval"] == "[–, 0.30]"


def test_group_table_shows_the_verdicts_method_and_the_bootstrap():
    table = group_table(_comparison(3, methods=("bb",)), digits=3)
    assert list(table.columns) == [
        "metric",
        "group",
        "labeled / unlabeled",
        "BB gap [band]",
        "P(worst)",
        "verdict",
        "bootstrap gap [band]",
    ]
    assert len(table) == 6
    row = table.iloc[1].tolist()
    assert row == [
        "accuracy",
        "g1",
        "11 / 100",
        "-0.125 [-0.200, -0.050]",
        "0.90",
        "unfair",
        "0.000 [-0.100, 0.100]",
    ]
    freq_only = group_table(_comparison(3, methods=()))
    assert list(freq_only.columns) == [
        "metric",
        "group",
        "labeled / unlabeled",
        "bootstrap gap [band]",
    ]


# --------------------------------------------------------------------------- rendering
def test_group_markdown_lists_the_verdicts_then_the_tables():
    lines = group_markdown(_comparison(6), digits=2)
    assert lines[0] == "Family verdicts (6 groups; max − min of the group rates):"
    bullets = [line for line in lines if line.startswith("- ")]
    assert len(bullets) == 3  # two metrics, one unfair group
    assert bullets[0].startswith("- accuracy, all 6 groups: unfair")
    assert bullets[2].startswith("- accuracy, g1 against all rows: unfair")
    assert "max − min of the group rates, 90% intervals (projected from the joint band):" in lines
    assert "| accuracy | BB | 0.12 | [0.07, 0.17] | unfair |" in "\n".join(lines)
    assert "| accuracy | g1 | 11 / 100 | -0.12 [-0.20, -0.05] | 0.90 | unfair |" in "\n".join(lines)
    assert "Each group against all rows:" in lines


def test_group_html_is_nothing_unless_the_report_leads_with_the_family():
    assert group_html(_comparison(2), 3, figures=True) == []
    assert group_html(_comparison(8, family=False), 3, figures=True) == []


def test_group_html_draws_a_forest_plot_per_metric_for_many_groups():
    parts = group_html(_comparison(6, methods=("bb", "rbc")), 3, figures=True)
    page = "".join(parts)
    assert parts[0].startswith(  # the answer says the family's verdicts: this is detail
        "<details><summary>Family verdicts (6 groups; max − min of the group rates)</summary>"
    )
    assert page.count("<li>") == 3
    assert '<table class="family">' in page and '<table class="groups">' in page
    assert page.index(">Family verdicts") < page.index("<figure>")
    assert page.index("</figure>") < page.index(">Each group against all rows</h2>")
    images = re.findall(r'<img src="data:image/png;base64,([^"]+)"', page)
    assert len(images) == 2  # accuracy and fpr
    assert all(base64.b64decode(i)[:4] == b"\x89PNG" for i in images)
    caption = "Each group&#x27;s gap in accuracy to all rows, the most adverse first; "
    assert f'alt="{caption}' in page and f"<figcaption>{caption}" in page  # escaped
    assert "bars: the joint band (RBC); grey: ±ε.</figcaption>" in page


def test_group_html_without_figures_or_with_few_groups_draws_none():
    assert "<figure>" not in "".join(group_html(_comparison(6), 3, figures=False))
    three = "".join(group_html(_comparison(3), 3, figures=True))
    assert "<figure>" not in three and '<table class="groups">' in three


def test_pair_findings_are_a_list_or_folded_with_many_groups():
    findings = [{"text": "accuracy, g1 vs g0: unfair"}, {"text": "fpr, g1 vs g0: a < b"}]
    items = (
        '<ul class="findings"><li>accuracy, g1 vs g0: unfair</li>'
        "<li>fpr, g1 vs g0: a &lt; b</li></ul>"
    )
    assert pair_findings_html(_comparison(2), findings) == [
        '<h2 id="findings">Findings</h2>',
        items,
    ]
    assert pair_findings_html(_comparison(3), findings) == [
        '<h2 id="findings">Findings by pair (each group against the reference)</h2>',
        items,
    ]
    assert pair_findings_html(_comparison(7, n_pairs=12), findings) == [
        "<details><summary>Findings by pair (12 pairs against the reference)</summary>"
        f"{items}</details>"
    ]
    assert pair_findings_html(_comparison(2), []) == []


# --------------------------------------------------------------------------- a real comparison
def test_a_comparison_of_six_groups_reads_like_the_hand_built_ones():
    """A real :func:`bayesfair.compare` of six groups, frequentist only (no fit: fast)."""
    import bayesfair as bf
    from bayesfair.datasets.simulate import many_groups as simulate_groups

    lab, unl = simulate_groups(6, 30, 100, random_seed=2)
    data = bf.AssessmentData.from_frames(
        lab, unl.drop(columns=["label", "p"]), score="score", label="label", group="group"
    )
    comp = bf.compare(
        data, ["accuracy", "fpr"], models=(), n_resamples=100, random_seed=0, progressbar=False
    )
    assert leads_with_family(comp) and many_groups(comp) and view_method(comp) == "freq"
    findings = family_findings(comp)
    assert [f["metric"] for f in findings] == ["accuracy", "fpr"]
    for finding, (_, row) in zip(findings, comp.family_view.iterrows(), strict=True):
        assert finding["verdict"] == row["freq_decision"]
        assert finding["max_gap"] == row["freq_max_gap"]
        assert f"max − min = {row['freq_max_gap']:.3f}" in finding["text"]
    view = comp.group_view
    bands = zip(view["freq_gap_lower"], view["freq_gap_upper"], strict=True)
    unfair = [
        (m, g)
        for m, g, (lo, hi) in zip(view["metric"], view["group"], bands, strict=True)
        if hi < -0.02 or lo > 0.02
    ]
    assert [(f["metric"], f["group"]) for f in group_findings(comp)] == unfair
    table = group_table(comp, 3)
    assert table["group"].tolist() == [f"g{i}" for i in range(6)] * 2
    assert table["labeled / unlabeled"].tolist() == ["30 / 100"] * 12
    page = "".join(group_html(comp, 3, figures=True))
    assert page.count("<figure>") == 2 and "the joint band (FREQ)" in page
