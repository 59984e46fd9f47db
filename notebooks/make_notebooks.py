"""Build the notebooks from their sources and, optionally, execute them.

The sources are plain Python files in ``notebooks/src/`` with ``# %%`` cell
markers (``# %% [markdown]`` for text), so that they diff and review like code.

    python notebooks/make_notebooks.py              # write notebooks/*.ipynb (no outputs)
    python notebooks/make_notebooks.py --execute    # ... and run them in full mode
    BAYESFAIR_FAST=1 python notebooks/make_notebooks.py --execute   # fast mode
    python notebooks/make_notebooks.py --export-figures  # figures of the committed runs -> docs/

Each notebook reads ``BAYESFAIR_FAST``: set to 1 it shrinks runs and draws so that
all notebooks finish in a few minutes (the test suite does that); unset, it runs
the full analysis whose outputs are committed.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def source_to_notebook(path: Path):
    import nbformat

    text = path.read_text(encoding="utf-8")
    cells = []
    for chunk in re.split(r"^# %%", text, flags=re.M)[1:]:
        header, _, body = chunk.partition("\n")
        body = body.strip("\n")
        if header.strip().startswith("[markdown]"):
            lines = [ln[2:] if ln.startswith("# ") else ln.lstrip("#") for ln in body.splitlines()]
            cells.append(nbformat.v4.new_markdown_cell("\n".join(lines)))
        elif body:
            cells.append(nbformat.v4.new_code_cell(body))
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nb.metadata["language_info"] = {"name": "python"}
    return nb


def execute(nb, cwd: Path, timeout: int = 3600):
    from nbclient import NotebookClient

    NotebookClient(
        nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}
    ).execute()
    return nb


def export_figures(nb, stem: str, target: Path) -> list[Path]:
    """Write the PNG outputs of an executed notebook to ``target`` (for the docs)."""
    import base64

    target.mkdir(parents=True, exist_ok=True)
    paths = []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            png = output.get("data", {}).get("image/png")
            if png:
                path = target / f"{stem}_{len(paths) + 1}.png"
                path.write_bytes(base64.b64decode(png))
                paths.append(path)
    return paths


def main(argv=None) -> int:
    import nbformat

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--execute", action="store_true")
    parser.add_argument(
        "--export-figures",
        action="store_true",
        help="write the committed notebooks' figures to docs/figures/",
    )
    parser.add_argument("names", nargs="*", help="source stems (default: all)")
    args = parser.parse_args(argv)
    sources = sorted((HERE / "src").glob("*.py"))
    if args.names:
        sources = [s for s in sources if s.stem in args.names]
    if args.export_figures:
        for src in sources:
            nb = nbformat.read(HERE / f"{src.stem}.ipynb", as_version=4)
            export_figures(nb, src.stem, HERE.parent / "docs" / "figures")
        return 0
    for src in sources:
        nb = source_to_notebook(src)
        if args.execute:
            print(f"executing {src.stem} ...", file=sys.stderr, flush=True)
            execute(nb, HERE)
        nbformat.write(nb, HERE / f"{src.stem}.ipynb")
    return 0


if __name__ == "__main__":
    sys.exit(main())
