# %% [markdown]
# # When the calibration model is wrong
#
# The calibration models put the unlabeled scores to work by turning each score
# into a probability of a positive label through a per-group beta-calibration map.
# When a group's scores are not described by such a map (an inverted classifier, a
# naive Bayes model whose scores are all 0 or 1, a group calibrated unlike the
# others), Ji et al.'s `bc` still reports narrow intervals, and they miss the truth.
# This notebook shows
#
# 1. the coverage of `bc` and of the robust default `rbc` on every cell of Ji et
#    al.'s Tables 2 and 3 (read from `docs/results/`, computed by
#    `benchmarks/robust_coverage.py`);
# 2. the calibration check on each bundled score set;
# 3. a synthetic example with known truth where one group's scores are cubed or
#    inverted: what `bc`, `rbc` and `bb` report, and what the check says.

# %%
import os
import warnings
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import display

import bayesfair as bf
from bayesfair.datasets import get_score_set, load_scores, split_labeled
from bayesfair.datasets.simulate import miscalibrated_scores
from bayesfair.report import plots

FAST = os.environ.get("BAYESFAIR_FAST") == "1"
FIT = {"draws": 200, "tune": 200, "chains": 2} if FAST else {"draws": 1000, "tune": 1000, "chains": 4}
RESULTS = Path("..") / "docs" / "results"
warnings.filterwarnings("ignore", category=FutureWarning)

# %% [markdown]
# ## 1. Before and after, on Ji et al.'s tables
#
# Coverage of the realised Δ by 95% intervals over labeled sets drawn as the authors
# drew them; `bc` is the package's old default (Ji et al.'s model, expected gap),
# `rbc` the new one (gap on the assessed examples).

# %%
def coverage_table(table):
    path = RESULTS / f"robust_table{table}_runs.csv"
    if not path.exists():
        return pd.DataFrame()
    runs = pd.read_csv(path)
    out = runs.groupby(["dataset", "classifier", "method"]).agg(
        coverage=("covered", "mean"), width=("width", "mean"), mae=("abs_error", "mean"),
        runs=("run", "nunique"))
    out[["width", "mae"]] *= 100
    return out.unstack("method").round(2)


for table in (2, 3):
    shown = coverage_table(table)
    if len(shown):
        print(f"Table {table}: coverage by method")
        display(shown["coverage"])

# %%
for table in (2, 3):
    shown = coverage_table(table)
    if len(shown):
        fig, ax = plt.subplots(figsize=(6, 4))
        ax.scatter(shown["coverage"]["bc"], shown["coverage"]["rbc"], color="C1")
        ax.axhline(0.95, ls=":", color="0.5")
        ax.axvline(0.95, ls=":", color="0.5")
        ax.plot([0, 1], [0, 1], color="0.8")
        ax.set_xlabel("bc coverage (old default)")
        ax.set_ylabel("rbc coverage (default)")
        ax.set_title(f"Ji et al. Table {table}: one point per cell")

# %% [markdown]
# ## 2. The calibration check on each bundled score set
#
# Each score file, 200 labels drawn at random (100 in fast mode), the rest
# unlabeled; the check of each group's map against its labeled examples.

# %%
rows = []
pairs = ["adult-sex", "german-age", "compas-sex"] if FAST else [
    "adult-race", "adult-sex", "german-age", "german-sex", "compas-race", "compas-sex"]
classifiers = ["LR", "NB"] if FAST else ["MLP", "LR", "RF", "NB"]
for name in pairs:
    spec = get_score_set(name)
    for clf in classifiers:
        frame = load_scores(name, clf)
        labeled, unlabeled = split_labeled(frame, 100 if FAST else 200, 0, method="random")
        data = bf.AssessmentData.from_frames(
            labeled, unlabeled, score="score", label="label", group="group",
            pos_label=spec.positive_label, reference=spec.privileged_group)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = bf.fit(data, metrics=["tpr"], random_seed=0, progressbar=False, **FIT)
        check = res.calibration_check(warn=False)
        for _, r in check.iterrows():
            rows.append({"data set": name, "classifier": clf, "group": r["group"],
                         "labeled": r["n_labeled"], "p-value": r["p_value"],
                         "verdict": r["verdict"]})
