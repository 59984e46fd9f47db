"""The NumPy engine: arrays or a pandas frame in memory."""

from __future__ import annotations

import numpy as np

from bayesfair._internal.names import plain_scalar
from bayesfair.data._inputs import _as_groups, _as_scores
from bayesfair.data.engines._common import (
    LabelColumn,
    SummaryGrid,
    _aggregate,
    _positives,
)
from bayesfair.data.summary import ScoreSummary, bin_rows
from bayesfair.exceptions import InvalidParameterError


def numpy_engine(
    source, score, columns, grid: SummaryGrid, target: LabelColumn | None = None
) -> ScoreSummary:
    """Summarise arrays (a pair, or a triple with labels) or a pandas frame in memory.

    Parameters
    ----------
    source : tuple of arrays or pandas.DataFrame
        ``(scores, groups)``, ``(scores, groups, labels)``, or a frame.
    score : str
        The score column of a frame.
    columns : list of str
        The group column(s) of a frame.
    grid : SummaryGrid
        The summary's threshold and logit grid.
    target : LabelColumn, optional
        The label column of labeled rows (a triple's third array is its labels).
    """
    import pandas as pd

    labels = None
    if isinstance(source, tuple):
        if len(source) not in (2, 3):
            raise InvalidParameterError(
                "Arrays are a pair (scores, groups) or a triple (scores, groups, labels). "
                f"Got a tuple of {len(source)}."
            )
        scores, groups = source[:2]
        labels = source[2] if len(source) == 3 else None
        attributes = None
    elif isinstance(source, pd.DataFrame):
        extra = [target.name] if target else []
        missing = [c for c in [score, *columns, *extra] if c not in source.columns]
        if missing:
            raise InvalidParameterError(
                f"The frame has no column(s) {missing}; it has {list(source.columns)}."
            )
        scores, groups = source[score], source[columns]
        labels = source[target.name] if target else None
        attributes = tuple(columns) if len(columns) > 1 else None
    else:
        raise InvalidParameterError(
            "The numpy engine takes a pandas DataFrame or a pair (scores, groups) of arrays. "
            f"Got {type(source).__name__}."
        )
    s = _as_scores(scores, "scores")
    group_labels, _ = _as_groups(groups, "groups")
    y = None
    if target is not None:
        y = _positives(labels, target.pos_label)
        if y.size != s.size:
            raise InvalidParameterError(
                f"The scores ({s.size}) and labels ({y.size}) differ in length."
            )
    if len(group_labels) != s.size:
        raise InvalidParameterError(
            f"The scores ({s.size}) and groups ({len(group_labels)}) differ in length."
        )
    codes, levels = pd.factorize(group_labels, sort=False)
    cols = bin_rows(
        s,
        codes,
        len(levels),
        threshold=grid.threshold,
        score_clip=grid.score_clip,
        n_bins=grid.n_bins,
        labels=y,
    )
    cols["group"] = np.asarray([plain_scalar(v) for v in levels], dtype=object)[cols.pop("code")]
    return _aggregate(cols, grid, attributes)
