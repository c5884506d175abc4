"""A solve keeps each bound exactly and raises no numpy error, whatever the rounding.

Rounding differs between machines (BLAS kernels, fused multiply-adds): a descent's point
may land a few ulps beyond a bound it meets, and a row in the span of nearly dependent
active rows may look independent. Whatever the last bits, a solve returns a pose
within each DOF's bounds exactly and within its other limits to
:data:`~solver.limits.FEASIBLE`, and only :class:`~solver.SolverInputError` for bad
input. Each example draws a random figure (bounds, a limit polygon, a joint group),
goals of every type at random priorities, a pin, a method and a budget, from a start on
some of its bounds, with its targets moved by a few ulps.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from problems import long_chain, random_problem

from solver import METHODS, Constraint, Effector, Problem, goals, pin, solve
from solver.limits import FEASIBLE
from solver.optimizer import metric
from solver.optimizer.goldfarb import descend


def _on_bounds(problem: Problem, theta: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``theta`` with about half the DOFs that only bounds hold moved onto a bound."""
    limits = problem.figure.limits
    coupled = np.any(limits.a_eq != 0.0, axis=0) | np.any(
        (limits.a_in != 0.0) & (np.count_nonzero(limits.a_in, axis=1) > 1)[:, None], axis=0
    )
    start = theta.copy()
    lower, upper = problem.figure.lower, problem.figure.upper
    for j in np.flatnonzero(~coupled):
        side = lower[j] if rng.random() < 0.5 else upper[j]
        if np.isfinite(side) and rng.random() < 0.5:
            start[j] = side
    return start


def _ulps(point: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``point`` moved by up to four units in the last place of each coordinate."""
    return point + np.spacing(point) * rng.integers(-4, 5, point.shape)


def _check(problem: Problem, theta0: np.ndarray, **options: object) -> None:
    result = solve(problem, theta0, **options)  # type: ignore[arg-type]
    figure = problem.figure
    assert np.isfinite(result.x).all() and np.isfinite(result.fun)
    assert np.all(result.x >= figure.lower) and np.all(result.x <= figure.upper)
    assert result.max_violation <= FEASIBLE


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    method=st.sampled_from(METHODS),
    levels=st.lists(st.integers(0, 2), min_size=4, max_size=4),
    restarts=st.integers(0, 2),
    budget=st.sampled_from([None, 1e-4, 1e-2]),
)
@example(seed=323, method="goldfarb", levels=[2, 0, 1, 2], restarts=0, budget=None)
def test_a_solve_of_every_goal_type_keeps_its_bounds_exactly(
    seed: int, method: str, levels: list[int], restarts: int, budget: float | None
) -> None:
    base, theta = random_problem(seed % 10_000, 7, 4)
    rng = np.random.default_rng(seed)
    figure = base.figure
    start = _on_bounds(base, theta, rng)
    held = pin(figure, start, figure.segments[int(rng.integers(len(figure.segments)))].name)
    constraints: list[object] = [held]
    for item, level in zip(base.constraints, levels, strict=False):
        if isinstance(item, Constraint):
            goal = item.goal
            if isinstance(goal, goals.Position):
                goal = goals.Position(_ulps(np.asarray(goal.point), rng))
            item = Constraint(item.effector, goal, item.weight, item.chain_start, level)
        constraints.append(item)
    problem = Problem(figure, constraints)  # type: ignore[arg-type]
    _check(problem, start, method=method, restarts=restarts, time_limit=budget, seed=seed)


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    segments=st.integers(3, 20),
    n_goals=st.integers(1, 4),
    far=st.booleans(),
)
def test_a_drag_of_a_chain_on_its_bounds_keeps_them_exactly(
    seed: int, segments: int, n_goals: int, far: bool
) -> None:
    # Position goals on a chain with bounds alone: the kernel's quick path and its
    # general descent, from starts on bounds, events of a drag warm-started.
    rng = np.random.default_rng(seed)
    figure = long_chain(segments, limit=float(rng.uniform(0.05, 0.8)))
    theta = rng.choice([-1.0, 0.0, 1.0], figure.n_dofs) * figure.upper
    chosen = rng.choice(np.arange(1, segments), min(n_goals, segments - 1), replace=False)
    world = figure.forward(theta)
    targets = [world[s][:3, 3] + rng.normal(scale=1.0 if far else 0.05, size=3) for s in chosen]
    problem = Problem(
        figure,
        [
            Constraint(Effector(f"seg{s}"), goals.Position(p), float(rng.uniform(0.2, 5.0)))
            for s, p in zip(chosen, targets, strict=True)
        ],
    )
    tolerance = problem.goal_tolerance(1e-7)
    for _ in range(4):
        moved = {
            k: goals.Position(_ulps(p + rng.normal(scale=0.02, size=3), rng))
            for k, p in enumerate(targets)
        }
        problem = problem.with_goals(moved)
        result = solve(problem, theta, restarts=0, goal_tolerance=tolerance)
        assert np.all(result.x >= figure.lower) and np.all(result.x <= figure.upper)
        theta = result.x


@pytest.mark.parametrize("deadline", [None, 3600.0])
@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), curvature=st.booleans())
def test_a_descent_under_a_deadline_ends_within_its_bounds(
    deadline: float | None, seed: int, curvature: bool
) -> None:
    # Bounded least squares whose minimiser lies beyond many bounds, from a start on
    # some of them, its data moved by ulps: with or without the Gauss–Newton start, and
    # under a deadline that only the projector start fits, every exit is inside.
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(20, 200)), int(rng.integers(2, 20))
    factor = _ulps(rng.normal(size=(n, k)), rng)
    target = factor @ rng.normal(size=k) - rng.uniform(0.0, 1.0, n)

    def objective(phi: np.ndarray) -> tuple[float, np.ndarray]:
        residual = factor.T @ (phi - target)
        return float(residual @ residual), 2.0 * factor @ residual

    lower, upper = -rng.uniform(0.0, 0.5, n), rng.uniform(0.0, 0.5, n)
    start = np.where(rng.random(n) < 0.3, lower, np.where(rng.random(n) < 0.3, upper, 0.0))
    rows = np.vstack([np.eye(n), -np.eye(n)])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(metric.START_CLOCK, "rate", 1.0)  # no Gauss–Newton start fits an hour
        run = descend(
            objective,
            start,
            np.zeros((0, n)),
            np.zeros(0),
            rows,
            np.concatenate([lower, -upper]),
            tolerance=1e-12,
            max_iterations=int(rng.integers(1, 40)),
            deadline=None if deadline is None else time.perf_counter() + deadline,
            curvature=(lambda phi: np.sqrt(2.0) * factor) if curvature else None,
        )
    assert np.all(run.phi >= lower) and np.all(run.phi <= upper)
