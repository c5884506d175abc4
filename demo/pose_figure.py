"""Reach's headless demo: pose the Rigify human by dragging goals, with four constraints.

It builds the extension with Blender's own ``blender_ext.py``, installs it into an
isolated extension repository, creates the Rigify basic human metarig (with joint limits
on the spine, clavicles, hips, knees and elbows), holds both ankles on the floor and drags
the hands along paths — first each hand alone to the chest, then both together up
overhead and back on a loop, then down to the shins so that the figure bends forward and
crouches — and writes into the output folder:

* ``reach_demo.blend``: the posed figure, its goals and the Reach settings;
* ``reach_demo.png``: a Workbench render of the posed figure;
* ``events.json``: per drag event the goal locations, timings, iterations and residual,
  per constraint the final residual measured from Blender's evaluated pose, and a summary;
* ``walk.blend``, ``walk_sheet.png`` and ``walk.json``: a walk-like motion baked with
  ``reach.bake`` (:mod:`walk`): the hips moving along a path, the feet planted on
  alternating frame ranges, a gaze on a moving target; a contact sheet of its frames with
  the feet's trajectories, and how far each planted foot slid (Blender's pose).

It prints a summary table and also checks what it shows: every goal reached within
1e-4 arm lengths, the ankles kept on their floor goals, no joint limit violated.

Nothing touches the user's Blender configuration: before ``bpy`` is imported, Blender's
user directories are pointed at a temporary folder, which is removed at the end
(``tools/blender_extension.py``, shared with the add-on's tests, does this and loads the
extension). The other modules of ``demo/`` each hold one part: ``figure`` the rig and its
goals, ``drags`` the paths and drags, ``monitor`` the measurements of Blender's pose,
``stage`` and ``shapes`` the picture, ``report`` the summary and its checks.

Usage (``bash tools/demo`` sets up the Blender 5.0 virtualenv and runs this)::

    python demo/pose_figure.py [--output DIR]

It exits with status 1 and a message naming the step on any failure.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import blender_extension  # noqa: E402

HOME = blender_extension.isolate_user_folders("reach-demo-")

import bpy  # noqa: E402
from drags import Segment, run_drags  # noqa: E402
from errors import DemoError  # noqa: E402
from figure import FEET, JOINTS, add_constraints, make_figure, residuals  # noqa: E402
from monitor import Monitor  # noqa: E402
from report import failures, print_summary, summarize  # noqa: E402
from stage import dress, render, stage  # noqa: E402
from walk import run as run_walk  # noqa: E402

DEFAULT_OUTPUT = ROOT / "demo" / "out"
REPOSITORY = "reach_demo"

ABOUT = {
    "units": "metres, milliseconds, radians unless named otherwise",
    "event.location": "the dragged empty's location channel",
    "event.hand_goals": "world locations of the two hand goals at that event",
    "event.milliseconds": "goal move, solve, write-back and depsgraph update",
    "event.residual": "the largest of the 4 constraints' residuals, from the solver",
    "constraints.final_residual": "effector to goal in Blender's final pose",
}
"""What the fields of ``events.json`` mean."""


def install_extension() -> ModuleType:
    """Build, validate, install and enable the extension; return its package."""
    package = blender_extension.build(HOME / "build")
    reach = blender_extension.install(package, REPOSITORY, HOME / "repository")
    print(f"installed and enabled {package.name} as {reach.__name__}")
    return reach


def record(
    obj: Any,
    segments: list[Segment],
    events: list[dict[str, Any]],
    summary: dict[str, Any],
    final: dict[str, float],
) -> dict[str, Any]:
    """Everything ``events.json`` holds: constraints, limits, segments, summary, events."""
    return {
        "about": ABOUT,
        "blender": bpy.app.version_string,
        "armature": obj.name,
        "constraints": {
            c.name: {
                "bone": c.bone,
                "effector": c.effector,
                "chain_start": c.chain_start,
                "goal_type": c.goal_type,
                "goal": c.goal.name,
                "final_residual": final[c.name],
            }
            for c in obj.reach.constraints
        },
        "joint_limits_degrees": JOINTS,
        "segments": [
            {"name": s.name, "dragged": s.goal, "events": len(s.events)} for s in segments
        ],
        "summary": summary,
        "events": events,
    }


def print_walk(walk: dict[str, Any]) -> None:
    """The walk's bake and how still its planted feet stayed."""
    print()
    print(
        f"  walk: baked {walk['frames']} frames in {walk['bake_seconds']:.2f} s "
        f"({walk['frames_per_second']:.1f} frames/s), 3 constraints, feet switched on and off"
    )
    for name, slide in walk["sliding"].items():
        ranges = ", ".join(f"{a}–{b}" for a, b in walk["planted"][name])
        print(
            f"    {name} planted on frames {ranges}: slides {1000 * slide:.4f} mm "
            f"({slide / walk['leg']:.1e} × leg)"
        )
    print(f"    gaze off its moving target by at most {walk['gaze_degrees_max']:.2e}°")


