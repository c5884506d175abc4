"""Problem: G_all, its gradient, the variables and chain reconciliation."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import (
    FD_TOLERANCE,
    GOAL_TYPES,
    FigurePlan,
    central_difference,
    deepest_segment,
    objective_value,
    random_effector,
    random_figure_plan,
    random_goal,
    random_posed_figure,
    random_theta,
    relative_error,
)
from problems import chain_figure, long_chain
from reference import effector_state, reference_forward, reference_objective

from solver import (
    AnyOf,
    Constraint,
    Dof,
    Effector,
    Figure,
    Problem,
    SolverInputError,
    goals,
    solve,
)
from solver import reach as reach_module

SEEDS = range(10)


def _world_effector(plan: FigurePlan, theta: np.ndarray, effector: Effector) -> np.ndarray:
    names = [s.name for s in plan.segments]
    world = reference_forward(plan, theta)[names.index(effector.segment)]
    return effector_state(world, effector)[0]


def _check_gradient(problem: Problem, plan: FigurePlan, theta: np.ndarray) -> None:
    """The generic finite-difference check of ``Problem.objective``.

    On variables: the true partial derivatives (central differences, relative error ≤
    1e-6). Elsewhere: exactly 0. The value equals the reference G_all.
    """
    value, gradient = problem.objective(theta)
    assert gradient.shape == (plan.n_dofs,)
    assert value == pytest.approx(
        reference_objective(plan, problem.constraints, theta), rel=1e-10, abs=1e-14
    )
    expected = central_difference(objective_value(problem), theta)
    variables = problem.variables
    assert relative_error(expected[variables], gradient[variables]) <= FD_TOLERANCE
    fixed = np.ones(plan.n_dofs, dtype=bool)
    fixed[variables] = False
    np.testing.assert_array_equal(gradient[fixed], 0.0)


def _kinds_in(problem: Problem, plan: FigurePlan) -> set[str]:
    dofs = [d for s in plan.segments for d in s.dofs]
    kinds = set()
    for i in problem.variables:
        kinds.add(dofs[i].kind)
        if 0.0 < dofs[i].rigidity < 1.0:
            kinds.add("rigid")
    return kinds


# -- the finite-difference check, over every goal type ---------------------------------


@pytest.mark.parametrize("kind", GOAL_TYPES)
@pytest.mark.parametrize("seed", SEEDS)
def test_objective_gradient_matches_finite_differences(kind: str, seed: int) -> None:
    rng, plan, fig, theta = random_posed_figure(seed, 3, 9)
    effector = random_effector(rng, deepest_segment(plan))
    goal = random_goal(kind, rng, _world_effector(plan, theta, effector))
    constraint = Constraint(effector, goal, weight=rng.uniform(0.2, 3.0))
    problem = Problem(fig, [constraint])
    # Every check covers rotations, translations and partly rigid DOFs.
    assert _kinds_in(problem, plan) >= {"rotation", "translation", "rigid"}
    if kind == "HalfSpace":
        assert problem.objective(theta)[0] > 0.0  # outside: a non-trivial gradient
    _check_gradient(problem, plan, theta)


@pytest.mark.parametrize("seed", SEEDS)
def test_any_of_value_and_gradient_with_members_of_different_types(seed: int) -> None:
    rng, plan, fig, theta = random_posed_figure(500 + seed, 3, 9)
    names = [s.name for s in plan.segments]
    kinds = rng.choice(GOAL_TYPES, size=3, replace=False)
    members = []
    for kind in kinds:
        effector = random_effector(rng, str(rng.choice(names)))
        goal = random_goal(str(kind), rng, _world_effector(plan, theta, effector))
        members.append(Constraint(effector, goal, weight=rng.uniform(0.2, 3.0)))
    weight = rng.uniform(0.2, 3.0)
    group = AnyOf(members, weight=weight)
    problem = Problem(fig, [group])

    potentials = problem.potentials(theta)
    weighted = np.array([c.weight for c in members]) * potentials
    value, _ = problem.objective(theta)
    assert value == pytest.approx(weight * weighted.min(), rel=1e-12)
    # A clear minimum, so that the finite differences do not cross a switch.
    ordered = np.sort(weighted)
    assert ordered[1] - ordered[0] > 1e-4 * max(ordered[1], 1e-12)
    _check_gradient(problem, plan, theta)


@pytest.mark.parametrize("seed", SEEDS)
def test_an_anyof_held_to_each_member_weighs_that_member(seed: int) -> None:
    rng, plan, fig, theta = random_posed_figure(900 + seed, 3, 9)
    names = [s.name for s in plan.segments]
    members = [
        Constraint(
            random_effector(rng, str(rng.choice(names))),
            goals.Position(rng.normal(size=3)),
            weight=rng.uniform(0.2, 3.0),
        )
        for _ in range(3)
    ]
    weight = rng.uniform(0.2, 3.0)
    problem = Problem(fig, [members[0], AnyOf(members, weight=weight)])
    weighted = np.array([c.weight for c in members]) * problem.potentials(theta)[1:]
    assert problem.chosen_members(theta) == {1: 1 + int(np.argmin(weighted))}
    value = problem.objective(theta)[0]
    for j in range(3):
        held = problem.with_member(1, 1 + j)
        held_value = held.objective(theta)[0]
        assert held_value == pytest.approx(
            problem.potentials(theta)[0] * members[0].weight + weight * weighted[j], rel=1e-12
        )
        assert held_value >= value - 1e-12 * abs(value)
        assert held.chosen_members(theta) == {1: 1 + j}
        # the members left out weigh nothing; the smallest weight is of those that count
        out = [1 + k for k in range(3) if k != j]
        np.testing.assert_array_equal(held.weighting.leaves[out], 0.0)
        assert held.smallest_weight() == min(members[0].weight, weight * members[j].weight)
        gradient = held.objective(theta)[1]
        expected = central_difference(objective_value(held), theta)
        assert relative_error(expected[held.variables], gradient[held.variables]) <= FD_TOLERANCE
    assert problem.objective(theta)[0] == value  # the original is untouched
    with pytest.raises(SolverInputError, match="not an AnyOf"):
        problem.with_member(0, 0)
    with pytest.raises(SolverInputError, match="not a member"):
        problem.with_member(1, 0)


@pytest.mark.parametrize("seed", SEEDS)
def test_sum_of_constraints_with_chain_starts_matches_finite_differences(seed: int) -> None:
    # Several constraints on random segments, each with a random chain start among the
    # ancestors of its effector, one AnyOf among them: chain reconciliation in action.
    rng, plan, fig, theta = random_posed_figure(700 + seed, 4, 10)
    names = [s.name for s in plan.segments]
    items: list[Constraint | AnyOf] = []
    for _ in range(3):
        segment = str(rng.choice(names))
        ancestors = plan.ancestors(segment)
        start = None if rng.random() < 0.3 else str(rng.choice(ancestors))
        effector = random_effector(rng, segment)
        kind = str(rng.choice(GOAL_TYPES))
        goal = random_goal(kind, rng, _world_effector(plan, theta, effector))
        items.append(Constraint(effector, goal, rng.uniform(0.2, 2.0), chain_start=start))
    pair = [
        Constraint(e, goals.Position(rng.normal(size=3)), rng.uniform(0.2, 2.0))
        for e in (random_effector(rng, str(rng.choice(names))) for _ in range(2))
    ]
    items.append(AnyOf(pair, weight=rng.uniform(0.2, 2.0)))
    problem = Problem(fig, items)
    _check_gradient(problem, plan, theta)


def test_zero_weight_constraint_contributes_nothing(rng: np.random.Generator) -> None:
    plan, fig = random_figure_plan(rng, 4)
    theta = random_theta(rng, plan)
    effector = random_effector(rng, deepest_segment(plan))
    problem = Problem(fig, [Constraint(effector, goals.Position((9.0, 9.0, 9.0)), weight=0.0)])
    value, gradient = problem.objective(theta)
    assert value == 0.0
    np.testing.assert_array_equal(gradient, 0.0)


def test_weights_scale_value_and_gradient(rng: np.random.Generator) -> None:
    plan, fig = random_figure_plan(rng, 5)
    theta = random_theta(rng, plan)
    effector = random_effector(rng, deepest_segment(plan))
    goal = goals.Position(rng.normal(size=3))
    one = Problem(fig, [Constraint(effector, goal, weight=1.0)]).objective(theta)
    three = Problem(fig, [Constraint(effector, goal, weight=3.0)]).objective(theta)
    assert three[0] == pytest.approx(3.0 * one[0])
    np.testing.assert_allclose(three[1], 3.0 * one[1], rtol=1e-12)


def test_any_of_follows_the_smallest_member() -> None:
    fig = Figure()
    fig.add_segment("a", dofs=[Dof.translation("x"), Dof.translation("y")])
    near = Constraint(Effector("a"), goals.Position((1.0, 0.0, 0.0)), weight=1.0)
    far = Constraint(Effector("a"), goals.Position((0.0, 3.0, 0.0)), weight=1.0)
    problem = Problem(fig, [AnyOf([near, far], weight=2.0)])
    value, gradient = problem.objective([0.0, 0.0])
    assert value == pytest.approx(2.0 * 1.0)
    np.testing.assert_allclose(gradient, [2.0 * -2.0, 0.0])
    # Members keep their own weights: a small weight makes the far one the minimum.
    cheap_far = Constraint(Effector("a"), goals.Position((0.0, 3.0, 0.0)), weight=0.01)
    problem = Problem(fig, [AnyOf([near, cheap_far], weight=2.0)])
    value, gradient = problem.objective([0.0, 0.0])
    assert value == pytest.approx(2.0 * 0.01 * 9.0)
    np.testing.assert_allclose(gradient, [0.0, 2.0 * 0.01 * -6.0])


def test_any_of_outside_a_box_is_zero_when_outside_any_face() -> None:
    # Keep a point outside the unit cube: one outward half-space per face.
    fig = Figure()
    fig.add_segment("a", dofs=[Dof.translation("x"), Dof.translation("y"), Dof.translation("z")])
    faces = []
    for axis in range(3):
        for sign in (-1.0, 1.0):
            normal = np.zeros(3)
            normal[axis] = sign
            goal = goals.HalfSpace(0.5 * normal, normal)
            faces.append(Constraint(Effector("a"), goal))
    problem = Problem(fig, [AnyOf(faces)])
    assert problem.objective([2.0, 0.0, 0.0])[0] == 0.0
    value, gradient = problem.objective([0.4, 0.1, 0.0])  # inside, nearest the +x face
    assert value == pytest.approx(0.1**2)
    np.testing.assert_allclose(gradient, [-0.2, 0.0, 0.0])


# -- other queries ---------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_effector_states_and_potentials_match_reference(seed: int) -> None:
    rng = np.random.default_rng(900 + seed)
    plan, fig = random_figure_plan(rng, 6)
    theta = random_theta(rng, plan)
    names = [s.name for s in plan.segments]
    constraints = []
    for kind in ("Position", "Orientation", "Aim"):
        effector = random_effector(rng, str(rng.choice(names)))
        goal = random_goal(kind, rng, _world_effector(plan, theta, effector))
        constraints.append(Constraint(effector, goal))
    problem = Problem(fig, constraints)
    points, xs, ys = problem.effector_states(theta)
    world = reference_forward(plan, theta)
    for k, c in enumerate(constraints):
        r, x, y = effector_state(world[names.index(c.effector.segment)], c.effector)
        np.testing.assert_allclose(points[k], r, atol=1e-12)
        np.testing.assert_allclose(xs[k], x, atol=1e-12)
        np.testing.assert_allclose(ys[k], y, atol=1e-12)
    potentials = problem.potentials(theta)
    assert potentials.shape == (3,)
    assert problem.objective(theta)[0] == pytest.approx(potentials.sum())


def test_problem_keeps_its_constraints_and_leaves() -> None:
    fig = chain_figure()
    a = Constraint(Effector("hand"), goals.Position((0, 1, 1)))
    b = Constraint(Effector("other"), goals.Position((1, 1, 0)))
    c = Constraint(Effector("lower"), goals.Plane((0, 0, 0), (0, 0, 1)))
    group = AnyOf([b, c])
    problem = Problem(fig, [a, group])
    assert problem.constraints == (a, group)
    assert problem.leaves == (a, b, c)
    assert [t.disjunctive for t in problem.terms] == [False, True]
    assert problem.terms[1].members == (1, 2)


def test_objective_does_not_modify_theta(rng: np.random.Generator) -> None:
    plan, fig = random_figure_plan(rng, 5)
    theta = random_theta(rng, plan)
    before = theta.copy()
    problem = Problem(fig, [Constraint(random_effector(rng, "seg4"), goals.Position((1, 1, 1)))])
    problem.objective(theta)
    np.testing.assert_array_equal(theta, before)


def test_objective_is_deterministic(rng: np.random.Generator) -> None:
    plan, fig = random_figure_plan(rng, 5)
    theta = random_theta(rng, plan)
    problem = Problem(fig, [Constraint(random_effector(rng, "seg4"), goals.Aim((1, 1, 1)))])
    first = problem.objective(theta)
    second = problem.objective(theta)
    assert first[0] == second[0]
    np.testing.assert_array_equal(first[1], second[1])


# -- variables-only hot path and goal tolerances -----------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_variable_gradient_and_curvature_are_the_full_ones_restricted(seed: int) -> None:
    from problems import random_problem

    problem, theta = random_problem(500 + seed, 6, 3)
    rng = np.random.default_rng(seed)
    theta = theta + 0.1 * rng.normal(size=theta.shape)
    value, gradient = problem.evaluate(theta)
    partial_value, partial = problem.evaluate_variables(theta)
    assert partial_value == value
    np.testing.assert_array_equal(partial, gradient[problem.variables])
    fixed = np.ones(problem.n_dofs, bool)
    fixed[problem.variables] = False
    assert not np.any(gradient[fixed])
    full = problem.gauss_newton(theta)
    np.testing.assert_array_equal(
        full[np.ix_(problem.variables, problem.variables)], problem.gauss_newton_variables(theta)
    )
    assert not np.any(full[fixed]) and not np.any(full[:, fixed])


def test_goal_tolerance_bounds_every_goal_distance() -> None:
    from problems import planar_arm, tip

    lengths = [1.0, 0.7, 0.4]
    fig = planar_arm(lengths)
    heavy = Constraint(tip(fig, lengths), goals.Position((0, 1, 0)), weight=4.0)
    light = Constraint(
        Effector("link1", (0, 0.7, 0)), goals.Position((0, 1, 0)), weight=0.5, chain_start="link1"
    )
    problem = Problem(fig, [heavy, AnyOf([light], weight=2.0)])
    tau = problem.goal_tolerance(1e-6)
    # the smallest of 4·(1e-6·2.1)² and 2·0.5·(1e-6·0.7)²
    assert tau == pytest.approx(min(4.0 * 2.1**2, 1.0 * 0.7**2) * 1e-12, rel=1e-12)
    assert problem.goal_tolerance(0.0) == 0.0
    with pytest.raises(SolverInputError, match="relative must be ≥ 0"):
        problem.goal_tolerance(-1.0)
    # asked again (a drag's events ask each time), and by a variant of other goals: the same
    assert problem.goal_tolerance(1e-6) == tau
    assert problem.with_goals({0: goals.Position((0, 0.9, 0))}).goal_tolerance(1e-6) == tau
    assert problem.goal_tolerance(2e-6) == pytest.approx(4.0 * tau, rel=1e-12)


def test_with_goals_matches_a_problem_built_afresh() -> None:
    from problems import random_problem

    problem, theta = random_problem(909, 6, 3)
    rng = np.random.default_rng(9)
    boxed = AnyOf([problem.leaves[1], problem.leaves[2]], weight=0.7, name="either")
    problem = Problem(problem.figure, [problem.leaves[0], boxed])
    target = rng.normal(size=3)
    moved = problem.with_goals({0: goals.Position(target), 2: goals.Plane(target, (0, 0, 1))})
    leaves = list(problem.leaves)
    leaves[0] = Constraint(
        leaves[0].effector, goals.Position(target), leaves[0].weight, leaves[0].chain_start
    )
    leaves[2] = Constraint(
        leaves[2].effector, goals.Plane(target, (0, 0, 1)), leaves[2].weight, leaves[2].chain_start
    )
    fresh = Problem(problem.figure, [leaves[0], AnyOf(leaves[1:], weight=0.7)])
    value, gradient = moved.objective(theta)
    expected_value, expected_gradient = fresh.objective(theta)
    assert value == pytest.approx(expected_value, rel=1e-14)
    np.testing.assert_allclose(gradient, expected_gradient, rtol=1e-13, atol=1e-15)
    assert moved.constraints[1].name == "either" and moved.leaves[1] is problem.leaves[1]
    # the original is untouched
    assert problem.objective(theta)[0] != pytest.approx(value)
    with pytest.raises(SolverInputError, match="leaf index 3"):
        problem.with_goals({3: goals.Position(target)})


def _residual(goal: goals.Goal, r: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """R with P = ‖R‖², written out per goal type from the potentials' definitions."""
    if isinstance(goal, goals.Position):
        return r - goal.point
    if isinstance(goal, goals.Orientation):
        return np.concatenate([goal.c_dx * (x - goal.x), goal.c_dy * (y - goal.y)])
    if isinstance(goal, goals.PositionOrientation):
        turn = np.sqrt(goal.w_orientation) * _residual(goal.orientation, r, x, y)
        return np.concatenate([np.sqrt(goal.w_position) * (r - goal.point), turn])
    if isinstance(goal, goals.Aim):
        d = goal.point - r
        return goal.c_d * (d / np.linalg.norm(d) - y)
    if isinstance(goal, goals.Line):
        delta = r - goal.point
        return delta - (delta @ goal.direction) * goal.direction
    height = (r - goal.point) @ goal.normal
    if isinstance(goal, goals.HalfSpace):
        return np.array([min(height, 0.0)])
    assert isinstance(goal, goals.Plane)
    return np.array([height])


