"""Unlabeled scores from any source, reduced to an additive summary inside an engine.

The models and the prediction-powered intervals need the unlabeled scores only
through per-group, per-side-of-threshold histograms in logit(s) (see
:mod:`bayesfair.models.unlabeled`): each bin's count and the sums of
``log s``, ``log(1 − s)`` and ``s`` over its (clipped) scores. Those are sums,
so they can be computed where the data live, one partition at a time, and
partial summaries merge by addition (``a + b``).

Engines:

* ``"numpy"`` — arrays or a pandas frame in memory;
* ``"duckdb"`` — a Parquet or CSV path or glob (local, or any URL DuckDB's
  ``httpfs`` reads), a DuckDB relation, or a SQL query: DuckDB streams the
  files with bounded memory on all cores, and returns only the aggregates.

``engine="auto"`` picks DuckDB for paths, relations, SQL and polars frames,
NumPy for pandas frames and arrays, Dask and Spark for their own DataFrames.

**Why DuckDB is a core dependency.** Reading a production log that does not
fit in memory is the ordinary case of an audit, not an extra: a user who
points ``bayesfair assess`` at ``logs/*.parquet`` should not meet an
``ImportError``. DuckDB is one wheel with no dependencies of its own, on every
platform the package supports.

Bin arithmetic is the same in every engine: ``ŷ = 1[s ≥ threshold]`` on the raw
score, ``c = clip(s, ε, 1 − ε)``, ``u = ln c − ln(1 − c)``, bin
``⌊(u − lo)/(hi − lo) · n_bins⌋`` clipped to ``[0, n_bins − 1]`` with
``lo = ln(ε/(1 − ε)) = −hi``.
"""

from __future__ import annotations

import glob as _glob
import os
import warnings

import numpy as np

from bayesfair._inputs import INTERSECTION_SEP, _as_groups, _as_scores, check_threshold
from bayesfair.exceptions import InvalidParameterError
from bayesfair.summary import (
    DEFAULT_BINS,
    LABEL_SUMS,
    ROW_SUMS,
    ScoreSummary,
    bin_edges,
    bin_rows,
)

__all__ = ["ENGINES", "summarize", "summarize_unlabeled"]

ENGINES = ("auto", "numpy", "duckdb", "dask", "spark")
#: The extra that installs each optional engine.
EXTRAS = {"dask": "dask", "spark": "spark"}


def _columns(labeled: bool) -> tuple:
    """The columns an engine returns: the cell and its sums (and the label sums)."""
    return ("group", "side", "bin", *ROW_SUMS, *(LABEL_SUMS if labeled else ()))


def _aggregate(cols, threshold, score_clip, n_bins, attributes) -> ScoreSummary:
    """Sum partial entries with the same (group, side, bin) into one summary."""
    return ScoreSummary.from_columns(
        cols, threshold=threshold, score_clip=score_clip, n_bins=n_bins, attributes=attributes
    )


def _plain(v):
    return v.item() if isinstance(v, np.generic) else v