def walk_failures(walk: dict[str, Any]) -> list[str]:
    """What the walk shows that it should not: a sliding foot, a gaze off its target."""
    found = [
        f"{name} slides {slide:.3g} m while planted (more than 1e-5 of the leg)"
        for name, slide in walk["sliding"].items()
        if slide > 1e-5 * walk["leg"]
    ]
    if walk["gaze_degrees_max"] > 0.01:
        found.append(f"the gaze is {walk['gaze_degrees_max']:.3g}° off its target")
    return found


def main(argv: Sequence[str] | None = None) -> int:
    """Run the demo; return the process's exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--output", type=Path, default=DEFAULT_OUTPUT, help=f"folder (default {DEFAULT_OUTPUT})"
    )
    args = parser.parse_args(argv)
    output: Path = args.output.resolve()
    output.mkdir(parents=True, exist_ok=True)
    began = time.perf_counter()
    print(f"Reach demo: Blender {bpy.app.version_string}, Python {sys.version.split()[0]}")

    reach = install_extension()
    obj = make_figure()
    goals = add_constraints(obj)
    arm = sum(obj.data.bones[b].length for b in ("upper_arm.L", "forearm.L"))
    feet = {name: goals[name].matrix_world.translation.copy() for name in FEET}
    monitor = Monitor(obj, reach, feet)
    bpy.app.handlers.depsgraph_update_post.append(monitor)
    try:
        drag_began = time.perf_counter()
        segments = run_drags(obj, goals)
        drag_seconds = time.perf_counter() - drag_began
    finally:
        bpy.app.handlers.depsgraph_update_post.remove(monitor)
    bpy.context.view_layer.update()
    final = residuals(obj)
    limits = monitor.limits(obj)
    events = [e for s in segments for e in s.events]
    for index, event in enumerate(events):
        event["index"] = index

    dress(obj, goals, segments)
    blend = output / "reach_demo.blend"
    picture = output / "reach_demo.png"
    stage(picture)
    bpy.ops.wm.save_as_mainfile(filepath=str(blend), copy=True)
    render_seconds = render(picture)

    summary = summarize(events, arm, final, monitor, limits, drag_seconds, render_seconds)
    events_path = output / "events.json"
    events_path.write_text(
        json.dumps(record(obj, segments, events, summary, final), indent=1) + "\n"
    )
    walk = run_walk(output)
    walk_path = output / "walk.json"
    walk_path.write_text(json.dumps(walk, indent=1) + "\n")
    total = time.perf_counter() - began

    print_summary(summary, segments)
    print_walk(walk)
    print()
    print(f"  wrote {blend}")
    print(f"        {picture}")
    print(f"        {events_path}")
    print(f"        {walk['sheet']}")
    print(f"        {walk_path}")
    print(f"  took {total:.1f} s (drags {drag_seconds:.1f} s, render {render_seconds:.1f} s)")
    found = failures(summary) + walk_failures(walk)
    if found:
        raise DemoError("; ".join(found))
    return 0


if __name__ == "__main__":
    status = 1
    try:
        status = main()
    except Exception as error:  # any failure: say so loudly, exit non-zero
        traceback.print_exc()
        print(f"\ndemo/pose_figure.py: FAILED: {error}", file=sys.stderr)
        status = 1
    finally:
        shutil.rmtree(HOME, ignore_errors=True)
    sys.stdout.flush()
    sys.stderr.flush()
    # bpy 4.2 segfaults in Python's teardown once Rigify has been enabled (even after
    # disabling it again); everything is written by now, so leave without the teardown.
    os._exit(status)
