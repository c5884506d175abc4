"""Count the instructions one warm drag event of the solver executes, under Callgrind.

Run from the repository root, where Valgrind is installed::

    .venv/bin/python -m bench.solver.instructions [--quick] [--events N]

A shared machine's wall clock varies by tens of percent from one minute to the next; the
instructions an event executes do not, so a change of a few percent in the per-event cost
shows here where a timed benchmark cannot see it. The 53-DOF human is dragged as
``bench.solver.versus_scipy`` drags it (the left hand's goal moved along a line, the
other goals held where they are, each event solved warm with ``restarts=0`` and the goal
tolerance of 1e-6 × the chains), with one goal (the left hand) or four (hands and feet),
with comfort toward the rest pose or without. Each case runs under Valgrind's Callgrind
twice, with 20 events and with 20 + N; the difference over N is one event's instructions:
``Problem.with_goals``, ``goal_tolerance`` and ``solve`` in Python and numpy, and the
compiled kernel (its share counted apart, by the library's symbols).

Writes ``bench/results/instructions.json`` and ``instructions.md``. About four minutes.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from bench import machine
from bench.harness import BenchmarkParser, Count, table, write_results
from solver import kernel

LIMBS = ("hand.L", "hand.R", "foot.L", "foot.R")
WARM = 20
"""Events before the counted ones (the problem built, the first solves)."""
CASES = ((1, False), (1, True), (4, False), (4, True))
"""(goals, comfort) of each case."""


def annotated(counts: Path) -> str:
    """``callgrind_annotate``'s listing of a Callgrind file: every function's own count."""
    listing: str = subprocess.run(
        ["callgrind_annotate", "--inclusive=no", "--threshold=100", str(counts)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return listing


def drag(goals_count: int, comfort: bool, events: int) -> None:
    """The drag Callgrind counts: ``events`` warm events after :data:`WARM`."""
    from solver import Comfort, Constraint, Problem, goals, solve
    from tests.fixtures.models import human_figure, limb_effectors

    figure = human_figure()
    effectors = limb_effectors(figure)
    names = LIMBS[:goals_count]
    problem = Problem(
        figure, [Constraint(effectors[n], goals.Position(np.zeros(3))) for n in names]
    )
    theta = figure.zero_pose()
    points = problem.effector_states(theta)[0]
    aim = Comfort.rest(figure.n_dofs) if comfort else None
    for event in range(WARM + events):
        moved = points[0] + np.array([0.0, -0.15, 0.1]) * (event + 1) / 200
        problem = problem.with_goals(
            {j: goals.Position(moved if j == 0 else points[j]) for j in range(len(names))}
        )
        solved = problem.with_comfort(aim)
        theta = solve(solved, theta, restarts=0, goal_tolerance=problem.goal_tolerance(1e-6)).x


def counted(goals_count: int, comfort: bool, events: int) -> tuple[int, int]:
    """Instructions of a run of :func:`drag` in all, and in the compiled kernel's library."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "callgrind.out"
        command = [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={out}",
            sys.executable,
            "-m",
            "bench.solver.instructions",
            "--drag",
            f"{goals_count},{int(comfort)},{events}",
        ]
        subprocess.run(command, check=True, capture_output=True, text=True)
        summary = annotated(out)
    total = kernel = 0
    for line in summary.splitlines():
        found = re.match(r"\s*([\d,]+) .*\((?:\s*[\d.]+%)\)\s+(\S.*)$", line)
        if found is None:
            continue
        value = int(found.group(1).replace(",", ""))
        if "PROGRAM TOTALS" in line:
            total = value
        elif "reach_kernel" in found.group(2):
            kernel += value
    if not total:
        raise RuntimeError("callgrind_annotate printed no program totals")
    return total, kernel


def markdown(record: dict[str, Any]) -> list[str]:
    lines = machine.heading("Instructions of one warm drag event of the solver", record)
    rows = [
        (
            case["goals"],
            "yes" if case["comfort"] else "no",
            f"{case['instructions'] / 1e6:.3f} M",
            f"{case['kernel'] / 1e6:.3f} M",
            f"{case['kernel'] / case['instructions']:.0%}",
        )
        for case in record["cases"]
    ]
    lines += table(
        ["goals", "comfort", "instructions an event", "in the compiled kernel", "kernel's share"],
        rows,
    )
    return lines


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--drag":  # the run Callgrind counts
        goals_count, comfort, events = (int(v) for v in sys.argv[2].split(","))
        drag(goals_count, bool(comfort), events)
        return
    counts = {"events": Count("events counted", 20, 100)}
    args = BenchmarkParser(__doc__, "instructions", "20 events, one goal", counts).parse_args()
    if shutil.which("valgrind") is None or shutil.which("callgrind_annotate") is None:
        raise SystemExit("bench.solver.instructions needs Valgrind (valgrind, callgrind_annotate)")
    cases = []
    for goals_count, comfort in CASES[:2] if args.quick else CASES:
        before, before_kernel = counted(goals_count, comfort, 0)
        after, after_kernel = counted(goals_count, comfort, args.events)
        case = {
            "goals": goals_count,
            "comfort": comfort,
            "instructions": (after - before) / args.events,
            "kernel": (after_kernel - before_kernel) / args.events,
        }
        cases.append(case)
        print(
            f"{goals_count} goal(s), comfort {comfort}: "
            f"{case['instructions'] / 1e6:.3f} M instructions an event, "
            f"{case['kernel'] / 1e6:.3f} M in the kernel",
            flush=True,
        )
    record = _record(args.quick, args.events, cases)
    write_results(args.output, record, markdown(record))


def _record(quick: bool, events: int, cases: list[dict[str, Any]]) -> dict[str, Any]:
    """The run's record: the task in words, the machine, the kernel, the cases."""
    task = (
        f"The 53-DOF human dragged: the left hand's goal moved along a line, the others held; "
        f"{events} warm events (after {WARM}) counted under Valgrind's Callgrind, less a "
        "run of the first alone: with_goals, goal_tolerance and solve (restarts=0)."
    )
    return machine.record(quick, task, kernel=kernel.status().text, cases=cases)


if __name__ == "__main__":
    main()
