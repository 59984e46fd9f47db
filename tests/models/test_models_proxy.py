"""The latent-group pieces: the proxy's calibration, its link to the outcome, and the
counts each posterior draw gives the rows of unknown group."""

import numpy as np
import pytest

from bayesfair.data.proxy import ProxyData
from bayesfair.data.proxy_summary import summarize_proxy_rows
from bayesfair.models.proxy import (
    SEGMENTS_PER_SIDE,
    GroupCalibration,
    fit_group_calibration,
    fit_link,
    latent_counts,
    map_predictor,
    segment_edges,
    share_exact,
    share_normal,
)

LEVELS = ["a", "b", "c"]


def _calibration(phi, s, p, rng):
    """A GroupCalibration with ``phi`` (default the proxy as given) on these rows' segments."""
    rows = summarize_proxy_rows(s, p, np.full(s.size, -1), levels=LEVELS, threshold=0.5)
    size = 3 + 2 * 2 * SEGMENTS_PER_SIDE
    if phi is None:
        phi = np.zeros(size)
        phi[2] = 1.0
    return GroupCalibration(
        mean=np.asarray(phi, dtype=float),
        cov=np.zeros((size, size)),
        reference=0,
        n_groups=3,
        edges=segment_edges([rows]),
        n_rows=1,
        fixed=False,
    )


def _rows(n, rng, phi=None, lam=(0.0, 0.0, 0.0)):
    """Rows whose group follows the calibration ``phi`` and whose label the identity map
    plus the link ``lam`` (the models' own form, so that their fit must recover them)."""
    s = rng.uniform(0.02, 0.98, size=n)
    p = rng.dirichlet([0.7, 0.7, 0.7], size=n)
    whole = summarize_proxy_rows(
        s, p, np.full(n, -1), levels=LEVELS, threshold=0.5, n_bins=1 << 20, resolution=10**6
    )
    assert whole.n_entries == n  # one row per entry (entries sorted by their keys)
    pi = _calibration(phi, s, p, rng).probabilities(whole)
    g = np.array([rng.choice(3, p=row) for row in pi])
    own = whole.mean_p[np.arange(n), g]
    u = whole.sum_log_s - whole.sum_log_1ms
    centre = np.array([own[g == j].mean() for j in range(3)])
    q = 1 / (1 + np.exp(-(u + np.asarray(lam)[g] * (own - centre[g]))))
    y = (rng.random(n) < q).astype(int)
    s_row = 1 / (1 + np.exp(-u))
    return s_row, whole.mean_p, g, y


def _proxy(s, p, codes, y):
    labeled = summarize_proxy_rows(s, p, codes, levels=LEVELS, threshold=0.5, labels=y)
    empty = summarize_proxy_rows(
        np.zeros(0), np.zeros((0, 3)), np.zeros(0, int), levels=LEVELS, threshold=0.5
    )
    return ProxyData(columns=dict.fromkeys(LEVELS, "p"), labeled=labeled, unlabeled=empty)


def test_without_self_reported_rows_the_proxy_is_taken_as_given():
    rng = np.random.default_rng(1)
    s, p = rng.random(500), rng.dirichlet([1, 1, 1], size=500)
    proxy = _proxy(s, p, np.full(500, -1), rng.integers(0, 2, 500))
    cal = fit_group_calibration(proxy, reference=0)
    assert cal.fixed and cal.n_rows == 0
    summary = proxy.labeled
    np.testing.assert_allclose(cal.probabilities(summary), summary.mean_p, atol=1e-9)
    draws = cal.draws(5, rng)
    assert np.all(draws == cal.mean)


