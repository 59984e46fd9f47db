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
from dataclasses import dataclass, field

import numpy as np

from bayesfair.exceptions import InvalidParameterError

__all__ = ["ENGINES", "UnlabeledScores", "summarize_unlabeled"]

ENGINES = ("auto", "numpy", "duckdb", "dask", "spark")
#: The extra that installs each optional engine.
EXTRAS = {"dask": "dask", "spark": "spark"}
_SEP = " & "  # as bayesfair.data.INTERSECTION_SEP


@dataclass(frozen=True)
class UnlabeledScores:
    """Additive summary of unlabeled scores: one row per non-empty (group, side, bin).

    Build it with :func:`summarize_unlabeled`; pass it to
    :class:`~bayesfair.AssessmentData` as ``unlabeled=``. Two summaries with
    the same settings merge with ``+``.

    Attributes
    ----------
    group : numpy.ndarray of object
        Group label of each row (for several attributes, ``"v1 & v2"``).
    side : numpy.ndarray of bool
        ŷ = 1 (score at or above the threshold).
    bin : numpy.ndarray of int
    count : numpy.ndarray of int
    sum_log_s, sum_log_1ms, sum_score : numpy.ndarray of float
        Sums of ``ln c``, ``ln(1 − c)`` (clipped score ``c``) and of the raw score.
    threshold, score_clip : float
    n_bins : int
    attributes : tuple of str or None
        The group columns the labels were built from.
    """

    group: np.ndarray
    side: np.ndarray
    bin: np.ndarray
    count: np.ndarray
    sum_log_s: np.ndarray
    sum_log_1ms: np.ndarray
    sum_score: np.ndarray
    threshold: float
    score_clip: float
    n_bins: int
    attributes: tuple | None = field(default=None)

    @property
    def n_total(self) -> int:
        """Number of unlabeled examples summarised."""
        return int(self.count.sum())

    @property
    def group_levels(self) -> list:
        """The distinct group labels."""
        return list(dict.fromkeys(self.group.tolist()))

    def __add__(self, other: UnlabeledScores) -> UnlabeledScores:
        if not isinstance(other, UnlabeledScores):
            return NotImplemented
        mine = (self.threshold, self.score_clip, self.n_bins, self.attributes)
        theirs = (other.threshold, other.score_clip, other.n_bins, other.attributes)
        if mine != theirs:
            raise InvalidParameterError(
                "Only summaries with the same threshold, score_clip, n_bins and group "
                f"columns can be added. Got {mine} and {theirs}."
            )
        return _aggregate(
            {k: np.concatenate([getattr(self, k), getattr(other, k)]) for k in _COLUMNS},
            self.threshold, self.score_clip, self.n_bins, self.attributes,
        )  # fmt: skip

    def to_frame(self):
        """The rows as a pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame({k: getattr(self, k) for k in _COLUMNS})

    def __repr__(self) -> str:
        return (
            f"UnlabeledScores(n_total={self.n_total}, groups={self.group_levels!r}, "
            f"threshold={self.threshold}, rows={self.count.size})"
        )


_COLUMNS = ("group", "side", "bin", "count", "sum_log_s", "sum_log_1ms", "sum_score")


def _aggregate(cols, threshold, score_clip, n_bins, attributes) -> UnlabeledScores:
    """Sum rows with the same (group, side, bin); sort by group label, side, bin."""
    import pandas as pd

    frame = pd.DataFrame(cols)
    if len(frame):
        frame = frame.groupby(["group", "side", "bin"], sort=True, as_index=False).sum()
    return UnlabeledScores(
        group=np.asarray([_plain(g) for g in frame["group"]], dtype=object),
        side=frame["side"].to_numpy(bool),
        bin=frame["bin"].to_numpy(np.int64),
        count=frame["count"].to_numpy(np.int64),
        sum_log_s=frame["sum_log_s"].to_numpy(float),
        sum_log_1ms=frame["sum_log_1ms"].to_numpy(float),
        sum_score=frame["sum_score"].to_numpy(float),
        threshold=float(threshold),
        score_clip=float(score_clip),
        n_bins=int(n_bins),
        attributes=attributes,
    )


def _plain(v):
    return v.item() if isinstance(v, np.generic) else v


def _edges(score_clip: float) -> tuple[float, float]:
    lo = float(np.log(score_clip) - np.log(1.0 - score_clip))
    return lo, -lo


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
) -> UnlabeledScores:
    """Reduce unlabeled scores to their additive summary without loading them.

    Parameters
    ----------
    source
        A Parquet or CSV path or glob (``"logs/*.parquet"``; a URL such as
        ``s3://…`` is passed to the engine, which must be set up to read it, e.g.
        DuckDB's ``httpfs``), a list of them, a DuckDB relation, a SQL query
        (``"SELECT ... FROM ..."``), a pandas or polars DataFrame, a Dask or
        Spark DataFrame, or a pair ``(scores, groups)`` of arrays.
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
        numbers their text). The command line does this on both of its files.
    score_clip : float
        ε of the clipping ``[ε, 1 − ε]`` before the logs (the models' default).
    n_bins : int, optional
        Bins per group and side (default 1,024).

    Returns
    -------
    UnlabeledScores

    Raises
    ------
    InvalidParameterError
        For an unknown engine, a glob that matches nothing, a missing column,
        or a score that is NaN or outside [0, 1] (naming the file where the
        engine can).
    """
    from bayesfair.data import AssessmentData
    from bayesfair.models.unlabeled import DEFAULT_BINS

    threshold = AssessmentData._check_threshold(threshold)
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
    columns = [group] if isinstance(group, str) else list(group)
    if engine == "auto":
        engine = _auto_engine(source)
    settings = (threshold, score_clip, n_bins)
    if engine == "numpy":
        if text_groups and not isinstance(source, tuple):
            source = source.assign(**{c: _as_text(source[c]) for c in columns if c in source})
        elif text_groups:
            source = (source[0], _as_text(source[1]))
        return _numpy_engine(source, score, columns, *settings)
    if engine == "dask":
        return _dask_engine(source, score, columns, *settings, scheduler, progress, text_groups)
    if engine == "spark":
        return _spark_engine(source, score, columns, *settings, scheduler, text_groups)
    return _duckdb_engine(source, score, columns, *settings, progress, text_groups)


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


def _file_sums(path, score, group_cols, threshold, score_clip, n_bins, text=False):
    """One file's aggregates, read in batches of rows (bounded memory)."""
    import pandas as pd

    columns = list(group_cols)  # not named 'columns': dask.from_map passes its own
    keep = [score, *columns]
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
        _partition_sums(b, score, columns, threshold, score_clip, n_bins, origin=path)
        for b in batches
    ]
    return pd.concat(parts, ignore_index=True) if parts else _empty_sums()


