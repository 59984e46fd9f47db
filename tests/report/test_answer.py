"""The report's first screen (:mod:`bayesfair.report.answer`) and the report read in a
minute: the question, one sentence per metric, the worst-off group, how many more
labels; then sections under real headings, the full detail on request."""

import json
import math
import re

import pytest

from bayesfair.report.answer import MAX_FACTOR, labels_to_decide, question
from bayesfair.report.document import comparison_html, comparison_json


# ------------------------------------------------------------------ how many more labels
def test_labels_to_decide_follows_one_over_root_n():
    # "fair" needs both ends inside ±ε: the interval must halve, so 4× the labels
    assert labels_to_decide(0.0, -0.04, 0.04, 0.02, 100) == pytest.approx(300.0)
    # "unfair" needs the lower end past ε: from 0.1 away to 0.08 away, (0.1/0.08)² − 1
    assert labels_to_decide(0.1, 0.0, 0.2, 0.02, 100) == pytest.approx(100 * (1.25**2 - 1))
    # and the mirror image below −ε
    assert labels_to_decide(-0.1, -0.2, 0.0, 0.02, 100) == pytest.approx(100 * (1.25**2 - 1))


def test_labels_to_decide_says_when_labels_alone_cannot():
    assert labels_to_decide(0.02, -0.01, 0.05, 0.02, 100) == math.inf  # on ε
    # beyond MAX_FACTOR times today's labels it would be a guess
    assert labels_to_decide(0.0, -0.5, 0.5, 0.02, 100) == math.inf
    assert labels_to_decide(0.0, -0.01, 0.01, 0.02, 100) == 0.0  # already decided
    assert math.isnan(labels_to_decide(math.nan, 0.0, 0.1, 0.02, 100))
    assert labels_to_decide(0.0, -0.02 * math.sqrt(MAX_FACTOR), 0.02, 0.02, 100) > 0


# ------------------------------------------------------------------ the first screen
def test_the_report_opens_with_the_question_and_its_answer(comparison4):
    md = comparison4.to_markdown()
    lines = md.splitlines()
    assert lines[0] == f"# {question(comparison4)}"
    assert lines[0].startswith("# Does the classifier treat the 4 groups alike in accuracy")
    first = lines[: lines.index(next(line for line in lines if line.startswith("## ")))]
    assert len(first) <= 15, first
    screen = "\n".join(first)
    # one sentence per metric, each with its verdict, gap, interval and how sure
    for label in ("Accuracy", "True positive rate", "False positive rate"):
        (sentence,) = [line for line in first if line.startswith(f"- {label}")]
        assert re.search(r": (practically fair|unfair|undecided|too few)", sentence), sentence
        assert "too few" in sentence or ("interval [" in sentence and "P(" in sentence)
    assert "Worst off: " in screen
    assert "To decide, more labels spread as today" in screen


def test_the_default_report_of_four_groups_is_read_in_a_minute(comparison4):
    md = comparison4.to_markdown()
    lines = md.splitlines()
    assert len(lines) <= 80, len(lines)
    headings = [line for line in lines if line.startswith("#")]
    assert headings[0].startswith("# ") and all(h.startswith("## ") for h in headings[1:])
    assert not [line for line in lines if re.fullmatch(r"[A-Z][^|]*:", line)]  # no "Title:"
    assert "--detail full" in lines[-1]
    full = comparison4.to_markdown(detail="full")
    assert len(full.splitlines()) > len(lines)
    for title in ("## Differences Δ", "## In plain words", "## Between-group variance"):
        assert title in full and title not in md


def test_html_folds_the_full_detail_and_json_holds_everything(comparison4):
    html = comparison_html(comparison4, figures=False)
    assert html.count("<details>") >= 5 and "<details open" not in html
    assert "<summary>Provenance</summary>" in html
    assert html.index("Does the classifier") < html.index("<details>")
    doc = json.loads(comparison_json(comparison4))
    assert {"answer", "pairs", "variance", "diagnostics", "provenance", "plain_words"} <= set(doc)
    assert doc["answer"]["question"] == question(comparison4)


def test_notes_are_said_once_each_naming_their_metric(comparison4):
    notes = json.loads(comparison_json(comparison4))["notes"]
    assert len(notes) == len(set(notes))
    metrics = {"accuracy", "tpr", "fpr"}
    for note in notes:
        assert note.split(":")[0].split(" and ")[0] in metrics | {"BB", "RBC"}, note
        assert ".;" not in note and not note.endswith(".."), note


def test_a_promised_figure_is_in_the_report(comparison4):
    html = comparison_html(comparison4, figures=True)
    assert "the reliability figure (HTML report)" in html
    assert "Calibration within groups: each group" in html  # the figure's caption


def test_a_flagged_group_is_in_the_summary_and_every_group_in_the_detail(comparison4):
    import dataclasses

    check = comparison4.calibration.copy()
    check.loc[check["group"] == "g0", "verdict"] = "misfit"
    flagged = dataclasses.replace(comparison4, calibration=check)
    md = flagged.to_markdown()
    assert len(md.splitlines()) <= 80
    section = md.split("## Calibration check: the groups it flags\n", 1)[1].split("\n## ")[0]
    rows = [line for line in section.splitlines() if re.match(r"\| g\d", line)]
    assert len(rows) == 1 and rows[0].startswith("| g0 |")
    full = flagged.to_markdown(detail="full").split("\n## Calibration check\n", 1)[1]
    assert sum(bool(re.match(r"\| g\d", line)) for line in full.split("\n## ")[0].splitlines()) == 4
    assert "## Calibration check" not in comparison4.to_markdown()  # nothing flagged
