"""Fair Enough's protocol on the labeled rows: which metrics say the same thing.

Majumder et al. correlate the metrics across repeated train/test splits of many
models (§3.4.5). For one classifier and its labeled rows, the frequentist
counterpart is the bootstrap: each resample draws every group's labeled rows with
replacement, group sizes fixed (the resampling of Lum et al. 2022, §5.2); the
Fair-Enough metrics of every resample (:func:`bayesfair.metrics.fair_enough.fair_enough_values`)
are then clustered exactly as the posterior draws are
(:func:`bayesfair.metrics.fair_enough.cluster_metrics`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bayesfair._internal.validation import (
    check_group,
    check_positive_int,
    check_random_state,
    takes,
)
from bayesfair.exceptions import InvalidParameterError
from bayesfair.metrics.fair_enough import resampled_clusters

__all__ = ["metric_clusters"]


@takes("AssessmentData")
def metric_clusters(
    data, n_resamples: int = 25, random_seed=None, *, metrics=None, group=None, reference=None
) -> pd.DataFrame:
    """Clusters of the Fair-Enough metrics over bootstrap resamples of the labeled rows.

    Parameters
    ----------
    data : AssessmentData
        Its labeled rows (the unlabeled ones carry no labels to resample).
    n_resamples : int, default 25
        Resamples (the paper's 5 × 5 cross-validation gives 25 results per data set).
    random_seed : None, int, SeedSequence or Generator, optional
    metrics : list of str, optional
        Names of :data:`bayesfair.metrics.fair_enough.FAIR_ENOUGH_METRICS` (default: all).
    group, reference : optional
        The unprivileged group (default: the one non-reference group when there are
        two) and the privileged reference (default: the data's).

    Returns
    -------
    pandas.DataFrame
        One row per metric: ``metric``, ``cluster``, ``representative``,
        ``insensitive``, ``verdict`` (each metric's verdict over the resamples:
        inside its fair range in at least 95% of them, "practically fair"; in at
        most 5%, "unfair"; else "undecided"), ``prob_fair``, ``mean`` (the metric
        on the labeled rows), ``lower``/``upper`` (the 95% basic bootstrap
        interval: with the default 25 resamples a rough one; 1,000 or more for an
        interval to report) and ``note``, as
        :meth:`bayesfair.FairnessPosterior.metric_clusters`.

    References
    ----------
    Majumder et al., *Fair Enough*, §3.4.4–3.4.5 and eq. 1.
    """
    n_resamples = check_positive_int(n_resamples, "n_resamples", minimum=2)
    rng = check_random_state(random_seed)
    levels = list(data.group_levels)
    if len(levels) < 2:
        raise InvalidParameterError(
            f"metric_clusters compares two groups; the data have {len(levels)} ({levels})."
        )
    ref = check_group(data.reference if reference is None else reference, levels, "reference")
    if group is None:
        others = [g for g in levels if g != ref]
        if len(others) > 1:
            raise InvalidParameterError(
                f"The 'group' parameter is required with {len(levels)} groups: name the "
                f"group to compare with the reference {ref!r}."
            )
        group = others[0]
    group = check_group(group, levels, "group")
    counts = np.asarray(data.labeled_examples.confusion_counts(), dtype=np.int64)  # (k, 4)
    n = counts.sum(axis=1)
    p = np.where(n[:, None] > 0, counts / np.maximum(n, 1)[:, None], 0.25)  # empty: no draws
    draws = np.stack([rng.multinomial(n, p) for _ in range(n_resamples)]).astype(float)
    return resampled_clusters(draws, counts, levels.index(group), levels.index(ref), metrics)
