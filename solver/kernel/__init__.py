"""The compiled kernel: the solver's hot path in C (``reach_kernel.c``), through ctypes.

The extension ships one library per platform in ``lib/`` (``tools/build_kernel.py``
builds them all with one cross-compiler). Nothing is loaded on import: the first solve
asks :func:`active`, which loads the library for this platform, checks its calling
convention and then checks its answers against the numpy code on a small figure. Any
failure (no library, a library that does not load, a wrong answer) leaves the solver on
numpy, which computes the same to rounding, and :func:`status` says why.

``REACH_KERNEL=numpy`` in the environment keeps the solver on numpy; :func:`enabled`
switches the kernel off (or back on) for a block, as the tests do to run both paths.
"""

from __future__ import annotations

import ctypes
import os
import platform
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from numpy.typing import ArrayLike

from .._checks import BoolArray, FloatArray, IntArray

if TYPE_CHECKING:
    from ..optimizer.low_rank import Metric

__all__ = [
    "ABI",
    "LIBRARY_FOLDER",
    "DescentPlan",
    "GaussNewtonDescent",
    "GaussNewtonSearch",
    "GaussNewtonStart",
    "GradientTree",
    "Kernel",
    "ObjectivePlan",
    "Status",
    "active",
    "enabled",
    "library_name",
    "platform_tag",
    "status",
]

ABI = 14
"""The calling convention this module speaks (``rk_abi()`` of ``reach_kernel.c``)."""

LIBRARY_FOLDER = Path(__file__).resolve().parent / "lib"
"""Where the built libraries are, one per platform."""

_SYSTEMS = {"linux": ("linux", ".so"), "darwin": ("macos", ".dylib"), "win32": ("windows", ".dll")}
_MACHINES = {"x86_64": "x64", "amd64": "x64", "arm64": "arm64", "aarch64": "arm64"}


def platform_tag(system: str | None = None, machine: str | None = None) -> str | None:
    """Blender's name of a platform (``linux-x64``, ``macos-arm64``, …), None if unknown.

    Args:
        system: ``sys.platform`` (default this one's).
        machine: ``platform.machine()`` (default this one's).
    """
    system = sys.platform if system is None else system
    machine = platform.machine() if machine is None else machine
    if system not in _SYSTEMS or machine.lower() not in _MACHINES:
        return None
    return f"{_SYSTEMS[system][0]}-{_MACHINES[machine.lower()]}"


def library_name(tag: str) -> str:
    """The library's file name for a platform tag, e.g. ``reach_kernel-linux-x64.so``."""
    suffix = {name: ext for name, ext in _SYSTEMS.values()}[tag.split("-")[0]]
    return f"reach_kernel-{tag}{suffix}"


_POINTER = ctypes.c_void_p
_INT = ctypes.c_int32


