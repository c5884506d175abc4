"""Benchmark what priorities and pins cost a Solve whose goals cannot all be met.

Run from the repository root::

    .venv/bin/python -m bench.solver.levels [--quick] [--n N] [--seed S]

The 53-DOF human (``tests.fixtures.models.human_figure``) from its rest pose, with
position goals on both hands and feet where a random feasible pose has them, the left
hand's moved 3 m up: the feet hold the figure, so that goal cannot be met. Each is solved
as Solve solves (``solve`` with its defaults: 8 restarts, tolerance 1e-10), four ways:

* weighted: every goal at priority 0, weight 1;
* prioritised: the same, the left hand at priority 1 (below the others);
* weighted pins: the feet's goals of weight ``PIN_WEIGHT`` (100), the hands' of weight 1;
* pinned: the feet pinned (``solver.pin``) where the pose has them, the hands' goals as
  in weighted.

Ratios of medians: prioritised over weighted, pinned over weighted pins; the targets
are ≤ 2× each. Beside them, the goals' residuals where each ends (the reachable goals'
largest over its limb length, the left hand's distance).

Writes ``bench/results/levels.json`` and ``levels.md``. About a minute.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

import numpy as np

from bench import machine
from bench.harness import BenchmarkParser, Count, table, write_results
from solver import PIN_WEIGHT, Constraint, Problem, goals, kernel, pin, solve
from tests.fixtures.models import human_figure, limb_effectors, limb_length, random_feasible_pose

LIMBS = ("hand.L", "hand.R", "foot.L", "foot.R")
AWAY = np.array([0.0, 0.0, 3.0])
"""How far the left hand's goal is moved from where the pose has it [m]."""
WAYS = ("weighted", "prioritised", "weighted pins", "pinned")
TARGETS = {"prioritised": "weighted", "pinned": "weighted pins"}
"""Each way with levels, and the weighted way it is measured against (≤ 2×)."""
LIMIT = 2.0


def problem(figure: Any, way: str, pose: np.ndarray) -> Problem:
    """The four goals of ``pose`` (the left hand's moved :data:`AWAY`), set up ``way``."""
    effectors = limb_effectors(figure)
    probe = Problem(figure, [Constraint(effectors[n], goals.Position(np.zeros(3))) for n in LIMBS])
    points = dict(zip(LIMBS, probe.effector_states(pose)[0], strict=True))
    points["hand.L"] = points["hand.L"] + AWAY
    constraints = []
    for name in LIMBS:
        effector, target = effectors[name], points[name]
        if way == "pinned" and name.startswith("foot"):
            constraints.append(pin(figure, pose, effector.segment, effector.point, name=name))
            continue
        weight = PIN_WEIGHT if way == "weighted pins" and name.startswith("foot") else 1.0
        priority = 1 if way == "prioritised" and name == "hand.L" else 0
        constraints.append(
            Constraint(effector, goals.Position(target), weight, name=name, priority=priority)
        )
    return Problem(figure, constraints)


def run(problem: Problem, start: np.ndarray) -> dict[str, Any]:
    """One Solve, timed, and where its goals end."""
    began = time.perf_counter()
    result = solve(problem, start)
    elapsed = time.perf_counter() - began
    distances = np.sqrt(problem.potentials(result.theta))
    met = max(d / limb_length(name) for name, d in zip(LIMBS[1:], distances[1:], strict=True))
    return {
        "ms": 1e3 * elapsed,
        "iterations": result.iterations,
        "restarts": result.restarts,
        "G": result.objective,
        "others_over_limb": float(met),
        "hand_L_m": float(distances[0]),
    }


def markdown(record: dict[str, Any]) -> list[str]:
    lines = machine.heading("What priorities and pins cost a Solve", record)
    rows = []
    for way, row in record["ways"].items():
        against = TARGETS.get(way)
        ratio = f"{row['ratio']:.2f}× (≤ {LIMIT:g}×)" if against else ""
        rows.append(
            (
                way,
                f"{row['median_ms']:.1f}",
                ratio,
                f"{row['median_iterations']:g}",
                f"{row['median_restarts']:g}",
                f"{row['largest_others_over_limb']:.1e}",
                f"{row['median_hand_L_m']:.3f}",
            )
        )
    lines += table(
        [
            "way",
            "ms per Solve (median)",
            "over its weighted way",
            "iterations",
            "restarts",
            "other goals' largest residual / limb",
            "left hand off, m (median)",
        ],
        rows,
    )
    return lines


def main() -> None:
    counts = {"n": Count("poses", 4, 20)}
    args = BenchmarkParser(__doc__, "levels", "4 poses", counts).parse_args()
    figure = human_figure()
    rng = np.random.default_rng(args.seed)
    rest = np.zeros(figure.n_dofs)
    runs: dict[str, list[dict[str, Any]]] = {way: [] for way in WAYS}
    for _ in range(args.n):
        pose = random_feasible_pose(figure, rng)
        for way in WAYS:  # in turn, so that each pose's four are measured alike
            runs[way].append(run(problem(figure, way, pose), rest))
    ways: dict[str, dict[str, Any]] = {}
    for way, rows in runs.items():
        ways[way] = {
            "median_ms": statistics.median(r["ms"] for r in rows),
            "median_iterations": statistics.median(r["iterations"] for r in rows),
            "median_restarts": statistics.median(r["restarts"] for r in rows),
            "largest_others_over_limb": max(r["others_over_limb"] for r in rows),
            "median_hand_L_m": statistics.median(r["hand_L_m"] for r in rows),
            "runs": rows,
        }
    for way, against in TARGETS.items():
        ways[way]["ratio"] = ways[way]["median_ms"] / ways[against]["median_ms"]
        ways[way]["against"] = against
    for way, row in ways.items():
        extra = f", {row['ratio']:.2f}× {row['against']}" if "ratio" in row else ""
        print(f"{way}: {row['median_ms']:.1f} ms{extra}", flush=True)
    task = (
        f"The 53-DOF human from rest, {args.n} random feasible poses (seed {args.seed}): "
        "position goals on both hands and feet where each pose has them, the left "
        f"hand's moved {AWAY[2]:g} m up (not met while the feet hold); solve() with its "
        "defaults (8 restarts, tolerance 1e-10). weighted: every goal priority 0, "
        "weight 1; prioritised: the left hand at priority 1; weighted pins: the feet's "
        f"goals of weight {PIN_WEIGHT:g}; pinned: the feet pinned (solver.pin). Ratios "
        "of medians."
    )
    record = machine.record(args.quick, task, kernel=kernel.status().text, limit=LIMIT, ways=ways)
    write_results(args.output, record, markdown(record))


if __name__ == "__main__":
    main()
