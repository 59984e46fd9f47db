"""One BLAS thread while bayesfair computes.

bayesfair's linear algebra is small: vectors over the labeled summary cells, Newton
steps in a few parameters, products of draws × cells of a few megabytes. Its heavy
loops are numba kernels and nutpie's sampler, which bring their own threads. A BLAS
thread pool gains nothing there and costs much on a busy machine: OpenBLAS's threads
wait for work by spinning, and when the cores are taken (nutpie's chains, a second
process, a test worker) each small product waits for a thread that is not scheduled.

A default fit and the calibration check's maximum-likelihood fits run faster with
one BLAS thread than with OpenBLAS's two on 2 shared cores (the figures:
``docs/benchmarks.md``, "One BLAS thread").

So the public functions on bayesfair's objects (:func:`~bayesfair._internal.validation.takes`)
run with one BLAS thread, through threadpoolctl, and give the caller's setting back when
they return. The limit is counted, not saved per call: nested calls, and calls from
several threads at once, set it once and restore the caller's setting when the last
one returns. The limit is the process's (BLAS libraries keep one setting): while a
bayesfair call runs, other threads' BLAS calls run on one thread too, and a
``threadpoolctl.threadpool_limits`` entered by another thread during the call restores,
when it ends, the one thread it found.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

_lock = threading.Lock()
_state = {"depth": 0, "limiter": None, "controller": None}


def _controller():
    """threadpoolctl's view of the BLAS libraries loaded, made once a process.

    SciPy carries an OpenBLAS of its own beside NumPy's; it is loaded first, so that the
    controller sees both."""
    if _state["controller"] is None:
        import scipy.linalg  # noqa: F401  (loads SciPy's OpenBLAS)
        from threadpoolctl import ThreadpoolController

        _state["controller"] = ThreadpoolController()
    return _state["controller"]


@contextmanager
def one_blas_thread():
    """Run the block with one BLAS thread; the caller's setting is back afterwards."""
    entered = False  # counted only once the limit is set (an interrupt can come anywhere)
    try:
        with _lock:
            if _state["depth"] == 0:
                _state["limiter"] = _controller().limit(limits=1, user_api="blas")
            _state["depth"] += 1
            entered = True
        yield
    finally:
        if entered:
            with _lock:
                _state["depth"] -= 1
                if _state["depth"] == 0:
                    _state["limiter"].restore_original_limits()
                    _state["limiter"] = None
