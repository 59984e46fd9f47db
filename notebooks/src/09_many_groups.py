# %% [markdown]
# # Many groups: an intersectional audit that reads at a glance
#
# UCI Adult income, an MLP's scores, and three sensitive attributes at once: race ×
# sex × age band, up to 60 intersectional groups. We pretend that 1,000 rows are
# labeled (at random) and the other 9,054 unlabeled, and ask what an auditor of many
# groups asks first: **is the family within ε, and which groups are worst off?**
#
# 1. the group view (each group against all rows, with a band that holds for all
#    groups together) and the family view (max − min, min/max) of the default model;
# 2. the same gaps from fairlearn's `MetricFrame` (bootstrap intervals per
#    quantity, no family guarantee, no pooling) and from bayesfair's frequentist
#    simultaneous band (the max-|t| bootstrap);
# 3. the max-|t| bootstrap on COMPAS's races, whose smallest groups have 6 and 3
#    rows;
# 4. a coverage simulation against a known truth;
# 5. New York City's bias-audit rule's worked example, with what its table cannot say.

# %%
import os
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from fairlearn.metrics import MetricFrame, true_positive_rate

import bayesfair as bf
from bayesfair.datasets.simulate import many_groups
from bayesfair.report.group_plots import plot_group_gaps

FAST = os.environ.get("BAYESFAIR_FAST") == "1"
FIT = {"draws": 300, "tune": 300, "chains": 2} if FAST else {"draws": 1000, "tune": 1000, "chains": 4}
warnings.filterwarnings("ignore")
pd.set_option("display.width", 160)

# %% [markdown]
# ## The data: race × sex × age band
#
# The score file's row number is the row among the raw file's complete rows
# (`data/README.md`, "Row numbers"); the age comes from there.

# %%
scores = bf.datasets.load_scores("adult-race", "MLP")
raw = bf.datasets.load_raw("adult").dropna().reset_index(drop=True)
assert (raw.loc[scores.index, "race"].to_numpy() == scores["raw_group"].to_numpy()).all()
age = raw.loc[scores.index, "age"].to_numpy()
bands = pd.cut(age, [0, 25, 35, 45, 55, 65, 200], right=False,
               labels=["<25", "25-34", "35-44", "45-54", "55-64", "65+"])
rows = scores.assign(race=scores["raw_group"], age_band=np.asarray(bands, dtype=str))
rng = np.random.default_rng(0)
labeled = rows.iloc[rng.choice(len(rows), 1000, replace=False)]
unlabeled = rows.drop(labeled.index).drop(columns="label")
data = bf.AssessmentData.from_frames(labeled, unlabeled, score="score", label="label",
                                     group=["race", "sex", "age_band"])
sizes = data.group_sizes()
print(f"{data.n_groups} groups; labeled per group: median {sizes.n_labeled.median():.0f}, "
      f"{(sizes.n_labeled == 0).sum()} groups without labels, "
      f"{(sizes.n_labeled < 5).sum()} with fewer than 5")

# %% [markdown]
# ## The default model's group and family views

# %%
res = bf.fit(data, random_seed=0, progressbar=False, **FIT)
groups = res.group_summary(["accuracy", "tpr"], epsilon=0.02)
groups[groups.metric == "tpr"].sort_values("gap").head(8).round(3)

# %% [markdown]
# The gap is to the rate over all 10,054 rows; the band holds for the groups jointly.
# `prob_worst` names who is most probably worst off. The family view:

# %%
family = res.family_summary(["accuracy", "tpr", "fpr", "selection_rate"], epsilon=0.05)
family.round(3)

# %%
fig, axes = plt.subplots(1, 2, figsize=(12, 11))
for ax, metric in zip(axes, ["accuracy", "tpr"]):
    plot_group_gaps(groups, metric, epsilon=0.02, ax=ax)
    ax.set_title(metric)
fig.tight_layout()

# %% [markdown]
# ## fairlearn's `MetricFrame` and the frequentist simultaneous band
#
# `MetricFrame` computes the same per-group rates from the labeled rows, with
# bootstrap percentile intervals per group (`n_boot`, `ci_quantiles`): each holds at
# 95% for its group alone, nothing holds for the family, and the groups do not borrow
# from each other. `group_intervals` gives the gaps to all labeled rows with a band
# that holds jointly (max-|t| bootstrap; Bonferroni–Wilson under 10 labels).

# %%
y_pred = (labeled["score"] >= 0.5).astype(int)
sensitive = labeled[["race", "sex", "age_band"]].astype(str).agg(" & ".join, axis=1)
mf = MetricFrame(metrics=true_positive_rate, y_true=labeled["label"], y_pred=y_pred,
                 sensitive_features=sensitive, n_boot=200 if FAST else 1000,
                 ci_quantiles=[0.025, 0.975], random_state=0)
