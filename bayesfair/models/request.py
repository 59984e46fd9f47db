"""What a fit asks of a model, and what a model gives back: one object each way.

:func:`bayesfair.fit` checks the user's arguments and turns them into one
:class:`FitRequest`; every model's fit (its catalogue entry's
:meth:`~bayesfair.models.catalogue.ModelSpec.fit`) reads what it needs from it and
returns :class:`FitDraws`. The values travel together, so they are one object, not a
list of positional arguments that each model would have to take in the same order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

#: Draws of the rates' prior predictive a fit keeps (prior sensitivity, the prior check).
PRIOR_DRAWS = 2000


@dataclass(frozen=True)
class FitRequest:
    """One fit's checked settings, as every model reads them.

    Parameters
    ----------
    metrics : list of str
        The rates to draw.
    prior : object
        The model's typed prior (its ``ModelSpec.prior_type``).
    sampler : {"exact", "nuts"}
        How the draws are made.
    rng, prior_rng : numpy.random.Generator
        The draws' own randomness after sampling (unlabeled labels, states, shifts) and
        the prior predictive's.
    sampling : dict
        The sampler's settings (:func:`~bayesfair.models.sampling.sample_model`'s
        ``draws``, ``tune``, ``chains``, ``random_seed``, ``progressbar``,
        ``target_accept``, ``backend``, ``cores``).
    notes : list of str
        The result's notes; a model appends what its draws rest on.
    variant, score_clip, estimand, n_bins, discrepancy
        The calibration family's options (:func:`bayesfair.fit` documents them).
    """

    metrics: list
    prior: object
    sampler: str
    rng: np.random.Generator
    prior_rng: np.random.Generator
    sampling: dict
    notes: list = field(default_factory=list)
    variant: str = "beta"
    score_clip: float = 0.01
    estimand: str = "expected"
    n_bins: int | None = None
    discrepancy: object = None


class FitDraws(NamedTuple):
    """A model's draws: the tree of its posterior, and each rate's draws.

    Attributes
    ----------
    idata : xarray.DataTree
        The sampled draws (``posterior``, ``sample_stats`` when NUTS ran).
    rates : dict of str to ndarray
        Each metric's draws, ``(chain, draw, group)``.
    prior_rates : dict of str to ndarray
        Each metric's prior predictive draws, ``(draw, group)``.
    """

    idata: object
    rates: dict
    prior_rates: dict
