"""``reach.drag_bone``: grab a bone and drag it; the figure follows, its constraints held.

Dragging a bone is dragging a goal made for the drag (:class:`Grip`): a position
constraint on the bone's effector point (its tail, or its head) with an empty of its
own, added beside the armature's constraints and pins, which keep holding. The drag is
:mod:`.drag`'s: the mouse moves the point in the view plane, X/Y/Z keep it to an axis,
R turns the bone (its grip then holds the bone's axes too), LMB/Enter confirms and
RMB/Esc restores the pose exactly. Either way the grip is removed, so that nothing of
the drag stays in the file but the pose (keyed with auto-keying), unless the bone is
pinned where it ends (``pin``, or P pressed during the drag). Invoked without a bone,
it grabs the bone under the mouse (:func:`pick_bone`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import bpy
from bpy.props import BoolProperty, EnumProperty, StringProperty
from bpy.types import Operator
from mathutils import Vector

from ..solver import PIN_WEIGHT
from .bridge import blas
from .bridge.goals import effector_point
from .bridge.rig import armature_object
from .drag import DragGoal
from .drag_session import DragSession
from .errors import BlenderDataError, no_bone
from .figure_ops import FigureMark
from .operator_base import Result, remove_goal, run_nested
from .renames import unique_name
from .view import ViewMatrices, location_to_region

PICK_RADIUS = 20.0
"""How near the mouse [px] a bone must be drawn to be grabbed."""

HEADER = (
    "Reach: drag the bone · X/Y/Z axis · R rotate · P pin where it ends · "
    "LMB/Enter confirm · RMB/Esc cancel"
)


def pick_bone(
    view: ViewMatrices, mouse: tuple[float, float], obj: Any, radius: float = PICK_RADIUS
) -> tuple[str, str] | None:
    """The bone drawn nearest the region point ``mouse``, and its end nearer the mouse.

    Each visible bone is the segment from its head to its tail on screen; the nearest
    within ``radius`` pixels wins. None when no bone is that near.
    """
    best: tuple[float, str, str] | None = None
    world = obj.matrix_world
    point = Vector((mouse[0], mouse[1]))
    for pose_bone in obj.pose.bones:
        if pose_bone.bone.hide:
            continue
        head = Vector(location_to_region(view, world @ pose_bone.head))
        tail = Vector(location_to_region(view, world @ pose_bone.tail))
        along = tail - head
        share = 0.0 if along.length_squared == 0.0 else (point - head).dot(along) / along.dot(along)
        share = min(max(share, 0.0), 1.0)
        distance = (head + along * share - point).length
        if distance <= radius and (best is None or distance < best[0]):
            best = (distance, str(pose_bone.name), "TAIL" if share >= 0.5 else "HEAD")
    return None if best is None else (best[1], best[2])


@dataclass
class Grip:
    """The constraint and goal empty a bone drag adds, and how to take them away.

    Attributes:
        obj: The armature object.
        name: The constraint's name.
        goal: Its goal empty.
        marked: Whether the armature was a Reach figure before (else it is made one
            for the drag, and made none again when the drag is cancelled).
    """

    obj: Any
    name: str
    goal: Any
    marked: FigureMark

    @classmethod
    def add(cls, obj: Any, bone: str, effector: str, chain_start: str) -> Grip:
        """Add a position constraint on ``bone``'s ``effector`` with an empty at it.

        Raises:
            BlenderDataError: What Add Constraint refuses (a bone in no chain Reach poses,
                a chain start not above it, …), as it says it.
        """
        settings = obj.reach
        marked = FigureMark.of(obj)
        active = settings.active_constraint
        name = unique_name(settings.constraints, f"Drag {bone}")
        run_nested(
            bpy.ops.reach.add_constraint,  # type: ignore[attr-defined]
            armature=obj.name,
            bone=bone,
            effector=effector,
            chain_start=chain_start,
            goal_type="POSITION",
            name=name,
        )
        settings.active_constraint = active
        return cls(obj, name, settings.constraints[name].goal, marked)

    @property
    def entry(self) -> Any:
        """The constraint."""
        return self.obj.reach.constraints[self.name]

    def hold_axes(self) -> None:
        """Make the grip hold the bone's axes as well, from how the bone is turned now."""
        entry = self.entry
        if entry.goal_type == "POSITION_ORIENTATION":
            return
        pose_bone = self.obj.pose.bones[entry.bone]
        turn = (self.obj.matrix_world @ pose_bone.matrix).to_quaternion()
        location = self.goal.matrix_world.translation.copy()
        self.goal.matrix_world = turn.to_matrix().to_4x4()
        self.goal.matrix_world.translation = location
        entry.goal_type = "POSITION_ORIENTATION"

    def remove(self, restore_figure: bool) -> None:
        """Take the constraint and its empty away (and, if asked, the figure marking)."""
        settings = self.obj.reach
        index = settings.constraints.find(self.name)
        active = settings.active_constraint
        if index >= 0:
            settings.constraints.remove(index)
            settings.active_constraint = active - 1 if active > index else active
        remove_goal(bpy.data.objects, self.goal)
        if restore_figure:
            self.marked.restore(self.obj)

    def pin(self, bone_point: Vector) -> str:
        """Keep the grip as a pin of its point at ``bone_point``; the pin's name."""
        entry = self.entry
        name = unique_name(self.obj.reach.constraints, f"Pin {entry.bone}")
        entry.name = name
        entry.pinned = True
        entry.weight = PIN_WEIGHT
        self.goal.name = f"Goal {name}"
        self.goal.matrix_world.translation = bone_point
        return name


