"""Results out: comparisons, their reports and figures.

The flow inside, lowest first:

- :mod:`~bayesfair.report.plots` and :mod:`~bayesfair.report.group_plots`: figures;
- :mod:`~bayesfair.report.groups` and :mod:`~bayesfair.report.periods`: the
  many-group and over-time parts of a report;
- :mod:`~bayesfair.report.document`: a comparison rendered as Markdown, HTML or JSON;
- :mod:`~bayesfair.report.compare`: :func:`~bayesfair.compare`, which fits the
  models and the frequentist comparators side by side and decides every verdict
  once, on the :class:`~bayesfair.report.compare.Comparison`.
"""

from bayesfair.report import plots
from bayesfair.report.document import (
    comparison_html,
    comparison_json,
    comparison_markdown,
    findings,
    provenance_table,
)

__all__ = [
    "comparison_html",
    "comparison_json",
    "comparison_markdown",
    "findings",
    "plots",
    "provenance_table",
]
