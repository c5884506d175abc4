"""The kernel's check of itself before first use: its answers against numpy's.

A library built for this platform may still be wrong here (a compiler's or a C
library's fault, a mismatched build): it is used only when it computes what numpy
computes, to rounding, on a small tree with every kind of joint (rotations about
oblique axes, translations, a scaling rest, a segment with no DOF, two branches).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._checks import FloatArray
from ..optimizer.low_rank import Metric
from ..optimizer.newton import PRODUCTS, newton_step
from ..rows import LimitRows
from .calls import Kernel
from .layouts import DescentPlan, GradientTree, KernelTree, ObjectivePlan
from .records import DescentStatus, SearchStatus, StartStatus

__all__ = ["self_check"]

TOLERANCE = 1e-12
"""Largest difference allowed, relative to the tree's size (about 1 m)."""

_TURN = np.array(
    [[0.0, -1.0, 0.0, 0.1], [1.0, 0.0, 0.0, 0.2], [0.0, 0.0, 1.0, 0.3], [0.0, 0.0, 0.0, 1.0]]
)
_SCALE = np.array(
    [[1.5, 0.0, 0.0, 0.0], [0.0, 1.5, 0.0, 0.4], [0.0, 0.0, 1.5, 0.0], [0.0, 0.0, 0.0, 1.0]]
)
_TREE = KernelTree.of(
    parent=np.array([-1, 0, 1, 0, 3]),
    first_dof=np.array([0, 2, 4, 5, 5]),
    count=np.array([2, 2, 1, 0, 1]),
    rest=np.array([_TURN, _SCALE, _TURN, _TURN, _SCALE]),
    rotation=np.array([False, True, True, True, True, False]),
    axis=np.array([[1, 0, 0], [0, 0, 1], [1, 0, 0], [0, 0.6, 0.8], [0, 1, 0], [0, 0, 1.0]]),
    scaled=True,
)


def _numpy_frames(tree: KernelTree, theta: FloatArray) -> tuple[FloatArray, ...]:
    """What ``rk_frames`` computes, one matrix product at a time."""
    parent, first, count, rest, rotation, axis = tree.arrays
    world = np.zeros((tree.n_segments + 1, 4, 4))
    world[-1] = np.eye(4)
    axes, pivots = np.zeros((tree.n_dofs, 3)), np.zeros((tree.n_dofs, 3))
    for k in range(tree.n_segments):
        frame = world[parent[k]] @ rest[k].reshape(4, 4)
        for j in range(first[k], first[k] + count[k]):
            step = np.eye(4)
            a = axis[j]
            if rotation[j]:
                skew = np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])
                turn = np.sin(theta[j]) * skew + (1.0 - np.cos(theta[j])) * skew @ skew
                step[:3, :3] += turn
            else:
                step[:3, 3] = theta[j] * a
            frame = frame @ step
            axes[j] = frame[:3, :3] @ a
            if rotation[j]:
                axes[j] /= np.linalg.norm(axes[j])
            pivots[j] = frame[:3, 3]
        world[k] = frame
    return world, axes, pivots


def _numpy_gradient(
    moves: FloatArray,
    rotation: FloatArray,
    points: FloatArray,
    force: FloatArray,
    torque: FloatArray,
    coefficient: FloatArray,
    axes: FloatArray,
    pivots: FloatArray,
) -> FloatArray:
    """What ``rk_gradient_tree`` computes (``moves``: which variable moves which part)."""
    out = np.zeros(len(axes))
    for j in range(len(axes)):
        moment, total = np.zeros(3), np.zeros(3)
        for e in np.flatnonzero(moves[j]):
            moment += coefficient[e] * (_cross(points[e], force[e]) + torque[e])
            total += coefficient[e] * force[e]
        load = moment - _cross(pivots[j], total) if rotation[j] else total
        out[j] = axes[j] @ load
    return out