def _empty_sums():
    import pandas as pd

    return pd.DataFrame(
        {"group": pd.Series([], dtype=object), "side": pd.Series([], dtype=bool),
         "bin": pd.Series([], dtype=np.int64), "count": pd.Series([], dtype=np.int64),
         "sum_log_s": pd.Series([], dtype=float), "sum_log_1ms": pd.Series([], dtype=float),
         "sum_score": pd.Series([], dtype=float)}
    )  # fmt: skip


def _partition_sums(frame, score, columns, threshold, score_clip, n_bins, origin=None):
    """One partition's aggregates as a pandas frame (the NumPy arithmetic).

    ``origin``, the file every row came from, is named in an error.
    """
    import pandas as pd

    from bayesfair.data import _as_groups

    s = frame[score].to_numpy(dtype=float, na_value=np.nan)
    bad = ~((s >= 0.0) & (s <= 1.0))
    missing = frame[columns].isna().to_numpy().any(axis=1)
    if bad.any() or missing.any():
        origin = f" in file {origin!r}" if origin is not None else ""
        if bad.any():
            raise InvalidParameterError(
                f"Column {score!r} must hold scores in [0, 1] without missing values: "
                f"{int(bad.sum())} row(s) of a partition do not, the first{origin} "
                f"(value {s[np.flatnonzero(bad)[0]]!r})."
            )
        raise InvalidParameterError(
            f"Group column(s) {columns} must not contain missing values: {int(missing.sum())} "
            f"row(s) of a partition do, the first{origin}."
        )
    out = _empty_sums()
    if len(frame):
        labels, _ = _as_groups(frame[columns].reset_index(drop=True), "unlabeled groups")
        codes, levels = pd.factorize(labels, sort=False)
        cols = bin_sums(s, codes, len(levels), threshold, score_clip, n_bins)
        cols["group"] = np.asarray(levels, dtype=object)[cols.pop("code")]
        out = pd.DataFrame({k: cols[k] for k in _COLUMNS})
    out["group"] = out["group"].astype(object)
    out["side"] = out["side"].astype(bool)
    out["bin"] = out["bin"].astype(np.int64)
    out["count"] = out["count"].astype(np.int64)
    return out


