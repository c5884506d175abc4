"""The array types the bridge passes between Blender's data and the solver.

And :func:`channel`, the one read of a channel of every item of a collection,
:func:`bone_rows`, where named pose bones are in it, and :func:`pose_written`, the one
update tag after pose channels are written in bulk.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.float64]
"""A float64 array."""
IndexArray = NDArray[np.intp]
"""An array of indices."""
Mask = NDArray[np.bool_]
"""An array of booleans."""


def channel(collection: Any, name: str, width: int) -> NDArray[np.float32]:
    """Channel ``name`` of every item (its ``width`` floats), as stored, in one read: (n, width)."""
    values = np.empty(len(collection) * width, np.float32)
    collection.foreach_get(name, values)
    return values.reshape(-1, width)


def pose_rows(bones: Any) -> dict[str, int]:
    """Each pose bone's row in ``bones`` (an armature's ``pose.bones``), by name.

    From the names read in one call (``keys()``): iterating the bones makes a Python
    wrapper of each, two and a half times the cost (180 µs for a generated rig's 222 bones).
    """
    return {name: k for k, name in enumerate(bones.keys())}


def bone_rows(bones: Any, names: Iterable[str]) -> list[int]:
    """Each named pose bone's row in ``bones`` (an armature's ``pose.bones``), −1 if absent.

    ``bones.find`` compares names one by one, about 0.1 µs a bone before the one it finds
    (16 µs for a control 134 bones down a generated rig), and a control rig's drag event
    writes a dozen controls: the rows are read once per pose and kept, each checked on use
    by the name at its row (a bone renamed, added or removed since reads them again).
    """
    key = int(bones.id_data.session_uid)
    rows = _ROWS.get(key)
    found = []
    for name in names:
        row = -1 if rows is None else rows.get(name, -1)
        if row < 0 or row >= len(bones) or bones[row].name != name:
            if len(_ROWS) >= _KEPT_POSES:
                _ROWS.clear()
            rows = _ROWS[key] = pose_rows(bones)
            row = rows.get(name, -1)
        found.append(row)
    return found


_ROWS: dict[int, dict[str, int]] = {}
"""By armature object (its ``session_uid``), its pose bones' rows by name (:func:`bone_rows`)."""
_KEPT_POSES = 16
"""Most armatures whose rows are kept."""


def pose_written(obj: Any) -> None:
    """Tell Blender that ``obj``'s pose channels changed (written with ``foreach_set``).

    ``foreach_set`` runs no property update, so the object is tagged by hand. A
    transform tag is enough: the pose is evaluated after the object's transform, and
    any tag copies the new channels into the evaluated object; bone constraints,
    drivers and meshes deformed by the armature follow as they do a full tag, which
    also evaluates the armature's geometry again and costs about twice as much.
    """
    obj.update_tag(refresh={"OBJECT"})
