"""Benchmark every solver method on the same tasks in one run.

Run from the repository root::

    .venv/bin/python -m bench.solver.methods [--quick] [--targets N] [--events N]

Each method of ``solver.METHODS`` with its default options, on:

(a) ``targets``: the 53-DOF human (``human_figure()``) with position goals on both
palms and both soles, targets made by forward kinematics of random feasible poses (so
every one is reachable), solved from rest with ``restarts=2``;
(b) ``drag``: the left palm's goal moved along the palm's path between two random
poses, the other limbs held, each event warm-started with ``restarts=0`` and a 0.1 s
budget (the add-on's drag);
(c) ``tube``: Zhao & Badler's Figure 3 task (grouped spine), from its upright start;
(d) ``pinned``: the left wrist pinned
(:func:`solver.pin`) while a goal on the top of the spine (chain from the lowest
vertebra) leans it forward 15 cm, backward 10 cm, or turns it 30° about the vertical
(a position + orientation goal), in 10 events each: the pin's largest drift and the
spine goal's final residual per method;
(e) ``bank``: the problem bank's CI slice (``bank("ci")``: the human, tube,
random trees and long chains, weights up to 1e6, every goal type, pins, polygons,
equalities, reachable and unreachable cases) as the Solve button solves it (default
restarts, ``goal_tolerance`` for 1e-6 × chain, at most 1000 iterations and 5 s):
success over the reachable cases (every goal within the fraction of its chain's
length), time, iterations and limit violations over all.

A goal is met at tolerance t when its distance is at most t × its limb length (1 m for
the spine goal). Reports success at 1e-6 and 1e-3, median time and iterations, and the
largest limit violation; each run's time and error are kept for ``bench.report.plots``' success
against time per method. Writes ``bench/results/methods.json`` and ``methods.md``.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import solver
from bench import machine
from bench.harness import BenchmarkParser, Count, table, write_results
from solver import METHODS, Constraint, Effector, Figure, Problem, goals, pin, solve
from tests.fixtures.bank import bank, build
from tests.fixtures.bank_checks import goal_errors
from tests.fixtures.models import (
    human_figure,
    limb_effectors,
    limb_length,
    random_feasible_pose,
    tube_task,
)

LIMBS = ("hand.L", "hand.R", "foot.L", "foot.R")
TOLERANCES = (1e-6, 1e-3)
COLUMNS = (
    "task",
    "method",
    "runs",
    "≤ 1e-6 × limb",
    "≤ 1e-3 × limb",
    "median ms",
    "median iterations",
    "max violation",
)
PIN_COLUMNS = ("motion", "method", "largest pin drift", "spine residual", "median ms")


def _errors(problem: Problem, theta: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    return np.sqrt(np.maximum(problem.potentials(theta), 0.0)) / lengths


def _row(task: str, method: str, runs: list[dict[str, float]]) -> dict[str, Any]:
    row: dict[str, Any] = {"task": task, "method": method, "runs": len(runs)}
    for t in TOLERANCES:
        row[f"success_{t:g}"] = sum(r["error"] <= t for r in runs) / len(runs)
    row["median_ms"] = statistics.median(r["ms"] for r in runs)
    row["median_iterations"] = statistics.median(r["iterations"] for r in runs)
    row["max_violation"] = max(r["violation"] for r in runs)
    row["runs_ms"] = [r["ms"] for r in runs]
    row["runs_error"] = [r["error"] for r in runs]
    return row


def _run(
    problem: Problem, theta: np.ndarray, lengths: np.ndarray, **options: Any
) -> tuple[dict[str, float], np.ndarray]:
    started = time.perf_counter()
    result = solve(problem, theta, **options)
    ms = 1000.0 * (time.perf_counter() - started)
    error = float(_errors(problem, result.x, lengths).max())
    run = {"error": error, "ms": ms, "iterations": result.nit, "violation": result.max_violation}
    return run, result.x


def targets(figure: Figure, count: int, seed: int) -> list[dict[str, Any]]:
    """(a): random reachable targets from rest."""
    effectors = limb_effectors(figure)
    lengths = np.array([limb_length(name) for name in LIMBS])
    rng = np.random.default_rng(seed)
    problems = []
    for _ in range(count):
        pose = random_feasible_pose(figure, rng)
        world = figure.forward(pose)
        constraints = []
        for name in LIMBS:
            effector = effectors[name]
            frame = world[[s.name for s in figure.segments].index(effector.segment)]
            point = frame[:3, :3] @ effector.point + frame[:3, 3]
            constraints.append(Constraint(effector, goals.Position(point), name=name))
        problems.append(Problem(figure, constraints))
    rows = []
    for method in METHODS:
        runs = [
            _run(p, np.zeros(figure.n_dofs), lengths, method=method, restarts=2)[0]
            for p in problems
        ]
        rows.append(_row("human: random targets", method, runs))
    return rows


def drag(figure: Figure, events: int, seed: int) -> list[dict[str, Any]]:
    """(b): the left palm dragged between two random poses, the other limbs held."""
    effectors = limb_effectors(figure)
    lengths = np.array([limb_length(name) for name in LIMBS])
    rng = np.random.default_rng(seed + 1)
    start, end = (
        random_feasible_pose(figure, rng, spread=0.5),
        random_feasible_pose(figure, rng, spread=0.5),
    )
    index = {s.name: k for k, s in enumerate(figure.segments)}

    def place(pose: np.ndarray, name: str) -> np.ndarray:
        effector = effectors[name]
        frame = figure.forward(pose)[index[effector.segment]]
        return frame[:3, :3] @ effector.point + frame[:3, 3]

    base = Problem(
        figure, [Constraint(effectors[n], goals.Position(place(start, n)), name=n) for n in LIMBS]
    )
    rows = []
    for method in METHODS:
        theta = start.copy()
        runs = []
        for t in np.linspace(0.0, 1.0, events + 1)[1:]:
            hand = place(start + t * (end - start), "hand.L")
            problem = base.with_goals({0: goals.Position(hand)})
            run, theta = _run(problem, theta, lengths, method=method, restarts=0, time_limit=0.1)
            runs.append(run)
        rows.append(_row("human: left palm drag", method, runs))
    return rows


def tube(repeats: int) -> list[dict[str, Any]]:
    """(c): the tube task from its upright start (G_all as the error, 1 m limb)."""
    figure, constraints, theta0 = tube_task(grouped=True)
    problem = Problem(figure, constraints)
    rows = []
    for method in METHODS:
        runs = []
        for _ in range(repeats):
            started = time.perf_counter()
            result = solve(problem, theta0, method=method)
            runs.append(
                {
                    "error": float(np.sqrt(result.fun)),
                    "ms": 1000.0 * (time.perf_counter() - started),
                    "iterations": result.nit,
                    "violation": result.max_violation,
                }
            )
        rows.append(_row("tube task (grouped)", method, runs))
    return rows


BANK_ITERATIONS = 1000
BANK_TIME_LIMIT = 5.0
"""The bank runs' caps (those of ``bench.solver.bank``)."""


