"""Property groups derived from frozen dataclass records, so the two never drift apart.

The records themselves (:class:`EventStats`) live here too, below every feature that
fills them, so that the stored settings import no feature.

A record's field becomes a property when its metadata gives it a label
(``field(metadata=shown("Residual"))``); its type picks the property from
:data:`PROPERTIES`. :func:`store` copies a record into an item of such a group.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bpy.props import FloatProperty, FloatVectorProperty, IntProperty, StringProperty
from bpy.types import PropertyGroup

LABEL = "label"
"""The metadata key of a field's property name."""

PROPERTIES: dict[object, Callable[[str], Any]] = {
    float: lambda label: FloatProperty(name=label),
    int: lambda label: IntProperty(name=label),
    str: lambda label: StringProperty(name=label),
    tuple[float, float, float]: lambda label: FloatVectorProperty(
        name=label, size=3, subtype="TRANSLATION"
    ),
}
"""The property of a field, by the field's type."""


def shown(label: str) -> dict[str, str]:
    """Field metadata: store the field in the derived property group, named ``label``."""
    return {LABEL: label}


def stored_fields(record: type) -> list[dataclasses.Field[Any]]:
    """The fields of dataclass ``record`` that its property group stores."""
    return [f for f in dataclasses.fields(record) if LABEL in f.metadata]


def property_group(name: str, record: type, doc: str) -> type[PropertyGroup]:
    """A property group class with one property per stored field of ``record``.

    Raises:
        TypeError: For a stored field of a type :data:`PROPERTIES` does not have.
    """
    hints = typing.get_type_hints(record)
    annotations = {}
    for item in stored_fields(record):
        kind = hints[item.name]
        if kind not in PROPERTIES:
            raise TypeError(f"{record.__name__}.{item.name}: no property for type {kind}")
        annotations[item.name] = PROPERTIES[kind](item.metadata[LABEL])
    return type(name, (PropertyGroup,), {"__annotations__": annotations, "__doc__": doc})


def store(record: Any, item: Any) -> None:
    """Copy the stored fields of ``record`` into ``item``, an item of its property group."""
    for entry in stored_fields(type(record)):
        setattr(item, entry.name, getattr(record, entry.name))


@dataclass(frozen=True)
class EventStats:
    """What one drag event cost and achieved (``ReachDragEvent`` stores the labelled fields).

    Attributes:
        location: The goal's location (its ``location`` channel) at this event.
        milliseconds: Goal move → solve → write-back → depsgraph update.
        solve_milliseconds: The solve alone.
        budget: The time limit the solve had [s].
        residual: Largest constraint residual √P (world units).
        objective: G_all.
        iterations: Solver iterations.
        status: Solver status.
        max_violation: Largest joint-limit violation of the written pose.
        outcome: The solver's outcome (met, not reachable, local minimum, unfinished).
        out_of_reach: How far the farthest goal proved out of reach lies beyond its
            chain (world units; 0 when none is).
        unmet: Constraints not met within the armature's "met within" distance on
            Blender's evaluated pose (not stored: the sidebar shows them for the last
            solve only).
        diverging: Bones Blender poses otherwise than Reach wrote them (not stored).
    """

    location: tuple[float, float, float] = field(metadata=shown("Location"))
    milliseconds: float = field(metadata=shown("Event (ms)"))
    solve_milliseconds: float = field(metadata=shown("Solve (ms)"))
    budget: float = field(metadata=shown("Budget (s)"))
    residual: float = field(metadata=shown("Residual"))
    objective: float = field(metadata=shown("Objective"))
    iterations: int = field(metadata=shown("Iterations"))
    status: str = field(metadata=shown("Status"))
    max_violation: float = field(metadata=shown("Largest limit violation"))
    outcome: str = field(metadata=shown("Outcome"))
    out_of_reach: float = field(metadata=shown("Out of reach"))
    unmet: tuple[str, ...]
    diverging: tuple[str, ...] = ()
