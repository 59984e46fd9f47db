"""The ``bayesfair`` command (:mod:`bayesfair.cli.commands`); its files
(:mod:`bayesfair.cli.files`)."""

from bayesfair.cli.commands import main

__all__ = ["main"]
