"""Natural poses in Blender: pins, priorities, comfort and balance, against the plain solve.

    .venv-blender-5.0/bin/python -m bench.blender.natural [--quick] [--events N]

On the human metarig, in one process, with Reach's default method:

(a) ``pin``: the left hand's head pinned (``reach.pin_bone``) while a goal on its tail,
chain from the shoulder, is pulled 28 cm forward; the pin's drift and the Solve's ms,
against the same constraint unflagged (a goal of the pin's weight, what the pin was);
(b) ``priority``: the left hand's goal (priority 0, reachable) beside a goal pulling the
elbow 40 cm away on the same chain (priority 1): the hand's miss over the arm's length,
and the Solve's ms, against both at priority 0;
(c) ``comfort``: the feet held, the left hand's goal on a chain to the root dragged 40 cm
forward and down (within the arm's reach) in N events with comfort 0, 0.5 and 1: the sum
of every bone's rotation off its rest pose outside the dragged arm at the end, the
largest residual over the arm's length, and ms per event (mean), and a Solve of the same
reach from rest;
(d) ``balance``: each foot's heel and toes held as contacts, the left hand's goal (chain
to the root) moved near (within the body's reach over its feet) or far (beyond it), with
balance off and on: whether the centre of mass ends over the support polygon and the
Solve's ms; a drag there in N events (ms per event); then the goal keyed to move there
over N frames and baked: the frames whose centre of mass is over the polygon, and ms per
baked frame;
(e) ``crouch``: Human Limits, each foot a contact (its sole held), the hips free to move,
with comfort 0 and 1 (the default): a Solve with the hips' goal
40 cm down and a drag of the hips' bone 35 cm down in N events; the trunk's lean, where
the knees point, the toes' height and the feet's turn on Blender's pose (measured as
``tests/addon/test_natural.py`` does), and the ms;
(f) ``reach``: as (e) with the left hand's goal (chain to the root) 80 cm out, or 50 cm
forward and 60 cm down, by a Solve: the worse knee's angle from the pelvis's front, the
larger twist of a thigh and of an upper arm (swing–twist, from rest), the larger turn of a
foot, and the ms;
(g) ``imported``: (e) on a Mixamo-named character as glTF's importer gives it back
(``tests/addon/imported_skeletons.py``: centimetres under a 0.01 scale, bones 100 times
their joints' spacing, a T-pose action), its hips 36 cm down by a Solve and 35 cm down by
a drag;
(h) ``held``: ``versus_ik``'s four-limb drag (both hands' goals at their tails and both
feet's, chains to the root; the left hand's goal dragged along a reachable path in steps of
2% of its limb) with comfort 0 and 1: per event, the largest turn of any bone (the angle
between its local rotations before and after the event) and of the held right arm's bones,
and the events that turn some bone by more than :data:`TURN`.

Results: ``bench/results/natural.json`` and ``natural.md``.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

import bpy
import numpy as np
from mathutils import Vector

from bench.blender import rigs, scenarios
from bench.blender.events import STEP
from bench.blender.poses import Poser
from bench.harness import ROOT, BenchmarkParser, Count, import_path, table, write_results
from bench.machine import about
from tests.fixtures.posture import (
    REACHES,
    Posture,
    Rest,
    bone_twist,
    degrees,
    knee_from_front,
    posture,
)

# tests/addon is not a package: its skeleton maker is loaded from its file, as those tests
# load it
imported_skeletons = import_path(
    "imported_skeletons", ROOT / "tests" / "addon" / "imported_skeletons.py"
)
CHARACTER = "mixamo_gltf"
"""(g): the imported character's kind."""

ARM = ("shoulder.L", "upper_arm.L", "forearm.L", "hand.L")
HELD = ("shoulder.R", "upper_arm.R", "forearm.R", "hand.R")
"""(h): the held right arm."""
TURN = 0.1
"""(h): a bone turning more than this in one drag event [rad] (5.7°) is counted."""
HELD_EVENTS = {False: 200, True: 60}
"""(h): the drag's events, by ``--quick``."""


def fresh(translate_root: bool = False) -> Any:
    """An empty scene with the basic human metarig made a figure (its hips free to move)."""
    bpy.ops.wm.read_homefile(use_empty=True)
    bpy.ops.object.armature_basic_human_metarig_add()
    obj = bpy.context.active_object
    bpy.ops.object.mode_set(mode="OBJECT")
    assert bpy.ops.reach.figure_from_armature(armature=obj.name, translate_root=translate_root) == {
        "FINISHED"
    }
    return obj


