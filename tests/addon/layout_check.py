"""A stand-in for ``UILayout`` that checks every call against Blender's own RNA.

Panels and lists draw into :class:`CheckingLayout` instead of a real layout (which only
exists while Blender draws a window). Each method called must be a function of
``bpy.types.UILayout``; its arguments, given by position or keyword, must be that
function's parameters, with enum values among the parameter's items (icons, say);
attributes set on a layout must be ``UILayout`` properties. ``prop`` and ``prop_search``
check that the property exists on the data, ``template_list`` that the list type is
registered and its collection and index exist, and ``operator`` that the operator exists
and returns properties that accept only the operator's own. Everything drawn is recorded,
so tests can assert what the user sees.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import bpy

FUNCTIONS = bpy.types.UILayout.bl_rna.functions
PROPERTIES = bpy.types.UILayout.bl_rna.properties


class LayoutError(AssertionError):
    """A call that Blender's real layout would refuse or that draws nothing useful."""


def _inputs(function: str) -> list[Any]:
    if function not in FUNCTIONS:
        raise LayoutError(f"UILayout has no function {function!r}")
    return [p for p in FUNCTIONS[function].parameters if not p.is_output]


def _check_value(where: str, rna: Any, value: Any) -> None:
    """``value`` fits the RNA property ``rna`` (type, enum items, array length)."""
    kind = rna.type
    if kind == "ENUM":
        items = {item.identifier for item in rna.enum_items}
        values = value if rna.is_enum_flag else {value}
        unknown = set(values) - items
        if unknown:
            raise LayoutError(f"{where}: {sorted(unknown)} is not one of {rna.identifier}'s items")
    elif kind == "BOOLEAN" and getattr(rna, "array_length", 0) == 0:
        if not isinstance(value, bool):
            raise LayoutError(f"{where}: {rna.identifier} takes a bool, got {value!r}")
    elif kind == "STRING":
        if not isinstance(value, str):
            raise LayoutError(f"{where}: {rna.identifier} takes a string, got {value!r}")
    elif kind in {"INT", "FLOAT"} and getattr(rna, "array_length", 0) == 0:
        if not isinstance(value, int | float):  # Blender takes a bool for an int (toggle)
            raise LayoutError(f"{where}: {rna.identifier} takes a number, got {value!r}")
        if kind == "INT" and not isinstance(value, int):
            raise LayoutError(f"{where}: {rna.identifier} takes an int, got {value!r}")


def _rna_property(data: Any, name: str, where: str) -> Any:
    if not isinstance(name, str) or not name:
        raise LayoutError(f"{where}: a property name is needed, got {name!r}")
    properties = data.bl_rna.properties
    if name not in properties:
        raise LayoutError(f"{where}: {type(data).__name__} has no property {name!r}")
    return properties[name]


@dataclass
class Drawn:
    """What one call drew: the function, its arguments by parameter name, its children."""

    function: str
    arguments: dict[str, Any]
    operator: CheckingOperator | None = None


class CheckingOperator:
    """The properties ``layout.operator`` returns: only the operator's own may be set."""

    def __init__(self, idname: str) -> None:
        module, _, name = idname.partition(".")
        if not module or not name or not hasattr(bpy.ops, module):
            raise LayoutError(f"operator {idname!r}: not of the form 'module.name'")
        try:
            rna = getattr(getattr(bpy.ops, module), name).get_rna_type()
        except (AttributeError, KeyError) as error:
            raise LayoutError(f"no operator {idname!r}") from error
        object.__setattr__(self, "idname", idname)
        object.__setattr__(self, "rna", rna)
        object.__setattr__(self, "values", {})

    def __setattr__(self, name: str, value: Any) -> None:
        properties = self.rna.properties
        if name == "rna_type" or name not in properties:
            raise LayoutError(f"operator {self.idname!r} has no property {name!r}")
        _check_value(f"operator {self.idname!r}", properties[name], value)
        self.values[name] = value

    def __getattr__(self, name: str) -> Any:
        values = object.__getattribute__(self, "values")
        if name in values:
            return values[name]
        raise LayoutError(f"operator {self.idname!r}: {name!r} read before it was set")


