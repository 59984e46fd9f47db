"""bayesfair.datasets.scores: the score sets of Ji et al. (2020), their labeled / unlabeled
splits and the AssessmentData built from them.

Row counts, class totals and group shares come from outside the code under test:
data/README.md and Ji et al. (2020) Table 1.
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd
import pytest

from bayesfair import datasets
from bayesfair.data.assessment import AssessmentData
from bayesfair.datasets import get_score_set, load_raw
from bayesfair.datasets.scores import LabeledSplit, load_assessment, load_scores, split_labeled

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


# ---------------------------------------------------------------------- score sets


@pytest.mark.parametrize("name", [spec.name for spec in datasets.SCORE_SETS.values()])
def test_score_set_shape_and_coding(name):
    n_rows, privileged, unprivileged, n_raw = EXPECTED_SCORE_SETS[name]
    spec = get_score_set(name)
    assert (spec.privileged_group, spec.unprivileged_group) == (privileged, unprivileged)
    frame = load_scores(name)

    assert frame.shape == (n_rows, 4 + len(spec.other_sensitive))
    assert frame.columns[:4].tolist() == ["score", "label", "group", "raw_group"]
    assert frame.index.name == "row" and frame.index.is_unique
    assert frame["score"].between(0, 1).all() and frame["score"].dtype == float
    assert set(frame["label"]) == {0, 1}
    assert set(frame["group"]) == {privileged, unprivileged}
    assert frame["raw_group"].nunique() == n_raw
    assert spec.privileged_group == privileged and spec.positive_label == 1
    # the binarisation: privileged exactly where the raw value is a privileged one
    is_privileged = frame["raw_group"].isin(spec.privileged_values)
    assert ((frame["group"] == privileged) == is_privileged).all()
    assert frame.notna().all().all()


@pytest.mark.parametrize(
    ("name", "share"),
    # Ji et al. Table 1, P(g = 0) of the privileged group; see data/README.md for
    # the rows of Table 1 that do not match the files (Compas-R, German).
    [("adult-sex", 0.68), ("adult-race", 0.86), ("ricci-race", 0.65)],
)
def test_privileged_share_matches_ji_table_1(name, share):
    frame = load_scores(name)
    assert (frame["group"] == get_score_set(name).privileged_group).mean() == pytest.approx(
        share, abs=0.005
    )


def test_compas_groups(compas_race):
    assert set(compas_race["raw_group"]) == {
        "African-American",
        "Caucasian",
        "Hispanic",
        "Other",
        "Asian",
        "Native American",
    }
    assert (compas_race["group"] == "Caucasian").sum() == 729
    # COMPAS sex: male is privileged (Ji et al. Table 1; the authors' remap codes Male as 0)
    sex = load_scores("compas-sex")
    assert get_score_set("compas-sex").privileged_group == "Male"
    assert (
        (sex["group"] == "Male").sum() == (sex["raw_group"] == "Male").sum() == 1_672
    )  # 81.3 % of 2,056


def test_adult_sex_reads_the_papers_file_by_default():
    race = load_scores("adult-race", "MLP")
    paper = load_scores("adult-sex", "MLP")
    own = load_scores("adult-sex", "MLP", as_in_paper=False)
    np.testing.assert_array_equal(paper["score"], race["score"])
    assert not np.allclose(own["score"], paper["score"])
    pd.testing.assert_frame_equal(own.drop(columns="score"), paper.drop(columns="score"))
    # logistic regression is deterministic: both files agree
    pd.testing.assert_frame_equal(
        load_scores("adult-sex", "LR"), load_scores("adult-sex", "LR", as_in_paper=False)
    )


def test_german_scores_are_for_bad_credit_as_documented():
    frame = load_scores("german-age", "LR")
    accuracy = ((frame["score"] >= 0.5).astype(int) == frame["label"]).mean()
    assert accuracy == pytest.approx(0.2665, abs=1e-4)
    assert np.corrcoef(frame["score"], frame["label"])[0, 1] < -0.4


def test_score_rows_match_the_raw_files():
    german = load_raw("german")
    for name in ["german-age", "german-sex"]:
        frame = load_scores(name)
        raw = german.loc[frame.index]
        other = "sex" if name == "german-age" else "age"
        np.testing.assert_array_equal(frame["label"], (raw["credit"] == 1).astype(int))
        column = "age_group" if name == "german-age" else "sex"
        np.testing.assert_array_equal(frame["raw_group"], raw[column])
        assert other in frame.columns
    ricci = load_raw("ricci")
    frame = load_scores("ricci-race")
    np.testing.assert_array_equal(frame["label"], ricci.loc[frame.index, "Class"])
    np.testing.assert_array_equal(frame["raw_group"], ricci.loc[frame.index, "Race"])


# ---------------------------------------------------------------------- splits


@pytest.mark.parametrize("method", ["random", "ji2020"])
def test_split_sizes_disjoint_and_complete(compas_race, method):
    before = compas_race.copy()
    labeled, unlabeled = split_labeled(compas_race, 50, random_seed=3, method=method)
    assert (len(labeled), len(unlabeled)) == (50, 2_006)
    assert labeled.index.intersection(unlabeled.index).empty
    assert (
        labeled.index.union(unlabeled.index).sort_values().equals(compas_race.index.sort_values())
    )
    # original order and index kept; the input untouched
    position = compas_race.index.get_indexer
    assert (np.diff(position(labeled.index)) > 0).all()
    assert (np.diff(position(unlabeled.index)) > 0).all()
    pd.testing.assert_frame_equal(labeled, compas_race.loc[labeled.index])
    pd.testing.assert_frame_equal(compas_race, before)


@pytest.mark.parametrize("method", ["random", "ji2020"])
def test_split_reproducible_with_seed(compas_race, method):
    first = split_labeled(compas_race, 20, random_seed=7, method=method)
    again = split_labeled(compas_race, 20, random_seed=np.random.default_rng(7), method=method)
    other = split_labeled(compas_race, 20, random_seed=8, method=method)
    assert first.labeled.index.equals(again.labeled.index)
    assert not first.labeled.index.equals(other.labeled.index)
    smaller = split_labeled(compas_race, 10, random_seed=7, method=method)
    assert smaller.labeled.index.isin(first.labeled.index).all()  # nested in n_labeled


def test_random_split_is_the_head_of_a_permutation():
    frame = pd.DataFrame({"x": range(30)}, index=range(100, 130))
    labeled, _ = split_labeled(frame, 7, random_seed=11)
    expected = np.sort(np.random.default_rng(11).permutation(30)[:7]) + 100
    np.testing.assert_array_equal(labeled.index, expected)


def test_random_split_includes_each_row_equally_often():
    frame = pd.DataFrame({"x": range(10)})
    n_seeds, n_labeled = 1_000, 3
    counts = np.zeros(10)
    for seed in range(n_seeds):
        counts[split_labeled(frame, n_labeled, random_seed=seed).labeled.index] += 1
    p = n_labeled / 10
    # each count is Binomial(1000, 0.3): sd 14.5; 5 sd bounds all ten rows
    assert np.abs(counts - n_seeds * p).max() < 5 * np.sqrt(n_seeds * p * (1 - p))


def test_ji2020_matches_the_authors_procedure():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {"raw_group": rng.choice(list("abcde"), size=40, p=[0.6, 0.2, 0.1, 0.07, 0.03])}
    )
    for seed in range(20):
        for n_labeled in [5, 9, 40]:
            permuted = list(np.random.default_rng(seed).permutation(40))
            seen, front, rest = set(), [], []
            for i in permuted:
                value = frame["raw_group"].iloc[i]
                (rest if value in seen else front).append(i)
                seen.add(value)
            expected = sorted((front + rest)[:n_labeled])
            labeled, _ = split_labeled(frame, n_labeled, random_seed=seed, method="ji2020")
            assert labeled.index.tolist() == expected


def test_ji2020_labels_every_raw_group(compas_race):
    for seed in range(25):
        labeled, _ = split_labeled(compas_race, 6, random_seed=seed, method="ji2020")
        assert labeled["raw_group"].nunique() == 6
    # a plain random sample of 6 misses the rare groups (Asian 6 rows, Native American 3)
    random_hits = [
        split_labeled(compas_race, 6, random_seed=seed).labeled["raw_group"].nunique() == 6
        for seed in range(25)
    ]
    assert not any(random_hits)


@pytest.mark.parametrize(
    ("n_labeled", "error", "message"),
    [
        (0, ValueError, r"'n_labeled' parameter must be an integer in \[1, 40\].*Got 0 instead"),
        (41, ValueError, r"must be an integer in \[1, 40\] \(the number of rows\)\. Got 41"),
        (-3, ValueError, r"Got -3 instead"),
        (2.5, TypeError, r"'n_labeled' parameter must be an integer in \[1, 40\]\. Got 2\.5"),
        (True, TypeError, r"must be an integer.*Got True"),
        ("10", TypeError, r"Got '10' instead"),
    ],
)
def test_split_rejects_bad_n_labeled(n_labeled, error, message):
    frame = load_scores("ricci-race")
    with pytest.raises(error, match=message):
        split_labeled(frame, n_labeled)


def test_split_accepts_numpy_integers_and_the_whole_frame():
    frame = load_scores("ricci-race")
    labeled, unlabeled = split_labeled(frame, np.int64(40), random_seed=0)
    assert len(labeled) == 40 and unlabeled.empty


def test_ji2020_rejects_fewer_labels_than_groups(compas_race):
    with pytest.raises(
        ValueError, match=r"at least the number of distinct values of 'raw_group' \(6\).*Got 5"
    ):
        split_labeled(compas_race, 5, method="ji2020")
    with pytest.raises(ValueError, match=r"Column 'race' .* is not in the frame"):
        split_labeled(compas_race, 10, method="ji2020", raw_group="race")
    with pytest.raises(
        ValueError, match=r"'method' parameter must be one of.*Did you mean 'ji2020'"
    ):
        split_labeled(compas_race, 10, method="ji2021")
    with pytest.raises(TypeError, match="'frame' parameter must be a pandas DataFrame"):
        split_labeled(compas_race.to_numpy(), 10)


# ---------------------------------------------------------------------- assessment data


def test_load_assessment():
    data = load_assessment("compas-race", "MLP", n_labeled=30, random_seed=2, method="ji2020")
    assert isinstance(data, AssessmentData)
    assert (data.n_labeled, data.n_unlabeled) == (30, 2_026)
    assert data.reference == "Caucasian"
    assert data.group_levels == ["Caucasian", "Non-Caucasian"]
    assert data.pos_label == 1 and data.threshold == 0.5
    frame = load_scores("compas-race", "MLP")
    labeled, _ = split_labeled(frame, 30, random_seed=2, method="ji2020")
    np.testing.assert_array_equal(data.scores, labeled["score"])
    np.testing.assert_array_equal(data.labels, labeled["label"])


def test_load_assessment_with_every_row_labeled():
    data = load_assessment("adult-sex", "MLP", n_labeled=10_054, threshold=0.5)
    assert data.n_unlabeled == 0
    accuracy = data.rates("accuracy")
    # Ji et al. Fig. 3: the Adult MLP is more accurate for women than for men
    assert accuracy["Female"] - accuracy["Male"] == pytest.approx(0.1049, abs=5e-5)


# ---------------------------------------------------------------------- more of the same


def test_load_scores_reads_the_label_and_groups_as_coded_in_the_file(repo_root):
    """The frame's columns against the file read directly with pandas: the score column
    of the classifier, the label, the raw group as text and its binarisation."""
    spec = get_score_set("ricci-race")
    raw = pd.read_csv(repo_root / "data" / spec.file, index_col=0)
    frame = load_scores("ricci-race", "DT")
    np.testing.assert_array_equal(frame.index, raw.index)
    np.testing.assert_array_equal(frame["score"], raw["score_DecisionTree"].astype(float))
    np.testing.assert_array_equal(frame["label"], raw[spec.label])
    assert frame["label"].dtype == np.int64
    np.testing.assert_array_equal(frame["raw_group"], raw[spec.attribute].astype(str))
    assert list(frame.columns[4:]) == list(spec.other_sensitive)


def test_a_score_set_s_note_is_logged(caplog):
    noted = [s for s in datasets.SCORE_SETS.values() if s.note]
    plain = [s for s in datasets.SCORE_SETS.values() if not s.note]
    with caplog.at_level(logging.INFO, logger="bayesfair"):
        load_scores(plain[0].name, "LR")
    assert not [r for r in caplog.records if plain[0].name in r.getMessage()]
    assert [s.name for s in noted] == ["adult-sex", "german-age", "german-sex"]
    with caplog.at_level(logging.INFO, logger="bayesfair"):
        load_scores("german-age", "LR")
    assert any(noted[1].note in r.getMessage() for r in caplog.records)


def test_a_split_is_a_named_pair():
    frame = pd.DataFrame({"x": range(5)}, index=list("abcde"))
    split = split_labeled(frame, 2, random_seed=1)
    assert isinstance(split, LabeledSplit)
    assert split.labeled is split[0] and split.unlabeled is split[1]
    assert sorted([*split.labeled.index, *split.unlabeled.index]) == list("abcde")
    # the parts are copies: writing to one leaves the frame as it was
    split.labeled["x"] = -1
    assert frame["x"].tolist() == [0, 1, 2, 3, 4]


def test_ji2020_labels_the_first_row_of_each_group_in_permuted_order():
    """With as many labels as groups, ji2020 labels exactly the first row (in the seed's
    permutation) of each group: one row per group."""
    frame = pd.DataFrame({"raw_group": list("aabbbc"), "x": range(6)})
    labeled, unlabeled = split_labeled(frame, 3, random_seed=4, method="ji2020")
    order = np.random.default_rng(4).permutation(6)
    first = {}
    for i in order:
        first.setdefault(frame["raw_group"].iloc[i], i)
    assert sorted(labeled.index) == sorted(first.values())
    assert len(unlabeled) == 3


def test_load_assessment_threshold_and_classifier():
    """The threshold sets the predictions; the groups and reference come from the set."""
    low = load_assessment("german-sex", "LR", n_labeled=50, random_seed=0, threshold=0.2)
    high = load_assessment("german-sex", "LR", n_labeled=50, random_seed=0, threshold=0.8)
    assert (low.threshold, high.threshold) == (0.2, 0.8)
    assert low.reference == "male" and set(low.group_levels) == {"male", "female"}
    np.testing.assert_array_equal(low.scores, high.scores)
    frame = load_scores("german-sex", "LR")
    labeled, unlabeled = split_labeled(frame, 50, random_seed=0)
    np.testing.assert_array_equal(low.scores, labeled["score"])
    np.testing.assert_array_equal(low.unlabeled_scores, unlabeled["score"])
    # the share predicted positive on the labeled rows, at each threshold
    assert low.rates("selection_rate").mean() > high.rates("selection_rate").mean()
    assert (low.n_labeled, low.n_unlabeled) == (50, 284)
