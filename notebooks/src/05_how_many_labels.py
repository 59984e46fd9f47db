# %% [markdown]
# # How many labels are enough?
#
# Ethayarajh (2020) asks how many labeled examples a claim of bias needs, using a
# distribution-free Bernstein bound. His worked example: with C = 1, ρ = 0.95,
# γ = 0.5 and σ² = 4, a disparity of 0.05 is a claim only with n ≥ 11,903 labels.
# Next to it we show how the posterior width of Δ accuracy shrinks with n_L — with
# labeled data only (BB) and with the unlabeled scores too (BC).

# %%
import os
import warnings

import matplotlib.pyplot as plt
import pandas as pd

import bayesfair as bf
from bayesfair.frequentist import bernstein_half_width, bernstein_required_n

FAST = os.environ.get("BAYESFAIR_FAST") == "1"
warnings.filterwarnings("ignore", category=FutureWarning)

# %%
n_needed = bernstein_required_n(0.05, ci_prob=0.95, cost_range=1.0,
                                min_group_fraction=0.5, variance=4.0)
print("labels needed for a 0.05 disparity:", n_needed)
print("t(11,902) =", round(float(bernstein_half_width(11_902)), 7),
      " t(11,903) =", round(float(bernstein_half_width(11_903)), 7))
print("WinoBias, n = 3,160: t =", round(float(bernstein_half_width(3_160)), 4))

# %%
n_grid = [10, 20, 50, 100, 200, 500] if FAST else [10, 20, 50, 100, 200, 500, 1000, 2000]
reps = 2 if FAST else 10
FIT = {"draws": 300, "tune": 300, "chains": 2} if FAST else {"draws": 500, "tune": 500, "chains": 4}
rows = []
for n_l in n_grid:
    for r in range(reps):
        data = bf.datasets.load_assessment("adult-sex", "MLP", n_labeled=n_l, random_seed=r)
        for model in ("bb", "bc"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = bf.fit(data, model=model, metrics=["accuracy"], random_seed=r,
                             progressbar=False, **FIT)
            lo, hi = bf.stats.hdi(res.difference("accuracy").values)
            rows.append({"n_labeled": n_l, "model": model, "width": hi - lo})
widths = pd.DataFrame(rows).groupby(["n_labeled", "model"])["width"].mean().unstack()
widths["bernstein (2t)"] = [2 * float(bernstein_half_width(n, min_group_fraction=0.32,
                                                          variance=1 / 0.32 + 1 / 0.68))
                            for n in widths.index]
widths.round(3)

# %%
fig, ax = plt.subplots(figsize=(6.5, 4))
for col, style in zip(widths.columns, ["o-", "s-", "^--"], strict=True):
    ax.plot(widths.index, widths[col], style, label=col)
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("labeled examples n_L")
ax.set_ylabel("width of the 95% interval of Δ accuracy")
ax.set_title("Adult, sex, MLP: interval width against n_L")
ax.legend();

# %% [markdown]
# The Bernstein interval is distribution-free and so very wide; the BB posterior
# narrows like 1/√n_L; BC, which calibrates the ~10,000 unlabeled scores per group,
# is already narrow at n_L = 10 and narrows further as calibration improves. Its
# width rests on the calibration model fitting each group (see the reproduction
# notebook for a case where it does not).
