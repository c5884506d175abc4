"""Reach's operators: thin wrappers that turn :class:`~.adapter.ReachError` into reports.

Each operator takes its targets as explicit properties (object and bone names) and falls
back to the active object and bone when a name is empty, so scripts and headless runs
can call it without a viewport.
"""

from __future__ import annotations

import time
from typing import Any

import bpy
import numpy as np
from bpy.props import BoolProperty, CollectionProperty, EnumProperty, FloatProperty, StringProperty
from bpy.types import Operator
from mathutils import Matrix, Vector

from . import adapter, session
from ._types import Result
from .adapter import ReachError
from .properties import EFFECTOR_ITEMS, GOAL_TYPE_ITEMS, ReachPathPoint

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


def armature_poll(operator: type[Operator], context: Any) -> bool:
    """Poll for operators on the active armature; explain when disabled."""
    obj = context.active_object
    if obj is None or obj.type != "ARMATURE":
        operator.poll_message_set("Select an armature (or pass its name as 'armature')")
        return False
    return True


class ArmatureOperator:
    """Mixin: an operator on one armature, named or the active object."""

    armature: StringProperty(  # type: ignore[valid-type]
        name="Armature", description="Armature object; empty: the active object"
    )

    @classmethod
    def poll(cls, context: Any) -> bool:
        """Available when the scene has an armature; says so when it has none."""
        scene = context.scene
        if scene is None or not any(o.type == "ARMATURE" for o in scene.objects):
            cls.poll_message_set("Add an armature first: Reach poses armatures")  # type: ignore[attr-defined]
            return False
        return True

    def execute(self, context: Any) -> Result:
        """Run :meth:`run`; a :class:`~.adapter.ReachError` becomes an error report."""
        try:
            return self.run(context)
        except ReachError as error:
            self.report({"ERROR"}, str(error))  # type: ignore[attr-defined]
            return {"CANCELLED"}

    def run(self, context: Any) -> Result:
        """The operator's work, on valid input.

        Raises:
            ReachError: For bad input; :meth:`execute` reports it and cancels.
        """
        raise NotImplementedError


def report_warnings(operator: Operator, warnings: list[str]) -> None:
    """Report each adapter warning once, as a warning."""
    for warning in dict.fromkeys(warnings):
        operator.report({"WARNING"}, warning)


def bone_name(obj: Any, name: str) -> str:
    """The bone ``name`` of the armature (its active bone when empty), checked to exist.

    Raises:
        ReachError: If there is no such bone, or no active bone.
    """
    if not name:
        active = obj.data.bones.active
        if active is None:
            raise ReachError(f"armature '{obj.name}' has no active bone; pass 'bone'")
        return str(active.name)
    if obj.data.bones.get(name) is None:
        raise ReachError(f"armature '{obj.name}' has no bone '{name}'")
    return name


def unique_name(collection: Any, base: str) -> str:
    """``base``, or ``base 2``, ``base 3``, … whichever is not yet in ``collection``."""
    name, k = base, 1
    while name in collection:
        k += 1
        name = f"{base} {k}"
    return name


def goal_users(objects: Any, goal: Any) -> list[Any]:
    """The armatures among ``objects`` with a Reach constraint whose goal is ``goal``."""
    return [
        o
        for o in objects
        if o.type == "ARMATURE" and any(c.goal == goal for c in o.reach.constraints)
    ]


def mark_figure(obj: Any, rig: adapter.Rig) -> None:
    """Mark the armature a Reach figure, with joint settings for each bone of ``rig``."""
    settings = obj.reach
    settings.is_figure = True
    for entry in rig.layout:
        if entry.name not in settings.joints:
            settings.joints.add().name = entry.name


class REACH_OT_figure_from_armature(ArmatureOperator, Operator):
    """Make the armature a Reach figure: its bones become segments, their IK settings limits."""

    bl_idname = "reach.figure_from_armature"
    bl_label = "Make Reach Figure"
    bl_options = {"REGISTER", "UNDO"}

    translate_root: BoolProperty(  # type: ignore[valid-type]
        name="Move root",
        description="Root bones may also translate (so the hips can move)",
        default=False,
    )

    def run(self, context: Any) -> Result:  # noqa: D102
        obj = adapter.armature_object(self.armature, context)
        settings = obj.reach
        previous = (settings.is_figure, settings.translate_root)
        settings.translate_root = self.translate_root
        try:
            rig = adapter.build_rig(obj)
        except ReachError:
            settings.is_figure, settings.translate_root = previous
            raise
        mark_figure(obj, rig)
        report_warnings(self, rig.warnings)
        self.report(
            {"INFO"},
            f"'{obj.name}': {len(rig.layout)} bones, {rig.figure.n_dofs} degrees of freedom",
        )
        return {"FINISHED"}


