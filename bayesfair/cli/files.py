"""The command line's files: reading tables (CSV, TSV, Parquet; compressed), checking
their columns and values, summarising large ones through the engines
(:mod:`bayesfair.data.sources`), and writing reports atomically."""

from __future__ import annotations

import os
import re
from pathlib import Path

import click

from bayesfair._internal.names import as_text
from bayesfair.cli._errors import BadInput as _BadInput
from bayesfair.cli._errors import one_line as _one_line
from bayesfair.data.assessment import AssessmentData
from bayesfair.data.sources import summarize, summarize_unlabeled


def _echo(quiet: bool, message: str) -> None:
    """A progress line on stderr, wrapped to 80 columns (nothing with --quiet)."""
    import textwrap

    if not quiet:
        click.echo(textwrap.fill(message, 80, subsequent_indent="  "), err=True)


_READERS = {".csv": "csv", ".tsv": "tsv", ".txt": "csv", ".parquet": "parquet", ".pq": "parquet"}
_FORMATS = {".html": "html", ".htm": "html", ".md": "md", ".markdown": "md", ".json": "json"}


_COMPRESSION = (".gz", ".bz2", ".xz", ".zip", ".zst")


def _format_of(path) -> str | None:
    """``csv``, ``tsv`` or ``parquet`` from the suffix, looking through a compression suffix."""
    from pathlib import Path

    name = Path(path).name.lower()
    for ext in _COMPRESSION:
        if name.endswith(ext):
            name = name[: -len(ext)]
            break
    return _READERS.get(Path(name).suffix)


def _separator(path) -> str | None:
    """The separator DuckDB's CSV sniffer finds, or None where DuckDB cannot open the file
    (``.bz2``, ``.xz``, ``.zip``): pandas then sniffs it itself (``sep=None``)."""
    import duckdb

    try:
        with duckdb.connect() as con:
            return con.execute("SELECT delimiter FROM sniff_csv(?)", [str(path)]).fetchone()[0]
    except duckdb.Error:
        return None


def encoding_option(ctx, param, value):
    """A click callback: ``--encoding`` must name a codec Python knows."""
    import codecs

    if value is None:
        return None
    try:
        return codecs.lookup(value).name
    except LookupError:
        raise _BadInput(
            f"--encoding {value}: unknown encoding; try utf-8, latin-1 or cp1252."
        ) from None


def reading_engine(engine: str, encoding: str | None) -> str:
    """The engine that reads the files: files in an encoding other than UTF-8 are read in
    memory by pandas (DuckDB, Dask and Spark read UTF-8)."""
    if encoding is None or encoding.replace("_", "-") in ("utf-8", "utf-8-sig"):
        return engine
    if engine in ("dask", "spark"):
        raise _BadInput(
            f"--encoding {encoding} needs --engine memory or duckdb (files in another "
            f"encoding than UTF-8 are read in memory), not --engine {engine}."
        )
    return "memory"


def _header_names(p, sep, encoding) -> list[str]:
    """The names in a CSV file's header, as written (pandas renames a repeated one)."""
    import pandas as pd

    head = pd.read_csv(
        p, sep=sep, engine=None if sep else "python", encoding=encoding, header=None, nrows=1
    )
    return [str(v) for v in head.iloc[0].tolist()] if len(head) else []


