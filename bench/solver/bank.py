"""Measure the solver on the whole problem bank, beside the previous solver and SLSQP.

Run from the repository root::

    .venv/bin/python -m bench.solver.bank [--quick] [--starts S] [--jobs J]

The bank (``tests/fixtures/bank.py``): the 53-DOF human, the 1994 tube task, random
trees and long chains (200–1,000 DOFs), with weights 1–1e6, every goal type and AnyOf,
reachable and unreachable targets, pins, polygons and equalities. ``--quick`` runs the
tests' slice (``bank("ci")``) instead of ``bank("full")``.

Per case: Reach's one local descent (``restarts=0``) and its solve as the Solve button
does (default restarts, goals met to 1e-6 × chain length), both with
``max_iterations=1000`` and a 5 s time limit; the same two with the previous solver
(``solver/`` at commit 2d225ae, imported as ``baseline_solver``); scipy's SLSQP from
the same start, and from ``--starts`` seeded feasible starts in all (below 150
variables; SLSQP runs only below 320 variables, its dense steps cost minutes above).

The targets: (a) no solve ends at ``max_iterations`` for a cycling reason (a
dropped limit added back with G no lower: ``SolveResult.readds``; the solves at
``max_iterations`` are counted too), and the final G is at most SLSQP's from the same
start (at its pose moved into the limits) + 1e-8 relative on ≥ 98% of the bank (a default solve
that meets every goal counts as no worse: it stops at its goal tolerance); (b) every "not
reachable" verdict is true: multi-start SLSQP gets no closer than 1e-6 × chain length
either; (c) reachable targets from rest are met to 1e-6 × chain length in ≥ 99.5%.

Writes ``bench/results/bank.json`` and ``bench/results/bank.md``.
"""

from __future__ import annotations

import multiprocessing
import time
from typing import Any

from bench import machine
from bench.harness import BenchmarkParser, Count, write_results
from bench.solver.bank_report import markdown, summarise
from bench.solver.bank_runs import (
    ITERATION_CAP,
    MULTISTART_BELOW,
    PREVIOUS,
    PREVIOUS_NAME,
    SLSQP_BELOW,
    TIME_LIMIT,
    measure,
    previous_solver,
)
from tests.fixtures.bank import SIZES, bank

CASES: tuple[Any, ...] = ()
"""The bank's cases; forked workers read them (and the previous solver) from here."""
PREVIOUS_SOLVER: Any = None


def _measure(job: tuple[int, int]) -> dict[str, Any]:
    index, starts = job
    return measure(CASES[index], PREVIOUS_SOLVER, starts)


def main() -> None:
    global CASES, PREVIOUS_SOLVER
    parser = BenchmarkParser(
        __doc__,
        "bank",
        "the tests' slice of the bank instead of the whole bank",
        {"starts": Count("SLSQP starts per case (θ0 and seeded feasible poses)", 2, 4)},
    )
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    args = parser.parse_args()
    size = "ci" if args.quick else "full"
    began = time.perf_counter()
    CASES = bank(size)
    PREVIOUS_SOLVER = previous_solver()
    context = multiprocessing.get_context("fork")
    jobs = [(k, args.starts) for k in range(len(CASES))]
    with context.Pool(args.jobs) as pool:
        rows = []
        for row in pool.imap(_measure, jobs):
            rows.append(row)
            reach = row["reach"]["solve"]
            print(
                f"{row['case']:10s} {row['n_dofs']:5d} DOFs  {reach['outcome'] or '':14s} "
                f"G {reach['objective']:.3g}",
                flush=True,
            )
    record = {
        "about": machine.about(),
        "date": machine.about()["date"],
        "quick": bool(args.quick),
        "setup": {
            "bank": size,
            "cases": {family: count for family, count in SIZES[size].items()},
            "previous": f"solver/ at {PREVIOUS} imported as {PREVIOUS_NAME}",
            "max_iterations": ITERATION_CAP,
            "time_limit_s": TIME_LIMIT,
            "slsqp_starts": args.starts,
            "multistart_below_variables": MULTISTART_BELOW,
            "slsqp_below_variables": SLSQP_BELOW,
            "jobs": args.jobs,
            "wall_time_s": None,
        },
        "summary": summarise(rows),
        "cases": rows,
    }
    record["setup"]["wall_time_s"] = time.perf_counter() - began
    write_results(args.output, record, markdown(record))


if __name__ == "__main__":
    main()
