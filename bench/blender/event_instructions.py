"""Instructions a drag event or a baked frame executes, Reach's and Blender's own, counted.

    .venv-blender-5.0/bin/python -m bench.blender.event_instructions [--quick] [--events N]

Wall-clock times on a shared machine move by half from run to run, so that a change of a
few percent in a drag event cannot be told from the machine's mood; the instructions an
event executes move by 0.2%. The module runs itself again under Valgrind's callgrind
(``valgrind`` on the path), counting only inside the measured events (``callgrind_control``
turns the counting on and off), and gives per event: Reach's instructions, those of the
peer the timed benchmarks compare it with in the same process, their ratio, and where
Reach's go by library: the Python interpreter (Reach's Python and the calls it makes into
Python's C), numpy, Reach's compiled kernel, Blender (its evaluation of the rig, the RNA
calls Reach makes, copying the armature object for the evaluation), the C library
(memory). Cases: the metarig's one-arm and four-limb drags against Standard IK (500
iterations) moving its target empty, as ``bench.blender.versus_ik`` drags them; the
four-constraint bake against Standard IK evaluating each frame, as ``bench.blender.bake``;
the Rigify basic human rig dragged by its left arm's FK chain from ``torso``, and its
metarig dragged alike, each against Blender evaluating it after the dragged bone moves by
hand, as ``bench.blender.control_rigs``. Under Valgrind every solve takes fifty times its time, so
the drags run without a time budget (natively none of these events comes near it).
Instructions are not time: Blender's evaluation runs more instructions a cycle than
Python does. Beside ``bench.solver.instructions`` (the solver alone, no Blender). Results:
``bench/results/event_instructions.json`` and ``event_instructions.md``. About two minutes.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import bpy
import numpy as np

from bench.blender import bake, control_rigs, rigs, scenarios
from bench.blender.poses import Poser
from bench.harness import BenchmarkParser, Count, table, write_results
from bench.machine import about
from bench.solver.instructions import annotated

FOLDER = "REACH_CALLGRIND_FOLDER"
"""The environment variable naming the folder of the counts, set for the counting process."""
PARTS = {
    "/libpython": "Python",
    "/_ctypes.": "Python",
    "/libffi.": "Python",
    "/numpy/": "numpy",
    "/reach_kernel-": "kernel",
    "/bpy/": "Blender",
    "/libtbb": "Blender",
    "/libc.so": "C library",
    "/libm.so": "C library",
}
"""A part of a library's path → the part of an event it is counted in (Python's includes
ctypes' calls into the kernel; Blender's its thread pool)."""


class Counter:
    """Callgrind's counting of this process, on only inside :meth:`count`'s blocks."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.dumps: list[str] = []

    def count(self, label: str, run: Callable[[], None]) -> None:
        """Count what ``run`` executes, apart, under ``label``."""
        pid = str(os.getpid())
        subprocess.run(["callgrind_control", "-i", "on", pid], check=True, capture_output=True)
        try:
            run()
        finally:
            subprocess.run(["callgrind_control", "-i", "off", pid], check=True, capture_output=True)
            subprocess.run(["callgrind_control", "-d", pid], check=True, capture_output=True)
        self.dumps.append(label)


def parts(dump: Path) -> dict[str, int]:
    """Instructions in a callgrind dump by part (:data:`PARTS`; the rest as "other")."""
    listing = annotated(dump)
    found: dict[str, int] = defaultdict(int)
    for line in listing.splitlines():
        matched = re.match(r"\s*([\d,]+) .*\[(.*)\]\s*$", line)
        if matched is None:
            continue
        count, library = int(matched.group(1).replace(",", "")), matched.group(2)
        part = next((p for key, p in PARTS.items() if key in library), "other")
        found[part] += count
    return dict(found)


def _without_budget(obj: Any) -> None:
    """No time budget: a drag event under Valgrind takes fifty times its own time."""
    obj.reach.time_budget, obj.reach.adaptive = 10.0, False


