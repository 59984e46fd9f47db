"""How the command line reports (:mod:`bayesfair.cli._errors`): one line per error and
per warning, exit 2 for the user's input and 1 for anything else, and the API's parameter
names said as the command's options."""

import warnings

import click
import pytest
from click.testing import CliRunner

from bayesfair.cli._errors import (
    EXIT_BAD_INPUT,
    BadInput,
    flag_words,
    internal_error,
    one_line,
    show_warnings,
    user_errors,
    warn,
)
from bayesfair.exceptions import InvalidParameterError, SamplingWarning


def _command(body):
    """A command with options named like the API's parameters or not, running ``body``."""

    @click.command()
    @click.option("--reference")
    @click.option("--seed", type=int)
    @click.option("--n", "n_labels", type=int)
    @click.option("--metrics")
    @user_errors
    def command(reference, seed, n_labels, metrics):
        body()

    return command


def _invoke(body):
    return CliRunner().invoke(_command(body), [])


def _raise(exc):
    def body():
        raise exc

    return body


# --------------------------------------------------------------------------- one_line
def test_one_line_joins_lines_and_drops_a_keyerrors_quotes():
    assert one_line(ValueError("first\n  second\tthird  ")) == "first second third"
    assert one_line(KeyError("no such group")) == "no such group"
    assert str(KeyError("no such group")) == "'no such group'"  # what it would say
    assert one_line(KeyError()) == ""
    assert one_line(RuntimeError()) == ""


# --------------------------------------------------------------------------- flag_words
def test_flag_words_outside_a_command_leave_the_message():
    message = "The 'reference' parameter must be a group."
    assert flag_words(message) == message


def test_flag_words_name_the_commands_options():
    seen = {}

    def body():
        seen["reference"] = flag_words("The 'reference' parameter must be one of 'a', 'b'.")
        seen["seed"] = flag_words("the 'random_seed' parameter must be an int")
        seen["n"] = flag_words("The 'n' parameter must be positive.")
        seen["metric"] = flag_words("The 'metric' parameter is unknown.")
        seen["other"] = flag_words("The 'threshold' parameter must be a float in (0, 1).")
        seen["twice"] = flag_words("The 'reference' parameter and the 'n' parameter clash.")

    res = _invoke(body)
    assert res.exit_code == 0, res.output
    assert seen == {
        "reference": "--reference must be one of 'a', 'b'.",
        "seed": "--seed must be an int",
        "n": "--n must be positive.",
        "metric": "--metrics is unknown.",
        "other": "The 'threshold' parameter must be a float in (0, 1).",
        "twice": "--reference and --n clash.",
    }


# --------------------------------------------------------------------------- user_errors
@pytest.mark.parametrize(
    "exc",
    [
        ValueError("The 'reference' parameter\nmust be 'a'."),
        TypeError("The 'reference' parameter\nmust be 'a'."),
        InvalidParameterError("The 'reference' parameter\nmust be 'a'."),
    ],
)
def test_the_users_input_is_one_line_naming_the_option_exit_2(exc):
    res = _invoke(_raise(exc))
    assert res.exit_code == EXIT_BAD_INPUT == 2
    assert res.stderr == "bayesfair: error: --reference must be 'a'.\n"
    assert res.stdout == ""


def test_anything_else_is_an_internal_error_in_one_line_exit_1():
    res = _invoke(_raise(RuntimeError("  sampler exploded\nsecond line")))
    assert res.exit_code == 1
    assert res.stderr == "bayesfair: internal error: RuntimeError: sampler exploded\n"
    res = _invoke(_raise(KeyError("")))
    assert res.exit_code == 1
    assert res.stderr == "bayesfair: internal error: KeyError: ''\n"
    res = _invoke(_raise(OSError()))
    assert res.stderr == "bayesfair: internal error: OSError: \n"


def test_clicks_own_exits_pass_through():
    res = _invoke(_raise(BadInput("--out r.pdf: use .html")))
    assert (res.exit_code, res.stderr) == (2, "bayesfair: error: --out r.pdf: use .html\n")
    res = _invoke(_raise(click.UsageError("no such option")))
    assert res.exit_code == 2 and "Error: no such option" in res.stderr
    res = _invoke(_raise(click.exceptions.Exit(3)))
    assert res.exit_code == 3 and res.output == ""
    res = _invoke(_raise(click.Abort()))
    assert res.exit_code == 1 and "Aborted!" in res.stderr


def test_user_errors_keeps_the_commands_name_and_result():
    @user_errors
    def add(a, b=1):
        """Add."""
        return a + b

    assert add(2, b=3) == 5
    assert add.__name__ == "add" and add.__doc__ == "Add."


def test_internal_error_exits_with_status_1(capsys):
    with pytest.raises(click.exceptions.Exit) as info:
        internal_error(ZeroDivisionError("division by zero"))
    assert info.value.exit_code == 1
    assert capsys.readouterr().err == (
        "bayesfair: internal error: ZeroDivisionError: division by zero\n"
    )


def test_bad_input_shows_one_line_on_stderr(capsys):
    exc = BadInput("The file 'x.csv' is empty.")
    assert exc.exit_code == 2
    exc.show()
    captured = capsys.readouterr()
    assert captured.err == "bayesfair: error: The file 'x.csv' is empty.\n"
    assert captured.out == ""


# --------------------------------------------------------------------------- warnings
def test_show_warnings_prints_bayesfairs_once_each_and_drops_the_others():
    def body():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            warnings.warn("R-hat above 1.01\n(max 1.2)", SamplingWarning, stacklevel=1)
            warnings.warn("R-hat above 1.01 (max 1.2)", SamplingWarning, stacklevel=1)
            warnings.warn("The 'reference' parameter is small.", SamplingWarning, stacklevel=1)
            warnings.warn("another library's notice", FutureWarning, stacklevel=1)
            warnings.warn("a user warning of this file", UserWarning, stacklevel=1)
        show_warnings(caught)

    res = _invoke(body)
    assert res.exit_code == 0
    assert res.stderr.splitlines() == [
        "bayesfair: warning: R-hat above 1.01 (max 1.2)",
        "bayesfair: warning: --reference is small.",
    ]
    assert res.stdout == ""


def test_show_warnings_keeps_a_builtin_warning_raised_in_the_package():
    """A plain UserWarning is the package's when its call site is in bayesfair: shown; the
    same warning from elsewhere is not."""
    import bayesfair.data

    def body():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            warnings.warn_explicit("raised in the package", UserWarning, bayesfair.data.__file__, 1)
            warnings.warn_explicit("raised elsewhere", UserWarning, "/elsewhere/module.py", 1)
        show_warnings(caught)

    res = _invoke(body)
    assert res.exit_code == 0, res.output
    assert res.stderr == "bayesfair: warning: raised in the package\n"


def test_warn_prints_one_line(capsys):
    warn("--chains 1: convergence cannot be checked.")
    assert (
        capsys.readouterr().err
        == "bayesfair: warning: --chains 1: convergence cannot be checked.\n"
    )
