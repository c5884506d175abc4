"""Reach against scipy's SLSQP on the same objective and the same linear limits."""

from __future__ import annotations

import numpy as np
import pytest
from problems import random_problem
from scipy.optimize import minimize

from solver import Problem, solve


def slsqp(problem: Problem, theta0: np.ndarray) -> np.ndarray:
    """SLSQP over the same variables as Reach (DOFs in no chain stay at theta0)."""
    limits = problem.limits
    free = problem.variables

    def full(x: np.ndarray) -> np.ndarray:
        theta = theta0.copy()
        theta[free] = x
        return theta

    def objective(x: np.ndarray) -> tuple[float, np.ndarray]:
        value, gradient = problem.objective(full(x))
        return value, gradient[free]

    constraints = []
    for kind, rows, rhs in (("eq", limits.a_eq, limits.b_eq), ("ineq", limits.a_in, limits.b_in)):
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
        options={"ftol": 1e-14, "maxiter": 1000},
    )
    return full(result.x)


@pytest.mark.slow
def test_reach_ends_at_or_below_slsqp_on_random_problems() -> None:
    seeds = range(60)
    wins = 0
    losses: list[tuple[int, float, float]] = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        problem, theta0 = random_problem(
            5000 + seed, int(rng.integers(2, 7)), int(rng.integers(1, 5))
        )
        ours = solve(problem, theta0)
        theirs = slsqp(problem, theta0)
        assert ours.max_violation <= 1e-9
        their_violation = problem.limits.max_violation(theirs)
        their_value = problem.objective(theirs)[0]
        if ours.fun <= their_value + 1e-8 or their_violation > 1e-8:
            wins += 1
        else:
            losses.append((seed, ours.fun, their_value))
    assert wins >= 0.95 * len(seeds), f"Reach above SLSQP on {losses}"
