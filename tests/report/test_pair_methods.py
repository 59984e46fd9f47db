"""bayesfair.report.pair_methods: the frequentist methods of a pair, registered like the
models, each computing from bayesfair.frequentist."""

import warnings

import numpy as np
import pytest

import bayesfair as bf
from bayesfair import frequentist as fq
from bayesfair.report.pair_methods import (
    MIN_BOOTSTRAP_TRIALS,
    PAIR_METHODS,
    SELECTIONS,
    PairContext,
    invalid_after,
    pair_method_records,
)


def _context(n_labeled=300, unlabeled=True, metric="tpr"):
    rng = np.random.default_rng(0)
    n = n_labeled + (2000 if unlabeled else 0)
    scores = rng.uniform(0.02, 0.98, n)
    labels = (rng.uniform(size=n) < scores).astype(int)
    groups = np.tile(["A", "B"], n // 2)
    lab = slice(0, n_labeled)
    rest = slice(n_labeled, n)
    data = bf.AssessmentData(
        scores[lab],
        labels[lab],
        groups[lab],
        scores[rest] if unlabeled else None,
        groups[rest] if unlabeled else None,
    )
    rates = fq.rate_intervals(data, metric, 0.95)
    diffs = fq.difference_intervals(data, metric, reference="A", n_resamples=200, random_seed=1)
    return PairContext(data, metric, rates, diffs, 0.95, np.random.SeedSequence(2))


def test_every_method_computes_what_its_frequentist_function_gives():
    context = _context()
    records, notes = pair_method_records(context, ("B", "A"))
    by = {r["method"]: r for r in records}
    assert list(by) == ["newcombe", "bootstrap", "ppi", "bernstein"]  # no proxy columns
    row = context.diffs.loc[("B", "A")]
    assert (by["newcombe"]["lower"], by["newcombe"]["upper"]) == (
        row["newcombe_lower"],
        row["newcombe_upper"],
    )
    assert by["bootstrap"]["lower"] == row["bootstrap_lower"]
    b = fq.bernstein_interval(context.data, "tpr", group="B", reference="A")
    assert by["bernstein"]["half_width"] == pytest.approx(b.half_width)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ppi = fq.ppi_difference(
            context.data, "tpr", group="B", reference="A", random_seed=context.ppi_seed
        )
    assert by["ppi"]["estimate"] == pytest.approx(ppi.estimate)
    assert notes == []
    for method in PAIR_METHODS.values():  # what a record holds is what the table shows
        if not method.needs_proxy:
            assert set(method.stats) <= set(by[method.name])


def test_the_bootstrap_is_left_empty_with_a_handful_of_labels_and_says_why():
    context = _context(n_labeled=12, unlabeled=False)
    records, notes = pair_method_records(context, ("B", "A"))
    boot = next(r for r in records if r["method"] == "bootstrap")
    assert np.isnan(boot["lower"]) and np.isnan(boot["upper"])
    assert any(f"fewer than {MIN_BOOTSTRAP_TRIALS} labeled examples" in n for n in notes)
    ppi = next(r for r in records if r["method"] == "ppi")
    assert np.isnan(ppi["estimate"])  # no unlabeled rows


def test_what_holds_after_active_selection_is_declared_by_each_method():
    assert invalid_after("random") == ()
    assert invalid_after("stratum") == ("newcombe", "bootstrap", "bernstein")
    assert invalid_after("score") == ("newcombe", "bootstrap", "ppi", "bernstein")
    assert set(SELECTIONS) == {"random", "stratum", "score", "mixed"}
