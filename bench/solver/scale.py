"""Benchmark how Reach's solver scales: a chain and a branching tree, 10 to 600 DOFs.

Run from the repository root::

    .venv/bin/python -m bench.solver.scale [--quick] [--targets N] [--seed S]

Two synthetic figures, each segment a bone of equal length along its local +Y with
3 rotational DOFs (about X and Z within ±0.6 rad, about Y within ±0.4 rad; the last
segment takes the remainder when the DOF count is not a multiple of 3):

* ``chain``: one chain of segments, 1 m long; the effectors sit at the tails of
  segments spread evenly along it, the last at the tip;
* ``tree``: a balanced binary tree of limbs (every limb a short chain; each split
  turns its two children ±0.5 rad apart and a quarter turn about the bone so the tree
  spreads in 3D) with up to 20 leaves; the longest root-to-leaf path is 1 m; the
  effectors sit at the tips of leaves spread evenly over them.

For every DOF count (10 … 600) and number of position constraints (1, 5, 20; a count
is skipped where 3 × constraints > DOFs on the chain, or where there are fewer leaves
than constraints on the tree), targets are made by forward kinematics of random poses
inside the limits and ``solve`` runs from the rest pose with ``restarts=0`` (one
descent, so the time per solve is that of one descent) and the default
``max_iterations=1000`` and ``tolerance=1e-10``. Per solve: time, iterations, time per
iteration (elapsed / iterations), success (every effector within 1e-6 × its reach, the
bone length from the root to it). Per size: the cost of one ``problem.evaluate`` (median
over calls cycling through 4 random poses, since the problem keeps the last pose's
kinematics).
The growth exponent of each median against the DOF count is the slope of a
least-squares line through (log DOFs, log time), per figure and constraint count.

Warm drags (``scale_drag``, as the add-on runs them: ``restarts=0``, its 0.1 s budget
and tolerance, each event from the last event's pose) measure two targets:
the 600-DOF tree with 20 goals (median event ≤ 20 ms) and the 500-bone chain of
1,500 DOFs with its tip dragged (≥ 10 events/s). A sweep of chain drags over n
variables and m goal residuals (3 per position goal) fits the time per iteration
against each: it must grow no faster than n·m² + n².

Prints a table and writes ``bench/results/scale.json`` and ``scale.md``. Under a minute
on two cores; ``--quick`` (fewer sizes, targets and events) a few seconds.
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from typing import Any

import numpy as np

from bench import machine
from bench.harness import BenchmarkParser, Count, write_results
from bench.solver.scale_drag import drag_case, drag_fits
from bench.solver.scale_figures import (
    DOF_AXES,
    MAX_LEAVES,
    Scaled,
    build,
    choose_sites,
    make_problem,
    skip_reason,
)
from bench.solver.timing import evaluate_times
from solver import solve
from tests.fixtures.models import random_feasible_pose

DOF_COUNTS = (10, 20, 50, 100, 200, 400, 600)
QUICK_DOF_COUNTS = (10, 50, 200)
CONSTRAINT_COUNTS = (1, 5, 20)
QUICK_CONSTRAINT_COUNTS = (1, 5)
KINDS = ("chain", "tree")
SUCCESS = 1e-6
"""A solve succeeds when every effector is within SUCCESS × its reach of its target."""
RESTARTS = 0
EVALUATE_POSES = 4
"""Poses that the timing of ``problem.evaluate`` cycles through."""
DRAG_TARGETS = (
    ("tree", 600, 20, "median event ≤ 20 ms", lambda case: case["median_ms"] <= 20.0),
    ("chain", 1500, 1, "≥ 10 events/s", lambda case: case["events_per_s"] >= 10.0),
)
"""The drag targets: figure, DOFs, goals, the target and its test."""
DRAG_DOF_COUNTS = (150, 300, 600, 1000, 1500)
QUICK_DRAG_DOF_COUNTS = (150, 600)
DRAG_CONSTRAINT_COUNTS = (1, 5, 20)


def run_case(
    scaled: Scaled, constraints: int, targets: int, rng: np.random.Generator, calls: int
) -> dict[str, Any]:
    figure = scaled.figure
    sites = choose_sites(scaled, constraints)
    reach = np.array([length for _, length in sites])
    probe = make_problem(scaled, sites)
    poses = [random_feasible_pose(figure, rng) for _ in range(EVALUATE_POSES)]
    evaluate_s = statistics.median(evaluate_times(probe, poses, calls))
    rest = figure.zero_pose()
    runs = []
    for _ in range(targets):
        pose = random_feasible_pose(figure, rng)
        points = probe.effector_states(pose)[0]
        problem = make_problem(scaled, sites, points)
        began = time.perf_counter()
        result = solve(problem, rest, restarts=RESTARTS)
        elapsed = time.perf_counter() - began
        reached = problem.effector_states(result.x)[0]
        error = float(np.max(np.linalg.norm(reached - points, axis=1) / reach))
        runs.append(
            {
                "time_s": elapsed,
                "iterations": result.nit,
                "evaluations": result.nfev,
                "time_per_iteration_s": elapsed / max(result.nit, 1),
                "status": result.status,
                "error": error,
                "success": error <= SUCCESS,
                "violation": result.max_violation,
                "active_limits": len(result.active),
            }
        )
    return {
        "figure": scaled.kind,
        "n_dofs": figure.n_dofs,
        "segments": len(figure.segments),
        "leaves": scaled.leaves,
        "constraints": constraints,
        "variables": int(probe.variables.size),
        "inequality_rows": int(figure.limits.a_in.shape[0]),
        "effectors": [name for name, _ in sites],
        "evaluate_s": evaluate_s,
        "targets": targets,
        "median_time_s": statistics.median(run["time_s"] for run in runs),
        "p90_time_s": float(np.percentile([run["time_s"] for run in runs], 90)),
        "median_time_per_iteration_s": statistics.median(
            run["time_per_iteration_s"] for run in runs
        ),
        "median_iterations": statistics.median(run["iterations"] for run in runs),
        "success_rate": sum(run["success"] for run in runs) / len(runs),
        "median_error": statistics.median(run["error"] for run in runs),
        "max_violation": max(run["violation"] for run in runs),
        "statuses": dict(Counter(run["status"] for run in runs)),
        "runs": runs,
    }


def fit_exponent(xs: list[float], ys: list[float]) -> dict[str, float] | None:
    """Slope, prefactor and R² of the least-squares line through (log x, log y)."""
    if len(xs) < 2:
        return None
    lx, ly = np.log(np.array(xs)), np.log(np.array(ys))
    slope, intercept = np.polyfit(lx, ly, 1)
    predicted = slope * lx + intercept
    spread = float(np.sum((ly - ly.mean()) ** 2))
    r2 = 1.0 - float(np.sum((ly - predicted) ** 2)) / spread if spread > 0 else 1.0
    return {"exponent": float(slope), "prefactor_s": float(np.exp(intercept)), "r2": r2}


FITTED = (
    ("time_per_iteration", "median_time_per_iteration_s"),
    ("time_per_solve", "median_time_s"),
    ("evaluate", "evaluate_s"),
)


def fits(cases: list[dict[str, Any]], kinds: tuple[str, ...], counts: tuple[int, ...]) -> list:
    rows = []
    for kind in kinds:
        for constraints in counts:
            chosen = [
                case
                for case in cases
                if case["figure"] == kind and case["constraints"] == constraints
            ]
            if len(chosen) < 2:
                continue
            row: dict[str, Any] = {
                "figure": kind,
                "constraints": constraints,
                "n_dofs": [case["n_dofs"] for case in chosen],
            }
            for name, key in FITTED:
                row[name] = fit_exponent(
                    [case["n_dofs"] for case in chosen], [case[key] for case in chosen]
                )
            row["time_per_iteration_vs_variables"] = fit_exponent(
                [case["variables"] for case in chosen],
                [case["median_time_per_iteration_s"] for case in chosen],
            )
            rows.append(row)
    return rows


def case_line(case: dict[str, Any]) -> str:
    return (
        f"{case['figure']:5s} {case['n_dofs']:4d} {case['constraints']:3d} {case['variables']:5d} "
        f"{case['evaluate_s'] * 1e6:9.1f} {case['median_time_s'] * 1e3:10.1f} "
        f"{case['p90_time_s'] * 1e3:10.1f} {case['median_time_per_iteration_s'] * 1e3:9.3f} "
        f"{case['median_iterations']:6.0f} {case['success_rate']:7.0%} "
        f"{case['median_error']:9.1e}"
    )


HEADER = (
    f"{'fig':5s} {'DOFs':>4s} {'con':>3s} {'vars':>5s} {'eval µs':>9s} {'median ms':>10s} "
    f"{'p90 ms':>10s} {'ms/iter':>9s} {'iters':>6s} {'success':>7s} {'med. err':>9s}"
)


def markdown(record: dict[str, Any]) -> list[str]:
    meta = record
    lines = [
        "# Reach's solver at scale: chain and tree, 10 to 600 DOFs",
        "",
        f"{meta['date']} · {meta['cpu_model']}, {meta['cpu_count']} cores · "
        f"Python {meta['python']} · numpy {meta['numpy']} · BLAS threads 1",
        "",
        record["task"]["description"],
        "",
        "| figure | DOFs | constraints | variables | evaluate µs | median ms/solve | "
        "p90 ms | ms/iteration | iterations | success | median error | statuses |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for case in record["cases"]:
        statuses = ", ".join(f"{k} {v}" for k, v in case["statuses"].items())
        lines.append(
            f"| {case['figure']} | {case['n_dofs']} | {case['constraints']} | "
            f"{case['variables']} | {case['evaluate_s'] * 1e6:.1f} | "
            f"{case['median_time_s'] * 1e3:.1f} | {case['p90_time_s'] * 1e3:.1f} | "
            f"{case['median_time_per_iteration_s'] * 1e3:.3f} | "
            f"{case['median_iterations']:.0f} | {case['success_rate']:.0%} | "
            f"{case['median_error']:.1e} | {statuses} |"
        )
    if record["skipped"]:
        lines += ["", "Skipped: " + "; ".join(record["skipped"]) + "."]
    lines += [
        "",
        "## Growth exponents (time ∝ DOFs^k, least squares on log–log)",
        "",
        "| figure | constraints | DOF counts | k per iteration (R²) | k per solve (R²) | "
        "k evaluate (R²) | k per iteration vs variables (R²) |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in record["fits"]:
        cells = []
        for name in [*(name for name, _ in FITTED), "time_per_iteration_vs_variables"]:
            fit = row[name]
            cells.append(f"{fit['exponent']:.2f} ({fit['r2']:.2f})" if fit else "–")
        counts = ", ".join(str(n) for n in row["n_dofs"])
        lines.append(
            f"| {row['figure']} | {row['constraints']} | {counts} | " + " | ".join(cells) + " |"
        )
    lines += drag_markdown(record["drag"])
    return lines


def drag_markdown(drag: dict[str, Any]) -> list[str]:
    lines = [
        "",
        "## Warm drags (the add-on's events)",
        "",
        drag["description"],
        "",
        "| figure | DOFs | goals | residuals m | variables n | median ms/event | p90 ms | "
        "events/s | ms/iteration | iterations | statuses | target | met? |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for case in [*drag["targets"], *drag["sweep"]]:
        statuses = ", ".join(f"{k} {v}" for k, v in case["statuses"].items())
        target = case.get("target", "")
        met = "" if "met" not in case else ("yes" if case["met"] else "**no**")
        lines.append(
            f"| {case['figure']} | {case['n_dofs']} | {case['constraints']} | "
            f"{case['residuals']} | {case['variables']} | {case['median_ms']:.1f} | "
            f"{case['p90_ms']:.1f} | {case['events_per_s']:.0f} | "
            f"{case['median_time_per_iteration_ms']:.2f} | {case['median_iterations']:.0f} | "
            f"{statuses} | {target} | {met} |"
        )
    lines += [
        "",
        "Growth of the drag's time per iteration (time ∝ x^k, least squares on log–log):",
        "",
        "| against | held | values | k (R²) |",
        "|---|---|---|---|",
    ]
    for fit in drag["fits"]:
        held = "residuals" if fit["against"] == "variables" else "variables"
        values = ", ".join(str(v) for v in fit["values"])
        lines.append(
            f"| {fit['against']} | {held} {fit[held]} | {values} | "
            f"{fit['exponent']:.2f} ({fit['r2']:.2f}) |"
        )
    return lines


def run_drags(quick: bool, events: int, seed: int) -> dict[str, Any]:
    """The drag targets and the chain sweep over n and m (see the module's docstring)."""
    rng = np.random.default_rng(seed + 1)
    print(f"\nwarm drags, {events} events each: figure DOFs goals | median ms | events/s")
    targets = []
    for kind, n_dofs, constraints, target, met in DRAG_TARGETS:
        case = drag_case(kind, n_dofs, constraints, events, rng)
        case.update(target=target, met=met(case))
        targets.append(case)
        print(drag_line(case), flush=True)
    sweep = []
    for n_dofs in QUICK_DRAG_DOF_COUNTS if quick else DRAG_DOF_COUNTS:
        for constraints in DRAG_CONSTRAINT_COUNTS:
            case = drag_case("chain", n_dofs, constraints, events, rng)
            sweep.append(case)
            print(drag_line(case), flush=True)
    description = (
        f"Each drag: {events} events; the last goal moves about 1 cm per event along a "
        "5 cm circle while the others hold, from a random pose inside the limits where "
        "every goal is met; solve(problem.with_goals(...), previous pose, restarts=0, "
        "time_limit=0.1, tolerance=1e-10). ms/event = wall time of with_goals and solve "
        "(median over events); ms/iteration = that over the event's iterations."
    )
    return {
        "description": description,
        "targets": targets,
        "sweep": sweep,
        "fits": drag_fits(sweep),
    }


def drag_line(case: dict[str, Any]) -> str:
    return (
        f"  {case['figure']:5s} {case['n_dofs']:5d} {case['constraints']:3d} | "
        f"{case['median_ms']:7.1f} | {case['events_per_s']:6.0f} | "
        f"{case['median_time_per_iteration_ms']:6.2f} ms/it, {case['median_iterations']:.0f} it"
    )


def main() -> None:
    counts = {
        "targets": Count("targets per case", 3, 8),
        "events": Count("drag events per drag", 10, 40),
    }
    args = BenchmarkParser(__doc__, "scale", "3 sizes, 1 and 5 constraints", counts).parse_args()
    targets = args.targets
    dof_counts = QUICK_DOF_COUNTS if args.quick else DOF_COUNTS
    constraint_counts = QUICK_CONSTRAINT_COUNTS if args.quick else CONSTRAINT_COUNTS
    calls = 50 if args.quick else 300

    started = time.perf_counter()
    rng = np.random.default_rng(args.seed)
    cases: list[dict[str, Any]] = []
    skipped: list[str] = []
    print(HEADER, flush=True)
    for kind in KINDS:
        for n_dofs in dof_counts:
            scaled = build(kind, n_dofs)
            for constraints in constraint_counts:
                reason = skip_reason(scaled, n_dofs, constraints)
                if reason is not None:
                    skipped.append(f"{kind} {n_dofs} DOFs × {constraints} ({reason})")
                    continue
                case = run_case(scaled, constraints, targets, rng, calls)
                cases.append(case)
                print(case_line(case), flush=True)
    fitted = fits(cases, KINDS, constraint_counts)
    drags = run_drags(args.quick, args.events, args.seed)
    wall = time.perf_counter() - started

    print()
    print("growth exponent k (time ∝ DOFs^k): per iteration | per solve | evaluate")
    for row in fitted:
        cells = [f"{row[name]['exponent']:5.2f}" for name, _ in FITTED]
        print(f"  {row['figure']:5s} {row['constraints']:3d} constraints: " + " | ".join(cells))
    if skipped:
        print("skipped: " + "; ".join(skipped))
    print(f"wall time {wall:.0f} s")

    description = (
        f"Per case: {targets} targets by forward kinematics of random poses inside the "
        f"limits, solve() from the rest pose with restarts={RESTARTS}, max_iterations=1000, "
        f"tolerance=1e-10. Every segment has 3 rotations (±0.6, ±0.6, ±0.4 rad). "
        f"Success: every effector within {SUCCESS:g} × its reach (bone length from the "
        "root). Chain: 1 m, effectors spread along it, the last at the tip. Tree: balanced "
        f"binary tree of limbs with up to {MAX_LEAVES} leaves, longest path 1 m, effectors "
        "on leaves spread over them. ms/iteration = solve time / iterations (median over "
        "targets; it includes the solve's set-up); evaluate = one problem.evaluate (G and "
        "∇G), median."
    )
    record: dict[str, Any] = {
        **machine.about(),
        "quick": args.quick,
        "wall_s": round(wall, 1),
        "task": {
            "description": description,
            "kinds": list(KINDS),
            "dof_counts": list(dof_counts),
            "constraint_counts": list(constraint_counts),
            "targets_per_case": targets,
            "seed": args.seed,
            "restarts": RESTARTS,
            "dof_bounds_rad": {axis: bound for axis, bound in DOF_AXES},
            "success": f"every effector within {SUCCESS:g} x its reach",
        },
        "cases": cases,
        "skipped": skipped,
        "fits": fitted,
        "drag": drags,
    }
    write_results(args.output, record, markdown(record))


if __name__ == "__main__":
    main()