@dataclass
class CheckingLayout:
    """A layout that checks each call against ``bpy.types.UILayout`` and records it."""

    drawn: list[Drawn] = field(default_factory=list)
    children: list[CheckingLayout] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in {"drawn", "children", "settings"}:
            object.__setattr__(self, name, value)
            return
        if name not in PROPERTIES or name == "rna_type":
            raise LayoutError(f"UILayout has no property {name!r}")
        _check_value("UILayout", PROPERTIES[name], value)
        self.settings[name] = value

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        if name in PROPERTIES:
            return self.settings.get(name)
        _inputs(name)  # raises for a function UILayout lacks

        def call(*args: Any, **kwargs: Any) -> Any:
            return self._call(name, args, kwargs)

        return call

    def _call(self, function: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        parameters = _inputs(function)
        if len(args) > len(parameters):
            raise LayoutError(f"UILayout.{function}: {len(args)} positional arguments")
        arguments = {p.identifier: value for p, value in zip(parameters, args, strict=False)}
        by_name = {p.identifier: p for p in parameters}
        for name, value in kwargs.items():
            if name not in by_name:
                raise LayoutError(f"UILayout.{function} has no parameter {name!r}")
            if name in arguments:
                raise LayoutError(f"UILayout.{function}: {name!r} given twice")
            arguments[name] = value
        for parameter in parameters:
            name = parameter.identifier
            if parameter.is_required and name not in arguments:
                raise LayoutError(f"UILayout.{function}: {name!r} is required")
            if name in arguments and parameter.type != "POINTER":
                _check_value(f"UILayout.{function}", parameter, arguments[name])
        where = f"UILayout.{function}"
        if function in {"prop", "prop_search"}:
            rna = _rna_property(arguments["data"], arguments["property"], where)
            index = arguments.get("index", -1)
            if index != -1 and not 0 <= index < getattr(rna, "array_length", 0):
                raise LayoutError(f"{where}: index {index} of {rna.identifier!r}")
        if function == "prop_search":
            search = _rna_property(
                arguments["search_data"], arguments["search_property"], f"{where} (search)"
            )
            if search.type != "COLLECTION":
                raise LayoutError(f"{where}: {search.identifier!r} is not a collection")
        if function == "template_list":
            if not isinstance(getattr(bpy.types, arguments["listtype_name"], None), type):
                raise LayoutError(f"{where}: no UIList {arguments['listtype_name']!r}")
            _rna_property(arguments["dataptr"], arguments["propname"], where)
            _rna_property(arguments["active_dataptr"], arguments["active_propname"], where)
        record = Drawn(function, arguments)
        self.drawn.append(record)
        if function == "operator":
            record.operator = CheckingOperator(arguments["operator"])
            return record.operator
        if function in {"row", "column", "box", "split", "column_flow", "grid_flow"}:
            child = CheckingLayout()
            self.children.append(child)
            record.arguments["layout"] = child
            return child
        return None

    def everything(self) -> list[Drawn]:
        """Every call drawn here and in nested layouts, depth first."""
        result: list[Drawn] = []
        for record in self.drawn:
            result.append(record)
            child = record.arguments.get("layout")
            if isinstance(child, CheckingLayout):
                result.extend(child.everything())
        return result

    def labels(self) -> list[str]:
        """The texts of every label drawn."""
        return [d.arguments.get("text", "") for d in self.everything() if d.function == "label"]

    def operators(self, idname: str) -> list[CheckingOperator]:
        """The buttons of operator ``idname`` drawn, with their properties."""
        return [
            d.operator
            for d in self.everything()
            if d.operator is not None and d.operator.idname == idname
        ]

    def props(self) -> list[str]:
        """The names of the properties drawn with ``prop`` and ``prop_search``."""
        return [
            d.arguments["property"]
            for d in self.everything()
            if d.function in {"prop", "prop_search"}
        ]


class Host:
    """The ``self`` a Panel's ``draw`` or a UIList's ``draw_item`` sees: its layout."""

    def __init__(self, layout_type: str = "DEFAULT") -> None:
        self.layout = CheckingLayout()
        self.layout_type = layout_type
