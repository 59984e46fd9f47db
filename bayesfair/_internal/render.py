"""Rendering primitives shared by the report's parts: Markdown and HTML tables, lists, PNG."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pandas as pd

#: The style sheet of every HTML report.
REPORT_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto;
       max-width: 72em; color: #222; line-height: 1.45; padding: 0 1em; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 1.6em;
     border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
th { background: #f3f3f3; } td:first-child, th:first-child { text-align: left; }
th, td { white-space: nowrap; }
.scroll { overflow-x: auto; max-width: 100%; }
.settings td, .provenance td { text-align: left; white-space: normal; overflow-wrap: anywhere; }
.calibration td:last-child { text-align: left; white-space: normal; min-width: 16em; }
.findings li { margin: 0.3em 0; }
figure { margin: 1em 0; } figure img { max-width: 100%; height: auto; }
.plain li { margin: 0.3em 0; } .warn { color: #a33; }
"""


#: What would turn plain text into Markdown markup (CommonMark, and GitHub's
#: strikethrough): a backslash, backtick or asterisk anywhere; a tilde beside a non-space
#: ("x ~ Beta" is left alone); an underscore that starts or ends a word (inside a word it
#: is left alone); a ``<`` that could open an HTML tag or autolink; an ``&`` that could
#: start an entity; the ``](`` of a link.
_MARKUP = re.compile(
    r"[\\`*]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])|(?<!\s)~|~(?!\s)|<(?=[A-Za-z/!?])|&(?=[A-Za-z#])"
    r"|\](?=\()"
)
#: What would open a block at the start of a line: a heading, list item or quote (``#``,
#: ``-``, ``+`` or ``1.`` before a space, any ``>``), a link definition or task box (a
#: ``[``), or a rule (a line of ``-``).
_BLOCK_START = re.compile(r"^(?:#{1,6}|[+-]|\d{1,9}[.)])(?=\s|$)|^[>\[]|^-(?=[- ]*$)")


def markdown_text(text, *, line: bool = True) -> str:
    """``text`` as Markdown that shows it as written: a group called ``*women*`` is not
    set in italics, nor ``<b>`` read as HTML. Only the characters that would act as
    markup are escaped, so ordinary sentences and names read as before in a terminal
    (``men_of_color`` stays as it is; ``_men_`` becomes ``\\_men\\_``). With ``line``
    (text that starts a line or a list item), a leading block marker is escaped too;
    a table cell needs only the inline part."""
    text = _MARKUP.sub(lambda m: "\\" + m.group(0), str(text))
    return _BLOCK_START.sub(_escape_block_start, text) if line else text


def _escape_block_start(m) -> str:
    lead = m.group(0)
    if lead[0].isdigit():
        return lead[:-1] + "\\" + lead[-1]  # "1." → "1\."
    return "\\" + lead  # "##" → "\##"


def _md_cell(v) -> str:
    return markdown_text(v, line=False).replace("|", "\\|")


def markdown_table(frame: pd.DataFrame) -> str:
    cols = [_md_cell(c) for c in frame.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += [
        "| " + " | ".join(_md_cell(v) for v in row) + " |" for row in frame.itertuples(index=False)
    ]
    return "\n".join(lines)


def html_table(frame: pd.DataFrame, cls: str = "") -> str:
    from html import escape

    head = "".join(f"<th>{escape(str(c), quote=False)}</th>" for c in frame.columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(str(v), quote=False)}</td>" for v in row) + "</tr>"
        for row in frame.itertuples(index=False)
    )
    attr = f' class="{cls}"' if cls else ""
    # in a scrolling box: a wide table scrolls sideways instead of wrapping its cells
    return (
        f'<div class="scroll"><table{attr}><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>"
    )


