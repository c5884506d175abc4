"""Control rigs Rigify generates, against their metarigs, in Blender.

    .venv-blender-5.0/bin/python -m bench.blender.control_rigs [--quick] [--events N]

Per Rigify kind with limbs and per mode (FK, IK): the generated
rig with one constraint on a limb's end control (head), dragged toward the limb's root
as a user's drag runs it (``DragSession.step``), beside the same drag on the metarig
(the metarig bone the skeleton bone copies, chain from the limb's first bone), in the
same process. The human rigs again with the chain from ``torso`` and *Move root* on
(the trunk's controls move too; on the metarig, from its root bone, which moves too).
The table: bones, ms per drag event (mean over the drag) on the rig and on the metarig
and their ratio, Blender evaluations of the armature per drag event, ms of Blender's own
evaluation after the dragged control moves by hand (timed between the drag's events) and
the event's ms over it, the largest residual on Blender's deform bones over the limb
(relative to its length) and the verdict. The rigs with a head again with a look-at on
``head`` dragged aside, its chain from ``neck``; tails and jaws likewise. Then a Solve
with a constraint on each of the four IK end controls of the human rigs, and with a
look-at on the head too. Results:
``bench/results/control_rigs.json`` and ``control_rigs.md``.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from typing import Any

import bpy
import numpy as np
from mathutils import Euler, Matrix

from bench.blender import rigs
from bench.harness import BenchmarkParser, Count, table, write_results
from bench.machine import about

LIMBS = {
    # kind: (limb, FK end control, IK end control)
    "basic_human": ("upper_arm.L", "hand_fk.L", "hand_ik.L"),
    "human": ("thigh.L", "foot_fk.L", "foot_ik.L"),
    "basic_quadruped": ("front_thigh.L", "front_foot_fk.L", "front_foot_ik.L"),
    "cat": ("upper_arm.L", "hand_fk.L", "hand_ik.L"),
    "wolf": ("thigh.L", "foot_fk.L", "foot_ik.L"),
    "horse": ("thigh.L", "hind_foot_fk.L", "hind_foot_ik.L"),
    "bird": ("thigh.L", "foot_fk.L", "foot_ik.L"),
}


def generated(kind: str) -> tuple[Any, Any]:
    """A fresh file with Rigify's ``kind`` metarig and the rig generated from it."""
    bpy.ops.wm.read_homefile(use_empty=True)
    getattr(bpy.ops.object, f"armature_{kind}_metarig_add")()
    metarig = bpy.context.active_object
    bpy.ops.object.mode_set(mode="OBJECT")
    bpy.ops.pose.rigify_generate()
    rig = bpy.context.active_object
    bpy.ops.object.mode_set(mode="OBJECT")
    return metarig, rig


Run = Callable[[Any, Any, Any, list[Any], str], dict]
"""(reach, armature, goal, places, the control moved by hand) ↦ what a drag measured
(:func:`dragged`'s)."""


def drag(
    reach: Any,
    obj: Any,
    bone: str,
    chain_start: str,
    root: str,
    events: int,
    move_root: bool,
    run: Run | None = None,
) -> dict:
    """Constrain ``bone``'s head, drag its goal a fifth of the way to ``root``'s head.

    ``run``: what drags it and measures (None: :func:`dragged`).
    """
    made = bpy.ops.reach.figure_from_armature(armature=obj.name, translate_root=move_root)
    assert made == {"FINISHED"}
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone=bone, effector="HEAD", chain_start=chain_start, name="end"
    ) == {"FINISHED"}
    goal = obj.reach.constraints["end"].goal
    start = goal.location.copy()
    target = obj.matrix_world @ obj.pose.bones[root].head
    places = [start.lerp(target, 0.2 * k / events) for k in range(1, events + 1)]
    return (run or dragged)(reach, obj, goal, places, bone)


