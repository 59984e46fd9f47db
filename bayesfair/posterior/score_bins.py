"""The bins of a group's labeled summary cells on score, per side of the threshold.

The calibration check's ``where`` phrase
(:func:`~bayesfair.posterior.check_words.departure_phrase`), its test of a group's labels
against a map of its own (:mod:`bayesfair.posterior.calibration_test`), the posterior
predictive check (:mod:`bayesfair.posterior.predictive_check`) and the reliability figure
(:func:`bayesfair.report.plots.plot_reliability`) all bin a group's cells this way.
"""

from __future__ import annotations

import numpy as np

__all__ = ["entry_bins"]


def entry_bins(side, count, bins_per_side: int = 5, min_per_bin: int = 10):
    """Check bin of each summary cell of one group (cells sorted by side, then score).

    Within each side, ``nb = max(1, min(bins_per_side, n_side // min_per_bin))``
    bins of about equal counts; a cell goes to the bin of its middle example.
    Returns the bin of each cell and the number of bins.

    Parameters
    ----------
    side : array_like of bool, shape (n_cells,)
        The side of each cell (ŷ = 1 when True).
    count : array_like of float, shape (n_cells,)
        The labeled examples in each cell, in score order within each side.
    bins_per_side : int, default 5
        Most bins per side.
    min_per_bin : int, default 10
        Fewest examples per bin (a side with fewer than that has one bin).

    Returns
    -------
    bins : numpy.ndarray of int, shape (n_cells,)
        The bin of each cell: the side ŷ = 0's bins first, numbered from 0, then
        the side ŷ = 1's.
    n_bins : int
        The number of bins over both sides.
    """
    side = np.asarray(side, dtype=bool)
    count = np.asarray(count, dtype=float)
    out = np.empty(side.size, dtype=np.intp)
    offset = 0
    for h in (False, True):
        idx = np.flatnonzero(side == h)
        if idx.size == 0:
            continue
        n = count[idx].sum()
        nb = max(1, min(bins_per_side, int(n) // max(min_per_bin, 1)))
        middle = np.cumsum(count[idx]) - 0.5 * count[idx]
        out[idx] = offset + np.minimum((middle * nb / n).astype(np.intp), nb - 1)
        offset += nb
    return out, offset
