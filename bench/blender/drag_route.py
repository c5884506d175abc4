"""The route of one drag event through Reach's code: the files it enters, in order.

    .venv-blender-5.0/bin/python -m bench.blender.drag_route [--quick] [--output FILE]

The mixed-goal drag of :mod:`bench.blender.mixed_goals` (six goal types on the Rigify
basic human) and the same drag on a generated control rig (the Rigify human's rig, its
left hand's IK control dragged) each take a few warm events; then one more event
(``DragSession.step``) is traced with :func:`sys.setprofile`. Every Python call into the
extension's own code is noted by its file; consecutive calls in one file are one stay.
The route says how readable an event's path is: how many files it enters, how many
stays it makes, and how often it comes back to a file it had already left (a return).
It is told twice: through the add-on with the solver as one stop (its own loop revisits
its files by design), and through the solver alone.
Results: ``bench/results/drag_route.json`` and ``drag_route.md``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from types import FrameType, ModuleType
from typing import Any

import bpy
import numpy as np

from bench.blender import mixed_goals, rigs
from bench.harness import RESULTS, write_results
from bench.machine import about

WARM = 3
"""Drag events before the traced one: the problem, the writer and the caches are built."""


def route(reach: ModuleType, drag: Any, location: Any) -> list[str]:
    """The extension's files one drag event calls into, one entry per stay."""
    root = Path(reach.__file__).parent
    prefix = str(root) + "/"
    stays: list[str] = []

    def note(frame: FrameType, event: str, _arg: object) -> None:
        if event != "call":
            return
        filename = frame.f_code.co_filename
        if not filename.startswith(prefix):
            return
        name = filename[len(prefix) :]
        if not stays or stays[-1] != name:
            stays.append(name)

    sys.setprofile(note)
    try:
        drag.step(location)
    finally:
        sys.setprofile(None)
    return stays


def collapsed(stays: list[str], keep: str) -> list[str]:
    """The route with every file outside the folder ``keep`` one stop, named by its folder."""
    stops: list[str] = []
    for name in stays:
        stop = name if name.startswith(keep) else name.split("/")[0] + "/"
        if not stops or stops[-1] != stop:
            stops.append(stop)
    return stops


def summary(stays: list[str]) -> dict[str, Any]:
    """Files entered, stays, and returns to a file already left, of one route."""
    seen: set[str] = set()
    returns = 0
    for name in stays:
        returns += name in seen
        seen.add(name)
    return {"files": len(seen), "stays": len(stays), "returns": returns, "route": stays}


def metarig_drag(reach: ModuleType) -> tuple[Any, list[Any]]:
    """The mixed-goal drag on the metarig and the places of its left hand's goal."""
    obj = mixed_goals.setup_rig()
    path = mixed_goals.arm_path(reach, obj, WARM + 1, np.random.default_rng(0))
    goal = obj.reach.constraints[mixed_goals.DRAGGED].goal
    return reach.addon.drag_session.DragSession(bpy.context, obj, goal), list(path)


def control_rig_drag(reach: ModuleType) -> tuple[Any, list[Any]]:
    """A drag of the generated human rig's left hand IK control toward the chest."""
    metarig = rigs.new_metarig()
    bpy.context.view_layer.objects.active = metarig
    bpy.ops.pose.rigify_generate()
    obj = bpy.context.view_layer.objects.active
    assert obj is not metarig and obj.type == "ARMATURE", "Rigify made no rig"
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    result = bpy.ops.reach.add_constraint(
        armature=obj.name, bone="hand_ik.L", effector="HEAD", goal_type="POSITION", name="hand"
    )
    assert result == {"FINISHED"}
    goal = obj.reach.constraints["hand"].goal
    start = np.array(goal.location)
    path = [start + np.array([-0.01, -0.01, 0.005]) * (k + 1) for k in range(WARM + 1)]
    return reach.addon.drag_session.DragSession(bpy.context, obj, goal), path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path, default=RESULTS / "drag_route.json")
    parser.add_argument("--quick", action="store_true", help="the same run (it is short)")
    args = parser.parse_args()
    reach = rigs.load_reach()
    routes = {}
    try:
        for name, start in (("metarig", metarig_drag), ("control rig", control_rig_drag)):
            drag, path = start(reach)
            for location in path[:WARM]:
                drag.step(location)
            stays = route(reach, drag, path[WARM])
            routes[name] = {
                "add-on": summary(collapsed(stays, "addon/")),
                "solver": summary([s for s in stays if s.startswith("solver/")]),
            }
            drag.finish()
    finally:
        rigs.unload_reach()
    lines = ["# One drag event's route through the code", ""]
    lines.append(f"Blender {bpy.app.version_string}; the event after {WARM} warm ones.")
    for name, parts in routes.items():
        for part, found in parts.items():
            lines += [
                "",
                f"## {name}, through the {part}: {found['files']} files, "
                f"{found['stays']} stays, {found['returns']} returns to a file already left",
            ]
            if part == "add-on":
                lines += ["", " → ".join(found["route"])]
    for line in lines:
        print(line)
    record = {**about(), "blender": bpy.app.version_string, "warm": WARM, "routes": routes}
    write_results(args.output, record, lines)


if __name__ == "__main__":
    main()
