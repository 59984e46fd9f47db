"""Do two checkouts of bayesfair give the same numbers? The same public calls, the same seeds.

A refactoring should change no statistic. This runs a fixed set of public calls
(``compare``, a default fit's ``summary``, its ``calibration_check``, the draws
of a gap) on bundled data with fixed seeds, and pickles the results; ``--diff``
reads two such files and prints, column by column, what differs and by how much.

Run each checkout with its own code on the path::

    PYTHONPATH=/path/to/old python benchmarks/compare_checkouts.py old.pkl
    PYTHONPATH=/path/to/new python benchmarks/compare_checkouts.py new.pkl
    python benchmarks/compare_checkouts.py --diff old.pkl new.pkl

About two minutes per checkout on 2 cores. The result of the 0.3 redesign is in
``docs/results/redesign_check.md``.
"""

from __future__ import annotations

import argparse
import pickle
import warnings

import numpy as np
import pandas as pd


def run(path: str) -> None:
    import bayesfair as bf

    warnings.simplefilter("ignore")
    data = bf.datasets.load_assessment("adult-sex", "MLP", n_labeled=100, random_seed=0)
    comp = bf.compare(data, metrics=["accuracy", "tpr", "fpr"], random_seed=0)
    res = bf.fit(data, metrics=["accuracy", "tpr"], random_seed=0)
    out = {
        "compare.pairs": comp.pairs,
        "compare.variance": comp.variance,
        "compare.groups": comp.groups,
        "fit.summary": res.summary(),
        "fit.calibration_check": res.calibration_check(warn=False),
        "draws of Δ accuracy": res.difference("accuracy").values,
    }
    with open(path, "wb") as fh:
        pickle.dump(out, fh)
    print(f"{bf.__file__}: {len(out)} results written to {path}")


def diff(old_path: str, new_path: str) -> None:
    with open(old_path, "rb") as fh:
        old = pickle.load(fh)
    with open(new_path, "rb") as fh:
        new = pickle.load(fh)
    for key, a in old.items():
        b = new[key]
        if isinstance(a, np.ndarray):
            print(f"{key}: {'identical' if np.array_equal(a, b) else 'DIFFERENT'}")
            continue
        changed = []
        for col in a.columns:
            x, y = a[col], b[col]
            if pd.api.types.is_numeric_dtype(x):
                xs, ys = x.to_numpy(float), y.to_numpy(float)
                if not np.array_equal(xs, ys, equal_nan=True):
                    changed.append(f"{col} (max |Δ| {np.nanmax(np.abs(xs - ys)):.2g})")
            elif not x.equals(y):
                changed.append(f"{col} (text)")
        same_shape = a.shape == b.shape and list(a.columns) == list(b.columns)
        print(
            f"{key}: {a.shape}, columns {'the same' if same_shape else 'DIFFER'}; "
            f"{'identical' if not changed else 'changed: ' + ', '.join(changed)}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--diff", action="store_true", help="compare two result files")
    args = parser.parse_args()
    if args.diff:
        diff(*args.files)
    else:
        run(args.files[0])


if __name__ == "__main__":
    main()
