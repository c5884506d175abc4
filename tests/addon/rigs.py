"""Scenes for the add-on's tests: the Rigify human metarig with goals on hands and feet."""

from __future__ import annotations

from typing import Any

import bpy
import numpy as np

ARM = ("upper_arm", "forearm", "hand")
LEG = ("thigh", "shin", "foot")


def metarig(kind: str = "basic") -> Any:
    """A Rigify human metarig ('basic': 29 bones; 'full': with fingers and face)."""
    if kind == "basic":
        bpy.ops.object.armature_basic_human_metarig_add()
    else:
        bpy.ops.object.armature_human_metarig_add()
    obj = bpy.context.active_object
    bpy.ops.object.mode_set(mode="OBJECT")
    return obj


def chain_length(obj: Any, bones: tuple[str, ...]) -> float:
    """Sum of the bones' lengths (armature units)."""
    return float(sum(obj.data.bones[b].length for b in bones))


def world_tail(obj: Any, bone: str) -> np.ndarray:
    """A bone's tail in world space, from Blender's evaluated pose."""
    return np.array(obj.matrix_world @ obj.pose.bones[bone].tail)


def limbs(
    obj: Any, *, feet: bool = True, hands: bool = True, arm_chain: str = "shoulder"
) -> dict[str, str]:
    """Constraints on the feet (to the thighs) and hands (to the shoulders): name → goal empty."""
    limbs = [("foot", "shin", "thigh")] * feet + [("hand", "forearm", arm_chain)] * hands
    made: dict[str, str] = {}
    for side in ("L", "R"):
        for name, bone, start in limbs:
            label = f"{name}.{side}"
            result = bpy.ops.reach.add_constraint(
                armature=obj.name,
                bone=f"{bone}.{side}",
                effector="TAIL",
                chain_start=f"{start}.{side}",
                name=label,
            )
            assert result == {"FINISHED"}
            made[label] = obj.reach.constraints[label].goal.name
    return made


def pose_channels(obj: Any) -> dict[str, tuple[str, ...]]:
    """Every pose bone's rotation mode and raw channels, bit for bit (floats as hex)."""
    return {
        b.name: (
            b.rotation_mode,
            *(
                float(v).hex()
                for v in (
                    *b.location,
                    *b.rotation_euler,
                    *b.rotation_quaternion,
                    *b.rotation_axis_angle,
                    *b.scale,
                )
            ),
        )
        for b in obj.pose.bones
    }


def channel_values(channels: tuple[str, ...]) -> list[float]:
    """The floats of a :func:`pose_channels` entry."""
    return [float.fromhex(v) for v in channels[1:]]
