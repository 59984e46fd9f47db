"""The Dask engine: a Dask DataFrame or files, summed per partition on the workers."""

from __future__ import annotations

import os

from bayesfair._internal.names import as_text
from bayesfair.data.engines._common import (
    LOCAL_RUN,
    EngineRun,
    LabelColumn,
    SummaryGrid,
    _aggregate,
    _check_reachable,
    _columns,
    _empty_sums,
    _expand,
    _file_sums,
    _kind,
    _partition_sums,
    _require,
)
from bayesfair.data.summary import ScoreSummary
from bayesfair.exceptions import InvalidParameterError


def dask_engine(
    source,
    score,
    columns,
    grid: SummaryGrid,
    run: EngineRun = LOCAL_RUN,
    target: LabelColumn | None = None,
) -> ScoreSummary:
    """Summarise a Dask DataFrame, or Parquet/CSV files read by Dask, per partition.

    Parameters
    ----------
    source : dask.dataframe.DataFrame, path, glob or list of them
        The rows.
    score : str
        The score column.
    columns : list of str
        The group column(s).
    grid : SummaryGrid
        The summary's threshold and logit grid.
    run : EngineRun, optional
        The scheduler, the progress bar, and whether the groups are read as text.
    target : LabelColumn, optional
        The label column of labeled rows.
    """
    dd, distributed = _require("dask")
    client = _dask_client(distributed, run.scheduler)
    text = run.text_groups
    if isinstance(source, str | os.PathLike | list | tuple):
        files = _expand(source)
        _kind(files)
        # one task per file, reading it in batches of rows: memory stays bounded
        parts = dd.from_map(
            _file_sums,
            files,
            args=(score, columns, grid, text, target),
            meta=_empty_sums(target is not None),
            enforce_metadata=False,
        )
        return _collect(parts, client, columns, grid, run.progressbar, target is not None)
    if not isinstance(source, dd.DataFrame):
        raise InvalidParameterError(
            "The dask engine takes a Dask DataFrame or a path or glob. "
            f"Got {type(source).__name__}."
        )
    ddf = source
    extra = [target.name] if target else []
    missing = [c for c in [score, *columns, *extra] if c not in ddf.columns]
    if missing:
        raise InvalidParameterError(
            f"The Dask DataFrame has no column(s) {missing}; it has {list(ddf.columns)}."
        )
    ddf = ddf[[score, *columns, *extra]]
    if text:
        ddf = ddf.map_partitions(
            lambda f: f.assign(**{c: as_text(f[c]) for c in columns}),
            meta={score: float, **dict.fromkeys(columns, object), **dict.fromkeys(extra, float)},
        )
    parts = ddf.map_partitions(
        _partition_sums,
        score,
        columns,
        grid,
        None,
        target,
        meta=_empty_sums(target is not None),
    )
    return _collect(parts, client, columns, grid, run.progressbar, target is not None)


def _collect(parts, client, columns, grid: SummaryGrid, progress=False, labeled=False):
    """Compute the partitions' aggregates (on the client if any) and sum them.

    The per-partition aggregates are summed on the workers (a tree reduction),
    so the driver receives one row per (group, side, bin), not one per
    partition: its memory does not grow with the number of files.
    """
    parts = parts.groupby(["group", "side", "bin"]).sum(split_out=1).reset_index()
    if client is not None:
        future = client.compute(parts)
        if progress:
            from distributed import progress as show

            show(future)
        frame = future.result()
    else:
        frame = parts.compute()
    attributes = tuple(columns) if len(columns) > 1 else None
    return _aggregate({k: frame[k].to_numpy() for k in _columns(labeled)}, grid, attributes)


def dask_client(scheduler):
    """A ``distributed.Client`` for ``scheduler`` (a client or an address), as
    :func:`bayesfair.summarize` accepts it; None gives None (run locally)."""
    if scheduler is None:
        return None
    _, distributed = _require("dask")
    return _dask_client(distributed, scheduler)


def _dask_client(distributed, scheduler):
    """The client to compute on: given, at an address, the current one, or None."""
    if scheduler is None:
        try:
            return distributed.get_client()
        except ValueError:
            return None
    if isinstance(scheduler, distributed.Client):
        return scheduler
    _check_reachable(str(scheduler), "Dask scheduler")
    try:
        return distributed.Client(scheduler, timeout="10s")
    except (OSError, TimeoutError) as exc:
        raise InvalidParameterError(
            f"Could not reach the Dask scheduler at {scheduler!r}: {exc}"
        ) from None
