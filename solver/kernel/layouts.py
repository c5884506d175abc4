"""The kernel's memory layouts: the arrays and structures ``reach_kernel.c`` reads.

Trees and plans hold their arrays contiguous, in the C types, with their addresses
(:class:`KernelTree`, :class:`GradientTree`, :class:`ObjectivePlan`); the plans'
``ctypes`` structures repeat the C source's ``Objective`` and ``Descent`` field by field;
:class:`DescentPlan` points one descent's arrays and active bounds at them.
"""

from __future__ import annotations

import ctypes
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from .._checks import BoolArray, FloatArray, IntArray, copied_with
from ..rows import RowIndex

__all__ = [
    "DescentPlan",
    "GradientTree",
    "KernelTree",
    "ObjectivePlan",
    "Pointers",
    "address",
    "contiguous",
]


def address(array: np.ndarray[Any, Any]) -> int:
    """The address of a contiguous array's first element.

    Through its writable buffer, a third of ``array.ctypes.data``'s cost; a read-only or
    empty array through its array interface (asked first: a buffer's refusal costs more).
    """
    if array.size and array.flags.writeable:
        try:
            return _addressof(_from_buffer(array))
        except (TypeError, ValueError, BufferError):
            pass
    first: int = array.__array_interface__["data"][0]
    return first


_from_buffer: Callable[[Any], Any] = ctypes.c_char.from_buffer
_addressof: Callable[[Any], int] = ctypes.addressof


def contiguous(array: FloatArray) -> FloatArray:
    """``array`` as contiguous float64 (itself when it is already)."""
    if array.dtype == np.float64 and array.flags.c_contiguous:
        return array
    return np.ascontiguousarray(array, dtype=np.float64)


Pointers = tuple[int, ...]
"""Arrays' addresses, in the order a kernel function takes them."""


@dataclass(frozen=True, eq=False)
class _Arrays:
    """Arrays the kernel reads, kept alive with their addresses.

    Attributes:
        arrays: The arrays, contiguous, in the C types.
        pointers: Their addresses, in order.
    """

    arrays: tuple[np.ndarray[Any, Any], ...]
    pointers: Pointers

    @staticmethod
    def held(
        *arrays: np.ndarray[Any, Any],
    ) -> tuple[tuple[np.ndarray[Any, Any], ...], tuple[int, ...]]:
        """The arrays and their addresses."""
        return arrays, tuple(address(array) for array in arrays)

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Unpickled or copied: the addresses are those of this object's own arrays."""
        for name, value in state.items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "pointers", tuple(address(array) for array in self.arrays))


@dataclass(frozen=True, eq=False)
class GradientTree(_Arrays):
    """Which variables move which parts, as a tree: what ``rk_gradient_tree`` reads.

    Attributes:
        n_segments: Segments, parents before children.
        n_variables: Variables.
        n_parts: Parts (effector points).
        arrays: The segments' parents, the variables' segments, the parts' segments
            (int32) and whether each variable is a rotation (uint8).
    """

    n_segments: int = 0
    n_variables: int = 0
    n_parts: int = 0

    @classmethod
    def of(
        cls,
        parent: IntArray,
        variable_segment: IntArray,
        part_segment: IntArray,
        rotation: BoolArray,
    ) -> GradientTree:
        """The kernel's copy of the arrays (contiguous, in the C types)."""
        arrays, pointers = cls.held(
            np.ascontiguousarray(parent, dtype=np.int32),
            np.ascontiguousarray(variable_segment, dtype=np.int32),
            np.ascontiguousarray(part_segment, dtype=np.int32),
            np.ascontiguousarray(rotation, dtype=np.uint8),
        )
        return cls(arrays, pointers, len(arrays[0]), len(arrays[1]), len(arrays[2]))

    @property
    def layout(self) -> tuple[int, ...]:
        """The first six arguments of ``rk_gradient_tree`` and ``rk_hessian_tree``.

        The segments' count and parents, the variables' and their segments, the parts'
        and theirs.
        """
        pointers = self.pointers
        return (
            self.n_segments,
            pointers[0],
            self.n_variables,
            pointers[1],
            self.n_parts,
            pointers[2],
        )


