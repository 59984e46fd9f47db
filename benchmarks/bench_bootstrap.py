"""Benchmark: double-corrected bootstrap of the between-group TPR variance on UCI Adult.

The setting of Lum, Zhang, Bower (2022, §6): a histogram gradient-boosting
classifier trained on the UCI Adult training split, evaluated on its test split
(16,281 rows), groups = race × 10-year age bins (15, 25], ..., (85, 95].
B = 1000 bootstrap samples of the per-group TPR, timed for

* bayesfair, binomial resampler (parametric, O(B·K));
* bayesfair, row resampler (the definition, O(B·Σn_k));
* fairlearn ``MetricFrame(metrics=recall_score, ..., n_resamples=1000)``.

The work differs slightly: fairlearn resamples all rows (group sizes vary
between resamples) and returns per-group recall quantiles only; bayesfair
resamples within groups with sizes fixed and also computes the three variance
estimators and their intervals. Both produce B bootstrap samples of every
group's TPR, which is the costly part.

Run: ``python benchmarks/bench_bootstrap.py`` (about 2 minutes, most of it in
fairlearn), or ``--quick`` to skip fairlearn.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from pathlib import Path

import pandas as pd

from bayesfair import AssessmentData
from bayesfair.frequentist import double_corrected_bootstrap

RAW = Path(__file__).resolve().parents[1] / "data" / "raw"
COLUMNS = [
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education_num",
    "marital_status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital_gain",
    "capital_loss",
    "hours_per_week",
    "native_country",
    "income",
]
CATEGORICAL = [
    "workclass",
    "education",
    "marital_status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "native_country",
]
N_BOOT = 1000


def read_adult(name: str, skiprows: int = 0) -> pd.DataFrame:
    frame = pd.read_csv(
        RAW / name,
        header=None,
        names=COLUMNS,
        skipinitialspace=True,
        skiprows=skiprows,
        na_values="?",
    )
    frame = frame.dropna(subset=["income"])
    frame["y"] = frame["income"].str.rstrip(".").eq(">50K").astype(int)
    return frame


def adult_assessment() -> tuple[AssessmentData, pd.DataFrame]:
    """Train on the training split; return the test split's assessment data and frame."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    train = read_adult("uci-adult.data.gz")
    test = read_adult("uci-adult.test.gz", skiprows=1)  # first line: "|1x3 Cross validator"
    features = [c for c in COLUMNS if c not in ("fnlwgt", "income")]  # fnlwgt dropped (§6)
    for col in CATEGORICAL:
        cats = pd.CategoricalDtype(sorted(train[col].dropna().unique()))
        train[col] = train[col].astype(cats)
        test[col] = test[col].astype(cats)
    model = HistGradientBoostingClassifier(categorical_features="from_dtype", random_state=0)
    model.fit(train[features], train["y"])
    test["score"] = model.predict_proba(test[features])[:, 1]
    age_bin = pd.cut(test["age"], bins=range(15, 96, 10)).astype(str)
    test["group"] = test["race"].astype(str) + " & " + age_bin
    data = AssessmentData(test["score"], test["y"], test["group"])
    return data, test


def time_call(fn, repeat: int = 1) -> tuple[float, float, object]:
    """Median wall-clock and CPU seconds of ``repeat`` calls, and the last result.

    CPU time (this process) is printed beside wall time because on a shared
    machine the wall time also counts time spent waiting for a core.
    """
    wall, cpu, out = [], [], None
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        wall.append(time.perf_counter() - w0)
        cpu.append(time.process_time() - c0)
    return statistics.median(wall), statistics.median(cpu), out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="skip fairlearn (slow)")
    args = parser.parse_args(argv)

    data, test = adult_assessment()
    accuracy = float(((test["score"] >= 0.5) == test["y"]).mean())
    counts = data.confusion_counts()
    positives = counts["tp"] + counts["fn"]
    print(
        f"UCI Adult test split: {data.n_labeled} rows, accuracy {accuracy:.3f}, "
        f"{data.n_groups} race × age groups, {int(positives.sum())} positives; "
        f"smallest groups by positives: {positives.sort_values().head(4).to_dict()}"
    )

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # groups without positives: TPR undefined, dropped
        t_binom, c_binom, res = time_call(
            lambda: double_corrected_bootstrap(data, "tpr", n_resamples=N_BOOT, random_seed=0), 21
        )
        t_rows, c_rows, res_rows = time_call(
            lambda: double_corrected_bootstrap(
                data, "tpr", n_resamples=N_BOOT, resampler="rows", random_seed=0
            ),
            5,
        )
    print(
        f"\nTPR between-group variance over {len(res.groups)} groups "
        f"(dropped, no positives: {list(res.dropped_groups)}):"
    )
    print(res.summary().to_string(float_format=lambda v: f"{v:.5f}"))
    print("row resampler, same call:")
    print(res_rows.summary().to_string(float_format=lambda v: f"{v:.5f}"))

    print(f"\n{'':44s} {'wall s':>10s} {'CPU s':>10s}")
    print(f"{'bayesfair, binomial resampler (median of 21)':44s} {t_binom:10.4f} {c_binom:10.4f}")
    print(f"{'bayesfair, row resampler (median of 5)':44s} {t_rows:10.4f} {c_rows:10.4f}")
    print(f"  rows / binomial: {t_rows / t_binom:.1f}x wall, {c_rows / c_binom:.1f}x CPU")

    if args.quick:
        return
    from fairlearn.metrics import MetricFrame
    from sklearn.metrics import recall_score

    y_pred = (test["score"] >= 0.5).astype(int).to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # recall of a resample without positives
        t_fair, c_fair, mf = time_call(
            lambda: MetricFrame(
                metrics=recall_score,
                y_true=test["y"].to_numpy(),
                y_pred=y_pred,
                sensitive_features=test["group"].to_numpy(),
                n_resamples=N_BOOT,
                ci_quantiles=[0.025, 0.975],
                random_state=0,
            )
        )
    assert len(mf.by_group) == data.n_groups
    print(f"{'fairlearn MetricFrame(recall_score) (one run)':44s} {t_fair:10.2f} {c_fair:10.2f}")
    print(f"  fairlearn / binomial: {t_fair / t_binom:,.0f}x wall, {c_fair / c_binom:,.0f}x CPU")
    print(f"  fairlearn / rows:     {t_fair / t_rows:,.0f}x wall, {c_fair / c_rows:,.0f}x CPU")


if __name__ == "__main__":
    main()
