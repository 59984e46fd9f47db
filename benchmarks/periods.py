"""Audits over time: coverage of the period gaps, the drift flag's power, and the cost.

Design (``bayesfair.datasets.simulate.drifting_periods``): in every group and period a row has
``p ~ Beta(2, 2)`` and ``y ~ Bernoulli(p)``; the scores are calibrated (``s = p``)
except in the drifting group from the drift period on, where ``s = σ(logit p − 2)``;
the prediction is ``s >= 0.5``. Two groups, A (the reference) and B.

(a) Coverage of the within-period gaps (accuracy and TPR, B − A, 95% intervals)
-------------------------------------------------------------------------------
* ``stable``: 12 periods, 100 labels per group in period 0 and none after, 2,000
  unlabeled rows per group and period, nothing drifts.
* ``drift``: 12 periods, group B drifts by 2 logits from period 6; 100 labels per
  group in period 0 and 20 in every later period, 2,000 unlabeled rows.

Truth of a period's gap: B's realised rate minus A's over all rows of the period
(labeled and unlabeled, true labels), the estimand of ``bf.fit`` (estimand
"assessed"). Methods:

* ``bayesfair``: ``bf.fit`` (defaults: rbc, 1,000 + 1,000 draws, 4 chains) of the data
  with a period column; ``period_summary`` gives the posterior mean and its 95% band,
  which is **simultaneous** over the metric's periods and groups
  (``bayesfair.stats.simultaneous_band``), so wider than a single gap's 95% HDI: a
  per-gap coverage above 0.95 is expected of it.
* ``cbpe`` (label "CBPE, scores taken as calibrated (oracle)"): confidence-based
  performance estimation with the scores **taken as calibrated** and no calibrator
  fitted, so each row's label is ``Bernoulli(s)`` and a rate's estimate is the ratio of
  its expected confusion counts over all rows of the period (labels unused, as in
  CBPE): accuracy ``mean(max(s, 1 − s))``, TPR ``Σ s·ŷ / Σ s``. The interval is a
  **normal approximation** of the realised gap under that same assumption (labels drawn
  independently as ``Bernoulli(s)``): accuracy variance ``Σ s(1 − s) / n²``, TPR by the
  delta method on the positives predicted positive and negative; the two groups'
  variances add. In ``stable`` the scores are calibrated by construction, so this is an
  **oracle**: it is handed the calibration map that the other methods must learn from
  100 labels per group. In ``drift`` it is a CBPE whose calibrator never moves.
* ``cbpe_fitted`` ("CBPE, calibrator fitted on the labels"): NannyML's own
  ``nml.CBPE`` (``problem_type="classification_binary"``, metrics ``accuracy`` and
  ``recall`` = TPR, prediction ``ŷ = s >= 0.5``), run **per group**. Reference: the
  group's labeled rows of period 0 (100 rows; in ``stable`` these are all the labels
  bayesfair sees; in ``drift`` the later periods' labels are not used, as in a
  deployed CBPE, which fits once on its reference set). Analysis: all of the group's
  rows of every period (labeled and unlabeled, labels not passed), one chunk per
  period (a ``Chunker`` on the period column). ``fit`` runs NannyML's calibration
  step unchanged: ``needs_calibration`` fits an isotonic calibrator
  (``IsotonicRegression(out_of_bounds="clip")``) on 10 stratified 90/10 splits of the
  reference and compares the expected calibration error (10 equal-count bins) of the
  held-out scores before and after; if calibration lowers it, the isotonic calibrator
  is fitted on the whole reference and applied to every analysis score, otherwise the
  raw scores are used (then the point estimates equal ``cbpe``'s). Whether it was
  applied is recorded per replicate and group (``cbpe_fitted_calibrated``). Gap: B's
  estimated rate minus A's. Interval: ``gap ± z·sqrt(se_A² + se_B²)``, ``z`` for 95%,
  with ``se`` NannyML's per-chunk ``sampling_error``: for accuracy
  ``std(1[ŷ = y] on the reference) / sqrt(n_chunk)``, for recall ``std(1[ŷ = y] among
  the reference positives) / sqrt(n_chunk · share of positives in the reference)``.
  That is the standard error of a chunk's realised metric around its expected value
  for rows drawn like the reference; it does not include the error of the calibrator
  fitted on 100 labels (nor the spread of a calibration that moved).
* ``ppi``: PPI++ (``bayesfair.frequentist.ppi_difference``, cross-fitted beta
  calibration) on the rows of the period alone, for periods with labels only (period
  0 of ``stable``; every period of ``drift``). Its target is the gap of the expected
  rates; the realised truth differs from it by the sampling error of 2,000 rows
  (about 0.01 on accuracy), small next to its intervals.

Figures per scenario, method and metric: coverage over all period gaps (share of
(replicate, period) gaps whose interval holds the truth) with its binomial standard
error ``sqrt(c (1 − c) / n)`` and, because the gaps of one replicate share a fit, a
cluster standard error (the spread of the replicates' own coverage / sqrt(R)); the
family coverage (share of replicates in which every gap's interval holds its truth at
once: what bayesfair's simultaneous band is for); the
same split before / from the drift period; median interval width; MAE of the
estimate; per-period coverage; and, for each other method, the paired difference of
its MAE from bayesfair's (each replicate's MAE over the periods both methods
estimate, method minus bayesfair, averaged over replicates, with the SE
``sd / sqrt(R)`` of the replicates' differences).

(b) Drift flag (``bayesfair.posterior.periods.drift_table``, no fit)
---------------------------------------------------------
* ``brief``: groups A and B, 7 periods (0–6), B drifts by 2 from period 6; labels: 100
  per group in period 0 and 50 in period 6, none between (a period without labels has
  no check, so periods 7–11 of a 12-period deployment would add nothing). Power = share
  of runs that flag B's period 6; false flags = share of flagged checks among the
  periods that did not move (here A's period 6 only: the one null check a run has).
* ``brief_more_null``: the same with eight more undrifted groups C–J, for 9 null checks
  per run (independent: each group's flag uses its own labels only), to measure the
  flag's level more closely.
* ``every_period``: the ``drift`` labels of (a) (100 in period 0, 20 in every later
  period), 12 periods: power at B's period 6 with 20 labels, false flags over A's
  periods 1–11 and B's 1–5 (these checks share earlier periods, so they are not
  independent), and the flags of B's later drifted periods 7–11.

The flag uses labeled rows only, so these runs have 100 unlabeled rows per period.

(c) Cost
--------
Median wall time of ``bf.fit`` (defaults, ``progressbar=False``) of one ``drift``
data set with its period column (12 periods × 2 groups: two fits over 12 periods)
and of the same labeled and unlabeled rows without it (one 2-group fit); one warm-up
of each, then ``--cost-repeats`` interleaved repeats. The load average is recorded,
since the machine may be shared.

Usage::

    python benchmarks/periods.py                            # 20 reps, 200 flag runs
    python benchmarks/periods.py --reps 2 --flag-runs 20 --cost-repeats 1 \
        --out /tmp/periods.json                             # smoke
"""

