"""Where the bundled data live, and their checksums (``data/SHA256SUMS``)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from bayesfair.exceptions import ChecksumError

CHECKSUM_FILE = "SHA256SUMS"


# ---------------------------------------------------------------------- locating and checking


def data_dir() -> Path:
    """Return the folder that holds the bundled data and its ``SHA256SUMS``.

    A wheel carries the data inside the package (``bayesfair/_data``, copied
    there by ``setup.py`` at build time); an editable install or a source
    checkout reads the repository's top-level ``data/`` folder.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    FileNotFoundError
        If neither folder holds a ``SHA256SUMS`` file.
    """
    package = Path(__file__).resolve().parents[1]  # bayesfair/
    candidates = (package / "_data", package.parent / "data")
    for candidate in candidates:
        if (candidate / CHECKSUM_FILE).is_file():
            return candidate
    looked = " and ".join(str(c) for c in candidates)
    raise FileNotFoundError(
        f"bayesfair's bundled data was not found: no {CHECKSUM_FILE} in {looked}. "
        "Install bayesfair from a wheel (which carries bayesfair/_data) or work in a "
        "source checkout that has the top-level data/ folder."
    )


def _expected_digests(directory: Path) -> dict[str, str]:
    """Parse ``SHA256SUMS`` (``<hex>  <relative path>`` per line) into ``{path: hex}``."""
    digests = {}
    text = (directory / CHECKSUM_FILE).read_text(encoding="utf-8")
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        digest, sep, name = line.strip().partition(" ")
        if not sep or len(digest) != 64:
            raise ChecksumError(
                f"Line {number} of {directory / CHECKSUM_FILE} is not '<sha256>  <file>': {line!r}."
            )
        digests[name.strip().lstrip("*")] = digest.lower()
    return digests


def _sha256(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


# Files already found to match, keyed by (path, size, mtime): a loader hashes a
# file once per process, and a file changed on disk is hashed again.
_VERIFIED: set[tuple[str, int, int, str]] = set()


def _check_file(directory: Path, name: str, expected: str) -> Path:
    path = directory / name
    if not path.is_file():
        raise ChecksumError(f"Bundled data file '{name}' is listed in {CHECKSUM_FILE} but missing.")
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns, expected)
    if key not in _VERIFIED:
        actual = _sha256(path)
        if actual != expected:
            raise ChecksumError(
                f"Bundled data file '{name}' does not match {CHECKSUM_FILE}: "
                f"expected sha256 {expected}, got {actual}. The file is corrupted or was "
                "changed; restore it from the repository or reinstall bayesfair."
            )
        _VERIFIED.add(key)
    return path


def _verified_path(name: str) -> Path:
    """Return the path of a bundled file after checking it against ``SHA256SUMS``."""
    directory = data_dir()
    digests = _expected_digests(directory)
    if name not in digests:
        raise ChecksumError(f"Bundled data file '{name}' is not listed in {CHECKSUM_FILE}.")
    return _check_file(directory, name, digests[name])


def verify_checksums() -> tuple[str, ...]:
    """Check every bundled file against ``SHA256SUMS``.

    Returns
    -------
    tuple of str
        The files checked, as listed in ``SHA256SUMS`` (paths relative to
        :func:`data_dir`).

    Raises
    ------
    ChecksumError
        If a listed file is missing or its SHA-256 digest differs; the message
        names every such file.

    Examples
    --------
    >>> "scores/adult_race_scores.csv.gz" in verify_checksums()
    True
    """
    directory = data_dir()
    digests = _expected_digests(directory)
    problems = []
    for name, expected in digests.items():
        try:
            _check_file(directory, name, expected)
        except ChecksumError as error:
            problems.append(str(error))
    if problems:
        raise ChecksumError(" ".join(problems))
    return tuple(digests)
