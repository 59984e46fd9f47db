"""The model catalogue (bayesfair.models.catalogue): one record per model, read by the fit,
the reports and the command line."""

import pytest

import bayesfair as bf
from bayesfair.models.catalogue import MODEL_SPECS, ModelSpec, models_with_map, verdict_order


def test_every_model_fit_knows_has_one_record_and_the_descriptions_are_its():
    assert set(MODEL_SPECS) == set(bf.MODELS)
    assert all(isinstance(spec, ModelSpec) for spec in MODEL_SPECS.values())
    assert {name: spec.description for name, spec in MODEL_SPECS.items()} == dict(bf.MODELS)
    assert list(bf.MODELS) == list(reversed(verdict_order()))  # simplest first


def test_verdicts_rest_on_the_robust_model_first_and_the_maps_are_the_calibration_models():
    assert verdict_order() == ("rbc", "bc", "hbb", "bb")
    assert models_with_map() == ("rbc", "bc")
    for name, spec in MODEL_SPECS.items():
        assert spec.uses_unlabeled == spec.has_map  # today the models with maps read scores
        assert spec.display == name.upper() and spec.words.startswith(spec.display)


def test_the_command_line_offers_the_catalogue_s_models():
    from bayesfair.cli.assess import assess

    (option,) = [p for p in assess.params if p.name == "model"]
    assert list(option.type.choices) == list(verdict_order())


def test_a_record_is_frozen():
    with pytest.raises(AttributeError):
        MODEL_SPECS["bb"].display = "X"
