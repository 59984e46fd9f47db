"""The ``bayesfair`` command: one module per subcommand.

Exit codes: 0 success; 2 bad arguments or bad data (one clear line on
stderr, no traceback, no partial output file); 1 anything else
(:mod:`bayesfair.cli._errors`).
"""

from __future__ import annotations

import click

from bayesfair.cli.assess import assess
from bayesfair.cli.datasets import datasets
from bayesfair.cli.demo import demo
from bayesfair.cli.plan import plan
from bayesfair.cli.suggest import suggest


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="bayesfair")
def main() -> None:
    """Bayesian and corrected-frequentist assessment of a classifier's group fairness."""


for _command in (demo, assess, plan, suggest, datasets):
    main.add_command(_command)

if __name__ == "__main__":  # pragma: no cover
    main()
