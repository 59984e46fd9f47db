"""The calibration check in words: where a group departs, and the warning's sentence.

**Where** (column ``where``, :func:`departure_phrase`). The group's labeled summary
cells binned on score, up to three bins per side of at least 20 examples each
(:func:`~bayesfair.posterior.score_bins.entry_bins`); in each bin the observed positive
share against the mean probability of the shared map ``θ̂₁`` (the map of the others,
without the group's own shifts; at the step at which the group was last tested,
:mod:`bayesfair.posterior.calibration_test`) over the bin's examples; the bin with the
largest standardised departure ``|O − E| / √V`` is described in words.

*Two groups.* The step-down flags at most one group of two, and which of the two carries
the flag says nothing about which one is off: the flagged group's ``where`` opens with
:data:`PAIR_OPENING` (:func:`pair_phrase`), the other's is the second of
:data:`ALONE_PHRASE`, and the warning (:func:`misfit_message`) names both groups and
says that their calibrations differ from each other, not which one is off.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bayesfair.models.catalogue import MODEL_SPECS
from bayesfair.posterior.score_bins import entry_bins

__all__ = [
    "ALONE_PHRASE",
    "PAIR_OPENING",
    "SEE_WHERE",
    "departure_phrase",
    "misfit_message",
    "pair_phrase",
]

#: The ``where`` phrase: at most this many score bins per side, each with at least
#: ``_WHERE_MIN_PER_BIN`` labeled examples (a side with fewer has one bin).
_WHERE_BINS_PER_SIDE = 3
_WHERE_MIN_PER_BIN = 20

#: The ``where`` phrase's opening for the flagged group when only two groups have labels.
PAIR_OPENING = (
    "its calibration and the other group's differ (with two groups the data cannot say "
    "which one's scores mean something else); most "
)

#: The ``where`` of the one group left when all the others were flagged (it is not
#: tested against their maps): with more than two groups, and with two.
ALONE_PHRASE = (
    "not tested once the other groups were flagged: no group is left to share a map with",
    "not tested once the other group was flagged: with two groups the data cannot say "
    "which one's scores mean something else",
)

#: Where a warning's reader sees more of the calibration check, from Python or the
#: command line.
SEE_WHERE = (
    "Where on the score scale: the report's calibration check (bayesfair assess), or "
    "res.calibration_check() in Python."
)


def departure_phrase(labeled, g: int, a: float, b: float, c: float) -> str:
    """Where on the score scale group ``g``'s labels depart most from the map ``(a, b, c)``.

    The group's labeled summary cells are binned on score, per side
    (:func:`~bayesfair.posterior.score_bins.entry_bins`: up to three bins per side of at
    least 20 examples each); in each bin the observed positive share ``O/n`` is set
    against the map's mean probability over the bin's examples ``E/n`` (each cell at its
    mean features), and the bin with the largest standardised departure
    ``|O − E| / √V``, ``V`` the sum of ``p(1 − p)``, is described: "at scores near 0.80
    (83 labels): 70% positive, against 88% for the shared map". "" for a group without
    labels.

    Parameters
    ----------
    labeled : ScoreSummary
        The labeled examples' summary.
    g : int
        The group's code.
    a, b, c : float
        The map the group's labels are set against.

    Returns
    -------
    str
    """
    sel = labeled.group == g
    count = np.asarray(labeled.count[sel], dtype=float)
    if count.sum() == 0:
        return ""
    pos = np.asarray(labeled.positives[sel], dtype=float)
    eta = c + a * labeled.mean_log_s[sel] - b * labeled.mean_log_1ms[sel]
    p = 0.5 * (1.0 + np.tanh(0.5 * eta))
    bins, n_bins = entry_bins(labeled.side[sel], count, _WHERE_BINS_PER_SIDE, _WHERE_MIN_PER_BIN)
    n = np.bincount(bins, count, n_bins)
    observed = np.bincount(bins, pos, n_bins)
    expected = np.bincount(bins, p * count, n_bins)
    spread = np.bincount(bins, p * (1.0 - p) * count, n_bins)
    score = np.bincount(bins, labeled.sum_score[sel], n_bins)
    z = np.abs(observed - expected) / np.sqrt(np.maximum(spread, 1e-12))
    j = int(np.argmax(np.where(n > 0, z, -1.0)))
    return (
        f"at scores near {score[j] / n[j]:.2f} ({round(n[j])} labels): "
        f"{observed[j] / n[j]:.0%} positive, against {expected[j] / n[j]:.0%} for the shared map"
    )


def pair_phrase(where: str) -> str:
    """The ``where`` of the flagged group of two whose calibrations differ.

    :data:`PAIR_OPENING`, then the group's :func:`departure_phrase` with its map called
    the map shared by the two.

    Parameters
    ----------
    where : str
        The group's :func:`departure_phrase`.

    Returns
    -------
    str
    """
    return PAIR_OPENING + where.replace("for the shared map", "for a map shared by the two")


def misfit_message(model: str, check: pd.DataFrame, alpha: float = 0.05) -> str:
    """The sentence a misfit of the calibration check warns with ("" when none).

    Parameters
    ----------
    model : str
        The fitted model: ``"rbc"`` gets rbc's advice, any other the advice to
        use ``rbc`` or ``bb``.
    check : pandas.DataFrame
        The check's table, with ``group`` and ``verdict`` columns
        (:func:`~bayesfair.posterior.checks.result_calibration_verdicts`; the verdicts of
        :func:`~bayesfair.posterior.calibration_test.shift_lr_test`).
    alpha : float, default 0.05
        The check's level, as written in the sentence.

    Returns
    -------
    str
        The sentence naming the groups whose verdict is "misfit"; "" when none is. When
        only two groups have labels it names both and says that their calibrations
        differ from each other, not which one is off (module docstring).
    """
    bad = check.loc[check["verdict"] == "misfit", "group"].tolist()
    tested = check.loc[check["p_value"].notna(), "group"].tolist()
    pair = len(tested) == 2 and bool((check["p_adjusted"] < alpha).any())
    if not bad and not pair:
        return ""
    advice = (
        "RBC follows their own labeled examples where the map is off (wider intervals); "
        "label more of them to narrow them"
        if MODEL_SPECS[model].absorbs_misfit
        else "This model's intervals for them may be confidently wrong: use the default "
        "model, rbc, or bb"
    )
    if pair:  # a pair that disagrees: a culprit only where its own map misfits
        own = (
            f"; the labels of {', '.join(map(str, bad))} fit no beta map of their own either"
            if bad
            else ""
        )
        found = (
            f"Groups {tested[0]} and {tested[1]} are calibrated differently (the labels "
            f"reject one map for both, p < {alpha}); with two groups the data cannot say "
            f"which one's scores mean something else{own}."
        )
    else:
        found = (
            f"The labels of {', '.join(map(str, bad))} do not fit the calibration map the "
            f"groups share (step-down test, p < {alpha})."
        )
    return f"{found} {advice}. {SEE_WHERE}"
