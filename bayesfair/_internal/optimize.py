"""Damped Newton minimisation of small smooth functions: the package's one Newton solver.

Three places need the minimum of a smooth function of a few to a few hundred
parameters, with an exact gradient, from a start that is often warm, thousands
of times in a run: the planner's Laplace fit (:mod:`bayesfair.labels.approximate`),
the penalised logistic regressions of PPI++'s cross-fitting
(:mod:`bayesfair.frequentist._crossfit`) and the sampler's preconditioner
(:mod:`bayesfair.models._calibration_native`). :func:`damped_newton` is the one
implementation; each caller gives its own Hessian (exact, or central
differences of the gradient) and its stopping rule.
"""

from __future__ import annotations

import numpy as np

#: The damping δ tried, in turn, until ``H + δI`` is positive definite.
DAMPING = (0.0, 1e-6, 1e-4, 1e-2, 1.0, 1e2)
#: Sufficient decrease of a step (Armijo's constant).
ARMIJO = 1e-4
#: Shortest step fraction tried before the search stops.
MIN_FRACTION = 1e-10
#: A step whose value is no more than this above the current one is accepted
#: (rounding, near the minimum).
VALUE_SLACK = 1e-12


def newton_direction(hess: np.ndarray, grad: np.ndarray) -> np.ndarray:
    """The damped Newton direction ``−(H + δI)⁻¹ g``, δ the first of :data:`DAMPING`
    for which ``H + δI`` is positive definite (Cholesky); ``−g / max(‖g‖∞, 1)``
    when none is.

    Parameters
    ----------
    hess : numpy.ndarray, shape (d, d)
        The Hessian (symmetric).
    grad : numpy.ndarray, shape (d,)
        The gradient.

    Returns
    -------
    numpy.ndarray, shape (d,)
        A descent direction.
    """
    eye = np.eye(grad.size)
    for damping in DAMPING:
        damped = hess + damping * eye
        try:
            np.linalg.cholesky(damped)  # the test of positive definiteness
        except np.linalg.LinAlgError:
            continue
        return -np.linalg.solve(damped, grad)
    return -grad / max(float(np.max(np.abs(grad))), 1.0)


def damped_newton(
    objective,
    x0,
    hessian,
    *,
    max_iter: int = 100,
    gtol: float = 0.0,
    xtol: float = 1e-9,
    max_step: float | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Minimise a smooth function by damped Newton steps with a backtracking line search.

    Each step goes along :func:`newton_direction` (the Hessian damped until it is
    positive definite), shortened so that no coordinate moves more than
    ``max_step``, and is halved until its value satisfies Armijo's condition
    (a value not finite is rejected). The search stops when the largest
    gradient component is below ``gtol``, when a step moves every coordinate
    less than ``xtol``, when the Hessian is not finite, when no step fraction
    down to 1e-10 is accepted, or after ``max_iter`` steps. The Hessian is asked
    for at accepted points only.

    Parameters
    ----------
    objective : callable
        ``objective(x) -> (value, gradient)``: a float and an array of ``x``'s
        shape. The value at ``x0`` must be finite.
    x0 : array_like, shape (d,)
        Starting point.
    hessian : callable
        ``hessian(x) -> array of shape (d, d)``, symmetric: exact, or central
        differences of the gradient.
    max_iter : int, default 100
        Most Newton steps.
    gtol : float, default 0.0
        Stop when every gradient component is below it in absolute value (0:
        never on the gradient alone).
    xtol : float, default 1e-9
        Stop after a step that moves every coordinate less than this.
    max_step : float, optional
        Largest move of a coordinate in one step (a trust region); None: no limit.

    Returns
    -------
    x : numpy.ndarray, shape (d,)
        The minimiser found (the last accepted point).
    hess : numpy.ndarray, shape (d, d)
        ``hessian(x)`` there.

    Examples
    --------
    >>> a = np.array([[2.0, 0.5], [0.5, 1.0]])
    >>> b = np.array([1.0, -1.0])
    >>> x, h = damped_newton(lambda x: (0.5 * x @ a @ x - b @ x, a @ x - b), [0, 0], lambda x: a)
    >>> np.allclose(a @ x, b)
    True
    """
    x = np.array(x0, dtype=float)
    value, grad = objective(x)
    for _ in range(max_iter):
        if np.max(np.abs(grad)) < gtol:
            break
        hess = hessian(x)
        if not np.all(np.isfinite(hess)):
            break
        step = newton_direction(hess, grad)
        if max_step is not None:
            step *= min(1.0, max_step / max(float(np.max(np.abs(step))), 1e-300))
        slope, fraction = float(grad @ step), 1.0
        while fraction >= MIN_FRACTION:
            new_value, new_grad = objective(x + fraction * step)
            if np.isfinite(new_value) and (
                new_value <= value + ARMIJO * fraction * slope + VALUE_SLACK
            ):
                break
            fraction *= 0.5
        else:
            break
        x, value, grad = x + fraction * step, new_value, new_grad
        if np.max(np.abs(fraction * step)) < xtol:
            break
    return x, hessian(x)