@dataclass(frozen=True, eq=False)
class KernelTree(_Arrays):
    """A kinematic tree as the kernel reads it (``rk_frames``).

    Attributes:
        n_segments: Segments, parents before children.
        n_dofs: DOFs.
        normalise: 1 when rotation axes must be scaled to unit length (a rest scales).
        arrays: parent, first DOF, DOF count (int32), rest matrices (n_segments, 16),
            rotation flags (uint8) and DOF axes (n_dofs, 3).
    """

    n_segments: int = 0
    n_dofs: int = 0
    normalise: int = 0

    @classmethod
    def of(
        cls,
        parent: IntArray,
        first_dof: IntArray,
        count: IntArray,
        rest: FloatArray,
        rotation: BoolArray,
        axis: FloatArray,
        scaled: bool,
    ) -> KernelTree:
        """The kernel's copy of a tree's arrays (contiguous, in the C types)."""
        arrays, pointers = cls.held(
            np.ascontiguousarray(parent, dtype=np.int32),
            np.ascontiguousarray(first_dof, dtype=np.int32),
            np.ascontiguousarray(count, dtype=np.int32),
            np.ascontiguousarray(rest, dtype=np.float64).reshape(-1, 16),
            np.ascontiguousarray(rotation, dtype=np.uint8),
            np.ascontiguousarray(axis, dtype=np.float64).reshape(-1, 3),
        )
        return cls(arrays, pointers, len(arrays[0]), len(arrays[4]), int(scaled))

    def with_rests(self, rest: FloatArray, scaled: bool) -> KernelTree:
        """This tree with other rest matrices (n_segments, 16), its other arrays shared."""
        rest = np.ascontiguousarray(rest, dtype=np.float64)
        arrays = (*self.arrays[:3], rest, *self.arrays[4:])
        pointers = (*self.pointers[:3], address(rest), *self.pointers[4:])
        return copied_with(self, arrays=arrays, pointers=pointers, normalise=int(scaled))


class _Objective(ctypes.Structure):
    """``Objective`` of ``reach_kernel.c``: the same fields in the same order."""

    _fields_ = [
        ("n_segments", ctypes.c_int32),
        ("parent", ctypes.c_void_p),
        ("first_dof", ctypes.c_void_p),
        ("count", ctypes.c_void_p),
        ("rest", ctypes.c_void_p),
        ("rotation", ctypes.c_void_p),
        ("axis", ctypes.c_void_p),
        ("normalise", ctypes.c_int32),
        ("m", ctypes.c_int32),
        ("part_segment", ctypes.c_void_p),
        ("local", ctypes.c_void_p),
        ("scaled", ctypes.c_int32),
        ("n", ctypes.c_int32),
        ("variables", ctypes.c_void_p),
        ("variable_segment", ctypes.c_void_p),
        ("variable_rotation", ctypes.c_void_p),
        ("world", ctypes.c_void_p),
        ("dof_axis", ctypes.c_void_p),
        ("dof_pivot", ctypes.c_void_p),
        ("sums", ctypes.c_void_p),
        ("force", ctypes.c_void_p),
        ("weighted", ctypes.c_void_p),
        ("torque", ctypes.c_void_p),
        ("unit", ctypes.c_void_p),
        ("leaves", ctypes.c_int32),
        ("shares", ctypes.c_void_p),
        ("first", ctypes.c_void_p),
        ("massed", ctypes.c_void_p),
        ("extra", ctypes.c_void_p),
        ("moving_count", ctypes.c_int32),
        ("moving", ctypes.c_void_p),
        ("fixed_count", ctypes.c_int32),
        ("fixed", ctypes.c_void_p),
        ("cached", ctypes.c_void_p),
        ("key", ctypes.c_void_p),
        ("generation", ctypes.c_int64),
    ]


