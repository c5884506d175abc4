"""Pose snapshots that put back exactly the floats they took (Esc, Cancel, a failed solve).

Compared as hex, so that −0.0 differs from 0.0 and a NaN equals itself; a restore
writes only what differs, so an untouched bone keeps its very bits.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import bpy

__all__ = ["BoneChannels", "ObjectChannels", "PoseSnapshot", "bits"]


@dataclass(frozen=True)
class BoneChannels:
    """A pose bone's raw channels, for exact restore."""

    mode: str
    location: tuple[float, ...]
    euler: tuple[float, ...]
    quaternion: tuple[float, ...]
    axis_angle: tuple[float, ...]
    scale: tuple[float, ...]

    def bits(self) -> tuple[str, ...]:
        """Every value bit for bit (−0.0 is not 0.0, a NaN equals itself)."""
        values = (*self.location, *self.euler, *self.quaternion, *self.axis_angle, *self.scale)
        return (self.mode, *bits(values))


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

    :meth:`restore` puts back exactly the same floats.
    """

    def __init__(self, obj: Any, objects: Iterable[Any] = ()) -> None:
        self.armature = obj.name
        self.bones = {
            b.name: BoneChannels(
                b.rotation_mode,
                tuple(b.location),
                tuple(b.rotation_euler),
                tuple(b.rotation_quaternion),
                tuple(b.rotation_axis_angle),
                tuple(b.scale),
            )
            for b in obj.pose.bones
        }
        self.objects = {o.name: ObjectChannels.of(o) for o in objects}

    def restore(self) -> None:
        """Put back every channel that differs from the snapshot, and only those.

        A bone left alone keeps its very bits: Blender stores an infinite location it
        was given, but writing one back stores its largest float instead.
        """
        obj = bpy.data.objects.get(self.armature)
        if obj is not None:
            now = PoseSnapshot(obj)
            for name, channels in self.bones.items():
                bone = obj.pose.bones.get(name)
                current = now.bones.get(name)
                if bone is None or (current is not None and current.bits() == channels.bits()):
                    continue
                bone.rotation_mode = channels.mode
                bone.location = channels.location
                bone.rotation_euler = channels.euler
                bone.rotation_quaternion = channels.quaternion
                bone.rotation_axis_angle = channels.axis_angle
                bone.scale = channels.scale
        for name, channels in self.objects.items():
            other = bpy.data.objects.get(name)
            if other is not None:
                channels.put(other)