def _numpy_factor(
    moves: FloatArray,
    rotation: FloatArray,
    vectors: FloatArray,
    weights: FloatArray,
    axes: FloatArray,
    pivots: FloatArray,
) -> FloatArray:
    """What ``rk_factor`` computes, a column at a time."""
    n, m = moves.shape
    scale = weights.reshape(-1)
    out = np.zeros((n, 3 * len(vectors)))
    for j in range(n):
        for i, vector in enumerate(vectors):
            point = i < m
            if rotation[j]:
                column = _cross(axes[j], vector - pivots[j] if point else vector)
            else:
                column = axes[j] if point else np.zeros(3)
            out[j, 3 * i : 3 * i + 3] = moves[j, i % m] * scale[i] * column
    return out


def _cross(a: FloatArray, b: FloatArray) -> FloatArray:
    """The cross product of two 3-vectors, as ``np.cross`` (without its axis handling)."""
    return np.array(
        (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])
    )


def _numpy_hessian(
    below: FloatArray,
    above: FloatArray,
    rotation: FloatArray,
    state: tuple[FloatArray, ...],
    coefficient: FloatArray,
    hessians: FloatArray,
    axes: FloatArray,
    pivots: FloatArray,
    direction: FloatArray,
) -> FloatArray:
    """What ``rk_hessian_tree`` computes, a part and a variable at a time.

    ``below[j, e]``: variable j moves part e; ``above[b, j]``: variable b moves variable
    j's axis and pivot; ``state``: the parts' points, x and y axes and their goals'
    gradients over each.
    """
    points, x, y, d_point, d_x, d_y = state
    spin = np.array([axes[j] if rotation[j] else np.zeros(3) for j in range(len(axes))])
    shift = np.array(
        [_cross(pivots[j], axes[j]) if rotation[j] else axes[j] for j in range(len(axes))]
    )
    wrench, change = np.zeros((len(points), 6)), np.zeros((len(points), 6))
    for e in range(len(points)):
        turn = (below[:, e] * direction) @ spin
        moved = np.concatenate(
            [
                _cross(turn, points[e]) + (below[:, e] * direction) @ shift,
                _cross(turn, x[e]),
                _cross(turn, y[e]),
            ]
        )
        second = hessians[e] @ moved
        torque = _cross(x[e], d_x[e]) + _cross(y[e], d_y[e])
        wrench[e] = coefficient[e] * np.concatenate(
            [_cross(points[e], d_point[e]) + torque, d_point[e]]
        )
        turned = (
            _cross(moved[:3], d_point[e])
            + _cross(points[e], second[:3])
            + _cross(moved[3:6], d_x[e])
            + _cross(x[e], second[3:6])
            + _cross(moved[6:], d_y[e])
            + _cross(y[e], second[6:])
        )
        change[e] = coefficient[e] * np.concatenate([turned, second[:3]])
    out = np.zeros(len(axes))
    for j in range(len(axes)):
        turn = (above[:, j] * direction) @ spin
        d_u = _cross(turn, axes[j])
        d_q = _cross(turn, pivots[j]) + (above[:, j] * direction) @ shift
        moment, total = below[j] @ wrench[:, :3], below[j] @ wrench[:, 3:]
        d_moment, d_total = below[j] @ change[:, :3], below[j] @ change[:, 3:]
        if rotation[j]:
            load = moment - _cross(pivots[j], total)
            d_load = d_moment - _cross(d_q, total) - _cross(pivots[j], d_total)
        else:
            load, d_load = total, d_total
        out[j] = d_u @ load + axes[j] @ d_load
    return out


