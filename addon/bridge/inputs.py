"""What a figure and its problem are built from, read fast enough to check on every update.

Live mode keeps its problem between updates, and Solve and drags theirs between calls
(:mod:`.kept`), and build it again only when :func:`figure_inputs` says something it is
built from changed: Reach's settings on the armature (constraints, joints, groups, solve
settings), the bones' rest, parents, inheritance and deforming, each pose bone's rotation
mode, locks and IK limits, the bones' constraints and the armature's drivers and action.
The pose itself, the goals' places and the armature's transform are checked by the
problem's own refresh (:func:`.goals.refresh_goals`).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Final

import numpy as np

from .animated import action_curves

__all__ = ["figure_inputs"]

SKIPPED = frozenset({"stats", "live", "time_budget", "adaptive", "show_overlay"})
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
    ("use_deform", np.bool_, 1),
)
"""The bones' rest and inheritance, which the figure's segments are made of, and which
deform (a control rig's deform bones stand in for its controls)."""

CONSTRAINT_FIELDS = (
    "name",
    "type",
    "mute",
    "influence",
    "subtarget",
    "chain_count",
    "use_tail",
    "use_stretch",
    "pole_subtarget",
    "pole_angle",
    "mix_mode",
    "owner_space",
    "target_space",
)
"""What the bones' constraints are read by (which bones follow which, a control rig's
mechanisms): each constraint's fields of these it has, with its targets (by object)."""


@dataclasses.dataclass
class SettingsLayouts:
    """Which of :data:`CONSTRAINT_FIELDS` each bone constraint type has, read from Blender once.

    Filled the first time a type's constraints are read (:func:`figure_inputs`); never
    emptied, since a type's properties do not change while Blender runs. It lives between
    events because live mode reads an armature's inputs on every depsgraph update, and so
    reads each type's ``bl_rna`` once instead of every time.

    Attributes:
        constraint_fields: Per bone constraint type (its class name), which of
            :data:`CONSTRAINT_FIELDS` and of its targets ("target", "pole_target") it has.
    """

    constraint_fields: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = dataclasses.field(
        default_factory=dict
    )


_state: Final = SettingsLayouts()
"""The settings types' properties read in this Blender session."""


def figure_inputs(obj: Any) -> tuple[Any, ...]:
    """Everything Reach builds ``obj``'s figure and problem from, but the pose and places.

    Two results are equal exactly when none of it changed; floats are compared bit for bit.
    """
    bones, pose = obj.data.bones, obj.pose.bones
    parents = tuple("" if (parent := bone.parent) is None else parent.name for bone in bones)
    return (
        tuple(bones.keys()),
        parents,
        _arrays(bones, BONE_FIELDS),
        _arrays(pose, POSE_FIELDS),
        _constraints(pose),
        _animation(obj),
        _settings(obj),
    )


def _constraints(pose: Any) -> tuple[Any, ...]:
    """Each bone's constraints: :data:`CONSTRAINT_FIELDS` and their targets' objects."""
    read = []
    fields = _state.constraint_fields
    for bone in pose:
        for constraint in bone.constraints:
            kind = type(constraint).__name__
            own = fields.get(kind)
            if own is None:  # the fields and targets this type has, looked up once
                names = {p.identifier for p in constraint.bl_rna.properties}
                own = fields[kind] = (
                    tuple(f for f in CONSTRAINT_FIELDS if f in names),
                    tuple(t for t in ("target", "pole_target") if t in names),
                )
            values = [getattr(constraint, field) for field in own[0]]
            for target in own[1]:
                found = getattr(constraint, target)
                values.append(None if found is None else found.session_uid)
            read.append((bone.name, kind, *values))
    return tuple(read)


def _animation(obj: Any) -> tuple[Any, ...]:
    """The armature's drivers, its action, and the channels Reach writes that it keys.

    Drivers by what each drives and whether it is muted, the action by which one it is:
    the rig's notes name the bones either poses.
    """
    animation = obj.animation_data
    if animation is None:
        return ()
    drivers = tuple((d.data_path, d.array_index, d.mute) for d in animation.drivers)
    action = animation.action
    if action is None:
        return drivers, None, ()
    keyed = tuple((c.data_path, c.array_index) for c in action_curves(action))
    return drivers, action.session_uid, keyed


def _arrays(collection: Any, fields: tuple[tuple[str, Any, int], ...]) -> tuple[bytes, ...]:
    """Each field of every item of ``collection``, as raw bytes."""
    count = len(collection)
    read = []
    for field, kind, width in fields:
        values = np.empty(count * width, dtype=kind)
        collection.foreach_get(field, values)
        read.append(values.tobytes())
    return tuple(read)


def _settings(obj: Any) -> dict[str, Any]:
    """Reach's settings on ``obj`` as Blender stores them, nested groups and collections in.

    One call reads them all (``to_dict`` of their ID property group: 15–20 µs on a figure of
    29 joints, where reading each field through its property took 80–150). A setting left
    at its default is not stored, and one set equal to it is: both read as different,
    and the figure is built again, as for any change. :data:`SKIPPED`, the lists' active
    rows (``active_*``) and empty groups (Blender stores a group the first time it is read,
    its settings all at their defaults: the same as none) are left out at the top.
    """
    getter = getattr(obj, "bl_system_properties_get", None)  # Blender 5.0 on
    stored = obj if getter is None else getter()
    group = None if stored is None else stored.get("reach")
    if group is None:
        return {}
    values: dict[str, Any] = group.to_dict()
    for key in [k for k, v in values.items() if k in SKIPPED or k.startswith("active_") or v == {}]:
        del values[key]
    return values