def _metarig_drags(counter: Counter, reach: Any, key: str, events: int) -> None:
    """A ``versus_ik`` scenario's drag: Standard IK moving its empty, then Reach's drag."""
    scenario = scenarios.SCENARIOS[key]
    obj = rigs.new_metarig()
    view_layer = bpy.context.view_layer
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    rigs.constrain(obj, scenario.limbs)
    _without_budget(obj)
    view_layer.update()
    goals = [obj.reach.constraints[limb.name].goal for limb in scenario.limbs]
    rest = rigs.effector_points(obj, scenario.limbs)
    dragged = [limb.name for limb in scenario.limbs].index(scenario.dragged)
    rig = reach.addon.bridge.plain_rig.build_rig(obj)
    poser = Poser(obj, rig, scenario)
    length = rigs.limb_length(obj, scenario.limb(scenario.dragged))
    path = poser.drag_path(np.random.default_rng(0), events + 5, 0.01 * length)

    empties = {
        limb.name: rigs.add_empty(f"IK target {limb.name}", tuple(point))
        for limb, point in zip(scenario.limbs, rest, strict=True)
    }
    rigs.add_blender_ik(obj, scenario.limbs, empties)
    rigs.configure_blender_ik(obj, "LEGACY", 500)
    empty = empties[scenario.dragged]

    def ik_events(points: Any) -> None:
        for point in points:
            empty.location = tuple(point)
            view_layer.update()

    ik_events(path[:5])
    counter.count(f"{key} standard_ik", lambda: ik_events(path[5:]))
    rigs.remove_blender_ik(obj)
    for made in empties.values():
        bpy.data.objects.remove(made)
    rigs.reset_pose(obj)
    view_layer.update()

    session = reach.addon.drag_session.DragSession(bpy.context, obj, goals[dragged])

    def reach_events(points: Any) -> None:
        for point in points:
            session.step(point)

    reach_events(path[:5])
    counter.count(f"{key} reach", lambda: reach_events(path[5:]))
    session.cancel()


def _bake(counter: Counter, frames: int) -> None:
    """``bench.blender.bake``'s bake: Standard IK evaluating each frame, then Reach's bake."""
    obj, targets = bake.scene_with_goals(frames, np.random.default_rng(0))
    scene = bpy.context.scene
    rigs.add_blender_ik(obj, bake.LIMBS, targets)
    rigs.configure_blender_ik(obj, "LEGACY", 500)

    def evaluate() -> None:
        for frame in range(1, frames + 1):
            scene.frame_set(frame)

    scene.frame_set(1)
    counter.count("bake standard_ik", evaluate)
    rigs.remove_blender_ik(obj)
    rigs.reset_pose(obj)
    scene.frame_set(1)
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    rigs.constrain(obj, bake.LIMBS, targets)

    def baked() -> None:
        done = bpy.ops.reach.bake(armature=obj.name, frame_start=1, frame_end=frames)
        assert done == {"FINISHED"}, done

    scene.frame_set(1)
    baked()  # the kernel's plans and the caches made, as on a bake after the first
    scene.frame_set(1)
    counter.count("bake reach", baked)


def _control_rig(counter: Counter, reach: Any, events: int) -> None:
    """The basic human rig's left arm in FK, its chain from ``torso``, dragged by Reach, then
    the same drag on its metarig (the arm's bones, the chain from the root), as
    ``bench.blender.control_rigs`` drags both (:func:`.control_rigs.drag`); each against
    Blender evaluating the armature after the dragged bone moves 0.1 mm by hand."""
    metarig, rig, limb, end = control_rigs.switched(reach, "basic_human", "FK")
    toward = limb.bones[0]
    drags = _counted_drag(counter, "control rig", events)
    control_rigs.drag(reach, rig, end, "torso", toward, events + 5, True, run=drags)
    plain = [bone.removeprefix("ORG-") for bone in limb.bones]
    root = next(bone.name for bone in metarig.data.bones if bone.parent is None)
    drags = _counted_drag(counter, "metarig", events)
    control_rigs.drag(
        reach, metarig, plain[limb.chain_end], root, plain[0], events + 5, True, run=drags
    )


def _counted_drag(counter: Counter, label: str, events: int) -> control_rigs.Run:
    """What :func:`.control_rigs.drag` runs: Blender's evaluation after the dragged bone
    moves by hand (``events`` times, Reach's handlers set aside), then Reach's drag through
    the places after the first five, each counted."""

    def run(reach: Any, obj: Any, goal: Any, places: list[Any], bone: str) -> dict:
        _without_budget(obj)
        pose_bone = obj.pose.bones[bone]
        view_layer = bpy.context.view_layer

        def by_hand() -> None:
            for k in range(events):
                pose_bone.location.x += 1e-4 if k % 2 == 0 else -1e-4
                view_layer.update()

        with control_rigs.handlers_aside():
            counter.count(f"{label} by hand", by_hand)
        session = reach.addon.drag_session.DragSession(bpy.context, obj, goal)

        def drag(points: list[Any]) -> None:
            for point in points:
                session.step(point)

        drag(places[:5])
        counter.count(f"{label} reach", lambda: drag(places[5:]))
        session.cancel()
        return {}

    return run


