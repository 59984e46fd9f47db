"""The Spark engine: a Spark DataFrame or files, aggregated in Spark SQL."""

from __future__ import annotations

import dataclasses
import os
import warnings

from bayesfair.data._inputs import INTERSECTION_SEP, ambiguous_intersection
from bayesfair.data.engines._common import (
    LOCAL_RUN,
    EngineRun,
    LabelColumn,
    SummaryGrid,
    _aggregate,
    _check_reachable,
    _columns,
    _expand,
    _kind,
    _require,
)
from bayesfair.data.summary import ScoreSummary, bin_edges
from bayesfair.exceptions import InvalidParameterError


@dataclasses.dataclass(frozen=True)
class RowFlags:
    """Spark's conditions (0/1 columns) that flag a bad row, summed by :func:`_spark_sums`.

    Parameters
    ----------
    bad_score : pyspark.sql.Column
        1 where the score is missing or outside [0, 1].
    missing_group : pyspark.sql.Column
        1 where a group column is missing.
    bad_label : pyspark.sql.Column
        1 where the label is missing or not 0/1 (0 everywhere for unlabeled rows).
    """

    bad_score: object
    missing_group: object
    bad_label: object


def spark_engine(
    source,
    score,
    columns,
    grid: SummaryGrid,
    run: EngineRun = LOCAL_RUN,
    target: LabelColumn | None = None,
) -> ScoreSummary:
    """Summarise a Spark DataFrame, or Parquet/CSV files read by Spark, in one pass.

    Parameters
    ----------
    source : pyspark.sql.DataFrame, path, glob or list of them
        The rows.
    score : str
        The score column.
    columns : list of str
        The group column(s).
    grid : SummaryGrid
        The summary's threshold and logit grid.
    run : EngineRun, optional
        The master URL, and whether the groups are read as text (no progress bar).
    target : LabelColumn, optional
        The label column of labeled rows.
    """
    _require("spark")
    text = run.text_groups
    sdf, path = _spark_frame(source, run.scheduler, text)
    extra = [target.name] if target else []
    missing = [c for c in [score, *columns, *extra] if c not in sdf.columns]
    if missing:
        raise InvalidParameterError(
            f"The Spark DataFrame has no column(s) {missing}; it has {sdf.columns}."
        )
    aggregated, flags = _spark_sums(sdf, score, columns, grid, target, text)
    try:
        with warnings.catch_warnings():  # PySpark's own notices about pandas >= 3: not ours
            warnings.filterwarnings("ignore", "PySpark does not yet fully support pandas")
            warnings.filterwarnings("ignore", "The copy keyword is deprecated")
            frame = aggregated.toPandas()
    except Exception as exc:  # Spark wraps its errors: keep the first line
        raise InvalidParameterError(_spark_message(exc)) from exc
    _raise_bad_rows(sdf, frame, flags, path, score=score, columns=columns, target=target)
    groups = {} if text else _spark_group_values(sdf, columns)
    frame["group"] = [groups.get(g, g) for g in frame["group"]]
    attributes = tuple(columns) if len(columns) > 1 else None
    cols = {k: frame[k].to_numpy() for k in _columns(target is not None)}
    return _aggregate(cols, grid, attributes)


def _spark_frame(source, scheduler, text):
    """The source as a Spark DataFrame, and the column naming each row's file (or None)."""
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql import functions as F

    if isinstance(source, DataFrame):
        return source, None
    if not isinstance(source, str | os.PathLike | list | tuple):
        raise InvalidParameterError(
            "The spark engine takes a Spark DataFrame or a path or glob. "
            f"Got {type(source).__name__}."
        )
    files = _expand(source)
    builder = SparkSession.builder.appName("bayesfair")
    if scheduler is not None:
        _check_reachable(str(scheduler), "Spark master")
        builder = builder.master(str(scheduler))
    elif SparkSession.getActiveSession() is None:
        builder = builder.master("local[*]")
    try:
        spark = builder.getOrCreate()
    except Exception as exc:
        raise InvalidParameterError(
            f"Could not start a Spark session at {scheduler!r}: {exc}"
        ) from None
    reader = (
        spark.read.parquet
        if _kind(files) == "parquet"
        else (lambda *f: spark.read.csv(list(f), header=True, inferSchema=not text))
    )
    path = "_bf_path"
    try:
        return reader(*files).withColumn(path, F.input_file_name()), path
    except Exception as exc:
        raise InvalidParameterError(
            f"Spark could not read {files[:3]}: {_spark_message(exc)}"
        ) from None