def summarize(
    source,
    score: str = "score",
    group="group",
    threshold: float = 0.5,
    engine: str = "auto",
    *,
    label: str | None = None,
    pos_label=1,
    score_clip: float = 0.01,
    n_bins: int | None = None,
    scheduler=None,
    progress: bool = False,
    text_groups: bool = False,
) -> ScoreSummary:
    """Reduce scored rows, labeled or not, to their additive summary without loading them.

    Parameters
    ----------
    source
        A Parquet or CSV path or glob (``"logs/*.parquet"``; a URL such as
        ``s3://…`` is passed to the engine, which must be set up to read it, e.g.
        DuckDB's ``httpfs``), a list of them, a DuckDB relation, a SQL query
        (``"SELECT ... FROM ..."``), a pandas or polars DataFrame, a Dask or
        Spark DataFrame, or arrays: a pair ``(scores, groups)``, or a triple
        ``(scores, groups, labels)`` for labeled rows.
    score : str
        The score column (ignored for arrays).
    group : str or list of str
        The group column(s); several define intersectional groups labelled
        ``"v1 & v2"``, as :class:`~bayesfair.AssessmentData` does.
    threshold : float
        ŷ = 1 when ``score >= threshold``.
    engine : {"auto", "numpy", "duckdb", "dask", "spark"}
        ``"auto"``: a Dask DataFrame goes to Dask, a Spark DataFrame to Spark,
        paths, relations and SQL to DuckDB, frames and arrays to NumPy. With
        ``"dask"`` or ``"spark"`` a path or glob is read by that engine.
    label : str, optional
        The true-label column: the rows are labeled and the summary also holds,
        per bin, the positives and their sums of ``ln c`` and ``ln(1 − c)``.
        Without it the rows are unlabeled.
    pos_label : int, float or bool
        The label value of a positive; the other value must be its complement
        in {0, 1} (or ``False``/``True``). Labels other than these, or missing,
        are an error (recode text labels before summarising).
    scheduler : str or object, optional
        Dask: a ``distributed.Client`` or a scheduler address
        (``"tcp://host:8786"``); default the current client or Dask's local
        scheduler. Spark: a master URL (``"spark://host:7077"``,
        ``"local[4]"``); default the active session or ``local[*]``.
    progress : bool
        Show the engine's progress on the terminal (DuckDB's progress bar, a
        Dask progress bar) for long passes.
    text_groups : bool
        Read the group columns as text, as written in a CSV file (so ``"01"``
        and ``"1"`` stay two groups; booleans become ``"True"``/``"False"``,
        numbers their text). The command line does this on its files.
    score_clip : float
        ε of the clipping ``[ε, 1 − ε]`` before the logs (the models' default).
    n_bins : int, optional
        Bins per group and side (default 1,024).

    Returns
    -------
    ScoreSummary

    Raises
    ------
    InvalidParameterError
        For an unknown engine, a glob that matches nothing, a missing column,
        a score that is NaN or outside [0, 1], or a label that is missing or
        not binary (naming the file where the engine can).
    """
    threshold = check_threshold(threshold)
    n_bins = DEFAULT_BINS if n_bins is None else int(n_bins)
    if n_bins < 1:
        raise InvalidParameterError(f"The 'n_bins' parameter must be positive. Got {n_bins}.")
    if not 0.0 < score_clip < 0.5:
        raise InvalidParameterError(
            f"The 'score_clip' parameter must be in (0, 0.5). Got {score_clip}."
        )
    if engine not in ENGINES:
        raise InvalidParameterError(
            f"The 'engine' parameter must be one of {ENGINES}. Got {engine!r}."
        )
    if isinstance(pos_label, bool):
        pos_label = int(pos_label)
    if pos_label not in (0, 1):
        raise InvalidParameterError(
            f"The 'pos_label' parameter must be 0 or 1 (or a bool). Got {pos_label!r}."
        )
    if isinstance(source, tuple) and len(source) == 3:
        label = label or "label"
    columns = [group] if isinstance(group, str) else list(group)
    if engine == "auto":
        engine = _auto_engine(source)
    settings = (threshold, score_clip, n_bins)
    target = None if label is None else (label, float(pos_label))
    if engine == "numpy":
        if text_groups and not isinstance(source, tuple):
            source = source.assign(**{c: _as_text(source[c]) for c in columns if c in source})
        elif text_groups:
            source = (source[0], _as_text(source[1]), *source[2:])
        return _numpy_engine(source, score, columns, *settings, target)
    if engine == "dask":
        return _dask_engine(
            source, score, columns, *settings, scheduler, progress, text_groups, target
        )
    if engine == "spark":
        return _spark_engine(source, score, columns, *settings, scheduler, text_groups, target)
    return _duckdb_engine(source, score, columns, *settings, progress, text_groups, target)


