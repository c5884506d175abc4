"""One case of the problem bank measured: the current solver and the previous one (one
local descent, and as the Solve button solves), SLSQP from the same start and from
several seeded feasible starts.

Part of ``bench.solver.bank``.
"""

from __future__ import annotations

import time
from types import ModuleType
from typing import Any

import solver
from bench.previous_solver import PREVIOUS, load
from solver.solve import within_reach
from tests.fixtures.bank import Case, build
from tests.fixtures.bank_checks import MET, at_most_slsqp, is_met, multistart_slsqp

PREVIOUS_NAME = "baseline_solver"
"""The package name the previous solver is imported under."""
ITERATION_CAP = 1000
"""``max_iterations`` of every Reach solve."""
TIME_LIMIT = 5.0
"""``time_limit`` of every Reach solve [s]: the previous solver takes minutes on the
longest chains."""
MULTISTART_BELOW = 150
"""Variables below which SLSQP also runs from several feasible starts."""
SLSQP_BELOW = 320
"""Variables below which SLSQP runs at all (its dense steps cost O(n³): minutes above)."""


def previous_solver() -> ModuleType:
    """``solver/`` at :data:`PREVIOUS`, imported as :data:`PREVIOUS_NAME`."""
    return load(PREVIOUS, PREVIOUS_NAME)


def run_reach(case: Case, module: ModuleType, *, restarts: int | None) -> dict[str, Any]:
    """One Reach solve of ``case`` with ``module``: one local descent (``restarts=0``)
    or as the Solve button solves (default restarts, goals met to 1e-6 × chain length).

    The pose is judged with the current solver's problem: G as its descents minimise it
    (far targets moved in, ``within_reach``) beside SLSQP's on the same, and the goals
    met or not as set.
    """
    problem, theta0 = build(case, module)
    goals, _ = build(case, solver)
    judge = within_reach(goals, theta0)
    options: dict[str, Any] = {"max_iterations": ITERATION_CAP, "time_limit": TIME_LIMIT}
    if restarts is None:
        options["goal_tolerance"] = problem.goal_tolerance(MET)
    else:
        options["restarts"] = restarts
    began = time.perf_counter()
    result = module.solve(problem, theta0, **options)
    elapsed = time.perf_counter() - began
    outcome = getattr(result, "outcome", None)
    return {
        "time": elapsed,
        "iterations": int(result.nit),
        "status": str(result.status),
        "outcome": None if outcome is None else str(outcome),
        "unreachable": list(getattr(result, "unreachable", ())),
        "objective": float(judge.evaluate(result.x)[0]),
        "met": is_met(goals, result.x),
        "violation": float(judge.limits.max_violation(result.x)),
        "readds": getattr(result, "readds", None),
    }


def run_slsqp(case: Case, starts: int) -> dict[str, Any]:
    """SLSQP from θ0 and, below :data:`MULTISTART_BELOW` variables, from ``starts − 1``
    seeded feasible poses; None fields above :data:`SLSQP_BELOW` variables."""
    goals, theta0 = build(case, solver)
    problem = within_reach(goals, theta0)  # the G Reach's descents minimise
    n = int(problem.variables.size)
    if n >= SLSQP_BELOW:
        return {
            "objective": None,
            "inside": None,
            "violation": None,
            "time": None,
            "met": None,
            "best": None,
            "best_met": None,
        }
    began = time.perf_counter()
    runs = multistart_slsqp(problem, theta0, starts if n < MULTISTART_BELOW else 1, seed=1)
    elapsed = time.perf_counter() - began
    best = min(runs, key=lambda run: run.fun)
    return {
        "objective": runs[0].fun,
        "inside": runs[0].inside,
        "violation": runs[0].violation,
        "time": elapsed / len(runs),
        "met": is_met(goals, runs[0].x),
        "starts": len(runs),
        "best": float(goals.objective(best.x)[0]),
        "best_met": is_met(goals, best.x),
        "goal_tolerance": goals.goal_tolerance(MET),
        "moved": sum(
            a.goal is not b.goal for a, b in zip(goals.leaves, problem.leaves, strict=True)
        ),
    }


def measure(case: Case, previous: ModuleType, starts: int) -> dict[str, Any]:
    """Every run of one case, and how they compare."""
    row: dict[str, Any] = {
        "case": case.name,
        "family": case.family,
        "tags": sorted(case.tags),
        "n_dofs": case.n_dofs,
        "reach": {
            "descent": run_reach(case, solver, restarts=0),
            "solve": run_reach(case, solver, restarts=None),
        },
        "previous": {
            "descent": run_reach(case, previous, restarts=0),
            "solve": run_reach(case, previous, restarts=None),
        },
        "slsqp": run_slsqp(case, starts),
    }
    # SLSQP's G at its pose moved into the limits: it may end outside them.
    peer = row["slsqp"]["inside"]
    for name in ("reach", "previous"):
        for kind in ("descent", "solve"):
            run = row[name][kind]
            # The Solve button stops once every goal is met (G ≤ goal_tolerance): met
            # counts as no worse than SLSQP's G, which may lie further below.
            met = kind == "solve" and run["met"]
            no_worse = None if peer is None else at_most_slsqp(run["objective"], peer)
            run["at_most_slsqp"] = no_worse if no_worse is None else no_worse or met
    return row
