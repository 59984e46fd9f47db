"""A rate's gap along the thresholds on the labeled rows, with a band that keeps its level.

At each threshold the gap of two groups' rates gets Newcombe's hybrid-score interval
(:func:`~bayesfair.frequentist.newcombe_interval`) at level ``1 − α / T`` for ``T``
thresholds (Bonferroni), so that the band covers every threshold's gap at once with
probability at least ``1 − α``, whatever the dependence between thresholds. It is the
labeled-only yardstick of :meth:`bayesfair.FairnessPosterior.threshold_summary`'s joint
band. A bootstrap max-t band on the labeled rows is no yardstick: with about 16
labeled positives a group it covered only 0.55–0.67 of the thresholds' gaps jointly,
its percentiles resting on a handful of distinct resampled rates.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bayesfair._internal.validation import check_pair, check_probability, takes
from bayesfair.exceptions import InvalidParameterError
from bayesfair.frequentist.intervals import newcombe_interval
from bayesfair.metrics.rates import get_rate, rate_fraction
from bayesfair.metrics.scores import check_thresholds

__all__ = ["threshold_band"]


@takes("AssessmentData")
def threshold_band(
    data, metric: str = "tpr", thresholds=None, group=None, reference=None, ci_prob: float = 0.95
) -> pd.DataFrame:
    """The gap of a rate along the thresholds on the labeled rows, with Newcombe's
    intervals at a Bonferroni level: a band that holds jointly (module docstring).

    Parameters
    ----------
    data : AssessmentData
        With its labeled rows held as rows (a summary keeps one threshold only).
    metric : str, default "tpr"
        A rate of the catalogue.
    thresholds : array_like of float, optional
        In (0, 1); default 0.05, 0.10, ..., 0.95.
    group, reference : optional
        The pair (default: the only other group, and the data's reference).
    ci_prob : float, default 0.95
        The band's joint level; each threshold's interval is at ``1 − (1 − ci_prob) / T``.

    Returns
    -------
    pandas.DataFrame
        One row per threshold: ``threshold, group, reference, rate, reference_rate,
        gap, gap_lower, gap_upper`` (NaN where a rate's denominator is empty).

    Examples
    --------
    >>> import bayesfair as bf
    >>> data = bf.datasets.load_example("compas")  # doctest: +SKIP
    >>> bf.frequentist.threshold_band(data, "tpr", [0.3, 0.5, 0.7])  # doctest: +SKIP
    """
    rate = get_rate(metric)
    ci_prob = check_probability(ci_prob)
    t = check_thresholds(thresholds)
    if data.labeled_is_summary:
        raise InvalidParameterError(
            "A sweep of thresholds needs the labeled rows' scores; these data hold them as "
            "a summary at one threshold."
        )
    group, reference = check_pair(data.group_levels, data.reference, group, reference)
    rows = data.labeled_examples.rows("a sweep of thresholds")
    groups = np.asarray(data.group_levels, dtype=object)[rows.codes]
    level = 1.0 - (1.0 - ci_prob) / t.size
    fractions = {g: _fractions(rows, groups == g, t, rate.name) for g in (group, reference)}
    out = []
    for j, threshold in enumerate(t):
        (x1, n1), (x2, n2) = ((fractions[g][0][j], fractions[g][1][j]) for g in (group, reference))
        lo, hi = newcombe_interval(x1, n1, x2, n2, level)
        r1 = x1 / n1 if n1 > 0 else np.nan
        r2 = x2 / n2 if n2 > 0 else np.nan
        out.append(
            {
                "threshold": float(threshold),
                "group": group,
                "reference": reference,
                "rate": r1,
                "reference_rate": r2,
                "gap": r1 - r2,
                "gap_lower": lo,
                "gap_upper": hi,
            }
        )
    frame = pd.DataFrame(out)
    frame.attrs.update(metric=rate.name, ci_prob=ci_prob, level_each=level, kind="newcombe")
    return frame


def _fractions(rows, mine, thresholds, metric) -> tuple[np.ndarray, np.ndarray]:
    """A group's rate numerator and denominator at each threshold, from its labeled rows."""
    s, y = rows.scores[mine], rows.labels[mine].astype(bool)
    pred = s[None, :] >= thresholds[:, None]
    counts = np.stack(
        [
            (pred & y).sum(axis=1),
            (pred & ~y).sum(axis=1),
            (~pred & ~y).sum(axis=1),
            (~pred & y).sum(axis=1),
        ],
        axis=-1,
    )
    num, den = rate_fraction(counts, metric)
    return num.astype(int), den.astype(int)