def test_the_calibration_recovers_its_parameters_within_its_own_errors():
    """Rows drawn from the calibration's own form: each parameter within 4 posterior sd of
    its truth (a two-sided 4-sd bound fails by chance with probability 6e-5 per parameter)."""
    rng = np.random.default_rng(2)
    truth = np.concatenate([[0.5, -0.4, 0.7], rng.normal(0, 0.6, size=2 * 2 * SEGMENTS_PER_SIDE)])
    s, p, g, y = _rows(8000, rng, phi=truth)
    cal = fit_group_calibration(_proxy(s, p, g, y), reference=0)
    sd = np.sqrt(np.diag(cal.cov))
    assert not cal.fixed and cal.n_rows == 8000
    # the prior N(0, 1) pulls each segment's effect towards 0 by about sd² of it
    assert np.all(np.abs(cal.mean - truth) < 4 * sd + 0.05), (cal.mean, sd)
    # more rows, smaller errors, at the rate of 1/sqrt(n)
    part = rng.permutation(8000)[:2000]  # the rows come sorted by score: a random quarter
    small = fit_group_calibration(_proxy(s[part], p[part], g[part], y[part]), reference=0)
    # what the rows identify: β and each group's offset in each segment, α_g + γ_{g,s}
    # (α and γ alone are told apart only by their priors)
    n_seg = 2 * SEGMENTS_PER_SIDE
    combine = np.zeros((1 + 2 * n_seg, truth.size))
    combine[0, 2] = 1.0
    for j in range(2):
        for seg in range(n_seg):
            combine[1 + j * n_seg + seg, [j, 3 + j * n_seg + seg]] = 1.0

    def spread(cal):
        return np.sqrt(np.diag(combine @ cal.cov @ combine.T))

    ratio = spread(small) / spread(cal)
    assert np.all((ratio > 1.6) & (ratio < 2.5)), ratio


def test_the_link_is_learned_where_there_is_one_and_not_where_there_is_none():
    rng = np.random.default_rng(3)
    lam = np.array([3.0, 0.0, -3.0])
    s, p, g, y = _rows(6000, rng, lam=lam)
    proxy = _proxy(s, p, g, y)
    link = fit_link(proxy, np.ones(3), np.ones(3), np.zeros(3))
    assert np.all(link.learned) and link.n_rows.sum() == 6000
    assert np.all(np.abs(link.mean - lam) < 4 * link.sd + 0.05), (link.mean, link.sd)
    assert link.sd.max() < 0.6


def test_latent_counts_keep_every_row_and_every_known_label():
    rng = np.random.default_rng(4)
    s, p, g, y = _rows(900, rng)
    codes = np.where(np.arange(900) < 300, g, -1)
    labeled = summarize_proxy_rows(
        s[:600], p[:600], codes[:600], levels=LEVELS, threshold=0.5, labels=y[:600]
    )
    unlabeled = summarize_proxy_rows(s[600:], p[600:], codes[600:], levels=LEVELS, threshold=0.5)
    proxy = ProxyData(columns=dict.fromkeys(LEVELS, "p"), labeled=labeled, unlabeled=unlabeled)
    cal = fit_group_calibration(proxy, reference=0)
    link = fit_link(proxy, np.ones(3), np.ones(3), np.zeros(3))
    a = np.ones((2, 50, 3)) * rng.uniform(0.8, 1.2, size=(2, 50, 3))
    counts, scores, phi, lam = latent_counts(proxy, a, a, np.zeros((2, 50, 3)), cal, link, rng)
    # the scores each draw gives the groups are the rows' scores, all of them
    np.testing.assert_allclose(scores.sum(-1), s[(codes == -1)].sum())
    assert counts.shape == (2, 50, 3, 4) and lam.shape == (2, 50, 3)
    assert phi.shape == (2, 50, 3 + 2 * 2 * SEGMENTS_PER_SIDE)
    # every row of unknown group is in one group and one cell in every draw
    np.testing.assert_array_equal(counts.sum(axis=(-1, -2)), 600)
    # the labeled ones keep their labels and sides: positives and decisions are the data's
    unknown_labeled = (codes == -1) & (np.arange(900) < 600)
    yhat = s >= 0.5
    positives_known = y[unknown_labeled].sum()
    tp_known = (y[unknown_labeled] & yhat[unknown_labeled]).sum()
    unlabeled_pos = yhat[600:].sum()
    tp_plus_fp = counts[..., 0].sum(-1) + counts[..., 1].sum(-1)
    np.testing.assert_array_equal(tp_plus_fp, yhat[unknown_labeled].sum() + unlabeled_pos)
    assert np.all(counts[..., 0].sum(-1) + counts[..., 3].sum(-1) >= positives_known)
    assert np.all(counts[..., 0].sum(-1) >= tp_known)


