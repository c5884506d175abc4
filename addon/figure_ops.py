"""Operators that make a figure and edit its constraints.

``reach.figure_from_armature`` marks an armature a Reach figure (and checks that it can
be one); ``reach.add_constraint`` adds a constraint with a goal empty, made at the
effector or given; ``reach.remove_constraint`` removes one, optionally with its goal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import bpy
import numpy as np
from bpy.props import BoolProperty, StringProperty
from bpy.types import Operator
from mathutils import Matrix, Vector

from .bridge.anatomy import human_body
from .bridge.bone_ends import end_local, extent, where
from .bridge.goals import AXIS_VECTORS
from .bridge.joints import euler_order, joint_settings
from .bridge.kinds import figure_rig, rig_kind
from .bridge.mass import default_masses
from .bridge.pose import bone_angles
from .bridge.rig import Rig, armature_object, to_numpy
from .bridge.soles import ends_limb, holds_sole
from .errors import BlenderDataError, no_bone
from .joint_axes import body_frame
from .operator_base import (
    ArmatureOperator,
    BoneOperator,
    Result,
    active_index,
    remove_at,
    remove_goal,
    report_warnings,
)
from .properties import (
    ANY_OF,
    CHAIN_START,
    CONTACT,
    EFFECTOR,
    GOAL_TYPE,
    OFFSET,
    TRANSLATE_ROOT,
    USE_X,
    USE_Y,
    W_POSITION,
    WEIGHT,
)
from .renames import unique_name

EMPTY_DISPLAY: dict[str, Any] = {
    "POSITION": "SPHERE",
    "ORIENTATION": "ARROWS",
    "POSITION_ORIENTATION": "ARROWS",
    "AIM": "CONE",
    "LINE": "SINGLE_ARROW",
    "PLANE": "CIRCLE",
    "HALF_SPACE": "CUBE",
}
"""How a goal empty looks, by goal type."""

COPIED_SETTINGS = (
    "effector",
    "offset",
    "chain_start",
    "weight",
    "w_position",
    "use_x",
    "use_y",
    "any_of",
    "contact",
)
"""Properties of ``reach.add_constraint`` the new constraint takes as they are."""


def mark_figure(obj: Any, rig: Rig) -> None:
    """Mark the armature a Reach figure, with joint settings for each bone of ``rig``.

    A bone new to the figure gets a default mass (:func:`.bridge.mass.default_masses`).
    """
    settings = obj.reach
    settings.is_figure = True
    masses = default_masses(obj, [entry.name for entry in rig.layout])
    for entry in rig.layout:
        if entry.name not in settings.joints:
            joint = settings.joints.add()
            joint.name, joint.mass = entry.name, masses[entry.name]


@dataclass(frozen=True)
class FigureMark:
    """Whether an armature was a Reach figure, and its joint settings' names, at a time."""

    was_figure: bool
    joints: frozenset[str]

    @classmethod
    def of(cls, obj: Any) -> FigureMark:
        """The armature's marking now."""
        return cls(bool(obj.reach.is_figure), frozenset(obj.reach.joints.keys()))

    def restore(self, obj: Any) -> None:
        """Make the armature no figure again if it was none, without the joints added since."""
        settings = obj.reach
        if self.was_figure:
            return
        settings.is_figure = False
        for name in [j.name for j in settings.joints if j.name not in self.joints]:
            settings.joints.remove(settings.joints.find(name))


