"""The catalogue of the package's models: one :class:`ModelSpec` per model.

What the rest of the package says about a model (its one-line description, its name
in a report, the words a finding uses for it, whether it reads the unlabeled scores
and has a calibration map, and the order in which a verdict rests on the fitted
models) is read here, so that a table of descriptions or a loop over model names is
written once. How a model is fitted is named here too: a model of the labeled-count
family (:mod:`bayesfair.models.labeled`) is its ``fit_counts`` and ``prior_rates``,
which :func:`bayesfair.fit` calls; the calibration family (``has_map``) is fitted by
:mod:`bayesfair.posterior.fitting`'s map fit, with the misfit states where
``absorbs_misfit``. A new labeled-count model is one ``ModelSpec`` here and its two
functions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bayesfair.models.beta_binomial import BetaPrior, KappaPrior
from bayesfair.models.calibration import CalibrationPriors
from bayesfair.models.labeled import bb_prior_rates, fit_bb, fit_hbb, hbb_prior_rates

__all__ = [
    "DEFAULT_MODEL",
    "LABELED_MODEL",
    "MODEL_SPECS",
    "ModelSpec",
    "models_with_map",
    "verdict_order",
]


@dataclass(frozen=True)
class ModelSpec:
    """What the package knows about one model, and how it is fitted.

    Parameters
    ----------
    name : str
        The name ``fit`` takes (``"rbc"``).
    description : str
        One line, as :data:`bayesfair.MODELS` lists it.
    display : str
        Its name in tables and figures (``"RBC"``).
    words : str
        What a finding says a verdict rests on ("RBC, the calibration model with the
        unlabeled scores").
    uses_unlabeled : bool
        Whether the unlabeled scores enter the model.
    has_map : bool
        Whether it has calibration maps (a calibration check, calibration within
        groups from its maps, label suggestions); its draws are then each draw's
        confusion counts of one population.
    absorbs_misfit : bool
        Whether it follows the labels where they put a stratum off its map (the
        strata's shifts and off-map states): a calibration check's flag does not set
        its verdicts aside.
    view_words : str
        What a group or family verdict says it rests on ("the robust calibration model
        (RBC)").
    color : str
        Its colour in every figure.
    prior_type : type, optional
        The class of its ``prior`` argument; ``prior_type()`` is its default prior, and
        its ``to_dict()`` the record a fit keeps.
    fit_counts : callable, optional
        A labeled-count model's draws from the labeled counts
        (:mod:`bayesfair.models.labeled` says its signature); None for the calibration
        family.
    prior_rates : callable, optional
        A labeled-count model's prior draws of the rates (the prior predictive that
        prior sensitivity and the prior check read).
    exact_sampler : bool
        Whether it has an exact sampler (``sampler="exact"``, the default for it).
    target_accept : float
        NUTS's target acceptance rate unless ``fit`` is told another.
    """

    name: str
    description: str
    display: str
    words: str
    uses_unlabeled: bool
    has_map: bool
    absorbs_misfit: bool = False
    view_words: str = ""
    color: str = "#4d4d4d"
    prior_type: type | None = None
    fit_counts: Callable | None = None
    prior_rates: Callable | None = None
    exact_sampler: bool = False
    target_accept: float = 0.99


#: The models, in the order a verdict rests on them when several are fitted: the
#: robust calibration model first, the beta-binomial of the labels last.
MODEL_SPECS: dict[str, ModelSpec] = {
    spec.name: spec
    for spec in (
        ModelSpec(
            "rbc",
            "beta calibration that falls back on the labels where the map is wrong (default)",
            "RBC",
            "RBC, the calibration model with the unlabeled scores",
            uses_unlabeled=True,
            has_map=True,
            absorbs_misfit=True,
            view_words="the robust calibration model (RBC)",
            color="#ff7f0e",
            prior_type=CalibrationPriors,
        ),
        ModelSpec(
            "bc",
            "hierarchical Bayesian beta calibration with unlabeled data (Ji et al. §2.3-2.4)",
            "BC",
            "BC, Ji et al.'s calibration model with the unlabeled scores",
            uses_unlabeled=True,
            has_map=True,
            view_words="the calibration model (BC)",
            color="#d62728",
            prior_type=CalibrationPriors,
        ),
        ModelSpec(
            "hbb",
            "hierarchical beta-binomial: group rates share a Beta population (mean by size)",
            "HBB",
            "HBB, the hierarchical beta-binomial model of the labeled examples",
            uses_unlabeled=False,
            has_map=False,
            view_words="the hierarchical beta-binomial (HBB, labeled examples only)",
            color="#2ca02c",
            prior_type=KappaPrior,
            fit_counts=fit_hbb,
            prior_rates=hbb_prior_rates,
        ),
        ModelSpec(
            "bb",
            "beta-binomial: one Dirichlet over each group's four cells, labeled data only",
            "BB",
            "BB, the beta-binomial model of the labeled examples",
            uses_unlabeled=False,
            has_map=False,
            view_words="the beta-binomial (BB, labeled examples only)",
            color="#1f77b4",
            prior_type=BetaPrior,
            fit_counts=fit_bb,
            prior_rates=bb_prior_rates,
            exact_sampler=True,
            target_accept=0.9,
        ),
    )
}


#: The model ``fit`` uses unless told otherwise.
DEFAULT_MODEL = "rbc"
#: The labeled rows' own model, shown beside a calibration model (the command line).
LABELED_MODEL = "bb"


def verdict_order() -> tuple[str, ...]:
    """The model names in the order a verdict rests on them (:data:`MODEL_SPECS`' order).

    Returns
    -------
    tuple of str
    """
    return tuple(MODEL_SPECS)


def models_with_map() -> tuple[str, ...]:
    """The names of the models with calibration maps, in :func:`verdict_order`.

    Returns
    -------
    tuple of str
    """
    return tuple(name for name, spec in MODEL_SPECS.items() if spec.has_map)
