"""Option values shared by the commands: ε, metric lists, group columns, budgets, detail."""

from __future__ import annotations

import math

import click

from bayesfair.cli._errors import BadInput
from bayesfair.metrics.rates import get_rate


def positive_finite(ctx, param, value):
    """A click callback: ``value`` must be a positive, finite number (ε: below 1)."""
    if value is not None and not (math.isfinite(value) and value > 0):
        raise BadInput(f"--{param.name} {value}: must be a positive, finite number.")
    if value is not None and param.name == "epsilon" and value >= 1:
        raise BadInput(
            f"--epsilon {value}: must be below 1 (a tolerance on a difference of two rates, "
            "which lies in [-1, 1]; typical values are 0.01 to 0.1)."
        )
    return value


def score_threshold(ctx, param, value):
    """A click callback: ``--threshold`` must lie in (0, 1), checked before any file is
    read (scores are probabilities; a percent threshold gets the fix)."""
    if value is None or (math.isfinite(value) and 0 < value < 1):
        return value
    hint = (
        f" For scores in percent, give --threshold {value / 100:g} and divide the scores by 100."
        if math.isfinite(value) and 2 <= value <= 100
        else ""
    )
    raise BadInput(
        f"--threshold {value:g}: must lie between 0 and 1 (the decision threshold on the "
        f"scores, which are probabilities; 0.5 by default).{hint}"
    )


def metric_list(metrics: str) -> list[str]:
    """``"accuracy,tpr"`` as canonical rate names."""
    names = [m.strip() for m in metrics.split(",") if m.strip()]
    if not names:
        raise BadInput("The '--metrics' option must name at least one rate, e.g. accuracy,tpr.")
    return [get_rate(m).name for m in names]  # an unknown name: InvalidParameterError


def group_columns(group: str) -> list[str]:
    """``"race,sex"`` as a list of columns (at least one)."""
    columns = [c.strip() for c in group.split(",") if c.strip()]
    if not columns:
        raise BadInput("The '--group' option must name at least one column.")
    return columns


def proxy_columns(text: str | None) -> dict | None:
    """``"White=p_white,Black=p_black"`` as ``{"White": "p_white", "Black": "p_black"}``."""
    if text is None:
        return None
    out = {}
    for part in (p.strip() for p in text.split(",")):
        group, sep, column = (x.strip() for x in part.partition("="))
        if not sep or not group or not column:
            raise BadInput(
                f"--group-probabilities: '{part}' is not GROUP=COLUMN (e.g. "
                "'White=p_white,Black=p_black')."
            )
        if group in out:
            raise BadInput(f"--group-probabilities names the group '{group}' twice.")
        out[group] = column
    if len(out) < 2:
        raise BadInput("--group-probabilities must name at least two groups.")
    return out


def budgets(text: str | None) -> list[int] | None:
    """``"100,200"`` as label counts (None: the planner's default)."""
    if text is None:
        return None
    try:
        return [int(b) for b in text.split(",") if b.strip()]
    except ValueError:
        raise BadInput(
            f"The '--budgets' option must be label counts separated by commas, e.g. "
            f"100,200,400. Got {text!r}."
        ) from None


def separator(sep: str | None) -> str | None:
    """``--sep``, with ``tab`` and ``\\t`` spelled out."""
    return {"tab": "\t", "\\t": "\t"}.get(sep, sep)


#: ``--detail``: how much of the report the Markdown shows (``assess`` and ``demo``).
detail_option = click.option(
    "--detail",
    type=click.Choice(["summary", "full"]),
    default="summary",
    show_default=True,
    help="The Markdown report: the answer and the sections it rests on (summary), or every "
    "method's table, the variance, diagnostics and provenance too (full). The HTML report "
    "folds the full detail; the JSON holds it always.",
)
