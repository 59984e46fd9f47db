"""Rendering primitives shared by the report's parts: Markdown and HTML tables, lists, PNG."""

from __future__ import annotations

import pandas as pd

__all__ = ["html_list", "html_table", "markdown_table", "png"]


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
