"""Rows with a proxy's group probabilities, summarised where they live.

:func:`summarize_proxy` reduces a source whose rows carry each group's probability
(and a group column, missing where the group is unknown) to a
:class:`~bayesfair.data.proxy.ProxySummary`, in one pass, on any engine:

* ``"numpy"`` — a pandas frame in memory;
* ``"duckdb"`` — a Parquet or CSV path or glob, a DuckDB relation, a SQL query or a
  polars frame: one ``GROUP BY`` that writes the grid's arithmetic in SQL, the files
  streamed with bounded memory;
* ``"dask"`` and ``"spark"`` — their DataFrames: each partition summarised by
  :func:`~bayesfair.data.proxy.proxy_partition_sums` on the workers, the entries
  added there (``groupby(...).sum()``), only the entries sent back.

The probability vectors are summarised by the proxy cells (each probability rounded
to a step of 1/10) and their exact sums: what that costs is in
:mod:`bayesfair.data.proxy`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bayesfair.data.engines._common import _require
from bayesfair.data.engines.dask import dask_client
from bayesfair.data.engines.duckdb import _duckdb_relation, _quote
from bayesfair.data.proxy_summary import (
    PROBABILITY_TOLERANCE,
    PROXY_BINS,
    PROXY_RESOLUTION,
    ProxySummary,
    entries_frame,
    from_entries_frame,
    proxy_levels,
    proxy_partition_sums,
    summarize_proxy_rows,
)
from bayesfair.data.summary import bin_edges
from bayesfair.exceptions import InvalidParameterError

PROXY_ENGINES = ("auto", "numpy", "duckdb", "dask", "spark")


def summarize_proxy(
    source,
    score: str = "score",
    group: str = "group",
    group_probabilities: dict | None = None,
    threshold: float = 0.5,
    engine: str = "auto",
    *,
    score_clip: float = 0.01,
    scheduler=None,
) -> ProxySummary:
    """Reduce rows with a proxy's group probabilities to their additive summary.

    Parameters
    ----------
    source
        A pandas frame, a Parquet/CSV path or glob, a DuckDB relation, a SQL query, a
        polars, Dask or Spark DataFrame.
    score, group : str
        The score column and the group column (missing where the group is unknown).
    group_probabilities : dict
        Group -> its probability column; every row carries all of them.
    threshold : float, default 0.5
    engine : {"auto", "numpy", "duckdb", "dask", "spark"}
    score_clip : float, default 0.01
    scheduler : optional
        A Dask client or scheduler address.

    Returns
    -------
    ProxySummary
        Levels in the groups' sorted order, as ``AssessmentData.from_frames`` takes it
        for its unlabeled rows.
    """
    if not isinstance(group_probabilities, dict) or len(group_probabilities) < 2:
        raise InvalidParameterError(
            "The 'group_probabilities' parameter maps at least two groups to their "
            f"probability columns. Got {group_probabilities!r}."
        )
    if isinstance(group, list | tuple) and len(group) == 1:
        group = group[0]
    levels = proxy_levels(group_probabilities)
    columns = {g: group_probabilities[g] for g in levels}
    settings = dict(threshold=float(threshold), score_clip=score_clip, n_bins=PROXY_BINS)
    engine = _engine_of(source) if engine == "auto" else engine
    if engine == "numpy":
        if not isinstance(source, pd.DataFrame):
            raise InvalidParameterError(
                f"The numpy engine takes a pandas DataFrame. Got {type(source).__name__}."
            )
        frame = proxy_partition_sums(source, score, group, columns, **settings)
    elif engine == "duckdb":
        frame = _duckdb_entries(source, score, group, columns, settings)
    elif engine == "dask":
        frame = _dask_entries(source, score, group, columns, settings, scheduler)
    elif engine == "spark":
        frame = _spark_entries(source, score, group, columns, settings)
    else:
        raise InvalidParameterError(
            f"The 'engine' parameter must be one of {PROXY_ENGINES}. Got {engine!r}."
        )
    return from_entries_frame(frame, levels, resolution=PROXY_RESOLUTION, **settings)


def _engine_of(source) -> str:
    module = type(source).__module__
    if isinstance(source, pd.DataFrame):
        return "numpy"
    if module.startswith("dask"):
        return "dask"
    if module.startswith("pyspark"):
        return "spark"
    return "duckdb"


def _duckdb_entries(source, score, group, columns, settings) -> pd.DataFrame:
    """One GROUP BY in DuckDB, after one query that names the first bad row."""
    import duckdb

    con = duckdb.connect()
    relation, where = _duckdb_relation(con, source, (group,))
    wanted = [score, group, *columns.values()]
    missing = [c for c in wanted if c not in relation.columns]
    if missing:
        raise InvalidParameterError(f"{where} has no column(s) {missing}.")
    q = _quote
    eps, t, nb = settings["score_clip"], settings["threshold"], settings["n_bins"]
    lo, hi = bin_edges(eps)
    ps = [f"CAST({q(c)} AS DOUBLE)" for c in columns.values()]
    total = " + ".join(ps)
    g = f"CAST({q(group)} AS VARCHAR)"
    code = (
        f"CASE WHEN {q(group)} IS NULL THEN -1 "
        + " ".join(
            f"WHEN {g} = '{str(v).replace(chr(39), chr(39) * 2)}' THEN {i}"
            for i, v in enumerate(columns)
        )
        + " ELSE -2 END"
    )
    inner = (
        f"SELECT CAST({q(score)} AS DOUBLE) AS s, {code} AS grp, {total} AS tot, "
        + ", ".join(f"{p} AS p{j}" for j, p in enumerate(ps))
        + " FROM _bf_source"
    )
    bad = relation.query(
        "_bf_source",
        "SELECT count(*) FILTER (WHERE grp = -2), count(*) FILTER (WHERE tot IS NULL OR "
        "isnan(tot) OR "
        + " OR ".join(f"p{j} < 0" for j in range(len(ps)))
        + f"), count(*) FILTER (WHERE abs(tot - 1) > {PROBABILITY_TOLERANCE}), "
        f"count(*) FILTER (WHERE s IS NULL OR s < 0 OR s > 1) FROM ({inner})",
    ).fetchall()[0]
    for n, what in zip(
        bad,
        (
            f"a group that 'group_probabilities' does not name ({list(columns)})",
            "missing or negative probabilities",
            f"probabilities that do not sum to 1 within {PROBABILITY_TOLERANCE}",
            "a score missing or outside [0, 1]",
        ),
        strict=True,
    ):
        if n:
            raise InvalidParameterError(f"{where} has {n} row(s) with {what}.")
    c = f"LEAST(GREATEST(s, {eps!r}), {1 - eps!r})"
    k = len(ps)
    sql = (
        'SELECT grp AS "group", -1 AS label, CAST(s >= ' + repr(t) + " AS BIGINT) AS side, "
        f"CAST(LEAST(GREATEST(FLOOR((ln({c}) - ln(1 - {c}) - ({lo!r})) / ({hi - lo!r}) * {nb}),"
        f" 0), {nb - 1}) AS BIGINT) AS bin, "
        + ", ".join(
            f"CAST(FLOOR(p{j} / tot * {PROXY_RESOLUTION} + 0.5) AS BIGINT) AS cell_{j}"
            for j in range(k)
        )
        + f", count(*) AS count, sum(ln({c})) AS sum_log_s, sum(ln(1 - {c})) AS sum_log_1ms, "
        "sum(s) AS sum_score, "
        + ", ".join(f"sum(p{j} / tot) AS p_{j}" for j in range(k))
        + f" FROM ({inner}) GROUP BY ALL"
    )
    return relation.query("_bf_source", sql).df()


def _dask_entries(ddf, score, group, columns, settings, scheduler) -> pd.DataFrame:
    dd, _ = _require("dask")
    if not isinstance(ddf, dd.DataFrame):
        raise InvalidParameterError(
            f"The dask engine takes a Dask DataFrame here. Got {type(ddf).__name__}."
        )
    meta = entries_frame(_empty(columns, settings))
    parts = ddf.map_partitions(proxy_partition_sums, score, group, columns, **settings, meta=meta)
    keys = [
        c for c in meta.columns if c in ("group", "label", "side", "bin") or c.startswith("cell_")
    ]
    summed = parts.groupby(keys).sum(split_out=1).reset_index()
    client = dask_client(scheduler)
    return client.compute(summed).result() if client is not None else summed.compute()


def _spark_entries(sdf, score, group, columns, settings) -> pd.DataFrame:
    _require("spark")
    meta = entries_frame(_empty(columns, settings))
    schema = ", ".join(
        f"`{c}` {'double' if str(t).startswith('float') else 'bigint'}"
        for c, t in meta.dtypes.items()
    )

    def sums(frames):
        for frame in frames:
            yield proxy_partition_sums(frame, score, group, columns, **settings)

    keys = [
        c for c in meta.columns if c in ("group", "label", "side", "bin") or c.startswith("cell_")
    ]
    values = [c for c in meta.columns if c not in keys]
    wanted = sdf.select(score, group, *columns.values())
    summed = wanted.mapInPandas(sums, schema).groupBy(*keys).sum(*values)
    frame = summed.toPandas()
    return frame.rename(columns={f"sum({c})": c for c in values})


def _empty(columns, settings) -> ProxySummary:
    k = len(columns)
    return summarize_proxy_rows(
        np.zeros(0),
        np.zeros((0, k)),
        np.zeros(0, dtype=int),
        levels=list(columns),
        threshold=settings["threshold"],
        score_clip=settings["score_clip"],
        n_bins=settings["n_bins"],
    )
