"""Pose snapshots that put back exactly the floats they took (Esc, Cancel, a failed solve).

Compared bit for bit (an object's channels as hex, the bones' single-precision floats
as their bits), so that −0.0 differs from 0.0 and a NaN equals itself; a restore writes
only what differs, so an untouched bone keeps its very bits.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import bpy
import numpy as np
from numpy.typing import NDArray

__all__ = ["ObjectChannels", "PoseSnapshot", "bits"]


@dataclass(frozen=True)
class ObjectChannels:
    """An object's transform channels (location, every rotation mode's, scale)."""

    location: tuple[float, ...]
    euler: tuple[float, ...]
    quaternion: tuple[float, ...]
    axis_angle: tuple[float, ...]
    scale: tuple[float, ...]

    @classmethod
    def of(cls, obj: Any) -> ObjectChannels:
        """The channels of ``obj`` as they are."""
        return cls(
            tuple(obj.location),
            tuple(obj.rotation_euler),
            tuple(obj.rotation_quaternion),
            tuple(obj.rotation_axis_angle),
            tuple(obj.scale),
        )

    def bits(self) -> tuple[str, ...]:
        """Every value bit for bit (−0.0 is not 0.0, a NaN equals itself)."""
        return bits((*self.location, *self.euler, *self.quaternion, *self.axis_angle, *self.scale))

    def put(self, obj: Any) -> None:
        """Give ``obj`` these channels again, writing only those that differ."""
        now = ObjectChannels.of(obj)
        for name in ("location", "euler", "quaternion", "axis_angle", "scale"):
            value = getattr(self, name)
            if bits(getattr(now, name)) != bits(value):
                setattr(obj, OBJECT_CHANNELS[name], value)


OBJECT_CHANNELS = {
    "location": "location",
    "euler": "rotation_euler",
    "quaternion": "rotation_quaternion",
    "axis_angle": "rotation_axis_angle",
    "scale": "scale",
}
"""Each :class:`ObjectChannels` field's property on an object."""


def bits(values: Iterable[float]) -> tuple[str, ...]:
    """``values`` bit for bit, as hex: −0.0 is not 0.0, and a NaN equals itself."""
    return tuple(float(v).hex() for v in values)


class PoseSnapshot:
    """Every pose bone's channels, and chosen objects' transforms, as they were.

    :meth:`restore` puts back exactly the same floats. The channels are read with one
    ``foreach_get`` each and compared as their bits, so finding what changed costs a
    few array operations however many bones there are.
    """

    def __init__(self, obj: Any, objects: Iterable[Any] = ()) -> None:
        self.armature = obj.name
        self.names = tuple(obj.pose.bones.keys())
        self.modes = tuple(b.rotation_mode for b in obj.pose.bones)
        self.channels = _pose_channels(obj)
        self.objects = {o.name: ObjectChannels.of(o) for o in objects}

    def restore(self) -> None:
        """Put back every channel that differs from the snapshot, and only those.

        A bone left alone keeps its very bits: Blender stores an infinite location it
        was given, but writing one back stores its largest float instead.
        """
        obj = bpy.data.objects.get(self.armature)
        if obj is not None:
            for k in self._changed(obj):
                bone = obj.pose.bones.get(self.names[k])
                if bone is None:
                    continue
                bone.rotation_mode = self.modes[k]
                for channel, _ in POSE_CHANNELS:
                    setattr(bone, channel, self.channels[channel][k].tolist())
        for name, channels in self.objects.items():
            other = bpy.data.objects.get(name)
            if other is not None:
                channels.put(other)

    def _changed(self, obj: Any) -> list[int]:
        """The snapshot's bones whose mode or channels differ now (bones gone: skipped)."""
        names = tuple(obj.pose.bones.keys())
        if names != self.names:  # bones added, removed or renamed: bone by bone
            rows = {name: k for k, name in enumerate(names)}
            now = _pose_channels(obj)
            modes = {b.name: b.rotation_mode for b in obj.pose.bones}
            return [
                k
                for k, name in enumerate(self.names)
                if name in rows
                and (
                    modes[name] != self.modes[k]
                    or any(
                        not np.array_equal(_bits(now[c][rows[name]]), _bits(self.channels[c][k]))
                        for c, _ in POSE_CHANNELS
                    )
                )
            ]
        now = _pose_channels(obj)
        differs = np.zeros(len(names), dtype=bool)
        for channel, _ in POSE_CHANNELS:
            differs |= (_bits(now[channel]) != _bits(self.channels[channel])).any(axis=1)
        current = [b.rotation_mode for b in obj.pose.bones]
        return [k for k, mode in enumerate(current) if differs[k] or mode != self.modes[k]]


POSE_CHANNELS = (
    ("location", 3),
    ("rotation_euler", 3),
    ("rotation_quaternion", 4),
    ("rotation_axis_angle", 4),
    ("scale", 3),
)
"""The pose-bone channels a snapshot keeps, with their widths."""


def _pose_channels(obj: Any) -> dict[str, NDArray[np.float32]]:
    """Every pose bone's channels as Blender stores them (single precision), one read each."""
    bones = obj.pose.bones
    channels = {}
    for channel, width in POSE_CHANNELS:
        values = np.empty(len(bones) * width, np.float32)
        bones.foreach_get(channel, values)
        channels[channel] = values.reshape(len(bones), width)
    return channels


def _bits(values: NDArray[np.float32]) -> NDArray[np.uint32]:
    """Single-precision floats as their bits: −0.0 is not 0.0, and a NaN equals itself."""
    return values.view(np.uint32)
