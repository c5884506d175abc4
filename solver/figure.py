"""Figures: trees of segments joined by joints of rotational and translational DOFs.

A figure is built with :meth:`Figure.add_segment`; joint limits are linear constraints
on the joint-angle vector θ (Zhao & Badler 1994, eq. 23): bounds ``l_i ≤ θ_i ≤ u_i`` given with
each :class:`Dof`, convex limit polygons over two DOFs of one joint
(:meth:`Figure.add_polygon_limit`) and linear equalities between DOFs
(:meth:`Figure.add_linear_equality`, joint groups).

World transform of segment k::

    W_k(θ) = W_parent(k)(θ) · R_k · D_k(θ_k)

with ``R_k`` the constant rest transform of k's joint frame in its parent's frame and
``D_k`` the product, in order, of the transforms of k's DOFs.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import replace
from typing import Any, TypeVar, cast

import numpy as np
from numpy.typing import ArrayLike

from ._checks import FloatArray, finite_array, finite_scalar
from .exceptions import SolverInputError
from .kinematics import Kinematics
from .limits import LinearLimits, SparseRow, polygon_rows
from .segment import Dof, Segment, rest_matrix

T = TypeVar("T")

SHARED = 16
"""Most layouts of chains a figure keeps what its problems derive for (:meth:`Figure.shared`)."""

__all__ = ["Figure"]


class Figure:
    """A tree of segments with joint DOFs and linear joint limits.

    Example:
        >>> fig = Figure()
        >>> _ = fig.add_segment("upper_arm", dofs=[Dof.rotation("x", lower=-1.0, upper=1.0)])
        >>> fig.n_dofs
        1
    """

    def __init__(self) -> None:
        self._segments: list[Segment] = []
        self._by_name: dict[str, Segment] = {}
        self._polygon_rows: list[SparseRow] = []
        self._equalities: list[SparseRow] = []
        self._n_dofs = 0
        self._kinematics: Kinematics | None = None
        self._bounds: tuple[FloatArray, FloatArray, FloatArray] | None = None
        self._limits: LinearLimits | None = None
        self._shared: dict[Hashable, Any] = {}
        self._identity = object()  # renewed by every change (see motion_to)
        self._moved_by: tuple[object, FloatArray] | None = None
        self.version = 0

    # -- building ---------------------------------------------------------------------

    def add_segment(
        self,
        name: str,
        parent: str | None = None,
        rest: ArrayLike | None = None,
        dofs: Sequence[Dof] = (),
    ) -> Segment:
        """Add a segment below ``parent``.

        Args:
            name: Unique segment name.
            parent: Name of an existing segment, or ``None`` for a root.
            rest: Joint frame in the parent's frame, shape (4, 4): a rotation times a
                uniform positive scale, plus a translation. Default: identity.
            dofs: The joint's DOFs, applied in this order.

        Returns:
            The new segment.

        Raises:
            SolverInputError: For an empty or duplicate name, an unknown parent, a rest
                matrix that is not finite or not a similarity, or a non-DOF item.
        """
        if not isinstance(name, str) or not name:
            raise SolverInputError(f"segment name must be a non-empty string, got {name!r}")
        if name in self._by_name:
            raise SolverInputError(f"duplicate segment name {name!r}", item=f"segment {name!r}")
        if parent is not None and parent not in self._by_name:
            raise SolverInputError(
                f"segment {name!r}: parent {parent!r} does not exist; add it first",
                item=f"segment {name!r}",
            )
        matrix = rest_matrix(rest, name)
        if isinstance(dofs, Dof) or not isinstance(dofs, Sequence):
            raise SolverInputError(
                f"segment {name!r}: dofs must be a list of solver.Dof, got "
                f"{type(dofs).__name__}; wrap a single DOF in a list",
                item=f"segment {name!r}",
            )
        dof_list = tuple(dofs)
        for k, dof in enumerate(dof_list):
            if not isinstance(dof, Dof):
                raise SolverInputError(
                    f"segment {name!r}: DOF {k} must be a solver.Dof, got {type(dof).__name__}",
                    item=f"segment {name!r}",
                )
        segment = Segment(name, parent, matrix, dof_list, self._n_dofs, len(self._segments))
        self._segments.append(segment)
        self._by_name[name] = segment
        self._n_dofs += len(dof_list)
        self._changed()
        return segment

    def add_polygon_limit(
        self,
        segment: str,
        dofs: tuple[int, int],
        vertices: Sequence[Sequence[float]],
        *,
        name: str | None = None,
    ) -> None:
        """Limit two DOFs of one joint to a convex polygon (e.g. a shoulder's cone).

        Each edge becomes one inequality ``aᵀθ ≥ b`` with unit ``a``.

        Args:
            segment: The joint's segment.
            dofs: Positions of the two DOFs within the segment's DOF list.
            vertices: Polygon vertices (value of ``dofs[0]``, value of ``dofs[1]``),
                at least 3, convex, in either winding, in the DOFs' units ([rad]).
            name: What the edges' labels call the polygon (None: "polygon of" the
                segment and its two DOF positions).

        Raises:
            SolverInputError: For an unknown segment or DOF, NaN vertices, fewer than 3
                vertices, a degenerate (zero-area, repeated or collinear) or a
                non-convex polygon.
        """
        seg = self.segment(segment)
        pair = tuple(dofs) if isinstance(dofs, Sequence) else ()
        if len(pair) != 2 or pair[0] == pair[1]:
            raise SolverInputError(
                f"polygon limit on {segment!r}: dofs must be two different DOF positions, "
                f"got {dofs!r}",
                item=f"segment {segment!r}",
            )
        a, b = (self.dof_index(segment, k) for k in pair)
        points = finite_array(vertices, f"polygon limit on {segment!r}: vertices")
        rows, offsets = polygon_rows(points, f"polygon limit on {segment!r}")
        called = name or f"polygon of {seg.name}[{int(pair[0])}, {int(pair[1])}]"
        self._polygon_rows.extend(
            SparseRow(((a, float(row[0])), (b, float(row[1]))), float(offset), f"{called} edge {k}")
            for k, (row, offset) in enumerate(zip(rows, offsets, strict=True))
        )
        self._changed()

    def add_linear_equality(
        self, coefficients: Mapping[tuple[str, int], float], rhs: float = 0.0
    ) -> None:
        """Add ``Σ c·θ(segment, dof) = rhs``: a joint group or coupling (Zhao & Badler 1994, §11).

        Args:
            coefficients: Map from (segment name, DOF position in that segment) to the
                coefficient.
            rhs: Right-hand side.

        Raises:
            SolverInputError: For an unknown segment or DOF, NaN, or all-zero coefficients.
        """
        terms: dict[int, float] = {}
        for key, value in coefficients.items():
            if not (isinstance(key, tuple) and len(key) == 2):
                raise SolverInputError(
                    f"linear equality: keys must be (segment, dof) pairs, got {key!r}"
                )
            index = self.dof_index(key[0], key[1])
            terms[index] = terms.get(index, 0.0) + finite_scalar(
                value, f"linear equality: coefficient of {key!r}"
            )
        if not any(abs(v) > 0.0 for v in terms.values()):
            raise SolverInputError("linear equality: every coefficient is zero")
        right = finite_scalar(rhs, "linear equality: rhs")
        names = ", ".join(f"{k[0]}[{k[1]}]" for k in coefficients)
        label = f"equality #{len(self._equalities)} ({names})"
        self._equalities.append(SparseRow(tuple(sorted(terms.items())), right, label))
        self._changed()

    def moved(self, base: ArrayLike) -> Figure:
        """The same figure moved as a whole: every root's rest premultiplied by ``base``.

        For an armature whose object moved (its world matrix is in its roots' rests):
        the segments below the roots, the DOFs and the limits are the same, and the
        kinematics are copied with the roots' rests changed, not compiled again.

        Args:
            base: The motion, a rotation times a uniform positive scale plus a
                translation, shape (4, 4).

        Raises:
            SolverInputError: For a matrix that is not such a similarity.
        """
        motion = rest_matrix(base, "moved: base")
        other = Figure()
        other._segments = [
            replace(s, rest=motion @ s.rest) if s.parent is None else s for s in self._segments
        ]
        other._by_name = {s.name: s for s in other._segments}
        other._polygon_rows = list(self._polygon_rows)
        other._equalities = list(self._equalities)
        other._n_dofs = self._n_dofs
        other._bounds, other._limits = self._bounds, self._limits  # joint space: the same
        if self._kinematics is not None:
            other._kinematics = self._kinematics.moved(motion)
        motion.setflags(write=False)
        other._moved_by = (self._identity, motion)
        return other

    def motion_to(self, moved: Figure) -> FloatArray:
        """The similarity that took this figure's roots to ``moved``'s (:meth:`moved`), (4, 4).

        The motion :meth:`moved` applied where ``moved`` is its copy of this figure (a
        moving armature's problem is carried along on every frame), else measured.
        """
        made = moved._moved_by
        if made is not None and made[0] is self._identity:
            return made[1]
        for before, after in zip(self._segments, moved.segments, strict=True):
            if before.parent is None:
                motion: FloatArray = after.rest @ np.linalg.inv(before.rest)
                return motion
        return np.eye(4)

    def _changed(self) -> None:
        self._identity = object()
        self._moved_by = None
        self._kinematics = None
        self._limits = None
        self._bounds = None
        self._shared = {}
        self.version += 1

    def shared(self, key: Hashable, make: Callable[[], T]) -> T:
        """What the problems on this figure with one ``key`` derive alike, made once.

        ``make()`` where ``key`` is new; forgotten when the figure changes, and the oldest
        first beyond :data:`SHARED` keys. Problems of one chains' layout
        (:class:`solver.Problem`) share what they derive from it, so that a problem
        built afresh for new targets does not derive it again.
        """
        found = self._shared.get(key)
        if found is None:
            if len(self._shared) >= SHARED:
                del self._shared[next(iter(self._shared))]
            found = self._shared[key] = make()
        return cast(T, found)

    def _dof_arrays(self) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Lower bounds, upper bounds and rigidity per DOF, built once per change."""
        if self._bounds is None:
            dofs = self.dofs
            self._bounds = (
                np.array([-np.inf if d.lower is None else d.lower for d in dofs], np.float64),
                np.array([np.inf if d.upper is None else d.upper for d in dofs], np.float64),
                np.array([d.rigidity for d in dofs], dtype=np.float64),
            )
        return self._bounds

    # -- queries ----------------------------------------------------------------------

    @property
    def n_dofs(self) -> int:
        """Number of DOFs: the length of θ."""
        return self._n_dofs

    @property
    def segments(self) -> tuple[Segment, ...]:
        """The segments in ``add_segment`` order."""
        return tuple(self._segments)

    @property
    def dofs(self) -> tuple[Dof, ...]:
        """All DOFs in θ order."""
        return tuple(dof for seg in self._segments for dof in seg.dofs)

    def segment(self, name: str) -> Segment:
        """The segment called ``name``.

        Raises:
            SolverInputError: If there is no such segment.
        """
        try:
            return self._by_name[name]
        except (KeyError, TypeError):
            known = ", ".join(repr(s) for s in list(self._by_name)[:12])
            more = ", …" if len(self._by_name) > 12 else ""
            raise SolverInputError(
                f"unknown segment {name!r}; the figure has {known}{more}",
                item=f"segment {name!r}",
            ) from None

    def dof_index(self, segment: str, dof: int) -> int:
        """Position in θ of DOF number ``dof`` of ``segment``.

        Raises:
            SolverInputError: For an unknown segment or a DOF position out of range.
        """
        seg = self.segment(segment)
        if not isinstance(dof, (int, np.integer)) or not 0 <= int(dof) < len(seg.dofs):
            raise SolverInputError(
                f"segment {segment!r} has no DOF {dof!r}; it has {len(seg.dofs)} "
                f"(positions 0..{len(seg.dofs) - 1})",
                item=f"segment {segment!r}",
            )
        return seg.first_dof + int(dof)

    def dof_label(self, index: int) -> str:
        """A readable name for θ[index], e.g. ``"forearm[0]"``."""
        for seg in self._segments:
            if index in seg.dof_indices:
                return _label(seg, index - seg.first_dof)
        return f"θ[{index}]"

    @property
    def lower(self) -> FloatArray:
        """Lower bounds, shape (n_dofs,), −inf where unbounded."""
        return self._dof_arrays()[0].copy()

    @property
    def upper(self) -> FloatArray:
        """Upper bounds, shape (n_dofs,), +inf where unbounded."""
        return self._dof_arrays()[1].copy()

    @property
    def rigidity(self) -> FloatArray:
        """Per-DOF rigidity, shape (n_dofs,)."""
        return self._dof_arrays()[2].copy()

    @property
    def kinematics(self) -> Kinematics:
        """The compiled, vectorised kinematics of the current tree."""
        if self._kinematics is None:
            if not self._segments:
                raise SolverInputError("the figure has no segments; add one with add_segment")
            self._kinematics = Kinematics.compile(self._segments, self._n_dofs)
        return self._kinematics

    @property
    def limits(self) -> LinearLimits:
        """All joint limits as unit-row linear constraints over θ."""
        if self._limits is None:
            self._limits = self._build_limits()
        return self._limits

    def forward(self, theta: ArrayLike) -> FloatArray:
        """World matrices of all segments.

        Args:
            theta: Joint values, shape (n_dofs,).

        Returns:
            Shape (n_segments, 4, 4), in ``add_segment`` order.

        Raises:
            SolverInputError: If ``theta`` has the wrong length or is not finite.
        """
        values = self.check_theta(theta)
        return self.kinematics.world(values)[:-1]

    def check_theta(self, theta: ArrayLike, what: str = "theta") -> FloatArray:
        """Return ``theta`` as a finite array of length ``n_dofs``.

        Raises:
            SolverInputError: On a wrong length or NaN/inf.
        """
        return finite_array(theta, what, (self._n_dofs,))

    def zero_pose(self) -> FloatArray:
        """θ = 0 moved into the bounds (each DOF at the bound nearest 0)."""
        return np.clip(np.zeros(self._n_dofs), self.lower, self.upper)

    # -- limits -----------------------------------------------------------------------

    def _build_limits(self) -> LinearLimits:
        bounds: list[SparseRow] = []
        labelled = ((seg, k, dof) for seg in self._segments for k, dof in enumerate(seg.dofs))
        for index, (seg, k, dof) in enumerate(labelled):  # θ order: segments in turn
            label = _label(seg, k)
            if dof.lower is not None:
                bounds.append(SparseRow(((index, 1.0),), dof.lower, f"{label} ≥ {dof.lower:.6g}"))
            if dof.upper is not None:
                bounds.append(SparseRow(((index, -1.0),), -dof.upper, f"{label} ≤ {dof.upper:.6g}"))
        return LinearLimits.from_rows(
            self._n_dofs, [*bounds, *self._polygon_rows], self._equalities
        )


def _label(segment: Segment, k: int) -> str:
    """A readable name for the segment's ``k``-th DOF, e.g. ``"forearm[0] (bend)"``."""
    name = segment.dofs[k].name
    return f"{segment.name}[{k}]" + (f" ({name})" if name else "")
