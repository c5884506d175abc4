"""``solver.solve`` on what riggers set up: unequal weights and every goal type at once."""

from __future__ import annotations

import math

import numpy as np
import pytest

from solver import Constraint, Effector, Goldfarb, Problem, goals, solve
from solver.methods.base import weight_scale


def _mixed_weight_problems(count: int, seed: int) -> list[tuple[Problem, np.ndarray]]:
    """The 53-DOF human with 1–4 limb goals of weights 1–1000, mostly out of reach."""
    from tests.fixtures.models import human_figure, limb_effectors, limb_length

    figure = human_figure()
    effectors = limb_effectors(figure)
    names = sorted(effectors)
    rng = np.random.default_rng(seed)
    problems = []
    for _ in range(count):
        chosen = rng.choice(names, size=int(rng.integers(1, 5)), replace=False)
        constraints = []
        for name in chosen:
            direction = rng.normal(size=3)
            direction /= np.linalg.norm(direction)
            target = (0.0, 0.0, 1.2) + direction * limb_length(name) * rng.uniform(0.5, 2.0)
            weight = float(10.0 ** rng.uniform(0.0, 3.0))
            constraints.append(Constraint(effectors[name], goals.Position(target), weight=weight))
        problems.append((Problem(figure, constraints), np.zeros(figure.n_dofs)))
    return problems


@pytest.mark.parametrize("metric", ["gauss_newton", "identity"])
def test_mixed_weights_never_cycle_between_dropping_and_adding_a_limit(metric: str) -> None:
    # Unequal weights put the Gauss–Newton step of a smaller active set back into the
    # limit just dropped; without Goldfarb's drop update the row was added back at once,
    # over and over, until max_iterations (most of these solves).
    for problem, theta0 in _mixed_weight_problems(16, seed=7):
        result = solve(
            problem, theta0, restarts=0, max_iterations=1500, method=Goldfarb(start_metric=metric)
        )
        assert result.status != "max_iterations", result.message
        assert result.readds == 0
        if metric == "gauss_newton":  # the default ends at a Kuhn–Tucker point to rounding
            w = weight_scale(problem)  # of G_all / w, its smallest weight
            projected, objective = result.projected_gradient / w, result.objective / w
            assert projected <= 1e-5 * math.sqrt(objective) + 1e-9
        assert result.max_violation <= 1e-9


def test_warm_drag_with_every_goal_type_converges_in_a_few_gauss_newton_steps() -> None:
    # Position, position+orientation, plane, aim, half-space and a held ankle together:
    # with each goal's own curvature (a plane is flat along itself) a drag event takes a
    # few Gauss–Newton steps; an isotropic model took a median of 60.
    from tests.fixtures.models import human_figure, limb_effectors

    figure = human_figure()
    effectors = limb_effectors(figure)
    theta = np.zeros(figure.n_dofs)
    states = {}
    for name in ("hand.L", "hand.R", "foot.L", "foot.R", "ankle.L"):
        problem = Problem(figure, [Constraint(effectors[name], goals.Position((0, 0, 0)))])
        states[name] = [s[0] for s in problem.effector_states(theta)]
    hand = states["hand.L"][0] + (0.1, -0.2, 0.3)
    constraints = [
        Constraint(effectors["hand.L"], goals.Position(hand)),
        Constraint(
            effectors["hand.R"],
            goals.PositionOrientation(
                states["hand.R"][0] + (-0.1, -0.2, 0.2), *states["hand.R"][1:]
            ),
            weight=3.0,
        ),
        Constraint(effectors["foot.L"], goals.Plane(states["foot.L"][0], (0, 0, 1)), weight=10.0),
        Constraint(Effector("head", point=(0, 0.1, 0)), goals.Aim((0.5, -2.0, 1.2)), weight=0.5),
        Constraint(effectors["foot.R"], goals.HalfSpace(states["foot.R"][0], (0, 0, 1))),
        Constraint(effectors["ankle.L"], goals.Position(states["ankle.L"][0]), weight=100.0),
    ]
    problem = Problem(figure, constraints)
    theta = solve(problem, theta, restarts=0).theta
    iterations = []
    for k in range(40):
        wave = (np.sin(k / 10), 0.5 * np.cos(k / 7) - 0.5, 0.3 * np.sin(k / 5))
        problem = problem.with_goals({0: goals.Position(hand + 0.3 * np.array(wave))})
        result = solve(problem, theta, restarts=0, goal_tolerance=problem.goal_tolerance(1e-6))
        assert result.status == "converged"
        assert result.max_violation <= 1e-9
        iterations.append(result.iterations)
        theta = result.theta
    assert np.median(iterations) <= 4
    assert max(iterations) <= 10
