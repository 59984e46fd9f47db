"""bayesfair.report.prose: the sentences of a comparison's tables."""

import numpy as np
import pandas as pd

from bayesfair.report import prose


def test_a_disagreement_is_said_only_for_disjoint_intervals_with_the_check():
    pair = {"metric": "tpr", "group": "B", "reference": "A"}
    check = pd.DataFrame(
        {
            "group": ["A", "B"],
            "p_value": [0.5, 0.01],
            "p_adjusted": [0.5, 0.02],
            "verdict": ["ok", "misfit"],
        }
    )
    apart = [("rbc", 0.10, 0.20), ("Newcombe", -0.05, 0.05)]
    text = prose.disagreement(pair, apart, "rbc", check)
    assert text.startswith("Δ tpr (B − A): rbc [0.100, 0.200] and Newcombe [-0.050, 0.050]")
    assert "calibrated unlabeled scores and the labeled examples alone" in text
    assert "Calibration check: B misfit, adjusted p = 0.020; A ok, adjusted p = 0.500." in text
    overlapping = [("rbc", 0.0, 0.2), ("Newcombe", -0.05, 0.05), ("bb", np.nan, 1.0)]
    assert prose.disagreement(pair, overlapping, "rbc", check) == ""


def test_a_calibration_gap_in_points_where_it_is_decided():
    unfair = prose.calibration_sentence(
        "A", "unfair", -0.08, -0.12, -0.04, ci_prob=0.95, epsilon=0.02
    )
    assert unfair == (
        "The scores understate group A's positives by 8 points (95% interval 4 to 12 points)."
    )
    fair = prose.calibration_sentence(
        "A", "practically fair", 0.004, -0.01, 0.012, ci_prob=0.95, epsilon=0.02
    )
    assert "to within 2 points (ε): off by 0.4 points" in fair
    assert prose.calibration_sentence("A", "undecided", 0.0, -1, 1, ci_prob=0.9, epsilon=0.02) == ""


def test_the_set_aside_note_names_the_methods_and_the_selection():
    note = prose.set_aside_note(["Newcombe", "BB"], "stratum")
    assert note == (
        "labels chosen actively (selection='stratum'): Newcombe, BB assume labels drawn at "
        "random and are left empty"
    )
    rates = pd.DataFrame({"trials": [0, 5]}, index=["A", "B"])
    assert prose.undefined_among_labels(rates, "tpr", ("B", "A"))[0].endswith(
        "(among the labeled examples)"
    )
    assert prose.undefined_among_labels(rates, "tpr", ("B",)) == []
