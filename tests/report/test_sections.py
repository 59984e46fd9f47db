"""bayesfair.report.sections: which sections a report has, in which order."""

import dataclasses

import matplotlib

matplotlib.use("Agg")

import pandas as pd

from bayesfair.report.sections import comparison_sections

#: A report's sections, in order: each in the list, shown or not.
ORDER = [
    "answer",
    "family",
    "group-view",
    "findings",
    "disagreements",
    "calibration-within-groups",
    "calibration-flags",
    "calibration-check",
    "clusters",
    "score",
    "notes",
    "settings",
    "diagnostics",
    "models",
    "groups",
    "pairs",
    "estimands",
    "plain-words",
    "variance",
    "provenance",
]


def _keys(sections) -> list[str]:
    return [s.key for s in sections]


def test_the_sections_in_order_the_answer_first_the_provenance_last(comparison):
    sections = comparison_sections(comparison)
    assert _keys(sections) == ORDER
    detail = [s.key for s in sections if s.detail]
    assert {"diagnostics", "pairs", "plain-words", "variance", "provenance"} <= set(detail)
    shown = {s.key for s in sections if s.shown}
    assert "calibration-flags" not in shown and "clusters" not in shown  # nothing to show


def test_the_figures_are_a_section_before_the_provenance_when_asked(comparison):
    with_figures = comparison_sections(comparison, figures=True)
    assert _keys(with_figures)[-2:] == ["figures", "provenance"]
    (figures,) = [s for s in with_figures if s.key == "figures"]
    assert all(block[0] == "figure" for block in figures.blocks)
    assert "figures" not in _keys(comparison_sections(comparison))


def test_a_flagged_group_shows_the_check_in_the_summary(comparison):
    check = comparison.calibration.copy()
    check.loc[check["group"] == "Female", "verdict"] = "misfit"
    flagged = dataclasses.replace(comparison, calibration=check)
    (section,) = [s for s in comparison_sections(flagged) if s.key == "calibration-flags"]
    assert section.shown and not section.detail
    table = section.blocks[0][1]
    assert list(table["group"]) == ["Female"]


def test_the_calibration_words_point_to_the_figure_only_where_it_is_drawn(comparison):
    def intro(comp):
        (section,) = [s for s in comparison_sections(comp) if s.key == "calibration-within-groups"]
        return section.blocks[0][1]

    pointer = "the reliability figure (HTML report) shows the whole curve"
    assert pointer in intro(comparison)
    without = dataclasses.replace(comparison, reliability=pd.DataFrame())
    assert pointer not in intro(without)


def test_the_records_of_the_sections_are_the_comparison_s_tables(comparison):
    records = {}
    for section in comparison_sections(comparison):
        records.update(section.records)
    pd.testing.assert_frame_equal(pd.DataFrame(records["pairs"]), comparison.pairs)
    assert [d["model"] for d in records["diagnostics"]] == ["bb", "bc"]
    assert records["settings"] is comparison.settings
