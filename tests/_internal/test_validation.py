"""One check per kind of argument (``bayesfair._internal.validation``), and seeds that reproduce."""

import dataclasses
import inspect
import warnings

import numpy as np
import pytest

import bayesfair as bf
from bayesfair._internal.validation import (
    check_choice,
    check_counts,
    check_positive_int,
    check_probability,
    check_random_state,
    check_threshold,
    seed_record,
    seed_sequence,
    sequence_from_record,
)
from bayesfair.exceptions import InvalidParameterError, SamplingWarning
from bayesfair.experiments import run_experiment


def _data(seed=0):
    rng = np.random.default_rng(seed)
    s = rng.uniform(0, 1, 60)
    y = (rng.uniform(0, 1, 60) < s).astype(int)
    g = np.where(np.arange(60) % 2 == 0, "A", "B")
    return bf.AssessmentData(s, y, g, reference="A")


@pytest.mark.parametrize("bad", [0, 1, 1.5, -0.1, "0.9", None, True, np.nan])
def test_probability_check_raises_one_error_for_type_and_value(bad):
    with pytest.raises(InvalidParameterError, match="'ci_prob'"):
        check_probability(bad)
    # one exception that is both, so old code catching either still works
    assert issubclass(InvalidParameterError, ValueError)
    assert issubclass(InvalidParameterError, TypeError)


def test_ci_prob_raises_the_same_type_everywhere(fast):
    data = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SamplingWarning)
        res = bf.fit(data, "bb", metrics=["accuracy"], random_seed=0, **fast)
    calls = [
        lambda: res.summary(["accuracy"], ci_prob=1.5),
        lambda: bf.frequentist.newcombe_interval(3, 10, 5, 10, ci_prob=1.5),
        lambda: run_experiment(
            "ricci-race", "LR", "accuracy", 10, n_runs=1, methods=("freq",), ci_prob=1.5
        ),
    ]
    for call in calls:
        with pytest.raises(InvalidParameterError, match="'ci_prob'"):
            call()


@pytest.mark.parametrize("bad", [0, -3, 2.0, "5", True])
def test_positive_int_check(bad):
    with pytest.raises(InvalidParameterError, match="'draws'"):
        check_positive_int(bad, "draws")
    assert check_positive_int(np.int64(4), "draws") == 4


def test_every_seed_kind_gives_a_generator():
    seq = np.random.SeedSequence(7)
    for seed in (None, 7, np.int64(7), seq, np.random.default_rng(7)):
        assert isinstance(check_random_state(seed), np.random.Generator)
    assert check_random_state(7).integers(1000) == check_random_state(seq).integers(1000)
    gen = np.random.default_rng(1)
    assert check_random_state(gen) is gen
    for bad in (-1, 1.5, "7", True):
        with pytest.raises(InvalidParameterError, match="'random_seed'"):
            check_random_state(bad)


def test_seed_record_rebuilds_the_sequence():
    for seq in (seed_sequence(None), seed_sequence(11), np.random.SeedSequence(3).spawn(2)[1]):
        rec = seed_record(seq)
        again = np.random.SeedSequence(int(rec["entropy"]), spawn_key=rec["spawn_key"])
        np.testing.assert_array_equal(again.generate_state(4), seq.generate_state(4))


@pytest.mark.parametrize("model", ["bb", "rbc"])
def test_fit_accepts_a_generator_and_records_a_seed_that_reproduces_it(model, fast):
    data = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit(
            data, model, metrics=["accuracy"], random_seed=np.random.default_rng(3), **fast
        )
        rec = res.settings["random_seed"]
        seed = np.random.SeedSequence(int(rec["entropy"]), spawn_key=rec["spawn_key"])
        again = bf.fit(data, model, metrics=["accuracy"], random_seed=seed, **fast)
    np.testing.assert_array_equal(res.rates("accuracy").values, again.rates("accuracy").values)


