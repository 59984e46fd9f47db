"""The ``bayesfair`` command.

Exit codes: 0 success; 2 bad arguments or bad data (one clear line on
stderr, no traceback, no partial output file); 1 anything else.
"""

from __future__ import annotations

import os

import click

from bayesfair.cli import files
from bayesfair.cli.files import (
    _BadInput,
    _check_columns,
    _check_values,
    _check_writable,
    _count_rows,
    _echo,
    _labeled_source,
    _one_line,
    _output_format,
    _pos_label,
    _read_table,
    _record_inputs,
    _unlabeled_source,
    _write_atomic,
)
from bayesfair.compare import compare
from bayesfair.data import AssessmentData
from bayesfair.datasets import get_score_set, list_datasets, load_assessment
from bayesfair.fitting import fit
from bayesfair.labels import plan_labels, suggest_labels
from bayesfair.metrics import get_rate
from bayesfair.plots import plot_label_plan
from bayesfair.report import comparison_html, comparison_json
from bayesfair.sources import summarize_unlabeled


def _positive_finite(ctx, param, value):
    """A click callback: ``value`` must be a positive, finite number (ε)."""
    import math

    if value is not None and not (math.isfinite(value) and value > 0):
        raise _BadInput(f"--{param.name} {value}: must be a positive, finite number.")
    if value is not None and param.name == "epsilon" and value >= 1:
        raise _BadInput(
            f"--epsilon {value}: must be below 1 (a tolerance on a difference of two rates, "
            "which lies in [-1, 1]; typical values are 0.01 to 0.1)."
        )
    return value


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="bayesfair")
def main() -> None:
    """Bayesian and corrected-frequentist assessment of a classifier's group fairness."""


@main.command()
@click.option("--dataset", default="adult-sex", show_default=True, help="Bundled score set.")
@click.option("--classifier", default="MLP", show_default=True)
@click.option("--n-labeled", default=100, show_default=True, type=click.IntRange(min=1))
@click.option("--metrics", default="accuracy,tpr,fpr", show_default=True)
@click.option("--epsilon", default=0.02, show_default=True, type=float, callback=_positive_finite)
@click.option("--draws", default=1000, show_default=True, type=click.IntRange(min=1))
@click.option("--chains", default=4, show_default=True, type=click.IntRange(min=1))
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--quiet", is_flag=True, help="No progress output.")
def demo(dataset, classifier, n_labeled, metrics, epsilon, draws, chains, seed, quiet):
    """Assess a bundled classifier: n_L labels at random, the rest unlabeled, BB vs RBC."""
    import warnings

    try:
        spec = get_score_set(dataset)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            data = load_assessment(dataset, classifier, n_labeled=n_labeled, random_seed=seed)
        _show_warnings(caught)
        metric_list = _metric_list(metrics)
    except (ValueError, TypeError) as exc:
        raise _BadInput(_one_line(exc)) from None
    _echo(
        quiet,
        f"Dataset {spec.name} ({classifier} scores): {data.n_labeled} labeled, "
        f"{data.n_unlabeled} unlabeled examples; reference group {data.reference!r}.",
    )
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            comp = compare(
                data,
                metric_list,
                epsilon=epsilon,
                random_seed=seed,
                fit_kwargs={"draws": draws, "chains": chains},
                progressbar=False,  # the samplers' bars are wider than a terminal
            )
        _show_warnings(caught)
        for sentence in comp.disagreements:
            click.echo(f"bayesfair: warning: {sentence}", err=True)
    except click.ClickException:
        raise
    except (ValueError, TypeError) as exc:
        raise _BadInput(_one_line(exc)) from None
    except Exception as exc:  # not the user's input: exit 1, still one line
        _internal_error(exc)
    click.echo(comp.to_markdown())


def _internal_error(exc: Exception):
    """Report an unexpected error in one line on stderr and exit with status 1."""
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    click.echo(f"bayesfair: internal error: {type(exc).__name__}: {first}", err=True)
    raise click.exceptions.Exit(1) from None