class Kernel:
    """The loaded library's functions, each taking and returning numpy arrays.

    Args:
        library: The loaded library.
    """

    def __init__(self, library: ctypes.CDLL) -> None:
        self.library = library
        frames = library.rk_frames
        frames.restype = None
        frames.argtypes = [_INT, *[_POINTER] * 6, _INT, *[_POINTER] * 4]
        self._frames = frames
        tree = library.rk_gradient_tree
        tree.restype = None
        tree.argtypes = [_INT, _POINTER, _INT, _POINTER, _INT, *[_POINTER] * 10]
        self._gradient_tree = tree
        hessian = library.rk_hessian_tree
        hessian.restype = None
        hessian.argtypes = [_INT, _POINTER, _INT, _POINTER, _INT, *[_POINTER] * 15]
        self._hessian_tree = hessian
        newton = library.rk_newton_cg
        newton.restype = _INT
        newton.argtypes = [
            _INT,
            _POINTER,
            _INT,
            _POINTER,
            _INT,
            *[_POINTER] * 14,
            ctypes.c_double,
            _INT,
            _POINTER,
            _POINTER,
            _INT,
            _INT,
            *[_POINTER] * 2,
            ctypes.c_double,
            _INT,
            ctypes.c_double,
            *[_POINTER] * 4,
        ]
        self._newton_cg = newton
        factor = library.rk_factor
        factor.restype = None
        factor.argtypes = [_INT, _INT, _INT, *[_POINTER] * 7]
        self._factor = factor
        objective = library.rk_objective
        objective.restype = ctypes.c_double
        objective.argtypes = [_POINTER] * 5
        self._objective = objective
        woodbury = library.rk_woodbury_start
        woodbury.restype = ctypes.c_double
        woodbury.argtypes = [_INT, _INT, _INT, *[_POINTER] * 3, *[ctypes.c_double] * 3]
        woodbury.argtypes += [_POINTER] * 2
        self._woodbury_start = woodbury
        start = library.rk_gauss_newton_start
        start.restype = _INT
        start.argtypes = [_POINTER, _POINTER, ctypes.c_double, *[_POINTER] * 7]
        self._gauss_newton_start = start
        search = library.rk_gauss_newton_search
        search.restype = None
        search.argtypes = [_POINTER, _POINTER, ctypes.c_double, *[_POINTER] * 8]
        self._gauss_newton_search = search
        quaternions = library.rk_euler_quaternions
        quaternions.restype = None
        quaternions.argtypes = [_INT, *[_POINTER] * 3]
        self._euler_quaternions = quaternions
        euler = library.rk_quaternions_euler
        euler.restype = None
        euler.argtypes = [_INT, _POINTER, _INT, _INT, _INT, ctypes.c_double, *[_POINTER] * 4]
        self._quaternions_euler = euler
        descent = library.rk_gauss_newton_descent
        descent.restype = _INT
        descent.argtypes = [*[_POINTER] * 6, *[ctypes.c_double] * 5, _INT, ctypes.c_double]
        descent.argtypes += [_POINTER]
        self._gauss_newton_descent = descent

    def frames(
        self, tree: KernelTree, theta: FloatArray
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """World frames (n_segments + 1, 4, 4), DOF world axes and pivots (n_dofs, 3 each).

        What :meth:`Kinematics.frames <solver.kinematics.Kinematics.frames>` and
        :meth:`~solver.kinematics.Kinematics.dof_axes` compute, in one pass.
        """
        if theta.dtype != np.float64 or not theta.flags.c_contiguous:
            theta = np.ascontiguousarray(theta, dtype=np.float64)
        world = np.empty((tree.n_segments + 1, 4, 4))
        axes = np.empty((tree.n_dofs, 3))
        pivots = np.empty((tree.n_dofs, 3))
        self._frames(
            tree.n_segments,
            *tree.pointers,
            tree.normalise,
            _address(theta),
            _address(world),
            _address(axes),
            _address(pivots),
        )
        return world, axes, pivots

    def gradient_tree(
        self,
        tree: GradientTree,
        points: FloatArray,
        force: FloatArray,
        torque: FloatArray | None,
        coefficient: FloatArray,
        axes: FloatArray,
        pivots: FloatArray,
    ) -> FloatArray:
        """What :meth:`Jacobian.gradient <solver.jacobian.Jacobian.gradient>` computes.

        Each variable moves the parts below its segment, so the wrenches are summed up
        the tree (``rk_gradient_tree``), in time linear in its size rather than in
        variables × parts.

        Args:
            tree: The segments' parents and the variables' and parts' segments.
            points: Part points, (m, 3).
            force: ∂G/∂r of each part, (m, 3).
            torque: The torque on each part's axes, (m, 3), or None.
            coefficient: Each part's weight in G_all, (m,).
            axes: Each variable's world axis, (n_v, 3).
            pivots: Each variable's world pivot, (n_v, 3).
        """
        sums = np.empty(6 * tree.n_segments)
        out = np.empty(tree.n_variables)
        # The converted arrays are named so that they outlive the call.
        points, force, coefficient = _c(points), _c(force), _c(coefficient)
        axes, pivots = _c(axes), _c(pivots)
        torque = None if torque is None else _c(torque)
        self._gradient_tree(
            *tree.layout,
            _address(points),
            _address(force),
            None if torque is None else _address(torque),
            _address(coefficient),
            _address(axes),
            _address(pivots),
            tree.pointers[3],
            _address(sums),
            _address(out),
        )
        return out

    def hessian_tree(
        self,
        tree: GradientTree,
        points: FloatArray,
        x: FloatArray,
        y: FloatArray,
        d_point: FloatArray,
        d_x: FloatArray,
        d_y: FloatArray,
        coefficient: FloatArray,
        hessians: FloatArray,
        axes: FloatArray,
        pivots: FloatArray,
    ) -> Callable[[FloatArray], FloatArray]:
        """The map v ↦ ∇²G v at one pose, through ``rk_hessian_tree``.

        What :meth:`Jacobian.hessian_product <solver.jacobian.Jacobian.hessian_product>`
        returns.

        The pose's arrays are converted and their addresses taken once, for the many
        products a Newton step takes there.
        """
        arrays = (axes, pivots, points, x, y, d_point, d_x, d_y, coefficient, hessians)
        return _HessianProduct(self, tree, tuple(_c(array) for array in arrays))

    def factor(
        self,
        moves: FloatArray,
        rotation: np.ndarray[Any, np.dtype[np.uint8]],
        vectors: FloatArray,
        weights: FloatArray,
        axes: FloatArray,
        pivots: FloatArray,
    ) -> FloatArray:
        """What :meth:`Jacobian.factor <solver.jacobian.Jacobian.factor>` computes, (n_v, 3k).

        Its columns are contiguous (Fortran order): the Gauss–Newton start reads them.

        Args:
            moves: Whether each variable moves each effector, float64 (n_v, m), C order.
            rotation: Whether each variable is a rotation, uint8 (n_v,).
            vectors: The m effector points, then any axes, (k, 3).
            weights: √(weight × curvature) of each vector, (k // m, m).
            axes: Each variable's world axis, (n_v, 3).
            pivots: Each variable's world pivot, (n_v, 3).
        """
        n, m = moves.shape
        k = vectors.shape[0]
        out = np.empty((3 * k, n))  # the columns, each contiguous
        # The converted arrays are named so that they outlive the call.
        vectors, weights, axes, pivots = _c(vectors), _c(weights), _c(axes), _c(pivots)
        self._factor(
            n,
            m,
            k // m,
            _address(vectors),
            _address(moves),
            _address(weights),
            _address(axes),
            _address(pivots),
            _address(rotation),
            _address(out),
        )
        columns: FloatArray = out.T
        return columns

    def objective(
        self, plan: ObjectivePlan, theta: FloatArray, goal: FloatArray, weight: FloatArray
    ) -> tuple[float, tuple[FloatArray, ...], FloatArray]:
        """G_all and its gradient where every goal is a Position, in one call (``rk_objective``).

        What :meth:`Problem.evaluate_variables <solver.Problem.evaluate_variables>`
        computes through the frames, the parts' states, the goals and the gradient.

        Args:
            plan: The problem's tree, parts and variables.
            theta: The pose, all DOFs (n_dofs,).
            goal: Each goal's point, (m, 3).
            weight: Each goal's weight, (m,).

        Returns:
            G_all; the pose the solver keeps (the parts' points, x and y axes, the
            variables' axes and pivots); the gradient over the variables.
        """
        out = np.empty(9 * plan.n_parts + 7 * plan.n_variables)
        theta, goal, weight = _c(theta), _c(goal), _c(weight)
        total = self._objective(
            plan.address, _address(theta), _address(goal), _address(weight), _address(out)
        )
        return float(total), *plan.split(out)

    def woodbury_start(
        self,
        factor: FloatArray,
        rows: FloatArray,
        q: int,
        bounds: IntArray | None,
        relative: float,
        absolute: float,
        value: float,
    ) -> tuple[float, FloatArray] | None:
        """What :func:`solver.optimizer.metric._woodbury_start` factors (``rk_woodbury_start``).

        Args:
            factor: F, (n, k).
            rows: The metric's buffer of rows, (≥ q + k, n), C order: its first q rows
                hold the active rows' orthonormal basis (unless ``bounds`` is given);
                rows q to q + k are given (PF)ᵀ.
            q: Active rows.
            bounds: The variable each active row bounds, when each is a bound.
            relative: μ's share of the largest diagonal entry of P F Fᵀ P.
            absolute: μ's share of |G|.
            value: G.

        Returns:
            μ and L⁻¹ (k, k; S = (PF)ᵀ PF + μ I = L Lᵀ), or None when S is not positive
            definite to rounding.
        """
        n, k = factor.shape
        columns = _c(factor.T)
        held = None if bounds is None else np.ascontiguousarray(bounds, dtype=np.int32)
        turn = np.empty((k, k))
        scratch = np.empty(n + k * k)
        damping = self._woodbury_start(
            n,
            k,
            q,
            _address(columns),
            None if held is None else _address(held),
            _address(rows),
            relative,
            absolute,
            value,
            _address(turn),
            _address(scratch),
        )
        return None if damping < 0.0 else (float(damping), turn)

    def gauss_newton_start(
        self,
        plan: DescentPlan,
        phi: FloatArray,
        value: float,
        gradient: FloatArray,
        room: FloatArray,
    ) -> GaussNewtonStart:
        """H's Gauss–Newton start at ``phi`` on the plan's active bounds, and H g.

        ``rk_gauss_newton_start``: what :meth:`solver.optimizer.goldfarb._Run.initial_h`
        starts H from (:func:`solver.optimizer.metric._woodbury_start`, the bounds'
        variables zeroed) and its product with the gradient.

        Args:
            plan: The descent's problem, rows and active bounds (:meth:`DescentPlan.hold`).
            phi: The iterate, (n,).
            value: G/w there.
            gradient: Its gradient, (n,).
            room: The metric's buffer (:meth:`Metric.room
                <solver.optimizer.low_rank.Metric.room>`, ≥ q + k rows of n): rows q to
                q + k are given (PF)ᵀ.
        """
        n, k, q = plan.objective.n_variables, 3 * plan.objective.n_parts, plan.q
        phi, gradient = _c(phi), _c(gradient)
        factor = np.empty((k, n))
        buffer = np.empty(k * k + n + 1)  # L⁻¹, H g, μ
        turn = buffer[: k * k].reshape(k, k)
        start = _address(buffer)
        status = self._gauss_newton_start(
            plan.address,
            _address(phi),
            value,
            _address(gradient),
            _address(factor),
            _address(room[q:]),
            start,
            start + 8 * (k * k),
            start + 8 * (k * k + n),
            plan.work_address,
        )
        hg = buffer[k * k : k * k + n]
        return GaussNewtonStart(int(status), float(buffer[-1]), factor.T, turn, hg)

    def gauss_newton_search(
        self,
        plan: DescentPlan,
        phi: FloatArray,
        value: float,
        gradient: FloatArray,
        hg: FloatArray,
        inactive: np.ndarray[Any, Any],
    ) -> GaussNewtonSearch:
        """The step −H g, its ratio test and line search, on the plan's active bounds.

        ``rk_gauss_newton_search``: what :meth:`solver.optimizer.goldfarb._Run.step`
        computes from the step to the end of the line search, in one call.

        Args:
            plan: The descent's problem, rows and active bounds (:meth:`DescentPlan.hold`).
            phi: The iterate, (n,).
            value: G/w there.
            gradient: Its gradient, (n,).
            hg: H g (:meth:`gauss_newton_start`), (n,).
            inactive: Whether each inequality row is inactive, (rows,), bool or uint8.
        """
        n = plan.objective.n_variables
        phi, gradient, hg = _c(phi), _c(gradient), _c(hg)
        flags = np.ascontiguousarray(inactive, dtype=np.uint8)
        # the outputs in one buffer: four numbers, the point, its gradient, and three counts
        # (int32, in the last two doubles)
        buffer = np.empty(4 + 2 * n + 2)
        counts = buffer[4 + 2 * n :].view(np.int32)
        start = _address(buffer)
        self._gauss_newton_search(
            plan.address,
            _address(phi),
            value,
            _address(gradient),
            _address(hg),
            _address(flags),
            start,
            start + 8 * 4,
            start + 8 * (4 + n),
            start + 8 * (4 + 2 * n),
            plan.work_address,
        )
        return GaussNewtonSearch(
            int(counts[2]),
            float(buffer[0]),
            float(buffer[1]),
            int(counts[0]),
            float(buffer[2]),
            float(buffer[3]),
            int(counts[1]),
            buffer[4 : 4 + n],
            buffer[4 + n : 4 + 2 * n],
        )

    def euler_quaternions(self, angles: FloatArray, axes: ArrayLike) -> FloatArray:
        """:func:`solver.rotations.euler_quaternions` (``rk_euler_quaternions``), (k, 4)."""
        angles = _c(angles)
        turns = np.ascontiguousarray(axes, dtype=np.int32)
        out = np.empty((len(angles), 4))
        if len(angles):
            self._euler_quaternions(len(angles), _address(angles), _address(turns), _address(out))
        return out

    def quaternions_euler(
        self,
        quaternions: FloatArray,
        axes: tuple[int, int, int, float],
        compat: FloatArray | None,
    ) -> tuple[FloatArray, FloatArray, np.ndarray[Any, np.dtype[np.bool_]]]:
        """Rotation matrices and Euler angles of nonzero quaternions (``rk_quaternions_euler``).

        What :func:`solver.rotations.quaternion_matrices` and then
        :func:`solver.rotations.matrices_euler` compute, but at gimbal lock.

        Args:
            quaternions: (k, 4), (w, x, y, z), none zero.
            axes: The Euler order's axes, first to last, and its parity's sign (1 even).
            compat: Angles about X, Y, Z to stay near, (k, 3), or None.

        Returns:
            The angles about X, Y, Z (k, 3), the matrices (k, 3, 3), and whether each
            rotation is at gimbal lock (its angles then left for the caller).
        """
        quaternions = _c(quaternions)
        k = len(quaternions)
        near = None if compat is None else _c(compat)
        matrices = np.empty((k, 3, 3))
        angles = np.empty((k, 3))
        locked = np.zeros(k, dtype=np.uint8)
        if k:
            self._quaternions_euler(
                k,
                _address(quaternions),
                *axes,
                None if near is None else _address(near),
                _address(matrices),
                _address(angles),
                _address(locked),
            )
        return angles, matrices, locked.astype(bool)

    def gauss_newton_descent(
        self,
        plan: DescentPlan,
        phi: FloatArray,
        *,
        goal_value: float,
        tolerance: float,
        floor: tuple[float, float],
        drop: float,
        max_iterations: int,
        seconds: float | None,
    ) -> GaussNewtonDescent:
        """Gauss–Newton iterations from ``phi`` while each lowers G by a fifth or more.

        ``rk_gauss_newton_descent``: :func:`solver.optimizer.goldfarb.gauss_newton_descent`'s
        loop of :meth:`gauss_newton_start` and :meth:`gauss_newton_search` calls, with
        the drop tests between them, in one call.

        Args:
            plan: The descent's problem and rows, bound (:meth:`DescentPlan.bind`).
            phi: The start, (n,), with only the plan's bounds active (:meth:`DescentPlan.hold`).
            goal_value: G/w at or below which the goals are met.
            tolerance: ε of the Kuhn–Tucker test.
            floor: The test's shares of ‖g‖ and √|G| (:func:`.optimizer.active_set.kkt_floor`).
            drop: The largest share of G an iteration may leave.
            max_iterations: Most iterations.
            seconds: The time budget from now, or None.
        """
        n = plan.objective.n_variables
        buffer = np.empty(3 * n + 3)  # the end, its gradient, the gradient tested, 3 numbers
        buffer[:n] = phi
        flags = plan.inactive
        start = _address(buffer)
        status = self._gauss_newton_descent(
            plan.address,
            start,
            start + 8 * n,
            start + 16 * n,
            start + 24 * n,
            _address(flags),
            goal_value,
            tolerance,
            *floor,
            drop,
            max_iterations,
            -1.0 if seconds is None else max(seconds, 0.0),
            plan.work_address,
        )
        out = buffer[3 * n :]
        return GaussNewtonDescent(
            int(status),
            buffer[:n],
            float(out[0]),
            buffer[n : 2 * n],
            None if status == 2 else buffer[2 * n : 3 * n],
            int(out[1]),
            int(out[2]),
        )


class _HessianProduct:
    """v ↦ ∇²G v at one pose through ``rk_hessian_tree``, and Newton's step there.

    It holds the tree and the arrays whose addresses it passes (converted once, for the
    many products a Newton step takes at one pose) and the scratch.
    """

    def __init__(self, kernel: Kernel, tree: GradientTree, arrays: tuple[FloatArray, ...]) -> None:
        self._kernel = kernel
        self._tree = tree
        self._arrays = arrays
        self._scratch = np.empty(24 * tree.n_segments)
        self._n = tree.n_variables
        self._fixed = (
            *tree.layout,
            tree.pointers[3],
            *(_address(array) for array in arrays),
        )
        self._scratch_address = _address(self._scratch)

    def __call__(self, direction: FloatArray) -> FloatArray:
        direction = _c(direction)
        out = np.empty(self._n)
        self._kernel._hessian_tree(
            *self._fixed, _address(direction), self._scratch_address, _address(out)
        )
        return out

    def newton_step(
        self,
        gradient: FloatArray,
        held: np.ndarray[Any, np.dtype[np.uint8]] | None,
        metric: Metric,
        scale: float,
        products: int,
        forcing: float,
    ) -> tuple[FloatArray | None, int]:
        """What :func:`solver.optimizer.newton.newton_step` computes, in ``rk_newton_cg``.

        Args:
            gradient: ∇G at the pose.
            held: 1 for each variable an active bound holds (P zeroes it), or None.
            metric: The preconditioner H (dense or low rank).
            scale: ‖∇G‖ at the descent's start.
            products: Most products to take.
            forcing: Largest relative residual at which the iteration stops.
        """
        n = self._n
        gradient = _c(gradient)
        matrix = metric.matrix
        rows = core = turn = None
        rank = start = 0
        if matrix is None:
            rank = metric.rank
            rows, core = _c(metric.rows), _c(metric.core)
            if metric.turn is not None:
                start, turn = metric.turn[0], _c(metric.turn[1])
        else:
            matrix = _c(matrix)
        work = np.empty(4 * n + 3 * rank)
        step = np.empty(n)
        made = np.zeros(1, dtype=np.int32)
        taken = self._kernel._newton_cg(
            *self._fixed,
            None if held is None else _address(held),
            None if matrix is None else _address(matrix),
            metric.scale,
            rank,
            None if rows is None or not rank else _address(rows),
            None if core is None or not rank else _address(core),
            start,
            0 if turn is None else turn.shape[0],
            None if turn is None else _address(turn),
            _address(gradient),
            scale,
            products,
            forcing,
            self._scratch_address,
            _address(work),
            _address(step),
            _address(made),
        )
        return (step if made[0] else None), int(taken)


def _address(array: np.ndarray[Any, Any]) -> int:
    """The address of a contiguous array's first element.

    Through its writable buffer, a third of ``array.ctypes.data``'s cost; a read-only or
    empty array through its array interface.
    """
    try:
        return ctypes.addressof(ctypes.c_char.from_buffer(cast(Any, array)))
    except (TypeError, ValueError, BufferError):
        address: int = array.__array_interface__["data"][0]
        return address


def _c(array: FloatArray) -> FloatArray:
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
        return arrays, tuple(_address(array) for array in arrays)

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Unpickled or copied: the addresses are those of this object's own arrays."""
        for name, value in state.items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "pointers", tuple(_address(array) for array in self.arrays))


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
        pointers = (*self.pointers[:3], _address(rest), *self.pointers[4:])
        return replace(self, arrays=arrays, pointers=pointers, normalise=int(scaled))


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
    ]


