"""``reach.plant_contacts``: imported motion's feet planted where they stand, in a new action.

The feet are found (:func:`.bridge.planting.find_feet`), their paths read frame by frame,
and their stances found (:mod:`.bridge.stances`). Each foot gets two of Reach's
constraints, its heel and its toe, keyed on through each stance and off elsewhere, with
goals keyed where the foot stood (:func:`.bridge.planting.plan`). The armature's action
is copied and the copy assigned, the original kept beside it with a fake user so that
nothing changes it; then every frame is baked into the copy with Reach's bake, comfort
off so that the legs keep the motion's own bend, and each leg bone's twist about its own
length held as the motion has it (IK Lock Y, put back after). What each foot slid before
and after is reported on Blender's pose of the new keys. The constraints stay, so that a
goal can be moved and the range baked again. A failure takes everything back: the original
action is assigned again and the copy, the constraints and goals made are removed, and
an armature that was no figure is none again.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import bpy
import numpy as np
from bpy.props import FloatProperty, IntProperty
from bpy.types import Operator
from mathutils import Matrix
from numpy.typing import NDArray

from . import live
from .bake import BakeSession
from .bridge import blas, planting
from .bridge.animated import animated_bones
from .bridge.rig import armature_object
from .bridge.solving import length_text
from .bridge.stances import LOW, STILL, Stance, Thresholds, find_stances
from .errors import BlenderDataError
from .figure_ops import FigureMark
from .operator_base import ArmatureOperator, Result, failure_message, remove_goal, run_nested

__all__ = ["REACH_OT_plant_contacts", "classes"]

T = TypeVar("T")

NAMES = {"heel": "{bone} heel planted", "toe": "{bone} toe planted", "hips": "{bone} hips kept"}
"""The planted constraints' names, per point of a foot, and the hips' (kept where the
motion has them unless a leg cannot reach)."""

KEPT_WEIGHT = 0.1
"""The hips' constraint's weight against each planted point's 1: where a leg cannot reach,
the hips move (its turns held, :class:`.bridge.planting.Hips`) rather than the foot slide."""


@dataclass(frozen=True)
class Kept:
    """A planted constraint an earlier run made, as it was before this run keyed it again.

    Attributes:
        enabled: Its switch.
        rotation_mode: Its goal's rotation mode.
        basis: Its goal's own transform.
        action: Its goal's action (None: none).
        slot: That action's slot (Blender 4.4 and newer), or None.
    """

    enabled: bool
    rotation_mode: str
    basis: Any
    action: Any
    slot: Any

    @classmethod
    def of(cls, entry: Any) -> Kept:
        """The constraint ``entry`` and its goal as they are now."""
        goal = entry.goal
        animation = goal.animation_data
        action = animation.action if animation is not None else None
        slot = getattr(animation, "action_slot", None) if action is not None else None
        return cls(
            bool(entry.enabled),
            goal.rotation_mode,
            goal.matrix_basis.copy(),
            action,
            slot,
        )

    def restore(self, entry: Any) -> None:
        """Put ``entry`` and its goal back as they were."""
        entry.enabled = self.enabled
        goal = entry.goal
        if goal is None:
            return
        goal.animation_data_clear()
        if self.action is not None:
            _assign(goal.animation_data_create(), self.action, self.slot)
        goal.rotation_mode = self.rotation_mode
        goal.matrix_basis = self.basis


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
        self.keyed: list[Any] = []
        """The goals' actions this run keyed."""
        self.reused: dict[str, Kept] = {}
        """Per constraint an earlier run made, its goal's motion and switch before this run."""

    def new_action(self) -> Any:
        """A copy of the original action, assigned in its place (the original kept)."""
        self.planted = self.original.copy()
        self.planted.name = f"{self.original.name.removesuffix(' planted')} planted"
        self.original.use_fake_user = True
        _assign(self.obj.animation_data, self.planted)
        return self.planted

    def constraint(self, foot: planting.FootBones, point: str, start: str | None = None) -> Any:
        """The planted constraint of ``foot``'s ``point``: a new one, or the one a run made.

        Its chain starts at ``start`` (None: the foot's thigh).
        """
        effector = "HEAD" if point == "heel" else "TAIL" if foot.toe is None else "OFFSET"
        return self._made(
            NAMES[point].format(bone=foot.bone),
            foot.bone,
            foot.thigh if start is None else start,
            effector=effector,
            offset=foot.toe if effector == "OFFSET" else (0.0, 0.0, 0.0),
        )

    def hips(self, bone: str) -> Any:
        """The constraint that keeps the hips ``bone`` where the motion has them.

        At the feet's priority, a tenth of their weight (:data:`KEPT_WEIGHT`), with the
        feet's chains from it: where the legs reach, every constraint is met and the hips
        stay as they were; where a leg cannot, the least-squares compromise moves the
        hips and leaves the foot a tenth of what equal weights would.
        """
        return self._made(
            NAMES["hips"].format(bone=bone),
            bone,
            bone,
            effector="HEAD",
            goal_type="POSITION_ORIENTATION",
            weight=KEPT_WEIGHT,
        )

    def _made(self, name: str, bone: str, start: str, **options: Any) -> Any:
        """The constraint ``name`` on ``bone`` with its chain from ``start``.

        Made with ``options`` if the armature has none of that name, else the one a run
        made, as the animator left it (its chain, priority and weight).
        """
        constraints = self.obj.reach.constraints
        if name not in constraints:
            run_nested(
                bpy.ops.reach.add_constraint,  # type: ignore[attr-defined]
                armature=self.obj.name,
                bone=bone,
                chain_start=start,
                name=name,
                **options,
            )
            self.constraints.append(name)
            self.goals.append(constraints[name].goal)
        entry = constraints[name]
        if entry.goal is None:
            raise BlenderDataError(f"constraint '{name}' has no goal: remove it and plant again")
        if name not in self.constraints and name not in self.reused:
            self.reused[name] = Kept.of(entry)
        return entry

    def key_matrices(
        self, entry: Any, matrices: NDArray[np.float64], frames: Sequence[int]
    ) -> None:
        """Key the constraint on and its goal at ``matrices`` (world, one a frame)."""
        goal = entry.goal
        goal.animation_data_clear()
        entry.enabled = True
        self.obj.keyframe_insert(entry.path_from_id("enabled"), frame=frames[0])
        goal.rotation_mode = "QUATERNION"
        before = None
        for frame, matrix in zip(frames, matrices, strict=True):
            location, turn, _ = Matrix(matrix.tolist()).decompose()
            if before is not None and turn.dot(before) < 0.0:
                turn.negate()  # the nearer of a turn's two quaternions: no flip between keys
            before = turn
            goal.location, goal.rotation_quaternion = location, turn
            goal.keyframe_insert("location", frame=frame)
            goal.keyframe_insert("rotation_quaternion", frame=frame)
        self.keyed.append(goal.animation_data.action)

    def key(self, entry: Any, plan: planting.Plan, frames: Sequence[int]) -> None:
        """Key the constraint's ``enabled`` where it changes and its goal where it is on."""
        goal = entry.goal
        goal.animation_data_clear()
        path = entry.path_from_id("enabled")
        before: bool | None = None
        for frame, on, where in zip(frames, plan.on, plan.goal, strict=True):
            if bool(on) != before:
                entry.enabled = bool(on)
                self.obj.keyframe_insert(path, frame=frame)
                before = bool(on)
            if on:
                goal.location = tuple(where)
                goal.keyframe_insert("location", frame=frame)
        if goal.animation_data is not None and goal.animation_data.action is not None:
            self.keyed.append(goal.animation_data.action)

    def undo(self) -> None:
        """Put the original action back; remove the copy, and the constraints and goals made."""
        obj = self.obj
        if self.planted is not None:
            _assign(obj.animation_data, self.original)
            bpy.data.actions.remove(self.planted)
            self.original.use_fake_user = self.had_fake_user
        constraints = obj.reach.constraints
        for name, kept in self.reused.items():
            if name in constraints:
                kept.restore(constraints[name])
        for name in self.constraints:
            if (index := constraints.find(name)) >= 0:
                constraints.remove(index)
        for goal in self.goals:
            if goal is not None and goal.name in bpy.data.objects:
                remove_goal(bpy.data.objects, goal)
        for action in self.keyed:  # the goals' keys, now that no goal holds them
            if not action.users:
                bpy.data.actions.remove(action)
        obj.reach.active_constraint = self.active
        self.marked.restore(obj)