def dragged(reach: Any, obj: Any, goal: Any, places: list[Any], hand: str) -> dict:
    """``goal`` dragged through ``places`` as a user's drag runs (``DragSession.step``):
    ms per event (mean), the rig's evaluations per event, the largest residual, the
    verdict and the armature's bones; and, between the events, Blender's own evaluation
    of the rig after control ``hand`` moved by hand (:func:`hand_moved`, mean), so that
    both are measured in the same moments of the machine. The handler counting the
    evaluations runs inside the events; its own time is taken out of theirs."""
    session = reach.addon.drag_session.DragSession(bpy.context, obj, goal)
    counts: dict[str, Any] = {}
    handler = count_evaluations(counts)
    times, floors, residuals = [], [], []
    for place in places:
        bpy.app.handlers.depsgraph_update_post.append(handler)
        counts["seconds"] = 0.0
        begin = time.perf_counter()
        stats = session.step(place)
        times.append(1e3 * (time.perf_counter() - begin - counts["seconds"]))
        bpy.app.handlers.depsgraph_update_post.remove(handler)
        residuals.append(stats.residual)
        floors.append(hand_moved(obj, hand))
    session.finish()
    return {
        "mean_ms": float(np.mean(times)),
        "evaluation_ms": float(np.mean(floors)),
        "evaluations": counts.get(obj.name, 0) / len(places),
        "residual": max(residuals),
        "verdict": obj.reach.stats.message,
        "bones": len(obj.data.bones),
    }


def hand_moved(obj: Any, bone: str) -> float:
    """Ms Blender takes to evaluate ``obj`` after ``bone`` moved by hand (its location
    along X changed by 0.1 mm, as a grab of that control changes it), Reach's own
    depsgraph handlers set aside (they are Reach's cost, not Blender's); the bone is then
    put back and the rig evaluated again, untimed, so the drag goes on from its own pose."""
    with handlers_aside():
        pose_bone = obj.pose.bones[bone]
        start = pose_bone.location.x
        pose_bone.location.x = start + 1e-4
        begin = time.perf_counter()
        bpy.context.view_layer.update()
        taken = 1e3 * (time.perf_counter() - begin)
        pose_bone.location.x = start
        bpy.context.view_layer.update()
    return taken


@contextlib.contextmanager
def handlers_aside() -> Iterator[None]:
    """Reach's depsgraph handlers set aside while the block runs (they are Reach's cost,
    not Blender's evaluation's)."""
    handlers = bpy.app.handlers.depsgraph_update_post
    reach = [h for h in handlers if "reach" in getattr(h, "__module__", "")]
    for handler in reach:
        handlers.remove(handler)
    try:
        yield
    finally:
        handlers.extend(reach)


def count_evaluations(counts: dict[str, Any]) -> Any:
    """A depsgraph handler counting, per armature object, the updates that evaluated it,
    and adding its own time to ``counts["seconds"]``."""

    def counted(_scene: Any, depsgraph: Any) -> None:
        begin = time.perf_counter()
        for update in depsgraph.updates:
            if isinstance(update.id, bpy.types.Object) and update.id.type == "ARMATURE":
                counts[update.id.name] = counts.get(update.id.name, 0) + 1
        counts["seconds"] = counts.get("seconds", 0.0) + time.perf_counter() - begin

    return counted


TRUNK_KINDS = ("basic_human", "human")
"""The kinds also dragged with the chain from ``torso`` (on the metarig: from its root)."""


def switched(reach: Any, kind: str, mode: str) -> tuple[Any, Any, Any, str]:
    """Rigify's ``kind`` metarig and rig, its limb of :data:`LIMBS` switched to ``mode``
    (FK or IK), the limb, and the end control a drag of that mode moves."""
    name, fk_end, ik_end = LIMBS[kind]
    metarig, rig = generated(kind)
    limb = next(x for x in reach.addon.bridge.control_rig.limbs.find_limbs(rig) if x.name == name)
    rig.pose.bones[limb.settings][limb.switch] = 1.0 if mode == "FK" else 0.0
    rig.update_tag()
    bpy.context.view_layer.update()
    return metarig, rig, limb, fk_end if mode == "FK" else ik_end


