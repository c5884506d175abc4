"""The kind of rig an armature is, chosen once where its figure is built.

A generated control rig (switchable limbs found, :mod:`.control_rig`) is solved on its
skeleton and written onto its controls; any other armature is posed bone by bone, bones
that follow a control noted (:mod:`.plain_rig`). The rig built keeps its kind
(:attr:`.rig.Rig.kind`), which every later step asks.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .control_rig.kind import ControlRig
from .control_rig.model import control_model
from .plain_rig import PLAIN
from .rig import Rig, RigKind


def rig_kind(obj: Any) -> RigKind:
    """The kind of rig ``obj`` is: a control rig's, or the plain kind of bones posed alone."""
    model = control_model(obj)
    return PLAIN if model is None else ControlRig(model)


def figure_rig(obj: Any, hold: Iterable[str] = ()) -> Rig:
    """The rig Reach solves on: its kind's figure (:meth:`.rig.RigKind.build`).

    Raises:
        BlenderDataError: For data the solver cannot represent, named.
    """
    return rig_kind(obj).build(obj, hold)
