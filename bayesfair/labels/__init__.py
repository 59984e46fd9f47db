"""Label budgets and active labeling: how many labels a decision needs, and which.

* :func:`suggest_labels` (:mod:`~bayesfair.labels.acquisition`) ranks the
  unlabeled examples by how much labeling them is expected to shrink the
  posterior of a rate gap Δ, and returns a batch of them.
* :func:`plan_labels` (:mod:`~bayesfair.labels.planner`) predicts, for a grid of
  label budgets, the width of Δ's interval and the probability of a decision,
  for the default model and the frequentist intervals (preposterior simulation).

The method, its validity after active selection, and the benchmarks:
``docs/guides/label-budgets.md``.
"""

from bayesfair.labels.acquisition import WITHIN, suggest_labels
from bayesfair.labels.planner import PLAN_METHODS, STRATEGIES, plan_labels

__all__ = ["PLAN_METHODS", "STRATEGIES", "WITHIN", "plan_labels", "suggest_labels"]
