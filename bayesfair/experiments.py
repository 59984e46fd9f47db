"""Repeated-subsampling experiments: how far are Δ estimates from the truth, and how often
do their intervals cover it (Ji, Smyth & Steyvers 2020, §4, Tables 2–3, Fig. 4).

One *run* draws a labeled set of ``n_L`` rows from a bundled test split (the
rest of the split is the unlabeled set), estimates the group difference

    Δ = rate(unprivileged) − rate(privileged)

with every requested method, and compares each estimate with the *truth*, the
same Δ computed on the whole split (Ji et al. §3: "we use as a proxy the value
of metric computed on all of the test set"). :func:`run_experiment` repeats
this over ``n_runs`` labeled sets and returns one tidy row per run and method;
:func:`mae_table` summarises the rows into the mean absolute error (MAE, ×100,
as in the paper's tables) with its Monte Carlo standard error, and the
coverage and width of the intervals; :func:`run_grid` repeats an experiment
over several ``n_L`` for Fig. 4-style curves.

Methods
-------
``"freq"``
    The plug-in frequency estimate from the labeled counts, with Newcombe's
    hybrid score interval (Newcombe 1998, method 10) built from the groups'
    Wilson intervals.
``"bb"``
    The beta-binomial of the labeled counts (Ji et al. §2.2; one Dirichlet(1) over
    each group's four cells): the posterior mean of Δ and a posterior interval.
``"hbb"``
    The hierarchical beta-binomial (partial pooling of the group rates).
``"bc"``
    Hierarchical Bayesian beta calibration with the unlabeled scores (Ji et
    al. §2.3–2.4, Eq. 1–2): the posterior mean of Δ and a posterior interval.
``"rbc"``
    The default model of :func:`bayesfair.fit`: ``bc`` in which each group
    and side of the threshold may follow its own labeled rate instead of the
    map. Like every calibration model here it reports ``fit``'s default
    estimand (the assessed gap) unless ``fit_kwargs``/``method_kwargs`` say
    otherwise.

Intervals of the Bayesian methods are **equal-tailed** by default
(``interval="eti"``): the ETI is invariant to monotone transformations, its
end points are plain quantiles whose Monte Carlo error is smaller than that of
the HDI's end points, and for the nearly symmetric posteriors of Δ the two
nearly agree. ``interval="hdi"`` gives highest-density intervals instead.

Randomness
----------
All of it comes from one ``random_seed``: a :class:`numpy.random.SeedSequence`
spawns one child per run, and each run's child spawns fixed children for the
labeled split and for each model, so a run's labeled set and a method's fit do
not depend on which other methods are requested, and the same run index draws
the same permutation for every ``n_L`` (nested labeled sets across a grid:
common random numbers that make error curves smooth).
"""

from __future__ import annotations

import functools
import math
import time
import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from bayesfair._internal.names import suggest
from bayesfair._internal.progress import track
from bayesfair._internal.validation import (
    check_positive_int,
    check_probability,
    seed_record,
    seed_sequence,
    sequence_from_record,
)
from bayesfair.data.assessment import AssessmentData
from bayesfair.data.engines.dask import dask_client
from bayesfair.data.examples import count_confusion
from bayesfair.datasets import get_score_set, load_scores, split_labeled
from bayesfair.exceptions import InvalidParameterError, UndefinedRateWarning
from bayesfair.frequentist.intervals import newcombe_interval
from bayesfair.metrics.rates import get_rate, rate_fraction
from bayesfair.models.catalogue import (
    LABELED_MODEL,
    MODEL_SPECS,
    PAPER_MODEL,
    models_with_map,
    verdict_order,
)
from bayesfair.posterior.fitting import fit, model_options
from bayesfair.stats import eti, hdi

__all__ = ["METHODS", "mae_table", "run_experiment", "run_grid"]

#: Estimation methods of :func:`run_experiment`, with a one-line description: the
#: frequency estimate, then the models from the simplest to the default.
METHODS = {
    "freq": "frequency estimate from the labeled counts, Newcombe hybrid score interval",
    **{name: MODEL_SPECS[name].description for name in reversed(verdict_order())},
}
#: The methods of Ji et al.'s tables: the frequency estimate, the labeled rows' model and
#: the calibration model.
PAPER_METHODS = ("freq", LABELED_MODEL, PAPER_MODEL)

