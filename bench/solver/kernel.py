"""Benchmark the compiled kernel against the numpy path, and check they agree on the bank.

Run from the repository root (after ``python tools/build_kernel.py``)::

    .venv/bin/python -m bench.solver.kernel [--quick] [--events N] [--seed S]

On the scaled chain and tree of ``bench.solver.scale`` (10 to 600 DOFs, 1, 5 and 20
position goals where the figure holds them), each path in turn in the same process: the
median time of one ``problem.evaluate`` (G and ∇G, cycling through 4 random poses) and of
one warm drag event (``bench.solver.scale_drag``: ``restarts=0``, the add-on's budget and
tolerance, each event from the last one's pose). Then every case of the full problem bank:
G, ∇G, the Gauss–Newton factor and the effectors' Jacobians at the case's start and at
another pose on both paths (largest difference, relative to the case's weights × its
longest chain²), and one descent from the start on each path (same outcome; G within
1e-6 where goals are unmet).

Writes ``bench/results/kernel.json``, ``kernel.md`` and ``kernel.png`` (per-event time
against DOFs, both paths). A minute or two; ``--quick`` fewer sizes and events.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np

import solver
from bench import machine
from bench.harness import BenchmarkParser, Count, shown, table, write_results
from bench.solver.scale_drag import drag
from bench.solver.scale_figures import build, choose_sites, make_problem, skip_reason
from bench.solver.timing import evaluate_times
from solver import kernel, solve
from tests.fixtures.bank import bank
from tests.fixtures.bank import build as build_case
from tests.fixtures.models import random_feasible_pose

DOF_COUNTS = (10, 20, 50, 100, 200, 400, 600)
QUICK_DOF_COUNTS = (20, 100, 600)
CONSTRAINTS = (1, 5, 20)
PATHS = {"kernel": True, "numpy": False}


def size_case(kind: str, n_dofs: int, constraints: int, events: int, seed: int) -> dict[str, Any]:
    """Both paths' evaluate and drag-event times on one scaled figure."""
    scaled = build(kind, n_dofs)
    sites = choose_sites(scaled, constraints)
    problem = make_problem(scaled, sites)
    rng = np.random.default_rng(seed)
    poses = [random_feasible_pose(scaled.figure, rng) for _ in range(4)]
    row: dict[str, Any] = {
        "figure": kind,
        "n_dofs": n_dofs,
        "constraints": constraints,
        "variables": int(problem.variables.size),
    }
    for path, on in PATHS.items():
        with kernel.enabled(on):
            row[f"{path}_evaluate_us"] = 1e6 * statistics.median(
                evaluate_times(problem, poses, 200)
            )
            records = drag(scaled, sites, len(sites) - 1, events, np.random.default_rng(seed))
        row[f"{path}_event_ms"] = 1e3 * statistics.median(r["time_s"] for r in records)
        row[f"{path}_iterations"] = statistics.median(r["iterations"] for r in records)
    row["evaluate_speedup"] = row["numpy_evaluate_us"] / row["kernel_evaluate_us"]
    row["event_speedup"] = row["numpy_event_ms"] / row["kernel_event_ms"]
    return row


def _evaluations(problem: solver.Problem, theta: np.ndarray) -> list[np.ndarray]:
    problem._evaluated = None  # the cache holds the other path's pose
    value, gradient = problem.evaluate_variables(theta)
    return [
        np.array([value]),
        gradient,
        problem.gauss_newton_factor(theta),
        problem.effector_jacobians(theta),
    ]


def bank_case(case: Any) -> dict[str, Any]:
    """One bank case on both paths: evaluations' largest scaled difference, and a descent."""
    problem, theta0 = build_case(case, solver)
    size = max(1.0, float(problem.weights.sum() * problem.chain_lengths.max() ** 2))
    worst = 0.0
    for theta in (theta0, theta0 + 0.3):
        with kernel.enabled(False):
            wanted = _evaluations(problem, theta)
        got = _evaluations(problem, theta)
        for want, have in zip(wanted, got, strict=True):
            scale = max(size, float(np.abs(want).max()))
            worst = max(worst, float(np.abs(have - want).max()) / scale)
    with kernel.enabled(False):
        numpy_result = solve(problem, theta0, restarts=0)
    kernel_result = solve(problem, theta0, restarts=0)
    met = problem.goal_tolerance(1e-6)
    largest = max(kernel_result.fun, numpy_result.fun)
    same_g = largest <= met or abs(kernel_result.fun - numpy_result.fun) <= max(
        met, 1e-6 * numpy_result.fun
    )
    return {
        "case": case.name,
        "evaluation_difference": worst,
        "same_outcome": kernel_result.outcome == numpy_result.outcome,
        "same_g": bool(same_g),
        "kernel_g": kernel_result.fun,
        "numpy_g": numpy_result.fun,
    }


