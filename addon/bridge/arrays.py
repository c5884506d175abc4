"""The array types the bridge passes between Blender's data and the solver.

And :func:`channel`, the one read of a channel of every item of a collection.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.float64]
"""A float64 array."""
IndexArray = NDArray[np.intp]
"""An array of indices."""


def channel(collection: Any, name: str, width: int) -> NDArray[np.float32]:
    """Channel ``name`` of every item (its ``width`` floats), as stored, in one read: (n, width)."""
    values = np.empty(len(collection) * width, np.float32)
    collection.foreach_get(name, values)
    return values.reshape(-1, width)