# Fixed positions of each run's child seeds: the split (slot 0) and each model's
# ``seed_slot`` (its catalogue entry), so that a new model never changes an old result.
_SEED_SLOTS = {"split": 0, **{name: spec.seed_slot for name, spec in MODEL_SPECS.items()}}
_CALIBRATION_METHODS = models_with_map()

#: The posterior intervals of :func:`run_experiment`'s ``interval`` option.
INTERVALS = {"eti": eti, "hdi": hdi}

#: Columns of the frame :func:`run_experiment` returns.
COLUMNS = (
    "dataset",
    "classifier",
    "metric",
    "n_labeled",
    "run",
    "method",
    "estimate",
    "truth",
    "abs_error",
    "lower",
    "upper",
    "covered",
    "width",
    "n_labeled_group",
    "n_labeled_reference",
    "seconds",
    "warnings",
    "median",
)


# --------------------------------------------------------------------------- NumPy layer
def group_counts(scores, labels, group_codes, n_groups: int, threshold: float) -> np.ndarray:
    """Confusion counts per group at ``threshold``, shape ``(n_groups, 4)`` (tp, fp, tn, fn).

    :func:`bayesfair.data.examples.count_confusion` of ŷ = 1[score ≥ threshold].
    """
    return count_confusion(np.asarray(scores) >= threshold, labels, group_codes, n_groups)


def frequency_difference(counts, metric: str, ci_prob: float = 0.95) -> tuple[float, float, float]:
    """Plug-in Δ of ``counts[0]`` minus ``counts[1]`` with Newcombe's interval.

    Parameters
    ----------
    counts : array_like, shape (2, 4)
        Confusion counts of the compared group (row 0) and the reference (row 1).
    metric : str
    ci_prob : float

    Returns
    -------
    estimate, lower, upper : float
        All NaN when either group's denominator is zero (the rate is undefined).
    """
    num, den = rate_fraction(counts, metric)
    if np.any(den == 0):
        return (np.nan, np.nan, np.nan)
    lo, hi = newcombe_interval(num[0], den[0], num[1], den[1], ci_prob)
    return (float(num[0] / den[0] - num[1] / den[1]), float(lo), float(hi))


# --------------------------------------------------------------------------- validation
def _check_args(metric, n_labeled, n_runs, methods, interval, ci_prob):
    rate = get_rate(metric)
    n_runs = check_positive_int(n_runs, "n_runs")
    n_labeled = check_positive_int(n_labeled, "n_labeled")
    if isinstance(methods, str):
        methods = (methods,)
    methods = tuple(dict.fromkeys(methods))
    for m in methods:
        if m not in METHODS:
            raise InvalidParameterError(
                f"Unknown method {m!r} in 'methods'.{suggest(str(m), METHODS)} "
                f"Methods: {', '.join(METHODS)}."
            )
    if not methods:
        raise InvalidParameterError("The 'methods' parameter must name at least one method.")
    if interval not in ("eti", "hdi"):
        raise InvalidParameterError(
            f"The 'interval' parameter must be 'eti' or 'hdi'. Got {interval!r}."
        )
    return rate.name, n_labeled, n_runs, methods, check_probability(ci_prob)


