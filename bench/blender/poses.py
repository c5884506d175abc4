"""Random poses and drag paths of a scenario's figure on the Rigify metarig.

Part of ``bench.blender.versus_ik``: poses within the joint limits under Reach's reading and
Blender's, and the targets they put the effectors on.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from bench.blender import joint_limits, scenarios


class Poser:
    """Random poses and forward kinematics of one scenario's figure."""

    def __init__(self, obj: Any, rig: Any, scenario: scenarios.Scenario) -> None:
        self.obj = obj
        self.rig = rig
        self.scenario = scenario
        self.figure = rig.figure
        self.index = {entry.name: k for k, entry in enumerate(rig.layout)}
        self.limits = {bone: joint_limits.ik_limits(obj, bone) for bone in scenario.elbow_limits}
        self.polygons = polygon_dofs(obj, rig, scenario.polygons)

    def euler(self, theta: np.ndarray, bone: str) -> np.ndarray:
        entry = self.rig.bone(bone)
        angles = {
            axis.lower(): float(theta[entry.rotation + j])
            for j, axis in enumerate(entry.order[::-1])
        }
        return joint_limits.euler_matrix(angles, entry.order)

    def allowed(self, theta: np.ndarray) -> bool:
        """Inside the limited bones' limits under Blender's swing-twist reading too, and
        inside the limit polygons."""
        return all(
            joint_limits.swing_twist_violation(self.euler(theta, bone), limits) <= 1e-7
            for bone, limits in self.limits.items()
        ) and all(
            joint_limits.polygon_excess(theta[[i, j]], vertices) <= 0.0
            for i, j, vertices in self.polygons.values()
        )

    def random(self, bones: Sequence[str], rng: np.random.Generator) -> np.ndarray:
        """Uniform angles within the bounds (±SPREAD_DEG where there are none) for
        ``bones``, zero elsewhere; redrawn until allowed under both readings."""
        figure = self.figure
        for _ in range(100_000):
            theta = np.zeros(figure.n_dofs)
            for bone in bones:
                spread = math.radians(
                    scenarios.SPREAD_DEG["spine" if bone.startswith("spine") else "default"]
                )
                for i in figure.segments[self.index[bone]].dof_indices:
                    low, high = figure.lower[i], figure.upper[i]
                    if not np.isfinite(low):
                        low = -spread
                    if not np.isfinite(high):
                        high = spread
                    theta[i] = rng.uniform(low, high)
            if self.allowed(theta):
                return theta
        raise RuntimeError(f"no random pose of {list(bones)} within the limits")

    def effector(self, theta: np.ndarray, limb: scenarios.Limb) -> np.ndarray:
        frame = self.figure.forward(theta)[self.index[limb.bone]]
        length = self.obj.data.bones[limb.bone].length
        return frame[:3, :3] @ np.array((0.0, length, 0.0)) + frame[:3, 3]

    def drag_path(self, rng: np.random.Generator, events: int, step: float) -> np.ndarray:
        """``events`` points ``step`` apart along the dragged effector's path while the
        dragged limb's own bones move smoothly through random poses, from rest."""
        limb = self.scenario.limb(self.scenario.dragged)
        previous = np.zeros(self.figure.n_dofs)
        dense = [self.effector(previous, limb)]
        lengths = [0.0]
        for _ in range(10_000):
            if lengths[-1] >= (events + 1) * step:
                break
            target = self.random(limb.own, rng)
            samples = []
            for s in np.linspace(0.0, 1.0, 121)[1:]:
                theta = previous + (s * s * (3.0 - 2.0 * s)) * (target - previous)
                if not self.allowed(theta):
                    break
                samples.append(self.effector(theta, limb))
            else:
                for point in samples:
                    lengths.append(lengths[-1] + float(np.linalg.norm(point - dense[-1])))
                    dense.append(point)
                previous = target
        else:
            raise RuntimeError(f"no drag path of {events} events within the limits")
        dense_points = np.array(dense)
        marks = np.array(lengths)
        wanted = step * np.arange(1, events + 1)
        return np.column_stack([np.interp(wanted, marks, dense_points[:, k]) for k in range(3)])


def polygon_dofs(
    obj: Any, rig: Any, bones: Sequence[str]
) -> dict[str, tuple[int, int, list[tuple[float, float]]]]:
    """Per bone with a limit polygon: the θ indices of its two DOFs and its vertices."""
    result = {}
    for bone in bones:
        _, axes, vertices = joint_limits.joint_polygon(obj, bone)
        entry = rig.bone(bone)
        i, j = (rig.figure.dof_index(bone, entry.axis_position(axis)) for axis in axes)
        result[bone] = (i, j, vertices)
    return result