from __future__ import annotations

import os

os.environ.setdefault("NML_DISABLE_USAGE_LOGGING", "1")  # no telemetry from nannyml

import argparse
import gzip
import json
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import ndtri
from scipy.stats import beta as beta_dist

import bayesfair as bf
from bayesfair.datasets.simulate import drifting_periods
from bayesfair.exceptions import SamplingWarning
from bayesfair.frequentist import ppi_difference
from bayesfair.metrics.rates import rate_from_counts
from bayesfair.posterior.periods import drift_table

ROOT = Path(__file__).resolve().parents[1]
METRICS = ("accuracy", "tpr")
CI_PROB, EPSILON = 0.95, 0.02
GROUPS = ("A", "B")
SHIFT = 2.0
N_PERIODS, DRIFT_FROM = 12, 6
N_UNLABELED = 2_000
NML_METRICS = {"accuracy": "accuracy", "tpr": "recall"}  # ours -> nml.CBPE's
METHODS = ("bayesfair", "cbpe", "cbpe_fitted", "ppi")
LABELS = {
    "bayesfair": "bayesfair",
    "cbpe": "CBPE, scores taken as calibrated (oracle)",
    "cbpe_fitted": "CBPE (nml.CBPE), calibrator fitted on period 0's labels",
    "ppi": "PPI++",
}


