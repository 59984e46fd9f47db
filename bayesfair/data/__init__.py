"""Rows and summaries in: what an assessment reads, and how it is reduced.

The flow inside, lowest first:

- :mod:`~bayesfair.data.summary`: the one histogram type (:class:`ScoreSummary`) and
  its binning;
- :mod:`~bayesfair.data.sources` and :mod:`~bayesfair.data.engines`: rows where they
  live (NumPy, pandas, files, DuckDB, Dask, Spark) reduced to a summary;
- :mod:`~bayesfair.data.examples`: one side's examples, rows or a summary;
- :mod:`~bayesfair.data.sides`: what the user passed for each side, checked and
  built into its examples;
- :mod:`~bayesfair.data.periods`: the periods of an audit over time, each row's code;
- :mod:`~bayesfair.data.frames`: the data built from a labeled and an unlabeled frame;
- :mod:`~bayesfair.data.assessment`: :class:`AssessmentData`, the labeled and the
  unlabeled side together.
"""

from bayesfair.data.assessment import AssessmentData
from bayesfair.data.engines.proxy import summarize_proxy
from bayesfair.data.examples import ExampleRows, ExampleSet, ExampleSummary
from bayesfair.data.sources import summarize, summarize_unlabeled
from bayesfair.data.summary import ScoreSummary

__all__ = [
    "AssessmentData",
    "ExampleRows",
    "ExampleSet",
    "ExampleSummary",
    "ScoreSummary",
    "summarize",
    "summarize_proxy",
    "summarize_unlabeled",
]
