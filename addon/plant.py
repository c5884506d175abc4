"""``reach.plant_contacts``: imported motion's feet planted where they stand, in a new action.

The feet are found (:func:`.bridge.planting.find_feet`), their paths read frame by frame,
and their stances found (:mod:`.bridge.stances`). Each foot gets two of Reach's
constraints, its heel and its toe, keyed on through each stance and off elsewhere, with
goals keyed where the foot stood (:func:`.bridge.planting.plan`). The armature's action
is copied and the copy assigned, the original kept beside it with a fake user so that
nothing changes it; then every frame is baked into the copy with Reach's bake, comfort
off so that the legs keep the motion's own bend. What each foot slid before and after
is reported on Blender's pose of the new keys. The constraints stay, so that a goal
can be moved and the range baked again. A failure takes everything back: the original
action is assigned again and the copy, the constraints and goals made are removed, and
an armature that was no figure is none again.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import bpy
import numpy as np
from bpy.props import FloatProperty, IntProperty
from bpy.types import Operator
from numpy.typing import NDArray

from . import live
from .bake import BakeSession
from .bridge import planting
from .bridge.animated import animated_bones
from .bridge.rig import armature_object
from .bridge.solving import length_text
from .bridge.stances import LOW, STILL, Stance, Thresholds, find_stances
from .errors import BlenderDataError
from .figure_ops import FigureMark
from .operator_base import ArmatureOperator, Result, remove_goal, run_nested

__all__ = ["REACH_OT_plant_contacts", "classes"]

NAMES = {"heel": "{bone} heel planted", "toe": "{bone} toe planted"}
"""The planted constraints' names, per point of a foot."""


class Planting:
    """What one run of :class:`REACH_OT_plant_contacts` made, so that a failure undoes it.

    Args:
        obj: The armature object.
        original: Its action, kept as it is.
    """

    def __init__(self, obj: Any, original: Any) -> None:
        self.obj = obj
        self.original = original
        self.had_fake_user = bool(original.use_fake_user)
        self.marked = FigureMark.of(obj)
        self.active = int(obj.reach.active_constraint)
        self.planted: Any = None
        self.constraints: list[str] = []
        self.goals: list[Any] = []

    def new_action(self) -> Any:
        """A copy of the original action, assigned in its place (the original kept)."""
        self.planted = self.original.copy()
        self.planted.name = f"{self.original.name} planted"
        self.original.use_fake_user = True
        _assign(self.obj.animation_data, self.planted)
        return self.planted

    def constraint(self, bone: str, thigh: str, point: str) -> Any:
        """The planted constraint of ``bone``'s ``point``: a new one, or the one a run made."""
        name = NAMES[point].format(bone=bone)
        constraints = self.obj.reach.constraints
        if name not in constraints:
            run_nested(
                bpy.ops.reach.add_constraint,  # type: ignore[attr-defined]
                armature=self.obj.name,
                bone=bone,
                effector="HEAD" if point == "heel" else "TAIL",
                chain_start=thigh,
                name=name,
            )
            self.constraints.append(name)
            self.goals.append(constraints[name].goal)
        entry = constraints[name]
        if entry.goal is None:
            raise BlenderDataError(f"constraint '{name}' has no goal: remove it and plant again")
        return entry

    def undo(self) -> None:
        """Put the original action back; remove the copy, and the constraints and goals made."""
        obj = self.obj
        if self.planted is not None:
            _assign(obj.animation_data, self.original)
            bpy.data.actions.remove(self.planted)
            self.original.use_fake_user = self.had_fake_user
        constraints = obj.reach.constraints
        for name in self.constraints:
            if (index := constraints.find(name)) >= 0:
                constraints.remove(index)
        for goal in self.goals:
            if goal is not None and goal.name in bpy.data.objects:
                remove_goal(bpy.data.objects, goal)
        obj.reach.active_constraint = self.active
        self.marked.restore(obj)


def _assign(animation: Any, action: Any) -> None:
    """Give ``animation`` the action ``action`` in place of its own, on the same slot.

    In Blender 4.4 and newer, a slot of the same identifier, where assigning found none.
    """
    slot = getattr(animation, "action_slot", None)
    animation.action = action
    if slot is not None and animation.action_slot is None:
        same = [each for each in action.slots if each.identifier == slot.identifier]
        if same:
            animation.action_slot = same[0]


def _action(obj: Any) -> Any:
    """The armature's action, or why there is none to clean."""
    animation = obj.animation_data
    action = animation.action if animation is not None else None
    if action is None:
        raise BlenderDataError(
            f"armature '{obj.name}' has no action to clean: import motion onto it or key it first"
        )
    return action


def _frames(action: Any, start: int, end: int) -> list[int]:
    """The frames of ``start``–``end`` the action has keys over.

    Raises:
        BlenderDataError: For an empty range, or one outside the action's frames.
    """
    if end < start:
        raise BlenderDataError(f"the last frame {end} comes before the first {start}")
    first, last = (float(v) for v in action.frame_range)
    low, high = max(start, math.ceil(first)), min(end, math.floor(last))
    if high <= low:
        raise BlenderDataError(
            f"frames {start}–{end} lie outside action '{action.name}' (its keys span "
            f"frames {first:g}–{last:g}): set the range within them"
        )
    return list(range(low, high + 1))


