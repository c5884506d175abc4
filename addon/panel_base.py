"""What every Reach panel shares: its place in the sidebar, and the active armature."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import RegionTypeItems, SpaceTypeItems

__all__ = ["ArmaturePanel", "ReachPanel", "active_armature", "active_constraint"]


def active_armature(context: Any) -> Any | None:
    """The active object if it is an armature, else None."""
    obj = context.active_object
    return obj if obj is not None and obj.type == "ARMATURE" else None


def active_constraint(obj: Any) -> Any | None:
    """The armature's active Reach constraint, if the index points at one."""
    constraints = obj.reach.constraints
    index = obj.reach.active_constraint
    return constraints[index] if 0 <= index < len(constraints) else None


class ReachPanel:
    """Mixin: a panel in the "Reach" tab of the 3D viewport's sidebar."""

    bl_space_type: SpaceTypeItems = "VIEW_3D"
    bl_region_type: RegionTypeItems = "UI"
    bl_category = "Reach"


class ArmaturePanel(ReachPanel):
    """Mixin: a Reach panel shown only when the active object is an armature."""

    @classmethod
    def poll(cls, context: Any) -> bool:
        """Whether the active object is an armature that :meth:`shows` the panel."""
        obj = active_armature(context)
        return obj is not None and cls.shows(obj)

    @classmethod
    def shows(cls, obj: Any) -> bool:
        """Whether the panel has something to show for the armature ``obj``: here, always."""
        return True
