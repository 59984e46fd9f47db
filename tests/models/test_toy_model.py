"""A new model is its catalogue entry, its builder and its test; a new metric one entry.

The test copies the package, makes exactly those edits in the copy (the toy model's
builder as a new module of ``bayesfair/models``, its entry appended to the catalogue,
a toy rate appended to the rate catalogue) and runs, in a fresh process on the copy,
what a user reaches with a model and a metric: ``fit``, its summary, prior sensitivity,
the side-by-side comparison and its report, and the paper experiments' method list.
Nothing else in the package is edited.
"""

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "bayesfair"

#: The toy model's builder: every rate Beta(1 + x, 1 + n − x) on its own, drawn exactly.
BUILDER = '''
"""A toy labeled-count model: each rate Beta(1 + successes, 1 + failures), exactly."""

import numpy as np
import xarray as xr

from bayesfair._internal.tree import make_tree
from bayesfair.models.beta_binomial import BetaPrior
from bayesfair.models.labeled import labeled_fractions
from bayesfair.models.priors import log_beta_pdf


def fit_toy(counts, metrics, prior, sampler, rng, run):
    x, n = labeled_fractions(counts, metrics)
    theta = rng.beta(1 + x, 1 + n - x, size=(run["chains"], run["draws"], *x.shape))
    dims = ("chain", "draw", "metric", "group")
    return make_tree({"posterior": xr.Dataset({"theta": (dims, theta)})})


def toy_prior_rates(prior, trials, n, rng, metrics=None):
    return rng.beta(1.0, 1.0, size=(n, *np.shape(trials)))


def toy_log_prior(idata, settings, metric):
    rates = idata["rates"][metric].transpose("chain", "draw", "group").values
    return np.nansum(log_beta_pdf(rates, 1.0, 1.0), axis=-1)
'''

ENTRY = """

from bayesfair.models.toy import fit_toy, toy_log_prior, toy_prior_rates  # noqa: E402

MODEL_SPECS["toy"] = ModelSpec(
    "toy",
    "each rate its own Beta(1 + x, 1 + n - x), labeled data only",
    "TOY",
    "TOY, the toy model of the labeled examples",
    uses_unlabeled=False,
    has_map=False,
    view_words="the toy model (TOY, labeled examples only)",
    color="#9467bd",
    prior_type=BetaPrior,
    fit_counts=fit_toy,
    prior_rates=toy_prior_rates,
    log_prior=toy_log_prior,
    exact_sampler=True,
    seed_slot=5,
)
"""

METRIC = """    Rate("threat_score", "threat score", ("tp",), ("tp", "fp", "fn"), True),
"""

RUN = """
import warnings
import numpy as np
import bayesfair as bf
from bayesfair.experiments import METHODS

rng = np.random.default_rng(0)
scores = rng.uniform(size=400)
labels = (rng.uniform(size=400) < scores).astype(int)
groups = np.where(rng.uniform(size=400) < 0.5, "A", "B")
data = bf.AssessmentData(scores, labels, groups)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    res = bf.fit(data, "toy", draws=200, chains=2, random_seed=0, progressbar=False)
    table = res.summary(metrics=["accuracy", "threat_score"])
    sens = res.sensitivity(["threat_score"])
    comp = bf.compare(data, ["threat_score"], models=("toy", "bb"), n_resamples=200,
                      random_seed=0, fit_kwargs=dict(draws=200, chains=2), progressbar=False)
print("MODELS", "toy" in bf.MODELS, "toy" in METHODS)
print("SUMMARY", list(table["metric"]), table["decision"].notna().all())
print("SENSITIVITY", np.isfinite(sens["statistic"]).all())
print("COMPARE", "toy" in comp.posteriors, "TOY" in comp.to_markdown())
"""


def test_a_toy_model_and_a_toy_metric_reach_every_consumer(tmp_path):
    copy = tmp_path / "bayesfair"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "models" / "toy.py").write_text(textwrap.dedent(BUILDER))  # file 1: the builder
    catalogue = copy / "models" / "catalogue.py"  # file 2: the entry
    catalogue.write_text(catalogue.read_text() + ENTRY)
    rates = copy / "metrics" / "rates.py"  # the metric: one entry
    text = rates.read_text()
    last = '    Rate("base_rate", "base rate (prevalence)", ("tp", "fn"), _ALL, None),\n'
    assert text.count(last) == 1
    rates.write_text(text.replace(last, last + METRIC))
    done = subprocess.run(
        [sys.executable, "-c", RUN],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines() if " " in line)
    assert lines["MODELS"] == "True True"
    assert lines["SUMMARY"] == "['accuracy', 'threat_score'] True"
    assert lines["SENSITIVITY"] == "True"
    assert lines["COMPARE"] == "True True"
