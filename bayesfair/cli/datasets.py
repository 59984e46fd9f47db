"""``bayesfair datasets``: the bundled data sets."""

from __future__ import annotations

import re
import textwrap

import click

from bayesfair.datasets import list_datasets

#: Column widths of the listing: name, rows, groups; the description takes the rest of 80.
_WIDTHS = (15, 7, 22)


def _line(name, rows, groups, text) -> str:
    width = 80 - (_WIDTHS[0] + _WIDTHS[1] + 2 + _WIDTHS[2] + 1)
    groups = textwrap.shorten(str(groups), _WIDTHS[2], placeholder="...")
    text = textwrap.shorten(str(text), width, placeholder="...")
    return f"{name:<15}{rows:>7}  {groups:<22} {text}"


@click.command()
def datasets():
    """List the bundled data sets: score sets (for demo) and raw data sets."""
    table = list_datasets()
    out = [
        "Score sets (classifier scores; demo --dataset NAME):",
        _line("name", "rows", "groups", "what the label means"),
    ]
    for name, row in table[table["kind"] == "scores"].iterrows():
        label = re.split(r";\s*", str(row["description"]), maxsplit=1)[-1].split(". ")[0]
        groups = f"{row['privileged_group']} / {row['unprivileged_group']}"
        out.append(_line(name, int(row["n_rows"]), groups, label.rstrip(".")))
    out += [
        "",
        "Raw data sets (bayesfair.datasets.load_raw):",
        _line("name", "rows", "sensitive columns", "source"),
    ]
    for name, row in table[table["kind"] != "scores"].iterrows():
        out.append(_line(name, int(row["n_rows"]), row["group"], row["description"]))
    click.echo("\n".join(out))
