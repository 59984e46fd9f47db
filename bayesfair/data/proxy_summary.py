"""Rows whose group is a probability: a proxy's P(group = g), summarised additively.

Where a row's group is not known, a proxy (BISG and the like) gives each group's
probability. :class:`ProxySummary` holds such rows, and the rows whose group *is*
known that carry the proxy too (they teach how the proxy errs), as sums per
entry of

    (known group or −1, label or −1, side, score bin, proxy cell)

with the sums of the clipped score's ``ln c`` and ``ln(1 − c)`` and of each
group's probability. The **proxy cell** is every probability rounded to a step of
``1 / resolution`` (:data:`PROXY_RESOLUTION`); the **score bin** is the logit grid of
:mod:`bayesfair.data.summary` coarsened to :data:`PROXY_BINS` bins. Sums add, so a
summary of 10⁷ rows is built one partition at a time and merged with ``+``.

**What the summary costs.** Everything that is linear in the probabilities is exact
from the sums: each group's expected size and its probability-weighted confusion
counts (the weighted estimator of :func:`bayesfair.frequentist.proxy_weighted_difference`).
The latent-group model (:mod:`bayesfair.models.proxy`) evaluates its nonlinear
group and label probabilities at each entry's mean probabilities and mean log
scores; it is exact at the proxy taken as calibrated (its probabilities are then
the mean probabilities) and otherwise off by the curvature over a cell at most
0.1 wide; measured against row-level sums the latent counts move by less than
0.2% of a group's rows (``tests/data/test_proxy_summary.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from bayesfair._internal.names import plain_scalar
from bayesfair._internal.validation import check_array
from bayesfair.data.summary import ScoreSummary, bin_index
from bayesfair.exceptions import InvalidParameterError

#: Each probability is rounded to a step of 1 / PROXY_RESOLUTION to form the proxy cells.
PROXY_RESOLUTION = 10
#: Score bins of a proxy summary over the logit grid.
PROXY_BINS = 32
#: A row's probabilities must sum to 1 within this (they are then rescaled to sum to 1).
PROBABILITY_TOLERANCE = 0.01

_KEYS = ("group", "label", "side", "bin")
_SUMS = ("count", "sum_log_s", "sum_log_1ms", "sum_score")


@dataclass(frozen=True, eq=False)
class ProxySummary:
    """Rows with a proxy's group probabilities, summed per entry (module docstring).

    Attributes
    ----------
    levels : tuple
        The groups, in the order of the probability columns.
    group : ndarray of int, shape (n_entries,)
        The row's self-reported group (position in ``levels``), −1 where unknown.
    label : ndarray of int, shape (n_entries,)
        The true label, −1 for unlabeled rows.
    side : ndarray of bool
        ŷ = 1.
    bin : ndarray of int
        Score bin (:data:`PROXY_BINS` over the logit grid).
    cell : ndarray of int, shape (n_entries, n_groups)
        The probabilities rounded to steps of ``1 / resolution`` (the proxy cell).
    count, sum_log_s, sum_log_1ms, sum_score : ndarray of float
        Rows, the sums of ``ln c`` and ``ln(1 − c)`` of the clipped score ``c``, and of
        the raw score.
    sum_p : ndarray of float, shape (n_entries, n_groups)
        The sums of each group's probability.
    threshold, score_clip : float
    n_bins, resolution : int
    """

    levels: tuple
    group: np.ndarray
    label: np.ndarray
    side: np.ndarray
    bin: np.ndarray
    cell: np.ndarray
    count: np.ndarray
    sum_log_s: np.ndarray
    sum_log_1ms: np.ndarray
    sum_score: np.ndarray
    sum_p: np.ndarray
    threshold: float
    score_clip: float
    n_bins: int = PROXY_BINS
    resolution: int = PROXY_RESOLUTION

    def __post_init__(self):
        for name in (*_KEYS, "cell", *_SUMS, "sum_p"):
            value = np.array(getattr(self, name), copy=True)
            value.flags.writeable = False
            object.__setattr__(self, name, value)
        object.__setattr__(self, "levels", tuple(self.levels))

    @classmethod
    def from_columns(cls, columns: dict, *, levels, threshold, score_clip, n_bins, resolution):
        """Add entries with the same keys (group, label, side, bin, cell); drop empty ones.

        Parameters
        ----------
        columns : dict of array_like
            ``group``, ``label``, ``side``, ``bin``, ``cell`` (n, n_groups) and the sums
            (``count``, ``sum_log_s``, ``sum_log_1ms``, ``sum_score``, ``sum_p``).
        levels : sequence
            The groups, in the order of ``cell``'s and ``sum_p``'s columns.
        threshold, score_clip : float
            The settings the entries were computed with (recorded).
        n_bins, resolution : int
            The score bins and the probabilities' rounding steps.
        """
        k = len(levels)
        cell = np.asarray(columns["cell"], dtype=np.int64).reshape(-1, k)
        keys = np.column_stack(
            [np.asarray(columns[name], dtype=np.int64).reshape(-1) for name in _KEYS] + [cell]
        )
        if keys.shape[0] == 0:
            unique, inverse = np.zeros((0, len(_KEYS) + k), dtype=np.int64), np.zeros(0, int)
        else:
            unique, inverse = np.unique(keys, axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)

        def add(values):
            values = np.asarray(values, dtype=float)
            if values.ndim == 1:  # float, also when empty (bincount gives int64 then)
                return np.bincount(inverse, weights=values, minlength=unique.shape[0]).astype(float)
            return np.stack([add(values[:, j]) for j in range(values.shape[1])], axis=-1)

        sums = {name: add(columns[name]) for name in _SUMS}
        sum_p = add(np.asarray(columns["sum_p"], dtype=float).reshape(-1, k)).reshape(-1, k)
        keep = sums["count"] > 0
        return cls(
            levels=tuple(levels),
            group=unique[keep, 0],
            label=unique[keep, 1],
            side=unique[keep, 2].astype(bool),
            bin=unique[keep, 3],
            cell=unique[keep, len(_KEYS) :],
            sum_p=sum_p[keep],
            threshold=float(threshold),
            score_clip=float(score_clip),
            n_bins=int(n_bins),
            resolution=int(resolution),
            **{name: v[keep] for name, v in sums.items()},
        )

    # ------------------------------------------------------------------ views
    @property
    def n_groups(self) -> int:
        return len(self.levels)

    @property
    def n_entries(self) -> int:
        return int(self.count.size)

    @property
    def n_total(self) -> int:
        """Rows summarised."""
        return round(float(self.count.sum()))

    @property
    def known(self) -> np.ndarray:
        """Entries of rows whose group is self-reported."""
        return self.group >= 0

    @property
    def labeled(self) -> np.ndarray:
        """Entries of labeled rows."""
        return self.label >= 0

    @property
    def mean_p(self) -> np.ndarray:
        """Each entry's mean probabilities, shape ``(n_entries, n_groups)``."""
        return self.sum_p / self.count[:, None]

    def select(self, mask) -> ProxySummary:
        """The entries where ``mask`` holds."""
        mask = np.asarray(mask, dtype=bool)
        return ProxySummary(
            levels=self.levels,
            cell=self.cell[mask],
            sum_p=self.sum_p[mask],
            threshold=self.threshold,
            score_clip=self.score_clip,
            n_bins=self.n_bins,
            resolution=self.resolution,
            **{name: getattr(self, name)[mask] for name in (*_KEYS, *_SUMS)},
        )

    def as_score_summary(self, weights) -> ScoreSummary:
        """Labeled entries shared among the groups by ``weights``, as a labeled ScoreSummary.

        Entry ``e`` gives group ``g`` ``weights[e, g]`` of its rows (fractional rows),
        on the grid of this summary's :attr:`n_bins` bins. The within-entry spread of
        the logs is not kept: each entry's rows sit at its mean logs (the score's
        bins are 0.29 logit units wide at ε = 0.01); the raw scores' sum is shared
        as the rows are.

        Parameters
        ----------
        weights : ndarray, shape (n_entries, n_groups)
            Non-negative; each row sums to 1 (or less, to leave rows out).
        """
        if not self.labeled.all():
            raise InvalidParameterError("Only labeled entries become a labeled ScoreSummary.")
        w = np.asarray(weights, dtype=float).reshape(self.n_entries, self.n_groups)
        count = (w * self.count[:, None]).ravel()
        ls = np.repeat(self.sum_log_s / self.count, self.n_groups)
        l1 = np.repeat(self.sum_log_1ms / self.count, self.n_groups)
        positive = np.repeat(self.label == 1, self.n_groups)
        columns = {
            "group": np.tile(np.asarray(self.levels, dtype=object), self.n_entries),
            "side": np.repeat(self.side, self.n_groups),
            "bin": np.repeat(self.bin, self.n_groups),
            "count": count,
            "sum_log_s": count * ls,
            "sum_log_1ms": count * l1,
            "sum_score": np.repeat(self.sum_score / self.count, self.n_groups) * count,
            "sum_sq_log_s": count * ls * ls,
            "sum_sq_log_1ms": count * l1 * l1,
            "sum_log_s_log_1ms": count * ls * l1,
            "positives": count * positive,
            "pos_sum_log_s": count * ls * positive,
            "pos_sum_log_1ms": count * l1 * positive,
        }
        return ScoreSummary.from_columns(
            columns,
            threshold=self.threshold,
            score_clip=self.score_clip,
            n_bins=self.n_bins,
            levels=self.levels,
        )

    def _columns(self) -> dict:
        names = (*_KEYS, "cell", *_SUMS, "sum_p")
        return {name: getattr(self, name) for name in names}

    def __add__(self, other: ProxySummary) -> ProxySummary:
        if not isinstance(other, ProxySummary):
            return NotImplemented
        mine = (self.levels, self.threshold, self.score_clip, self.n_bins, self.resolution)
        theirs = (other.levels, other.threshold, other.score_clip, other.n_bins, other.resolution)
        if mine != theirs:
            raise InvalidParameterError(
                "Proxy summaries merge only with the same groups, threshold, clip, bins and "
                f"resolution; got {mine} and {theirs}."
            )
        a, b = self._columns(), other._columns()
        columns = {name: np.concatenate([a[name], b[name]]) for name in a}
        return ProxySummary.from_columns(
            columns,
            levels=self.levels,
            threshold=self.threshold,
            score_clip=self.score_clip,
            n_bins=self.n_bins,
            resolution=self.resolution,
        )


