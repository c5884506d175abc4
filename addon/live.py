"""Live mode: ``reach.live`` keeps every constraint met while things move and time passes.

The "manipulation with constraints" of Phillips, Zhao & Badler (1990): with live mode
on, moving a goal, the armature object or a bone outside the constraints' chains (by G,
R, a script, …) re-solves at once, so that e.g. the feet stay on the floor while the
hips are dragged. A frame change (playback, scrubbing, a script's ``frame_set``)
re-solves too: from the previous frame's solution when the new frame is the adjacent
one, else from the animation's own pose, so animated goals and an animated armature are
followed frame by frame.

A :class:`LiveSession` per armature is driven by a depsgraph handler and a frame-change
handler. A frame change's solve is evaluated and judged at once, through the frame's
depsgraph; one in the depsgraph handler, where nothing can be evaluated, is finished
by a timer right after it (:func:`settle_pending`: a control rig's remaining passes,
then the verdict on Blender's pose). The armature's ``reach.live`` flag is saved in the
file: a load handler turns live mode back on after a file is opened, or shows it as off
(with the reason) when it cannot be. Sessions follow the armature's ``session_uid``, so
renaming it keeps them. Live mode ends with :func:`stop`, or when the add-on is disabled.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Final

import bpy
import numpy as np
from numpy.typing import NDArray

from . import renames
from .bridge import blas, keys, posing, snapshot
from .bridge.budget import EventBudget
from .bridge.inputs import figure_inputs
from .errors import BlenderDataError, ReachError

Channels = tuple[str, ...]
"""A world matrix, flat, as hex."""


def _flat(matrix: Any) -> Channels:
    """A matrix's entries, bit for bit."""
    return snapshot.bits(v for row in matrix for v in row)


@dataclass(frozen=True, eq=False)
class BoneState:
    """Every pose bone's location and rotation channels, bit for bit, read at once.

    The floats are compared as their bits, so a NaN equals itself (a NaN channel does
    not look moved on every update) and −0.0 is not 0.0.

    Attributes:
        names: The bones, in ``pose.bones`` order.
        bits: Per bone, its location, Euler, quaternion and axis-angle channels' bits.
    """

    names: tuple[str, ...]
    bits: NDArray[np.uint32]

    @classmethod
    def of(cls, obj: Any) -> BoneState:
        """The armature's bones as they are now."""
        channels = snapshot.pose_channels(obj, _CHANNELS)
        bits = np.hstack([snapshot.as_bits(values) for values in channels.values()])
        return cls(tuple(obj.pose.bones.keys()), bits)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BoneState):
            return NotImplemented
        return self.names == other.names and np.array_equal(self.bits, other.bits)

    __hash__ = None  # type: ignore[assignment]

    def changed(self, before: BoneState) -> list[str]:
        """The bones whose channels differ from ``before`` (or that were not there)."""
        if self.names == before.names:
            rows = np.flatnonzero((self.bits != before.bits).any(axis=1))
            return [self.names[k] for k in rows.tolist()]
        old = dict(zip(before.names, before.bits, strict=True))
        return [
            name
            for name, bits in zip(self.names, self.bits, strict=True)
            if name not in old or not np.array_equal(old[name], bits)
        ]


_CHANNELS: tuple[tuple[str, int], ...] = (
    ("location", 3),
    ("rotation_euler", 3),
    ("rotation_quaternion", 4),
    ("rotation_axis_angle", 4),
)
"""The channels :class:`BoneState` watches, and their widths."""


