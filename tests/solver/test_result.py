"""Solve statuses: a string enum with one message table, and the result record."""

from __future__ import annotations

import json

import numpy as np
import pytest

import solver
from solver import Constraint, Effector, Figure, Problem, SolveResult, Status, goals, solve
from solver.result import MESSAGES


def test_status_is_exported_and_equals_its_string_value() -> None:
    assert solver.Status is Status
    assert Status.CONVERGED == "converged"
    assert Status.TIME_LIMIT == "time_limit"
    assert Status.MAX_ITERATIONS == "max_iterations"
    assert Status.STALLED == "stalled"
    assert isinstance(Status.CONVERGED, str)
    assert f"{Status.STALLED}" == "stalled"
    assert json.dumps({"status": Status.TIME_LIMIT}) == '{"status": "time_limit"}'


def test_every_status_has_one_message() -> None:
    assert set(MESSAGES) == set(Status)
    assert all(MESSAGES[status] for status in Status)


@pytest.mark.parametrize("status", list(Status))
def test_message_starts_with_the_table_entry_and_adds_the_detail(status: Status) -> None:
    assert status.message() == MESSAGES[status]
    assert status.message("why") == f"{MESSAGES[status]}: why"


def test_solve_reports_a_status_member(arm: Figure) -> None:
    problem = Problem(arm, [Constraint(Effector("hand"), goals.Position((0.0, 0.5, 0.2)))])
    result = solve(problem, np.zeros(arm.n_dofs))
    assert isinstance(result, SolveResult)
    assert result.status is Status.CONVERGED
    assert result.success
    assert result.message.startswith(MESSAGES[Status.CONVERGED])


def test_success_is_false_for_any_other_status(arm: Figure) -> None:
    problem = Problem(arm, [Constraint(Effector("hand"), goals.Position((0.3, 0.2, 0.5)))])
    result = solve(problem, np.zeros(arm.n_dofs), max_iterations=1, restarts=0)
    assert result.status is Status.MAX_ITERATIONS
    assert not result.success
    assert result.message.startswith(MESSAGES[Status.MAX_ITERATIONS])
