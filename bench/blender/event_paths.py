"""What a drag event runs: the functions of its fixed cost, counted, in Blender.

    .venv-blender-5.0/bin/python -m bench.blender.event_paths [--quick] [--events N]

Blender's evaluation of a rig leaves the processor's caches cold for the Python that runs
after it: each distinct function a drag event runs costs a few microseconds the first time
after an evaluation, several times what it costs when run again at once (the first table).
A drag event's fixed cost is then about the number of distinct functions it runs, and that
number, unlike a time, is the same on every run of the same code on any machine.

Per drag, dragged as ``bench.blender.control_rigs`` drags it (the basic human control rig's
arm from ``torso`` in FK and in IK, its head's look-at from ``neck``, and the metarig's arm
from its first bone), per event after the first ``WARM``: the calls (of Python functions and
of C functions from Python), the distinct Python functions (Reach's own, and the others:
numpy's, the standard library's) and the distinct C functions. The first table: single
calls of a few kinds timed right after Blender evaluates the basic human control rig, then
again at once (median over the repeats). Results: ``bench/results/event_paths.json`` and
``event_paths.md``.
"""

from __future__ import annotations

import math
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import bpy
import numpy as np

from bench.blender import control_rigs, rigs
from bench.harness import BenchmarkParser, Count, table, write_results
from bench.machine import about

WARM = 3
"""The events left out at a drag's start: its first ones build what the next ones keep."""


class _Counter:
    """A ``sys.setprofile`` function counting the calls it sees and the functions called."""

    def __init__(self) -> None:
        self.python: set[Any] = set()
        self.native: set[tuple[str, str]] = set()
        self.calls = 0

    def __call__(self, frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            self.python.add(frame.f_code)
            self.calls += 1
        elif event == "c_call":
            owner = getattr(arg, "__self__", None)
            self.native.add((type(owner).__name__, getattr(arg, "__name__", "?")))
            self.calls += 1


def counted_drag(reach: Any, obj: Any, goal: Any, places: list[Any], _hand: str) -> dict:
    """``goal`` dragged through ``places`` (``DragSession.step``), each event's calls and
    distinct functions counted (``sys.setprofile``); the means over the warm events."""
    package = reach.__path__[0]  # the installed add-on's folder
    session = reach.addon.drag_session.DragSession(bpy.context, obj, goal)
    events = []
    for index, place in enumerate(places):
        counter = _Counter()
        sys.setprofile(counter)
        try:
            session.step(place)
        finally:
            sys.setprofile(None)
        if index >= WARM:
            own = sum(code.co_filename.startswith(package) for code in counter.python)
            events.append((counter.calls, own, len(counter.python) - own, len(counter.native)))
    session.finish()
    calls, own, other, native = (statistics.fmean(column) for column in zip(*events, strict=True))
    return {
        "calls": calls,
        "reach_functions": own,
        "other_functions": other,
        "c_functions": native,
        "events": len(events),
    }


def drags(reach: Any, events: int) -> list[dict[str, Any]]:
    """The counted drags of the basic human control rig and of its metarig."""
    name = control_rigs.LIMBS["basic_human"][0]
    rows = []
    for mode in ("FK", "IK"):
        metarig, rig, limb, end = control_rigs.switched(reach, "basic_human", mode)
        found = control_rigs.drag(
            reach, rig, end, "torso", limb.bones[0], events, True, run=counted_drag
        )
        rows.append({"drag": f"basic_human control rig ({name}, from torso, {mode})", **found})
        if mode == "FK":
            plain = [b.removeprefix("ORG-") for b in limb.bones]
            found = control_rigs.drag(
                reach,
                metarig,
                plain[limb.chain_end],
                plain[0],
                plain[0],
                events,
                False,
                run=counted_drag,
            )
            rows.append({"drag": f"basic_human metarig ({plain[0]})", **found})
    _, rig = control_rigs.generated("basic_human")
    found = control_rigs.drag_look(reach, rig, "head", "neck", events, run=counted_drag)
    rows.append({"drag": "basic_human control rig (head, from neck, look-at)", **found})
    return rows


def cold_calls(repeats: int) -> list[dict[str, Any]]:
    """Single calls timed right after Blender evaluates the basic human control rig, and
    again at once: median µs of each over ``repeats`` evaluations."""
    _, rig = control_rigs.generated("basic_human")
    pose_bone = rig.pose.bones["hand_fk.L"]
    values, array = (1.0, 2.0, 3.0), np.ones(3)
    kinds: list[tuple[str, Callable[[], object]]] = [
        ("numpy: an array of three floats", lambda: np.array(values)),
        ("numpy: two arrays added", lambda: array + array),
        ("an RNA read (the rig's location)", lambda: rig.location.x),
        ("Python: square roots of three floats", lambda: [math.sqrt(v) for v in values]),
    ]
    rows = []
    for what, call in kinds:
        first, again = [], []
        for _ in range(repeats):
            pose_bone.location.x += 1e-5
            bpy.context.view_layer.update()
            begin = time.perf_counter()
            call()
            middle = time.perf_counter()
            call()
            first.append(1e6 * (middle - begin))
            again.append(1e6 * (time.perf_counter() - middle))
        rows.append(
            {
                "call": what,
                "first_us": statistics.median(first),
                "again_us": statistics.median(again),
            }
        )
    return rows


def main() -> None:
    parser = BenchmarkParser(
        __doc__, "event_paths", "10 events a drag", {"events": Count("events", 10, 40)}
    )
    args = parser.parse_args()
    reach = rigs.load_reach()
    reach.solver.kernel.loading.status()
    try:
        cold = cold_calls(20 if args.quick else 200)
        counted = drags(reach, args.events)
    finally:
        rigs.unload_reach()
    meta = {
        **about(),
        "quick": args.quick,
        "blender": bpy.app.version_string,
        "events": args.events,
    }
    lines = [
        "# What a drag event runs",
        "",
        f"Blender {meta['blender']}, {meta['cpu_model']}. Single calls right after Blender "
        "evaluates the basic human control rig (a pose bone moved by 10 µm), and again at "
        "once; median µs:",
        "",
        *table(
            ["call", "first after the evaluation, µs", "again, µs"],
            [[r["call"], f"{r['first_us']:.1f}", f"{r['again_us']:.1f}"] for r in cold],
        ),
        "",
        f"Per drag event (mean over the events after the first {WARM}, {args.events} events a "
        "drag, dragged as bench.blender.control_rigs drags them): calls of Python functions "
        "and of C functions from Python, and the distinct functions run:",
        "",
        *table(
            ["drag", "calls", "Reach's functions", "other Python functions", "C functions"],
            [
                [
                    r["drag"],
                    f"{r['calls']:.0f}",
                    f"{r['reach_functions']:.0f}",
                    f"{r['other_functions']:.0f}",
                    f"{r['c_functions']:.0f}",
                ]
                for r in counted
            ],
        ),
    ]
    for line in lines:
        print(line)
    write_results(args.output, {**meta, "cold": cold, "drags": counted}, lines)


if __name__ == "__main__":
    main()
