"""What Reach's operators share: the armature mixin, the return type, name look-ups.

Each operator takes its targets as explicit properties (object and bone names) and falls
back to the active object and bone when a name is empty, so scripts and headless runs
can call it without a viewport. :class:`ArmatureOperator` turns every failure into an
error report: a :class:`solver.ReachError` (the add-on's
:class:`~.errors.BlenderDataError` and the solver's :class:`solver.SolverInputError`) as
it is worded, any other exception as Reach's own error; either way the armature's pose
and its goals are put back as they were. While an interactive drag runs, every
operator is refused (:func:`check_no_drag`), since cancelling the drag would undo its
work; so is an armature in edit mode, whose pose Blender neither shows nor updates.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Literal, TypeAlias

import bpy
from bpy.props import IntProperty, StringProperty
from bpy.types import Operator

from .bridge import blas
from .bridge.rig import armature_object
from .bridge.snapshot import PoseSnapshot
from .errors import BlenderDataError, ReachError, no_bone
from .renames import check_bone_names, repair

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import OperatorReturnItems, OperatorTypeFlagItems

    Result: TypeAlias = set[OperatorReturnItems]
    Options: TypeAlias = set[OperatorTypeFlagItems]
else:
    Result: TypeAlias = set[
        Literal["RUNNING_MODAL", "CANCELLED", "FINISHED", "PASS_THROUGH", "INTERFACE"]
    ]
    Options: TypeAlias = set[str]
"""What an operator's execute, invoke and modal return."""


@dataclass
class DragUnderWay:
    """The interactive drag under way, if any, which every other operator waits for.

    Filled by :func:`drag_started` when a drag's modal loop begins; emptied by
    :func:`drag_ended` when the drag is confirmed, cancelled or fails, when a file is
    opened (which ends every modal operator) and when the add-on is unregistered. It
    lives between events because a drag runs across many, and an operator started
    between them must see it.

    Attributes:
        running: Whether a drag runs.
        armature: The dragged armature's name (while one runs).
        goal: The dragged goal's name (while one runs).
    """

    running: bool = False
    armature: str = ""
    goal: str = ""


_state: Final = DragUnderWay()
"""The drag under way in this Blender session."""


def check_no_drag() -> None:
    """Refuse to act while an interactive drag runs.

    Raises:
        BlenderDataError: Naming the drag and how to end it.
    """
    if _state.running:
        raise BlenderDataError(
            f"a drag of '{_state.goal}' on '{_state.armature}' is under way; "
            "confirm it (left click or Enter) or cancel it (right click or Esc) first"
        )


EDIT_MODE = (
    "Leave edit mode first (Tab): Reach reads and writes the pose, "
    "which edit mode neither shows nor updates"
)
"""Why Reach's operators are unavailable in an armature's edit mode."""


def in_edit_mode(obj: Any) -> bool:
    """Whether ``obj`` is an armature in edit mode."""
    return obj is not None and obj.type == "ARMATURE" and obj.mode == "EDIT"


def check_ready(armature: str, context: Any) -> None:
    """Refuse to act while a drag runs or on an armature in edit mode.

    Args:
        armature: The armature's name; empty: the active object.
        context: Blender's context.

    Raises:
        BlenderDataError: Saying what to end or leave first.
    """
    check_no_drag()
    obj = bpy.data.objects.get(armature) if armature else context.active_object
    if obj is not None and in_edit_mode(obj):
        raise BlenderDataError(f"armature '{obj.name}' is in edit mode. {EDIT_MODE}")


def drag_started(armature: str, goal: str) -> None:
    """Note that an interactive drag of ``goal`` on ``armature`` runs from now on.

    Raises:
        BlenderDataError: If another one runs already.
    """
    check_no_drag()
    _state.running, _state.armature, _state.goal = True, armature, goal


def drag_ended() -> None:
    """Note that the interactive drag ended (confirmed, cancelled or failed)."""
    _state.running, _state.armature, _state.goal = False, "", ""


def failure_message(error: Exception) -> str:
    """What the user reads about a failure: a Reach error as worded, others as Reach's own.

    An exception other than :class:`solver.ReachError` is a fault in Reach, not in the
    user's data; its traceback goes to the system console.
    """
    if isinstance(error, ReachError):
        return str(error)
    traceback.print_exception(error)
    return (
        f"Reach failed on an error of its own, not of your data ({type(error).__name__}: "
        f"{error}); the pose and the goals are as they were. The system console shows "
        "the details"
    )


def target_armature(armature: str, context: Any) -> Any | None:
    """The armature object named ``armature`` (the active object when empty), or None."""
    obj = bpy.data.objects.get(armature) if armature else context.active_object
    return obj if obj is not None and obj.type == "ARMATURE" else None


def state_snapshot(obj: Any, *names: str) -> PoseSnapshot:
    """What a failed operator puts back: the armature's pose and its goals' locations.

    Args:
        obj: The armature object.
        names: Further objects whose locations to keep (a drag's goal).
    """
    objects = {c.goal for c in obj.reach.constraints if c.goal is not None}
    objects.update(o for o in map(bpy.data.objects.get, filter(None, names)) if o is not None)
    return PoseSnapshot(obj, objects)


def restore_changed(snapshot: PoseSnapshot) -> None:
    """Put back what differs from ``snapshot``, and only that (:meth:`PoseSnapshot.restore`)."""
    snapshot.restore()


