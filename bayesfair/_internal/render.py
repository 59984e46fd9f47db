"""Rendering primitives shared by the report's parts: Markdown and HTML tables, lists, PNG."""

from __future__ import annotations

import pandas as pd

__all__ = ["REPORT_CSS", "html_list", "html_table", "markdown_table", "png"]

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


def _md_cell(v) -> str:
    return str(v).replace("|", "\\|")


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
