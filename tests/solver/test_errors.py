"""The solver's errors, and bad problems and solves raising solver.SolverInputError.

Non-convergence and unreachable goals are results, never errors.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from helpers import BAD_NUMBERS, raises_input_error
from problems import arm_and_head, hand_constraint, hand_problem

import solver
from solver import AnyOf, Constraint, Dof, Effector, Problem, goals, solve


def test_solver_input_error_is_a_value_error_and_a_reach_error() -> None:
    assert issubclass(solver.SolverInputError, ValueError)
    assert issubclass(solver.SolverInputError, solver.ReachError)
    error = solver.SolverInputError("bad", item="segment 'a'")
    assert error.item == "segment 'a'"


# -- problems --------------------------------------------------------------------------


def test_problem_raises_if_constraint_list_is_empty() -> None:
    with raises_input_error("Problem needs at least one constraint; the list is empty"):
        Problem(arm_and_head(), [])


def test_problem_raises_if_constraints_is_a_bare_constraint() -> None:
    # Problem(fig, c) instead of Problem(fig, [c]): bad input, not a TypeError.
    with raises_input_error("constraint"):
        Problem(arm_and_head(), hand_constraint())  # type: ignore[arg-type]


def test_problem_raises_if_figure_is_not_a_figure() -> None:
    with raises_input_error("Problem needs a solver.Figure"):
        Problem("arm", [hand_constraint()])  # type: ignore[arg-type]


def test_problem_raises_if_an_item_is_not_a_constraint() -> None:
    with raises_input_error("constraint 1 must be a solver.Constraint or solver.AnyOf"):
        Problem(arm_and_head(), [hand_constraint(), goals.Position((0, 0, 0))])  # type: ignore[list-item]


def test_problem_raises_if_effector_segment_is_unknown() -> None:
    constraint = Constraint(Effector("tail"), goals.Position((0, 0, 0)))
    with raises_input_error("unknown segment 'tail'; the figure has 'upper_arm'"):
        Problem(arm_and_head(), [constraint])


def test_problem_raises_if_any_of_member_segment_is_unknown() -> None:
    stray = Constraint(Effector("tail"), goals.Position((0, 0, 0)))
    with raises_input_error("unknown segment 'tail'"):
        Problem(arm_and_head(), [AnyOf([hand_constraint(), stray])])


def test_problem_raises_if_chain_start_is_unknown() -> None:
    constraint = Constraint(Effector("hand"), goals.Position((0, 0, 0)), chain_start="collarbone")
    with raises_input_error("unknown segment 'collarbone'"):
        Problem(arm_and_head(), [constraint])


@pytest.mark.parametrize("start", ["head", "hand"])
def test_problem_raises_if_chain_start_is_not_an_ancestor(start: str) -> None:
    # "head" is another root; "hand" is a descendant of the effector's segment.
    constraint = Constraint(
        Effector("forearm"), goals.Position((0, 0, 0)), chain_start=start, name="reach"
    )
    with raises_input_error(
        f"reach: chain_start '{start}' is not segment 'forearm' or one of its ancestors"
    ) as info:
        Problem(arm_and_head(), [constraint])
    assert info.value.item == "reach"


def test_objective_raises_if_theta_has_wrong_length() -> None:
    with raises_input_error(r"theta must have shape \(4,\), got \(3,\)"):
        hand_problem().objective(np.zeros(3))


@pytest.mark.parametrize("bad", BAD_NUMBERS)
def test_objective_raises_if_theta_is_not_finite(bad: float) -> None:
    with raises_input_error("theta holds NaN or infinite"):
        hand_problem().objective([0.0, bad, 0.0, 0.0])


def test_objective_raises_if_figure_changed_after_problem() -> None:
    fig = arm_and_head()
    problem = hand_problem(fig)
    fig.add_segment("finger", parent="hand", dofs=[Dof.rotation("x")])
    with raises_input_error("the figure changed after this Problem was built"):
        problem.objective(np.zeros(fig.n_dofs))
    with raises_input_error("the figure changed after this Problem was built"):
        solve(problem, np.zeros(fig.n_dofs))


# -- solve -----------------------------------------------------------------------------


@pytest.mark.parametrize("bad", BAD_NUMBERS)
def test_solve_raises_if_theta0_is_not_finite(bad: float) -> None:
    with raises_input_error("theta0 holds NaN or infinite"):
        solve(hand_problem(), [0.0, 0.0, bad, 0.0])


def test_solve_raises_if_theta0_has_wrong_length() -> None:
    with raises_input_error(r"theta0 must have shape \(4,\)"):
        solve(hand_problem(), [0.0, 0.0])


def test_solve_raises_if_start_pose_is_above_a_bound() -> None:
    with raises_input_error(
        re.escape("start pose is outside the limits: upper_arm[0] ≤ 1 is violated by 0.25")
    ) as info:
        solve(hand_problem(), [1.25, 0.0, 0.5, 0.0])
    assert info.value.item == "upper_arm[0] ≤ 1"


def test_solve_raises_if_start_pose_is_below_a_bound() -> None:
    with raises_input_error(re.escape("forearm[0] ≥ 0 is violated by 0.5")):
        solve(hand_problem(), [0.0, 0.0, -0.5, 0.0])


def test_solve_raises_naming_the_worst_violated_limit() -> None:
    with raises_input_error(re.escape("forearm[0] ≤ 2.5 is violated by 0.75")):
        solve(hand_problem(), [1.25, 0.0, 3.25, 0.0])


def test_solve_raises_if_start_pose_is_outside_a_polygon() -> None:
    fig = arm_and_head()
    fig.add_polygon_limit("upper_arm", (0, 1), [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)])
    with raises_input_error(re.escape("polygon of upper_arm[0, 1] edge 1 is violated by 0.2")):
        solve(hand_problem(fig), [0.7, 0.0, 0.5, 0.0])


def test_solve_raises_if_start_pose_breaks_an_equality() -> None:
    fig = arm_and_head()
    fig.add_linear_equality({("upper_arm", 1): 1.0, ("head", 0): -1.0}, rhs=0.0)
    look = Constraint(Effector("head", (0.0, 0.0, 1.0)), goals.Position((1.0, 0.0, 0.0)))
    problem = Problem(fig, [hand_constraint(), look])  # both DOFs in a chain
    with raises_input_error(r"equality #0 \(upper_arm\[1\], head\[0\]\) is violated by 0\.7071"):
        solve(problem, [0.0, 1.0, 0.5, 0.0])


def test_solve_accepts_a_start_pose_on_the_boundary() -> None:
    result = solve(hand_problem(), [1.0, 0.0, 0.0, 0.0], restarts=0, max_iterations=50)
    assert result.max_violation <= 1e-9


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"time_limit": 0.0}, "time_limit must be > 0 seconds or None"),
        ({"time_limit": -1.0}, "time_limit must be > 0 seconds or None"),
        ({"time_limit": np.nan}, "time_limit must be finite"),
        ({"time_limit": "soon"}, "time_limit must be a number"),
        ({"tolerance": 0.0}, "tolerance must be > 0"),
        ({"tolerance": -1e-9}, "tolerance must be > 0"),
        ({"tolerance": np.inf}, "tolerance must be finite"),
        ({"max_iterations": 0}, "max_iterations must be an integer ≥ 1"),
        ({"max_iterations": 10.0}, "max_iterations must be an integer ≥ 1"),
        ({"max_iterations": True}, "max_iterations must be an integer ≥ 1"),
        ({"restarts": -1}, "restarts must be an integer ≥ 0"),
        ({"restarts": 1.5}, "restarts must be an integer ≥ 0"),
        ({"seed": 0.5}, "seed must be an integer"),
        ({"seed": None}, "seed must be an integer"),
        ({"method": "newton"}, r"unknown method 'newton'; choose one of \('goldfarb', 'lbfgsb'"),
    ],
)
def test_solve_raises_if_an_option_is_bad(options: dict, message: str) -> None:
    with raises_input_error(message):
        solve(hand_problem(), np.zeros(4), **options)


def test_solve_raises_if_problem_is_not_a_problem() -> None:
    with raises_input_error("solve needs a solver.Problem"):
        solve(arm_and_head(), np.zeros(4))  # type: ignore[arg-type]


# -- results that are not errors -------------------------------------------------------


def test_unreachable_goal_is_a_result_not_an_error() -> None:
    # The arm reaches 1.0 from its root at most; the goal is 5 away.
    problem = Problem(
        arm_and_head(), [Constraint(Effector("hand"), goals.Position((0.0, 5.0, 0.0)))]
    )
    result = solve(problem, [0.5, 0.3, 1.0, 0.0], restarts=2)
    assert result.status == "converged"
    assert result.objective > 0.0
    assert result.objective == pytest.approx(16.0, rel=1e-6)  # straight arm: 5 − 1 = 4
    assert result.max_violation <= 1e-9


def test_iteration_limit_is_a_result_not_an_error() -> None:
    problem = Problem(
        arm_and_head(), [Constraint(Effector("hand"), goals.Position((0.3, 0.2, 0.5)))]
    )
    result = solve(problem, np.zeros(4), max_iterations=1, restarts=0)
    assert result.status in ("max_iterations", "converged")
    assert result.iterations <= 1