def _newton_differs(product: Any, numpy_product: Callable[[FloatArray], FloatArray]) -> str | None:
    """None when the kernel's Newton step is numpy's, H low rank (turned or not) or dense."""
    n = _TREE.n_dofs
    held = np.zeros(n, dtype=np.uint8)
    held[0] = 1
    free = held == 0

    def project(vector: FloatArray) -> FloatArray:
        return np.where(free, vector, 0.0)

    gradient = np.linspace(-1.0, 0.8, n)
    basis = np.linspace(-0.5, 1.0, 2 * n).reshape(n, 2) * free[:, None]
    core = np.array([[0.3, 0.1], [0.1, 0.2]])
    low_rank = Metric(n, 0.5, basis, core)
    room = Metric.room(n, 2)
    room[:2] = basis.T
    turned = Metric.of_rows(0.5, room, 2, core, (0, np.array([[1.5, 0.0], [-0.4, 0.8]])))
    for metric in (low_rank, turned, Metric.dense(low_rank.to_array())):
        want, want_products = newton_step(
            numpy_product, gradient, project, metric.__matmul__, None, 2.0
        )
        have, have_products = product.newton_step(gradient, held, metric, 2.0, PRODUCTS, 0.1)
        if have_products != want_products or (have is None) != (want is None):
            return "its Newton step takes other products than numpy's"
        if want is not None and not np.all(
            np.abs(have - want) <= TOLERANCE * max(1.0, float(np.max(np.abs(want))))
        ):
            return "its Newton step differs from numpy's"
    return None


def _objective_differs(
    kernel: Kernel, tree: GradientTree, theta: FloatArray, below: FloatArray, weights: FloatArray
) -> str | None:
    """None when the kernel's objective of position goals is numpy's.

    Every DOF is a variable; ``below[j, e]``: variable j moves part e.
    """
    world, axes, pivots = _numpy_frames(_TREE, theta)
    local = np.zeros((4, 4, 3))
    local[:, :3, 0] = np.linspace(-0.2, 0.3, 12).reshape(4, 3)
    local[:, 3, 0] = 1.0
    local[:, :3, 1] = (0.0, 0.6, 0.8)
    local[:, :3, 2] = (1.0, 0.0, 0.0)
    segments = tree.arrays[2]
    plan = ObjectivePlan.of(_TREE, tree, local, True, np.arange(_TREE.n_dofs))
    columns = world[segments] @ local
    points, x, y = columns[:, :3, 0], columns[:, :3, 1], columns[:, :3, 2]
    x, y = (v / np.linalg.norm(v, axis=1)[:, None] for v in (x, y))
    goal = points[::-1] + 0.25
    delta = points - goal
    want: tuple[FloatArray, ...] = (
        np.array(weights @ (delta * delta).sum(axis=1)),
        points,
        x,
        y,
        axes,
        pivots,
        points,
        _numpy_gradient(
            below, _TREE.arrays[4], points, 2.0 * delta, 0.0 * x, weights, axes, pivots
        ),
    )
    total, pose, gradient = kernel.objective(plan, theta, goal, weights)
    for expected, got in zip(want, (np.array(total), *pose, gradient), strict=True):
        if got.shape != expected.shape or not np.all(
            np.abs(got - expected) <= TOLERANCE * max(1.0, float(np.max(np.abs(expected))))
        ):
            return "its objective differs from numpy's"
    return None