class REACH_OT_figure_from_armature(ArmatureOperator, Operator):
    """Make the armature a Reach figure: its bones become segments, their IK settings limits."""

    bl_idname = "reach.figure_from_armature"
    bl_label = "Make Reach Figure"

    translate_root: TRANSLATE_ROOT()  # type: ignore[valid-type]

    def run(self, context: Any) -> Result:  # noqa: D102
        obj = armature_object(self.armature, context)
        settings = obj.reach
        previous = (settings.is_figure, settings.translate_root)
        settings.translate_root = self.translate_root
        try:
            rig = figure_rig(obj)
        except BlenderDataError:
            settings.is_figure, settings.translate_root = previous
            raise
        mark_figure(obj, rig)
        report_warnings(self, rig.messages(kinds=rig.kind.reported_notes))
        self.report(
            {"INFO"},
            f"'{obj.name}': {len(rig.layout)} bones, {rig.figure.n_dofs} degrees of freedom",
        )
        for line in rig.kind.describe():
            self.report({"INFO"}, line)
        return {"FINISHED"}


class REACH_OT_add_constraint(BoneOperator, Operator):
    """Add a constraint on a bone, with a goal empty at its effector or an existing one."""

    bl_idname = "reach.add_constraint"
    bl_label = "Add Reach Constraint"

    effector: EFFECTOR()  # type: ignore[valid-type]
    offset: OFFSET()  # type: ignore[valid-type]
    goal: StringProperty(  # type: ignore[valid-type]
        name="Goal", description="An existing empty; empty: create one at the effector"
    )
    goal_type: GOAL_TYPE()  # type: ignore[valid-type]
    chain_start: CHAIN_START()  # type: ignore[valid-type]
    weight: WEIGHT()  # type: ignore[valid-type]
    w_position: W_POSITION()  # type: ignore[valid-type]
    use_x: USE_X()  # type: ignore[valid-type]
    use_y: USE_Y()  # type: ignore[valid-type]
    any_of: ANY_OF()  # type: ignore[valid-type]
    contact: CONTACT()  # type: ignore[valid-type]
    name: StringProperty(  # type: ignore[valid-type]
        name="Name", description="Constraint name (made unique); empty: made from the bone"
    )

    def run(self, context: Any) -> Result:  # noqa: D102
        obj, bone = self.target(context)
        chain_start = self.chain_start
        if chain_start and obj.data.bones.get(chain_start) is None:
            raise no_bone(obj, chain_start, "chain start")
        rig_kind(obj).check_chain(obj, bone, chain_start, f"a constraint on '{bone}'")
        goal = _existing_goal(self.goal)
        check_pose(obj, bone)
        if not obj.reach.is_figure:
            mark_figure(obj, figure_rig(obj))
        goal_type = self.goal_type
        sole = (
            self.contact
            and goal_type == "POSITION"
            and (
                holds_sole(obj.data.bones[bone])
                or _is_foot(obj, bone)
                or ends_limb(obj.data.bones[bone])
            )
        )
        if sole:  # a planted foot holds its sole, not one point (bridge.soles)
            goal_type = "POSITION_ORIENTATION"
        name = unique_name(obj.reach.constraints, self.name or f"{bone} {goal_type.lower()}")
        if goal is None:
            goal = _make_goal(
                context, obj, bone, self.effector, tuple(self.offset), goal_type, name
            )
        entry = obj.reach.constraints.add()
        entry.name = name
        entry.bone = bone
        entry.goal = goal
        for setting in COPIED_SETTINGS:
            setattr(entry, setting, getattr(self, setting))
        entry.goal_type = goal_type  # the operator's, or a sole's (above)
        if sole:
            self.report(
                {"INFO"},
                f"'{name}' holds {bone}'s sole: its position and orientation, and with "
                "Balance its footprint supports the figure",
            )
        placed = where(obj.data.bones[bone]) if self.effector == "TAIL" else ""
        if placed:
            self.report({"INFO"}, f"'{name}''s tail effector is at {placed}, not {bone}'s tail")
        if goal_type == "AIM":
            entry.aim_axis, why = aim_axis(obj, bone)
            if entry.aim_axis != "POS_Y":
                self.report(
                    {"INFO"},
                    f"'{name}' aims {bone}'s {entry.aim_axis.replace('_', ' ').lower()} "
                    f"axis, {why} (Aim axis changes it)",
                )
        obj.reach.active_constraint = len(obj.reach.constraints) - 1
        return {"FINISHED"}