def summarize_proxy_rows(
    scores,
    probabilities,
    codes,
    *,
    levels,
    threshold: float,
    score_clip: float = 0.01,
    labels=None,
    n_bins: int = PROXY_BINS,
    resolution: int = PROXY_RESOLUTION,
) -> ProxySummary:
    """The :class:`ProxySummary` of rows held in memory.

    Parameters
    ----------
    scores : ndarray of float, shape (n,)
    probabilities : ndarray of float, shape (n, n_groups)
        Each row's probabilities, already checked and summing to 1.
    codes : ndarray of int, shape (n,)
        The self-reported group's position in ``levels``, −1 where unknown.
    levels : sequence
    threshold, score_clip : float
    labels : ndarray of {0, 1}, shape (n,), optional
        True labels (None: unlabeled rows).
    n_bins, resolution : int
        Score bins and the probabilities' rounding steps (module docstring).
    """
    scores = check_array(scores, "scores", ndim=1)
    p = check_array(probabilities, "probabilities", ndim=2)
    codes = check_array(codes, "codes", ndim=1, dtype=None)
    if p.shape != (scores.size, len(levels)) or codes.size != scores.size:
        raise InvalidParameterError(
            f"'probabilities' must have shape ({scores.size}, {len(levels)}) and 'codes' "
            f"{scores.size} entries. Got {p.shape} and {codes.size}."
        )
    side, b, log_s, log_1ms = bin_index(scores, threshold, score_clip, n_bins)
    label = np.full(scores.size, -1) if labels is None else np.asarray(labels, dtype=np.int64)
    columns = {
        "group": np.asarray(codes, dtype=np.int64),
        "label": label,
        "side": side,
        "bin": b,
        "cell": np.floor(p * resolution + 0.5).astype(np.int64),
        "count": np.ones(scores.size),
        "sum_log_s": log_s,
        "sum_log_1ms": log_1ms,
        "sum_score": scores,
        "sum_p": p,
    }
    return ProxySummary.from_columns(
        columns,
        levels=levels,
        threshold=threshold,
        score_clip=score_clip,
        n_bins=n_bins,
        resolution=resolution,
    )