# --------------------------------------------------------------------------- harness
def run_experiment(
    name: str,
    classifier: str = "MLP",
    metric: str = "accuracy",
    n_labeled: int = 10,
    n_runs: int = 100,
    methods: Sequence[str] = PAPER_METHODS,
    method: str = "ji2020",
    *,
    draws: int = 500,
    tune: int = 500,
    chains: int = 4,
    random_seed: int | np.random.SeedSequence | None = None,
    ci_prob: float = 0.95,
    interval: str = "eti",
    threshold: float = 0.5,
    progressbar: bool = True,
    fit_kwargs: dict | None = None,
    method_kwargs: dict | None = None,
    scheduler=None,
) -> pd.DataFrame:
    """Estimate Δ on ``n_runs`` random labeled subsets of a bundled test split.

    Parameters
    ----------
    name : str
        A score set of :func:`bayesfair.datasets.list_datasets`, e.g.
        ``"adult-sex"``. Its privileged group is the reference.
    classifier : str, default "MLP"
        ``"MLP"``, ``"LR"``, ``"RF"``, ``"NB"`` or ``"DT"``
        (:func:`bayesfair.datasets.load_scores`; ``"adult-sex"`` reads the
        scores Ji et al. used, those of ``adult_race_scores``).
    metric : str, default "accuracy"
        The rate whose group difference is estimated (Table 2: accuracy,
        Table 3: ``"tpr"``).
    n_labeled : int, default 10
        Size ``n_L`` of each labeled set.
    n_runs : int, default 100
        Number of labeled sets (Ji et al.: 100).
    methods : sequence of str, default ("freq", "bb", "bc")
        Methods from :data:`METHODS`.
    method : {"ji2020", "random"}, default "ji2020"
        How labeled sets are drawn (:func:`bayesfair.datasets.split_labeled`):
        ``"ji2020"`` labels one row of every raw sensitive value first, as the
        authors' code did, so that no group is ever without labels.
    draws, tune, chains : int
        Sampler settings of the Bayesian fits (``bb`` draws exactly).
    random_seed : None, int, numpy.random.SeedSequence or numpy.random.Generator, optional
        The one source of randomness (see the module docstring); its record
        (:func:`bayesfair.fit`) is in the returned frame's ``attrs["random_seed"]``.
    ci_prob : float, default 0.95
        Probability of every interval.
    interval : {"eti", "hdi"}, default "eti"
        Posterior interval of the Bayesian methods.
    threshold : float, default 0.5
        Decision threshold, ŷ = 1[s ≥ threshold].
    progressbar : bool, default True
        Report progress over runs on stderr. The fits' own progress bars are
        always off.
    fit_kwargs : dict, optional
        Further keywords for :func:`bayesfair.fit` (e.g. ``{"variant": "llo"}``);
        the calibration models' own options (``estimand``, ``discrepancy``,
        ``variant``, ...) reach only ``bc`` and ``rbc``.
    method_kwargs : dict of dict, optional
        Keywords for one method only, over ``fit_kwargs``, e.g.
        ``{"bc": {"estimand": "expected"}}``.
    scheduler : distributed.Client or str, optional
        Spread the runs over a Dask cluster's workers (one task per run): a
        client or a scheduler address, as :func:`bayesfair.summarize` takes
        it; None runs them here, one after another. The
        rows are the same as the serial run's for the same ``random_seed``
        (only the ``seconds`` column differs): every run draws from its own
        spawned seed. Each worker process keeps its compiled models.

    Returns
    -------
    pandas.DataFrame
        One row per run and method with the columns :data:`COLUMNS`:
        ``estimate`` (plug-in Δ for ``freq``, posterior mean for the Bayesian
        methods), ``truth`` (Δ on the whole split), ``abs_error``, the interval
        ``lower``/``upper``, ``covered`` (``lower ≤ truth ≤ upper``; a float,
        NaN when there is no interval), ``width``, the labeled counts of the
        two groups, the fit's wall time in ``seconds``, and the sampler
        ``warnings`` of the fit (R-hat, divergences), recorded, not raised, and the
        posterior ``median`` of Δ (the frequency estimate for ``freq``).

    Notes
    -----
    **Undefined frequency estimates.** When a group has no labeled example in
    the rate's denominator (e.g. no positive label, for the TPR) the plug-in Δ
    is undefined: its row has ``estimate``, ``abs_error`` and the interval NaN.
    :func:`mae_table` averages the defined runs only and reports how many were
    undefined (``n_undefined``); Ji et al.'s Table 3 prints "—" for such cells,
    and ``benchmarks/reproduce_ji2020.py`` marks them. The Bayesian methods are
    always defined (a rate without labeled support is informed by the prior,
    or for ``bc`` by the calibration model and the unlabeled scores).

    **Which truth BC's intervals cover.** With
    ``estimand="expected"`` (Ji et al. Eq. 1) the unlabeled rows contribute
    their *expected* correctness under each draw of the calibration maps, so
    the interval reflects uncertainty about the maps only, not the Bernoulli
    noise of the unlabeled labels themselves. The truth here is the realised
    Δ on the whole split (a finite population); when the unlabeled set is
    small that noise matters, and ``fit_kwargs={"estimand": "assessed"}``
    (the finite-population predictive) is the interval that covers it. On
    German-sex, LR, Δ TPR at ``n_L = 200`` (134 unlabeled rows), 40 runs:
    coverage 0.23 (width 1.3 points) with ``"expected"``, 0.95 (width 8.5)
    with ``"assessed"``; on Adult (10⁴ unlabeled rows) the two agree. The
    posterior *mean*, hence the MAE, is the same for both.

    References
    ----------
    Ji, Smyth & Steyvers 2020, §3 (truth on the whole test split), §4 and
    Tables 2–3 (MAE over 100 labeled sets), Fig. 4 (MAE vs ``n_L``).
    Newcombe 1998, *Stat. Med.* 17, 873–890, method 10.

    Examples
    --------
    >>> df = run_experiment("german-sex", "LR", n_runs=3, methods=("freq", "bb"),
    ...                     progressbar=False)
    >>> df.groupby("method").size().to_dict()
    {'bb': 3, 'freq': 3}
    """
    tasks, seed_seq = _experiment_tasks(
        name,
        classifier,
        metric,
        n_labeled,
        n_runs,
        methods,
        method,
        draws=draws,
        tune=tune,
        chains=chains,
        random_seed=random_seed,
        ci_prob=ci_prob,
        interval=interval,
        threshold=threshold,
        fit_kwargs=fit_kwargs,
        method_kwargs=method_kwargs,
    )
    if scheduler is not None:
        rows = _on_cluster(dask_client(scheduler), tasks, progressbar)
    else:
        job = tasks[0][0]
        label = f"{job['name']} {classifier} Δ{job['metric']} n_L={job['n_labeled']}"
        rows = []
        for task in track(tasks, len(tasks), label, progressbar):
            rows += _one_run(*task)
    out = pd.DataFrame(rows, columns=list(COLUMNS))
    out.attrs["random_seed"] = seed_record(seed_seq)
    return out


