"""The problem bank's CI slice (``tests.fixtures.bank``): every case solved and checked.

On each case of ``bank("ci")``: one local descent (``restarts=0``) stays within the
limits, never increases G, ends before the iteration limit. Solved as the Solve button
does (default restarts), reachable cases are met to 1e-6 × chain length, the final G
is no worse than SLSQP's from the same start on all but 2% of the slice, and every
"not reachable" verdict holds: SLSQP from several feasible starts gets no closer
either. SLSQP's G is taken at its pose moved into the limits: it may end outside them
(by up to 1.5 rad on the full bank, where its line search fails), at a G no pose
inside reaches.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import numpy as np
import pytest

import solver
from solver import Problem, SolveResult, solve
from solver.solve import within_reach
from tests.fixtures.bank import Case, bank, build
from tests.fixtures.bank_checks import (
    LONG,
    MET,
    at_most_slsqp,
    goal_errors,
    is_met,
    multistart_slsqp,
    peer,
)

CASES = bank("ci")
BY_NAME = {case.name: case for case in CASES}
REACHABLE = tuple(case for case in CASES if "reachable" in case.tags)
ITERATION_CAP = 1000
"""Generous: a descent that needs more is cycling or crawling."""
ROUNDING = 1e-13
"""Relative rise of G between iterates that rounding may explain."""
VERDICT_STARTS = 4
"""SLSQP's starts (θ0 and seeded random poses) against a "not reachable" verdict."""
SLSQP_FAILURES = 0.02
"""Share of the slice whose final G may exceed SLSQP's."""

SLSQP_SHORTFALLS = (
    "one local descent (restarts=0) ends above SLSQP's G from the same start on 3 of "
    "the slice's 50 cases (a local minimum where SLSQP meets every goal; unreachable "
    "goals at another Kuhn–Tucker point); the restarts find poses at least as good"
)


def params(cases: tuple[Case, ...] = CASES) -> list[object]:
    """The cases as parameters, named."""
    return [pytest.param(case, id=case.name) for case in cases]


@dataclass(frozen=True)
class Descent:
    problem: Problem
    theta0: np.ndarray
    result: SolveResult
    values: tuple[float, ...]
    violation: float


@cache
def descent(name: str) -> Descent:
    """One local descent of a case, with every iterate's largest violation and the G it
    minimises (far targets moved in, :func:`solver.solve.within_reach`)."""
    problem, theta0 = build(BY_NAME[name], solver)
    solved = within_reach(problem, theta0)
    values: list[float] = []
    worst = [0.0]

    def watch(theta: np.ndarray, value: float) -> None:
        values.append(solved.objective(theta)[0])
        worst[0] = max(worst[0], problem.limits.max_violation(theta))

    result = solve(problem, theta0, restarts=0, max_iterations=ITERATION_CAP, callback=watch)
    return Descent(problem, theta0, result, tuple(values), worst[0])


def test_bank_slice_mixes_every_family_and_goal_type() -> None:
    tags = set().union(*(case.tags for case in CASES))
    assert {case.family for case in CASES} == {"human", "tube", "tree", "chain"}
    kinds = {"position", "orientation", "positionorientation", "aim", "line", "plane"}
    assert kinds | {"halfspace", "anyof", "pin", "polygon", "equality", "blocked"} <= tags
    assert {"reachable", "unreachable", "from_rest", "random_start"} <= tags
    assert max(case.n_dofs for case in CASES) >= 200


def test_bank_is_deterministic() -> None:
    again = [BY_NAME[case.name] for case in bank.__wrapped__("ci")]
    assert again == list(CASES)


@pytest.mark.parametrize("case", params(REACHABLE))
def test_bank_reachable_cases_are_met_at_their_witness_pose(case: Case) -> None:
    if case.witness is None:  # the tube task: met to G ≈ 1e-20 (test_fixtures.py)
        assert case.family == "tube"
        return
    problem, _ = build(case, solver)
    witness = np.array(case.witness)
    assert problem.limits.max_violation(witness) <= 1e-12
    assert np.max(goal_errors(problem, witness)) <= 1e-9


@pytest.mark.parametrize("case", params())
def test_bank_descent_never_violates_a_limit(case: Case) -> None:
    run = descent(case.name)
    assert run.result.max_violation <= 1e-9
    assert run.violation <= 1e-9


@pytest.mark.parametrize("case", params())
def test_bank_descent_never_increases_the_objective(case: Case) -> None:
    values = descent(case.name).values
    rises = [
        (k, before, after)
        for k, (before, after) in enumerate(itertools.pairwise(values))
        if after > before + ROUNDING * abs(before)
    ]
    assert not rises


@pytest.mark.parametrize("case", params())
def test_bank_descent_ends_before_the_iteration_limit(case: Case) -> None:
    result = descent(case.name).result
    assert result.status != "max_iterations", result.message


@cache
def default_solve(name: str) -> tuple[Problem, np.ndarray, SolveResult]:
    """A case solved as the Solve button does: default restarts, goals met to 1e-6 ×
    their chain's length."""
    problem, theta0 = build(BY_NAME[name], solver)
    result = solve(problem, theta0, goal_tolerance=problem.goal_tolerance(MET))
    return problem, theta0, result


