"""Gradient descent on handles with the Jacobian transpose (Grimes & Pentney 2001; Welman 1993).

Each handle (constraint) pulls its effector like a spring: ``dq = −e · Σ_i W_i g_i``
with ``g_i = 2 A_iᵀ R_i`` the gradient of its weighted potential (``Jᵀ`` times the
spring's force, :mod:`.tasks`) and W_i the seed's "artificial independence": a weight
per joint falling off with the joint's distance in the tree from the handle's segment,
``falloff^d`` (d = 0 for the handle's own segment, 1 for its parent, …), or cut to 0
beyond ``cutoff`` segments, so that a hand's handle moves the arm and hardly the torso.

Limits: the pull slides along the limits it is on (gradient projection, Rosen 1960):
its parts along the equalities' normals, and along the normals of the inequality rows
on their bound that it would cross, are projected out (:func:`_along_limits`). The
step is then computed for the motion that happens, not for a pull that the limits
clip back; without it, a pull pressing joints into their limits (Zhao & Badler's
tube, a human's spine) takes ever smaller steps and the slope stop ends it far from
the goals (the tube at 0.24, now met to 1e-5).

Step size: the seed uses "an appropriately small constant e" (``step_size``). By
default e is the step to the minimum of the Gauss–Newton model along dq,
``e = −gᵀdq / (dqᵀ B dq)``, ``B = 2 Σ A_iᵀ A_i`` (Buss 2004's choice for the
transpose method), which needs no tuning per figure. Either way a step that would
raise G_all is halved (backtracking), and the point is clamped into the limits
(:func:`.projection.restore`), so iterates stay feasible and G_all never increases.

Stop (the seed's): when the slope of G_all over the last :data:`WINDOW` steps (a
least-squares line through them), relative to their mean, is above ``−slope``: the
curve has flattened, whatever the error's scale. The seed plots dq; G_all is used
because dq's length is flat both when converged and when crawling at a steady pace.
Or when G_all / w ≤ ``tolerance`` (the step methods' shared test): with the default
1e-10 that is about 1e-5 m per goal, so this method is a 1e-5 × limb method by
default; gradient descent converges linearly. A smaller ``tolerance`` meets most random
targets to 1e-6 × limb, at about a quarter more steps (``bench.solver.methods``).
"""

from __future__ import annotations

import numpy as np

from .._checks import FloatArray
from ..linalg import lstsq
from ..result import Descent, Status
from .budget import Budget, Reporter, finished
from .projection import MAX_TURN, restore
from .space import ReducedSpace
from .tasks import TaskModel

__all__ = ["FALLOFF", "SLOPE", "WINDOW", "descend_transpose", "tree_weights"]

WINDOW = 15
"""Steps the slope stop looks back over (the seed's 15)."""

SLOPE = 1e-4
"""Default threshold of the slope stop: relative decrease of G_all per step."""

FALLOFF = 0.9
"""Default factor per segment of tree distance."""

_HALVINGS = 30
_ON_BOUND = 1e-9
"""A limit row with at most this slack is on its bound."""


def tree_weights(model: TaskModel, falloff: float, cutoff: int | None) -> FloatArray:
    """W: per leaf and variable, ``falloff^d`` (0 beyond ``cutoff``), shape (m, n_v).

    d counts the segments from the leaf's effector segment up to the variable's.
    """
    problem, space = model.problem, model.space
    figure = problem.figure
    segment_of = np.empty(figure.n_dofs, np.intp)
    for k, segment in enumerate(figure.segments):
        segment_of[list(segment.dof_indices)] = k
    parents = problem.kinematics.segment_parent
    weights = np.zeros((len(problem.leaves), space.n))
    variable_segment = segment_of[space.variables]
    for i, effector in enumerate(problem.effector_segments):
        distance = np.full(figure.kinematics.n_segments, -1)
        k, d = int(effector), 0
        while k >= 0:
            distance[k] = d
            k, d = int(parents[k]), d + 1
        own = distance[variable_segment]
        factor = np.where(own >= 0, float(falloff) ** np.maximum(own, 0), 0.0)
        if cutoff is not None:
            factor = np.where(own > cutoff, 0.0, factor)
        weights[i] = factor
    return weights


