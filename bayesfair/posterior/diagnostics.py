"""The sampler's diagnostics of a result: R-hat, bulk ESS and divergences, and their warning.

:func:`result_diagnostics` tabulates them per sampled variable
(:func:`bayesfair.stats.diagnostics_table`), :func:`check_result_diagnostics` warns
(``SamplingWarning``) with advice when the chains disagree or transitions diverge.
"""

from __future__ import annotations

import warnings

import pandas as pd

from bayesfair._internal.tree import get_group, has_group
from bayesfair._internal.validation import takes
from bayesfair.exceptions import SamplingWarning
from bayesfair.stats import diagnostics_table

__all__ = ["POST_HOC", "check_result_diagnostics", "result_diagnostics"]

#: rbc's variables drawn after sampling (not by the sampler): left out of the diagnostics.
POST_HOC = ("misfit", "p_misfit", "p_misfit_shared", "shift", "shift_spread", "cells")
#: The calibration models' non-centred coordinates ``z = (θ − μ) / σ``: one-to-one with
#: the maps ``a, b, c`` given the hyperparameters, which are diagnosed; left out too.
COORDINATES = ("z_a", "z_b", "z_c")


@takes("FairnessPosterior")
def result_diagnostics(result) -> pd.DataFrame:
    """R-hat (max), bulk ESS (min) per sampled variable and the number of divergences.

    rbc's ``misfit``, ``p_misfit``, ``shift`` and the other variables of :data:`POST_HOC`
    are left out: they are drawn after sampling, from their conditional given each draw,
    so their mixing is the sampled parameters' (and with K groups they are 10K + 3 more).
    So are the calibration models' coordinates ``z_a, z_b, z_c`` (:data:`COORDINATES`),
    the maps ``a, b, c`` and the hyperparameters in other units: with K groups they are
    3K columns more, about half the cost of a 60-group fit's diagnostics.

    Parameters
    ----------
    result : FairnessPosterior
    """
    idata = result.idata
    stats = get_group(idata, "sample_stats") if has_group(idata, "sample_stats") else None
    post = get_group(idata, "posterior").drop_vars([*POST_HOC, *COORDINATES], errors="ignore")
    return diagnostics_table(post, stats)


@takes("FairnessPosterior")
def check_result_diagnostics(result, rhat_max: float = 1.01, stacklevel: int = 3) -> list[str]:
    """Warn (``SamplingWarning``) with advice when R-hat > ``rhat_max`` or divergences > 0.

    Parameters
    ----------
    result : FairnessPosterior
    rhat_max : float, default 1.01
    stacklevel : int, default 3
        Of the warnings (3: the caller of this function, past its argument check).

    Returns
    -------
    list of str
        The problems found (empty: none, or an exact sampler).
    """
    if result.settings.get("sampler") == "exact":
        return []
    diag = result_diagnostics(result)
    problems = []
    bad = diag.index[diag["r_hat"] > rhat_max].tolist()
    if bad:
        problems.append(
            f"R-hat above {rhat_max} for {bad} (max {diag['r_hat'].max():.3f}): the chains "
            "disagree. Increase 'tune' and 'draws', or check the data for a group with "
            "very few labels."
        )
    n_div = int(diag["divergences"].iloc[0]) if len(diag) else 0
    if n_div > 0:
        problems.append(
            f"{n_div} divergent transition(s): the posterior may be biased. Increase "
            "'target_accept' (e.g. 0.99) or check the priors."
        )
    for p in problems:
        warnings.warn(p, SamplingWarning, stacklevel=stacklevel)
    return problems