def add(obj: Any, bone: str, effector: str, chain: str, name: str, **options: Any) -> Any:
    """A constraint; returns its goal empty."""
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone=bone, effector=effector, chain_start=chain, name=name, **options
    ) == {"FINISHED"}
    return obj.reach.constraints[name].goal


def timed_solve(obj: Any) -> float:
    """ms of one Solve."""
    begin = time.perf_counter()
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    return 1e3 * (time.perf_counter() - begin)


def world(obj: Any, bone: str, end: str = "head") -> Vector:
    return obj.matrix_world @ getattr(obj.pose.bones[bone], end)


def pin_case(hard: bool) -> dict[str, Any]:
    """(a) the hand's head pinned, its tail pulled 28 cm forward."""
    obj = fresh()
    assert bpy.ops.reach.pin_bone(armature=obj.name, bone="hand.L") == {"FINISHED"}
    pin = next(c for c in obj.reach.constraints if c.pinned)
    pin.chain_start = "shoulder.L"
    pin.pinned = hard
    held = world(obj, "hand.L")
    goal = add(obj, "hand.L", "TAIL", "shoulder.L", "fingers")
    goal.location = Vector(goal.location) + Vector((0.0, -0.28, 0.0))
    ms = timed_solve(obj)
    return {"drift_m": (world(obj, "hand.L") - held).length, "solve_ms": ms}


def priority_case(levels: bool) -> dict[str, Any]:
    """(b) the hand at priority 0 beside the elbow pulled away at priority 1 (or 0)."""
    obj = fresh()
    hand = add(obj, "forearm.L", "TAIL", "shoulder.L", "hand")
    target = Vector(hand.location) + Vector((0.05, -0.2, 0.1))
    hand.location = target
    elbow = add(obj, "upper_arm.L", "TAIL", "shoulder.L", "elbow")
    elbow.location = Vector(elbow.location) + Vector((0.0, 0.4, -0.1))
    obj.reach.constraints["elbow"].priority = 1 if levels else 0
    ms = timed_solve(obj)
    arm = obj.data.bones["upper_arm.L"].length + obj.data.bones["forearm.L"].length
    miss = (world(obj, "forearm.L", "tail") - target).length
    return {"hand_miss_over_arm": miss / arm, "solve_ms": ms}


def reaching(comfort: float) -> tuple[Any, Any]:
    """(c) the feet held, the left hand's goal on a chain to the root."""
    obj = fresh()
    for side in ("L", "R"):
        add(obj, f"shin.{side}", "TAIL", f"thigh.{side}", f"foot.{side}")
    goal = add(obj, "forearm.L", "TAIL", "", "hand")
    obj.reach.comfort = comfort
    return obj, goal


def travel(obj: Any) -> float:
    """Σ rotation angle off rest outside the dragged arm [rad]."""
    return float(
        sum(b.matrix_basis.to_quaternion().angle for b in obj.pose.bones if b.name not in ARM)
    )


def comfort_case(comfort: float, events: int) -> dict[str, Any]:
    """(c) a drag of N events, then a Solve of the same reach from rest."""
    offset = np.array((0.0, -0.35, -0.2))
    obj, goal = reaching(comfort)
    start = np.array(goal.location)
    path = [
        {"name": "", "location": tuple(start + t * offset)}
        for t in np.linspace(0.0, 1.0, events + 1)[1:]
    ]
    assert bpy.ops.reach.drag_goal(armature=obj.name, goal=goal.name, path=path) == {"FINISHED"}
    arm = obj.data.bones["upper_arm.L"].length + obj.data.bones["forearm.L"].length
    drag = {
        "drag_travel_rad": travel(obj),
        "drag_ms": float(np.mean([e.milliseconds for e in obj.reach.drag_events])),
        "drag_residual_over_arm": max(e.residual for e in obj.reach.drag_events) / arm,
    }
    obj, goal = reaching(comfort)
    goal.location = Vector(start + offset)
    ms = timed_solve(obj)
    return {
        **drag,
        "solve_travel_rad": travel(obj),
        "solve_ms": ms,
        "verdict": obj.reach.stats.message,
    }