def check_probabilities(frame: pd.DataFrame, which: str, columns: dict, unknown) -> np.ndarray:
    """Each row's probabilities as an ``(n, n_groups)`` array, NaN rows where none are given.

    A row of unknown group needs every probability; a row of known group may give
    all or none. Probabilities are finite, non-negative and sum to 1 within
    :data:`PROBABILITY_TOLERANCE` (then rescaled to sum to exactly 1).

    Parameters
    ----------
    frame : pandas.DataFrame
    which : str
        The frame's name in messages ("labeled", "unlabeled").
    columns : dict
        Group -> probability column, in the groups' order.
    unknown : ndarray of bool
        The rows of unknown group (they need every probability).
    """
    names = list(columns.values())
    p = np.empty((len(frame), len(names)))
    for j, name in enumerate(names):
        try:
            p[:, j] = pd.to_numeric(frame[name], errors="raise").to_numpy(dtype=float)
        except (TypeError, ValueError):
            raise InvalidParameterError(
                f"The {which} rows' probability column '{name}' is not numeric."
            ) from None
    given = ~np.isnan(p)
    partial = given.any(axis=1) & ~given.all(axis=1)
    if partial.any():
        row = frame.index[np.flatnonzero(partial)[0]]
        missing = [
            n for n, g in zip(names, given[np.flatnonzero(partial)[0]], strict=True) if not g
        ]
        raise InvalidParameterError(
            f"The {which} rows give some group probabilities but not all: row {row!r} lacks "
            f"{missing}. Give every column or none."
        )
    lacking = unknown & ~given.all(axis=1)
    if lacking.any():
        row = frame.index[np.flatnonzero(lacking)[0]]
        raise InvalidParameterError(
            f"The {which} rows have {int(lacking.sum())} row(s) with neither a group nor its "
            f"probabilities (first: row {row!r}); the columns {names} (NaN there) are needed "
            "where the group is missing."
        )
    full = given.all(axis=1)
    bad = full & ((p < 0).any(axis=1) | ~np.isfinite(p).all(axis=1))
    if bad.any():
        row = frame.index[np.flatnonzero(bad)[0]]
        raise InvalidParameterError(
            f"The {which} rows' group probabilities must be finite and non-negative; row "
            f"{row!r} has {dict(zip(names, p[np.flatnonzero(bad)[0]].tolist(), strict=True))}."
        )
    total = p.sum(axis=1)
    off = full & (np.abs(total - 1.0) > PROBABILITY_TOLERANCE)
    if off.any():
        i = np.flatnonzero(off)[0]
        raise InvalidParameterError(
            f"The {which} rows' group probabilities {names} must sum to 1 (within "
            f"{PROBABILITY_TOLERANCE}); {int(off.sum())} row(s) do not, the first "
            f"(row {frame.index[i]!r}) sums to {total[i]:.4g}."
        )
    return np.where(full[:, None], p / np.where(full, total, 1.0)[:, None], np.nan)