def summarize_unlabeled(
    source,
    score: str = "score",
    group="group",
    threshold: float = 0.5,
    engine: str = "auto",
    *,
    score_clip: float = 0.01,
    n_bins: int | None = None,
    scheduler=None,
    progress: bool = False,
    text_groups: bool = False,
) -> ScoreSummary:
    """Reduce unlabeled scores to their additive summary: :func:`summarize` without labels.

    The parameters are those of :func:`summarize`; a pair ``(scores, groups)``
    of arrays is accepted as the source.
    """
    if isinstance(source, tuple) and len(source) != 2:
        raise InvalidParameterError(
            "Unlabeled arrays are a pair (scores, groups). Got a tuple of "
            f"{len(source)}; for labeled rows call bayesfair.summarize."
        )
    return summarize(
        source, score, group, threshold, engine, score_clip=score_clip, n_bins=n_bins,
        scheduler=scheduler, progress=progress, text_groups=text_groups,
    )  # fmt: skip


def _as_text(values):
    """Group values as text: booleans ``"True"``/``"False"``, everything else ``str``."""
    import pandas as pd

    if isinstance(values, pd.DataFrame):
        return values.apply(_as_text)
    series = pd.Series(values) if not isinstance(values, pd.Series) else values
    return series.astype(object).map(lambda v: v if isinstance(v, str) or pd.isna(v) else str(v))


def _auto_engine(source) -> str:
    kind = f"{type(source).__module__}.{type(source).__name__}"
    if kind.startswith("dask"):
        return "dask"
    if kind.startswith("pyspark"):
        return "spark"
    return "numpy" if _in_memory(source) else "duckdb"


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


def _file_sums(path, score, group_cols, threshold, score_clip, n_bins, text=False, target=None):
    """One file's aggregates, read in batches of rows (bounded memory)."""
    import pandas as pd

    columns = list(group_cols)  # not named 'columns': dask.from_map passes its own
    keep = [score, *columns, *([target[0]] if target else [])]
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
        batches = (b.assign(**{c: _as_text(b[c]) for c in columns}) for b in batches)
    parts = [
        _partition_sums(b, score, columns, threshold, score_clip, n_bins, path, target)
        for b in batches
    ]
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
            f"row(s) are not, the first{origin} (value {y[np.flatnonzero(bad)[0]]!r})."
        )
    return y if pos_label == 1.0 else 1.0 - y


