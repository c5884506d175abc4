"""Keyframes of a posed figure: the channels Reach wrote, in each bone's rotation mode."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from .rig import Rig

ROTATION_CHANNELS = {"QUATERNION": "rotation_quaternion", "AXIS_ANGLE": "rotation_axis_angle"}
"""The rotation channel of a bone by rotation mode; any other mode is an Euler order."""


def insert_keys(obj: Any, rig: Rig, bones: Collection[str], frame: int) -> None:
    """Key the rotation (and location, where it moves) of ``bones`` at ``frame``."""
    for entry in rig.layout:
        if entry.name not in bones:
            continue
        pose_bone = obj.pose.bones[entry.name]
        pose_bone.keyframe_insert(
            ROTATION_CHANNELS.get(entry.mode, "rotation_euler"), frame=frame, group=entry.name
        )
        if entry.translation >= 0:
            pose_bone.keyframe_insert("location", frame=frame, group=entry.name)
