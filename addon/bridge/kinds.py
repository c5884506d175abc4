"""The kind of rig an armature is, chosen once where its figure is built.

A generated control rig (:mod:`.control_rig`: switchable limbs found) is solved on its
skeleton and written onto its controls; any other armature is posed bone by bone, bones
that follow a control noted (:mod:`.followers`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .control_rig.figure import build_model_rig
from .followers import followed
from .rig import Rig, build_rig


def figure_rig(obj: Any, hold: Iterable[str] = ()) -> Rig:
    """The rig Reach solves on.

    A control rig's limbs (:func:`.control_rig.figure.build_model_rig`), else the armature's bones
    (:func:`.rig.build_rig`), bones that follow a control noted (:mod:`.followers`).

    Raises:
        BlenderDataError: For data the solver cannot represent, named.
    """
    modelled = build_model_rig(obj, hold)
    return modelled if modelled is not None else followed(obj, build_rig(obj, hold))
