"""The calibration check in words (bayesfair.posterior.check_words): the warning of a pair
whose calibrations differ, and the verdicts naming the partner."""

from bayesfair.posterior import calibration_test, check_words, checks


def test_two_groups_that_differ_are_a_pair_without_a_culprit(differential_summary):
    """K = 2, 12% of g0's labels flipped: the shared map is rejected and the warning names
    both groups and says that their calibrations differ; neither is a "misfit", since
    each one's labels fit a beta map of its own (the flipped group's map is compressed,
    not of another shape), so the calibrated group is not blamed."""
    table = calibration_test.calibration_verdicts(
        differential_summary(3, k=2, n_labeled=1000), 0.05, 10
    )
    assert table.attrs["test"].attrs["pair_differs"]
    assert (table["verdict"] == "misfit").sum() == 0
    table.insert(0, "group", ["g0", "g1"])
    message = check_words.misfit_message("rbc", table)
    assert "Groups g0 and g1 are calibrated differently" in message
    assert "cannot say which" in message and "fit no beta map" not in message
    assert "res.calibration_check() in Python" in message and "bayesfair assess" in message
    # the verdict column says what the check found, naming the partner
    named = checks.name_the_pair(table)
    assert named["verdict"].tolist() == ["differs from g1", "differs from g0"]
    assert table["verdict"].tolist() == ["ok", "ok"]  # the input is left as it was