@main.command()
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
    "--scheduler",
    default=None,
    metavar="ADDRESS",
    help="Dask scheduler (tcp://host:8786) or Spark master URL for --engine dask/spark.",
)
@click.option("--score", required=True, metavar="COL", help="Column of the classifier scores.")
@click.option("--label", required=True, metavar="COL", help="Column of the true labels.")
@click.option(
    "--group", required=True, metavar="COL[,COL]", help="Sensitive column(s); several intersect."
)
@click.option("--metrics", default="accuracy,tpr,fpr", show_default=True)
@click.option(
    "--model",
    type=click.Choice(["rbc", "bc", "bb", "hbb"]),
    default="rbc",
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
@click.option("--epsilon", default=0.02, show_default=True, type=float, callback=_positive_finite)
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
@click.option("--pos-label", default=None, help="Positive label (needed unless labels are 0/1).")
@click.option("--threshold", default=0.5, show_default=True, type=float)
@click.option(
    "--out",
    default=None,
    metavar="FILE",
    help="report.html, .md or .json (default: Markdown on stdout).",
)
@click.option(
    "--clusters",
    is_flag=True,
    help="Also report which fairness metrics say the same thing (Fair Enough's clusters of "
    "metrics by the posterior draws; needs --model rbc or bc).",
)
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--draws", default=1000, show_default=True, type=click.IntRange(min=1))
@click.option("--tune", default=1000, show_default=True, type=click.IntRange(min=0))
@click.option("--chains", default=4, show_default=True, type=click.IntRange(min=1))
@click.option("--quiet", is_flag=True, help="No progress output (warnings are still shown).")
def assess(
    labeled,
    unlabeled,
    engine,
    sep,
    scheduler,
    score,
    label,
    group,
    metrics,
    model,
    estimand,
    epsilon,
    selection,
    reference,
    pos_label,
    threshold,
    out,
    clusters,
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
    import time
    import warnings

    try:
        fmt = _output_format(out)
        metric_list = _metric_list(metrics)
        group_cols = [c.strip() for c in group.split(",") if c.strip()]
        if not group_cols:
            raise _BadInput("The '--group' option must name at least one column.")
        sep = {"tab": "\t", "\\t": "\t"}.get(sep, sep)
        _check_writable(out)
        n_rows = _count_rows(labeled) if engine != "memory" else None
        if n_rows is not None and n_rows > files.LABELED_ROWS_IN_MEMORY:
            lab = _labeled_source(
                labeled, engine, scheduler, score, label, group_cols, threshold, pos_label, quiet
            )
        else:
            lab = _read_table(labeled, "labeled", sep, text_columns=group_cols)
            _check_columns(lab, "labeled", score=[score], label=[label], group=group_cols)
            _check_values(lab, score, label, group_cols, pos_label)
            pos_label = _pos_label(lab, label, pos_label)
        unl = (
            _unlabeled_source(
                unlabeled, engine, scheduler, score, group_cols, threshold, quiet, sep
            )
            if unlabeled is not None
            else None
        )
        _surprises(lab, score, label, model, unlabeled, chains)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            data = _assessment_data(
                lab, unl, score, label, group_cols, threshold, pos_label, reference
            )
        _show_warnings(caught)
        _echo(
            quiet,
            f"{data.n_labeled} labeled and {data.n_unlabeled} unlabeled examples in "
            f"{data.n_groups} groups ({', '.join(map(str, data.group_levels))}); positive "
            f"label {data.pos_label!r}, threshold {data.threshold:g}, reference group "
            f"{data.reference!r}.",
        )
        models = ("bb", model) if model in ("bc", "rbc") else (model,)
        if model in ("bc", "rbc") and data.n_unlabeled == 0:
            _echo(
                quiet,
                f"No --unlabeled file: the {model.upper()} model uses the labeled scores only.",
            )
        _echo(
            quiet,
            f"Fitting {', '.join(m.upper() for m in models)} ({chains} chains × {draws} draws)...",
        )
        start = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            comp = _compare(
                data, metric_list, epsilon, models, seed, draws, tune, chains, quiet, estimand,
                selection, clusters,
            )  # fmt: skip
        _echo(quiet, f"Fitted in {time.perf_counter() - start:.1f} s.")
        _show_warnings(caught)
        for sentence in comp.disagreements:
            click.echo(f"bayesfair: warning: {sentence}", err=True)
        _record_inputs(comp, labeled, lab, unlabeled, unl)
        text = _render(comp, fmt, data)
    except click.ClickException:
        raise
    except Exception as exc:  # not the user's input: exit 1, still one line
        _internal_error(exc)
    if out is None:
        click.echo(text)
    else:
        try:
            _write_atomic(out, text)
        except OSError as exc:
            raise _BadInput(f"Cannot write the report to '{out}': {exc.strerror or exc}.") from None
        _echo(quiet, f"Wrote {fmt} report to {out}.")


def _surprises(lab, score, label, model, unlabeled, chains) -> None:
    """One-line warnings for what would otherwise surprise silently."""
    import pandas as pd

    notes = []
    if model in ("bb", "hbb") and unlabeled is not None:
        notes.append(
            f"--model {model} uses the labeled examples only; the --unlabeled rows enter the "
            "PPI++ column alone (use --model rbc to use them in the Bayesian model)."
        )
    if chains == 1:
        notes.append("--chains 1: convergence cannot be checked (no R-hat); use 2 or more.")
    if hasattr(lab, "n_total"):  # a labeled summary: its label counts
        positives = float(lab.positives.sum())
        if positives in (0.0, float(lab.n_total)):
            notes.append(
                f"--label {label}: every labeled example is "
                f"{'positive' if positives else 'negative'}; rates that need the other "
                "class are undefined."
            )
    elif pd.unique(lab[label]).size == 1:
        notes.append(
            f"--label {label}: every labeled example has the label {lab[label].iloc[0]!r}; "
            "rates that need the other class are undefined."
        )
    s = None if hasattr(lab, "n_total") else pd.to_numeric(lab[score])
    if s is not None and ((s == 0) | (s == 1)).all():
        notes.append(
            f"--score {score}: every score is 0 or 1; these look like hard predictions, not "
            "scores, and the calibration model has nothing to calibrate."
        )
    for note in notes:
        click.echo(f"bayesfair: warning: {note}", err=True)


def _metric_list(metrics: str) -> list[str]:
    names = [m.strip() for m in metrics.split(",") if m.strip()]
    if not names:
        raise _BadInput("The '--metrics' option must name at least one rate, e.g. accuracy,tpr.")
    try:
        return [get_rate(m).name for m in names]
    except (ValueError, KeyError) as exc:
        raise _BadInput(_one_line(exc)) from None


def _assessment_data(lab, unl, score, label, group_cols, threshold, pos_label, reference):
    try:
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
        )
    except (ValueError, TypeError) as exc:
        raise _BadInput(_one_line(exc)) from None


def _compare(data, metric_list, epsilon, models, seed, draws, tune, chains, quiet, estimand=None,
             selection="random", clusters=False):  # fmt: skip
    fit_kwargs = {"draws": draws, "tune": tune, "chains": chains}
    if estimand is not None:
        fit_kwargs["estimand"] = estimand
    try:
        return compare(
            data,
            metric_list,
            epsilon=epsilon,
            models=models,
            random_seed=seed,
            fit_kwargs=fit_kwargs,
            # the samplers' own bars are wider than a terminal: one line before and after
            progressbar=False,
            selection=selection,
            clusters=clusters,
        )
    except (ValueError, TypeError) as exc:
        raise _BadInput(_one_line(exc)) from None


def _render(comp, fmt: str, data) -> str:
    if fmt == "html":
        return comparison_html(comp, data=data)
    if fmt == "json":
        return comparison_json(comp)
    return comp.to_markdown()


def _own(w) -> bool:
    """A warning bayesfair raised (its category, or a call site in the package)."""
    package = os.path.dirname(os.path.dirname(__file__))  # bayesfair/
    return type(w.message).__module__.startswith("bayesfair") or str(w.filename).startswith(package)


def _show_warnings(caught) -> None:
    """Print bayesfair's warnings as one line each; other libraries' notices are dropped.

    ArviZ's refactor announcement, PyMC and nutpie chatter, pandas deprecations
    are about those libraries, not about the user's data: the command line does
    not pass them on (the Python API leaves warnings to the caller's filters).
    """
    for w in dict.fromkeys(_one_line(w.message) for w in caught if _own(w)):
        click.echo(f"bayesfair: warning: {w}", err=True)


def _budgets(text: str | None) -> list[int] | None:
    if text is None:
        return None
    try:
        return [int(b) for b in text.split(",") if b.strip()]
    except ValueError:
        raise _BadInput(
            f"The '--budgets' option must be label counts separated by commas, e.g. "
            f"100,200,400. Got {text!r}."
        ) from None


@main.command()
@click.argument("unlabeled", metavar="UNLABELED")
@click.option(
    "--labeled",
    default=None,
    metavar="FILE",
    help="The labels collected so far (score, label and group columns).",
)
@click.option("--score", default="score", show_default=True, metavar="COL")
@click.option("--label", default="label", show_default=True, metavar="COL")
@click.option("--group", default="group", show_default=True, metavar="COL[,COL]")
@click.option("--metric", default="accuracy", show_default=True)
@click.option("--epsilon", default=0.02, show_default=True, type=float, callback=_positive_finite)
@click.option(
    "--budgets",
    default=None,
    metavar="N,N,...",
    help="Total label counts to plan for (default: 50 to 1,600 more than collected).",
)
@click.option("--n-sims", default=50, show_default=True, type=click.IntRange(min=1))
@click.option("--methods", default="bayes,newcombe,ppi,bernstein", show_default=True)
@click.option(
    "--within",
    type=click.Choice(["stratum", "score", "mixed"]),
    default="stratum",
    show_default=True,
    help="What the active strategy chooses (see suggest).",
)
@click.option(
    "--plot",
    "plot_path",
    default="label_plan.png",
    show_default=True,
    metavar="FILE",
    help="Where to write the figure (PNG, SVG or PDF).",
)
@click.option("--out", default=None, metavar="FILE", help="Also write the table as CSV.")
@click.option("--reference", default=None)
@click.option("--pos-label", default=None)
@click.option("--threshold", default=0.5, show_default=True, type=float)
@click.option("--sep", default=None, metavar="SEP")
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--quiet", is_flag=True, help="No progress output.")
def plan(unlabeled, labeled, score, label, group, metric, epsilon, budgets, n_sims, methods,
         within, plot_path, out, reference, pos_label, threshold, sep, seed, quiet):  # fmt: skip
    """How many labels a decision needs: plan from the UNLABELED file (CSV or Parquet).

    Simulates audits with more labels (drawn at random, and chosen by the
    active acquisition of `bayesfair suggest`) and prints, per method and
    budget, the median width of the interval of the gap and the probability of
    a decision (the interval inside or outside ±epsilon). Frequentist rows
    after active selection are marked not valid (they assume random labels).
    """
    import warnings

    try:
        group_cols = [c.strip() for c in group.split(",") if c.strip()]
        budget_list = _budgets(budgets)
        method_list = [m.strip() for m in methods.split(",") if m.strip()]
        for target in (plot_path, out):
            _check_writable(target)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if labeled is None:
                data = summarize_unlabeled(
                    unlabeled, score=score, group=group_cols if len(group_cols) > 1
                    else group_cols[0], threshold=threshold,
                )  # fmt: skip
            else:
                lab = _read_table(labeled, "labeled", sep, text_columns=group_cols)
                _check_columns(lab, "labeled", score=[score], label=[label], group=group_cols)
                _check_values(lab, score, label, group_cols, pos_label)
                unl = _unlabeled_source(unlabeled, "duckdb", None, score, group_cols, threshold,
                                        True, sep)  # fmt: skip
                data = _assessment_data(lab, unl, score, label, group_cols, threshold,
                                        _pos_label(lab, label, pos_label), reference)  # fmt: skip
            table = plan_labels(
                data, metric=metric, epsilon=epsilon, budgets=budget_list, n_sims=n_sims,
                methods=method_list, reference=reference if labeled is None else None,
                within=within, random_seed=seed, progressbar=not quiet,
            )  # fmt: skip
        _show_warnings(caught)
        import matplotlib

        matplotlib.use("Agg")
        axes = plot_label_plan(table)
        axes[0].figure.savefig(plot_path, dpi=120)
    except click.ClickException:
        raise
    except (ValueError, TypeError) as exc:
        raise _BadInput(_one_line(exc)) from None
    except Exception as exc:
        _internal_error(exc)
    shown = table.assign(
        width=table["width_median"].map("{:.3f}".format),
        **{"10%-90%": [f"{a:.3f}-{b:.3f}" for a, b in zip(table["width_q10"], table["width_q90"],
                                                          strict=True)]},
        p_decision=table["p_decision"].map("{:.2f}".format),
        valid=table["valid"].map({True: "yes", False: "no"}),
    )[["strategy", "method", "group", "reference", "budget", "n_new", "width", "10%-90%",
       "p_decision", "valid"]]  # fmt: skip
    click.echo(shown.to_string(index=False))
    if not table["valid"].all():
        click.echo("valid = no: this interval assumes labels drawn at random (within each group, "
                   "or each group and side for PPI++), which active selection breaks (docs: How "
                   "many labels, and which).")  # fmt: skip
    if out is not None:
        _write_atomic(out, table.to_csv(index=False))
    _echo(quiet, f"Wrote the figure to {plot_path}" + (f" and the table to {out}." if out else "."))


@main.command()
@click.argument("labeled", metavar="LABELED")
@click.option(
    "--unlabeled",
    required=True,
    metavar="FILE",
    help="The unlabeled rows to choose from (read in memory: rows are needed).",
)
@click.option("--n", "n_labels", default=50, show_default=True, type=click.IntRange(min=1))
@click.option("--out", default="to_label.csv", show_default=True, metavar="FILE.csv")
@click.option("--metric", default="accuracy", show_default=True)
@click.option(
    "--within",
    type=click.Choice(["stratum", "score", "mixed"]),
    default="stratum",
    show_default=True,
    help="stratum: choose how many labels each group and side of the threshold gets, "
    "at random within it (intervals stay valid if the calibration map is wrong); "
    "score: also target scores (fewer labels when the map is right); mixed: half "
    "of each, the most savings in the benchmark when the calibration check passes.",
)
@click.option(
    "--id",
    "id_col",
    default=None,
    metavar="COL",
    help="Column identifying the unlabeled rows (default: 'id' when present).",
)
@click.option(
    "--by-position",
    is_flag=True,
    help="Without an id column: identify rows by their 0-based position in the file.",
)
@click.option("--score", default="score", show_default=True, metavar="COL")
@click.option("--label", default="label", show_default=True, metavar="COL")
@click.option("--group", default="group", show_default=True, metavar="COL[,COL]")
@click.option("--reference", default=None)
@click.option("--pos-label", default=None)
@click.option("--threshold", default=0.5, show_default=True, type=float)
@click.option("--sep", default=None, metavar="SEP")
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--draws", default=1000, show_default=True, type=click.IntRange(min=1))
@click.option("--chains", default=4, show_default=True, type=click.IntRange(min=1))
@click.option("--quiet", is_flag=True, help="No progress output.")
def suggest(labeled, unlabeled, n_labels, out, metric, within, id_col, by_position,
            score, label, group, reference, pos_label, threshold, sep, seed, draws, chains,
            quiet):  # fmt: skip
    """Which unlabeled rows to label next: fit the default model to LABELED and
    UNLABELED, and write the N rows whose labels are expected to shrink the
    gap's interval most (position, id, group, score, gain) to --out.
    """
    import warnings

    try:
        from pathlib import Path

        if Path(out).suffix.lower() != ".csv":
            raise _BadInput(f"The '--out' file must be a .csv file. Got '{out}'.")
        _check_writable(out)
        group_cols = [c.strip() for c in group.split(",") if c.strip()]
        lab = _read_table(labeled, "labeled", sep, text_columns=group_cols)
        _check_columns(lab, "labeled", score=[score], label=[label], group=group_cols)
        _check_values(lab, score, label, group_cols, pos_label)
        unl = _read_table(unlabeled, "unlabeled", sep, text_columns=group_cols)
        _check_columns(unl, "unlabeled", score=[score], group=group_cols)
        _check_values(unl, score, None, group_cols, None)
        if id_col is None and "id" in unl.columns:
            id_col = "id"
        if id_col is None and not by_position:
            raise _BadInput(
                f"The unlabeled file has no id column ('id'; columns: "
                f"{', '.join(map(str, unl.columns))}). Name one with --id COL, or pass "
                "--by-position to identify rows by their 0-based position in the file."
            )
        if id_col is not None:
            _check_columns(unl, "unlabeled", id=[id_col])
        if n_labels > len(unl):
            raise _BadInput(
                f"--n {n_labels} is more than the {len(unl)} unlabeled rows of '{unlabeled}'."
            )
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                data = AssessmentData.from_frames(
                    lab, unl, score=score, label=label, group=group_cols, threshold=threshold,
                    pos_label=_pos_label(lab, label, pos_label), reference=reference, id=id_col,
                )  # fmt: skip
            except (ValueError, TypeError) as exc:
                raise _BadInput(_one_line(exc)) from None
            _echo(quiet, f"Fitting RBC to {data.n_labeled} labeled and {data.n_unlabeled} "
                         f"unlabeled examples ({chains} chains × {draws} draws)...")  # fmt: skip
            res = fit(data, metrics=[metric], draws=draws, chains=chains, random_seed=seed,
                      progressbar=False)  # fmt: skip
            table = suggest_labels(res, n=n_labels, metric=metric, within=within,
                                   random_seed=seed)  # fmt: skip
        _show_warnings(caught)
        _write_atomic(out, table.to_csv(index=False))
    except click.ClickException:
        raise
    except (ValueError, TypeError) as exc:
        raise _BadInput(_one_line(exc)) from None
    except Exception as exc:
        _internal_error(exc)
    by_group = table["group"].value_counts().to_dict()
    _echo(quiet, f"Wrote {len(table)} rows to label to {out} ("
                 + ", ".join(f"{g}: {k}" for g, k in by_group.items()) + ").")  # fmt: skip


@main.command()
def datasets():
    """List the bundled data sets: score sets (for demo) and raw data sets."""
    import re
    import textwrap

    table = list_datasets()
    width = 80 - (15 + 7 + 2 + 22 + 1)

    def line(name, rows, groups, text):
        groups = textwrap.shorten(str(groups), 22, placeholder="...")
        text = textwrap.shorten(str(text), width, placeholder="...")
        return f"{name:<15}{rows:>7}  {groups:<22} {text}"

    out = ["Score sets (classifier scores; demo --dataset NAME):", line("name", "rows",
           "groups", "what the label means")]  # fmt: skip
    for name, row in table[table["kind"] == "scores"].iterrows():
        label = re.split(r";\s*", str(row["description"]), maxsplit=1)[-1].split(". ")[0]
        groups = f"{row['privileged_group']} / {row['unprivileged_group']}"
        out.append(line(name, int(row["n_rows"]), groups, label.rstrip(".")))
    out += ["", "Raw data sets (bayesfair.datasets.load_raw):", line("name", "rows",
            "sensitive columns", "source")]  # fmt: skip
    for name, row in table[table["kind"] != "scores"].iterrows():
        out.append(line(name, int(row["n_rows"]), row["group"], row["description"]))
    click.echo("\n".join(out))


if __name__ == "__main__":  # pragma: no cover
    main()
