"""Posterior draws and everything computed from them.

The flow inside, lowest first:

- what a result's draws say: :mod:`~bayesfair.posterior.checks` (the calibration
  check, the sampler's diagnostics), :mod:`~bayesfair.posterior.contrasts` (pairs,
  differences, ratios, variances, decisions), :mod:`~bayesfair.posterior.tables`,
  :mod:`~bayesfair.posterior.groups` (many groups and their family),
  :mod:`~bayesfair.posterior.periods` (audits over time),
  :mod:`~bayesfair.posterior.sensitivity` (power-scaling) and
  :mod:`~bayesfair.posterior.calibration_view` (calibration within groups);
- :mod:`~bayesfair.posterior.result`: :class:`FairnessPosterior` and
  :class:`PeriodPosterior`, containers whose methods call the modules above;
- :mod:`~bayesfair.posterior.fitting`: :func:`~bayesfair.fit` and
  :func:`~bayesfair.fit_periods`, which sample a model and build a result.

The names users call: the two results and :func:`drift_table`, the drift flag of a
group's periods from its labels alone (no fit).
"""

from bayesfair.posterior.periods import drift_table
from bayesfair.posterior.result import FairnessPosterior, PeriodPosterior

__all__ = ["FairnessPosterior", "PeriodPosterior", "drift_table"]