def _leaf_objective_differs(
    kernel: Kernel, tree: GradientTree, theta: FloatArray, below: FloatArray
) -> str | None:
    """None when the kernel's objective of a centre of mass, a plane and a half-space is numpy's.

    Leaves 0, 1 and 3 are the mean of parts 0 to 2 (a half-space it is outside, a plane
    it is above, a half-space it is inside), leaf 2 is part 3 (a position goal):
    ``below[j, e]``, variable j moves part e.
    """
    world, axes, pivots = _numpy_frames(_TREE, theta)
    local = np.zeros((4, 4, 3))
    local[:, :3, 0] = np.linspace(0.3, -0.2, 12).reshape(4, 3)
    local[:, 3, 0] = 1.0
    local[:, :3, 1], local[:, :3, 2] = (0.0, 0.6, 0.8), (1.0, 0.0, 0.0)
    mean = [0.2, 0.3, 0.5, 0.0]
    shares = np.array([mean, mean, [0.0, 0.0, 0.0, 1.0], mean])
    leaves = (shares, np.array([0, 0, 3, 0]), np.array([True, True, False, True]))
    plan = ObjectivePlan.of(_TREE, tree, local, True, np.arange(_TREE.n_dofs), leaves)
    at = (world[tree.arrays[2]] @ local)[:, :3, 0]
    points = shares @ at
    normal = np.array([0.0, 0.6, -0.8])
    goal = points - np.array([-0.1, 0.07, 0.0, 0.1])[:, None] * normal
    goal[2] = points[2] - 0.2
    faces = np.zeros((4, 4))
    faces[[0, 1, 3], :3] = normal
    faces[[0, 1, 3], 3] = 2.0, 1.0, 2.0
    weights = np.array([3.0, 0.5, 2.0, 1.5])
    heights = ((points - goal) * normal).sum(axis=1)
    heights[[0, 3]] = np.minimum(heights[[0, 3]], 0.0)
    heights[2] = 0.0
    delta = points[2] - goal[2]
    forces = 2.0 * heights[:, None] * normal
    forces[2] = 2.0 * delta
    forces *= weights[:, None]
    want_total = weights @ (heights * heights) + weights[2] * float(delta @ delta)
    gradient = _numpy_gradient(
        below, _TREE.arrays[4], at, shares.T @ forces, np.zeros((4, 3)), np.ones(4), axes, pivots
    )
    total, pose, have = kernel.objective(plan, theta, goal, weights, faces)
    size = max(1.0, float(np.abs(gradient).max()))
    if not (
        abs(total - want_total) <= TOLERANCE * max(1.0, want_total)
        and np.all(np.abs(pose[0] - points) <= TOLERANCE)
        and np.all(np.abs(pose[5] - at) <= TOLERANCE)
        and np.all(np.abs(have - gradient) <= TOLERANCE * size)
    ):
        return "its objective of a centre of mass and planes differs from numpy's"
    return None


def _aim_objective_differs(
    kernel: Kernel, tree: GradientTree, theta: FloatArray, below: FloatArray
) -> str | None:
    """None when the kernel's objective of aims beside position goals is numpy's.

    Parts 0 and 2 aim their y axes at points (part 2's beside it), parts 1 and 3 have
    position goals: ``below[j, e]``, variable j moves part e.
    """
    world, axes, pivots = _numpy_frames(_TREE, theta)
    local = np.zeros((4, 4, 3))
    local[:, :3, 0] = np.linspace(0.3, -0.2, 12).reshape(4, 3)
    local[:, 3, 0] = 1.0
    local[:, :3, 1], local[:, :3, 2] = (0.0, 0.6, 0.8), (1.0, 0.0, 0.0)
    plan = ObjectivePlan.of(_TREE, tree, local, True, np.arange(_TREE.n_dofs))
    frames = world[tree.arrays[2]] @ local
    points, y = frames[:, :3, 0], frames[:, :3, 2]
    y = y / np.sqrt((y * y).sum(axis=1))[:, None]
    goal = np.zeros((12, 3))
    goal[:4] = points + np.array([[1.0, 2.0, -0.5], [0.1, 0.0, 0.2], [0.0, -0.3, 0.1]] * 2)[:4]
    weights = np.zeros(12)
    weights[[1, 3]] = 2.0, 0.5  # the positions'
    weights[[8, 10]] = 3.0, 1.5  # the aims', on the y axes
    faces = np.zeros((4, 4))
    faces[[0, 2], 3] = 3.0
    to = goal[:4] - points
    way = to / np.sqrt((to * to).sum(axis=1))[:, None]
    miss = way - y
    along = (way * miss).sum(axis=1)[:, None]
    aim = weights[8:12, None]
    forces = 2.0 * weights[:4, None] * (points - goal[:4])
    pulls = (-2.0 * aim / np.sqrt((to * to).sum(axis=1))[:, None]) * (miss - along * way)
    forces[[0, 2]] = pulls[[0, 2]]
    torques = np.zeros((4, 3))
    for e in (0, 2):
        torques[e] = _cross(y[e], -2.0 * aim[e] * miss[e])
    values = weights[:4] * ((points - goal[:4]) ** 2).sum(axis=1)
    values[[0, 2]] = (aim[:, 0] * (miss * miss).sum(axis=1))[[0, 2]]
    gradient = _numpy_gradient(
        below, _TREE.arrays[4], points, forces, torques, np.ones(4), axes, pivots
    )
    total, pose, have = kernel.objective(plan, theta, goal, weights, faces)
    size = max(1.0, float(np.abs(gradient).max()))
    if not (
        abs(total - float(values.sum())) <= TOLERANCE * max(1.0, float(values.sum()))
        and np.all(np.abs(pose[2] - y) <= TOLERANCE)
        and np.all(np.abs(have - gradient) <= TOLERANCE * size)
    ):
        return "its objective of aims differs from numpy's"
    return None


