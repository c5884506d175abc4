"""The one solve step every pose-changing operator runs, and the one start-pose policy.

Solve, a drag event, a live update and a baked frame all do the same thing: build the
problem of the armature's constraints (or refresh the goals that moved), read the pose,
choose where the solve starts, solve, write the chains' bones, measure the result on
Blender's evaluated pose, record it for the sidebar and key what moved. :class:`Poser`
does that once per armature and keeps what the next step reuses (the problem, the pose
writer, the last solution); each caller keeps only its own timing, keys and interface.
"""

from __future__ import annotations

import enum
import math
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ...solver.limits import FEASIBLE, clamp_to_limits, outside_limits
from ..errors import BlenderDataError
from ..renames import writing
from . import goals, solving
from .arrays import Array
from .comfort import comfort_of
from .goals import Setup
from .keys import auto_key
from .kinds import figure_rig
from .pose import PoseWriter, changed_bones, settle
from .rig import Rig
from .rig_kind import FigureWriter


class Start(enum.Enum):
    """Where a solve starts.

    Attributes:
        POSE: The pose as Blender holds it (Solve, a live update): it must keep the
            limits the solve holds, or be clamped into them on request.
        WARM: The chains' bones at the previous solution, every other bone as Blender
            holds it (a baked frame, the next frame in live mode): the figure moves on
            from where it was; the pose as it is when that breaks a limit.
        FOLLOW: The previous solution itself, not read again (a drag event: nothing but
            the drag moves the bones between events).
    """

    POSE = "pose"
    WARM = "warm"
    FOLLOW = "follow"


@dataclass(frozen=True)
class Step:
    """What one solve step did.

    Attributes:
        setup: The problem solved.
        read: The pose as read before the solve (the previous solution for ``FOLLOW``).
        start: The pose the solve started from.
        clamped: The start had to be clamped into the limits.
        outcome: The solve's outcome; judged on Blender's pose unless the step was asked
            not to (then :meth:`Poser.judge` does it later).
        written: Whether the pose was written.
        milliseconds: Wall time of the whole step.
        channels: For a step asked not to write, the channels writing it would give the
            pose bones (:meth:`.pose.PoseWriter.planned`); else None.
        known: :attr:`moved`, where the step needed it already.
    """

    setup: Setup
    read: Array
    start: Array
    clamped: bool
    outcome: solving.Outcome
    written: bool
    milliseconds: float
    channels: dict[str, NDArray[np.float32]] | None = None
    known: list[str] | None = None

    @cached_property
    def moved(self) -> list[str]:
        """The bones whose joint values the solve changed from ``read``.

        Found when first asked (a drag's events never ask), unless the step needed them.
        """
        if self.known is not None:
            return self.known
        return changed_bones(self.setup.rig, self.read, self.outcome.result.theta)


