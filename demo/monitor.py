"""Measuring Blender's pose while the demo drags: the ankles' drift and joint limits.

A depsgraph handler sees every pose Blender evaluates during the drags, not only the
poses the solver returns, so the checks are on what a user would see.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import bpy
import numpy as np
from figure import FEET, JOINTS, world_tail
from mathutils import Vector

Channels = tuple[tuple[float, ...], ...]


def channels(obj: Any, bones: Sequence[str]) -> Channels:
    """The raw rotation and location channels of ``bones``."""
    pose_bones = obj.pose.bones
    return tuple(
        (
            *pose_bones[b].rotation_quaternion,
            *pose_bones[b].rotation_euler,
            *pose_bones[b].rotation_axis_angle,
            *pose_bones[b].location,
        )
        for b in bones
    )


def set_channels(obj: Any, bones: Sequence[str], values: Channels) -> None:
    """Put back channels taken by :func:`channels`."""
    for name, value in zip(bones, values, strict=True):
        pose_bone = obj.pose.bones[name]
        pose_bone.rotation_quaternion = value[0:4]
        pose_bone.rotation_euler = value[4:7]
        pose_bone.rotation_axis_angle = value[7:11]
        pose_bone.location = value[11:14]


class Monitor:
    """A depsgraph handler: after every update, measure Blender's pose.

    It records how far the ankles are from their floor goals, and the channels of the
    bones with joint limits, which :meth:`limits` checks after the drags (kept out of
    the handler so that it adds little to the measured time per event).
    """

    def __init__(self, obj: Any, reach: Any, feet: dict[str, Vector]) -> None:
        self.armature = obj.name
        self.bridge = reach.addon.bridge
        self.rig = self.bridge.plain_rig.build_rig(obj)
        self.feet = feet
        self.bones = list(JOINTS)
        self.poses: list[Channels] = []
        self.updates = 0
        self.feet_drift = 0.0
        self.seconds = 0.0

    def __call__(self, scene: Any, depsgraph: Any) -> None:
        """Measure the current pose (``depsgraph_update_post``)."""
        start = time.perf_counter()
        obj = bpy.data.objects.get(self.armature)
        if obj is None:
            return
        for name, point in self.feet.items():
            bone = FEET[name][0]
            self.feet_drift = max(self.feet_drift, (world_tail(obj, bone) - point).length)
        pose = channels(obj, self.bones)
        if not self.poses or pose != self.poses[-1]:
            self.poses.append(pose)
        self.updates += 1
        self.seconds += time.perf_counter() - start

    def violation(self, obj: Any) -> tuple[float, str]:
        """The largest joint-limit violation of the pose [rad], and which limit."""
        theta = self.bridge.pose.read_pose(obj, self.rig, rounding=False)
        figure = self.rig.figure
        amounts = np.maximum(figure.lower - theta, theta - figure.upper)
        k = int(np.argmax(amounts))
        worst = (float(amounts[k]), figure.dof_label(k))
        label, amount = figure.limits.worst(theta)
        if amount > worst[0]:
            worst = (amount, label)
        return worst

    def limits(self, obj: Any) -> tuple[float, str, int]:
        """The largest joint-limit violation of any recorded pose, its limit, the poses."""
        final = channels(obj, self.bones)
        worst = (0.0, "")
        try:
            for pose in [*self.poses, final]:
                set_channels(obj, self.bones, pose)
                amount, label = self.violation(obj)
                if amount > worst[0]:
                    worst = (amount, label)
        finally:
            set_channels(obj, self.bones, final)
            bpy.context.view_layer.update()
        return (*worst, len(self.poses) + 1)
