"""``bayesfair assess``: a labeled file (and unlabeled scores) to a report."""

from __future__ import annotations

import time
import warnings

import click

from bayesfair.cli import files
from bayesfair.cli._errors import BadInput, show_warnings, user_errors, warn
from bayesfair.cli._options import (
    detail_option,
    group_columns,
    metric_list,
    positive_finite,
    proxy_columns,
    score_threshold,
    separator,
)
from bayesfair.cli.files import (
    _assessment_data,
    _check_writable,
    _count_rows,
    _echo,
    _labeled_rows,
    _labeled_source,
    _output_format,
    _pos_label,
    _record_inputs,
    _unlabeled_source,
    _write_atomic,
    encoding_option,
    reading_engine,
)
from bayesfair.data.assessment import AssessmentData
from bayesfair.models.catalogue import (
    DEFAULT_MODEL,
    LABELED_MODEL,
    MODEL_SPECS,
    models_with_map,
    verdict_order,
)
from bayesfair.posterior.fitting import fit_periods
from bayesfair.report.compare import compare
from bayesfair.report.document import comparison_html, comparison_json
from bayesfair.report.periods import drift_sentences, period_html, period_json, period_markdown


@click.command()
@click.argument("labeled", metavar="LABELED")
@click.option(
    "--unlabeled",
    metavar="FILE|GLOB",
    help="Unlabeled scores (score and group columns): a CSV or Parquet file or a glob "
    "('logs/*.parquet'), summarised by --engine without loading the rows.",
)
@click.option(
    "--engine",
    type=click.Choice(["duckdb", "dask", "spark", "memory"]),
    default="duckdb",
    show_default=True,
    help="What reads --unlabeled: DuckDB (streaming, all cores), a Dask or Spark cluster "
    "(see --scheduler), or pandas in memory.",
)
@click.option(
    "--sep",
    default=None,
    metavar="SEP",
    help="Separator of CSV files (default: sniffed from the header among , ; tab |).",
)
@click.option(
    "--encoding",
    default=None,
    metavar="NAME",
    callback=encoding_option,
    help="Text encoding of CSV files (default UTF-8), e.g. latin-1 or cp1252; files in "
    "another encoding than UTF-8 are read in memory.",
)
@click.option(
    "--scheduler",
    default=None,
    metavar="ADDRESS",
    help="Dask scheduler (tcp://host:8786) or Spark master URL for --engine dask/spark.",
)
@click.option(
    "--score", default="score", show_default=True, metavar="COL", help="Column of the scores."
)
@click.option(
    "--label", default="label", show_default=True, metavar="COL", help="Column of the labels."
)
@click.option(
    "--group",
    default="group",
    show_default=True,
    metavar="COL[,COL]",
    help="Sensitive column(s); several intersect.",
)
@click.option(
    "--period",
    default=None,
    metavar="COL",
    help="A column of both files that orders the rows in time (numbers, or text that sorts "
    "in time: ISO dates, 2024Q1, ...): an audit over time, each period's gaps and a drift "
    "flag. Reads the files in memory.",
)
@click.option("--metrics", default="accuracy,tpr,fpr", show_default=True)
@click.option(
    "--model",
    type=click.Choice(list(verdict_order())),
    default=DEFAULT_MODEL,
    show_default=True,
    help="Bayesian model; with rbc or bc the exact, labeled-only bb is shown too.",
)
@click.option(
    "--estimand",
    type=click.Choice(["assessed", "expected"]),
    default=None,
    help="What the calibration model's intervals are for: the gap on the assessed examples "
    "(default with --unlabeled) or the classifier's expected gap.",
)
@click.option("--epsilon", default=0.02, show_default=True, type=float, callback=positive_finite)
@click.option(
    "--selection",
    type=click.Choice(["random", "stratum", "score", "mixed"]),
    default="random",
    show_default=True,
    help="How the labeled rows were chosen: at random, or by `bayesfair suggest` (--within "
    "stratum, score or mixed); after active selection the intervals that assume random labels are "
    "left empty.",
)
@click.option("--reference", default=None, help="Reference group (default: most labels).")
@click.option(
    "--group-probabilities",
    "group_probabilities",
    default=None,
    metavar="GROUP=COLUMN,...",
    help="For rows whose --group is empty: each group's probability column from a proxy "
    "(BISG and the like), e.g. 'White=p_white,Black=p_black'. A row of unknown group needs "
    "every column; rows of known group may carry them too (they calibrate the proxy). One "
    "--group column; the files are read in memory.",
)
@click.option("--pos-label", default=None, help="Positive label (needed unless labels are 0/1).")
@click.option("--threshold", default=0.5, show_default=True, type=float, callback=score_threshold)
@click.option(
    "--out",
    default=None,
    metavar="FILE",
    help="report.html, .md or .json (default: Markdown on stdout).",
)
@detail_option
@click.option(
    "--clusters",
    is_flag=True,
    help="Also report which fairness metrics say the same thing (Fair Enough's clusters of "
    "metrics by the posterior draws; needs --model rbc or bc).",
)
@click.option(
    "--score-views",
    "score_view",
    is_flag=True,
    help="Also read the score beyond the threshold: each pair's AUC gap (and DeLong's on the "
    "labeled rows), the TPR and FPR along the thresholds 0.1-0.9 with joint bands, and in "
    "HTML the ROC curves, the gap along the thresholds and the reliability curves. Needs "
    "--model rbc or bc; not with --period or --group-probabilities.",
)
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--draws", default=1000, show_default=True, type=click.IntRange(min=1))
@click.option("--tune", default=1000, show_default=True, type=click.IntRange(min=0))
@click.option("--chains", default=4, show_default=True, type=click.IntRange(min=1))
@click.option("--quiet", is_flag=True, help="No progress output (warnings are still shown).")
@user_errors
def assess(
    labeled,
    unlabeled,
    engine,
    sep,
    encoding,
    scheduler,
    score,
    label,
    group,
    period,
    metrics,
    model,
    estimand,
    epsilon,
    selection,
    reference,
    group_probabilities,
    pos_label,
    threshold,
    out,
    detail,
    clusters,
    score_view,
    seed,
    draws,
    tune,
    chains,
    quiet,
):
    """Assess a classifier's group fairness from a LABELED file (CSV or Parquet).

    Reports frequentist intervals (Newcombe, bootstrap, Bernstein, Lum et al.'s
    corrected variances) next to the chosen Bayesian model. With --model rbc
    (the default) or bc, which use the --unlabeled scores, the labeled-only BB
    model is fitted too: it is exact and cheap, and the pair shows what the
    unlabeled data add. Pairs whose intervals disagree and groups whose
    calibration map misfits their labels are reported as warnings.
    """
    fmt = _output_format(out)
    names = metric_list(metrics)
    group_cols = group_columns(group)
    proxy = proxy_columns(group_probabilities)
    sep = separator(sep)
    in_memory = period is not None or proxy is not None
    engine = "memory" if in_memory else reading_engine(engine, encoding)
    _check_writable(out)
    lab = _labeled_input(
        labeled,
        engine,
        scheduler,
        score,
        label,
        group_cols,
        threshold,
        pos_label,
        quiet,
        sep,
        encoding,
        missing_groups=proxy is not None,
    )
    if not hasattr(lab, "n_total"):
        pos_label = _pos_label(lab, label, pos_label)
    unl = None
    if unlabeled is not None:
        unl = _unlabeled_source(
            unlabeled,
            engine,
            scheduler,
            score,
            group_cols,
            threshold,
            quiet,
            sep,
            encoding,
            missing_groups=proxy is not None,
        )
    _surprises(model, unlabeled, chains)
    _check_score_flag(score_view, period, proxy, model)
    if period is not None:
        settings = dict(metrics=names, epsilon=epsilon, draws=draws, tune=tune, chains=chains)
        columns = dict(score=score, label=label, group=group_cols, threshold=threshold)
        columns.update(pos_label=pos_label, reference=reference, period=period)
        columns["group_probabilities"] = proxy
        paths = (labeled, unlabeled)
        text = _assess_periods(lab, unl, columns, model, seed, settings, fmt, quiet, paths)
        _write_or_echo(text, out, fmt, quiet)
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        data = _assessment_data(
            lab, unl, score, label, group_cols, threshold, pos_label, reference, proxy
        )
    show_warnings(caught)
    _echo(quiet, _data_line(data))
    models = (LABELED_MODEL, model) if model in models_with_map() else (model,)
    if model in models_with_map() and data.n_unlabeled == 0 and data.proxy is None:
        _echo(
            quiet, f"No --unlabeled file: the {model.upper()} model uses the labeled scores only."
        )
    _echo(
        quiet,
        f"Fitting {', '.join(m.upper() for m in models)} ({chains} chains × {draws} draws)...",
    )
    start = time.perf_counter()
    fit_kwargs = {"draws": draws, "tune": tune, "chains": chains}
    if estimand is not None:
        fit_kwargs["estimand"] = estimand
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        comp = compare(
            data,
            names,
            epsilon=epsilon,
            models=models,
            random_seed=seed,
            fit_kwargs=fit_kwargs,
            # the samplers' own bars are wider than a terminal: one line before and after
            progressbar=False,
            selection=selection,
            clusters=clusters,
            score=score_view,
        )
    _echo(quiet, f"Fitted in {time.perf_counter() - start:.1f} s.")
    show_warnings(caught)
    for sentence in comp.disagreements:
        warn(sentence)
    _record_inputs(comp, labeled, lab, unlabeled, unl)
    _write_or_echo(_render(comp, fmt, detail), out, fmt, quiet)


