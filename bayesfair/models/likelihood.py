"""The labeled likelihood's data: a summary of labeled rows, coarsened, per entry.

The calibration models (:mod:`bayesfair.models.calibration`) and their native
density (:mod:`bayesfair.models._calibration_native`) read the labeled rows
only through :func:`likelihood_data`: the summary (:mod:`bayesfair.data.summary`)
coarsened to :data:`LIKELIHOOD_BINS` bins per group, with per entry (group, side,
bin) the
rows, the positives, the means of ``ln s`` and ``ln(1 − s)``, their sums over
the positives and their within-entry variances and covariance.
:func:`binned_loglik` is the log likelihood these give: ``Σ y η`` exactly,
``Σ softplus(η)`` to second order about the entry's mean predictor (the error
bound is in :mod:`bayesfair.models.calibration`'s docstring).
"""

from __future__ import annotations

import numpy as np

from bayesfair.exceptions import InvalidParameterError

#: Bins per group of the labeled likelihood: the summary's grid, coarsened (module docstring).
LIKELIHOOD_BINS = 32

#: The containers of the labeled likelihood, in the order the native density packs them.
LIKELIHOOD_FIELDS = (
    "group_idx",
    "side",
    "count",
    "positives",
    "mean_log_s",
    "mean_log_1ms",
    "pos_sum_log_s",
    "pos_sum_log_1ms",
    "var_log_s",
    "var_log_1ms",
    "cov_log",
)


def likelihood_grid(n_bins: int) -> int:
    """Bins per group of the labeled likelihood for a summary on ``n_bins`` bins.

    The largest divisor of ``n_bins`` not above :data:`LIKELIHOOD_BINS`, so that
    the coarse edges are edges of the summary's grid; the summary's own grid
    when no divisor of at least half of it exists.
    """
    if n_bins <= LIKELIHOOD_BINS:
        return n_bins
    best = max(d for d in range(1, LIKELIHOOD_BINS + 1) if n_bins % d == 0)
    return best if best >= LIKELIHOOD_BINS // 2 else n_bins


def likelihood_data(labeled) -> dict:
    """The labeled likelihood's data from a summary of labeled rows.

    The summary (:class:`~bayesfair.data.summary.ScoreSummary`) coarsened to
    :func:`likelihood_grid` bins per group; per entry: group, side, rows,
    positives, the means of ``ln c`` and ``ln(1 − c)``, their sums over the
    positives, and their within-entry variances and covariance. These are the
    ``pm.Data`` containers of :func:`build_calibration_model` and the data of
    the native density.
    """
    if not labeled.labeled:
        raise InvalidParameterError("The calibration likelihood needs a summary of labeled rows.")
    lab = labeled.coarsen(likelihood_grid(labeled.n_bins))
    v1, v2, cv = lab.moments()
    return {
        "group_idx": lab.group.astype(np.int64),
        "side": lab.side.astype(np.int64),
        "count": np.asarray(lab.count, dtype=float),
        "positives": np.asarray(lab.positives, dtype=float),
        "mean_log_s": lab.mean_log_s,
        "mean_log_1ms": lab.mean_log_1ms,
        "pos_sum_log_s": np.asarray(lab.pos_sum_log_s, dtype=float),
        "pos_sum_log_1ms": np.asarray(lab.pos_sum_log_1ms, dtype=float),
        "var_log_s": v1,
        "var_log_1ms": v2,
        "cov_log": cv,
    }


def entry_predictor(lik: dict, a, b, c) -> tuple[np.ndarray, np.ndarray]:
    """Each entry's mean predictor ``η̄ = c + a mean(ln s) − b mean(ln(1 − s))`` and the
    predictor's variance over the entry's rows: the two terms of :func:`binned_loglik`'s
    second-order expansion.

    Parameters
    ----------
    lik : dict
        :func:`likelihood_data` of the labeled rows.
    a, b, c : array_like, shape (n_draws, n_groups)
        Draws of each group's map parameters, indexed by the entries' ``group_idx``.

    Returns
    -------
    eta, v_eta : ndarray, shape (n_draws, n_entries)
    """
    g = lik["group_idx"]
    a, b, c = (np.asarray(v, dtype=float)[:, g] for v in (a, b, c))
    eta = c + a * lik["mean_log_s"] - b * lik["mean_log_1ms"]
    v_eta = a * a * lik["var_log_s"] + b * b * lik["var_log_1ms"] - 2.0 * a * b * lik["cov_log"]
    return eta, v_eta


def binned_loglik(lik: dict, a, b, c) -> np.ndarray:
    """Each entry's labeled log likelihood under maps ``(a, b, c)``, shape ``(n_draws, n_entries)``.

    ``lik`` is :func:`likelihood_data`'s; ``a, b, c`` have shape ``(n_draws, n_groups)``.
    ``Σ_i [y_i η_i − softplus(η_i)]`` over the entry's rows: the first term exactly
    (``η`` is linear in the log features), the second to second order about the
    entry's mean predictor, ``n [softplus(η̄) + ½ σ(η̄)(1 − σ(η̄)) Var(η)]``.

    Parameters
    ----------
    lik : dict
        :func:`likelihood_data` of the labeled rows (the fields of
        :data:`LIKELIHOOD_FIELDS`, one value per entry).
    a, b, c : array_like, shape (n_draws, n_groups)
        Draws of each group's map parameters, indexed by the entries' ``group_idx``.

    Returns
    -------
    ndarray, shape (n_draws, n_entries)
        Each entry's log likelihood in each draw.
    """
    g = lik["group_idx"]
    eta, v_eta = entry_predictor(lik, a, b, c)
    a, b, c = (np.asarray(v, dtype=float)[:, g] for v in (a, b, c))
    p = 0.5 * (1.0 + np.tanh(0.5 * eta))
    softplus = np.logaddexp(0.0, eta)
    return (
        c * lik["positives"]
        + a * lik["pos_sum_log_s"]
        - b * lik["pos_sum_log_1ms"]
        - lik["count"] * (softplus + 0.5 * p * (1.0 - p) * v_eta)
    )
