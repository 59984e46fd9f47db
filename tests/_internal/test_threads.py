"""One BLAS thread while bayesfair computes (:mod:`bayesfair._internal.threads`)."""

import threading
import warnings

import pytest
import scipy.linalg  # noqa: F401  (SciPy's OpenBLAS, loaded as in a fit)
from threadpoolctl import threadpool_info, threadpool_limits

from bayesfair._internal.threads import one_blas_thread
from bayesfair._internal.validation import takes


def blas_threads():
    """The thread counts of the BLAS libraries loaded in this process."""
    return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]


@pytest.fixture
def two_blas_threads():
    """The caller's setting for these tests: two BLAS threads (whatever the machine)."""
    if not blas_threads():
        pytest.skip("no BLAS library that threadpoolctl can see")
    with threadpool_limits(limits=2, user_api="blas"):
        yield


def test_the_block_runs_with_one_thread_and_gives_the_setting_back(two_blas_threads):
    with one_blas_thread():
        assert set(blas_threads()) == {1}
    assert set(blas_threads()) == {2}


def test_nested_blocks_restore_only_when_the_outer_one_ends(two_blas_threads):
    with one_blas_thread():
        with one_blas_thread():
            assert set(blas_threads()) == {1}
        assert set(blas_threads()) == {1}
    assert set(blas_threads()) == {2}


def test_an_error_inside_still_restores_the_setting(two_blas_threads):
    with pytest.raises(RuntimeError, match="inside"), one_blas_thread():
        raise RuntimeError("an error inside the block")
    assert set(blas_threads()) == {2}


def test_blocks_in_several_threads_leave_the_caller_s_setting(two_blas_threads):
    """Two threads whose blocks overlap, the first one ending first, then the main
    thread's block: the setting is counted, so no thread's exit leaves the process at
    one thread (a per-call save would restore the first block's "1")."""
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()

    def first():
        with one_blas_thread():
            first_in.set()
            second_in.wait(5)
        first_out.set()

    def second():
        first_in.wait(5)
        with one_blas_thread():
            second_in.set()
            first_out.wait(5)

    workers = [threading.Thread(target=first), threading.Thread(target=second)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(10)
    assert set(blas_threads()) == {2}
    with one_blas_thread():
        assert set(blas_threads()) == {1}
    assert set(blas_threads()) == {2}


def test_a_fit_and_its_summary_leave_the_caller_s_setting(two_blas_threads, data, fast):
    import bayesfair as bf

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # plumbing draws
        res = bf.fit(data, model="bc", random_seed=0, **fast)
    res.group_summary(["accuracy"])
    assert set(blas_threads()) == {2}


def test_a_public_function_on_bayesfair_s_objects_runs_with_one_thread(two_blas_threads):
    """``takes``, the wrapper of the public functions on data and results, sets the limit
    for the call (and the caller's setting is back afterwards)."""
    seen = []

    @takes("AssessmentData")
    def summary(data):
        seen.append(blas_threads())

    class Data:
        labeled_examples = group_levels = None

    summary(Data())
    assert set(seen[0]) == {1}
    assert set(blas_threads()) == {2}


def test_a_fit_computes_with_one_thread(two_blas_threads, data, fast, monkeypatch):
    """The model's work inside ``fit`` (its dispatch to the labeled models here) runs with
    one BLAS thread."""
    import bayesfair as bf
    from bayesfair.models import catalogue

    seen = []
    model_work = catalogue.fit_labeled

    def recording(*args, **kwargs):
        seen.append(blas_threads())
        return model_work(*args, **kwargs)

    monkeypatch.setattr(catalogue, "fit_labeled", recording)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # plumbing draws
        bf.fit(data, model="bb", random_seed=0, **fast)
    assert seen and set(seen[0]) == {1}
