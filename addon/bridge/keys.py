"""Keyframes of a posed figure: the channels Reach wrote, in each bone's rotation mode.

:func:`auto_key` keys what a solve moved the way Blender's auto-keying would: only with
auto-keying on and, with "Only Insert Keying Set", only the channels of the active
keying set. :func:`key_frames` writes a bake's values, one key per frame, and
:func:`reduced` picks the keys a curve keeps within a tolerance.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

import bpy
import numpy as np

from .arrays import Array
from .rig import Rig

ROTATION_CHANNELS = {"QUATERNION": "rotation_quaternion", "AXIS_ANGLE": "rotation_axis_angle"}
"""The rotation channel of a bone by rotation mode; any other mode is an Euler order."""


def rotation_channel(mode: str) -> str:
    """The pose-bone channel holding the rotation of a bone in rotation mode ``mode``."""
    return ROTATION_CHANNELS.get(mode, "rotation_euler")


def bone_channels(rig: Rig, bone: str) -> list[str]:
    """The channels Reach writes on ``bone``: its rotation, and its location if it moves."""
    entry = rig.bone(bone)
    channels = [rotation_channel(entry.mode)]
    if entry.translation >= 0:
        channels.append("location")
    return channels


def insert_keys(
    obj: Any, rig: Rig, bones: Collection[str], frame: int, keying_set: Any | None = None
) -> list[str]:
    """Key the rotation (and location, where it moves) of ``bones`` at ``frame``.

    Args:
        obj: The armature object.
        rig: Its rig.
        bones: The bones to key.
        frame: The frame.
        keying_set: Only the channels of this keying set (None: all the bones' channels).

    Returns:
        The data paths keyed.
    """
    keyed = []
    for name, channels in written_channels(obj, rig, bones):
        pose_bone = obj.pose.bones[name]
        for channel in channels:
            path = pose_bone.path_from_id(channel)
            indices = [-1] if keying_set is None else keying_indices(keying_set, obj, path)
            for index in indices:
                pose_bone.keyframe_insert(channel, index=index, frame=frame, group=name)
            if indices:
                keyed.append(path)
    return keyed


def written_channels(obj: Any, rig: Rig, bones: Collection[str]) -> list[tuple[str, list[str]]]:
    """The pose bones a pose of the figure's ``bones`` is written into, with their channels.

    The bones themselves; on a control rig, the controls of their limbs' current mode
    (rotation and location: an IK control moves). The rig's kind answers
    (:meth:`.rig.RigKind.written_channels`).
    """
    return rig.kind.written_channels(obj, rig, bones)


def keying_indices(keying_set: Any, obj: Any, path: str) -> list[int]:
    """The array indices of channel ``path`` of ``obj`` that ``keying_set`` keys.

    ``[-1]`` is the whole array, ``[]`` none. A keying set with paths (one the user made)
    keys the paths it lists; Blender's built-in ones key by kind of channel: location,
    rotation, both ("Whole Character"), or channels that already have keys ("Available").
    """
    if len(keying_set.paths):
        indices = []
        for item in keying_set.paths:
            if item.id == obj and item.data_path == path:
                if item.use_entire_array:
                    return [-1]
                indices.append(int(item.array_index))
        return indices
    label = str(keying_set.bl_label).lower()
    if "available" in label:
        return [-1] if fcurve(obj, path, 0) is not None else []
    whole = "whole character" in label
    kind = "location" if path.endswith("location") else "rotation"
    return [-1] if whole or kind in label else []


def auto_key(scene: Any, obj: Any, rig: Rig, bones: Collection[str], frame: int) -> list[str]:
    """With auto-keying on, key the moved ``bones`` as Blender's auto-keying would.

    With "Only Insert Keying Set" on and a keying set active, only its channels are
    keyed.

    Returns:
        The data paths keyed (none with auto-keying off).
    """
    settings = scene.tool_settings
    if not settings.use_keyframe_insert_auto or not bones:
        return []
    keying_set = None
    if settings.use_keyframe_insert_keyingset:
        keying_set = scene.keying_sets_all.active
    return insert_keys(obj, rig, bones, frame, keying_set)


def fcurves(obj: Any) -> list[Any]:
    """Every F-curve of the object's action (a layered action's in Blender 4.4 and newer)."""
    animation = obj.animation_data
    action = animation.action if animation is not None else None
    if action is None:
        return []
    if hasattr(action, "layers") and len(action.layers):
        found = []
        for layer in action.layers:
            for strip in layer.strips:
                for bag in strip.channelbags:
                    if bag.slot == animation.action_slot:
                        found.extend(bag.fcurves)
        return found
    return list(action.fcurves)


def fcurve(obj: Any, path: str, index: int) -> Any | None:
    """The object's F-curve of ``path`` and ``index``, if it has one."""
    for curve in fcurves(obj):
        if curve.data_path == path and curve.array_index == index:
            return curve
    return None