class DragBone(DragGoal):
    """Mixin: the bone drag's properties; the drag itself is :class:`.drag.DragGoal`'s.

    Attributes:
        grip: The constraint and empty the drag added (from ``begin`` on).
    """

    bone: StringProperty(  # type: ignore[valid-type]
        name="Bone",
        description="The bone to drag; empty: the bone under the mouse (invoked), else the "
        "active bone",
    )
    effector: EnumProperty(  # type: ignore[valid-type]
        name="Effector",
        items=[("TAIL", "Tail", "The bone's tail"), ("HEAD", "Head", "The bone's head")],
        default="TAIL",
        description="The point of the bone dragged (a bone picked under the mouse: its "
        "end nearer the mouse)",
    )
    chain_start: StringProperty(  # type: ignore[valid-type]
        name="Chain start", description="The highest bone the drag moves; empty: the root"
    )
    pin: BoolProperty(  # type: ignore[valid-type]
        name="Pin", description="Pin the bone's point where the drag ends", default=False
    )

    grip: Grip
    header = HEADER

    def begin(self, context: Any) -> DragSession:
        """Add the grip on the bone (named, under the mouse, or active) and start.

        Raises:
            ReachError: For a missing armature or bone, or constraints that cannot be solved.
        """
        obj = armature_object(self.armature, context)
        bone, effector = self.bone, self.effector
        if not bone and getattr(self, "view", None) is not None:
            picked = pick_bone(self.view, self.mouse, obj)
            if picked is None:
                raise BlenderDataError(f"no bone of '{obj.name}' under the mouse to drag")
            bone, effector = picked
        elif not bone:
            active = obj.data.bones.active
            if active is None:
                raise BlenderDataError(f"armature '{obj.name}' has no active bone; pass 'bone'")
            bone = str(active.name)
        elif obj.data.bones.get(bone) is None:
            raise no_bone(obj, bone)
        self.grip = Grip.add(obj, bone, effector, self.chain_start)
        try:
            return DragSession(context, obj, self.grip.goal, key_goal=False)
        except Exception:
            self.grip.remove(restore_figure=True)
            raise

    @blas.held_event
    def invoke(self, context: Any, event: Any) -> Result:
        """Grab the bone (under the mouse); with none there, pass the event on (a box select)."""
        interactive = len(self.path) == 0 and context.area is not None
        if interactive and not self.bone and context.area.type == "VIEW_3D":
            view = ViewMatrices.from_region(context.region, context.region_data)
            try:
                obj = armature_object(self.armature, context)
            except BlenderDataError:
                obj = None
            if (
                obj is not None
                and pick_bone(view, (event.mouse_region_x, event.mouse_region_y), obj) is None
            ):
                return {"PASS_THROUGH", "CANCELLED"}
        return super().invoke(context, event)

    def confirm(self) -> None:
        """Keep the pose; take the grip away, or keep it as a pin where the bone ended."""
        self.finish_drag()
        if not self.pin:
            self.grip.remove(restore_figure=False)
            return
        obj, entry = self.drag.obj, self.grip.entry
        point = Vector(effector_point(entry, obj.data.bones[entry.bone]))
        self.grip.pin(obj.matrix_world @ obj.pose.bones[entry.bone].matrix @ point)

    def abandon(self) -> None:
        """Restore the pose exactly and take the grip away."""
        self.drag.cancel()
        self.grip.remove(restore_figure=True)
        self.drag.view_layer.update()

    def on_turn(self) -> None:
        """R: the grip holds the bone's axes from now on, so that turning it turns the bone."""
        self.grip.hold_axes()
        self.drag.rebuild = True

    def handle(self, context: Any, event: Any) -> Result:
        """P (pressed) toggles pinning where the drag ends; the rest as a goal's drag."""
        if event.type == "P" and event.value == "PRESS":
            self.pin = not self.pin
            context.area.header_text_set(f"{HEADER} · {'pin on' if self.pin else 'pin off'}")
            return {"RUNNING_MODAL"}
        return super().handle(context, event)


class REACH_OT_drag_bone(DragBone, Operator):
    """Drag a bone: the figure follows under its limits, every constraint held (P: pin it)."""

    bl_idname = "reach.drag_bone"
    bl_label = "Drag Bone"
    bl_options = {"REGISTER", "UNDO", "GRAB_CURSOR", "BLOCKING"}


classes = (REACH_OT_drag_bone,)
