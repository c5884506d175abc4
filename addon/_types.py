"""Types shared by the add-on's Blender classes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, TypeAlias

if TYPE_CHECKING:
    from bpy.stub_internal.rna_enums import OperatorReturnItems

    Result: TypeAlias = set[OperatorReturnItems]
else:
    Result: TypeAlias = set[
        Literal["RUNNING_MODAL", "CANCELLED", "FINISHED", "PASS_THROUGH", "INTERFACE"]
    ]
"""What an operator's execute, invoke and modal return."""