def _step_differs(kernel: Kernel, theta: FloatArray, below: FloatArray) -> str | None:
    """None when the kernel's Gauss–Newton step is numpy's.

    One position goal near its effector (the line search takes the unit step), every DOF
    a variable, no limit row.
    """
    parent, count = _TREE.arrays[0], _TREE.arrays[2]
    dof_segment = np.repeat(np.arange(_TREE.n_segments), count)
    rotation = _TREE.arrays[4]
    tree = GradientTree.of(parent, dof_segment, np.array([4]), rotation.astype(bool))
    local = np.zeros((1, 4, 3))
    local[0, :, 0] = (0.1, -0.2, 0.3, 1.0)
    local[0, :3, 1], local[0, :3, 2] = (1.0, 0.0, 0.0), (0.0, 1.0, 0.0)
    plan = ObjectivePlan.of(_TREE, tree, local, True, np.arange(_TREE.n_dofs))
    moves = np.ascontiguousarray(below[:, 1:2])  # part 1 of the check's parts: segment 4

    def numpy_value(phi: FloatArray) -> tuple[float, FloatArray, tuple[FloatArray, ...]]:
        """G, its gradient and the effector's point, the DOFs' axes and pivots."""
        world, axes, pivots = _numpy_frames(_TREE, phi)
        point = (world[4] @ local[0])[:3, 0]
        delta = point - goal
        gradient = _numpy_gradient(
            moves,
            rotation,
            point[None],
            2.0 * delta[None],
            np.zeros((1, 3)),
            weight,
            axes,
            pivots,
        )
        return float(weight[0] * delta @ delta), gradient, (point, axes, pivots)

    weight = np.array([1.5])
    world = _numpy_frames(_TREE, theta)[0]
    goal = (world[4] @ local[0])[:3, 0] + (0.002, -0.001, 0.0015)
    value, gradient, (point, axes, pivots) = numpy_value(theta)
    n = _TREE.n_dofs
    factor = _numpy_factor(moves, rotation, point[None], np.sqrt(2.0 * weight)[None], axes, pivots)
    damping = max(1e-7 * float((factor * factor).sum(axis=1).max()), value, 1e-12)
    metric = (
        np.eye(n) - factor @ np.linalg.solve(factor.T @ factor + damping * np.eye(3), factor.T)
    ) / damping
    want = theta - metric @ gradient
    descent = DescentPlan(plan, n)
    descent.bind(
        (
            goal[None],
            weight,
            moves,
            theta,
            np.ones(n),
            np.empty((0, n)),
            np.empty(0),
            np.empty((0, 4)),
        ),
        LimitRows(np.empty((0, n))).index(),
        1.0,
        (1e-7, 1.0),
    )
    started = kernel.gauss_newton_start(descent, theta, value, gradient, np.empty((3 + 16, n)))
    step = metric @ gradient
    if started.status is not StartStatus.STARTED or not _close(started.hg, step, gradient, damping):
        return "its Gauss–Newton start differs from numpy's"
    found = kernel.gauss_newton_search(
        descent, theta, value, gradient, started.hg, np.empty(0, dtype=bool)
    )
    size = float(np.abs(want).max())
    if (
        found.status is not SearchStatus.STEP_TAKEN
        or found.alpha != 1.0
        or not np.all(np.abs(found.point - want) <= TOLERANCE * size)
    ):
        return "its Gauss–Newton step differs from numpy's"
    if abs(found.value - numpy_value(want)[0]) > TOLERANCE * value:
        return "its Gauss–Newton step differs from numpy's"
    # the same step as the first of a descent that stops once it is taken
    ran = kernel.gauss_newton_descent(
        descent,
        theta,
        goal_value=found.value,
        tolerance=0.0,
        floor=(1e-7, 1e-6),
        drop=0.8,
        max_iterations=5,
        seconds=None,
    )
    if (
        ran.status is not DescentStatus.GOALS_MET
        or ran.iterations != 1
        or not np.array_equal(ran.point, found.point)
    ):
        return "its Gauss–Newton descent differs from its steps"
    return _held_start_differs(kernel, descent, theta, (value, gradient), factor)


