"""API edges: metric lists, ε, posteriors fitted on other data, polars frames, seeds, priors."""

import warnings

import numpy as np
import pandas as pd
import pytest

import bayesfair as bf
from bayesfair.exceptions import InvalidParameterError

KW = dict(models=("bb",), n_resamples=100, random_seed=0, fit_kwargs=dict(draws=200, chains=1))


def _data(seed=0, flip=False):
    rng = np.random.default_rng(seed)
    n = 100
    s = rng.uniform(size=n)
    y = (rng.uniform(size=n) < s).astype(int)
    g = rng.choice(["a", "b"], n)
    return bf.AssessmentData(1 - s if flip else s, y, g)


def test_a_metric_name_is_a_list_of_one():
    comp = bf.compare(_data(), metrics="tpr", **KW)
    assert comp.pairs["metric"].tolist() == ["tpr"]
    with pytest.raises(InvalidParameterError, match="'metrics' parameter must name at least one"):
        bf.compare(_data(), metrics=[], **KW)


@pytest.mark.parametrize("epsilon", [-1, 0, float("nan"), float("inf")])
def test_epsilon_is_checked_everywhere(epsilon):
    data = _data()
    with pytest.raises(InvalidParameterError, match="'epsilon' parameter must be a positive, fin"):
        bf.compare(data, metrics="tpr", epsilon=epsilon, **KW)
    res = bf.fit(data, "bb", draws=50, chains=1, random_seed=0)
    with pytest.raises(InvalidParameterError, match="'epsilon' parameter must be a positive, fin"):
        res.prob_practically_fair("tpr", epsilon=epsilon)


def test_posteriors_fitted_on_other_data_are_refused():
    data, other = _data(), _data(flip=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bf.fit(other, "bb", draws=50, chains=1, random_seed=0)
        with pytest.raises(InvalidParameterError, match=r"posteriors\['bb'\] was fitted on other"):
            bf.compare(data, metrics="tpr", posteriors={"bb": res}, **KW)
        own = bf.fit(data, "bb", draws=50, chains=1, random_seed=0, metrics=["tpr"])
        comp = bf.compare(data, metrics="tpr", posteriors={"bb": own}, **KW)
    assert len(comp.pairs) == 1


def test_polars_frames_are_accepted():
    pl = pytest.importorskip("polars")
    rng = np.random.default_rng(1)
    s = rng.uniform(size=60)
    frame = pd.DataFrame(
        {"score": s, "y": (rng.uniform(size=60) < s).astype(int), "g": rng.choice(["a", "b"], 60)}
    )
    unl = frame[["score", "g"]]
    a = bf.AssessmentData.from_frames(
        pl.from_pandas(frame), pl.from_pandas(unl), score="score", label="y", group="g"
    )
    b = bf.AssessmentData.from_frames(frame, unl, score="score", label="y", group="g")
    pd.testing.assert_frame_equal(a.confusion_counts(), b.confusion_counts())
    assert a.n_unlabeled == b.n_unlabeled == 60


def test_seeds_and_priors_name_their_argument():
    data = _data()
    with pytest.raises(InvalidParameterError, match="'random_seed' parameter"):
        bf.fit(data, "bb", random_seed=-1)
    with pytest.raises(ValueError, match="'prior' of model='bb' must be a BetaPrior"):
        bf.fit(data, "bb", prior=(-1, 1))


def test_numbers_that_would_surprise_are_explained():
    from bayesfair.report.document import comparison_markdown

    # 30 labels: Bernstein's half-width exceeds 1, equal groups: a negative corrected variance
    rng = np.random.default_rng(5)
    n = 30
    s = rng.uniform(size=n)
    data = bf.AssessmentData(s, (rng.uniform(size=n) < s).astype(int), rng.choice(["a", "b"], n))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comp = bf.compare(data, metrics=["accuracy"], **KW)
    row = comp.pairs.iloc[0]
    assert row["bernstein_half_width"] > 1
    lo, hi = row["bernstein_lower"], row["bernstein_upper"]
    assert -1.0 <= lo < hi <= 1.0 and (lo == -1.0 or hi == 1.0)
    text = comparison_markdown(comp, detail="full")
    assert f"(±{row['bernstein_half_width']:.3f}, clipped)" in text
    # this seed: the groups' sampling noise exceeds their spread
    assert comp.variance.loc["accuracy", "corrected"] < 0
    assert "accuracy: the corrected estimate is negative" in text


def test_too_few_draws_give_no_interval():
    data = _data()
    with pytest.warns(bf.exceptions.SamplingWarning, match="50 posterior draws are too few"):
        comp = bf.compare(data, metrics="tpr", **{**KW, "fit_kwargs": dict(draws=50, chains=1)})
    row = comp.pairs.iloc[0]
    assert np.isnan(row["bb_lower"]) and np.isnan(row["bb_upper"])
    assert np.isfinite(row["bb_mean"])
    from bayesfair.stats import min_interval_draws

    assert min_interval_draws(0.95) == 200 and min_interval_draws(0.9) == 100
