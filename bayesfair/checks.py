"""Posterior predictive checks of each group's calibration map on its labeled examples.

A calibration model (``bc``, ``rbc``) turns every unlabeled score into a
probability of a positive label through its group's map
``f_g(s) = σ(c_g + a_g log s − b_g log(1 − s))`` (Ji et al. 2020, Eq. 2). The
unlabeled examples then count as much as the map is right, so the map must
be checked against the only examples whose labels are known.

The check (Gelman, Meng & Stern 1996; BDA3 §6.3) is a binned reliability
statistic with a posterior predictive p-value, per group:

1. The group's labeled examples are split at the decision threshold (the two
   sides are where the rates' counts come from) and, within each side, into
   up to ``bins_per_side`` bins of consecutive scores with at least
   ``min_per_bin`` examples each.
2. For a posterior draw θ of the map, with ``p_i = f_g(s_i; θ)``,
   ``O_b = Σ_{i∈b} y_i``, ``E_b = Σ_{i∈b} p_i`` and ``V_b = Σ_{i∈b} p_i(1 − p_i)``,
   the discrepancy is the Hosmer–Lemeshow-type statistic
   ``T(y, θ) = Σ_b (O_b − E_b)² / V_b``.
3. Replicated labels ``y_rep ~ Bernoulli(p)`` give ``T(y_rep, θ)``; the
   p-value is ``P(T(y_rep, θ) ≥ T(y, θ) | y)`` over the draws.

A map that is too flat, too steep, shifted, or decreasing where the labels
increase (an inverted classifier), gives observed bin frequencies that the
replicated ones rarely reach, hence a small p-value. The statistic is a
discrepancy (it depends on θ), which is what makes the check sensitive to a
misfit of a *parametric family* fitted to the same labels; posterior
predictive p-values are conservative (concentrated near 0.5 under the model),
so the false-alarm rate at ``alpha`` is at most ``alpha`` (measured in
``tests/test_calibration_check.py``).

For ``rbc`` the check examines the group's beta-calibration map: a misfit
says that the labels contradict it, so that ``rbc`` lets the group's labeled
examples, not the map, carry the rates of the strata concerned
(``posterior["p_misfit"]`` says which).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["VERDICTS", "calibration_ppc"]

#: The values of the ``verdict`` column.
VERDICTS = ("ok", "misfit", "too few labels")


def _bins(scores: np.ndarray, threshold: float, bins_per_side: int, min_per_bin: int):
    """Bin index of each example: sides of the threshold, then score quantiles."""
    out = np.empty(scores.size, dtype=np.intp)
    side = scores >= threshold
    offset = 0
    for h in (False, True):
        idx = np.flatnonzero(side == h)
        if idx.size == 0:
            continue
        nb = max(1, min(bins_per_side, idx.size // max(min_per_bin, 1)))
        order = idx[np.argsort(scores[idx], kind="stable")]
        out[order] = offset + (np.arange(idx.size) * nb) // idx.size
        offset += nb
    return out, offset


def calibration_ppc(
    scores,
    labels,
    group_codes,
    n_groups: int,
    probabilities,
    *,
    threshold: float = 0.5,
    rng: np.random.Generator,
    bins_per_side: int = 5,
    min_per_bin: int = 10,
) -> pd.DataFrame:
    """Binned posterior predictive check of each group's calibration map.

    Parameters
    ----------
    scores, labels, group_codes : array_like, shape (n_L,)
        The labeled examples: raw scores, 0/1 labels, group codes.
    n_groups : int
        Number of groups (codes ``0 .. n_groups − 1``).
    probabilities : callable
        ``probabilities(g, s)`` returns the map's P(y = 1) for the scores ``s``
        of group ``g`` under each retained posterior draw, shape
        ``(n_draws, s.size)``.
    threshold : float
        Decision threshold; bins never straddle it.
    rng : numpy.random.Generator
        For the replicated labels.
    bins_per_side, min_per_bin : int
        Binning (module docstring).

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
    s_all = np.asarray(scores, dtype=float)
    y_all = np.asarray(labels, dtype=float)
    codes = np.asarray(group_codes, dtype=np.intp)
    rows = []
    for g in range(n_groups):
        idx = np.flatnonzero(codes == g)
        if idx.size == 0:
            rows.append({"n_labeled": 0, "statistic": np.nan, "n_bins": 0, "p_value": np.nan})
            continue
        s, y = s_all[idx], y_all[idx]
        bins, n_bins = _bins(s, threshold, bins_per_side, min_per_bin)
        onehot = np.zeros((s.size, n_bins))
        onehot[np.arange(s.size), bins] = 1.0
        p = np.asarray(probabilities(g, s), dtype=float)
        expected = p @ onehot
        var = np.maximum((p * (1.0 - p)) @ onehot, 1e-12)
        t_obs = ((y @ onehot - expected) ** 2 / var).sum(axis=1)
        y_rep = (rng.random(p.shape) < p).astype(float)
        t_rep = ((y_rep @ onehot - expected) ** 2 / var).sum(axis=1)
        rows.append(
            {
                "n_labeled": int(idx.size),
                "statistic": float(t_obs.mean()),
                "n_bins": int(n_bins),
                "p_value": float(np.mean(t_rep >= t_obs)),
            }
        )
    return pd.DataFrame(rows)
