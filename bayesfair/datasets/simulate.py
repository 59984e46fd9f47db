"""Generators with known truth, for tests, notebooks and benchmarks.

:func:`lum_scenario` gives the four scenarios of Lum, Zhang and Bower (2022,
Table 2) — true group rates ``μ_k``, group sizes ``n_k`` and the true
between-group variance — and :func:`simulate_counts` draws group successes
from their binomial model, eq. (1). The others draw rows of scores, labels and groups
whose population is known (:func:`two_group_rows`, :func:`lum_score_rows`,
:func:`many_groups`, :func:`differential_calibration`, :func:`drifting_periods`,
:func:`proxy_audit`) and compute their truths (:func:`two_group_truth`,
:func:`lum_score_tpr_variance`, :func:`rate_truth`, :func:`score_truth`).
What an interval can attain in the Gaussian limit experiment of a biased and a
debiased estimate is computed in :mod:`bayesfair.datasets.limits`.

The benchmarks (``benchmarks/``) and the statistical tests draw their data from here,
so that one copy of each design exists.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bayesfair._internal.names import resolve_name
from bayesfair._internal.validation import check_array, check_positive_int, check_random_state
from bayesfair.data.assessment import AssessmentData
from bayesfair.data.examples import count_confusion
from bayesfair.datasets import load_scores
from bayesfair.exceptions import InvalidParameterError
from bayesfair.metrics.rates import rate_fraction, rate_from_counts
from bayesfair.metrics.scores import cell_auc, check_thresholds, counts_above

#: How :func:`miscalibrated_scores` distorts the reported scores of the distorted group.
MISCALIBRATIONS = {
    "none": "scores are the true probabilities (calibrated)",
    "cubed": "reported score s³ (overconfident negatives; a map unlike the other group's)",
    "inverted": "reported score 1 − s (a classifier whose scores point the wrong way)",
    "shifted": "reported score σ(logit p − shift): the map σ(logit s + shift), in the family",
}

#: How :func:`differential_calibration` distorts a group: its true map P(y = 1 | s') in
#: terms of the undistorted score s, whose map is the identity.
DISTORTIONS = {
    "none": "the group is like the others (labels y ~ Bernoulli(s))",
    "label_noise": "a share of the group's labels flipped: P(y = 1 | s) = r + (1 − 2r) s",
    "slope": "scores over- or under-confident: s' = σ(k logit s); decisions unchanged",
    "intercept": "scores shifted on the logit scale: s' = σ(logit s − shift)",
    "shape": "a map outside the beta family: s' = s³ (the map s'^(1/3))",
}

__all__ = [
    "DISTORTIONS",
    "LUM_SCENARIOS",
    "MISCALIBRATIONS",
    "TWO_GROUP_SCENARIOS",
    "UNEQUAL_LABELS",
    "UNEQUAL_UNLABELED",
    "LumScenario",
    "ScoreDesign",
    "audit_frames",
    "census_weights",
    "differential_calibration",
    "distort_scores",
    "drifting_periods",
    "lum_scenario",
    "lum_score_design",
    "lum_score_rows",
    "lum_score_tpr_variance",
    "many_groups",
    "miscalibrated_scores",
    "proxy_audit",
    "rate_truth",
    "real_rows",
    "score_truth",
    "simulate_counts",
    "simulated_assessment",
    "two_group_rows",
    "two_group_truth",
    "unequal_group_sizes",
]

#: The scenarios of Lum et al. Table 2: name -> (equal sizes?, equal performance?).
LUM_SCENARIOS: dict[str, tuple[bool, bool]] = {
    "equal_size_equal_perf": (True, True),
    "unequal_size_equal_perf": (False, True),
    "equal_size_unequal_perf": (True, False),
    "unequal_size_unequal_perf": (False, False),
}


@dataclass(frozen=True)
class LumScenario:
    """One scenario of Lum et al. Table 2.

    Attributes
    ----------
    name : str
        One of :data:`LUM_SCENARIOS`.
    mu : numpy.ndarray, shape (K,)
        True group rates ``μ_k``.
    n_k : numpy.ndarray of int, shape (K,)
        Group sizes.
    true_variance : float
        ``M_var(μ)``, the sample variance (``ddof=1``) of ``mu``.
    """

    name: str
    mu: np.ndarray = field(repr=False)
    n_k: np.ndarray = field(repr=False)
    true_variance: float

    @property
    def sampling_variance(self) -> np.ndarray:
        """``σ_k² = μ_k (1 - μ_k) / n_k``, the variance of each observed rate."""
        return self.mu * (1 - self.mu) / self.n_k


def lum_scenario(name: str, K: int = 100, n: int = 5000) -> LumScenario:
    """True rates and group sizes of a scenario of Lum et al. Table 2.

    Parameters
    ----------
    name : {"equal_size_equal_perf", "unequal_size_equal_perf", \
"equal_size_unequal_perf", "unequal_size_unequal_perf"}
    K : int, default 100
        Number of groups (>= 2).
    n : int, default 5000
        Total size for the equal-size scenarios: ``n_k = round(n/K)`` (50 by
        default). The unequal sizes ``n_k = round(10 + 80 (k-1)/(K-1))`` do not
        depend on ``n`` (they sum to 5000 for K = 100).

    Returns
    -------
    LumScenario
        Equal performance: ``μ_k = 0.8`` (true variance 0). Unequal
        performance: ``μ_k = 0.1 + 0.8 (k-1)/(K-1)`` (true variance ≈ 0.055 for
        K = 100).

    References
    ----------
    Lum, Zhang, Bower (2022), §5.1 and Table 2.

    Examples
    --------
    >>> s = lum_scenario("unequal_size_unequal_perf")
    >>> s.n_k[:3].tolist(), int(s.n_k.sum()), round(s.true_variance, 4)
    ([10, 11, 12], 5000, 0.055)
    """
    canonical = resolve_name(name, LUM_SCENARIOS, what="scenario", argument="name")
    equal_size, equal_perf = LUM_SCENARIOS[canonical]
    K, n = check_positive_int(K, "K", minimum=2), check_positive_int(n, "n")
    step = np.arange(K) / (K - 1)  # (k - 1)/(K - 1)
    n_k = np.full(K, round(n / K)) if equal_size else np.rint(10 + 80 * step)
    mu = np.full(K, 0.8) if equal_perf else 0.1 + 0.8 * step
    n_k = n_k.astype(np.int64)
    if (n_k < 1).any():
        raise InvalidParameterError(
            f"n={n} is too small for K={K} groups of equal size (round(n/K) = 0)."
        )
    for a in (mu, n_k):
        a.setflags(write=False)
    # exactly 0 with equal rates (np.var of a constant array leaves rounding error)
    true_variance = 0.0 if equal_perf else float(np.var(mu, ddof=1))
    return LumScenario(canonical, mu, n_k, true_variance)


def simulate_counts(mu, n_k, random_seed=None, n_replicates: int | None = None) -> np.ndarray:
    """Draw group successes ``Z_k ~ Binomial(n_k, μ_k)`` (Lum et al. eq. 1).

    Parameters
    ----------
    mu : array_like, shape (K,)
        True rates in [0, 1].
    n_k : array_like of int, shape (K,)
        Group sizes (non-negative integers).
    random_seed : int, numpy SeedSequence or Generator, optional
    n_replicates : int, optional
        Number of independent data sets; ``None`` for one.

    Returns
    -------
    numpy.ndarray of int64
        Shape ``(K,)``, or ``(n_replicates, K)``. Observed rates are ``Z / n_k``.

    References
    ----------
    Lum, Zhang, Bower (2022), §3, eq. (1).

    Examples
    --------
    >>> s = lum_scenario("equal_size_equal_perf", K=4, n=40)
    >>> simulate_counts(s.mu, s.n_k, random_seed=0).shape
    (4,)
    >>> simulate_counts(s.mu, s.n_k, random_seed=0, n_replicates=3).shape
    (3, 4)
    """
    p = check_array(mu, "mu")
    n = check_array(n_k, "n_k", dtype=None)  # its dtype kept: checked as counts below
    if p.ndim != 1 or n.shape != p.shape:
        raise InvalidParameterError(
            f"'mu' and 'n_k' must be one-dimensional of equal length. Got shapes {p.shape} "
            f"and {n.shape}."
        )
    if not np.all((p >= 0) & (p <= 1)):
        raise InvalidParameterError(
            f"'mu' must lie in [0, 1]. Got {p[~((p >= 0) & (p <= 1))][0].item()!r}."
        )
    n_float = n.astype(float)
    if not np.all((n_float >= 0) & (n_float == np.floor(n_float))):
        raise InvalidParameterError("'n_k' must hold non-negative integers.")
    size = p.shape if n_replicates is None else (int(n_replicates), p.size)
    rng = check_random_state(random_seed)
    return rng.binomial(n.astype(np.int64), p, size=size).astype(np.int64)


def miscalibrated_scores(
    n_labeled: int = 100,
    n_unlabeled: int = 2000,
    *,
    kind: str = "none",
    groups=("A", "B"),
    distorted: str = "B",
    shift: float = 1.0,
    random_seed=None,
):
    """Two groups whose true P(y = 1 | score) is known, one of them possibly distorted.

    Each example has a true probability ``p ~ Beta(2, 2)`` and a label
    ``y ~ Bernoulli(p)``. The classifier reports ``s = p`` (calibrated) in
    every group except ``distorted``, where it reports ``s = p³``
    (``kind="cubed"``), ``s = 1 − p`` (``kind="inverted"``) or
    ``s = σ(logit p − shift)`` (``kind="shifted"``: the group's map is
    ``σ(logit s + shift)``, inside the beta-calibration family with
    ``c = shift``, a map that differs from the others' by a known logit
    shift); with ``kind="none"`` every group is calibrated. The beta-calibration family
    contains the identity and ``σ(log p − log(1 − p))``, so "none" is a
    correctly specified case; "cubed" needs ``a = 1/3`` for one group only
    (far from the shared map the hierarchy expects), and "inverted" needs a
    decreasing map, which the family (a, b > 0) cannot give.

    Parameters
    ----------
    n_labeled, n_unlabeled : int
        Per group.
    kind : {"none", "cubed", "inverted", "shifted"}
    groups : sequence of str
    distorted : str
        The group whose scores are distorted.
    shift : float, default 1.0
        ``kind="shifted"`` only: the logit shift of the distorted group's map.
    random_seed : int, optional

    Returns
    -------
    labeled : pandas.DataFrame
        Columns ``score``, ``label``, ``group``, ``p`` (the true probability).
    unlabeled : pandas.DataFrame
        The same columns (labels and ``p`` kept, for the truth).
    """
    import pandas as pd

    kind = resolve_name(kind, MISCALIBRATIONS, what="miscalibration", argument="kind")
    rng = np.random.default_rng(random_seed)
    frames = []
    for g in groups:
        n = n_labeled + n_unlabeled
        p = rng.beta(2.0, 2.0, n)
        y = (rng.random(n) < p).astype(int)
        s = p
        if g == distorted and kind == "cubed":
            s = p**3
        elif g == distorted and kind == "inverted":
            s = 1.0 - p
        elif g == distorted and kind == "shifted":
            s = 1.0 / (1.0 + np.exp(-(np.log(p) - np.log1p(-p) - shift)))
        part = pd.DataFrame({"score": s, "label": y, "group": g, "p": p})
        part["labeled"] = np.arange(n) < n_labeled
        frames.append(part)
    both = pd.concat(frames, ignore_index=True)
    labeled = both[both["labeled"]].drop(columns="labeled").reset_index(drop=True)
    unlabeled = both[~both["labeled"]].drop(columns="labeled").reset_index(drop=True)
    return labeled, unlabeled


def many_groups(
    k: int = 32,
    n_labeled=12,
    n_unlabeled=10_000,
    *,
    distorted=(),
    shift: float = 1.0,
    random_seed=None,
):
    """K groups whose true P(y = 1 | score) is known: the null of a many-group audit.

    As :func:`miscalibrated_scores` with ``kind="shifted"``, for K groups: every
    example has ``p ~ Beta(2, 2)`` and ``y ~ Bernoulli(p)``; groups are
    calibrated (``s = p``, so that no gap exists in expectation) except those
    in ``distorted``, whose scores are ``σ(logit p − shift)`` (a map inside the
    beta-calibration family, a logit ``shift`` away from the others').

    Parameters
    ----------
    k : int
        Number of groups, named ``"g00"``, ``"g01"``, ...
    n_labeled, n_unlabeled : int or sequence of int
        Per group (one number for all, or K of them: unequal sizes, some groups
        with 0 labels).
    distorted : sequence of int
        Positions of the groups calibrated differently.
    shift : float, default 1.0
    random_seed : None, int or Generator, optional

    Returns
    -------
    labeled, unlabeled : pandas.DataFrame
        Columns ``score``, ``label``, ``group``, ``p``; the unlabeled rows keep
        their labels, for the truth (drop ``label`` before assessing them).
    """
    import pandas as pd

    k = check_positive_int(k, "k")
    n_lab = np.broadcast_to(np.asarray(n_labeled, dtype=int), (k,))
    n_unl = np.broadcast_to(np.asarray(n_unlabeled, dtype=int), (k,))
    if (n_lab < 0).any() or (n_unl < 0).any():
        raise InvalidParameterError("Group sizes must be whole numbers ≥ 0.")
    rng = check_random_state(random_seed)
    distorted = set(int(i) for i in distorted)
    width = len(str(k - 1))
    frames = []
    for i in range(k):
        n = int(n_lab[i] + n_unl[i])
        p = rng.beta(2.0, 2.0, n)
        y = (rng.random(n) < p).astype(int)
        s = p
        if i in distorted:
            s = 1.0 / (1.0 + np.exp(-(np.log(p) - np.log1p(-p) - shift)))
        part = pd.DataFrame({"score": s, "label": y, "group": f"g{i:0{width}d}", "p": p})
        part["labeled"] = np.arange(n) < n_lab[i]
        frames.append(part)
    both = pd.concat(frames, ignore_index=True)
    labeled = both[both["labeled"]].drop(columns="labeled").reset_index(drop=True)
    unlabeled = both[~both["labeled"]].drop(columns="labeled").reset_index(drop=True)
    return labeled, unlabeled


def drifting_periods(
    n_periods: int = 12,
    n_labeled=50,
    n_unlabeled=2_000,
    *,
    groups=("A", "B"),
    drift_group=None,
    drift_from: int | None = None,
    shift: float = 2.0,
    random_seed=None,
):
    """A deployment audited over ``n_periods`` periods, in which one group's scores may drift.

    Every example has a true ``p ~ Beta(2, 2)`` and ``y ~ Bernoulli(p)``, in every
    group and period. Scores are calibrated (``s = p``) except in ``drift_group``
    from period ``drift_from`` on, where ``s = σ(logit p − shift)``: the group's
    scores moved by ``shift`` on the logit scale, so the map learnt before the drift
    no longer holds there (the labels are ``shift`` logits more positive than the
    scores say).

    Parameters
    ----------
    n_periods : int, default 12
        Periods, numbered 0, 1, ...
    n_labeled, n_unlabeled : int or sequence of int
        Labeled and unlabeled rows per group in each period (one number for all
        periods, or one per period: e.g. labels only in the first period).
    groups : sequence of str, default ("A", "B")
    drift_group : str, optional
        The group whose scores drift (None: nothing drifts).
    drift_from : int, optional
        The first drifted period.
    shift : float, default 2.0
    random_seed : None, int or Generator, optional

    Returns
    -------
    labeled, unlabeled : pandas.DataFrame
        Columns ``score``, ``label``, ``group``, ``period``, ``p``, ``drifted``; the
        unlabeled rows keep their labels, for the truth (drop ``label`` before
        assessing them).
    """
    import pandas as pd

    n_periods = check_positive_int(n_periods, "n_periods")
    n_lab = np.broadcast_to(np.asarray(n_labeled, dtype=int), (n_periods,))
    n_unl = np.broadcast_to(np.asarray(n_unlabeled, dtype=int), (n_periods,))
    if (n_lab < 0).any() or (n_unl < 0).any():
        raise InvalidParameterError("Period sizes must be whole numbers ≥ 0.")
    if drift_group is not None and drift_group not in groups:
        raise InvalidParameterError(f"'drift_group' must be one of {list(groups)}.")
    rng = check_random_state(random_seed)
    frames = []
    for t in range(n_periods):
        for group in groups:
            n = int(n_lab[t] + n_unl[t])
            p = rng.beta(2.0, 2.0, n)
            y = (rng.random(n) < p).astype(int)
            drifted = group == drift_group and drift_from is not None and t >= drift_from
            s = 1.0 / (1.0 + np.exp(-(np.log(p) - np.log1p(-p) - shift))) if drifted else p
            part = pd.DataFrame(
                {"score": s, "label": y, "group": group, "period": t, "p": p, "drifted": drifted}
            )
            part["labeled"] = np.arange(n) < n_lab[t]
            frames.append(part)
    both = pd.concat(frames, ignore_index=True)
    labeled = both[both["labeled"]].drop(columns="labeled").reset_index(drop=True)
    unlabeled = both[~both["labeled"]].drop(columns="labeled").reset_index(drop=True)
    return labeled, unlabeled


def differential_calibration(
    k: int = 4,
    n_labeled: int = 200,
    n_unlabeled: int = 50_000,
    *,
    kind: str = "label_noise",
    distorted=(0,),
    amount: float | None = None,
    weights=None,
    scores=None,
    random_seed=None,
):
    """K groups on real classifier scores, one or more calibrated differently, with the truth.

    The scores are a real classifier's (the MLP of Ji et al. 2020 on UCI Adult, all
    10,054 rows, drawn with replacement; or ``scores`` given). Every example is
    given a group at random (``weights``) and a label ``y ~ Bernoulli(s)``: the
    groups share one calibration map, the identity, so that each group's rates
    differ only by chance. In the groups of ``distorted`` the classifier's scores
    mean something else (:data:`DISTORTIONS`):

    - ``"label_noise"``: a share ``amount`` (default 0.12) of the group's labels
      flipped; the group's map is ``r + (1 − 2r) s``, compressed towards 1/2 (the
      classifier is less accurate there);
    - ``"slope"``: the reported score is ``σ(k logit s)`` with ``k = amount``
      (default 2: over-confident; 0.5: under-confident); every decision, and so
      every true gap, is unchanged, but the group's map is ``σ(logit s' / k)``;
    - ``"intercept"``: the reported score is ``σ(logit s − amount)`` (default 1);
    - ``"shape"``: the reported score is ``s³``, a map (``s'^{1/3}``) no beta map fits.

    The labeled rows are a simple random sample of the assessed rows. The truth
    is each group's rates on every assessed row (labeled and unlabeled: the
    estimand of ``fit``'s default ``estimand="assessed"``) and each row's true
    probability ``p`` (the oracle that knows every group's map).

    Parameters
    ----------
    k : int, default 4
        Number of groups, named ``"g0"``, ``"g1"``, ...
    n_labeled, n_unlabeled : int
        Over all groups.
    kind : {"none", "label_noise", "slope", "intercept", "shape"}
    distorted : sequence of int, default (0,)
        The groups calibrated differently.
    amount : float, optional
        The distortion's size (defaults above).
    weights : sequence of float, optional
        The groups' shares (default equal).
    scores : array_like, optional
        Scores to draw from instead of the bundled ones.
    random_seed : None, int or Generator, optional

    Returns
    -------
    labeled, unlabeled : pandas.DataFrame
        Columns ``score``, ``label``, ``group``, ``p`` (the true probability of a
        positive); the unlabeled rows keep their labels, for the truth (drop
        ``label`` and ``p`` before assessing them).
    """
    import pandas as pd

    kind = resolve_name(kind, DISTORTIONS, what="distortion", argument="kind")
    k = check_positive_int(k, "k", minimum=2)
    n_labeled = check_positive_int(n_labeled, "n_labeled")
    n_unlabeled = check_positive_int(n_unlabeled, "n_unlabeled", minimum=0)
    defaults = {"none": 0.0, "label_noise": 0.12, "slope": 2.0, "intercept": 1.0, "shape": 3.0}
    amount = defaults[kind] if amount is None else float(amount)
    if kind == "label_noise" and not 0 <= amount < 0.5:
        raise InvalidParameterError(f"A label-noise 'amount' must be in [0, 0.5). Got {amount}.")
    if kind == "slope" and not amount > 0:
        raise InvalidParameterError(f"A slope 'amount' must be positive. Got {amount}.")
    distorted = sorted({int(i) for i in distorted})
    if any(not 0 <= i < k for i in distorted):
        raise InvalidParameterError(f"'distorted' must hold group positions in range({k}).")
    w = np.full(k, 1.0 / k) if weights is None else check_array(weights, "weights")
    if w.shape != (k,) or (w <= 0).any():
        raise InvalidParameterError(f"'weights' must be {k} positive numbers. Got {weights!r}.")
    if scores is None:
        scores = load_scores("adult-sex", "MLP")["score"].to_numpy()
    pool = check_array(scores, "scores")
    rng = check_random_state(random_seed)
    n = n_labeled + n_unlabeled
    s = rng.choice(pool, size=n, replace=True)
    g = rng.choice(k, size=n, p=w / w.sum())
    p = s.copy()
    reported = s.copy()
    hit = np.isin(g, distorted)
    reported[hit], p[hit] = distort_scores(s[hit], kind, amount)
    y = (rng.random(n) < p).astype(int)
    width = len(str(k - 1))
    frame = pd.DataFrame(
        {"score": reported, "label": y, "group": [f"g{i:0{width}d}" for i in g], "p": p}
    )
    return frame.iloc[:n_labeled].reset_index(drop=True), frame.iloc[n_labeled:].reset_index(
        drop=True
    )


def distort_scores(s, kind: str, amount: float):
    """The reported scores and true probabilities of rows whose undistorted score (and
    true probability) is ``s``, in a group distorted as :data:`DISTORTIONS` says.

    Parameters
    ----------
    s : array_like
        Undistorted scores in [0, 1]: the map the groups share is the identity.
    kind : {"none", "label_noise", "slope", "intercept", "shape"}
    amount : float
        The distortion's size (:func:`differential_calibration`'s ``amount``).

    Returns
    -------
    reported, p : numpy.ndarray
        The score the classifier reports and the row's true P(y = 1).

    Examples
    --------
    >>> reported, p = distort_scores(np.array([0.9]), "label_noise", 0.12)
    >>> float(reported[0]), round(float(p[0]), 3)
    (0.9, 0.804)
    """
    s = np.asarray(s, dtype=float)
    reported, p = s.copy(), s.copy()
    if kind == "label_noise":
        p = amount + (1.0 - 2.0 * amount) * s
    elif kind == "slope":
        reported = _logistic(amount * _logit(s))
    elif kind == "intercept":
        reported = _logistic(_logit(s) - amount)
    elif kind == "shape":
        reported = s**amount
    elif kind != "none":
        raise InvalidParameterError(f"Unknown distortion {kind!r}; one of {sorted(DISTORTIONS)}.")
    return reported, p


def simulated_assessment(labeled, unlabeled, reference="g1"):
    """The frames of :func:`differential_calibration` as an auditor assesses them: the
    labeled rows without their true probabilities, the unlabeled ones without their labels.

    Parameters
    ----------
    labeled, unlabeled : pandas.DataFrame
        Columns ``score``, ``label``, ``group`` and ``p``.
    reference : default "g1"

    Returns
    -------
    AssessmentData
    """
    return AssessmentData.from_frames(
        labeled.drop(columns="p"),
        unlabeled.drop(columns=["label", "p"]),
        score="score",
        label="label",
        group="group",
        reference=reference,
    )


def score_truth(frames, group, reference, metric: str = "tpr", thresholds=None) -> dict:
    """The truth of the score's views over every row (labeled and unlabeled) of a
    simulation whose unlabeled rows keep their labels.

    Parameters
    ----------
    frames : sequence of pandas.DataFrame
        The rows, with columns ``score``, ``label`` and ``group`` (e.g. the two frames of
        :func:`differential_calibration`).
    group, reference
        The pair.
    metric : str, default "tpr"
        The rate of the sweep.
    thresholds : array_like of float, optional
        Of the sweep (default :data:`~bayesfair.metrics.scores.DEFAULT_THRESHOLDS`).

    Returns
    -------
    dict
        ``auc`` (each group's, ties ½), ``auc_gap`` (group − reference), ``xauc``
        (``(group, reference)``: the group's positives over the reference's negatives,
        and ``(reference, group)``), ``thresholds``, ``gap`` (the rate's gap at each) and
        ``rate`` (each group's rate at each).
    """
    import pandas as pd

    rows = pd.concat(list(frames), ignore_index=True)
    t = check_thresholds(thresholds)
    levels = np.unique(rows["score"].to_numpy())  # every distinct score its own cell
    pos, neg, rate = {}, {}, {}
    for g in (group, reference):
        mine = rows[rows["group"] == g]
        cell = np.searchsorted(levels, mine["score"].to_numpy())
        y = mine["label"].to_numpy() == 1
        pos[g] = np.bincount(cell[y], minlength=levels.size).astype(float)
        neg[g] = np.bincount(cell[~y], minlength=levels.size).astype(float)
        cuts = np.searchsorted(levels, t, side="left")
        rate[g] = rate_from_counts(counts_above(pos[g], neg[g], cuts), metric)
    auc = {g: float(cell_auc(pos[g], neg[g])) for g in (group, reference)}
    return {
        "auc": auc,
        "auc_gap": auc[group] - auc[reference],
        "xauc": {
            (group, reference): float(cell_auc(pos[group], neg[reference])),
            (reference, group): float(cell_auc(pos[reference], neg[group])),
        },
        "thresholds": t,
        "gap": rate[group] - rate[reference],
        "rate": rate,
    }


#: Dirichlet concentrations of the places' and names' shares per group, by how much the
#: proxy tells (smaller: groups live in more separate places and carry more separate names).
PROXY_INFORMATIVENESS = {"high": 0.15, "medium": 0.5, "low": 2.0}
#: The groups of :func:`proxy_audit` for K = 2..5 (Adult's races, largest first) and K = 6.
PROXY_GROUPS = ("White", "Black", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other")


#: What a simulated audit knows that an auditor does not (``ProxyAudit.frames`` drops them).
HIDDEN_COLUMNS = ("true_group", "place", "name", "first_name", "zcta")


@dataclass(frozen=True)
class ProxyAudit:
    """A simulated audit whose groups are mostly known as a proxy's probabilities.

    Attributes
    ----------
    labeled, unlabeled : pandas.DataFrame
        Columns ``score``, ``label``, ``group`` (self-reported; NaN where not
        asked), ``true_group``, ``place``, ``name`` and one probability column per
        group (:attr:`group_probabilities`). The unlabeled rows keep their labels
        and true groups for the truth; drop them before assessing.
    group_probabilities : dict
        Group -> its probability column, as ``AssessmentData.from_frames`` takes it.
    """

    labeled: object
    unlabeled: object
    group_probabilities: dict

    def frames(self):
        """The frames as an auditor holds them: no true group, no unlabeled label."""
        hide = [c for c in self.labeled.columns if c in HIDDEN_COLUMNS]
        return (
            self.labeled.drop(columns=hide),
            self.unlabeled.drop(columns=[*hide, "label"]),
        )

    def assessment_data(self, reference=None):
        """The audit as an auditor assesses it: :meth:`frames` with the proxy's columns.

        Parameters
        ----------
        reference : optional
            Default: the first group of :attr:`group_probabilities` (the largest race).

        Returns
        -------
        AssessmentData
        """
        labeled, unlabeled = self.frames()
        return AssessmentData.from_frames(
            labeled,
            unlabeled,
            score="score",
            label="label",
            group="group",
            group_probabilities=self.group_probabilities,
            reference=next(iter(self.group_probabilities)) if reference is None else reference,
        )

    def truth(self, metric: str) -> dict:
        """Each group's rate over every row (labeled and unlabeled) by its true group."""
        import pandas as pd

        rows = pd.concat([self.labeled, self.unlabeled], ignore_index=True)
        out = {}
        for g in self.group_probabilities:
            mine = rows[rows["true_group"] == g]
            yhat = (mine["score"] >= 0.5).to_numpy()
            y = mine["label"].to_numpy() == 1
            counts = np.array(
                [(yhat & y).sum(), (yhat & ~y).sum(), (~yhat & ~y).sum(), (~yhat & y).sum()]
            )
            out[g] = float(rate_from_counts(counts, metric))
        return out


def proxy_audit(
    k: int = 2,
    n_labeled: int = 1000,
    n_unlabeled: int = 20_000,
    n_self_reported: int = 500,
    *,
    informativeness="medium",
    link: float = 0.0,
    n_places: int = 200,
    n_names: int = 100,
    random_seed=None,
) -> ProxyAudit:
    """Real scores, labels and groups, the groups known mostly through a BISG-style proxy.

    Each row is a real (score, label, race) triple of the MLP of Ji et al. (2020) on
    UCI Adult (10,054 rows, drawn with replacement, each group equally often), given a
    *place* and a *name* drawn from its group's shares (Dirichlet with the
    concentration of ``informativeness``, :data:`PROXY_INFORMATIVENESS`). The proxy is
    Bayesian Improved Surname Geocoding built from the population's tables,
    ``P(g | place, name) ∝ P(g) P(place | g) P(name | g)`` (Elliott et al. 2009): it
    is calibrated, as BISG is where its tables are true.

    **The link.** With ``link > 0`` the proxy carries outcome information within a
    group: a positive's place is drawn from the group's shares tilted by
    ``exp(link · v_place)`` (``v`` a standard normal per group and place), a
    negative's from the untilted shares. The census table ``P(place | g)`` is the
    mixture of the two at the group's positive rate, so the proxy stays calibrated
    but a row's probability now tells about its label within its group.

    The first ``n_self_reported`` labeled rows (all labeled rows and then unlabeled
    ones when larger) have their group self-reported: a simple random sample, since
    the rows are in random order.

    Parameters
    ----------
    k : int, default 2
        Groups: Adult's ``k`` largest races (K = 2..5; K = 6: White, Black and
        Asian-Pac-Islander by sex).
    n_labeled, n_unlabeled, n_self_reported : int
    informativeness : {"high", "medium", "low"} or float
        Or a Dirichlet concentration.
    link : float, default 0
        The within-group tilt of positives' places.
    n_places, n_names : int
    random_seed : None, int or Generator

    Returns
    -------
    ProxyAudit
    """

    k = check_positive_int(k, "k", minimum=2)
    if k > 6:
        raise InvalidParameterError(f"'k' must be at most 6. Got {k}.")
    n_labeled = check_positive_int(n_labeled, "n_labeled")
    n_unlabeled = check_positive_int(n_unlabeled, "n_unlabeled", minimum=0)
    n_self = check_positive_int(n_self_reported, "n_self_reported", minimum=0)
    concentration = (
        PROXY_INFORMATIVENESS[
            resolve_name(
                informativeness, PROXY_INFORMATIVENESS, what="level", argument="informativeness"
            )
        ]
        if isinstance(informativeness, str)
        else float(informativeness)
    )
    rng = check_random_state(random_seed)
    n = n_labeled + n_unlabeled
    names, g, score, label = real_rows(k, n, rng)
    place_share = rng.dirichlet(np.full(n_places, concentration), size=k)
    name_share = rng.dirichlet(np.full(n_names, concentration), size=k)
    tilt = place_share * np.exp(link * rng.standard_normal((k, n_places)))
    tilt /= tilt.sum(axis=1, keepdims=True)
    place = np.empty(n, dtype=int)
    for j in range(k):
        for y in (0, 1):
            mine = (g == j) & (label == y)
            share = tilt[j] if y == 1 else place_share[j]
            place[mine] = rng.choice(n_places, size=int(mine.sum()), p=share)
    name_of = np.empty(n, dtype=int)
    for j in range(k):
        name_of[g == j] = rng.choice(n_names, size=int((g == j).sum()), p=name_share[j])
    positive = np.array([label[g == j].mean() if (g == j).any() else 0.0 for j in range(k)])
    table = (1 - positive)[:, None] * place_share + positive[:, None] * tilt  # P(place | g)
    joint = table[:, place] * name_share[:, name_of] / k  # (k, n): P(g) P(place|g) P(name|g)
    proxy = (joint / joint.sum(axis=0)).T
    return audit_frames(
        names, g, score, label, proxy, {"place": place, "name": name_of}, n_labeled, n_self
    )


def real_rows(k: int, n: int, rng) -> tuple:
    """``n`` real (score, label, group) triples of Adult's MLP, each of ``k`` groups equally
    often (:func:`proxy_audit`'s groups).

    Parameters
    ----------
    k : int
        2..5: Adult's ``k`` largest races; 6: White, Black and Asian-Pac-Islander by sex.
    n : int
    rng : numpy.random.Generator

    Returns
    -------
    names : list of str
    g : ndarray of int
        Each row's group, a position in ``names``.
    score, label : ndarray
    """
    pool = load_scores("adult-race", "MLP")
    race = pool["race-sex"].str.rsplit("-", n=1).str[0]
    if k <= 5:
        names, key = list(PROXY_GROUPS[:k]), race
    else:
        names = [f"{r} {s}" for r in PROXY_GROUPS[:3] for s in ("Female", "Male")]
        key = race + " " + pool["sex"].astype(str)
    g = rng.integers(k, size=n)
    score, label = np.empty(n), np.empty(n, dtype=int)
    for j, name in enumerate(names):
        rows = pool[(key == name).to_numpy()]
        pick = rng.integers(len(rows), size=int((g == j).sum()))
        score[g == j] = rows["score"].to_numpy()[pick]
        label[g == j] = rows["label"].to_numpy()[pick]
    return names, g, score, label


def audit_frames(names, g, score, label, proxy, extra: dict, n_labeled: int, n_self: int):
    """The :class:`ProxyAudit` of simulated rows: the first ``n_self`` self-reported.

    Parameters
    ----------
    names : list of str
    g : ndarray of int
    score, label : ndarray
    proxy : ndarray, shape (n, len(names))
    extra : dict
        More columns (what the proxy was built from).
    n_labeled, n_self : int
    """
    import pandas as pd

    columns = {name: f"p_{j}" for j, name in enumerate(names)}
    frame = pd.DataFrame(
        {
            "score": score,
            "label": label,
            "true_group": np.asarray(names, dtype=object)[g],
            **extra,
        }
    )
    for j, name in enumerate(names):
        frame[columns[name]] = proxy[:, j]
    reported = frame["true_group"].astype(object).copy()
    reported.iloc[n_self:] = np.nan
    frame.insert(2, "group", reported)
    return ProxyAudit(
        labeled=frame.iloc[:n_labeled].reset_index(drop=True),
        unlabeled=frame.iloc[n_labeled:].reset_index(drop=True),
        group_probabilities=columns,
    )


#: The designs of :func:`two_group_rows`: what group B's classifier reports.
TWO_GROUP_SCENARIOS = {
    "squared": "s = p² (miscalibrated: a beta calibration can repair it)",
    "misfit": "s = |2p − 1| (no monotone map recovers p: P(y = 1 | s) = 1/2 at every s)",
}


def two_group_rows(n_rows: int, random_seed=None, *, scenario: str = "squared") -> tuple:
    """Rows of two groups, A calibrated and B not, with a known population.

    Each row falls in group A or B with equal chance, has a true probability ``p ~
    Beta(2, 2)`` and a label ``y ~ Bernoulli(p)``. Group A's classifier reports ``s =
    p``; group B's reports ``s = p²`` (``scenario="squared"``) or ``s = |2p − 1|``
    (``"misfit"``, :data:`TWO_GROUP_SCENARIOS`), which no beta calibration (nor any
    monotone map) turns back into ``p``.

    Parameters
    ----------
    n_rows : int
        Rows to draw.
    random_seed : None, int, SeedSequence or Generator, optional
        A ``Generator`` is used as it is (its stream advances).
    scenario : {"squared", "misfit"}, default "squared"
        Group B's scores.

    Returns
    -------
    scores, labels, groups : numpy.ndarray
        Shape ``(n_rows,)`` each; ``groups`` holds ``"A"`` and ``"B"``.

    Examples
    --------
    >>> s, y, g = two_group_rows(5, random_seed=0)
    >>> s.shape, sorted(set(g.tolist())) <= ["A", "B"]
    ((5,), True)
    """
    scenario = resolve_name(scenario, TWO_GROUP_SCENARIOS, what="scenario", argument="scenario")
    n_rows = check_positive_int(n_rows, "n_rows")
    rng = check_random_state(random_seed)
    g = rng.choice(np.array(["A", "B"]), n_rows)
    p = rng.beta(2.0, 2.0, n_rows)
    y = (rng.uniform(size=n_rows) < p).astype(int)
    s_b = p**2 if scenario == "squared" else np.abs(2.0 * p - 1.0)
    return np.where(g == "B", s_b, p), y, g


def two_group_truth(
    scenario: str = "squared",
    metrics=("accuracy", "tpr", "fpr"),
    *,
    n_rows: int = 4_000_000,
    random_seed=12345,
) -> dict:
    """The population gaps B − A of :func:`two_group_rows`' design, at ŷ = 1[s ≥ 0.5].

    Computed from ``n_rows`` draws: with the default 4 × 10⁶ the Monte Carlo error of
    each gap is below 5 × 10⁻⁴.

    Parameters
    ----------
    scenario : {"squared", "misfit"}, default "squared"
        Group B's scores (:data:`TWO_GROUP_SCENARIOS`).
    metrics : sequence of str, default ("accuracy", "tpr", "fpr")
        Rates whose gap to compute.
    n_rows : int, default 4,000,000
        Draws the population is estimated from.
    random_seed : int, default 12345
        Of those draws.

    Returns
    -------
    dict
        Metric -> the gap of group B's rate over group A's.
    """
    s, y, g = two_group_rows(n_rows, random_seed, scenario=scenario)
    counts = count_confusion(s >= 0.5, y, (g == "B").astype(int), 2)
    out = {}
    for metric in metrics:
        num, den = rate_fraction(counts, metric)
        out[metric] = float(num[1] / den[1] - num[0] / den[0])
    return out


@dataclass(frozen=True)
class ScoreDesign:
    """Per group, the population of :func:`lum_score_rows`: ``p ~ Beta(α, β)``,
    ``y ~ Bernoulli(p)``, the score ``s = p^γ``, and the labeled rows drawn.

    Attributes
    ----------
    alpha, beta, gamma : numpy.ndarray, shape (K,)
        Each group's α, β and γ.
    n_labeled : numpy.ndarray of int, shape (K,)
        Each group's labeled rows.
    """

    alpha: np.ndarray = field(repr=False)
    beta: np.ndarray = field(repr=False)
    gamma: np.ndarray = field(repr=False)
    n_labeled: np.ndarray = field(repr=False)


def lum_score_design(scenario: str, k: int = 8) -> ScoreDesign:
    """Lum, Zhang and Bower's (2022, §5.1) four scenarios with scores: K groups, each
    miscalibrated its own way where their performance differs.

    * unequal performance: ``(α_k, β_k)`` run from (1, 3) to (3, 1), so the groups'
      TPRs differ, and ``γ_k`` from 0.5 to 2 (geometric steps, in an order fixed by
      seed 1);
    * equal performance: ``(α_k, β_k) = (2, 2)`` and ``γ_k = 1`` in every group;
    * equal sizes: 100 labels per group; unequal sizes: 40 to 200 labels, the small
      groups being those with low base rates (as in Lum et al., where the small groups
      have the extreme rates).

    Parameters
    ----------
    scenario : str
        One of :data:`LUM_SCENARIOS`.
    k : int, default 8
        Number of groups (≥ 2).

    Returns
    -------
    ScoreDesign

    Examples
    --------
    >>> lum_score_design("unequal_size_equal_perf", k=3).n_labeled.tolist()
    [40, 120, 200]
    """
    canonical = resolve_name(scenario, LUM_SCENARIOS, what="scenario", argument="scenario")
    equal_size, equal_perf = LUM_SCENARIOS[canonical]
    k = check_positive_int(k, "k", minimum=2)
    if equal_perf:
        a = b = np.full(k, 2.0)
        gamma = np.ones(k)
    else:
        a, b = np.linspace(1.0, 3.0, k), np.linspace(3.0, 1.0, k)
        gamma = np.geomspace(0.5, 2.0, k)[np.random.default_rng(1).permutation(k)]
    n = np.full(k, 100) if equal_size else np.round(np.linspace(40, 200, k)).astype(int)
    return ScoreDesign(a, b, gamma, n)


def lum_score_rows(design: ScoreDesign, sizes, random_seed=None) -> tuple:
    """Rows of :func:`lum_score_design`'s groups, named ``"g0"``, ``"g1"``, ...

    Parameters
    ----------
    design : ScoreDesign
        The groups' populations.
    sizes : array_like of int, shape (K,)
        Rows per group (e.g. ``design.n_labeled``).
    random_seed : None, int, SeedSequence or Generator, optional
        A ``Generator`` is used as it is (its stream advances).

    Returns
    -------
    scores, labels, groups : numpy.ndarray
        One entry per row, the groups' rows in order.

    Examples
    --------
    >>> design = lum_score_design("equal_size_unequal_perf", k=2)
    >>> s, y, g = lum_score_rows(design, [2, 3], random_seed=0)
    >>> g.tolist()
    ['g0', 'g0', 'g1', 'g1', 'g1']
    """
    rng = check_random_state(random_seed)
    sizes = np.asarray(sizes, dtype=int)
    p = rng.beta(np.repeat(design.alpha, sizes), np.repeat(design.beta, sizes))
    y = (rng.uniform(size=p.size) < p).astype(int)
    s = p ** np.repeat(design.gamma, sizes)
    g = np.repeat(np.array([f"g{j}" for j in range(design.alpha.size)]), sizes)
    return s, y, g


def lum_score_tpr_variance(design: ScoreDesign, n_draws: int = 1_000_000, random_seed=99):
    """The between-group variance ``M_var(μ)`` (``ddof=1``) of the population TPRs at
    ŷ = 1[s ≥ 0.5] of :func:`lum_score_design`'s groups.

    Exactly 0 where every group has the same population; otherwise from ``n_draws``
    draws per group.

    Parameters
    ----------
    design : ScoreDesign
        The groups' populations.
    n_draws : int, default 1,000,000
        Draws per group.
    random_seed : int, default 99
        Of those draws.

    Returns
    -------
    float
    """
    same = [np.all(v == v[0]) for v in (design.alpha, design.beta, design.gamma)]
    if all(same):
        return 0.0
    rng = check_random_state(random_seed)
    tpr = []
    for a, b, gamma in zip(design.alpha, design.beta, design.gamma, strict=True):
        p = rng.beta(a, b, n_draws)
        y = rng.uniform(size=n_draws) < p
        tpr.append(((p**gamma >= 0.5) & y).sum() / y.sum())
    return float(np.var(tpr, ddof=1))


#: The labels and the unlabeled rows per group of :func:`unequal_group_sizes`, repeated
#: along the groups: group 0 has 5 labels and 500 unlabeled rows, group 1 none and 2,000.
UNEQUAL_LABELS = (5, 0, 20, 1, 40, 2, 10, 3)
UNEQUAL_UNLABELED = (500, 2000, 8000)


#: Shares of census-style categories (rounded US shares): sex, race and ethnicity (White,
#: Hispanic, Black, Asian, other), and age bands (six, or three) of the adult population.
CENSUS_SHARES = {
    "sex": (0.49, 0.51),
    "race": (0.60, 0.19, 0.12, 0.06, 0.03),
    "age6": (0.12, 0.18, 0.18, 0.17, 0.17, 0.18),
    "age3": (0.30, 0.35, 0.35),
}


def census_weights(k: int) -> np.ndarray:
    """The shares of census-style intersections, sex × race × age band: K = 60 (six age
    bands) or K = 30 (three), for :func:`differential_calibration`'s ``weights``.

    The groups' shares are the products of the categories' (:data:`CENSUS_SHARES`), so
    that, as in an intersectional audit (New York City's bias-audit rule asks for every
    sex × race category), a few groups are large and many small: with K = 60 the
    largest holds 5.5% of the rows, the median 1.0% and the smallest 0.18%.

    Parameters
    ----------
    k : {30, 60}

    Returns
    -------
    numpy.ndarray, shape (k,)
        Shares summing to 1, in the order sex, then race, then age band.

    Examples
    --------
    >>> w = census_weights(60)
    >>> w.shape, round(float(w.sum()), 12), round(float(w.max()), 4)
    ((60,), 1.0, 0.0551)
    """
    ages = {60: CENSUS_SHARES["age6"], 30: CENSUS_SHARES["age3"]}
    if k not in ages:
        raise InvalidParameterError(f"Census-style intersections have 30 or 60 groups. Got {k!r}.")
    w = np.einsum("i,j,k->ijk", CENSUS_SHARES["sex"], CENSUS_SHARES["race"], ages[k]).ravel()
    return w / w.sum()


def unequal_group_sizes(k: int) -> tuple[list[int], list[int]]:
    """Labeled and unlabeled rows per group of a many-group audit of unequal sizes
    (:data:`UNEQUAL_LABELS` and :data:`UNEQUAL_UNLABELED` repeated along K groups), for
    :func:`many_groups`.

    Parameters
    ----------
    k : int
        Number of groups.

    Returns
    -------
    n_labeled, n_unlabeled : list of int

    Examples
    --------
    >>> unequal_group_sizes(4)
    ([5, 0, 20, 1], [500, 2000, 8000, 500])
    """
    k = check_positive_int(k, "k")
    return (
        [UNEQUAL_LABELS[i % len(UNEQUAL_LABELS)] for i in range(k)],
        [UNEQUAL_UNLABELED[i % len(UNEQUAL_UNLABELED)] for i in range(k)],
    )


def rate_truth(frames, groups, metrics=("accuracy", "tpr"), threshold: float = 0.5) -> dict:
    """The realised rates of a simulated audit over every row (labeled and unlabeled),
    and each group's gap to all rows together.

    Parameters
    ----------
    frames : sequence of pandas.DataFrame
        The rows, with columns ``score``, ``label`` and ``group`` (e.g. the two frames
        of :func:`many_groups`, whose unlabeled rows keep their labels).
    groups : sequence of str
        The groups, in the order of the rates returned.
    metrics : sequence of str, default ("accuracy", "tpr")
        Rates to compute.
    threshold : float, default 0.5
        ŷ = 1[score ≥ threshold].

    Returns
    -------
    dict
        Metric -> ``{"rate": each group's rate, "gap": each rate less the rate of all
        rows}``, arrays in the order of ``groups``.
    """
    import pandas as pd

    rows = pd.concat(list(frames), ignore_index=True)
    groups = list(groups)
    if not set(rows["group"]) <= set(groups):
        raise InvalidParameterError("Every row's group must be one of 'groups'.")
    codes = pd.Categorical(rows["group"], categories=groups).codes
    counts = count_confusion(
        rows["score"].to_numpy() >= threshold, rows["label"].to_numpy(), codes, len(groups)
    )
    out = {}
    for metric in metrics:
        rate = rate_from_counts(counts, metric)
        overall = float(rate_from_counts(counts.sum(axis=0), metric))
        out[metric] = {"rate": rate, "gap": rate - overall}
    return out


def _logit(s):
    s = np.clip(s, 1e-12, 1.0 - 1e-12)
    return np.log(s) - np.log1p(-s)


def _logistic(x):
    return 0.5 * (1.0 + np.tanh(0.5 * x))
