"""Reach's solver: multi-constraint inverse kinematics by nonlinear programming.

The spatial-constraint system of the Jack human-figure system (Zhao & Badler 1994):
a figure (tree of segments with rotational and translational DOFs under linear joint
limits) and weighted spatial constraints; :func:`solve` minimises the weighted sum of
goal potentials without ever leaving the limits. Pure numpy; never imports Blender.

Where things are: ``segment`` (DOFs and segments), ``figure`` (building a figure and
its limits), ``kinematics`` (batched forward kinematics and DOF axes), ``limits``
(linear joint limits), ``rotations`` (Euler angles and quaternions), ``constraint``
and ``goals`` (what to reach), ``chains`` (which DOFs each constraint moves),
``problem`` (the objective and its gradient), ``reach`` (where effectors can be),
``solve`` (restarts around the descents of ``optimizer``: ``goldfarb`` with its
``active_set``, ``metric`` and ``linesearch``, the reduced ``space``, ``feasible``
restarts and the ``result``).
"""

from . import goals
from .constraint import AnyOf, Constraint, Effector
from .exceptions import ReachError, SolverInputError
from .figure import Figure
from .limits import LinearLimits
from .optimizer.result import Outcome, SolveResult, Status
from .pins import PIN_WEIGHT, pin
from .problem import Problem
from .segment import Dof, Segment
from .solve import METHODS, solve

__all__ = [
    "METHODS",
    "PIN_WEIGHT",
    "AnyOf",
    "Constraint",
    "Dof",
    "Effector",
    "Figure",
    "LinearLimits",
    "Outcome",
    "Problem",
    "ReachError",
    "Segment",
    "SolveResult",
    "SolverInputError",
    "Status",
    "goals",
    "pin",
    "solve",
]