def held_case(reach: Any, comfort: float, events: int) -> dict[str, Any]:
    """(h) the four-limb drag of ``versus_ik`` with ``comfort``: each bone's turn per event.

    Dragged as a user's drag runs (``DragSession.step``); a bone's turn in an event is the
    angle between its local rotations before and after it, on Blender's pose.
    """
    scenario = scenarios.SCENARIOS["limbs"]
    obj = fresh()
    obj.reach.comfort = comfort
    rigs.constrain(obj, scenario.limbs)
    bpy.context.view_layer.update()
    rig = reach.addon.bridge.plain_rig.build_rig(obj)
    length = rigs.limb_length(obj, scenario.limb(scenario.dragged))
    path = Poser(obj, rig, scenario).drag_path(np.random.default_rng(0), events, STEP * length)
    goal = obj.reach.constraints[scenario.dragged].goal
    session = reach.addon.drag_session.DragSession(bpy.context, obj, goal)
    bones = obj.pose.bones

    def rotations() -> list[Any]:
        return [bone.matrix_basis.to_quaternion() for bone in bones]

    turns = []
    before = rotations()
    for point in path:
        session.step(point)
        after = rotations()
        turns.append([a.rotation_difference(b).angle for a, b in zip(before, after, strict=True)])
        before = after
    session.finish()
    turned = np.array(turns)
    held = [k for k, bone in enumerate(bones) if bone.name in HELD]
    worst = np.unravel_index(int(turned.argmax()), turned.shape)
    return {
        "events": len(path),
        "events_turning": int((turned > TURN).any(axis=1).sum()),
        "largest_rad": float(turned.max()),
        "largest_bone": bones[int(worst[1])].name,
        "largest_event": int(worst[0]) + 1,
        "held_largest_rad": float(turned[:, held].max()),
        "median_rad": float(np.median(turned.max(axis=1))),
    }


def standing(balance: bool) -> tuple[Any, Any]:
    """(d) heels and toes held as contacts, the left hand's goal on a chain to the root."""
    obj = fresh()
    for side in ("L", "R"):
        for bone in (f"toe.{side}", f"heel.02.{side}"):
            add(obj, bone, "TAIL", f"thigh.{side}", bone, contact=True)
    goal = add(obj, "forearm.L", "TAIL", "", "hand")
    obj.reach.balance = balance
    return obj, goal


def balanced(reach: Any, obj: Any) -> bool:
    """Whether the centre of mass on Blender's pose is over the support polygon."""
    return bool(reach.addon.overlay.overlay_geometry(obj).balanced)


BALANCE_REACHES = {"near": (0.0, -0.6, -0.45), "far": (0.3, -0.8, 0.0)}
"""(d) the left hand's goal's move [m]: 60 cm forward and 45 cm down, which the body can
reach over its feet; 80 cm forward and 30 cm out to the side at shoulder height, which tips
it over unless it leans back."""


def balance_case(reach: Any, balance: bool, where: str, frames: int) -> dict[str, Any]:
    """(d) a Solve, a drag of ``frames`` events, then a bake of the reach over ``frames`` frames."""
    move = Vector(BALANCE_REACHES[where])
    obj, goal = standing(balance)
    obj.reach.balance = True  # the polygon drawn, whether or not the solve keeps to it
    start = Vector(goal.location)
    goal.location = start + move
    obj.reach.balance = balance
    ms = timed_solve(obj)
    obj.reach.balance = True
    over = balanced(reach, obj)
    verdict = obj.reach.stats.message
    obj, goal = standing(balance)
    start = Vector(goal.location)
    path = [
        {"name": "", "location": tuple(start + float(t) * move)}
        for t in np.linspace(0.0, 1.0, frames + 1)[1:]
    ]
    assert bpy.ops.reach.drag_goal(armature=obj.name, goal=goal.name, path=path) == {"FINISHED"}
    drag_ms = float(np.mean([e.milliseconds for e in obj.reach.drag_events]))
    obj.reach.balance = True
    drag_over = balanced(reach, obj)
    obj, goal = standing(balance)
    start = Vector(goal.location)
    goal.keyframe_insert("location", frame=1)
    goal.location = start + move
    goal.keyframe_insert("location", frame=frames)
    begin = time.perf_counter()
    assert bpy.ops.reach.bake(armature=obj.name, frame_start=1, frame_end=frames) == {"FINISHED"}
    per_frame = 1e3 * (time.perf_counter() - begin) / frames
    obj.reach.balance = True
    kept = 0
    for frame in range(1, frames + 1):
        bpy.context.scene.frame_set(frame)
        kept += balanced(reach, obj)
    return {
        "solve_over": over,
        "solve_ms": ms,
        "verdict": verdict,
        "drag_ms": drag_ms,
        "drag_over": drag_over,
        "bake_over": kept,
        "bake_ms_per_frame": per_frame,
    }


