"""The solver method a Reach figure uses, and each method's options (stored in the .blend).

``Object.reach.method`` (:class:`ReachMethod`) holds the choice among
:data:`solver.METHODS` and the options of each, one property per row of
:data:`.method_options.OPTIONS`; :func:`draw_method` shows the choice and the chosen
method's options in the solver panel. :func:`.bridge.methods.method_of` turns them into
``solve``'s method object for drags, live mode and Solve alike.
"""

from __future__ import annotations

from typing import Any

from bpy.props import EnumProperty, FloatProperty, IntProperty
from bpy.types import PropertyGroup

from ..solver import METHODS
from ..solver.methods import as_method
from .method_options import METHOD_ITEMS, OPTIONS, MethodOption, options_of


def option_property(option: MethodOption) -> Any:
    """The ``bpy.props`` declaration of the property that stores ``option``."""
    settings: dict[str, Any] = {
        "name": option.label,
        "description": option.description,
        "min": option.minimum,
        "default": option.default,
    }
    if option.maximum is not None:
        settings["max"] = option.maximum
    if option.soft_max is not None:
        settings["soft_max"] = option.soft_max
    if option.unit:
        settings["unit"] = option.unit
    if option.precision is not None:
        settings["precision"] = option.precision
    declare: Any = FloatProperty if option.kind == "FLOAT" else IntProperty
    return declare(**settings)


class ReachMethod(PropertyGroup):
    """The solver method (``kind``) and each method's options (added below, from ``OPTIONS``)."""

    kind: EnumProperty(name="Method", items=METHOD_ITEMS, default="goldfarb")  # type: ignore[valid-type]


# Blender registers the properties a PropertyGroup's annotations declare: one per row of
# OPTIONS is added to them here, when the module loads, before registration reads them.
ReachMethod.__annotations__.update({option.name: option_property(option) for option in OPTIONS})

LEVELLED = frozenset(name for name in METHODS if as_method(name).holds_pins)
"""The methods that honour priorities and hold pins exactly (the others weigh them)."""


def draw_method(layout: Any, method: Any) -> None:
    """The method's choice and its options, in the solver panel."""
    layout.prop(method, "kind")
    for option in options_of(method.kind):
        layout.prop(method, option.name)