def _assign(animation: Any, action: Any, slot: Any = None) -> None:
    """Give ``animation`` the action ``action`` in place of its own, on the same slot.

    In Blender 4.4 and newer, a slot of the same identifier (that of ``slot`` if given,
    else of the slot it had), where assigning found none.
    """
    slot = slot if slot is not None else getattr(animation, "action_slot", None)
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
        float((bones[foot.foot].head_local - bones[foot.top].head_local).length) for foot in feet
    )


def _slid(points: NDArray[np.float64], stances: Sequence[Stance]) -> float:
    """The most a point moved within any one of its stances (:func:`.planting.travel`)."""
    return max((planting.travel(points, stance.toe) for stance in stances), default=0.0)


def _hold_turns(obj: Any, bones: dict[str, str]) -> dict[str, tuple[bool, bool, bool]]:
    """Lock each bone's rotations about its axes for the solve (IK Lock), as the motion has it.

    ``bones``: each bone's name and the axes held, "xyz" or "y".

    Returns:
        Each bone's locks as they were, to be put back.
    """
    kept = {}
    for name, axes in bones.items():
        pose_bone = obj.pose.bones[name]
        kept[name] = (pose_bone.lock_ik_x, pose_bone.lock_ik_y, pose_bone.lock_ik_z)
        for axis in axes:
            setattr(pose_bone, f"lock_ik_{axis}", True)
    return kept