def proxy_levels(columns) -> list:
    """The groups of a ``group_probabilities`` mapping in the data's order (sorted).

    Parameters
    ----------
    columns : dict
        Group -> probability column.
    """
    try:
        return sorted(columns)
    except TypeError:
        return sorted(columns, key=str)


def proxy_partition_sums(
    frame: pd.DataFrame,
    score: str,
    group: str,
    columns: dict,
    *,
    threshold: float,
    score_clip: float = 0.01,
    n_bins: int = PROXY_BINS,
    resolution: int = PROXY_RESOLUTION,
) -> pd.DataFrame:
    """One partition of a source's rows as proxy-summary entries (a flat frame).

    Every row carries the probabilities (rows of known group too: a source read by an
    engine is summarised in one pass, and its rows of known group are assessed through
    their entries); the checks of :func:`check_probabilities` apply.

    Parameters
    ----------
    frame : pandas.DataFrame
        The partition.
    score, group : str
        Columns.
    columns : dict
        Group -> probability column, in the groups' order (the summary's levels).
    threshold, score_clip : float
    n_bins, resolution : int

    Returns
    -------
    pandas.DataFrame
        ``group, label, side, bin, cell_0 … cell_{K−1}, count, sum_log_s, sum_log_1ms,
        sum_score, p_0 … p_{K−1}``, one row per entry of the partition.
    """
    levels = list(columns)
    values = frame[group]
    unknown = values.isna().to_numpy()
    position = {str(g): i for i, g in enumerate(levels)}
    codes = np.array(
        [
            -1 if m else position.get(str(plain_scalar(v)), -2)
            for v, m in zip(values, unknown, strict=True)
        ],
        dtype=np.int64,
    )
    if (codes == -2).any():
        strange = sorted({str(v) for v, c in zip(values, codes, strict=True) if c == -2})
        raise InvalidParameterError(
            f"The group column '{group}' has value(s) {strange} that 'group_probabilities' "
            f"does not name ({levels})."
        )
    p = check_probabilities(frame, "source's", columns, np.ones(len(frame), dtype=bool))
    summary = summarize_proxy_rows(
        frame[score].to_numpy(dtype=float),
        p,
        codes,
        levels=levels,
        threshold=threshold,
        score_clip=score_clip,
        n_bins=n_bins,
        resolution=resolution,
    )
    return entries_frame(summary)


