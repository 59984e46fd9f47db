"""The ``bayesfair`` command.

Exit codes: 0 success; 2 bad arguments or bad data (one clear line on
stderr, no traceback, no partial output file); 1 anything else.
"""

from __future__ import annotations

import click

EXIT_BAD_INPUT = 2


class _BadInput(click.ClickException):
    exit_code = EXIT_BAD_INPUT

    def show(self, file=None):
        click.echo(f"bayesfair: error: {self.message}", err=True)


def _echo(quiet: bool, message: str) -> None:
    if not quiet:
        click.echo(message, err=True)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="bayesfair")
def main() -> None:
    """Bayesian and corrected-frequentist assessment of a classifier's group fairness."""


@main.command()
@click.option("--dataset", default="adult-sex", show_default=True, help="Bundled score set.")
@click.option("--classifier", default="MLP", show_default=True)
@click.option("--n-labeled", default=100, show_default=True, type=click.IntRange(min=1))
@click.option("--metrics", default="accuracy,tpr,fpr", show_default=True)
@click.option(
    "--epsilon", default=0.02, show_default=True, type=click.FloatRange(min=0, min_open=True)
)
@click.option("--draws", default=1000, show_default=True, type=click.IntRange(min=1))
@click.option("--chains", default=4, show_default=True, type=click.IntRange(min=1))
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--quiet", is_flag=True, help="No progress output.")
def demo(dataset, classifier, n_labeled, metrics, epsilon, draws, chains, seed, quiet):
    """Assess a bundled classifier: n_L labels at random, the rest unlabeled, BB vs BC."""
    from bayesfair.compare import compare
    from bayesfair.datasets import get_score_set, load_assessment

    try:
        spec = get_score_set(dataset)
        data = load_assessment(dataset, classifier, n_labeled=n_labeled, random_seed=seed)
        metric_list = [m.strip() for m in metrics.split(",") if m.strip()]
    except (ValueError, TypeError) as exc:
        raise _BadInput(str(exc)) from None
    _echo(
        quiet,
        f"Dataset {spec.name} ({classifier} scores): {data.n_labeled} labeled, "
        f"{data.n_unlabeled} unlabeled examples; reference group {data.reference!r}.",
    )
    try:
        comp = compare(
            data,
            metric_list,
            epsilon=epsilon,
            random_seed=seed,
            fit_kwargs={"draws": draws, "chains": chains},
            progressbar=not quiet,
        )
    except (ValueError, TypeError) as exc:
        raise _BadInput(str(exc)) from None
    click.echo(comp.to_markdown())


@main.command()
def datasets():
    """List the bundled data sets."""
    import pandas as pd

    from bayesfair.datasets import list_datasets

    table = list_datasets()
    with pd.option_context(
        "display.max_columns", None, "display.width", 200, "display.max_colwidth", 40
    ):
        click.echo(table.to_string())


if __name__ == "__main__":  # pragma: no cover
    main()