def _held(
    obj: Any, feet: Sequence[planting.FootBones], hips: planting.Hips | None
) -> dict[str, str]:
    """The bones whose turns a plant holds as the motion has them, and about which axes.

    The hips' (:attr:`.planting.Hips.held`) about every axis; each leg bone's about its
    own length (Y), the leg's twist: heel and toe leave a foot free to turn about the line
    through them, and a leg about itself, and where a leg cannot reach its planted foot
    the compromise would turn them far (half a turn) for a gain of nothing to see.
    """
    held = dict.fromkeys(() if hips is None else hips.held, "xyz")
    for foot in feet:
        for bone in planting.leg_bones(obj, foot):
            held.setdefault(bone, "y")
    return held


class PlantRun:
    """One plant under way: the stances keyed, the bake into the new action a frame at a time.

    Args:
        context: Blender context (its scene and view layer).
        made: What the plant made so far (the new action is made here).
        feet: The feet planted.
        frames: The frames cleaned.
        motion: The feet's heels and toes, and the hips' pose, per frame as the motion had
            them.
        hips: Where the legs hang from (the chains start there), or None.
        found: Each foot's stances.
        fps: The scene's frames per second.
        current: The frame to show again when the plant ends.
    """

    def __init__(
        self,
        context: Any,
        made: Planting,
        feet: Sequence[planting.FootBones],
        frames: list[int],
        motion: planting.FootTrack,
        hips: planting.Hips | None,
        found: dict[str, list[Stance]],
        fps: float,
        current: int,
    ) -> None:
        self.scene = context.scene
        self.made = made
        self.feet = feet
        self.frames = frames
        self.paths = paths = motion.paths()
        self.found = found
        self.current = current
        obj = made.obj
        made.new_action()
        plans = {foot.bone: planting.plan(paths[foot.bone], found[foot.bone], fps) for foot in feet}
        if hips is not None and not planting.out_of_reach(obj, feet, plans, motion):
            hips = None  # every leg reaches: the hips stay as the motion has them
        start = None if hips is None else hips.bone
        for foot in feet:
            for point, plan in plans[foot.bone].items():
                if plan.on.any():
                    made.key(made.constraint(foot, point, start), plan, frames)
        if hips is not None:
            made.key_matrices(made.hips(hips.bone), motion.matrices, frames)
        settings = obj.reach
        self.kept = settings.comfort, settings.translate_root
        # comfort off: the legs keep the motion's own bend; the root's travel read as the
        # figure's own, so that a keyed root does not build the figure again each frame
        settings.comfort, settings.translate_root = 0.0, True
        self.locks = _hold_turns(obj, _held(obj, feet, hips))
        """The held bones' IK locks as the animator had them, put back at the end."""
        self.track = planting.FootTrack(obj, feet, len(frames))
        """The feet on the pose each frame's keys give, read as the bake has Blender
        evaluate it."""
        try:
            self.session = BakeSession(context, obj, frames[0], frames[-1])
        except Exception:
            self._settings_back()
            raise
        self.session.watch = self.track.read

    @property
    def done(self) -> bool:
        """Whether every frame is baked."""
        return self.session.done

    def step(self) -> None:
        """Bake the next frame (:meth:`.BakeSession.step`)."""
        self.session.step()

    def _settings_back(self) -> None:
        obj = self.made.obj
        obj.reach.comfort, obj.reach.translate_root = self.kept
        for name, locks in self.locks.items():
            pose_bone = obj.pose.bones[name]
            pose_bone.lock_ik_x, pose_bone.lock_ik_y, pose_bone.lock_ik_z = locks

    def finish(self) -> list[str]:
        """Key the baked frames into the new action; the report, a line each."""
        made = self.made
        session = self.session
        try:
            written = session.finish(None)
        finally:
            self._settings_back()
        frames = self.frames
        after = self.track.paths()
        lines = [
            f"planted frames {frames[0]}–{frames[-1]} into action '{made.planted.name}' "
            f"({written} keys); '{made.original.name}' is kept as it was"
        ]
        for foot in self.feet:
            stances = self.found[foot.bone]
            if not stances:
                lines.append(f"{foot.bone}: never stands in these frames; left as it was")
                continue
            lines.append(
                f"{foot.bone}: {len(stances)} stances; its toe slid up to "
                f"{length_text(_slid(self.paths[foot.bone].toe, stances))} while down, now "
                f"{length_text(_slid(after[foot.bone].toe, stances))}"
            )
        if session.unmet:
            lines.append(session.summary(written))
        return lines

    def abandon(self) -> None:
        """Keep nothing: the pose, the frame, the action and the armature as they were."""
        try:
            self.session.abandon()
            self._settings_back()
        finally:
            self.made.undo()
            self.scene.frame_set(self.current)


