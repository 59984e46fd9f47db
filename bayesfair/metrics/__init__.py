"""What is measured: the rate catalogue, the fairness composites, Fair Enough.

- :mod:`~bayesfair.metrics.rates`: every rate as a ratio of confusion counts, the
  composites built from them, and the undefined-rate message (``bf.metrics``'s
  public names, re-exported here: its ``__all__`` is this package's);
- :mod:`~bayesfair.metrics.fair_enough`: Fair Enough's metrics from counts and
  their clusters (Majumder et al.).
"""

from bayesfair.metrics.rates import *  # noqa: F403 - the catalogue's public names
from bayesfair.metrics.rates import __all__ as __all__
