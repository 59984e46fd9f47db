"""Data whose rows may lack their group: ``from_frames(group_probabilities=...)``.

:func:`proxy_from_frames` splits each frame into the rows of known group (the data's
labeled and unlabeled examples, as always) and the rows that carry a proxy's
probabilities (unknown group, or known group and the proxy too), checks the
probabilities, and summarises the latter (:mod:`bayesfair.data.proxy_summary`) into
the data's :class:`ProxyData`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from bayesfair._internal.names import plain_scalar
from bayesfair.data._inputs import _as_labels, check_columns
from bayesfair.data.proxy_summary import (
    ProxySummary,
    check_probabilities,
    proxy_levels,
    summarize_proxy_rows,
)
from bayesfair.exceptions import InvalidParameterError, UnlabeledGroupWarning


@dataclass(frozen=True, eq=False)
class ProxyData:
    """The rows with a proxy's probabilities, labeled and unlabeled.

    Attributes
    ----------
    columns : dict
        Group -> the column holding its probability.
    labeled, unlabeled : ProxySummary
        Labeled rows (with their labels) and unlabeled rows that carry the
        proxy: those of unknown group (``group == -1``) and those whose
        self-reported group is known too.
    assess_known : bool, default False
        Whether the unlabeled summary's rows of known group are assessed through it
        (a source summarised in one pass by :func:`bayesfair.data.engines.proxy.
        summarize_proxy`: they are not among the data's unlabeled examples) rather
        than only calibrating the proxy.
    by_period : dict, optional
        Period value -> that period's own :class:`~bayesfair.AssessmentData` (its rows
        of known and unknown group), for :func:`bayesfair.fit_periods`.
    """

    columns: dict
    labeled: ProxySummary
    unlabeled: ProxySummary
    assess_known: bool = False
    by_period: dict | None = None

    @property
    def levels(self) -> tuple:
        return self.labeled.levels

    def n_unknown(self, which: str = "both") -> int:
        """Rows of unknown group: ``"labeled"``, ``"unlabeled"`` or ``"both"``."""
        parts = {"labeled": (self.labeled,), "unlabeled": (self.unlabeled,)}
        chosen = parts.get(which, (self.labeled, self.unlabeled))
        return round(sum(float(s.count[~s.known].sum()) for s in chosen))

    def n_self_reported(self) -> int:
        """Rows whose group is self-reported and that carry the proxy too."""
        return round(sum(float(s.count[s.known].sum()) for s in (self.labeled, self.unlabeled)))

    def summaries(self) -> tuple[ProxySummary, ProxySummary]:
        return self.labeled, self.unlabeled


def proxy_from_frames(
    cls,
    labeled: pd.DataFrame,
    unlabeled,
    *,
    score: str,
    label: str,
    group,
    group_probabilities: dict,
    threshold: float,
    pos_label,
    reference,
    period: str | None = None,
):
    """``AssessmentData.from_frames`` with ``group_probabilities``: split, check, summarise.

    The rows of known group become the data's labeled and unlabeled examples as
    always; every row that carries the proxy (unknown group, or known group and the
    probabilities too) goes into the data's :class:`ProxyData`.

    Parameters
    ----------
    cls : type
        :class:`~bayesfair.AssessmentData`.
    labeled : pandas.DataFrame
    unlabeled : pandas.DataFrame, ProxySummary or None
        Rows, or a summary built by :func:`bayesfair.summarize_proxy`.
    score, label, group : str
    group_probabilities : dict
        Group -> its probability column.
    threshold : float
    pos_label, reference
        As in :class:`~bayesfair.AssessmentData`.
    period : str, optional
        A column of both frames (rows, not a summary): the data then hold each
        period's own data too (``ProxyData.by_period``), which
        :func:`bayesfair.fit_periods` fits period by period.
    """
    if isinstance(group, list | tuple) and len(group) == 1:
        group = group[0]
    if not isinstance(group, str):
        raise InvalidParameterError(
            "With 'group_probabilities' the 'group' parameter names one column (the proxy "
            f"gives one attribute's probabilities). Got {group!r}."
        )
    columns = _check_mapping(group_probabilities)
    summarised = None
    if unlabeled is not None and not isinstance(unlabeled, pd.DataFrame):
        summarised = _unlabeled_summary(unlabeled, score, group, columns, threshold)
        unlabeled = None
    frames = {"labeled": labeled} | ({} if unlabeled is None else {"unlabeled": unlabeled})
    for which, frame in list(frames.items()):
        if group not in frame.columns:  # no row of the frame has its group: all unknown
            frame = frames[which] = frame.assign(
                **{group: pd.Series(pd.NA, index=frame.index, dtype=object)}
            )
        wanted = {"score": [score], "group": [group], "group_probabilities": list(columns.values())}
        check_columns(frame, which, **(wanted | ({"label": [label]} if which == "labeled" else {})))
    levels = proxy_levels(columns)
    columns = {g: columns[g] for g in levels}  # the probabilities in the groups' order
    position = {plain_scalar(g): i for i, g in enumerate(levels)} | {
        str(g): i for i, g in enumerate(levels)
    }
    y, pos_label = _as_labels(labeled[label].to_numpy(copy=True), pos_label, argument=label)
    parts, known_rows = {}, {}
    for which, frame in frames.items():
        values = frame[group]
        unknown = values.isna().to_numpy()
        strange = sorted({str(v) for v in values[~unknown] if _code(v, position) is None})
        if strange:
            raise InvalidParameterError(
                f"The {which} rows' group column '{group}' has value(s) {strange} that "
                f"'group_probabilities' does not name ({list(columns)}): a row of unknown group "
                "could belong to them. Name every group."
            )
        p = check_probabilities(frame, which, columns, unknown)
        codes = np.array(
            [-1 if m else _code(v, position) for v, m in zip(values, unknown, strict=True)]
        )
        carries = ~np.isnan(p).any(axis=1)
        parts[which] = summarize_proxy_rows(
            frame[score].to_numpy(dtype=float)[carries],
            p[carries],
            codes[carries],
            levels=levels,
            threshold=threshold,
            labels=y[carries] if which == "labeled" else None,
        )
        known_rows[which] = frame.loc[~unknown]
    _check_every_group_possible(parts | ({} if summarised is None else {"u": summarised}), levels)
    empty = summarize_proxy_rows(
        np.zeros(0),
        np.zeros((0, len(levels))),
        np.zeros(0, int),
        levels=levels,
        threshold=threshold,
    )
    proxy = ProxyData(
        columns=dict(columns),
        labeled=parts["labeled"],
        unlabeled=parts.get("unlabeled", empty) if summarised is None else summarised,
        assess_known=summarised is not None,
    )
    known = known_rows["labeled"]
    out = {
        "scores": known[score].to_numpy(copy=True),
        "labels": known[label].to_numpy(copy=True),
        "groups": known[group].to_numpy(copy=True),
        "threshold": threshold,
    }
    if "unlabeled" in known_rows:
        out["unlabeled_scores"] = known_rows["unlabeled"][score].to_numpy(copy=True)
        out["unlabeled_groups"] = known_rows["unlabeled"][group].to_numpy(copy=True)
    if period is not None:
        settings = dict(score=score, label=label, group=group, threshold=threshold)
        settings |= dict(group_probabilities=group_probabilities, pos_label=pos_label)
        proxy = replace(proxy, by_period=_by_period(cls, frames, period, settings, reference))
        out["periods"] = known_rows["labeled"][period].to_numpy(copy=True)
        if "unlabeled" in known_rows:
            out["unlabeled_periods"] = known_rows["unlabeled"][period].to_numpy(copy=True)
    return cls(**out, pos_label=pos_label, reference=reference, proxy=proxy)


def _by_period(cls, frames: dict, period: str, settings: dict, reference) -> dict:
    """Each period's own data (its rows of known and unknown group), by period value.

    A period needs a row of known group (the data's periods are those of the rows of
    known group, which also carry the drift flags).
    """
    for which, frame in frames.items():
        check_columns(frame, which, period=[period])
        if frame[period].isna().any():
            raise InvalidParameterError(f"The {which} rows' period column '{period}' has gaps.")
    values = pd.unique(pd.concat([f[period] for f in frames.values()], ignore_index=True))
    group = settings["group"]
    known = set(pd.concat([f.loc[f[group].notna(), period] for f in frames.values()]))
    lacking = [plain_scalar(v) for v in values if v not in known]
    if lacking:
        raise InvalidParameterError(
            f"Period(s) {lacking} have no row whose group is known: with group "
            "probabilities every period needs one (its labels carry the drift flags)."
        )
    out = {}
    for value in values:
        lab = frames["labeled"][frames["labeled"][period] == value]
        unl = (
            frames["unlabeled"][frames["unlabeled"][period] == value]
            if "unlabeled" in frames
            else None
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UnlabeledGroupWarning)  # said for the whole data
            out[plain_scalar(value)] = proxy_from_frames(
                cls,
                lab,
                unl if unl is not None and len(unl) else None,
                reference=reference,
                **settings,
            )
    return out


def _unlabeled_summary(unlabeled, score, group, columns, threshold) -> ProxySummary:
    """The unlabeled rows as a proxy summary (:func:`bayesfair.summarize_proxy`), checked."""
    if not isinstance(unlabeled, ProxySummary):
        raise InvalidParameterError(
            "With 'group_probabilities' the unlabeled rows are a DataFrame, a source "
            f"(summarised by bayesfair.summarize_proxy) or its summary. Got "
            f"{type(unlabeled).__name__}."
        )
    if list(unlabeled.levels) != proxy_levels(columns) or unlabeled.threshold != threshold:
        raise InvalidParameterError(
            f"The unlabeled summary has groups {list(unlabeled.levels)} and threshold "
            f"{unlabeled.threshold:g}; the data's are {proxy_levels(columns)} and "
            f"{threshold:g}."
        )
    if unlabeled.labeled.any():
        raise InvalidParameterError("The unlabeled summary holds labeled rows.")
    return unlabeled


def check_proxy(proxy, levels: list, periods) -> ProxyData | None:
    """``proxy`` checked against the data's groups of known rows (None passes through).

    Parameters
    ----------
    proxy : ProxyData or None
    levels : list
        The groups of the rows of known group.
    periods : array_like or None
        The data's periods (not combined with a proxy yet).
    """
    if proxy is None:
        return None
    if not isinstance(proxy, ProxyData):
        raise InvalidParameterError(
            f"The 'proxy' parameter must be a ProxyData. Got {type(proxy).__name__}."
        )
    if periods is not None and proxy.by_period is None:
        raise InvalidParameterError(
            "Periods with group probabilities need each period's rows: give the frames "
            "with 'period' to AssessmentData.from_frames."
        )
    strange = [g for g in levels if g not in proxy.levels]
    if strange:
        raise InvalidParameterError(
            f"The rows' group(s) {strange} are not among the proxy's groups {list(proxy.levels)}."
        )
    return proxy


def _code(value, position: dict):
    value = plain_scalar(value)
    if value in position:
        return position[value]
    return position.get(str(value))


def _check_mapping(mapping) -> dict:
    if not isinstance(mapping, dict) or len(mapping) < 2:
        raise InvalidParameterError(
            "The 'group_probabilities' parameter maps each group to the column of its "
            "probability, for at least two groups, e.g. {'White': 'p_white', 'Black': "
            f"'p_black'}}. Got {mapping!r}."
        )
    names = list(mapping.values())
    if len(set(names)) != len(names):
        raise InvalidParameterError(
            f"The 'group_probabilities' parameter names a column twice: {mapping!r}."
        )
    return dict(mapping)


def _check_every_group_possible(parts: dict, levels: list) -> None:
    """A group no row reports and no row of unknown group could be is refused."""
    reported = np.zeros(len(levels))
    possible = np.zeros(len(levels))
    for summary in parts.values():
        np.add.at(reported, summary.group[summary.known], summary.count[summary.known])
        possible += summary.sum_p[~summary.known].sum(axis=0)
    absent = [g for g, r, q in zip(levels, reported, possible, strict=True) if r == 0 and q == 0]
    if absent:
        raise InvalidParameterError(
            f"'group_probabilities' names group(s) {absent} that no row reports and no row "
            "of unknown group could be (probability 0 everywhere): drop them from the mapping."
        )
