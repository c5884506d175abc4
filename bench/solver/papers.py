"""Benchmark Reach on the papers' own tasks, beside the times the papers report.

Run from the repository root::

    .venv/bin/python -m bench.solver.papers [--quick] [--repeats N] [--events N] [--targets N]

(a) The 1994 paper's Figure 3 task (Zhao & Badler 1994): ``tube_task(grouped=True)``
(17 vertebrae tied by joint groups, 22 effective DOFs) and ``grouped=False`` (70
independent DOFs), six constraints (palms on the tube, elbows on planes, view point on
the tube's axis, view aimed at its bottom), solved from the upright start with
``solve()``'s defaults and with ``start_metric="identity"`` (the paper's start),
repeated; the paper reports about 5 s and 15 s on a 1990 SGI workstation.

(b) The 1990 paper's interactive figure (Phillips, Zhao & Badler 1990): the 53-DOF
``human_figure()`` with one 7-DOF constraint (``goals.PositionOrientation`` on the
left palm; the paper: about 10 Hz) and with four (both palms and both soles; the
paper: 3–4 Hz). A drag moves the left palm's goal (position and orientation) along a
smooth path made by forward kinematics of a cubic B-spline through random left-arm
poses (so every goal is reachable), in steps of 2% of the arm's length (position step,
or the arm's length times the turn, whichever is larger), the other goals held; each
update builds the problem and solves warm-started from the previous pose with
``restarts=0``, no time limit. From-rest solves go to targets made by forward
kinematics of random whole-body poses, with ``solve()``'s defaults.

An effector meets its goal at tolerance t when its distance to the goal's point is at
most t × its limb length and its axes are within t radians of the goal's. Prints a
table and writes ``bench/results/papers.json`` and ``papers.md``. About a minute on two
cores; ``--quick`` a few seconds.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

import numpy as np

from bench import machine
from bench.harness import BenchmarkParser, Count, table, write_results
from bench.solver.papers_figure import FOUR, ONE, STEP, TOLERANCES, drag, from_rest
from solver import Goldfarb, Problem, solve
from tests.fixtures.models import (
    ARM_LENGTH,
    n_effective_dofs,
    tube_task,
)

TUBE_MET = 1e-12
"""G_all [m²] below which the tube task counts as solved: every goal within 1 µm."""
TUBE_COLUMNS = (
    *("spine", "DOFs (effective)", "start", "median ms", "min ms", "iterations", "restarts"),
    *("G_all", "solved", "paper s", "paper / Reach"),
)
"""The columns of the tube task's table."""
UPDATE_COLUMNS = (
    *("constraints", "kind", "updates", "variables", "median ms", "p90 ms", "median Hz"),
    *("p90 Hz", "paper Hz", "iterations", "ok 1e-6", "ok 1e-3", "max err", "max angle"),
    "statuses",
)
"""The columns of the 1990 figure's table."""
TUBE_RUNS = ("reach", "reach_identity_start")
"""The tube task's runs: from the upright start with the Gauss–Newton metric, and with
the identity."""
UPDATE_KINDS = ("drag", "from_rest")
"""The 1990 figure's kinds of update."""
COUNTS = {
    "repeats": Count("tube solves", 2, 10),
    "events": Count("drag events", 30, 300),
    "targets": Count("from-rest targets", 5, 50),
}

PAPER_1994 = {
    "source": "Zhao & Badler 1994, Figure 3 task (Jack on a 1990 SGI workstation)",
    "grouped_s": 5.0,
    "ungrouped_s": 15.0,
}
PAPER_1990 = {
    "source": "Phillips, Zhao & Badler 1990 (interactive Jack)",
    "one_constraint_hz": (10.0, 10.0),
    "four_constraints_hz": (3.0, 4.0),
}


# -- (a) the tube task ---------------------------------------------------------------


def tube_runs(grouped: bool, repeats: int) -> dict[str, Any]:
    figure, constraints, start = tube_task(grouped=grouped)
    problem = Problem(figure, constraints)
    names = [getattr(c, "name", "") for c in constraints]
    result: dict[str, Any] = {
        "grouped": grouped,
        "n_dofs": figure.n_dofs,
        "effective_dofs": n_effective_dofs(figure),
        "variables": int(problem.variables.size),
        "constraints": names,
        "equalities": int(figure.limits.a_eq.shape[0]),
    }
    for label, metric in (("reach", "gauss_newton"), ("reach_identity_start", "identity")):
        times = []
        last = None
        for _ in range(repeats):
            began = time.perf_counter()
            last = solve(problem, start, method=Goldfarb(start_metric=metric))
            times.append(time.perf_counter() - began)
        assert last is not None
        potentials = problem.potentials(last.x)
        result[label] = {
            "start_metric": metric,
            "repeats": repeats,
            "median_ms": statistics.median(times) * 1e3,
            "min_ms": min(times) * 1e3,
            "max_ms": max(times) * 1e3,
            "iterations": last.nit,
            "evaluations": last.nfev,
            "restarts": last.restarts,
            "status": last.status,
            "objective": last.fun,
            "solved": bool(last.fun <= TUBE_MET),
            "potentials": dict(zip(names, potentials.tolist(), strict=True)),
            "max_violation": last.max_violation,
        }
    paper = PAPER_1994["grouped_s" if grouped else "ungrouped_s"]
    result["paper_s"] = paper
    result["paper_over_reach"] = paper / (result["reach"]["median_ms"] * 1e-3)
    return result


# -- output ----------------------------------------------------------------------------


def hz_text(paper: tuple[float, float]) -> str:
    low, high = paper
    return f"{low:g}" if low == high else f"{low:g}–{high:g}"