def _read_table(
    path: str, which: str, sep: str | None = None, text_columns=(), encoding: str | None = None
):
    """Read a CSV/TSV/Parquet file into a DataFrame; any failure is a :class:`_BadInput`.

    CSV may be compressed (``.gz``, ``.bz2``, ``.xz``, ``.zip``, ``.zst``), start
    with a byte-order mark, end lines with CRLF, and be separated by ``,``,
    ``;``, tab or ``|`` (found by DuckDB's or pandas' CSV sniffer unless ``sep`` is
    given).
    ``text_columns`` are read as text, as written (``"01"`` stays ``"01"``).
    ``encoding``: the CSV file's text encoding (default UTF-8). A header that repeats
    a column name is refused (pandas would rename the second and read the first).
    """
    from pathlib import Path

    import pandas as pd

    p = Path(path)
    kind = _format_of(p)
    if kind is None:
        raise _BadInput(
            f"Cannot tell the format of the {which} file '{path}' from its suffix "
            f"'{p.suffix}': use .csv, .tsv or .parquet (optionally compressed, e.g. .csv.gz)."
        )
    if not p.exists():
        raise _BadInput(f"The {which} file '{path}' does not exist.")
    if not p.is_file():
        raise _BadInput(f"The {which} file '{path}' is not a regular file.")
    if p.stat().st_size == 0:
        raise _BadInput(f"The {which} file '{path}' is empty.")
    try:
        if kind == "parquet":
            try:
                frame = pd.read_parquet(p)
            except ImportError:
                raise _BadInput(
                    f"Reading the Parquet file '{path}' needs pyarrow, which is not installed: "
                    "install it (pip install pyarrow) or convert the file to CSV."
                ) from None
            for c in text_columns:
                if c in frame.columns:
                    frame[c] = as_text(frame[c])
        else:
            sep = sep or _separator(p)
            frame = pd.read_csv(
                p,
                sep=sep,
                engine=None if sep else "python",
                encoding=encoding or "utf-8-sig",
                dtype=dict.fromkeys(text_columns, str),
            )
            names = _header_names(p, sep, encoding or "utf-8-sig")
            repeated = sorted({n for n in names if names.count(n) > 1})
            if repeated:
                raise _BadInput(
                    f"The {which} file '{path}' repeats the column name(s) {repeated} in its "
                    "header: give each column its own name (pandas would silently read the "
                    "first and rename the others)."
                )
    except _BadInput:
        raise
    except pd.errors.EmptyDataError:
        raise _BadInput(f"The {which} file '{path}' is empty (no header row).") from None
    except UnicodeDecodeError:
        said = encoding or "UTF-8"
        raise _BadInput(
            f"The {which} file '{path}' is not {said} text. If it is {kind} in another "
            "encoding, pass it with --encoding (e.g. --encoding latin-1 or cp1252)."
        ) from None
    except OSError as exc:
        raise _BadInput(f"Cannot read the {which} file '{path}': {exc.strerror or exc}.") from None
    except Exception as exc:  # parser errors of pandas and pyarrow have many types
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise _BadInput(f"Cannot parse the {which} file '{path}' as {kind}: {first}") from None
    if len(frame) == 0:
        raise _BadInput(f"The {which} file '{path}' has a header but no rows.")
    frame.attrs["path"], frame.attrs["kind"] = str(path), kind
    return frame


def _where(frame, position: int) -> str:
    """``line N of FILE`` (CSV, header is line 1) or ``row N of FILE`` (Parquet), 1-based."""
    path = frame.attrs.get("path", "the file")
    if frame.attrs.get("kind") == "parquet":
        return f"row {position + 1} of '{path}'"
    return f"line {position + 2} of '{path}'"


def _check_columns(frame, which, **flags) -> None:
    """Every named column is in the file; else name the flag and hint at the separator."""
    for flag, cols in flags.items():
        for col in cols:
            if col in frame.columns:
                continue
            names = list(map(str, frame.columns))
            msg = (
                f"The {which} file '{frame.attrs.get('path')}' has no column {col!r} "
                f"(--{flag.replace('_', '-')} {col}); its columns are {names}."
            )
            if len(frame.columns) == 1:
                header = str(frame.columns[0])
                found = next((s for s in (";", "\t", "|", ",") if s in header), None)
                if found:
                    shown = "tab" if found == "\t" else repr(found)
                    msg += f" The header looks separated by {shown}: pass --sep {shown}."
            raise _BadInput(msg)


def _score_fix(raw, numeric) -> str:
    """What to do about scores outside [0, 1], where the file shows it ("" otherwise)."""
    looks_scaled = numeric.notna().all() and numeric.min() >= 0 and numeric.max() <= 100
    if looks_scaled and (numeric > 1).mean() > 0.5:  # most of them: not one stray value
        return (
            " The scores look like percentages: divide the column by 100 (bayesfair takes "
            "the classifier's probability of the positive class)."
        )
    text = raw[numeric.isna() & raw.notna()].astype(str)
    if len(text) and text.str.fullmatch(r"-?\d+,\d+").all():
        return (
            " The scores are written with a decimal comma: write the file with decimal "
            "points (in pandas, read it with decimal=',' and save it again); the command "
            "line reads decimal points only."
        )
    return ""