def plot(rows: list[dict[str, Any]], path: Any) -> None:
    """Per-event time against DOFs, both paths, one panel per figure kind."""
    kinds = sorted({row["figure"] for row in rows})
    figure, axes = plt.subplots(1, len(kinds), figsize=(13, 4.5), squeeze=False)
    for ax, kind in zip(axes[0], kinds, strict=True):
        for constraints, style in zip(CONSTRAINTS, ("-", "--", ":"), strict=True):
            chosen = [r for r in rows if r["figure"] == kind and r["constraints"] == constraints]
            if not chosen:
                continue
            dofs = [r["n_dofs"] for r in chosen]
            for route, colour in (("numpy", "C0"), ("kernel", "C1")):
                ax.plot(
                    dofs,
                    [r[f"{route}_event_ms"] for r in chosen],
                    style,
                    color=colour,
                    marker="o",
                    label=f"{route}, {constraints} goal{'s' * (constraints > 1)}",
                )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("DOFs")
        ax.set_ylabel("ms per warm drag event (median)")
        ax.set_title(kind)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    figure.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(figure)


def markdown(record: dict[str, Any]) -> list[str]:
    lines = [*machine.heading("The compiled kernel against numpy", record)]
    lines += ["## Time, both paths in one process", ""]
    lines += table(
        [
            "figure",
            "DOFs",
            "goals",
            "evaluate µs numpy",
            "kernel",
            "×",
            "drag event ms numpy",
            "kernel",
            "×",
            "iterations numpy / kernel",
        ],
        [
            (
                r["figure"],
                r["n_dofs"],
                r["constraints"],
                f"{r['numpy_evaluate_us']:.1f}",
                f"{r['kernel_evaluate_us']:.1f}",
                f"{r['evaluate_speedup']:.2f}",
                f"{r['numpy_event_ms']:.2f}",
                f"{r['kernel_event_ms']:.2f}",
                f"{r['event_speedup']:.2f}",
                f"{r['numpy_iterations']:g} / {r['kernel_iterations']:g}",
            )
            for r in record["sizes"]
        ],
    )
    agreement = record["bank"]
    lines += [
        "",
        "## Agreement on the full problem bank",
        "",
        f"{agreement['cases']} cases. Largest difference of G, ∇G, the Gauss–Newton factor "
        f"and the Jacobians, relative to weights × longest chain²: "
        f"{agreement['largest_evaluation_difference']:.2e}. Same outcome of one descent: "
        f"{agreement['same_outcome']}/{agreement['cases']}; G the same (both met, or within "
        f"1e-6): {agreement['same_g']}/{agreement['cases']}.",
        "",
        "![per-event time against DOFs](kernel.png)",
    ]
    return lines


def main() -> None:
    counts = {"events": Count("drag events per figure and path", 8, 30)}
    args = BenchmarkParser(__doc__, "kernel", "3 sizes, fewer events", counts).parse_args()
    status = kernel.status()
    if not status.compiled:
        raise SystemExit(f"bench.solver.kernel: the kernel is not in use: {status.text}")
    started = time.perf_counter()
    sizes = []
    for kind in ("chain", "tree"):
        for n_dofs in QUICK_DOF_COUNTS if args.quick else DOF_COUNTS:
            for constraints in CONSTRAINTS:
                if skip_reason(build(kind, n_dofs), n_dofs, constraints) is not None:
                    continue
                row = size_case(kind, n_dofs, constraints, args.events, args.seed)
                sizes.append(row)
                print(
                    f"{kind:5s} {n_dofs:4d} DOFs {constraints} goals: evaluate "
                    f"{row['numpy_evaluate_us']:.0f} → {row['kernel_evaluate_us']:.0f} µs, "
                    f"event {row['numpy_event_ms']:.2f} → {row['kernel_event_ms']:.2f} ms",
                    flush=True,
                )
    cases = [bank_case(case) for case in bank("ci" if args.quick else "full")]
    agreement = {
        "cases": len(cases),
        "largest_evaluation_difference": max(c["evaluation_difference"] for c in cases),
        "same_outcome": sum(c["same_outcome"] for c in cases),
        "same_g": sum(c["same_g"] for c in cases),
        "differing": [c for c in cases if not (c["same_outcome"] and c["same_g"])],
    }
    print(
        f"bank: {agreement['cases']} cases, evaluations within "
        f"{agreement['largest_evaluation_difference']:.2e}, same outcome "
        f"{agreement['same_outcome']}, same G {agreement['same_g']}"
    )
    record: dict[str, Any] = {
        **machine.about(),
        "kernel": status.text,
        "quick": args.quick,
        "wall_s": round(time.perf_counter() - started, 1),
        "task": (
            "Scaled chain and tree (3 rotations a segment): median evaluate over "
            "200 calls and median warm drag event over "
            f"{args.events} events (restarts=0, budget 0.1 s, tolerance 1e-10), numpy path "
            "then kernel path in one process, seed "
            f"{args.seed}."
        ),
        "sizes": sizes,
        "bank": agreement,
    }
    write_results(args.output, record, markdown(record))
    picture = args.output.with_suffix(".png")
    plot(sizes, picture)
    print(f"wrote {shown(picture)}")


if __name__ == "__main__":
    main()