def test_fit_without_a_seed_records_fresh_entropy_that_reproduces_it(fast):
    data = _data()
    res = bf.fit(data, "bb", metrics=["accuracy"], random_seed=None, **fast)
    rec = res.settings["random_seed"]
    seed = np.random.SeedSequence(int(rec["entropy"]), spawn_key=rec["spawn_key"])
    again = bf.fit(data, "bb", metrics=["accuracy"], random_seed=seed, **fast)
    np.testing.assert_array_equal(res.rates("accuracy").values, again.rates("accuracy").values)


def test_compare_accepts_a_seed_sequence_and_prints_its_seed(tmp_path):
    data = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comp = bf.compare(
            data,
            metrics=["accuracy"],
            models=("bb",),
            n_resamples=200,
            random_seed=np.random.SeedSequence(5),
            fit_kwargs=dict(draws=50, tune=50, chains=1),
        )
    assert comp.settings["random_seed"]["entropy"] == "5"
    from bayesfair.report.document import comparison_markdown

    assert "Random seed: 5 (random_seed=5 reproduces it)" in comparison_markdown(comp)


def test_run_experiment_accepts_a_generator_and_records_its_seed():
    df = run_experiment(
        "ricci-race",
        "LR",
        "accuracy",
        10,
        n_runs=2,
        methods=("freq",),
        random_seed=np.random.default_rng(0),
        progressbar=False,
    )
    assert len(df) == 2
    assert set(df.attrs["random_seed"]) == {"entropy", "spawn_key"}


def test_one_message_for_an_undefined_rate():
    # the message of every module that meets a zero denominator starts the same way
    import warnings as w

    from bayesfair.metrics.rates import undefined_rate_message, warn_undefined

    expected = undefined_rate_message("fpr", ["B"])
    with w.catch_warnings(record=True) as caught:
        w.simplefilter("always")
        warn_undefined([0.1, np.nan], ["A", "B"], "fpr")
    assert str(caught[0].message).startswith(expected)
    # all positives in B: no negative, FPR undefined there
    data = bf.AssessmentData(
        [0.2, 0.7, 0.6, 0.9], [0, 1, 1, 1], ["A", "A", "B", "B"], reference="A"
    )
    with pytest.raises(ValueError, match=r"false positive rate \('fpr'\) is undefined"):
        bf.frequentist.bernstein_interval(data, "fpr", group="B")


def test_warnings_and_exceptions_live_in_one_module():
    import inspect

    from bayesfair import data, exceptions, metrics, posterior

    classes = {
        name: obj
        for name, obj in vars(exceptions).items()
        if inspect.isclass(obj) and issubclass(obj, Warning | Exception)
    }
    assert set(exceptions.__all__) == set(classes)
    for name, cls in classes.items():
        assert cls.__module__ == "bayesfair.exceptions", name
    # one home: the sub-packages do not offer them again
    assert not hasattr(posterior, "SamplingWarning")
    assert not hasattr(metrics, "UndefinedRateWarning")
    assert not hasattr(data, "UnlabeledGroupWarning")


# ------------------------------------------------------------------ model options
def test_options_a_model_ignores_are_warned_about(fast):
    from bayesfair.exceptions import IgnoredOptionWarning

    data = _data()
    with pytest.warns(IgnoredOptionWarning, match=r"'bb' ignores 'score_clip', 'n_bins'"):
        bf.fit(data, "bb", metrics=["accuracy"], score_clip=0.05, n_bins=64, **fast)
    with pytest.warns(IgnoredOptionWarning, match=r"'bc' ignores 'discrepancy'"):
        disc = bf.models.calibration.DiscrepancyPrior()
        with warnings.catch_warnings():  # not what is tested: the check's verdict on 60
            # labels, and R-hat on plumbing draws
            warnings.simplefilter("ignore", bf.exceptions.CalibrationWarning)
            warnings.simplefilter("ignore", bf.exceptions.SamplingWarning)
            bf.fit(data, "bc", metrics=["accuracy"], discrepancy=disc, **fast)
    with warnings.catch_warnings():
        warnings.simplefilter("error", IgnoredOptionWarning)
        bf.fit(data, "bb", metrics=["accuracy"], **fast)  # nothing given, nothing warned


