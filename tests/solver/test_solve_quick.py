"""A warm solve of Gauss–Newton steps alone (``solve._quick``) changes nothing it returns.

Drags of chains with limits, slides and unequal weights, goals near, far and out of
reach: each solve's result, field by field and bit for bit, is the general path's.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from problems import long_chain

from solver import Constraint, Effector, Problem, SolveResult, goals, kernel, solve
from solver.optimizer import goldfarb

solve_module = importlib.import_module("solver.solve")  # the module, not the function

FIELDS = (
    "fun",
    "nit",
    "nfev",
    "status",
    "message",
    "active_set",
    "active",
    "max_violation",
    "projected_gradient",
    "restarts",
    "outcome",
    "unreachable",
    "held_by",
    "readds",
)


def _same_results(have: SolveResult, want: SolveResult) -> None:
    np.testing.assert_array_equal(have.x, want.x)
    np.testing.assert_array_equal(have.jac, want.jac)
    for name in FIELDS:
        assert getattr(have, name) == getattr(want, name), name


def _drag(
    seed: int, segments: int, n_goals: int, reach: float, slides: bool, restarts: int
) -> tuple[int, int]:
    """A drag of 8 events, each solved both ways from the last result.

    The goals follow effector points of poses along a straight line in joint space
    (within the limits), each pushed ``reach`` off in a fixed random direction (0: every
    event reachable). Returns how many events the quick path took, and how many it was
    tried on.
    """
    rng = np.random.default_rng(seed)
    figure = long_chain(segments, limit=0.6, slide_every=3 if slides else 0)
    lower, upper = np.maximum(figure.lower, -0.5), np.minimum(figure.upper, 0.5)
    theta, end = rng.uniform(lower, upper), rng.uniform(lower, upper)
    chosen = rng.choice(np.arange(1, segments), n_goals, replace=False)
    offsets = rng.normal(size=(n_goals, 3))
    offsets *= reach / np.linalg.norm(offsets, axis=1)[:, None]
    weights = rng.uniform(0.2, 5.0, n_goals)

    def targets(pose: np.ndarray) -> list[np.ndarray]:
        world = figure.forward(pose)
        return [world[s][:3, 3] + d for s, d in zip(chosen, offsets, strict=True)]

    problem = Problem(
        figure,
        [
            Constraint(Effector(f"seg{s}"), goals.Position(p), w)
            for s, p, w in zip(chosen, targets(theta), weights, strict=True)
        ],
    )
    tolerance = problem.goal_tolerance(1e-7)
    quick = []
    original = goldfarb.gauss_newton_descent

    def counted(*args: object, **kwargs: object) -> object:
        found = original(*args, **kwargs)  # type: ignore[arg-type]
        quick.append(found is not None)
        return found

    start = theta.copy()
    for fraction in np.linspace(0.0, 0.08, 9)[1:]:  # steps of 1% of the way
        moved = targets(start + fraction * (end - start))
        problem = problem.with_goals({k: goals.Position(p) for k, p in enumerate(moved)})
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(solve_module, "gauss_newton_descent", counted)
            have = solve(problem, theta, restarts=restarts, goal_tolerance=tolerance)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(solve_module, "QUICK", False)
            want = solve(problem, theta, restarts=restarts, goal_tolerance=tolerance)
        _same_results(have, want)
        theta = want.x
    return sum(quick), len(quick)


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    segments=st.integers(5, 20),
    n_goals=st.integers(1, 4),
    reach=st.sampled_from([0.0, 0.05, 0.4, 3.0]),
    slides=st.booleans(),
    restarts=st.sampled_from([0, 8]),
)
def test_a_quick_solve_returns_what_the_general_path_does(
    seed: int, segments: int, n_goals: int, reach: float, slides: bool, restarts: int
) -> None:
    _drag(seed, segments, n_goals, reach, slides, restarts)


@pytest.mark.parametrize("seed", range(4))
def test_a_warm_drag_of_reachable_goals_takes_the_quick_path(seed: int) -> None:
    taken, tried = _drag(seed, 16, 2, 0.0, False, 0)
    if kernel.active() is None:  # no kernel steps, so no quick path
        assert taken == 0
        return
    assert tried == 8 and taken >= 6
