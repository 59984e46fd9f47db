"""Name lookup with a "did you mean" (:mod:`bayesfair._internal.names`), shared by every
registry."""

import pytest

from bayesfair._internal.names import resolve_name, suggest
from bayesfair.exceptions import InvalidParameterError

FRUIT = {"apple": 1, "banana": 2, "blood_orange": 3}
ALIASES = {"pomme": "apple", "plantain": "banana"}


def _resolve(name, aliases=ALIASES):
    return resolve_name(name, FRUIT, aliases=aliases, what="fruit", argument="fruit")


# --------------------------------------------------------------------------- suggest
def test_suggest_names_the_closest_choice():
    assert suggest("appel", FRUIT) == " Did you mean 'apple'?"
    assert suggest("banan", ["apple", "banana", "bandana"]) == " Did you mean 'banana'?"


def test_suggest_says_nothing_when_no_choice_is_close():
    assert suggest("kiwi", FRUIT) == ""
    assert suggest("apple", []) == ""


def test_suggest_takes_any_iterable_and_a_non_string_name():
    assert suggest("tpr_", iter(["tpr", "fpr"])) == " Did you mean 'tpr'?"
    assert suggest(1, ["1.0", "2.5"]) == " Did you mean '1.0'?"


# --------------------------------------------------------------------------- resolve_name
@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("apple", "apple"),
        ("APPLE", "apple"),
        ("  Banana ", "banana"),
        ("blood-orange", "blood_orange"),
        ("Blood Orange", "blood_orange"),
        ("pomme", "apple"),
        ("Plantain", "banana"),
    ],
)
def test_resolve_name_is_case_insensitive_and_takes_aliases(name, key):
    assert _resolve(name) == key


def test_an_unknown_name_is_refused_with_the_nearest_and_the_known_names():
    with pytest.raises(InvalidParameterError) as info:
        _resolve("Appel")
    assert str(info.value) == (
        "Unknown fruit 'Appel'. Did you mean 'apple'? Known fruits: apple, banana, blood_orange."
    )
    with pytest.raises(ValueError, match=r"^Unknown fruit 'kiwi'\. Known fruits: apple, "):
        _resolve("kiwi")


def test_an_alias_can_be_the_suggestion():
    with pytest.raises(InvalidParameterError, match="Did you mean 'plantain'?"):
        _resolve("plantian")


def test_without_aliases_only_the_registry_resolves():
    assert _resolve("apple", aliases=None) == "apple"
    with pytest.raises(InvalidParameterError, match="Unknown fruit 'pomme'"):
        _resolve("pomme", aliases=None)


@pytest.mark.parametrize("name", [None, 3, ["apple"], b"apple"])
def test_a_name_that_is_not_a_string_is_a_type_error(name):
    with pytest.raises(TypeError) as info:
        _resolve(name)
    assert isinstance(info.value, InvalidParameterError)
    assert str(info.value) == (
        f"The 'fruit' parameter must be a string naming a fruit. "
        f"Got {name!r} of type {type(name).__name__} instead."
    )
