"""bayesfair.datasets.raw: the readers of the raw data sets and the selection-audit table.

Row counts and class totals come from outside the code under test: data/README.md and
the UCI ``adult.names`` file; the selection counts from the rule's worked example.
"""

from __future__ import annotations

import numpy as np
import pytest

from bayesfair.datasets import load_raw
from bayesfair.datasets.raw import AGE_BIN_EDGES, load_selection_example, load_uci_adult

# ---------------------------------------------------------------------- raw data sets


@pytest.mark.parametrize(
    ("name", "n_rows", "label", "labels"),
    [
        ("adult", 32_561, "income-per-year", {"<=50K", ">50K"}),
        ("german", 1_000, "credit", {1, 2}),
        ("compas", 7_214, "two_year_recid", {0, 1}),
        ("propublica-recidivism", 7_214, "two_year_recid", {0, 1}),
        ("compas-violent", 4_743, "two_year_recid", {0, 1}),
        ("ricci", 118, "Class", {0, 1}),
        ("uci-adult", 48_842, "income", {0, 1}),
    ],
)
def test_raw_datasets(name, n_rows, label, labels):
    frame = load_raw(name)
    assert len(frame) == n_rows
    assert set(frame[label]) == labels
    assert not any(str(c).endswith(".1") for c in frame.columns)


def test_raw_coding():
    adult = load_raw("adult")
    assert adult["workclass"].isna().sum() == 1_836  # '?' read as missing
    assert len(adult.dropna()) == 30_162  # Ji et al.'s test split is a third of these
    german = load_raw("german")
    assert german["sex"].value_counts().to_dict() == {"male": 690, "female": 310}
    compas = load_raw("compas")
    assert list(compas.columns).count("decile_score") == 1
    assert compas["race"].nunique() == 6
    assert load_raw("ricci")["Class"].sum() == 56
    with pytest.raises(ValueError, match="Did you mean 'ricci'"):
        load_raw("ricc")


def test_german_sex_and_age_follow_friedler_et_al_s_coding():
    """Male for personal status A91, A93, A94 (the UCI codes of the male statuses), an
    adult from 25 years on: row by row."""
    german = load_raw("german")
    male = german["personal_status"].isin(["A91", "A93", "A94"])
    assert (german["sex"] == np.where(male, "male", "female")).all()
    assert ((german["age_group"] == "adult") == (german["age"] >= 25)).all()
    assert set(german["personal_status"]) == {"A91", "A92", "A93", "A94"}


def test_ricci_passes_from_a_combined_score_of_70():
    ricci = load_raw("ricci")
    assert ricci["Class"].dtype == np.int64
    assert ((ricci["Class"] == 1) == (ricci["Combine"] >= 70)).all()
    assert ricci.loc[ricci["Class"] == 1, "Combine"].min() >= 70
    assert ricci.loc[ricci["Class"] == 0, "Combine"].max() < 70


def test_compas_drops_only_the_identical_repeats_of_its_header():
    """The ProPublica files repeat columns (pandas names the copies ``x.1``); the copies
    are dropped and the originals kept."""
    for name, repeated in (
        ("compas", ["decile_score", "priors_count"]),
        ("compas-violent", ["decile_score", "priors_count", "two_year_recid"]),
    ):
        frame = load_raw(name)
        for column in repeated:
            assert list(frame.columns).count(column) == 1, (name, column)
            assert f"{column}.1" not in frame.columns


# ---------------------------------------------------------------------- UCI Adult


