"""The documentation site builds without a warning (mkdocs --strict)."""

import os
import shutil
import subprocess
import sys

import pytest


def test_docs_build_strict(repo_root, tmp_path):
    if shutil.which("mkdocs") is None and not _has_module("mkdocs"):
        pytest.skip("mkdocs is not installed (it comes with the 'test' extra)")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
        cwd=repo_root,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (tmp_path / "site" / "api" / "index.html").exists()
    api = (tmp_path / "site" / "api" / "index.html").read_text()
    assert "double_corrected_bootstrap" in api and "AssessmentData" in api


def _has_module(name):
    import importlib.util

    return importlib.util.find_spec(name) is not None
