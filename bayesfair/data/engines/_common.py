"""What every engine shares: the parameter objects an engine takes (the grid, how it
runs, the label column), the summary's columns, checks of scores, labels and groups,
one partition's sums in NumPy, file lists and kinds, optional imports."""

from __future__ import annotations

import dataclasses
import glob as _glob
import os

import numpy as np

from bayesfair._internal.names import as_text, plain_scalar
from bayesfair.data._inputs import _as_groups
from bayesfair.data.summary import (
    LABEL_SUMS,
    ROW_SUMS,
    ScoreSummary,
    bin_rows,
)
from bayesfair.exceptions import InvalidParameterError

#: The extra that installs each optional engine.
EXTRAS = {"dask": "dask", "spark": "spark"}


@dataclasses.dataclass(frozen=True)
class SummaryGrid:
    """The cells a summary sums over: the side of the threshold and the bin in logit(s).

    Parameters
    ----------
    threshold : float
        ŷ = 1 when ``score >= threshold``.
    score_clip : float
        ε of the clipping ``[ε, 1 − ε]`` before the logs.
    n_bins : int
        Bins per group and side.
    """

    threshold: float
    score_clip: float
    n_bins: int


@dataclasses.dataclass(frozen=True)
class EngineRun:
    """How an engine runs: where, whether it shows its progress, how it reads the groups.

    Each engine reads the fields it has a use for (:func:`bayesfair.summarize`).

    Parameters
    ----------
    scheduler : str or object, optional
        Dask: a ``distributed.Client`` or a scheduler address; Spark: a master URL.
    progressbar : bool, default False
        Show the engine's progress on the terminal (DuckDB, Dask).
    text_groups : bool, default False
        Read the group columns as text, as written in a CSV file.
    """

    scheduler: object = None
    progressbar: bool = False
    text_groups: bool = False


#: An engine run on this machine, without a progress bar, reading the groups as they are.
LOCAL_RUN = EngineRun()


@dataclasses.dataclass(frozen=True)
class LabelColumn:
    """The true-label column of labeled rows, and the value of a positive label.

    Parameters
    ----------
    name : str
        The column.
    pos_label : float
        1.0 or 0.0: the value of a positive (the other value is a negative).
    """

    name: str
    pos_label: float


def _columns(labeled: bool) -> tuple:
    """The columns an engine returns: the cell and its sums (and the label sums)."""
    return ("group", "side", "bin", *ROW_SUMS, *(LABEL_SUMS if labeled else ()))


def _aggregate(cols, grid: SummaryGrid, attributes) -> ScoreSummary:
    """Sum partial entries with the same (group, side, bin) into one summary."""
    return ScoreSummary.from_columns(
        cols,
        threshold=grid.threshold,
        score_clip=grid.score_clip,
        n_bins=grid.n_bins,
        attributes=attributes,
    )


def _require(engine: str):
    """Import an optional engine, or say which extra installs it."""
    import importlib

    modules = {"dask": ("dask.dataframe", "distributed"), "spark": ("pyspark",)}[engine]
    try:
        return [importlib.import_module(m) for m in modules]
    except ImportError as exc:
        raise ImportError(
            f"The {engine} engine needs {exc.name!r}, which is not installed: "
            f"pip install 'bayesfair[{EXTRAS[engine]}]'."
        ) from None


def _file_sums(path, score, group_cols, grid: SummaryGrid, text=False, target=None):
    """One file's aggregates, read in batches of rows (bounded memory).

    ``target`` is the :class:`LabelColumn` of labeled rows (None for unlabeled ones).
    """
    import pandas as pd

    columns = list(group_cols)  # not named 'columns': dask.from_map passes its own
    keep = [score, *columns, *([target.name] if target else [])]
    if _kind([path]) == "parquet":
        import pyarrow.parquet as pq

        handle = pq.ParquetFile(path)
        have = handle.schema_arrow.names
        batches = (b.to_pandas() for b in handle.iter_batches(batch_size=1 << 20, columns=keep))
    else:
        have = list(pd.read_csv(path, nrows=0).columns)
        dtype = dict.fromkeys(columns, str) if text else None
        batches = pd.read_csv(path, usecols=keep, chunksize=1 << 20, dtype=dtype)
    missing = [c for c in keep if c not in have]
    if missing:
        raise InvalidParameterError(f"The file {path!r} has no column(s) {missing}; it has {have}.")
    if text:
        batches = (b.assign(**{c: as_text(b[c]) for c in columns}) for b in batches)
    parts = [_partition_sums(b, score, columns, grid, path, target) for b in batches]
    return pd.concat(parts, ignore_index=True) if parts else _empty_sums(target is not None)