def planted(comfort: float) -> tuple[Any, Rest]:
    """(e) Human Limits, each foot a contact (its sole held, chain from the thigh), the hips
    free to move; and the rest measures."""
    obj = fresh(translate_root=True)
    assert bpy.ops.reach.human_limits(armature=obj.name) == {"FINISHED"}
    for side in ("L", "R"):
        add(obj, f"foot.{side}", "TAIL", f"thigh.{side}", f"foot.{side}", contact=True)
    obj.reach.comfort = comfort
    return obj, Rest.of(obj)


def measured(obj: Any, found: Posture) -> dict[str, float]:
    """A posture's measures, the knees' worse, and the larger thigh twist (swing–twist)."""
    twists = [abs(bone_twist(obj, f"thigh.{side}")) for side in ("L", "R")]
    return {
        "lean_deg": found.lean,
        "knee_deg": max(found.knees),
        "toe_height_m": found.toes,
        "foot_turn_deg": found.feet,
        "thigh_twist_deg": max(twists),
    }


def crouch_case(comfort: float, events: int) -> dict[str, Any]:
    """(e) The hips lowered 40 cm by a Solve, then dragged 35 cm down by the bone."""
    obj, rest = planted(comfort)
    hips = add(obj, "spine", "HEAD", "", "hips")
    hips.location = Vector(hips.location) + Vector((0.0, 0.0, -0.4))
    ms = timed_solve(obj)
    solved = {
        **measured(obj, posture(obj, rest)),
        "solve_ms": ms,
        "verdict": obj.reach.stats.message,
    }
    obj, rest = planted(comfort)
    start = world(obj, "spine")
    path = [
        {"name": "", "location": start + Vector((0.0, 0.0, -0.35 * k / events))}
        for k in range(1, events + 1)
    ]
    assert bpy.ops.reach.drag_bone(armature=obj.name, bone="spine", effector="HEAD", path=path) == {
        "FINISHED"
    }
    dragged = measured(obj, posture(obj, rest))
    return {
        "solve": solved,
        "drag": {
            **dragged,
            "drag_ms": float(np.mean([e.milliseconds for e in obj.reach.drag_events])),
        },
    }


def reach_case(comfort: float, where: str) -> dict[str, Any]:
    """(f) A whole-body reach by a Solve, the feet planted as in (e)."""
    obj, rest = planted(comfort)
    feet = {side: world(obj, f"foot.{side}") for side in ("L", "R")}
    hand = add(obj, "hand.L", "TAIL", "", "hand")
    hand.location = Vector(hand.location) + Vector(REACHES[where])
    ms = timed_solve(obj)
    found = measured(obj, posture(obj, rest))
    arms = [abs(bone_twist(obj, f"upper_arm.{side}")) for side in ("L", "R")]
    moved = max((world(obj, f"foot.{s}") - feet[s]).length for s in ("L", "R"))
    return {
        **found,
        "knee_deg": max(k for k in found_knees(obj, rest)),
        "arm_twist_deg": max(arms),
        "foot_moved_m": moved,
        "solve_ms": ms,
        "verdict": obj.reach.stats.message,
    }


def found_knees(obj: Any, rest: Rest) -> list[float]:
    """Each knee's angle from the pelvis's front [°], 0 for a straight leg."""
    return [0.0 if np.isnan(k) else k for k in posture(obj, rest).knees]


def character(folder: Path, comfort: float) -> tuple[Any, dict[str, Any]]:
    """(g) The imported character with Human Limits, each foot a contact, its hips free to
    move; and its rest measures (trunk, feet, toe tips)."""
    bpy.ops.wm.read_homefile(use_empty=True)
    obj = imported_skeletons.append(folder / f"{CHARACTER}.blend")
    named = imported_skeletons.PREFIX
    assert bpy.ops.reach.figure_from_armature(armature=obj.name, translate_root=True) == {
        "FINISHED"
    }
    assert bpy.ops.reach.human_limits(armature=obj.name) == {"FINISHED"}
    for side in ("Left", "Right"):
        add(obj, f"{named}{side}Foot", "TAIL", f"{named}{side}UpLeg", side, contact=True)
    obj.reach.comfort = comfort
    return obj, character_pose(obj)