class LiveSession:
    """Live mode on one armature: re-solve whenever something the goals see moves.

    It watches the goal empties' and the armature's world matrices and the channels of
    bones outside every constraint's chain; when any change (by G, R, a script, …) it
    solves again from the current pose. Bones the user moved by hand are held where
    they were put during that solve. :meth:`follow_frame` re-solves on a frame change.

    Attributes:
        uid: The armature's ``session_uid`` (kept through renames).
        armature: The armature's name when last seen.
        frame: The frame of the last solve (None before any).
        poser: The solve step; its last solution is the next frame's warm start.
        solves: How many solves live mode has made.
        pending: The last solve, to be measured on Blender's evaluated pose once Blender
            has evaluated what it wrote (at the next depsgraph update).
        resuming: Live mode was saved on in a file just opened: the first update, once
            Blender has evaluated the armature's scene, solves against where the goals
            truly are and keeps the saved pose unless that solve moves it.
        inputs: What the last solve's problem was built from (None: build it afresh).
    """

    def __init__(self, obj: Any, *, resuming: bool = False) -> None:
        self.uid = int(obj.session_uid)
        self.armature = obj.name
        self.watched: dict[str, Channels] = {}
        self.written: BoneState | None = None
        self.busy = False
        self.last_error = ""
        self.frame: int | None = None
        self.poser = posing.Poser(obj, None, None)  # judged later, on the next update
        self.solves = 0
        self.pending: posing.Step | None = None
        self.resuming = resuming
        self.inputs: tuple[Any, ...] | None = None
        self.view_layer: Any | None = None  # where the last update came from
        self.budgeting = EventBudget()
        self.solve_seconds = 0.0

    def find(self) -> Any | None:
        """The armature object, by name or, after a rename, by ``session_uid``."""
        obj = bpy.data.objects.get(self.armature)
        if obj is not None and obj.session_uid == self.uid:
            return obj
        for other in bpy.data.objects:
            if other.session_uid == self.uid:
                self.armature = other.name
                return other
        return None

    def _channels(self, obj: Any) -> tuple[dict[str, Channels], BoneState]:
        """The armature's and its enabled goals' world matrices, and its bones' channels."""
        objects: dict[str, Channels] = {"": _flat(obj.matrix_world)}
        for entry in obj.reach.constraints:
            if entry.enabled and entry.goal is not None:
                objects[entry.goal.name] = _flat(entry.goal.matrix_world)
        return objects, BoneState.of(obj)

    def update(self, scene: Any) -> bool:
        """Re-solve if anything moved since the last call; return whether it solved.

        With auto-keying on, the bones the solve moved are keyed at the current frame.
        """
        began = time.perf_counter()
        obj = self.find()
        if obj is None or self.busy or obj.mode == "EDIT":  # edit mode: wait for the pose
            return False
        if self.resuming:
            return self._resume(obj, scene)
        self._judge(obj)  # Blender has evaluated the pose the last solve wrote
        objects, bones = self._channels(obj)
        if self.written is None:  # first call: remember, solve once
            moved_by_hand: list[str] = []
        elif objects == self.watched and bones == self.written:
            return False
        else:
            moved_by_hand = bones.changed(self.written)
        solved = self._solve(obj, scene, moved_by_hand, follow=False)
        if solved:
            self.budgeting.note_event(time.perf_counter() - began, self.solve_seconds)
        return solved

    def _resume(self, obj: Any, scene: Any) -> bool:
        """The first solve after the file was opened, once ``scene`` is evaluated.

        Until then the goals stand at the origin and keyed bones at their saved
        channels. The solve starts from the pose Blender evaluated and writes only if it
        moves a bone (a pose saved while live mode held it stays bit for bit); what
        Blender evaluated is what later updates compare against, so bones put back by
        their keys are not taken for bones moved by hand. If it cannot solve, live mode
        is shown off, with the reason.
        """
        if all(other != scene for other in obj.users_scene):
            return False  # evaluated in a scene the armature is not in: wait for its own
        self.resuming = False
        if self._solve(obj, scene, [], follow=False, keep=True):
            return True
        stop(obj.name)
        obj.reach.stats.message = f"live mode is off after loading: {self.last_error}"
        return False

    def follow_frame(self, scene: Any, depsgraph: Any | None = None) -> bool:
        """Re-solve on the scene's current frame; return whether it solved.

        The start is the animation's own pose at this frame, with the chains' bones at
        the previous frame's solution when that was the adjacent frame. With the frame's
        ``depsgraph`` (after Blender evaluated the frame, which calls no update handler
        for what is written then) the solve evaluates and judges its writes through it.
        """
        obj = self.find()
        if obj is None or self.busy:
            return False
        if self.resuming:
            return self._resume(obj, scene)
        return self._solve(obj, scene, [], follow=True, evaluator=depsgraph)

    def settle(self, view_layer: Any) -> None:
        """Finish and judge a solve written inside a depsgraph handler.

        There the write is one pass of a control rig's controls, from predicted parents
        (Blender evaluates it after the handler, calling no handler for it); the passes
        a rig's own mechanism needs (a chain's plane, a paw's heel) are made here,
        evaluated through ``view_layer``, and the pose is then judged on what Blender
        evaluated.
        """
        obj = self.find()
        if obj is None or self.pending is None or self.busy:
            return
        self.busy = True
        try:
            self.poser.refine(view_layer)
        except (ReachError, KeyError, ReferenceError):  # bones gone, a limb blended since
            pass
        finally:
            self._judge(obj)
            self.watched, self.written = self._channels(obj)
            self.busy = False

    def _judge(self, obj: Any) -> None:
        """Measure the last solve on Blender's evaluated pose (see :meth:`Poser.judge`)."""
        if self.pending is None:
            return
        step = self.pending
        self.pending = None
        try:
            self.poser.judge(step)
        except (ReachError, KeyError, ReferenceError):  # bones or goals gone since
            return

    def _solve(
        self,
        obj: Any,
        scene: Any,
        held: list[str],
        *,
        follow: bool,
        keep: bool = False,
        evaluator: Any | None = None,
    ) -> bool:
        """Solve from the current pose and write it; return whether it solved.

        ``keep`` (a file just opened): write only if the solve moves a bone, key nothing.
        ``evaluator`` (a depsgraph): evaluates the writes now, and the step is judged
        now; else Blender evaluates them after the handler and the next update judges.
        The problem is built afresh when bones are held, or when what it is built from
        changed (:func:`.bridge.inputs.figure_inputs`); else the last one is refreshed.
        """
        self.busy = True
        frame = int(scene.frame_current)
        try:
            renames.repair(obj)  # a bone renamed since the last update
            if follow:
                keys.apply_switches(obj, frame)
            adjacent = self.frame is not None and abs(frame - self.frame) == 1
            inputs = figure_inputs(obj)
            rebuild, self.inputs = inputs != self.inputs, None  # kept once the step succeeds
            step = self.poser.update(
                obj,
                scene,
                evaluator,
                warm=follow and adjacent,
                time_limit=self.budgeting.limit(obj.reach),
                rebuild=rebuild,
                hold=held,
                keep=keep,
                key=not (follow or keep),
            )
            self.pending = None if evaluator is not None else step
            self.solve_seconds = step.outcome.result.elapsed
            self.inputs = inputs
            self.frame = frame
            self.solves += 1
            self.last_error = ""
        except ReachError as error:
            self.last_error = str(error)
            obj.reach.stats.message = f"live: {error}"
        finally:
            self.watched, self.written = self._channels(obj)
            self.busy = False
        return not self.last_error