def measure(reach: Any, kind: str, mode: str, events: int, trunk: bool = False) -> dict[str, Any]:
    name = LIMBS[kind][0]
    metarig, rig, limb, end = switched(reach, kind, mode)
    plain = [b.removeprefix("ORG-") for b in limb.bones]
    length = sum(rig.data.bones[b].length for b in limb.bones[: limb.chain_end])
    on_rig = drag(reach, rig, end, "torso" if trunk else "", limb.bones[0], events, trunk)
    start = next(b.name for b in metarig.data.bones if b.parent is None) if trunk else plain[0]
    on_meta = drag(reach, metarig, plain[limb.chain_end], start, plain[0], events, trunk)
    what = (kind, mode, name + (", from torso" if trunk else ""))
    return record(what, on_rig, on_meta, length)


def record(
    what: tuple[str, str, str], on_rig: dict, on_meta: dict, length: float
) -> dict[str, Any]:
    """One row: ``what`` (kind, mode, limb) dragged on the rig and on its metarig."""
    kind, mode, limb = what
    return {
        "rig": kind,
        "mode": mode,
        "limb": limb,
        "bones": on_rig["bones"],
        "metarig_bones": on_meta["bones"],
        "rig_ms": on_rig["mean_ms"],
        "metarig_ms": on_meta["mean_ms"],
        "ratio": on_rig["mean_ms"] / on_meta["mean_ms"],
        "over_evaluation": on_rig["mean_ms"] / on_rig["evaluation_ms"],
        "rig_evaluations": on_rig["evaluations"],
        "metarig_evaluations": on_meta["evaluations"],
        "rig_evaluation_ms": on_rig["evaluation_ms"],
        "metarig_evaluation_ms": on_meta["evaluation_ms"],
        "residual_over_limb": on_rig["residual"] / length,
        "verdict": on_rig["verdict"],
    }


HEAD_KINDS = ("basic_human", "human", "wolf", "horse", "cat", "bird")
"""The kinds whose head is also dragged: a look-at on ``head``, its chain from ``neck``."""


def drag_look(
    reach: Any, obj: Any, bone: str, chain_start: str, events: int, run: Run | None = None
) -> dict:
    """A look-at on ``bone``, its goal 1 m along the bone tilted 30° forward (solved for
    before the drag), dragged 40° aside about the world's Z: an upright head's own axis
    would hardly move so. ``run``: as :func:`drag`'s."""
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone=bone, goal_type="AIM", chain_start=chain_start, name="look"
    ) == {"FINISHED"}
    pose_bone = obj.pose.bones[bone]
    root = obj.matrix_world @ pose_bone.head
    axis = (obj.matrix_world.to_3x3() @ (pose_bone.tail - pose_bone.head)).normalized()
    axis = Matrix.Rotation(0.52, 3, "X") @ axis  # tilted toward the front (-Y)
    goal = obj.reach.constraints["look"].goal
    goal.location = root + axis
    bpy.context.view_layer.update()
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    turns = (Matrix.Rotation(0.7 * k / events, 3, "Z") for k in range(1, events + 1))
    return (run or dragged)(reach, obj, goal, [root + turn @ axis for turn in turns], bone)


def measure_look(reach: Any, kind: str, events: int) -> dict[str, Any]:
    """The head's look-at dragged on the rig, and on the metarig's head bone (its chain
    from the neck's first bone: up while each parent has one child)."""
    metarig, rig = generated(kind)
    on_rig = drag_look(reach, rig, "head", "neck", events)
    copier = next(
        b.name
        for b in rig.pose.bones
        if b.name.startswith("ORG-")
        and any(c.type == "COPY_TRANSFORMS" and c.subtarget == "head" for c in b.constraints)
    )
    head = metarig.data.bones[copier.removeprefix("ORG-")]
    start = head.parent
    while start.parent is not None and len(start.parent.children) == 1:
        start = start.parent
    on_meta = drag_look(reach, metarig, head.name, start.name, events)
    length = sum(rig.data.bones[b].length for b in ("neck", "head"))
    return record((kind, "look-at", "head, from neck"), on_rig, on_meta, length)