def _held_start_differs(
    kernel: Kernel,
    descent: DescentPlan,
    theta: FloatArray,
    evaluated: tuple[float, FloatArray],
    factor: FloatArray,
) -> str | None:
    """None when the kernel's Gauss–Newton start with a bound on the first variable is numpy's.

    F's row there is zeroed and H g is zero there; ``evaluated`` is G and its gradient
    at ``theta``, ``factor`` F there (:func:`_step_differs`'s problem).
    """
    value, gradient = evaluated
    n = len(theta)
    descent.hold(np.array([0]), np.ones(1), theta[:1], np.empty(0, dtype=bool))
    held = factor.copy()
    held[0] = 0.0
    damping = max(1e-7 * float((held * held).sum(axis=1).max()), value, 1e-12)
    projector = np.eye(n)
    projector[0, 0] = 0.0
    metric = (
        projector - held @ np.linalg.solve(held.T @ held + damping * np.eye(3), held.T)
    ) / damping
    started = kernel.gauss_newton_start(descent, theta, value, gradient, np.empty((4 + 16, n)))
    want = metric @ gradient
    if (
        started.status is not StartStatus.STARTED
        or started.hg[0] != 0.0
        or not _close(started.hg, want, gradient, damping)
    ):
        return "its Gauss–Newton start on a bound differs from numpy's"
    return None


def _close(have: FloatArray, want: FloatArray, gradient: FloatArray, damping: float) -> bool:
    """Whether H g ``have`` is ``want`` to the check's tolerance of g/μ.

    H g is the difference of terms of the size of g/μ: rounding is relative to them.
    """
    size = float(np.abs(gradient).max()) / damping
    return bool(np.all(np.abs(have - want) <= TOLERANCE * size))


