"""bayesfair.datasets._files: where the bundled data live and their checksums (SHA256SUMS)."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from bayesfair import datasets
from bayesfair.datasets import ChecksumError, load_raw, load_scores, verify_checksums
from bayesfair.datasets._files import data_dir


@pytest.fixture
def data_copy(tmp_path, monkeypatch) -> Path:
    """A private copy of the bundled data that the loaders read instead."""
    target = tmp_path / "data"
    shutil.copytree(datasets.data_dir(), target)
    monkeypatch.setattr(datasets._files, "data_dir", lambda: target)
    return target


# ---------------------------------------------------------------------- locating


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


def test_a_missing_data_folder_names_both_places_looked_in(tmp_path, monkeypatch):
    package = tmp_path / "site" / "bayesfair"
    monkeypatch.setattr(datasets._files, "__file__", str(package / "datasets" / "_files.py"))
    with pytest.raises(FileNotFoundError) as error:
        data_dir()
    message = str(error.value)
    assert str(package / "_data") in message and str(tmp_path / "site" / "data") in message
    assert "no SHA256SUMS" in message


# ---------------------------------------------------------------------- checksums


def test_verify_checksums_lists_every_data_file():
    checked = verify_checksums()
    on_disk = {
        p.relative_to(datasets.data_dir()).as_posix()
        for p in datasets.data_dir().rglob("*")
        if p.is_file() and p.name not in {"SHA256SUMS", "README.md"}
    }
    assert set(checked) == on_disk
    assert len(checked) == 16


def test_the_listed_digests_are_the_files_sha256():
    """What verify_checksums accepts is the files' SHA-256, computed here with hashlib
    (the first listed file, read whole)."""
    directory = data_dir()
    first = (directory / "SHA256SUMS").read_text().splitlines()[0]
    digest, name = first.split()
    assert hashlib.sha256((directory / name).read_bytes()).hexdigest() == digest
    assert verify_checksums()[0] == name


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


def test_every_bad_file_is_named_in_one_error(data_copy):
    for name in ("raw/ricci.csv.gz", "scores/german_age_scores.csv.gz"):
        path = data_copy / name
        path.write_bytes(path.read_bytes() + b"\0")
    with pytest.raises(ChecksumError) as error:
        verify_checksums()
    message = str(error.value)
    assert "'raw/ricci.csv.gz' does not match" in message
    assert "'scores/german_age_scores.csv.gz' does not match" in message


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


def test_checksum_lines_in_sha256sum_s_other_spellings_are_read(data_copy):
    """``sha256sum`` writes a ``*`` before the name in binary mode and some tools write the
    digest in capitals; blank lines are skipped. All read as the plain form does."""
    sums = data_copy / "SHA256SUMS"
    lines = sums.read_text().splitlines()
    respelled = []
    for i, line in enumerate(lines):
        digest, name = line.split()
        respelled.append(f"{digest.upper()} *{name}" if i % 2 else line)
    sums.write_text("\n\n".join(respelled) + "\n\n")
    assert verify_checksums() == tuple(line.split()[1] for line in lines)
    assert len(load_raw("ricci")) == 118


@pytest.mark.parametrize(
    "line", ["not-a-digest raw/ricci.csv.gz", "0" * 64, "abc123  raw/ricci.csv.gz"]
)
def test_a_malformed_checksum_line_is_named(data_copy, line):
    sums = data_copy / "SHA256SUMS"
    sums.write_text(sums.read_text() + line + "\n")
    number = len(sums.read_text().splitlines())
    with pytest.raises(ChecksumError, match=rf"Line {number} of .*SHA256SUMS is not"):
        verify_checksums()
