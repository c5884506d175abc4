"""Time to the same objective: scipy's SLSQP and L-BFGS-B against Reach.

Part of ``bench.solver.versus_scipy``: each peer's evaluations are traced, and the time it first
reaches Reach's objective (feasibly) is what is compared.
"""

from __future__ import annotations

import math
import statistics
import time
from typing import Any

import numpy as np

from bench.solver.versus_scipy_runs import (
    EFFECTORS,
    FEASIBLE,
    OBJECTIVE_SLACK,
    TRACED_TARGETS,
    make_problem,
    record,
    run_reach,
    strip,
    summary,
)
from solver import Figure, Problem, solve

# -- time to the same objective (scipy SLSQP and L-BFGS-B against Reach) --------------


def bounds_only(figure: Figure) -> bool:
    """Whether every limit is a bound on one DOF (no polygon edges, no equalities)."""
    limits = figure.limits
    return not limits.a_eq.shape[0] and bool(np.all(np.count_nonzero(limits.a_in, axis=1) == 1))


def without_polygons(figure: Figure) -> Figure:
    """A copy of ``figure``'s segments and DOF bounds, without polygons or equalities."""
    bare = Figure()
    for segment in figure.segments:
        bare.add_segment(segment.name, segment.parent, segment.rest, segment.dofs)
    return bare


def objective_threshold(reach_objective: float) -> float:
    factor, offset = OBJECTIVE_SLACK
    return max(factor * reach_objective, reach_objective + offset)


def run_scipy_traced(
    problem: Problem, start: np.ndarray, targets: np.ndarray, method: str
) -> dict[str, Any]:
    """scipy's ``method`` on Reach's objective over the same variables, every evaluation
    recorded as (seconds since the call, G, variables).

    SLSQP: bounds as bounds, other inequality rows (polygon edges) and equalities as
    linear constraints; L-BFGS-B: bounds only (the figure must have nothing else).
    """
    from scipy.optimize import minimize

    limits = problem.limits
    free = problem.variables
    fixed = np.setdiff1d(np.arange(problem.n_dofs), free)
    lower = problem.figure.lower[free]
    upper = problem.figure.upper[free]
    single = np.count_nonzero(limits.a_in, axis=1) == 1
    constraints: list[dict[str, Any]] = []
    for kind, rows, rhs in (
        ("ineq", limits.a_in[~single], limits.b_in[~single]),
        ("eq", limits.a_eq, limits.b_eq),
    ):
        reduced = rows[:, free]
        moving = np.any(reduced != 0.0, axis=1)
        if not np.any(moving):
            continue
        matrix = np.ascontiguousarray(reduced[moving])
        offset = rows[moving][:, fixed] @ start[fixed] - rhs[moving]
        constraints.append(
            {
                "type": kind,
                "fun": lambda x, matrix=matrix, offset=offset: matrix @ x + offset,
                "jac": lambda x, matrix=matrix: matrix,
            }
        )
    if method == "L-BFGS-B" and constraints:
        raise ValueError("L-BFGS-B takes bounds only; the figure has other limits")
    theta = start.copy()
    times: list[float] = []
    values: list[float] = []
    points: list[np.ndarray] = []

    def objective(x: np.ndarray) -> tuple[float, np.ndarray]:
        theta[free] = x
        value, gradient = problem.evaluate(theta)
        times.append(time.perf_counter() - began)
        values.append(value)
        points.append(x.copy())
        return value, gradient[free]

    options: dict[str, Any] = (
        {"ftol": 1e-14, "maxiter": 1000}
        if method == "SLSQP"
        else {"ftol": 1e-15, "gtol": 1e-12, "maxiter": 2000, "maxfun": 5000}
    )
    bounds = list(zip(lower, upper, strict=True))
    began = time.perf_counter()
    result = minimize(
        objective,
        start[free],
        jac=True,
        method=method,
        bounds=bounds,
        constraints=constraints if method == "SLSQP" else (),
        options=options,
    )
    elapsed = time.perf_counter() - began
    final = start.copy()
    final[free] = result.x
    run = record(
        problem, targets, elapsed, final, int(result.nit), int(result.nfev), str(result.message)
    )
    full = np.tile(start, (len(points), 1))
    full[:, free] = np.array(points)
    eq, ineq = (full @ limits.a_eq.T - limits.b_eq), (limits.b_in - full @ limits.a_in.T)
    violation = np.maximum(np.abs(eq).max(axis=1, initial=0.0), ineq.max(axis=1, initial=0.0))
    run["trace_times"] = np.array(times)
    run["trace_values"] = np.array(values)
    run["trace_feasible"] = violation <= FEASIBLE
    return run


def time_to(run: dict[str, Any], threshold: float) -> float | None:
    """Seconds until the first feasible evaluation with G ≤ threshold; None: never."""
    hits = np.flatnonzero(run["trace_feasible"] & (run["trace_values"] <= threshold))
    return float(run["trace_times"][hits[0]]) if hits.size else None


def reach_trace(problem: Problem, start: np.ndarray) -> list[list[float]]:
    """Reach's (seconds since the call, G) at every iterate, from a callback."""
    trace: list[list[float]] = []

    def callback(theta: np.ndarray, value: float) -> None:
        trace.append([time.perf_counter() - began, float(value)])

    began = time.perf_counter()
    solve(problem, start, callback=callback)
    return trace


