"""The kernel on centres of mass and on plane and half-space goals: numpy's answers, to rounding."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import (
    numpy_and_compiled,
    random_effector,
    random_figure_plan,
    random_frame,
    random_theta,
    random_unit,
    solves_with_and_without_compiled_steps,
)
from hypothesis import example, given, settings
from hypothesis import strategies as st
from problems import long_chain

import solver
from solver import CentreOfMass, Comfort, Constraint, Effector, Problem, goals, kernel, solve
from solver.kernel import Kernel
from tests.fixtures.models import feet_pins, human_figure, palm_goal

SEEDS = range(12)

POINT_KINDS = ("Position", "Plane", "HalfSpace")


def _point_goal(kind: str, rng: np.random.Generator, near: np.ndarray) -> goals.Goal:
    """A goal on a point near ``near``: a half-space it may be inside or outside of."""
    normal = random_unit(rng)
    if kind == "Position":
        return goals.Position(near + rng.normal(scale=0.3, size=3))
    if kind == "Plane":
        return goals.Plane(near + rng.normal(scale=0.3, size=3), normal)
    return goals.HalfSpace(near + rng.uniform(-0.3, 0.3) * normal, normal)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_compiled_objective_of_centres_of_mass_and_planes_is_numpys(seed: int) -> None:
    # One or two centres of mass (masses on some segments, points off their origins), each
    # with several goals (positions, planes, half-spaces it is inside or outside of), beside
    # plain effectors with every goal type the kernel reads, on random trees, unequal
    # weights (one zero): the kernel gives numpy's G, gradient, pose and parts' points,
    # and the Gauss–Newton curvature made from the pose it keeps is numpy's.
    if kernel.active() is None:
        assert not kernel.status().compiled
        return
    rng = np.random.default_rng(4100 + seed)
    plan, figure = random_figure_plan(rng, int(rng.integers(2, 25)), chain=bool(seed % 2))
    names = [segment.name for segment in plan.segments]
    theta0 = random_theta(rng, plan)
    world = figure.forward(theta0)
    constraints = []
    for _ in range(int(rng.integers(1, 3))):
        owners = rng.choice(names, int(rng.integers(1, len(names) + 1)), replace=False)
        masses = {str(name): float(rng.uniform(0.0, 5.0)) for name in owners}
        masses[str(owners[0])] += 0.5
        points = {str(name): rng.normal(scale=0.2, size=3) for name in owners[::2]}
        body = CentreOfMass(masses, points)
        near = world[:, :3, 3].mean(axis=0)
        for _ in range(int(rng.integers(1, 5))):
            kind = str(rng.choice(POINT_KINDS))
            constraints.append(Constraint(body, _point_goal(kind, rng, near)))
    for _ in range(int(rng.integers(0, 4))):
        name = str(rng.choice(names))
        kind = str(rng.choice([*POINT_KINDS, "PositionOrientation"]))
        near = world[names.index(name)][:3, 3]
        if kind == "PositionOrientation":
            gx, gy = random_frame(rng)
            goal: goals.Goal = goals.PositionOrientation(near + 0.2, gx, gy, w_position=0.4)
        else:
            goal = _point_goal(kind, rng, near)
        constraints.append(Constraint(random_effector(rng, name), goal))
    weights = rng.uniform(0.1, 30.0, len(constraints))
    weights[rng.integers(len(weights))] = 0.0 if len(weights) > 1 else weights[0]
    constraints = [
        Constraint(c.effector, c.goal, float(w)) for c, w in zip(constraints, weights, strict=True)
    ]
    problem = Problem(figure, constraints)
    for theta in (theta0, random_theta(rng, plan) * 2.0):
        want, have = numpy_and_compiled(problem, theta, curvature=True)
        assert problem.derived.objective_plan is not None  # the kernel's objective ran
        assert problem.derived.objective_plan.massed
        size = max(1.0, float(weights.sum() * problem.chain_lengths.max() ** 2))
        assert have[0] == pytest.approx(want[0], rel=1e-13, abs=1e-15 * size)
        for expected, got in zip(want[1:], have[1:], strict=True):
            np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12 * size)


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    segments=st.integers(4, 20),
    iterations=st.integers(1, 4),
    fence=st.sampled_from([-0.2, 0.0, 0.3]),
)
@example(seed=3, segments=9, iterations=3, fence=0.3)
def test_the_compiled_gauss_newton_steps_on_a_centre_of_mass_are_pythons(
    seed: int, segments: int, iterations: int, fence: float
) -> None:
    # A chain with limits, its centre of mass held by a half-space (inside, on it or
    # outside) and a plane, a goal on its tip: the first iterations, the kernel's from H's
    # fresh start (F of one column a plane, none for a half-space inside), give Python's
    # iterates to rounding, with the same evaluations and stop.
    if kernel.active() is None:
        assert not kernel.status().compiled
        return
    rng = np.random.default_rng(seed)
    figure = long_chain(segments, limit=0.6, slide_every=0)
    theta = rng.uniform(-0.3, 0.3, figure.n_dofs)
    world = figure.forward(theta)
    body = CentreOfMass({f"seg{k}": float(rng.uniform(0.5, 3.0)) for k in range(segments)})
    centre = Problem(figure, [Constraint(body, goals.Position((0, 0, 0)))]).effector_states(theta)
    point = centre[0][0]
    normal = random_unit(rng)
    constraints = [
        Constraint(body, goals.HalfSpace(point + fence * normal, normal), 4.0),
        Constraint(body, goals.Plane(point + rng.normal(scale=0.1, size=3), random_unit(rng))),
        Constraint(
            Effector(f"seg{segments - 1}"),
            goals.Position(world[segments - 1][:3, 3] + rng.normal(scale=0.3, size=3)),
            rng.uniform(0.2, 5.0),
        ),
    ]
    problem = Problem(figure, constraints)
    have, want, taken = solves_with_and_without_compiled_steps(problem, theta, iterations)
    if 2 * 3 * len(constraints) < len(problem.variables):
        assert taken  # the first iteration at least: no row is active at the start
    assert have.status == want.status
    assert have.nit == want.nit and have.nfev == want.nfev
    size = max(1.0, float(np.abs(want.x).max()))
    np.testing.assert_allclose(have.x, want.x, rtol=0, atol=1e-9 * size)


def test_balance_with_comfort_solves_alike_on_the_kernel_and_on_numpy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Feet held, a hand reaching past the support with the centre of mass fenced over the
    # feet, comfort on: the kernel evaluates the fenced level and its comfort rounds (numpy
    # only measures the fences between passes), and ends where numpy ends.
    if kernel.active() is None:
        assert not kernel.status().compiled
        return
    figure = human_figure()
    theta = np.zeros(figure.n_dofs)
    masses = {
        s.name: 1.0 + 6.0 * (s.name in ("pelvis", "spine1", "spine2")) for s in figure.segments
    }
    body = CentreOfMass(masses)
    feet = [Constraint(p.effector, p.goal, priority=1) for p in feet_pins(figure, theta)]
    reach = palm_goal(figure, theta, (0.0, -0.45, -0.5))
    low, high = (-0.14, -0.12), (0.14, 0.17)
    edges = [
        ((low[0], 0.0, 0.0), (1.0, 0.0, 0.0)),
        ((high[0], 0.0, 0.0), (-1.0, 0.0, 0.0)),
        ((0.0, low[1], 0.0), (0.0, 1.0, 0.0)),
        ((0.0, high[1], 0.0), (0.0, -1.0, 0.0)),
    ]
    fences = [Constraint(body, goals.HalfSpace(p, n)) for p, n in edges]
    problem = Problem(figure, [*feet, *fences, Constraint(reach.effector, reach.goal, priority=1)])
    problem = problem.with_comfort(Comfort(np.zeros(figure.n_dofs)))
    settled, evaluated = [], []
    original_settle = Kernel.settle
    monkeypatch.setattr(
        Kernel, "settle", lambda self, *a, **k: settled.append(1) or original_settle(self, *a, **k)
    )
    numpy_states = solver.parts.Parts.states
    monkeypatch.setattr(
        solver.parts.Parts,
        "states",
        lambda self, *a: evaluated.append(not self.single) or numpy_states(self, *a),
    )
    with kernel.enabled(False):
        want = solve(problem, theta)
    by_numpy, evaluated[:] = sum(evaluated), []
    have = solve(problem, theta)
    assert settled  # comfort's rounds in the kernel
    assert 10 * sum(evaluated) < by_numpy  # numpy evaluates the centre of mass a few times
    assert have.outcome == want.outcome == "met"
    point = problem.effector_states(have.x)[0][2][:2]
    assert np.all(point >= np.array(low) - 1e-9) and np.all(point <= np.array(high) + 1e-9)
    np.testing.assert_allclose(have.x, want.x, rtol=0, atol=1e-5)
