"""Scored rows from any source, reduced to an additive summary inside an engine.

:func:`summarize_unlabeled` summarises unlabeled rows, :func:`summarize` labeled
ones (``label=``); both run the one private implementation.

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

from bayesfair._internal.names import as_text
from bayesfair._internal.validation import check_threshold
from bayesfair.data.engines._common import (
    EngineRun,
    LabelColumn,
    SummaryGrid,
    _in_memory,
)
from bayesfair.data.engines.dask import dask_engine
from bayesfair.data.engines.duckdb import duckdb_engine
from bayesfair.data.engines.numpy import numpy_engine
from bayesfair.data.engines.spark import spark_engine
from bayesfair.data.summary import (
    DEFAULT_BINS,
    ScoreSummary,
)
from bayesfair.exceptions import InvalidParameterError

ENGINES = ("auto", "numpy", "duckdb", "dask", "spark")


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
    progressbar: bool = False,
    text_groups: bool = False,
) -> ScoreSummary:
    """Reduce labeled scored rows to their additive summary without loading them.

    This is the function for labeled rows (``label=``, or a triple of arrays); for
    unlabeled rows call :func:`summarize_unlabeled`.

    Parameters
    ----------
    source
        A Parquet or CSV path or glob (``"logs/*.parquet"``; a URL such as
        ``s3://…`` is passed to the engine, which must be set up to read it, e.g.
        DuckDB's ``httpfs``), a list of them, a DuckDB relation, a SQL query
        (``"SELECT ... FROM ..."``), a pandas or polars DataFrame, a Dask or
        Spark DataFrame, or a triple of arrays ``(scores, groups, labels)``.
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
        The true-label column: the summary also holds, per bin, the positives
        and their sums of ``ln c`` and ``ln(1 − c)``. A triple of arrays needs
        none (its third array is the labels); any other source does.
    pos_label : int, float or bool
        The label value of a positive; the other value must be its complement
        in {0, 1} (or ``False``/``True``). Labels other than these, or missing,
        are an error (recode text labels before summarising).
    scheduler : str or object, optional
        Dask: a ``distributed.Client`` or a scheduler address
        (``"tcp://host:8786"``); default the current client or Dask's local
        scheduler. Spark: a master URL (``"spark://host:7077"``,
        ``"local[4]"``); default the active session or ``local[*]``.
    progressbar : bool
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
        A labeled summary.

    Raises
    ------
    InvalidParameterError
        For an unknown engine, a glob that matches nothing, a missing column
        (``label`` not given for a source other than a triple of arrays), a score
        that is NaN or outside [0, 1], or a label that is missing or not binary
        (naming the file where the engine can).
    """
    if label is None and not (isinstance(source, tuple) and len(source) == 3):
        raise InvalidParameterError(
            "summarize reduces labeled rows: give the label column (label='y'), or call "
            "bayesfair.summarize_unlabeled(...) for rows without labels."
        )
    return _summarize(
        source,
        score,
        group,
        engine,
        grid=_checked_grid(threshold, score_clip, n_bins),
        label=label,
        pos_label=pos_label,
        run=EngineRun(scheduler, progressbar, text_groups),
    )


def _checked_grid(threshold, score_clip, n_bins) -> SummaryGrid:
    """The grid of :func:`summarize` and :func:`summarize_unlabeled`, its values checked."""
    threshold = check_threshold(threshold)
    n_bins = DEFAULT_BINS if n_bins is None else int(n_bins)
    if n_bins < 1:
        raise InvalidParameterError(f"The 'n_bins' parameter must be positive. Got {n_bins}.")
    if not 0.0 < score_clip < 0.5:
        raise InvalidParameterError(
            f"The 'score_clip' parameter must be in (0, 0.5). Got {score_clip}."
        )
    return SummaryGrid(threshold, score_clip, n_bins)


def _summarize(
    source, score, group, engine, *, grid: SummaryGrid, label, pos_label, run: EngineRun
) -> ScoreSummary:
    """:func:`summarize` and :func:`summarize_unlabeled` (``label=None``) on a checked grid."""
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
    target = None if label is None else LabelColumn(label, float(pos_label))
    if engine == "numpy":
        if run.text_groups and not isinstance(source, tuple):
            source = source.assign(**{c: as_text(source[c]) for c in columns if c in source})
        elif run.text_groups:
            source = (source[0], as_text(source[1]), *source[2:])
        return numpy_engine(source, score, columns, grid, target)
    if engine == "dask":
        return dask_engine(source, score, columns, grid, run, target)
    if engine == "spark":
        return spark_engine(source, score, columns, grid, run, target)
    return duckdb_engine(source, score, columns, grid, run, target)


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
    progressbar: bool = False,
    text_groups: bool = False,
) -> ScoreSummary:
    """Reduce unlabeled scored rows to their additive summary without loading them.

    This is the function for unlabeled rows; for labeled rows call
    :func:`summarize` with ``label=``. The engines and the parameters are those
    of :func:`summarize`, without the labels; a pair ``(scores, groups)`` of
    arrays is accepted as the source.

    Parameters
    ----------
    source
        As in :func:`summarize`, but unlabeled: a path or glob, a list of them,
        a DuckDB relation, a SQL query, a pandas, polars, Dask or Spark
        DataFrame, or a pair ``(scores, groups)`` of arrays (any other tuple is
        an error).
    score : str, default "score"
        The score column (ignored for arrays).
    group : str or list of str, default "group"
        The group column(s); several define intersectional groups ``"v1 & v2"``.
    threshold : float, default 0.5
        ŷ = 1 when ``score >= threshold``.
    engine : {"auto", "numpy", "duckdb", "dask", "spark"}, default "auto"
        The engine that computes the sums (:func:`summarize`).
    score_clip : float, default 0.01
        ε of the clipping ``[ε, 1 − ε]`` before the logs, in (0, 0.5).
    n_bins : int, optional
        Bins per group and side (default 1,024).
    scheduler : str or object, optional
        Dask or Spark only: the client, scheduler address or master URL
        (:func:`summarize`).
    progressbar : bool, default False
        Show the engine's progress (DuckDB, Dask) on the terminal.
    text_groups : bool, default False
        Read the group columns as text, as written in a CSV file.

    Returns
    -------
    ScoreSummary
        An unlabeled summary (no label columns).

    Raises
    ------
    InvalidParameterError
        For a tuple source that is not a pair, and as :func:`summarize`.
    """
    if isinstance(source, tuple) and len(source) != 2:
        raise InvalidParameterError(
            "Unlabeled arrays are a pair (scores, groups). Got a tuple of "
            f"{len(source)}; for labeled rows call bayesfair.summarize."
        )
    return _summarize(
        source,
        score,
        group,
        engine,
        grid=_checked_grid(threshold, score_clip, n_bins),
        label=None,
        pos_label=1,
        run=EngineRun(scheduler, progressbar, text_groups),
    )


def _auto_engine(source) -> str:
    kind = f"{type(source).__module__}.{type(source).__name__}"
    if kind.startswith("dask"):
        return "dask"
    if kind.startswith("pyspark"):
        return "spark"
    return "numpy" if _in_memory(source) else "duckdb"
