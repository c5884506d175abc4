"""The kernel on aim goals (an effector's y axis at a point): numpy's answers, to rounding."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import (
    numpy_and_compiled,
    random_effector,
    random_figure_plan,
    random_frame,
    random_theta,
    solves_with_and_without_compiled_steps,
)
from hypothesis import example, given, settings
from hypothesis import strategies as st
from problems import long_chain

from solver import Comfort, Constraint, Effector, Problem, goals, kernel, solve
from solver.kernel import Kernel

SEEDS = range(12)


def _goal(kind: str, rng: np.random.Generator, near: np.ndarray) -> goals.Goal:
    """A goal of ``kind`` near the point ``near``."""
    if kind == "Aim":
        return goals.Aim(near + rng.normal(scale=0.8, size=3), c_d=float(rng.uniform(0.2, 3.0)))
    if kind == "Position":
        return goals.Position(near + rng.normal(scale=0.3, size=3))
    if kind == "Plane":
        return goals.Plane(near + rng.normal(scale=0.3, size=3), random_frame(rng)[0])
    gx, gy = random_frame(rng)
    return goals.PositionOrientation(near + 0.2, gx, gy, w_position=0.4)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_compiled_objective_of_aims_is_numpys(seed: int) -> None:
    # Aims on random effectors of random trees, beside position, plane and position with
    # orientation goals, unequal weights (one zero), one aim's point on its effector's (the
    # aim undefined, weighing nothing): the kernel gives numpy's G, gradient and pose, and
    # the Gauss–Newton curvature made from the pose it keeps is numpy's.
    if kernel.active() is None:
        assert not kernel.status().compiled
        return
    rng = np.random.default_rng(5300 + seed)
    plan, figure = random_figure_plan(rng, int(rng.integers(2, 25)), chain=bool(seed % 2))
    names = [segment.name for segment in plan.segments]
    theta0 = random_theta(rng, plan)
    world = figure.forward(theta0)
    constraints = []
    for k in range(int(rng.integers(2, 6))):
        name = str(rng.choice(names))
        kind = "Aim" if k < 2 else str(rng.choice(["Aim", "Position", "Plane", "Orientation"]))
        goal = _goal(kind, rng, world[names.index(name)][:3, 3])
        constraints.append(Constraint(random_effector(rng, name), goal))
    on_itself = Problem(figure, constraints[:1]).effector_states(theta0)[0][0]
    constraints.append(Constraint(constraints[0].effector, goals.Aim(on_itself)))
    weights = rng.uniform(0.1, 30.0, len(constraints))
    weights[rng.integers(len(weights))] = 0.0
    constraints = [
        Constraint(c.effector, c.goal, float(w)) for c, w in zip(constraints, weights, strict=True)
    ]
    problem = Problem(figure, constraints)
    for theta in (theta0, random_theta(rng, plan) * 2.0):
        want, have = numpy_and_compiled(problem, theta, curvature=True)
        assert problem.compiled_goals() is not None  # the kernel's objective ran
        size = max(1.0, float(weights.sum() * problem.chain_lengths.max() ** 2))
        assert have[0] == pytest.approx(want[0], rel=1e-13, abs=1e-15 * size)
        for expected, got in zip(want[1:], have[1:], strict=True):
            np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12 * size)


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    segments=st.integers(3, 20),
    iterations=st.integers(1, 5),
    slides=st.booleans(),
)
@example(seed=7, segments=16, iterations=4, slides=True)
def test_the_compiled_gauss_newton_steps_on_an_aim_are_pythons(
    seed: int, segments: int, iterations: int, slides: bool
) -> None:
    # A chain with limits (every third joint a slide, or none), its tip aimed at a point
    # and a middle segment held by a position goal: the first iterations, the kernel's
    # from H's fresh start (an aim's three columns: the point's move across the way to
    # the goal, over its distance, and the axis's turn), give Python's iterates to
    # rounding, with the same evaluations and stop.
    if kernel.active() is None:
        assert not kernel.status().compiled
        return
    rng = np.random.default_rng(seed)
    figure = long_chain(segments, limit=0.8, slide_every=3 if slides else 0)
    theta = rng.uniform(-0.3, 0.3, figure.n_dofs)
    world = figure.forward(theta)
    ex, ey = random_frame(rng)
    tip = Effector(f"seg{segments - 1}", point=rng.normal(scale=0.2, size=3), x_axis=ex, y_axis=ey)
    middle = f"seg{segments // 2}"
    constraints = [
        Constraint(tip, goals.Aim(world[-1][:3, 3] + rng.normal(scale=2.0, size=3)), 3.0),
        Constraint(
            Effector(middle),
            goals.Position(world[segments // 2][:3, 3] + rng.normal(scale=0.2, size=3)),
            float(rng.uniform(0.2, 5.0)),
        ),
    ]
    problem = Problem(figure, constraints)
    have, want, taken = solves_with_and_without_compiled_steps(problem, theta, iterations)
    if 2 * 9 * len(constraints) < len(problem.variables):  # F's columns fewer than half
        assert taken  # the first iteration at least: no row is active at the start
    assert have.status == want.status
    assert have.nit == want.nit and have.nfev == want.nfev
    size = max(1.0, float(np.abs(want.x).max()))
    np.testing.assert_allclose(have.x, want.x, rtol=0, atol=1e-9 * size)


def test_a_look_at_dragged_takes_the_kernels_quick_path_and_ends_where_numpy_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A spine, neck and head of eight segments looking at a point, comfort on, the point
    # moved a little at a time as a drag moves it: each solve is the kernel's descent and
    # its comfort rounds (no Python iteration), and each ends where numpy's ends.
    if kernel.active() is None:
        assert not kernel.status().compiled
        return
    figure = long_chain(8, limit=1.2, slide_every=0)
    theta = np.zeros(figure.n_dofs)
    head = Effector("seg7", y_axis=(1.0, 0.0, 0.0), x_axis=(0.0, 1.0, 0.0))
    comfort = Comfort(np.zeros(figure.n_dofs), 0.01)
    descents = []
    original, settled = Kernel.gauss_newton_descent, Kernel.quick
    monkeypatch.setattr(
        Kernel,
        "gauss_newton_descent",
        lambda self, *a, **k: descents.append(1) or original(self, *a, **k),
    )
    monkeypatch.setattr(  # the descent taken with comfort's rounds, in one call
        Kernel, "quick", lambda self, *a, **k: descents.append(1) or settled(self, *a, **k)
    )
    have = want = theta
    for k in range(1, 8):
        point = (3.0, 0.3 * k, 0.1 * k)
        problem = Problem(figure, [Constraint(head, goals.Aim(point))]).with_comfort(comfort)
        goal = problem.goal_tolerance(1e-7)
        have = solve(problem, have, restarts=0, goal_tolerance=goal).x
        with kernel.enabled(False):
            want = solve(problem, want, restarts=0, goal_tolerance=goal).x
        np.testing.assert_allclose(have, want, rtol=0, atol=1e-5)
        assert problem.potentials(have)[0] <= goal
    assert len(descents) == 7
