"""What would make Reach's drag event faster? Measurements behind the suggestions.

Run with Blender 5.0 as a Python module, from the repository root::

    .venv-blender-5.0/bin/python -m bench.blender.drag_whatif [--events N] [--scenario limbs]

On the drag of ``versus_ik`` (same scenario definitions; its own random path)
it measures, per event:

* ``DragSession.step`` as it is (the baseline);
* the solve alone, warm started, on the add-on's problem (the whole 29-bone figure)
  and on the same problem over a *pruned* figure: only the bones of the constraints'
  chains, bones above a chain start folded into a constant root frame;
* the cost of one ``problem.evaluate`` on both;
* how many of each solve's iterations were needed for every residual to be within
  1e-6 × limb length (the rest only polish the Kuhn–Tucker test at tolerance 1e-10);
* ``bridge.pose.write_pose`` of the chain bones.

Prints a table; nothing is written.
"""

from __future__ import annotations

import argparse
import statistics
import time
from types import ModuleType
from typing import Any

import bpy
import numpy as np

from bench.blender import events, rigs, scenarios
from bench.blender.poses import Poser
from bench.blender.reach_events import start_drag


def pruned(reach: ModuleType, setup: Any, theta: np.ndarray) -> tuple[Any, np.ndarray]:
    """The setup's problem over a figure of the chains' bones only; bones above a chain
    start are folded, at their pose ``theta``, into the new root's rest frame.

    Returns the problem and the indices in the full θ of the pruned figure's DOFs."""
    solver = reach.solver
    figure = setup.rig.figure
    kept = [
        figure.segments[k]
        for k in range(len(figure.segments))
        if setup.rig.layout[k].name in setup.movable
    ]
    names = {segment.name for segment in kept}
    frames = figure.forward(theta)
    small = solver.Figure()
    index = []
    for segment in kept:
        if segment.parent in names:
            parent, rest = segment.parent, segment.rest
        else:
            parent = None
            above = frames[figure.segment(segment.parent).index] if segment.parent else np.eye(4)
            rest = above @ segment.rest
        small.add_segment(segment.name, parent=parent, rest=rest, dofs=list(segment.dofs))
        index.extend(segment.dof_indices)
    # the same constraint objects: they name segments, which keep their names
    constraints = list(setup.problem.leaves)
    return solver.Problem(small, constraints), np.array(index)


def time_evaluate(problem: Any, theta: np.ndarray, calls: int = 300) -> float:
    """Median time of one evaluation; two poses alternate, since a problem keeps the
    kinematics of the last pose it saw."""
    poses = [theta, theta + 1e-9]
    for k in range(20):
        problem.evaluate(poses[k % 2])
    times = []
    for k in range(calls):
        begin = time.perf_counter()
        problem.evaluate(poses[k % 2])
        times.append(time.perf_counter() - begin)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=300)
    parser.add_argument("--scenario", default="limbs", choices=list(scenarios.SCENARIOS))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    reach = rigs.load_reach()
    try:
        run(reach, scenarios.SCENARIOS[args.scenario], args)
    finally:
        rigs.unload_reach()