_GENERATIONS = itertools.count(1)
"""Each objective plan's own number, for the kernel's frames kept between evaluations
(``objective_frames``): the plans :meth:`ObjectivePlan.moved` makes share the scratch
but not the rests."""


def _moving_segments(
    parent: IntArray, first_dof: IntArray, count: IntArray, variables: IntArray, n_dofs: int
) -> IntArray:
    """The segments some variable moves (its own DOF or an ancestor's), parents first.

    The other segments' frames depend on DOFs no descent varies: the kernel keeps them
    between evaluations.
    """
    variable = np.zeros(n_dofs, dtype=bool)
    variable[variables] = True
    moving = np.zeros(len(parent), dtype=bool)
    for k, up in enumerate(parent.tolist()):
        first = int(first_dof[k])
        moving[k] = bool(variable[first : first + int(count[k])].any()) or (
            up >= 0 and bool(moving[up])
        )
    return np.flatnonzero(moving).astype(np.int32)


@dataclass(frozen=True, eq=False)
class ObjectivePlan(_Arrays):
    """What ``rk_objective`` reads besides the pose and the goals, and its scratch.

    One per problem's figure, effectors and variables: the problems
    :meth:`Problem.with_goals <solver.Problem.with_goals>` makes share it. Its scratch
    makes it for one thread at a time, as a problem is.

    Attributes:
        n_parts: Parts (points fixed in segments).
        n_variables: Variables.
        n_leaves: The goals' effectors: the parts themselves, unless some is a centre of
            mass (:class:`solver.parts.Parts`).
        massed: Whether some leaf is a centre of mass.
        address: The address of the ``Objective`` structure.
        structure: That structure (kept alive with the arrays it points to).
        trees: The tree and the gradient's layout the structure points into (kept alive).
        descents: The plans of its descents' Gauss–Newton steps, by the figure's DOFs.
    """

    n_parts: int = 0
    n_variables: int = 0
    n_leaves: int = 0
    massed: bool = False
    address: int = 0
    structure: Any = None
    trees: tuple[KernelTree, GradientTree] | None = None
    descents: dict[int, DescentPlan] = field(default_factory=dict)

    def split(self, out: FloatArray) -> tuple[tuple[FloatArray, ...], FloatArray]:
        """``rk_objective``'s output as the pose and the gradient over the variables.

        The pose: the leaves' points, x and y axes, the variables' axes and pivots, and
        the parts' points (views of ``out``, as the gradient is).
        """
        m, n = self.n_leaves, self.n_variables
        points, x, y = out[: 9 * m].reshape(3, m, 3)
        axes, pivots = out[9 * m : 9 * m + 6 * n].reshape(2, n, 3)
        gradient = out[9 * m + 6 * n : 9 * m + 7 * n]
        at = out[9 * m + 7 * n :].reshape(-1, 3) if self.massed else points
        return (points, x, y, axes, pivots, at), gradient

    @property
    def size(self) -> int:
        """The length of ``rk_objective``'s output (:meth:`split`)."""
        return 9 * self.n_leaves + 7 * self.n_variables + 3 * self.n_parts

    def descent(self, n_dofs: int) -> DescentPlan:
        """The plan of this problem's descents (made on first use).

        Plans :meth:`moved` from one another share their descents' plans, each pointed
        at the plan that asks for it last (problems are solved one at a time).
        """
        plan = self.descents.get(n_dofs)
        if plan is None:
            plan = self.descents[n_dofs] = DescentPlan(self, n_dofs)
        elif plan.objective is not self:
            plan.point_at(self)
        return plan

    def moved(self, tree: KernelTree, scaled: bool) -> ObjectivePlan:
        """This plan on the same tree with other rests (:meth:`KernelTree.with_rests`).

        The problem on a figure moved as a whole: the parts, variables and scratch are
        shared, and so are the descents' plans (:meth:`descent`).
        """
        structure = _Objective.from_buffer_copy(self.structure)
        structure.rest, structure.normalise = tree.pointers[3], tree.normalise
        structure.scaled = int(scaled)
        structure.generation = next(_GENERATIONS)  # its frames are of other rests
        assert self.trees is not None  # made by of()
        return replace(
            self,
            address=ctypes.addressof(structure),
            structure=structure,
            trees=(tree, self.trees[1]),
        )

    @classmethod
    def of(
        cls,
        tree: KernelTree,
        gradient: GradientTree,
        local: FloatArray,
        scaled: bool,
        variables: IntArray,
        leaves: tuple[FloatArray, IntArray, BoolArray] | None = None,
    ) -> ObjectivePlan:
        """The plan of a problem.

        Args:
            tree: The figure's tree.
            gradient: The variables' and parts' layout over it.
            local: Each part's point and axes in its segment's frame, (m, 4, 3).
            scaled: Whether some segment scales (the axes are then made unit).
            variables: Each variable's DOF.
            leaves: Where some leaf is a centre of mass, each leaf's parts' shares
                (leaves, m), its first part and whether it is one
                (:class:`solver.parts.Parts`' ``sums``, ``first`` and ``massed``);
                None where each part is a leaf.
        """
        n_segments, n_dofs = tree.n_segments, tree.n_dofs
        m, n = gradient.n_parts, gradient.n_variables
        shares: FloatArray = np.empty((0, m))
        first_part: IntArray = np.arange(m)
        massed: BoolArray = np.zeros(m, dtype=bool)
        if leaves is not None:
            shares, first_part, massed = leaves
        n_leaves = m if leaves is None else len(first_part)
        parents, firsts, counts = tree.arrays[:3]
        moving = _moving_segments(parents, firsts, counts, variables, n_dofs)
        fixed = np.setdiff1d(np.arange(n_dofs), variables).astype(np.int32)
        owned, owned_pointers = cls.held(
            np.ascontiguousarray(shares, dtype=np.float64),
            np.ascontiguousarray(first_part, dtype=np.int32),
            np.ascontiguousarray(massed, dtype=np.uint8),
            np.empty(15 * m + 7 * n_leaves),
            moving,
            fixed,
            np.empty(n_dofs),
            np.zeros(1, dtype=np.int64),  # no frames kept yet
        )
        arrays, pointers = cls.held(
            np.ascontiguousarray(local, dtype=np.float64).reshape(-1, 12),
            np.ascontiguousarray(variables, dtype=np.int32),
            np.empty(16 * (n_segments + 1)),
            np.empty(3 * n_dofs),
            np.empty(3 * n_dofs),
            np.empty(6 * n_segments),
            np.empty(3 * m),
            np.empty(m),
            np.empty(3 * m),
            np.ones(m),
        )
        parent, first, count, rest, rotation, axis = tree.pointers
        structure = _Objective(
            n_segments,
            parent,
            first,
            count,
            rest,
            rotation,
            axis,
            tree.normalise,
            m,
            gradient.pointers[2],
            pointers[0],
            int(scaled),
            n,
            pointers[1],
            gradient.pointers[1],
            gradient.pointers[3],
            *pointers[2:],
            n_leaves,
            None if leaves is None else owned_pointers[0],
            *owned_pointers[1:4],
            len(moving),
            owned_pointers[4],
            len(fixed),
            *owned_pointers[5:],
            next(_GENERATIONS),
        )
        return cls(
            (*arrays, *owned),
            (*pointers, *owned_pointers),
            m,
            n,
            n_leaves,
            leaves is not None,
            ctypes.addressof(structure),
            structure,
            (tree, gradient),
        )