def test_model_names_resolve_like_metric_names(fast):
    data = _data()
    res = bf.fit(data, " BB ", metrics=["accuracy"], **fast)
    assert res.model == "bb"
    with pytest.raises(ValueError, match="Did you mean 'hbb'"):
        bf.fit(data, "hbbb", metrics=["accuracy"], **fast)


def test_each_model_has_one_typed_prior(fast):
    from bayesfair.models.beta_binomial import BetaPrior, KappaPrior
    from bayesfair.models.calibration import CalibrationPriors

    data = _data()
    res = bf.fit(data, "bb", metrics=["accuracy"], prior=BetaPrior(2.0, 2.0), **fast)
    assert res.settings["prior"] == BetaPrior(2.0, 2.0).to_dict()
    # one Dirichlet over the cells: unequal shapes cannot be the margins of every rate
    with pytest.raises(InvalidParameterError, match="one Dirichlet"):
        bf.fit(data, "bb", metrics=["accuracy"], prior=BetaPrior(2.0, 3.0), **fast)
    # an untyped prior names the class it must be
    with pytest.raises(InvalidParameterError, match="must be a BetaPrior"):
        bf.fit(data, "bb", metrics=["accuracy"], prior=(2.0, 3.0), **fast)
    with pytest.raises(InvalidParameterError, match="must be a KappaPrior"):
        bf.fit(data, "hbb", metrics=["accuracy"], prior=2.0, **fast)
    for model, wrong in (("bb", KappaPrior()), ("hbb", BetaPrior()), ("bc", BetaPrior())):
        with pytest.raises(InvalidParameterError, match="must be a"):
            bf.fit(data, model, metrics=["accuracy"], prior=wrong, **fast)
    default = bf.fit(data, "bb", metrics=["accuracy"], **fast)
    assert default.settings["prior"] == BetaPrior().to_dict()
    assert CalibrationPriors()  # bc/rbc's typed prior, unchanged
    with pytest.raises(ValueError, match="positive"):
        BetaPrior(0.0, 1.0)


def test_to_netcdf_leaves_the_result_unchanged(tmp_path, fast):
    res = bf.fit(_data(), "bb", metrics=["accuracy"], random_seed=0, **fast)
    before = dict(res.idata.attrs)
    path = res.to_netcdf(tmp_path / "res.nc")
    assert dict(res.idata.attrs) == before and "bayesfair" not in res.idata.attrs
    again = bf.FairnessPosterior.from_netcdf(path)
    np.testing.assert_array_equal(again.rates("accuracy").values, res.rates("accuracy").values)
    assert again.settings["random_seed"] == res.settings["random_seed"]


def test_group_names_resolve_in_one_place(fast):
    # AssessmentData and FairnessPosterior resolve group labels with the same check
    from bayesfair._internal.validation import check_group

    data = bf.AssessmentData([0.2, 0.7, 0.6, 0.9], [0, 1, 1, 0], [1, 1, 2, 2], reference=1)
    assert data.resolve_group("2") == 2 == check_group("2", [1, 2])
    res = bf.fit(data, "bb", metrics=["accuracy"], **fast)
    assert res.pair("2", "1") == (2, 1)
    for call in (lambda: data.resolve_group("3"), lambda: res.pair("3", "1")):
        with pytest.raises(InvalidParameterError, match="Unknown group '3'"):
            call()


def test_counting_is_done_once():
    from bayesfair.data.examples import count_confusion
    from bayesfair.experiments import group_counts

    rng = np.random.default_rng(2)
    s, y, g = rng.uniform(size=50), rng.integers(0, 2, 50), rng.integers(0, 3, 50)
    data = bf.AssessmentData(s, y, g)
    counts = data.labeled_examples.confusion_counts()
    np.testing.assert_array_equal(group_counts(s, y, data.group_codes, 3, 0.5), counts)
    np.testing.assert_array_equal(count_confusion(s >= 0.5, y, data.group_codes, 3), counts)


