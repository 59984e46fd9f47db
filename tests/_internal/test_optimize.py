"""The package's damped Newton solver against known minima and scipy.optimize."""

import numpy as np
import pytest

from bayesfair._internal.optimize import damped_newton, newton_direction


def test_a_quadratic_is_solved_in_one_step():
    rng = np.random.default_rng(0)
    root = rng.normal(size=(5, 5))
    a = root @ root.T + 5 * np.eye(5)
    b = rng.normal(size=5)
    calls = []

    def objective(x):
        calls.append(x)
        return 0.5 * x @ a @ x - b @ x, a @ x - b

    x, hess = damped_newton(objective, np.zeros(5), lambda x: a, xtol=0.0, max_iter=1)
    np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=1e-12)
    np.testing.assert_array_equal(hess, a)
    assert len(calls) == 2  # the start and the full step, accepted


def test_logistic_regression_matches_scipy():
    from scipy.optimize import minimize
    from scipy.special import expit, log_expit

    rng = np.random.default_rng(1)
    design = np.column_stack([np.ones(300), rng.normal(size=(300, 3))])
    y = (rng.uniform(size=300) < expit(design @ [0.3, 1.0, -2.0, 0.5])).astype(float)
    pen = np.array([0.0, 1.0, 1.0, 1.0])

    def objective(beta):
        eta = design @ beta
        value = -np.sum(y * log_expit(eta) + (1 - y) * log_expit(-eta)) + 0.5 * pen @ beta**2
        return value, design.T @ (expit(eta) - y) + pen * beta

    def hessian(beta):
        p = expit(design @ beta)
        return (design.T * (p * (1 - p))) @ design + np.diag(pen)

    x, hess = damped_newton(objective, np.zeros(4), hessian)
    ref = minimize(objective, np.zeros(4), jac=True, method="BFGS", options={"gtol": 1e-10})
    np.testing.assert_allclose(x, ref.x, atol=1e-6)
    assert objective(x)[0] <= ref.fun + 1e-10
    assert np.max(np.abs(objective(x)[1])) < 1e-8
    np.testing.assert_allclose(hess, hessian(x))


def test_an_indefinite_start_and_a_domain_are_handled():
    """Rosenbrock from a point where its Hessian is indefinite, and a log barrier whose
    value is infinite outside x > 0: the steps are damped and shortened until they
    land where the function is finite and lower."""
    from scipy.optimize import rosen, rosen_der, rosen_hess

    x0 = np.array([-1.2, 1.0])
    assert np.linalg.eigvalsh(rosen_hess(np.array([0.0, 1.0]))).min() < 0
    x, _ = damped_newton(lambda x: (rosen(x), rosen_der(x)), [0.0, 1.0], rosen_hess, max_iter=200)
    np.testing.assert_allclose(x, [1.0, 1.0], atol=1e-8)
    x, _ = damped_newton(lambda x: (rosen(x), rosen_der(x)), x0, rosen_hess, max_iter=200)
    np.testing.assert_allclose(x, [1.0, 1.0], atol=1e-8)

    def barrier(x):  # minimum at x = 1e-3 (d/dx: 1 − 1e-3 / x)
        if x[0] <= 0:
            return np.inf, np.array([np.nan])
        return x[0] - 1e-3 * np.log(x[0]), np.array([1 - 1e-3 / x[0]])

    x, _ = damped_newton(barrier, [5.0], lambda x: np.array([[1e-3 / x[0] ** 2]]))
    np.testing.assert_allclose(x, [1e-3], rtol=1e-9)


@pytest.mark.parametrize("max_step", [0.25, 1.0])
def test_max_step_bounds_every_move(max_step):
    moves = []
    a = np.diag([1.0, 4.0])
    b = np.array([10.0, -20.0])

    def objective(x):
        moves.append(x.copy())
        return 0.5 * x @ a @ x - b @ x, a @ x - b

    x, _ = damped_newton(objective, np.zeros(2), lambda x: a, max_step=max_step, xtol=1e-12)
    np.testing.assert_allclose(x, [10.0, -5.0], atol=1e-10)
    assert np.max(np.abs(np.diff(moves, axis=0))) <= max_step + 1e-12


def test_the_gradient_stop_and_the_direction_s_fallbacks():
    a = np.diag([1.0, 2.0])
    calls = []

    def hessian(x):
        calls.append(x)
        return a

    damped_newton(lambda x: (0.5 * x @ a @ x, a @ x), [1e-9, 0.0], hessian, gtol=1e-6)
    assert len(calls) == 1  # the start already converged: only the returned Hessian
    # an indefinite Hessian is damped into a descent direction
    g = np.array([1.0, 1.0])
    d = newton_direction(np.diag([1.0, -1e-3]), g)
    assert d @ g < 0
    # a Hessian no damping makes positive definite: the scaled steepest descent
    np.testing.assert_allclose(newton_direction(np.diag([1.0, -1e3]), 4 * g), -g)
