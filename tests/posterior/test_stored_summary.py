"""The labeled summary a result keeps (bayesfair.posterior.stored_summary)."""

import numpy as np

from bayesfair.posterior import stored_summary


def test_a_result_without_kept_data_or_draws_says_so_plainly():
    """A hand-built result without ``constant_data`` has no labeled summary (None, not an
    AttributeError); a posterior without draws has an empty diagnostics table."""
    import xarray as xr

    from bayesfair._internal.tree import make_tree
    from bayesfair.stats import diagnostics_table

    idata = make_tree({"posterior": xr.Dataset({"mu": ("x", np.zeros(3))})})
    kept = stored_summary.stored_labeled_summary(
        idata, range(2), threshold=0.5, score_clip=0.01, n_bins=None
    )
    assert kept is None
    table = diagnostics_table(idata.posterior.to_dataset())
    assert table.empty and list(table.columns) == ["r_hat", "ess_bulk", "divergences"]
