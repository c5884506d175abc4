"""The Reach tool in pose mode's toolbar: drag any bone, pin with one key.

With the tool active, a click-drag on a bone drags it (``reach.drag_bone``: the bone
under the mouse, by its nearer end, every constraint and pin held), and one that starts
on no bone draws a selection box; P pins the bone under the mouse where it is, or unpins
it, and Shift P does so for its rotation (``reach.pin_toggle``; with no bone under the
mouse, the selected bones); a click selects as Blender's own tools do. The keys are
shown in the tool's header.
"""

from __future__ import annotations

from typing import Any

import bpy
from bpy.types import WorkSpaceTool

KEYS = "Drag a bone: LMB drag · Pin: P · Pin rotation: Shift P · during a drag: R rotate, P pin"
"""The keymap, as the tool's header says it."""


class REACH_TL_drag(WorkSpaceTool):
    """Drag any bone: the figure follows, its constraints held; P pins, Shift P pins rotation."""

    bl_space_type = "VIEW_3D"
    bl_context_mode = "POSE"
    bl_idname = "reach.drag_tool"
    bl_label = "Reach Drag"
    bl_description = (
        "Drag any bone and the figure follows under its limits, every Reach constraint and "
        "pin held; P pins the bone under the mouse, Shift P its rotation"
    )
    bl_icon = "ops.transform.translate"
    bl_widget = None
    bl_keymap = (
        ("reach.drag_bone", {"type": "LEFTMOUSE", "value": "CLICK_DRAG"}, None),
        ("view3d.select_box", {"type": "LEFTMOUSE", "value": "CLICK_DRAG"}, None),  # no bone
        (
            "reach.pin_toggle",
            {"type": "P", "value": "PRESS"},
            {"properties": [("rotation", False)]},
        ),
        (
            "reach.pin_toggle",
            {"type": "P", "value": "PRESS", "shift": True},
            {"properties": [("rotation", True)]},
        ),
        ("view3d.select", {"type": "LEFTMOUSE", "value": "CLICK"}, None),
    )

    @staticmethod
    def draw_settings(context: Any, layout: Any, tool: Any) -> None:
        """The tool's header: its keys."""
        layout.label(text=KEYS)


def register() -> None:
    """Add the tool to pose mode's toolbar, after Blender's transform tools."""
    bpy.utils.register_tool(REACH_TL_drag, after={"builtin.transform"}, separator=True)


def unregister() -> None:
    """Take the tool away."""
    bpy.utils.unregister_tool(REACH_TL_drag)
