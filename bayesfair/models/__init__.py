"""Model builders: each returns a ``pm.Model`` from counts (or score summaries) and priors.

- :mod:`~bayesfair.models.beta_binomial`: ``bb`` (with its exact conjugate sampler) and ``hbb``;
- :mod:`~bayesfair.models.calibration`: ``bc``, hierarchical beta calibration;
- :mod:`~bayesfair.models.unlabeled`: unlabeled counts per draw from the score summary.

PyMC is imported inside the builders, so importing this package stays light.
"""

from bayesfair.models.beta_binomial import build_bb_model, build_hbb_model, sample_bb_exact
from bayesfair.models.calibration import CalibrationPriors, build_calibration_model, calibrate
from bayesfair.models.unlabeled import (
    exact_expected_counts,
    expected_counts,
    reduce_unlabeled,
    sampled_counts,
)

__all__ = [
    "CalibrationPriors",
    "build_bb_model",
    "build_calibration_model",
    "build_hbb_model",
    "calibrate",
    "exact_expected_counts",
    "expected_counts",
    "reduce_unlabeled",
    "sample_bb_exact",
    "sampled_counts",
]
