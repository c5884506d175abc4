"""The add-on's error: bad Blender data, reported to the user as it is worded.

:class:`BlenderDataError` derives from the solver's one base error
:class:`solver.ReachError`, so an operator catches ``ReachError`` and reports both the
add-on's errors and a :class:`solver.SolverInputError` the same way.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from ..solver import ReachError, SolverInputError

__all__ = ["BlenderDataError", "ReachError", "labelled", "nearest_name", "no_bone"]


class BlenderDataError(ReachError):
    """A problem with the user's Blender data (an armature, a bone, a goal empty, …)."""


def nearest_name(name: str, names: Iterable[str]) -> str:
    """The name among ``names`` a user most likely meant by ``name``, or "".

    One equal but for case or a prefix before a colon (``mixamorig:LeftArm`` for
    ``LeftArm``), else the closest by :func:`difflib.get_close_matches`, case ignored.
    """
    lower: dict[str, str] = {}
    for each in names:
        lower.setdefault(each.lower(), each)
    plain = name.rsplit(":", 1)[-1].lower()
    for key, each in lower.items():
        if key.rsplit(":", 1)[-1] == plain:
            return each
    close = difflib.get_close_matches(name.lower(), list(lower), n=1, cutoff=0.6)
    return lower[close[0]] if close else ""


def no_bone(obj: Any, name: str, role: str = "") -> BlenderDataError:
    """The error for a bone name armature object ``obj`` has no bone of, with the nearest.

    ``role``: what the name was given as ("chain start"), said after it.
    """
    text = f"armature '{obj.name}' has no bone '{name}'" + (f" ({role})" if role else "")
    near = nearest_name(name, (bone.name for bone in obj.data.bones))
    return BlenderDataError(f"{text}; did you mean '{near}'?" if near else text)


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