class _Descent(ctypes.Structure):
    """``Descent`` of ``reach_kernel.c``: the same fields in the same order."""

    _fields_ = [
        ("objective", ctypes.c_void_p),
        ("goal", ctypes.c_void_p),
        ("weight", ctypes.c_void_p),
        ("moves", ctypes.c_void_p),
        ("n_dofs", ctypes.c_int32),
        ("base", ctypes.c_void_p),
        ("scale", ctypes.c_void_p),
        ("weight_scale", ctypes.c_double),
        ("rows", ctypes.c_int32),
        ("a", ctypes.c_void_p),
        ("b", ctypes.c_void_p),
        ("relative", ctypes.c_double),
        ("absolute", ctypes.c_double),
        ("theta", ctypes.c_void_p),
        ("pose", ctypes.c_void_p),
        ("posed_at", ctypes.c_void_p),
        ("posed", ctypes.c_int32),
        ("total", ctypes.c_double),
        ("q", ctypes.c_int32),
        ("bound", ctypes.c_void_p),
        ("sign", ctypes.c_void_p),
        ("rhs", ctypes.c_void_p),
        ("held", ctypes.c_void_p),
        ("blocks", ctypes.c_int32),
        ("faces", ctypes.c_void_p),
        ("equalities", ctypes.c_int32),
        ("a_eq", ctypes.c_void_p),
        ("b_eq", ctypes.c_void_p),
        ("row", ctypes.c_void_p),
        ("others", ctypes.c_int32),
        ("other_rows", ctypes.c_void_p),
        ("room", ctypes.c_int32),
        ("upper", ctypes.c_void_p),
        ("added", ctypes.c_void_p),
        ("n_added", ctypes.c_int32),
        ("off", ctypes.c_void_p),
        ("row_bound", ctypes.c_void_p),
        ("row_span", ctypes.c_void_p),
    ]


