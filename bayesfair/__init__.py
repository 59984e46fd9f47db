"""bayesfair: Bayesian and corrected-frequentist assessment of group fairness.

An auditor with a small labeled set (score, label, group) and a large
unlabeled set (score, group) gets posteriors and intervals for how a
classifier's rates differ between groups.
"""

from bayesfair import datasets, exceptions, frequentist, metrics
from bayesfair.compare import Comparison, compare
from bayesfair.data import AssessmentData
from bayesfair.exceptions import CalibrationWarning
from bayesfair.fitting import ESTIMANDS, MODELS, fit
from bayesfair.groups import impact_ratios
from bayesfair.labels import plan_labels, suggest_labels
from bayesfair.posterior import FairnessPosterior
from bayesfair.sources import summarize, summarize_unlabeled
from bayesfair.stats import Interval
from bayesfair.summary import ScoreSummary

__version__ = "0.4.0.dev0"

__all__ = [  # noqa: RUF022 - grouped by topic
    # data
    "AssessmentData",
    "ScoreSummary",
    "summarize",
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
