"""The array types the bridge passes between Blender's data and the solver."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.float64]
"""A float64 array."""
IndexArray = NDArray[np.intp]
"""An array of indices."""