@dataclass(frozen=True, eq=False)
class ObjectivePlan(_Arrays):
    """What ``rk_objective`` reads besides the pose and the goals, and its scratch.

    One per problem's figure, effectors and variables: the problems
    :meth:`Problem.with_goals <solver.Problem.with_goals>` makes share it. Its scratch
    makes it for one thread at a time, as a problem is.

    Attributes:
        n_parts: Parts, one per effector.
        n_variables: Variables.
        address: The address of the ``Objective`` structure.
        structure: That structure (kept alive with the arrays it points to).
        trees: The tree and the gradient's layout the structure points into (kept alive).
        descents: The plans of its descents' Gauss–Newton steps, by the figure's DOFs.
    """

    n_parts: int = 0
    n_variables: int = 0
    address: int = 0
    structure: Any = None
    trees: tuple[KernelTree, GradientTree] | None = None
    descents: dict[int, DescentPlan] = field(default_factory=dict)

    def split(self, out: FloatArray) -> tuple[tuple[FloatArray, ...], FloatArray]:
        """``rk_objective``'s output as the pose and the gradient over the variables.

        The pose: the parts' points, x and y axes, the variables' axes and pivots (views
        of ``out``, as the gradient is).
        """
        m, n = self.n_parts, self.n_variables
        points, x, y = out[: 9 * m].reshape(3, m, 3)
        axes, pivots = out[9 * m : 9 * m + 6 * n].reshape(2, n, 3)
        return (points, x, y, axes, pivots), out[9 * m + 6 * n :]

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
    ) -> ObjectivePlan:
        """The plan of a problem.

        Args:
            tree: The figure's tree.
            gradient: The variables' and parts' layout over it.
            local: Each part's point and axes in its segment's frame, (m, 4, 3).
            scaled: Whether some segment scales (the axes are then made unit).
            variables: Each variable's DOF.
        """
        n_segments, n_dofs = tree.n_segments, tree.n_dofs
        m, n = gradient.n_parts, gradient.n_variables
        arrays, pointers = cls.held(
            np.ascontiguousarray(local, dtype=np.float64).reshape(-1, 12),
            np.ascontiguousarray(variables, dtype=np.int32),
            np.empty(16 * (n_segments + 1)),
            np.empty(3 * n_dofs),
            np.empty(3 * n_dofs),
            np.empty(6 * n_segments),
            np.empty(3 * m),
            np.empty(m),
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
        )
        return cls(arrays, pointers, m, n, ctypes.addressof(structure), structure, (tree, gradient))


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
    ]


