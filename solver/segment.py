"""Joint DOFs and the segments they belong to: the building blocks of a figure.

:class:`~solver.figure.Figure` builds segments and :class:`~solver.kinematics.Kinematics`
compiles them; both import them from here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, TypedDict, Unpack

import numpy as np
from numpy.typing import ArrayLike

from ._checks import FloatArray, finite_scalar, finite_values, unit_vector
from .exceptions import SolverInputError
from .rotations import similar_rows

__all__ = ["Dof", "DofKind", "DofOptions", "Segment", "rest_matrix"]

DofKind = Literal["rotation", "translation"]


class DofOptions(TypedDict, total=False):
    """The optional fields of a :class:`Dof`, by keyword (see its attributes)."""

    lower: float | None
    upper: float | None
    rigidity: float
    name: str


@dataclass(frozen=True)
class Dof:
    """One degree of freedom of a joint: a rotation about, or a translation along, a unit axis.

    Attributes:
        kind: ``"rotation"`` (θ in [rad]) or ``"translation"`` (θ in length units).
        axis: Unit axis in the joint frame, shape (3,).
        lower: Lower bound of θ, or ``None`` for unbounded.
        upper: Upper bound of θ, or ``None`` for unbounded.
        rigidity: r ∈ [0, 1]. The solver moves this DOF through the scaled variable
            φ = θ / s with s = 1 − r, so its gradient is scaled by s and it moves less;
            r = 1 locks the DOF (it is removed from the variables).
        name: Optional label used in messages.
    """

    kind: DofKind
    axis: tuple[float, float, float]
    lower: float | None = None
    upper: float | None = None
    rigidity: float = 0.0
    name: str = ""

    def __post_init__(self) -> None:
        if self.kind not in ("rotation", "translation"):
            raise SolverInputError(
                f"DOF kind must be 'rotation' or 'translation', got {self.kind!r}", item="Dof"
            )
        what = f"DOF {self.name!r}" if self.name else "DOF"
        object.__setattr__(self, "axis", tuple(unit_vector(self.axis, f"{what} axis").tolist()))
        lower = None if self.lower is None else finite_scalar(self.lower, f"{what} lower bound")
        upper = None if self.upper is None else finite_scalar(self.upper, f"{what} upper bound")
        if lower is not None and upper is not None and lower > upper:
            raise SolverInputError(
                f"{what}: lower bound {lower} is above upper bound {upper}", item=what
            )
        rigidity = finite_scalar(self.rigidity, f"{what} rigidity")
        if not 0.0 <= rigidity <= 1.0:
            raise SolverInputError(f"{what}: rigidity must be in [0, 1], got {rigidity}", item=what)
        object.__setattr__(self, "lower", lower)
        object.__setattr__(self, "upper", upper)
        object.__setattr__(self, "rigidity", rigidity)

    @classmethod
    def rotation(cls, axis: str | ArrayLike, **options: Unpack[DofOptions]) -> Dof:
        """A rotation about ``axis`` ("x", "y", "z", "-x", … or a 3-vector); bounds in [rad]."""
        return cls("rotation", _axis_tuple(axis), **options)

    @classmethod
    def translation(cls, axis: str | ArrayLike, **options: Unpack[DofOptions]) -> Dof:
        """A translation along ``axis``; bounds in the figure's length unit."""
        return cls("translation", _axis_tuple(axis), **options)

    @property
    def locked(self) -> bool:
        """Whether rigidity 1 removes this DOF from the variables."""
        return self.rigidity >= 1.0

    @property
    def scale(self) -> float:
        """The variable scale s = 1 − rigidity (θ = s·φ)."""
        return 1.0 - self.rigidity


def _axis_tuple(axis: str | ArrayLike) -> tuple[float, float, float]:
    vector = unit_vector(axis, "DOF axis")
    return (float(vector[0]), float(vector[1]), float(vector[2]))


@dataclass(frozen=True)
class Segment:
    """A rigid segment of a figure (a Blender bone).

    Attributes:
        name: Unique name.
        parent: Parent segment's name, or ``None`` for a root.
        rest: Joint frame in the parent's frame (the root's: in world), shape (4, 4).
        dofs: The joint's DOFs, applied in order.
        first_dof: Index in θ of the first DOF.
        index: Position in the figure's segment order.
    """

    name: str
    parent: str | None
    rest: FloatArray = field(compare=False, repr=False)
    dofs: tuple[Dof, ...]
    first_dof: int
    index: int

    @property
    def dof_indices(self) -> range:
        """Indices in θ of this segment's DOFs."""
        return range(self.first_dof, self.first_dof + len(self.dofs))


def rest_matrix(rest: ArrayLike | None, name: str) -> FloatArray:
    """Segment ``name``'s rest matrix, checked (the identity for None).

    It must be a rotation times a uniform positive scale, plus a translation. Checked on
    Python's floats (:func:`.finite_values`): a figure moved as a whole checks its motion
    on every frame of a moving armature, and a figure's build every segment's rest.

    Raises:
        SolverInputError: For a matrix that is not finite, not (4, 4), not affine or not
            a similarity.
    """
    if rest is None:
        return np.eye(4)
    rows = finite_values(rest, f"segment {name!r}: rest matrix", (4, 4))
    x, y, z, w = rows[3]
    if max(abs(x), abs(y), abs(z), abs(w - 1.0)) > 1e-9:
        raise SolverInputError(
            f"segment {name!r}: rest matrix's last row must be (0, 0, 0, 1), "
            f"got {np.array(rows[3])}",
            item=f"segment {name!r}",
        )
    if not similar_rows(rows):
        raise SolverInputError(
            f"segment {name!r}: rest matrix must be a rotation times a uniform positive "
            "scale (non-uniform scale, shear and mirroring are not supported)",
            item=f"segment {name!r}",
        )
    return np.array(rows)
