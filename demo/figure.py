"""The demo's figure: the Rigify basic human metarig with joint limits, and its goals.

The metarig has no joint limits; :data:`JOINTS` gives it a plausible human range of
motion. Both ankles get position goals on the floor (:data:`FEET`), both wrists position
goals the demo drags (:data:`HANDS`). The residuals are measured from Blender's evaluated
pose, not from the solver.
"""

from __future__ import annotations

import math
from typing import Any

import bpy
from mathutils import Vector

JOINTS: dict[str, dict[str, Any]] = {
    # Degrees, in the bone's own axes (quaternion bones: Reach's default Euler order YXZ).
    # "lock" holds an axis (Blender's IK lock); "stiffness" sets all three IK stiffnesses;
    # "move" names the axes along which a root bone may move (the others are locked).
    # The hips (the root) may also move up and down (their Y, along the bone), not sideways.
    "spine": {"x": (-10, 30), "y": (-20, 20), "z": (-15, 15), "stiffness": 0.3, "move": "Y"},
    "spine.001": {"x": (-10, 15), "y": (-10, 10), "z": (-10, 10), "stiffness": 0.5},
    "spine.002": {"x": (-10, 15), "y": (-10, 10), "z": (-10, 10), "stiffness": 0.5},
    "spine.003": {"x": (-10, 15), "y": (-10, 10), "z": (-10, 10), "stiffness": 0.5},
    "shoulder.L": {"x": (-10, 25), "y": "lock", "z": (-15, 15), "stiffness": 0.5},
    "shoulder.R": {"x": (-10, 25), "y": "lock", "z": (-15, 15), "stiffness": 0.5},
    "upper_arm.L": {"y": (-90, 90)},
    "upper_arm.R": {"y": (-90, 90)},
    "forearm.L": {"x": (0, 150), "y": "lock", "z": "lock"},  # elbow: a hinge
    "forearm.R": {"x": (0, 150), "y": "lock", "z": "lock"},
    "thigh.L": {"x": (-110, 30), "y": (-30, 30), "z": (-30, 30)},
    "thigh.R": {"x": (-110, 30), "y": (-30, 30), "z": (-30, 30)},
    "shin.L": {"x": (0, 150), "y": "lock", "z": "lock"},  # knee: a hinge
    "shin.R": {"x": (0, 150), "y": "lock", "z": "lock"},
}
"""Joint limits set on the metarig (which has none): a plausible human range of motion."""

FEET = {"foot.L": ("shin.L", "thigh.L"), "foot.R": ("shin.R", "thigh.R")}
HANDS = {"hand.L": ("forearm.L", ""), "hand.R": ("forearm.R", "")}
"""Constraint name → (effector bone, chain start); "" = up to the root (the hips move)."""


def make_figure() -> Any:
    """The Rigify basic human metarig with joint limits, made a Reach figure."""
    import addon_utils  # on sys.path once bpy is imported

    addon_utils.enable("rigify", default_set=True)
    bpy.ops.wm.read_homefile(use_empty=True)
    bpy.ops.object.armature_basic_human_metarig_add()
    obj = bpy.context.active_object
    bpy.ops.object.mode_set(mode="OBJECT")
    for name, joint in JOINTS.items():
        pose_bone = obj.pose.bones[name]
        for axis in "xyz":
            setting = joint.get(axis)
            if setting == "lock":
                setattr(pose_bone, f"lock_ik_{axis}", True)
            elif setting is not None:
                setattr(pose_bone, f"use_ik_limit_{axis}", True)
                setattr(pose_bone, f"ik_min_{axis}", math.radians(setting[0]))
                setattr(pose_bone, f"ik_max_{axis}", math.radians(setting[1]))
            if "stiffness" in joint:
                setattr(pose_bone, f"ik_stiffness_{axis}", joint["stiffness"])
        if "move" in joint:
            pose_bone.lock_location = [axis not in joint["move"] for axis in "XYZ"]
    bpy.ops.reach.figure_from_armature(armature=obj.name, translate_root=True)
    return obj


def add_constraints(obj: Any) -> dict[str, Any]:
    """Position goals on both ankles and both wrists; return name → goal empty."""
    made = {}
    for name, (bone, chain_start) in (*FEET.items(), *HANDS.items()):
        bpy.ops.reach.add_constraint(
            armature=obj.name,
            bone=bone,
            effector="TAIL",
            chain_start=chain_start,
            goal_type="POSITION",
            name=name,
        )
        made[name] = obj.reach.constraints[name].goal
    return made


def world_tail(obj: Any, bone: str) -> Vector:
    """A bone's tail in world space, from Blender's evaluated pose."""
    return obj.matrix_world @ obj.pose.bones[bone].tail


def residuals(obj: Any) -> dict[str, float]:
    """Per constraint: distance from its effector (Blender's pose) to its goal empty."""
    return {
        c.name: (world_tail(obj, c.bone) - c.goal.matrix_world.translation).length
        for c in obj.reach.constraints
    }
