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

from .arrays import channel, pose_written

__all__ = ["POSE_CHANNELS", "ObjectChannels", "PoseSnapshot", "as_bits", "bits", "pose_channels"]


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
        self.channels = pose_channels(obj)
        self.objects = {o.name: ObjectChannels.of(o) for o in objects}

    def restore(self) -> None:
        """Put back every bone whose mode or channels differ from the snapshot.

        A bone left alone keeps its very bits: each channel that differs is written with
        one ``foreach_set`` of the values just read, the changed bones' rows replaced,
        which Blender copies as they are (a property write would clamp an infinite
        location to the largest float). Only modes that differ are set, and a mode set
        converts the bone's channels, so then every channel is written after it.
        """
        obj = bpy.data.objects.get(self.armature)
        if obj is not None:
            changed, rows, now, channels = self._changed(obj)
            if changed:
                bones = obj.pose.bones
                moded = False
                for k, row in zip(changed, rows, strict=True):
                    if bones[row].rotation_mode != self.modes[k]:
                        bones[row].rotation_mode = self.modes[k]
                        moded = True
                for name, _ in POSE_CHANNELS:  # after the modes: a mode change converts
                    if moded or name in channels:
                        values = now[name]
                        values[rows] = self.channels[name][changed]
                        bones.foreach_set(name, values.ravel())
                pose_written(obj)
        for name, channels in self.objects.items():
            other = bpy.data.objects.get(name)
            if other is not None:
                channels.put(other)

    def _changed(
        self, obj: Any
    ) -> tuple[list[int], list[int], dict[str, NDArray[np.float32]], set[str]]:
        """The snapshot's bones whose mode or channels differ now (bones gone: skipped).

        Returns:
            Their indices in the snapshot, their rows in ``pose.bones`` now, every
            bone's channels as read now, and the channels that differ in some bone.
        """
        names = tuple(obj.pose.bones.keys())
        if names == self.names:
            kept, rows = list(range(len(names))), np.arange(len(names))
        else:  # bones added, removed or renamed: matched by name
            position = {name: k for k, name in enumerate(names)}
            kept = [k for k, name in enumerate(self.names) if name in position]
            rows = np.array([position[self.names[k]] for k in kept], np.intp)
        now = pose_channels(obj)
        differs = np.zeros(len(kept), dtype=bool)
        channels = set()
        for name, _ in POSE_CHANNELS:
            was = as_bits(self.channels[name][kept])
            row_differs = (as_bits(now[name][rows]) != was).any(axis=1)
            if row_differs.any():
                channels.add(name)
                differs |= row_differs
        modes = [b.rotation_mode for b in obj.pose.bones]
        changed = [
            (k, row)
            for k, row, moved in zip(kept, rows.tolist(), differs.tolist(), strict=True)
            if moved or modes[row] != self.modes[k]
        ]
        return [k for k, _ in changed], [row for _, row in changed], now, channels


POSE_CHANNELS = (
    ("location", 3),
    ("rotation_euler", 3),
    ("rotation_quaternion", 4),
    ("rotation_axis_angle", 4),
    ("scale", 3),
)
"""The pose-bone channels a snapshot keeps, with their widths."""


def pose_channels(
    obj: Any, channels: tuple[tuple[str, int], ...] = POSE_CHANNELS
) -> dict[str, NDArray[np.float32]]:
    """Every pose bone's ``channels`` as Blender stores them (single precision), one read each."""
    return {name: channel(obj.pose.bones, name, width) for name, width in channels}


def as_bits(values: NDArray[np.float32]) -> NDArray[np.uint32]:
    """Single-precision floats as their bits: −0.0 is not 0.0, and a NaN equals itself."""
    return values.view(np.uint32)