TAIL_KINDS = ("wolf", "horse", "cat", "bird")
"""The kinds whose tail is also dragged: a goal on the deform tip, its chain the tail's."""


def tail_tip(reach: Any, rig: Any) -> tuple[Any, str, str]:
    """The rig's tail (the longest chain of curled controls Reach finds), its deform tip
    bone and the end of it at the tip (HEAD or TAIL)."""
    model = reach.addon.bridge.control_rig.model.control_model(rig)
    tail = max((end for end in model.ends if end.curls), key=lambda end: len(end.controls))
    tip = rig.pose.bones[tail.controls[-1]]
    deform = next(c for c, k in tail.copies if k == tip.name and c.startswith("DEF-"))
    bone = rig.pose.bones[deform]
    near_head = (bone.head - tip.tail).length < (bone.tail - tip.tail).length
    return tail, deform, "HEAD" if near_head else "TAIL"


def drag_tip(
    reach: Any,
    obj: Any,
    bone: str,
    effector: str,
    chain_start: str,
    base: Any,
    hand: str,
    events: int,
) -> dict:
    """A goal on ``bone``'s ``effector``, swung 40° aside and 23° down about ``base``;
    ``hand``: the control moved by hand (:func:`hand_moved`)."""
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone=bone, effector=effector, chain_start=chain_start, name="tip"
    ) == {"FINISHED"}
    goal = obj.reach.constraints["tip"].goal
    out = goal.location - base
    turns = (Euler((-0.4 * k / events, 0.0, 0.7 * k / events)) for k in range(1, events + 1))
    return dragged(reach, obj, goal, [base + turn.to_matrix() @ out for turn in turns], hand)


def measure_tail(reach: Any, kind: str, events: int) -> dict[str, Any]:
    """The tail's tip dragged on the rig (through its FK controls), and the same bones'
    tip on the metarig (its chain from the tail's first bone)."""
    metarig, rig = generated(kind)
    tail, deform, effector = tail_tip(reach, rig)
    base = rig.matrix_world @ rig.pose.bones[tail.controls[0]].head
    on_rig = drag_tip(reach, rig, deform, effector, "", base, tail.controls[-1], events)
    first = next(c for c, k in tail.copies if k == tail.controls[0] and c.startswith("DEF-"))
    tip, start = deform.removeprefix("DEF-"), first.removeprefix("DEF-")
    on_meta = drag_tip(reach, metarig, tip, effector, start, base, tip, events)
    length = sum(rig.data.bones[b].length for b in tail.controls)
    chain = f"tail tip, from {tail.controls[0]}"
    return record((kind, "tail", chain), on_rig, on_meta, length)


JAW_KINDS = {"human": "jaw_master", "wolf": "jaw_master", "cat": "jaw_master", "horse": "jaw"}
"""The kinds whose jaw is also dragged (a goal on the deform jaw's tail, the chin), and
the jaw's control."""


def drag_chin(reach: Any, obj: Any, bone: str, chain_start: str, pivot: Any, events: int) -> dict:
    """A goal on ``bone``'s tail, swung 25° down about world X through ``pivot``; the
    chain's start is the control moved by hand (:func:`hand_moved`)."""
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone=bone, effector="TAIL", chain_start=chain_start, name="chin"
    ) == {"FINISHED"}
    goal = obj.reach.constraints["chin"].goal
    out = goal.location - pivot
    turns = (Matrix.Rotation(0.44 * k / events, 3, "X") for k in range(1, events + 1))
    return dragged(reach, obj, goal, [pivot + turn @ out for turn in turns], chain_start)