def character_pose(obj: Any) -> dict[str, Any]:
    """The character's trunk (hips to head), feet (world matrices) and toe tips' heights."""
    named, bones = imported_skeletons.PREFIX, obj.pose.bones
    toes = {}
    for side in ("Left", "Right"):
        toe = bones[f"{named}{side}ToeBase"]
        joints = toe.bone.head_local, bones[f"{named}{side}Foot"].bone.head_local
        spacing = (joints[0] - joints[1]).length  # a leaf ends its parent's spacing out
        tip = toe.head + (toe.tail - toe.head).normalized() * spacing
        toes[side] = float((obj.matrix_world @ tip).z)
    return {
        "trunk": np.array(world(obj, f"{named}Head") - world(obj, f"{named}Hips")),
        "feet": {s: obj.matrix_world @ bones[f"{named}{s}Foot"].matrix for s in ("Left", "Right")},
        "toes": toes,
    }


def character_measured(obj: Any, before: dict[str, Any]) -> dict[str, float]:
    """(g)'s measures of the character's pose against ``before`` (:func:`character_pose`)."""
    named, bones = imported_skeletons.PREFIX, obj.pose.bones
    now = character_pose(obj)
    hips = bones[f"{named}Hips"]
    turned = np.array(hips.matrix.to_3x3()) @ np.array(hips.bone.matrix_local.to_3x3()).T
    front = np.array(obj.matrix_world.to_3x3()) @ turned @ np.array((0.0, -1.0, 0.0))
    knees, turns = [], []
    for side in ("Left", "Right"):
        knee = knee_from_front(obj, front, f"{named}{side}UpLeg", f"{named}{side}Leg")
        knees.append(0.0 if np.isnan(knee) else knee)
        was, foot = before["feet"][side], now["feet"][side]
        turns.append(
            np.degrees(was.to_quaternion().rotation_difference(foot.to_quaternion()).angle)
        )
    twists = [abs(bone_twist(obj, f"{named}{side}UpLeg")) for side in ("Left", "Right")]
    return {
        "lean_deg": degrees(now["trunk"], before["trunk"]),
        "knee_deg": max(knees),
        "toe_height_m": min(now["toes"][s] - before["toes"][s] for s in ("Left", "Right")),
        "foot_turn_deg": float(max(turns)),
        "thigh_twist_deg": max(twists),
    }


def character_case(folder: Path, comfort: float, events: int) -> dict[str, Any]:
    """(g) The character's hips lowered 36 cm by a Solve, then dragged 35 cm down."""
    hips = f"{imported_skeletons.PREFIX}Hips"
    obj, before = character(folder, comfort)
    goal = add(obj, hips, "HEAD", "", "hips")
    goal.location = Vector(goal.location) + Vector((0.0, 0.0, -0.36))
    ms = timed_solve(obj)
    solved = {
        **character_measured(obj, before),
        "solve_ms": ms,
        "verdict": obj.reach.stats.message,
    }
    obj, before = character(folder, comfort)
    start = world(obj, hips)
    path = [
        {"name": "", "location": start + Vector((0.0, 0.0, -0.35 * k / events))}
        for k in range(1, events + 1)
    ]
    assert bpy.ops.reach.drag_bone(armature=obj.name, bone=hips, effector="HEAD", path=path) == {
        "FINISHED"
    }
    return {
        "solve": solved,
        "drag": {
            **character_measured(obj, before),
            "drag_ms": float(np.mean([e.milliseconds for e in obj.reach.drag_events])),
        },
    }


def posture_rows(cases: dict[float, dict[str, Any]]) -> list[list[str]]:
    """Table rows of (e) and (g): per comfort, the Solve and the drag."""
    return [
        [
            f"{share:g}",
            case,
            f"{v['lean_deg']:.1f}°",
            f"{v['knee_deg']:.1f}°",
            f"{1e3 * v['toe_height_m']:.2f} mm",
            f"{v['foot_turn_deg']:.2f}°",
            f"{v['thigh_twist_deg']:.1f}°",
            f"{v['solve_ms']:.1f} a Solve" if case == "Solve" else f"{v['drag_ms']:.2f} an event",
        ]
        for share, cases in cases.items()
        for case, v in (("Solve", cases["solve"]), ("drag", cases["drag"]))
    ]


