"""The rate catalogue: property-based checks (hypothesis) and the composites."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bayesfair.metrics.rates import (
    COMPOSITES,
    RATES,
    composite_value,
    get_composite,
    get_rate,
    rate_fraction,
    rate_from_counts,
)

counts = st.lists(st.integers(0, 50), min_size=4, max_size=4)


@given(counts)
def test_rates_in_unit_interval_or_nan_exactly_when_denominator_zero(c):
    for name in RATES:
        value = rate_from_counts(c, name)
        _, den = rate_fraction(c, name)
        if den == 0:
            assert np.isnan(value)
        else:
            assert 0.0 <= value <= 1.0


@given(counts)
def test_complementary_rates(c):
    tp, fp, tn, fn = c
    if tp + fn:
        assert rate_from_counts(c, "tpr") + rate_from_counts(c, "fnr") == pytest.approx(1)
    if fp + tn:
        assert rate_from_counts(c, "fpr") + rate_from_counts(c, "tnr") == pytest.approx(1)
    if sum(c):
        assert rate_from_counts(c, "accuracy") + rate_from_counts(c, "error_rate") == (
            pytest.approx(1)
        )


@given(counts)
def test_accuracy_is_count_weighted_mean_of_tpr_and_tnr(c):
    tp, fp, tn, fn = c
    if tp + fn and fp + tn:
        weighted = (
            (tp + fn) * rate_from_counts(c, "tpr") + (fp + tn) * rate_from_counts(c, "tnr")
        ) / sum(c)
        assert rate_from_counts(c, "accuracy") == pytest.approx(weighted)


@given(st.lists(counts, min_size=1, max_size=5))
def test_rates_vectorise_over_leading_axes(cs):
    arr = np.asarray(cs)
    for name in ("ppv", "npv", "selection_rate"):
        vec = rate_from_counts(arr, name)
        one = [rate_from_counts(c, name) for c in cs]
        np.testing.assert_array_equal(vec, np.asarray(one, dtype=float))


def test_each_rate_declares_its_fraction_once():
    assert get_rate("tpr").numerator == ("tp",) and get_rate("tpr").denominator == ("tp", "fn")
    assert get_rate("for").denominator == ("tn", "fn")
    assert rate_from_counts([1, 2, 3, 4], "selection_rate") == pytest.approx(0.3)
    assert rate_from_counts([1, 2, 3, 4], "base_rate") == pytest.approx(0.5)
    assert rate_from_counts([1, 2, 3, 4], "precision") == pytest.approx(1 / 3)


def test_unknown_metric_suggests_nearest():
    with pytest.raises(ValueError, match="Unknown metric 'tpr_'. Did you mean 'tpr'"):
        get_rate("tpr_")
    with pytest.raises(TypeError, match="must be a string"):
        get_rate(3)


def test_fair_ranges_hold_their_ideal_and_follow_the_kind():
    # Majumder et al. §4 (AIF360): a difference is fair within ±0.1 of 0, a ratio
    # within [0.8, 1.2] around 1. Derived from each composite's kind and ideal, so a
    # composite registered with the wrong ideal for its kind fails here.
    for comp in COMPOSITES.values():
        lo, hi = comp.fair_range
        assert lo < comp.ideal < hi, comp.name
        if comp.kind == "ratio":
            assert comp.ideal == 1.0 and (lo, hi) == (0.8, 1.2), comp.name
        else:  # differences and the averaged odds differences
            assert comp.ideal == 0.0 and (lo, hi) == (-0.1, 0.1), comp.name
            assert hi - comp.ideal == comp.ideal - lo


def test_composites():
    u = {"tpr": 0.6, "fpr": 0.3, "selection_rate": 0.4, "error_rate": 0.2}
    p = {"tpr": 0.8, "fpr": 0.1, "selection_rate": 0.5, "error_rate": 0.1}
    assert composite_value("equal_opportunity_difference", u, p) == pytest.approx(-0.2)
    assert composite_value("average_odds_difference", u, p) == pytest.approx(0.0)
    assert composite_value("average_abs_odds_difference", u, p) == pytest.approx(0.2)
    assert composite_value("disparate_impact", u, p) == pytest.approx(0.8)
    assert composite_value("statistical_parity_difference", u, p) == pytest.approx(-0.1)
    assert composite_value("error_rate_ratio", u, p) == pytest.approx(2.0)
    assert np.isnan(composite_value("disparate_impact", u, {"selection_rate": 0.0}))
    assert get_composite("spd").name == "statistical_parity_difference"


def test_undefined_rate_warns_with_group_name():
    from bayesfair.data.assessment import AssessmentData

    data = AssessmentData([0.9, 0.2, 0.7], [1, 0, 0], ["a", "a", "b"])
    with pytest.warns(UserWarning, match=r"undefined for group\(s\) \['b'\]"):
        tpr = data.rates("tpr")
    assert np.isnan(tpr["b"]) and tpr["a"] == 1.0


def test_composites_speak_of_group_and_reference():
    """The vocabulary's names, not Majumder et al.'s."""
    u, p = {"tpr": 0.6}, {"tpr": 0.8}
    new = composite_value("equal_opportunity_difference", group=u, reference=p)
    assert new == pytest.approx(-0.2)
    with pytest.raises(TypeError, match="unprivileged"):
        composite_value("equal_opportunity_difference", unprivileged=u, reference=p)
