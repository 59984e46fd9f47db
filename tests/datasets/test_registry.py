"""bayesfair.datasets.registry: the score sets, raw data sets and classifiers, by name.

The facts below come from the score files and data/README.md, not from the registry.
"""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bayesfair import datasets
from bayesfair.datasets import load_scores, verify_checksums
from bayesfair.datasets.registry import (
    CLASSIFIERS,
    RAW_DATASETS,
    SCORE_SETS,
    RawDataset,
    ScoreSet,
    get_score_set,
    list_datasets,
    load_raw,
)

# Facts read off the score files themselves (data/README.md), not from the registry:
# name -> (test rows, privileged group, unprivileged group, number of raw values).
EXPECTED_SCORE_SETS = {
    "adult-race": (10_054, "White", "Non-white", 5),
    "adult-sex": (10_054, "Male", "Female", 2),
    "german-age": (334, "adult", "youth", 2),
    "german-sex": (334, "male", "female", 2),
    "compas-race": (2_056, "Caucasian", "Non-Caucasian", 6),
    "compas-sex": (2_056, "Male", "Female", 2),
    "ricci-race": (40, "White", "Non-white", 3),
}


@pytest.fixture(scope="module")
def compas_race() -> pd.DataFrame:
    return load_scores("compas-race", "LR")


def test_every_registered_score_set_has_expected_facts():
    # parametrising over the registry (tests/datasets/test_scores.py) tests a new entry;
    # this makes it need facts
    assert {spec.name for spec in datasets.SCORE_SETS.values()} == set(EXPECTED_SCORE_SETS)


def test_names_and_aliases():
    alias = load_scores("propublica-recidivism-race", "LR")
    pd.testing.assert_frame_equal(alias, load_scores("compas-race", "LR"))
    assert get_score_set("Adult-Race").name == "adult-race"
    with pytest.raises(ValueError, match=r"Unknown score set 'adult-rase'\. Did you mean 'adult-r"):
        load_scores("adult-rase")
    with pytest.raises(TypeError, match="'name' parameter must be a string"):
        load_scores(3)


def test_classifier_names(compas_race):
    mlp = load_scores("compas-race", "MLP")["score"]
    for spelling in ["mlp", "MultiLayerPerceptron", "score_MultiLayerPerceptron"]:
        pd.testing.assert_series_equal(load_scores("compas-race", spelling)["score"], mlp)
    assert not np.allclose(mlp, compas_race["score"])
    pd.testing.assert_series_equal(
        load_scores("compas-race", "score_LR")["score"], compas_race["score"]
    )
    feldman = load_scores("compas-race", "Feldman-LR")["score"]
    pd.testing.assert_series_equal(feldman, load_scores("compas-race", "score_Feldman-LR")["score"])
    assert not np.allclose(feldman, compas_race["score"])
    with pytest.raises(ValueError, match=r"Unknown classifier 'mlpp'\. Did you mean 'mlp'"):
        load_scores("compas-race", "mlpp")


def test_list_datasets_agrees_with_the_files():
    table = list_datasets()
    scores = table[table["kind"] == "scores"]
    assert list(scores.index) == list(EXPECTED_SCORE_SETS)
    for name, row in scores.iterrows():
        assert row["n_rows"] == EXPECTED_SCORE_SETS[name][0] == len(load_scores(name, "LR"))
        assert row["privileged_group"] == EXPECTED_SCORE_SETS[name][1]
        assert "MLP" in row["classifiers"]
    raw = table[table["kind"] == "raw"]
    assert set(raw.index) == {"adult", "german", "compas", "compas-violent", "ricci", "uci-adult"}
    listed = {f.strip() for files_ in table["file"] for f in files_.split(",")}
    data_files = {f for f in verify_checksums() if f.endswith(".gz")}
    assert data_files == listed


def test_the_registry_is_data_read_from_the_package():
    registry = json.loads(files("bayesfair").joinpath("registry.json").read_text("utf-8"))
    assert [row["name"] for row in registry["score_sets"]] == [
        s.name for s in datasets.SCORE_SETS.values()
    ]
    assert [row["name"] for row in registry["raw_datasets"]] == [
        r.name for r in datasets.RAW_DATASETS.values()
    ]
    # the module keeps the loaders, not the tables
    source = "".join(p.read_text() for p in Path(datasets.__file__).parent.glob("*.py"))
    assert "income > 50K" not in source and "propublica-violent-recidivism.csv.gz" not in source


