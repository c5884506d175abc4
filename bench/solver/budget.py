"""Benchmark the time budget at scale: drag events on a 2,000-bone tree with 200 goals.

Run from the repository root::

    .venv/bin/python -m bench.solver.budget [--quick] [--events N] [--seed S]

A random tree of 2,000 segments (each 5 cm, 3 rotations within ±0.6, ±0.4, ±0.6 rad;
each segment's parent one of the 30 made before it) from a random pose inside the
limits, with position goals at 200 of its leaves where they are; one goal is dragged
1 cm an event, and each event solves as the add-on's drag does (``restarts=0``, the
0.1 s budget, tolerance 1e-10, from the last event's pose). The first event also makes
what the problem derives once (the limit rows over the variables); it is reported apart.
Per later event: wall time over the budget, iterations, G. Both the compiled kernel and
numpy, in the same process.

Writes ``bench/results/budget.json`` and ``budget.md``. About a minute.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

import numpy as np

from bench import machine
from bench.harness import BenchmarkParser, Count, table, write_results
from solver import Constraint, Dof, Effector, Figure, Problem, goals, kernel, solve

SEGMENTS = 2000
GOALS = 200
BUDGET = 0.1
"""The add-on's default time budget of a drag event [s]."""
STEP = 0.01
"""How far the dragged goal moves an event [m]."""


def tree(rng: np.random.Generator) -> tuple[Figure, list[int]]:
    """The tree and its leaves."""
    figure = Figure()
    parents = [-1] + [int(rng.integers(max(0, k - 30), k)) for k in range(1, SEGMENTS)]
    for k, parent in enumerate(parents):
        rest = np.eye(4)
        if k:
            rest[:3, 3] = (0.0, 0.05, 0.0)
        figure.add_segment(
            f"b{k}",
            None if parent < 0 else f"b{parent}",
            rest,
            [
                Dof("rotation", (1.0, 0.0, 0.0), -0.6, 0.6),
                Dof("rotation", (0.0, 1.0, 0.0), -0.4, 0.4),
                Dof("rotation", (0.0, 0.0, 1.0), -0.6, 0.6),
            ],
        )
    inner = set(parents)
    return figure, [k for k in range(SEGMENTS) if k not in inner]


def drag(events: int, seed: int) -> dict[str, Any]:
    """One drag of ``events`` events on the current path (kernel or numpy)."""
    rng = np.random.default_rng(seed)
    figure, leaves = tree(rng)
    sites = [leaves[i] for i in np.linspace(0, len(leaves) - 1, GOALS).astype(int)]
    effectors = [Effector(f"b{k}", (0.0, 0.05, 0.0)) for k in sites]
    theta = rng.uniform(-0.2, 0.2, figure.n_dofs)
    probe = Problem(figure, [Constraint(e, goals.Position((0.0, 0.0, 0.0))) for e in effectors])
    points = probe.effector_states(theta)[0]
    problem = Problem(
        figure,
        [Constraint(e, goals.Position(p)) for e, p in zip(effectors, points, strict=True)],
    )
    direction = np.array([1.0, 0.3, 0.2]) / np.linalg.norm([1.0, 0.3, 0.2])
    records = []
    for event in range(1, events + 1):
        began = time.perf_counter()
        moved = problem.with_goals({0: goals.Position(points[0] + STEP * event * direction)})
        result = solve(moved, theta, restarts=0, time_limit=BUDGET, tolerance=1e-10)
        elapsed = time.perf_counter() - began
        theta = result.x
        records.append(
            {
                "ms": 1e3 * elapsed,
                "iterations": result.nit,
                "G": result.fun,
                "status": result.status,
            }
        )
    later = records[1:]
    ratios = [r["ms"] / (1e3 * BUDGET) for r in later]
    return {
        "variables": int(problem.variables.size),
        "first_event_ms": records[0]["ms"],
        "median_over_budget": statistics.median(ratios),
        "max_over_budget": max(ratios),
        "median_iterations": statistics.median(r["iterations"] for r in later),
        "last_G": later[-1]["G"],
        "events": records,
    }


def markdown(record: dict[str, Any]) -> list[str]:
    lines = machine.heading("The time budget on a 2,000-bone tree with 200 goals", record)
    lines += table(
        [
            "path",
            "variables",
            "first event ms",
            "later events: median time / budget",
            "max",
            "iterations",
            "G after the last",
        ],
        [
            (
                path,
                row["variables"],
                f"{row['first_event_ms']:.0f}",
                f"{row['median_over_budget']:.2f}",
                f"{row['max_over_budget']:.2f}",
                f"{row['median_iterations']:g}",
                f"{row['last_G']:.3g}",
            )
            for path, row in record["paths"].items()
        ],
    )
    return lines


def main() -> None:
    counts = {"events": Count("drag events", 5, 15)}
    args = BenchmarkParser(__doc__, "budget", "5 events", counts).parse_args()
    paths = {}
    for path, on in (("kernel", True), ("numpy", False)):
        with kernel.enabled(on):
            paths[path] = drag(args.events, args.seed)
        row = paths[path]
        print(
            f"{path}: first event {row['first_event_ms']:.0f} ms; later events "
            f"{row['median_over_budget']:.2f}× the budget (max {row['max_over_budget']:.2f}×), "
            f"{row['median_iterations']:g} iterations",
            flush=True,
        )
    task = (
        f"A random tree of {SEGMENTS} segments, {GOALS} position goals at leaves, one "
        f"dragged {100 * STEP:g} cm an event; each event solve(restarts=0, "
        f"time_limit={BUDGET:g} s, tolerance=1e-10) from the last pose; {args.events} "
        f"events, seed {args.seed}. The first event also derives the limit rows over "
        "the variables."
    )
    record = machine.record(args.quick, task, kernel=kernel.status().text, paths=paths)
    write_results(args.output, record, markdown(record))


if __name__ == "__main__":
    main()