def _quaternions_differ(kernel: Kernel) -> str | None:
    """None when the kernel's quaternions of Euler turns are numpy's, in every order.

    Each rotation's matrix, the three turns' matrices multiplied, is the quaternion's.
    """
    angles = np.sin(np.arange(18, dtype=float)).reshape(6, 3) * 4.0
    axes = np.array([[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]])
    have = kernel.euler_quaternions(angles, axes)
    for turns, about, (w, x, y, z) in zip(angles, axes, have, strict=True):
        want = np.eye(3)
        for angle, axis in zip(turns, about, strict=True):
            turn = np.eye(3)
            i, j = [a for a in range(3) if a != axis]
            sign = 1.0 if (j - i) % 3 == 1 else -1.0  # i, j in the axis' right-handed order
            turn[[i, i, j, j], [i, j, i, j]] = [
                np.cos(angle),
                -sign * np.sin(angle),
                sign * np.sin(angle),
                np.cos(angle),
            ]
            want = turn @ want
        matrix = np.array(
            [
                [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
            ]
        )
        if not np.all(np.abs(matrix - want) <= TOLERANCE):
            return "its quaternions of Euler turns differ from numpy's"
    if not np.allclose((have * have).sum(axis=1), 1.0, rtol=0.0, atol=TOLERANCE):
        return "its quaternions of Euler turns differ from numpy's"
    return None


def _euler_differs(kernel: Kernel) -> str | None:
    """None when the kernel reads back the Euler angles its quaternions were made from.

    In every order, near the angles (which the nearest decomposition, whole turns added,
    then is), and with the quaternions' own matrices.
    """
    angles = np.sin(np.arange(18, dtype=float)).reshape(6, 3) * 4.0
    axes = np.array([[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]])
    quaternions = kernel.euler_quaternions(angles, axes)
    for turns, about, q in zip(angles, axes, quaternions, strict=True):
        first, middle, last = (int(a) for a in about)
        sign = 1.0 if (middle - first) % 3 == 1 else -1.0  # even: the middle axis follows
        near = np.zeros((1, 3))
        near[0, about] = turns
        order = (first, middle, last, sign)
        have, matrices, locked = kernel.quaternions_euler(q[None], order, near)
        w, x, y, z = q / np.sqrt(q @ q)
        matrix = np.array(
            [
                [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
            ]
        )
        if (
            locked[0]
            or not np.all(np.abs(have - near) <= TOLERANCE * 10.0)
            or not np.all(np.abs(matrices[0] - matrix) <= TOLERANCE)
        ):
            return "its Euler angles of quaternions differ from numpy's"
    return None


def _woodbury_differs(kernel: Kernel) -> str | None:
    """None when the kernel's factorisation of Woodbury's start is numpy's.

    With no active row, with two bounds and with an oblique basis of two rows.
    """
    n, k = 9, 3
    factor = np.cos(np.arange(n * k, dtype=float)).reshape(n, k) * (1.0, 0.1, 0.01)
    basis = np.linalg.qr(np.sin(np.arange(2 * n, dtype=float)).reshape(n, 2))[0]
    for rows, bounds in ((np.empty((n, 0)), None), (np.eye(n)[:, [2, 5]], [2, 5]), (basis, None)):
        q = rows.shape[1]
        projected = factor - rows @ (rows.T @ factor)
        damping = max(1e-7 * float((projected * projected).sum(axis=1).max()), 0.01, 1e-12)
        gram = projected.T @ projected + damping * np.eye(k)
        want = np.tril(np.linalg.inv(np.linalg.cholesky(gram)))
        buffer = np.zeros((q + k, n))
        buffer[:q] = rows.T
        held = None if bounds is None else np.array(bounds)
        got = kernel.woodbury_start(factor, buffer, q, held, 1e-7, 1.0, -0.01)
        if got is None or abs(got[0] - damping) > TOLERANCE * damping:
            return "its Woodbury start differs from numpy's"
        for expected, have in ((projected.T, buffer[q:]), (want, got[1])):
            if not np.all(np.abs(have - expected) <= TOLERANCE * float(np.abs(expected).max())):
                return "its Woodbury start differs from numpy's"
    return None


def self_check(kernel: Kernel) -> str | None:
    """None when ``kernel`` agrees with numpy; else what differed, in a few words."""
    for theta in (np.zeros(_TREE.n_dofs), np.linspace(-2.0, 2.5, _TREE.n_dofs)):
        wanted = _numpy_frames(_TREE, theta)
        got = kernel.frames(_TREE, theta)
        for name, want, have in zip(("frames", "axes", "pivots"), wanted, got, strict=True):
            if have.shape != want.shape or not np.all(np.abs(have - want) <= TOLERANCE):
                return f"its {name} differ from numpy's"
    world, axes, pivots = got
    moves = np.array([[1, 1, 0], [0, 1, 1], [1, 0, 1], [0, 0, 0], [1, 1, 0], [0, 1, 1.0]])
    rotation = _TREE.arrays[4]
    points = world[[2, 4, 1], :3, 3]
    force = world[[1, 2, 4], :3, 0] - 0.3
    # The gradient through the tree: DOF j moves the parts below its segment.
    parent, count = _TREE.arrays[0], _TREE.arrays[2]
    dof_segment = np.repeat(np.arange(_TREE.n_segments), count)
    part_segment = np.array([2, 4, 1, 3])
    below = np.zeros((_TREE.n_dofs, 4))
    for j, segment in enumerate(dof_segment):
        for e, k in enumerate(part_segment):
            while k >= 0 and k != segment:
                k = parent[k]
            below[j, e] = float(k == segment)
    tree = GradientTree.of(parent, dof_segment, part_segment, rotation.astype(bool))
    parts = world[part_segment, :3, 3]
    weights = np.array([0.5, 2.0, 1.0, 0.7])
    for torque in (world[[4, 1, 2, 3], :3, 1], None):
        moment = np.zeros((4, 3)) if torque is None else torque
        want = _numpy_gradient(below, rotation, parts, parts - 0.3, moment, weights, axes, pivots)
        have = kernel.gradient_tree(tree, parts, parts - 0.3, torque, weights, axes, pivots)
        if have.shape != want.shape or not np.all(np.abs(have - want) <= TOLERANCE):
            return "its gradient over the tree differs from numpy's"

    problem = (
        _objective_differs(kernel, tree, theta, below, weights)
        or _leaf_objective_differs(kernel, tree, theta, below)
        or _aim_objective_differs(kernel, tree, theta, below)
        or _woodbury_differs(kernel)
        or _quaternions_differ(kernel)
        or _euler_differs(kernel)
        or _step_differs(kernel, theta, below)
    )
    if problem is not None:
        return problem

    # The Hessian product: variable b moves variable j's frame when it lies above j's
    # segment, or on it before j.
    def lies_above(segment: int, k: int) -> bool:
        while k >= 0 and k != segment:
            k = parent[k]
        return bool(k == segment)

    above = np.array(
        [
            [
                b < j
                if dof_segment[b] == dof_segment[j]
                else lies_above(dof_segment[b], dof_segment[j])
                for j in range(_TREE.n_dofs)
            ]
            for b in range(_TREE.n_dofs)
        ],
        dtype=float,
    )
    frame = world[part_segment, :3]
    state = (parts, frame[:, :, 0], frame[:, :, 1], parts - 0.3, frame[:, :, 2], parts + 0.1)
    rows = np.linspace(-1.0, 1.0, 36).reshape(4, 9)
    hessians = rows[:, :, None] * rows[:, None, :] + np.eye(9)
    direction = np.linspace(0.7, -1.3, _TREE.n_dofs)
    want = _numpy_hessian(below, above, rotation, state, weights, hessians, axes, pivots, direction)
    product = kernel.hessian_tree(tree, *state, weights, hessians, axes, pivots)
    have = product(direction)
    size = max(1.0, float(np.max(np.abs(want))))
    if have.shape != want.shape or not np.all(np.abs(have - want) <= TOLERANCE * size):
        return "its Hessian product over the tree differs from numpy's"
    problem = _newton_differs(
        product,
        lambda v: _numpy_hessian(below, above, rotation, state, weights, hessians, axes, pivots, v),
    )
    if problem is not None:
        return problem
    vectors = np.concatenate([points, force, world[[4, 1, 2], :3, 1]])
    weights = np.array([[1.0, 0.5, 2.0], [0.3, 0.0, 1.5], [0.7, 1.0, 0.2]])
    for blocks in (1, 3):
        chosen, scale = vectors[: 3 * blocks], weights[:blocks]
        want = _numpy_factor(moves, rotation, chosen, scale, axes, pivots)
        have = kernel.factor(moves, rotation, chosen, scale, axes, pivots)
        if have.shape != want.shape or not np.all(np.abs(have - want) <= TOLERANCE):
            return "its Gauss–Newton factor differs from numpy's"
    return None
