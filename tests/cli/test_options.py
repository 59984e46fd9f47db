"""The option values the commands share (:mod:`bayesfair.cli._options`): ε, metric
lists, group columns, label budgets and separators."""

import click
import pytest

from bayesfair.cli._errors import EXIT_BAD_INPUT, BadInput
from bayesfair.cli._options import (
    budgets,
    group_columns,
    metric_list,
    positive_finite,
    separator,
)
from bayesfair.exceptions import InvalidParameterError


def _option(name):
    return click.Option([f"--{name}"], type=float)


# --------------------------------------------------------------------------- positive_finite
@pytest.mark.parametrize("value", [None, 1e-9, 0.02, 0.999])
def test_positive_finite_passes_a_good_epsilon_through(value):
    assert positive_finite(None, _option("epsilon"), value) == value


@pytest.mark.parametrize("value", [0.0, -0.5, float("nan"), float("inf"), float("-inf")])
def test_positive_finite_refuses_zero_negative_and_non_finite(value):
    with pytest.raises(BadInput) as info:
        positive_finite(None, _option("epsilon"), value)
    assert info.value.message == f"--epsilon {value}: must be a positive, finite number."
    assert info.value.exit_code == EXIT_BAD_INPUT == 2


def test_only_epsilon_must_be_below_one():
    with pytest.raises(BadInput, match=r"^--epsilon 1.0: must be below 1 \(a tolerance"):
        positive_finite(None, _option("epsilon"), 1.0)
    # another option has no upper bound, and its own name in the message
    assert positive_finite(None, _option("scale"), 5.0) == 5.0
    with pytest.raises(BadInput, match=r"^--scale -1.0: must be a positive"):
        positive_finite(None, _option("scale"), -1.0)


# --------------------------------------------------------------------------- lists
def test_metric_list_gives_canonical_names_in_order():
    assert metric_list("accuracy,tpr") == ["accuracy", "tpr"]
    assert metric_list(" Recall , FPR,,precision ") == ["tpr", "fpr", "ppv"]
    assert metric_list("false-omission-rate") == ["for"]


def test_metric_list_refuses_none_and_an_unknown_name():
    for text in ("", " , ,"):
        with pytest.raises(BadInput, match="'--metrics' option must name at least one rate"):
            metric_list(text)
    with pytest.raises(InvalidParameterError, match="Unknown metric 'tpt'. Did you mean 'tpr'?"):
        metric_list("accuracy,tpt")


def test_group_columns_split_on_commas():
    assert group_columns("sex") == ["sex"]
    assert group_columns(" race , sex ,") == ["race", "sex"]
    with pytest.raises(BadInput, match="'--group' option must name at least one column"):
        group_columns(" , ")


def test_budgets_are_label_counts():
    assert budgets(None) is None
    assert budgets("100,200, 400") == [100, 200, 400]
    assert budgets("50,") == [50]
    with pytest.raises(BadInput) as info:
        budgets("100,lots")
    assert "must be label counts separated by commas" in info.value.message
    assert "Got '100,lots'." in info.value.message
    with pytest.raises(BadInput):
        budgets("1.5")


@pytest.mark.parametrize(
    ("given", "expected"),
    [("tab", "\t"), ("\\t", "\t"), (";", ";"), ("|", "|"), (",", ","), (None, None)],
)
def test_separator_spells_out_tab(given, expected):
    assert separator(given) == expected
