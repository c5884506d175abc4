"""Every method of ``solve``: the planar arm's known answer, limits, time and options."""

from __future__ import annotations

import math
import os
from collections.abc import Callable

import numpy as np
import pytest
from helpers import raises_input_error
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from problems import planar_arm, random_problem, tip

from solver import (
    METHODS,
    Constraint,
    Dls,
    Goldfarb,
    JacobianTranspose,
    Lbfgsb,
    Problem,
    goals,
    solve,
)

ARM = [0.3, 0.25]


def two_link_problem(target: tuple[float, float]) -> Problem:
    fig = planar_arm(ARM, lower=0.0, upper=math.pi)
    return Problem(fig, [Constraint(tip(fig, ARM), goals.Position((*target, 0.0)))])


def test_methods_are_the_four_systems() -> None:
    assert METHODS == ("goldfarb", "lbfgsb", "dls", "jacobian_transpose")


@pytest.mark.parametrize("method", METHODS)
def test_each_method_finds_the_planar_arms_elbow_angle(method: str) -> None:
    # Law of cosines: |target|² = a² + b² + 2ab cos(elbow).
    target = (-0.4, 0.1)
    a, b = ARM
    elbow = math.acos((target[0] ** 2 + target[1] ** 2 - a * a - b * b) / (2 * a * b))
    problem = two_link_problem(target)
    result = solve(problem, np.array([0.1, 0.1]), method=method, restarts=0)
    assert result.outcome == "met"
    assert result.x[1] == pytest.approx(elbow, abs=1e-4)
    reached = problem.effector_states(result.x)[0][0]
    assert np.linalg.norm(reached[:2] - target) <= 1e-4


@settings(
    max_examples=int(os.environ.get("REACH_EXAMPLES", "25")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    seed=st.integers(0, 2**31 - 1),
    n_segments=st.integers(1, 6),
    n_goals=st.integers(1, 3),
    method=st.sampled_from(METHODS[1:]),
)
def test_no_method_ever_leaves_the_limits(
    seed: int, n_segments: int, n_goals: int, method: str
) -> None:
    problem, theta0 = random_problem(seed, n_segments, n_goals)
    worst: list[float] = []

    def record(theta: np.ndarray, value: float) -> None:
        worst.append(problem.limits.max_violation(theta))

    result = solve(problem, theta0, method=method, restarts=1, max_iterations=150, callback=record)
    assert result.max_violation <= 1e-9
    assert max(worst, default=0.0) <= 1e-9
    assert result.fun <= problem.objective(theta0)[0] * (1 + 1e-12) + 1e-300


@pytest.mark.parametrize("method", METHODS)
def test_each_method_honours_the_time_limit(method: str) -> None:
    problem, theta0 = random_problem(77, 6, 4)
    result = solve(problem, theta0, method=method, time_limit=1e-6, restarts=3)
    assert result.status == "time_limit"
    assert result.max_violation <= 1e-9
    assert result.fun <= problem.objective(theta0)[0]


@pytest.mark.parametrize("method", ["newton", 3, None, Goldfarb])
def test_solve_raises_for_a_method_it_does_not_know(method: object) -> None:
    problem, _theta0 = random_problem(3, 2, 1)
    with raises_input_error("unknown method"):
        solve(problem, np.zeros(problem.n_dofs), method=method)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Lbfgsb(tikhonov=-1.0), "tikhonov must be"),
        (lambda: Lbfgsb(subdivide=1.5), "subdivide must be an integer"),
        (lambda: Lbfgsb(memory=0), "memory must be an integer"),
        (lambda: Lbfgsb(theta_ref=[math.inf]), "theta_ref"),
        (lambda: JacobianTranspose(falloff=2.0), "falloff must be"),
        (lambda: JacobianTranspose(step_size=0.0), "step_size must be"),
        (lambda: JacobianTranspose(cutoff=-1), "cutoff must be an integer"),
        (lambda: Dls(damping=math.nan), "damping"),
        (lambda: Goldfarb(start_metric="newton"), "unknown start_metric"),
    ],
)
def test_a_method_refuses_a_bad_option_when_made(make: Callable[[], object], message: str) -> None:
    with raises_input_error(message):
        make()


def test_solve_refuses_a_reference_pose_of_the_wrong_length() -> None:
    problem, _ = random_problem(3, 2, 1)
    method = Lbfgsb(theta_ref=[0.0])
    with raises_input_error("theta_ref"):
        solve(problem, np.zeros(problem.n_dofs), method=method)


def test_a_method_by_name_is_the_method_with_its_defaults() -> None:
    problem, theta0 = random_problem(5, 4, 2)
    for name, made in (("lbfgsb", Lbfgsb()), ("jacobian_transpose", JacobianTranspose())):
        by_name = solve(problem, theta0, method=name, restarts=1)
        by_object = solve(problem, theta0, method=made, restarts=1)
        np.testing.assert_array_equal(by_name.x, by_object.x)
        assert by_name.nit == by_object.nit


@pytest.mark.parametrize("method", METHODS[1:])
def test_each_method_reports_the_same_outcome_fields(method: str) -> None:
    problem = two_link_problem((0.0, 0.9))  # beyond the 0.55 reach
    result = solve(problem, np.array([0.1, 0.1]), method=method, restarts=0)
    assert result.outcome in ("not_reachable", "local_minimum")
    assert result.unreachable == (0,)
    reached = problem.effector_states(result.x)[0][0]
    assert np.linalg.norm(reached) == pytest.approx(sum(ARM), abs=1e-3)


@pytest.mark.parametrize("method", ["goldfarb", "lbfgsb", "dls", "jacobian_transpose"])
@pytest.mark.parametrize("distance", [10.0, 1e3, 1e6])
def test_a_far_goal_winds_no_joint_up(method: str, distance: float) -> None:
    # unbounded joints: the arm points at a goal far out of reach, each joint within
    # half a turn of where it started (DLS and the Jacobian transpose spun them 25 rad
    # at 10 m and 1.4e6 rad at 1e6 m)
    from problems import translation

    from solver import Dof, Figure

    lengths = [0.3, 0.25, 0.2]
    fig = Figure()
    for k in range(3):
        rest = translation(0.0, lengths[k - 1] if k else 0.0, 0.0)
        fig.add_segment(f"link{k}", f"link{k - 1}" if k else None, rest, [Dof.rotation("z")])
    target = distance * np.array([math.cos(2.0), math.sin(2.0), 0.0])
    problem = Problem(fig, [Constraint(tip(fig, lengths), goals.Position(tuple(target)))])
    start = np.array([0.2, -0.3, 0.1])
    result = solve(problem, start, method=method, restarts=0, max_iterations=300)
    assert np.all(np.abs(result.x - start) <= math.pi)
    reach = problem.effector_states(result.x)[0][0]
    assert np.linalg.norm(reach - target) <= distance - 0.9 * sum(lengths)  # it points there