class REACH_OT_add_constraint(ArmatureOperator, Operator):
    """Add a constraint on a bone, with a goal empty at its effector or an existing one."""

    bl_idname = "reach.add_constraint"
    bl_label = "Add Reach Constraint"
    bl_options = {"REGISTER", "UNDO"}

    bone: StringProperty(name="Bone", description="Effector bone; empty: the active bone")  # type: ignore[valid-type]
    effector: EnumProperty(name="Effector", items=EFFECTOR_ITEMS, default="TAIL")  # type: ignore[valid-type]
    offset: bpy.props.FloatVectorProperty(name="Offset", size=3, subtype="TRANSLATION")  # type: ignore[valid-type]
    goal: StringProperty(  # type: ignore[valid-type]
        name="Goal", description="An existing empty; empty: create one at the effector"
    )
    goal_type: EnumProperty(name="Type", items=GOAL_TYPE_ITEMS, default="POSITION")  # type: ignore[valid-type]
    chain_start: StringProperty(  # type: ignore[valid-type]
        name="Chain start", description="First bone it may move; empty: to the root"
    )
    weight: FloatProperty(name="Weight", min=0.0, default=1.0)  # type: ignore[valid-type]
    w_position: FloatProperty(name="Position weight", min=0.0, max=1.0, default=0.5)  # type: ignore[valid-type]
    use_x: BoolProperty(name="Match X", default=True)  # type: ignore[valid-type]
    use_y: BoolProperty(name="Match Y", default=True)  # type: ignore[valid-type]
    any_of: StringProperty(name="Any of", description="Name of an any-of set to join")  # type: ignore[valid-type]
    name: StringProperty(name="Name", description="Constraint name; empty: made from the bone")  # type: ignore[valid-type]

    def run(self, context: Any) -> Result:  # noqa: D102
        obj = adapter.armature_object(self.armature, context)
        bone = bone_name(obj, self.bone)
        chain_start = self.chain_start
        if chain_start and obj.data.bones.get(chain_start) is None:
            raise ReachError(f"armature '{obj.name}' has no bone '{chain_start}' (chain start)")
        if chain_start and not _is_ancestor(obj.data.bones[chain_start], obj.data.bones[bone]):
            raise ReachError(f"chain start '{chain_start}' is not '{bone}' or one of its parents")
        if self.goal:
            goal = bpy.data.objects.get(self.goal)
            if goal is None:
                raise ReachError(f"no object named '{self.goal}' for the goal")
            if goal.type != "EMPTY":
                raise ReachError(f"goal '{self.goal}' is a {goal.type.lower()}, not an empty")
        else:
            goal = None
        if not obj.reach.is_figure:
            mark_figure(obj, adapter.build_rig(obj))
        name = self.name or unique_name(obj.reach.constraints, f"{bone} {self.goal_type.lower()}")
        if goal is None:
            goal = _make_goal(
                context, obj, bone, self.effector, tuple(self.offset), self.goal_type, name
            )
        entry = obj.reach.constraints.add()
        entry.name = name
        entry.bone = bone
        entry.effector = self.effector
        entry.offset = self.offset
        entry.goal = goal
        entry.goal_type = self.goal_type
        entry.chain_start = chain_start
        entry.weight = self.weight
        entry.w_position = self.w_position
        entry.use_x = self.use_x
        entry.use_y = self.use_y
        entry.any_of = self.any_of
        obj.reach.active_constraint = len(obj.reach.constraints) - 1
        return {"FINISHED"}


def _is_ancestor(candidate: Any, bone: Any) -> bool:
    while bone is not None:
        if bone == candidate:
            return True
        bone = bone.parent
    return False


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
    if effector == "TAIL":
        point = obj.matrix_world @ pose_bone.tail
    elif effector == "HEAD":
        point = obj.matrix_world @ pose_bone.head
    else:
        point = matrix @ Vector(offset)
    goal = bpy.data.objects.new(f"Goal {name}", None)
    goal.empty_display_type = EMPTY_DISPLAY[goal_type]
    goal.empty_display_size = max(
        0.05, 0.25 * obj.data.bones[bone].length * obj.matrix_world.to_scale()[0]
    )
    rotation = matrix.to_quaternion()
    goal.matrix_world = Matrix.Translation(point) @ rotation.to_matrix().to_4x4()
    collections = obj.users_collection
    (collections[0] if collections else context.scene.collection).objects.link(goal)
    return goal


class REACH_OT_solve(ArmatureOperator, Operator):
    """Solve all enabled constraints of the armature once and write the pose."""

    bl_idname = "reach.solve"
    bl_label = "Solve"
    bl_options = {"REGISTER", "UNDO"}

    clamp: BoolProperty(  # type: ignore[valid-type]
        name="Clamp to limits",
        description="First move a pose that is outside the limits into them",
        default=False,
    )

    def run(self, context: Any) -> Result:  # noqa: D102
        start = time.perf_counter()
        obj = adapter.armature_object(self.armature, context)
        setup = adapter.build_problem(obj, context.scene)
        outcome = session.solve_from_pose(
            obj, setup, time_limit=None, restarts=obj.reach.restarts, clamp=self.clamp
        )
        moved = setup.moved
        if self.clamp:
            moved = [e.name for e in setup.rig.layout]
        adapter.write_pose(obj, setup.rig, outcome.result.theta, moved)
        context.view_layer.update()
        session.store_stats(obj, outcome, 1000.0 * (time.perf_counter() - start))
        report_warnings(self, setup.rig.warnings)
        if outcome.unmet:
            self.report({"WARNING"}, obj.reach.stats.message)
        return {"FINISHED"}


