"""What a figure and its problem are built from, read fast enough to check on every update.

Live mode keeps its problem between updates and builds it again only when
:func:`figure_inputs` says something it is built from changed: Reach's settings on the
armature (constraints, joints, groups, solve settings), the bones' rest, parents and
inheritance, and each pose bone's rotation mode, locks and IK limits. The pose itself,
the goals' places and the armature's transform are checked by the problem's own refresh
(:func:`.goals.refresh_goals`).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Final

import bpy
import numpy as np

__all__ = ["figure_inputs"]

SKIPPED = frozenset({"rna_type", "stats", "live", "time_budget", "adaptive", "show_overlay"})
"""Settings that change no figure or problem: what solves report, what live mode itself
sets, the interface's choices, and the time a solve may take (read by each solve)."""

POSE_FIELDS = (
    ("rotation_mode", np.int32, 1),
    ("lock_location", np.bool_, 3),
    *(
        (f"{field}_{axis}", kind, 1)
        for axis in "xyz"
        for field, kind in (
            ("lock_ik", np.bool_),
            ("use_ik_limit", np.bool_),
            ("ik_min", np.float32),
            ("ik_max", np.float32),
            ("ik_stiffness", np.float32),
        )
    ),
)
"""The pose bones' settings a figure's DOFs are made of (:func:`.joints.bone_dofs`)."""

BONE_FIELDS = (
    ("matrix_local", np.float32, 16),
    ("use_connect", np.bool_, 1),
    ("use_inherit_rotation", np.bool_, 1),
    ("use_local_location", np.bool_, 1),
    ("inherit_scale", np.int32, 1),
)
"""The bones' rest and inheritance, which the figure's segments are made of."""


@dataclasses.dataclass
class SettingsLayouts:
    """Which properties each type of Reach's settings has, read from Blender once.

    Filled the first time a type's settings are read (:func:`figure_inputs`); never
    emptied, since a type's properties do not change while the add-on is loaded. It
    lives between events because live mode reads an armature's settings on every
    depsgraph update, and so reads each type's ``bl_rna`` once instead of every time.

    Attributes:
        properties: Per settings type (its class name), its properties' (identifier,
            type) pairs, in ``bl_rna`` order.
    """

    properties: dict[str, tuple[tuple[str, str], ...]] = dataclasses.field(default_factory=dict)


_state: Final = SettingsLayouts()
"""The settings types' properties read in this Blender session."""


def figure_inputs(obj: Any) -> tuple[Any, ...]:
    """Everything Reach builds ``obj``'s figure and problem from, but the pose and places.

    Two results are equal exactly when none of it changed; floats are compared bit for bit.
    """
    bones, pose = obj.data.bones, obj.pose.bones
    parents = tuple(bone.parent.name if bone.parent else "" for bone in bones)
    return (
        tuple(bones.keys()),
        parents,
        _arrays(bones, BONE_FIELDS),
        _arrays(pose, POSE_FIELDS),
        _settings(obj.reach),
    )


def _arrays(collection: Any, fields: tuple[tuple[str, Any, int], ...]) -> tuple[bytes, ...]:
    """Each field of every item of ``collection``, as raw bytes."""
    count = len(collection)
    read = []
    for field, kind, width in fields:
        values = np.empty(count * width, dtype=kind)
        collection.foreach_get(field, values)
        read.append(values.tobytes())
    return tuple(read)


def _settings(group: Any) -> tuple[Any, ...]:
    """A settings group's values, nested groups and collections included."""
    kind = type(group).__name__
    properties = _state.properties.get(kind)
    if properties is None:
        properties = tuple(
            (p.identifier, p.type)
            for p in group.bl_rna.properties
            if p.identifier not in SKIPPED and not p.identifier.startswith("active_")
        )
        _state.properties[kind] = properties
    values: list[Any] = []
    for identifier, kind_of in properties:
        value = getattr(group, identifier)
        if kind_of == "COLLECTION":
            values.append(tuple(_settings(item) for item in value))
        elif kind_of == "POINTER":
            if isinstance(value, bpy.types.PropertyGroup):
                values.append(_settings(value))
            else:  # an ID (a goal): which one
                values.append(None if value is None else value.session_uid)
        elif isinstance(value, (str, int, float, bool)):
            values.append(value)
        else:  # an array
            values.append(tuple(value))
    return tuple(values)