def _write(path: Path, text: str) -> None:
    """``text`` to ``path``, gzip-compressed where the name ends in ``.gz`` (with no
    timestamp, so that the same figures give the same bytes)."""
    if path.suffix == ".gz":
        path.write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))
    else:
        path.write_text(text, encoding="utf-8")


def scenarios() -> dict[str, dict]:
    """The coverage scenarios of (a): ``drifting_periods`` arguments."""
    return {
        "stable": dict(
            n_periods=N_PERIODS,
            n_labeled=[100] + [0] * (N_PERIODS - 1),
            n_unlabeled=N_UNLABELED,
            drift_group=None,
            drift_from=None,
        ),
        "drift": dict(
            n_periods=N_PERIODS,
            n_labeled=[100] + [20] * (N_PERIODS - 1),
            n_unlabeled=N_UNLABELED,
            drift_group="B",
            drift_from=DRIFT_FROM,
        ),
    }


def flag_designs() -> dict[str, dict]:
    """The drift-flag designs of (b): ``drifting_periods`` arguments."""
    brief_labels = [100, 0, 0, 0, 0, 0, 50]
    return {
        "brief": dict(n_periods=7, n_labeled=brief_labels, groups=GROUPS),
        "brief_more_null": dict(n_periods=7, n_labeled=brief_labels, groups=tuple("ABCDEFGHIJ")),
        "every_period": dict(
            n_periods=N_PERIODS, n_labeled=[100] + [20] * (N_PERIODS - 1), groups=GROUPS
        ),
    }


