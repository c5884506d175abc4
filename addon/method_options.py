"""The solver methods and their options as the add-on offers them: one table for all uses.

:data:`METHOD_ITEMS` names each method of :data:`solver.METHODS` for the method choice,
and each row of :data:`OPTIONS` names one method option once: the property of
``Object.reach.method`` that stores it (its identifier is saved in .blend files), its
label, description, default and range, and the field of the method's options object it
sets. Three readers share the table: :mod:`.method_settings` declares the properties
from it and draws, under the method choice, one row per option of the chosen method in
table order; :func:`.bridge.methods.method_of` builds the method object from it. The
table imports neither Blender nor the solver, so the bridge reads it as plain data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["METHOD_ITEMS", "OPTIONS", "MethodOption", "options_of"]

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


@dataclass(frozen=True)
class MethodOption:
    """One method option: a stored setting, its row in the solver panel, a method field.

    Attributes:
        name: The property's identifier in ``Object.reach.method`` (saved in .blend files).
        method: The solver method it belongs to (a name of :data:`solver.METHODS`).
        field: The field of that method's options object that the value sets.
        kind: The property's type, ``"FLOAT"`` or ``"INT"`` (the field's too).
        label: The property's name, shown on its row.
        description: The property's tooltip.
        default: The value a new figure starts with.
        minimum: The smallest value the property takes.
        maximum: The largest value the property takes (None: no bound).
        soft_max: The top of the slider's range (None: the largest value).
        unit: Blender's unit of the value (``"LENGTH"``), or "" for a plain number.
        precision: Digits shown after the point (None: Blender's default).
        unset: Values not above it mean the solver's own default: the field is set to
            None for them (None: every value is passed on).
    """

    name: str
    method: str
    field: str
    kind: Literal["FLOAT", "INT"]
    label: str
    description: str
    default: float
    minimum: float
    maximum: float | None = None
    soft_max: float | None = None
    unit: str = ""
    precision: int | None = None
    unset: float | None = None

    def value(self, stored: float) -> float | int | None:
        """The method field's value for the stored value ``stored``."""
        if self.unset is not None and not stored > self.unset:
            return None
        return float(stored) if self.kind == "FLOAT" else int(stored)


# One row per option: its property, method, field, type and label; its description; the
# rest of its settings. The rows are laid out as a table, which the formatter keeps.
# fmt: off
OPTIONS = (
    MethodOption("tikhonov", "lbfgsb", "tikhonov", "FLOAT", "Stay near start",
                 "Tikhonov weight of the squared distance of the joints from the start pose",
                 default=0.0, minimum=0.0, soft_max=1.0, precision=4),
    MethodOption("subdivide", "lbfgsb", "subdivide", "INT", "Subdivide",
                 "Intermediate goals solved in turn on the way to each goal",
                 default=0, minimum=0, maximum=1000, soft_max=20),
    MethodOption("damping", "dls", "damping", "FLOAT", "Damping",
                 "Largest damping near a singular pose; 0: 5% of the longest chain",
                 default=0.0, minimum=0.0, unit="LENGTH", precision=4, unset=0.0),
    MethodOption("step_size", "jacobian_transpose", "step_size", "FLOAT", "Step size",
                 "Constant step along the handles' pull; 0: the best step along it",
                 default=0.0, minimum=0.0, precision=4, unset=0.0),
    MethodOption("falloff", "jacobian_transpose", "falloff", "FLOAT", "Falloff",
                 "A joint's share of a handle's pull per bone between them",
                 default=0.9, minimum=0.01, maximum=1.0),
    MethodOption("cutoff", "jacobian_transpose", "cutoff", "INT", "Cut-off",
                 "Joints more than this many bones from a handle do not move for it; -1: none",
                 default=-1, minimum=-1, unset=-1),
)
# fmt: on
"""Every method option the add-on offers, grouped by method in the panel's order."""


def options_of(method: str) -> tuple[MethodOption, ...]:
    """The options of the method named ``method``, in table order (none for Goldfarb)."""
    return tuple(option for option in OPTIONS if option.method == method)