def _empty_sums(labeled: bool = False):
    import pandas as pd

    types = {"group": object, "side": bool, "bin": np.int64}
    return pd.DataFrame({k: pd.Series([], dtype=types.get(k, float)) for k in _columns(labeled)})


def _positives(values, pos_label: float, origin: str = "") -> np.ndarray:
    """Labels as 0/1 floats (1 where the label equals ``pos_label``); anything else is an error."""
    y = (
        np.asarray(values, dtype=float)
        if not hasattr(values, "to_numpy")
        else (values.to_numpy(dtype=float, na_value=np.nan))
    )
    bad = ~((y == 0.0) | (y == 1.0))
    if bad.any():
        raise InvalidParameterError(
            f"Labels must be 0 or 1 (or booleans) without missing values: {int(bad.sum())} "
            f"row(s) are not, the first{origin} "
            f"(value {plain_scalar(y[np.flatnonzero(bad)[0]])!r})."
        )
    return y if pos_label == 1.0 else 1.0 - y


def _partition_sums(frame, score, columns, grid: SummaryGrid, origin=None, target=None):
    """One partition's aggregates as a pandas frame (the NumPy arithmetic).

    ``origin``, the file every row came from, is named in an error; ``target`` is the
    :class:`LabelColumn` of labeled rows (None for unlabeled ones).
    """
    import pandas as pd

    where = f" in file {origin!r}" if origin is not None else ""
    s = frame[score].to_numpy(dtype=float, na_value=np.nan)
    bad = ~((s >= 0.0) & (s <= 1.0))
    missing = frame[columns].isna().to_numpy().any(axis=1)
    if bad.any():
        raise InvalidParameterError(
            f"Column {score!r} must hold scores in [0, 1] without missing values: "
            f"{int(bad.sum())} row(s) of a partition do not, the first{where} "
            f"(value {plain_scalar(s[np.flatnonzero(bad)[0]])!r})."
        )
    if missing.any():
        raise InvalidParameterError(
            f"Group column(s) {columns} must not contain missing values: {int(missing.sum())} "
            f"row(s) of a partition do, the first{where}."
        )
    y = None if target is None else _positives(frame[target.name], target.pos_label, where)
    out = _empty_sums(target is not None)
    if len(frame):
        labels, _ = _as_groups(frame[columns].reset_index(drop=True), "unlabeled groups")
        codes, levels = pd.factorize(labels, sort=False)
        cols = bin_rows(
            s,
            codes,
            len(levels),
            threshold=grid.threshold,
            score_clip=grid.score_clip,
            n_bins=grid.n_bins,
            labels=y,
        )
        cols["group"] = np.asarray(levels, dtype=object)[cols.pop("code")]
        out = pd.DataFrame({k: cols[k] for k in _columns(target is not None)})
    out["group"] = out["group"].astype(object)
    out["side"] = out["side"].astype(bool)
    out["bin"] = out["bin"].astype(np.int64)
    return out


def _check_reachable(address: str, what: str, timeout: float = 5.0) -> None:
    """Fail fast, naming the address, when ``scheme://host:port`` does not accept connections.

    Spark retries an unreachable master for about a minute and then reports a
    stopped context; a plain TCP connect says the same in seconds. Addresses
    without a host and port (``local[*]``, ``yarn``) are not checked.
    """
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(address)
    if not parts.hostname or not parts.port:
        return
    try:
        with socket.create_connection((parts.hostname, parts.port), timeout=timeout):
            pass
    except OSError as exc:
        raise InvalidParameterError(f"Could not reach the {what} at {address!r}: {exc}") from None


def _expand(source) -> list[str]:
    """Paths and globs to a sorted list of files (remote URLs kept as they are)."""
    paths = [source] if isinstance(source, str | os.PathLike) else list(source)
    files = []
    for p in map(os.fspath, paths):
        if "://" in p:
            files.append(p)
            continue
        matched = (
            sorted(_glob.glob(p)) if _glob.has_magic(p) else ([p] if os.path.exists(p) else [])
        )
        if not matched:
            raise InvalidParameterError(f"No file matches {p!r}.")
        files.extend(matched)
    return files


def _kind(files) -> str:
    kinds = {os.path.splitext(f.removesuffix(".gz"))[1].lower() for f in files}
    if kinds <= {".parquet", ".pq"}:
        return "parquet"
    if kinds <= {".csv", ".tsv", ".txt"}:
        return "csv"
    raise InvalidParameterError(
        f"Unlabeled files must be Parquet or CSV (by extension). Got {sorted(kinds)}."
    )


def _in_memory(source) -> bool:
    import pandas as pd

    return isinstance(source, pd.DataFrame | tuple | np.ndarray)
