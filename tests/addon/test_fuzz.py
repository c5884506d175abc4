"""Every ``reach.*`` operator, driven with random names, NaNs, infinities, zero and huge
scales, deleted and renamed objects and bones (a fixed seed): no Python traceback ever
reaches the user, a failure leaves every pose channel and goal transform as it was, bit
for bit, and a solve or drag that says its constraints are met has met them on the pose
Blender shows."""

from __future__ import annotations

import math
import random

import bpy
import numpy as np
import rigs
from mathutils import Vector
from rigs import four_limbs

SEED = 12
STEPS = 1500
RESET_EVERY = 20
NUMBERS = (math.nan, math.inf, -math.inf, 0.0, -0.0, 1e30, -1e-30, 1.0, 0.5, -2.0)
FAULT = "Reach failed on an error of its own"


def number(rng):
    return rng.choice(NUMBERS) if rng.random() < 0.6 else rng.gauss(0.0, 1.0)


def vector(rng, size):
    return tuple(number(rng) for _ in range(size))


def name(rng, obj):
    """An existing bone's name, a name nothing has, or a strange one."""
    choices = ["", "nobody", "ü名 " * 3, "x" * 63, ".001", "Goal hand.L"]
    if obj is not None and obj.name in bpy.data.objects:
        choices += [b.name for b in obj.data.bones] * 3
        choices += [c.name for c in obj.reach.constraints] + [g.name for g in obj.reach.groups]
    return rng.choice(choices)


def objects():
    return [o for o in bpy.data.objects]


def state():
    """Every pose channel of every armature and every object's transform channels, as hex."""
    result = {}
    for o in objects():
        channels = (*o.location, *o.rotation_euler, *o.rotation_quaternion, *o.scale)
        result[o.name] = (o.rotation_mode, *(float(v).hex() for v in channels))
        if o.type == "ARMATURE":
            result[o.name + " pose"] = rigs.pose_channels(o)
    return result


def mutate(rng, obj):
    """One random change a user (or a script) might make."""
    goals = [o for o in objects() if o.type == "EMPTY"]
    bones = obj.pose.bones if obj.name in bpy.data.objects else []
    kind = rng.randrange(12)
    if kind == 0 and goals:
        rng.choice(goals).location = vector(rng, 3)
    elif kind == 1 and goals:
        rng.choice(goals).scale = rng.choice([(0.0, 0.0, 0.0), (1e30,) * 3, vector(rng, 3)])
    elif kind == 2:
        obj.location = vector(rng, 3)
    elif kind == 3:
        obj.scale = rng.choice([(0.0,) * 3, (1e30,) * 3, (2.0, 1.0, 1.0), (1.0, 1.0, 1.0)])
    elif kind == 4 and bones:
        bone = rng.choice(bones)
        bone.rotation_mode = rng.choice(["QUATERNION", "AXIS_ANGLE", "XYZ", "ZXY"])
        channel = rng.choice(["rotation_quaternion", "rotation_axis_angle"])
        setattr(bone, channel, rng.choice([(0.0,) * 4, vector(rng, 4)]))
    elif kind == 5 and bones:
        bone = rng.choice(bones)
        setattr(bone, rng.choice(["rotation_euler", "location", "scale"]), vector(rng, 3))
    elif kind == 6 and goals:
        bpy.data.objects.remove(rng.choice(goals))
    elif kind == 7 and bones:
        rng.choice(obj.data.bones).name = name(rng, obj) or "renamed"
    elif kind == 8:
        obj.name = rng.choice(["metarig", "Hero", "Goal hand.L"])
    elif kind == 9 and obj.reach.constraints:
        entry = rng.choice(obj.reach.constraints)
        setting = rng.choice(["weight", "angle_length", "w_position", "angle_degrees"])
        setattr(entry, setting, number(rng))
        entry.offset = vector(rng, 3)
        entry.effector = rng.choice(["HEAD", "TAIL", "OFFSET"])
        entry.name = name(rng, obj) or "renamed"
    elif kind == 10:
        for joint in obj.reach.joints:
            for vertex in joint.polygon:
                vertex.value = vector(rng, 2)
        for group in obj.reach.groups:
            for member in group.members:
                member.ratio = number(rng)
                member.bone = name(rng, obj)
    else:
        obj.reach.translate_root = rng.random() < 0.5
        obj.reach.comfort = rng.choice([0.0, 0.0, 0.5, 1.0])
        obj.reach.balance = rng.random() < 0.3
        obj.reach.balance_margin = rng.choice([0.0, 0.0, 0.01, 5.0])
        for entry in obj.reach.constraints:
            entry.priority = rng.choice([0, 0, 1])
            entry.contact = rng.random() < 0.5
    bpy.context.view_layer.update()