FACE_DEPTH = 2
"""How far below a bone its face's bones may lie (Rigify's head → face → nose) for an aim on
it to look the way its face looks."""


def aim_axis(obj: Any, bone: str) -> tuple[str, str]:
    """An aim's default axis on ``bone`` (a key of :data:`.goals.AXIS_VECTORS`), and why.

    The way the bone's face looks, where the rig says (:func:`face_direction`); else the
    way the bone runs to its next joint (:func:`pointing_axis`).
    """
    data = obj.data.bones[bone]
    face = face_direction(obj, bone)
    if face is None:
        return pointing_axis(data), "the way the bone runs to its next joint"
    direction, why = face
    return nearest_axis(data.matrix_local.to_3x3().inverted() @ direction), why


def face_direction(obj: Any, bone: str) -> tuple[Vector, str] | None:
    """The way the face on ``bone`` looks at rest (armature space), and what tells it; or None.

    From the bone's joint to its nose's furthest joint, where a bone named nose lies
    within :data:`FACE_DEPTH` below it; else toward its eyes' middle, off the way the bone
    runs (a head rises toward its eyes as much as it faces them); else, on the head of a
    body Human Limits reads, the body's front.
    """
    data = obj.data.bones[bone]
    near = _below(data, FACE_DEPTH)
    noses = [b for b in near if "nose" in b.name.lower()]
    head = Vector(data.head_local)
    if noses:
        points = [Vector(b.head_local) for nose in noses for b in (nose, *nose.children_recursive)]
        tip = max(points, key=lambda point: (point - head).length)
        if (tip - head).length > 0.0:
            return (tip - head).normalized(), "the way its face looks (toward its nose)"
    eyes = [b for b in near if "eye" in b.name.lower()]
    if eyes:
        middle = sum((Vector(b.head_local) for b in eyes), Vector()) / len(eyes)
        runs = (data.matrix_local.to_3x3() @ end_local(data)).normalized()
        toward = middle - head
        toward -= toward.dot(runs) * runs
        if toward.length > 1e-6 * max(float(data.length), 1e-9):
            return toward.normalized(), "the way its face looks (toward its eyes)"
    joints, _ = human_body(obj)
    if joints.get(bone, ("", ""))[0] == "head":
        limbs = {n: key for n, key in joints.items() if key[0] in ("thigh", "upper_arm")}
        try:
            front = body_frame(obj, limbs)["front"]
        except BlenderDataError:
            return None
        return Vector(front.tolist()), "the way its face looks (the body's front)"
    return None


def _below(bone: Any, depth: int) -> list[Any]:
    """The bones at most ``depth`` levels below ``bone``."""
    found, level = [], list(bone.children)
    for _ in range(depth):
        found += level
        level = [child for b in level for child in b.children]
    return found


def nearest_axis(direction: Vector) -> str:
    """The key of :data:`.goals.AXIS_VECTORS` nearest ``direction`` (a bone's own frame)."""
    way = direction.normalized()
    return max(AXIS_VECTORS, key=lambda axis: float(way.dot(Vector(AXIS_VECTORS[axis]))))


def pointing_axis(bone: Any) -> str:
    """The bone axis nearest the way from its head to its end on the body.

    A key of :data:`.goals.AXIS_VECTORS`; its Y but on an imported skeleton whose bones
    point elsewhere than at their joints (:func:`.bone_ends.end_local`).
    """
    way = end_local(bone)
    if way.length <= 0.0:
        return "POS_Y"
    return nearest_axis(way)


