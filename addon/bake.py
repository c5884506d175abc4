"""``reach.bake``: every enabled constraint held on every frame of a range, keyed.

For each frame the scene is set to it (so animated goals, an animated armature and
keyed ``enabled`` switches take their values), the pose starts from the animation's own
pose with the chains' bones at the previous frame's solution (warm-started frame to
frame), every enabled constraint is solved, and the solution is recorded. At the end —
or when the user stops with Esc — the bones that moved on any baked frame are keyed on
every baked frame, into the armature's action (a new one if it has none); nothing else
is changed. :class:`BakeSession` does the frames without a viewport; the operator runs
it straight through (``execute``, for scripts) or modal with a progress bar
(``invoke``).

On a plain rig nothing is written while the frames are solved: each frame's solution is
recorded as the channels it would give, and once the keys are in, each frame is set
again and judged on Blender's pose of those keys. Blender then evaluates the armature
once a frame, not three times, and copies nothing of it. Where nothing but Reach poses
the bones (no keys, drivers or NLA strips on the channels Reach reads, no frame handler
but Reach's), their pose is read on the first frame alone: the frames leave it as it is.
A control rig's limbs are planned the same way: one pass from Blender's evaluation of
the frame's motion places their controls (in IK mode the end control, Blender's IK
bending the chain in its plane); a frame whose keys Blender then poses a goal off is
placed again from that pose; so are the limbs below a trunk whose root control only
moves, which carries them rigidly. A frame whose write needs Blender's evaluation
between passes (a chain's plane that turns, a paw's heel, a trunk joint that turns, a
neck) is written and judged as it is solved, and the pose put back before the next.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from bpy.props import IntProperty
from bpy.types import Operator
from numpy.typing import NDArray

from . import handlers, live
from .bridge import blas, keys, posing, snapshot, solving
from .bridge.animated import poses_alone
from .bridge.arrays import Array, channel, pose_rows
from .bridge.balance import is_balance
from .bridge.kinds import figure_rig
from .bridge.pose import WRITTEN_CHANNELS
from .bridge.rig import Rig, armature_object
from .errors import BlenderDataError, ReachError
from .operator_base import ArmatureOperator, Result
from .properties import BAKE_REDUCE, BAKE_TOLERANCE


class BakeSession:
    """A bake of one armature over a frame range, a frame at a time.

    Args:
        context: Blender context (its scene and view layer).
        obj: The armature object.
        frame_start: First frame baked.
        frame_end: Last frame baked (inclusive).

    Raises:
        BlenderDataError: For an empty range or an armature without constraints.
    """

    def __init__(self, context: Any, obj: Any, frame_start: int, frame_end: int) -> None:
        if frame_end < frame_start:
            raise BlenderDataError(
                f"the bake's last frame {frame_end} comes before its first {frame_start}"
            )
        if not len(obj.reach.constraints):
            raise BlenderDataError(f"armature '{obj.name}' has no constraints to bake")
        self.scene = context.scene
        self.view_layer = context.view_layer
        self.obj = obj
        self.frames = list(range(frame_start, frame_end + 1))
        self.original_frame = int(self.scene.frame_current)
        self.snapshot = snapshot.PoseSnapshot(obj)
        self.layout_rig: Rig = figure_rig(obj)
        self.direct = self.layout_rig.kind.direct
        """Whether every frame is solved without writing and judged once keyed (a plain
        rig); a control rig's frames are where one pass places its controls."""
        self.wrote = False
        """Whether the last frame was written (its bones without keys stay so)."""
        self.watch: Callable[[int], None] | None = None
        """Called with a frame's index in the range once Blender has evaluated its pose
        as baked (then, or once keyed)."""
        self.poser = posing.Poser(obj, self.scene, self.view_layer)
        self.switches = keys.switch_curves(obj)
        """The keyed constraint switches (the action changes only when the bake keys it)."""
        self.still = self.direct and poses_alone(obj) and not handlers.others_on_frame_change()
        """Whether the frames leave the bones as they are: their pose is read once."""
        self.steps: list[tuple[int, posing.Step]] = []
        """The frames solved and not yet judged, with their steps."""
        self.baked: list[int] = []
        self.channels: list[dict[str, Array]] = []
        self.moved: set[str] = set()
        self.residual = 0.0
        self.unmet: list[int] = []
        self.unbalanced: list[int] = []
        """Frames on which the centre of mass left the support polygon (:mod:`.bridge.balance`)."""
        self.clamped: list[int] = []
        self.diverging: dict[str, str] = {}
        """Bones Blender posed otherwise than Reach wrote them on some frame, and why."""

    @property
    def done(self) -> bool:
        """Whether every frame of the range is baked."""
        return len(self.baked) == len(self.frames)

    def step(self) -> int:
        """Solve the next frame and record it; return it.

        Raises:
            ReachError: If the frame's constraints cannot be solved (a deleted goal, …).
        """
        frame = self.frames[len(self.baked)]
        obj = self.obj
        if self.wrote:
            self.snapshot.restore()  # bones without keys start from where they were
        self.scene.frame_set(frame)
        keys.apply_switches(obj, frame, self.switches)
        planned = None
        self.wrote = False
        if any(entry.enabled for entry in obj.reach.constraints):
            step = self.poser.bake_frame(first=not self.baked, write=False, reread=not self.still)
            if step.clamped:
                self.clamped.append(frame)
            self.moved.update(step.moved)
            planned = step.channels
            if planned is None:  # written and judged on Blender's pose
                self.wrote = True
                self._judged(frame, step.outcome)
            else:
                self.steps.append((frame, step))
        if planned is None and self.watch is not None:
            self.watch(len(self.baked))
        self.channels.append(self._record(planned))
        self.baked.append(frame)
        return frame

    def _judged(self, frame: int, outcome: solving.Outcome) -> None:
        """Note what ``outcome``, judged on Blender's pose of ``frame``, says."""
        self.diverging.update(outcome.diverging)
        self.residual = max(self.residual, *outcome.residuals.values())
        if outcome.unmet:
            self.unmet.append(frame)
        if any(is_balance(name) for name in outcome.unmet):
            self.unbalanced.append(frame)

    def _record(self, planned: dict[str, NDArray[np.float32]] | None) -> dict[str, Array]:
        """Every bone's channels now: ``planned`` where given, else as Blender holds them."""
        bones = self.obj.pose.bones
        known = planned or {}
        return {
            name: (known[name] if name in known else channel(bones, name, size)).astype(float)
            for name, size in WRITTEN_CHANNELS.items()
        }

    def _judge(self, keyed: Sequence[tuple[str, str]]) -> None:
        """Judge each frame solved without writing on Blender's pose of its keys.

        A control rig's frame whose keys Blender poses a goal off by more than the "met
        within" distance that its solution met (its IK landing a chain's end off where
        one pass foresaw it) has its controls placed again from that pose, and its
        ``keyed`` channels (bone, channel) keyed again. Within that distance a frame is
        kept as one pass placed it: Blender's IK lands a chain's end up to a few
        ten-thousandths of its length off where its end control says, and placing it
        closer costs evaluations of the rig and keys again on nearly every frame (twice
        the bake's time).
        """
        settings = self.obj.reach
        for frame, step in self.steps:
            self.scene.frame_set(frame)
            outcome = solving.judge(self.obj, step.setup, step.outcome, settings)
            # a goal the solution met (a compromise's stays unmet wherever it is placed)
            missed = set(outcome.unmet).difference(step.outcome.unmet)
            if missed and not self.direct:
                outcome = self._placed_again(frame, step, keyed)
            self._judged(frame, outcome)
            if self.watch is not None:
                self.watch(frame - self.frames[0])
        self.steps = []

    def _placed_again(
        self, frame: int, step: posing.Step, keyed: Sequence[tuple[str, str]]
    ) -> solving.Outcome:
        """Place ``frame``'s controls again from Blender's pose and key them; the verdict."""
        outcome = self.poser.place_again(step)
        index = frame - self.frames[0]
        self.channels[index] = channels = self._record(None)
        rows = pose_rows(self.obj.pose.bones)
        for name, kind in keyed:
            keys.key_frames(self.obj, name, kind, [frame], channels[kind][rows[name]][None])
        keys.replay(self.obj)
        self.snapshot.restore()  # what the placing wrote beyond the keys is not kept
        return outcome

    def finish(self, tolerance: float | None = None) -> int:
        """Key the moved bones on every baked frame, then show the current frame again.

        Args:
            tolerance: Reduce each channel's keys within this tolerance (its units);
                None keeps a key on every frame.

        Returns:
            The number of keys written.
        """
        obj = self.obj
        written = 0
        rows = pose_rows(obj.pose.bones)
        if self.baked:
            moved = keys.written_channels(obj, self.layout_rig, self.moved)
            keyed = [(name, kind) for name, channels in moved for kind in channels]

            def values(name: str, kind: str) -> Array:
                return np.array([c[kind][rows[name]] for c in self.channels])

            # the frames solved without writing are judged on every key, then reduced
            for name, kind in keyed:
                written += keys.key_frames(
                    obj,
                    name,
                    kind,
                    self.baked,
                    values(name, kind),
                    None if self.steps else tolerance,
                )
            keys.replay(obj)
            if self.steps:
                self._judge(keyed)
                if tolerance is not None:
                    written = sum(
                        keys.key_frames(obj, name, kind, self.baked, values(name, kind), tolerance)
                        for name, kind in keyed
                    )
                    keys.replay(obj)
        self.snapshot.restore()
        self.scene.frame_set(self.original_frame)
        return written

    def abandon(self) -> None:
        """Key nothing: put the pose back as it was and show the frame the bake began on."""
        self.steps = []
        self.snapshot.restore()
        self.scene.frame_set(self.original_frame)

    def summary(self, written: int) -> str:
        """What the bake did, in one line."""
        if not self.baked:
            return "nothing baked"
        first, last = self.baked[0], self.baked[-1]
        text = (
            f"baked frames {first}–{last} ({len(self.baked)} frames): "
            f"{written} keys on {len(self.moved)} bones, "
            f"largest residual {solving.length_text(self.residual)}"
        )
        if not self.done:
            text += f"; stopped before frame {self.frames[len(self.baked)]}"
        if self.unmet:
            where = " on Blender's pose" if self.diverging else ""
            text += f"; not met{where} on {len(self.unmet)} frames (first {self.unmet[0]})"
        if self.unbalanced:
            text += (
                f"; balance not kept on {len(self.unbalanced)} frames "
                f"(first {self.unbalanced[0]}): the centre of mass left the support polygon"
            )
        if self.diverging:
            bones = "; ".join(f"{bone}: {why}" for bone, why in self.diverging.items())
            text += f"; Blender poses {len(self.diverging)} bone(s) otherwise than Reach ({bones})"
        if self.clamped:
            text += f"; the animation's pose was outside the limits on {len(self.clamped)} frames"
        return text