def entries_frame(summary: ProxySummary) -> pd.DataFrame:
    """A summary's entries as a flat frame (:func:`proxy_partition_sums`' columns).

    Parameters
    ----------
    summary : ProxySummary
    """
    out = {name: getattr(summary, name) for name in _KEYS}
    out["side"] = summary.side.astype(np.int64)
    out |= {f"cell_{j}": summary.cell[:, j] for j in range(summary.n_groups)}
    out |= {name: getattr(summary, name) for name in _SUMS}
    out |= {f"p_{j}": summary.sum_p[:, j] for j in range(summary.n_groups)}
    return pd.DataFrame(out)


def from_entries_frame(frame: pd.DataFrame, levels, *, threshold, score_clip, n_bins, resolution):
    """The :class:`ProxySummary` of flat entries (partial sums added).

    Parameters
    ----------
    frame : pandas.DataFrame
        :func:`entries_frame`'s columns, entries possibly repeated.
    levels : sequence
    threshold, score_clip : float
    n_bins, resolution : int
    """
    k = len(levels)
    columns = {name: frame[name].to_numpy() for name in (*_KEYS, *_SUMS)}
    columns["cell"] = frame[[f"cell_{j}" for j in range(k)]].to_numpy(dtype=np.int64)
    columns["sum_p"] = frame[[f"p_{j}" for j in range(k)]].to_numpy(dtype=float)
    return ProxySummary.from_columns(
        columns,
        levels=levels,
        threshold=threshold,
        score_clip=score_clip,
        n_bins=n_bins,
        resolution=resolution,
    )