# ---------------------------------------------------------------------------
# Data and truths
# ---------------------------------------------------------------------------
def simulate(seed, **design) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Labeled and unlabeled rows of one deployment (drift by ``SHIFT``)."""
    return drifting_periods(shift=SHIFT, random_seed=seed, **design)


def assessment_data(lab: pd.DataFrame, unl: pd.DataFrame, period: bool = True):
    """The data of an audit: with the period column, or the same rows without it."""
    drop = ["label", "p"] if period else ["label", "p", "period"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # periods without labels are announced
        return bf.AssessmentData.from_frames(
            lab if period else lab.drop(columns="period"),
            unl.drop(columns=drop),
            score="score",
            label="label",
            group="group",
            period="period" if period else None,
        )


def confusion_counts(pred, y) -> np.ndarray:
    """(tp, fp, tn, fn) of boolean predictions against 0/1 (or expected) labels."""
    return np.array(
        [np.sum(y * pred), np.sum((1 - y) * pred), np.sum((1 - y) * ~pred), np.sum(y * ~pred)]
    )


def period_truth(lab: pd.DataFrame, unl: pd.DataFrame, n_periods: int) -> dict:
    """Realised rates of A and B in each period over all its rows, and the gaps B − A."""
    both = pd.concat([lab, unl], ignore_index=True)
    counts = np.zeros((n_periods, len(GROUPS), 4))
    for (t, g), rows in both.groupby(["period", "group"]):
        pred = rows["score"].to_numpy() >= 0.5
        counts[int(t), GROUPS.index(g)] = confusion_counts(pred, rows["label"].to_numpy())
    out = {}
    for m in METRICS:
        rate = rate_from_counts(counts, m)  # (periods, groups)
        out[m] = {"rate": rate, "gap": rate[:, 1] - rate[:, 0]}
    return out


# ---------------------------------------------------------------------------
# Methods
# ---------------------------------------------------------------------------
def cbpe_rate(scores: np.ndarray, metric: str) -> tuple[float, float]:
    """CBPE estimate of a group's rate from calibrated scores, and its variance.

    The variance is that of the realised rate when each label is an independent
    ``Bernoulli(s)`` (normal approximation; delta method for TPR).
    """
    pred = scores >= 0.5
    est = float(rate_from_counts(confusion_counts(pred, scores), metric))
    v = scores * (1.0 - scores)
    if metric == "accuracy":
        return est, float(v.sum() / scores.size**2)
    if metric == "tpr":
        a, b = scores[pred].sum(), scores[~pred].sum()  # expected TP and FN
        va, vb = v[pred].sum(), v[~pred].sum()
        return est, float((b**2 * va + a**2 * vb) / (a + b) ** 4)
    raise ValueError(metric)


def cbpe_gaps(lab: pd.DataFrame, unl: pd.DataFrame, n_periods: int) -> dict:
    """CBPE gap B − A of each period over all its rows: estimate, lower, upper."""
    both = pd.concat([lab, unl], ignore_index=True)
    z = ndtri(0.5 + CI_PROB / 2.0)
    out = {m: {"est": np.full(n_periods, np.nan)} for m in METRICS}
    for m in METRICS:
        lo, hi = np.full(n_periods, np.nan), np.full(n_periods, np.nan)
        for t in range(n_periods):
            rows = both[both["period"] == t]
            (ra, va), (rb, vb) = (
                cbpe_rate(rows.loc[rows["group"] == g, "score"].to_numpy(), m) for g in GROUPS
            )
            gap, se = rb - ra, np.sqrt(va + vb)
            out[m]["est"][t], lo[t], hi[t] = gap, gap - z * se, gap + z * se
        out[m].update(lower=lo, upper=hi)
    return out


def period_chunker():
    """A NannyML ``Chunker`` whose chunks are the values of the ``period`` column."""
    from nannyml.chunk import Chunk, Chunker

    class PeriodColumnChunker(Chunker):
        def _split(self, data: pd.DataFrame):
            return [
                Chunk(key=f"period={int(t)}", data=rows)
                for t, rows in data.groupby("period", sort=True)
            ]

    return PeriodColumnChunker()


def cbpe_fitted_gaps(lab: pd.DataFrame, unl: pd.DataFrame, n_periods: int) -> tuple[dict, dict]:
    """NannyML's CBPE per group, fitted on period 0's labeled rows (module docstring).

    Returns the gap B − A of each period (estimate, lower, upper: ± z·sqrt(se_A² +
    se_B²) with NannyML's ``sampling_error``) and whether NannyML's calibration step
    was applied (``needs_calibration``) in each group.
    """
    import nannyml as nml

    cols = ["score", "y_pred", "period"]
    both = pd.concat([lab, unl], ignore_index=True).assign(
        y_pred=lambda d: (d["score"] >= 0.5).astype(int)
    )
    reference = lab[lab["period"] == 0].assign(y_pred=lambda d: (d["score"] >= 0.5).astype(int))
    rate, se, calibrated = {}, {}, {}
    for g in GROUPS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "too few chunks": the reference is one chunk
            cbpe = nml.CBPE(
                y_pred_proba="score",
                y_pred="y_pred",
                y_true="label",
                metrics=list(NML_METRICS.values()),
                chunker=period_chunker(),
                problem_type="classification_binary",
            )
            cbpe.fit(reference.loc[reference["group"] == g, [*cols, "label"]])
            res = cbpe.estimate(both.loc[both["group"] == g, cols])  # labels not passed
            res = res.filter(period="analysis").to_df()
        keys = res[("chunk", "key")].tolist()
        if keys != [f"period={t}" for t in range(n_periods)]:
            raise RuntimeError(f"unexpected chunks {keys}")
        calibrated[g] = bool(cbpe.needs_calibration)
        for m, name in NML_METRICS.items():
            rate[g, m] = res[name]["value"].to_numpy(float)
            se[g, m] = res[name]["sampling_error"].to_numpy(float)
    z = ndtri(0.5 + CI_PROB / 2.0)
    out = {}
    for m in METRICS:
        gap = rate["B", m] - rate["A", m]
        half = z * np.sqrt(se["A", m] ** 2 + se["B", m] ** 2)
        out[m] = {"est": gap, "lower": gap - half, "upper": gap + half}
    return out, calibrated


def ppi_gaps(lab: pd.DataFrame, unl: pd.DataFrame, n_periods: int, seed: int) -> dict:
    """PPI++ gap B − A of each period with labels in both groups (NaN elsewhere)."""
    out = {m: {k: np.full(n_periods, np.nan) for k in ("est", "lower", "upper")} for m in METRICS}
    n_warnings = 0
    for t in range(n_periods):
        lab_t, unl_t = lab[lab["period"] == t], unl[unl["period"] == t]
        if any((lab_t["group"] == g).sum() == 0 for g in GROUPS):
            continue
        data = assessment_data(lab_t, unl_t, period=False)
        for m in METRICS:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                r = ppi_difference(
                    data, m, group="B", reference="A", ci_prob=CI_PROB, random_seed=seed + t
                )
            n_warnings += len(caught)
            out[m]["est"][t] = r.estimate
            out[m]["lower"][t], out[m]["upper"][t] = r.interval[0], r.interval[1]
    out["n_warnings"] = n_warnings
    return out


def fit_gaps(data, seed: int, **fit_options) -> tuple[dict, dict]:
    """``bf.fit`` of data with periods: B − A of each period (mean, band), and fit facts."""
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = bf.fit_periods(data, random_seed=seed, progressbar=False, **fit_options)
        table = res.period_summary(list(METRICS), EPSILON, CI_PROB)
    seconds = time.perf_counter() - start
    if res.reference != "A":
        raise RuntimeError(f"expected reference 'A', got {res.reference!r}")
    out = {}
    for m in METRICS:
        t = table[(table["metric"] == m) & (table["group"] == "B")].sort_values("period")
        out[m] = {
            "est": t["mean"].to_numpy(),
            "lower": t["lower"].to_numpy(),
            "upper": t["upper"].to_numpy(),
        }
    facts = {
        "fit_seconds": seconds,
        "sampling_warnings": sum(issubclass(w.category, SamplingWarning) for w in caught),
        "drift_flags": res.drift[["group", "period", "drift"]]
        .query("drift")
        .apply(lambda r: f"{r['group']}{r['period']}", axis=1)
        .tolist(),
    }
    return out, facts


def interval_record(truth: np.ndarray, est: dict) -> dict:
    """Per period: truth, estimate and interval (lists, for JSON)."""
    return {
        "truth": truth.tolist(),
        "est": est["est"].tolist(),
        "lower": est["lower"].tolist(),
        "upper": est["upper"].tolist(),
    }


def one_rep(design: dict, seed: int, fit_options: dict) -> dict:
    """One replicate of a coverage scenario: every method's period gaps and the truth."""
    lab, unl = simulate(seed, **design)
    n = design["n_periods"]
    truth = period_truth(lab, unl, n)
    bayes, facts = fit_gaps(assessment_data(lab, unl), seed, **fit_options)
    cbpe = cbpe_gaps(lab, unl, n)
    cbpe_fitted, calibrated = cbpe_fitted_gaps(lab, unl, n)
    ppi = ppi_gaps(lab, unl, n, seed)
    rec = {
        "seed": seed,
        **facts,
        "ppi_warnings": ppi.pop("n_warnings"),
        "cbpe_fitted_calibrated": calibrated,
    }
    methods = {"bayesfair": bayes, "cbpe": cbpe, "cbpe_fitted": cbpe_fitted, "ppi": ppi}
    for name in METHODS:
        rec[name] = {m: interval_record(truth[m]["gap"], methods[name][m]) for m in METRICS}
    return rec


# ---------------------------------------------------------------------------
# Summaries
# ---------------------------------------------------------------------------
def proportion(hits, n: int | None = None) -> dict:
    """Share of True with its binomial SE and two-sided 95% Clopper–Pearson interval."""
    hits = np.asarray(hits, dtype=bool)
    n = hits.size if n is None else n
    k = int(hits.sum())
    p = k / n if n else np.nan
    return {
        "k": k,
        "n": n,
        "share": p,
        "se": float(np.sqrt(p * (1 - p) / n)) if n else np.nan,
        "cp95": [
            float(beta_dist.ppf(0.025, k, n - k + 1)) if k > 0 else 0.0,
            float(beta_dist.ppf(0.975, k + 1, n - k)) if k < n else 1.0,
        ],
    }


def coverage_summary(records: list[dict], periods: np.ndarray | None = None) -> dict:
    """Coverage, widths and MAE over the replicates' periods (``periods``: a subset)."""
    truth = np.array([r["truth"] for r in records], dtype=float)
    est = np.array([r["est"] for r in records], dtype=float)
    lo = np.array([r["lower"] for r in records], dtype=float)
    hi = np.array([r["upper"] for r in records], dtype=float)
    if periods is not None:
        truth, est, lo, hi = (a[:, periods] for a in (truth, est, lo, hi))
    has = ~np.isnan(lo) & ~np.isnan(hi)
    if not has.any():
        return {"n_gaps": 0}
    covered = (lo <= truth) & (truth <= hi)
    out = proportion(covered[has])
    # cluster SE: replicates are independent, their periods share a fit
    per_rep = [covered[i][has[i]].mean() for i in range(len(records)) if has[i].any()]
    out["cluster_se"] = (
        float(np.std(per_rep, ddof=1) / np.sqrt(len(per_rep))) if len(per_rep) > 1 else np.nan
    )
    out["n_gaps"] = int(has.sum())
    # family: the replicates in which every gap with an interval is covered at once
    whole = [bool(covered[i][has[i]].all()) for i in range(len(records)) if has[i].any()]
    out["family"] = proportion(np.array(whole))
    out["median_width"] = float(np.median((hi - lo)[has]))
    out["mae"] = float(np.mean(np.abs(est - truth)[has]))
    out["mean_bias"] = float(np.mean((est - truth)[has]))
    out["per_period"] = [
        float(covered[:, t][has[:, t]].mean()) if has[:, t].any() else None
        for t in range(covered.shape[1])
    ]
    return out


def paired_mae_difference(
    records: list[dict], base: list[dict], periods: np.ndarray | None = None
) -> dict:
    """Mean over replicates of (MAE of ``records`` − MAE of ``base``), and its SE.

    Each replicate's MAE is over the periods (of ``periods``) that both estimate.
    """
    diffs = []
    for r, b in zip(records, base, strict=True):
        truth = np.asarray(r["truth"], float)
        e1, e0 = np.asarray(r["est"], float), np.asarray(b["est"], float)
        has = ~np.isnan(e1) & ~np.isnan(e0)
        if periods is not None:
            has &= np.isin(np.arange(truth.size), periods)
        if has.any():
            diffs.append(np.mean(np.abs(e1 - truth)[has]) - np.mean(np.abs(e0 - truth)[has]))
    if not diffs:
        return {"reps": 0}
    return {
        "reps": len(diffs),
        "mean": float(np.mean(diffs)),
        "se": float(np.std(diffs, ddof=1) / np.sqrt(len(diffs))) if len(diffs) > 1 else np.nan,
    }


def summarise_scenario(runs: list[dict], design: dict) -> dict:
    out = {
        "fit_seconds_median": float(np.median([r["fit_seconds"] for r in runs])),
        "reps_with_sampling_warning": sum(r["sampling_warnings"] > 0 for r in runs),
        # reps in which nml.CBPE's needs_calibration applied the isotonic calibrator
        "cbpe_fitted_calibrated": {
            g: sum(bool(r["cbpe_fitted_calibrated"][g]) for r in runs) for g in GROUPS
        },
    }
    n = design["n_periods"]
    split = design["drift_from"]
    parts = {"all": None}
    if split is not None:
        parts.update(before_drift=np.arange(split), from_drift=np.arange(split, n))
    for method in METHODS:
        out[method] = {}
        for m in METRICS:
            recs = [r[method][m] for r in runs]
            s = {"all": coverage_summary(recs)}
            if split is not None:
                s["before_drift"] = coverage_summary(recs, np.arange(split))
                s["from_drift"] = coverage_summary(recs, np.arange(split, n))
            out[method][m] = s
            if method != "bayesfair":
                base = [r["bayesfair"][m] for r in runs]
                s["paired_mae_minus_bayesfair"] = {
                    part: paired_mae_difference(recs, base, periods)
                    for part, periods in parts.items()
                }
    return out


def flag_runs(design: dict, runs: int, seed: int) -> dict:
    """The drift flags of ``runs`` simulated deployments (B drifts from period 6)."""
    groups = design["groups"]
    n_lab = np.asarray(design["n_labeled"])
    power, null, later = [], [], []
    for r in range(runs):
        lab, unl = drifting_periods(
            design["n_periods"],
            design["n_labeled"],
            100,
            groups=groups,
            drift_group="B",
            drift_from=DRIFT_FROM,
            shift=SHIFT,
            random_seed=seed + r,
        )
        data = assessment_data(lab, unl)
        for g in groups:
            tab = drift_table(data, g)
            checked = tab[tab["drift_p"].notna()]
            for _, row in checked.iterrows():
                t, flag = int(row["period"]), bool(row["drift"])
                if g == "B" and t == DRIFT_FROM:
                    power.append(flag)
                elif g == "B" and t > DRIFT_FROM:
                    later.append(flag)
                else:
                    null.append(flag)
    return {
        "labels": n_lab.tolist(),
        "groups": list(groups),
        "runs": runs,
        "power": proportion(power),
        "false_flags": proportion(null),
        "null_checks_per_run": len(null) / runs,
        "later_drifted_flagged": proportion(later) if later else None,
    }


def cost(seed: int, repeats: int) -> dict:
    """Wall time of ``bf.fit`` with and without the period column (module docstring)."""
    lab, unl = simulate(seed, **scenarios()["drift"])
    datas = {"periods": assessment_data(lab, unl), "no_periods": assessment_data(lab, unl, False)}
    times = {k: [] for k in datas}
    load = [os.getloadavg()[0]]

    def one(kind):
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            bf.fit_periods(datas[kind], random_seed=seed, progressbar=False)
        return time.perf_counter() - start

    warm = {k: one(k) for k in datas}
    for _ in range(repeats):
        for k in datas:
            times[k].append(one(k))
    load.append(os.getloadavg()[0])
    med = {k: float(np.median(v)) for k, v in times.items()}
    return {
        "warm_up_seconds": warm,
        "seconds": times,
        "median_seconds": med,
        "ratio": med["periods"] / med["no_periods"],
        "load_average_1min_before_after": load,
        "cpu_count": os.cpu_count(),
    }


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------
def _cov(s: dict) -> str:
    return f"{s['share']:.3f}±{s['se']:.3f} (cl {s['cluster_se']:.3f}, n={s['n_gaps']})"


def table(result: dict) -> str:
    lines = []
    for name, sc in result.get("coverage", {}).items():
        s = sc["summary"]
        lines.append(
            f"\n{name}: {sc['reps']} reps, fit {s['fit_seconds_median']:.1f} s (median), "
            f"{s['reps_with_sampling_warning']} reps with a sampling warning"
        )
        if "cbpe_fitted_calibrated" in s:
            cal = ", ".join(f"{g} {k}/{sc['reps']}" for g, k in s["cbpe_fitted_calibrated"].items())
            lines.append(f"cbpe_fitted: NannyML's calibration applied in {cal} reps")
        head = (
            f"{'metric':<9}{'method':<13}{'part':<13}{'coverage ± se':>38} {'family':>7} "
            f"{'width':>7} {'MAE':>7} {'MAE − bayesfair ± se':>21}"
        )
        lines += [head, "-" * len(head)]
        for m in METRICS:
            for method in METHODS:
                if method not in s:
                    continue  # results written before the method was added
                paired = s[method][m].get("paired_mae_minus_bayesfair", {})
                for part, x in s[method][m].items():
                    if part == "paired_mae_minus_bayesfair" or not x.get("n_gaps"):
                        continue
                    d = paired.get(part, {})
                    diff = f"{d['mean']:+.4f}±{d['se']:.4f}" if d.get("reps") else ""
                    family = x["family"]["share"] if "family" in x else np.nan
                    lines.append(
                        f"{m:<9}{method:<13}{part:<13}{_cov(x):>38} {family:>7.3f} "
                        f"{x['median_width']:>7.3f} {x['mae']:>7.4f} {diff:>21}"
                    )
        lines.append("methods: " + "; ".join(f"{k} = {v}" for k, v in LABELS.items()))
    if "flags" in result:
        lines.append("\ndrift flag")
        for name, f in result["flags"].items():
            p, n = f["power"], f["false_flags"]
            later = f["later_drifted_flagged"]
            lines.append(
                f"{name:<16} runs {f['runs']}: power {p['share']:.3f}±{p['se']:.3f}, "
                f"false flags {n['share']:.3f}±{n['se']:.3f} ({n['k']}/{n['n']})"
                + (f", later drifted flagged {later['share']:.3f}" if later else "")
            )
    if "cost" in result:
        c = result["cost"]
        lines.append(
            f"\ncost: periods {c['median_seconds']['periods']:.1f} s, no periods "
            f"{c['median_seconds']['no_periods']:.1f} s, ratio {c['ratio']:.2f} "
            f"(load {c['load_average_1min_before_after']})"
        )
    return "\n".join(lines)


def _nannyml_version() -> str:
    import nannyml as nml

    return nml.__version__


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=20, help="replicates per coverage scenario")
    ap.add_argument("--scenarios", nargs="*", default=list(scenarios()), help="of (a)")
    ap.add_argument("--flag-runs", type=int, default=200, help="runs per flag design (b)")
    ap.add_argument("--cost-repeats", type=int, default=3, help="0: skip the cost (c)")
    ap.add_argument("--seed", type=int, default=20_260_000)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "periods.json.gz"))
    args = ap.parse_args(argv)
    out_path = Path(args.out)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    result = {
        "meta": {
            "metrics": METRICS,
            "ci_prob": CI_PROB,
            "shift": SHIFT,
            "drift_from": DRIFT_FROM,
            "seed": args.seed,
            "bayesfair": bf.__version__,
            "fit": "defaults (rbc, draws=1000, tune=1000, chains=4)",
            "cbpe_interval": "normal approximation, labels ~ Bernoulli(score)",
            "cbpe_fitted": (
                "nml.CBPE per group, reference = period 0's labeled rows, NannyML's "
                "isotonic calibration when needs_calibration; interval gap ± z·sqrt(se_A² "
                "+ se_B²) with NannyML's sampling_error"
            ),
            "nannyml": _nannyml_version(),
            "methods": LABELS,
            "cpu_count": os.cpu_count(),
        }
    }
    wall = time.perf_counter()

    def save():
        result["meta"]["wall_seconds"] = time.perf_counter() - wall
        _write(out_path, json.dumps(result, indent=1, default=float))

    all_scenarios = scenarios()
    result["coverage"] = {}
    for si, name in enumerate(args.scenarios):
        design = all_scenarios[name]
        start = time.perf_counter()
        runs = []
        for r in range(args.reps):
            runs.append(one_rep(design, args.seed + 1000 * si + r, {}))
            print(f"{name} rep {r}: fit {runs[-1]['fit_seconds']:.1f} s", flush=True)
        result["coverage"][name] = {
            "design": design,
            "reps": args.reps,
            "seconds": time.perf_counter() - start,
            "summary": summarise_scenario(runs, design),
            "runs": runs,
        }
        save()
    if args.flag_runs:
        result["flags"] = {
            name: flag_runs(design, args.flag_runs, args.seed + 100_000 * (i + 1))
            for i, (name, design) in enumerate(flag_designs().items())
        }
        save()
    if args.cost_repeats:
        result["cost"] = cost(args.seed + 999, args.cost_repeats)
        save()
    print(table(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
