# %% [markdown]
# # When the group is a probability: an audit with a BISG-style proxy
#
# A lender wants the gaps of its credit model between races, but it does not collect
# race. It holds, for every applicant, a proxy's probabilities of each race (here a
# first-name-and-ZIP-code proxy built from the census tables, BIFG), and for a few
# hundred applicants who answered a survey, their self-reported race. Outcomes (did the
# loan default) are known for 1,000 applicants; the scores for 20,000.
#
# We simulate that audit on real data: Adult's MLP scores, labels and races, each person
# given a first name and a ZIP code drawn from their race's census shares
# (`bayesfair.datasets.proxies.census_proxy_audit`). The proxy is computed as a BIFG
# would be, with the census's national shares as its prior, so it over-predicts White in
# a population where every group is equally common. The truth is known.
#
# 1. the default fit: the proxy calibrated on the self-reported rows, the unlabeled
#    scores through the calibration maps;
# 2. beside it, the field's practice (each row counted in every group with its
#    probability), the bounds without any assumption on how proxy and outcome relate,
#    and the labeled rows with a self-reported group alone;
# 3. when the proxy carries outcome information within a group (positives live
#    elsewhere);
# 4. with no self-reported row at all: what the numbers then rest on.

# %%
import os
import warnings

import numpy as np
import pandas as pd

import bayesfair as bf
from bayesfair.datasets.proxies import census_proxy_audit

FAST = os.environ.get("BAYESFAIR_FAST") == "1"
FIT = {"draws": 300, "tune": 300, "chains": 2} if FAST else {"draws": 1000, "tune": 1000, "chains": 4}
METRICS = ["selection_rate", "tpr", "fpr", "accuracy"]
warnings.filterwarnings("ignore")
pd.set_option("display.width", 160)

# %% [markdown]
# ## The audit
#
# `frames()` gives what the lender holds: the labeled frame with `group` filled for the
# 600 self-reported rows and empty elsewhere, the unlabeled frame with no group and no
# label, and one probability column per group in both.

# %%
audit = census_proxy_audit(k=3, n_labeled=1000, n_unlabeled=20_000, n_self_reported=600, random_seed=3)
labeled, unlabeled = audit.frames()
print(audit.group_probabilities)
labeled.head()

# %%
data = bf.AssessmentData.from_frames(
    labeled, unlabeled, score="score", label="label", group="group",
    group_probabilities=audit.group_probabilities, reference="White",
)
print(data, f"{data.proxy.n_unknown():,} rows known only by proxy")


def truth_gaps(audit, metric, reference="White"):
    """The true gaps over every row (labeled and unlabeled) by its true group."""
    t = audit.truth(metric)
    return {g: t[g] - t[reference] for g in t if g != reference}


# %% [markdown]
# ## 1. The default fit
#
# `bf.fit` keeps each row of unknown group as a latent group: the proxy is calibrated on
# the self-reported rows (a multinomial calibration of its probabilities, with the score),
# and the proxy's link to the outcome within a group is learned from the labeled ones.
# Every summary row says what the groups rest on.

# %%
res = bf.fit(data, random_seed=0, progressbar=False, **FIT)
summary = res.summary(metrics=METRICS)
summary["truth"] = [truth_gaps(audit, m)[g] for m, g in zip(summary["metric"], summary["group"])]
summary[["metric", "group", "mean", "hdi_lower", "hdi_upper", "truth", "decision"]].round(3)

# %%
print(summary["estimand"].iloc[0])

# %% [markdown]
# `proxy_summary` compares the proxy with the self-reported groups: the proxy gives White
# far more than its share (its prior is the nation's, not this population's), which the
# calibration corrects. It also says how strong a link between proxy and outcome would
# have to be to change a verdict.

# %%
res.proxy_summary()[
    ["group", "n_self_reported", "mean_probability", "share", "proxy_gap_lower",
     "proxy_gap_upper", "unknown_rows_proxy", "unknown_rows", "link", "link_to_change"]
].round(3)