class Poser:
    """The solve step of one armature, with what one step leaves the next.

    Args:
        obj: The armature object.
        scene: The scene its goals must be in and whose frame keys go on.
        view_layer: The view layer updated before a step is judged on Blender's pose.

    Attributes:
        setup: The last problem built (None before the first step).
        theta: The last solution, the warm start of the next step (None before any).
        placed: The goal the steps read from its own channels (:meth:`placing`), or None.
    """

    def __init__(self, obj: Any, scene: Any, view_layer: Any) -> None:
        self.obj = obj
        self.scene = scene
        self.view_layer = view_layer
        self.setup: Setup | None = None
        self.theta: Array | None = None
        self.held: tuple[str, ...] = ()
        self.placed: goals.Placed | None = None
        self.writer: FigureWriter | None = None
        self.shown: solving.Outcome | None = None  # the outcome the sidebar shows
        # the last solution and the limits it keeps, as its solve measured them
        self.kept: tuple[Array, Any] | None = None
        self.last_read: tuple[Any, Array] | None = None  # a rig's layout and its pose read

    def prepare(
        self,
        *,
        rebuild: bool = False,
        hold: Sequence[str] = (),
        moved: Sequence[Any] | None = None,
    ) -> Setup:
        """The problem of the armature's enabled constraints as they are now.

        Built afresh on the first call, when ``rebuild`` is asked, or when bones are held
        now or were held last time (a held bone is fixed in the figure); otherwise the
        last problem with the goals that moved (:func:`.goals.refresh_goals`, which
        builds again when the armature itself changed); ``moved``: the object a drag
        moves (:func:`.goals.refresh_goals`).

        Raises:
            BlenderDataError: No enabled constraints, a missing goal or bone, NaN, ….
        """
        held = tuple(hold)
        if rebuild or self.setup is None or held or self.held:
            rig = figure_rig(self.obj, hold=held)
            setup = goals.build_problem(self.obj, self.scene, rig, self.placed)
        else:
            setup = goals.refresh_goals(self.obj, self.scene, self.setup, moved, self.placed)
        old = self.setup
        # A rig moved along with its armature object keeps its bones' layout, and the
        # writer, which knows the bones alone, with it.
        if old is None or setup.rig.layout is not old.rig.layout or setup.movable != old.movable:
            self.writer = None
        if old is not None and setup.rig.figure.n_dofs != old.rig.figure.n_dofs:
            self.theta = None
        self.setup, self.held = setup, held
        return setup

    @contextmanager
    def placing(self, goal: Any) -> Iterator[None]:
        """Read ``goal``'s world matrix from its own channels in the steps of this block.

        For a goal nothing else moves (:func:`.goals.moves_alone`): a drag event that
        just moved it solves without evaluating the view layer first
        (:class:`.goals.Placed`).
        """
        self.placed = goals.Placed.of(goal)
        try:
            yield
        finally:
            self.placed = None

    def read(self, rig: Rig) -> Array:
        """The pose as Blender holds it (:func:`read_figure`)."""
        return read_figure(self.obj, rig, self.theta)

    def begin(self) -> Array:
        """Build the problem and take the pose as it is as the last solution.

        For a run of ``FOLLOW`` steps (a drag): the pose is checked once, here.

        Raises:
            ReachError: Bad constraints, or a pose outside the limits the solve holds.
        """
        setup = self.prepare()
        self.theta, _ = self.start_pose(setup, self.read(setup.rig), Start.POSE)
        return self.theta

    def start_pose(
        self, setup: Setup, read: Array, start: Start, *, clamp: bool = False
    ) -> tuple[Array, bool]:
        """The pose a solve starts from, and whether it had to be clamped.

        The first of these that keeps the limits the solve holds
        (:attr:`solver.Problem.moving_limits`): the previous solution (``FOLLOW``), the
        chains at the previous solution (``WARM``), the pose as read (past a limit by
        single-precision rounding alone counts as on it). Else, with ``clamp``, that
        pose with the DOFs the solve moves clamped into the limits (a bone the solve
        never writes keeps its value, as Blender will pose it).

        Raises:
            BlenderDataError: None keeps the limits and ``clamp`` is off: the message
                names the limit and the way out.
        """
        kept = self.kept
        if (
            start is Start.FOLLOW
            and kept is not None
            and kept[0] is self.theta
            and kept[0] is read
            and kept[1] is setup.problem.moving_limits
        ):
            return kept[0], False  # the last solution, which its solve found within them
        pose = settle(setup.rig, read)
        candidates = []
        if self.theta is not None and start is not Start.POSE:
            if start is Start.FOLLOW:
                candidates.append(self.theta)
            else:
                warm = pose.copy()
                chains = setup.problem.variable_mask
                warm[chains] = self.theta[chains]
                candidates.append(warm)
        candidates.append(pose)
        limits = setup.problem.moving_limits
        for candidate in candidates:
            if outside_limits(limits, candidate) is None:
                return candidate, False
        if clamp:
            return clamp_moving(setup, pose), True
        raise start_error(setup, pose)

    def step(
        self,
        start: Start,
        *,
        time_limit: float | None,
        restarts: int = 0,
        clamp: bool = False,
        rebuild: bool = False,
        hold: Sequence[str] = (),
        keep: bool = False,
        judge: bool = True,
        stats: bool = True,
        key: bool = False,
        write: bool = True,
        moved: Sequence[Any] | None = None,
        reread: bool = True,
    ) -> Step:
        """Solve the armature's constraints once and write the pose.

        Args:
            start: Where the solve starts (:class:`Start`).
            time_limit: Seconds the solve may take, or None.
            restarts: Seeded restarts when a descent stalls (0: warm, interactive use).
            clamp: A start outside the limits is clamped into them instead of refused.
            rebuild: Build the problem afresh (see :meth:`prepare`).
            hold: Bones held where they are during this solve (moved by hand).
            keep: Write only if the solve moves a bone (a pose just loaded stays bit for
                bit); comfort is left out then.
            judge: Update the view layer and measure on Blender's evaluated pose now;
                False leaves it to :meth:`judge` (inside a depsgraph handler, where
                Blender evaluates what was written after the handler returns).
            stats: Record the outcome on the armature for the sidebar.
            key: With auto-keying on, key the bones that moved at the current frame.
            write: False writes nothing and leaves Blender's pose as it is: the step
                gives the channels a write would set instead (a plain rig only; judge,
                stats and key must be off then).
            moved: The object a drag moves, or None (see :meth:`prepare`).
            reread: False where nothing but Reach has posed the bones since the last
                step read them (a bake's later frames on an armature nothing else
                animates): that reading stands for the pose, not read again.

        Raises:
            ReachError: Bad input (a deleted goal, a start outside the limits, …); nothing
                is written then.
        """
        began = time.perf_counter()
        setup = self.prepare(rebuild=rebuild, hold=hold, moved=moved)
        follow = start is Start.FOLLOW and self.theta is not None
        last = self.last_read
        if follow and self.theta is not None:
            read = self.theta
        elif not reread and last is not None and last[0] is setup.rig.layout:
            read = last[1].copy()
        else:
            read = self.read(setup.rig)
            self.last_read = (setup.rig.layout, read.copy())
        theta, clamped = self.start_pose(setup, read, start, clamp=clamp)
        # A pose that only needs checking (just loaded) is not relaxed by comfort either.
        comfort = None if keep else comfort_of(self.obj, setup.rig)
        outcome = solving.run_solve(
            setup, theta, self.obj.reach, time_limit=time_limit, restarts=restarts, comfort=comfort
        )
        solution = outcome.result.theta
        within = outcome.result.max_violation <= FEASIBLE
        self.kept = (solution, setup.problem.moving_limits) if within else None
        # the bones moved, where this step needs them (else the caller may ask, Step.moved)
        moved = changed_bones(setup.rig, read, solution) if keep or key else None
        if not write:
            if judge or key or stats or not setup.rig.kind.direct:
                raise ValueError("Poser.step(write=False): a plain rig, no judge, stats or keys")
            writer = self._writer(setup)
            assert isinstance(writer, PoseWriter)  # a plain rig's
            self.theta = solution
            channels = writer.planned(self.obj.pose.bones, solution)
            milliseconds = 1000.0 * (time.perf_counter() - began)
            return Step(setup, read, theta, clamped, outcome, False, milliseconds, channels, moved)
        written = bool(moved) or not keep
        with writing():  # the evaluations below rename no bone
            if written:
                # a control rig's writer evaluates between passes, if it can
                self._writer(setup).write(self.obj, solution, self.view_layer)
            if judge:
                self.view_layer.update()
        self.theta = solution
        if judge:
            outcome = solving.judge(self.obj, setup, outcome, self.obj.reach)
        milliseconds = 1000.0 * (time.perf_counter() - began)
        if stats:
            solving.store_stats(self.obj, outcome, milliseconds)
            self.shown = outcome
        if key:
            assert moved is not None  # found above
            auto_key(self.scene, self.obj, setup.rig, moved, self.scene.frame_current)
        return Step(setup, read, theta, clamped, outcome, written, milliseconds, known=moved)

    def _writer(self, setup: Setup) -> FigureWriter:
        """The writer of the problem's movable bones (made on first use)."""
        if self.writer is None:
            self.writer = setup.rig.kind.writer(self.obj, setup.rig, setup.movable)
        return self.writer

    def judge(self, step: Step) -> solving.Outcome:
        """Measure a step taken with ``judge=False`` on Blender's evaluated pose.

        The sidebar is updated when Blender's pose says otherwise than Reach's model.
        """
        judged = solving.judge(self.obj, step.setup, step.outcome, self.obj.reach)
        if judged is not self.shown:
            solving.store_stats(self.obj, judged, step.milliseconds)
            self.shown = judged
        return judged

    def refine(self, view_layer: Any) -> None:
        """Place a control rig's controls again toward the last solution.

        After a step written inside a depsgraph handler (no view layer to evaluate the
        rig between passes), once Blender has evaluated it: the passes its mechanism
        needs, evaluated through ``view_layer`` (:func:`.control_rig.writing.refine_model`);
        a plain rig's writer has nothing to place again.
        """
        if self.writer is not None and self.theta is not None:
            with writing():
                self.writer.refine(self.obj, self.theta, view_layer)