def tube_line(tube: dict[str, Any], run: dict[str, Any]) -> str:
    """One run of the tube task, for the console."""
    return (
        f"tube {'grouped' if tube['grouped'] else 'independent':11s} "
        f"{run['start_metric']:12s} {run['median_ms']:8.1f} ms "
        f"({run['iterations']} iterations, G {run['objective']:.1e}, {run['status']}); "
        f"paper {tube['paper_s']:g} s"
    )


def update_line(entry: dict[str, Any], kind: str) -> str:
    """One kind of update of the 1990 figure, for the console."""
    row = entry[kind]
    return (
        f"{entry['label']:26s} {kind:9s} median {row['median_ms']:7.2f} ms "
        f"({row['median_hz']:5.0f} Hz), p90 {row['p90_ms']:7.2f} ms, "
        f"ok 1e-6 {row['success_1e-06']:4.0%}, ok 1e-3 {row['success_0.001']:4.0%}; "
        f"paper {hz_text(entry['paper_hz'])} Hz"
    )


def markdown(record: dict[str, Any]) -> list[str]:
    tubes = [(tube, tube[label]) for tube in record["tube"] for label in TUBE_RUNS]
    updates = [
        (entry, kind, entry[kind]) for entry in record["figure_1990"] for kind in UPDATE_KINDS
    ]
    lines = [
        "# Reach on the papers' tasks",
        "",
        f"{record['date']} · {record['cpu_model']}, {record['cpu_count']} cores · "
        f"Python {record['python']} · numpy {record['numpy']} · BLAS threads 1",
        "",
        "## The 1994 tube task (Figure 3)",
        "",
        f"Paper: {PAPER_1994['source']}: about {PAPER_1994['grouped_s']:g} s grouped and "
        f"{PAPER_1994['ungrouped_s']:g} s ungrouped. Reach solves from the upright start; "
        f"solved = G_all ≤ {TUBE_MET:g} m² (every goal within 1 µm).",
        "",
        *table(
            TUBE_COLUMNS,
            (
                [
                    "grouped" if tube["grouped"] else "independent",
                    f"{tube['n_dofs']} ({tube['effective_dofs']})",
                    run["start_metric"],
                    f"{run['median_ms']:.1f}",
                    f"{run['min_ms']:.1f}",
                    run["iterations"],
                    run["restarts"],
                    f"{run['objective']:.1e}",
                    "yes" if run["solved"] else "no",
                    f"{tube['paper_s']:g}",
                    f"{tube['paper_s'] / (run['median_ms'] * 1e-3):.0f}×",
                ]
                for tube, run in tubes
            ),
        ),
        "",
        "## The 1990 interactive figure (53 DOFs)",
        "",
        f"Paper: {PAPER_1990['source']}: about 10 Hz with one 7-DOF constraint, 3–4 Hz with "
        "four. Update = build the problem + solve. Drag: warm-started, restarts=0, steps "
        f"of {STEP:g} × arm length; from rest: solve() defaults to random reachable targets. "
        "ok t = every effector within t × its limb length and t rad of its goal.",
        "",
        *table(
            UPDATE_COLUMNS,
            (
                [
                    entry["label"],
                    kind.replace("_", " "),
                    row["count"],
                    row["variables"],
                    f"{row['median_ms']:.2f}",
                    f"{row['p90_ms']:.2f}",
                    f"{row['median_hz']:.0f}",
                    f"{row['p90_hz']:.0f}",
                    hz_text(entry["paper_hz"]),
                    f"{row['median_iterations']:.0f}",
                    f"{row['success_1e-06']:.0%}",
                    f"{row['success_0.001']:.0%}",
                    f"{row['max_position_error']:.1e}",
                    f"{row['max_angle_error_rad']:.1e}",
                    ", ".join(f"{k}: {v}" for k, v in row["statuses"].items()),
                ]
                for entry, kind, row in updates
            ),
        ),
    ]
    return lines


def main() -> None:
    args = BenchmarkParser(
        __doc__, "papers", "few repeats, events and targets", COUNTS
    ).parse_args()
    repeats, events, targets = args.repeats, args.events, args.targets
    started = time.perf_counter()

    tubes = []
    for grouped in (True, False):
        tube = tube_runs(grouped, repeats)
        tubes.append(tube)
        print("\n".join(tube_line(tube, tube[label]) for label in TUBE_RUNS), flush=True)

    figures = []
    for label, names, paper in (
        ("one 7-DOF (left palm)", ONE, PAPER_1990["one_constraint_hz"]),
        ("four 7-DOF (palms, soles)", FOUR, PAPER_1990["four_constraints_hz"]),
    ):
        rng = np.random.default_rng(args.seed)
        entry = {
            "label": label,
            "constraints": [f"PositionOrientation on {name}" for name in names],
            "paper_hz": paper,
            "drag": drag(names, events, rng),
            "from_rest": from_rest(names, targets, rng),
        }
        figures.append(entry)
        print("\n".join(update_line(entry, kind) for kind in UPDATE_KINDS), flush=True)
    wall = time.perf_counter() - started
    print(f"wall time {wall:.0f} s")

    record: dict[str, Any] = {
        **machine.about(),
        "quick": args.quick,
        "seed": args.seed,
        "wall_s": round(wall, 1),
        "success": [
            f"every effector within {t:g} x limb length and {t:g} rad of its goal's axes"
            for t in TOLERANCES
        ],
        "drag_step": f"{STEP:g} x arm length ({STEP * ARM_LENGTH:.4f} m), or that turn x arm",
        "paper_1994": PAPER_1994,
        "paper_1990": PAPER_1990,
        "tube": tubes,
        "figure_1990": figures,
    }
    write_results(args.output, record, markdown(record))


if __name__ == "__main__":
    main()