class Plant(ArmatureOperator):
    """Mixin: the plant operator's properties, ``execute``, ``invoke`` and ``modal``.

    Attributes:
        plant: The plant under way (from ``invoke`` on).
        timer: The window timer that drives the modal plant.
    """

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

    plant: PlantRun
    timer: Any
    frame_time = 0.05
    """Seconds of baking per timer event of a modal plant before the window gets control."""

    def begin(self, context: Any) -> PlantRun | None:
        """Find the stances and key them; the plant to bake, or None (reported) if none.

        Raises:
            ReachError: For input refused by name; nothing is changed then.
        """
        obj = armature_object(self.armature, context)
        scene = context.scene
        original = _action(obj)
        frames = _frames(original, self.frame_start, self.frame_end)
        feet = planting.find_feet(obj)
        _check_legs(obj, feet)
        fps = scene.render.fps / scene.render.fps_base
        current = scene.frame_current
        # the hips' pose is read on the same frames as the feet, to hold them there
        hips = planting.hips_of(obj, feet)
        track = planting.FootTrack(obj, feet, len(frames), None if hips is None else hips.bone)
        try:
            track.read_frames(scene, frames)
        finally:
            scene.frame_set(current)
        paths = track.paths()
        found = find_stances(paths, fps, _leg(obj, feet), Thresholds(self.still, self.low))
        if not any(found.values()):
            self.report(  # type: ignore[attr-defined]
                {"WARNING"},
                f"no foot stands still on the ground in frames {frames[0]}–{frames[-1]}: "
                "nothing planted (raise Still or Low if the feet do stand)",
            )
            return None
        made = Planting(obj, original)
        try:
            return PlantRun(context, made, feet, frames, track, hips, found, fps, current)
        except Exception:  # whatever stopped it, nothing it made stays
            made.undo()
            scene.frame_set(current)
            raise

    def run(self, context: Any) -> Result:
        """Plant every frame of the range straight through (scripts)."""
        with live.paused():
            plant = self.begin(context)
            if plant is None:
                return {"CANCELLED"}
            try:
                while not plant.done:
                    plant.step()
                summary = plant.finish()
            except Exception:
                plant.abandon()
                raise
        for line in summary:
            self.report({"INFO"}, line)  # type: ignore[attr-defined]
        return {"FINISHED"}

    @blas.held_event
    def invoke(self, context: Any, event: Any) -> Result:
        """Plant modal, a few frames per timer event, with a progress bar; Esc keeps nothing."""
        if context.window is None:
            return self.execute(context)
        live.pause()
        try:
            if (obj := self.checked(context)) is not None:
                self.repaired(obj)
            plant = self.begin(context)
        except Exception as error:  # every failure is reported, never a traceback
            live.resume()
            self.report({"ERROR"}, failure_message(error))  # type: ignore[attr-defined]
            return {"CANCELLED"}
        if plant is None:
            live.resume()
            return {"CANCELLED"}
        self.plant = plant
        manager = context.window_manager
        manager.progress_begin(0, len(plant.frames))
        self.timer = manager.event_timer_add(0.001, window=context.window)
        manager.modal_handler_add(self)
        return {"RUNNING_MODAL"}

    @blas.held_event
    def modal(self, context: Any, event: Any) -> Result:
        """One window event of a modal plant: bake some frames, or stop on Esc."""
        plant = self.plant
        if event.type == "ESC":
            self._end(context, plant.abandon)
            self.report({"INFO"}, "plant stopped: nothing kept, the motion is as it was")  # type: ignore[attr-defined]
            return {"CANCELLED"}
        if event.type != "TIMER":
            return {"RUNNING_MODAL"}
        began = time.perf_counter()
        try:
            while not plant.done:
                plant.step()
                if time.perf_counter() - began >= self.frame_time:
                    break
        except Exception as error:
            self._end(context, plant.abandon)
            self.report({"ERROR"}, f"plant stopped, nothing kept: {failure_message(error)}")  # type: ignore[attr-defined]
            return {"CANCELLED"}
        context.window_manager.progress_update(len(plant.session.baked))
        if not plant.done:
            return {"RUNNING_MODAL"}
        try:
            summary = self._end(context, plant.finish)
        except Exception as error:
            plant.abandon()
            self.report({"ERROR"}, f"plant stopped, nothing kept: {failure_message(error)}")  # type: ignore[attr-defined]
            return {"CANCELLED"}
        for line in summary:
            self.report({"INFO"}, line)  # type: ignore[attr-defined]
        return {"FINISHED"}

    def _end(self, context: Any, last: Callable[[], T]) -> T:
        """Remove the timer and the progress bar, resume live mode; what ``last`` returns."""
        manager = context.window_manager
        manager.event_timer_remove(self.timer)
        manager.progress_end()
        try:
            return last()
        finally:
            live.resume()


class REACH_OT_plant_contacts(Plant, Operator):
    """Find where the feet stand in the motion, plant them there, and bake into a new action."""

    bl_idname = "reach.plant_contacts"
    bl_label = "Plant Contacts"


classes = (REACH_OT_plant_contacts,)