# --------------------------------------------------------------------------- dask
def _dask_engine(
    source, score, columns, threshold, score_clip, n_bins, scheduler, progress, text=False
):
    dd, distributed = _require("dask")
    client = _dask_client(distributed, scheduler)
    settings = (threshold, score_clip, n_bins)
    if isinstance(source, str | os.PathLike | list | tuple):
        files = _expand(source)
        _kind(files)
        # one task per file, reading it in batches of rows: memory stays bounded
        parts = dd.from_map(
            _file_sums, files, args=(score, columns, *settings, text), meta=_empty_sums(),
            enforce_metadata=False,
        )  # fmt: skip
        return _collect(parts, client, columns, settings, progress)
    if not isinstance(source, dd.DataFrame):
        raise InvalidParameterError(
            "The dask engine takes a Dask DataFrame or a path or glob. "
            f"Got {type(source).__name__}."
        )
    ddf = source
    missing = [c for c in [score, *columns] if c not in ddf.columns]
    if missing:
        raise InvalidParameterError(
            f"The Dask DataFrame has no column(s) {missing}; it has {list(ddf.columns)}."
        )
    ddf = ddf[[score, *columns]]
    if text:
        ddf = ddf.map_partitions(
            lambda f: f.assign(**{c: _as_text(f[c]) for c in columns}),
            meta={score: float, **dict.fromkeys(columns, object)},
        )
    parts = ddf.map_partitions(_partition_sums, score, columns, *settings, meta=_empty_sums())
    return _collect(parts, client, columns, settings, progress)