CASES = {
    "one arm": ("arm reach", "arm standard_ik", "Standard IK moving its empty"),
    "four limbs": ("limbs reach", "limbs standard_ik", "Standard IK moving its empty"),
    "bake, a frame": ("bake reach", "bake standard_ik", "Standard IK evaluating the frame"),
    "control rig": (
        "control rig reach",
        "control rig by hand",
        "Blender evaluating the rig after the control moves by hand",
    ),
    "its metarig": (
        "metarig reach",
        "metarig by hand",
        "Blender evaluating the metarig after the bone moves by hand",
    ),
}
"""Each row: Reach's count, its peer's, and what the peer's event is."""


def measure(folder: Path, events: int, frames: int) -> None:
    """In the counting process: every case's events, one dump each."""
    counter = Counter(folder)
    reach = rigs.load_reach()
    reach.solver.kernel.loading.status()  # the kernel loaded before any count
    try:
        _metarig_drags(counter, reach, "arm", events)
        _metarig_drags(counter, reach, "limbs", events)
        _bake(counter, frames)
        _control_rig(counter, reach, events)
    finally:
        rigs.unload_reach()
    (folder / "labels").write_text("\n".join(counter.dumps) + "\n")


def main() -> None:
    counts = {"events": Count("events per drag", 20, 100), "frames": Count("baked frames", 20, 100)}
    parser = BenchmarkParser(__doc__, "event_instructions", "20 events and frames", counts)
    args = parser.parse_args()
    counting = os.environ.get(FOLDER)
    if counting:
        measure(Path(counting), args.events, args.frames)
        return
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        raise SystemExit(
            "bench.blender.event_instructions needs Valgrind (valgrind, callgrind_control)"
        )
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        command = [
            "valgrind",
            "--tool=callgrind",
            "--instr-atstart=no",
            f"--callgrind-out-file={folder / 'counts'}",
            sys.executable,
            "-m",
            "bench.blender.event_instructions",
            *sys.argv[1:],
        ]
        subprocess.run(command, check=True, env={**os.environ, FOLDER: str(folder)})
        labels = (folder / "labels").read_text().splitlines()
        counted = {label: parts(folder / f"counts.{k}") for k, label in enumerate(labels, start=1)}
    per = {
        "arm reach": args.events,
        "arm standard_ik": args.events,
        "limbs reach": args.events,
        "limbs standard_ik": args.events,
        "bake reach": args.frames,
        "bake standard_ik": args.frames,
        "control rig reach": args.events,
        "control rig by hand": args.events,
        "metarig reach": args.events,
        "metarig by hand": args.events,
    }
    rows: dict[str, Any] = {}
    for case, (reach, peer, against) in CASES.items():
        own = {part: count / per[reach] for part, count in counted[reach].items()}
        total, peer_total = sum(own.values()), sum(counted[peer].values()) / per[peer]
        rows[case] = {
            "reach": total,
            "peer": peer_total,
            "against": against,
            "ratio": total / peer_total,
            "parts": own,
        }
    record = {
        **about(),
        "quick": args.quick,
        "blender": bpy.app.version_string,
        "events": args.events,
        "frames": args.frames,
        "cases": rows,
    }
    shown = ["Python", "numpy", "kernel", "Blender", "C library", "other"]
    lines = [
        "# Instructions a drag event or a baked frame executes",
        "",
        f"Blender {record['blender']}, {record['cpu_model']}; counted by Callgrind inside the "
        f"measured events only ({args.events} drag events, {args.frames} baked frames; a drag "
        "without a time budget). Millions of instructions an event (a frame), Reach's and the "
        "peer's in the same process; Reach's by library: the Python interpreter, numpy, Reach's "
        "kernel, Blender (its evaluation of the rig, Reach's RNA calls), the C library. "
        "Instructions are not time: Blender's evaluation runs more of them a cycle than "
        "Python does.",
        "",
        *table(
            ["case", "Reach", "peer", "Reach / peer", *(f"Reach: {p}" for p in shown)],
            [
                [
                    case,
                    f"{row['reach'] / 1e6:.2f}",
                    f"{row['peer'] / 1e6:.2f} ({row['against']})",
                    f"{row['ratio']:.2f}",
                    *(f"{row['parts'].get(p, 0) / 1e6:.2f}" for p in shown),
                ]
                for case, row in rows.items()
            ],
        ),
    ]
    write_results(args.output, record, lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