def measure_jaw(reach: Any, kind: str, events: int) -> dict[str, Any]:
    """The chin dragged open on the rig (``DEF-jaw``, through the jaw master's hinge),
    and on the metarig's jaw bone (its chain itself)."""
    metarig, rig = generated(kind)
    jaw = JAW_KINDS[kind]
    pivot = rig.matrix_world @ rig.pose.bones[jaw].head
    on_rig = drag_chin(reach, rig, "DEF-jaw", jaw, pivot, events)
    on_meta = drag_chin(reach, metarig, "jaw", "jaw", pivot, events)
    length = rig.data.bones["DEF-jaw"].length
    return record((kind, "hinge", f"jaw, from {jaw}"), on_rig, on_meta, length)


def solve_four_limbs(reach: Any, kind: str, repeats: int, head: bool = False) -> dict[str, Any]:
    """Solve with a constraint on each IK end control (arms and legs, IK mode), timed;
    ``head``: and a look-at on ``head``, its chain from ``neck``, its goal turned 29° aside
    and 17° up from the head's axis."""
    _, rig = generated(kind)
    assert bpy.ops.reach.figure_from_armature(armature=rig.name) == {"FINISHED"}
    ends = ("hand_ik.L", "hand_ik.R", "foot_ik.L", "foot_ik.R")
    starts, roots = {}, {}
    limbs = reach.addon.bridge.control_rig.limbs.find_limbs(rig)
    for end in ends:
        assert bpy.ops.reach.add_constraint(
            armature=rig.name, bone=end, effector="HEAD", name=end
        ) == {"FINISHED"}
        starts[end] = rig.reach.constraints[end].goal.location.copy()
        root = next(limb.bones[0] for limb in limbs if limb.ik_controls[0] == end)
        roots[end] = rig.matrix_world @ rig.pose.bones[root].head
    look = None
    if head:
        assert bpy.ops.reach.add_constraint(
            armature=rig.name, bone="head", chain_start="neck", goal_type="AIM", name="look"
        ) == {"FINISHED"}
        bone = rig.pose.bones["head"]
        axis = (rig.matrix_world.to_3x3() @ (bone.tail - bone.head)).normalized()
        aim = Matrix.Rotation(0.5, 3, "Z") @ Matrix.Rotation(-0.3, 3, "X") @ axis
        look = rig.reach.constraints["look"].goal
        look.location = rig.matrix_world @ bone.head + aim.normalized()
    times = []
    for k in range(repeats):
        for end in ends:  # each goal a little closer to its limb's root: the limbs bend
            goal = rig.reach.constraints[end].goal
            goal.location = starts[end].lerp(roots[end], 0.04 * (k + 1))
        if look is not None:  # and the head's goal a little aside
            look.location.x += 0.01
        bpy.context.view_layer.update()
        begin = time.perf_counter()
        assert bpy.ops.reach.solve(armature=rig.name) == {"FINISHED"}
        times.append(1e3 * (time.perf_counter() - begin))
    return {
        "rig": kind + (", and the head" if head else ""),
        "bones": len(rig.data.bones),
        "median_solve_ms": float(np.median(times)),
        "verdict": rig.reach.stats.message,
    }