def html_list(title: str, items, cls: str) -> list[str]:
    """A titled bullet list (nothing when there are no items)."""
    from html import escape

    if not items:
        return []
    body = "".join(f"<li>{escape(t, quote=False)}</li>" for t in items)
    return [f"<h2>{escape(title)}</h2>", f'<ul class="{cls}">{body}</ul>']


def png(fig, dpi: int = 100) -> str:
    import base64
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    return base64.b64encode(buf.getvalue()).decode("ascii")


@dataclass(frozen=True)
class Section:
    """One section of a report, drawn alike by the Markdown, HTML and JSON renderers.

    Parameters
    ----------
    key : str
        Its name (the HTML element's id).
    title : str
        Its heading.
    blocks : tuple
        Its content in order, each a tuple: ``("text", str)`` a paragraph, ``("items",
        list of str, css class)`` a bullet list, ``("table", DataFrame, css class)`` a
        display table, ``("note", str)`` a remark under a table, ``("figure", caption,
        base64 PNG)`` a figure (HTML only: Markdown has no figures).
    records : dict
        What the JSON document holds for it (key -> raw values), whether or not it is
        shown.
    shown : bool
        Whether Markdown and HTML show it (a section with nothing to say is not).
    fold : str
        HTML only: fold the section into a ``<details>`` element with this summary.
    detail : bool
        Part of the full detail: Markdown shows it only when asked for the full
        detail; HTML folds it (its title as the summary); JSON holds it always.
    """

    key: str
    title: str
    blocks: tuple = ()
    records: dict = field(default_factory=dict)
    shown: bool = True
    fold: str = ""
    detail: bool = False


def sections_markdown(sections, heading: str = "{title}:", full: bool = True) -> list[str]:
    """The shown sections as Markdown lines: the heading (``heading`` formatted with the
    section's ``title``: ``Title:`` by default, ``## {title}`` for a document with
    headings), then each block, blank lines between (figures left out). Without
    ``full``, the sections of the full detail (``Section.detail``) are left out."""
    out = []
    for section in sections:
        blocks = [b for b in section.blocks if b[0] != "figure"]
        if not section.shown or not blocks or (section.detail and not full):
            continue
        out += [heading.format(title=markdown_text(section.title)), ""]
        for block in blocks:
            kind = block[0]
            if kind == "text":
                out += [markdown_text(block[1]), ""]
            elif kind == "items":
                out += [*[f"- {markdown_text(t)}" for t in block[1]], ""]
            elif kind == "table":
                out += [markdown_table(block[1]), ""]
            elif kind == "note":
                out += [f"- {markdown_text(block[1])}", ""]
    return out[:-1] if out and out[-1] == "" else out


def sections_html(sections) -> list[str]:
    """The shown sections as HTML fragments: an ``<h2>`` with the section's id, then each
    block (or one ``<details>`` element, collapsed, where the section folds or is part of
    the full detail)."""
    from html import escape

    out = []
    for section in sections:
        if not section.shown or not section.blocks:
            continue
        body = []
        for block in section.blocks:
            kind = block[0]
            if kind == "text":
                body.append(f"<p>{escape(block[1], quote=False)}</p>")
            elif kind == "items":
                items = "".join(f"<li>{escape(t, quote=False)}</li>" for t in block[1])
                body.append(f'<ul class="{block[2]}">{items}</ul>')
            elif kind == "table":
                body.append(html_table(block[1], block[2]))
            elif kind == "note":
                body.append(f"<p class='note'>{escape(block[1], quote=False)}</p>")
            elif kind == "figure":
                caption = escape(block[1])
                body.append(
                    f'<figure><img src="data:image/png;base64,{block[2]}" alt="{caption}">'
                    f"<figcaption>{caption}</figcaption></figure>"
                )
        if section.fold or section.detail:
            summary = escape(section.fold or section.title)
            out.append(f"<details><summary>{summary}</summary>{''.join(body)}</details>")
        else:
            out += [f'<h2 id="{section.key}">{escape(section.title)}</h2>', *body]
    return out