def thin(times: np.ndarray, values: np.ndarray, most: int = 400) -> list[list[float]]:
    step = max(1, len(times) // most)
    return [[float(t), float(v)] for t, v in zip(times[::step], values[::step], strict=True)]


def race_entry(run: dict[str, Any], threshold: float) -> dict[str, Any]:
    """A peer run's row in the race: its record plus its time to Reach's objective."""
    entry = {key: value for key, value in strip(run).items() if not key.startswith("trace_")}
    entry["time_to_reach_objective_s"] = time_to(run, threshold)
    return entry


def race_summary(
    reach_runs: list[dict[str, Any]], peer_rows: list[dict[str, Any]]
) -> dict[str, Any]:
    """Medians of a peer's time to Reach's objective (never = infinite) against Reach."""
    reach_median = statistics.median(run["time"] for run in reach_runs)
    reached = [row["time_to_reach_objective_s"] for row in peer_rows]
    as_float = [math.inf if t is None else t for t in reached]
    median_to = statistics.median(as_float)
    hit = [t for t in reached if t is not None]
    return {
        **summary(peer_rows),
        "reached_rate": len(hit) / len(reached),
        "median_time_to_reach_objective_s": None if math.isinf(median_to) else median_to,
        "median_time_to_reach_objective_when_reached_s": statistics.median(hit) if hit else None,
        "over_reach_median_time": None if math.isinf(median_to) else median_to / reach_median,
    }


def objective_race(
    figure: Figure,
    cases: list[tuple[np.ndarray, np.ndarray]],
    start: np.ndarray,
    methods: tuple[str, ...],
    reach_runs: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Reach (defaults) against scipy ``methods`` from ``start`` to each case's targets.

    ``cases`` are (target points, pose they came from); ``reach_runs`` reuses Reach's
    solves when they were made on this figure already.
    """
    rows: dict[str, list[dict[str, Any]]] = {method: [] for method in methods}
    reach: list[dict[str, Any]] = []
    traces = []
    for k, (points, _) in enumerate(cases):
        problem = make_problem(figure, dict(zip(EFFECTORS, points, strict=True)))
        run = reach_runs[k] if reach_runs is not None else run_reach(problem, start, points)
        reach.append(run)
        threshold = objective_threshold(run["objective"])
        trace: dict[str, Any] = {"target": k, "threshold": threshold}
        for method in methods:
            peer = run_scipy_traced(problem, start, points, method)
            rows[method].append(race_entry(peer, threshold))
            if k < TRACED_TARGETS:
                trace[method.lower().replace("-", "")] = thin(
                    peer["trace_times"], peer["trace_values"]
                )
        if k < TRACED_TARGETS:
            trace["reach"] = reach_trace(problem, start)
            traces.append(trace)
    result: dict[str, Any] = {
        "bounds_only": bounds_only(figure),
        "inequality_rows": int(figure.limits.a_in.shape[0]),
        "polygon_rows": int(np.sum(np.count_nonzero(figure.limits.a_in, axis=1) > 1)),
        "reach": summary(reach),
        "reach_objectives": [run["objective"] for run in reach],
        "traces": traces,
    }
    for method in methods:
        key = method.lower().replace("-", "")
        result[key] = race_summary(reach, rows[method])
        result[key + "_runs"] = rows[method]
    return result


def milliseconds(seconds: float | None) -> str:
    return "never" if seconds is None else f"{seconds * 1e3:.1f}"


def race_rows(race: dict[str, Any]) -> list[tuple[str, dict[str, Any], dict[str, Any] | None]]:
    """(method, summary, race summary or None for Reach) of one figure's race."""
    rows: list[tuple[str, dict[str, Any], dict[str, Any] | None]] = [("Reach", race["reach"], None)]
    for key, name in (("slsqp", "SLSQP"), ("lbfgsb", "L-BFGS-B")):
        if isinstance(race.get(key), dict):
            rows.append((name, race[key], race[key]))
    return rows


def race_text(race: dict[str, Any], race_bare: dict[str, Any]) -> str:
    lines = [
        "time to Reach's objective (first feasible evaluation with G <= "
        "max(1.01 G_Reach, G_Reach + 1e-14)), medians over targets:",
        f"  {'limits':12s} {'method':9s} {'to G ms':>9s} {'reached':>8s} {'whole ms':>9s} "
        f"{'success':>8s} {'peer/Reach':>10s}",
    ]
    for label, part in (("full", race), ("bounds only", race_bare)):
        for name, row, peer in race_rows(part):
            to = row["median_time_s"] if peer is None else peer["median_time_to_reach_objective_s"]
            reached = "" if peer is None else f"{peer['reached_rate']:.0%}"
            ratio = "" if peer is None else peer["over_reach_median_time"]
            shown = (
                ratio if isinstance(ratio, str) else ("never" if ratio is None else f"{ratio:.2f}")
            )
            lines.append(
                f"  {label:12s} {name:9s} {milliseconds(to):>9s} {reached:>8s} "
                f"{row['median_time_s'] * 1e3:9.1f} {row['success_rate']:8.0%} {shown:>10s}"
            )
    if isinstance(race.get("lbfgsb"), str):
        lines.append(f"  L-BFGS-B on the full limits: {race['lbfgsb']}")
    return "\n".join(lines)