def run(reach: ModuleType, scenario: scenarios.Scenario, args: argparse.Namespace) -> None:
    bridge, solver = reach.addon.bridge, reach.solver
    rng = np.random.default_rng([args.seed, 99])
    obj = rigs.new_metarig()
    rigs.set_elbow_limits(obj, scenario.elbow_limits)
    view_layer = bpy.context.view_layer
    bpy.ops.reach.figure_from_armature(armature=obj.name)
    for limb in scenario.limbs:
        bpy.ops.reach.add_constraint(
            armature=obj.name,
            bone=limb.bone,
            effector="TAIL",
            chain_start=limb.chain[-1],
            name=limb.name,
        )
    view_layer.update()
    goals = [obj.reach.constraints[limb.name].goal for limb in scenario.limbs]
    rest = rigs.effector_points(obj, scenario.limbs)
    lengths = np.array([rigs.limb_length(obj, limb) for limb in scenario.limbs])
    rig = bridge.plain_rig.build_rig(obj)
    poser = Poser(obj, rig, scenario)
    dragged = [limb.name for limb in scenario.limbs].index(scenario.dragged)
    path = poser.drag_path(rng, args.events, events.STEP * lengths[dragged])

    # baseline: DragSession.step
    drag = start_drag(reach, obj, goals, rest, dragged)
    steps = []
    for point in path:
        begin = time.perf_counter()
        drag.step(point)
        steps.append(time.perf_counter() - begin)

    # the solves alone: full figure vs pruned, warm started, iterations to 1e-6 x limb
    start_drag(reach, obj, goals, rest, dragged)
    theta_full = bridge.pose.read_pose(obj, rig)
    theta_small = None
    full_times, small_times, iterations, needed = [], [], [], []
    evaluate_full = evaluate_small = 0.0
    for k, point in enumerate(path):
        goals[dragged].location = tuple(point)
        view_layer.update()
        setup = bridge.goals.build_problem(obj, bpy.context.scene, rig)
        problem = setup.problem
        limb_of = np.array(
            [lengths[[lb.name for lb in scenario.limbs].index(n)] for n in setup.names]
        )
        first_ok: list[int] = []

        def watch(
            theta: np.ndarray,
            value: float,
            problem: Any = problem,
            seen: list[int] = first_ok,
            limb_of: np.ndarray = limb_of,
        ) -> None:
            seen.append(
                int(np.all(np.sqrt(np.maximum(problem.potentials(theta), 0.0)) <= 1e-6 * limb_of))
            )

        result = solver.solve(problem, theta_full, tolerance=1e-10, restarts=0, callback=watch)
        calls = first_ok.index(1) if 1 in first_ok else len(first_ok)
        needed.append(calls)
        begin = time.perf_counter()
        result = solver.solve(problem, theta_full, tolerance=1e-10, restarts=0)
        full_times.append(time.perf_counter() - begin)
        iterations.append(result.nit)
        small, index = pruned(reach, setup, theta_full)
        if theta_small is None:
            theta_small = theta_full[index]
        begin = time.perf_counter()
        small_result = solver.solve(small, theta_small, tolerance=1e-10, restarts=0)
        small_times.append(time.perf_counter() - begin)
        if k == 0:
            evaluate_full = time_evaluate(problem, theta_full)
            evaluate_small = time_evaluate(small, theta_small)
        gap = float(np.max(np.abs(small_result.x - result.x[index])))
        if gap > 1e-5:
            print(f"  event {k}: pruned and full solutions differ by {gap:.1e} rad")
        theta_full = result.x
        theta_small = small_result.x

    # write-back of the chain bones (bridge.pose.write_pose: one foreach_get/foreach_set per
    # channel kind)
    theta = theta_full
    writes = []
    for _ in range(100):
        begin = time.perf_counter()
        bridge.pose.write_pose(obj, rig, theta, drag.setup.movable)
        writes.append(time.perf_counter() - begin)
    quaternion_bones = [e for e in rig.layout if e.mode == "QUATERNION"]

    def ms(values: list[float]) -> str:
        return f"{1e3 * statistics.median(values):7.2f} ms"

    rows = (
        ("DragSession.step, median", ms(steps)),
        ("solve on the add-on's problem (29 bones), median", ms(full_times)),
        ("solve on the pruned figure, median", ms(small_times)),
        (
            "problem.evaluate, full / pruned",
            f"{1e6 * evaluate_full:7.0f} / {1e6 * evaluate_small:.0f} µs",
        ),
        ("iterations per event, mean", f"{statistics.fmean(iterations):7.2f}"),
        ("iterations until every residual <= 1e-6 x limb", f"{statistics.fmean(needed):7.2f}"),
        ("bridge.pose.write_pose (moved bones), median", ms(writes)),
    )
    print(f"\n{scenario.title}: {len(path)}-event drag of {scenario.dragged}")
    for label, value in rows:
        print(f"  {label:50s} {value}")
    print(f"  ({len(quaternion_bones)} of the figure's bones are quaternion bones)")


if __name__ == "__main__":
    main()
