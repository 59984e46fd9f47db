"""``bayesfair plan``: how many labels a decision needs."""

from __future__ import annotations

import warnings

import click

from bayesfair.cli._errors import show_warnings, user_errors
from bayesfair.cli._options import budgets as budget_counts
from bayesfair.cli._options import group_columns, positive_finite, score_threshold, separator
from bayesfair.cli.files import (
    _assessment_data,
    _check_writable,
    _echo,
    _labeled_rows,
    _pos_label,
    _unlabeled_source,
    _write_atomic,
    encoding_option,
    reading_engine,
)
from bayesfair.data.sources import summarize_unlabeled
from bayesfair.labels import plan_labels
from bayesfair.labels.planner import WORST, plan_sentence
from bayesfair.report.plots import plot_label_plan

#: The columns of the printed table.
_SHOWN = [
    "strategy",
    "method",
    "group",
    "reference",
    "budget",
    "n_new",
    "width",
    "10%-90%",
    "p_decision",
    "valid",
]


@click.command()
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
@click.option("--epsilon", default=0.02, show_default=True, type=float, callback=positive_finite)
@click.option(
    "--budgets",
    default=None,
    metavar="N,N,...",
    help="Total label counts to plan for (default: 50 to 1,600 more than collected).",
)
@click.option("--n-sims", default=30, show_default=True, type=click.IntRange(min=1))
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
@click.option(
    "--gap-of",
    default=WORST,
    show_default=True,
    metavar="GROUP",
    help="The group whose gap to the reference is planned: 'worst' (the worst-off group "
    "under the current labels; without labels, the smallest), a group, or 'all' (every "
    "group; slower).",
)
@click.option("--reference", default=None)
@click.option("--pos-label", default=None)
@click.option("--threshold", default=0.5, show_default=True, type=float, callback=score_threshold)
@click.option("--sep", default=None, metavar="SEP")
@click.option("--encoding", default=None, metavar="NAME", callback=encoding_option)
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--quiet", is_flag=True, help="No progress output.")
@user_errors
def plan(
    unlabeled,
    labeled,
    score,
    label,
    group,
    metric,
    epsilon,
    budgets,
    n_sims,
    methods,
    within,
    plot_path,
    out,
    gap_of,
    reference,
    pos_label,
    threshold,
    sep,
    encoding,
    seed,
    quiet,
):
    """How many labels a decision needs: plan from the UNLABELED file (CSV or Parquet).

    Simulates audits with more labels (drawn at random, and chosen by the
    active acquisition of `bayesfair suggest`) and prints first about how many
    labels decide the gap (of the worst-off group, by default) in 80% of the
    simulated audits, then, per method and budget, the median width of the
    interval of the gap and the probability of a decision (the interval inside
    or outside ±epsilon). Frequentist rows after active selection are marked
    not valid (they assume random labels).
    """
    group_cols = group_columns(group)
    budget_list = budget_counts(budgets)
    method_list = [m.strip() for m in methods.split(",") if m.strip()]
    sep = separator(sep)
    for target in (plot_path, out):
        _check_writable(target)
    engine = reading_engine("duckdb", encoding)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        unl = _unlabeled_source(
            unlabeled, engine, None, score, group_cols, threshold, True, sep, encoding
        )
        if labeled is None:
            data = unl
            if not hasattr(unl, "n_total"):  # read in memory (--encoding): summarise it
                data = summarize_unlabeled(
                    unl, score=score, group=group_cols, threshold=threshold, text_groups=True
                )
        else:
            lab = _labeled_rows(labeled, score, label, group_cols, pos_label, sep, encoding)
            label_value = _pos_label(lab, label, pos_label)
            data = _assessment_data(
                lab, unl, score, label, group_cols, threshold, label_value, reference
            )
        table = plan_labels(
            data,
            metric=metric,
            epsilon=epsilon,
            budgets=budget_list,
            n_sims=n_sims,
            methods=method_list,
            reference=reference if labeled is None else None,
            group=None if gap_of == "all" else gap_of,
            within=within,
            random_seed=seed,
            progressbar=not quiet,
        )
    show_warnings(caught)
    import matplotlib

    matplotlib.use("Agg")
    axes = plot_label_plan(table, metric=metric)
    axes[0].figure.savefig(plot_path, dpi=120)
    click.echo(plan_sentence(table, epsilon, metric))
    click.echo("")
    shown = table.assign(
        width=table["width_median"].map("{:.3f}".format),
        **{
            "10%-90%": [
                f"{a:.3f}-{b:.3f}"
                for a, b in zip(table["width_q10"], table["width_q90"], strict=True)
            ]
        },
        p_decision=table["p_decision"].map("{:.2f}".format),
        valid=table["valid"].map({True: "yes", False: "no"}),
    )[_SHOWN]
    click.echo(shown.to_string(index=False))
    if not table["valid"].all():
        click.echo(
            "valid = no: this interval assumes labels drawn at random (within each group, "
            "or each group and side for PPI++), which active selection breaks (docs: How "
            "many labels, and which)."
        )
    if out is not None:
        _write_atomic(out, table.to_csv(index=False))
    _echo(quiet, f"Wrote the figure to {plot_path}" + (f" and the table to {out}." if out else "."))
