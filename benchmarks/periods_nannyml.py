"""Audits over time on NannyML's synthetic car-loan data: bayesfair against NannyML's CBPE.

Data (``nannyml.load_synthetic_car_loan_dataset()``, NannyML 0.13)
-------------------------------------------------------------------
50,000 reference rows and 50,000 analysis rows (analysis targets joined on ``id``);
label ``repaid``, score ``y_pred_proba`` (on a 0.01 grid), prediction ``y_pred``.
NannyML's ``y_pred`` is ``y_pred_proba >= 0.65``, not ``>= 0.5`` (checked below on
every row), so bayesfair is given ``threshold=0.645`` (any cut in (0.64, 0.65]
gives the same predictions on the 0.01 grid): both methods then assess the same
classifier.

* **Periods.** The reference set is period 0; the analysis set, in timestamp
  order, is cut into ``--chunks`` equal chunks (default 10 × 5,000 rows, periods
  1..10). The analysis set's known shift starts at its midpoint (period 6 with 10
  chunks): the share of ``repaid_loan_on_prev_car`` rises from about 55% to 80%.
* **Sensitive group.** ``repaid_loan_on_prev_car`` (two levels, both large in every
  period): ``no_prev_repaid`` (False) and ``prev_repaid`` (True, the reference).
  It is a feature of the model, binary as it stands (no cut to choose) and the
  feature whose mix the shift moves, so the per-group view is where the shift
  shows. The gap is ``accuracy(no_prev_repaid) − accuracy(prev_repaid)``.
* **Truth.** Realised accuracy of each group in each period over all its rows
  (labeled and unlabeled, true labels), and the gap: bayesfair's default estimand
  ("assessed") and what CBPE estimates.

Labels (per seed, ``numpy.random.default_rng(seed)``)
------------------------------------------------------
* ``ref500``: 500 random reference rows; every other row unlabeled.
* ``ref500_plus50``: the same 500 plus 50 random rows of each analysis period
  (split between the groups as they fall).

Methods
-------
* ``bayesfair``: ``bf.fit`` of the data with the period column (``--draws/--tune/
  --chains``, default 1000/1000/4, bayesfair's defaults), ``metrics=["accuracy"]``, for
  each model of ``--models`` (default ``rbc,bc``: ``rbc`` is bayesfair's default model,
  ``bc`` an ablation, named ``bayesfair_bc/...``). Gap: ``period_summary`` mean and 95%
  band (simultaneous over the periods). Per group: mean and 95% HDI of
  ``rate_draws("accuracy", group)[t]`` (``bayesfair.stats.hdi``). Drift flag:
  ``res.drift`` (only periods with labels are checked). Also once, ``ref_full``:
  every reference row labeled, none later (the labels ``cbpe_full`` has).
* ``cbpe_ref500`` / ``cbpe_full``: ``nml.CBPE(metrics=["accuracy"],
  problem_type="classification_binary")`` run **per group**: fitted on that group's
  labeled reference rows (the same 500 random rows as bayesfair, or all 50,000
  reference rows, as NannyML is meant to be used), then estimating on that group's
  rows of periods 0..10. CBPE ignores analysis labels, so both label settings give
  the same CBPE figures. Chunks: a ``Chunker`` that cuts on the period column (the
  estimator's ``chunk_number`` would cut each group's rows into equal counts, which
  do not line up across groups once the group mix shifts). CBPE fits an isotonic
  calibrator on the reference when its cross-validated check says calibration helps
  (recorded as ``calibrated``), and estimates accuracy as the mean over the chunk's
  rows of ``P(ŷ correct)`` from the calibrated score.

  NannyML's interval: ``sampling_error = std(1[ŷ = y] on the reference) /
  sqrt(n_chunk)`` (``nannyml.sampling_error.binary_classification``), and the
  reported ``lower/upper_confidence_boundary`` = estimate ± **3** sampling errors
  (``SAMPLING_ERROR_RANGE = 3``), clipped to [0, 1]. It is the sampling spread of a
  chunk of that size, not the error of the calibrator nor of a calibration that
  moved. Both are scored: ``band3`` (NannyML's ±3 SE, as reported) and ``ci95``
  (±1.96 SE, a 95% normal interval, the like-for-like comparison with bayesfair's
  95% intervals). Gap: difference of the group estimates; its SE is
  ``sqrt(se_a² + se_b²)`` (independent normal: separate rows and separate fits),
  with the same multipliers.

Figures per method, label setting and set of periods (analysis 1..N; before /
from the shift; the reference period 0), pooled over seeds and periods: MAE and mean
signed error of the gap and of the per-group accuracies (groups pooled), coverage of
their intervals with its binomial SE ``sqrt(c(1 − c)/n)``, median interval width;
the per-period mean signed error (where the estimates drift); the drift flags.
``cbpe_full`` is deterministic (the same for every seed), so its n counts periods,
not independent replicates.

Diagnostic (no fit): ``bayesfair.posterior.periods.drift_table`` with **every** row labeled:
does the calibration map of a group move at the shift when all 5,000 labels per
period are seen?

Usage::

    python benchmarks/periods_nannyml.py                       # 20 seeds, defaults
    python benchmarks/periods_nannyml.py --seeds 1 --draws 300 --tune 300 --chains 2 \
        --out /tmp/periods_nannyml.json                        # smoke
"""