# ------------------------------------------------------------------ result shapes
def test_the_published_spellings_warn_and_give_the_same_result():
    """``confidence`` and ``n_boot``, the spellings of four published calls, are
    ``ci_prob`` and ``n_resamples``: accepted with a FutureWarning, never both; the
    package's other functions and its results take the package's names only."""
    from bayesfair.frequentist import (
        bernstein_half_width,
        bernstein_interval,
        double_corrected_bootstrap_counts,
    )

    with pytest.warns(FutureWarning, match="'confidence' is the earlier spelling of 'ci_prob'"):
        old = bernstein_half_width(3160, confidence=0.9)
    assert old == bernstein_half_width(3160, ci_prob=0.9) == bernstein_half_width(3160, 0.9)
    with pytest.raises(InvalidParameterError, match="Got both"):
        bernstein_half_width(3160, ci_prob=0.9, confidence=0.9)
    res = bernstein_interval(_data(), "accuracy", ci_prob=0.9)
    assert res.ci_prob == 0.9 and not hasattr(res, "confidence")
    with pytest.raises(TypeError, match="confidence"):
        bernstein_interval(_data(), "accuracy", confidence=0.9)
    with pytest.warns(FutureWarning, match="'n_boot' is the earlier spelling of 'n_resamples'"):
        boot = double_corrected_bootstrap_counts([3, 5], [10, 12], n_boot=50, random_seed=0)
    assert boot.n_resamples == 50 and not hasattr(boot, "n_boot")
    assert "n_resamples" in inspect.signature(bf.compare).parameters
    assert "n_boot" not in inspect.signature(bf.compare).parameters


def test_results_have_a_common_to_frame_with_lower_and_upper():
    from bayesfair.frequentist import bernstein_interval, double_corrected_bootstrap

    data = _data()
    b = bernstein_interval(data, "accuracy").to_frame()
    v = double_corrected_bootstrap(data, "accuracy", n_resamples=200, random_seed=0).to_frame()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comp = bf.compare(
            data,
            ["accuracy"],
            models=("bb",),
            n_resamples=100,
            random_seed=0,
            fit_kwargs=dict(draws=50, tune=50, chains=1),
        )
    c = comp.to_frame()
    assert len(b) == 1 and {"estimate", "lower", "upper", "ci_prob"} <= set(b.columns)
    assert list(v["estimator"]) == ["uncorrected", "corrected", "double_corrected"]
    assert (v["lower"] <= v["estimate"]).all() or v["estimate"].isna().any()
    assert {"newcombe_lower", "newcombe_upper", "bb_lower", "bb_upper"} <= set(c.columns)
    c.loc[:, "metric"] = "changed"  # a copy: the comparison keeps its table
    assert (comp.pairs["metric"] == "accuracy").all()


def test_the_variance_bootstrap_records_a_seed_that_reproduces_it():
    from bayesfair.frequentist import double_corrected_bootstrap

    data = _data()
    res = double_corrected_bootstrap(
        data, "accuracy", n_resamples=200, random_seed=np.random.default_rng(4)
    )
    rec = res.random_seed
    seed = np.random.SeedSequence(int(rec["entropy"]), spawn_key=rec["spawn_key"])
    again = double_corrected_bootstrap(data, "accuracy", n_resamples=200, random_seed=seed)
    np.testing.assert_array_equal(res.double_corrected.draws, again.double_corrected.draws)


def test_a_seed_record_rebuilds_its_sequence_and_its_children():
    seq = np.random.SeedSequence(2**70 + 3)
    record = seed_record(seq)
    same = sequence_from_record(record)
    assert same.generate_state(2).tolist() == seq.generate_state(2).tolist()
    child = sequence_from_record(record, child=2)
    assert child.generate_state(2).tolist() == seq.spawn(3)[2].generate_state(2).tolist()
    # a plain int (results saved before 0.2) and no record at all are read too
    assert sequence_from_record(7).generate_state(1) == np.random.SeedSequence(7).generate_state(1)
    assert sequence_from_record(None).entropy == 0


