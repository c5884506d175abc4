"""The viewport overlay: each constraint's effector and goal, met or not, and the pins.

For every armature that is a Reach figure with ``Object.reach.show_overlay`` on, a line
runs from each enabled constraint's effector point (on Blender's evaluated pose) to the
nearest point of its goal (the goal's location; its line or plane for those goal types;
an orientation goal, which has no place to reach, at the effector itself), green where
the last verdict says met and red where it says not, the miss written beside it; pinned
points are drawn as squares; the centre of mass as a cross, and with balance on the
support polygon with the centre's plumb line, both red when it is not over the polygon.
:func:`overlay_geometry` computes what is drawn (a pure
function of the data, tested headless); :func:`draw_lines` and :func:`draw_labels` draw
it with Blender's ``gpu`` and ``blf`` modules from the 3D viewport's draw handlers,
which :func:`register` adds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

import bpy
import numpy as np
from mathutils import Matrix, Vector

from .bridge.balance import half_planes, support_polygon
from .bridge.goals import contact_support, effector_point
from .bridge.mass import centre_of_mass
from .bridge.solving import length_text
from .errors import BlenderDataError
from .view import ViewMatrices, location_to_region

MET = (0.25, 0.85, 0.35, 1.0)
UNMET = (0.95, 0.25, 0.2, 1.0)
PIN = (1.0, 0.75, 0.1, 1.0)
COM = (0.3, 0.7, 1.0, 1.0)
CROSS = 0.04
"""The centre of mass's colour when balanced (RGBA) and its cross's half size [m]."""
LINE_WIDTH = 2.0
PIN_SIZE = 9.0
"""Colours (RGBA), the lines' width and the pins' size [px]."""


@dataclass(frozen=True)
class Mark:
    """One constraint as drawn.

    Attributes:
        name: The constraint's name.
        start: Its effector's point (world).
        end: The nearest point of its goal (world).
        met: Whether the last verdict counts it met.
        text: What is written beside it ("" when met): the miss.
        pinned: Whether it is a pin.
    """

    name: str
    start: Vector
    end: Vector
    met: bool
    text: str
    pinned: bool


@dataclass(frozen=True)
class Overlay:
    """What the overlay draws for one armature.

    Attributes:
        marks: One per enabled constraint with its goal and bone.
        centre: The centre of mass (world) on Blender's pose, or None without masses.
        support: With balance on, the support polygon's corners at the supports' lowest
            height (world), counter-clockwise from above; else empty.
        balanced: Whether the centre of mass lies over the support polygon.
    """

    marks: tuple[Mark, ...]
    centre: Vector | None = None
    support: tuple[Vector, ...] = ()
    balanced: bool = True


def _support(obj: Any, centre: Vector | None) -> tuple[tuple[Vector, ...], bool]:
    """The support polygon drawn, and whether the centre of mass lies over it.

    The polygon is empty where balance is off or the contacts enclose no area.
    """
    if not obj.reach.balance:
        return (), True
    contacts = [
        contact_support(obj, c, c.goal.matrix_world)
        for c in obj.reach.constraints
        if c.enabled and c.contact and c.goal is not None and c.bone in obj.data.bones
    ]
    if not contacts:
        return (), True
    points = np.concatenate(contacts)
    try:
        hull = support_polygon(points, ["contacts"])
    except BlenderDataError:
        return (), True
    ground = float(points[:, 2].min())
    corners = tuple(Vector((x, y, ground)) for x, y in hull)
    if centre is None:
        return corners, True
    within = obj.reach.reach_distance  # on an edge, to the verdict's "met within"
    inside = all(
        float(normal[:2] @ (np.array(centre[:2]) - point[:2])) >= -within
        for point, normal in half_planes(hull, 0.0)
    )
    return corners, inside


def _nearest(entry: Any, point: Vector, frame: Any) -> Vector:
    """The point of constraint ``entry``'s goal (world ``frame``) nearest ``point``."""
    origin: Vector = frame.translation.copy()
    z: Vector = frame.col[2].xyz
    axis = z.normalized() if z.length > 0.0 else Vector()
    along = (point - origin).dot(axis)
    if entry.goal_type == "LINE":
        return origin + axis * along
    if entry.goal_type == "PLANE":
        return point - axis * along
    if entry.goal_type == "HALF_SPACE":
        return point - axis * min(along, 0.0)
    if entry.goal_type == "ORIENTATION":  # no place to reach: the effector's own point
        return point.copy()
    return origin


