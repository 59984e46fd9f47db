"""The group as a latent variable: a calibrated proxy and its link to the outcome.

Rows of unknown group carry a proxy's probabilities ``p`` (BISG and the like).
The calibration model (:mod:`bayesfair.models.calibration`) gives each group's
map ``f_g(s) = P(y = 1 | s, g)`` from the labeled rows of known group. Two more
pieces turn a row of unknown group into counts of each group's confusion cells:

**The proxy's calibration** (a multinomial calibration of the proxy, as the beta
map calibrates the score; temperature-and-bias scaling, Guo et al. 2017 §4.2, with
the score as a covariate):

    P(G = g | p, s) = softmax_g(α_g + β ln p_g + γ_{g, seg(s)}),

``seg(s)`` the score's segment: :data:`SEGMENTS_PER_SIDE` per side of the threshold,
cut at the quantiles of every row's score logit on that side (so that the decision is
a segment boundary), and ``α, γ = 0`` for the reference group. It is fitted to the
rows whose group is self-reported *and* that carry the proxy (labeled or not), with
priors ``α ~ N(0, 1)``, ``β ~ N(1, 0.5)``, ``γ ~ N(0, 1)`` centred on the proxy as
given (``β = 1``, the rest 0: then ``P(G = g | p, s) = p_g``), by a Laplace
approximation (the posterior mode and the inverse Hessian of a log-concave posterior:
K + 8 (K − 1) parameters).
The score terms let the group depend on the score given the proxy: a classifier's
decisions differ between groups that the proxy mixes, which is what biases the
probability-weighted estimator (Chen, Kallus, Mao, Svacha & Udell 2019, Thm. 3.1).
A step in the score logit, not a line: the groups' score distributions differ in
shape, not only in location (a line left a group's TPR biased in simulation).

**The proxy's link to the outcome within a group.** A proxy may carry outcome
information within a group (people with a positive outcome living elsewhere than
those without). For a row of unknown group the label's probability is

    P(y = 1 | s, g, p) = σ(η_g(s) + λ_g (p_g − p̄_g)),

``η_g`` the group's map (each posterior draw's), ``p̄_g`` the mean of ``p_g`` over
the group's labeled rows of known group, and ``λ_g ~ N(0, 2)`` fitted to those rows
with the posterior mean map as an offset (a Laplace approximation again). The link
is linear in the probability, not its logit: a probability is bounded, so that the
proxy summary's cells (probabilities within 0.1) move the link's term by at most
``0.1 |λ|``, where a logit near 0 or 1 would move it by several units.

**What is identified by what.** The rows of known group are taken as a random
sample of all rows (their group was asked of rows chosen without regard to it):
then ``P(G | p, s)`` is identified by the self-reported rows with the proxy, and
``P(y | s, g, p)`` by the labeled ones among them. The posterior draws of α…ζ and
λ are independent of the map's (the map's uncertainty reaches the latent rows
through η). **With no self-reported row** nothing identifies either piece: the
proxy is *taken as calibrated and independent of the outcome given the group*
(``P(G = g | p, s) = p_g``, ``λ = 0``), the result says so in its notes and
summaries, and :func:`bayesfair.frequentist.proxy_bounds`, which assume neither,
stand beside it.

**Counts.** In every posterior draw each entry of unknown group is shared among
the groups (and, unlabeled, among the labels) by a multinomial draw with these
probabilities: the estimand is the rate over every assessed row by its true
group (``estimand="assessed"``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bayesfair.exceptions import InvalidParameterError

#: Prior (mean, sd) of the proxy's calibration: α per group, β, γ per group and segment.
GROUP_PRIOR = {"alpha": (0.0, 1.0), "beta": (1.0, 0.5), "gamma": (0.0, 1.0)}
#: Score segments per side of the threshold in the proxy's calibration.
SEGMENTS_PER_SIDE = 4
#: Prior sd of each group's link λ_g (log-odds per unit of the group's probability).
LINK_PRIOR_SD = 2.0
#: Probabilities below this are raised to it before their log (a proxy's hard 0).
P_FLOOR = 1e-4
# latent_counts handles as many draws at once as keep chunk × entries × 2K under this
_CHUNK_CELLS = 4_000_000
#: From this many rows in a summary, each draw's counts over its entries are drawn from
#: the normal approximation of their sum (mean and covariance exact) instead of one
#: multinomial per entry: a sum of independent multinomials over 10⁵ rows or more.
NORMAL_ROWS = 100_000


@dataclass(frozen=True)
class GroupCalibration:
    """The proxy's calibration ``P(G = g | p, s)``: a Gaussian (Laplace) posterior.

    ``logit_g = α_g + β ln p_g + γ_{g, seg(s)}`` with ``seg(s)`` the score's segment
    (:data:`SEGMENTS_PER_SIDE` per side of the threshold, cut at the quantiles of every
    row's score logit on that side) and ``α, γ = 0`` for the reference group.

    Attributes
    ----------
    mean : ndarray, shape (K + (K − 1) S,)
        The posterior mode: ``α`` (K − 1), ``β``, ``γ`` ((K − 1) × S, group by group),
        the non-reference groups in order.
    cov : ndarray
        The inverse Hessian at the mode (zeros when ``fixed``).
    reference : int
        The group whose ``α, γ`` are 0.
    edges : ndarray, shape (2, SEGMENTS_PER_SIDE − 1)
        The segments' inner edges in score logit, per side (ŷ = 0, ŷ = 1).
    n_rows : int
        The self-reported rows it was fitted to.
    fixed : bool
        No self-reported row: the proxy taken as calibrated (``β = 1``, the rest 0).
    """

    mean: np.ndarray
    cov: np.ndarray
    reference: int
    n_groups: int
    edges: np.ndarray
    n_rows: int
    fixed: bool

    def segments(self, summary) -> np.ndarray:
        """Each entry's score segment, in ``range(2 · SEGMENTS_PER_SIDE)``."""
        u = (summary.sum_log_s - summary.sum_log_1ms) / summary.count
        side = summary.side.astype(int)
        # a row on an edge is in the segment above it, as a score on a bin's edge is in
        # the bin above (the grid's floor)
        inner = np.where(
            side == 1,
            np.searchsorted(self.edges[1], u, side="right"),
            np.searchsorted(self.edges[0], u, side="right"),
        )
        return side * SEGMENTS_PER_SIDE + inner

    def design(self, summary) -> np.ndarray:
        """The entries' design, shape ``(n_entries, K, P)``: logits = design @ φ."""
        k, r, n_seg = self.n_groups, self.reference, 2 * SEGMENTS_PER_SIDE
        others = [g for g in range(k) if g != r]
        log_p = np.log(np.maximum(summary.mean_p, P_FLOOR))
        seg = self.segments(summary)
        rows = np.arange(summary.n_entries)
        d = np.zeros((summary.n_entries, k, k + (k - 1) * n_seg))
        d[:, :, k - 1] = log_p
        for j, g in enumerate(others):
            d[:, g, j] = 1.0
            d[rows, g, k + j * n_seg + seg] = 1.0
        return d

    def draws(self, n: int, rng) -> np.ndarray:
        """``n`` draws of φ, shape ``(n, P)``.

        Parameters
        ----------
        n : int
        rng : numpy.random.Generator
        """
        if self.fixed:
            return np.broadcast_to(self.mean, (n, self.mean.size)).copy()
        return rng.multivariate_normal(self.mean, self.cov, size=n, method="cholesky")

    def probabilities(self, summary, phi=None) -> np.ndarray:
        """``P(G = g | p, s)`` per entry at ``phi`` (default the mode), ``(..., n_entries, K)``.

        Parameters
        ----------
        summary : ProxySummary
        phi : ndarray, shape (..., P), optional
        """
        phi = self.mean if phi is None else phi
        return _softmax(self.log_weights(summary, phi))

    def log_weights(self, summary, phi) -> np.ndarray:
        """``log P(G = g | p, s)`` up to a constant per entry, ``(..., n_entries, K)``.

        ``design @ φ`` without the design: ``β ln p_g + α_g + γ_{g, seg}``, O(entries × K)
        per draw instead of O(entries × K × P).

        Parameters
        ----------
        summary : ProxySummary
        phi : ndarray, shape (..., P)
        """
        k, r, n_seg = self.n_groups, self.reference, 2 * SEGMENTS_PER_SIDE
        phi = np.asarray(phi)
        phi = phi if phi.dtype == np.float32 else phi.astype(float)
        lead = phi.shape[:-1]
        others = [g for g in range(k) if g != r]
        alpha = np.zeros((*lead, k))
        alpha[..., others] = phi[..., : k - 1]
        gamma = np.zeros((*lead, n_seg, k))
        gamma[..., others] = np.swapaxes(phi[..., k:].reshape(*lead, k - 1, n_seg), -1, -2)
        log_p = np.log(np.maximum(summary.mean_p, P_FLOOR)).astype(phi.dtype)
        seg = self.segments(summary)
        beta = phi[..., k - 1, None, None]
        return beta * log_p + alpha[..., None, :] + gamma[..., seg, :]

    def lookup(self, summary, phi) -> tuple:
        """The logits as ``beta ln p + alpha + table[seg]``: ``(beta (d,), alpha (d, K),
        table (d, S, K), seg (e,))`` for the draws ``phi`` ``(d, P)``.

        Parameters
        ----------
        summary : ProxySummary
        phi : ndarray, shape (d, P)
        """
        k, r, n_seg = self.n_groups, self.reference, 2 * SEGMENTS_PER_SIDE
        phi = np.asarray(phi, dtype=float)
        others = [g for g in range(k) if g != r]
        alpha = np.zeros((phi.shape[0], k))
        alpha[:, others] = phi[:, : k - 1]
        table = np.zeros((phi.shape[0], n_seg, k))
        table[:, :, others] = np.swapaxes(phi[:, k:].reshape(-1, k - 1, n_seg), 1, 2)
        return phi[:, k - 1], alpha, table, self.segments(summary)

    @property
    def assumption(self) -> str:
        """What the group probabilities rest on, in words."""
        if self.fixed:
            return "proxy assumed calibrated, independent of the outcome given the group"
        return f"proxy calibrated on {self.n_rows:,} self-reported rows"


@dataclass(frozen=True)
class MixtureCalibration:
    """No self-reported row: ``P(G = g | p, s) ∝ p_g f_g(s)``, the proxy taken as given.

    With no row whose group is known beside the proxy, the proxy is *assumed*
    calibrated and independent of the score and the outcome given the group
    (the assumption of McCartan et al.'s BIRDiE for surnames). Each group's score
    distribution ``f_g`` over the proxy summary's score cells (side × bin) is then
    identified by how the scores of the rows of unknown group vary with their
    probabilities: each row's score is drawn from ``Σ_g p_g f_g``, a mixture whose
    weights are known row by row. ``f`` is the maximum-likelihood mixture (EM,
    Dempster, Laird & Rubin 1977, with half a row's pseudo-count in every cell);
    its uncertainty is that of a Bayesian bootstrap of the rows (each replicate's
    EM with each entry weighted ``Gamma(rows, 1)``).

    Attributes
    ----------
    density : ndarray, shape (n_replicates, K, n_cells)
        ``f_g`` of each bootstrap replicate (each row sums to 1).
    n_bins : int
        Score bins per side (cell = side · n_bins + bin).
    """

    density: np.ndarray
    n_bins: int
    n_rows: int = 0
    fixed: bool = True
    assumption: str = (
        "proxy assumed calibrated and independent of the score and outcome given the group"
    )

    def draws(self, n: int, rng) -> np.ndarray:
        """``n`` bootstrap replicates' indices.

        Parameters
        ----------
        n : int
        rng : numpy.random.Generator
        """
        return rng.integers(self.density.shape[0], size=n)

    def log_weights(self, summary, index) -> np.ndarray:
        """``log p_g + log f_g(s)`` per entry under replicate(s) ``index``, ``(..., n_entries, K)``.

        Parameters
        ----------
        summary : ProxySummary
        index : int or ndarray of int
        """
        cell = summary.side.astype(int) * self.n_bins + summary.bin
        log_f = np.log(self.density[np.asarray(index)][..., cell])  # (..., K, e)
        return np.log(np.maximum(summary.mean_p, P_FLOOR)) + np.swapaxes(log_f, -1, -2)

    def lookup(self, summary, index) -> tuple:
        """The logits as ``beta ln p + alpha + table[cell]`` (:meth:`GroupCalibration.lookup`):
        ``beta = 1``, ``alpha = 0`` and the table each replicate's ``ln f_g``.

        Parameters
        ----------
        summary : ProxySummary
        index : ndarray of int, shape (d,)
        """
        index = np.asarray(index)
        table = np.swapaxes(np.log(self.density[index]), 1, 2)
        cell = summary.side.astype(int) * self.n_bins + summary.bin
        k = self.density.shape[1]
        return np.ones(index.size), np.zeros((index.size, k)), table, cell

    def probabilities(self, summary, index=0) -> np.ndarray:
        """``P(G = g | p, s)`` per entry under replicate(s) ``index``, ``(..., n_entries, K)``.

        Parameters
        ----------
        summary : ProxySummary
        index : int or ndarray of int, default 0
        """
        return _softmax(self.log_weights(summary, index))


def _score_cells(summary, n_bins: int) -> np.ndarray:
    return summary.side.astype(int) * n_bins + summary.bin


def fit_score_mixture(proxy, rng, *, n_replicates: int = 40, tol: float = 1e-7):
    """Each group's score distribution from the rows of unknown group (:class:`MixtureCalibration`).

    Parameters
    ----------
    proxy : ProxyData
    rng : numpy.random.Generator
        For the Bayesian bootstrap's weights.
    n_replicates : int, default 40
    tol : float
        EM stops when no cell's density moves by more than this.
    """
    rows = [s.select(~s.known) for s in proxy.summaries() if s.n_entries]
    n_bins = proxy.labeled.n_bins
    cells = np.concatenate([_score_cells(r, n_bins) for r in rows])
    p = np.maximum(np.concatenate([r.mean_p for r in rows]), P_FLOOR)
    counts = np.concatenate([r.count for r in rows])
    k, n_cells = p.shape[1], 2 * n_bins

    def em(weight, f):
        for _ in range(2000):
            r = p * f[:, cells].T
            r /= r.sum(axis=1, keepdims=True)
            new = np.zeros((k, n_cells))
            for g in range(k):
                new[g] = np.bincount(cells, weights=weight * r[:, g], minlength=n_cells)
            new = (new + 0.5 / n_cells) / (new.sum(axis=1, keepdims=True) + 0.5)
            done = np.abs(new - f).max() < tol
            f = new
            if done:
                break
        return f

    pooled = np.bincount(cells, weights=counts, minlength=n_cells) + 0.5 / n_cells
    start = np.tile(pooled / pooled.sum(), (k, 1))
    best = em(counts, start)
    density = np.stack([em(rng.gamma(counts), best) for _ in range(n_replicates)])
    return MixtureCalibration(density=density, n_bins=n_bins), best


def mixture_responsibilities(labeled, density, *, max_iter: int = 200):
    """The labeled rows of unknown group shared among the groups, with the groups' maps.

    For a labeled entry, ``P(G = g | p, s, y) ∝ p_g f_g(s) P(y | s, g)``; the maps
    ``P(y | s, g) = σ(c_g + a_g ln s − b_g ln(1 − s))`` are fitted to the rows so
    shared (EM; each M-step one Newton step of a weighted logistic regression with a
    N(identity, 1) ridge). Returns the responsibilities ``(n_entries, K)``, the rows'
    shares that :meth:`ProxySummary.as_score_summary` turns into the map model's
    fractional labeled rows.

    Parameters
    ----------
    labeled : ProxySummary
        Labeled entries of unknown group.
    density : ndarray, shape (K, n_cells)
        Each group's score distribution (:func:`fit_score_mixture`'s best fit).
    max_iter : int, default 200
    """
    k = labeled.n_groups
    n_bins = labeled.n_bins
    prior_p = np.maximum(labeled.mean_p, P_FLOOR) * density[:, _score_cells(labeled, n_bins)].T
    ls, l1 = labeled.sum_log_s / labeled.count, labeled.sum_log_1ms / labeled.count
    x = np.stack([np.ones_like(ls), ls, -l1], axis=1)  # η = c + a ln s − b ln(1 − s)
    y = (labeled.label == 1).astype(float)
    theta = np.tile([0.0, 1.0, 1.0], (k, 1))
    centre = theta.copy()
    for _ in range(max_iter):
        q = _sigmoid(x @ theta.T)  # (e, K)
        like = np.where(y[:, None] == 1, q, 1 - q)
        r = prior_p * like
        r /= r.sum(axis=1, keepdims=True)
        step = np.zeros_like(theta)
        for g in range(k):
            w = labeled.count * r[:, g]
            grad = x.T @ (w * (y - q[:, g])) - (theta[g] - centre[g])
            info = (x * (w * q[:, g] * (1 - q[:, g]))[:, None]).T @ x + np.eye(3)
            step[g] = np.linalg.solve(info, grad)
        theta = theta + step
        if np.abs(step).max() < 1e-8:
            break
    return r


def _prior(k: int) -> tuple[np.ndarray, np.ndarray]:
    """Prior means and sds in the order of :class:`GroupCalibration`'s ``φ``."""
    parts = [("alpha", k - 1), ("beta", 1), ("gamma", (k - 1) * 2 * SEGMENTS_PER_SIDE)]
    mean = np.concatenate([np.full(n, GROUP_PRIOR[name][0]) for name, n in parts])
    sd = np.concatenate([np.full(n, GROUP_PRIOR[name][1]) for name, n in parts])
    return mean, sd


def segment_edges(summaries) -> np.ndarray:
    """The segments' inner edges per side: quantiles of the rows' score logits there,
    moved to the nearest edge of the summaries' score bins (so that every row of an
    entry, whose bin is one, falls in one segment)."""
    u = np.concatenate([(x.sum_log_s - x.sum_log_1ms) / x.count for x in summaries])
    side = np.concatenate([x.side for x in summaries])
    weight = np.concatenate([x.count for x in summaries])
    out = np.zeros((2, SEGMENTS_PER_SIDE - 1))
    levels = np.arange(1, SEGMENTS_PER_SIDE) / SEGMENTS_PER_SIDE
    for s_ in (0, 1):
        mine = side == s_
        if not mine.any():
            continue
        order = np.argsort(u[mine])
        cum = np.cumsum(weight[mine][order])
        out[s_] = u[mine][order][np.searchsorted(cum, levels * cum[-1])]
    first = summaries[0]
    lo = float(np.log(first.score_clip) - np.log1p(-first.score_clip))
    width = -2 * lo / first.n_bins
    return lo + np.round((out - lo) / width) * width


def _softmax(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def _sigmoid(x):
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def fit_group_calibration(proxy, reference: int, *, max_iter: int = 100) -> GroupCalibration:
    """The proxy's calibration fitted to the self-reported rows (module docstring).

    Parameters
    ----------
    proxy : ProxyData
    reference : int
        The reference group's position.
    max_iter : int, default 100
        Newton steps at most (each halved until the log posterior rises).

    Returns
    -------
    GroupCalibration
    """
    k = len(proxy.levels)
    known = [s.select(s.known) for s in proxy.summaries()]
    counts = np.concatenate([s.count for s in known])
    prior_mean, prior_sd = _prior(k)
    base = GroupCalibration(
        mean=prior_mean.copy(),
        cov=np.zeros((prior_mean.size,) * 2),
        reference=int(reference),
        n_groups=k,
        edges=segment_edges([s for s in proxy.summaries() if s.n_entries]),
        n_rows=round(float(counts.sum())),
        fixed=True,
    )
    if counts.sum() == 0:  # the prior's centre is the proxy as given
        return base
    design = np.concatenate([base.design(s) for s in known])
    onehot = np.zeros((counts.size, k))
    onehot[np.arange(counts.size), np.concatenate([s.group for s in known])] = 1.0
    precision = 1.0 / prior_sd**2

    def objective(phi):
        logits = np.einsum("ekp,p->ek", design, phi)
        log_pi = logits - _logsumexp(logits)
        value = float((counts[:, None] * onehot * log_pi).sum())
        return value - 0.5 * float((precision * (phi - prior_mean) ** 2).sum()), np.exp(log_pi)

    phi = prior_mean.copy()
    value, pi = objective(phi)
    for _ in range(max_iter):
        resid = counts[:, None] * (onehot - pi)
        grad = np.einsum("ekp,ek->p", design, resid) - precision * (phi - prior_mean)
        hess = _information(design, pi, counts) + np.diag(precision)
        step = np.linalg.solve(hess, grad)
        for _ in range(30):
            trial_value, trial_pi = objective(phi + step)
            if trial_value >= value - 1e-10:
                break
            step = step / 2
        phi, value, pi = phi + step, trial_value, trial_pi
        if np.abs(step).max() < 1e-8:
            break
    hess = _information(design, pi, counts) + np.diag(precision)
    cov = np.linalg.inv(hess)
    return GroupCalibration(
        mean=phi,
        cov=(cov + cov.T) / 2,
        reference=int(reference),
        n_groups=k,
        edges=base.edges,
        n_rows=base.n_rows,
        fixed=False,
    )


def _logsumexp(x):
    m = x.max(axis=-1, keepdims=True)
    return m + np.log(np.exp(x - m).sum(axis=-1, keepdims=True))


def _information(design, pi, counts):
    """Σ_e n_e Dᵀ (diag π − π πᵀ) D: the multinomial logit's Fisher information."""
    weighted = design * (counts[:, None] * pi)[:, :, None]
    first = np.einsum("ekp,ekq->pq", weighted, design)
    mean = np.einsum("ekp,ek->ep", design, pi)
    second = np.einsum("ep,eq->pq", mean * counts[:, None], mean)
    return first - second


@dataclass(frozen=True)
class Link:
    """The proxy's link to the outcome within each group: λ_g's Gaussian posterior.

    Attributes
    ----------
    mean, sd : ndarray, shape (K,)
        λ_g's posterior mode and sd (0 and 0 where not learned).
    center : ndarray, shape (K,)
        ``p̄_g``: the mean ``p_g`` of the group's labeled rows of known group.
    n_rows : ndarray of int, shape (K,)
        The labeled rows of known group with the proxy that taught each λ_g.
    """

    mean: np.ndarray
    sd: np.ndarray
    center: np.ndarray
    n_rows: np.ndarray

    @property
    def learned(self) -> np.ndarray:
        return self.n_rows > 0

    def draws(self, n: int, rng) -> np.ndarray:
        """``n`` draws of λ, shape ``(n, K)``.

        Parameters
        ----------
        n : int
        rng : numpy.random.Generator
        """
        return self.mean + self.sd * rng.standard_normal((n, self.mean.size))


def link_feature(summary) -> np.ndarray:
    """Each entry's mean probabilities ``p_g``, ``(n_entries, K)``: the link's feature."""
    return summary.mean_p


def map_predictor(summary, a, b, c, groups=None) -> np.ndarray:
    """``η_g = c_g + a_g ln s − b_g ln(1 − s)`` at each entry's mean logs.

    ``a, b, c`` have shape ``(..., K)``; the result ``(..., n_entries, K)`` (every
    group's map at every entry), or ``(..., n_entries)`` at ``groups``' maps.
    """
    a, b, c = (np.asarray(v)[..., None, :] for v in (a, b, c))
    dtype = np.float32 if a.dtype == np.float32 else float
    ls = (summary.sum_log_s / summary.count).astype(dtype)
    l1 = (summary.sum_log_1ms / summary.count).astype(dtype)
    a, b, c = (v.astype(dtype, copy=False) for v in (a, b, c))
    eta = c + a * ls[:, None] - b * l1[:, None]
    if groups is None:
        return eta
    return np.take_along_axis(eta, np.asarray(groups)[:, None], axis=-1)[..., 0]


def fit_link(proxy, a_mean, b_mean, c_mean) -> Link:
    """Each group's λ_g fitted to its labeled rows of known group (module docstring).

    Parameters
    ----------
    proxy : ProxyData
    a_mean, b_mean, c_mean : ndarray, shape (K,)
        The maps' posterior means (the offset ``η̂``).
    """
    k = len(proxy.levels)
    rows = proxy.labeled.select(proxy.labeled.known)
    z = link_feature(rows)
    offset = map_predictor(rows, a_mean, b_mean, c_mean, rows.group)
    mean, sd, center, n_rows = np.zeros(k), np.zeros(k), np.zeros(k), np.zeros(k, dtype=int)
    for g in range(k):
        mine = rows.group == g
        n = rows.count[mine]
        if n.sum() == 0:
            continue
        zg = z[mine, g]
        center[g] = float((n * zg).sum() / n.sum())
        x = zg - center[g]
        y = rows.label[mine].astype(float)
        lam = 0.0
        for _ in range(50):
            q = _sigmoid(offset[mine] + lam * x)
            grad = float((n * (y - q) * x).sum()) - lam / LINK_PRIOR_SD**2
            info = float((n * q * (1 - q) * x * x).sum()) + 1 / LINK_PRIOR_SD**2
            step = grad / info
            lam += step
            if abs(step) < 1e-10:
                break
        q = _sigmoid(offset[mine] + lam * x)
        info = float((n * q * (1 - q) * x * x).sum()) + 1 / LINK_PRIOR_SD**2
        mean[g], sd[g], n_rows[g] = lam, 1 / np.sqrt(info), round(float(n.sum()))
    return Link(mean=mean, sd=sd, center=center, n_rows=n_rows)


def latent_counts(proxy, a, b, c, calibration, link: Link, rng, *, phi=None, lam=None):
    """Each draw's confusion counts per group over the rows of unknown group (and the
    unlabeled summary's rows of known group where ``proxy.assess_known``: a source
    summarised in one pass, whose rows of known group keep it).

    Below :data:`NORMAL_ROWS` rows a summary's entries are shared by one multinomial
    each (:func:`share_exact`); from it, by the normal of their sum (:func:`share_normal`).

    Parameters
    ----------
    proxy : ProxyData
    a, b, c : ndarray, shape (chain, draw, K)
        The maps' posterior draws.
    calibration : GroupCalibration or MixtureCalibration
    link : Link
    rng : numpy.random.Generator
    phi, lam : ndarray, optional
        The calibration's and the link's draws to use, shaped as returned (default:
        drawn from ``calibration`` and ``link``).

    Returns
    -------
    counts : ndarray, shape (chain, draw, K, 4)
        tp, fp, tn, fn per group.
    score_sum : ndarray, shape (chain, draw, K)
        The raw scores' sum of the rows each group was given (for its mean score).
    phi, lam : ndarray
        The draws of the proxy's calibration (``(chain, draw, P)``; a
        :class:`MixtureCalibration`'s replicate, ``(chain, draw)``) and of the link
        ``(chain, draw, K)`` they were made with.
    """
    chains, draws, k = a.shape
    if k != len(proxy.levels):
        raise InvalidParameterError("The maps and the proxy name different groups.")
    n = chains * draws
    phi = calibration.draws(n, rng) if phi is None else np.reshape(phi, (n, *np.shape(phi)[2:]))
    lam = link.draws(n, rng) if lam is None else np.reshape(lam, (n, k))
    # single precision for the per-entry arithmetic (memory-bound; the counts it feeds
    # are accumulated in double): the probabilities are good to 1e-6
    flat = [np.asarray(v, dtype=np.float32).reshape(n, k) for v in (a, b, c)]
    phi32 = phi.astype(np.float32) if np.issubdtype(phi.dtype, np.floating) else phi
    lam32 = lam.astype(np.float32)
    out = np.zeros((n, k, 4))
    score_sum = np.zeros((n, k))
    for which, known_too in ((proxy.labeled, False), (proxy.unlabeled, proxy.assess_known)):
        rows = which if known_too else which.select(~which.known)
        if rows.n_entries == 0:
            continue
        z = link_feature(rows) - link.center
        if rows.n_total >= NORMAL_ROWS:
            maps = [np.asarray(v, dtype=float).reshape(n, k) for v in (a, b, c)]
            counts, scores = share_normal(rows, calibration.lookup(rows, phi), maps, lam, z, rng)
            out += counts
            score_sum += scores
            continue
        z = z.astype(np.float32)
        # a row of known group assessed here keeps it: its probabilities are one-hot
        fixed = np.where(rows.known[:, None], np.arange(k) == rows.group[:, None], True)
        chunk = max(16, min(1024, _CHUNK_CELLS // (rows.n_entries * 2 * k)))
        for start in range(0, n, chunk):
            part = slice(start, start + chunk)
            logw = calibration.log_weights(rows, phi32[part])
            pi = _softmax(np.where(fixed, logw, -np.inf) if rows.known.any() else logw)
            eta = map_predictor(rows, *(v[part] for v in flat))
            q = _sigmoid(eta + lam32[part, None, :] * z)
            counts, scores = share_exact(rows, pi, q, rng)
            out[part] += counts
            score_sum[part] += scores
    phi = phi.reshape(chains, draws, *phi.shape[1:])
    return (
        out.reshape(chains, draws, k, 4),
        score_sum.reshape(chains, draws, k),
        phi,
        lam.reshape(chains, draws, k),
    )


def share_exact(rows, pi, q, rng) -> tuple[np.ndarray, np.ndarray]:
    """One multinomial draw per (draw, entry): the entry's rows among groups (and labels).

    ``rows`` are all labeled or all unlabeled (one summary's entries of unknown
    group); ``pi``, ``q``: ``(d, entries, K)``. A labeled entry's rows are shared among
    the groups by ``P(g | p, s, y) ∝ π_g q_g^y (1 − q_g)^(1 − y)``; an unlabeled one's
    among the (group, label) pairs by ``π_g q_g`` and ``π_g (1 − q_g)``. Returns the
    counts ``(d, K, 4)`` (tp, fp, tn, fn) and the raw scores' sums per group ``(d, K)``.

    Parameters
    ----------
    rows : ProxySummary
    pi, q : ndarray, shape (d, entries, K)
        ``P(G = g | p, s)`` and ``P(y = 1 | s, g, p)`` per draw and entry.
    rng : numpy.random.Generator
    """
    d, e, k = pi.shape
    counts = np.broadcast_to(np.rint(rows.count).astype(np.int64), (d, e))
    side = rows.side.astype(float)
    out = np.zeros((d, k, 4))
    if (rows.label >= 0).all():
        positive = rows.label == 1
        w = pi * np.where(positive[:, None], q, 1 - q)
        w = w.astype(float)  # double: single precision's sum may pass 1 for the sampler
        drawn = _multinomial(counts, w / w.sum(axis=-1, keepdims=True), rng)
        y = positive.astype(float)
        for cell, weight in enumerate((side * y, side * (1 - y), (1 - side) * (1 - y))):
            out[..., cell] = np.einsum("dek,e->dk", drawn, weight)
        out[..., 3] = np.einsum("dek,e->dk", drawn, (1 - side) * y)
        return out, np.einsum("dek,e->dk", drawn, rows.sum_score / rows.count)
    probs = np.concatenate([pi * q, pi * (1 - q)], axis=-1).astype(float)
    drawn = _multinomial(counts, probs / probs.sum(axis=-1, keepdims=True), rng)
    pos, neg = drawn[..., :k], drawn[..., k:]
    out[..., 0] = np.einsum("dek,e->dk", pos, side)
    out[..., 1] = np.einsum("dek,e->dk", neg, side)
    out[..., 2] = np.einsum("dek,e->dk", neg, 1 - side)
    out[..., 3] = np.einsum("dek,e->dk", pos, 1 - side)
    return out, np.einsum("dek,e->dk", pos + neg, rows.sum_score / rows.count)


def _multinomial(counts, probs, rng) -> np.ndarray:
    """``rng.multinomial(counts, probs)``, with the entries of one row drawn as categoricals.

    An entry of one row (the common case with a continuous proxy) is one uniform
    against the cumulated probabilities, at a fraction of a multinomial's cost.
    """
    out = np.zeros(probs.shape, dtype=np.int64)
    one = counts[0] == 1
    if one.any():
        cum = np.cumsum(probs[:, one], axis=-1)
        u = rng.random(cum.shape[:-1])[..., None] * cum[..., -1:]
        pick = np.minimum((u >= cum).sum(axis=-1), probs.shape[-1] - 1)
        sub = np.zeros(probs[:, one].shape, dtype=np.int64)
        np.put_along_axis(sub, pick[..., None], 1, axis=-1)
        out[:, one] = sub
    if (~one).any():
        out[:, ~one] = rng.multinomial(counts[:, ~one], probs[:, ~one])
    return out


def share_normal(rows, lookup, maps, lam, z, rng) -> tuple[np.ndarray, np.ndarray]:
    """:func:`share_exact`'s sums drawn at once, from their normal approximation.

    Per stratum of entries (side, and the label for labeled rows) the rows' counts per
    category (group, and label for unlabeled rows) are a sum of independent
    multinomials, drawn from the normal with its exact mean ``Σ n_e P_e`` and covariance
    ``Σ n_e (diag P_e − P_e P_eᵀ)`` (clipped at 0 and rescaled to the stratum's rows),
    the sums computed in one compiled pass over draws × entries
    (:mod:`bayesfair.models._proxy_kernels`). The score sums are each category's
    expected ones scaled to its drawn rows.

    Parameters
    ----------
    rows : ProxySummary
        Entries all labeled or all unlabeled.
    lookup : tuple
        The calibration's logits (:meth:`GroupCalibration.lookup`).
    maps : list of ndarray, each (d, K)
        ``a, b, c``.
    lam : ndarray, shape (d, K)
    z : ndarray, shape (e, K)
        The link's centred feature.
    rng : numpy.random.Generator

    Returns
    -------
    counts : ndarray, shape (d, K, 4)
    scores : ndarray, shape (d, K)
    """
    from bayesfair.models._proxy_kernels import entry_moments  # numba: compiled loops

    k = maps[0].shape[1]
    labeled = bool((rows.label >= 0).all())
    side = rows.side.astype(int)
    if labeled:
        strata, n_strata = side * 2 + (rows.label == 1), 4  # (side, y)
    else:
        strata, n_strata = side, 2
    mean, outer, score = entry_moments(lookup, rows, strata, maps, lam, z, n_strata, labeled)
    n_cat = mean.shape[-1]
    cov = mean[..., None] * np.eye(n_cat) - outer
    jitter = 1e-9 * (1.0 + mean.sum(axis=-1))[..., None, None] * np.eye(n_cat)
    root = np.linalg.cholesky(cov + jitter)
    x = mean + np.einsum("dtij,dtj->dti", root, rng.standard_normal(mean.shape))
    x = np.clip(x, 0.0, None)
    totals = np.bincount(strata, weights=rows.count, minlength=n_strata)
    x *= totals[None, :, None] / np.maximum(x.sum(axis=-1, keepdims=True), 1e-12)
    with np.errstate(invalid="ignore", divide="ignore"):
        scores = np.where(mean > 0, score * x / mean, 0.0).sum(axis=1)
    cell = {(1, 1): 0, (1, 0): 1, (0, 0): 2, (0, 1): 3}
    counts = np.zeros((mean.shape[0], k, 4))
    for t in range(n_strata):
        if labeled:
            s_, y = divmod(t, 2)
            counts[..., cell[(s_, y)]] += x[:, t, :]
        else:
            counts[..., cell[(t, 1)]] += x[:, t, :k]
            counts[..., cell[(t, 0)]] += x[:, t, k:]
    if not labeled:
        scores = scores[:, :k] + scores[:, k:]
    return counts, scores