def test_counts_threshold_and_choices_are_checked_alike():
    x, n = check_counts([1, 2], [3, 4])
    assert x.dtype == np.int64 and n.tolist() == [3, 4]
    with pytest.raises(InvalidParameterError, match=r"successes=1234567 > trials=1234566"):
        check_counts([1234567], [1234566])
    with pytest.raises(InvalidParameterError, match="non-negative integers. Got 2.5"):
        check_counts([[2.5]], [[4.0]], shape="same")
    x, _ = check_counts([[2.5]], [[4.0]], shape="same", integer=False)  # expected counts
    assert x[0, 0] == 2.5
    with pytest.raises(InvalidParameterError, match="non-negative numbers"):
        check_counts([[-0.5]], [[4.0]], shape="same", integer=False)
    assert check_threshold(np.array(0.3)) == 0.3 and check_threshold(np.float32(0.5)) == 0.5
    for bad in ("0.5", True, 1.0, np.array([0.5])):
        with pytest.raises(InvalidParameterError, match="'threshold'"):
            check_threshold(bad)
    assert check_choice("a", {"a": 1}, "mode") == "a"
    with pytest.raises(InvalidParameterError, match="'mode' parameter must be one of 'a'"):
        check_choice(["a"], {"a": 1}, "mode")  # unhashable: refused with the same message


def test_compare_warns_at_the_caller_s_line():
    """compare calls fit and the checks; its warnings point at the line that called it."""
    import warnings as w

    import bayesfair as bf

    frame = bf.datasets.load_scores("adult-sex", "MLP").iloc[:400]
    data = bf.AssessmentData.from_frames(
        frame.iloc[:40],
        frame.iloc[40:].drop(columns="label"),
        score="score",
        label="label",
        group="group",
    )
    with w.catch_warnings(record=True) as caught:
        w.simplefilter("always")
        bf.compare(
            data,
            ["accuracy"],
            models=("bb",),
            fit_kwargs={"draws": 4, "chains": 1},
            random_seed=0,
            progressbar=False,
        )
    ours = [x for x in caught if type(x.message).__module__.startswith("bayesfair")]
    assert ours, "expected the too-few-draws and one-chain warnings"
    assert all(x.filename == __file__ for x in ours), [x.filename for x in ours]


#: Names the vocabulary replaced (``random_seed``, ``n_resamples``, ``ci_prob``,
#: ``progressbar``, ``group``/``reference``); an old name may live on only through
#: ``_validation.renamed``, which keeps it out of the signature.
OFF_VOCABULARY = {
    "seed",
    "random_state",
    "n_boot",
    "n_bootstrap",
    "confidence",
    "hdi_prob",
    "progress",
    "progress_bar",
    "privileged",
    "unprivileged",
}


def _public_callables():
    import importlib
    import pkgutil

    modules = [bf]
    for info in pkgutil.walk_packages(bf.__path__, "bayesfair."):
        if not any(p.startswith("_") for p in info.name.split(".")[1:]):
            modules.append(importlib.import_module(info.name))
    for module in modules:
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name, None)
            if inspect.isfunction(obj):
                yield f"{module.__name__}.{name}", obj
            elif inspect.isclass(obj) and not dataclasses.is_dataclass(obj):
                yield f"{module.__name__}.{name}", obj.__init__
                for attr, value in vars(obj).items():
                    if inspect.isfunction(value) and not attr.startswith("_"):
                        yield f"{module.__name__}.{name}.{attr}", value


def test_no_public_parameter_is_off_the_vocabulary():
    """Every public function's and method's parameters speak the one vocabulary (dataclass
    fields that describe bundled data sets, such as a raw file's privileged value, are
    data, not parameters)."""
    off = sorted(
        f"{qualified}({parameter})"
        for qualified, func in _public_callables()
        for parameter in inspect.signature(func).parameters
        if parameter in OFF_VOCABULARY
    )
    assert off == []


def test_check_pair_defaults_and_refusals():
    from bayesfair._internal.validation import check_pair

    assert check_pair(["a", "b"], "b") == ("a", "b")
    assert check_pair([1, 2, 3], 1, group="3") == (3, 1)
    with pytest.raises(InvalidParameterError, match="Name the 'group'"):
        check_pair(["a", "b", "c"], "a")
    with pytest.raises(InvalidParameterError, match="both 'a'"):
        check_pair(["a", "b"], "b", group="a", reference="a")
