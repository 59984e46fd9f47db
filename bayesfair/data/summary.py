"""Every row, labeled or not, as one additive summary on a logit grid.

The models need the classifier's scores only through per-group, per-side,
per-bin sums on a fixed grid in ``u = logit(s)``:

* for every row: the bin's count and the sums of ``ln c``, ``ln(1 − c)``,
  their squares and their product (``c`` the clipped score), and of the raw
  score ``s``;
* for labeled rows, in addition: the number of positives and the sums of
  ``ln c`` and ``ln(1 − c)`` over the positives.

Those are sums, so a summary can be computed where the data live, one
partition at a time, by any engine (:mod:`bayesfair.data.sources`), and partial
summaries merge by addition (``a + b``). A fit then costs O(bins), whatever
the number of rows.

**The grid** (the one binning function, :func:`bin_rows`): ŷ = 1[s ≥ t] on the
raw score; ``c = clip(s, ε, 1 − ε)``; ``u = ln c − ln(1 − c)``; bin
``⌊(u − lo) / (hi − lo) · n_bins⌋`` clipped to ``[0, n_bins − 1]``, with
``lo = ln(ε / (1 − ε)) = −hi``. Every engine writes exactly this arithmetic.

**What the sums are for.** The beta-calibration predictor
``η = c + a ln s − b ln(1 − s)`` is linear in the two log features, so within
a bin its mean and variance follow exactly from the sums (and the labeled
term ``Σ y η`` from the positives' sums); the likelihood's only nonlinear
part, ``Σ softplus(η_i)``, is expanded to second order about the bin mean
(:mod:`bayesfair.models.calibration` states the error bound).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np

from bayesfair._internal.names import plain_scalar
from bayesfair._internal.validation import check_array
from bayesfair.exceptions import InvalidParameterError

#: Bins per group over the logit range (the grid of every summary).
DEFAULT_BINS = 1024

#: Columns that every summary holds, per (group, side, bin).
ROW_SUMS = (
    "count",
    "sum_log_s",
    "sum_log_1ms",
    "sum_score",
    "sum_sq_log_s",
    "sum_sq_log_1ms",
    "sum_log_s_log_1ms",
)
#: Columns that only a summary of labeled rows holds.
LABEL_SUMS = ("positives", "pos_sum_log_s", "pos_sum_log_1ms")

# bin_rows: rows per chunk, so that the temporaries stay O(chunk), not O(rows).
_ROW_CHUNK = 1 << 20


def bin_edges(score_clip: float) -> tuple[float, float]:
    """The grid's ends ``(lo, hi)`` in logit units: ``lo = ln(ε / (1 − ε)) = −hi``."""
    lo = float(np.log(score_clip) - np.log1p(-score_clip))
    return lo, -lo


def bin_index(scores: np.ndarray, threshold, score_clip, n_bins):
    """Side (bool), bin, ``ln c`` and ``ln(1 − c)`` of each score: the grid's arithmetic.

    Parameters
    ----------
    scores : ndarray of float, shape (n,)
        Raw scores in [0, 1].
    threshold : float
        Decision threshold: a score at or above it is on side ŷ = 1 (the raw,
        unclipped score is compared).
    score_clip : float
        ε: scores are clipped to ``[ε, 1 − ε]`` before the logs, and the grid
        spans ``[ln(ε / (1 − ε)), ln((1 − ε) / ε)]`` in logit units
        (:func:`bin_edges`).
    n_bins : int
        Bins over that logit range.

    Returns
    -------
    side : ndarray of bool, shape (n,)
        ``scores >= threshold``.
    bin : ndarray of int, shape (n,)
        Bin of ``u = ln c − ln(1 − c)``, in ``[0, n_bins − 1]``.
    log_s, log_1ms : ndarray of float, shape (n,)
        ``ln c`` and ``ln(1 − c)`` of the clipped score ``c``.
    """
    scores = check_array(scores, "scores", dtype=None)  # float32 stays float32
    lo, hi = bin_edges(score_clip)
    side = scores >= threshold
    c = np.clip(scores, score_clip, 1.0 - score_clip)
    log_s, log_1ms = np.log(c), np.log1p(-c)
    b = np.clip(np.floor((log_s - log_1ms - lo) / (hi - lo) * n_bins), 0, n_bins - 1)
    return side, b.astype(np.intp), log_s, log_1ms


