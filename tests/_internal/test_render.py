"""The report's rendering primitives (:mod:`bayesfair._internal.render`): Markdown and HTML tables,
titled lists and PNG figures."""

import base64
import re

import pandas as pd
import pytest

from bayesfair._internal.render import REPORT_CSS, html_list, html_table, markdown_table, png

FRAME = pd.DataFrame({"metric": ["accuracy", "tpr"], "Δ": [0.012, -0.5], "n": [10, 3]})


# --------------------------------------------------------------------------- Markdown
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