@pytest.mark.parametrize("seed", range(8))
def test_gauss_newton_curvature_is_that_of_each_goals_residual(seed: int) -> None:
    # B = Σ_e w_e · 2 J_Rᵀ J_R, with R each goal's own residual (P = ‖R‖²) differentiated
    # by finite differences: plane, line, half-space and aim weigh only the directions
    # their potential depends on.
    from problems import random_problem

    problem, theta = random_problem(700 + seed, 7, 5)
    problem = Problem(problem.figure, list(problem.leaves))  # every leaf a term of its own
    rng = np.random.default_rng(seed)
    theta = theta + 0.2 * rng.normal(size=theta.shape)
    variables = problem.variables

    def residuals(at: np.ndarray) -> list[np.ndarray]:
        states = zip(*problem.effector_states(at), strict=True)
        pairs = zip(problem.leaves, states, strict=True)
        return [_residual(leaf.goal, *state) for leaf, state in pairs]

    states = list(zip(*problem.effector_states(theta), strict=True))
    for leaf, state, value in zip(problem.leaves, states, residuals(theta), strict=True):
        assert leaf.goal.potential(*state) == pytest.approx(value @ value, rel=1e-12, abs=1e-15)
    h = 1e-6
    columns = []
    for j in variables:
        step = np.zeros_like(theta)
        step[j] = h
        plus, minus = residuals(theta + step), residuals(theta - step)
        columns.append([(p - q) / (2 * h) for p, q in zip(plus, minus, strict=True)])
    expected = np.zeros((len(variables), len(variables)))
    for e, leaf in enumerate(problem.leaves):
        jac = np.array([column[e] for column in columns])  # (n_v, len R)
        expected += leaf.weight * 2.0 * jac @ jac.T
    np.testing.assert_allclose(
        problem.gauss_newton_variables(theta), expected, rtol=1e-6, atol=1e-7
    )


