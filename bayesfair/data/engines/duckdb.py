"""The DuckDB engine: Parquet or CSV paths and globs, relations and SQL, streamed."""

from __future__ import annotations

import os

from bayesfair.data._inputs import INTERSECTION_SEP, ambiguous_intersection
from bayesfair.data.engines._common import (
    LOCAL_RUN,
    EngineRun,
    LabelColumn,
    SummaryGrid,
    _aggregate,
    _columns,
    _expand,
    _kind,
)
from bayesfair.data.summary import ScoreSummary, bin_edges
from bayesfair.exceptions import InvalidParameterError


def duckdb_engine(
    source,
    score,
    columns,
    grid: SummaryGrid,
    run: EngineRun = LOCAL_RUN,
    target: LabelColumn | None = None,
) -> ScoreSummary:
    """Summarise Parquet or CSV files, a DuckDB relation, a SQL query or a polars frame.

    Parameters
    ----------
    source : path, glob, list of them, relation, SQL query or polars frame
        The rows.
    score : str
        The score column.
    columns : list of str
        The group column(s).
    grid : SummaryGrid
        The summary's threshold and logit grid.
    run : EngineRun, optional
        The progress bar, and whether the groups are read as text (no scheduler).
    target : LabelColumn, optional
        The label column of labeled rows.
    """
    import duckdb

    text = run.text_groups
    con = duckdb.connect()
    if run.progressbar:  # DuckDB draws its own bar on the terminal for queries over ~2 s
        con.execute("SET enable_progress_bar = true")
    relation, where = _duckdb_relation(con, source, columns if text else ())
    have = [c.lower() for c in relation.columns]
    extra = [target.name] if target else []
    missing = [c for c in [score, *columns, *extra] if c.lower() not in have]
    if missing:
        # 'filename' is the column read_csv/read_parquet(filename=True) adds, not the file's
        own = [
            c for c in relation.columns if not (c == "filename" and where.startswith("The file"))
        ]
        raise InvalidParameterError(f"{where} has no column(s) {missing}; it has {own}.")
    q = _quote
    lo, hi = bin_edges(grid.score_clip)
    s = f"CAST({q(score)} AS DOUBLE)"
    types = dict(zip(relation.columns, map(str, relation.types), strict=True))

    whole_floats = len(columns) > 1 and not text  # in an intersection, as in memory

    def as_text(c):  # booleans and whole floats as Python writes them, so the labels match
        if types.get(c) == "BOOLEAN":
            return f"CASE WHEN {q(c)} THEN 'True' WHEN NOT {q(c)} THEN 'False' END"
        if whole_floats and types.get(c) in ("DOUBLE", "FLOAT"):  # 1.0 as '1' (_as_text)
            whole = f"isfinite({q(c)}) AND {q(c)} = floor({q(c)}) AND abs({q(c)}) < 9e18"
            return (
                f"CASE WHEN {whole} THEN CAST(CAST({q(c)} AS BIGINT) AS VARCHAR) "
                f"ELSE CAST({q(c)} AS VARCHAR) END"
            )
        return f"CAST({q(c)} AS VARCHAR)"

    if len(columns) == 1:
        label = as_text(columns[0]) if text else q(columns[0])
    else:
        label = f"concat_ws('{INTERSECTION_SEP}', " + ", ".join(map(as_text, columns)) + ")"
    nulls = " OR ".join(f"{q(c)} IS NULL" for c in columns)

    def query(sql, frame=False):  # on the relation's own connection (a user's may not be ours)
        try:
            result = relation.query("_bf_source", sql)
            return result.df() if frame else result.fetchall()
        except duckdb.Error as exc:
            raise InvalidParameterError(
                f"{where} could not be summarised by DuckDB: {exc}"
            ) from None

    y = f"CAST({q(target.name)} AS DOUBLE)" if target else "0.0"
    bad = query(
        f"SELECT count(*) FILTER (WHERE {s} IS NULL OR isnan({s}) OR {s} < 0 OR {s} > 1), "
        f"count(*) FILTER (WHERE {nulls}), "
        f"count(*) FILTER (WHERE {y} IS NULL OR {y} NOT IN (0.0, 1.0)) FROM _bf_source"
    )[0]
    if any(bad):
        _raise_bad_rows(query, where, bad, s=s, nulls=nulls, y=y, score=score, columns=columns)
    if len(columns) > 1:  # two combinations of values joined into one label
        parts = ", ".join(as_text(c) for c in columns)
        held = query(
            f"SELECT lbl FROM (SELECT DISTINCT {label} AS lbl, {parts} FROM _bf_source) "
            "GROUP BY lbl HAVING count(*) > 1 LIMIT 1"
        )
        if held:
            raise ambiguous_intersection("group", held[0][0])
    if target and target.pos_label == 0.0:
        y = f"(1.0 - {y})"
    label_sums = (
        ", fsum(y) AS positives, fsum(y * ls) AS pos_sum_log_s, fsum(y * l1) AS pos_sum_log_1ms"
        if target
        else ""
    )
    sql = f"""
        WITH clipped AS (
            SELECT {label} AS g, {s} AS s, {y} AS y,
                   least(greatest({s}, {grid.score_clip!r}), {1.0 - grid.score_clip!r}) AS c
            FROM _bf_source
        ), feats AS (
            SELECT g, s, y, s >= {grid.threshold!r} AS side, ln(c) AS ls, ln(1.0 - c) AS l1
            FROM clipped
        )
        SELECT g AS "group", side,
               least(greatest(CAST(floor((ls - l1 - ({lo!r})) / ({hi - lo!r}) * {grid.n_bins})
                     AS BIGINT), 0), {grid.n_bins - 1}) AS bin,
               count(*) AS count, fsum(ls) AS sum_log_s, fsum(l1) AS sum_log_1ms,
               fsum(s) AS sum_score, fsum(ls * ls) AS sum_sq_log_s,
               fsum(l1 * l1) AS sum_sq_log_1ms, fsum(ls * l1) AS sum_log_s_log_1ms
               {label_sums}
        FROM feats GROUP BY ALL
    """
    frame = query(sql, frame=True)
    con.close()
    attributes = tuple(columns) if len(columns) > 1 else None
    cols = {k: frame[k].to_numpy() for k in _columns(target is not None)}
    return _aggregate(cols, grid, attributes)


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _duckdb_relation(con, source, text_columns=()):
    """A DuckDB relation for the source, and how to name it in an error."""
    import duckdb

    if isinstance(source, duckdb.DuckDBPyRelation):
        return source, "The relation"
    if type(source).__module__.startswith("polars"):  # a polars DataFrame or LazyFrame
        frame = source.collect() if hasattr(source, "collect") else source
        return con.from_arrow(frame.to_arrow()), "The polars frame"
    paths = [source] if isinstance(source, str | os.PathLike) else source
    if isinstance(source, str) and source.lstrip().lower().startswith(
        ("select ", "with ", "from ")
    ):
        try:
            return con.sql(source), "The query"
        except duckdb.Error as exc:
            raise InvalidParameterError(f"The query failed in DuckDB: {exc}") from None
    if not isinstance(paths, list | tuple) or not paths:
        raise InvalidParameterError(
            "The source must be a path or glob, a list of them, a DuckDB relation, a SQL "
            f"query, a pandas DataFrame or a pair (scores, groups). Got {type(source).__name__}."
        )
    files = _expand(paths)
    kinds = _kind(files)
    try:
        if kinds == "parquet":
            rel = con.read_parquet(files, filename=True)
        else:
            rel = con.read_csv(files, filename=True)
            present = [c for c in text_columns if c in rel.columns]
            if present:  # read again with the group columns as text
                rel = con.read_csv(files, filename=True, dtype=dict.fromkeys(present, "VARCHAR"))
    except duckdb.Error as exc:
        raise InvalidParameterError(f"DuckDB could not read {files[:3]}...: {exc}") from None
    where = f"The file {files[0]!r}" if len(files) == 1 else f"The files {files[0]!r}, ..."
    return rel, where