def start_error(setup: Setup, theta: Array) -> BlenderDataError:
    """The error of a start pose outside the limits a solve holds, naming the limit.

    Only the limits of the bones the solve may move count (``Problem.moving_limits``):
    a bone in no chain, posed outside its limits, stops nothing. A joint's bound is said
    in degrees, as the sidebar shows it; a polygon or group by its label.
    """
    figure = setup.rig.figure
    violated = outside_limits(setup.problem.moving_limits, theta)
    label, amount = violated if violated is not None else ("no limit", 0.0)
    excess = np.full(figure.n_dofs, -np.inf)
    moving = setup.problem.variables
    excess[moving] = np.maximum(figure.lower - theta, theta - figure.upper)[moving]
    index = int(np.argmax(excess))
    if excess[index] >= amount:
        name = figure.dofs[index].name or figure.dof_label(index)
        below = theta[index] < figure.lower[index]
        bound = figure.lower[index] if below else figure.upper[index]
        what = f"{name} is {math.degrees(theta[index]):.2f}°, limit {math.degrees(bound):.2f}°"
    else:
        what = f"{label} is violated by {amount:.4g}"
    return BlenderDataError(
        f"the current pose is outside the limits: {what}; "
        "clamp the pose to the limits first (Clamp to limits)"
    )


