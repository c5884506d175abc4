"""Problem.hessian_product: ∇²G_all v over the variables, against differences of the gradient.

The product is exact for the kinematics, so it matches central differences of
``evaluate_variables`` to their own error on every goal type, rotations, translations and
partly rigid DOFs, unequal weights and several goals on one tree; the kernel and numpy
agree to rounding.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import (
    GOAL_TYPES,
    deepest_segment,
    random_effector,
    random_goal,
    random_posed_figure,
    relative_error,
)
from problems import chain_figure, long_chain
from reference import effector_state, reference_forward

from solver import AnyOf, Constraint, Effector, Problem, goals, kernel
from solver.goals.stacked import StackedGoals

SEEDS = range(8)
KERNEL = [pytest.param(True, id="kernel"), pytest.param(False, id="numpy")]


def _difference_product(problem: Problem, theta: np.ndarray, direction: np.ndarray) -> np.ndarray:
    """(∇G(θ + h v) − ∇G(θ − h v)) / 2h over the variables, h of 1e-5 of ‖v‖."""
    step = 1e-5 / float(np.linalg.norm(direction))
    moved = np.zeros_like(theta)
    moved[problem.variables] = step * direction
    plus = problem.evaluate_variables(theta + moved)[1]
    minus = problem.evaluate_variables(theta - moved)[1]
    result: np.ndarray = (plus - minus) / (2.0 * step)
    return result


def _world_point(plan, theta: np.ndarray, effector) -> np.ndarray:  # type: ignore[no-untyped-def]
    names = [s.name for s in plan.segments]
    world = reference_forward(plan, theta)[names.index(effector.segment)]
    return effector_state(world, effector)[0]


def _mixed_problem(seed: int) -> tuple[Problem, np.ndarray, np.random.Generator]:
    """A random tree with one goal of each type on random segments, unequal weights."""
    rng, plan, figure, theta = random_posed_figure(900 + seed, 5, 12)
    names = [s.name for s in plan.segments]
    items: list[Constraint | AnyOf] = []
    for kind in GOAL_TYPES:
        segment = str(rng.choice(names))
        effector = random_effector(rng, segment)
        goal = random_goal(kind, rng, _world_point(plan, theta, effector) + rng.normal(0, 0.3, 3))
        ancestors = plan.ancestors(segment)
        start = None if rng.random() < 0.5 else str(rng.choice(ancestors))
        items.append(Constraint(effector, goal, rng.uniform(0.1, 5.0), chain_start=start))
    return Problem(figure, items), theta, rng


@pytest.mark.parametrize("on", KERNEL)
@pytest.mark.parametrize("kind", GOAL_TYPES)
@pytest.mark.parametrize("seed", SEEDS)
def test_product_matches_differences_of_the_gradient(kind: str, seed: int, on: bool) -> None:
    rng, plan, figure, theta = random_posed_figure(seed, 3, 9)
    effector = random_effector(rng, deepest_segment(plan))
    # the goal off the effector, so that its residual's own curvature counts
    goal = random_goal(kind, rng, _world_point(plan, theta, effector) + rng.normal(0, 0.3, 3))
    problem = Problem(figure, [Constraint(effector, goal, weight=rng.uniform(0.2, 3.0))])
    direction = rng.normal(size=len(problem.variables))
    with kernel.enabled(on):
        product = problem.hessian_product(theta)
        assert product is not None
        exact = product(direction)
        expected = _difference_product(problem, theta, direction)
    assert relative_error(expected, exact) <= 1e-6


@pytest.mark.parametrize("on", KERNEL)
@pytest.mark.parametrize("seed", SEEDS)
def test_every_goal_type_together_on_one_tree(seed: int, on: bool) -> None:
    problem, theta, rng = _mixed_problem(seed)
    with kernel.enabled(on):
        product = problem.hessian_product(theta)
        assert product is not None
        for _ in range(3):
            direction = rng.normal(size=len(problem.variables))
            expected = _difference_product(problem, theta, direction)
            assert relative_error(expected, product(direction)) <= 1e-6


@pytest.mark.parametrize("seed", SEEDS)
def test_the_product_is_symmetric(seed: int) -> None:
    problem, theta, rng = _mixed_problem(seed)
    product = problem.hessian_product(theta)
    assert product is not None
    v, w = rng.normal(size=(2, len(problem.variables)))
    left, right = float(w @ product(v)), float(v @ product(w))
    assert left == pytest.approx(right, rel=1e-8, abs=1e-10 * float(np.abs(product(v)).max()))


@pytest.mark.parametrize("seed", SEEDS)
def test_kernel_and_numpy_agree_to_rounding(seed: int) -> None:
    problem, theta, rng = _mixed_problem(seed)
    direction = rng.normal(size=len(problem.variables))
    with kernel.enabled(True):
        product = problem.hessian_product(theta)
        assert product is not None
        compiled = product(direction)
    with kernel.enabled(False):
        product = problem.hessian_product(theta)
        assert product is not None
        reference = product(direction)
    assert relative_error(reference, compiled) <= 1e-12


def test_long_chain_product_matches_differences() -> None:
    # 40 segments, 128 DOFs, goals all along it: the tree sums run deep.
    figure = long_chain(40, slide_every=5)
    rng = np.random.default_rng(3)
    theta = rng.uniform(-0.5, 0.5, figure.n_dofs)
    items = [
        Constraint(
            Effector(f"seg{k}", (0.0, 0.025, 0.0)),
            goals.Position(rng.normal(0, 0.5, 3)),
            weight=float(1 + k % 3),
        )
        for k in range(4, 40, 6)
    ]
    problem = Problem(figure, items)
    direction = rng.normal(size=len(problem.variables))
    for on in (True, False):
        with kernel.enabled(on):
            product = problem.hessian_product(theta)
            assert product is not None
            expected = _difference_product(problem, theta, direction)
            assert relative_error(expected, product(direction)) <= 1e-6


def test_no_product_for_an_any_of() -> None:
    figure = chain_figure()
    pair = [
        Constraint(Effector("hand"), goals.Position((1.0, 0.0, 0.0))),
        Constraint(Effector("other"), goals.Position((0.0, 1.0, 0.0))),
    ]
    problem = Problem(figure, [AnyOf(pair)])
    assert problem.hessian_product(np.zeros(figure.n_dofs)) is None


def test_position_hessian_is_exact_and_the_default_differences_agree() -> None:
    rng = np.random.default_rng(5)
    targets = [goals.Position(rng.normal(size=3)) for _ in range(4)]
    points, x, y = rng.normal(size=(3, 4, 3))
    exact = StackedGoals(targets).hessians(points, x, y)
    np.testing.assert_array_equal(exact[:, :3, :3], np.broadcast_to(2.0 * np.eye(3), (4, 3, 3)))
    assert not np.any(exact[:, 3:, :]) and not np.any(exact[:, :, 3:])
    differences = goals.Goal.stack_hessian.__func__(goals.Position, targets)(points, x, y)  # type: ignore[attr-defined]
    np.testing.assert_allclose(differences, exact, atol=1e-8)
