"""Chain reconciliation: the variables, chain starts, locked DOFs and chain lengths."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import (
    FD_TOLERANCE,
    central_difference,
    deepest_segment,
    objective_value,
    random_effector,
    random_figure_plan,
    random_theta,
    relative_error,
)
from problems import chain_figure

from solver import Constraint, Dof, Effector, Figure, Problem, goals
from solver.chains import Term, leaf_weights


def test_variables_are_the_union_of_chains() -> None:
    fig = chain_figure()
    hand = Constraint(Effector("hand"), goals.Position((0, 1, 1)), chain_start="lower")
    other = Constraint(Effector("other"), goals.Position((1, 1, 0)), chain_start="other")
    problem = Problem(fig, [hand, other])
    np.testing.assert_array_equal(problem.variables, [3, 4, 5])
    np.testing.assert_array_equal(problem.variable_mask, [0, 0, 0, 1, 1, 1])
    np.testing.assert_array_equal(problem.chains, [[0, 0, 0, 1, 1, 0], [0, 0, 0, 0, 0, 1]])
    assert problem.n_dofs == 6


def test_chain_to_the_root_by_default() -> None:
    fig = chain_figure()
    problem = Problem(fig, [Constraint(Effector("hand"), goals.Position((0, 1, 1)))])
    np.testing.assert_array_equal(problem.variables, [0, 1, 2, 3, 4])


def test_chain_start_limits_the_chain_and_fixed_dofs_get_zero_gradient() -> None:
    fig = chain_figure()
    theta = np.array([0.3, 0.2, 0.4, 0.5, 0.6, 0.7])
    goal = goals.Position((0.3, 1.0, 1.0))
    full = Problem(fig, [Constraint(Effector("hand"), goal)])
    short = Problem(fig, [Constraint(Effector("hand"), goal, chain_start="upper")])
    _, full_gradient = full.objective(theta)
    value, short_gradient = short.objective(theta)
    np.testing.assert_array_equal(short.variables, [2, 3, 4])
    # root's DOFs move the hand (non-zero in the full chain) but are not in this chain.
    assert np.all(np.abs(full_gradient[:2]) > 1e-6)
    np.testing.assert_array_equal(short_gradient[[0, 1, 5]], 0.0)
    np.testing.assert_allclose(short_gradient[2:5], full_gradient[2:5], rtol=1e-14)
    assert value == pytest.approx(full.objective(theta)[0])


def test_chain_start_at_the_effector_segment_uses_only_its_joint() -> None:
    fig = chain_figure()
    problem = Problem(
        fig,
        [
            Constraint(
                Effector("hand", point=(0, 0.5, 0)), goals.Position((0, 0, 2)), chain_start="hand"
            )
        ],
    )
    np.testing.assert_array_equal(problem.variables, [4])


def test_dof_in_one_chain_enters_the_gradient_of_another_constraint() -> None:
    # A: the hand, chain to the root (root's DOFs are variables).
    # B: "other", chain only its own joint; root's DOFs move B's effector too, so root's
    # gradient must include B's part (Zhao & Badler 1994, §10).
    fig = chain_figure()
    theta = np.array([0.3, 0.2, 0.4, 0.5, 0.6, 0.7])
    a = Constraint(Effector("hand"), goals.Position((0.3, 1.0, 1.0)))
    b = Constraint(
        Effector("other", point=(0, 0.5, 0)),
        goals.Position((2.0, 0.0, 0.0)),
        weight=2.0,
        chain_start="other",
    )
    problem = Problem(fig, [a, b])
    _, gradient = problem.objective(theta)
    _, only_a = Problem(fig, [a]).objective(theta)
    b_alone = Problem(fig, [Constraint(b.effector, b.goal, weight=2.0)])
    _, b_to_root = b_alone.objective(theta)
    np.testing.assert_allclose(gradient[:2], only_a[:2] + b_to_root[:2], rtol=1e-12)
    assert np.all(np.abs(b_to_root[:2]) > 1e-6)
    np.testing.assert_allclose(gradient[5], b_to_root[5], rtol=1e-12)
    expected = central_difference(objective_value(problem), theta)
    assert relative_error(expected, gradient) <= FD_TOLERANCE


def test_dofs_in_no_chain_get_exactly_zero_gradient() -> None:
    for seed in range(10):
        local = np.random.default_rng(seed)
        plan, fig = random_figure_plan(local, 8)
        theta = random_theta(local, plan)
        leaf = deepest_segment(plan)
        start = plan.ancestors(leaf)[1] if plan.depth(leaf) > 1 else leaf
        effector = random_effector(local, leaf)
        problem = Problem(
            fig, [Constraint(effector, goals.Position(local.normal(size=3)), chain_start=start)]
        )
        _, gradient = problem.objective(theta)
        outside = np.setdiff1d(np.arange(fig.n_dofs), problem.variables)
        assert outside.size > 0
        np.testing.assert_array_equal(gradient[outside], 0.0)


def test_locked_dofs_get_zero_gradient_and_are_not_variables() -> None:
    fig = Figure()
    offset = np.eye(4)
    offset[1, 3] = 0.5
    fig.add_segment("a", dofs=[Dof.rotation("z", rigidity=1.0), Dof.rotation("x", rigidity=0.5)])
    fig.add_segment(
        "b", parent="a", rest=offset, dofs=[Dof.translation("x", rigidity=1.0), Dof.rotation("z")]
    )
    problem = Problem(
        fig, [Constraint(Effector("b", point=(0, 0.5, 0)), goals.Position((1.0, 1.0, 1.0)))]
    )
    np.testing.assert_array_equal(problem.variables, [1, 3])
    theta = np.array([0.3, 0.2, 0.1, 0.4])
    _, gradient = problem.objective(theta)
    np.testing.assert_array_equal(gradient[[0, 2]], 0.0)
    expected = central_difference(objective_value(problem), theta)
    # Locked DOFs do move the effector; they are held fixed all the same.
    assert np.all(np.abs(expected[[0, 2]]) > 1e-6)
    # Partly rigid DOFs still get the true partial derivative with respect to θ.
    np.testing.assert_allclose(gradient[[1, 3]], expected[[1, 3]], rtol=1e-6)


def test_all_dofs_locked_leaves_no_variables() -> None:
    fig = Figure()
    fig.add_segment("a", dofs=[Dof.rotation("z", rigidity=1.0)])
    problem = Problem(fig, [Constraint(Effector("a", point=(1, 0, 0)), goals.Position((0, 1, 0)))])
    assert problem.variables.size == 0
    value, gradient = problem.objective([0.0])
    assert value == pytest.approx(2.0)
    np.testing.assert_array_equal(gradient, [0.0])


def test_constraint_on_a_dofless_root_has_no_variables() -> None:
    fig = Figure()
    fig.add_segment("base")
    fig.add_segment("arm", dofs=[Dof.rotation("x")])
    problem = Problem(fig, [Constraint(Effector("base"), goals.Position((0, 0, 1)))])
    assert problem.variables.size == 0
    assert problem.objective([0.5])[0] == pytest.approx(1.0)


def test_chain_lengths_run_from_the_chain_start_to_the_effector_the_longest_kept() -> None:
    from problems import planar_arm, tip

    lengths = [1.0, 0.7, 0.4]
    fig = planar_arm(lengths)
    whole = Constraint(tip(fig, lengths), goals.Position((0, 1, 0)))
    part = Constraint(tip(fig, lengths), goals.Position((0, 1, 0)), chain_start="link1")
    problem = Problem(fig, [whole, part])
    # bent or straight, the chain length is measured at the zero pose
    np.testing.assert_allclose(problem.chain_lengths, [2.1, 1.1], rtol=1e-12)
    assert problem.longest_chain == float(np.max(problem.chain_lengths))
    assert problem.with_goals({0: goals.Position((1, 0, 0))}).longest_chain == pytest.approx(2.1)
    moved = problem.on(fig.moved(np.diag([3.0, 3.0, 3.0, 1.0])))  # every length times 3
    assert moved.longest_chain == float(np.max(moved.chain_lengths)) == pytest.approx(6.3)


def test_a_leaf_in_no_term_weighs_nothing_whatever_memory_its_weight_is_made_in() -> None:
    # An AnyOf held to one member (Problem.with_member) leaves its other members in no term.
    terms = (Term(1.0, (0,), False), Term(2.0, (2,), True))
    weights = np.array([1.0, 5.0, 3.0])
    for _ in range(3):
        freed = np.full(3, 1e-300)  # numpy hands this memory to the next array of its size
        del freed
        found = leaf_weights(terms, weights)
        np.testing.assert_array_equal(found, [1.0, 0.0, 6.0])
