"""Benchmark Reach on the papers' own tasks, beside the times the papers report.

Run from the repository root::

    python bench/bench_papers.py [--quick] [--repeats N] [--events N] [--targets N]

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
from collections import Counter
from typing import Any

import machine  # first: one BLAS thread for numpy
from harness import BenchmarkParser, Count, table, use_repository, write_results

# isort: split
import numpy as np

use_repository()
from fixtures.models import (  # noqa: E402
    ARM_LENGTH,
    human_figure,
    limb_effectors,
    limb_length,
    n_effective_dofs,
    random_feasible_pose,
    tube_task,
)

from solver import Constraint, Figure, Problem, goals, solve  # noqa: E402

TOLERANCES = (1e-6, 1e-3)
"""Success thresholds, × limb length (position) and radians (orientation)."""
TUBE_MET = 1e-12
"""G_all [m²] below which the tube task counts as solved: every goal within 1 µm."""
STEP = 0.02
"""Drag step, × the dragged limb's length."""
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
DRAGGED = "hand.L"
ARM_SEGMENTS = ("clavicle.L", "upper_arm.L", "forearm.L", "hand.L")
ONE = ("hand.L",)
FOUR = ("hand.L", "hand.R", "foot.L", "foot.R")

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
            last = solve(problem, start, start_metric=metric)
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


# -- (b) the 1990 figure ---------------------------------------------------------------


def make_problem(
    figure: Figure, names: tuple[str, ...], goals_by_name: dict[str, tuple[np.ndarray, ...]]
) -> Problem:
    effectors = limb_effectors(figure)
    constraints = [
        Constraint(effectors[name], goals.PositionOrientation(*goals_by_name[name]), name=name)
        for name in names
    ]
    return Problem(figure, constraints)


def effector_goals(
    problem: Problem, names: tuple[str, ...], theta: np.ndarray
) -> dict[str, tuple[np.ndarray, ...]]:
    """Each named effector's (point, x axis, y axis) at ``theta``."""
    points, x, y = problem.effector_states(theta)
    return {name: (points[k], x[k], y[k]) for k, name in enumerate(names)}


def angle(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Angles [rad] between rows of ``a`` and ``b`` (accurate near 0)."""
    return np.arctan2(np.linalg.norm(np.cross(a, b), axis=-1), np.sum(a * b, axis=-1))


def errors(
    problem: Problem,
    names: tuple[str, ...],
    theta: np.ndarray,
    targets: dict[str, tuple[np.ndarray, ...]],
) -> tuple[float, float]:
    """Largest position error over limb length and largest axis angle [rad]."""
    points, x, y = problem.effector_states(theta)
    goal_points = np.array([targets[name][0] for name in names])
    goal_x = np.array([targets[name][1] for name in names])
    goal_y = np.array([targets[name][2] for name in names])
    lengths = np.array([limb_length(name) for name in names])
    position = float(np.max(np.linalg.norm(points - goal_points, axis=1) / lengths))
    turn = float(max(np.max(angle(x, goal_x)), np.max(angle(y, goal_y))))
    return position, turn


def met(position: float, turn: float) -> dict[str, bool]:
    return {f"success_{t:g}": bool(position <= t and turn <= t) for t in TOLERANCES}


def arm_pose(figure: Figure, base: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``base`` with the left arm's DOFs taken from a random feasible pose."""
    pose = base.copy()
    sample = random_feasible_pose(figure, rng)
    for segment in ARM_SEGMENTS:
        indices = list(figure.segment(segment).dof_indices)
        pose[indices] = sample[indices]
    return pose


def bspline(keys: np.ndarray, samples: int) -> np.ndarray:
    """A uniform cubic B-spline through control points ``keys``, ends clamped.

    Every sample is a convex combination of keys, so it stays inside linear limits.
    """
    control = np.concatenate([keys[:1], keys[:1], keys, keys[-1:], keys[-1:]])
    spans = len(control) - 3
    u = np.linspace(0.0, spans, samples, endpoint=False)
    u = np.append(u, spans - 1e-12)
    index = np.minimum(u.astype(int), spans - 1)
    t = (u - index)[:, None]
    weights = (
        (1 - t) ** 3 / 6,
        (3 * t**3 - 6 * t**2 + 4) / 6,
        (-3 * t**3 + 3 * t**2 + 3 * t + 1) / 6,
        t**3 / 6,
    )
    return sum(w * control[index + k] for k, w in enumerate(weights))


def drag_path(
    figure: Figure, base: np.ndarray, events: int, rng: np.random.Generator
) -> list[np.ndarray]:
    """Poses along a smooth left-arm path with the palm stepping 2% of the arm length."""
    probe = make_problem(figure, ONE, {DRAGGED: (np.zeros(3), *_axes())})
    step = STEP * ARM_LENGTH
    keys = [base.copy()]
    while True:
        keys.append(arm_pose(figure, base, rng))
        fine = bspline(np.array(keys), 400 * len(keys))
        points, x, y = (
            np.array(v) for v in zip(*(probe.effector_states(p) for p in fine), strict=True)
        )
        points, x, y = points[:, 0], x[:, 0], y[:, 0]
        moves = np.maximum(
            np.linalg.norm(np.diff(points, axis=0), axis=1),
            ARM_LENGTH * np.maximum(angle(x[1:], x[:-1]), angle(y[1:], y[:-1])),
        )
        travelled = np.concatenate([[0.0], np.cumsum(moves)])
        if travelled[-1] >= step * (events + 1):
            break
    marks = np.searchsorted(travelled, step * np.arange(1, events + 1))
    return [fine[k] for k in marks]


def _axes() -> tuple[np.ndarray, np.ndarray]:
    return np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])