class ArmatureOperator:
    """Mixin: an operator on one armature, named or the active object.

    Attributes:
        bl_options: Registered, with one undo step: the operators change data (live
            mode, which only watches, overrides it).
    """

    bl_options: Options = {"REGISTER", "UNDO"}
    builds_rig = True
    """Whether the operator compiles the armature, so that names no bone has stop it."""
    armature: StringProperty(  # type: ignore[valid-type]
        name="Armature", description="Armature object; empty: the active object"
    )

    @classmethod
    def poll(cls, context: Any) -> bool:
        """Available when the scene has an armature, outside edit mode; says why not."""
        scene = context.scene
        if scene is None or not any(o.type == "ARMATURE" for o in scene.objects):
            cls.poll_message_set("Add an armature first: Reach poses armatures")  # type: ignore[attr-defined]
            return False
        if in_edit_mode(context.active_object):
            cls.poll_message_set(EDIT_MODE)  # type: ignore[attr-defined]
            return False
        return True

    @blas.held
    def execute(self, context: Any) -> Result:
        """Run :meth:`run`; any failure puts the pose and goals back and becomes a report.

        A :class:`solver.ReachError` is reported as worded; any other exception as a
        fault of Reach's (:func:`failure_message`).
        """
        snapshot = None
        try:
            obj = self.checked(context)
            if obj is not None:
                snapshot = state_snapshot(obj, getattr(self, "goal", ""))
                self.repaired(obj)
            return self.run(context)
        except Exception as error:  # every failure is reported, never a traceback
            if snapshot is not None:
                restore_changed(snapshot)
            self.report({"ERROR"}, failure_message(error))  # type: ignore[attr-defined]
            return {"CANCELLED"}

    def checked(self, context: Any) -> Any | None:
        """The armature acted on (None: no such object), once no drag and no edit mode stop it.

        Raises:
            BlenderDataError: Saying what to end or leave first (:func:`check_ready`).
        """
        check_ready(self.armature, context)
        return target_armature(self.armature, context)

    def repaired(self, obj: Any) -> None:
        """Repair ``obj``'s settings (reported), and refuse names no bone has if it is compiled.

        Raises:
            BlenderDataError: Naming a constraint's or joint's bone the armature lacks.
        """
        for message in repair(obj):
            self.report({"INFO"}, message)  # type: ignore[attr-defined]
        if self.builds_rig:
            check_bone_names(obj)

    def run(self, context: Any) -> Result:
        """The operator's work, on valid input.

        Raises:
            ReachError: For bad input; :meth:`execute` reports it and cancels.
        """
        raise NotImplementedError


class BoneOperator(ArmatureOperator):
    """Mixin: an operator on one bone of the armature, named or the active bone."""

    bone: StringProperty(name="Bone", description="The bone; empty: the active bone")  # type: ignore[valid-type]

    def target(self, context: Any) -> tuple[Any, str]:
        """The armature object and the bone's name, checked to exist.

        Raises:
            BlenderDataError: If there is no such armature or bone, or no active bone.
        """
        obj = armature_object(self.armature, context)
        if not self.bone:
            active = obj.data.bones.active
            if active is None:
                raise BlenderDataError(f"armature '{obj.name}' has no active bone; pass 'bone'")
            return obj, str(active.name)
        if obj.data.bones.get(self.bone) is None:
            raise no_bone(obj, self.bone)
        return obj, self.bone


def run_nested(operator: Any, **properties: Any) -> set[str]:
    """Run another Reach operator from this one; its refusal is raised as ours, as worded.

    Raises:
        BlenderDataError: What the operator reported, without Blender's "Error: ".
    """
    try:
        result: set[str] = operator(**properties)
    except RuntimeError as error:  # the operator's own report
        raise BlenderDataError(str(error).removeprefix("Error: ").strip()) from error
    return result


def report_warnings(operator: Operator, warnings: list[str]) -> None:
    """Report each of the adapter's warnings once, as a warning."""
    for warning in dict.fromkeys(warnings):
        operator.report({"WARNING"}, warning)


def goal_users(objects: Any, goal: Any) -> list[Any]:
    """The armatures among ``objects`` with a Reach constraint whose goal is ``goal``."""
    return [
        o
        for o in objects
        if o.type == "ARMATURE" and any(c.goal == goal for c in o.reach.constraints)
    ]


def remove_goal(objects: Any, goal: Any) -> list[str]:
    """Delete goal empty ``goal`` unless constraints still use it; the armatures that do.

    ``objects``: the file's objects (``bpy.data.objects``).
    """
    users = [o.name for o in goal_users(objects, goal)]
    if not users:
        objects.remove(goal)
    return users


def active_index(requested: int, active: int, count: int, what: str) -> int:
    """``requested`` (the active entry ``active`` when negative), checked against ``count``.

    Raises:
        BlenderDataError: If the index is out of range (the list is empty, say).
    """
    index = active if requested < 0 else requested
    if not 0 <= index < count:
        raise BlenderDataError(
            f"there is no {what} to remove" if count == 0 else f"no {what} at index {index}"
        )
    return index


def remove_at(entries: Any, index: int) -> int:
    """Remove entry ``index`` of the collection; returns the index to make active next."""
    entries.remove(index)
    return max(0, min(index, len(entries) - 1))


class RemoveEntry:
    """Mixin: an operator that removes one entry of a list (the active one by default)."""

    index: IntProperty(  # type: ignore[valid-type]
        name="Index", description="Entry to remove; negative: the active entry", default=-1
    )

    def remove(self, owner: Any, collection: str, active: str, what: str) -> None:
        """Remove entry :attr:`index` (or the active one) of ``owner.<collection>``.

        Args:
            owner: The property group holding the list.
            collection: The list's property name.
            active: The name of the property holding the list's active index.
            what: What an entry is, for the message (e.g. ``"vertex of 'hand.L'"``).

        Raises:
            BlenderDataError: If there is no such entry.
        """
        entries = getattr(owner, collection)
        index = active_index(self.index, getattr(owner, active), len(entries), what)
        setattr(owner, active, remove_at(entries, index))