class DescentPlan:
    """What the kernel's descent reads: a descent's problem of position goals over φ.

    One per objective plan (:meth:`ObjectivePlan.descent`), with the step's scratch; each
    descent binds its own goals, start and rows (:meth:`bind`) and holds its active
    bounds (:meth:`hold`) before its steps.

    Attributes:
        objective: The objective's plan.
        address: The address of the ``Descent`` structure.
        work_address: The address of the step's scratch.
        bound: The arrays of the descent bound last (kept alive), or None.
        inactive: Whether each inequality row is inactive, as uint8.
    """

    def __init__(self, objective: ObjectivePlan, n_dofs: int) -> None:
        self.objective = objective
        m, n = objective.n_parts, objective.n_variables
        self._theta, self._pose = np.empty(n_dofs), np.empty(9 * m + 7 * n)
        self._posed_at = np.empty(n)
        self.structure = _Descent()
        self.structure.objective = objective.address
        self.structure.n_dofs = n_dofs
        self.structure.theta = _address(self._theta)
        self.structure.pose = _address(self._pose)
        self.structure.posed_at = _address(self._posed_at)
        self.address = ctypes.addressof(self.structure)
        self._work = np.empty(0)
        self.work_address = 0
        self.bound: tuple[FloatArray, ...] | None = None
        # the active bounds (at most one a variable): variables, signs, sides, held ones
        self._bound, self._sign, self._rhs = np.empty(n, np.int32), np.empty(n), np.empty(n)
        self._held = np.zeros(n, dtype=np.uint8)
        structure = self.structure
        structure.bound, structure.sign = _address(self._bound), _address(self._sign)
        structure.rhs, structure.held = _address(self._rhs), _address(self._held)
        self.inactive = np.empty(0, dtype=np.uint8)

    def point_at(self, objective: ObjectivePlan) -> None:
        """Read ``objective`` (a plan :meth:`ObjectivePlan.moved` from this one's) from now on."""
        self.objective = objective
        self.structure.objective = objective.address
        self.bound = None  # bound again before the next descent

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
        weight_scale: float,
        damping: tuple[float, float],
    ) -> None:
        """Point the structure at one descent's arrays.

        Args:
            arrays: Each goal's point (m, 3) and weight (m); whether each variable moves
                each goal's effector (n, m); θ at the start (all DOFs); the variables'
                scale s (θ_V = s ∘ φ); the inequality rows over φ, dense (rows, n), and
                their bounds. Kept as they are while bound: contiguous float64.
            weight_scale: w: the descent minimises G/w.
            damping: μ's shares of the largest curvature and of |G/w|.
        """
        structure = self.structure
        goal, weight, moves, base, scale, a, b = arrays
        structure.goal, structure.weight, structure.moves = (
            _address(goal),
            _address(weight),
            _address(moves),
        )
        structure.base, structure.scale = _address(base), _address(scale)
        structure.a, structure.b = _address(a), _address(b)
        structure.weight_scale, structure.rows = weight_scale, len(b)
        structure.relative, structure.absolute = damping
        structure.posed = 0  # its pose is of another start and scale
        m, n = self.objective.n_parts, self.objective.n_variables
        # a step's work (at most 5n + 2k + k² + rows, k = 3m) after a descent's own
        # (2kn + k² + 3n + 4)
        size = 8 * n + 6 * m * n + 6 * m + 18 * m * m + 4 + len(b)
        if self._work.size < size:
            self._work = np.empty(size)
            self.work_address = _address(self._work)
        self.bound = arrays
        structure.q = 0  # no bound active until held
        if len(self.inactive) != len(b):
            self.inactive = np.ones(len(b), dtype=np.uint8)
        else:
            self.inactive.fill(1)

    def hold(
        self,
        variables: IntArray,
        signs: FloatArray,
        rhs: FloatArray,
        inactive: np.ndarray[Any, np.dtype[np.bool_]],
    ) -> None:
        """Make the bounds on ``variables`` the active rows of the descent bound.

        Args:
            variables: The variable each active bound holds, (q,), all apart.
            signs: Its row's entry there, ±1, (q,).
            rhs: Its right-hand side, (q,).
            inactive: Whether each inequality row is inactive, (rows,).
        """
        q = len(variables)
        self._bound[:q], self._sign[:q], self._rhs[:q] = variables, signs, rhs
        self._held[:] = 0
        self._held[variables] = 1
        self.structure.q = q
        self.inactive[:] = inactive

    @property
    def q(self) -> int:
        """The active bounds (:meth:`hold`)."""
        return int(self.structure.q)


