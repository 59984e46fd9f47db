"""A comparison's estimates as one long table and the wide table as its pivot
(bayesfair.report.estimates)."""

import numpy as np
import pandas as pd
import pytest

from bayesfair.report.estimates import (
    ESTIMATE_COLUMNS,
    FREQUENTIST_STATS,
    MODEL_STATS,
    PROXY_METHODS,
    pivot_pairs,
    set_aside,
    wide_name,
)

KEY = ["metric", "group", "reference"]
#: The frequentist methods of data without group probabilities (the proxy's two are not)
FREQUENTIST = [m for m in FREQUENTIST_STATS if m not in PROXY_METHODS]


def test_one_row_per_metric_pair_and_method(comparison):
    est = comparison.estimates
    assert list(est.columns) == ESTIMATE_COLUMNS
    methods = [*FREQUENTIST, *comparison.posteriors]
    assert len(est) == len(comparison.pairs) * len(methods)
    assert not est.duplicated([*KEY, "method"]).any()
    assert set(est["method"]) == set(methods)
    # a statistic a method does not give is empty: Newcombe has no P(|Δ| < ε)
    assert est.loc[est["method"] == "newcombe", "prob_practically_fair"].isna().all()


def test_the_wide_table_is_its_pivot(comparison):
    pairs = comparison.pairs
    stats = {
        wide_name(m, s)
        for m in [*FREQUENTIST, *comparison.posteriors]
        for s in FREQUENTIST_STATS.get(m, MODEL_STATS)
    }
    own = [c for c in pairs.columns if c not in stats]
    rebuilt = pivot_pairs(pairs[own], comparison.estimates, list(comparison.posteriors))
    pd.testing.assert_frame_equal(rebuilt, pairs)
    # and the wide columns hold what each method computes on its own: every model's
    # posterior mean of the gap, and Newcombe's interval from the frequentist comparator
    from bayesfair import frequentist as fq

    for _, row in pairs.iterrows():
        for name, res in comparison.posteriors.items():
            d = res.difference(row["metric"], row["group"], row["reference"]).values
            assert row[f"{name}_mean"] == pytest.approx(np.nanmean(d), abs=1e-12)
    data = next(iter(comparison.posteriors.values())).data
    for metric in dict.fromkeys(pairs["metric"]):
        diffs = fq.difference_intervals(data, metric, reference=comparison.settings["reference"])
        ours = pairs[pairs["metric"] == metric].set_index(["group", "reference"])
        np.testing.assert_allclose(
            ours[["newcombe_lower", "newcombe_upper"]].to_numpy(dtype=float),
            diffs.loc[ours.index, ["newcombe_lower", "newcombe_upper"]].to_numpy(dtype=float),
        )


def test_setting_a_method_aside_empties_its_rows_only(comparison):
    est = comparison.estimates
    out = set_aside(est, ["bootstrap", "bb"])
    gone = out["method"].isin(["bootstrap", "bb"])
    assert out.loc[gone, ESTIMATE_COLUMNS[4:]].isna().all().all()
    kept = est.loc[~gone, ESTIMATE_COLUMNS[4:]].astype(object)
    pd.testing.assert_frame_equal(out.loc[~gone, ESTIMATE_COLUMNS[4:]].astype(object), kept)
    assert np.isfinite(est.loc[gone & (est["method"] == "bb"), "lower"]).all()  # not mutated
    assert out["lower"].dtype == est["lower"].dtype == float  # numbers stay numbers


def test_widen_writes_each_method_s_statistics_beside_the_base():
    import numpy as np
    import pandas as pd

    from bayesfair.report.estimates import widen

    base = pd.DataFrame({"metric": ["tpr", "fpr"]})
    out = widen(
        base,
        {
            "rbc": {"gap": np.array([0.1, 0.2]), "decision": ["unfair", None]},
            "freq": {"set_aside": [(), ("B",)], "note": "same in every row"},
        },
    )
    assert list(out.columns) == ["metric", "rbc_gap", "rbc_decision", "freq_set_aside", "freq_note"]
    assert out["rbc_gap"].dtype == float and out["freq_set_aside"].tolist() == [(), ("B",)]
    assert out["freq_note"].tolist() == ["same in every row"] * 2
    named = widen(base, {"corrected": {"estimate": [1.0, 2.0]}}, name=lambda m, s: m)
    assert list(named.columns) == ["metric", "corrected"]
