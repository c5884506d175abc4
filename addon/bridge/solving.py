"""One solve, and what it achieved in the user's terms.

The solver is Zhao & Badler's (1994): :func:`run_solve` names the constraints it could
not meet and why; :func:`judge` measures the outcome on Blender's evaluated pose;
:func:`store_stats` keeps it on the armature for the sidebar. The step around them
(problem, start pose, write, keys) is :class:`.posing.Poser`'s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ...solver import Comfort, SolveResult, solve
from ...solver import Outcome as SolverOutcome
from ..errors import labelled
from . import evaluated
from .arrays import Array
from .goals import Setup
from .methods import method_of
from .rig import Rig

PRECISION = 1e-7
"""A solve ends once every goal is met to this fraction of its chain's length
(:meth:`solver.Problem.goal_tolerance`): Blender keeps the pose channels in single
precision, whose rounding (up to about 1e-7 of a rotation) moves an effector as far,
so a closer pose would not show."""


@dataclass(frozen=True)
class Outcome:
    """What one solve did, in the user's terms.

    Attributes:
        result: The solver's result.
        residuals: Per enabled constraint, √P: the distance (world units) still to go
            for positional goals, the orientation error expressed as a length for others.
        unmet: Names of constraints whose residual is above ``reach_distance``; an Any-of
            set counts as one (:func:`unmet_constraints`).
        milliseconds: Wall time of the solve alone.
        margins: Per enabled constraint, how far its target lies inside (+) or beyond
            (−) everything its chain can reach (+inf for goals with no target point); for
            a member of an Any-of set, the set's: its members' largest. Empty when every
            constraint is met (nothing to prove out of reach).
        reasons: Per unmet constraint, why, in words: "out of reach by 12 cm" only when
            proved, else how far off it is and what holds it.
        message: The headline: met, not reachable (proved), a local minimum, or
            stopped early.
        diverging: After :func:`judge`: the bones whose pose Blender evaluates otherwise
            than Reach wrote it, and why (then ``residuals`` and ``unmet`` are Blender's).
        modelled: After :func:`judge` took Blender's residuals: the solve's own, on
            Reach's model (a later judge of the same solve compares with those); None:
            ``residuals`` are the solve's.
    """

    result: SolveResult
    residuals: dict[str, float]
    unmet: list[str]
    milliseconds: float
    margins: dict[str, float]
    reasons: dict[str, str]
    message: str
    diverging: dict[str, str] = field(default_factory=dict)
    modelled: dict[str, float] | None = None

    @property
    def out_of_reach(self) -> float:
        """How far the farthest goal proved out of reach lies beyond its chain (0: none)."""
        return max((-m for m in self.margins.values() if m < 0.0), default=0.0)


def length_text(value: float) -> str:
    """A length in metres, in words: "12 cm", "1.5 m", "0.4 mm"."""
    size = abs(value)
    if size >= 1.0:
        return f"{value:.3g} m"
    if size >= 0.01:
        return f"{100.0 * value:.3g} cm"
    return f"{1000.0 * value:.3g} mm"


def run_solve(
    setup: Setup,
    theta0: Array,
    settings: Any,
    *,
    time_limit: float | None,
    restarts: int,
    comfort: Comfort | None = None,
) -> Outcome:
    """Solve, and say which constraints are not met and why.

    Args:
        setup: The problem.
        theta0: Start pose, shape (n_dofs,).
        settings: The armature's Reach settings (``Object.reach``): its tolerance,
            "met within" distance and method (with its options).
        time_limit: Seconds the solve may take, or None.
        restarts: Seeded restarts when a descent stalls (0 for drags).
        comfort: The aim below every goal (:func:`.comfort.comfort_of`), or None.

    Raises:
        BlenderDataError: A start pose outside the limits or other bad input.
    """
    problem = setup.problem.with_comfort(comfort)  # solved, then measured at its kept pose
    with labelled(""):
        result = solve(
            problem,
            theta0,
            time_limit=time_limit,
            tolerance=settings.tolerance,
            goal_tolerance=setup.problem.goal_tolerance(PRECISION),
            restarts=restarts,
            method=method_of(settings.method),
        )
    values = problem.potentials(result.theta)
    residuals = {
        name: math.sqrt(max(float(v), 0.0)) for name, v in zip(setup.names, values, strict=True)
    }
    unmet = unmet_constraints(setup, residuals, settings.reach_distance)
    margins: dict[str, float] = {}
    if unmet:  # the proofs of "out of reach" matter only for goals not met
        margins = dict(
            zip(setup.names, problem.leaf_reach_margins(result.theta).tolist(), strict=True)
        )
        for members in setup.sets.values():  # a set is out of reach only if every member is
            best = max(margins[m] for m in members)
            margins.update(dict.fromkeys(members, best))
    held = held_limits(setup.rig, result) if unmet else []
    reasons = {
        name: _reason(result, residuals[name], margins[name], held) + _of_set(setup, name)
        for name in unmet
    }
    message = _headline(result, unmet, reasons, margins)
    return Outcome(result, residuals, unmet, 1000.0 * result.elapsed, margins, reasons, message)


def unmet_constraints(setup: Setup, residuals: dict[str, float], within: float) -> list[str]:
    """The constraints not met within ``within``, an Any-of set counting as one.

    A set is met when one of its members is; when none is, its nearest member stands
    for it.
    """
    unmet = {name for name, r in residuals.items() if not r <= within}  # NaN: not met
    for members in setup.sets.values():
        nearest = min(members, key=residuals.__getitem__)
        unmet.difference_update(members)
        if not residuals[nearest] <= within:
            unmet.add(nearest)
    return [name for name in residuals if name in unmet]


def _of_set(setup: Setup, name: str) -> str:
    """The words after the reason of a member standing for its Any-of set ("" if none)."""
    for set_name, members in setup.sets.items():
        if name in members and len(members) > 1:
            return f", the nearest of Any of '{set_name}'"
    return ""


def _reason(result: SolveResult, residual: float, margin: float, held: list[str]) -> str:
    """Why one constraint is not met."""
    if margin < 0.0:
        return f"out of reach by {length_text(-margin)}"
    off = f"{length_text(residual)} off"
    if result.outcome is SolverOutcome.UNFINISHED:
        return f"{off}, stopped early"
    if held:
        return f"{off}, held by {', '.join(held[:3])}" + (" …" if len(held) > 3 else "")
    return off


def held_limits(rig: Rig, result: SolveResult) -> list[str]:
    """The limits holding the pose (``result.held_by``) as the sidebar names them.

    A joint's bound reads "forearm.L rotation X ≤ 0°"; a polygon edge (even one along
    an axis, over a single DOF) or a group keeps the solver's label.
    """
    figure = rig.figure
    limits = figure.limits
    labels = list(limits.in_labels)
    texts = []
    for label in result.held_by:
        k = labels.index(label)
        row = limits.a_in[k]
        (entries,) = np.nonzero(row)
        index = int(entries[0])
        above = row[index] > 0.0
        bound = float(limits.b_in[k] / row[index])
        own = figure.lower[index] if above else figure.upper[index]
        if entries.size != 1 or bound != own:  # not the joint's own bound
            texts.append(label)
            continue
        rotation = bool(figure.kinematics.dof_rotation[index])
        value = f"{math.degrees(bound):.4g}°" if rotation else length_text(bound)
        name = figure.dofs[index].name or figure.dof_label(index)
        texts.append(f"{name} {'≥' if above else '≤'} {value}")
    return texts


def _headline(
    result: SolveResult, unmet: list[str], reasons: dict[str, str], margins: dict[str, float]
) -> str:
    """The one line the sidebar and the operator's report show."""
    if not unmet:
        return "all constraints met"
    listed = "; ".join(f"{name} {reasons[name]}" for name in unmet)
    if all(margins[name] < 0.0 for name in unmet):
        return f"not reachable: {listed}; the pose is as close as the figure allows"
    if result.outcome is SolverOutcome.UNFINISHED:
        return f"not met yet ({result.message}); solve again to go on: {listed}"
    if result.restarts > 0:
        return (
            f"not met: {listed}; no closer pose found from {result.restarts + 1} starts, "
            "but not proved out of reach"
        )
    return (
        f"not met: {listed}; a local minimum, not proved out of reach: "
        "a pose elsewhere may meet it (Solve tries other starts)"
    )