from __future__ import annotations

import os

os.environ.setdefault("NML_DISABLE_USAGE_LOGGING", "1")  # no telemetry from nannyml

import argparse
import gzip
import json
import platform
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import bayesfair as bf
from bayesfair.exceptions import SamplingWarning
from bayesfair.posterior.periods import drift_table
from bayesfair.stats import hdi

ROOT = Path(__file__).resolve().parents[1]
GROUP_COL = "repaid_loan_on_prev_car"
GROUPS = ("no_prev_repaid", "prev_repaid")  # (group, reference)
REFERENCE = "prev_repaid"
THRESHOLD = 0.645
CI_PROB, EPSILON = 0.95, 0.02
Z95, Z_NANNYML = 1.959963984540054, 3.0


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


def load(n_chunks: int) -> pd.DataFrame:
    """All 100,000 rows: period (0 = reference, 1..n_chunks), group, score, label."""
    import nannyml as nml

    ref, ana, tgt = nml.load_synthetic_car_loan_dataset()
    ana = ana.merge(tgt, on="id", how="left", validate="one_to_one")
    if ana["repaid"].isna().any():
        raise RuntimeError("analysis rows without a target")
    ana["_ts"] = pd.to_datetime(ana["timestamp"])
    ana = ana.sort_values("_ts", kind="stable").reset_index(drop=True)
    ana["period"] = 1 + np.arange(len(ana)) * n_chunks // len(ana)
    ref["_ts"] = pd.to_datetime(ref["timestamp"])
    ref["period"] = 0
    df = pd.concat([ref, ana], ignore_index=True)
    df["timestamp"] = df.pop("_ts")
    df["g"] = np.where(df[GROUP_COL].astype(bool), "prev_repaid", "no_prev_repaid")
    df["label"] = df["repaid"].astype(int)
    df["score"] = df["y_pred_proba"].astype(float)
    if not np.array_equal(df["y_pred"].to_numpy(), (df["score"] >= THRESHOLD).astype(int)):
        raise RuntimeError("y_pred is not y_pred_proba >= 0.65 on every row")
    df["correct"] = (df["y_pred"] == df["label"]).astype(int)
    return df


def truth(df: pd.DataFrame, n_periods: int) -> dict:
    """Realised accuracy per period and group over all rows, and the gap."""
    acc = df.groupby(["period", "g"])["correct"].mean().unstack("g")
    acc = acc.reindex(index=range(n_periods), columns=list(GROUPS))
    rate = acc.to_numpy()
    return {"rate": rate, "gap": rate[:, 0] - rate[:, 1]}


def label_masks(df: pd.DataFrame, seed: int, n_ref: int, n_per_period: int) -> dict:
    """Boolean masks of the labeled rows of both settings (ref500 ⊂ ref500_plus50)."""
    rng = np.random.default_rng(seed)
    period = df["period"].to_numpy()
    ref_idx = rng.choice(np.flatnonzero(period == 0), n_ref, replace=False)
    later = [
        rng.choice(np.flatnonzero(period == t), n_per_period, replace=False)
        for t in range(1, period.max() + 1)
    ]
    a = np.zeros(len(df), bool)
    a[ref_idx] = True
    b = a.copy()
    b[np.concatenate(later)] = True
    return {"ref500": a, "ref500_plus50": b}