def clamp_moving(setup: Setup, theta: Array) -> Array:
    """``theta`` with the DOFs a solve may move brought into the limits it holds."""
    figure = setup.rig.figure
    return clamp_to_limits(
        theta,
        setup.problem.moving_limits,
        figure.lower,
        figure.upper,
        free=setup.problem.variable_mask,
    )


def clamp_pose(obj: Any, rig: Rig, view_layer: Any) -> list[str]:
    """Move the armature's pose into its limits (nearest pose inside them).

    Returns:
        The bones that moved (only these are written; a control rig's controls).
    """
    figure = rig.figure
    theta = settle(rig, read_figure(obj, rig))
    clamped = clamp_to_limits(theta, figure.limits, figure.lower, figure.upper)
    changed = changed_bones(rig, theta, clamped, threshold=0.0)
    if changed:
        rig.kind.writer(obj, rig, changed).write(obj, clamped, view_layer)
    return rig.kind.written(changed)


def read_figure(obj: Any, rig: Rig, previous: Array | None = None) -> Array:
    """θ of the figure as Blender holds it, read as the rig's kind reads it.

    The bones' channels, unrounded (:meth:`.plain_rig.PlainRig.read`), or a control rig's
    skeleton as Blender evaluates it (:meth:`.control_rig.kind.ControlRig.read`).
    """
    return rig.kind.read(obj, rig, previous)
