"""One side of an assessment: its examples as rows, or as a summary of them.

:class:`~bayesfair.AssessmentData` holds one :class:`ExampleSet` per side, the
labeled examples (score, label, group) and the unlabeled ones (score, group),
each either :class:`ExampleRows` (arrays in memory) or :class:`ExampleSummary`
(a :class:`~bayesfair.data.summary.ScoreSummary`, built where the rows live by
:func:`bayesfair.summarize`). Both answer the same questions: how many examples
each group has, the side's summary on a grid (the form every model reads), the
confusion counts of a labeled side, a table of the scores. What only rows can
give (the scores themselves, PPI++'s cross-fitted predictions, suggestions of
rows to label) is asked for through :meth:`ExampleSet.rows`, which a summary
refuses with a message naming what it keeps instead.

What the user passed for a side is checked in :mod:`bayesfair.data.sides`, which
builds the side's example set once the data's group levels are known.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bayesfair.data._inputs import _check_ids, _readonly, count_confusion
from bayesfair.data.summary import DEFAULT_BINS, ScoreSummary, summarize_arrays
from bayesfair.exceptions import InvalidParameterError

#: Columns of :meth:`ExampleSet.score_table`.
SCORE_TABLE_COLUMNS = ["n", "n_predicted_positive", "mean_score", "min", "median", "max"]


class ExampleSet:
    """The examples of one side of an assessment, coded to the data's groups.

    Subclasses: :class:`ExampleRows` and :class:`ExampleSummary`.

    Parameters
    ----------
    side : {"labeled", "unlabeled"}
        Which side, for messages.
    levels : list
        The data's group levels, which the group codes index.
    threshold : float
        ``ŷ = 1[score ≥ threshold]``.
    """

    is_summary = False
    #: Each row's period code (:func:`~bayesfair.data.periods.attach_periods`), or None
    #: without periods.
    period_codes = None

    def __init__(self, side: str, levels: list, threshold: float):
        self.side = side
        self.levels = list(levels)
        self.threshold = float(threshold)
        self._reductions: dict = {}

    @property
    def n_total(self) -> int:
        """The number of examples."""
        raise NotImplementedError

    def group_counts(self) -> np.ndarray:
        """Examples per group, shape ``(n_groups,)``, int64."""
        raise NotImplementedError

    def confusion_counts(self) -> np.ndarray:
        """Confusion counts per group, shape ``(n_groups, 4)`` (tp, fp, tn, fn), int64."""
        raise NotImplementedError

    def score_sums(self) -> np.ndarray:
        """The sum of the raw scores (as given, not clipped) per group, shape ``(n_groups,)``.

        Additive over rows, like every sum of a summary (``ScoreSummary.sum_score``):
        the sums of two sides add to the sum over their rows together.
        """
        raise NotImplementedError

    def rows(self, what: str) -> ExampleRows:
        """The rows, for ``what`` (a name for the message when they are a summary)."""
        raise NotImplementedError

    def _summarize(self, score_clip: float, n_bins: int) -> ScoreSummary:
        raise NotImplementedError

    def summary(self, score_clip: float = 0.01, n_bins: int | None = None) -> ScoreSummary:
        """The examples as a summary on the grid ``(score_clip, n_bins)``, coded to the levels.

        Computed once per grid and kept: the stored arrays are read-only, so it
        cannot go stale.

        Parameters
        ----------
        score_clip : float, default 0.01
            ε of the clipping of scores to ``[ε, 1 − ε]``.
        n_bins : int, optional
            Bins of the grid in logit(s) per group and side (default
            :data:`~bayesfair.data.summary.DEFAULT_BINS`).
        """
        key = (float(score_clip), DEFAULT_BINS if n_bins is None else int(n_bins))
        if key not in self._reductions:
            self._reductions[key] = self._summarize(*key)
        return self._reductions[key]

    def clear_cache(self) -> None:
        """Forget the summaries computed so far (:meth:`summary` computes them again)."""
        self._reductions.clear()

    def score_table(self) -> pd.DataFrame:
        """Per group: ``n, n_predicted_positive, mean_score, min, median, max``.

        A group without examples has ``n = 0`` and NaN elsewhere; a summary keeps
        no order statistics, so its ``min``, ``median`` and ``max`` are NaN.
        """
        raise NotImplementedError

    def _index(self) -> pd.Index:
        return pd.Index(self.levels, name="group", dtype=object)


class ExampleRows(ExampleSet):
    """A side's examples as rows: scores, group codes, and the labels of a labeled side.

    Parameters
    ----------
    side : {"labeled", "unlabeled"}
    levels : list
        The data's group levels; ``codes`` index them.
    threshold : float
        ``ŷ = 1[score ≥ threshold]``.
    scores : ndarray of float
        Checked scores in [0, 1].
    codes : ndarray of int
        Each row's group code.
    labels : ndarray of int8, optional
        0/1 labels (a labeled side).
    ids : ndarray, optional
        Unique ids of the rows (:func:`bayesfair.suggest_labels` returns them).
    """

    def __init__(self, side, levels, threshold, scores, codes, labels=None, *, ids=None):
        super().__init__(side, levels, threshold)
        # read-only views: the caller's arrays keep their own flags
        self.scores = _readonly(np.asarray(scores, dtype=float).view())
        self.codes = _readonly(np.asarray(codes, dtype=np.intp).view())
        self.labels = None if labels is None else _readonly(np.asarray(labels).view())
        self.ids = None if ids is None else _check_ids(ids, self.scores.size)

    @property
    def n_total(self) -> int:
        return int(self.scores.size)

    def group_counts(self) -> np.ndarray:
        return np.bincount(self.codes, minlength=len(self.levels)).astype(np.int64)

    def confusion_counts(self) -> np.ndarray:
        predictions = self.scores >= self.threshold
        return count_confusion(predictions, self.labels, self.codes, len(self.levels))

    def score_sums(self) -> np.ndarray:
        return np.bincount(self.codes, weights=self.scores, minlength=len(self.levels))

    def rows(self, what: str) -> ExampleRows:
        return self

    def _summarize(self, score_clip, n_bins):
        return summarize_arrays(
            self.scores,
            self.codes,
            self.levels,
            labels=self.labels,
            threshold=self.threshold,
            score_clip=score_clip,
            n_bins=n_bins,
        )

    def score_table(self) -> pd.DataFrame:
        table = []
        for k in range(len(self.levels)):
            s = self.scores[self.codes == k]
            if not s.size:
                table.append((0, 0, np.nan, np.nan, np.nan, np.nan))
                continue
            positive = int((s >= self.threshold).sum())
            table.append((s.size, positive, s.mean(), s.min(), np.median(s), s.max()))
        return pd.DataFrame(table, index=self._index(), columns=SCORE_TABLE_COLUMNS)


class ExampleSummary(ExampleSet):
    """A side's examples as a :class:`~bayesfair.data.summary.ScoreSummary`.

    Parameters
    ----------
    side : {"labeled", "unlabeled"}
    levels : list
        The data's group levels (a superset of the summary's).
    threshold : float
        The data's threshold (the summary's, checked by :func:`check_summary`).
    summary : ScoreSummary
        Checked by :func:`~bayesfair.data.sides.check_summary`; kept re-coded to ``levels``.
    """

    is_summary = True

    def __init__(self, side, levels, threshold, summary):
        super().__init__(side, levels, threshold)
        self.held = summary.with_levels(self.levels)

    @property
    def n_total(self) -> int:
        return int(self.held.n_total)

    def group_counts(self) -> np.ndarray:
        return self.held.totals().sum(axis=1).round().astype(np.int64)

    def confusion_counts(self) -> np.ndarray:
        return self.held.confusion_counts().round().astype(np.int64)

    def score_sums(self) -> np.ndarray:
        held = self.held
        return np.bincount(held.group, weights=held.sum_score, minlength=len(self.levels))

    def rows(self, what: str) -> ExampleRows:
        if self.side == "labeled":
            raise InvalidParameterError(
                f"'{what}' needs the labeled examples as rows; this data set holds its "
                f"{self.n_total} labeled examples as a summary "
                "(AssessmentData.from_summaries), which keeps per-group histograms and "
                "label counts. The models, the counts and the frequentist intervals work "
                "from it; PPI++ and row-level plots need the rows."
            )
        raise InvalidParameterError(
            f"'{what}' is not available: this data set holds its {self.n_total} unlabeled "
            "examples as a summary (bayesfair.summarize_unlabeled), which keeps per-group "
            "histograms, not rows."
        )

    def _summarize(self, score_clip, n_bins):
        held = self.held
        if held.score_clip != score_clip or held.n_bins % n_bins:
            raise InvalidParameterError(
                f"The {self.side} summary was built with score_clip={held.score_clip} and "
                f"n_bins={held.n_bins}; this needs score_clip={score_clip} and "
                f"n_bins={n_bins} (a divisor of the summary's). Summarise again with those "
                "settings."
            )
        return held.coarsen(n_bins)

    def score_table(self) -> pd.DataFrame:
        held, k = self.held, len(self.levels)
        n = np.bincount(held.group, weights=held.count, minlength=k)
        positive = np.bincount(held.group, weights=held.count * held.side, minlength=k)
        total = self.score_sums()
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(n > 0, total / n, np.nan)
        nan = np.full(k, np.nan)
        columns = [n.astype(np.int64), positive.astype(np.int64), mean, nan, nan, nan]
        return pd.DataFrame(
            dict(zip(SCORE_TABLE_COLUMNS, columns, strict=True)), index=self._index()
        )
