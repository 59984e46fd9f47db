"""``bayesfair suggest``: which unlabeled rows to label next."""

from __future__ import annotations

import warnings
from pathlib import Path

import click

from bayesfair.cli._errors import BadInput, show_warnings, user_errors
from bayesfair.cli._options import group_columns, score_threshold, separator
from bayesfair.cli.files import (
    _check_columns,
    _check_values,
    _check_writable,
    _echo,
    _labeled_rows,
    _pos_label,
    _read_table,
    _write_atomic,
    encoding_option,
)
from bayesfair.data.assessment import AssessmentData
from bayesfair.labels import suggest_labels
from bayesfair.posterior.fitting import fit


@click.command()
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
@click.option("--threshold", default=0.5, show_default=True, type=float, callback=score_threshold)
@click.option("--sep", default=None, metavar="SEP")
@click.option("--encoding", default=None, metavar="NAME", callback=encoding_option)
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--draws", default=1000, show_default=True, type=click.IntRange(min=1))
@click.option("--chains", default=4, show_default=True, type=click.IntRange(min=1))
@click.option("--quiet", is_flag=True, help="No progress output.")
@user_errors
def suggest(
    labeled,
    unlabeled,
    n_labels,
    out,
    metric,
    within,
    id_col,
    by_position,
    score,
    label,
    group,
    reference,
    pos_label,
    threshold,
    sep,
    encoding,
    seed,
    draws,
    chains,
    quiet,
):
    """Which unlabeled rows to label next: fit the default model to LABELED and
    UNLABELED, and write the N rows whose labels are expected to shrink the
    gap's interval most (position, id, group, score, gain) to --out.
    """
    if Path(out).suffix.lower() != ".csv":
        raise BadInput(f"The '--out' file must be a .csv file. Got '{out}'.")
    _check_writable(out)
    group_cols = group_columns(group)
    sep = separator(sep)
    lab = _labeled_rows(labeled, score, label, group_cols, pos_label, sep, encoding)
    unl = _read_table(unlabeled, "unlabeled", sep, text_columns=group_cols, encoding=encoding)
    _check_columns(unl, "unlabeled", score=[score], group=group_cols)
    _check_values(unl, score, None, group_cols, None)
    if id_col is None and "id" in unl.columns:
        id_col = "id"
    if id_col is None and not by_position:
        raise BadInput(
            f"The unlabeled file has no id column ('id'; columns: "
            f"{', '.join(map(str, unl.columns))}). Name one with --id COL, or pass "
            "--by-position to identify rows by their 0-based position in the file."
        )
    if id_col is not None:
        _check_columns(unl, "unlabeled", id=[id_col])
    if n_labels > len(unl):
        raise BadInput(
            f"--n {n_labels} is more than the {len(unl)} unlabeled rows of '{unlabeled}'."
        )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        data = AssessmentData.from_frames(
            lab,
            unl,
            score=score,
            label=label,
            group=group_cols,
            threshold=threshold,
            pos_label=_pos_label(lab, label, pos_label),
            reference=reference,
            id=id_col,
        )
        _echo(
            quiet,
            f"Fitting RBC to {data.n_labeled} labeled and {data.n_unlabeled} unlabeled examples "
            f"({chains} chains × {draws} draws)...",
        )
        res = fit(
            data, metrics=[metric], draws=draws, chains=chains, random_seed=seed, progressbar=False
        )
        table = suggest_labels(res, n=n_labels, metric=metric, within=within, random_seed=seed)
    show_warnings(caught)
    _write_atomic(out, table.to_csv(index=False))
    by_group = ", ".join(f"{g}: {k}" for g, k in table["group"].value_counts().items())
    _echo(quiet, f"Wrote {len(table)} rows to label to {out} ({by_group}).")