def _collect(parts, client, columns, settings, progress=False):
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
    return _aggregate({k: frame[k].to_numpy() for k in _COLUMNS}, *settings, attributes)


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
def _spark_engine(source, score, columns, threshold, score_clip, n_bins, scheduler, text=False):
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
    missing = [c for c in [score, *columns] if c not in sdf.columns]
    if missing:
        raise InvalidParameterError(
            f"The Spark DataFrame has no column(s) {missing}; it has {sdf.columns}."
        )
    # Spark's own aggregation, in one pass: the same bin arithmetic as bin_sums.
    s = F.col(score).cast("double")
    types = dict(sdf.dtypes)

    def as_text(c):  # booleans as Python writes them, so that the labels match
        if types.get(c) == "boolean":
            return F.when(F.col(c), "True").when(~F.col(c), "False")
        return F.col(c).cast("string")

    if len(columns) == 1:
        label = as_text(columns[0])
    else:
        label = F.concat_ws(_SEP, *(as_text(c) for c in columns))
    bad = (s.isNull() | F.isnan(s) | (s < 0) | (s > 1)).cast("long")
    missing_group = F.lit(0).cast("long")
    for col in columns:
        missing_group = F.greatest(missing_group, F.col(col).isNull().cast("long"))
    c = F.least(F.greatest(s, F.lit(score_clip)), F.lit(1.0 - score_clip))
    lo, hi = _edges(score_clip)
    rows = sdf.select(
        label.alias("group"), s.alias("s"), (s >= threshold).alias("side"),
        F.log(c).alias("ls"), F.log(1.0 - c).alias("l1"), bad.alias("bad"),
        missing_group.alias("nogroup"),
    )  # fmt: skip
    binned = F.floor((F.col("ls") - F.col("l1") - lo) / (hi - lo) * n_bins).cast("long")
    rows = rows.withColumn("bin", F.least(F.greatest(binned, F.lit(0)), F.lit(n_bins - 1)))
    aggregated = rows.groupBy("group", "side", "bin").agg(
        F.count(F.lit(1)).alias("count"), F.sum("ls").alias("sum_log_s"),
        F.sum("l1").alias("sum_log_1ms"), F.sum("s").alias("sum_score"),
        F.sum("bad").alias("bad"), F.sum("nogroup").alias("nogroup"),
    )  # fmt: skip
    try:
        with warnings.catch_warnings():  # PySpark's own notices about pandas >= 3: not ours
            warnings.filterwarnings("ignore", "PySpark does not yet fully support pandas")
            warnings.filterwarnings("ignore", "The copy keyword is deprecated")
            frame = aggregated.toPandas()
    except Exception as exc:  # Spark wraps its errors: keep the first line
        raise InvalidParameterError(_spark_message(exc)) from exc
    n_bad, n_nogroup = int(frame["bad"].sum()), int(frame["nogroup"].sum())
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
    return _aggregate({k: frame[k].to_numpy() for k in _COLUMNS}, threshold, score_clip,
                      n_bins, attributes)  # fmt: skip


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
def bin_sums(s, codes, n_groups: int, threshold, score_clip, n_bins) -> dict:
    """Per non-empty (group code, side, bin): count and sums, from arrays in memory."""
    lo, hi = _edges(score_clip)
    side = s >= threshold
    c = np.clip(s, score_clip, 1.0 - score_clip)
    log_s, log_1ms = np.log(c), np.log(1.0 - c)
    b = np.clip(np.floor((log_s - log_1ms - lo) / (hi - lo) * n_bins), 0, n_bins - 1)
    cell = (np.asarray(codes, dtype=np.intp) * 2 + side) * n_bins + b.astype(np.intp)
    size = max(n_groups, 1) * 2 * n_bins
    count = np.bincount(cell, minlength=size)
    keep = np.flatnonzero(count)
    return {
        "code": keep // (2 * n_bins),
        "side": (keep // n_bins) % 2 == 1,
        "bin": keep % n_bins,
        "count": count[keep],
        "sum_log_s": np.bincount(cell, weights=log_s, minlength=size)[keep],
        "sum_log_1ms": np.bincount(cell, weights=log_1ms, minlength=size)[keep],
        "sum_score": np.bincount(cell, weights=s, minlength=size)[keep],
    }


def _numpy_engine(source, score, columns, threshold, score_clip, n_bins):
    import pandas as pd

    from bayesfair.data import _as_groups, _as_scores

    if isinstance(source, tuple):
        scores, groups = source
        attributes = None
    elif isinstance(source, pd.DataFrame):
        missing = [c for c in [score, *columns] if c not in source.columns]
        if missing:
            raise InvalidParameterError(
                f"The frame has no column(s) {missing}; it has {list(source.columns)}."
            )
        scores, groups = source[score], source[columns]
        attributes = tuple(columns) if len(columns) > 1 else None
    else:
        raise InvalidParameterError(
            "The numpy engine takes a pandas DataFrame or a pair (scores, groups) of arrays. "
            f"Got {type(source).__name__}."
        )
    s = _as_scores(scores, "unlabeled scores")
    labels, _ = _as_groups(groups, "unlabeled groups")
    if len(labels) != s.size:
        raise InvalidParameterError(
            f"The unlabeled scores ({s.size}) and groups ({len(labels)}) differ in length."
        )
    codes, levels = pd.factorize(labels, sort=False)
    cols = bin_sums(s, codes, len(levels), threshold, score_clip, n_bins)
    cols["group"] = np.asarray([_plain(v) for v in levels], dtype=object)[cols.pop("code")]
    return _aggregate(cols, threshold, score_clip, n_bins, attributes)


# --------------------------------------------------------------------------- duckdb
def _duckdb_engine(
    source, score, columns, threshold, score_clip, n_bins, progress=False, text=False
):
    import duckdb

    con = duckdb.connect()
    if progress:  # DuckDB draws its own bar on the terminal for queries over ~2 s
        con.execute("SET enable_progress_bar = true")
    relation, where = _duckdb_relation(con, source, columns if text else ())
    have = [c.lower() for c in relation.columns]
    missing = [c for c in [score, *columns] if c.lower() not in have]
    if missing:
        raise InvalidParameterError(
            f"{where} has no column(s) {missing}; it has {relation.columns}."
        )
    q = _quote
    lo, hi = _edges(score_clip)
    s = f"CAST({q(score)} AS DOUBLE)"
    types = dict(zip(relation.columns, map(str, relation.types), strict=True))

    def as_text(c):  # booleans as Python writes them, so that the labels match
        if types.get(c) == "BOOLEAN":
            return f"CASE WHEN {q(c)} THEN 'True' WHEN NOT {q(c)} THEN 'False' END"
        return f"CAST({q(c)} AS VARCHAR)"

    if len(columns) == 1:
        label = as_text(columns[0]) if text else q(columns[0])
    else:
        label = "concat_ws(" + f"'{_SEP}', " + ", ".join(as_text(c) for c in columns) + ")"
    nulls = " OR ".join(f"{q(c)} IS NULL" for c in columns)

    def run(sql, frame=False):  # on the relation's own connection (a user's may not be ours)
        try:
            result = relation.query("_bf_source", sql)
            return result.df() if frame else result.fetchall()
        except duckdb.Error as exc:
            raise InvalidParameterError(
                f"{where} could not be summarised by DuckDB: {exc}"
            ) from None

    bad = run(
        f"SELECT count(*) FILTER (WHERE {s} IS NULL OR isnan({s}) OR {s} < 0 OR {s} > 1), "
        f"count(*) FILTER (WHERE {nulls}) FROM _bf_source"
    )[0]
    if bad[0] or bad[1]:
        _raise_bad_rows(run, s, nulls, where, bad, score, columns)
    sql = f"""
        WITH clipped AS (
            SELECT {label} AS g, {s} AS s,
                   least(greatest({s}, {score_clip!r}), {1.0 - score_clip!r}) AS c
            FROM _bf_source
        ), feats AS (
            SELECT g, s, s >= {threshold!r} AS side, ln(c) AS ls, ln(1.0 - c) AS l1
            FROM clipped
        )
        SELECT g AS "group", side,
               least(greatest(CAST(floor((ls - l1 - ({lo!r})) / ({hi - lo!r}) * {n_bins})
                     AS BIGINT), 0), {n_bins - 1}) AS bin,
               count(*) AS count, fsum(ls) AS sum_log_s, fsum(l1) AS sum_log_1ms,
               fsum(s) AS sum_score
        FROM feats GROUP BY ALL
    """
    frame = run(sql, frame=True)
    con.close()
    attributes = tuple(columns) if len(columns) > 1 else None
    return _aggregate({k: frame[k].to_numpy() for k in _COLUMNS}, threshold, score_clip,
                      n_bins, attributes)  # fmt: skip


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


def _raise_bad_rows(run, s, nulls, where, bad, score, columns):
    """Name the first offending row and, for files, the file it came from."""
    cond = f"{s} IS NULL OR isnan({s}) OR {s} < 0 OR {s} > 1" if bad[0] else nulls
    try:
        row = run(f"SELECT filename, {s} FROM _bf_source WHERE {cond} LIMIT 1")[0]
        origin = f"in file {row[0]!r}"
        value = row[1]
    except InvalidParameterError:
        row = run(f"SELECT {s} FROM _bf_source WHERE {cond} LIMIT 1")[0]
        origin, value = f"in {where[4:].lower()}", row[0]
    if bad[0]:
        raise InvalidParameterError(
            f"Column {score!r} must hold scores in [0, 1] without missing values: "
            f"{bad[0]} row(s) do not, the first {origin} (value {value!r})."
        )
    raise InvalidParameterError(
        f"Group column(s) {columns} must not contain missing values: {bad[1]} row(s) do, "
        f"the first {origin}."
    )
