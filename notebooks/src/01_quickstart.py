# %% [markdown]
# # Quickstart: is this classifier as accurate for women as for men?
#
# A bundled real case: UCI Adult income, an MLP's scores, the sensitive attribute
# *sex* (privileged group: Male). We pretend that only **100 examples are labeled**
# (drawn at random) and the other 9,954 are unlabeled, as in an audit. We compare the
# beta-binomial model (BB, labeled data only) with the hierarchical Bayesian
# calibration model (BC, which uses the unlabeled scores; Ji, Smyth & Steyvers 2020)
# for Δ accuracy, Δ TPR and Δ FPR, and read P(|Δ| < 0.02).

# %%
import os
import warnings

import matplotlib.pyplot as plt
from IPython.display import Markdown, display

import bayesfair as bf
from bayesfair.datasets import load_scores
from bayesfair.report import plots

FAST = os.environ.get("BAYESFAIR_FAST") == "1"
FIT = {"draws": 300, "tune": 300, "chains": 2} if FAST else {"draws": 1000, "tune": 1000, "chains": 4}
warnings.filterwarnings("ignore", category=FutureWarning)

# %%
data = bf.datasets.load_assessment("adult-sex", "MLP", n_labeled=100, random_seed=0)
data

# %%
data.group_sizes()

# %% [markdown]
# The ground truth is known here, because the whole test split is labeled:

# %%
full = load_scores("adult-sex", "MLP")
acc = ((full["score"] >= 0.5) == full["label"]).groupby(full["group"]).mean()
print(f"true Δ accuracy (Female − Male) = {acc['Female'] - acc['Male']:.3f}")

# %%
bb = bf.fit(data, model="bb", random_seed=1, progressbar=False, **FIT)
bc = bf.fit(data, model="bc", random_seed=1, progressbar=False, **FIT)
bc.summary(metrics=["accuracy", "tpr", "fpr"], epsilon=0.02)

# %%
bb.summary(metrics=["accuracy", "tpr", "fpr"], epsilon=0.02)

# %% [markdown]
# BC's posteriors are several times narrower than BB's: the unlabeled scores, once
# calibrated per group, say a lot about each group's accuracy. The price is an
# assumption: the beta-calibration family must fit each group's miscalibration.

# %%
fig, axes = plt.subplots(1, 3, figsize=(15, 4))
for ax, metric in zip(axes, ["accuracy", "tpr", "fpr"], strict=True):
    freq = data.rates(metric)
    plots.plot_difference({"BB": bb, "BC": bc}, metric, epsilon=0.02,
                          freq_estimate=freq["Female"] - freq["Male"], ax=ax)
fig.tight_layout()

# %%
for metric in ["accuracy", "tpr", "fpr"]:
    p = bc.prob_practically_fair(metric, epsilon=0.02).iloc[0]
    print(f"BC: P(|Δ {metric}| < 0.02) = {p:.3f};  decision: "
          f"{bc.summary([metric], epsilon=0.02)['decision'].iloc[0]}")

# %%
plots.plot_calibration(bc, data);

# %% [markdown]
# ## The side-by-side report

# %%
comparison = bf.compare(data, ["accuracy", "tpr", "fpr"], epsilon=0.02, random_seed=0,
                        posteriors={"bb": bb, "bc": bc}, progressbar=False,
                        fit_kwargs=FIT)
display(Markdown(comparison.to_markdown()))