def reduced(values: Array, tolerance: float) -> list[int]:
    """The keys a curve keeps so that straight lines between them stay within ``tolerance``.

    Douglas–Peucker on frame-spaced values: the first and last key stay; between two
    kept keys, the farthest value from the line joining them is kept when it lies more
    than ``tolerance`` off it, recursively.

    Args:
        values: One value per frame, shape (n,) or (n, k) (channels reduced together).
        tolerance: Largest allowed difference, in the channel's units; 0 keeps every key
            that is not exactly on a line.

    Returns:
        The indices kept, increasing.
    """
    data = np.asarray(values, dtype=float).reshape(len(values), -1)
    n = data.shape[0]
    if n <= 2:
        return list(range(n))
    keep = {0, n - 1}
    stack = [(0, n - 1)]
    while stack:
        first, last = stack.pop()
        if last - first < 2:
            continue
        t = (np.arange(first + 1, last) - first) / (last - first)
        line = data[first] + t[:, None] * (data[last] - data[first])
        off = np.abs(data[first + 1 : last] - line).max(axis=1)
        worst = int(np.argmax(off))
        if off[worst] > tolerance:
            middle = first + 1 + worst
            keep.add(middle)
            stack.extend(((first, middle), (middle, last)))
    return sorted(keep)


def key_frames(
    obj: Any,
    bone: str,
    channel: str,
    frames: Sequence[int],
    values: Array,
    tolerance: float | None = None,
) -> int:
    """Key one channel of a pose bone on every frame of ``frames`` with ``values``.

    Keys already on the channel within the frames' range are replaced. The keys are
    added to each F-curve at once (``keyframe_points.add``), as ``keyframe_points.insert``
    makes a key: Bézier (linear with a tolerance), with auto-clamped handles the curve
    sets.

    Args:
        obj: The armature object (its action is made if it has none).
        bone: The pose bone.
        channel: Its channel (``rotation_euler``, ``location``, …).
        frames: Increasing frames.
        values: Shape (len(frames), size of the channel).
        tolerance: Keep only the keys :func:`reduced` keeps (with linear
            interpolation between them); None keeps a key on every frame.

    Returns:
        The number of keys written.
    """
    pose_bone = obj.pose.bones[bone]
    path = pose_bone.path_from_id(channel)
    pose_bone.keyframe_insert(channel, frame=frames[0], group=bone)  # the curves, grouped
    kept = list(range(len(frames))) if tolerance is None else reduced(values, tolerance)
    at = np.asarray(frames, dtype=float)[kept]
    low, high = frames[0] - 0.5, frames[-1] + 0.5
    interpolation = "LINEAR" if tolerance is not None else "BEZIER"
    curves = {c.array_index: c for c in fcurves(obj) if c.data_path == path}
    written = 0
    for index in range(values.shape[1]):
        curve = curves.get(index)
        if curve is None:
            continue
        points = curve.keyframe_points
        old = np.empty(2 * len(points), dtype=np.float32)
        points.foreach_get("co", old)
        inside = (low < old[0::2]) & (old[0::2] < high)
        if inside.all():
            points.clear()
        else:
            for k in np.flatnonzero(inside)[::-1]:
                points.remove(points[int(k)], fast=True)
        first = len(points)
        points.add(len(kept))
        _set_tail(points, "co", first, np.column_stack((at, values[kept, index])), np.float32)
        _set_tail(points, "interpolation", first, _enum("interpolation", interpolation))
        written += len(kept)
        curve.update()
    return written


def replay(obj: Any) -> None:
    """Have Blender rebuild how it evaluates the object's animation, after keys were written.

    Keys written into an action's curves at once (:func:`key_frames`) under NLA tracks
    (a glTF importer's, muted or not) play back as the action was when Blender last built
    its animation graph: a bake's first key only. Setting the animation data's blend type
    to itself has Blender rebuild it, as assigning the action again does.
    """
    animation = obj.animation_data
    if animation is not None and animation.action is not None:
        animation.action_blend_type = animation.action_blend_type


def _enum(name: str, identifier: str) -> int:
    """The value of ``identifier`` among the items of a keyframe's enum property ``name``."""
    prop: Any = bpy.types.Keyframe.bl_rna.properties[name]  # an EnumProperty
    return int(prop.enum_items[identifier].value)


def _set_tail(points: Any, name: str, first: int, values: Any, dtype: Any = np.int32) -> None:
    """Set property ``name`` of the keyframe points from ``first`` on, the others as they are."""
    size = 2 if name == "co" else 1
    every = np.empty(size * len(points), dtype=dtype)
    points.foreach_get(name, every)
    every[size * first :] = np.ravel(values)
    points.foreach_set(name, every)


SWITCH = ("reach.constraints[", "].enabled")
"""The start and end of the data path of a keyed constraint switch."""


def switch_curves(obj: Any) -> list[tuple[Any, str]]:
    """The unmuted F-curves of the object's keyed constraint switches, with their entries' paths."""
    found = []
    for curve in fcurves(obj):
        path = curve.data_path
        if not curve.mute and path.startswith(SWITCH[0]) and path.endswith(SWITCH[1]):
            found.append((curve, path[: -len(".enabled")]))
    return found


def apply_switches(
    obj: Any, frame: float, curves: list[tuple[Any, str]] | None = None
) -> list[str]:
    """Give each constraint with a keyed ``enabled`` its value at ``frame``.

    Blender does not always copy an animated add-on property back to the object a
    script reads (the evaluated copy holds it), so the switches' F-curves are evaluated
    here.

    Args:
        obj: The armature object.
        frame: The frame.
        curves: :func:`switch_curves`, found once for many frames (a bake), or None to
            find them now.

    Returns:
        The constraints switched on or off by this call.
    """
    switched = []
    for curve, path in switch_curves(obj) if curves is None else curves:
        try:
            entry = obj.path_resolve(path)
        except ValueError:
            continue
        on = curve.evaluate(frame) >= 0.5
        if entry.enabled != on:
            entry.enabled = on
            switched.append(entry.name)
    return switched