def drag(names: tuple[str, ...], events: int, rng: np.random.Generator) -> dict[str, Any]:
    figure = human_figure()
    rest = figure.zero_pose()
    poses = drag_path(figure, rest, events, rng)
    probe = make_problem(figure, names, {name: (np.zeros(3), *_axes()) for name in names})
    held = effector_goals(probe, names, rest)
    theta = rest.copy()
    rows = []
    for pose in poses:
        targets = dict(held)
        targets[DRAGGED] = effector_goals(probe, names, pose)[DRAGGED]
        began = time.perf_counter()
        problem = make_problem(figure, names, targets)
        built = time.perf_counter()
        result = solve(problem, theta, restarts=0)
        ended = time.perf_counter()
        theta = result.x
        position, turn = errors(problem, names, theta, targets)
        rows.append(
            {
                "update_s": ended - began,
                "solve_s": ended - built,
                "iterations": result.nit,
                "status": result.status,
                "position_error": position,
                "angle_error_rad": turn,
                "violation": result.max_violation,
                **met(position, turn),
            }
        )
    return summarise(rows, "update_s") | {
        "variables": int(probe.variables.size),
        "median_solve_ms": statistics.median(row["solve_s"] for row in rows) * 1e3,
        "events": rows,
    }


def from_rest(names: tuple[str, ...], targets: int, rng: np.random.Generator) -> dict[str, Any]:
    figure = human_figure()
    rest = figure.zero_pose()
    probe = make_problem(figure, names, {name: (np.zeros(3), *_axes()) for name in names})
    rows = []
    for _ in range(targets):
        goal = effector_goals(probe, names, random_feasible_pose(figure, rng))
        began = time.perf_counter()
        problem = make_problem(figure, names, goal)
        result = solve(problem, rest)
        elapsed = time.perf_counter() - began
        position, turn = errors(problem, names, result.x, goal)
        rows.append(
            {
                "update_s": elapsed,
                "iterations": result.nit,
                "restarts": result.restarts,
                "status": result.status,
                "position_error": position,
                "angle_error_rad": turn,
                "violation": result.max_violation,
                **met(position, turn),
            }
        )
    return summarise(rows, "update_s") | {"variables": int(probe.variables.size), "runs": rows}


def summarise(rows: list[dict[str, Any]], key: str) -> dict[str, Any]:
    times = [row[key] for row in rows]
    median = statistics.median(times)
    p90 = float(np.percentile(times, 90))
    summary: dict[str, Any] = {
        "count": len(rows),
        "median_ms": median * 1e3,
        "p90_ms": p90 * 1e3,
        "max_ms": max(times) * 1e3,
        "median_hz": 1.0 / median,
        "p90_hz": 1.0 / p90,
        "median_iterations": statistics.median(row["iterations"] for row in rows),
        "median_position_error": statistics.median(row["position_error"] for row in rows),
        "max_position_error": max(row["position_error"] for row in rows),
        "max_angle_error_rad": max(row["angle_error_rad"] for row in rows),
        "max_violation": max(row["violation"] for row in rows),
        "statuses": dict(Counter(row["status"] for row in rows)),
    }
    for t in TOLERANCES:
        summary[f"success_{t:g}"] = sum(row[f"success_{t:g}"] for row in rows) / len(rows)
    return summary


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
