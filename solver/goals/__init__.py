"""Goals: potentials P(e) ≥ 0 of an effector state with analytic gradients.

The goal types of Zhao & Badler 1994, §5.
"""

from .aim import Aim
from .base import C5, Goal, GoalValue, commensurate
from .geometric import HalfSpace, Line, Plane
from .orientation import Orientation, PositionOrientation
from .position import Position

__all__ = [
    "C5",
    "Aim",
    "Goal",
    "GoalValue",
    "HalfSpace",
    "Line",
    "Orientation",
    "Plane",
    "Position",
    "PositionOrientation",
    "commensurate",
]
