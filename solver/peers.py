"""Peers run on Reach's own problems, for tests and benchmarks: scipy's SLSQP.

scipy is imported only when a peer runs; the solver itself needs numpy alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._checks import FloatArray
from .problem import Problem

__all__ = ["PeerResult", "slsqp"]


@dataclass(frozen=True)
class PeerResult:
    """A peer's answer.

    Attributes:
        x: Joint values θ, shape (n_dofs,).
        fun: G_all at ``x``.
        nit: The peer's iterations.
        nfev: The peer's objective evaluations.
        message: The peer's status text.
    """

    x: FloatArray = field(repr=False)
    fun: float
    nit: int
    nfev: int
    message: str


def slsqp(
    problem: Problem, theta0: FloatArray, *, ftol: float = 1e-14, maxiter: int = 1000
) -> PeerResult:
    """Scipy's SLSQP on ``problem`` over the same variables as :func:`solver.solve`.

    DOFs in no chain (and locked ones) stay at ``theta0``; the limits are the figure's
    linear equalities and inequalities.

    Args:
        problem: The problem.
        theta0: Start pose, shape (n_dofs,).
        ftol: SLSQP's objective tolerance.
        maxiter: SLSQP's iteration limit.

    Returns:
        SLSQP's pose and counts.
    """
    from scipy.optimize import minimize

    limits = problem.limits
    free = problem.variables

    def full(x: FloatArray) -> FloatArray:
        theta = theta0.copy()
        theta[free] = x
        return theta

    def objective(x: FloatArray) -> tuple[float, FloatArray]:
        value, gradient = problem.evaluate(full(x))
        return value, gradient[free]

    constraints: list[dict[str, Any]] = []
    for kind, rows, rhs in (("ineq", limits.a_in, limits.b_in), ("eq", limits.a_eq, limits.b_eq)):
        if rows.shape[0]:
            constraints.append(
                {
                    "type": kind,
                    "fun": lambda x, rows=rows, rhs=rhs: rows @ full(x) - rhs,
                    "jac": lambda x, rows=rows: rows[:, free],
                }
            )
    result = minimize(
        objective,
        theta0[free],
        jac=True,
        method="SLSQP",
        constraints=constraints,
        options={"ftol": ftol, "maxiter": maxiter},
    )
    theta = full(np.asarray(result.x, dtype=np.float64))
    return PeerResult(
        x=theta,
        fun=problem.evaluate(theta)[0],
        nit=int(result.nit),
        nfev=int(result.nfev),
        message=f"{result.status}: {result.message}",
    )