def _experiment_tasks(
    name,
    classifier="MLP",
    metric="accuracy",
    n_labeled=10,
    n_runs=100,
    methods=PAPER_METHODS,
    method="ji2020",
    *,
    draws=500,
    tune=500,
    chains=4,
    random_seed=None,
    ci_prob=0.95,
    interval="eti",
    threshold=0.5,
    fit_kwargs=None,
    method_kwargs=None,
):
    """Validate the arguments; one ``(job, run, seed)`` task per run, and the root seed."""
    metric, n_labeled, n_runs, methods, ci_prob = _check_args(
        metric, n_labeled, n_runs, methods, interval, ci_prob
    )
    seed_seq = seed_sequence(random_seed)
    fit_kwargs = dict(fit_kwargs or {})
    job = {
        "name": name,
        "classifier": classifier,
        "metric": metric,
        "n_labeled": n_labeled,
        "methods": tuple(methods),
        "method": method,
        "draws": draws,
        "tune": tune,
        "chains": chains,
        "ci_prob": ci_prob,
        "interval": interval,
        "threshold": threshold,
        "fit_kwargs": fit_kwargs,
        "labeled_kwargs": model_options(LABELED_MODEL, fit_kwargs),
        "method_kwargs": method_kwargs or {},
    }
    return [(job, r, s) for r, s in enumerate(seed_seq.spawn(n_runs))], seed_seq


@functools.lru_cache(maxsize=32)
def _split_and_truth(name, classifier, metric, threshold):
    """The score set, its split and the true Δ (cached: each worker loads a split once)."""
    spec = get_score_set(name)
    frame = load_scores(name, classifier)
    codes = (frame["group"] == spec.privileged_group).to_numpy().astype(np.intp)
    truth_counts = group_counts(frame["score"], frame["label"], codes, 2, threshold)
    num, den = rate_fraction(truth_counts, metric)
    return spec, frame, float(num[0] / den[0] - num[1] / den[1])