@dataclass(frozen=True)
class GaussNewtonDescent:
    """What ``rk_gauss_newton_descent`` found (see :meth:`Kernel.gauss_newton_descent`).

    Attributes:
        status: 0 the goals met; 1 the time spent; 2 the goals met at the start; −1
            anything else (the descent is then the general one's).
        point: The last iterate.
        value: G/w there.
        gradient: Its gradient.
        normed: The gradient whose norm was tested last (None: none was).
        evaluations: Objective evaluations, the start's included.
        iterations: Iterations taken.
    """

    status: int
    point: FloatArray
    value: float
    gradient: FloatArray
    normed: FloatArray | None
    evaluations: int
    iterations: int


@dataclass(frozen=True)
class GaussNewtonStart:
    """What ``rk_gauss_newton_start`` found (see :meth:`Kernel.gauss_newton_start`).

    Attributes:
        status: 0, or 4 where the curvature is not positive definite to rounding.
        damping: μ of H's start.
        factor: F at the iterate, scaled, (n, k).
        turn: L⁻¹ of H's start, (k, k).
        hg: H g, (n,).
    """

    status: int
    damping: float
    factor: FloatArray
    turn: FloatArray
    hg: FloatArray


@dataclass(frozen=True)
class GaussNewtonSearch:
    """What ``rk_gauss_newton_search`` found (see :meth:`Kernel.gauss_newton_search`).

    Attributes:
        status: 0 a step was taken; 1 −H g is no descent; 2 a row blocks at once; 3 the
            line search found no decrease; 5 the row met is no bound while bounds are
            active (the descent takes that step itself).
        slope: gᵀs.
        limit: λ_max of the ratio test (inf: no row blocks).
        hit: The row met at λ_max, or −1.
        alpha: The accepted step factor (0: none).
        value: G/w at the accepted point.
        evaluations: Objective evaluations of the line search.
        point: The accepted point.
        gradient: Its gradient.
    """

    status: int
    slope: float
    limit: float
    hit: int
    alpha: float
    value: float
    evaluations: int
    point: FloatArray
    gradient: FloatArray


