"""The kernel's functions as numpy calls: :class:`Kernel`, one method a C function.

Each method converts its arrays to the C types, passes their addresses and the plans'
(:mod:`.layouts`), and returns numpy arrays or a record (:mod:`.records`).
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from .._checks import FloatArray, IntArray
from .layouts import (
    DescentPlan,
    GradientTree,
    KernelTree,
    ObjectivePlan,
    address,
    contiguous,
)
from .records import (
    DESCENT_STATUSES,
    SETTLE_STATUSES,
    DescentStatus,
    DescentStops,
    GaussNewtonDescent,
    GaussNewtonSearch,
    GaussNewtonStart,
    Quick,
    SearchStatus,
    Settled,
    SettleStatus,
    StartStatus,
)
from .signatures import Functions

if TYPE_CHECKING:
    from ..optimizer.low_rank import Metric

__all__ = ["Kernel", "QuickComfort"]


QuickComfort = tuple[
    FloatArray, FloatArray, Mapping[str, float], float, float, float, FloatArray, FloatArray
]
"""Comfort's rounds for :meth:`Kernel.quick`: the aim's target and masses (n,), the rounds'
constants (:meth:`Kernel.settle`'s, but ceiling and nearby), relax's hold share, hold and
near, and the space's orthonormal equality rows (e, n) and their right-hand sides (e,)."""


class Kernel:
    """The loaded library's functions, each taking and returning numpy arrays.

    Args:
        library: The loaded library.

    Attributes:
        c: Its C functions, their signatures set (:class:`.signatures.Functions`).
    """

    def __init__(self, library: ctypes.CDLL) -> None:
        self.library = library
        self.c = Functions(library)

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
        self.c.frames(
            tree.n_segments,
            *tree.pointers,
            tree.normalise,
            address(theta),
            address(world),
            address(axes),
            address(pivots),
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
        points, force, coefficient = contiguous(points), contiguous(force), contiguous(coefficient)
        axes, pivots = contiguous(axes), contiguous(pivots)
        torque = None if torque is None else contiguous(torque)
        self.c.gradient_tree(
            *tree.layout,
            address(points),
            address(force),
            None if torque is None else address(torque),
            address(coefficient),
            address(axes),
            address(pivots),
            tree.pointers[3],
            address(sums),
            address(out),
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
        return _HessianProduct(self, tree, tuple(contiguous(array) for array in arrays))

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
        vectors, weights, axes, pivots = (
            contiguous(vectors),
            contiguous(weights),
            contiguous(axes),
            contiguous(pivots),
        )
        self.c.factor(
            n,
            m,
            k // m,
            address(vectors),
            address(moves),
            address(weights),
            address(axes),
            address(pivots),
            address(rotation),
            address(out),
        )
        columns: FloatArray = out.T
        return columns

    def objective(
        self,
        plan: ObjectivePlan,
        theta: FloatArray,
        goal: FloatArray,
        weight: FloatArray,
        faces: FloatArray | None = None,
    ) -> tuple[float, tuple[FloatArray, ...], FloatArray]:
        """G_all and its gradient of squared-distance goals, in one call (``rk_objective``).

        What :meth:`Problem.evaluate_variables <solver.Problem.evaluate_variables>`
        computes through the frames, the parts' states, the goals and the gradient.

        Args:
            plan: The problem's tree, parts and variables.
            theta: The pose, all DOFs (n_dofs,).
            goal: The goals' vectors, (v, 3), v = blocks · m: the effectors' points' goals,
                then (blocks 3) their x and y axes' goals.
            weight: Each vector's weight in G_all, (v,).
            faces: Each goal's plane normal and kind (m, 4: 0 a squared distance, 1 a
                :class:`~solver.goals.Plane`, 2 a :class:`~solver.goals.HalfSpace`, its
                point the goal's first vector), or None where every goal is a squared
                distance.

        Returns:
            G_all; the pose the solver keeps (the leaves' points, x and y axes, the
            variables' axes and pivots, the parts' points); the gradient over the
            variables.
        """
        out = np.empty(plan.size)
        theta, goal, weight = contiguous(theta), contiguous(goal), contiguous(weight)
        blocks = len(weight) // plan.n_leaves
        faces = None if faces is None or not len(faces) else contiguous(faces)
        total = self.c.objective(
            plan.address,
            address(theta),
            blocks,
            address(goal),
            address(weight),
            None if faces is None else address(faces),
            address(out),
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
        columns = contiguous(factor.T)
        held = None if bounds is None else np.ascontiguousarray(bounds, dtype=np.int32)
        turn = np.empty((k, k))
        scratch = np.empty(n + k * k)
        damping = self.c.woodbury_start(
            n,
            k,
            q,
            address(columns),
            None if held is None else address(held),
            address(rows),
            relative,
            absolute,
            value,
            address(turn),
            address(scratch),
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
        """H's Gauss–Newton start at ``phi`` on the plan's active rows, and H g.

        ``rk_gauss_newton_start``: what :meth:`solver.optimizer.goldfarb.Run.initial_h`
        starts H from (:func:`solver.optimizer.metric._woodbury_start`, the bounds'
        variables zeroed) and its product with the gradient.

        Args:
            plan: The descent's problem, rows and active bounds (:meth:`DescentPlan.hold`).
            phi: The iterate, (n,).
            value: G/w there.
            gradient: Its gradient, (n,).
            room: The metric's buffer (:meth:`Metric.room
                <solver.optimizer.low_rank.Metric.room>`, ≥ r + k rows of n, r the active
                rows, :attr:`DescentPlan.held_rows`): rows r to r + k are given (PF)ᵀ.
        """
        n, k, q = plan.objective.n_variables, plan.k, plan.held_rows
        phi, gradient = contiguous(phi), contiguous(gradient)
        factor = np.empty((k, n))
        buffer = np.empty(k * k + n + 1)  # L⁻¹, H g, μ
        turn = buffer[: k * k].reshape(k, k)
        start = address(buffer)
        status = self.c.gauss_newton_start(
            plan.address,
            address(phi),
            value,
            address(gradient),
            address(factor),
            address(room[q:]),
            start,
            start + 8 * (k * k),
            start + 8 * (k * k + n),
            plan.work_address,
        )
        hg = buffer[k * k : k * k + n]
        return GaussNewtonStart(StartStatus(status), float(buffer[-1]), factor.T, turn, hg)

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

        ``rk_gauss_newton_search``: what :meth:`solver.optimizer.goldfarb.Run.step`
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
        phi, gradient, hg = contiguous(phi), contiguous(gradient), contiguous(hg)
        flags = np.ascontiguousarray(inactive, dtype=np.uint8)
        # the outputs in one buffer: four numbers, the point, its gradient, and three counts
        # (int32, in the last two doubles)
        buffer = np.empty(4 + 2 * n + 2)
        counts = buffer[4 + 2 * n :].view(np.int32)
        start = address(buffer)
        self.c.gauss_newton_search(
            plan.address,
            address(phi),
            value,
            address(gradient),
            address(hg),
            address(flags),
            start,
            start + 8 * 4,
            start + 8 * (4 + n),
            start + 8 * (4 + 2 * n),
            plan.work_address,
        )
        return GaussNewtonSearch(
            SearchStatus(counts[2]),
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
        angles = contiguous(angles)
        turns = np.ascontiguousarray(axes, dtype=np.int32)
        out = np.empty((len(angles), 4))
        if len(angles):
            self.c.euler_quaternions(len(angles), address(angles), address(turns), address(out))
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
        quaternions = contiguous(quaternions)
        k = len(quaternions)
        near = None if compat is None else contiguous(compat)
        matrices = np.empty((k, 3, 3))
        angles = np.empty((k, 3))
        locked = np.zeros(k, dtype=np.uint8)
        if k:
            self.c.quaternions_euler(
                k,
                address(quaternions),
                *axes,
                None if near is None else address(near),
                address(matrices),
                address(angles),
                address(locked),
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

        ``rk_gauss_newton_descent``:
        :func:`solver.optimizer.compiled_gauss_newton.gauss_newton_descent`'s loop of
        :meth:`gauss_newton_start` and :meth:`gauss_newton_search` calls, with the drop
        tests between them, in one call.

        Args:
            plan: The descent's problem and rows, bound (:meth:`DescentPlan.bind`).
            phi: The start, (n,), with only the plan's bounds active (:meth:`DescentPlan.hold`).
            goal_value: As :class:`.records.DescentStops`' (so are the others).
            tolerance: ε of the Kuhn–Tucker test.
            floor: The test's shares of ‖g‖ and √|G|.
            drop: The largest share of G an iteration may leave.
            max_iterations: Most iterations.
            seconds: The time budget from now, or None.
        """
        n = plan.objective.n_variables
        buffer = np.empty(3 * n + 3)  # the end, its gradient, the gradient tested, 3 numbers
        buffer[:n] = phi
        start = address(buffer)
        status = self.c.gauss_newton_descent(
            plan.address,
            start,
            start + 8 * n,
            start + 16 * n,
            start + 24 * n,
            plan.inactive_address,
            goal_value,
            tolerance,
            *floor,
            drop,
            max_iterations,
            -1.0 if seconds is None else max(seconds, 0.0),
            plan.work_address,
        )
        value, evaluations, iterations = buffer[3 * n :].tolist()
        ended = DESCENT_STATUSES[status]
        return GaussNewtonDescent(
            ended,
            buffer[:n],
            value,
            buffer[n : 2 * n],
            None if ended is DescentStatus.MET_AT_START else buffer[2 * n : 3 * n],
            int(evaluations),
            int(iterations),
        )

    def settle(
        self,
        plan: DescentPlan,
        phi: FloatArray,
        value: float,
        gradient: FloatArray,
        target: FloatArray,
        masses: FloatArray,
        constants: Mapping[str, float],
        *,
        max_iterations: int,
        seconds: float | None,
        a_eq: FloatArray | None = None,
        b_eq: FloatArray | None = None,
    ) -> Settled:
        """Comfort's Newton rounds from ``phi``, then steps onto the goals (``rk_settle``).

        :func:`solver.optimizer.relax.settle`'s loop, in one call.

        Args:
            plan: The descent's problem and rows, bound (:meth:`DescentPlan.bind`).
            phi: The start, (n,): the goals met there.
            value: G/w there.
            gradient: Its gradient, (n,).
            target: Comfort's τ, (n,).
            masses: Comfort's m, (n,).
            constants: The rounds' other constants, named as ``Settle``'s fields.
            max_iterations: Most rounds.
            seconds: The time budget from now, or None.
            a_eq: The space's orthonormal equality rows, (e, n), kept by every round; None
                or no rows: none.
            b_eq: Their right-hand sides, (e,).
        """
        n = plan.objective.n_variables
        buffer = np.empty(2 * n + 4)  # the end, its gradient, 4 numbers
        buffer[:n], buffer[n : 2 * n], buffer[2 * n] = phi, gradient, value
        settings, work, integers, _kept = _settle_setup(plan, target, masses, constants, a_eq, b_eq)
        start = address(buffer)
        status = self.c.settle(
            plan.address,
            settings,
            start,
            start + 8 * n,
            start + 16 * n,
            max_iterations,
            -1.0 if seconds is None else max(seconds, 0.0),
            work,
            integers,
        )
        found, evaluations, iterations, comfort = buffer[2 * n :].tolist()
        return Settled(
            SETTLE_STATUSES[status],
            buffer[:n],
            found,
            buffer[n : 2 * n],
            comfort,
            int(evaluations),
            int(iterations),
        )

    def quick(
        self,
        plan: DescentPlan,
        phi: FloatArray,
        stops: DescentStops,
        comfort: QuickComfort | None,
    ) -> Quick:
        """:meth:`gauss_newton_descent`, then :meth:`settle` from its end, in one call.

        ``rk_quick``: the rounds run where the descent meets the goals and ``comfort`` is
        given, with the iterations and the time the descent left; their ceiling is
        relax's from the descent's G/w (``G/w · (1 + hold_share) + hold``) and their
        nearby that plus ``near``. Where a round is kept, the rows the rounds' end rests
        on as :func:`solver.optimizer.relax._kept_rounds` finds them (:attr:`Quick.kept`).

        Args:
            plan: As :meth:`gauss_newton_descent`'s.
            phi: As :meth:`gauss_newton_descent`'s.
            stops: :meth:`gauss_newton_descent`'s arguments; its iterations and time are
                both's, together.
            comfort: The rounds' aim, constants and equality rows, or None: no rounds.
        """
        n = plan.objective.n_variables
        # the end, its gradient, the gradient tested; the rounds' end and its gradient; the
        # kept rows' multipliers; 10 numbers; the stops
        buffer = np.empty(6 * n + 19)
        buffer[:n] = phi
        seconds = stops.seconds
        buffer[6 * n + 10 :] = (
            stops.goal_value,
            stops.tolerance,
            *stops.floor,
            stops.drop,
            -1.0 if seconds is None else max(seconds, 0.0),
            *((0.0, 0.0, 0.0) if comfort is None else comfort[3:6]),
        )
        active, seen = plan.quick_scratch()
        settings = work = integers = None
        if comfort is not None:
            target, masses, constants, _, _, _, a_eq, b_eq = comfort
            settings, work, integers, _kept = _settle_setup(
                plan, target, masses, constants, a_eq, b_eq
            )
        start = address(buffer)
        status = self.c.quick(
            plan.address,
            settings,
            start,
            start + 8 * n,
            start + 16 * n,
            start + 24 * n,
            start + 48 * n,
            address(active),
            start + 40 * n,
            address(seen),
            plan.inactive_address,
            start + 48 * n + 80,
            stops.max_iterations,
            plan.work_address,
            work,
            integers,
        )
        numbers = buffer[6 * n : 6 * n + 10].tolist()
        ended = DESCENT_STATUSES[status]
        descent = GaussNewtonDescent(
            ended,
            buffer[:n],
            numbers[0],
            buffer[n : 2 * n],
            None if ended is DescentStatus.MET_AT_START else buffer[2 * n : 3 * n],
            int(numbers[1]),
            int(numbers[2]),
        )
        rounds_status = SETTLE_STATUSES[int(numbers[3])]
        if rounds_status is SettleStatus.NOT_RUN:
            return Quick(descent, None, None)
        rounds = Settled(
            rounds_status,
            buffer[3 * n : 4 * n],
            numbers[4],
            buffer[4 * n : 5 * n],
            numbers[7],
            int(numbers[5]),
            int(numbers[6]),
        )
        count = int(numbers[8])
        if count < 0:
            return Quick(descent, rounds, None)
        kept = (active[:count].tolist(), buffer[5 * n : 5 * n + count], numbers[9])
        return Quick(descent, rounds, kept)


def _settle_setup(
    plan: DescentPlan,
    target: FloatArray,
    masses: FloatArray,
    constants: Mapping[str, float],
    a_eq: FloatArray | None,
    b_eq: FloatArray | None,
) -> tuple[int, int, int, tuple[FloatArray, ...]]:
    """``rk_settle``'s settings for ``plan`` filled, and its scratch.

    The settings' address, the scratch's (floats, integers) and the arrays they point at,
    kept alive by the caller through the call.
    """
    n = plan.objective.n_variables
    k, rows = plan.k, len(plan.inactive)
    depth = int(constants["depth"])
    kept: tuple[FloatArray, ...] = (contiguous(target), contiguous(masses))
    equalities = 0
    settings = plan.settle_settings
    settings.a_eq = settings.b_eq = None
    if a_eq is not None and b_eq is not None and len(a_eq):
        eq = contiguous(a_eq), contiguous(b_eq)
        kept += eq
        equalities = len(eq[0])
        settings.a_eq, settings.b_eq = address(eq[0]), address(eq[1])
    for name, number in constants.items():
        setattr(settings, name, number)
    settings.target, settings.masses = address(kept[0]), address(kept[1])
    settings.equalities = equalities
    p = k + rows + equalities  # F's columns, the equalities' and the held rows' at most
    size = p * n + p * p + k + 3 * p + 12 * n + 2 * rows + 2 * depth * n + depth * depth
    # the rows' bounds, touched and held, the equalities, free and held flags, spans
    count = 3 * rows + equalities + (rows + n + 3) // 4 + 2 * rows + 2 * p
    work, integers = plan.settle_scratch(size + 2 * depth, count)
    return ctypes.addressof(settings), work, integers, kept


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
            *(address(array) for array in arrays),
        )
        self._scratch_address = address(self._scratch)

    def __call__(self, direction: FloatArray) -> FloatArray:
        direction = contiguous(direction)
        out = np.empty(self._n)
        self._kernel.c.hessian_tree(
            *self._fixed, address(direction), self._scratch_address, address(out)
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
        gradient = contiguous(gradient)
        matrix = metric.matrix
        rows = core = turn = None
        rank = start = 0
        if matrix is None:
            rank = metric.rank
            rows, core = contiguous(metric.rows), contiguous(metric.core)
            if metric.turn is not None:
                start, turn = metric.turn[0], contiguous(metric.turn[1])
        else:
            matrix = contiguous(matrix)
        work = np.empty(4 * n + 3 * rank)
        step = np.empty(n)
        made = np.zeros(1, dtype=np.int32)
        taken = self._kernel.c.newton_cg(
            *self._fixed,
            None if held is None else address(held),
            None if matrix is None else address(matrix),
            metric.scale,
            rank,
            None if rows is None or not rank else address(rows),
            None if core is None or not rank else address(core),
            start,
            0 if turn is None else turn.shape[0],
            None if turn is None else address(turn),
            address(gradient),
            scale,
            products,
            forcing,
            self._scratch_address,
            address(work),
            address(step),
            address(made),
        )
        return (step if made[0] else None), int(taken)
