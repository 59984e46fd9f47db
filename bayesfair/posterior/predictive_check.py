"""A binned posterior predictive check of each group's calibration map.

:func:`calibration_ppc` checks each group's map against its own labels (Gelman, Meng &
Stern 1996). It does not give the calibration check's verdicts
(:mod:`bayesfair.posterior.calibration_test` does): it uses the labels twice and
compares a group's labels with its own map, which the pooling has pulled towards them,
so with 12% of one group's labels flipped it said "ok" in all 28 fits measured.
``benchmarks/calibration_check.py`` measures it beside the likelihood-ratio test.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bayesfair.posterior.score_bins import entry_bins

__all__ = ["calibration_ppc"]

# A bin's replicated total is drawn from its normal law where its variance is at least this.
_NORMAL_MIN_VARIANCE = 25.0


def calibration_ppc(
    labeled,
    probabilities,
    *,
    rng: np.random.Generator,
    bins_per_side: int = 5,
    min_per_bin: int = 10,
) -> pd.DataFrame:
    """Binned posterior predictive check of each group's calibration map.

    Not the verdicts' test (module docstring: it compares a group's labels with its own
    map, which the pooling has pulled towards them). The labeled examples
    of each group are split at the threshold and, within each side, into up to
    ``bins_per_side`` bins of consecutive cells with at least ``min_per_bin``
    examples (:func:`~bayesfair.posterior.score_bins.entry_bins`); for a posterior draw
    θ, with ``O_b``, ``E_b``, ``V_b`` the bin's positives, expected positives and
    variance, the discrepancy is ``T(y, θ) = Σ_b (O_b − E_b)² / V_b``, and the p-value
    is ``P(T(y_rep, θ) ≥ T(y, θ) | y)`` over the draws (Gelman, Meng & Stern 1996).
    A bin's replicated total is drawn from its normal law where its variance is at
    least 25, elsewhere cell by cell.

    Parameters
    ----------
    labeled : ScoreSummary
        The labeled examples' summary (:mod:`bayesfair.data.summary`).
    probabilities : callable
        ``probabilities(g, mean_log_s, mean_log_1ms)`` returns the map's
        P(y = 1) at the given mean features of group ``g``'s cells under each
        retained posterior draw, shape ``(n_draws, n_cells)``.
    rng : numpy.random.Generator
        For the replicated labels.
    bins_per_side, min_per_bin : int
        Binning (above).

    Returns
    -------
    pandas.DataFrame
        One row per group code: ``n_labeled``, ``statistic`` (posterior mean of
        the realised discrepancy ``T(y, θ)``), ``n_bins`` and ``p_value``
        (NaN for a group without labels).

    References
    ----------
    Gelman, Meng & Stern 1996, *Statistica Sinica* 6, 733–807 (posterior
    predictive assessment with realised discrepancies); Gelman et al., BDA3
    §6.3; Hosmer & Lemeshow 1980 (the binned statistic).
    """
    rows = []
    for g in range(labeled.n_groups):
        sel = labeled.group == g
        n_g = float(labeled.count[sel].sum())
        if n_g == 0:
            rows.append({"n_labeled": 0, "statistic": np.nan, "n_bins": 0, "p_value": np.nan})
            continue
        count, pos = labeled.count[sel], labeled.positives[sel]
        bins, n_bins = entry_bins(labeled.side[sel], count, bins_per_side, min_per_bin)
        onehot = np.zeros((count.size, n_bins))
        onehot[np.arange(count.size), bins] = 1.0
        p = np.asarray(
            probabilities(g, labeled.mean_log_s[sel], labeled.mean_log_1ms[sel]), dtype=float
        )
        expected = (p * count) @ onehot
        spread = (p * (1.0 - p) * count) @ onehot
        var = np.maximum(spread, 1e-12)
        t_obs = ((pos @ onehot - expected) ** 2 / var).sum(axis=1)
        # replicated bin totals: normal where the bin's variance allows (docstring)
        y_rep = np.clip(
            np.rint(expected + np.sqrt(spread) * rng.standard_normal(expected.shape)),
            0.0,
            count @ onehot,
        )
        small = spread < _NORMAL_MIN_VARIANCE
        for b in np.flatnonzero(small.any(axis=0)):
            at, cells = np.flatnonzero(small[:, b]), np.flatnonzero(bins == b)
            draws = rng.binomial(count[cells].astype(np.int64), p[np.ix_(at, cells)])
            y_rep[at, b] = draws.sum(axis=1)
        t_rep = ((y_rep - expected) ** 2 / var).sum(axis=1)
        rows.append(
            {
                "n_labeled": round(n_g),
                "statistic": float(t_obs.mean()),
                "n_bins": int(n_bins),
                "p_value": float(np.mean(t_rep >= t_obs)),
            }
        )
    return pd.DataFrame(rows)