def _spark_sums(sdf, score, columns, grid: SummaryGrid, target, text=False):
    """Spark's own aggregation, in one pass: the bin arithmetic of ``summary.bin_rows``.

    In an intersection's label a whole float is written as an integer, as in memory,
    unless the groups are kept as the file's text (``text``).

    Returns the per-cell sums (with counts of bad rows) and the :class:`RowFlags`."""
    from pyspark.sql import functions as F

    s = F.col(score).cast("double")
    types = dict(sdf.dtypes)

    whole_floats = len(columns) > 1 and not text

    def as_text(c):  # booleans and whole floats as Python writes them, so the labels match
        if types.get(c) == "boolean":
            return F.when(F.col(c), "True").when(~F.col(c), "False")
        if whole_floats and types.get(c) in ("double", "float"):  # 1.0 as '1' (_as_text)
            v = F.col(c)
            whole = (v == F.floor(v)) & (F.abs(v) < 9e18)
            return F.when(whole, v.cast("long").cast("string")).otherwise(v.cast("string"))
        return F.col(c).cast("string")

    if len(columns) == 1:
        label = as_text(columns[0])
    else:
        label = F.concat_ws(INTERSECTION_SEP, *(as_text(c) for c in columns))
        # two combinations of values joined into one label
        parts = [as_text(c).alias(f"_bf_{i}") for i, c in enumerate(columns)]
        held = (
            sdf.select(label.alias("lbl"), *parts)
            .distinct()
            .groupBy("lbl")
            .count()
            .filter(F.col("count") > 1)
            .limit(1)
            .collect()
        )
        if held:
            raise ambiguous_intersection("group", held[0]["lbl"])
    bad = (s.isNull() | F.isnan(s) | (s < 0) | (s > 1)).cast("long")
    missing_group = F.lit(0).cast("long")
    for col in columns:
        missing_group = F.greatest(missing_group, F.col(col).isNull().cast("long"))
    if target:
        yv = F.col(target.name).cast("double")
        badlabel = (yv.isNull() | ~yv.isin(0.0, 1.0)).cast("long")
        y = yv if target.pos_label == 1.0 else 1.0 - yv
    else:
        badlabel, y = F.lit(0).cast("long"), F.lit(0.0)
    c = F.least(F.greatest(s, F.lit(grid.score_clip)), F.lit(1.0 - grid.score_clip))
    lo, hi = bin_edges(grid.score_clip)
    rows = sdf.select(
        label.alias("group"),
        s.alias("s"),
        (s >= grid.threshold).alias("side"),
        F.log(c).alias("ls"),
        F.log(1.0 - c).alias("l1"),
        bad.alias("bad"),
        missing_group.alias("nogroup"),
        badlabel.alias("badlabel"),
        y.alias("y"),
    )
    binned = F.floor((F.col("ls") - F.col("l1") - lo) / (hi - lo) * grid.n_bins).cast("long")
    rows = rows.withColumn("bin", F.least(F.greatest(binned, F.lit(0)), F.lit(grid.n_bins - 1)))
    ls, l1, yc = F.col("ls"), F.col("l1"), F.col("y")
    sums = [
        F.count(F.lit(1)).alias("count"),
        F.sum(ls).alias("sum_log_s"),
        F.sum(l1).alias("sum_log_1ms"),
        F.sum("s").alias("sum_score"),
        F.sum(ls * ls).alias("sum_sq_log_s"),
        F.sum(l1 * l1).alias("sum_sq_log_1ms"),
        F.sum(ls * l1).alias("sum_log_s_log_1ms"),
    ]
    if target:
        sums += [
            F.sum(yc).alias("positives"),
            F.sum(yc * ls).alias("pos_sum_log_s"),
            F.sum(yc * l1).alias("pos_sum_log_1ms"),
        ]
    aggregated = rows.groupBy("group", "side", "bin").agg(
        *sums,
        F.sum("bad").alias("bad"),
        F.sum("nogroup").alias("nogroup"),
        F.sum("badlabel").alias("badlabel"),
    )
    return aggregated, RowFlags(bad, missing_group, badlabel)


def _raise_bad_rows(sdf, frame, flags: RowFlags, path, *, score, columns, target) -> None:
    """Name the first bad row (its file where known) when the sums counted any."""
    n_bad, n_nogroup = int(frame["bad"].sum()), int(frame["nogroup"].sum())
    n_badlabel = int(frame["badlabel"].sum())
    if n_badlabel and not (n_bad or n_nogroup):
        first = sdf.filter(flags.bad_label == 1).limit(1).collect()[0]
        origin = f" in file {first[path]!r}" if path else ""
        raise InvalidParameterError(
            f"Labels must be 0 or 1 (or booleans) without missing values: {n_badlabel} row(s) "
            f"are not, the first{origin} (value {first[target.name]!r})."
        )
    if n_bad or n_nogroup:
        cond = (flags.bad_score == 1) if n_bad else (flags.missing_group == 1)
        first = sdf.filter(cond).limit(1).collect()[0]
        origin = f" in file {first[path]!r}" if path else ""
        if n_bad:
            raise InvalidParameterError(
                f"Column {score!r} must hold scores in [0, 1] without missing values: "
                f"{n_bad} row(s) do not, the first{origin} (value {first[score]!r})."
            )
        raise InvalidParameterError(
            f"Group column(s) {columns} must not contain missing values: {n_nogroup} row(s) "
            f"do, the first{origin}."
        )


def _spark_group_values(sdf, columns) -> dict:
    """Spark's schema holds the group as a string: map back to integer values."""
    if len(columns) != 1:
        return {}
    dtype = dict(sdf.dtypes)[columns[0]]
    if dtype in ("int", "bigint", "smallint", "tinyint"):
        rows = sdf.select(columns[0]).distinct().collect()
        return {str(r[0]): int(r[0]) for r in rows}
    return {}


def _spark_message(exc) -> str:
    """The first line of a Spark error (its JVM stack trace follows)."""
    text = str(exc).strip()
    return f"Spark could not summarise the source: {text.splitlines()[0] if text else exc!r}"
