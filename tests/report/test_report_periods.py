"""The report of an audit over time: findings, the period table, HTML, Markdown, JSON."""

import json
import warnings

import pytest

import bayesfair as bf
from bayesfair.datasets.simulate import drifting_periods
from bayesfair.report.periods import (
    period_findings,
    period_html,
    period_json,
    period_markdown,
    period_sections,
    period_table,
    provenance_rows,
)


@pytest.fixture(scope="module")
def result(fast):
    """3 periods x 2 groups; B's scores drift by 3 logits in period 2 (60 labels there)."""
    lab, unl = drifting_periods(
        3, [80, 0, 60], 400, drift_group="B", drift_from=2, shift=3.0, random_seed=2
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        data = bf.AssessmentData.from_frames(
            lab,
            unl.drop(columns=["label", "p"]),
            score="score",
            label="label",
            group="group",
            period="period",
        )
        return bf.fit_periods(data, random_seed=0, **fast)


def test_findings_lead_with_the_drifted_period(result):
    table = result.period_summary(["accuracy"])
    findings = period_findings(result, table)
    assert findings[0].startswith("Drift: B's 60 labels in period 2")
    decided = table[table["decision"] != "undecided"]
    # the flags, the decided gaps, and what the drift checks can see
    assert len(findings) == int(result.drift["drift"].sum()) + len(decided) + 1
    assert findings[-1].startswith("What the drift checks can see: with ")


def test_the_display_table_has_one_row_per_period_gap(result):
    table = result.period_summary(["accuracy", "tpr"])
    shown = period_table(table)
    assert len(shown) == len(table) == 6
    assert list(shown["pair"].unique()) == ["B − A"]
    assert shown.loc[1, "labels"] == "0 / 0"  # period 1 has no labels
    assert shown.loc[2, "drift"].startswith("yes (B, p = ")


def test_markdown_json_and_html_carry_the_same_content(result):
    md = period_markdown(result, ["accuracy"], epsilon=0.05)
    assert (
        "## Gaps per period (95% band, simultaneous over periods and groups; ε = 0.05)" in md
        and "Drift: B's" in md
    )
    payload = json.loads(period_json(result, ["accuracy"], epsilon=0.05))
    assert len(payload["periods"]) == 3 and payload["settings"]["epsilon"] == 0.05
    assert payload["settings"]["band"] == "simultaneous over periods and groups"
    assert payload["findings"] == period_findings(result, result.period_summary("accuracy", 0.05))
    html = period_html(result, ["accuracy"], epsilon=0.05)
    assert html.count("<figure>") == 1 and "Drift: B&#x27;s" not in html and "Drift: B's" in html
    assert "<figure>" not in period_html(result, ["accuracy"], figures=False)


def test_the_reports_close_with_their_provenance(result):
    """The time, versions, seed, sampler and the Python call that reproduces the fit."""
    rows = dict(provenance_rows(result))
    assert {"created", "versions", "random seed", "call"} <= set(rows)
    assert (
        rows["call"].startswith("bayesfair.fit_periods(data, ") and "random_seed=0" in rows["call"]
    )
    assert "200 draws" in rows["RBC per group sampler"]
    markdown = period_markdown(result, ["accuracy"])
    assert "## Provenance" in markdown and "random seed" in markdown
    assert '<h2 id="provenance">Provenance</h2>' in period_html(result, ["accuracy"], figures=False)
    assert json.loads(period_json(result, ["accuracy"]))["provenance"]["call"] == rows["call"]


def test_the_table_says_possible_for_a_flag_that_holds_only_on_its_own(result):
    """The drift cell reads "yes" where the flag holds over the audit's checks and
    "possible" where it holds only on its own."""
    table = result.period_summary(["accuracy"]).head(3).copy()
    table["drift"], table["drift_family"] = [True, True, True], [True, False, True]
    table["drift_in"], table["drift_p"] = ["B", "A", "B, A"], [1e-6, 0.02, 1e-5]
    table["drift_family_in"] = ["B", "", "B"]
    cells = period_table(table)["drift"].tolist()
    # a row whose two groups are flagged, one of them over the family: each said apart
    assert cells == [
        "yes (B, p = 1e-06)",
        "possible (A, p = 0.02)",
        "yes (B, p = 1e-05); possible (A)",
    ]
    # a table from before drift_family_in reads as it did
    older = table.drop(columns="drift_family_in").head(2)
    assert period_table(older)["drift"].tolist() == cells[:2]


def test_the_three_formats_draw_one_list_of_sections(result):
    """Markdown, HTML and JSON render the same sections (period_sections): every section
    is a heading of the first two and its records are keys of the third."""
    sections = period_sections(result, ["accuracy"])
    markdown = period_markdown(result, ["accuracy"])
    html = period_html(result, ["accuracy"], figures=False)
    payload = json.loads(period_json(result, ["accuracy"]))
    assert [s.key for s in sections] == ["findings", "periods", "provenance"]
    for section in sections:
        assert f"## {section.title}" in markdown
        assert f'<h2 id="{section.key}">' in html
        assert set(section.records) <= set(payload)
    assert set(payload) == {k for s in sections for k in s.records}