def main() -> None:
    parser = BenchmarkParser(
        __doc__, "control_rigs", "10 drag events", {"events": Count("events", 10, 40)}
    )
    args = parser.parse_args()
    reach = rigs.load_reach()
    reach.solver.kernel.loading.status()  # loaded now, not inside the first row's drag
    started = time.perf_counter()
    try:
        records = [
            measure(reach, kind, mode, args.events) for kind in LIMBS for mode in ("FK", "IK")
        ]
        records += [
            measure(reach, kind, mode, args.events, trunk=True)
            for kind in TRUNK_KINDS
            for mode in ("FK", "IK")
        ]
        records += [measure_look(reach, kind, args.events) for kind in HEAD_KINDS]
        records += [measure_tail(reach, kind, args.events) for kind in TAIL_KINDS]
        records += [measure_jaw(reach, kind, args.events) for kind in JAW_KINDS]
        solves = [solve_four_limbs(reach, kind, 5) for kind in ("basic_human", "human")]
        solves += [solve_four_limbs(reach, kind, 5, head=True) for kind in ("basic_human", "human")]
    finally:
        rigs.unload_reach()
    meta = {
        **about(),
        "quick": args.quick,
        "blender": bpy.app.version_string,
        "events": args.events,
        "wall_s": round(time.perf_counter() - started, 1),
    }
    rows = [
        [
            f"{r['rig']} ({r['limb']}, {r['mode']})",
            f"{r['bones']} / {r['metarig_bones']}",
            f"{r['rig_ms']:.2f} / {r['metarig_ms']:.2f}",
            f"{r['ratio']:.2f}",
            f"{r['over_evaluation']:.2f}",
            f"{r['rig_evaluations']:.2f} / {r['metarig_evaluations']:.2f}",
            f"{r['rig_evaluation_ms']:.2f} / {r['metarig_evaluation_ms']:.2f}",
            f"{r['residual_over_limb']:.1e}",
            r["verdict"],
        ]
        for r in records
    ]
    columns = [
        "rig (limb, mode)",
        "bones (rig / metarig)",
        "ms per drag event (rig / metarig)",
        "ratio",
        "× one evaluation",
        "evaluations per event (rig / metarig)",
        "one evaluation ms (rig / metarig)",
        "residual / limb",
        "verdict",
    ]
    lines = [
        "# Control rigs against their metarigs",
        "",
        f"Blender {meta['blender']}, {meta['cpu_model']}, {args.events} drag events per row; "
        "one constraint on the limb's end control, dragged a fifth of the way to the "
        "limb's root; the same drag on the metarig in the same process; ms per event is "
        "the mean over the drag (the bench's handler counting evaluations taken out); "
        "residuals on Blender's deform bones. Evaluations per "
        "event: Blender's updates of the armature (a paw in IK mode needs a second one "
        "whenever its heel, led from its last writes, misses after the first, and "
        "whenever its leg's plane, swung by Blender's IK, is turned back with its heel). One "
        "evaluation: Blender's own update of the armature after the dragged control (on the "
        "metarig: the constrained bone) moved 0.1 mm by hand after each drag event and put "
        "back, Reach's depsgraph handlers set aside (mean over the drag, timed between its "
        "events so that both are measured alike); "
        "× one evaluation: the rig's ms per event over it (Blender's own cost of a "
        "hand-moved control is the floor). The head rows: a look-at on `head`, its chain "
        "from `neck`, its goal 1 m along the head tilted 30° forward, dragged 40° aside "
        "(on the metarig: the head bone, from the neck's first). The "
        "tail rows: a goal on the deform tip, swung 40° aside and 23° down. The jaw rows: "
        "a goal on `DEF-jaw`'s tail swung 25° open about the jaw control's head (on the "
        "metarig: the `jaw` bone).",
        "",
        *table(columns, rows),
        "",
        "Solve (`reach.solve`, restarts as set) with a constraint on each IK end control "
        "(both hands and feet, IK mode), each goal moved toward its limb's root, median of 5; "
        "the rows with the head add a look-at on `head`, its chain from `neck`, its goal "
        "moved 1 cm aside each time:",
        "",
        *table(
            ["rig", "bones", "ms per Solve", "verdict"],
            [[r["rig"], r["bones"], f"{r['median_solve_ms']:.1f}", r["verdict"]] for r in solves],
        ),
    ]
    for line in lines:
        print(line)
    write_results(args.output, {**meta, "rigs": records, "solves": solves}, lines)


if __name__ == "__main__":
    main()