def bank_slice() -> list[dict[str, Any]]:
    """(e): every method on the bank's CI slice, as the Solve button solves."""
    cases = bank("ci")
    rows = []
    for method in METHODS:
        reachable, others = [], []
        for case in cases:
            problem, theta0 = build(case, solver)
            started = time.perf_counter()
            result = solve(
                problem,
                theta0,
                method=method,
                max_iterations=BANK_ITERATIONS,
                time_limit=BANK_TIME_LIMIT,
                goal_tolerance=problem.goal_tolerance(TOLERANCES[0]),
            )
            run = {
                "error": float(goal_errors(problem, result.x).max()),
                "ms": 1000.0 * (time.perf_counter() - started),
                "iterations": result.nit,
                "violation": float(problem.limits.max_violation(result.x)),
            }
            (reachable if "reachable" in case.tags else others).append(run)
        row = _row("bank (CI slice): reachable cases", method, reachable)
        every = _row("bank", method, reachable + others)
        for key in ("median_ms", "median_iterations", "max_violation"):
            row[key] = every[key]
        row["cases"] = len(cases)
        rows.append(row)
    return rows


MOTIONS: dict[str, Callable[[float], tuple[np.ndarray, float]]] = {
    "lean forward 15 cm": lambda t: (np.array((0.0, -0.15 * t, -0.03 * t)), 0.0),
    "lean backward 10 cm": lambda t: (np.array((0.0, 0.10 * t, -0.02 * t)), 0.0),
    "twist 30°": lambda t: (np.zeros(3), np.radians(30.0) * t),
}
"""Per motion of (d), the wrist pinned: the spine top's offset and turn at fraction t."""


