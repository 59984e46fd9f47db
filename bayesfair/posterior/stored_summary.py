"""The labeled summary a result keeps: read back from its draws' ``constant_data``.

:func:`bayesfair.fit` stores the labeled examples' summary with the draws (the
``labeled_cell`` dimension); :func:`stored_labeled_summary` reads it back as a
:class:`~bayesfair.data.summary.ScoreSummary`, and :func:`labeled_cells` does so for a
result, with its settings. The calibration check
(:mod:`bayesfair.posterior.checks`), the calibration view and the reliability figure
read the labels this way.
"""

from __future__ import annotations

from bayesfair._internal.tree import get_group, has_group
from bayesfair._internal.validation import takes
from bayesfair.data.summary import (
    DEFAULT_BINS,
    LABEL_SUMS,
    ROW_SUMS,
    ScoreSummary,
    summarize_arrays,
)

__all__ = ["labeled_cells", "stored_labeled_summary"]


def stored_labeled_summary(
    idata, levels, *, threshold: float, score_clip: float, n_bins: int | None
):
    """The labeled summary a result keeps in ``constant_data`` (:func:`bayesfair.fit` stores it).

    A result saved by an older bayesfair kept the labeled rows instead
    (``labeled_score``, ``labeled_label``, ``labeled_group``): they are summarised
    here. None when the result holds neither.

    Parameters
    ----------
    idata : xarray.DataTree
        The result's draws; read from its ``constant_data`` group.
    levels : sequence
        The group labels the stored group codes index.
    threshold, score_clip : float
        The fit's decision threshold and score clipping.
    n_bins : int or None
        Bins per group of the stored summary; None: ``DEFAULT_BINS``.

    Returns
    -------
    ScoreSummary or None
    """
    if not has_group(idata, "constant_data"):  # a hand-built result: nothing kept
        return None
    const = get_group(idata, "constant_data")
    if "labeled_count" in const:
        cols = {k: const[f"labeled_{k}"].values for k in (*ROW_SUMS, *LABEL_SUMS, "side", "bin")}
        return ScoreSummary(
            levels=tuple(levels),
            group=const["labeled_group"].values,
            threshold=threshold,
            score_clip=score_clip,
            n_bins=int(n_bins or DEFAULT_BINS),
            **cols,
        )
    if "labeled_score" in const:
        return summarize_arrays(
            const["labeled_score"].values,
            const["labeled_group"].values,
            levels,
            labels=const["labeled_label"].values,
            threshold=threshold,
            score_clip=score_clip,
            n_bins=int(n_bins or DEFAULT_BINS),
        )
    return None


@takes("FairnessPosterior")
def labeled_cells(result):
    """The labeled examples' summary kept with a result (a
    :class:`~bayesfair.data.summary.ScoreSummary` whose levels are the result's group
    positions), or None if the result has none.

    Parameters
    ----------
    result : FairnessPosterior
    """
    return stored_labeled_summary(
        result.idata,
        range(len(result.groups)),
        threshold=float(result.settings.get("threshold", 0.5)),
        score_clip=float(result.settings.get("score_clip") or 0.01),
        n_bins=result.settings.get("n_bins"),
    )