def _partition_sums(frame, score, columns, threshold, score_clip, n_bins, origin=None, target=None):
    """One partition's aggregates as a pandas frame (the NumPy arithmetic).

    ``origin``, the file every row came from, is named in an error.
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
            f"(value {s[np.flatnonzero(bad)[0]]!r})."
        )
    if missing.any():
        raise InvalidParameterError(
            f"Group column(s) {columns} must not contain missing values: {int(missing.sum())} "
            f"row(s) of a partition do, the first{where}."
        )
    y = None if target is None else _positives(frame[target[0]], target[1], where)
    out = _empty_sums(target is not None)
    if len(frame):
        labels, _ = _as_groups(frame[columns].reset_index(drop=True), "unlabeled groups")
        codes, levels = pd.factorize(labels, sort=False)
        cols = bin_rows(
            s, codes, len(levels), threshold=threshold, score_clip=score_clip, n_bins=n_bins,
            labels=y,
        )  # fmt: skip
        cols["group"] = np.asarray(levels, dtype=object)[cols.pop("code")]
        out = pd.DataFrame({k: cols[k] for k in _columns(target is not None)})
    out["group"] = out["group"].astype(object)
    out["side"] = out["side"].astype(bool)
    out["bin"] = out["bin"].astype(np.int64)
    return out


# --------------------------------------------------------------------------- dask
def _dask_engine(
    source,
    score,
    columns,
    threshold,
    score_clip,
    n_bins,
    scheduler,
    progress,
    text=False,
    target=None,
):
    dd, distributed = _require("dask")
    client = _dask_client(distributed, scheduler)
    settings = (threshold, score_clip, n_bins)
    if isinstance(source, str | os.PathLike | list | tuple):
        files = _expand(source)
        _kind(files)
        # one task per file, reading it in batches of rows: memory stays bounded
        parts = dd.from_map(
            _file_sums, files, args=(score, columns, *settings, text, target),
            meta=_empty_sums(target is not None), enforce_metadata=False,
        )  # fmt: skip
        return _collect(parts, client, columns, settings, progress, target is not None)
    if not isinstance(source, dd.DataFrame):
        raise InvalidParameterError(
            "The dask engine takes a Dask DataFrame or a path or glob. "
            f"Got {type(source).__name__}."
        )
    ddf = source
    extra = [target[0]] if target else []
    missing = [c for c in [score, *columns, *extra] if c not in ddf.columns]
    if missing:
        raise InvalidParameterError(
            f"The Dask DataFrame has no column(s) {missing}; it has {list(ddf.columns)}."
        )
    ddf = ddf[[score, *columns, *extra]]
    if text:
        ddf = ddf.map_partitions(
            lambda f: f.assign(**{c: _as_text(f[c]) for c in columns}),
            meta={score: float, **dict.fromkeys(columns, object), **dict.fromkeys(extra, float)},
        )
    parts = ddf.map_partitions(
        _partition_sums, score, columns, *settings, None, target,
        meta=_empty_sums(target is not None),
    )  # fmt: skip
    return _collect(parts, client, columns, settings, progress, target is not None)


def _collect(parts, client, columns, settings, progress=False, labeled=False):
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
    return _aggregate({k: frame[k].to_numpy() for k in _columns(labeled)}, *settings, attributes)


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


# --------------------------------------------------------------------------- spark
def _spark_engine(
    source, score, columns, threshold, score_clip, n_bins, scheduler, text=False, target=None
):
    _require("spark")
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql import functions as F

    path = None
    if isinstance(source, DataFrame):
        sdf = source
    elif isinstance(source, str | os.PathLike | list | tuple):
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
            sdf = reader(*files).withColumn(path, F.input_file_name())
        except Exception as exc:
            raise InvalidParameterError(
                f"Spark could not read {files[:3]}: {_spark_message(exc)}"
            ) from None
    else:
        raise InvalidParameterError(
            "The spark engine takes a Spark DataFrame or a path or glob. "
            f"Got {type(source).__name__}."
        )
    extra = [target[0]] if target else []
    missing = [c for c in [score, *columns, *extra] if c not in sdf.columns]
    if missing:
        raise InvalidParameterError(
            f"The Spark DataFrame has no column(s) {missing}; it has {sdf.columns}."
        )
    # Spark's own aggregation, in one pass: the same bin arithmetic as summary.bin_rows.
    s = F.col(score).cast("double")
    types = dict(sdf.dtypes)

    def as_text(c):  # booleans as Python writes them, so that the labels match
        if types.get(c) == "boolean":
            return F.when(F.col(c), "True").when(~F.col(c), "False")
        return F.col(c).cast("string")

    if len(columns) == 1:
        label = as_text(columns[0])
    else:
        label = F.concat_ws(INTERSECTION_SEP, *(as_text(c) for c in columns))
    bad = (s.isNull() | F.isnan(s) | (s < 0) | (s > 1)).cast("long")
    missing_group = F.lit(0).cast("long")
    for col in columns:
        missing_group = F.greatest(missing_group, F.col(col).isNull().cast("long"))
    if target:
        yv = F.col(target[0]).cast("double")
        badlabel = (yv.isNull() | ~yv.isin(0.0, 1.0)).cast("long")
        y = yv if target[1] == 1.0 else 1.0 - yv
    else:
        badlabel, y = F.lit(0).cast("long"), F.lit(0.0)
    c = F.least(F.greatest(s, F.lit(score_clip)), F.lit(1.0 - score_clip))
    lo, hi = bin_edges(score_clip)
    rows = sdf.select(
        label.alias("group"), s.alias("s"), (s >= threshold).alias("side"),
        F.log(c).alias("ls"), F.log(1.0 - c).alias("l1"), bad.alias("bad"),
        missing_group.alias("nogroup"), badlabel.alias("badlabel"), y.alias("y"),
    )  # fmt: skip
    binned = F.floor((F.col("ls") - F.col("l1") - lo) / (hi - lo) * n_bins).cast("long")
    rows = rows.withColumn("bin", F.least(F.greatest(binned, F.lit(0)), F.lit(n_bins - 1)))
    ls, l1, yc = F.col("ls"), F.col("l1"), F.col("y")
    sums = [
        F.count(F.lit(1)).alias("count"), F.sum(ls).alias("sum_log_s"),
        F.sum(l1).alias("sum_log_1ms"), F.sum("s").alias("sum_score"),
        F.sum(ls * ls).alias("sum_sq_log_s"), F.sum(l1 * l1).alias("sum_sq_log_1ms"),
        F.sum(ls * l1).alias("sum_log_s_log_1ms"),
    ]  # fmt: skip
    if target:
        sums += [
            F.sum(yc).alias("positives"), F.sum(yc * ls).alias("pos_sum_log_s"),
            F.sum(yc * l1).alias("pos_sum_log_1ms"),
        ]  # fmt: skip
    aggregated = rows.groupBy("group", "side", "bin").agg(
        *sums, F.sum("bad").alias("bad"), F.sum("nogroup").alias("nogroup"),
        F.sum("badlabel").alias("badlabel"),
    )  # fmt: skip
    try:
        with warnings.catch_warnings():  # PySpark's own notices about pandas >= 3: not ours
            warnings.filterwarnings("ignore", "PySpark does not yet fully support pandas")
            warnings.filterwarnings("ignore", "The copy keyword is deprecated")
            frame = aggregated.toPandas()
    except Exception as exc:  # Spark wraps its errors: keep the first line
        raise InvalidParameterError(_spark_message(exc)) from exc
    n_bad, n_nogroup = int(frame["bad"].sum()), int(frame["nogroup"].sum())
    n_badlabel = int(frame["badlabel"].sum())
    if n_badlabel and not (n_bad or n_nogroup):
        first = sdf.filter(badlabel == 1).limit(1).collect()[0]
        origin = f" in file {first[path]!r}" if path else ""
        raise InvalidParameterError(
            f"Labels must be 0 or 1 (or booleans) without missing values: {n_badlabel} row(s) "
            f"are not, the first{origin} (value {first[target[0]]!r})."
        )
    if n_bad or n_nogroup:
        cond = (bad == 1) if n_bad else (missing_group == 1)
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
    groups = {} if text else _spark_group_values(sdf, columns)
    frame["group"] = [groups.get(g, g) for g in frame["group"]]
    attributes = tuple(columns) if len(columns) > 1 else None
    cols = {k: frame[k].to_numpy() for k in _columns(target is not None)}
    return _aggregate(cols, threshold, score_clip, n_bins, attributes)


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


# --------------------------------------------------------------------------- numpy
def _numpy_engine(source, score, columns, threshold, score_clip, n_bins, target=None):
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
        extra = [target[0]] if target else []
        missing = [c for c in [score, *columns, *extra] if c not in source.columns]
        if missing:
            raise InvalidParameterError(
                f"The frame has no column(s) {missing}; it has {list(source.columns)}."
            )
        scores, groups = source[score], source[columns]
        labels = source[target[0]] if target else None
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
        y = _positives(labels, target[1])
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
        s, codes, len(levels), threshold=threshold, score_clip=score_clip, n_bins=n_bins, labels=y
    )
    cols["group"] = np.asarray([_plain(v) for v in levels], dtype=object)[cols.pop("code")]
    return _aggregate(cols, threshold, score_clip, n_bins, attributes)


# --------------------------------------------------------------------------- duckdb
def _duckdb_engine(
    source,
    score,
    columns,
    threshold,
    score_clip,
    n_bins,
    progress=False,
    text=False,
    target=None,
):
    import duckdb

    con = duckdb.connect()
    if progress:  # DuckDB draws its own bar on the terminal for queries over ~2 s
        con.execute("SET enable_progress_bar = true")
    relation, where = _duckdb_relation(con, source, columns if text else ())
    have = [c.lower() for c in relation.columns]
    extra = [target[0]] if target else []
    missing = [c for c in [score, *columns, *extra] if c.lower() not in have]
    if missing:
        raise InvalidParameterError(
            f"{where} has no column(s) {missing}; it has {relation.columns}."
        )
    q = _quote
    lo, hi = bin_edges(score_clip)
    s = f"CAST({q(score)} AS DOUBLE)"
    types = dict(zip(relation.columns, map(str, relation.types), strict=True))

    def as_text(c):  # booleans as Python writes them, so that the labels match
        if types.get(c) == "BOOLEAN":
            return f"CASE WHEN {q(c)} THEN 'True' WHEN NOT {q(c)} THEN 'False' END"
        return f"CAST({q(c)} AS VARCHAR)"

    if len(columns) == 1:
        label = as_text(columns[0]) if text else q(columns[0])
    else:
        label = f"concat_ws('{INTERSECTION_SEP}', " + ", ".join(map(as_text, columns)) + ")"
    nulls = " OR ".join(f"{q(c)} IS NULL" for c in columns)

    def run(sql, frame=False):  # on the relation's own connection (a user's may not be ours)
        try:
            result = relation.query("_bf_source", sql)
            return result.df() if frame else result.fetchall()
        except duckdb.Error as exc:
            raise InvalidParameterError(
                f"{where} could not be summarised by DuckDB: {exc}"
            ) from None

    y = f"CAST({q(target[0])} AS DOUBLE)" if target else "0.0"
    bad = run(
        f"SELECT count(*) FILTER (WHERE {s} IS NULL OR isnan({s}) OR {s} < 0 OR {s} > 1), "
        f"count(*) FILTER (WHERE {nulls}), "
        f"count(*) FILTER (WHERE {y} IS NULL OR {y} NOT IN (0.0, 1.0)) FROM _bf_source"
    )[0]
    if any(bad):
        _raise_bad_rows(run, s, nulls, where, bad, score, columns, y)
    if target and target[1] == 0.0:
        y = f"(1.0 - {y})"
    label_sums = (
        ", fsum(y) AS positives, fsum(y * ls) AS pos_sum_log_s, fsum(y * l1) AS pos_sum_log_1ms"
        if target
        else ""
    )
    sql = f"""
        WITH clipped AS (
            SELECT {label} AS g, {s} AS s, {y} AS y,
                   least(greatest({s}, {score_clip!r}), {1.0 - score_clip!r}) AS c
            FROM _bf_source
        ), feats AS (
            SELECT g, s, y, s >= {threshold!r} AS side, ln(c) AS ls, ln(1.0 - c) AS l1
            FROM clipped
        )
        SELECT g AS "group", side,
               least(greatest(CAST(floor((ls - l1 - ({lo!r})) / ({hi - lo!r}) * {n_bins})
                     AS BIGINT), 0), {n_bins - 1}) AS bin,
               count(*) AS count, fsum(ls) AS sum_log_s, fsum(l1) AS sum_log_1ms,
               fsum(s) AS sum_score, fsum(ls * ls) AS sum_sq_log_s,
               fsum(l1 * l1) AS sum_sq_log_1ms, fsum(ls * l1) AS sum_log_s_log_1ms
               {label_sums}
        FROM feats GROUP BY ALL
    """
    frame = run(sql, frame=True)
    con.close()
    attributes = tuple(columns) if len(columns) > 1 else None
    cols = {k: frame[k].to_numpy() for k in _columns(target is not None)}
    return _aggregate(cols, threshold, score_clip, n_bins, attributes)


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


def _raise_bad_rows(run, s, nulls, where, bad, score, columns, y="0.0"):
    """Name the first offending row and, for files, the file it came from."""
    conds = (f"{s} IS NULL OR isnan({s}) OR {s} < 0 OR {s} > 1", nulls,
             f"{y} IS NULL OR {y} NOT IN (0.0, 1.0)")  # fmt: skip
    which = next(i for i in range(3) if bad[i])
    cond = conds[which]
    if which == 2:
        s = y
    try:
        row = run(f"SELECT filename, {s} FROM _bf_source WHERE {cond} LIMIT 1")[0]
        origin = f"in file {row[0]!r}"
        value = row[1]
    except InvalidParameterError:
        row = run(f"SELECT {s} FROM _bf_source WHERE {cond} LIMIT 1")[0]
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