def check_pose(obj: Any, bone: str) -> None:
    """Refuse a bone whose effector has no place to put a goal at.

    That is when its or a parent's channels are NaN, infinite or a zero quaternion.

    Raises:
        BlenderDataError: Naming the first such bone from the root down, and the fix.
    """
    pose_bone = obj.pose.bones[bone]
    chain = []
    while pose_bone is not None:
        chain.append(pose_bone)
        pose_bone = pose_bone.parent
    for pose_bone in reversed(chain):
        order = euler_order(joint_settings(obj, pose_bone.name), pose_bone)
        bone_angles(pose_bone, pose_bone.rotation_mode, order)
    if not np.all(np.isfinite(to_numpy(obj.matrix_world @ obj.pose.bones[bone].matrix))):
        raise BlenderDataError(
            f"bone '{bone}' has no finite place: its or a parent's location or scale is NaN "
            "or infinite, or the armature's transform is; clear them (Alt G, Alt S)"
        )


def _is_foot(obj: Any, bone: str) -> bool:
    """Whether ``bone`` is a human foot (a game skeleton's ankle-to-toe leaf bone too)."""
    return human_body(obj)[0].get(bone, ("", ""))[0] == "foot"


def _existing_goal(name: str) -> Any | None:
    """The empty named ``name`` (None when ``name`` is empty), checked."""
    if not name:
        return None
    goal = bpy.data.objects.get(name)
    if goal is None:
        raise BlenderDataError(f"no object named '{name}' for the goal")
    if goal.type != "EMPTY":
        raise BlenderDataError(f"goal '{name}' is a {goal.type.lower()}, not an empty")
    return goal


def _make_goal(
    context: Any,
    obj: Any,
    bone: str,
    effector: str,
    offset: tuple[float, ...],
    goal_type: str,
    name: str,
) -> Any:
    """A new empty at the effector, with the bone's axes, shaped by the goal type."""
    pose_bone = obj.pose.bones[bone]
    matrix = obj.matrix_world @ pose_bone.matrix
    size = extent(obj.data.bones[bone])
    if effector == "TAIL":
        point = matrix @ end_local(obj.data.bones[bone])
    elif effector == "HEAD":
        point = obj.matrix_world @ pose_bone.head
    else:
        point = matrix @ Vector(offset)
    goal = bpy.data.objects.new(f"Goal {name}", None)
    goal.empty_display_type = EMPTY_DISPLAY[goal_type]
    goal.empty_display_size = max(0.05, 0.25 * size * obj.matrix_world.to_scale()[0])
    rotation = matrix.to_quaternion()
    goal.matrix_world = Matrix.Translation(point) @ rotation.to_matrix().to_4x4()
    collections = obj.users_collection
    (collections[0] if collections else context.scene.collection).objects.link(goal)
    return goal


class REACH_OT_remove_constraint(ArmatureOperator, Operator):
    """Remove a Reach constraint (the active one), and optionally its goal empty."""

    bl_idname = "reach.remove_constraint"
    bl_label = "Remove Reach Constraint"
    builds_rig = False

    constraint: StringProperty(  # type: ignore[valid-type]
        name="Constraint", description="Constraint name; empty: the active constraint"
    )
    delete_goal: BoolProperty(  # type: ignore[valid-type]
        name="Delete goal",
        description="Also delete the goal empty, unless another constraint uses it",
        default=False,
    )

    def run(self, context: Any) -> Result:  # noqa: D102
        obj = armature_object(self.armature, context)
        constraints = obj.reach.constraints
        if self.constraint:
            index = constraints.find(self.constraint)
            if index < 0:
                raise BlenderDataError(
                    f"armature '{obj.name}' has no constraint '{self.constraint}'"
                )
        else:
            index = active_index(-1, obj.reach.active_constraint, len(constraints), "constraint")
        goal = constraints[index].goal
        obj.reach.active_constraint = remove_at(constraints, index)
        if self.delete_goal and goal is not None:
            users = remove_goal(context.blend_data.objects, goal)
            if users:
                self.report(
                    {"INFO"}, f"kept goal '{goal.name}': constraints of {', '.join(users)} use it"
                )
        return {"FINISHED"}


classes = (REACH_OT_figure_from_armature, REACH_OT_add_constraint, REACH_OT_remove_constraint)
