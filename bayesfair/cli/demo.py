"""``bayesfair demo``: assess a bundled classifier."""

from __future__ import annotations

import warnings

import click

from bayesfair.cli._errors import show_warnings, user_errors, warn
from bayesfair.cli._options import detail_option, metric_list, positive_finite
from bayesfair.cli.files import _echo
from bayesfair.datasets import get_score_set, load_assessment
from bayesfair.report.compare import compare


@click.command()
@click.option("--dataset", default="adult-sex", show_default=True, help="Bundled score set.")
@click.option("--classifier", default="MLP", show_default=True)
@click.option("--n-labeled", default=100, show_default=True, type=click.IntRange(min=1))
@click.option("--metrics", default="accuracy,tpr,fpr", show_default=True)
@click.option("--epsilon", default=0.02, show_default=True, type=float, callback=positive_finite)
@click.option("--draws", default=1000, show_default=True, type=click.IntRange(min=1))
@click.option("--chains", default=4, show_default=True, type=click.IntRange(min=1))
@click.option("--seed", default=0, show_default=True, type=int)
@click.option("--quiet", is_flag=True, help="No progress output.")
@detail_option
@user_errors
def demo(dataset, classifier, n_labeled, metrics, epsilon, draws, chains, seed, quiet, detail):
    """Assess a bundled classifier: n_L labels at random, the rest unlabeled, BB vs RBC."""
    spec = get_score_set(dataset)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        data = load_assessment(dataset, classifier, n_labeled=n_labeled, random_seed=seed)
    show_warnings(caught)
    names = metric_list(metrics)
    _echo(
        quiet,
        f"Dataset {spec.name} ({classifier} scores): {data.n_labeled} labeled, "
        f"{data.n_unlabeled} unlabeled examples; reference group {data.reference!r}.",
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        comp = compare(
            data,
            names,
            epsilon=epsilon,
            random_seed=seed,
            fit_kwargs={"draws": draws, "chains": chains},
            progressbar=False,  # the samplers' bars are wider than a terminal
        )
    show_warnings(caught)
    for sentence in comp.disagreements:
        warn(sentence)
    click.echo(comp.to_markdown(detail=detail))
