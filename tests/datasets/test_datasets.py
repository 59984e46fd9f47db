"""Tests of bayesfair.datasets: bundled files, their coding, checksums and splits.

Row counts, class totals and group shares come from outside the code under test:
data/README.md, the UCI ``adult.names`` file and Ji et al. (2020) Table 1.
"""

from __future__ import annotations

import hashlib
import importlib.util
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bayesfair import datasets
from bayesfair.data import AssessmentData
from bayesfair.datasets import (
    ChecksumError,
    get_score_set,
    list_datasets,
    load_assessment,
    load_raw,
    load_scores,
    load_uci_adult,
    split_labeled,
    verify_checksums,
)

REPO = Path(__file__).resolve().parents[2]

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


@pytest.fixture
def data_copy(tmp_path, monkeypatch) -> Path:
    """A private copy of the bundled data that the loaders read instead."""
    target = tmp_path / "data"
    shutil.copytree(datasets.data_dir(), target)
    monkeypatch.setattr(datasets._files, "data_dir", lambda: target)
    return target


# ---------------------------------------------------------------------- locating, checksums


def test_data_dir_holds_checksummed_data():
    directory = datasets.data_dir()
    assert (directory / "SHA256SUMS").is_file()
    assert (directory / "scores" / "adult_race_scores.csv.gz").is_file()


def test_data_dir_prefers_the_package_copy(tmp_path, monkeypatch):
    package = tmp_path / "site" / "bayesfair"
    monkeypatch.setattr(datasets._files, "__file__", str(package / "datasets" / "_files.py"))
    with pytest.raises(FileNotFoundError, match="bundled data was not found"):
        datasets.data_dir()
    (tmp_path / "site" / "data").mkdir(parents=True)
    (tmp_path / "site" / "data" / "SHA256SUMS").write_text("")
    assert datasets.data_dir() == tmp_path / "site" / "data"
    (package / "_data").mkdir(parents=True)
    (package / "_data" / "SHA256SUMS").write_text("")
    assert datasets.data_dir() == package / "_data"


def test_verify_checksums_lists_every_data_file():
    checked = verify_checksums()
    on_disk = {
        p.relative_to(datasets.data_dir()).as_posix()
        for p in datasets.data_dir().rglob("*")
        if p.is_file() and p.name not in {"SHA256SUMS", "README.md"}
    }
    assert set(checked) == on_disk
    assert len(checked) == 16


def test_corrupted_file_fails_verification_and_loading(data_copy):
    victim = data_copy / "scores" / "ricci_Race_scores.csv.gz"
    content = bytearray(victim.read_bytes())
    content[len(content) // 2] ^= 0xFF
    victim.write_bytes(bytes(content))

    with pytest.raises(ChecksumError, match=r"ricci_Race_scores\.csv\.gz"):
        verify_checksums()
    with pytest.raises(ChecksumError, match=r"ricci_Race_scores\.csv\.gz' does not match"):
        load_scores("ricci-race")
    # the other files still load
    assert len(load_scores("german-age")) == 334


def test_file_changed_after_a_good_check_is_checked_again(data_copy):
    victim = data_copy / "raw" / "ricci.csv.gz"
    assert len(load_raw("ricci")) == 118  # verified and cached
    victim.write_bytes(victim.read_bytes() + b"\0")
    with pytest.raises(ChecksumError, match=r"ricci\.csv\.gz"):
        load_raw("ricci")


def test_missing_file_is_named(data_copy):
    (data_copy / "raw" / "german.csv.gz").unlink()
    with pytest.raises(ChecksumError, match=r"'raw/german\.csv\.gz' is listed .* but missing"):
        load_raw("german")
    with pytest.raises(ChecksumError, match=r"german\.csv\.gz"):
        verify_checksums()


def test_file_not_in_the_checksum_list_is_refused(data_copy):
    sums = data_copy / "SHA256SUMS"
    lines = sums.read_text().splitlines()
    sums.write_text("\n".join(line for line in lines if "ricci.csv.gz" not in line) + "\n")
    with pytest.raises(ChecksumError, match=r"'raw/ricci\.csv\.gz' is not listed"):
        load_raw("ricci")


# ---------------------------------------------------------------------- score sets


def test_every_registered_score_set_has_expected_facts():
    # parametrising over the registry (below) tests a new entry; this makes it need facts
    assert {spec.name for spec in datasets.SCORE_SETS.values()} == set(EXPECTED_SCORE_SETS)


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


# ---------------------------------------------------------------------- raw data


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


# ---------------------------------------------------------------------- catalogue


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
    listed = {f.strip() for files in table["file"] for f in files.split(",")}
    data_files = {f for f in verify_checksums() if f.endswith(".gz")}
    assert data_files == listed


# ---------------------------------------------------------------------- packaging


def _can_build_without_isolation() -> bool:
    if importlib.util.find_spec("wheel") is None:
        return False
    import setuptools

    return int(setuptools.__version__.split(".")[0]) >= 68


@pytest.mark.slow
def test_wheel_carries_the_data(tmp_path):
    if not (REPO / "pyproject.toml").is_file() or not (REPO / "data" / "SHA256SUMS").is_file():
        pytest.skip("needs a source checkout")
    source = tmp_path / "src"
    shutil.copytree(
        REPO,
        source,
        ignore=shutil.ignore_patterns(
            ".git", "build", "dist", "*.egg-info", "_data", "__pycache__"
        ),
    )
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(tmp_path / "dist")]
    if _can_build_without_isolation():
        command.append("--no-build-isolation")
    start = time.perf_counter()
    result = subprocess.run([*command, str(source)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    print(f"wheel built in {time.perf_counter() - start:.1f} s")

    (wheel,) = (tmp_path / "dist").glob("bayesfair-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        assert "bayesfair/_data/scores/adult_race_scores.csv.gz" in names
        assert "bayesfair/registry.json" in names
        sums = archive.read("bayesfair/_data/SHA256SUMS").decode()
        for line in sums.splitlines():
            digest, name = line.split()
            content = archive.read(f"bayesfair/_data/{name}")
            assert hashlib.sha256(content).hexdigest() == digest, name
    assert len(sums.splitlines()) == 16


def test_the_registry_is_data_read_from_the_package():
    import json
    from importlib.resources import files

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