fl = pd.DataFrame({"rate": mf.by_group, "lower": mf.by_group_ci[0], "upper": mf.by_group_ci[1]})
freq = bf.frequentist.group_intervals(data, "tpr", random_seed=0).set_index("group")
bayes = groups[groups.metric == "tpr"].set_index("group")
side = pd.DataFrame({
    "labeled positives": freq["trials"],
    "fairlearn width (per group)": (fl["upper"] - fl["lower"]).reindex(freq.index).to_numpy(),
    "max-|t| band width (joint)": freq["gap_upper"] - freq["gap_lower"],
    "bayesfair band width (joint)": (bayes["gap_upper"] - bayes["gap_lower"]).reindex(freq.index),
})
side.describe().loc[["count", "50%", "min", "max"]].round(3)

# %% [markdown]
# Groups with one or two labeled positives get a zero-width fairlearn interval (every
# resample has the same rate) — a confident answer from one label. The joint bands do
# not: the frequentist one falls back on Bonferroni–Wilson there, and the model
# borrows the group's calibration map from the others and uses its unlabeled rows.

# %%
print("fairlearn intervals of zero width:", int(((fl["upper"] - fl["lower"]) == 0).sum()))
print("labeled-only band, median width:", round(float(side["max-|t| band width (joint)"].median()), 3))
print("bayesfair band, median width:   ", round(float(side["bayesfair band width (joint)"].median()), 3))

# %% [markdown]
# ## COMPAS's smallest races
#
# COMPAS's test split has 6 Asian and 3 Native American defendants. A simultaneous
# interval that is honest about them is nearly [−1, 1] (Cherian & Candès report the
# same of their max-statistic bootstrap):

# %%
compas = bf.datasets.load_scores("compas-race", "LR")
cdata = bf.AssessmentData(scores=compas["score"], labels=compas["label"],
                          groups=compas["raw_group"])
bf.frequentist.group_intervals(cdata, "accuracy", random_seed=0).round(3)

# %% [markdown]
# ## Coverage against a known truth
#
# 30 groups of unequal sizes (0 to 40 labels, 500 to 8,000 unlabeled rows), one
# group calibrated a logit of 1 away from the others. The truth is the gap on the
# assessed rows, whose labels the simulation keeps.

# %%
def coverage(reps, k=30, seed=0):
    n_lab = np.resize([0, 1, 3, 5, 10, 20, 40], k)
    n_unl = np.resize([500, 2000, 8000], k)
    out = []
    for r in range(reps):
        lab, unl = many_groups(k, n_lab, n_unl, distorted=(0,), random_seed=seed + r)
        d = bf.AssessmentData.from_frames(lab, unl.drop(columns=["label", "p"]), score="score",
                                          label="label", group="group")
        fit = bf.fit(d, random_seed=r, progressbar=False, **FIT)
        view = fit.group_summary("accuracy").set_index("group")
        both = pd.concat([lab, unl])
        right = (both["score"] >= 0.5) == both["label"]
        truth = right.groupby(both["group"]).mean() - right.mean()
        inside = (truth >= view["gap_lower"]) & (truth <= view["gap_upper"])
        spread = truth.max() - truth.min()
        fam = fit.family_summary("accuracy").iloc[0]
        out.append({"joint": bool(inside.all()),
                    "max_min": fam["max_gap_lower"] <= spread <= fam["max_gap_upper"],
                    "width": float((view["gap_upper"] - view["gap_lower"]).median())})
    return pd.DataFrame(out)


runs = coverage(3 if FAST else 20)
print(f"{len(runs)} data sets: joint coverage {runs.joint.mean():.2f}, max − min coverage "
      f"{runs.max_min.mean():.2f}, median band width {runs.width.median():.3f}")

# %% [markdown]
# The full simulation (10 to 60 groups, alike and with one or two groups scored
# differently, beside the frequentist band and the known-calibration oracle) is
# `benchmarks/many_groups.py`; its figures are in `docs/results/many_groups.md`.
#
# ## A bias audit under New York City's rule
#
# The rule's worked example, reproduced exactly (rates and impact ratios), with what
# its table cannot say: how sure each ratio is, P(ratio < 0.8) and P(most selected).

# %%
table = bf.datasets.load_selection_example()
audit = bf.impact_ratios(table, group="category", n="applicants", selected="selected",
                         unknown=250, random_seed=0)
audit.assign(published=table["published_impact_ratio"]).drop(columns="excluded").round(3)

# %% [markdown]
# The category of 17 applicants has the published ratio 0.789, "below four fifths";
# its band spans roughly a third to nearly two, and P(ratio < 0.8) is about one half.
# The rule's 2% exclusion leaves it (and the 24- and 32-applicant categories) out:

# %%
bf.impact_ratios(table, group="category", n="applicants", selected="selected",
                 exclude_below=0.02, random_seed=0)[["group", "n", "ratio", "excluded"]]
