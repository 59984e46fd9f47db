"""The report's rendering primitives (:mod:`bayesfair._internal.render`): Markdown and HTML tables,
titled lists and PNG figures."""

import base64
import re

import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from bayesfair._internal.render import (
    REPORT_CSS,
    Section,
    html_list,
    html_table,
    markdown_table,
    markdown_text,
    png,
    sections_markdown,
)

FRAME = pd.DataFrame({"metric": ["accuracy", "tpr"], "Δ": [0.012, -0.5], "n": [10, 3]})


# --------------------------------------------------------------------------- Markdown
def _rendered(markdown: str) -> str:
    """What a reader sees: ``markdown`` rendered by a CommonMark renderer with GitHub's
    tables and strikethrough, its tags removed and its entities decoded."""
    from html import unescape

    from markdown_it import MarkdownIt

    html = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(markdown)
    return unescape(re.sub(r"<[^>]+>", "", html)).strip()


MARKUP = "*_`\\<>[]()!#&;~+-=.|:/ 1"


@given(text=st.text(alphabet=st.sampled_from(list(MARKUP) + list("abAB")), max_size=30))
@settings(max_examples=400, deadline=None)
def test_markdown_text_renders_as_written_in_a_paragraph_a_list_item_and_a_table_cell(text):
    """Any text of letters, digits, spaces and Markdown's punctuation (without leading or
    trailing spaces, which Markdown drops) reads back as written after CommonMark
    rendering: as a paragraph, a list item, and a table cell."""
    text = text.strip()
    assume(text)
    assert _rendered(markdown_text(text)) == text
    assert _rendered(f"- {markdown_text(text)}") == text
    cell = markdown_table(pd.DataFrame({"group": [text]}))
    assert _rendered(cell).removeprefix("group").strip() == text


@pytest.mark.parametrize(
    "name, as_markdown",
    [
        ("White women", "White women"),
        ("men_of_color", "men_of_color"),
        ("age 25-40", "age 25-40"),
        ("*women*", "\\*women\\*"),
        ("_young_", "\\_young\\_"),
        ("<b>x</b>", "\\<b>x\\</b>"),
        ("# 1", "\\# 1"),
        ("2. group", "2\\. group"),
    ],
)
def test_markdown_text_escapes_only_what_would_act_as_markup(name, as_markdown):
    assert markdown_text(name) == as_markdown


def test_sections_escape_group_names_in_titles_sentences_items_notes_and_tables():
    """A report's Markdown shows the group ``*women*`` as written wherever it appears,
    while numbers such as ``-0.006`` in a table keep their look."""
    section = Section(
        "gaps",
        "*women* against men",
        (
            ("text", "*women*'s accuracy is lower."),
            ("items", ["*women* vs men: undecided."], "findings"),
            ("note", "*women* has 3 labels."),
            ("table", pd.DataFrame({"group": ["*women*"], "Δ": ["-0.006"]}), ""),
        ),
    )
    lines = sections_markdown([section])
    assert lines[0] == "\\*women\\* against men:"
    assert "- \\*women\\* vs men: undecided." in lines
    assert "| \\*women\\* | -0.006 |" in lines[-1]
    rendered = _rendered("\n".join(lines))
    assert rendered.count("*women*") == 5


def test_markdown_table_has_a_header_a_rule_and_one_line_per_row():
    assert markdown_table(FRAME).splitlines() == [
        "| metric | Δ | n |",
        "|---|---|---|",
        "| accuracy | 0.012 | 10 |",
        "| tpr | -0.5 | 3 |",
    ]


def test_markdown_table_escapes_pipes_and_leaves_out_the_index():
    frame = pd.DataFrame({"P(|Δ|<ε)": ["a|b", "c"]}, index=["x", "y"])
    assert markdown_table(frame).splitlines() == [
        "| P(\\|Δ\\|<ε) |",
        "|---|",
        "| a\\|b |",
        "| c |",
    ]


def test_markdown_table_of_no_rows_is_its_header():
    assert markdown_table(FRAME.iloc[:0]) == "| metric | Δ | n |\n|---|---|---|"


# --------------------------------------------------------------------------- HTML
def test_html_table_in_a_scrolling_box():
    assert html_table(FRAME.iloc[:1], "pairs") == (
        '<div class="scroll"><table class="pairs"><thead><tr><th>metric</th><th>Δ</th>'
        "<th>n</th></tr></thead><tbody><tr><td>accuracy</td><td>0.012</td><td>10</td></tr>"
        "</tbody></table></div>"
    )


def test_html_table_without_a_class_and_with_markup_in_its_cells():
    frame = pd.DataFrame({"<b>": ['<script>"x" & y</script>']})
    page = html_table(frame)
    assert page.startswith('<div class="scroll"><table><thead>')
    assert "<th>&lt;b&gt;</th>" in page
    assert '<td>&lt;script&gt;"x" &amp; y&lt;/script&gt;</td>' in page  # quotes need no escape
    assert "<script>" not in page


def test_html_list_is_a_titled_bullet_list():
    assert html_list("Findings", ["a < b", "c & d"], "findings") == [
        "<h2>Findings</h2>",
        '<ul class="findings"><li>a &lt; b</li><li>c &amp; d</li></ul>',
    ]
    assert html_list("Tom's <findings>", ["x"], "f")[0] == "<h2>Tom&#x27;s &lt;findings&gt;</h2>"


@pytest.mark.parametrize("items", [[], (), None])
def test_html_list_of_no_items_is_nothing(items):
    assert html_list("Findings", items, "findings") == []


# --------------------------------------------------------------------------- PNG
def test_png_is_a_base64_png_at_the_dpi_asked_for():
    from matplotlib.figure import Figure

    fig = Figure(figsize=(2, 1))
    fig.subplots().plot([0, 1], [1, 0])
    small, large = png(fig, dpi=50), png(fig)
    for text in (small, large):
        data = base64.b64decode(text, validate=True)
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
    # the IHDR chunk's width in pixels: twice as many at 100 dpi as at 50 (the tight box
    # adds a margin of its own, in points)
    width_50 = int.from_bytes(base64.b64decode(small)[16:20], "big")
    width_100 = int.from_bytes(base64.b64decode(large)[16:20], "big")
    assert width_100 == pytest.approx(2 * width_50, rel=0.05)
    assert small.isascii() and large.isascii()


# --------------------------------------------------------------------------- the style sheet
def test_the_style_sheet_styles_what_the_primitives_write():
    found = re.findall(r"([^{}]+)\{([^{}]*)\}", REPORT_CSS)
    assert REPORT_CSS.count("{") == REPORT_CSS.count("}") == len(found)  # balanced, not nested
    rules = {}
    for selector, body in found:  # a selector may have several rules
        rules[selector.strip()] = rules.get(selector.strip(), "") + body
    # html_table's box scrolls sideways; html_list's findings are spaced
    assert "overflow-x: auto" in rules[".scroll"]
    assert ".findings li" in rules
    assert "border-collapse: collapse" in rules["table"]
    assert "max-width: 100%" in rules["figure img"]  # png() figures fit the page