def descend_transpose(
    model: TaskModel,
    weights: FloatArray,
    phi0: FloatArray,
    space: ReducedSpace,
    budget: Budget,
    *,
    scale: float,
    step_size: float | None,
    slope: float,
    callback: Reporter | None = None,
) -> Descent:
    """Jacobian-transpose steps from the feasible φ0.

    Args:
        model: The goals as tasks.
        weights: :func:`tree_weights`, shape (m, n_v).
        phi0: Feasible start, shape (n,).
        space: The variables' limits.
        budget: The stops.
        scale: G_all is divided by it (the smallest weight, as for every method).
        step_size: The seed's constant e, or None for the model's step.
        slope: Threshold of the slope stop.
        callback: Called at every iterate.

    Returns:
        The last iterate (the best); ``value`` is G_all / scale.
    """
    turning = model.problem.figure.kinematics.dof_rotation[space.variables]
    phi = phi0.copy()
    values, tasks = model.evaluate(phi)
    evaluations = 1
    value = float(model.coefficients(values) @ values) / scale
    history = [value]
    iterations = 0
    status, detail = Status.CONVERGED, ""
    gradient = np.zeros(space.n)
    while True:
        stop = budget.check(value, iterations)
        if stop is not None:
            status, detail = stop
            break
        if len(history) > WINDOW and _flat(history[-WINDOW:], slope):
            detail = f"the slope of the last {WINDOW} steps is below {slope:g}"
            break
        gradient = np.zeros(space.n)
        direction = np.zeros(space.n)
        curvature_rows = []
        for task in tasks:
            pull = 2.0 * (task.rows.T @ task.residual) / scale
            gradient += pull
            direction -= weights[task.leaf] * pull
            curvature_rows.append(task.rows)
        direction = _along_limits(phi, direction, space)
        slope_along = float(gradient @ direction)
        if slope_along >= 0.0 or not np.any(direction):
            detail = "no handle pulls downhill"
            break
        if step_size is None:
            rows = np.concatenate(curvature_rows) if curvature_rows else np.zeros((0, space.n))
            bend = 2.0 * float(np.sum((rows @ direction) ** 2)) / scale
            step = -slope_along / bend if bend > 0.0 else 1.0
        else:
            step = step_size
        turn = float(np.max(np.abs(space.scale[turning] * direction[turning]), initial=0.0))
        step = min(step, MAX_TURN / turn) if turn > 0.0 else step
        accepted = None
        for _ in range(_HALVINGS):
            trial = restore(phi + step * direction, space)
            if trial is not None:
                trial_values, trial_tasks = model.evaluate(trial)
                evaluations += 1
                trial_value = float(model.coefficients(trial_values) @ trial_values) / scale
                if trial_value <= value:
                    accepted = (trial, trial_values, trial_tasks, trial_value)
                    break
            step *= 0.5
        if accepted is None:
            status, detail = Status.STALLED, "no step along the handles' pull lowers G_all"
            break
        phi, values, tasks, value = accepted
        history.append(value)
        iterations += 1
        if callback is not None:
            callback(phi, value)
    return finished(phi, value, status, detail, (iterations, evaluations), gradient)


def _flat(values: list[float], slope: float) -> bool:
    """Whether a line fitted to ``values`` falls by less than ``slope`` × their mean per step."""
    steps = np.arange(len(values), dtype=np.float64)
    fitted = float(np.polyfit(steps, np.asarray(values), 1)[0])
    mean = float(np.mean(values))
    return -fitted <= slope * max(mean, 1e-300)


def _along_limits(phi: FloatArray, direction: FloatArray, space: ReducedSpace) -> FloatArray:
    """The pull with its parts into the limits it is on removed (gradient projection).

    The equalities' normals always, and the normals of the inequality rows on their
    bound that the pull would cross, are projected out, rows added until none is
    crossed: the step then slides along the limits instead of being clipped back onto
    them, and the step length is computed for the motion that happens.
    """
    slack = space.a_in @ phi - space.b_in if space.a_in.shape[0] else np.zeros(0)
    on_bound = slack <= _ON_BOUND
    held = np.zeros(slack.shape, bool)
    result = direction
    for _ in range(space.a_in.shape[0] + 1):
        rows = np.concatenate([space.a_eq, space.a_in[held]])
        if rows.shape[0]:
            result = direction - rows.T @ lstsq(rows.T, direction)
        crossing = on_bound & ~held & (space.a_in @ result < -1e-14) if slack.size else held
        if not np.any(crossing):
            break
        held |= crossing
    projected: FloatArray = result
    return projected