def _check_legs(obj: Any, feet: Sequence[planting.FootBones]) -> None:
    """Refuse legs with a bone a driver poses: no key of Reach's would move it.

    Raises:
        BlenderDataError: Naming the first such bone and the way out.
    """
    driven, _ = animated_bones(obj)
    for foot in feet:
        for bone in planting.leg_bones(obj, foot):
            if bone in driven:
                raise BlenderDataError(
                    f"bone '{bone}' of {foot.bone}'s leg is posed by a driver, so no key can "
                    "plant its foot: remove the driver, or plant a copy of the armature without it"
                )


def _leg(obj: Any, feet: Sequence[planting.FootBones]) -> float:
    """The legs' length at rest in world units: the thigh's head to the ankle, the longest."""
    bones = obj.data.bones
    scale = float(np.mean(tuple(obj.matrix_world.to_scale())))
    return scale * max(
        float((bones[foot.bone].head_local - bones[foot.thigh].head_local).length) for foot in feet
    )


def _key_plan(obj: Any, entry: Any, plan: planting.Plan, frames: Sequence[int]) -> None:
    """Key the constraint's ``enabled`` where it changes and its goal where it is on."""
    goal = entry.goal
    goal.animation_data_clear()
    path = entry.path_from_id("enabled")
    before: bool | None = None
    for frame, on, where in zip(frames, plan.on, plan.goal, strict=True):
        if bool(on) != before:
            entry.enabled = bool(on)
            obj.keyframe_insert(path, frame=frame)
            before = bool(on)
        if on:
            goal.location = tuple(where)
            goal.keyframe_insert("location", frame=frame)


def _slid(points: NDArray[np.float64], stances: Sequence[Stance]) -> float:
    """The most a point moved within any one of its stances (:func:`.planting.travel`)."""
    return max((planting.travel(points, stance.toe) for stance in stances), default=0.0)


class REACH_OT_plant_contacts(ArmatureOperator, Operator):
    """Find where the feet stand in the motion, plant them there, and bake into a new action."""

    bl_idname = "reach.plant_contacts"
    bl_label = "Plant Contacts"

    frame_start: IntProperty(name="Start", description="First frame to clean", default=1)  # type: ignore[valid-type]
    frame_end: IntProperty(name="End", description="Last frame to clean", default=250)  # type: ignore[valid-type]
    still: FloatProperty(  # type: ignore[valid-type]
        name="Still",
        description="A foot slower than this many leg lengths a second may be standing",
        default=STILL,
        min=0.0,
    )
    low: FloatProperty(  # type: ignore[valid-type]
        name="Low",
        description="A foot within this many leg lengths of the lowest foot may be standing",
        default=LOW,
        min=0.0,
    )

    def run(self, context: Any) -> Result:  # noqa: D102
        obj = armature_object(self.armature, context)
        scene = context.scene
        original = _action(obj)
        frames = _frames(original, self.frame_start, self.frame_end)
        feet = planting.find_feet(obj)
        _check_legs(obj, feet)
        fps = scene.render.fps / scene.render.fps_base
        current = scene.frame_current
        with live.paused():
            try:
                paths = planting.foot_paths(scene, obj, feet, frames)
                found = find_stances(paths, fps, _leg(obj, feet), Thresholds(self.still, self.low))
                if not any(found.values()):
                    self.report(
                        {"WARNING"},
                        f"no foot stands still on the ground in frames {frames[0]}–{frames[-1]}: "
                        "nothing planted (raise Still or Low if the feet do stand)",
                    )
                    return {"CANCELLED"}
                made = Planting(obj, original)
                try:
                    summary = self._plant(context, made, feet, frames, paths, found, fps)
                except Exception:  # whatever stopped it, nothing it made stays
                    made.undo()
                    raise
            finally:
                scene.frame_set(current)
        for line in summary:
            self.report({"INFO"}, line)
        return {"FINISHED"}

    def _plant(
        self,
        context: Any,
        made: Planting,
        feet: Sequence[planting.FootBones],
        frames: list[int],
        paths: dict[str, Any],
        found: dict[str, list[Stance]],
        fps: float,
    ) -> list[str]:
        """Key the constraints, bake the frames into a copy of the action; the report."""
        obj = made.obj
        planted = made.new_action()
        for foot in feet:
            plans = planting.plan(paths[foot.bone], found[foot.bone], fps)
            for point, plan in plans.items():
                if plan.on.any():
                    _key_plan(obj, made.constraint(foot.bone, foot.thigh, point), plan, frames)
        settings = obj.reach
        kept = settings.comfort, settings.translate_root
        # comfort off: the legs keep the motion's own bend; the root's travel read as the
        # figure's own, so that a keyed root does not build the figure again each frame
        settings.comfort, settings.translate_root = 0.0, True
        try:
            session = BakeSession(context, obj, frames[0], frames[-1])
            while not session.done:
                session.step()
            written = session.finish(None)
        finally:
            settings.comfort, settings.translate_root = kept
        after = planting.foot_paths(context.scene, obj, feet, frames)
        lines = [
            f"planted frames {frames[0]}–{frames[-1]} into action '{planted.name}' "
            f"({written} keys); '{made.original.name}' is kept as it was"
        ]
        for foot in feet:
            stances = found[foot.bone]
            if not stances:
                lines.append(f"{foot.bone}: never stands in these frames; left as it was")
                continue
            lines.append(
                f"{foot.bone}: {len(stances)} stances; its toe slid up to "
                f"{length_text(_slid(paths[foot.bone].toe, stances))} while down, now "
                f"{length_text(_slid(after[foot.bone].toe, stances))}"
            )
        if session.unmet:
            lines.append(session.summary(written))
        return lines


classes = (REACH_OT_plant_contacts,)