def _one_run(job: dict, run: int, run_seq) -> list[dict]:
    """One labeled set and every method on it: the rows of run ``run``.

    Everything random comes from ``run_seq``, so the rows are the same in any
    process and in any order (the serial loop and a Dask cluster agree).
    """
    metric, threshold, ci_prob = job["metric"], job["threshold"], job["ci_prob"]
    spec, frame, truth = _split_and_truth(job["name"], job["classifier"], metric, threshold)
    base = dict(
        dataset=spec.name,
        classifier=job["classifier"],
        metric=metric,
        n_labeled=job["n_labeled"],
        truth=truth,
    )
    children = run_seq.spawn(max(_SEED_SLOTS.values()) + 1)
    seeds = {name: children[slot] for name, slot in _SEED_SLOTS.items()}
    labeled, unlabeled = split_labeled(
        frame, job["n_labeled"], np.random.default_rng(seeds["split"]), method=job["method"]
    )
    lab_codes = (labeled["group"] == spec.privileged_group).to_numpy().astype(np.intp)
    counts = group_counts(labeled["score"], labeled["label"], lab_codes, 2, threshold)
    sizes = dict(
        n_labeled_group=int(np.sum(lab_codes == 0)),
        n_labeled_reference=int(np.sum(lab_codes == 1)),
    )
    data = None
    rows = []
    for m in job["methods"]:
        start = time.perf_counter()
        caught: list[str] = []
        if m == "freq":
            est, lo, hi = frequency_difference(counts, metric, ci_prob)
            med = est
        else:
            if data is None:
                data = _assessment(labeled, unlabeled, spec, threshold)
            with warnings.catch_warnings(record=True) as record:
                warnings.simplefilter("always")
                res = fit(
                    data,
                    m,
                    metrics=[metric],
                    draws=job["draws"],
                    tune=job["tune"],
                    chains=job["chains"],
                    random_seed=seeds[m],
                    progressbar=False,
                    **{
                        **(
                            job["fit_kwargs"]
                            if m in _CALIBRATION_METHODS
                            else job["labeled_kwargs"]
                        ),
                        **job["method_kwargs"].get(m, {}),
                    },
                )
            caught = [str(w.message) for w in record]
            d = res.difference(metric, spec.unprivileged_group, spec.privileged_group).values
            est = float(np.nanmean(d))
            med = float(np.nanmedian(d))
            lo, hi = INTERVALS[job["interval"]](d, ci_prob)
        rows.append(
            {
                **base,
                "run": run,
                "method": m,
                "estimate": est,
                "abs_error": abs(est - truth),
                "lower": lo,
                "upper": hi,
                "covered": float(lo <= truth <= hi) if not math.isnan(lo) else np.nan,
                "width": hi - lo,
                **sizes,
                "seconds": time.perf_counter() - start,
                "warnings": " | ".join(dict.fromkeys(caught)),
                "median": med,
            }
        )
    return rows


def _on_cluster(client, tasks, progressbar: bool) -> list[dict]:
    """Run ``_one_run`` for each ``(job, run, seed)`` on a Dask client, rows in task order.

    Each worker process keeps its compiled models (the sampler's cache is per
    process) and its loaded splits across the tasks it runs.
    """
    try:
        from distributed import as_completed
    except ImportError:
        raise ImportError(
            "Running experiments on a Dask cluster needs 'distributed': "
            "pip install 'bayesfair[dask]'."
        ) from None
    futures = [client.submit(_one_run, *task, pure=False) for task in tasks]
    index = {f.key: i for i, f in enumerate(futures)}
    results: list = [None] * len(futures)
    done = as_completed(futures)
    for future in track(done, len(futures), "runs on the cluster", progressbar):
        results[index[future.key]] = future.result()
    return [row for rows in results for row in rows]


def _assessment(labeled, unlabeled, spec, threshold) -> AssessmentData:
    # pos_label explicit: a labeled set of 10 is often all negatives. That set's rates that
    # need the other class are undefined, which the experiment counts per method (its
    # n_undefined); the data's warning about it would say so once per replicate.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Every labeled example is", UndefinedRateWarning)
        return AssessmentData(
            scores=labeled["score"].to_numpy(),
            labels=labeled["label"].to_numpy(),
            groups=labeled["group"].to_numpy(),
            unlabeled_scores=unlabeled["score"].to_numpy() if len(unlabeled) else None,
            unlabeled_groups=unlabeled["group"].to_numpy() if len(unlabeled) else None,
            threshold=threshold,
            pos_label=spec.positive_label,
            reference=spec.privileged_group,
        )