@dataclass
class LiveState:
    """Live mode's sessions and pauses, which the app handlers read on every event.

    A session is added when live mode is turned on (:func:`start`) or comes back after
    a file is opened (:func:`restore_after_load`, which first empties the sessions),
    and removed when it is turned off (:func:`stop`, which the add-on's unregister calls
    for all) or its armature is gone. The pauses are counted up and down around a bake
    (:func:`paused`). They live between events because live mode is no modal operator:
    each depsgraph update and frame change finds here what to re-solve.

    Attributes:
        sessions: By armature object (its ``session_uid``), its live session.
        paused: How many :func:`pause` calls no :func:`resume` has undone; live mode
            re-solves nothing while it is above zero.
    """

    sessions: dict[int, LiveSession] = field(default_factory=dict)
    paused: int = 0


_state: Final = LiveState()
"""Live mode's state for this Blender session."""


def session(armature: str) -> LiveSession | None:
    """The live session of the armature object named ``armature``, if live mode is on."""
    obj = bpy.data.objects.get(armature)
    return None if obj is None else _state.sessions.get(int(obj.session_uid))


def has_session(uid: int) -> bool:
    """Whether live mode is on for the armature object with ``session_uid`` ``uid``."""
    return any(live.uid == uid for live in _each_session())


def is_live(armature: str) -> bool:
    """Whether live mode is on for the armature object named ``armature``."""
    return session(armature) is not None