def test_uci_adult_splits_and_cleaning():
    train, test, both = load_uci_adult("train"), load_uci_adult("test"), load_uci_adult("all")
    # uci-adult.names: train = 32561, test = 16281; '>50K' is 23.93 % of all 48842
    assert (len(train), len(test), len(both)) == (32_561, 16_281, 48_842)
    assert both["income"].mean() == pytest.approx(0.2393, abs=5e-5)
    assert (train["income"].sum(), test["income"].sum()) == (7_841, 3_846)
    assert set(both["split"]) == {"train", "test"}
    # the test file's junk first line is gone: its first record is a 25-year-old
    assert test.iloc[0][["age", "race", "sex"]].tolist() == [25, "Black", "Male"]
    assert set(both["race"]) == {
        "White",
        "Asian-Pac-Islander",
        "Amer-Indian-Eskimo",
        "Other",
        "Black",
    }
    # 45222 rows without unknowns (uci-adult.names)
    assert len(both.dropna()) == 45_222
    strings = both.select_dtypes(include="str")
    assert not strings.apply(lambda c: c.str.startswith(" ").any()).any()


def test_uci_adult_age_groups_as_lum_et_al():
    frame = load_uci_adult("all")
    groups = frame["age_group"]
    assert groups.cat.ordered
    assert groups.cat.categories.tolist() == [
        "(15, 25]",
        "(25, 35]",
        "(35, 45]",
        "(45, 55]",
        "(55, 65]",
        "(65, 75]",
        "(75, 85]",
        "(85, 95]",
    ]
    assert groups.notna().all()
    assert (frame.loc[groups == "(15, 25]", "age"].agg(["min", "max"]) == [17, 25]).all()
    assert (frame.loc[groups == "(25, 35]", "age"].agg(["min", "max"]) == [26, 35]).all()
    assert len(groups.cat.categories) * frame["race"].nunique() == 40
    with pytest.raises(ValueError, match="'split' parameter must be one of"):
        load_uci_adult("tset")


def test_age_bin_edges_are_ten_years_from_15_to_95():
    assert AGE_BIN_EDGES == (15, 25, 35, 45, 55, 65, 75, 85, 95)


def test_uci_adult_all_is_the_training_file_then_the_test_file():
    train, test, both = load_uci_adult("train"), load_uci_adult("test"), load_uci_adult("all")
    assert both.index.tolist() == list(range(len(both)))
    assert (both["split"].iloc[: len(train)] == "train").all()
    assert (both["split"].iloc[len(train) :] == "test").all()
    np.testing.assert_array_equal(both["age"].iloc[len(train) :], test["age"])
    assert set(train.columns) == set(test.columns) == set(both.columns)
    assert train.shape[1] == 17  # 14 attributes, income, split, age_group
    with pytest.raises(ValueError, match=r"Got 'tests' instead\. Did you mean 'test'"):
        load_uci_adult("tests")


# ---------------------------------------------------------------------- selection audit


def test_selection_example_tables_and_counts():
    """The rule's three tables: 2,571 applicants of known category by sex and in the
    intersections (the 250 of unknown category are not in the table)."""
    every = load_selection_example(None)
    assert every["table"].value_counts().to_dict() == {
        "intersectional": 14,
        "race_ethnicity": 7,
        "sex": 2,
    }
    for table in ("intersectional", "sex"):
        part = load_selection_example(table)
        assert part["applicants"].sum() == 2_571
        assert (part["table"] == table).all() and part.index.tolist() == list(range(len(part)))
    assert load_selection_example()["applicants"].sum() == 2_571  # intersectional by default
    sex = load_selection_example("sex").set_index("category")
    assert sex.loc["Male", ["applicants", "selected"]].tolist() == [1_390, 667]
    assert sex.loc["Female", "published_impact_ratio"] == pytest.approx(0.979)


def test_selection_example_category_names_join_the_non_empty_parts():
    every = load_selection_example(None)
    names = set(every["category"])
    assert {"Male", "Female", "Hispanic or Latino", "Hispanic or Latino / Male"} <= names
    assert "Not Hispanic or Latino / White" in names
    assert "Not Hispanic or Latino / Female / Two or More Races" in names
    assert not any(name.startswith(" /") or name.endswith("/ ") for name in names)
    assert every["category"].is_unique


def test_selection_example_refuses_an_unknown_table():
    with pytest.raises(ValueError, match=r"Unknown table 'race'; choose one of \['intersect"):
        load_selection_example("race")