def _every_goal_type(
    rng: np.random.Generator, segments: int, *, weighted: bool
) -> tuple[Figure, np.ndarray, list[Constraint]]:
    """A random figure, a pose, and a constraint of every goal type near its effector."""
    plan, fig = random_figure_plan(rng, segments)
    theta = random_theta(rng, plan)
    names = [s.name for s in plan.segments]
    constraints = []
    for kind in GOAL_TYPES:
        effector = random_effector(rng, str(rng.choice(names)))
        goal = random_goal(str(kind), rng, _world_effector(plan, theta, effector))
        weight = rng.uniform(0.5, 2.0) if weighted else 1.0
        constraints.append(Constraint(effector, goal, weight=weight))
    return fig, theta, constraints


def test_potentials_at_the_effectors_own_states_are_the_potentials(
    rng: np.random.Generator,
) -> None:
    # Measured elsewhere (Blender's evaluated pose), the same states give the same
    # potentials; moved states give the goals' own values there.
    fig, theta, constraints = _every_goal_type(rng, 6, weighted=False)
    problem = Problem(fig, constraints)
    points, x, y = problem.effector_states(theta)
    np.testing.assert_array_equal(problem.potentials_at(points, x, y), problem.potentials(theta))
    moved = points + 0.1
    states = zip(constraints, moved, x, y, strict=True)
    expected = [c.goal.evaluate(p, a, b).value for c, p, a, b in states]
    np.testing.assert_allclose(problem.potentials_at(moved, x, y), expected, rtol=1e-12)


