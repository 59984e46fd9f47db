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


def _toy_fit(counts, metrics, prior, sampler, rng, run):
    """A toy model's builder: every rate its own Beta(x + α, n − x + β), exactly."""
    import xarray as xr

    from bayesfair._internal.tree import make_tree
    from bayesfair.models.labeled import labeled_fractions

    x, n = labeled_fractions(counts, metrics)
    shape = (run["chains"], run["draws"], *x.shape)
    theta = rng.beta(x + prior.alpha, n - x + prior.beta, size=shape)
    dims = ("chain", "draw", "metric", "group")
    return make_tree({"posterior": xr.Dataset({"theta": (dims, theta)})})


def _toy_prior(prior, trials, n, rng, metrics=None):
    import numpy as np

    return rng.beta(prior.alpha, prior.beta, size=(n, *np.shape(trials)))


def test_a_new_model_is_one_model_spec_plus_its_builder(monkeypatch, data, fast):
    """A labeled-count model added by one ``ModelSpec`` (with its builder and prior draws):
    ``fit`` takes it by name and its draws are what the builder drew; the tables, the
    group view, prior sensitivity and ``compare`` read it with nothing else taught."""
    import numpy as np

    from bayesfair.models.beta_binomial import BetaPrior

    toy = ModelSpec(
        "toy",
        "every rate its own Beta, drawn exactly (a test's model)",
        "TOY",
        "TOY, a test's model of the labeled examples",
        uses_unlabeled=False,
        has_map=False,
        prior_type=BetaPrior,
        fit_counts=_toy_fit,
        prior_rates=_toy_prior,
        exact_sampler=True,
    )
    monkeypatch.setitem(MODEL_SPECS, "toy", toy)  # the one entry
    res = bf.fit(data, "toy", metrics=["tpr", "fpr"], random_seed=0, **fast)
    assert res.model == "toy" and res.settings["sampler"] == "exact"
    counts = data.confusion_counts()
    tp, fn = counts["tp"].to_numpy(), counts["fn"].to_numpy()
    expected = (tp + 1) / (tp + fn + 2)  # the posterior mean of Beta(x + 1, n − x + 1)
    draws = res.rates("tpr").stack(sample=("chain", "draw")).values
    se = draws.std(axis=-1) / np.sqrt(draws.shape[-1])
    assert np.all(np.abs(draws.mean(axis=-1) - expected) < 5 * se)  # 5 SE: 1 in 10⁶
    assert set(res.summary()["metric"]) == {"tpr", "fpr"}
    assert len(res.group_summary("tpr")) == len(res.groups)
    assert len(res.sensitivity()) == 2 * (len(res.groups) - 1)
    comp = bf.compare(
        data,
        ["tpr"],
        models=("toy",),
        n_resamples=50,
        random_seed=0,
        fit_kwargs={k: v for k, v in fast.items() if k != "progressbar"},
        progressbar=False,
    )
    assert "TOY" in comp.to_markdown(detail="full")