def judge(obj: Any, setup: Setup, outcome: Outcome, settings: Any, slack: float = 0.0) -> Outcome:
    """``outcome`` measured on Blender's evaluated pose, once the pose is written.

    "Met" is what the user sees: each goal measured on the evaluated bones. Where
    Blender poses a bone otherwise than Reach wrote it (a bone constraint, a driver,
    keyframes, Local Location…), the residuals and "not met" are Blender's, and the
    message names those bones, why, and the way out.

    Args:
        obj: The armature, its pose written and the view layer updated.
        setup: The problem solved.
        outcome: The solve's outcome on Reach's model.
        settings: The armature's Reach settings (its "met within" distance).
        slack: A distance (world units) the write left bones off by, knowingly (a drag's
            event, :attr:`.posing.Step.left`): a residual within it of Reach's agrees, and
            the residuals are Blender's, where that leaves the same goals met.
    """
    theta = outcome.result.theta
    model = outcome.residuals if outcome.modelled is None else outcome.modelled
    measured = evaluated.measure(obj, setup, theta, model, slack)
    if measured.agree and slack:
        residuals = measured.residuals
        if unmet_constraints(setup, residuals, settings.reach_distance) == outcome.unmet:
            return replace(outcome, residuals=residuals, modelled=model)
        measured = evaluated.measure(obj, setup, theta, model)
    if measured.agree:  # Blender's pose is Reach's, to rounding
        return (
            outcome
            if outcome.modelled is None
            else replace(outcome, residuals=model, modelled=None)
        )
    residuals = measured.residuals
    unmet = unmet_constraints(setup, residuals, settings.reach_distance)
    reasons = dict(outcome.reasons)
    for name in unmet:
        if name not in outcome.unmet:
            reasons[name] = f"{length_text(residuals[name])} off on Blender's pose"
            reasons[name] += _of_set(setup, name)
    if not measured.diverging and not unmet and not outcome.unmet:
        return replace(outcome, residuals=residuals, modelled=model)  # met on both, to rounding
    bones = "; ".join(f"{bone}: {why}" for bone, why in measured.diverging.items())
    where = f"Blender poses {len(measured.diverging)} bone(s) otherwise than Reach ({bones})"
    fix = setup.rig.kind.diverging_fix
    if measured.diverging and all(w.startswith("a driver") for w in measured.diverging.values()):
        fix = "remove or mute those drivers: a driver overrides what Reach writes"
    if not measured.diverging:  # the armature itself moved since the figure was made
        where = "Blender's pose is not where Reach's figure of the armature puts it"
        fix = "solve again"
    if unmet:
        listed = "; ".join(f"{name} {reasons[name]}" for name in unmet)
        message = f"not met on Blender's pose: {listed}. {where}: {fix}"
    else:
        message = f"{outcome.message}; {where}"
    return replace(
        outcome,
        residuals=residuals,
        modelled=model,
        unmet=unmet,
        reasons={name: reasons[name] for name in unmet},
        message=message,
        diverging=measured.diverging,
    )


def store_stats(obj: Any, outcome: Outcome, milliseconds: float) -> None:
    """Record a solve's statistics on the armature (shown in the sidebar)."""
    stats = obj.reach.stats
    result = outcome.result
    stats.status = result.status
    stats.outcome = result.outcome
    stats.objective = result.objective
    stats.residual = max(outcome.residuals.values(), default=0.0)
    stats.iterations = result.iterations
    stats.milliseconds = milliseconds
    stats.unmet = ", ".join(outcome.unmet)
    stats.reasons = "\n".join(f"{name}: {outcome.reasons[name]}" for name in outcome.unmet)
    stats.message = outcome.message
