"""Benchmark Reach's solver on the 53-DOF human with four position goals.

Run from the repository root::

    python bench/bench_solver.py [--quick] [--n N] [--seed S]

(a) the cost of one ``problem.evaluate(theta)`` (objective and gradient), median over
many calls; (b) ``solve`` from the rest pose to random reachable targets (forward
kinematics of ``random_feasible_pose``) with default options; (c) scipy's SLSQP on the
same objective, gradient and linear limits from the same start. A run succeeds when
every effector ends within 1e-6 × its limb length of its target. Prints a table and
writes ``bench/results/solver.json``.

BLAS runs single-threaded unless ``OPENBLAS_NUM_THREADS`` / ``OMP_NUM_THREADS`` /
``MKL_NUM_THREADS`` are set: the matrices here are tiny (n ≈ 50), and on a busy machine
threaded BLAS makes both solvers' times vary by an order of magnitude.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
for variable in THREAD_VARIABLES:
    os.environ.setdefault(variable, "1")

import numpy as np  # noqa: E402
import scipy  # noqa: E402
from machine import cpu_model  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from solver import Constraint, Figure, Problem, goals, solve  # noqa: E402
from solver.models import (  # noqa: E402
    human_figure,
    limb_effectors,
    limb_length,
    random_feasible_pose,
)
from solver.peers import slsqp  # noqa: E402

EFFECTORS = ("hand.L", "hand.R", "foot.L", "foot.R")
SUCCESS = 1e-6
"""A run succeeds when every effector is within SUCCESS × its limb length of its target."""


def make_problem(figure: Figure, targets: dict[str, np.ndarray]) -> Problem:
    effectors = limb_effectors(figure)
    constraints = [
        Constraint(effectors[name], goals.Position(targets[name]), name=name) for name in EFFECTORS
    ]
    return Problem(figure, constraints)


def effector_points(problem: Problem, theta: np.ndarray) -> np.ndarray:
    points, _, _ = problem.effector_states(theta)
    return points


def normalised_error(problem: Problem, theta: np.ndarray, targets: np.ndarray) -> float:
    """Largest effector distance to its target over its limb length."""
    distances = np.linalg.norm(effector_points(problem, theta) - targets, axis=1)
    lengths = np.array([limb_length(name) for name in EFFECTORS])
    return float(np.max(distances / lengths))


def time_evaluate(problem: Problem, theta: np.ndarray, calls: int) -> list[float]:
    for _ in range(20):
        problem.evaluate(theta)
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        problem.evaluate(theta)
        times.append(time.perf_counter() - start)
    return times


def record(
    problem: Problem,
    targets: np.ndarray,
    elapsed: float,
    theta: np.ndarray,
    iterations: int,
    evaluations: int,
    status: str,
) -> dict[str, Any]:
    """One solve's row: time, counts, residual against the targets, violation, pose."""
    error = normalised_error(problem, theta, targets)
    return {
        "time": elapsed,
        "iterations": iterations,
        "evaluations": evaluations,
        "status": status,
        "objective": problem.evaluate(theta)[0],
        "error": error,
        "success": error <= SUCCESS,
        "violation": problem.limits.max_violation(theta),
        "theta": theta,
    }


def run_reach(
    problem: Problem,
    start: np.ndarray,
    targets: np.ndarray,
    *,
    restarts: int = 8,
    start_metric: str = "gauss_newton",
) -> dict[str, Any]:
    began = time.perf_counter()
    result = solve(problem, start, restarts=restarts, start_metric=start_metric)
    elapsed = time.perf_counter() - began
    return record(problem, targets, elapsed, result.x, result.nit, result.nfev, result.status)


def run_slsqp(problem: Problem, start: np.ndarray, targets: np.ndarray) -> dict[str, Any]:
    """SLSQP over the same variables as Reach (DOFs in no chain stay at ``start``)."""
    began = time.perf_counter()
    result = slsqp(problem, start)
    elapsed = time.perf_counter() - began
    return record(problem, targets, elapsed, result.x, result.nit, result.nfev, result.message)


def drag(figure: Figure, rest: np.ndarray, events: int) -> dict[str, list[dict[str, Any]]]:
    """Both hands dragged along a path while the feet hold; every event warm-starts."""
    probe = make_problem(figure, {name: np.zeros(3) for name in EFFECTORS})
    start = dict(zip(EFFECTORS, effector_points(probe, rest), strict=True))
    runs: dict[str, list[dict[str, Any]]] = {"reach": [], "slsqp": []}
    poses = {"reach": rest.copy(), "slsqp": rest.copy()}
    for k in range(events):
        t = (k + 1) / events
        targets = dict(start)
        for side, sign in (("hand.L", 1.0), ("hand.R", -1.0)):
            offset = np.array([0.15 * sign * np.sin(2 * np.pi * t), -0.35 * t, 0.55 * t])
            targets[side] = start[side] + offset
        problem = make_problem(figure, targets)
        points = np.array([targets[name] for name in EFFECTORS])
        reach = run_reach(problem, poses["reach"], points, restarts=0)
        slsqp = run_slsqp(problem, poses["slsqp"], points)
        for name, run in (("reach", reach), ("slsqp", slsqp)):
            runs[name].append(run)
            poses[name] = run["theta"]
    return runs


def strip(run: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in run.items() if key != "theta"}


def summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    times = sorted(run["time"] for run in runs)
    return {
        "median_time_s": statistics.median(times),
        "p90_time_s": float(np.percentile(times, 90)),
        "success_rate": sum(run["success"] for run in runs) / len(runs),
        "median_iterations": statistics.median(run["iterations"] for run in runs),
        "median_evaluations": statistics.median(run["evaluations"] for run in runs),
        "median_error": statistics.median(run["error"] for run in runs),
        "max_violation": max(run["violation"] for run in runs),
        "statuses": dict(Counter(run["status"] for run in runs)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="10 targets, fewer timing calls")
    parser.add_argument("--n", type=int, default=None, help="number of targets (default 50)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random targets")
    parser.add_argument("--output", type=Path, default=ROOT / "bench" / "results" / "solver.json")
    args = parser.parse_args()
    n = args.n or (10 if args.quick else 50)
    calls = 500 if args.quick else 5000

    figure = human_figure()
    rest = figure.zero_pose()
    rng = np.random.default_rng(args.seed)
    placeholder = {name: np.zeros(3) for name in EFFECTORS}
    probe = make_problem(figure, placeholder)

    evaluate_times = time_evaluate(probe, random_feasible_pose(figure, rng), calls)
    evaluate_median = statistics.median(evaluate_times)

    reach_runs: list[dict[str, Any]] = []
    paper_runs: list[dict[str, Any]] = []
    slsqp_runs: list[dict[str, Any]] = []
    for k in range(n):
        pose = random_feasible_pose(figure, rng)
        points = effector_points(probe, pose)
        problem = make_problem(figure, dict(zip(EFFECTORS, points, strict=True)))
        reach_runs.append(run_reach(problem, rest, points))
        paper_runs.append(run_reach(problem, rest, points, start_metric="identity"))
        slsqp_runs.append(run_slsqp(problem, rest, points))
        print(
            f"  target {k + 1:3d}/{n}: reach {reach_runs[-1]['time'] * 1e3:8.1f} ms "
            f"err {reach_runs[-1]['error']:.1e} | slsqp {slsqp_runs[-1]['time'] * 1e3:8.1f} ms "
            f"err {slsqp_runs[-1]['error']:.1e}",
            flush=True,
        )
    reach = summary(reach_runs)
    slsqp = summary(slsqp_runs)
    paper = summary(paper_runs)
    ratio = reach["median_time_s"] / slsqp["median_time_s"]
    drags = drag(figure, rest, 20 if args.quick else 100)
    drag_reach = summary(drags["reach"])
    drag_slsqp = summary(drags["slsqp"])
    drag_ratio = drag_reach["median_time_s"] / drag_slsqp["median_time_s"]

    variables = int(probe.variables.size)
    print()
    print(f"53-DOF human, 4 position goals (hands, feet), {variables} variables, {n} targets")
    print(f"problem.evaluate (objective + gradient): median {evaluate_median * 1e6:.1f} µs")
    print(f"  over {calls} calls")
    header = f"{'':8s} {'median':>10s} {'p90':>10s} {'success':>8s} {'iters':>7s} {'evals':>7s}"
    print(header + f" {'med. err':>9s} {'max viol':>9s}")
    rows = (
        ("reach", reach),
        ("paper H0", paper),
        ("SLSQP", slsqp),
        ("drag R", drag_reach),
        ("drag S", drag_slsqp),
    )
    for name, row in rows:
        print(
            f"{name:8s} {row['median_time_s'] * 1e3:8.1f}ms {row['p90_time_s'] * 1e3:8.1f}ms "
            f"{row['success_rate']:8.0%} {row['median_iterations']:7.0f} "
            f"{row['median_evaluations']:7.0f} {row['median_error']:9.1e} "
            f"{row['max_violation']:9.1e}"
        )
    print(f"Reach/SLSQP median time ratio: {ratio:.2f} (random targets from rest)")
    print(f"Reach/SLSQP median time ratio: {drag_ratio:.2f} (drag events, warm starts)")
    print("rows: reach = solve() defaults; paper H0 = start_metric='identity' (the 1994 start);")
    print("      drag R / drag S = Reach (restarts=0) / SLSQP per event of a hand drag")
    print(f"reach statuses: {reach['statuses']}")
    print(f"SLSQP statuses: {slsqp['statuses']}")

    record = {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "cpu_count": os.cpu_count(),
        "cpu_model": cpu_model(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "blas_threads": {variable: os.environ[variable] for variable in THREAD_VARIABLES},
        "task": {
            "figure": "human_figure(root_translation=True)",
            "n_dofs": figure.n_dofs,
            "variables": variables,
            "constraints": [f"Position on {name}" for name in EFFECTORS],
            "targets": n,
            "seed": args.seed,
            "success": f"every effector within {SUCCESS:g} x limb length",
        },
        "evaluate": {"median_s": evaluate_median, "calls": calls},
        "reach": reach,
        "slsqp": {**slsqp, "options": {"ftol": 1e-14, "maxiter": 1000}},
        "reach_identity_start": paper,
        "reach_over_slsqp_median_time": ratio,
        "drag": {
            "events": len(drags["reach"]),
            "path": "both hands: 15 cm sideways sine, 35 cm forward, 55 cm up; feet held",
            "reach": drag_reach,
            "slsqp": drag_slsqp,
            "reach_over_slsqp_median_time": drag_ratio,
        },
        "runs": [
            {"target": k, "reach": strip(reach_run), "slsqp": strip(slsqp_run)}
            for k, (reach_run, slsqp_run) in enumerate(zip(reach_runs, slsqp_runs, strict=True))
        ],
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(record, indent=2) + "\n")
    shown = args.output.relative_to(ROOT) if args.output.is_relative_to(ROOT) else args.output
    print(f"wrote {shown}")


if __name__ == "__main__":
    main()