checks = pd.DataFrame(rows)
checks.round(3)

# %% [markdown]
# The German score columns are the probability of *bad* credit while the positive
# label is *good* credit (the files as the paper used them): the scores point the
# wrong way, and the check says so. Naive Bayes scores are nearly all exactly 0 or
# 1 on COMPAS; a beta-calibration map cannot describe them either.

# %% [markdown]
# ## 3. One group cubed or inverted, with known truth
#
# Two groups of 2,100 examples each, true probabilities p ~ Beta(2, 2), labels
# y ~ Bernoulli(p). Group A's scores are p (calibrated); group B's are p³ (cubed) or
# 1 − p (inverted). 100 labels per group, 2,000 unlabeled. The truth is Δ accuracy
# and Δ TPR (B − A) on all 4,200 examples.

# %%
def truth(labeled, unlabeled):
    both = pd.concat([labeled, unlabeled])
    out = {}
    for metric in ("accuracy", "tpr"):
        rate = {}
        for g, d in both.groupby("group"):
            yhat = d["score"] >= 0.5
            rate[g] = (yhat == d["label"]).mean() if metric == "accuracy" else (
                (yhat & (d["label"] == 1)).sum() / (d["label"] == 1).sum())
        out[metric] = rate["B"] - rate["A"]
    return out


results, fits = [], {}
for kind in ("none", "cubed", "inverted"):
    labeled, unlabeled = miscalibrated_scores(100, 2000, kind=kind, random_seed=1)
    data = bf.AssessmentData.from_frames(labeled, unlabeled, score="score", label="label",
                                         group="group", reference="A")
    t = truth(labeled, unlabeled)
    for model in ("bb", "bc", "rbc"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = bf.fit(data, model, metrics=["accuracy", "tpr"], random_seed=1,
                         progressbar=False, **FIT)
        fits[kind, model] = res
        for metric in ("accuracy", "tpr"):
            d = res.difference(metric, "B", "A").values.ravel()
            lo, hi = np.nanquantile(d, [0.025, 0.975])
            results.append({"scores of B": kind, "model": model, "metric": metric,
                            "truth": t[metric], "mean": np.nanmean(d), "lower": lo,
                            "upper": hi, "covers": lo <= t[metric] <= hi})
pd.DataFrame(results).round(3)

# %% [markdown]
# With calibrated scores all three agree and `bc`/`rbc` are much narrower than `bb`.
# With B's scores inverted, `bc` stays narrow and misses by 35 points; `rbc` detects
# the contradiction between B's map and B's labels, lets B's labeled examples carry
# B's rates, and covers. With B's scores cubed, the map, shifted, still fits B's 100
# labels within binomial noise: neither the calibration check nor `rbc` can tell, and
# both calibration models can miss (here by about 8 points in accuracy). That is
# the known limit of what 100 labels reveal about a map's shape (even the most
# powerful test flags it in about 17% of data sets: Concepts). Over 60 such data
# sets `rbc`'s interval of Δ accuracy covered in 53 (0.88 against the nominal 0.95);
# `bb` covers here, with an interval of Δ accuracy 1.7 times as wide. The calibration
# check:

# %%
for kind in ("cubed", "inverted"):
    print(kind)
    display(fits[kind, "rbc"].calibration_check(warn=False).round(3))

# %%
fig, axes = plt.subplots(1, 2, figsize=(8, 3.8), sharey=True)
plots.plot_reliability(fits["inverted", "rbc"], axes=axes)
fig.suptitle("Inverted scores in group B: the map against the labels")
fig.tight_layout()