# ---------------------------------------------------------------------- look-ups


def test_score_sets_are_keyed_as_names_normalise():
    assert set(SCORE_SETS) == {name.replace("-", "_") for name in EXPECTED_SCORE_SETS}
    for key, spec in SCORE_SETS.items():
        assert isinstance(spec, ScoreSet) and key == spec.name.replace("-", "_")
        assert spec.positive_label == 1
        assert isinstance(spec.privileged_values, tuple)
        assert isinstance(spec.other_sensitive, tuple)
        assert spec.dataset in {r.name for r in RAW_DATASETS.values()}


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("compas-race", "compas-race"),
        ("COMPAS_race", "compas-race"),
        (" german-sex ", "german-sex"),
        ("propublica-recidivism-race", "compas-race"),
    ],
)
def test_get_score_set_resolves_spellings_and_aliases(name, expected):
    assert get_score_set(name) is SCORE_SETS[expected.replace("-", "_")]


def test_adult_sex_s_paper_file_is_adult_race_s():
    """data/README.md: Ji et al. computed their adult-sex results from adult_race_scores."""
    spec = get_score_set("adult-sex")
    assert spec.file == "scores/adult_sex_scores.csv.gz"
    assert spec.paper_file == "scores/adult_race_scores.csv.gz"
    others = [s for s in SCORE_SETS.values() if s.name != "adult-sex"]
    assert all(s.file == s.paper_file for s in others)


def test_a_raw_data_set_s_name_asks_for_a_score_set():
    with pytest.raises(ValueError, match=r"'german' is a raw data set \(load_raw\)"):
        get_score_set("german")
    with pytest.raises(ValueError, match="The score sets: adult-race, adult-sex"):
        get_score_set("nothing-like-it")


def test_classifiers_are_the_five_of_ji_et_al():
    assert CLASSIFIERS == {
        "mlp": "MultiLayerPerceptron",
        "lr": "LR",
        "nb": "GaussianNB",
        "dt": "DecisionTree",
        "rf": "RandomForest",
    }


def test_raw_data_sets_describe_their_coding():
    assert set(RAW_DATASETS) == {
        "adult",
        "german",
        "compas",
        "compas_violent",
        "ricci",
        "uci_adult",
    }
    for raw in RAW_DATASETS.values():
        assert isinstance(raw, RawDataset)
        assert len(raw.sensitive) == len(raw.privileged)
        assert raw.files and all(f.startswith("raw/") for f in raw.files)
    german = RAW_DATASETS["german"]
    assert german.label == "credit" and german.n_rows == 1_000
    # the reader is a loader, not part of the record's identity
    assert "reader" not in repr(german)


@pytest.mark.parametrize(
    ("alias", "name"),
    [("propublica-recidivism", "compas"), ("propublica-violent-recidivism", "compas-violent")],
)
def test_load_raw_reads_aliases_as_their_data_set(alias, name):
    a, b = load_raw(alias), load_raw(name)
    pd.testing.assert_frame_equal(a, b)
    assert len(a) == RAW_DATASETS[name.replace("-", "_")].n_rows


def test_list_datasets_describes_every_entry_from_the_registry():
    table = list_datasets()
    assert table.index.name == "name"
    assert list(table.columns) == [
        "kind",
        "file",
        "n_rows",
        "label",
        "positive_label",
        "group",
        "privileged_group",
        "unprivileged_group",
        "classifiers",
        "description",
    ]
    assert table["kind"].value_counts().to_dict() == {"scores": 7, "raw": 6}
    for name, raw in RAW_DATASETS.items():
        row = table.loc[raw.name]
        assert row["n_rows"] == raw.n_rows and row["group"] == ", ".join(raw.sensitive)
        assert row["classifiers"] == "" and row["unprivileged_group"] == ""
        assert row["description"].endswith(f"Positive label = {raw.label_meaning}."), name
    row = table.loc["adult-race"]
    assert row["description"].startswith("Ji et al. (2020) test split; label 1 = income > 50K")
    assert row["classifiers"].split(", ")[:5] == ["MLP", "LR", "NB", "DT", "RF"]
    assert row["classifiers"].split(", ")[5] == "Feldman-MLP"