def _check_values(frame, score, label, group_cols, pos_label, missing_groups=False) -> None:
    """Scores, labels and groups, with the flag and the line in the message (a missing group
    is refused unless ``missing_groups``: a proxy's probabilities stand in for it)."""
    import numpy as np
    import pandas as pd

    s = pd.to_numeric(frame[score], errors="coerce")
    bad = s.isna() | (s < 0) | (s > 1)
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        value = frame[score].iloc[i]
        shown = repr(value) if isinstance(value, str) else str(value)
        raise _BadInput(
            f"--score {score}: {_where(frame, i)} holds {shown}, not a score "
            f"in [0, 1] ({int(bad.sum())} such row(s)).{_score_fix(frame[score], s)}"
        )
    for col in () if missing_groups else group_cols:
        missing = frame[col].isna()
        if missing.any():
            i = int(np.flatnonzero(missing.to_numpy())[0])
            raise _BadInput(
                f"--group {col}: {_where(frame, i)} has no group value "
                f"({int(missing.sum())} such row(s))."
            )
    if label is not None:
        missing = frame[label].isna()
        if missing.any():
            i = int(np.flatnonzero(missing.to_numpy())[0])
            raise _BadInput(f"--label {label}: {_where(frame, i)} has no label.")
        values = pd.unique(frame[label])
        if pos_label is None and len(values) > 2:
            shown = ", ".join(map(str, values[:5].tolist())) + (", ..." if len(values) > 5 else "")
            raise _BadInput(
                f"--label {label}: the labels take {len(values)} values ({shown}); a binary "
                "label is needed."
            )


def _pos_label(frame, label: str, text: str | None):
    """``--pos-label`` as the label column's own type: ``1`` matches ``1.0`` in a numeric column."""
    import pandas as pd

    if text is None:
        return None
    column = frame[label]
    if pd.api.types.is_bool_dtype(column):
        if text.strip().lower() in ("true", "1"):
            return True
        if text.strip().lower() in ("false", "0"):
            return False
    elif pd.api.types.is_numeric_dtype(column):
        try:
            value = float(text)
        except ValueError:
            pass
        else:
            matches = [v for v in pd.unique(column) if float(v) == value]
            if matches:
                return matches[0]
    values = ", ".join(map(repr, pd.unique(column)[:5].tolist()))
    if text in set(map(str, pd.unique(column))):
        return text
    raise _BadInput(f"--pos-label {text}: not a value of --label {label} (values: {values}).")


def _output_format(out: str | None) -> str:
    from pathlib import Path

    if out is None:
        return "md"
    p = Path(out)
    fmt = _FORMATS.get(p.suffix.lower())
    if fmt is None:
        raise _BadInput(
            f"Cannot tell the report format from the suffix of '--out {out}': "
            "use .html, .md or .json."
        )
    parent = p.resolve().parent
    if not parent.is_dir():
        raise _BadInput(f"The directory of '--out {out}' does not exist: {parent}.")
    return fmt


def _write_atomic(path: str, text: str) -> None:
    """Write to a temporary file next to ``path`` and rename it: never a partial report.
    A text file ends with a newline (POSIX), as the report printed to the terminal does."""
    if not text.endswith("\n"):
        text += "\n"
    import tempfile
    from pathlib import Path

    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        # mkstemp creates the file 0600; give the report the mode a new file would get.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


LABELED_ROWS_IN_MEMORY = 1_000_000
"""Above this many rows, ``assess`` summarises the labeled file with ``--engine`` instead
of loading it: the models and the count-based intervals are the same from the summary,
and memory stays flat; PPI++ (which cross-fits on the rows) is then left out. Below it
the rows are loaded, which keeps PPI++ and the row-level checks of the file."""