# ---------------------------------------------------------------------------
# bayesfair
# ---------------------------------------------------------------------------
def run_bayesfair(df: pd.DataFrame, mask: np.ndarray, seed: int, n_periods: int, fit_kw) -> dict:
    """Per-period group accuracies (mean, 95% HDI) and gap (mean, 95% band), drift flags."""
    lab = df.loc[mask, ["score", "label", "g", "period"]]
    unl = df.loc[~mask, ["score", "g", "period"]]
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        data = bf.AssessmentData.from_frames(
            lab,
            unl,
            score="score",
            label="label",
            group="g",
            period="period",
            threshold=THRESHOLD,
            reference=REFERENCE,
        )
        res = bf.fit_periods(
            data, random_seed=seed, progressbar=False, metrics=["accuracy"], **fit_kw
        )
        table = res.period_summary(["accuracy"], epsilon=EPSILON, ci_prob=CI_PROB)
    seconds = time.perf_counter() - start
    if res.reference != REFERENCE or list(res.periods) != list(range(n_periods)):
        raise RuntimeError(f"unexpected fit layout: {res!r}")
    gap = table[table["group"] == GROUPS[0]].sort_values("period")
    out = {
        "gap": {
            "est": gap["mean"].to_numpy(),
            "lower": gap["lower"].to_numpy(),
            "upper": gap["upper"].to_numpy(),
        },
        "rate": {},
    }
    for g in GROUPS:
        draws = res.rate_draws("accuracy", g)
        ints = np.array([tuple(hdi(draws[t], CI_PROB)) for t in range(n_periods)], float)
        out["rate"][g] = {"est": draws.mean(axis=1), "lower": ints[:, 0], "upper": ints[:, 1]}
    drift = res.drift[["group", "period", "n_labeled", "drift_p", "drift"]].copy()
    kinds = sorted({w.category.__name__ for w in caught})
    return out, {
        "fit_seconds": seconds,
        "sampling_warnings": sum(issubclass(w.category, SamplingWarning) for w in caught),
        "warning_kinds": kinds,
        "drift": [
            {
                "group": r.group,
                "period": int(r.period),
                "n_labeled": int(r.n_labeled),
                "drift_p": None if pd.isna(r.drift_p) else float(r.drift_p),
                "drift": bool(r.drift),
            }
            for r in drift.itertuples()
        ],
        "decisions": gap["decision"].tolist(),
    }


# ---------------------------------------------------------------------------
# CBPE
# ---------------------------------------------------------------------------
def period_chunker():
    """A NannyML ``Chunker`` whose chunks are the values of the ``period`` column."""
    from nannyml.chunk import Chunk, Chunker

    class PeriodColumnChunker(Chunker):
        def _split(self, data: pd.DataFrame):
            chunks = []
            for t, rows in data.groupby("period", sort=True):
                ts = rows[self.timestamp_column_name] if self.timestamp_column_name else None
                chunks.append(
                    Chunk(
                        key=f"period={int(t)}",
                        data=rows,
                        start_datetime=None if ts is None else ts.min(),
                        end_datetime=None if ts is None else ts.max(),
                    )
                )
            return chunks

    return PeriodColumnChunker(timestamp_column_name="timestamp")


def run_cbpe(
    df: pd.DataFrame, fit_mask: np.ndarray, n_periods: int, groups=GROUPS
) -> tuple[dict, dict]:
    """CBPE per group: fitted on the group's rows in ``fit_mask`` (reference rows),
    estimating on the group's rows of every period. Estimates and sampling errors.
    ``groups=("all",)``: one run on all rows (NannyML's usual, group-blind use)."""
    import nannyml as nml

    cols = ["y_pred_proba", "y_pred", "repaid", "timestamp", "period"]
    out, facts = {"rate": {}}, {"calibrated": {}, "n_fit": {}, "realized_check": {}}
    for g in groups:
        in_g = np.ones(len(df), bool) if g == "all" else (df["g"] == g).to_numpy()
        fit_rows = df.loc[in_g & fit_mask, cols]
        est_rows = df.loc[in_g, cols]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "too few chunks" on the one reference chunk
            cbpe = nml.CBPE(
                y_pred_proba="y_pred_proba",
                y_pred="y_pred",
                y_true="repaid",
                timestamp_column_name="timestamp",
                metrics=["accuracy"],
                chunker=period_chunker(),
                problem_type="classification_binary",
            )
            cbpe.fit(fit_rows)
            res = cbpe.estimate(est_rows).filter(period="analysis").to_df()
        keys = res[("chunk", "key")].tolist()
        if keys != [f"period={t}" for t in range(n_periods)]:
            raise RuntimeError(f"unexpected chunks {keys}")
        acc = res["accuracy"]
        out["rate"][g] = {
            "est": acc["value"].to_numpy(float),
            "se": acc["sampling_error"].to_numpy(float),
            "nml_lower": acc["lower_confidence_boundary"].to_numpy(float),
            "nml_upper": acc["upper_confidence_boundary"].to_numpy(float),
        }
        facts["calibrated"][g] = bool(cbpe.needs_calibration)
        facts["n_fit"][g] = len(fit_rows)
        facts["realized_check"][g] = acc["realized"].to_numpy(float)
    if tuple(groups) != GROUPS:
        return out, facts
    a, r = (out["rate"][g] for g in GROUPS)
    out["gap"] = {"est": a["est"] - r["est"], "se": np.sqrt(a["se"] ** 2 + r["se"] ** 2)}
    return out, facts