def test_maps_and_proxy_must_name_the_same_groups():
    rng = np.random.default_rng(5)
    s, p, g, y = _rows(100, rng)
    proxy = _proxy(s, p, g, y)
    cal = fit_group_calibration(proxy, reference=0)
    link = fit_link(proxy, np.ones(3), np.ones(3), np.zeros(3))
    with pytest.raises(Exception, match="different groups"):
        latent_counts(
            proxy, np.ones((1, 2, 2)), np.ones((1, 2, 2)), np.zeros((1, 2, 2)), cal, link, rng
        )


def test_the_normal_sum_matches_the_multinomials_in_mean_and_spread():
    """From NORMAL_ROWS rows a summary's counts are drawn as the normal of their sum. On
    60,000 rows (labeled and unlabeled), 400 draws each way under one calibration: every
    cell's mean within 5 standard errors of the difference (a two-sided 5-sd bound: by
    chance 6e-7 per cell), its sd within 25% (the sd of 400 draws is off by more than 5
    of its 3.5% standard errors by chance with probability 6e-7)."""
    rng = np.random.default_rng(6)
    n, draws = 60_000, 400
    s = rng.uniform(0.02, 0.98, size=n)
    p = rng.dirichlet([0.7, 0.7, 0.7], size=n)
    y = (rng.random(n) < s).astype(int)
    truth = np.concatenate([[0.3, -0.2, 1.2], rng.normal(0, 0.5, size=2 * 2 * SEGMENTS_PER_SIDE)])
    maps = [np.full((draws, 3), v) for v in (1.1, 0.9, 0.2)]
    lam = np.tile([0.5, -0.5, 0.0], (draws, 1))
    for labels in (None, y):
        rows = summarize_proxy_rows(
            s, p, np.full(n, -1), levels=LEVELS, threshold=0.5, labels=labels
        )
        cal = _calibration(truth, s, p, rng)
        phi = np.tile(truth, (draws, 1))
        z = rows.mean_p - 0.3
        logw = cal.log_weights(rows, phi)
        pi = np.exp(logw - logw.max(-1, keepdims=True))
        pi /= pi.sum(-1, keepdims=True)
        eta = map_predictor(rows, *maps)
        q = 1 / (1 + np.exp(-(eta + lam[:, None, :] * z)))
        exact, exact_scores = share_exact(rows, pi, q, rng)
        normal, normal_scores = share_normal(rows, cal.lookup(rows, phi), maps, lam, z, rng)
        np.testing.assert_allclose(normal.sum(axis=(-1, -2)), n)
        se = np.sqrt((exact.var(0) + normal.var(0)) / draws)
        assert np.all(np.abs(exact.mean(0) - normal.mean(0)) < 5 * se + 1e-9)
        spread = exact.std(0) > 0
        ratio = normal.std(0)[spread] / exact.std(0)[spread]
        assert np.all((ratio > 0.75) & (ratio < 1.33)), ratio
        # the exact draws share every row's score; the normal's scale each category's
        # expected sum to its drawn rows (the total off by the draw's shifts, < 0.5%)
        np.testing.assert_allclose(exact_scores.sum(-1), rows.sum_score.sum(), rtol=1e-9)
        np.testing.assert_allclose(normal_scores.sum(-1), rows.sum_score.sum(), rtol=0.005)
        mean_score = exact_scores.mean(0) / exact.sum(-1).mean(0)
        got = normal_scores.mean(0) / normal.sum(-1).mean(0)
        np.testing.assert_allclose(got, mean_score, rtol=0.01)