@pytest.mark.parametrize("case", params(REACHABLE))
def test_bank_reachable_goals_are_met_with_default_restarts(case: Case) -> None:
    problem, _, result = default_solve(case.name)
    assert is_met(problem, result.x), goal_errors(problem, result.x)
    assert result.outcome == "met"
    assert result.unreachable == ()


@pytest.mark.parametrize("case", params())
def test_bank_not_reachable_verdicts_are_true(case: Case) -> None:
    problem, theta0, result = default_solve(case.name)
    if result.outcome != "not_reachable":
        assert result.unreachable == () or result.outcome == "unfinished"
        return
    assert "reachable" not in case.tags
    starts = VERDICT_STARTS if problem.variables.size < LONG else 2
    best = min(run.fun for run in multistart_slsqp(problem, theta0, starts, seed=1))
    assert best > problem.goal_tolerance(MET), f"SLSQP reaches G = {best:.3g}"


def slsqp_shortfalls(solved: Callable[[str], tuple[SolveResult, bool]]) -> list[str]:
    """Cases whose solve ends above SLSQP's G from the same start (at SLSQP's pose
    moved into the limits), both with far targets moved in as the descents see them;
    ``solved``: a case's result, and whether a met goal counts
    as no worse (the Solve button stops once every goal is met)."""
    worse = []
    for case in CASES:
        problem, theta0 = build(case, solver)
        result, met_counts = solved(case.name)
        if met_counts and is_met(problem, result.x):
            continue
        minimised = within_reach(problem, theta0)  # both on the G the descents minimise
        reference = peer(minimised, theta0)
        value = minimised.objective(result.x)[0]
        if not at_most_slsqp(value, reference.inside):
            worse.append(f"{case.name} (G {value:.6g}, SLSQP {reference.inside:.6g})")
    return worse


def test_bank_final_objective_is_at_most_slsqps_on_98_percent() -> None:
    worse = slsqp_shortfalls(lambda name: (default_solve(name)[2], True))
    allowed = math.floor(SLSQP_FAILURES * len(CASES))
    assert len(worse) <= allowed, f"{len(worse)} above SLSQP (≤ {allowed}): {worse}"


@pytest.mark.xfail(strict=True, reason=SLSQP_SHORTFALLS)
def test_bank_one_descent_objective_is_at_most_slsqps_on_98_percent() -> None:
    worse = slsqp_shortfalls(lambda name: (descent(name).result, False))
    allowed = math.floor(SLSQP_FAILURES * len(CASES))
    assert len(worse) <= allowed, f"{len(worse)} above SLSQP (≤ {allowed}): {worse}"


def test_slsqp_is_judged_inside_the_limits() -> None:
    # A full-bank case where SLSQP's line search fails (exit mode 8) 3e-4 rad
    # outside a limit, at a G below any pose inside.
    case = {case.name: case for case in bank("full")}["human-3"]
    problem, theta0 = build(case, solver)
    reference = peer(problem, theta0)
    assert reference.violation > 1e-5
    assert reference.inside > reference.fun


@pytest.mark.parametrize("name", ["chain-2", "chain-6"])
def test_long_chain_descent_meets_its_reachable_goals(name: str) -> None:
    # 1,000 and 500 DOFs: the Gauss–Newton start kept through S⁻¹ lost gᵀHg > 0 to
    # rounding near the goal, and the descent stalled at G ≈ 1e-10 (metric.py).
    case = {case.name: case for case in bank("full")}[name]
    problem, theta0 = build(case, solver)
    result = solve(problem, theta0, restarts=0, max_iterations=ITERATION_CAP)
    assert result.status == "converged", result.message
    assert result.nit <= 10
    assert is_met(problem, result.x), goal_errors(problem, result.x)


def test_restarts_try_each_anyof_member_from_the_start() -> None:
    # At rest this case's AnyOf counts its light half-space member, which no pose meets
    # (32 seeded restarts ended at G 7.06); its heavier position members can be met.
    case = {case.name: case for case in bank("full")}["tree-25"]
    problem, theta0 = build(case, solver)
    one = solve(problem, theta0, restarts=0)
    assert one.outcome == "local_minimum"
    result = solve(problem, theta0, goal_tolerance=problem.goal_tolerance(MET))
    assert result.outcome == "met"
    assert is_met(problem, result.x), goal_errors(problem, result.x)
    assert problem.limits.max_violation(result.x) <= 1e-9


def test_a_descent_cut_off_by_its_cap_goes_on_between_restarts() -> None:
    # Weights 1.3 to 7.6e5; one descent meets every goal in about 530
    # iterations, past the 280 a descent gets when restarts follow.
    case = {case.name: case for case in bank("full")}["tube-9"]
    problem, theta0 = build(case, solver)
    result = solve(problem, theta0, goal_tolerance=problem.goal_tolerance(MET))
    assert result.status == "converged", result.message
    assert is_met(problem, result.x), goal_errors(problem, result.x)
