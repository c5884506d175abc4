"""The array types the bridge passes between Blender's data and the solver.

And :func:`channel`, the one read of a channel of every item of a collection, and
:func:`pose_written`, the one update tag after pose channels are written in bulk.
"""

from __future__ import annotations

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


def pose_written(obj: Any) -> None:
    """Tell Blender that ``obj``'s pose channels changed (written with ``foreach_set``).

    ``foreach_set`` runs no property update, so the object is tagged by hand. A
    transform tag is enough: the pose is evaluated after the object's transform, and
    any tag copies the new channels into the evaluated object; bone constraints,
    drivers and meshes deformed by the armature follow as they do a full tag, which
    also evaluates the armature's geometry again and costs about twice as much.
    """
    obj.update_tag(refresh={"OBJECT"})
