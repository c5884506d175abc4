"""Reach's solver: multi-constraint inverse kinematics by nonlinear programming.

The spatial-constraint system of the Jack human-figure system (Zhao & Badler 1994):
a figure (tree of segments with rotational and translational DOFs under linear joint
limits) and weighted spatial constraints; :func:`solve` minimises the weighted sum of
goal potentials without ever leaving the limits. Pure numpy; never imports Blender.
"""

from . import goals
from .constraint import AnyOf, Constraint, Effector
from .exceptions import ReachError, SolverInputError
from .figure import Figure
from .limits import LinearLimits
from .optimizer.result import SolveResult, Status
from .problem import Problem
from .segment import Dof, Segment
from .solve import METHODS, solve

__all__ = [
    "METHODS",
    "AnyOf",
    "Constraint",
    "Dof",
    "Effector",
    "Figure",
    "LinearLimits",
    "Problem",
    "ReachError",
    "Segment",
    "SolveResult",
    "SolverInputError",
    "Status",
    "goals",
    "solve",
]
