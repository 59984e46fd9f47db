"""The frequentist comparator: intervals, corrected between-group variance, Bernstein bounds.

* :mod:`~bayesfair.frequentist.intervals` — per-group rates with Wilson score
  intervals; differences with Newcombe's hybrid score and bootstrap intervals.
* :mod:`~bayesfair.frequentist.variance` — the uncorrected, corrected and
  double-corrected between-group variance with percentile bootstrap intervals
  (Lum, Zhang, Bower 2022).
* :mod:`~bayesfair.frequentist.meta` — the other meta-metrics of Lum et al.
  Table 1, as (upward-biased) point estimates.
* :mod:`~bayesfair.frequentist.bernstein` — Ethayarajh's (2020) Bernstein
  interval and the labeled-set size a claim needs.
* :mod:`~bayesfair.frequentist.groups` — every group's gap to all labeled rows
  with a simultaneous band (max-|t| bootstrap, Bonferroni–Wilson floor).
* :mod:`~bayesfair.frequentist.clusters` — Fair Enough's clusters of metrics
  over bootstrap resamples of the labeled rows.
* :mod:`~bayesfair.frequentist.reliability` — calibration within groups from the
  labeled rows: mean score minus positive rate per group, reliability curves.
"""

from bayesfair.frequentist.auc import (
    AUCDifference,
    auc_difference,
    ppi_auc_difference,
)
from bayesfair.frequentist.bernstein import (
    BernsteinInterval,
    bernstein_half_width,
    bernstein_interval,
    bernstein_required_n,
)
from bayesfair.frequentist.bootstrap import BootstrapEstimate, percentile_interval
from bayesfair.frequentist.clusters import metric_clusters
from bayesfair.frequentist.groups import group_intervals, max_gap_interval
from bayesfair.frequentist.intervals import (
    bootstrap_difference,
    difference_intervals,
    newcombe_interval,
    rate_intervals,
    wilson_interval,
)
from bayesfair.frequentist.meta import (
    generalized_entropy_index,
    max_abs_difference,
    max_min_difference,
    max_min_ratio,
    mean_abs_deviation,
    meta_metrics,
)
from bayesfair.frequentist.ppi import (
    PPIResult,
    PPIVarianceResult,
    ppi_between_group_variance,
    ppi_difference,
    ppi_differences,
    ppi_mean_interval,
)
from bayesfair.frequentist.proxy import (
    ProxyBounds,
    ProxyEstimate,
    proxy_bounds,
    proxy_weighted_difference,
)
from bayesfair.frequentist.reliability import calibration_intervals, reliability_curve
from bayesfair.frequentist.sweep import threshold_band
from bayesfair.frequentist.variance import (
    VarianceBootstrapResult,
    VarianceDraws,
    between_group_variance,
    bootstrap_variance_draws,
    corrected_variance,
    double_corrected_bootstrap,
    double_corrected_bootstrap_counts,
    double_corrected_variance,
)

__all__ = [  # noqa: RUF022 - grouped by topic, sorted within groups
    # which metrics say the same thing (Majumder et al.)
    "metric_clusters",
    # many groups: each group's gap to all rows, simultaneous over the groups
    "group_intervals",
    "max_gap_interval",
    # calibration within groups (calibration in the large, reliability curves)
    "calibration_intervals",
    "reliability_curve",
    # the score beyond one threshold
    "AUCDifference",
    "auc_difference",
    "ppi_auc_difference",
    "threshold_band",
    # groups known as a proxy's probabilities
    "ProxyBounds",
    "ProxyEstimate",
    "proxy_bounds",
    "proxy_weighted_difference",
    # per-group rates and pairwise differences
    "bootstrap_difference",
    "difference_intervals",
    "newcombe_interval",
    "rate_intervals",
    "wilson_interval",
    # between-group variance (Lum et al. 2022)
    "BootstrapEstimate",
    "VarianceBootstrapResult",
    "VarianceDraws",
    "between_group_variance",
    "bootstrap_variance_draws",
    "corrected_variance",
    "double_corrected_bootstrap",
    "double_corrected_bootstrap_counts",
    "double_corrected_variance",
    "percentile_interval",
    # other meta-metrics (Lum et al. 2022, Table 1)
    "generalized_entropy_index",
    "max_abs_difference",
    "max_min_difference",
    "max_min_ratio",
    "mean_abs_deviation",
    "meta_metrics",
    # prediction-powered intervals (PPI++, stratified, cross-fitted)
    "PPIResult",
    "PPIVarianceResult",
    "ppi_between_group_variance",
    "ppi_difference",
    "ppi_differences",
    "ppi_mean_interval",
    # Bernstein bounds (Ethayarajh 2020)
    "BernsteinInterval",
    "bernstein_half_width",
    "bernstein_interval",
    "bernstein_required_n",
]