class Settle(ctypes.Structure):
    """``Settle`` of ``reach_kernel.c``: comfort's aim and the settling rounds' constants."""

    _fields_ = [
        ("target", ctypes.c_void_p),
        ("masses", ctypes.c_void_p),
        ("damping", ctypes.c_double),
        ("nearby", ctypes.c_double),
        ("ceiling", ctypes.c_double),
        ("radius", ctypes.c_double),
        ("penalty", ctypes.c_double),
        ("small", ctypes.c_double),
        ("rounding", ctypes.c_double),
        ("gram", ctypes.c_double),
        ("push", ctypes.c_double),
        ("rounds", ctypes.c_int32),
        ("halvings", ctypes.c_int32),
        ("depth", ctypes.c_int32),
        ("projections", ctypes.c_int32),
        ("a_eq", ctypes.c_void_p),
        ("b_eq", ctypes.c_void_p),
        ("equalities", ctypes.c_int32),
    ]


class DescentPlan:
    """What the kernel's descent reads: a descent's problem of squared-distance goals over φ.

    One per objective plan (:meth:`ObjectivePlan.descent`), with the step's scratch; each
    descent binds its own goals, start and rows (:meth:`bind`) and holds its active
    bounds (:meth:`hold`) before its steps.

    Attributes:
        objective: The objective's plan.
        address: The address of the ``Descent`` structure.
        work_address: The address of the step's scratch.
        bound: The arrays of the descent bound last (kept alive), or None.
        inactive: Whether each inequality row is inactive, as uint8.
        index: The inequality rows' bounds and spans the descent bound last, or None.
    """

    def __init__(self, objective: ObjectivePlan, n_dofs: int) -> None:
        self.objective = objective
        n = objective.n_variables
        self._theta, self._pose = np.empty(n_dofs), np.empty(objective.size)
        self._posed_at = np.empty(n)
        self.structure = _Descent()
        self.structure.objective = objective.address
        self.structure.n_dofs = n_dofs
        self.structure.theta = address(self._theta)
        self.structure.pose = address(self._pose)
        self.structure.posed_at = address(self._posed_at)
        self.address = ctypes.addressof(self.structure)
        self._work = np.empty(0)
        self.work_address = 0
        self.bound: tuple[FloatArray, ...] | None = None
        self.blocks = 1
        # the active bounds (at most one a variable): variables, signs, sides, held ones,
        # rows; a whole descent adds the bounds it meets
        self._bound, self._sign, self._rhs = np.empty(n, np.int32), np.empty(n), np.empty(n)
        self._held = np.zeros(n, dtype=np.uint8)
        self._row = np.full(n, -1, dtype=np.int32)
        structure = self.structure
        structure.bound, structure.sign = address(self._bound), address(self._sign)
        structure.rhs, structure.held = address(self._rhs), address(self._held)
        structure.row = address(self._row)
        self.index: RowIndex | None = None
        self._added = np.empty(n, np.int32)  # the rows a whole descent adds, in turn
        structure.added = address(self._added)
        # rows held as equalities that a whole descent adds to (allocated as needed)
        self._basis, self._sides = np.empty((0, n)), np.empty(0)
        self._upper, self._directions = np.empty((0, 0)), np.empty((1, n))
        self._rooms = self._room_addresses()
        self.inactive = np.empty(0, dtype=np.uint8)
        self.inactive_address = address(self.inactive)
        """The address of :attr:`inactive`, made anew only with it."""
        self.settle_settings = Settle()
        """Comfort's rounds' settings (``rk_settle``), filled by each call."""
        self._settle_work, self._settle_integers = np.empty(0), np.empty(0, np.int32)
        self._settle_addresses = (0, 0)
        self._quick_rows, self._quick_seen = np.empty(0, np.int32), np.empty(n, np.uint8)
        self.equalities: tuple[FloatArray, FloatArray] | None = None
        self.others: FloatArray | None = None

    def point_at(self, objective: ObjectivePlan) -> None:
        """Read ``objective`` (a plan :meth:`ObjectivePlan.moved` from this one's) from now on.

        Its sizes are this one's, so the arrays bound stay bound (a kept step's, renewed for
        a figure moved as a whole); the pose evaluated last is of the other rests.
        """
        self.objective = objective
        self.structure.objective = objective.address
        self.structure.posed = 0

    def forget_pose(self, arrays: tuple[FloatArray, ...]) -> None:
        """Forget the pose evaluated last where ``arrays``, bound, were rewritten in place."""
        if self.bound is arrays:
            self.structure.posed = 0

    def last(self) -> tuple[FloatArray, float, tuple[FloatArray, ...], FloatArray] | None:
        """The kernel's last evaluation of the descent bound, as :meth:`Kernel.objective`'s.

        θ there and G_all, the pose and the gradient over the variables (copies); None
        when the descent evaluated nothing yet.
        """
        if not self.structure.posed:
            return None
        parts, gradient = self.objective.split(self._pose.copy())
        return self._theta.copy(), float(self.structure.total), parts, gradient

    def bind(
        self,
        arrays: tuple[FloatArray, ...],
        index: RowIndex,
        weight_scale: float,
        damping: tuple[float, float],
    ) -> None:
        """Point the structure at one descent's arrays.

        Args:
            arrays: The goals' vectors (v, 3) and their weights (v), v = blocks · m (see
                ``rk_objective``: the effectors' points, then their x and y axes when
                blocks is 3); whether each variable moves each part (n, parts); θ at
                the start (all DOFs); the variables' scale s (θ_V = s ∘ φ); the
                inequality rows over φ, dense (rows, n), and their bounds; each goal's
                plane (``rk_objective``'s faces, (m, 4)), empty where every goal is a
                squared distance. Kept as they are while bound: contiguous float64.
            index: The inequality rows' bounds and spans (:meth:`.rows.LimitRows.index`).
            weight_scale: w: the descent minimises G/w.
            damping: μ's shares of the largest curvature and of |G/w|.
        """
        structure = self.structure
        weight, b, faces = arrays[1], arrays[6], arrays[7]
        # an array bound last time is the same memory while it stays bound (a drag's events
        # share every array but the goals, the start and the rows' bounds)
        last = self.bound if self.bound is not None else (None,) * len(arrays)
        fields = ("goal", "weight", "moves", "base", "scale", "a", "b")
        for name, array, before in zip(fields, arrays, last, strict=False):
            if array is not before:
                setattr(structure, name, address(array))
        if index is not self.index:  # the rows' own, kept while they are (LimitRows.index)
            self.index = index
            structure.row_bound, structure.row_span = address(index.bound), address(index.span)
        if faces is not last[-1]:
            structure.faces = address(faces) if len(faces) else None
        structure.weight_scale, structure.rows = weight_scale, len(b)
        structure.relative, structure.absolute = damping
        structure.posed = 0  # its pose is of another start and scale
        m, n = self.objective.n_leaves, self.objective.n_variables
        structure.blocks = self.blocks = len(weight) // m
        k = self.k
        # a step's work (6n + rows, 2n + 3k + k²) after a descent's own (2kn + k² + 3n + 4)
        size = 10 * n + 2 * k * n + 3 * k + 2 * k * k + 4 + len(b)
        if self._work.size < size:
            self._work = np.empty(size)
            self.work_address = address(self._work)
        self.bound = arrays
        structure.q = structure.n_added = 0  # no bound active until held
        self._equalities(None)
        self._others(None)
        structure.room, structure.upper = 0, None
        if len(self.inactive) != len(b):
            self.inactive = np.ones(len(b), dtype=np.uint8)
            self.inactive_address = address(self.inactive)
        else:
            self.inactive.fill(1)

    def settle_scratch(self, size: int, count: int) -> tuple[int, int]:
        """The addresses of ``rk_settle``'s scratch: ``size`` floats and ``count`` integers.

        Kept and grown as needed: a drag's events settle with the same sizes.
        """
        if len(self._settle_work) < size or len(self._settle_integers) < count:
            self._settle_work = np.empty(max(size, len(self._settle_work)))
            self._settle_integers = np.empty(max(count, len(self._settle_integers)), np.int32)
            self._settle_addresses = (
                address(self._settle_work),
                address(self._settle_integers),
            )
        return self._settle_addresses

    def quick_scratch(self) -> tuple[np.ndarray[Any, np.dtype[np.int32]], np.ndarray[Any, Any]]:
        """``rk_quick``'s rows (an int32 a row) and flags (a byte a variable), kept alike."""
        rows = len(self.inactive)
        if len(self._quick_rows) < rows:
            self._quick_rows = np.empty(rows, np.int32)
        return self._quick_rows, self._quick_seen

    def hold(
        self,
        variables: IntArray,
        signs: FloatArray,
        rhs: FloatArray,
        inactive: np.ndarray[Any, np.dtype[np.bool_]],
        equalities: tuple[FloatArray, FloatArray] | None = None,
        rows: list[int] | None = None,
        others: FloatArray | None = None,
        upper: FloatArray | None = None,
        room: int = 0,
    ) -> None:
        """Make the bounds on ``variables``, and ``equalities``, the descent's active rows.

        Args:
            variables: The variable each active bound holds, (q,), all apart.
            signs: Its row's entry there, ±1, (q,).
            rhs: Its right-hand side, (q,).
            inactive: Whether each inequality row is inactive, (rows,).
            equalities: Equality rows (e, n), orthonormal and zero on every variable held,
                and their right-hand sides (e,); None: none.
            rows: Each bound's inequality row, (q,), for :meth:`active` (None: not asked).
            others: Active inequality rows that are no bounds, held as the last of
                ``equalities``: each one's scaled direction off the other active rows
                (``Descent``'s ``other_rows`` in ``reach_kernel.c``), (r, n); None: none.
            upper: R (e, e), upper triangular: ``equalities`` are the rows given, Rᵀ times
                them; None: the identity.
            room: The rows held as equalities a whole descent may grow to, adding the rows
                its steps meet that are no bounds (0: none added).
        """
        q = len(variables)
        self._bound[:q], self._sign[:q], self._rhs[:q] = variables, signs, rhs
        self._row[:q] = -1 if rows is None else rows
        self._held[:] = 0
        self._held[variables] = 1
        structure = self.structure
        structure.q = q
        structure.n_added = 0
        self.inactive[:] = inactive
        e = 0 if equalities is None else len(equalities[1])
        if room <= e:
            self._equalities(equalities)
            self._others(others)
            structure.room, structure.upper = e, None
            return
        room = self._room(room)  # R's stride in the kernel: the room made
        r = 0 if others is None else len(others)
        if equalities is not None and e:
            self._basis[:e], self._sides[:e] = equalities
        if e:
            self._upper[:e, :e] = np.eye(e) if upper is None else upper
        if others is not None and r:
            self._directions[:r] = others
        self.equalities, self.others = (self._basis, self._sides), self._directions
        structure.equalities, structure.others, structure.room = e, r, room
        structure.a_eq, structure.b_eq, structure.upper, structure.other_rows = self._rooms

    def _room(self, room: int) -> int:
        """Buffers for at least ``room`` rows held as equalities (kept once larger); their room."""
        if len(self._sides) < room:
            n = self.objective.n_variables
            self._basis, self._sides = np.empty((room, n)), np.empty(room)
            self._upper, self._directions = np.zeros((room, room)), np.empty((room + 1, n))
            self._rooms = self._room_addresses()
        return len(self._sides)

    def _room_addresses(self) -> tuple[int, int, int, int]:
        """The addresses of the rows held as equalities, their sides, R and the directions."""
        buffers = (self._basis, self._sides, self._upper, self._directions)
        first, second, third, fourth = (address(buffer) for buffer in buffers)
        return first, second, third, fourth

    def equality_rows(self) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        """The rows held as equalities now (copies), as a whole descent left them.

        Their orthonormal rows Q (e, n) and right-hand sides (e,), R (e, e) with the rows
        they span Rᵀ Q (the identity where a descent grew none), and the directions of the
        last r, the inequality rows that are no bounds (r, n).
        """
        structure = self.structure
        e, r = int(structure.equalities), int(structure.others)
        if self.equalities is None:
            return (
                np.empty((0, self.objective.n_variables)),
                np.empty(0),
                np.eye(0),
                np.empty((0, 0)),
            )
        rows, sides = self.equalities
        upper = self._upper[:e, :e].copy() if structure.upper else np.eye(e)
        directions = np.empty((0, rows.shape[1])) if self.others is None else self.others[:r]
        return rows[:e].copy(), sides[:e].copy(), upper, directions.copy()

    def added(self) -> list[int]:
        """The inequality rows the last whole descent added to those held, in turn."""
        added: list[int] = self._added[: int(self.structure.n_added)].tolist()
        return added

    def _others(self, others: FloatArray | None) -> None:
        """Point the structure at ``others`` (kept alive), or at none."""
        structure = self.structure
        if others is None or not len(others):
            self.others = None
            structure.others, structure.other_rows = 0, None
            return
        self.others = contiguous(others)
        structure.others, structure.other_rows = len(others), address(self.others)

    def active(self) -> tuple[IntArray, FloatArray, FloatArray, list[int]]:
        """The bounds active now, as :meth:`hold` takes them with their rows (copies).

        A whole descent (:meth:`Kernel.gauss_newton_descent`) adds those it meets.
        """
        q = self.q
        rows = self._row[:q].tolist()
        return self._bound[:q].astype(np.intp), self._sign[:q].copy(), self._rhs[:q].copy(), rows

    def _equalities(self, equalities: tuple[FloatArray, FloatArray] | None) -> None:
        """Point the structure at ``equalities`` (kept alive), or at none."""
        structure = self.structure
        if equalities is None or not len(equalities[1]):
            self.equalities = None
            structure.equalities, structure.a_eq, structure.b_eq = 0, None, None
            return
        rows, rhs = contiguous(equalities[0]), contiguous(equalities[1])
        self.equalities = (rows, rhs)
        structure.equalities = len(rhs)
        structure.a_eq, structure.b_eq = address(rows), address(rhs)

    @property
    def k(self) -> int:
        """F's columns: three a goal vector of the descent bound."""
        return 3 * self.blocks * self.objective.n_leaves

    @property
    def q(self) -> int:
        """The active bounds (:meth:`hold`)."""
        return int(self.structure.q)

    @property
    def held_rows(self) -> int:
        """The active rows: the bounds, then the equalities (:meth:`hold`)."""
        return int(self.structure.q) + int(self.structure.equalities)
