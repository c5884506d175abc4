"""Reach's solver: multi-constraint inverse kinematics by nonlinear programming.

The spatial-constraint system of the Jack human-figure system (Zhao & Badler 1994):
a figure (tree of segments with rotational and translational DOFs under linear joint
limits) and weighted spatial constraints; :func:`solve` minimises the weighted sum of
goal potentials without ever leaving the limits. numpy, with a compiled kernel for the
hot path where it loads (``kernel``); never imports Blender.

Where things are: ``segment`` (DOFs and segments), ``figure`` (building a figure and
its limits), ``kinematics`` (batched forward kinematics and DOF axes), ``limits``
(linear joint limits), ``rotations`` (Euler angles and quaternions), ``constraint``
and ``goals`` (what to reach), ``chains`` (which DOFs each constraint moves),
``problem`` (the objective and its gradient), ``pins`` and ``comfort`` (holding points;
the aim below every goal), ``reach`` (where effectors can be),
``methods`` (each method's options as one object, and its descent), ``restarts`` (the
one driver of every method's descents), ``solve`` (checks, dispatch and the verdict)
and ``optimizer`` (the step routines: ``goldfarb`` with its ``active_set``, ``metric``
and ``linesearch``, ``lbfgsb``, ``dls``, ``jacobian_transpose``, the reduced ``space``,
``feasible`` starts and the ``result``).
"""

from . import goals
from .comfort import Comfort
from .constraint import AnyOf, CentreOfMass, Constraint, Effector
from .exceptions import ReachError, SolverInputError
from .figure import Figure
from .limits import LinearLimits
from .methods import Dls, Goldfarb, JacobianTranspose, Lbfgsb, Method
from .pins import PIN_WEIGHT, pin
from .problem import Problem
from .result import Outcome, SolveResult, Status
from .segment import Dof, Segment
from .solve import METHODS, solve

__all__ = [
    "METHODS",
    "PIN_WEIGHT",
    "AnyOf",
    "CentreOfMass",
    "Comfort",
    "Constraint",
    "Dls",
    "Dof",
    "Effector",
    "Figure",
    "Goldfarb",
    "JacobianTranspose",
    "Lbfgsb",
    "LinearLimits",
    "Method",
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
