"""The bins of a group's summary cells on score (bayesfair.posterior.score_bins)."""

import numpy as np

from bayesfair.posterior.score_bins import entry_bins


def test_cells_go_to_the_bin_of_their_middle_example_side_by_side():
    """Side ŷ = 0: 30 examples, room for 3 bins of 10 (at most 5), a cell to each by its
    middle example (5, 15, 25 of 30); side ŷ = 1: 10 examples, one bin, numbered after
    the first side's."""
    side = [False, False, False, True, True]
    count = [10.0, 10.0, 10.0, 5.0, 5.0]
    bins, n_bins = entry_bins(side, count, bins_per_side=5, min_per_bin=10)
    assert bins.tolist() == [0, 1, 2, 3, 3] and n_bins == 4
    # at most bins_per_side per side; a side without cells has no bin
    bins, n_bins = entry_bins([True] * 4, [100.0] * 4, bins_per_side=2, min_per_bin=10)
    assert bins.tolist() == [0, 0, 1, 1] and n_bins == 2
    # a side with fewer than min_per_bin examples is one bin
    bins, n_bins = entry_bins(np.zeros(3, dtype=bool), [2.0, 3.0, 4.0], 5, 10)
    assert bins.tolist() == [0, 0, 0] and n_bins == 1