def start(obj: Any, scene: Any) -> LiveSession:
    """Turn live mode on for ``obj`` and solve once.

    Raises:
        BlenderDataError: If the armature's constraints cannot be solved now.
    """
    live = LiveSession(obj)
    if not live.update(scene):
        raise BlenderDataError(f"live mode not started: {live.last_error}")
    _state.sessions[live.uid] = live
    obj.reach.live = True
    return live


def stop(armature: str | None = None) -> None:
    """Turn live mode off for ``armature`` (all armatures when None)."""
    ended = list(_state.sessions) if armature is None else []
    if armature is not None:
        obj = bpy.data.objects.get(armature)
        if obj is not None:
            ended.append(int(obj.session_uid))
    for uid in ended:
        live = _state.sessions.pop(uid, None)
        obj = live.find() if live is not None else None
        if obj is not None:
            obj.reach.live = False


def pause() -> None:
    """Live mode stops re-solving until :func:`resume` (a bake changes frames itself)."""
    _state.paused += 1


def resume() -> None:
    """Undo one :func:`pause`."""
    _state.paused = max(_state.paused - 1, 0)


@contextmanager
def paused() -> Iterator[None]:
    """Live mode does not re-solve inside this context."""
    pause()
    try:
        yield
    finally:
        resume()


def _each_session() -> list[LiveSession]:
    live = []
    for uid, each in list(_state.sessions.items()):
        if each.find() is None:
            _state.sessions.pop(uid, None)
        else:
            live.append(each)
    return live


def depsgraph_updated(scene: Any, depsgraph: Any | None = None) -> None:
    """Re-solve every live session whose goals, armature or free bones moved.

    A solve written here is finished after the handler (:func:`settle_pending`, on a
    timer of Blender's event loop), where the rig can be evaluated between passes.
    """
    sessions = [] if _state.paused else _each_session()
    if not sessions:  # Blender's every update: nothing more while no armature is live
        return
    with blas.one_thread():
        for live in sessions:
            if live.update(scene) and depsgraph is not None:
                live.view_layer = depsgraph.view_layer
                if not bpy.app.timers.is_registered(settle_pending):
                    bpy.app.timers.register(settle_pending, first_interval=0.0)


@blas.held_timer
def settle_pending() -> None:
    """Finish each live session's solve written inside a depsgraph handler; once, by a timer.

    See :meth:`LiveSession.settle`.
    """
    for live in _each_session():
        if live.view_layer is not None:
            try:
                live.settle(live.view_layer)
            except ReferenceError:  # the view layer is gone
                live.view_layer = None


def frame_changed(scene: Any, depsgraph: Any | None = None) -> None:
    """Every live session follows the new frame (its keyed goals and bones)."""
    sessions = [] if _state.paused else _each_session()
    if not sessions:
        return
    with blas.one_thread():
        for live in sessions:
            live.follow_frame(scene, depsgraph)


def restore_after_load() -> None:
    """After a file is opened: live mode back on where it was saved on, else shown off.

    Nothing is solved before Blender has evaluated the armature's scene (until then the
    goals stand at the origin): each session resumes at its scene's first evaluation,
    which is asked for here for the window's scene.
    """
    _state.sessions.clear()
    stop()
    objects: list[Any] = list(bpy.data.objects)
    for obj in objects:
        if obj.type != "ARMATURE" or not obj.reach.live:
            continue
        if not obj.users_scene:
            obj.reach.live = False
            obj.reach.stats.message = f"live mode is off after loading: '{obj.name}' is in no scene"
            continue
        live = LiveSession(obj, resuming=True)
        _state.sessions[live.uid] = live
    if not _state.sessions:
        return
    context = bpy.context
    if context.view_layer is not None and context.scene is not None:
        context.view_layer.update()  # evaluates the scene: its depsgraph handler resumes
        for live in _each_session():
            live.update(context.scene)  # if Blender had nothing to evaluate
