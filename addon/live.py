"""Live mode: ``reach.live`` keeps every constraint met while things move.

The "manipulation with constraints" of Phillips, Zhao & Badler (1990): with live mode
on, moving a goal, the armature object or a bone outside the constraints' chains (by G,
R, a script, …) re-solves at once, so that e.g. the feet stay on the floor while the
hips are dragged. A :class:`LiveSession` per armature is driven by a depsgraph handler;
live mode ends with :func:`stop`, when the file is reloaded, or when the add-on is
disabled.
"""

from __future__ import annotations

from typing import Any

import bpy
from bpy.props import BoolProperty
from bpy.types import Operator

from .bridge import goals, pose, rig, solving
from .errors import BlenderDataError, ReachError
from .operator_base import ArmatureOperator, Result

Channels = tuple[float, ...]
"""A pose bone's location and rotation channels, flat."""


def _channels(pose_bone: Any) -> Channels:
    return (
        *pose_bone.location,
        *pose_bone.rotation_euler,
        *pose_bone.rotation_quaternion,
        *pose_bone.rotation_axis_angle,
    )


class LiveSession:
    """Live mode on one armature: re-solve whenever something the goals see moves.

    It watches the goal empties' and the armature's world matrices and the channels of
    bones outside every constraint's chain; when any change (by G, R, a script, …) it
    solves again from the current pose. Bones the user moved by hand are held where
    they were put during that solve.
    """

    def __init__(self, obj: Any) -> None:
        self.armature = obj.name
        self.watched: dict[str, Channels] = {}
        self.written: dict[str, Channels] = {}
        self.busy = False
        self.last_error = ""

    def _state(self, obj: Any) -> tuple[dict[str, Channels], dict[str, Channels]]:
        objects: dict[str, Channels] = {"": tuple(v for row in obj.matrix_world for v in row)}
        for entry in obj.reach.constraints:
            if entry.enabled and entry.goal is not None:
                objects[entry.goal.name] = tuple(v for row in entry.goal.matrix_world for v in row)
        bones = {b.name: _channels(b) for b in obj.pose.bones}
        return objects, bones

    def update(self, scene: Any) -> bool:
        """Re-solve if anything moved since the last call; return whether it solved."""
        obj = bpy.data.objects.get(self.armature)
        if obj is None or self.busy:
            return False
        objects, bones = self._state(obj)
        if not self.written:  # first call: remember, solve once
            moved_by_hand: list[str] = []
        elif objects == self.watched and bones == self.written:
            return False
        else:
            moved_by_hand = [
                name for name, channels in bones.items() if self.written.get(name) != channels
            ]
        self.busy = True
        try:
            held = rig.build_rig(obj, hold=moved_by_hand)
            setup = goals.build_problem(obj, scene, held)
            outcome = solving.solve_from_pose(
                obj, setup, time_limit=obj.reach.time_budget, restarts=0
            )
            pose.write_pose(obj, held, outcome.result.theta, setup.movable)
            solving.store_stats(obj, outcome, outcome.milliseconds)
            self.last_error = ""
        except ReachError as error:
            self.last_error = str(error)
            obj.reach.stats.message = f"live: {error}"
        finally:
            self.watched, self.written = self._state(obj)
            self.busy = False
        return not self.last_error


_sessions: dict[str, LiveSession] = {}


def is_live(armature: str) -> bool:
    """Whether live mode is on for the armature object named ``armature``."""
    return armature in _sessions


def start(obj: Any, scene: Any) -> LiveSession:
    """Turn live mode on for ``obj`` and solve once.

    Raises:
        BlenderDataError: If the armature's constraints cannot be solved now.
    """
    live = LiveSession(obj)
    if not live.update(scene):
        raise BlenderDataError(f"live mode not started: {live.last_error}")
    _sessions[obj.name] = live
    if _on_depsgraph_update not in bpy.app.handlers.depsgraph_update_post:
        bpy.app.handlers.depsgraph_update_post.append(_on_depsgraph_update)
    return live


def stop(armature: str | None = None) -> None:
    """Turn live mode off for ``armature`` (all armatures when None)."""
    if armature is None:
        _sessions.clear()
    else:
        _sessions.pop(armature, None)
    if not _sessions and _on_depsgraph_update in bpy.app.handlers.depsgraph_update_post:
        bpy.app.handlers.depsgraph_update_post.remove(_on_depsgraph_update)


def _on_depsgraph_update(scene: Any, depsgraph: Any) -> None:
    for name, live in list(_sessions.items()):
        if bpy.data.objects.get(name) is None:
            _sessions.pop(name, None)
            continue
        live.update(scene)


class REACH_OT_live(ArmatureOperator, Operator):
    """Live mode: re-solve whenever a goal, the armature or a free bone moves.

    Attributes:
        watching: The armature whose live mode the modal loop waits on (from ``invoke``).
    """

    bl_idname = "reach.live"
    bl_label = "Live"
    bl_options = {"REGISTER"}

    stop: BoolProperty(name="Stop", description="End live mode on the armature", default=False)  # type: ignore[valid-type]

    watching: str

    def run(self, context: Any) -> Result:  # noqa: D102
        obj = rig.armature_object(self.armature, context)
        if self.stop:
            stop(obj.name)
        else:
            start(obj, context.scene)
        return {"FINISHED"}

    def invoke(self, context: Any, event: Any) -> Result:  # noqa: D102
        result = self.execute(context)
        if self.stop or "CANCELLED" in result:
            return result
        self.watching = rig.armature_object(self.armature, context).name
        context.window_manager.modal_handler_add(self)
        return {"RUNNING_MODAL"}

    def modal(self, context: Any, event: Any) -> Result:  # noqa: D102
        if not is_live(self.watching):
            return {"FINISHED"}
        return {"PASS_THROUGH"}


classes = (REACH_OT_live,)
