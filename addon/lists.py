"""The sidebar's lists: constraints, polygon vertices, joint groups, members, followers.

Each list draws one row per entry with :meth:`ReachList.draw_row`; Blender's long
``draw_item`` signature is spelled out once, in the mixin. :func:`draw_list` and
:func:`add_bone_button` draw a list in a panel with its buttons. Drawing reads data only.
"""

from __future__ import annotations

from typing import Any

from bpy.types import UIList


class ReachList:
    """Mixin: a Reach list whose ``draw_item`` hands each entry to :meth:`draw_row`."""

    def draw_item(
        self,
        context: Any,
        layout: Any,
        data: Any,
        item: Any,
        icon: Any,
        active_data: Any,
        active_property: Any,
        index: Any = 0,
        flt_flag: Any = 0,
    ) -> None:
        """Blender's hook for one entry: calls :meth:`draw_row`."""
        self.draw_row(layout, data, item, index)

    def draw_row(self, layout: Any, data: Any, item: Any, index: int) -> None:
        """Draw entry ``item`` (at ``index`` of the collection owned by ``data``) in ``layout``."""
        raise NotImplementedError


def draw_list(
    layout: Any, list_type: str, data: Any, collection: str, active: str, *, rows: int
) -> Any:
    """Draw list ``list_type`` of ``data.<collection>`` (active entry ``data.<active>``).

    Returns:
        The column at the list's right, for its add and remove buttons.
    """
    row = layout.row()
    row.template_list(list_type, "", data, collection, data, active, rows=rows)
    return row.column(align=True)


def add_bone_button(buttons: Any, obj: Any, idname: str) -> Any:
    """The add button of operator ``idname`` on the armature's active bone (grey if none).

    Returns:
        The operator's properties, with ``armature`` and ``bone`` set.
    """
    bone = obj.data.bones.active
    add = buttons.column(align=True)
    add.enabled = bone is not None
    op = add.operator(idname, text="", icon="ADD")
    op.armature = obj.name
    op.bone = bone.name if bone is not None else ""
    return op


class REACH_UL_constraints(ReachList, UIList):
    """Reach constraints: enabled, name, goal type, effector bone ← chain start, goal, weight."""

    def draw_row(self, layout: Any, data: Any, item: Any, index: int) -> None:  # noqa: D102
        if self.layout_type not in {"DEFAULT", "COMPACT"}:
            layout.label(text=item.name)
            return
        row = layout.row(align=True)
        row.prop(item, "enabled", text="")
        row.prop(item, "goal_type", text="", icon_only=True, emboss=False)
        row.prop(item, "name", text="", emboss=False)
        chain = f"{item.bone} ← {item.chain_start}" if item.chain_start else item.bone
        row.label(text=chain, icon="BONE_DATA")
        row.prop(item, "goal", text="")
        row.prop(item, "weight", text="")


class REACH_UL_polygon(ReachList, UIList):
    """A joint's limit polygon: one row per vertex, its two angles (shown in degrees)."""

    def draw_row(self, layout: Any, data: Any, item: Any, index: int) -> None:  # noqa: D102
        row = layout.row(align=True)
        row.label(text=f"{index + 1}")
        row.prop(item, "value", index=0, text=data.polygon_axes[0])
        row.prop(item, "value", index=1, text=data.polygon_axes[1])


class REACH_UL_groups(ReachList, UIList):
    """Joint groups: name and enabled."""

    def draw_row(self, layout: Any, data: Any, item: Any, index: int) -> None:  # noqa: D102
        row = layout.row(align=True)
        row.prop(item, "enabled", text="")
        row.prop(item, "name", text="", emboss=False)
        count = len(item.members)
        row.label(text=f"{count} bone" if count == 1 else f"{count} bones")


class REACH_UL_group_members(ReachList, UIList):
    """Members of a joint group: bone, axis and ratio."""

    def draw_row(self, layout: Any, data: Any, item: Any, index: int) -> None:  # noqa: D102
        obj = data.id_data  # the armature whose Object.reach holds the group
        row = layout.row(align=True)
        if obj is not None and obj.type == "ARMATURE":
            row.prop_search(item, "bone", obj.data, "bones", text="")
        else:
            row.prop(item, "bone", text="")
        row.prop(item, "axis", text="")
        row.prop(item, "ratio", text="")


class REACH_UL_followers(ReachList, UIList):
    """Bones set to move with a control: the bone, and its control (picked from the bones)."""

    def draw_row(self, layout: Any, data: Any, item: Any, index: int) -> None:  # noqa: D102
        obj = data.id_data  # the armature whose Object.reach holds the list
        row = layout.row(align=True)
        row.label(text=item.name, icon="BONE_DATA")
        if obj is not None and obj.type == "ARMATURE":
            row.prop_search(item, "control", obj.data, "bones", text="")
        else:
            row.prop(item, "control", text="")


classes = (
    REACH_UL_constraints,
    REACH_UL_polygon,
    REACH_UL_groups,
    REACH_UL_group_members,
    REACH_UL_followers,
)
