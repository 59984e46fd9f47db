"""Fixtures of the calibration check's tests (the test, its words)."""

import pytest

import bayesfair as bf


@pytest.fixture(scope="session")
def differential_summary():
    """The labeled summary of ``differential_calibration`` (real scores, g0 distorted),
    as a function of its seed and settings."""
    from bayesfair.datasets.simulate import differential_calibration

    def summary(seed, k=4, n_labeled=2000, kind="label_noise", amount=0.12, **kw):
        lab, unl = differential_calibration(
            k=k,
            n_labeled=n_labeled,
            n_unlabeled=1000,
            kind=kind,
            amount=amount,
            random_seed=seed,
            **kw,
        )
        data = bf.AssessmentData.from_frames(
            lab.drop(columns="p"),
            unl.drop(columns=["label", "p"]),
            score="score",
            label="label",
            group="group",
        )
        return data.labeled_summary(0.01, 1024)

    return summary