# %% [markdown]
# ## 2. Beside it: weighting, bounds and the self-reported rows alone

# %%
def side_by_side(data, res, audit, bb):
    rows = []
    for m in METRICS:
        truth = truth_gaps(audit, m)
        s = res.summary(metrics=[m]).set_index("group")
        b = bb.summary(metrics=[m]).set_index("group")
        for g, t in truth.items():
            w = bf.frequentist.proxy_weighted_difference(data, m, group=g, random_seed=0)
            bounds = bf.frequentist.proxy_bounds(data, m, group=g, random_seed=0)
            rows.append({
                "metric": m, "group": g, "truth": t,
                "default": f"[{s.loc[g, 'hdi_lower']:.3f}, {s.loc[g, 'hdi_upper']:.3f}]",
                "weighted": f"[{w.interval[0]:.3f}, {w.interval[1]:.3f}]",
                "bounds": f"[{bounds.interval[0]:.3f}, {bounds.interval[1]:.3f}]",
                "BB (self-reported)": f"[{b.loc[g, 'hdi_lower']:.3f}, {b.loc[g, 'hdi_upper']:.3f}]",
            })
    return pd.DataFrame(rows).round(3)


bb = bf.fit(data, model="bb", random_seed=0, progressbar=False)
side_by_side(data, res, audit, bb)

# %% [markdown]
# The weighted estimator's interval is narrow and, for the selection rate, misses the
# truth: the groups the proxy mixes differ in their scores, so counting each row in
# every group by its probability pulls the groups' rates together (Chen et al. 2019).
# The bounds assume nothing about proxy and outcome and hold the truth, at the width of
# knowing little. The default is narrower than BB on the 600 self-reported rows because
# the 20,000 scores enter through the calibration maps.
#
# ## 3. A proxy that knows about the outcome
#
# Now positives live in other ZIP codes than negatives of their race (`link=1.5`): the
# proxy carries outcome information within a group.

# %%
linked = census_proxy_audit(k=3, n_labeled=1000, n_unlabeled=20_000, n_self_reported=600, link=1.5, random_seed=3)
lab2, unl2 = linked.frames()
data2 = bf.AssessmentData.from_frames(
    lab2, unl2, score="score", label="label", group="group",
    group_probabilities=linked.group_probabilities, reference="White",
)
res2 = bf.fit(data2, random_seed=0, progressbar=False, **FIT)
bb2 = bf.fit(data2, model="bb", random_seed=0, progressbar=False)
side_by_side(data2, res2, linked, bb2)

# %% [markdown]
# ## 4. No self-reported row
#
# Without a single self-reported group nothing in the data can check the proxy. The
# model then takes it as calibrated and independent of the score and the outcome given
# the group, learns each group's score distribution from how scores vary with the
# proxy, and says so in every verdict; the bounds, which assume neither, stand beside.

# %%
blind = census_proxy_audit(k=3, n_labeled=1000, n_unlabeled=20_000, n_self_reported=0, random_seed=3)
lab3, unl3 = blind.frames()
data3 = bf.AssessmentData.from_frames(
    lab3, unl3, score="score", label="label", group="group",
    group_probabilities=blind.group_probabilities, reference="White",
)
res3 = bf.fit(data3, random_seed=0, progressbar=False, **FIT)
s3 = res3.summary(metrics=["selection_rate", "tpr"])
s3["truth"] = [truth_gaps(blind, m)[g] for m, g in zip(s3["metric"], s3["group"])]
s3["bounds"] = [
    tuple(np.round(bf.frequentist.proxy_bounds(data3, m, group=g, random_seed=0).interval, 3))
    for m, g in zip(s3["metric"], s3["group"])
]
print(s3["estimand"].iloc[0])
s3[["metric", "group", "mean", "hdi_lower", "hdi_upper", "truth", "bounds", "decision"]].round(3)

# %% [markdown]
# The proxy here is the census's, whose prior is the nation's: with no self-reported row
# to correct it, the posterior rests on a proxy that is not calibrated for this
# population, and says so. The bounds are what holds without that assumption.
