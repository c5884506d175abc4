"""``solve``'s outcome: met, not reachable (proved), a local minimum, or unfinished."""

from __future__ import annotations

import math

import numpy as np
import pytest
from problems import planar_arm, tip

from solver import AnyOf, Constraint, Outcome, Problem, goals, solve

LENGTHS = [0.6, 0.4]


def _arm(*targets: tuple[float, float, float], upper: float = math.pi) -> Problem:
    fig = planar_arm(LENGTHS, upper=upper)
    effector = tip(fig, LENGTHS)
    return Problem(fig, [Constraint(effector, goals.Position(t)) for t in targets])


def test_a_met_goal_is_met_with_nothing_unreachable() -> None:
    result = solve(_arm((0.5, 0.3, 0.0)), np.zeros(2), restarts=0)
    assert result.outcome is Outcome.MET
    assert result.outcome == "met"
    assert result.unreachable == ()


def test_a_goal_beyond_the_arms_length_is_proved_not_reachable() -> None:
    result = solve(_arm((1.5, 0.2, 0.0)), np.zeros(2), restarts=0)
    assert result.status == "converged"
    assert result.outcome is Outcome.NOT_REACHABLE
    assert result.unreachable == (0,)
    assert result.held_by == ()  # the limits do not hold it: the arm is straight
    assert result.fun > 0.0


def test_only_the_goal_beyond_reach_is_named_beside_a_reachable_one() -> None:
    fig = planar_arm([0.6, 0.4])
    reachable = Constraint(tip(fig, LENGTHS), goals.Plane((0, 0, 0), (0, 0, 1)))
    beyond = Constraint(tip(fig, LENGTHS), goals.Position((0.0, 1.1, 0.0)), weight=3.0)
    result = solve(Problem(fig, [reachable, beyond]), np.zeros(2), restarts=0)
    assert result.outcome is Outcome.NOT_REACHABLE
    assert result.unreachable == (1,)


def test_a_goal_the_limits_keep_away_is_a_local_minimum_held_by_named_limits() -> None:
    # Both joints may only turn clockwise (≤ 0), so a target on the left (+x is right
    # of the arm's +y) inside the arm's length cannot be met: not provable by length.
    problem = _arm((-0.5, 0.5, 0.0), upper=0.0)
    result = solve(problem, np.full(2, -0.1), restarts=0)
    assert result.status == "converged"
    assert result.outcome is Outcome.LOCAL_MINIMUM
    assert result.unreachable == ()
    assert result.held_by
    assert set(result.held_by) <= set(result.active_set)
    assert all("≤ 0" in label for label in result.held_by)


def test_a_solve_cut_short_is_unfinished() -> None:
    result = solve(_arm((-0.5, -0.5, 0.0)), np.zeros(2), restarts=0, max_iterations=1)
    assert result.status == "max_iterations"
    assert result.outcome is Outcome.UNFINISHED


def test_any_of_is_out_of_reach_only_when_every_member_is() -> None:
    fig = planar_arm(LENGTHS)
    effector = tip(fig, LENGTHS)

    def anyof(*targets: tuple[float, float, float]) -> Problem:
        return Problem(fig, [AnyOf([Constraint(effector, goals.Position(t)) for t in targets])])

    assert solve(anyof((2.0, 0, 0), (0.0, 0.9, 0)), np.zeros(2)).outcome is Outcome.MET
    far = solve(anyof((2.0, 0, 0), (0.0, -1.5, 0)), np.zeros(2), restarts=0)
    assert far.outcome is Outcome.NOT_REACHABLE
    assert far.unreachable == (0,)


def test_goal_tolerance_sets_what_counts_as_met() -> None:
    problem = _arm((0.5, 0.3, 0.0))
    loose = solve(problem, np.zeros(2), restarts=0, goal_tolerance=1e-2)
    assert loose.fun <= 1e-2
    assert loose.outcome is Outcome.MET
    assert loose.fun == pytest.approx(loose.objective)
