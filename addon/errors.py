"""The add-on's error: bad Blender data, reported to the user as it is worded.

:class:`BlenderDataError` derives from the solver's one base error
:class:`solver.ReachError`, so an operator catches ``ReachError`` and reports both the
add-on's errors and a :class:`solver.SolverInputError` the same way.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ..solver import ReachError, SolverInputError

__all__ = ["BlenderDataError", "ReachError", "labelled"]


class BlenderDataError(ReachError):
    """A problem with the user's Blender data (an armature, a bone, a goal empty, …)."""


@contextmanager
def labelled(label: str) -> Iterator[None]:
    """Name the Blender item a :class:`solver.SolverInputError` inside the block is about.

    Args:
        label: The item, e.g. ``"bone 'hand.L'"``; "" keeps the solver's message as is.

    Raises:
        BlenderDataError: ``"<label>: <the solver's message>"``, from the solver's error.
    """
    try:
        yield
    except SolverInputError as error:
        raise BlenderDataError(f"{label}: {error}" if label else str(error)) from error
