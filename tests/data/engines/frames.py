"""Frames, files and comparisons shared by the summary tests (sources and engines)."""

import numpy as np
import pandas as pd


def score_frame(n=20_000, seed=0):
    rng = np.random.default_rng(seed)
    s = rng.uniform(size=n)
    s[:40], s[40:80], s[80:120] = 0.0, 1.0, 0.5  # the edges and the threshold exactly
    return pd.DataFrame(
        {"score": s, "race": rng.choice(["w", "b", "h"], n), "sex": rng.choice([0, 1], n)}
    )


def write_parts(frame, directory, parts, kind="parquet", row_group_size=None):
    for k, rows in enumerate(np.array_split(np.arange(len(frame)), parts)):
        path = directory / f"part-{k:03d}.{kind}"
        if kind == "parquet":
            frame.iloc[rows].to_parquet(path, row_group_size=row_group_size)
        else:
            frame.iloc[rows].to_csv(path, index=False)
    return str(directory / f"*.{kind}")


def assert_same(a, b):
    fa, fb = a.to_frame(), b.to_frame()
    pd.testing.assert_frame_equal(
        fa[["group", "side", "bin", "count"]], fb[["group", "side", "bin", "count"]]
    )
    for col in ("sum_log_s", "sum_log_1ms", "sum_score"):
        np.testing.assert_allclose(fa[col], fb[col], rtol=1e-12, atol=0)


def coded_frame(n=3_000, seed=12):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "score": rng.uniform(size=n),
            "code": rng.choice(["1", "01", "2"], n),
            "level": rng.choice([1.0, 2.5], n),
            "flag": rng.choice([True, False], n),
        }
    )


def assert_same_labeled(a, b):
    assert_same(a, b)
    assert a.labeled and b.labeled
    fa, fb = a.to_frame(), b.to_frame()
    cols = (
        "positives",
        "pos_sum_log_s",
        "pos_sum_log_1ms",
        "sum_sq_log_s",
        "sum_sq_log_1ms",
        "sum_log_s_log_1ms",
    )
    for col in cols:
        np.testing.assert_allclose(fa[col], fb[col], rtol=1e-12, atol=1e-12)


def labeled_frame(n=20_000, seed=13):
    frame = score_frame(n, seed)
    rng = np.random.default_rng(seed + 1)
    return frame.assign(label=(rng.uniform(size=n) < frame["score"]).astype(int))