def overlay_geometry(obj: Any) -> Overlay:
    """What the overlay draws for the armature ``obj``, as Blender evaluated it."""
    settings = obj.reach
    unmet = set(filter(None, settings.stats.unmet.split(", ")))
    reasons = dict(
        line.split(": ", 1) for line in settings.stats.reasons.splitlines() if ": " in line
    )
    marks = []
    world = obj.matrix_world
    for entry in settings.constraints:
        goal, pose_bone = entry.goal, obj.pose.bones.get(entry.bone)
        if not entry.enabled or goal is None or pose_bone is None:
            continue
        local = Vector(effector_point(entry, pose_bone.bone))
        start = world @ pose_bone.matrix @ local
        end = _nearest(entry, start, goal.matrix_world)
        met = entry.name not in unmet
        text = "" if met else reasons.get(entry.name, length_text((end - start).length))
        marks.append(Mark(entry.name, start, end, met, text, bool(entry.pinned)))
    found = centre_of_mass(obj)
    centre = None if found is None else found[0]
    support, balanced = _support(obj, centre)
    return Overlay(tuple(marks), centre, support, balanced)


def shown_figures(context: Any) -> list[Any]:
    """The visible armatures whose overlay is on."""
    view_layer = context.view_layer
    if view_layer is None:
        return []
    return [
        o
        for o in view_layer.objects
        if o.type == "ARMATURE" and o.reach.is_figure and o.reach.show_overlay and o.visible_get()
    ]


def draw_lines(overlays: list[Overlay]) -> None:
    """Draw the marks' lines and the pins (in the 3D view's space)."""
    import gpu
    from gpu_extras.batch import batch_for_shader

    marks = [m for overlay in overlays for m in overlay.marks]
    gpu.state.blend_set("ALPHA")
    lines: Any = gpu.shader.from_builtin("POLYLINE_UNIFORM_COLOR")  # type: ignore[func-returns-value]
    viewport: Any = gpu.state.viewport_get()  # type: ignore[func-returns-value]
    lines.uniform_float("viewportSize", (float(viewport[2]), float(viewport[3])))
    lines.uniform_float("lineWidth", LINE_WIDTH)
    for colour, met in ((MET, True), (UNMET, False)):
        points = [p for m in marks if m.met == met for p in (m.start, m.end)]
        if points:
            lines.uniform_float("color", colour)
            batch_for_shader(lines, "LINES", {"pos": points}).draw(lines)
    for overlay in overlays:
        _draw_balance(overlay, lines, batch_for_shader)
    pins = [m.start for m in marks if m.pinned]
    if pins:
        dots: Any = gpu.shader.from_builtin("UNIFORM_COLOR")  # type: ignore[func-returns-value]
        gpu.state.point_size_set(PIN_SIZE)
        dots.uniform_float("color", PIN)
        batch_for_shader(dots, "POINTS", {"pos": pins}).draw(dots)
        gpu.state.point_size_set(1.0)
    gpu.state.blend_set("NONE")


def _draw_balance(overlay: Overlay, lines: Any, batch_for_shader: Any) -> None:
    """The centre of mass as a cross, its plumb line and the support polygon's outline.

    Blue where balanced, red where not.
    """
    centre = overlay.centre
    if centre is None:
        return
    lines.uniform_float("color", COM if overlay.balanced else UNMET)
    cross = [centre + d for k in range(3) for d in (CROSS * _axis(k), -CROSS * _axis(k))]
    if overlay.support:
        cross += [centre, Vector((centre.x, centre.y, overlay.support[0].z))]
        corners = overlay.support
        cross += [
            p for a, b in zip(corners, corners[1:] + corners[:1], strict=True) for p in (a, b)
        ]
    batch_for_shader(lines, "LINES", {"pos": cross}).draw(lines)


