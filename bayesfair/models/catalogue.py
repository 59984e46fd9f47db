"""The catalogue of the package's models: one :class:`ModelSpec` per model.

Everything the package knows about a model is on its entry: how it is fitted (for
either family), its prior's class, its prior predictive and its log prior at every draw
(prior sensitivity), its name, words and colour in the reports, what its result says
for a group without labels, whether its intervals stay valid after labels chosen by
the scores (active selection), and its seed slot in the paper experiments. The rest of
the package (``fit``, the reports, ``compare``, ``experiments``, sensitivity) reads the
entry and names no model.

A new model is one entry here, its builder (a module of :mod:`bayesfair.models`) and
its test: a labeled-count model gives ``fit_counts``, ``prior_rates`` and ``log_prior``
(:mod:`bayesfair.models.labeled` says their signatures); a model with calibration maps
gives ``fit_map`` (:func:`bayesfair.models.calibration_fit.fit_calibration`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bayesfair.models.beta_binomial import BetaPrior, KappaPrior
from bayesfair.models.calibration import CalibrationPriors
from bayesfair.models.calibration_fit import calibration_log_prior, fit_calibration
from bayesfair.models.labeled import (
    bb_log_prior,
    bb_prior_rates,
    fit_bb,
    fit_hbb,
    fit_labeled,
    hbb_log_prior,
    hbb_prior_rates,
)
from bayesfair.models.request import FitDraws, FitRequest


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
    fit_map : callable, optional
        A calibration model's fit, ``fit_map(data, request) -> FitDraws``; None for the
        labeled-count family.
    log_prior : callable, optional
        The prior's log density at every draw, ``log_prior(idata, settings, metric)``
        (``(chain, draw)`` or None): the power-scaled prior of prior sensitivity.
    exact_sampler : bool
        Whether it has an exact sampler (``sampler="exact"``, the default for it).
    target_accept : float
        NUTS's target acceptance rate unless ``fit`` is told another.
    no_labels : str
        What a group without a labeled example gets, completing "their rates ...".
    valid_after_selection : bool
        Whether its intervals stay valid when the labeled rows were chosen by their
        scores (the likelihood conditions on the scores, so the selection is
        ignorable); False for a model of the labeled counts alone.
    seed_slot : int
        Its child of a run's seed sequence in the paper experiments (slot 0 is the
        labeled split): fixed, so that a new model never changes an old result.
    population_variance : bool
        Whether it has a population of group rates whose variance the report shows
        beside the groups' own (``hbb``).
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
    fit_map: Callable | None = None
    log_prior: Callable | None = None
    exact_sampler: bool = False
    target_accept: float = 0.99
    no_labels: str = "are the prior"
    valid_after_selection: bool = False
    seed_slot: int = 0
    population_variance: bool = False

    def fit(self, data, request: FitRequest) -> FitDraws:
        """The model's draws on ``data`` (:func:`bayesfair.fit` checked ``request``).

        Parameters
        ----------
        data : AssessmentData
        request : FitRequest

        Returns
        -------
        FitDraws
        """
        if self.fit_map is not None:
            return self.fit_map(data, request)
        return fit_labeled(data, self, request)


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
            fit_map=fit_calibration,
            log_prior=calibration_log_prior,
            no_labels="borrow strength through the calibration hierarchy",
            valid_after_selection=True,
            seed_slot=4,
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
            fit_map=fit_calibration,
            log_prior=calibration_log_prior,
            no_labels="borrow strength through the calibration hierarchy",
            valid_after_selection=True,
            seed_slot=3,
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
            log_prior=hbb_log_prior,
            no_labels="are pooled toward the population",
            seed_slot=2,
            population_variance=True,
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
            log_prior=bb_log_prior,
            exact_sampler=True,
            target_accept=0.9,
            no_labels="are the prior",
            seed_slot=1,
        ),
    )
}


#: The model ``fit`` uses unless told otherwise.
DEFAULT_MODEL = "rbc"
#: The labeled rows' own model, shown beside a calibration model (the command line).
LABELED_MODEL = "bb"
#: Ji, Smyth & Steyvers's (2020) calibration model, the paper experiments' Bayesian one.
PAPER_MODEL = "bc"


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


def named_models_with_map(conjunction: str = "or") -> str:
    """The models with calibration maps as a message names them: ``"'rbc' or 'bc'"``.

    Parameters
    ----------
    conjunction : str, default "or"
        The word before the last name.

    Returns
    -------
    str
    """
    names = [repr(name) for name in models_with_map()]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} {conjunction} {names[-1]}"
