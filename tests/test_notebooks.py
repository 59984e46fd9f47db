"""Every notebook executes top to bottom in fast mode, and matches its source."""

import importlib.util
import os

import pytest

NOTEBOOKS = [
    "01_quickstart",
    "02_ji2020_reproduction",
    "03_lum_reproduction",
    "04_variance_bayes_vs_frequentist",
    "05_how_many_labels",
    "06_when_the_calibration_model_is_wrong",
    "07_how_many_labels_and_which",
    "08_fair_enough",
    "09_many_groups",
    "10_audits_over_time",
    "11_groups_by_proxy",
]


def _builder(repo_root):
    spec = importlib.util.spec_from_file_location(
        "make_notebooks", repo_root / "notebooks" / "make_notebooks.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_matches_source(repo_root, name):
    import nbformat

    built = _builder(repo_root).source_to_notebook(repo_root / "notebooks" / "src" / f"{name}.py")
    committed = nbformat.read(repo_root / "notebooks" / f"{name}.ipynb", as_version=4)
    code = [c.source for c in committed.cells if c.cell_type == "code"]
    assert code == [c.source for c in built.cells if c.cell_type == "code"], (
        f"notebooks/{name}.ipynb is out of date: run notebooks/make_notebooks.py --execute"
    )
    assert any(c.get("outputs") for c in committed.cells if c.cell_type == "code"), (
        f"notebooks/{name}.ipynb is committed without outputs"
    )


@pytest.mark.slow
@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_executes_in_fast_mode(repo_root, name, monkeypatch, tmp_path):
    builder = _builder(repo_root)
    nb = builder.source_to_notebook(repo_root / "notebooks" / "src" / f"{name}.py")
    monkeypatch.setenv("BAYESFAIR_FAST", "1")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    # The kernel's own start-up chatter is not a test failure.
    monkeypatch.setenv("PYTHONWARNINGS", os.environ.get("PYTHONWARNINGS", ""))
    builder.execute(nb, repo_root / "notebooks", timeout=900)
    errors = [
        o
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    assert not errors


#: Two full-mode runs of notebook 01 on different machines agree within this (absolute):
#: test_the_quickstart_stored_outputs_are_a_rerun's docstring derives it.
MC_TOLERANCE = 0.07


def _numbers(cell) -> list[float]:
    """The numbers a code cell printed or returned as text (not its figures or Markdown)."""
    import re

    texts = []
    for o in cell.get("outputs", []):
        if o.get("output_type") == "stream":
            texts.append(o["text"])
        elif "data" in o and "text/plain" in o["data"] and "0x" not in o["data"]["text/plain"]:
            texts.append(o["data"]["text/plain"])
    return [float(x) for x in re.findall(r"-?\d+\.\d+(?:e[-+]?\d+)?", "\n".join(texts))]


@pytest.mark.slow
def test_the_quickstart_stored_outputs_are_a_rerun(repo_root):
    """Notebook 01 in full mode, as committed: its printed numbers are a rerun's.

    Same seeds and code, but not the same machine: another CPU or BLAS sums in another
    order, and a sampler's trajectory follows its floating-point error (seen: the sixth
    digit of two means). So the numbers are compared within their Monte Carlo error,
    not to the digit: every printed number is a rate, a difference of rates, a
    probability or an interval bound (|x| ≤ 1) from 4 chains × 1,000 draws, whose Monte
    Carlo standard error is at most √(0.25 / 1000) = 0.016 (a probability at ESS 1,000;
    a mean's is below that for sd < 0.5); two independent runs differ by at most
    about 3 × √2 × 0.016 = 0.07 at the 0.3% level. ``MC_TOLERANCE`` = 0.07, absolute. A
    larger difference means the committed outputs are stale (re-run
    ``notebooks/make_notebooks.py --execute``).
    """
    import nbformat

    builder = _builder(repo_root)
    nb = builder.source_to_notebook(repo_root / "notebooks" / "src" / "01_quickstart.py")
    env = {k: v for k, v in os.environ.items() if k != "BAYESFAIR_FAST"}
    old = os.environ.copy()
    os.environ.clear()
    os.environ.update({**env, "MPLBACKEND": "Agg"})
    try:
        builder.execute(nb, repo_root / "notebooks", timeout=900)
    finally:
        os.environ.clear()
        os.environ.update(old)
    stored = nbformat.read(repo_root / "notebooks" / "01_quickstart.ipynb", as_version=4)
    fresh_cells = [c for c in nb.cells if c.cell_type == "code"]
    stored_cells = [c for c in stored.cells if c.cell_type == "code"]
    compared = 0
    for fresh, old_cell in zip(fresh_cells, stored_cells, strict=True):
        a, b = _numbers(fresh), _numbers(old_cell)
        assert len(a) == len(b), old_cell.source[:80]
        assert all(abs(v) <= 1 for v in b), "the tolerance is derived for |x| <= 1 only"
        assert a == pytest.approx(b, abs=MC_TOLERANCE), old_cell.source[:80]
        compared += len(a)
    assert compared >= 30  # the summary tables and the printed probabilities
