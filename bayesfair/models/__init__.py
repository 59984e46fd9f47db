"""The models' priors and builders: what a user passes to :func:`~bayesfair.fit` and, for
a PyMC model of one's own, the builders of ``bb``, ``hbb`` and ``bc``.

- :mod:`~bayesfair.models.beta_binomial`: ``bb`` (with its exact conjugate sampler) and
  ``hbb``, with their priors :class:`BetaPrior` and :class:`KappaPrior`;
- :mod:`~bayesfair.models.calibration`: ``bc``, hierarchical beta calibration, with
  :class:`CalibrationPriors` and :class:`DiscrepancyPrior`;
- :mod:`~bayesfair.models.shift`: :class:`ShiftPrior`, a group's shifts of the pooled
  calibration map;
- :mod:`~bayesfair.models.unlabeled`: unlabeled counts per draw from the score summary.

PyMC is imported inside the builders, so importing this package stays light.
"""

from bayesfair.models.beta_binomial import BetaPrior, KappaPrior, build_bb_model, build_hbb_model
from bayesfair.models.calibration import (
    CalibrationPriors,
    DiscrepancyPrior,
    build_calibration_model,
)
from bayesfair.models.shift import ShiftPrior

__all__ = [
    "BetaPrior",
    "CalibrationPriors",
    "DiscrepancyPrior",
    "KappaPrior",
    "ShiftPrior",
    "build_bb_model",
    "build_calibration_model",
    "build_hbb_model",
]
