"""The ``bayesfair`` command (:mod:`bayesfair.cli.main`): one module per subcommand
(``demo``, ``assess``, ``plan``, ``suggest``, ``datasets``), their shared error
handling (:mod:`bayesfair.cli._errors`) and options (:mod:`bayesfair.cli._options`),
and the files they read (:mod:`bayesfair.cli.files`)."""

from bayesfair.cli.main import main

__all__ = ["main"]