def _axis(k: int) -> Vector:
    axis = Vector((0.0, 0.0, 0.0))
    axis[k] = 1.0
    return axis


def draw_labels(overlays: list[Overlay], view: ViewMatrices) -> None:
    """Write each unmet mark's miss beside its line (in the region's pixels)."""
    import blf

    font = 0
    blf.size(font, 12.0)
    blf.color(font, *UNMET)
    for overlay in overlays:
        for mark in overlay.marks:
            if mark.met:
                continue
            x, y = location_to_region(view, (mark.start + mark.end) / 2.0)
            blf.position(font, x + 6.0, y + 4.0, 0.0)
            blf.draw(font, f"{mark.name}: {mark.text}")


def draw_offscreen(
    overlays: list[Overlay], view: Matrix, size: int, *, lines: bool = True, labels: bool = True
) -> None:
    """Draw ``overlays`` into the bound framebuffer of a ``size`` × ``size`` view.

    As a viewport seeing the world through ``view`` (its window matrix times its view
    matrix) draws them: the lines in its space, the labels in its pixels. For a picture
    of the overlay rendered offscreen.
    """
    import gpu

    matrix: Any = gpu.matrix  # its stubs say push_pop returns nothing
    with matrix.push_pop(), matrix.push_pop_projection():
        if lines:
            matrix.load_matrix(view)
            matrix.load_projection_matrix(Matrix.Identity(4))
            draw_lines(overlays)
        if labels:
            matrix.load_identity()
            pixels = Matrix.Translation((-1.0, -1.0, 0.0)) @ Matrix.Diagonal(
                (2.0 / size, 2.0 / size, 1.0, 1.0)
            )
            matrix.load_projection_matrix(pixels)
            draw_labels(overlays, ViewMatrices(size, size, view, view.inverted(), False))


@dataclass
class OverlayState:
    """The overlay's draw handlers and what the last redraw drew.

    The handlers are added by :func:`register` and removed by :func:`unregister`; what
    was drawn is replaced by every 3D drawing of a region and read by its pixel drawing
    right after, so the overlay is computed once per redraw. Both live between events
    because Blender calls the draw handlers on its own, long after they were added.

    Attributes:
        drawn: What the region's 3D drawing drew, for its pixel drawing.
        handles: The draw handlers added to the 3D viewport, for their removal.
    """

    drawn: list[Overlay] = field(default_factory=list)
    handles: list[Any] = field(default_factory=list)


_state: Final = OverlayState()
"""The overlay's state for this Blender session."""


def _on_draw_view() -> None:
    _state.drawn[:] = [overlay_geometry(o) for o in shown_figures(bpy.context)]
    if _state.drawn:
        draw_lines(_state.drawn)


def _on_draw_pixel() -> None:
    context = bpy.context
    region, region_data = context.region, context.region_data
    if _state.drawn and region is not None and region_data is not None:
        draw_labels(_state.drawn, ViewMatrices.from_region(region, region_data))


def draw_toggle(panel: Any, context: Any) -> None:
    """In the Viewport Overlays popover: the active figure's overlay switch."""
    obj = context.active_object
    if obj is not None and obj.type == "ARMATURE" and obj.reach.is_figure:
        panel.layout.prop(obj.reach, "show_overlay", text="Reach: constraints")


def register() -> None:
    """Add the draw handlers and the overlay switch to the Viewport Overlays popover."""
    space = bpy.types.SpaceView3D
    _state.handles.append(space.draw_handler_add(_on_draw_view, (), "WINDOW", "POST_VIEW"))
    _state.handles.append(space.draw_handler_add(_on_draw_pixel, (), "WINDOW", "POST_PIXEL"))
    bpy.types.VIEW3D_PT_overlay.append(draw_toggle)


def unregister() -> None:
    """Undo :func:`register`."""
    bpy.types.VIEW3D_PT_overlay.remove(draw_toggle)
    while _state.handles:
        bpy.types.SpaceView3D.draw_handler_remove(_state.handles.pop(), "WINDOW")