def run_grid(
    name: str,
    classifier: str = "MLP",
    metric: str = "accuracy",
    n_labeled: Sequence[int] = (10, 20, 50, 100, 200, 500),
    **kwargs,
) -> pd.DataFrame:
    """:func:`run_experiment` for each labeled-set size, for Fig. 4-style curves.

    Parameters
    ----------
    name, classifier, metric
        As in :func:`run_experiment`.
    n_labeled : sequence of int
        The ``n_L`` values (the x-axis of Ji et al. Fig. 4).
    **kwargs
        Passed to :func:`run_experiment`. One ``random_seed`` serves every
        ``n_L`` (fresh entropy when None, recorded in ``attrs["random_seed"]``),
        so run ``r`` permutes the split identically for each size and its
        labeled sets are nested (common random numbers).

    Returns
    -------
    pandas.DataFrame
        The rows of every experiment; :func:`mae_table` summarises them per
        ``n_labeled``.

    References
    ----------
    Ji, Smyth & Steyvers 2020, §4 and Fig. 4.
    """
    scheduler = kwargs.pop("scheduler", None)
    # one root for every size (fresh entropy when None), rebuilt for each size (a
    # SeedSequence counts the children it spawned): nested labeled sets
    record = seed_record(seed_sequence(kwargs.pop("random_seed", None)))
    if scheduler is None:
        frames = [
            run_experiment(
                name, classifier, metric, int(n), **kwargs, random_seed=sequence_from_record(record)
            )
            for n in n_labeled
        ]
        out = pd.concat(frames, ignore_index=True)
    else:
        # every run of every size in one submission, so that the workers stay busy to the end
        progressbar = kwargs.pop("progressbar", True)
        tasks = []
        for n in n_labeled:
            tasks += _experiment_tasks(
                name, classifier, metric, int(n), **kwargs, random_seed=sequence_from_record(record)
            )[0]
        rows = _on_cluster(dask_client(scheduler), tasks, progressbar)
        out = pd.DataFrame(rows, columns=list(COLUMNS))
    out.attrs["random_seed"] = record
    return out


def mae_table(df: pd.DataFrame) -> pd.DataFrame:
    """Summarise :func:`run_experiment` rows: MAE ×100 with its Monte Carlo error, coverage, width.

    Parameters
    ----------
    df : pandas.DataFrame
        Rows from :func:`run_experiment` or :func:`run_grid`.

    Returns
    -------
    pandas.DataFrame
        One row per ``(dataset, classifier, metric, n_labeled, method)`` with

        * ``n_runs`` and ``n_undefined`` (runs whose estimate is NaN: an
          undefined frequency estimate);
        * ``mae`` — 100 × the mean absolute error over the defined runs, and
          ``mae_se`` — its Monte Carlo standard error, 100 × sd/√n;
        * ``coverage`` — the fraction of defined intervals that cover the
          truth, and ``coverage_se`` = √(c(1 − c)/n);
        * ``width`` — 100 × the mean interval width;
        * ``truth`` — 100 × the true Δ.

    Notes
    -----
    The MAE and its standard error describe *these* runs' labeled sets; two
    methods evaluated on the same runs are compared more precisely by the
    paired differences of their absolute errors than by the two standard
    errors.

    References
    ----------
    Ji, Smyth & Steyvers 2020, Tables 2–3 (MAE ×100 over 100 runs).
    """
    keys = ["dataset", "classifier", "metric", "n_labeled", "method"]

    def summarise(g: pd.DataFrame) -> pd.Series:
        err = g["abs_error"].dropna().to_numpy()
        cov = g["covered"].dropna().to_numpy()
        n, nc = err.size, cov.size
        mean_cov = cov.mean() if nc else np.nan
        return pd.Series(
            {
                "n_runs": len(g),
                "n_undefined": int(g["estimate"].isna().sum()),
                "mae": 100 * err.mean() if n else np.nan,
                "mae_se": 100 * err.std(ddof=1) / math.sqrt(n) if n > 1 else np.nan,
                "coverage": mean_cov,
                "coverage_se": math.sqrt(mean_cov * (1 - mean_cov) / nc) if nc else np.nan,
                "width": 100 * g["width"].mean(),
                "truth": 100 * g["truth"].iloc[0],
            }
        )

    order = {m: i for i, m in enumerate(METHODS)}
    out = df.groupby(keys, sort=False)[df.columns.difference(keys).tolist()].apply(summarise)
    out = out.reset_index()
    out["n_runs"] = out["n_runs"].astype(int)
    out["n_undefined"] = out["n_undefined"].astype(int)
    out = out.sort_values(
        ["dataset", "classifier", "metric", "n_labeled", "method"],
        key=lambda s: s.map(order) if s.name == "method" else s,
        kind="stable",
    )
    return out.reset_index(drop=True)