def pinned(figure: Figure, events: int) -> list[dict[str, Any]]:
    """(d): the wrist pinned while the spine leans or twists."""
    theta0 = np.zeros(figure.n_dofs)
    theta0[figure.dof_index("upper_arm.L", 0)] = 0.3
    held = pin(figure, theta0, "hand.L")
    top = figure.forward(theta0)[[s.name for s in figure.segments].index("spine3")]
    chest = Effector("spine3", (0.0, 0.0, 0.0))
    rows = []
    for motion, offset in MOTIONS.items():
        for method in METHODS:
            theta, drift, times, residual = theta0.copy(), 0.0, [], 0.0
            for t in np.linspace(0.0, 1.0, events + 1)[1:]:
                shift, turn = offset(t)
                c, s = np.cos(turn), np.sin(turn)
                spin = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
                axes = spin @ top[:3, :3] / np.linalg.norm(top[:3, 0])
                goal = goals.PositionOrientation(top[:3, 3] + shift, axes[:, 0], axes[:, 1])
                problem = Problem(figure, [held, Constraint(chest, goal, chain_start="spine1")])
                started = time.perf_counter()
                result = solve(problem, theta, method=method, restarts=0, time_limit=0.1)
                times.append(1000.0 * (time.perf_counter() - started))
                theta = result.x
                place = problem.effector_states(theta)[0][0]
                drift = max(drift, float(np.linalg.norm(place - held.goal.point)))  # type: ignore[attr-defined]
                residual = float(np.sqrt(problem.potentials(theta)[1]))
            rows.append(
                {
                    "motion": motion,
                    "method": method,
                    "pin_drift": drift,
                    "spine_residual": residual,
                    "median_ms": statistics.median(times),
                }
            )
    return rows


def main() -> None:
    """Run the benchmark and write its results."""
    parser = BenchmarkParser(
        __doc__ or "",
        "methods",
        "a few targets and events",
        {"targets": Count("random targets", 4, 40), "events": Count("drag events", 5, 30)},
    )
    args = parser.parse_args()
    figure = human_figure()
    rows = targets(figure, args.targets, args.seed)
    rows += drag(figure, args.events, args.seed)
    rows += tube(1 if args.quick else 3)
    rows += bank_slice()
    pins = pinned(figure, 4 if args.quick else 10)
    cells = [
        (
            r["task"],
            r["method"],
            r["runs"] if "cases" not in r else f"{r['cases']} ({r['runs']} reachable)",
            f"{100 * r['success_1e-06']:.0f}%",
            f"{100 * r['success_0.001']:.0f}%",
            f"{r['median_ms']:.1f}",
            f"{r['median_iterations']:g}",
            f"{r['max_violation']:.1e}",
        )
        for r in rows
    ]
    pin_cells = [
        (
            r["motion"],
            r["method"],
            f"{r['pin_drift']:.2e} m",
            f"{r['spine_residual']:.2e}",
            f"{r['median_ms']:.1f}",
        )
        for r in pins
    ]
    markdown = [
        "# Every method on the same tasks",
        "",
        *table(COLUMNS, cells),
        "",
        "## The left wrist pinned while the spine moves",
        "",
        *table(PIN_COLUMNS, pin_cells),
    ]
    print("\n".join(markdown))
    record = {**machine.about(), "methods": rows, "pinned": pins, "quick": args.quick}
    write_results(args.output, record, markdown)


if __name__ == "__main__":
    main()
