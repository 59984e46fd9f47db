"""Packaging of bayesfair.datasets: the wheel carries the bundled data and its checksums.

The loaders' own tests mirror the package: tests/datasets/test_datasets_files.py
(bayesfair/datasets/_files.py), test_raw.py, test_registry.py and test_scores.py.
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

import pytest

REPO = Path(__file__).resolve().parents[2]


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
