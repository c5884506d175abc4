"""The plain kind of rig: the armature's own bones are the figure, posed bone by bone.

Reach reads and writes the bones' own channels (:mod:`.pose`) and keys them. Bones that
follow a control through the rig's own constraints (:mod:`.followers`) are noted when
the figure is built: a constraint on one is on its control, and a chain may move no
mechanism bone (:mod:`.mechanisms`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

import numpy as np

from ...solver import Effector
from ...solver._checks import same
from .arrays import Array
from .followers import check_chain, follow_in, followed
from .keys import bone_channels
from .mechanisms import check_chain_writes
from .pose import PoseWriter, read_pose
from .rig import (
    STILL,
    OnFigure,
    Rig,
    compile_rig,
    fixed_locations,
    pose_locations,
    to_numpy,
)


class PlainRig:
    """The kind of a rig whose figure is the armature's bones (see the module)."""

    direct = True
    reported_notes = None
    diverging_fix = (
        "mute those constraints or drivers, key or bake the pose, or constrain the control bones"
    )

    def build(self, obj: Any, hold: Iterable[str] = ()) -> Rig:
        """The armature's bones (:func:`build_rig`), bones that follow a control noted.

        Raises:
            BlenderDataError: For data the solver cannot represent, named.
        """
        return followed(obj, build_rig(obj, hold))

    def carry(
        self, obj: Any, rig: Rig, world: Array | None, *, steady: bool = False
    ) -> Array | None:
        """:data:`.rig.STILL`, the figure's motion, or None (:meth:`.rig.RigKind.carry`).

        Still while the bones' fixed locations are the ones the figure holds and the
        armature has not moved; the armature object's motion where it alone moved (its
        world matrix is in the root bones' rests alone), or where the figure's one root
        bone's fixed location changed too (:func:`_root_moved`). Checked even when
        ``steady``: reading the locations at once costs little.
        """
        offsets = None if _locations_same(obj, rig) else fixed_locations(obj, rig.layout)
        if offsets is not None and offsets != rig.offsets:
            return _root_moved(obj, rig, offsets, world)
        if world is None:
            return STILL
        assert rig.world is not None  # (a world matrix changed since it was built)
        motion: Array = world @ rig.world_inverse(rig.world)  # (kept: a bake carries goals)
        return motion

    def carried(self, obj: Any, rig: Rig) -> Rig:
        """``rig``, a copy just carried along, with its locations as they are now.

        The pose locations and fixed locations, where they changed: a root's keyed
        location, carried, is then the one the next check compares with.
        """
        now = pose_locations(obj)
        if rig.locations is None or len(now) != len(rig.locations) or not same(now, rig.locations):
            rig.locations, rig.offsets = now, fixed_locations(obj, rig.layout)
        return rig

    def read(self, obj: Any, rig: Rig, previous: Array | None = None) -> Array:
        """The bones' channels, unrounded (:func:`.pose.read_pose`)."""
        return read_pose(obj, rig, previous, rounding=False)

    def writer(self, obj: Any, rig: Rig, bones: Iterable[str]) -> PoseWriter:
        """The writer of the bones' channels."""
        return PoseWriter(obj, rig, list(bones))

    def written(self, bones: Iterable[str]) -> list[str]:
        """The bones themselves."""
        return list(bones)

    def written_channels(
        self, obj: Any, rig: Rig, bones: Collection[str]
    ) -> list[tuple[str, list[str]]]:
        """The bones, each with its rotation channel and its location where it moves."""
        return [(e.name, bone_channels(rig, e.name)) for e in rig.layout if e.name in bones]

    def on_figure(self, obj: Any, rig: Rig, entry: Any, effector: Effector, label: str) -> OnFigure:
        """The effector and chain, moved from bones following controls onto the controls.

        "Met" is measured on a following bone all the same; the chain may move no
        mechanism bone (:func:`.mechanisms.check_chain_writes`).
        """
        start = entry.chain_start or None
        twin = None
        if rig.followers:  # bones following controls: on the controls
            effector, start = follow_in(rig, entry, effector, label)
            if entry.bone in rig.followers:  # "met" on the bone named, all the same
                twin = (entry.bone, rig.followers[entry.bone].inverse)
        check_chain_writes(obj, effector.segment, start, label)
        return OnFigure(effector, start, twin)

    def check_chain(self, obj: Any, bone: str, chain_start: str, label: str) -> None:
        """Refuse the chain where its ends, taken to their controls, cannot be posed."""
        check_chain(obj, bone, chain_start)

    def describe(self) -> list[str]:
        """Nothing: the bones and DOFs say it all."""
        return []


PLAIN = PlainRig()
"""The plain kind; it keeps nothing of its own, so every plain rig shares it."""


def build_rig(obj: Any, hold: Iterable[str] = ()) -> Rig:
    """The armature's own bones as a plain rig's figure (:func:`.rig.compile_rig`).

    Raises:
        BlenderDataError: For data the solver cannot represent, named.
    """
    return compile_rig(obj, hold, PLAIN)


def _locations_same(obj: Any, rig: Rig) -> bool:
    """Whether no pose location that may be fixed changed at all since ``rig`` was built."""
    locations, rows = rig.locations, rig.location_rows
    if locations is None:
        return False
    now = pose_locations(obj)
    if rows is not None and len(now) == len(locations):
        now, locations = now[rows], locations[rows]
    return same(now, locations)


def _root_moved(
    obj: Any, rig: Rig, offsets: dict[str, tuple[float, ...]], world: Array | None
) -> Array | None:
    """The motion of a figure whose one root bone's fixed location alone changed, or None.

    The root's location, no DOF of the figure (Move root off), is in its rest, which every
    other segment hangs from: a root keyed along a walk (a capture's hips) moves the figure
    as a whole. The root's rest is made as :func:`.rig.compile_rig` makes it, from the
    armature's world matrix now (``world``, or the rig's where None) and the location;
    near the figure's own, to rounding, it is :data:`.rig.STILL` (the armature unmoved).
    """
    roots = [segment for segment in rig.figure.segments if segment.parent is None]
    if len(roots) != 1 or rig.world is None:
        return None
    root = roots[0]
    if {k: v for k, v in offsets.items() if k != root.name} != {
        k: v for k, v in rig.offsets.items() if k != root.name
    }:
        return None
    bone = obj.data.bones.get(root.name)
    if bone is None:
        return None
    rest = (rig.world if world is None else world) @ to_numpy(bone.matrix_local)
    offset = offsets.get(root.name)
    if offset is not None:
        rest = rest.copy()
        rest[:3, 3] += rest[:3, :3] @ np.array(offset)
    motion: Array = rest @ np.linalg.inv(root.rest)
    if world is None and float(np.abs(motion - STILL).max()) <= ROUNDING:
        return STILL
    return motion


ROUNDING = 1e-12
"""A root's motion this near the identity is rounding of its rest carried, not a move."""
