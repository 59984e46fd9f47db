"""How the command line reports: one line per error and per warning.

Exit codes: 0 success; 2 bad arguments or bad data (one clear line on stderr, no
traceback, no partial output file); 1 anything else (still one line). Every
command is wrapped in :func:`user_errors`, so no command repeats the handling.
"""

from __future__ import annotations

import functools
import os
import re

import click

EXIT_BAD_INPUT = 2

#: The API's parameter names whose command-line option is named differently.
_API_TO_OPTION = {
    "random_seed": "seed",
    "n": "n_labels",
    "metric": "metrics",
    "labels": "label",
    "scores": "score",
    "groups": "group",
}

#: How the API's messages name a parameter (bayesfair._internal.validation): "the 'x' parameter",
#: or a quoted parameter name with an underscore ("with 'pos_label'"), which no group or
#: column of the user's is mistaken for unless it is an option's name too.
_PARAMETER = re.compile(r"\b[Tt]he '(\w+)' parameter|'(\w+_\w+)'")


class BadInput(click.ClickException):
    """The user's arguments or data are wrong: one line on stderr, exit 2."""

    exit_code = EXIT_BAD_INPUT

    def show(self, file=None):
        click.echo(f"bayesfair: error: {self.message}", err=True)


def one_line(exc: BaseException) -> str:
    """An exception's message on one line (a KeyError's without its quotes)."""
    text = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
    return " ".join(text.split())


def flag_words(message: str) -> str:
    """An API message as the command line says it: "the 'reference' parameter" becomes
    "--reference" where the running command has that option."""
    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return message
    options = {p.name: p.opts[0] for p in ctx.command.params if isinstance(p, click.Option)}

    def swap(match):
        name = match.group(1) or match.group(2)
        option = options.get(_API_TO_OPTION.get(name, name)) or options.get(name)
        return option if option else match.group(0)

    return _PARAMETER.sub(swap, message)


def internal_error(exc: Exception):
    """Report an unexpected error in one line on stderr and exit with status 1."""
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    click.echo(f"bayesfair: internal error: {type(exc).__name__}: {first}", err=True)
    raise click.exceptions.Exit(1) from None


def user_errors(command):
    """Wrap a command: a ``ValueError`` or ``TypeError`` (bayesfair's
    ``InvalidParameterError`` is both) is the user's input, reported in one line
    naming the option, exit 2; any other exception is an internal error, exit 1."""

    @functools.wraps(command)
    def run(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except (ValueError, TypeError) as exc:
            raise BadInput(flag_words(one_line(exc))) from None
        except Exception as exc:
            internal_error(exc)

    return run


def _own(w) -> bool:
    """A warning bayesfair raised (its category, or a call site in the package)."""
    package = os.path.dirname(os.path.dirname(__file__))  # bayesfair/
    return type(w.message).__module__.startswith("bayesfair") or str(w.filename).startswith(package)


def show_warnings(caught) -> None:
    """Print bayesfair's warnings as one line each; other libraries' notices are dropped.

    ArviZ's refactor announcement, PyMC and nutpie chatter, pandas deprecations
    are about those libraries, not about the user's data: the command line does
    not pass them on (the Python API leaves warnings to the caller's filters).
    """
    for w in dict.fromkeys(flag_words(one_line(w.message)) for w in caught if _own(w)):
        click.echo(f"bayesfair: warning: {w}", err=True)


def warn(message: str) -> None:
    """One warning line on stderr."""
    click.echo(f"bayesfair: warning: {message}", err=True)