class Bake(ArmatureOperator):
    """Mixin: the bake operator's properties, ``execute``, ``invoke`` and ``modal``.

    Attributes:
        session: The bake (from ``invoke`` on).
        timer: The window timer that drives the modal bake.
        frame_time: Seconds of baking per timer event before the window gets control back
            (0: one frame per event).
    """

    frame_start: IntProperty(name="Start", description="First frame to bake", default=1)  # type: ignore[valid-type]
    frame_end: IntProperty(name="End", description="Last frame to bake", default=250)  # type: ignore[valid-type]
    reduce: BAKE_REDUCE()  # type: ignore[valid-type]
    tolerance: BAKE_TOLERANCE()  # type: ignore[valid-type]

    session: BakeSession
    timer: Any
    frame_time = 0.05

    def begin(self, context: Any) -> BakeSession:
        """The bake session of the armature.

        Raises:
            ReachError: For a missing armature, an empty range, no constraints.
        """
        obj = armature_object(self.armature, context)
        return BakeSession(context, obj, self.frame_start, self.frame_end)

    def end(self, context: Any, session: BakeSession) -> str:
        """Key what was baked, show the original frame; return the summary."""
        written = session.finish(self.tolerance if self.reduce else None)
        return session.summary(written)

    def run(self, context: Any) -> Result:
        """Bake every frame of the range straight through (scripts)."""
        session = self.begin(context)
        with live.paused():
            try:
                while not session.done:
                    session.step()
            except ReachError as error:
                summary = self.end(context, session)
                raise BlenderDataError(f"bake stopped: {error}; {summary}") from error
            summary = self.end(context, session)
        self.report({"INFO"}, summary)  # type: ignore[attr-defined]
        return {"FINISHED"}

    @blas.held_event
    def invoke(self, context: Any, event: Any) -> Result:
        """Bake modal, a few frames per timer event, with a progress bar; Esc stops."""
        if context.window is None:
            return self.execute(context)
        try:
            self.session = self.begin(context)
        except ReachError as error:
            self.report({"ERROR"}, str(error))  # type: ignore[attr-defined]
            return {"CANCELLED"}
        manager = context.window_manager
        live.pause()
        manager.progress_begin(0, len(self.session.frames))
        self.timer = manager.event_timer_add(0.001, window=context.window)
        manager.modal_handler_add(self)
        return {"RUNNING_MODAL"}

    @blas.held_event
    def modal(self, context: Any, event: Any) -> Result:
        """One window event of a modal bake."""
        session = self.session
        if event.type == "ESC":
            return self.stop(context)
        if event.type != "TIMER":
            return {"RUNNING_MODAL"}
        began = time.perf_counter()
        try:
            while not session.done:
                session.step()
                if time.perf_counter() - began >= self.frame_time:
                    break
        except ReachError as error:
            self.stop(context)
            self.report({"ERROR"}, f"bake stopped: {error}")  # type: ignore[attr-defined]
            return {"FINISHED"}
        context.window_manager.progress_update(len(session.baked))
        return self.stop(context) if session.done else {"RUNNING_MODAL"}

    def stop(self, context: Any) -> Result:
        """End the modal bake: keep what was baked, report, remove the timer."""
        manager = context.window_manager
        manager.event_timer_remove(self.timer)
        manager.progress_end()
        try:
            summary = self.end(context, self.session)
        finally:
            live.resume()
        self.report({"INFO"}, summary)  # type: ignore[attr-defined]
        return {"FINISHED"}


class REACH_OT_bake(Bake, Operator):
    """Hold every enabled constraint on every frame of a range and key the moved bones."""

    bl_idname = "reach.bake"
    bl_label = "Bake"


classes = (REACH_OT_bake,)
