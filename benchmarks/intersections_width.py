"""Intersectional groups on real data: joint coverage and width of the group-gap band.

Data
----
``bf.datasets.load_scores("adult_race")`` (10,054 test rows, MLP scores). Its index
``row`` is the row number in Friedler et al.'s *preprocessed* Adult frame, which is
``bf.datasets.load_raw("adult")`` with the rows that have a missing value (``?``)
dropped and renumbered (32,561 -> 30,162 rows). The join is checked: race, sex and the
label agree on every joined row (the naive join on the raw file's own row labels
agrees on ~75% / 57% / 62% only, i.e. it is wrong). ``age`` comes from that frame.

Groups: race x sex x age band ([17,25), [25,35), [35,45), [45,55), [55,65), 65+),
every combination that occurs (56 of 60), named e.g. ``"White & Male & 25-34"``.

Replicate r: a numpy Generator seeded r picks 1,000 labeled rows, the rest are
unlabeled (label dropped). Estimand (all methods): the realised rates on *all* rows;
``gap_k`` = rate on group k's rows minus the rate on all rows; prediction
``score >= 0.5``; TPR over label-1 rows. A group with no positive row in the file
has no TPR: its truth is undefined and it is left out of the TPR coverage (the
count is reported, ``n_truth_undefined``).

Methods (the band is always over all 56 groups, at joint level 0.95)
-------------------------------------------------------------------
* ``t_today``    (t): the previous misfit prior
  (``DiscrepancyPrior(scale_with_groups=False)``) with the textbook sup-t band from
  the same draws: G = gap draws (S x K; group rates ``res.rates(metric)`` stacked
  over chain and draw, minus ``bayesfair.posterior.groups.overall_rate(res, metric)[0]``);
  per column mean m_k and sd s_k (ddof=1) over the defined draws;
  t_s = max_k |G_sk - m_k| / s_k over the defined cells of draw s;
  c = 0.95 quantile of t; band m_k +- c s_k clipped to [-1, 1]. What today's draws
  gave before this release.
* ``rbc_fixed``  (a): the same fit (same draws) with the new band:
  ``res.group_summary(["accuracy", "tpr"], ci_prob=0.95)`` ``gap_lower/gap_upper``.
* ``rbc_scaled`` (b): ``bf.fit(..., discrepancy=DiscrepancyPrior())`` (the new
  default), ``group_summary`` band.
* ``bc``         (c): ``bf.fit(..., model="bc")``, ``group_summary`` band.
* ``freq``       (d): ``bf.frequentist.group_intervals`` (labeled rows only; its own
  target is the labeled-weighted gap of expected rates, but the truth used here, as
  for every method, is the realised all-rows gap). A group with no labeled row in
  the rate's denominator gets a NaN band from it: such groups are counted
  (``n_band_nan``) and left out of that rep's coverage and width.
* ``oracle``     (e): known calibration. Per group a beta-calibration map
  ``logit P(y=1) = a + b ln s + c (-ln(1 - s))`` (s clipped to [0.01, 0.99]) fitted on
  *all* rows of the group. Unpenalised MLE (statsmodels Logit) when the group has
  >= 30 rows and >= 5 of each label and the fit converges with |coef| < 30; otherwise
  a MAP fit with a weak ridge towards the pooled map (prior N(pooled coef, 1) on each
  of the three coefficients; the pooled map is the MLE on all 10,054 rows). 4,000
  draws: labeled rows keep their labels, every unlabeled row's label is an independent
  Bernoulli(f_g(s)) per draw (drawn row by row, no binning); the band is
  ``bf.stats.simultaneous_band`` of the (group - overall) draws (NaN cells count as
  inside), clipped to [-1, 1] as ``group_summary`` does.

Views (both read off the *same* all-groups band; no band is recomputed on a subset)
-----------------------------------------------------------------------------------
* ``all``: every group with a defined truth (and a non-NaN band).
* ``ge20``: the groups with >= 20 rows (labeled + unlabeled) among those.

Per method, metric and view: joint coverage (every evaluated group inside its band;
binomial MC SE and a Clopper-Pearson 95% interval), median width (median over reps of
each rep's median over the evaluated groups), the groups outside and how often,
fit time. Ratios (b)/(t) and (b)/(a) of the median widths.

Usage::

    python benchmarks/intersections_width.py --reps 12 \
        --out benchmarks/results/intersections_width.json.gz
    python benchmarks/intersections_width.py --reps 1 --out /tmp/iw.json   # smoke
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.optimize import minimize
from scipy.stats import beta as beta_dist

import bayesfair as bf
from bayesfair.frequentist import group_intervals
from bayesfair.models.calibration import DiscrepancyPrior
from bayesfair.posterior.groups import overall_rate
from bayesfair.stats import simultaneous_band

ROOT = Path(__file__).resolve().parents[1]
METRICS = ("accuracy", "tpr")
FIT_METRICS = ["accuracy", "tpr", "fpr", "base_rate", "selection_rate"]
CI_PROB = 0.95
N_LABELED = 1000
MIN_ROWS_BIG = 20
ORACLE_DRAWS = 4000
AGE_EDGES = [17, 25, 35, 45, 55, 65, 200]
AGE_LABELS = ["17-24", "25-34", "35-44", "45-54", "55-64", "65+"]
METHODS = ("t_today", "rbc_fixed", "rbc_scaled", "bc", "freq", "oracle")
LETTER = {
    "t_today": "(t)",
    "rbc_fixed": "(a)",
    "rbc_scaled": "(b)",
    "bc": "(c)",
    "freq": "(d)",
    "oracle": "(e)",
}
VIEWS = ("all", "ge20")


# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------


def _write(path: Path, text: str) -> None:
    """``text`` to ``path``, gzip-compressed where the name ends in ``.gz`` (with no
    timestamp, so that the same figures give the same bytes)."""
    if path.suffix == ".gz":
        path.write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))
    else:
        path.write_text(text, encoding="utf-8")


def load_frame() -> tuple[pd.DataFrame, dict]:
    """Scores joined to age by the preprocessed row number; the group column."""
    s = bf.datasets.load_scores("adult_race")
    raw = bf.datasets.load_raw("adult")
    assert "age" in raw.columns, "the raw Adult frame has no 'age' column"
    pre = raw.dropna().reset_index(drop=True)  # Friedler et al.'s preprocessing
    j = s.join(pre[["age", "race", "sex", "income-per-year"]].add_prefix("raw_"), how="left")
    naive = s.join(raw[["race", "sex"]].add_prefix("raw_"), how="left")
    check = {
        "n_rows": len(s),
        "raw_rows": len(raw),
        "preprocessed_rows": len(pre),
        "max_row": int(s.index.max()),
        "missing_after_join": int(j[["raw_age", "raw_race", "raw_sex"]].isna().sum().sum()),
        "race_agree": float((j["raw_race"] == j["raw_group"]).mean()),
        "sex_agree": float((j["raw_sex"] == j["sex"]).mean()),
        "label_agree": float(
            ((j["raw_income-per-year"] == ">50K").astype(int) == j["label"]).mean()
        ),
        "naive_join_race_agree": float((naive["raw_race"] == naive["raw_group"]).mean()),
        "naive_join_sex_agree": float((naive["raw_sex"] == naive["sex"]).mean()),
    }
    if min(check["race_agree"], check["sex_agree"], check["label_agree"]) < 1.0:
        raise RuntimeError(f"the join by row number is wrong: {check}")
    band = pd.cut(j["raw_age"], AGE_EDGES, right=False, labels=AGE_LABELS).astype(str)
    frame = pd.DataFrame(
        {
            "score": j["score"].astype(float),
            "label": j["label"].astype(int),
            "group": (j["raw_group"] + " & " + j["sex"] + " & " + band).astype(str),
        },
        index=j.index,
    )
    return frame, check


def confusion(pred, y, codes, k) -> np.ndarray:
    """(K, 4): tp, fp, tn, fn."""
    out = np.zeros((k, 4))
    for c, m in enumerate((pred & (y == 1), pred & (y == 0), ~pred & (y == 0), ~pred & (y == 1))):
        out[:, c] = np.bincount(codes[m], minlength=k)
    return out


def rates_from_counts(c: np.ndarray) -> dict[str, np.ndarray]:
    """Accuracy and TPR from counts of shape (..., 4); NaN where undefined."""
    tp, fp, tn, fn = (c[..., i] for i in range(4))
    with np.errstate(invalid="ignore", divide="ignore"):
        n = tp + fp + tn + fn
        return {
            "accuracy": np.where(n > 0, (tp + tn) / np.maximum(n, 1), np.nan),
            "tpr": np.where(tp + fn > 0, tp / np.maximum(tp + fn, 1), np.nan),
        }


def true_gaps(frame: pd.DataFrame, groups: list[str]) -> dict[str, np.ndarray]:
    codes = pd.Categorical(frame["group"], categories=groups).codes
    c = confusion(frame["score"].to_numpy() >= 0.5, frame["label"].to_numpy(), codes, len(groups))
    rate, overall = rates_from_counts(c), rates_from_counts(c.sum(axis=0))
    return {m: rate[m] - overall[m] for m in METRICS}


# ---------------------------------------------------------------------------
# Oracle: beta calibration per group on all rows
# ---------------------------------------------------------------------------
def beta_features(s: np.ndarray) -> np.ndarray:
    s = np.clip(s, 0.01, 0.99)
    return np.column_stack([np.ones_like(s), np.log(s), -np.log1p(-s)])


def _nll(beta, x, y, center=None, lam=0.0):
    z = x @ beta
    ll = np.sum(y * z - np.logaddexp(0.0, z))
    grad = x.T @ (y - 1.0 / (1.0 + np.exp(-z)))
    if center is not None:
        d = beta - center
        return -ll + 0.5 * lam * d @ d, -grad + lam * d
    return -ll, -grad


def _mle(x, y):
    import statsmodels.api as sm

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fit = sm.Logit(y, x).fit(disp=0, maxiter=200)
        except Exception:  # perfect separation, singular matrix
            return None
    coef = np.asarray(fit.params, dtype=float)
    if not fit.mle_retvals.get("converged", False) or not np.all(np.isfinite(coef)):
        return None
    return coef if np.max(np.abs(coef)) < 30 else None


def fit_oracle(frame: pd.DataFrame, groups: list[str]) -> tuple[np.ndarray, dict]:
    """Per-row known-calibration probability f_g(s) and a description of the fits."""
    x_all, y_all = beta_features(frame["score"].to_numpy()), frame["label"].to_numpy(float)
    pooled = _mle(x_all, y_all)
    assert pooled is not None
    p = np.empty(len(frame))
    info = {"pooled_coef": pooled.tolist(), "mle": [], "ridge": []}
    g_arr = frame["group"].to_numpy()
    for g in groups:
        m = g_arr == g
        x, y = x_all[m], y_all[m]
        coef = None
        if m.sum() >= 30 and min(y.sum(), (1 - y).sum()) >= 5:
            coef = _mle(x, y)
        if coef is not None:
            info["mle"].append(g)
        else:
            opt = minimize(_nll, pooled, args=(x, y, pooled, 1.0), jac=True, method="L-BFGS-B")
            coef = opt.x
            info["ridge"].append(g)
        p[m] = 1.0 / (1.0 + np.exp(-(x @ coef)))
    info["n_mle"], info["n_ridge"] = len(info["mle"]), len(info["ridge"])
    return p, info


def oracle_gap_draws(lab_mask, frame, groups, p_oracle, rng) -> dict[str, np.ndarray]:
    """(S, K) gap draws of accuracy and TPR under the known calibration map."""
    k = len(groups)
    codes = pd.Categorical(frame["group"], categories=groups).codes
    pred = frame["score"].to_numpy() >= 0.5
    y = frame["label"].to_numpy()
    base = confusion(pred[lab_mask], y[lab_mask], codes[lab_mask], k)  # labeled counts
    counts = np.broadcast_to(base, (ORACLE_DRAWS, k, 4)).copy()
    unl = ~lab_mask
    for j in range(k):
        for side in (True, False):
            m = unl & (codes == j) & (pred == side)
            n = int(m.sum())
            if n == 0:
                continue
            pos = (rng.random((ORACLE_DRAWS, n)) < p_oracle[m]).sum(axis=1)
            if side:  # tp, fp
                counts[:, j, 0] += pos
                counts[:, j, 1] += n - pos
            else:  # fn, tn
                counts[:, j, 3] += pos
                counts[:, j, 2] += n - pos
    rate, overall = rates_from_counts(counts), rates_from_counts(counts.sum(axis=1))
    return {m: rate[m] - overall[m][:, None] for m in METRICS}


# ---------------------------------------------------------------------------
# Bands
# ---------------------------------------------------------------------------
def bayes_gap_draws(res, metric: str) -> np.ndarray:
    """(S, K) gap draws: group rate minus the overall rate of the same draw."""
    r = res.rates(metric).transpose("chain", "draw", "group").values
    theta = r.reshape(-1, r.shape[-1])
    overall, _ = overall_rate(res, metric)
    return theta - overall[:, None]


def sup_t_band(g: np.ndarray, names: list[str], truth) -> tuple[np.ndarray, np.ndarray, dict]:
    """The textbook sup-t band of (S, K) draws, NaN cells set aside (module docstring).

    ``info`` also has the band's median width before clipping, over the groups whose
    truth is defined (the groups of the ``all`` view), and how many of them are clipped."""
    g = g[~np.isnan(g).all(axis=1)]
    defined = ~np.isnan(g)
    count = defined.sum(axis=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = np.nanmean(g, axis=0)
        s = np.nanstd(g, axis=0, ddof=1)
        z = np.abs(g - m) / s
    # a column with sd 0 has |G - m| = 0 in every defined draw: it does not move t
    z = np.where(defined & (s > 0)[None, :], z, np.nan)
    z = np.where(defined & (s == 0)[None, :], 0.0, z)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = np.nanmax(z, axis=1)
    t = np.where(np.isnan(t), 0.0, t)
    c = float(np.quantile(t, CI_PROB))
    raw_lo, raw_hi = m - c * s, m + c * s
    raw_lo = np.where(count >= 2, raw_lo, np.nan)
    raw_hi = np.where(count >= 2, raw_hi, np.nan)
    lo, hi = np.clip(raw_lo, -1.0, 1.0), np.clip(raw_hi, -1.0, 1.0)
    top = np.nanargmax(np.where(np.isnan(z), -np.inf, z)[t >= c], axis=1)
    drv, n_drv = Counter(top.tolist()).most_common(1)[0]
    has = ~np.isnan(raw_lo) & ~np.isnan(np.asarray(truth, dtype=float))
    info = {
        "crit": c,
        "crit_driver": names[drv],
        "crit_driver_share": n_drv / len(top),
        "median_width_unclipped": float(np.median((raw_hi - raw_lo)[has])),
        "n_clipped": int(((raw_lo < -1) | (raw_hi > 1))[has].sum()),
    }
    return lo, hi, info


def band_record(lo, hi, truth, names, evaluate) -> dict:
    """Coverage and width of a band (arrays over ``names``) on the groups in ``evaluate``."""
    lo, hi, truth = (np.asarray(a, dtype=float) for a in (lo, hi, truth))
    has = ~(np.isnan(lo) | np.isnan(hi))
    defined = ~np.isnan(truth)
    ev = evaluate & has & defined
    inside = (lo[ev] <= truth[ev]) & (truth[ev] <= hi[ev])
    widths = (hi - lo)[ev]
    return {
        "n_evaluated": int(ev.sum()),
        "n_truth_undefined": int((evaluate & ~defined).sum()),
        "n_band_nan": int((evaluate & defined & ~has).sum()),
        "covered_joint": bool(inside.all()) if ev.any() else None,
        "n_outside": int((~inside).sum()),
        "outside": [n for n, e in zip(np.asarray(names)[ev], ~inside, strict=True) if e],
        "median_width": float(np.median(widths)) if widths.size else None,
    }


def views(lo, hi, truth, names, big) -> dict:
    k = len(names)
    return {
        "all": band_record(lo, hi, truth, names, np.ones(k, dtype=bool)),
        "ge20": band_record(lo, hi, truth, names, big),
    }


# ---------------------------------------------------------------------------
# One replicate
# ---------------------------------------------------------------------------
def one_rep(frame, groups, truth, p_oracle, seed: int, sizes) -> dict:
    rng = np.random.default_rng(seed)
    lab_mask = np.zeros(len(frame), dtype=bool)
    lab_mask[rng.choice(len(frame), N_LABELED, replace=False)] = True
    lab, unl = frame[lab_mask], frame[~lab_mask].drop(columns="label")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        data = bf.AssessmentData.from_frames(lab, unl, score="score", label="label", group="group")
    assert list(data.group_levels) == groups, "group order differs"
    big = sizes >= MIN_ROWS_BIG
    n_lab = lab["group"].value_counts().reindex(groups).fillna(0).to_numpy()
    lab_pos = lab[lab["label"] == 1]["group"].value_counts().reindex(groups).fillna(0).to_numpy()
    rec = {
        "seed": seed,
        "n_groups_without_label": int((n_lab == 0).sum()),
        "n_groups_without_labeled_positive": int((lab_pos == 0).sum()),
    }
    specs = {
        "rbc_fixed": dict(discrepancy=DiscrepancyPrior(scale_with_groups=False)),
        "rbc_scaled": dict(discrepancy=DiscrepancyPrior()),
        "bc": dict(model="bc"),
    }
    for name, kw in specs.items():
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = bf.fit(data, random_seed=seed, progressbar=False, metrics=FIT_METRICS, **kw)
        fit_s = time.perf_counter() - start
        assert list(res.groups) == groups
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            gs = res.group_summary(list(METRICS), ci_prob=CI_PROB)
        band_s = time.perf_counter() - start
        rec[name] = {"fit_seconds": fit_s, "band_seconds": band_s}
        if name == "rbc_fixed":
            rec["t_today"] = {"fit_seconds": fit_s}
        for m in METRICS:
            t = gs[gs["metric"] == m].set_index("group").loc[groups]
            lo, hi = t["gap_lower"].to_numpy(float), t["gap_upper"].to_numpy(float)
            rec[name][m] = views(lo, hi, truth[m], groups, big)
            pu = t["p_undefined"].to_numpy(float)
            rec[name][m]["p_undefined_max"] = float(pu.max())
            rec[name][m]["n_groups_p_undefined_pos"] = int((pu > 0).sum())
            if name == "rbc_fixed":
                gaps = bayes_gap_draws(res, m)
                # check: group_summary's band is simultaneous_band of these draws, clipped
                ref_lo, ref_hi = np.clip(simultaneous_band(gaps, CI_PROB), -1.0, 1.0)
                rec[name][m]["band_matches_gap_draws"] = bool(
                    np.allclose(ref_lo, lo, equal_nan=True)
                    and np.allclose(ref_hi, hi, equal_nan=True)
                )
                start = time.perf_counter()
                tlo, thi, info = sup_t_band(gaps, groups, truth[m])
                rec["t_today"]["band_seconds"] = time.perf_counter() - start
                rec["t_today"][m] = views(tlo, thi, truth[m], groups, big)
                rec["t_today"][m].update(info)
        del res
    # frequentist
    start = time.perf_counter()
    rec["freq"] = {}
    for m in METRICS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tab = group_intervals(data, m, ci_prob=CI_PROB, n_resamples=2000, random_seed=seed)
        tab = tab.set_index("group").loc[groups]
        lo, hi = tab["gap_lower"].to_numpy(float), tab["gap_upper"].to_numpy(float)
        rec["freq"][m] = views(lo, hi, truth[m], groups, big)
        rec["freq"][m]["crit"] = float(tab.attrs.get("critical_value", np.nan))
        rec["freq"][m]["n_bonferroni_wilson"] = int((tab["method"] == "bonferroni-wilson").sum())
    rec["freq"]["fit_seconds"] = time.perf_counter() - start
    # oracle
    start = time.perf_counter()
    draws = oracle_gap_draws(
        lab_mask, frame, groups, p_oracle, np.random.default_rng(10_000 + seed)
    )
    rec["oracle"] = {}
    for m in METRICS:
        lo, hi = np.clip(simultaneous_band(draws[m], CI_PROB), -1.0, 1.0)
        rec["oracle"][m] = views(lo, hi, truth[m], groups, big)
    rec["oracle"]["fit_seconds"] = time.perf_counter() - start
    return rec


# ---------------------------------------------------------------------------
# Summary
# ---------------------------------------------------------------------------
def _cov(flags) -> dict:
    flags = [f for f in flags if f is not None]
    n = len(flags)
    if n == 0:
        return {"covered": 0, "reps": 0, "coverage": None, "mc_se": None, "cp95": None}
    c = int(sum(flags))
    p = c / n
    cp_lo = 0.0 if c == 0 else float(beta_dist.ppf(0.025, c, n - c + 1))
    cp_hi = 1.0 if c == n else float(beta_dist.ppf(0.975, c + 1, n - c))
    return {
        "covered": c,
        "reps": n,
        "coverage": p,
        "mc_se": float(np.sqrt(p * (1 - p) / n)),
        "cp95": [cp_lo, cp_hi],
    }


def _med(xs):
    xs = [x for x in xs if x is not None and not (isinstance(x, float) and np.isnan(x))]
    return float(np.median(xs)) if xs else None


def _ratio(a, b):
    return a / b if a is not None and b else None


def summarise(runs: list[dict]) -> dict:
    out = {}
    for method in METHODS:
        out[method] = {"fit_seconds_median": _med([r[method]["fit_seconds"] for r in runs])}
        for m in METRICS:
            out[method][m] = {}
            for v in VIEWS:
                xs = [r[method][m][v] for r in runs]
                misses = Counter(g for x in xs for g in x["outside"])
                out[method][m][v] = {
                    "joint": _cov([x["covered_joint"] for x in xs]),
                    "median_width": _med([x["median_width"] for x in xs]),
                    "n_evaluated_range": [
                        min(x["n_evaluated"] for x in xs),
                        max(x["n_evaluated"] for x in xs),
                    ],
                    "n_truth_undefined": int(max(x["n_truth_undefined"] for x in xs)),
                    "n_band_nan_range": [
                        min(x["n_band_nan"] for x in xs),
                        max(x["n_band_nan"] for x in xs),
                    ],
                    "groups_outside": dict(misses.most_common()),
                }
            if method == "t_today":
                xs = [r[method][m] for r in runs]
                out[method][m]["crit_median"] = _med([x["crit"] for x in xs])
                out[method][m]["crit_drivers"] = dict(
                    Counter(x["crit_driver"] for x in xs).most_common(4)
                )
                out[method][m]["median_width_unclipped"] = _med(
                    [x["median_width_unclipped"] for x in xs]
                )
                out[method][m]["n_clipped_median"] = _med([x["n_clipped"] for x in xs])
            if method in ("rbc_fixed", "rbc_scaled", "bc"):
                xs = [r[method][m] for r in runs]
                out[method][m]["p_undefined_max"] = float(max(x["p_undefined_max"] for x in xs))
                out[method][m]["n_groups_p_undefined_pos_median"] = _med(
                    [x["n_groups_p_undefined_pos"] for x in xs]
                )
    out["rbc_fixed"]["band_matches_gap_draws_all"] = bool(
        all(r["rbc_fixed"][m]["band_matches_gap_draws"] for r in runs for m in METRICS)
    )
    out["ratios"] = {
        f"{num}/{den}": {
            m: {
                v: _ratio(out[num_m][m][v]["median_width"], out[den_m][m][v]["median_width"])
                for v in VIEWS
            }
            for m in METRICS
        }
        for num, den, num_m, den_m in (
            ("(b)", "(t)", "rbc_scaled", "t_today"),
            ("(b)", "(a)", "rbc_scaled", "rbc_fixed"),
        )
    }
    return out


def _c(d) -> str:
    if d["coverage"] is None:
        return "n/a"
    return f"{d['covered']}/{d['reps']}={d['coverage']:.2f}±{d['mc_se']:.2f}"


def _w(x) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def table(summary: dict) -> str:
    head = (
        f"{'method':<15}{'metric':<9}{'view':<6}{'joint cov ±SE':>16}{'med width':>10}"
        f"{'n eval':>8}{'nan':>6}{'fit s':>7}  most missed"
    )
    lines = [head, "-" * len(head)]
    for method in METHODS:
        for m in METRICS:
            for v in VIEWS:
                s = summary[method][m][v]
                miss = ", ".join(f"{k}×{n}" for k, n in list(s["groups_outside"].items())[:3])
                ne = s["n_evaluated_range"]
                nn = s["n_band_nan_range"]
                lines.append(
                    f"{LETTER[method] + ' ' + method:<15}{m:<9}{v:<6}{_c(s['joint']):>16}"
                    f"{_w(s['median_width']):>10}"
                    f"{(str(ne[0]) if ne[0] == ne[1] else f'{ne[0]}-{ne[1]}'):>8}"
                    f"{(str(nn[0]) if nn[0] == nn[1] else f'{nn[0]}-{nn[1]}'):>6}"
                    f"{summary[method]['fit_seconds_median']:>7.1f}  {miss}"
                )
    lines.append(
        f"view all: every group with a defined truth; ge20: groups with >= {MIN_ROWS_BIG} rows, "
        "read off the same all-groups band. nan: groups with a defined truth but a NaN band "
        "(left out). (t) shares (a)'s fit."
    )
    for m in METRICS:
        s = summary["t_today"][m]
        lines.append(
            f"(t) {m}: median crit {s['crit_median']:.2f}, drivers {s['crit_drivers']}, "
            f"median width unclipped {_w(s['median_width_unclipped'])}, "
            f"median n clipped {s['n_clipped_median']}"
        )
    lines.append("")
    for key, r in summary["ratios"].items():
        for m in METRICS:
            lines.append(
                f"{key} median width, {m}: "
                + ", ".join(f"{v} {'n/a' if r[m][v] is None else f'{r[m][v]:.3f}'}" for v in VIEWS)
            )
    return "\n".join(lines)


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=12)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument(
        "--out", type=Path, default=ROOT / "benchmarks" / "results" / "intersections_width.json.gz"
    )
    args = ap.parse_args(argv)

    frame, check = load_frame()
    groups = sorted(frame["group"].unique())
    sizes = frame.groupby("group").size().reindex(groups).to_numpy()
    pos = frame.groupby("group")["label"].sum().reindex(groups).to_numpy()
    truth = true_gaps(frame, groups)
    p_oracle, oracle_info = fit_oracle(frame, groups)
    group_info = {
        "n_groups": len(groups),
        "size_quantiles": dict(
            zip(
                ["min", "p10", "p25", "median", "p75", "p90", "max"],
                np.percentile(sizes, [0, 10, 25, 50, 75, 90, 100]).tolist(),
                strict=True,
            )
        ),
        "n_size_below_10": int((sizes < 10).sum()),
        "n_size_at_least_20": int((sizes >= MIN_ROWS_BIG).sum()),
        "n_no_positive": int((pos == 0).sum()),
        "groups_no_positive": [g for g, p in zip(groups, pos, strict=True) if p == 0],
        "n_no_positive_at_least_20_rows": int(((pos == 0) & (sizes >= MIN_ROWS_BIG)).sum()),
        "table": {
            g: {"rows": int(n), "positives": int(p)}
            for g, n, p in zip(groups, sizes, pos, strict=True)
        },
    }
    print(f"join check: {check}")
    print(
        f"{len(groups)} groups; sizes {group_info['size_quantiles']}; "
        f"{group_info['n_size_below_10']} with < 10 rows; "
        f"{group_info['n_size_at_least_20']} with >= {MIN_ROWS_BIG} rows; "
        f"{group_info['n_no_positive']} without a positive (TPR truth undefined, skipped)"
    )
    print(f"oracle: {oracle_info['n_mle']} MLE maps, {oracle_info['n_ridge']} ridge-to-pooled maps")

    runs = []
    t0 = time.perf_counter()
    for i in range(args.reps):
        seed = args.first_seed + i
        runs.append(one_rep(frame, groups, truth, p_oracle, seed, sizes))
        r = runs[-1]
        print(
            f"rep {seed}: "
            + ", ".join(
                f"{k} {r[k]['fit_seconds']:.0f}s" for k in ("rbc_fixed", "rbc_scaled", "bc")
            )
            + f" | elapsed {time.perf_counter() - t0:.0f}s",
            flush=True,
        )
        summary = summarise(runs)
        result = {
            "config": {
                "reps": len(runs),
                "first_seed": args.first_seed,
                "n_labeled": N_LABELED,
                "ci_prob": CI_PROB,
                "age_edges": AGE_EDGES,
                "min_rows_big": MIN_ROWS_BIG,
                "oracle_draws": ORACLE_DRAWS,
                "methods": {k: LETTER[k] for k in METHODS},
                "total_seconds": time.perf_counter() - t0,
            },
            "join_check": check,
            "groups": group_info,
            "oracle_fit": {k: v for k, v in oracle_info.items()},
            "truth": {
                m: {
                    g: (None if np.isnan(x) else float(x))
                    for g, x in zip(groups, truth[m], strict=True)
                }
                for m in METRICS
            },
            "summary": summary,
            "runs": runs,
        }
        args.out.parent.mkdir(parents=True, exist_ok=True)
        _write(args.out, json.dumps(result, indent=1, default=str))
    print(table(summary))
    print(f"total {time.perf_counter() - t0:.0f}s")
    return result


if __name__ == "__main__":
    main()
