"""The solver method a Reach figure uses, and each method's options (stored in the .blend).

``Object.reach.method`` (:class:`ReachMethod`) holds the choice among
:data:`solver.METHODS` and the options of each; :func:`draw_method` shows the choice and
the chosen method's options in the solver panel. :func:`.bridge.methods.method_of`
turns them into ``solve``'s method object for drags, live mode and Solve alike.
"""

from __future__ import annotations

from typing import Any

from bpy.props import EnumProperty, FloatProperty, IntProperty
from bpy.types import PropertyGroup

from ..solver import METHODS
from ..solver.methods import as_method

METHOD_ITEMS = [
    (
        "goldfarb",
        "Goldfarb (Jack)",
        "Zhao & Badler's projected BFGS: weighted goals, limits as constraints, priorities "
        "and exact pins; the default",
    ),
    (
        "lbfgsb",
        "L-BFGS-B",
        "Limited-memory BFGS with bounds; stays near the start pose (Tikhonov) and can "
        "split a long jump into steps (not with pins, priorities or comfort)",
    ),
    (
        "dls",
        "Damped least squares",
        "Task priority: higher-priority constraints and pins are met first and exactly",
    ),
    (
        "jacobian_transpose",
        "Jacobian transpose",
        "Handles pulling like springs; joints far from a handle move less",
    ),
]
"""Identifier (the solver's method name), label and description of each method."""


class ReachMethod(PropertyGroup):
    """The solver method and its options."""

    kind: EnumProperty(name="Method", items=METHOD_ITEMS, default="goldfarb")  # type: ignore[valid-type]
    tikhonov: FloatProperty(  # type: ignore[valid-type]
        name="Stay near start",
        description="Tikhonov weight of the squared distance of the joints from the start pose",
        min=0.0,
        soft_max=1.0,
        default=0.0,
        precision=4,
    )
    subdivide: IntProperty(  # type: ignore[valid-type]
        name="Subdivide",
        description="Intermediate goals solved in turn on the way to each goal",
        min=0,
        max=1000,
        soft_max=20,
        default=0,
    )
    damping: FloatProperty(  # type: ignore[valid-type]
        name="Damping",
        description="Largest damping near a singular pose; 0: 5% of the longest chain",
        min=0.0,
        default=0.0,
        unit="LENGTH",
        precision=4,
    )
    step_size: FloatProperty(  # type: ignore[valid-type]
        name="Step size",
        description="Constant step along the handles' pull; 0: the best step along it",
        min=0.0,
        default=0.0,
        precision=4,
    )
    falloff: FloatProperty(  # type: ignore[valid-type]
        name="Falloff",
        description="A joint's share of a handle's pull per bone between them",
        min=0.01,
        max=1.0,
        default=0.9,
    )
    cutoff: IntProperty(  # type: ignore[valid-type]
        name="Cut-off",
        description="Joints more than this many bones from a handle do not move for it; -1: none",
        min=-1,
        default=-1,
    )


OPTIONS_SHOWN = {
    "goldfarb": (),
    "lbfgsb": ("tikhonov", "subdivide"),
    "dls": ("damping",),
    "jacobian_transpose": ("step_size", "falloff", "cutoff"),
}
"""The options the panel shows under each method."""

LEVELLED = frozenset(name for name in METHODS if as_method(name).holds_pins)
"""The methods that honour priorities and hold pins exactly (the others weigh them)."""


def draw_method(layout: Any, method: Any) -> None:
    """The method's choice and its options, in the solver panel."""
    layout.prop(method, "kind")
    for name in OPTIONS_SHOWN[method.kind]:
        layout.prop(method, name)