class REACH_OT_clamp_pose(ArmatureOperator, Operator):
    """Move the pose into the joint limits (nearest pose inside them)."""

    bl_idname = "reach.clamp_pose"
    bl_label = "Clamp to Limits"
    bl_options = {"REGISTER", "UNDO"}

    def run(self, context: Any) -> Result:  # noqa: D102
        obj = adapter.armature_object(self.armature, context)
        rig = adapter.build_rig(obj)
        theta = adapter.read_pose(obj, rig)
        clamped = adapter.clamp_to_limits(rig, theta)
        changed = [
            e.name
            for k, e in enumerate(rig.layout)
            if np.any(np.abs(clamped - theta)[list(rig.figure.segments[k].dof_indices)] > 0.0)
        ]
        adapter.write_pose(obj, rig, clamped, changed)
        context.view_layer.update()
        self.report(
            {"INFO"},
            f"clamped {len(changed)} bones" if changed else "the pose is within the limits",
        )
        return {"FINISHED"}


class REACH_OT_drag_goal(ArmatureOperator, Operator):
    """Drag a goal: the figure follows under its limits (X/Y/Z: constrain to an axis)."""

    bl_idname = "reach.drag_goal"
    bl_label = "Drag Goal"
    bl_options = {"REGISTER", "UNDO", "GRAB_CURSOR", "BLOCKING"}

    goal: StringProperty(  # type: ignore[valid-type]
        name="Goal", description="The goal empty to drag; empty: the active object"
    )
    path: CollectionProperty(  # type: ignore[valid-type]
        type=ReachPathPoint, name="Path", description="Locations to replay as drag events"
    )

    _session: session.DragSession | None = None

    def _start(self, context: Any) -> session.DragSession:
        goal = bpy.data.objects.get(self.goal) if self.goal else context.active_object
        if goal is None:
            raise ReachError(
                f"no object named '{self.goal}' to drag"
                if self.goal
                else "no active object to drag"
            )
        obj = find_armature(self.armature, goal, context)
        return session.DragSession(context, obj, goal)

    def run(self, context: Any) -> Result:
        """Replay ``path`` as drag events; on a bad event, restore the pose and cancel."""
        drag = self._start(context)
        try:
            for point in self.path:
                drag.step(point.location)
        except ReachError as error:
            drag.cancel()
            raise ReachError(f"drag cancelled at event {len(drag.events) + 1}: {error}") from error
        drag.finish()
        if drag.last is not None and drag.last.unmet:
            self.report({"WARNING"}, drag.obj.reach.stats.message)
        return {"FINISHED"}

    def invoke(self, context: Any, event: Any) -> Result:  # noqa: D102
        from . import modal

        return modal.drag_invoke(self, context, event)

    def modal(self, context: Any, event: Any) -> Result:  # noqa: D102
        from . import modal

        return modal.drag_modal(self, context, event)


def find_armature(name: str, goal: Any, context: Any) -> Any:
    """The armature named ``name``, or the one figure with a constraint on ``goal``."""
    if name:
        return adapter.armature_object(name, context)
    users = goal_users(context.scene.objects, goal)
    if not users:
        raise ReachError(f"'{goal.name}' is the goal of no Reach constraint; pass 'armature'")
    return users[0]


class REACH_OT_live(ArmatureOperator, Operator):
    """Live mode: re-solve whenever a goal, the armature or a free bone moves."""

    bl_idname = "reach.live"
    bl_label = "Live"
    bl_options = {"REGISTER"}

    stop: BoolProperty(name="Stop", description="End live mode on the armature", default=False)  # type: ignore[valid-type]

    def run(self, context: Any) -> Result:  # noqa: D102
        from . import live

        obj = adapter.armature_object(self.armature, context)
        if self.stop:
            live.stop(obj.name)
        else:
            live.start(obj, context)
        return {"FINISHED"}

    def invoke(self, context: Any, event: Any) -> Result:  # noqa: D102
        result = self.execute(context)
        if self.stop or "CANCELLED" in result:
            return result
        self._armature = adapter.armature_object(self.armature, context).name
        context.window_manager.modal_handler_add(self)
        return {"RUNNING_MODAL"}

    def modal(self, context: Any, event: Any) -> Result:  # noqa: D102
        from . import live

        if not live.is_live(self._armature):
            return {"FINISHED"}
        return {"PASS_THROUGH"}


classes = (
    REACH_OT_figure_from_armature,
    REACH_OT_add_constraint,
    REACH_OT_solve,
    REACH_OT_clamp_pose,
    REACH_OT_drag_goal,
    REACH_OT_live,
)