def cbpe_intervals(cb: dict, z: float, nannyml_band: bool) -> dict:
    """Intervals of the CBPE estimates: est ± z·se (per group clipped to [0, 1] as
    NannyML does; with ``nannyml_band`` the group bands are NannyML's own columns)."""
    out = {"rate": {}}
    for g in GROUPS:
        e = cb["rate"][g]
        if nannyml_band:
            lo, hi = e["nml_lower"], e["nml_upper"]
        else:
            lo, hi = np.maximum(e["est"] - z * e["se"], 0), np.minimum(e["est"] + z * e["se"], 1)
        out["rate"][g] = {"est": e["est"], "lower": lo, "upper": hi}
    gp = cb["gap"]
    out["gap"] = {
        "est": gp["est"],
        "lower": gp["est"] - z * gp["se"],
        "upper": gp["est"] + z * gp["se"],
    }
    return out


# ---------------------------------------------------------------------------
# Summaries
# ---------------------------------------------------------------------------
def tolist(d):
    if isinstance(d, dict):
        return {k: tolist(v) for k, v in d.items()}
    if isinstance(d, np.ndarray):
        return [None if (isinstance(x, float) and np.isnan(x)) else x for x in d.tolist()]
    return d


def score(est: dict, truth_vec: np.ndarray) -> dict:
    """Per period: error, covered, width."""
    e, lo, hi = (np.asarray(est[k], float) for k in ("est", "lower", "upper"))
    return {
        "err": e - truth_vec,
        "covered": (lo <= truth_vec) & (truth_vec <= hi),
        "width": hi - lo,
    }


def summarise(scored: list[dict], periods: list[int]) -> dict:
    """MAE, bias, coverage (binomial SE), median width over (record, period) pairs."""
    err = np.concatenate([s["err"][periods] for s in scored])
    cov = np.concatenate([s["covered"][periods] for s in scored])
    wid = np.concatenate([s["width"][periods] for s in scored])
    n = err.size
    c = float(cov.mean())
    per_record = [float(np.mean(s["covered"][periods])) for s in scored]
    return {
        "n": int(n),
        "records": len(scored),
        "mae": float(np.mean(np.abs(err))),
        "bias": float(np.mean(err)),
        "coverage": c,
        "coverage_se": float(np.sqrt(c * (1 - c) / n)),
        # records (seeds; seed × group for rates) are independent, their periods not
        "coverage_cluster_se": (
            float(np.std(per_record, ddof=1) / np.sqrt(len(per_record)))
            if len(per_record) > 1
            else None
        ),
        "median_width": float(np.median(wid)),
    }


def method_summary(records: list[dict], n_periods: int, split: int) -> dict:
    """Summaries of one method-setting over seeds: gap and per-group rates."""
    sets = {
        "analysis": list(range(1, n_periods)),
        "before_shift": list(range(1, split)),
        "from_shift": list(range(split, n_periods)),
        "reference_period": [0],
    }
    gap = [r["gap"] for r in records]
    rate = [r["rate"][g] for r in records for g in GROUPS]
    out = {
        "gap": {k: summarise(gap, p) for k, p in sets.items()},
        "rate": {k: summarise(rate, p) for k, p in sets.items()},
        "per_group": {
            g: {k: summarise([r["rate"][g] for r in records], p) for k, p in sets.items()}
            for g in GROUPS
        },
        "per_period_error": {
            "gap": np.mean([s["err"] for s in gap], axis=0).tolist(),
            **{g: np.mean([r["rate"][g]["err"] for r in records], axis=0).tolist() for g in GROUPS},
        },
        "per_period_coverage": {
            "gap": np.mean([s["covered"] for s in gap], axis=0).tolist(),
            **{
                g: np.mean([r["rate"][g]["covered"] for r in records], axis=0).tolist()
                for g in GROUPS
            },
        },
    }
    return out