def _raise_bad_rows(query, where, bad, *, s, nulls, y, score, columns):
    """Name the first offending row and, for files, the file it came from.

    ``bad`` holds the counts of rows with a bad score, a missing group and a bad
    label; ``s``, ``nulls`` and ``y`` are the SQL of the score, of a missing group
    and of the label (``"0.0"`` for unlabeled rows).
    """
    conds = (
        f"{s} IS NULL OR isnan({s}) OR {s} < 0 OR {s} > 1",
        nulls,
        f"{y} IS NULL OR {y} NOT IN (0.0, 1.0)",
    )
    which = next(i for i in range(3) if bad[i])
    cond = conds[which]
    if which == 2:
        s = y
    try:
        row = query(f"SELECT filename, {s} FROM _bf_source WHERE {cond} LIMIT 1")[0]
        origin = f"in file {row[0]!r}"
        value = row[1]
    except InvalidParameterError:
        row = query(f"SELECT {s} FROM _bf_source WHERE {cond} LIMIT 1")[0]
        origin, value = f"in {where[4:].lower()}", row[0]
    if which == 0:
        raise InvalidParameterError(
            f"Column {score!r} must hold scores in [0, 1] without missing values: "
            f"{bad[0]} row(s) do not, the first {origin} (value {value!r})."
        )
    if which == 2:
        raise InvalidParameterError(
            f"Labels must be 0 or 1 (or booleans) without missing values: {bad[2]} row(s) "
            f"are not, the first {origin} (value {value!r})."
        )
    raise InvalidParameterError(
        f"Group column(s) {columns} must not contain missing values: {bad[1]} row(s) do, "
        f"the first {origin}."
    )
