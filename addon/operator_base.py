"""What Reach's operators share: the armature mixin, the return type, name look-ups.

Each operator takes its targets as explicit properties (object and bone names) and falls
back to the active object and bone when a name is empty, so scripts and headless runs
can call it without a viewport. :class:`ArmatureOperator` turns every
:class:`solver.ReachError` (the add-on's :class:`~.errors.BlenderDataError` and the
solver's :class:`solver.SolverInputError`) into an error report.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from bpy.props import IntProperty, StringProperty
from bpy.types import Operator

from .bridge.rig import armature_object
from .errors import BlenderDataError, ReachError

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


class ArmatureOperator:
    """Mixin: an operator on one armature, named or the active object.

    Attributes:
        bl_options: Registered, with one undo step: the operators change data (live
            mode, which only watches, overrides it).
    """

    bl_options: Options = {"REGISTER", "UNDO"}
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
        """Run :meth:`run`; a :class:`solver.ReachError` becomes an error report."""
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
            raise BlenderDataError(f"armature '{obj.name}' has no bone '{self.bone}'")
        return obj, self.bone


def report_warnings(operator: Operator, warnings: list[str]) -> None:
    """Report each of the adapter's warnings once, as a warning."""
    for warning in dict.fromkeys(warnings):
        operator.report({"WARNING"}, warning)


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