def _count_rows(path) -> int | None:
    """Rows of a labeled Parquet or CSV file (or glob), counted by DuckDB without loading
    them (Parquet: from the footers); None when DuckDB cannot read it (the reader of
    the in-memory path then says why)."""
    import duckdb

    kind = _format_of(path)
    if kind is None:
        return None
    reader = "read_parquet" if kind == "parquet" else "read_csv"
    try:
        con = duckdb.connect()
        try:
            return int(con.execute(f"SELECT count(*) FROM {reader}(?)", [str(path)]).fetchone()[0])
        finally:
            con.close()
    except Exception:  # unreadable here: the in-memory reader gives the message
        return None


def _labeled_source(path, engine, scheduler, score, label, group_cols, threshold, pos_label, quiet):
    """The labeled file(s) as a labeled summary built by the engine (not loaded)."""
    text = "1" if pos_label is None else str(pos_label).strip().lower()
    value = {"true": 1.0, "false": 0.0}.get(text)
    if value is None:
        try:
            value = float(text)
        except ValueError:
            raise _BadInput(
                f"--pos-label {pos_label}: a labeled file above {LABELED_ROWS_IN_MEMORY:,} "
                "rows is summarised without loading it, which needs labels 0/1 or booleans; "
                "recode the labels."
            ) from None
    return _summarise_file(
        path,
        "labeled",
        engine,
        scheduler,
        score,
        group_cols,
        threshold,
        quiet,
        label=label,
        pos_label=value,
    )


def _unlabeled_source(
    path,
    engine,
    scheduler,
    score,
    group_cols,
    threshold,
    quiet,
    sep=None,
    encoding=None,
    missing_groups=False,
):
    """The unlabeled file(s) as a frame (``memory``) or as a summary built by the engine."""
    if engine == "memory":
        frame = _read_table(path, "unlabeled", sep, text_columns=group_cols, encoding=encoding)
        _check_columns(frame, "unlabeled", score=[score], group=group_cols)
        _check_values(frame, score, None, group_cols, None, missing_groups)
        return frame
    return _summarise_file(
        path, "unlabeled", engine, scheduler, score, group_cols, threshold, quiet
    )


def _file_words(which: str, path) -> str:
    """The file in the user's terms: the flag that named it, or the labeled file."""
    return (
        f"The --unlabeled file '{path}'" if which == "unlabeled" else f"The labeled file '{path}'"
    )


def _percent_hint(message: str, path) -> str:
    """The labeled file's hint ("look like percentages") for an engine's message: when
    most of the file's rows are out of [0, 1] and the first offending value lies in
    (1, 100]."""
    value = re.search(r"\(value ([-0-9.eE+]+)\)", message)
    count = re.search(r"(\d+) row\(s\) do not", message)
    total = _count_rows(path)
    if not (value and count and total) or not 1 < float(value.group(1)) <= 100:
        return ""
    if int(count.group(1)) <= total / 2:  # a stray value, not a scale
        return ""
    return " The scores look like percentages: divide the column by 100."


def _summarise_file(
    path, which, engine, scheduler, score, group_cols, threshold, quiet, label=None, pos_label=1
):
    """One file or glob summarised by ``engine`` (:func:`bayesfair.summarize`), timed."""
    import time

    if scheduler is not None and engine == "duckdb":
        raise _BadInput("The '--scheduler' option needs --engine dask or spark.")
    named = _file_words(which, path)
    if Path(path).is_file() and Path(path).stat().st_size == 0:
        raise _BadInput(f"{named} is empty (0 bytes).")
    start = time.perf_counter()
    try:
        settings = dict(
            score=score,
            group=group_cols if len(group_cols) > 1 else group_cols[0],
            threshold=threshold,
            engine=engine,
            scheduler=scheduler,
            progressbar=not quiet,
            text_groups=True,
        )
        summary = (
            summarize_unlabeled(path, **settings)
            if label is None
            else summarize(path, label=label, pos_label=pos_label, **settings)
        )
    except (ValueError, TypeError, ImportError) as exc:
        message = _one_line(exc)
        if "unicode" in message.lower() or "utf-8" in message.lower():
            message += " If the file is in another encoding, pass it with --encoding."
        if "must hold scores in [0, 1]" in message:
            message = f"{named}: {message}{_percent_hint(message, path)}"
        raise _BadInput(message) from None
    if summary.n_total == 0:
        raise _BadInput(
            f"{named} has no rows (a header only): give the file with the rows"
            + (", or leave out --unlabeled." if which == "unlabeled" else ".")
        )
    extra = (
        f" (more than {LABELED_ROWS_IN_MEMORY:,}: not loaded; PPI++ is left out)"
        if which == "labeled"
        else ""
    )
    _echo(
        quiet,
        f"Summarised {summary.n_total:,} {which} rows with {engine} in "
        f"{time.perf_counter() - start:.1f} s{extra}.",
    )
    return summary


