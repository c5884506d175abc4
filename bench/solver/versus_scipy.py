"""Benchmark Reach's solver on the 53-DOF human with four position goals.

Run from the repository root::

    .venv/bin/python -m bench.solver.versus_scipy [--quick] [--n N] [--seed S]

(a) the cost of one ``problem.evaluate(theta)`` (objective and gradient), median over
many calls cycling through 8 poses (the problem keeps the last pose's kinematics);
(b) ``solve`` from the rest pose to random reachable targets (forward kinematics of
``random_feasible_pose``) with default options; (c) scipy's SLSQP on the same objective,
gradient and linear limits from the same start. A run succeeds when every effector ends
within 1e-6 × its limb length of its target.

(d) Time to the same objective: scipy's SLSQP (bounds as bounds, the shoulders' limit
polygons as linear inequalities) runs again with every objective evaluation recorded
with its time stamp; its time to Reach's objective is the time of the first evaluation
within the limits (violation ≤ 1e-9) whose G is at most max(1.01 × G_Reach, G_Reach +
1e-14), G_Reach the final objective of Reach's solve from the same start; "never" when
no evaluation gets there. The ratio of the medians (never counted as infinite) is
scipy's time to the objective over Reach's whole solve time. L-BFGS-B takes bounds
only; ``human_figure`` also has limit polygons over the shoulders, so L-BFGS-B runs (with
Reach and SLSQP again) on a copy of the figure without them, from the same starts to
the same targets.

Prints a table and writes ``bench/results/solver.json`` and ``bench/results/solver.md``.

BLAS runs single-threaded unless ``OPENBLAS_NUM_THREADS`` / ``OMP_NUM_THREADS`` /
``MKL_NUM_THREADS`` are set: the matrices here are tiny (n ≈ 50), and on a busy machine
threaded BLAS makes both solvers' times vary by an order of magnitude.
"""

from __future__ import annotations

import statistics
from typing import Any

import numpy as np
import scipy

from bench import machine
from bench.harness import BenchmarkParser, Count, write_results
from bench.solver.timing import evaluate_times
from bench.solver.versus_scipy_race import (
    milliseconds,
    objective_race,
    race_rows,
    race_text,
    without_polygons,
)
from bench.solver.versus_scipy_runs import (
    EFFECTORS,
    FEASIBLE,
    OBJECTIVE_SLACK,
    SUCCESS,
    drag,
    effector_points,
    make_problem,
    run_reach,
    run_slsqp,
    strip,
    summary,
)
from tests.fixtures.models import (
    human_figure,
    random_feasible_pose,
)


