"""bayesfair: Bayesian and corrected-frequentist assessment of group fairness.

An auditor with a small labeled set (score, label, group) and a large
unlabeled set (score, group) gets posteriors and intervals for how a
classifier's rates differ between groups.

The names below load their module on first use (PEP 562), so that
``import bayesfair`` costs no more than the package's own few lines: a
command that only reads a file or prints help does not wait for SciPy,
xarray or PyMC.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what type checkers and IDEs read; at run time, __getattr__ below
    from bayesfair import datasets, exceptions, frequentist, metrics
    from bayesfair.data.assessment import AssessmentData
    from bayesfair.data.engines.proxy import summarize_proxy
    from bayesfair.data.sources import summarize, summarize_unlabeled
    from bayesfair.data.summary import ScoreSummary
    from bayesfair.exceptions import CalibrationWarning
    from bayesfair.labels import plan_labels, suggest_labels
    from bayesfair.posterior.fitting import ESTIMANDS, MODELS, fit, fit_periods
    from bayesfair.posterior.groups import impact_ratios
    from bayesfair.posterior.result import FairnessPosterior, PeriodPosterior
    from bayesfair.report.compare import Comparison, compare
    from bayesfair.stats import Interval

__version__ = "0.4.0.dev0"

#: public name -> the module that defines it (loaded on first access).
_LAZY = {
    "AssessmentData": "bayesfair.data",
    "ScoreSummary": "bayesfair.data.summary",
    "summarize": "bayesfair.data.sources",
    "summarize_proxy": "bayesfair.data.engines.proxy",
    "summarize_unlabeled": "bayesfair.data.sources",
    "MODELS": "bayesfair.posterior.fitting",
    "ESTIMANDS": "bayesfair.posterior.fitting",
    "FairnessPosterior": "bayesfair.posterior",
    "fit": "bayesfair.posterior.fitting",
    "fit_periods": "bayesfair.posterior.fitting",
    "PeriodPosterior": "bayesfair.posterior",
    "CalibrationWarning": "bayesfair.exceptions",
    "Interval": "bayesfair.stats",
    "impact_ratios": "bayesfair.posterior.groups",
    "plan_labels": "bayesfair.labels",
    "suggest_labels": "bayesfair.labels",
    "Comparison": "bayesfair.report.compare",
    "compare": "bayesfair.report.compare",
}

__all__ = [  # noqa: RUF022 - grouped by topic
    # data
    "AssessmentData",
    "ScoreSummary",
    "summarize",
    "summarize_proxy",
    "summarize_unlabeled",
    "datasets",
    # rates and composites
    "metrics",
    # Bayesian models and their posteriors
    "MODELS",
    "ESTIMANDS",
    "FairnessPosterior",
    "fit",
    "CalibrationWarning",
    # audits over time
    "fit_periods",
    "PeriodPosterior",
    "Interval",
    "exceptions",
    # many groups: a selection audit's impact ratios from counts alone
    "impact_ratios",
    # label budgets and active labeling
    "plan_labels",
    "suggest_labels",
    # frequentist comparator
    "frequentist",
    # reports
    "Comparison",
    "compare",
]


def __getattr__(name: str):
    """Load a public name's module on first access, then keep the name here."""
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
    elif not name.startswith("__"):
        try:  # any module of the package: bf.datasets, bf.report, bf.frequentist, ...
            value = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as err:
            if err.name != f"{__name__}.{name}":
                raise
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