def _check_writable(out) -> None:
    """Refuse an --out that cannot be written, before any fitting."""
    from pathlib import Path

    if out is None:
        return
    target = Path(out)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise _BadInput(
            f"Cannot write the report to '{out}': the directory '{folder}' does not exist."
        )
    if (target.exists() and not os.access(target, os.W_OK)) or not os.access(folder, os.W_OK):
        raise _BadInput(f"Cannot write the report to '{out}': permission denied.")


def _record_inputs(comp, labeled, lab, unlabeled, unl) -> None:
    """The input files (rows, SHA-256) and the command line, into the report's provenance."""
    import glob
    import hashlib

    def digest(path) -> str:
        h = hashlib.sha256()
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
        return h.hexdigest()

    prov = comp.settings.setdefault("provenance", {})
    rows = lab.n_total if hasattr(lab, "n_total") else len(lab)
    files = sorted(glob.glob(str(labeled))) or [str(labeled)]
    sha = ", ".join(f"{f}: {digest(f)}" for f in files) if len(files) > 1 else digest(files[0])
    inputs = [{"role": "labeled", "path": str(labeled), "rows": rows, "sha256": sha}]
    if unlabeled is not None:
        total = unl.n_total if hasattr(unl, "n_total") else len(unl)
        files = sorted(glob.glob(str(unlabeled))) or [str(unlabeled)]
        if len(files) == 1:
            inputs.append(
                {"role": "unlabeled", "path": files[0], "rows": total, "sha256": digest(files[0])}
            )
        else:  # a glob: the rows are counted over all its files, each file has its digest
            inputs.append(
                {
                    "role": "unlabeled",
                    "path": str(unlabeled),
                    "rows": total,
                    "sha256": ", ".join(f"{f}: {digest(f)}" for f in files),
                }
            )
    prov["inputs"] = inputs
    prov["call"] = _command_line()


def _command_line() -> str:
    """The command as typed, rebuilt from click's parsed options (defaults left out)."""
    import shlex

    ctx = click.get_current_context()
    parts = ["bayesfair", ctx.info_name]
    for param in ctx.command.params:
        value = ctx.params.get(param.name)
        if isinstance(param, click.Argument):
            parts.append(str(value))
        elif value is not None and value is not False and value != param.default:
            parts += (
                [param.opts[0]] if getattr(param, "is_flag", False) else [param.opts[0], str(value)]
            )
    return " ".join(shlex.quote(p) for p in parts)


def _assessment_data(
    lab, unl, score, label, group_cols, threshold, pos_label, reference, group_probabilities=None
):
    """The files' contents (rows or engine summaries) as :class:`~bayesfair.AssessmentData`."""
    if hasattr(lab, "n_total"):  # the labeled file as a summary (_labeled_source); the
        # unlabeled one is then a summary too (the same --engine, never 'memory')
        return AssessmentData.from_summaries(
            lab, unl, reference=reference, pos_label=1 if pos_label is None else pos_label
        )
    return AssessmentData.from_frames(
        lab,
        unl,
        score=score,
        label=label,
        group=group_cols,
        threshold=threshold,
        pos_label=pos_label,
        reference=reference,
        **({} if group_probabilities is None else {"group_probabilities": group_probabilities}),
    )


def _labeled_rows(
    path, score, label, group_cols, pos_label, sep=None, encoding=None, missing_groups=False
):
    """The labeled file read in memory, its columns and values checked (the flags named)."""
    lab = _read_table(path, "labeled", sep, text_columns=group_cols, encoding=encoding)
    _check_columns(lab, "labeled", score=[score], label=[label], group=group_cols)
    _check_values(lab, score, label, group_cols, pos_label, missing_groups)
    return lab