def _check_score_flag(score_view: bool, period, proxy, model: str) -> None:
    """``--score-views`` reads the score through a calibration map: refuse where there is none."""
    if score_view and (period is not None or proxy is not None or model not in models_with_map()):
        raise BadInput(
            "--score-views reads the score through a calibration map: it needs --model rbc or bc, "
            "and is not available with --period or --group-probabilities."
        )


def _write_or_echo(text: str, out, fmt: str, quiet: bool) -> None:
    """The report to ``--out`` (atomically), or on stdout."""
    if out is None:
        click.echo(text)
        return
    try:
        _write_atomic(out, text)
    except OSError as exc:
        raise BadInput(f"Cannot write the report to '{out}': {exc.strerror or exc}.") from None
    _echo(quiet, f"Wrote {fmt} report to {out}.")


def _assess_periods(lab, unl, columns: dict, model, seed, settings: dict, fmt, quiet, paths) -> str:
    """``--period``: the files' rows as data with periods, one fit, the report over time
    (its provenance names the files of ``paths``, labeled and unlabeled, and the command)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        data = AssessmentData.from_frames(lab, unl, **columns)
    show_warnings(caught)
    _echo(
        quiet,
        f"{data.n_labeled:,} labeled and {data.n_unlabeled:,} unlabeled examples in "
        f"{data.n_groups} groups over {len(data.period_levels)} periods; reference group "
        f"{data.reference!r}.",
    )
    _echo(quiet, f"Fitting {model.upper()} per group over its periods...")
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = fit_periods(
            data,
            model,
            metrics=settings["metrics"],
            draws=settings["draws"],
            tune=settings["tune"],
            chains=settings["chains"],
            random_seed=seed,
            progressbar=False,
        )
    _echo(quiet, f"Fitted in {time.perf_counter() - start:.1f} s.")
    show_warnings(caught)
    for sentence in drift_sentences(res.drift):
        if sentence.startswith(("Drift:", "Possible drift:")):  # not what the checks can see
            warn(sentence)
    _record_inputs(res, paths[0], lab, paths[1], unl)
    render = {"html": period_html, "json": period_json}.get(fmt, period_markdown)
    return render(res, settings["metrics"], settings["epsilon"])


def _data_line(data) -> str:
    """What was read, in one line: rows, groups, the positive label, threshold, reference."""
    proxy = "" if data.proxy is None else f", {data.proxy.n_unknown():,} more known by proxy"
    return (
        f"{data.n_labeled:,} labeled and {data.n_unlabeled:,} unlabeled examples in "
        f"{data.n_groups} groups ({', '.join(map(str, data.group_levels))}){proxy}; positive "
        f"label {data.pos_label!r}, threshold {data.threshold:g}, reference group "
        f"{data.reference!r}."
    )


def _labeled_input(
    path,
    engine,
    scheduler,
    score,
    label,
    group_cols,
    threshold,
    pos_label,
    quiet,
    sep,
    encoding,
    missing_groups=False,
):
    """The labeled file: its rows, checked, or (above ``LABELED_ROWS_IN_MEMORY`` rows, read
    by an engine) its summary."""
    n_rows = _count_rows(path) if engine != "memory" else None
    if n_rows is not None and n_rows > files.LABELED_ROWS_IN_MEMORY:
        return _labeled_source(
            path, engine, scheduler, score, label, group_cols, threshold, pos_label, quiet
        )
    return _labeled_rows(path, score, label, group_cols, pos_label, sep, encoding, missing_groups)


def _surprises(model, unlabeled, chains) -> None:
    """One-line warnings for choices on the command line that would otherwise surprise
    silently (the data's own surprises are the API's warnings, :mod:`bayesfair.data`)."""
    if not MODEL_SPECS[model].uses_unlabeled and unlabeled is not None:
        warn(
            f"--model {model} uses the labeled examples only; the --unlabeled rows enter the "
            "PPI++ column alone (use --model rbc to use them in the Bayesian model)."
        )
    if chains == 1:
        warn("--chains 1: convergence cannot be checked (no R-hat); use 2 or more.")


def _render(comp, fmt: str, detail: str = "summary") -> str:
    if fmt == "html":
        return comparison_html(comp)
    if fmt == "json":
        return comparison_json(comp)
    return comp.to_markdown(detail=detail)