POSTURE_HEADER = [
    "comfort",
    "case",
    "trunk lean",
    "knee from front",
    "toe height",
    "foot turn",
    "thigh twist",
    "ms",
]


def main() -> None:
    parser = BenchmarkParser(
        __doc__, "natural", "10 drag events", {"events": Count("events", 10, 30)}
    )
    args = parser.parse_args()
    reach = rigs.load_reach()
    try:
        pins = {"hard": pin_case(True), "soft": pin_case(False)}
        levels = {"levels": priority_case(True), "one level": priority_case(False)}
        comfort = {share: comfort_case(share, args.events) for share in (0.0, 0.5, 1.0)}
        balance = {
            (on, where): balance_case(reach, on, where, args.events)
            for where in BALANCE_REACHES
            for on in (False, True)
        }
        crouch = {share: crouch_case(share, args.events) for share in (0.0, 1.0)}
        reaches = {
            (share, where): reach_case(share, where) for share in (0.0, 1.0) for where in REACHES
        }
        with tempfile.TemporaryDirectory() as folder:
            imported_skeletons.make(Path(folder))
            imported = {
                share: character_case(Path(folder), share, args.events) for share in (0.0, 1.0)
            }
        held = {share: held_case(reach, share, HELD_EVENTS[args.quick]) for share in (0.0, 1.0)}
    finally:
        rigs.unload_reach()
    meta = {**about(), "blender": bpy.app.version_string}
    lines = [
        "# Natural poses: pins, priorities, comfort and balance",
        "",
        f"Blender {meta['blender']}, {meta['cpu_model']}; the basic human metarig, Reach's "
        "default method.",
        "",
        "(a) The left hand's head pinned while a goal on its tail (chain from the shoulder) "
        "is pulled 28 cm forward; *soft* is the same constraint not flagged a pin (a goal "
        "of the pin's weight).",
        "",
        *table(
            ["pin", "drift", "Solve ms"],
            [[k, f"{v['drift_m']:.2e} m", f"{v['solve_ms']:.1f}"] for k, v in pins.items()],
        ),
        "",
        "(b) The left hand's reachable goal at priority 0 beside a goal pulling the elbow "
        "40 cm away on the same chain at priority 1 (*levels*), or at 0 too (*one level*).",
        "",
        *table(
            ["priorities", "hand miss / arm", "Solve ms"],
            [
                [k, f"{v['hand_miss_over_arm']:.1e}", f"{v['solve_ms']:.1f}"]
                for k, v in levels.items()
            ],
        ),
        "",
        f"(c) The feet held, the left hand's goal (chain to the root) dragged 40 cm forward "
        f"and down in {args.events} events, then solved from rest; travel is the sum of "
        "every bone's rotation off rest outside the dragged arm.",
        "",
        *table(
            [
                "comfort",
                "drag travel",
                "drag ms/event",
                "largest residual / arm",
                "Solve travel",
                "Solve ms",
                "verdict",
            ],
            [
                [
                    f"{share:g}",
                    f"{v['drag_travel_rad']:.3f} rad",
                    f"{v['drag_ms']:.2f}",
                    f"{v['drag_residual_over_arm']:.1e}",
                    f"{v['solve_travel_rad']:.3f} rad",
                    f"{v['solve_ms']:.1f}",
                    v["verdict"],
                ]
                for share, v in comfort.items()
            ],
        ),
    ]
    lines += [
        "",
        "(d) Each foot's heel and toes held as contacts, the left hand's goal (chain to the "
        "root) moved *near* (60 cm forward and 45 cm down, which the body reaches over its "
        "feet) or *far* (80 cm forward and 30 cm to the side at shoulder height, which tips it "
        "over unless it leans back), with comfort 1 (the default): a Solve; a drag there in "
        f"{args.events} events; the goal keyed to move there over {args.events} frames and "
        "baked. *Over* says whether the centre of mass on Blender's pose is over the support "
        "polygon (the drag's at its end).",
        "",
        *table(
            [
                "reach",
                "balance",
                "Solve: over",
                "Solve ms",
                "drag: over",
                "drag ms/event",
                "bake: frames over",
                "bake ms/frame",
            ],
            [
                [
                    where,
                    "on" if on else "off",
                    "yes" if v["solve_over"] else "no",
                    f"{v['solve_ms']:.1f}",
                    "yes" if v["drag_over"] else "no",
                    f"{v['drag_ms']:.1f}",
                    f"{v['bake_over']} of {args.events}",
                    f"{v['bake_ms_per_frame']:.1f}",
                ]
                for (on, where), v in balance.items()
            ],
        ),
    ]
    lines += [
        "",
        "(e) Human Limits, each foot a contact (its sole held, chain from the thigh), the "
        "hips free to move: a Solve with the hips' goal 40 cm down, then the hips dragged "
        f"35 cm down by the bone in {args.events} events, with comfort 0 and 1 (the "
        "default). Measured on Blender's pose: the trunk's turn from rest, the worse "
        "knee's angle from the pelvis's front, the lower toe tip's height over the floor, "
        "the larger turn of a foot, the larger twist of a thigh (swing–twist, from rest).",
        "",
        *table(POSTURE_HEADER, posture_rows(crouch)),
    ]
    lines += [
        "",
        "(f) As (e), the left hand's goal (chain to the root) 80 cm out or 50 cm forward and "
        "60 cm down, by a Solve: the worse knee's angle from the pelvis's front, the larger "
        "twist of a thigh and of an upper arm (swing–twist, from rest; Human Limits bound "
        "them at 75° and 80°), the larger turn of a foot and how far a foot moved.",
        "",
        *table(
            [
                "comfort",
                "reach",
                "knee from front",
                "thigh twist",
                "upper-arm twist",
                "foot turn",
                "foot moved",
                "Solve ms",
                "verdict",
            ],
            [
                [
                    f"{share:g}",
                    where,
                    f"{v['knee_deg']:.1f}°",
                    f"{v['thigh_twist_deg']:.1f}°",
                    f"{v['arm_twist_deg']:.1f}°",
                    f"{v['foot_turn_deg']:.2f}°",
                    f"{1e3 * v['foot_moved_m']:.4f} mm",
                    f"{v['solve_ms']:.1f}",
                    v["verdict"],
                ]
                for (share, where), v in reaches.items()
            ],
        ),
        "",
        "(g) (e) on a Mixamo-named character as Blender's glTF importer gives it back "
        "(centimetres under a 0.01 scale, bones 100 times their joints' spacing, a T-pose "
        f"action): its hips 36 cm down by a Solve and 35 cm down in {args.events} drag "
        "events. The toe tip is where the toe ends on the body.",
        "",
        *table(POSTURE_HEADER, posture_rows(imported)),
        "",
        f"(h) `versus_ik`'s four-limb drag: both hands' goals at their tails and both feet's, "
        "chains to the root, the left hand's goal dragged along a reachable path in "
        f"{HELD_EVENTS[args.quick]} steps of {STEP:.0%} of its limb. A bone's turn in an event "
        "is the angle between its local rotations before and after it; the held arm is "
        f"the right one. Events turning: those that turn some bone by more than {TURN:g} rad.",
        "",
        *table(
            [
                "comfort",
                "events turning",
                "largest turn (bone, event)",
                "the held arm's largest",
                "median event's largest",
            ],
            [
                [
                    f"{share:g}",
                    f"{v['events_turning']} of {v['events']}",
                    f"{v['largest_rad']:.3f} rad ({v['largest_bone']}, {v['largest_event']})",
                    f"{v['held_largest_rad']:.3f} rad",
                    f"{v['median_rad']:.4f} rad",
                ]
                for share, v in held.items()
            ],
        ),
    ]
    for line in lines:
        print(line)
    record = {
        **meta,
        "pins": pins,
        "priorities": levels,
        "comfort": comfort,
        "balance": {f"{where} {'on' if on else 'off'}": v for (on, where), v in balance.items()},
        "crouch": {f"{share:g}": v for share, v in crouch.items()},
        "reach": {f"{share:g} {where}": v for (share, where), v in reaches.items()},
        "imported": {f"{share:g}": v for share, v in imported.items()},
        "held": {f"{share:g}": v for share, v in held.items()},
    }
    write_results(args.output, record, lines)


if __name__ == "__main__":
    main()