@dataclass(frozen=True)
class Status:
    """Which path the solver runs, and why.

    Attributes:
        compiled: True when the kernel is in use.
        text: One line for people: the library and platform, or why numpy runs.
    """

    compiled: bool
    text: str


_state: dict[str, tuple[Kernel | None, Status]] = {}
"""The loaded kernel (or None) and its status, once loaded."""
_switch = {"on": True}


def _load() -> tuple[Kernel | None, Status]:
    """Load, check and return the kernel, or None and the reason."""
    if os.environ.get("REACH_KERNEL", "").lower() in {"0", "numpy", "off"}:
        return None, Status(False, "numpy (REACH_KERNEL asks for it)")
    tag = platform_tag()
    if tag is None:
        return None, Status(
            False, f"numpy (no kernel is built for {sys.platform} {platform.machine()})"
        )
    path = LIBRARY_FOLDER / library_name(tag)
    if not path.is_file():
        return None, Status(False, f"numpy (the kernel for {tag} is not installed)")
    try:
        library = ctypes.CDLL(str(path))
        abi = library.rk_abi
        abi.restype = ctypes.c_int32
        found = int(abi())
        if found != ABI:
            return None, Status(False, f"numpy (the {tag} kernel speaks ABI {found}, not {ABI})")
        kernel = Kernel(library)
    except (OSError, AttributeError) as error:
        return None, Status(False, f"numpy (the {tag} kernel did not load: {error})")
    from .check import self_check  # its tree is made when the kernel is first loaded

    try:
        problem = self_check(kernel)
    except Exception as error:  # a kernel that fails so is not used either
        problem = f"{type(error).__name__}: {error}"
    if problem is not None:
        return None, Status(False, f"numpy (the {tag} kernel failed its check: {problem})")
    return kernel, Status(True, f"compiled kernel ({tag})")


def _loaded() -> tuple[Kernel | None, Status]:
    if "loaded" not in _state:
        _state["loaded"] = _load()
    return _state["loaded"]


def active() -> Kernel | None:
    """The kernel when it is loaded, checked and switched on; else None (use numpy)."""
    if not _switch["on"]:
        return None
    return _loaded()[0]


def status() -> Status:
    """Which path solves, loading the kernel on first use to find out."""
    if not _switch["on"]:
        return Status(False, "numpy (the kernel is switched off)")
    return _loaded()[1]


@contextmanager
def enabled(on: bool) -> Iterator[None]:
    """Run a block with the kernel switched on (when it loads) or off; restores after."""
    before = _switch["on"]
    _switch["on"] = on
    try:
        yield
    finally:
        _switch["on"] = before
