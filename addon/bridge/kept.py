"""A Solve's or a drag's problem, kept for the armature's next one while its inputs stay.

Building an armature's figure, problem and comfort is most of a Solve on a small rig
(4 ms of 8 on the Rigify metarig) and tens of milliseconds on a generated control rig;
pressing Solve again, or dragging again, with goals moved or the pose changed, needs
none of it again. A Solve or a drag keeps its problem and comfort here with what they
were built from (:func:`.inputs.figure_inputs`, as live mode compares it between
updates); the next Solve or drag of the same armature starts from them when that is
unchanged, and refreshes the goals and reads the pose as any step does
(:meth:`.posing.Poser.prepare`: a moved goal, a moved armature or a bone Reach leaves as
set are seen there). Anything else builds afresh.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from .inputs import figure_inputs
from .posing import Kept, Poser

__all__ = ["forget", "keep", "poser"]

ARMATURES = 8
"""Armatures whose last problem is kept; the one posed longest ago is dropped first."""


@dataclass(frozen=True)
class _Built:
    """What one armature's last Solve or drag built, and the inputs it was built from."""

    inputs: tuple[Any, ...]
    kept: Kept


@dataclass
class KeptState:
    """The last Solve's or drag's problem of each armature, by ``session_uid``, oldest first.

    It lives between operator calls because each Solve or drag is one of its own;
    emptied when a file is opened (:func:`forget`) and when the add-on is unregistered.
    """

    built: dict[int, _Built] = field(default_factory=dict)


_state: Final = KeptState()
"""The problems kept in this Blender session."""


def poser(obj: Any, scene: Any, view_layer: Any) -> tuple[Poser, tuple[Any, ...]]:
    """A Poser for ``obj``, started from its last Solve's or drag's problem where it holds.

    Returns the Poser and the inputs read now, which :func:`keep` stores with its problem.
    """
    inputs = figure_inputs(obj)
    poser = Poser(obj, scene, view_layer)
    built = _state.built.pop(int(obj.session_uid), None)
    if built is not None and built.inputs == inputs:
        poser.resume(built.kept)
    return poser, inputs


def keep(obj: Any, poser: Poser, inputs: tuple[Any, ...]) -> None:
    """Keep ``poser``'s problem for ``obj``'s next Solve or drag, built from ``inputs``."""
    kept = poser.kept_build()
    if kept is None:
        return
    built = _state.built
    built.pop(int(obj.session_uid), None)  # (so that it is the newest, kept longest)
    built[int(obj.session_uid)] = _Built(inputs, kept)
    while len(built) > ARMATURES:
        del built[next(iter(built))]


def forget() -> None:
    """Drop every kept problem (a file opened: its armatures are others)."""
    _state.built.clear()