def bin_rows(
    scores, codes, n_groups: int, *, threshold: float, score_clip: float, n_bins: int, labels=None
) -> dict:
    """The grid's sums per non-empty (group code, side, bin) of rows held in memory.

    Parameters
    ----------
    scores : ndarray of float, shape (n,)
        Raw scores in [0, 1] (the side is decided on the raw score).
    codes : ndarray of int, shape (n,)
        Group code of each row, in ``range(n_groups)``.
    labels : ndarray of {0, 1}, shape (n,), optional
        True labels; with them the label columns are filled.

    Returns
    -------
    dict
        ``code``, ``side``, ``bin`` and the sum columns (:data:`ROW_SUMS`, and
        :data:`LABEL_SUMS` with labels), one entry per non-empty cell, in the
        order of the dense cell index ``(code * 2 + side) * n_bins + bin``.
    """
    s = check_array(scores, "scores")
    codes = np.asarray(check_array(codes, "codes", dtype=None), dtype=np.intp)
    y = None if labels is None else check_array(labels, "labels")
    size = max(int(n_groups), 1) * 2 * n_bins
    names = ROW_SUMS + (LABEL_SUMS if y is not None else ())
    dense = {k: np.zeros(size) for k in names}
    for start in range(0, s.size, _ROW_CHUNK):
        part = slice(start, start + _ROW_CHUNK)
        side, b, ls, l1 = bin_index(s[part], threshold, score_clip, n_bins)
        cell = (codes[part] * 2 + side) * n_bins + b
        weights = {
            "count": None,
            "sum_log_s": ls,
            "sum_log_1ms": l1,
            "sum_score": s[part],
            "sum_sq_log_s": ls * ls,
            "sum_sq_log_1ms": l1 * l1,
            "sum_log_s_log_1ms": ls * l1,
        }
        if y is not None:
            yp = y[part]
            weights.update(positives=yp, pos_sum_log_s=yp * ls, pos_sum_log_1ms=yp * l1)
        for k, w in weights.items():
            dense[k] += np.bincount(cell, weights=w, minlength=size)
    keep = np.flatnonzero(dense["count"])
    out = {
        "code": keep // (2 * n_bins),
        "side": (keep // n_bins) % 2 == 1,
        "bin": keep % n_bins,
    }
    out.update({k: v[keep] for k, v in dense.items()})
    return out


def _sort_levels(levels: list) -> list:
    try:
        return sorted(levels)
    except TypeError:  # mixed types: order of appearance
        return list(levels)


@dataclass(frozen=True, eq=False)
class ScoreSummary:
    """Additive summary of scored rows: one entry per non-empty (group, side, bin).

    Build it with :func:`bayesfair.summarize` (any engine) or
    :meth:`AssessmentData.labeled_summary`; two summaries with the same
    settings merge with ``+``. Entries are sorted by group code, side and bin.

    Attributes
    ----------
    levels : tuple
        The group labels; ``group`` holds positions in it.
    group : ndarray of int
        Group code of each entry.
    side : ndarray of bool
        ŷ = 1 (score at or above the threshold).
    bin : ndarray of int
        Bin on the logit grid (:func:`bin_rows`).
    count : ndarray of float
        Rows in the entry.
    sum_log_s, sum_log_1ms, sum_score : ndarray of float
        Sums of ``ln c``, ``ln(1 − c)`` (clipped score ``c``) and of the raw score.
    sum_sq_log_s, sum_sq_log_1ms, sum_log_s_log_1ms : ndarray of float
        Sums of ``(ln c)²``, ``(ln(1 − c))²`` and ``ln c · ln(1 − c)``.
    positives, pos_sum_log_s, pos_sum_log_1ms : ndarray of float or None
        Labeled rows only: positives, and the sums of ``ln c`` and ``ln(1 − c)``
        over them. None for unlabeled rows.
    threshold, score_clip : float
    n_bins : int
        Bins per group over the logit range.
    attributes : tuple of str or None
        The group columns the labels were built from (several: ``"v1 & v2"``).
    """

    levels: tuple
    group: np.ndarray
    side: np.ndarray
    bin: np.ndarray
    count: np.ndarray
    sum_log_s: np.ndarray
    sum_log_1ms: np.ndarray
    sum_score: np.ndarray
    sum_sq_log_s: np.ndarray
    sum_sq_log_1ms: np.ndarray
    sum_log_s_log_1ms: np.ndarray
    threshold: float
    score_clip: float
    n_bins: int
    positives: np.ndarray | None = None
    pos_sum_log_s: np.ndarray | None = None
    pos_sum_log_1ms: np.ndarray | None = None
    attributes: tuple | None = field(default=None)

    def __post_init__(self):
        for name in ROW_SUMS + LABEL_SUMS + ("group", "side", "bin"):
            value = getattr(self, name)
            if value is not None:
                value = np.array(value, copy=True)
                value.flags.writeable = False
                object.__setattr__(self, name, value)
        object.__setattr__(self, "levels", tuple(self.levels))

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_columns(
        cls, columns: dict, *, threshold, score_clip, n_bins, attributes=None, levels=None
    ) -> ScoreSummary:
        """Sum entries with the same (group, side, bin) and sort them.

        ``columns`` holds ``group`` (labels), ``side``, ``bin`` and the sum
        columns, one entry per (partial) cell, as an engine returns them.
        ``levels`` orders the groups (default: sorted labels).

        Parameters
        ----------
        columns : dict of array_like
            Equal-length columns: ``group`` (group labels), ``side`` (bool,
            ŷ = 1), ``bin`` (int, on the grid of ``n_bins``), the sums of
            :data:`ROW_SUMS` and, for labeled rows, all of :data:`LABEL_SUMS`
            (the summary is unlabeled unless every one of those is present and
            not None). Entries with the same (group, side, bin) are added;
            cells whose summed ``count`` is 0 are dropped.
        threshold, score_clip : float
            The settings the cells were computed with (recorded, not applied).
        n_bins : int
            Bins per group over the logit range.
        attributes : sequence of str, optional
            The group columns the labels were built from.
        levels : sequence, optional
            The group labels in order; every label in ``columns["group"]`` must
            be among them. Default: the labels present, sorted (in order of
            appearance when they cannot be sorted).

        Returns
        -------
        ScoreSummary

        Raises
        ------
        InvalidParameterError
            When a group is not among ``levels`` or an entry lies outside the grid.
        """
        labels = [plain_scalar(v) for v in np.asarray(columns["group"], dtype=object).tolist()]
        if levels is None:
            levels = _sort_levels(list(dict.fromkeys(labels)))
        position = {g: i for i, g in enumerate(levels)}
        missing = [g for g in dict.fromkeys(labels) if g not in position]
        if missing:
            raise InvalidParameterError(f"Group(s) {missing} are not among the levels {levels}.")
        codes = np.fromiter((position[g] for g in labels), dtype=np.intp, count=len(labels))
        return cls._from_codes(
            codes,
            columns,
            levels,
            threshold=threshold,
            score_clip=score_clip,
            n_bins=n_bins,
            attributes=attributes,
        )

    @classmethod
    def _from_codes(cls, codes, columns, levels, *, threshold, score_clip, n_bins, attributes):
        n_bins = int(n_bins)
        k = max(len(levels), 1)
        cell = (np.asarray(codes, dtype=np.intp) * 2 + np.asarray(columns["side"], dtype=bool)) * (
            n_bins
        ) + np.asarray(columns["bin"], dtype=np.intp)
        labeled = all(columns.get(name) is not None for name in LABEL_SUMS)
        names = ROW_SUMS + (LABEL_SUMS if labeled else ())
        if cell.size and (cell.min() < 0 or cell.max() >= k * 2 * n_bins):
            raise InvalidParameterError("A summary entry lies outside the grid.")
        keep, inverse = np.unique(cell, return_inverse=True)
        sums = {
            name: np.bincount(
                inverse, weights=np.asarray(columns[name], dtype=float), minlength=keep.size
            )
            for name in names
        }
        nonempty = sums["count"] > 0
        keep = keep[nonempty]
        return cls(
            levels=tuple(levels),
            group=keep // (2 * n_bins),
            side=(keep // n_bins) % 2 == 1,
            bin=keep % n_bins,
            threshold=float(threshold),
            score_clip=float(score_clip),
            n_bins=n_bins,
            attributes=None if attributes is None else tuple(attributes),
            **{name: v[nonempty] for name, v in sums.items()},
        )

    # ------------------------------------------------------------------ properties
    @property
    def n_groups(self) -> int:
        """Number of groups (levels), with or without entries."""
        return len(self.levels)

    @property
    def n_entries(self) -> int:
        """Number of non-empty (group, side, bin) cells."""
        return int(self.count.size)

    @property
    def n_total(self) -> int:
        """Number of rows summarised."""
        return round(float(self.count.sum()))

    @property
    def labeled(self) -> bool:
        """Whether the rows carried labels (the label columns are filled)."""
        return self.positives is not None

    @property
    def group_levels(self) -> list:
        """The group labels, as a list (as :attr:`AssessmentData.group_levels`)."""
        return list(self.levels)

    @property
    def group_labels(self) -> np.ndarray:
        """The group label of each entry."""
        return np.asarray(self.levels, dtype=object)[self.group]

    @property
    def mean_log_s(self) -> np.ndarray:
        return self.sum_log_s / self.count

    @property
    def mean_log_1ms(self) -> np.ndarray:
        return self.sum_log_1ms / self.count

    def moments(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Within-entry variances of ``ln c`` and ``ln(1 − c)``, and their covariance.

        Population moments (divided by the count), clipped at 0 where rounding
        of the raw sums makes a variance slightly negative.
        """
        m1, m2 = self.mean_log_s, self.mean_log_1ms
        v1 = np.maximum(self.sum_sq_log_s / self.count - m1 * m1, 0.0)
        v2 = np.maximum(self.sum_sq_log_1ms / self.count - m2 * m2, 0.0)
        cv = self.sum_log_s_log_1ms / self.count - m1 * m2
        return v1, v2, np.clip(cv, -np.sqrt(v1 * v2), np.sqrt(v1 * v2))

    def _settings(self) -> tuple:
        return (self.threshold, self.score_clip, self.n_bins)

    def _columns(self) -> dict:
        names = ROW_SUMS + (LABEL_SUMS if self.labeled else ())
        return {name: getattr(self, name) for name in names} | {
            "side": self.side,
            "bin": self.bin,
        }

    # ------------------------------------------------------------------ per stratum
    def totals(self) -> np.ndarray:
        """Rows per group and side, shape ``(n_groups, 2)`` (ŷ = 0, ŷ = 1)."""
        out = np.zeros((self.n_groups, 2))
        np.add.at(out, (self.group, self.side.astype(np.intp)), self.count)
        return out

    def stratum_positives(self) -> np.ndarray:
        """Labeled positives per group and side, shape ``(n_groups, 2)``."""
        self._require_labels("stratum_positives")
        out = np.zeros((self.n_groups, 2))
        np.add.at(out, (self.group, self.side.astype(np.intp)), self.positives)
        return out

    def confusion_counts(self) -> np.ndarray:
        """Labeled confusion counts per group, shape ``(n_groups, 4)``: tp, fp, tn, fn."""
        x, n = self.stratum_positives(), self.totals()
        return np.stack([x[:, 1], n[:, 1] - x[:, 1], n[:, 0] - x[:, 0], x[:, 0]], axis=-1)

    def _require_labels(self, what: str) -> None:
        if not self.labeled:
            raise InvalidParameterError(f"'{what}' needs a summary of labeled rows.")

    # ------------------------------------------------------------------ transforms
    def without_labels(self) -> ScoreSummary:
        """The same rows as an unlabeled summary (the label columns dropped)."""
        return ScoreSummary(
            levels=self.levels,
            group=self.group,
            side=self.side,
            bin=self.bin,
            threshold=self.threshold,
            score_clip=self.score_clip,
            n_bins=self.n_bins,
            attributes=self.attributes,
            **{k: getattr(self, k) for k in ROW_SUMS},
        )

    def with_counts(self, count) -> ScoreSummary:
        """The same entries holding ``count`` rows each (entries at 0 dropped).

        Every sum is scaled by ``count / self.count``, so each entry's means and
        within-entry moments are kept: the summary of a random subset of an
        entry's rows, in expectation. The acquisition's pool uses it for the
        examples that remain unlabeled.
        """
        count = np.asarray(count, dtype=float)
        if count.shape != self.count.shape or (count < 0).any():
            raise InvalidParameterError(
                f"'count' must hold a non-negative count per entry ({self.n_entries})."
            )
        keep = count > 0
        scale = count[keep] / self.count[keep]
        names = ROW_SUMS + (LABEL_SUMS if self.labeled else ())
        sums = {k: getattr(self, k)[keep] * scale for k in names}
        sums["count"] = count[keep]
        return ScoreSummary(
            levels=self.levels,
            group=self.group[keep],
            side=self.side[keep],
            bin=self.bin[keep],
            threshold=self.threshold,
            score_clip=self.score_clip,
            n_bins=self.n_bins,
            attributes=self.attributes,
            **sums,
        )

    def with_levels(self, levels) -> ScoreSummary:
        """The summary re-coded to ``levels`` (a superset of its groups, in any order)."""
        levels = tuple(levels)
        if levels == self.levels:
            return self
        position = {g: i for i, g in enumerate(levels)}
        missing = [g for g in self.levels if g not in position]
        if missing:
            raise InvalidParameterError(f"Group(s) {missing} are not among the levels {levels}.")
        recode = np.array([position[g] for g in self.levels], dtype=np.intp)
        codes = recode[self.group] if self.group.size else self.group
        return ScoreSummary._from_codes(
            codes,
            self._columns(),
            levels,
            threshold=self.threshold,
            score_clip=self.score_clip,
            n_bins=self.n_bins,
            attributes=self.attributes,
        )

    def coarsen(self, n_bins: int) -> ScoreSummary:
        """The same rows on a coarser grid of ``n_bins`` bins, a divisor of ``self.n_bins``.

        The coarse grid's edges are edges of the fine one, so every sum adds up
        exactly.
        """
        n_bins = int(n_bins)
        if n_bins >= self.n_bins:
            return self
        if n_bins < 1 or self.n_bins % n_bins:
            raise InvalidParameterError(
                f"A summary on {self.n_bins} bins can be coarsened to a divisor of "
                f"{self.n_bins}. Got {n_bins}."
            )
        cols = self._columns()
        cols["bin"] = self.bin // (self.n_bins // n_bins)
        return ScoreSummary._from_codes(
            self.group,
            cols,
            self.levels,
            threshold=self.threshold,
            score_clip=self.score_clip,
            n_bins=n_bins,
            attributes=self.attributes,
        )

    def __add__(self, other: ScoreSummary) -> ScoreSummary:
        if not isinstance(other, ScoreSummary):
            return NotImplemented
        # group columns not recorded (None: a summary built from arrays) agree with any
        attributes = self.attributes if self.attributes is not None else other.attributes
        mine = (*self._settings(), self.attributes or attributes, self.labeled)
        theirs = (*other._settings(), other.attributes or attributes, other.labeled)
        if mine != theirs:
            raise InvalidParameterError(
                "Only summaries with the same threshold, score_clip, n_bins, group columns "
                f"and labeling can be added. Got {mine} and {theirs}."
            )
        # the union, sorted: a sum of parts does not depend on their order (a glob's files,
        # an engine's partitions), so a + b and b + a are the same summary
        levels = _sort_levels(list(self.levels) + [g for g in other.levels if g not in self.levels])
        a, b = self.with_levels(levels), other.with_levels(levels)
        cols = {k: np.concatenate([v, b._columns()[k]]) for k, v in a._columns().items()}
        return ScoreSummary._from_codes(
            np.concatenate([a.group, b.group]),
            cols,
            levels,
            threshold=self.threshold,
            score_clip=self.score_clip,
            n_bins=self.n_bins,
            attributes=attributes,
        )

    def to_frame(self):
        """The entries as a pandas DataFrame (``group`` holds the labels)."""
        import pandas as pd

        return pd.DataFrame({"group": self.group_labels, **self._columns()})

    def __repr__(self) -> str:
        kind = "labeled" if self.labeled else "unlabeled"
        return (
            f"ScoreSummary({kind}, n_total={self.n_total}, groups={list(self.levels)!r}, "
            f"threshold={self.threshold}, entries={self.n_entries})"
        )


def summarize_arrays(
    scores,
    codes,
    levels,
    *,
    labels=None,
    threshold: float = 0.5,
    score_clip: float = 0.01,
    n_bins: int = DEFAULT_BINS,
    attributes=None,
) -> ScoreSummary:
    """A :class:`ScoreSummary` of rows in memory, given as group codes into ``levels``.

    Parameters
    ----------
    scores : array_like of float, shape (n,)
        Raw scores in [0, 1].
    codes : array_like of int, shape (n,)
        Group code of each row: a position in ``levels``.
    levels : sequence
        The group labels.
    labels : array_like of {0, 1}, shape (n,), optional
        True labels; with them the summary is labeled (:data:`LABEL_SUMS` filled).
    threshold : float, default 0.5
        Decision threshold: ŷ = 1 when the raw score is at or above it.
    score_clip : float, default 0.01
        ε: scores are clipped to ``[ε, 1 − ε]`` for the logs and the logit grid.
    n_bins : int, default DEFAULT_BINS (1024)
        Bins per group over the logit range (positive).
    attributes : sequence of str, optional
        The group columns the labels were built from.

    Returns
    -------
    ScoreSummary
        One entry per non-empty (group, side, bin) cell (:func:`bin_rows`).
    """
    scores = check_array(scores, "scores")
    codes = check_array(codes, "codes", dtype=None)  # bin_rows reads them as np.intp
    labels = None if labels is None else check_array(labels, "labels")
    if int(n_bins) < 1:
        raise InvalidParameterError(f"The 'n_bins' parameter must be positive. Got {n_bins}.")
    if isinstance(score_clip, bool) or not (
        isinstance(score_clip, numbers.Real) and 0.0 < score_clip < 0.5
    ):
        raise InvalidParameterError(
            f"The 'score_clip' parameter must be a number in (0, 0.5). Got {score_clip!r}."
        )
    cols = bin_rows(
        scores,
        codes,
        len(levels),
        threshold=threshold,
        score_clip=score_clip,
        n_bins=int(n_bins),
        labels=labels,
    )
    return ScoreSummary(
        levels=tuple(levels),
        group=cols.pop("code"),
        side=cols.pop("side"),
        bin=cols.pop("bin"),
        threshold=float(threshold),
        score_clip=float(score_clip),
        n_bins=int(n_bins),
        attributes=None if attributes is None else tuple(attributes),
        **cols,
    )
