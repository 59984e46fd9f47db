"""bayesfair.report.display: the report's tables written for a reader."""

import dataclasses
import math
import warnings

import pytest

import bayesfair as bf
from bayesfair.report import display


@pytest.fixture(scope="module")
def frequentist(data):
    """The bundled comparison's data without a model: no fit, no calibration check."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bf.compare(data, ["accuracy"], models=(), n_resamples=200, random_seed=0)


def test_the_pair_tables_are_the_models_then_the_frequentist_intervals(comparison):
    bayes, freq = display.pair_tables(comparison, 3)
    assert len(bayes) == len(freq) == len(comparison.pairs)
    assert list(bayes.columns[:3]) == ["metric", "pair", "n (group/ref)"]
    assert {"BB mean", "BB HDI", "BC P(|Δ|<ε)"} <= set(bayes.columns)
    assert list(freq.columns[:6]) == [
        "metric",
        "pair",
        "freq Δ",
        "Newcombe",
        "bootstrap",
        "Bernstein",
    ]
    assert list(freq.columns[6:]) == ["PPI++", "PPI++ n_eff"]  # unlabeled rows: PPI++'s column
    r = comparison.pairs.iloc[0]
    assert bayes.loc[0, "pair"] == f"{r['group']} − {r['reference']}"
    assert freq.loc[0, "freq Δ"] == f"{r['freq_estimate']:.3f}"
    assert bayes.loc[0, "BB HDI"] == f"[{r['bb_lower']:.3f}, {r['bb_upper']:.3f}]"
    assert bayes.loc[0, "BB mean"] == f"{r['bb_mean']:.3f}"
    assert display.pair_tables(comparison, 2)[1].loc[0, "freq Δ"] == f"{r['freq_estimate']:.2f}"


def test_the_variance_table_has_one_more_decimal(comparison):
    table = display.variance_table(comparison, 3)
    assert list(table["metric"]) == list(comparison.variance.index)
    r = comparison.variance.iloc[0]
    assert table.loc[0, "uncorrected"].startswith(f"{r['uncorrected']:.4f} [")
    assert "BB posterior" in table.columns and "BC posterior" in table.columns


def test_the_diagnostics_one_row_per_fit_and_their_numbers_for_a_reader(comparison):
    raw = display.diagnostics_table(comparison)
    assert list(raw["model"]) == ["bb", "bc"]
    assert list(raw["sampler"]) == ["exact", "nuts"]
    shown = display.diagnostics_shown(raw)
    assert shown.loc[1, "max_r_hat"] == f"{raw.loc[1, 'max_r_hat']:.3f}"
    assert shown.loc[1, "min_ess_bulk"] == f"{raw.loc[1, 'min_ess_bulk']:.0f}"
    assert isinstance(raw.loc[1, "max_r_hat"], float)  # the raw table is untouched


def test_the_models_and_priors_in_words(comparison, frequentist):
    table = display.settings_table(comparison)
    assert table.loc[0].tolist() == ["models", "BB, BC"]
    assert table.loc[1, "setting"] == "prior of BB"
    assert "(" not in table.loc[1, "value"].split("~")[0]  # words, not a repr
    assert display.settings_table(frequentist).loc[0, "value"] == "none (frequentist only)"


def test_the_calibration_tables_and_none_without_them(comparison, frequentist):
    check = display.calibration_check_table(comparison)
    assert list(check["group"]) == [str(g) for g in comparison.calibration["group"]]
    assert check.columns[-1] == "where the labels depart most"
    assert display.flagged_rows(check, comparison).empty == (
        not (comparison.calibration["verdict"] != "ok").any()
    )
    view = display.calibration_view_table(comparison, 3)
    assert len(view) == 2 * len(comparison.calibration_view)
    assert list(view["method"][:2]) == ["BC", "labeled rows"]
    assert view.loc[1, "P(|gap|<ε)"] == "—" and view.loc[1, "verdict"] == "—"
    assert display.calibration_check_table(frequentist) is None
    assert display.clusters_table(comparison, 3) is None  # compare(..., clusters=False)
    labeled_only = display.calibration_view_table(frequentist, 3)
    assert set(labeled_only["method"]) == {"labeled rows"}
    assert all(v != "—" for v in labeled_only["verdict"])


def test_an_undefined_value_is_a_dash(comparison):
    pairs = comparison.pairs.copy()
    pairs.loc[0, "freq_estimate"] = math.nan
    undefined = dataclasses.replace(comparison, pairs=pairs)
    assert display.pair_tables(undefined, 3)[1].loc[0, "freq Δ"] == "—"
