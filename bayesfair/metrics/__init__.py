"""What is measured: the rate catalogue, the fairness composites, Fair Enough.

- :mod:`~bayesfair.metrics.rates`: every rate as a ratio of confusion counts, the
  composites built from them, and the undefined-rate message (``bf.metrics``'s
  public names, re-exported here);
- :mod:`~bayesfair.metrics.fair_enough`: Fair Enough's metrics from counts and
  their clusters (Majumder et al.).
"""

from bayesfair.exceptions import UndefinedRateWarning  # noqa: F401 - its old home, kept
from bayesfair.metrics.rates import (
    CALIBRATION_COLUMNS,
    COMPOSITES,
    COUNT_NAMES,
    RATES,
    Composite,
    Rate,
    composite_value,
    get_composite,
    get_rate,
    rate_fraction,
    rate_from_counts,
    undefined_rate_message,
    warn_undefined_draws,
)

__all__ = [
    "CALIBRATION_COLUMNS",
    "COMPOSITES",
    "COUNT_NAMES",
    "RATES",
    "Composite",
    "Rate",
    "composite_value",
    "get_composite",
    "get_rate",
    "rate_fraction",
    "rate_from_counts",
    "undefined_rate_message",
    "warn_undefined_draws",
]
