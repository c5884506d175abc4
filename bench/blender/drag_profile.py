"""Where a Reach drag event's time goes: phases timed by wrapping functions, then cProfile.

Part of ``bench.blender.versus_ik``.
"""

from __future__ import annotations

import cProfile
import io
import pstats
import statistics
import time
from collections import defaultdict
from types import ModuleType
from typing import Any

import numpy as np

from bench.blender.reach_events import start_drag

# --- where a drag event's time goes -------------------------------------------------------


class PhaseClock:
    """Wraps module functions and a view layer to add up the time spent in each."""

    def __init__(self) -> None:
        self.totals: defaultdict[str, float] = defaultdict(float)
        self.patched: list[tuple[Any, str, Any]] = []

    def wrap(self, owner: Any, name: str, label: str) -> None:
        original = getattr(owner, name)
        totals = self.totals

        def timed(*args: Any, **kwargs: Any) -> Any:
            begin = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                totals[label] += time.perf_counter() - begin

        setattr(owner, name, timed)
        self.patched.append((owner, name, original))

    def restore(self) -> None:
        for owner, name, original in reversed(self.patched):
            setattr(owner, name, original)
        self.patched.clear()


class TimedViewLayer:
    """Stands in for a view layer: adds up the time of its updates under one label.

    A drag has two owners of one view layer: the drag itself, which updates it after the
    goal moves only where the goal does not move alone, and its solve step, which updates
    it after the pose is written; each gets its own stand-in, so that each update is
    counted where it happens (an event of a goal moved alone has one)."""

    def __init__(self, view_layer: Any, clock: PhaseClock, label: str) -> None:
        self.view_layer = view_layer
        self.clock = clock
        self.label = label

    def update(self) -> None:
        begin = time.perf_counter()
        self.view_layer.update()
        self.clock.totals[self.label] += time.perf_counter() - begin


def profile_drag(
    reach: ModuleType,
    obj: Any,
    goals: list[Any],
    targets: np.ndarray,
    dragged: int,
    rest: np.ndarray,
) -> tuple[dict[str, Any], str]:
    """Phase times per event of the drag (one pass) and a cProfile listing (another)."""
    bridge = reach.addon.bridge
    events = len(targets)
    solver = reach.solver
    clock = PhaseClock()
    labels = {
        "goal": "  depsgraph update after goal move",
        "build": "  refresh_goals (goal objects → solver goals)",
        "build_goal": "    build_goal (the goal empties that moved)",
        "problem": "    Problem.with_goals (goals restacked, chains kept)",
        "run": "  run_solve",
        "solve": "    solve (the solver)",
        "evaluate": "      problem.evaluate_variables (G and ∇G)",
        "gauss": "      problem.gauss_newton_variables (metric)",
        "frames": "      kinematics.pose (FK of all 29 bones; in the two above)",
        "write": "  PoseWriter.write (foreach_get / foreach_set)",
        "pose": "  depsgraph update after the pose is written",
    }
    clock.wrap(bridge.goals, "refresh_goals", labels["build"])
    clock.wrap(bridge.goals, "build_goal", labels["build_goal"])
    clock.wrap(solver.problem.Problem, "with_goals", labels["problem"])
    clock.wrap(bridge.solving, "run_solve", labels["run"])
    clock.wrap(bridge.solving, "solve", labels["solve"])
    clock.wrap(solver.problem.Problem, "evaluate_variables", labels["evaluate"])
    clock.wrap(solver.problem.Problem, "gauss_newton_variables", labels["gauss"])
    clock.wrap(solver.kinematics.Kinematics, "pose", labels["frames"])
    clock.wrap(bridge.pose.PoseWriter, "write", labels["write"])
    iterations, evaluations = [], []
    try:
        drag = start_drag(reach, obj, goals, rest, dragged)
        drag.view_layer = TimedViewLayer(drag.view_layer, clock, labels["goal"])
        drag.poser.view_layer = TimedViewLayer(drag.poser.view_layer, clock, labels["pose"])
        clock.totals.clear()
        begin = time.perf_counter()
        for points in targets:
            stats = drag.step(points[dragged])
            iterations.append(stats.iterations)
            assert drag.last is not None
            evaluations.append(drag.last.result.nfev)
        total = time.perf_counter() - begin
    finally:
        clock.restore()
    spent = {key: 1e3 * clock.totals[label] / events for key, label in labels.items()}
    phases = {"step total (DragSession.step)": 1e3 * total / events}
    for key, label in labels.items():
        phases[label] = spent[key]
        if key == "frames":
            phases["      rest of the solver (metric, projections, line search, set-up)"] = (
                spent["solve"] - spent["evaluate"] - spent["gauss"]
            )
            phases["    run_solve outside solve (potentials, residuals)"] = (
                spent["run"] - spent["solve"]
            )
    phases["  rest of step (goal move, checks, stats)"] = phases[
        "step total (DragSession.step)"
    ] - sum(spent[key] for key in ("goal", "build", "run", "write", "pose"))
    phases["iterations per event (mean)"] = statistics.fmean(iterations)
    phases["objective evaluations per event (mean)"] = statistics.fmean(evaluations)

    drag = start_drag(reach, obj, goals, rest, dragged)
    profiler = cProfile.Profile()
    profiler.enable()
    for points in targets:
        drag.step(points[dragged])
    profiler.disable()
    text = io.StringIO()
    listing = pstats.Stats(profiler, stream=text)
    listing.sort_stats("cumulative").print_stats(45)
    listing.sort_stats("tottime").print_stats(30)
    return phases, text.getvalue()
