"""The package's one progress bar: rich's, on standard error, for long loops.

``progressbar=True`` in :func:`bayesfair.plan_labels`,
:func:`bayesfair.experiments.run_experiment` and the CLI draws this bar (the
samplers draw their own, nutpie's or PyMC's, which also use rich). On a
terminal it redraws in place; elsewhere (a log file, CI) rich prints the
finished bar once.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator


def track(iterable: Iterable, total: int, description: str, enabled: bool = True) -> Iterator:
    """Yield from ``iterable``, advancing a bar of ``total`` steps when ``enabled``.

    Examples
    --------
    >>> list(track(range(3), 3, "runs", enabled=False))
    [0, 1, 2]
    """
    if not enabled:
        yield from iterable
        return
    # rich comes with pymc; imported here so that `import bayesfair` stays fast
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=Console(stderr=True)) as bar:
        task = bar.add_task(description, total=total)
        for item in iterable:
            yield item
            bar.advance(task)