def oracle_drift(df: pd.DataFrame) -> list[dict]:
    """The drift test of every period with **all** its rows labeled (no fit)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        data = bf.AssessmentData.from_frames(
            df[["score", "label", "g", "period"]],
            score="score",
            label="label",
            group="g",
            period="period",
            threshold=THRESHOLD,
            reference=REFERENCE,
        )
        rows = []
        for g in GROUPS:
            tab = drift_table(data, g)
            for r in tab.itertuples():
                rows.append(
                    {
                        "group": g,
                        "period": int(r.period),
                        "n_labeled": int(r.n_labeled),
                        "statistic": None if pd.isna(r.statistic) else float(r.statistic),
                        "drift_p": None if pd.isna(r.drift_p) else float(r.drift_p),
                        "drift": bool(r.drift),
                    }
                )
    return rows


def calibration_by_period(df: pd.DataFrame) -> list[dict]:
    """Per period and group: mean label vs mean score, split by predicted class."""
    rows = []
    for (t, g, yhat), r in df.groupby(["period", "g", "y_pred"]):
        rows.append(
            {
                "period": int(t),
                "group": g,
                "y_pred": int(yhat),
                "n": len(r),
                "mean_score": float(r["score"].mean()),
                "mean_label": float(r["label"].mean()),
            }
        )
    return rows


def beta_family_check(df: pd.DataFrame) -> dict:
    """How well the beta-calibration family fits the reference scores, per group.

    The map ``P(y = 1 | s) = σ(c + a ln s − b ln(1 − s))`` (scores clipped to
    [0.01, 0.99], bayesfair's default) fitted by maximum likelihood on **all** of the
    group's reference rows: its expected accuracy against the realised one (the error
    a beta-calibration model keeps with unlimited labels), and the calibration curve
    in score bins (mean score, mean label, mean of the fitted map).
    """
    from sklearn.linear_model import LogisticRegression

    ref = df[df["period"] == 0]
    bins = [-0.01, 0.05, 0.2, 0.4, 0.5, THRESHOLD, 0.8, 0.95, 1.0]
    out = {}
    for g in GROUPS:
        r = ref[ref["g"] == g]
        s = np.clip(r["score"].to_numpy(), 0.01, 0.99)
        y = r["label"].to_numpy()
        x = np.column_stack([np.log(s), -np.log1p(-s)])
        p = LogisticRegression(C=1e8, max_iter=1000).fit(x, y).predict_proba(x)[:, 1]
        yhat = r["y_pred"].to_numpy()
        curve = (
            pd.DataFrame({"s": r["score"], "y": y, "p": p})
            .groupby(pd.cut(r["score"], bins), observed=True)
            .agg(
                n=("y", "size"),
                mean_score=("s", "mean"),
                mean_label=("y", "mean"),
                beta_map=("p", "mean"),
            )
        )
        out[g] = {
            "realised_accuracy": float(r["correct"].mean()),
            "beta_map_expected_accuracy": float(np.mean(np.where(yhat == 1, p, 1 - p))),
            "raw_score_expected_accuracy": float(
                np.mean(np.where(yhat == 1, r["score"], 1 - r["score"]))
            ),
            "curve": [
                {"bin": str(k), **{c: float(v) for c, v in row.items()}}
                for k, row in curve.iterrows()
            ],
        }
    return out


def drift_counts(bayes_facts: list[dict], n_periods: int) -> dict:
    """Flags per group and period over seeds, and how many checks ran."""
    out = {}
    for g in GROUPS:
        flags = np.zeros(n_periods, int)
        checked = np.zeros(n_periods, int)
        labels = np.zeros(n_periods, float)
        for f in bayes_facts:
            for r in f["drift"]:
                if r["group"] == g:
                    flags[r["period"]] += r["drift"]
                    checked[r["period"]] += r["drift_p"] is not None
                    labels[r["period"]] += r["n_labeled"] / len(bayes_facts)
        out[g] = {
            "flags": flags.tolist(),
            "checked": checked.tolist(),
            "mean_labels": labels.tolist(),
        }
    return out


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------
def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=20, help="labeled samples (seeds 0..S-1)")
    ap.add_argument("--chunks", type=int, default=10, help="analysis chunks (periods 1..N)")
    ap.add_argument("--n-ref", type=int, default=500, help="labeled reference rows")
    ap.add_argument("--n-per-period", type=int, default=50, help="labels per later period")
    ap.add_argument("--draws", type=int, default=1000)
    ap.add_argument("--tune", type=int, default=1000)
    ap.add_argument("--chains", type=int, default=4)
    ap.add_argument(
        "--models",
        type=lambda x: x.split(","),
        default=["rbc", "bc"],
        help="bayesfair models, comma-separated; rbc is the default model, bc an ablation",
    )
    ap.add_argument(
        "--out", type=Path, default=ROOT / "benchmarks" / "results" / "periods_nannyml.json.gz"
    )
    args = ap.parse_args(argv)
    t_start = time.perf_counter()
    import nannyml as nml

    n_periods = args.chunks + 1
    split = 1 + args.chunks // 2  # first period of the analysis set's second half
    df = load(args.chunks)
    tr = truth(df, n_periods)
    fit_kw = dict(draws=args.draws, tune=args.tune, chains=args.chains)

    # CBPE on the full labeled reference: deterministic, once.
    cb_full, cb_full_facts = run_cbpe(df, (df["period"] == 0).to_numpy(), n_periods)
    realized_gap = (
        cb_full_facts["realized_check"][GROUPS[0]] - cb_full_facts["realized_check"][GROUPS[1]]
    )
    if not np.allclose(realized_gap, tr["gap"]):
        raise RuntimeError("NannyML's realised accuracy disagrees with the truth")

    cb_pooled, cb_pooled_facts = run_cbpe(
        df, (df["period"] == 0).to_numpy(), n_periods, groups=("all",)
    )
    pooled = {
        "est": cb_pooled["rate"]["all"]["est"],
        "realised": cb_pooled_facts["realized_check"]["all"],
        "calibrated": cb_pooled_facts["calibrated"]["all"],
    }
    pooled["error"] = pooled["est"] - pooled["realised"]

    records: dict[str, list] = {}
    raw: dict[str, list] = {}
    bayes_facts: dict[str, list] = {}
    cbpe500_facts = []

    def add(name, est):
        raw.setdefault(name, []).append(tolist(est))
        records.setdefault(name, []).append(
            {
                "gap": score(est["gap"], tr["gap"]),
                "rate": {g: score(est["rate"][g], tr["rate"][:, i]) for i, g in enumerate(GROUPS)},
            }
        )

    def bayes_name(model, setting):
        return f"bayesfair/{setting}" if model == "rbc" else f"bayesfair_{model}/{setting}"

    # Deterministic methods, scored once: CBPE on the full reference, and bayesfair
    # with every reference row labeled and none later (the labels CBPE-full has).
    add("cbpe_full/ci95", cbpe_intervals(cb_full, Z95, False))
    add("cbpe_full/band3", cbpe_intervals(cb_full, Z_NANNYML, True))
    for model in args.models:
        est, facts = run_bayesfair(
            df, (df["period"] == 0).to_numpy(), 0, n_periods, {**fit_kw, "model": model}
        )
        bayes_facts.setdefault(bayes_name(model, "ref_full"), []).append({**facts, "seed": 0})
        add(bayes_name(model, "ref_full"), est)
        print(f"{bayes_name(model, 'ref_full')}: {facts['fit_seconds']:.1f}s", flush=True)

    for seed in range(args.seeds):
        masks = label_masks(df, seed, args.n_ref, args.n_per_period)
        for model in args.models:
            for setting, mask in masks.items():
                name = bayes_name(model, setting)
                est, facts = run_bayesfair(df, mask, seed, n_periods, {**fit_kw, "model": model})
                facts["seed"] = seed
                bayes_facts.setdefault(name, []).append(facts)
                add(name, est)
                print(
                    f"seed {seed} {name}: {facts['fit_seconds']:.1f}s, gap MAE "
                    f"{np.mean(np.abs(records[name][-1]['gap']['err'][1:])):.4f}, flags "
                    f"{[(r['group'], r['period']) for r in facts['drift'] if r['drift']]}",
                    flush=True,
                )
        cb500, f500 = run_cbpe(df, masks["ref500"] & (df["period"] == 0).to_numpy(), n_periods)
        f500.pop("realized_check")
        f500["seed"] = seed
        cbpe500_facts.append(f500)
        add("cbpe_ref500/ci95", cbpe_intervals(cb500, Z95, False))
        add("cbpe_ref500/band3", cbpe_intervals(cb500, Z_NANNYML, True))

    summary = {k: method_summary(v, n_periods, split) for k, v in records.items()}
    cb_full_facts.pop("realized_check")
    result = {
        "benchmark": "periods_nannyml",
        "config": {
            **{k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
            "group_column": GROUP_COL,
            "groups": list(GROUPS),
            "reference": REFERENCE,
            "gap": f"{GROUPS[0]} - {GROUPS[1]}",
            "threshold": THRESHOLD,
            "ci_prob": CI_PROB,
            "nannyml_band_multiplier": Z_NANNYML,
            "shift_from_period": split,
            "n_periods": n_periods,
            "rows_per_period_group": df.groupby(["period", "g"])
            .size()
            .unstack("g")[list(GROUPS)]
            .to_numpy()
            .tolist(),
        },
        "versions": {
            "bayesfair": bf.__version__,
            "nannyml": nml.__version__,
            "python": platform.python_version(),
            "numpy": np.__version__,
            "pandas": pd.__version__,
        },
        "truth": tolist({"gap": tr["gap"], **{g: tr["rate"][:, i] for i, g in enumerate(GROUPS)}}),
        "summary": summary,
        "drift_flags": {
            s: drift_counts(f, n_periods) for s, f in bayes_facts.items() if "ref_full" not in s
        },
        "oracle_drift_all_labels": oracle_drift(df),
        "cbpe_full_pooled": tolist(pooled),
        "beta_family_check": beta_family_check(df),
        "calibration_by_period": calibration_by_period(df),
        "bayesfair_facts": bayes_facts,
        "cbpe_full_facts": cb_full_facts,
        "cbpe_ref500_facts": cbpe500_facts,
        "estimates": raw,
        "seconds_total": time.perf_counter() - t_start,
        "load_average": list(os.getloadavg()),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    _write(args.out, json.dumps(result, indent=1, default=_json_default) + "\n")
    print_tables(result)
    print(f"wrote {args.out} in {result['seconds_total']:.0f}s")
    return result


def _json_default(o):
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        return None if np.isnan(o) else float(o)
    if isinstance(o, np.bool_):
        return bool(o)
    raise TypeError(type(o))


def print_tables(result: dict) -> None:
    """Markdown tables of the summary (for the results page)."""
    s = result["summary"]
    for target in ("gap", "rate"):
        print(f"\n### {target}\n")
        print("| method | periods | n | MAE | bias | coverage ± SE (cluster SE) | median width |")
        print("|---|---|---:|---:|---:|---:|---:|")
        for name, m in s.items():
            for k, v in m[target].items():
                cse = v["coverage_cluster_se"]
                cse = "-" if cse is None else f"{cse:.3f}"
                print(
                    f"| {name} | {k} | {v['n']} | {v['mae']:.4f} | {v['bias']:+.4f} | "
                    f"{v['coverage']:.3f} ± {v['coverage_se']:.3f} ({cse})"
                    f" | {v['median_width']:.4f} |"
                )
    print("\n### per-period mean signed error (gap; no_prev_repaid; prev_repaid)\n")
    n = result["config"]["n_periods"]
    print("| method | " + " | ".join(str(t) for t in range(n)) + " |")
    print("|---|" + "---:|" * n)
    for name, m in s.items():
        if name.endswith("band3"):
            continue
        for key in ("gap", *GROUPS):
            e = m["per_period_error"][key]
            print(f"| {name} {key} | " + " | ".join(f"{x:+.3f}" for x in e) + " |")
    p = result["cbpe_full_pooled"]
    print("| cbpe_full pooled (all rows) | " + " | ".join(f"{x:+.3f}" for x in p["error"]) + " |")
    print("\n### drift flags (flags / checks over seeds)\n")
    for setting, d in result["drift_flags"].items():
        for g, v in d.items():
            print(setting, g, "flags", v["flags"], "checked", v["checked"])
    print("\n### oracle drift (all labels)\n")
    for r in result["oracle_drift_all_labels"]:
        if r["drift_p"] is not None:
            print(r["group"], r["period"], f"stat={r['statistic']:.1f}", f"p={r['drift_p']:.2g}")


if __name__ == "__main__":
    main()