def _not_called(*args: object) -> None:
    raise AssertionError("measured again")


def test_a_problem_on_its_figure_moved_is_the_problem_built_on_it(
    rng: np.random.Generator, monkeypatch: pytest.MonkeyPatch
) -> None:
    fig, theta, constraints = _every_goal_type(rng, 7, weighted=True)
    problem = Problem(fig, constraints)
    problem.evaluate(theta)  # derive and cache what it can first
    assert problem.moving_limits is not None and problem.chain_lengths is not None
    problem.reach.balls(theta)
    before = problem.goal_tolerance(1e-6)
    turn = np.linalg.qr(rng.normal(size=(3, 3)))[0]
    motion = np.eye(4)
    motion[:3, :3] = 1.5 * turn * np.sign(np.linalg.det(turn))
    motion[:3, 3] = (0.3, -0.2, 1.0)
    moved = fig.moved(motion)
    on = problem.on(moved)
    fresh = Problem(moved, constraints)
    value, gradient = on.evaluate(theta)
    expected, expected_gradient = fresh.evaluate(theta)
    assert value == pytest.approx(expected, rel=1e-12)
    np.testing.assert_allclose(gradient, expected_gradient, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(on.chain_lengths, fresh.chain_lengths, rtol=1e-12)
    # the tolerance scales with the chains (1.5² here), kept or not
    assert on.goal_tolerance(1e-6) == pytest.approx(fresh.goal_tolerance(1e-6), rel=1e-12)
    assert on.goal_tolerance(1e-6) == pytest.approx(2.25 * before, rel=1e-12)
    assert problem.with_goals({}).goal_tolerance(1e-6) == before
    np.testing.assert_allclose(
        on.leaf_reach_margins(theta), fresh.leaf_reach_margins(theta), rtol=1e-9, atol=1e-12
    )
    want_balls = fresh.reach.balls(theta)
    # the balls measured before the motion are carried along, not measured again
    monkeypatch.setattr(reach_module, "reach_balls", _not_called)
    for got, want in zip(on.reach.balls(theta), want_balls, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    assert on.moving_limits is problem.moving_limits
    assert on.reach.chains is problem.reach.chains  # the motion keeps the chains
    with pytest.raises(SolverInputError, match="not this problem's figure"):
        problem.on(chain_figure())


def test_the_value_kept_at_a_pose_is_read_by_its_own_problem_alone() -> None:
    # A problem keeps G_all and its gradient at the last pose (a solve asks again at its
    # end). The problems made from it (other goals, one level, one member) share that
    # pose and must each compute their own value there; a gradient changed by its
    # caller must not change the one kept.
    from problems import random_problem

    problem, theta = random_problem(911, 6, 3)
    boxed = AnyOf([problem.leaves[1], problem.leaves[2]], weight=0.7)
    problem = Problem(problem.figure, [problem.leaves[0], boxed])
    first, gradient = problem.evaluate_variables(theta)
    expected = gradient.copy()
    gradient[:] = 7.0
    again, kept = problem.evaluate_variables(theta)
    assert again == first
    np.testing.assert_array_equal(kept, expected)
    unchosen = 3 - problem.chosen_members(theta)[1]
    target = np.random.default_rng(3).normal(size=3)
    for other in (
        problem.with_goals({0: goals.Position(target)}),
        problem.only(np.array([0])),
        problem.with_member(1, unchosen),
    ):
        value, gradient = other.evaluate_variables(theta)
        other._evaluated = None  # computed afresh, nothing kept
        fresh_value, fresh_gradient = other.evaluate_variables(theta)
        assert value != first
        assert value == fresh_value
        np.testing.assert_array_equal(gradient, fresh_gradient)
    assert problem.evaluate_variables(theta)[0] == first


def test_a_pose_kept_by_another_problem_is_given_this_problems_value() -> None:
    # Position goals alone: where the kernel runs it evaluates G_all itself. A problem
    # made with other goals shares the pose kept at θ, never the value kept there.
    from problems import random_problem

    problem, theta = random_problem(912, 6, 3)
    problem = Problem(
        problem.figure,
        [Constraint(leaf.effector, goals.Position(leaf.goal.point)) for leaf in problem.leaves[:2]],
    )
    first = problem.evaluate_variables(theta)[0]
    target = np.random.default_rng(4).normal(size=3)
    other = problem.with_goals({0: goals.Position(target)})
    value, gradient = other.evaluate_variables(theta)
    other._evaluated = None
    fresh_value, fresh_gradient = other.evaluate_variables(theta)
    assert value != first
    assert value == pytest.approx(fresh_value, rel=1e-12)
    np.testing.assert_allclose(gradient, fresh_gradient, rtol=1e-10, atol=1e-14)
    again, kept = other.evaluate_variables(theta)  # its own value, kept now
    assert again == value
    np.testing.assert_array_equal(kept, gradient)


@pytest.mark.parametrize("seed", range(4))
def test_goals_replaced_by_goals_of_their_types_match_a_problem_built_afresh(seed: int) -> None:
    # Two constraints of every goal type; some goals replaced by new ones of the same
    # type (a drag's), so only their groups are stacked again: every quantity the solver
    # reads from the goals is the fresh problem's.
    rng = np.random.default_rng(seed)
    plan, fig = random_figure_plan(rng, 7)
    theta = random_theta(rng, plan)
    names = [s.name for s in plan.segments]
    constraints, kinds = [], []
    for kind in [*GOAL_TYPES, *GOAL_TYPES]:
        effector = random_effector(rng, str(rng.choice(names)))
        goal = random_goal(str(kind), rng, _world_effector(plan, theta, effector))
        constraints.append(Constraint(effector, goal, weight=rng.uniform(0.5, 2.0)))
        kinds.append(str(kind))
    problem = Problem(fig, constraints)
    problem.evaluate(theta)
    problem.gauss_newton_factor(theta)  # the stacked curvatures made before the change
    chosen = rng.choice(len(constraints), size=len(constraints) // 3, replace=False)
    replacements = {
        int(k): random_goal(kinds[k], rng, _world_effector(plan, theta, constraints[k].effector))
        for k in chosen
    }
    moved = problem.with_goals(replacements)
    fresh = Problem(
        fig, [c.with_goal(replacements.get(k, c.goal)) for k, c in enumerate(constraints)]
    )
    value, gradient = moved.evaluate(theta)
    expected, expected_gradient = fresh.evaluate(theta)
    assert value == pytest.approx(expected, rel=1e-14)
    np.testing.assert_allclose(gradient, expected_gradient, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(
        moved.gauss_newton_factor(theta), fresh.gauss_newton_factor(theta), rtol=1e-13, atol=1e-15
    )
    vector = rng.normal(size=len(problem.variables))
    product, expected_product = moved.hessian_product(theta), fresh.hessian_product(theta)
    if expected_product is not None:
        assert product is not None
        np.testing.assert_allclose(product(vector), expected_product(vector), rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(moved.potentials(theta), fresh.potentials(theta))
    # the problem it was made from keeps its own goals
    np.testing.assert_array_equal(
        problem.potentials(theta), Problem(fig, constraints).potentials(theta)
    )


@pytest.mark.parametrize(("before", "after"), [(1.0, 0.0), (0.0, 1.0), (0.5, 2.0)])
def test_an_orientation_replaced_weighs_the_axes_as_a_problem_built_afresh(
    before: float, after: float
) -> None:
    # The only goal that weighs the axes stops (or starts) weighing them: the curvature's
    # factor leaves their rows out (or takes them in) as a fresh problem's does.
    from problems import random_problem

    problem, theta = random_problem(914, 6, 2)
    hand, wrist = problem.leaves[0], problem.leaves[1]
    x, y = np.eye(3)[0], np.eye(3)[1]
    problem = Problem(
        problem.figure,
        [
            Constraint(hand.effector, goals.Position(hand.goal.point)),
            Constraint(wrist.effector, goals.Orientation(x, y, c_dx=before, c_dy=before)),
        ],
    )
    problem.gauss_newton_factor(theta)
    turned = goals.Orientation(y, x, c_dx=after, c_dy=after)
    moved = problem.with_goals({1: turned})
    fresh = Problem(problem.figure, [problem.leaves[0], problem.leaves[1].with_goal(turned)])
    np.testing.assert_array_equal(
        moved.gauss_newton_factor(theta), fresh.gauss_newton_factor(theta)
    )


def test_position_goals_replaced_keep_the_kernels_targets() -> None:
    from problems import random_problem

    problem, theta = random_problem(913, 6, 3)
    leaves = [Constraint(leaf.effector, goals.Position(leaf.goal.point)) for leaf in problem.leaves]
    problem = Problem(problem.figure, leaves)
    target = np.array([0.3, -0.2, 0.5])
    moved = problem.with_goals({1: goals.Position(target)})
    assert moved._goals.targets is not None and problem._goals.targets is not None
    np.testing.assert_array_equal(moved._goals.targets[1], target)
    np.testing.assert_array_equal(moved._goals.targets[[0, 2]], problem._goals.targets[[0, 2]])
    assert not np.array_equal(problem._goals.targets[1], target)
    fresh = Problem(
        problem.figure, [leaves[0], leaves[1].with_goal(goals.Position(target)), leaves[2]]
    )
    assert moved.evaluate(theta)[0] == pytest.approx(fresh.evaluate(theta)[0], rel=1e-14)


def test_problems_built_apart_on_one_figure_share_what_they_derive_and_solve_as_alone() -> None:
    """Problems built apart on one figure with the same chains and effectors (other
    targets and weights) share what they derive, and each solves, one after
    the other, bit for bit as it does alone on a fresh copy of the figure; another
    effector point, another chain, or a change to the figure makes its own."""
    figure = long_chain(10, limit=1.0)
    start = figure.zero_pose()

    def problem(on: Figure, seed: int, point: tuple[float, ...] = (0.0, 0.0, 0.0)) -> Problem:
        rng = np.random.default_rng(seed)
        world = on.forward(rng.uniform(-0.6, 0.6, on.n_dofs))
        return Problem(
            on,
            [
                Constraint(Effector("seg5"), goals.Position(world[5][:3, 3]), rng.uniform(0.5, 2)),
                Constraint(
                    Effector("seg9", point),
                    goals.PositionOrientation(world[9][:3, 3], world[9][:3, 0], world[9][:3, 1]),
                ),
            ],
        )

    first, second = problem(figure, 1), problem(figure, 2)
    assert first.derived is second.derived
    alone = {seed: solve(problem(long_chain(10, limit=1.0), seed), start) for seed in (1, 2)}
    for seed, shared in ((1, first), (2, second), (1, first)):
        have = solve(shared, start)
        np.testing.assert_array_equal(have.x, alone[seed].x)
        assert (have.fun, have.nit, have.nfev, have.status) == (
            alone[seed].fun,
            alone[seed].nit,
            alone[seed].nfev,
            alone[seed].status,
        )
    assert problem(figure, 1, (0.0, 0.1, 0.0)).derived is not first.derived
    held = Problem(figure, [Constraint(Effector("seg9"), goals.Position((0.0, 1.0, 0.5)))])
    shorter = Problem(
        figure,
        [Constraint(Effector("seg9"), goals.Position((0.0, 1.0, 0.5)), chain_start="seg4")],
    )
    assert held.derived is not shorter.derived
    figure.add_segment("tip", parent="seg9", dofs=[Dof.rotation("x", lower=-1.0, upper=1.0)])
    assert problem(figure, 1).derived is not first.derived
