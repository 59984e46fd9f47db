"""The binned posterior predictive check of each group's map
(bayesfair.posterior.predictive_check)."""

import numpy as np

from bayesfair.data.summary import summarize_arrays
from bayesfair.posterior.predictive_check import calibration_ppc


def test_a_map_off_the_labels_gets_a_small_p_value_and_a_group_without_labels_none():
    """Three groups, labels drawn from the identity map P(y = 1) = s for the first two,
    none for the third. Against draws of the identity map the first group's p-value is
    not small; against a map moved up by 1.5 logits in group 1, it is (at s = 1/2 that
    map says 82% positive, the labels 50%; 1,500 labels)."""
    rng = np.random.default_rng(4)
    n = 1500
    s = np.clip(rng.uniform(0, 1, 2 * n), 0.01, 0.99)
    g = np.repeat([0, 1], n)
    y = (rng.uniform(0, 1, 2 * n) < s).astype(int)
    labeled = summarize_arrays(s, g, range(3), labels=y)
    intercept = 0.01 * rng.standard_normal(200)

    def probabilities(grp, log_s, log_1ms):
        eta = intercept[:, None] + (log_s - log_1ms)[None, :] + 1.5 * (grp == 1)
        return 0.5 * (1.0 + np.tanh(0.5 * eta))

    table = calibration_ppc(labeled, probabilities, rng=np.random.default_rng(0))
    assert table["n_labeled"].tolist() == [n, n, 0]
    assert table["p_value"].iloc[0] > 0.01
    assert table["p_value"].iloc[1] < 0.01
    assert np.isnan(table["p_value"].iloc[2]) and table["n_bins"].iloc[2] == 0
    assert (table["n_bins"].iloc[:2] == 10).all()  # five bins a side
    again = calibration_ppc(labeled, probabilities, rng=np.random.default_rng(0))
    assert again.equals(table)  # the replicated labels come from the generator given