def markdown(record: dict[str, Any]) -> list[str]:
    task = record["task"]
    lines = [
        "# Reach's solver on the 53-DOF human, against scipy",
        "",
        f"{record['date']} · {record['cpu_model']}, {record['cpu_count']} cores · "
        f"Python {record['python']} · numpy {record['numpy']} · scipy {record['scipy']} · "
        "BLAS threads 1",
        "",
        f"{task['figure']}, {task['n_dofs']} DOFs ({task['variables']} variables), "
        f"{len(task['constraints'])} position goals ({', '.join(task['constraints'])}); "
        f"{task['targets']} random reachable targets (forward kinematics of random poses "
        f"inside the limits, seed {task['seed']}), each solved from the rest pose. "
        f"Success: {task['success']}. One problem.evaluate (G and ∇G): "
        f"{record['evaluate']['median_s'] * 1e6:.1f} µs (median of {record['evaluate']['calls']}).",
        "",
        "| run | median ms | p90 ms | success | iterations | evaluations | median error | "
        "max violation | statuses |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    drag = record["drag"]
    rows = (
        ("Reach, solve() defaults", record["reach"]),
        ("Reach, start_metric='identity' (1994)", record["reach_identity_start"]),
        ("SLSQP (fixtures.peers.slsqp)", record["slsqp"]),
        (f"drag, Reach (restarts=0), {drag['events']} events", drag["reach"]),
        (f"drag, SLSQP, {drag['events']} events", drag["slsqp"]),
    )
    for name, row in rows:
        statuses = ", ".join(f"{k}: {v}" for k, v in row["statuses"].items())
        lines.append(
            f"| {name} | {row['median_time_s'] * 1e3:.1f} | {row['p90_time_s'] * 1e3:.1f} | "
            f"{row['success_rate']:.0%} | {row['median_iterations']:.0f} | "
            f"{row['median_evaluations']:.0f} | {row['median_error']:.1e} | "
            f"{row['max_violation']:.1e} | {statuses} |"
        )
    lines += [
        "",
        f"Reach/SLSQP median time: {record['reach_over_slsqp_median_time']:.2f} (random "
        f"targets from rest), {drag['reach_over_slsqp_median_time']:.2f} (drag events, "
        f"warm starts; {drag['path']}).",
        "",
        "## Time to the same objective",
        "",
        record["time_to_objective"]["definition"],
        "",
        "| limits | method | median ms to Reach's G | reached | median ms, whole run | "
        "success | peer / Reach |",
        "|---|---|---|---|---|---|---|",
    ]
    race = record["time_to_objective"]
    for label, part in (
        ("full (bounds + shoulder polygons)", race["human"]),
        ("bounds only (polygons removed)", race["human_bounds_only"]),
    ):
        for name, row, peer in race_rows(part):
            if peer is None:
                to, reached, ratio = row["median_time_s"], "", "1 (its solve time)"
            else:
                to = peer["median_time_to_reach_objective_s"]
                reached = f"{peer['reached_rate']:.0%}"
                value = peer["over_reach_median_time"]
                ratio = "never" if value is None else f"{value:.2f}"
            lines.append(
                f"| {label} | {name} | {milliseconds(to)} | {reached} | "
                f"{row['median_time_s'] * 1e3:.1f} | {row['success_rate']:.0%} | {ratio} |"
            )
    if isinstance(race["human"].get("lbfgsb"), str):
        lines += ["", f"L-BFGS-B on the full limits: {race['human']['lbfgsb']}."]
    return lines


def main() -> None:
    counts = {"n": Count("number of targets", 10, 50)}
    args = BenchmarkParser(__doc__, "solver", "10 targets, fewer timing calls", counts).parse_args()
    n = args.n
    calls = 500 if args.quick else 5000

    figure = human_figure()
    rest = figure.zero_pose()
    rng = np.random.default_rng(args.seed)
    placeholder = {name: np.zeros(3) for name in EFFECTORS}
    probe = make_problem(figure, placeholder)

    # The first pose comes from the targets' generator, as it always has, so that the
    # targets stay those of earlier runs; the others from a generator of their own.
    others = np.random.default_rng([args.seed, 1])
    poses = [random_feasible_pose(figure, rng)]
    poses += [random_feasible_pose(figure, others) for _ in range(7)]
    evaluate_times_s = evaluate_times(probe, poses, calls)
    evaluate_median = statistics.median(evaluate_times_s)

    reach_runs: list[dict[str, Any]] = []
    paper_runs: list[dict[str, Any]] = []
    slsqp_runs: list[dict[str, Any]] = []
    cases: list[tuple[np.ndarray, np.ndarray]] = []
    for k in range(n):
        pose = random_feasible_pose(figure, rng)
        points = effector_points(probe, pose)
        cases.append((points, pose))
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

    print("time to Reach's objective: SLSQP on the full limits ...", flush=True)
    race = objective_race(figure, cases, rest, ("SLSQP",), reach_runs=reach_runs)
    race["lbfgsb"] = (
        "not run: L-BFGS-B takes bounds only and human_figure has "
        f"{race['polygon_rows']} limit-polygon rows (the shoulders)"
    )
    bare = without_polygons(figure)
    print("time to Reach's objective: bounds only, SLSQP and L-BFGS-B ...", flush=True)
    race_bare = objective_race(bare, cases, bare.zero_pose(), ("SLSQP", "L-BFGS-B"))

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
    print()
    print(race_text(race, race_bare))

    record = {
        **machine.about(),
        "scipy": scipy.__version__,
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
        "time_to_objective": {
            "definition": (
                "seconds from the call to scipy's first objective evaluation within the "
                f"limits (violation <= {FEASIBLE:g}) with G <= max({OBJECTIVE_SLACK[0]:g} x "
                f"G_Reach, G_Reach + {OBJECTIVE_SLACK[1]:g}), G_Reach = Reach's final "
                "objective (solve() defaults) from the same start; None = never. Ratio: "
                "median of that time (never = infinite) over Reach's median solve time."
            ),
            "slsqp_options": {"ftol": 1e-14, "maxiter": 1000},
            "lbfgsb_options": {"ftol": 1e-15, "gtol": 1e-12, "maxiter": 2000, "maxfun": 5000},
            "human": race,
            "human_bounds_only": {
                "figure": "human_figure() without its shoulder limit polygons (bounds only)",
                **race_bare,
            },
        },
        "runs": [
            {"target": k, "reach": strip(reach_run), "slsqp": strip(slsqp_run)}
            for k, (reach_run, slsqp_run) in enumerate(zip(reach_runs, slsqp_runs, strict=True))
        ],
    }
    write_results(args.output, record, markdown(record))


if __name__ == "__main__":
    main()