def options(rng, idname, obj):
    """Random arguments for operator ``idname``."""
    strange = rng.choice(["", "nobody", "Goal hand.L"])
    chosen = {"armature": obj.name if rng.random() < 0.85 else strange}
    goals = [o.name for o in objects() if o.type == "EMPTY"] + ["", "nobody"]
    if idname in {"add_constraint", "group_member_add", "polygon_add_vertex", "forget_bone"}:
        chosen["bone"] = name(rng, obj)
    if idname in {"polygon_remove_vertex", "polygon_clear", "follower_add"}:
        chosen["bone"] = name(rng, obj)
    if idname == "follower_add":
        chosen["control"] = name(rng, obj)
    if idname == "add_constraint":
        chosen.update(
            goal=rng.choice(goals),
            goal_type=rng.choice(["POSITION", "ORIENTATION", "AIM", "PLANE", "HALF_SPACE"]),
            effector=rng.choice(["HEAD", "TAIL", "OFFSET"]),
            offset=vector(rng, 3),
            chain_start=name(rng, obj),
            weight=abs(number(rng)) if rng.random() < 0.5 else 1.0,
            name=name(rng, obj),
        )
    if idname in {"remove_constraint"}:
        chosen.update(constraint=name(rng, obj), delete_goal=rng.random() < 0.5)
    if idname in {"group_remove", "group_member_add", "group_member_remove", "group_add"}:
        chosen["group" if idname != "group_add" else "name"] = name(rng, obj)
    if idname in {"group_member_remove", "polygon_remove_vertex", "follower_remove"}:
        chosen["index"] = rng.choice([-1, 0, 1, 7, -5])
    if idname == "group_member_add":
        chosen["ratio"] = number(rng)
    if idname == "solve":
        chosen["clamp"] = rng.random() < 0.5
    if idname == "drag_goal":
        chosen["goal"] = rng.choice(goals)
    if idname == "drag_bone":
        chosen.update(
            bone=name(rng, obj),
            effector=rng.choice(["HEAD", "TAIL"]),
            chain_start=name(rng, obj) if rng.random() < 0.3 else "",
            pin=rng.random() < 0.3,
        )
    if idname in {"drag_goal", "drag_bone"}:
        chosen["path"] = [{"name": "", "location": vector(rng, 3)} for _ in range(rng.randrange(4))]
    return chosen


def misses(reach, obj):
    """The enabled constraints the sidebar counts as met but Blender's pose misses.

    Each point goal is measured here on the evaluated bones, apart from Reach's own
    measure: the effector's world point against the goal empty's point, line or plane.
    """
    bpy.context.view_layer.update()
    unmet = set(filter(None, obj.reach.stats.unmet.split(", ")))  # names may end in spaces
    world = obj.matrix_world
    found = []
    for entry in obj.reach.constraints:
        goal = entry.goal
        if not entry.enabled or entry.name in unmet or goal is None or entry.any_of:
            continue
        bone = obj.pose.bones[entry.bone]
        tail = reach.addon.bridge.bone_ends.end_local(bone.bone)  # where Reach's tail sits
        local = {"HEAD": Vector(), "TAIL": tail}.get(entry.effector, Vector(entry.offset))
        point = np.array(world @ bone.matrix @ local, dtype=float)  # no float32 overflow
        frame = np.array(goal.matrix_world, dtype=float)
        target, axis = frame[:3, 3], frame[:3, 2] / np.linalg.norm(frame[:3, 2])
        offset = point - target
        gap = {
            "POSITION": np.linalg.norm(offset),
            "LINE": np.linalg.norm(offset - (offset @ axis) * axis),
            "PLANE": abs(offset @ axis),
            "HALF_SPACE": max(0.0, -(offset @ axis)),
        }.get(entry.goal_type)
        size = max(1.0, float(np.max(np.abs(point))), float(np.max(np.abs(target))))
        if gap is not None and gap > obj.reach.reach_distance + 1e-5 * size:
            found.append((entry.name, entry.goal_type, float(gap)))
    return found


def call(idname, chosen):
    """Run the operator; its result, or the error text it reported."""
    try:
        return getattr(bpy.ops.reach, idname)(**chosen)
    except (RuntimeError, TypeError, ValueError) as error:  # TypeError: a bad argument type
        return str(error)


def test_no_operator_shows_a_traceback_or_loses_state(reach):
    rng = random.Random(SEED)
    idnames = sorted(
        cls.bl_idname.split(".")[1]
        for cls in reach.addon.registration.classes
        if getattr(cls, "bl_idname", "").startswith("reach.")
    )
    assert {"solve", "drag_goal", "live", "figure_from_armature", "forget_bone"} <= set(idnames)
    obj = None
    counts = {"finished": 0, "refused": 0, "judged": 0}
    for step in range(STEPS):
        if step % RESET_EVERY == 0:
            reach.addon.live.stop()
            bpy.ops.wm.read_homefile(use_empty=True)
            obj = four_limbs()
        if rng.random() < 0.3:
            mutate(rng, obj)
        # every operator alike, and solves and drags more often: enough verdicts to judge
        idname = rng.choice(idnames if rng.random() < 0.8 else ["solve", "drag_goal", "drag_bone"])
        chosen = options(rng, idname, obj)
        before = state()
        if obj.name in bpy.data.objects:
            obj.reach.stats.message = ""  # set again only by a solve that ran
        result = call(idname, chosen)
        if idname == "live" and result == {"FINISHED"}:
            reach.addon.live.stop()
        where = f"step {step}: reach.{idname}({chosen}) -> {result}"
        if isinstance(result, str):
            assert "Traceback" not in result and FAULT not in result, where
            assert "Error: " in result or "poll() failed" in result, where
            assert state() == before, where
            counts["refused"] += 1
        else:
            assert result <= {"FINISHED", "CANCELLED"}, where
            if "CANCELLED" in result:
                assert state() == before, where
            elif idname in {"solve", "drag_goal", "drag_bone"} and obj.reach.stats.message:
                missed = misses(reach, obj)
                assert not missed, f"{where}: {obj.reach.stats.message!r}, yet missed {missed}"
                counts["judged"] += 1
            counts["finished" if "FINISHED" in result else "refused"] += 1
    assert counts["finished"] >= STEPS // 4, counts  # enough get through to act
    assert counts["judged"] >= STEPS // 30, counts  # and enough solves to judge
