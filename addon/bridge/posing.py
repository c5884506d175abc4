"""The one solve step every pose-changing operator runs, and the one start-pose policy.

Solve, a drag event, a live update and a baked frame all do the same thing: build the
problem of the armature's constraints (or refresh the goals that moved), read the pose,
choose where the solve starts, solve, write the chains' bones, measure the result on
Blender's evaluated pose, record it for the sidebar and key what moved. :class:`Poser`
does that once per armature and keeps what the next step reuses (the problem, the pose
writer, the last solution); each caller keeps only its own timing, keys and interface.
Each caller has its entry point (:meth:`Poser.solve`, :meth:`Poser.follow`,
:meth:`Poser.update`, :meth:`Poser.bake_frame`), which says what its step does; all four
run the same stages (:meth:`Poser._run`).
"""

from __future__ import annotations

import enum
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ...solver import Comfort, Figure, kernel
from ...solver.limits import FEASIBLE, LinearLimits, clamp_to_limits, outside_limits
from ..errors import BlenderDataError
from ..renames import writing
from . import goals, solving
from .arrays import Array, Mask
from .comfort import comfort_of, comfort_settings
from .goals import Setup
from .joints import locked_joint_dofs
from .keys import auto_key
from .kinds import figure_rig
from .pose import changed_bones, settle
from .rig import FigureWriter, Rig


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
            pose bones (:meth:`.rig.FigureWriter.planned`); None where it wrote.
        known: :attr:`moved`, where the step needed it already.
        left: The miss (world units) the write accepted where the rig's own mechanisms
            land a bone off (a drag's event; :meth:`Poser.place_exactly` places it);
            0 where none.
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
    left: float = 0.0

    @cached_property
    def moved(self) -> list[str]:
        """The bones whose joint values the solve changed from ``read``.

        Found when first asked (a drag's events never ask), unless the step needed them.
        """
        if self.known is not None:
            return self.known
        return changed_bones(self.setup.rig, self.read, self.outcome.result.theta)


CARRY = True
"""Whether a bake's frames carry the goals back to the figure where the armature moved as a
whole (:func:`.goals.refresh_goals`; off only to test that it changes nothing)."""


@dataclass(frozen=True)
class _Plan:
    """What one step does, as its entry point sets it.

    Only the entry points (:meth:`Poser.solve`, ``follow``, ``update``, ``bake_frame``)
    make plans, so no step mixes what cannot go together.

    Attributes:
        start: Where the solve starts.
        time_limit: Seconds the solve may take, or None.
        restarts: Seeded restarts when a descent stalls (0: warm, interactive use).
        clamp: A start outside the limits is clamped into them instead of refused.
        rebuild: Build the problem afresh (see :meth:`Poser.prepare`).
        hold: Bones held where they are during this solve (moved by hand).
        keep: Write only if the solve moves a bone; comfort is left out then.
        judge: Update the view layer and measure on Blender's evaluated pose now.
        stats: Record the outcome on the armature for the sidebar.
        key: With auto-keying on, key the bones that moved at the current frame.
        write: Write the pose; False gives the channels a write would set instead.
        moved: The objects that moved since the last step, or None: every goal is read.
        placed: The moved goal's matrix from its own channels (a drag), or None.
        steady: A drag's event: since the last step nothing but Reach's writes and a
            script moved the armature (:meth:`.rig.Rig.is_current`).
        reread: Read the pose from Blender, not from the last step's reading.
        loose: A drag's event: the write may leave a bone off where the rig's own
            mechanism lands it, within :data:`LOOSE` of the "met within" distance
            (:data:`.control_rig.placing.DRAG`), rather than evaluate the rig again.
        carry: A bake's frame: where the armature moved as a whole, the goals may be
            carried back to the figure instead (:func:`.goals.refresh_goals`).
    """

    start: Start
    time_limit: float | None
    restarts: int = 0
    clamp: bool = False
    rebuild: bool = False
    hold: tuple[str, ...] = ()
    keep: bool = False
    judge: bool = True
    stats: bool = True
    key: bool = False
    write: bool = True
    moved: Sequence[Any] | None = None
    placed: goals.Placed | None = None
    reread: bool = True
    steady: bool = False
    loose: bool = False
    carry: bool = False


PRIMING = 0.02
"""Seconds the solve :meth:`Poser.begin` makes to prepare the solver's parts may take (an
interactive event's budget): its result is not used."""

LOOSE = 0.5
"""A drag's event may leave a bone this share of the "met within" distance off where the
rig's own mechanism lands it (:attr:`_Plan.loose`): a goal met within it stays met."""


@dataclass(frozen=True)
class _Within:
    """The last solution, and the limits its solve found it within (to ``FEASIBLE``)."""

    theta: Array
    limits: Any


@dataclass(frozen=True)
class _Reading:
    """A pose read from Blender, and the rig layout (its bones) it was read for."""

    layout: Any
    theta: Array


@dataclass(frozen=True)
class _Comfort:
    """A comfort made (None: off), with the rig layout and settings it was made for."""

    layout: Any
    settings: tuple[object, ...]
    comfort: Comfort | None


@dataclass(frozen=True)
class Kept:
    """What a Poser built that another Poser of the same armature may start from.

    Attributes:
        setup: The problem, with the rig it was built on.
        comfort: The comfort made for that rig, or None (not made).
        writer: The writer of the problem's movable bones, or None (not made).
    """

    setup: Setup
    comfort: _Comfort | None
    writer: FigureWriter | None = None


class Poser:
    """The solve step of one armature, with what one step leaves the next.

    Args:
        obj: The armature object.
        scene: The scene its goals must be in and whose frame keys go on.
        view_layer: The view layer updated before a step is judged on Blender's pose.

    Attributes:
        setup: The last problem built (None before the first step).
        theta: The last solution, the warm start of the next step (None before any).
        held: The bones held in the last problem (fixed in its figure).
        writer: The writer of the last problem's movable bones (made on first use).
        shown: The outcome the sidebar shows.
        kept: The last solution with the limits its solve found it within, or None.
        last_read: The last pose read from Blender, with the rig layout it was read for.
        comfort: The last comfort made, with the rig layout and settings it was made for.
    """

    def __init__(self, obj: Any, scene: Any, view_layer: Any) -> None:
        self.obj = obj
        self.scene = scene
        self.view_layer = view_layer
        self.setup: Setup | None = None
        self.theta: Array | None = None
        self.held: tuple[str, ...] = ()
        self.writer: FigureWriter | None = None
        self.shown: solving.Outcome | None = None
        self.kept: _Within | None = None
        self.last_read: _Reading | None = None
        self.comfort: _Comfort | None = None

    def prepare(
        self,
        *,
        rebuild: bool = False,
        hold: Sequence[str] = (),
        moved: Sequence[Any] | None = None,
        placed: goals.Placed | None = None,
        steady: bool = False,
        carry: bool = False,
    ) -> Setup:
        """The problem of the armature's enabled constraints as they are now.

        Built afresh on the first call, when ``rebuild`` is asked, or when bones are held
        now or were held last time (a held bone is fixed in the figure); otherwise the
        last problem with the goals that moved (:func:`.goals.refresh_goals`, which
        builds again when the armature itself changed); ``moved``: the object a drag
        moves (:func:`.goals.refresh_goals`); ``placed``: that object's matrix read from
        its own channels, or None (:class:`.goals.Placed`); ``steady``: a drag's event,
        ``carry``: a bake's frame (:func:`.goals.refresh_goals`).

        Raises:
            BlenderDataError: No enabled constraints, a missing goal or bone, NaN, ….
        """
        held = tuple(hold)
        if rebuild or self.setup is None or held or self.held:
            rig = figure_rig(self.obj, hold=held)
            setup = goals.build_problem(self.obj, self.scene, rig, placed)
        else:
            setup = goals.refresh_goals(
                self.obj, self.scene, self.setup, moved, placed, steady=steady, carry=carry
            )
        old = self.setup
        # A rig moved along with its armature object keeps its bones' layout, and the
        # writer, which knows the bones alone, with it.
        if old is None or setup.rig.layout is not old.rig.layout or setup.movable != old.movable:
            self.writer = None
        elif setup.rig is not old.rig and self.writer is not None:
            self.writer = self.writer.on(setup.rig)  # the rig moved as a whole
        if old is not None and setup.rig.figure.n_dofs != old.rig.figure.n_dofs:
            self.theta = None
        self.setup, self.held = setup, held
        return setup

    def resume(self, kept: Kept) -> None:
        """Start from what another Poser of this armature built (:meth:`kept_build`).

        Its problem, comfort and writer; the problem is refreshed by the next step as any
        step's is (:meth:`prepare`); the caller vouches that nothing else it was built
        from changed since (:func:`.inputs.figure_inputs`).
        """
        self.setup, self.comfort, self.writer = kept.setup, kept.comfort, kept.writer

    def kept_build(self) -> Kept | None:
        """What this Poser built, for another to :meth:`resume` from (None: nothing built).

        A problem with bones held is not kept: it is built for that step alone.
        """
        if self.setup is None or self.held:
            return None
        writer = None if self.writer is None else self.writer.fresh()
        return Kept(self.setup, self.comfort, writer)

    def read(self, rig: Rig) -> Array:
        """The pose as Blender holds it (:func:`read_figure`)."""
        return read_figure(self.obj, rig, self.theta)

    def begin(self) -> Array:
        """Build the problem and take the pose as it is as the last solution.

        For a run of ``FOLLOW`` steps (a drag): the pose is checked once, here. The
        compiled kernel is loaded here too (once a Blender session, with its check on
        load: about 20 ms), and the comfort and the writer the steps share are made, so
        that a drag's first event does not wait for them. So are the solver's parts of
        the problem (its reach, the kernel's plans, the quick path's step), by a solve
        from the pose as it is within one event's time, its result not used: a control
        rig's first drag event took twice as long as the next ones.

        Raises:
            ReachError: Bad constraints, or a pose outside the limits the solve holds.
        """
        kernel.active()
        setup = self.prepare()
        self.theta, _ = self.start_pose(setup, self.read(setup.rig), Start.POSE)
        comfort = self._comfort_for(setup)
        self._writer(setup)
        solving.run_solve(
            setup, self.theta, self.obj.reach, time_limit=PRIMING, restarts=0, comfort=comfort
        )
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
        # The very array the last solve returned, for the very limits it held: identity
        # says the solve's own check stands, where comparing values would cost a check.
        if (
            start is Start.FOLLOW
            and kept is not None
            and kept.theta is self.theta
            and kept.theta is read
            and kept.limits is setup.problem.moving_limits
        ):
            return kept.theta, False  # the last solution, which its solve found within them
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

    def solve(self, *, restarts: int = 0, clamp: bool = False) -> Step:
        """The Solve operator's step: from the pose as it is, written, judged, shown, keyed.

        Args:
            restarts: Seeded restarts when a descent stalls.
            clamp: A pose outside the limits is clamped into them instead of refused.

        Raises:
            ReachError: Bad input (a deleted goal, a start outside the limits, …); nothing
                is written then.
        """
        return self._run(_Plan(Start.POSE, None, restarts=restarts, clamp=clamp, key=True))

    def follow(self, goal: Any, *, alone: bool, time_limit: float | None, rebuild: bool) -> Step:
        """A drag event's step: from the last solution, toward ``goal`` as just moved.

        Args:
            goal: The object the drag moved (only its goals are read again).
            alone: Only ``goal``'s own channels place it (:func:`.goals.moves_alone`): it
                is read from them, without evaluating the view layer first.
            time_limit: Seconds the solve may take.
            rebuild: Build the problem afresh (a constraint changed during the drag).

        Raises:
            ReachError: Bad input; nothing is written then.
        """
        placed = goals.Placed.of(goal) if alone else None
        return self._run(
            _Plan(
                Start.FOLLOW,
                time_limit,
                rebuild=rebuild,
                stats=False,
                moved=(goal,),
                placed=placed,
                steady=True,
                loose=True,
            )
        )

    def update(
        self,
        obj: Any,
        scene: Any,
        evaluator: Any | None,
        *,
        warm: bool,
        time_limit: float | None,
        rebuild: bool,
        hold: Sequence[str],
        keep: bool,
        key: bool,
    ) -> Step:
        """A live update's step, on the armature and scene of this update.

        Args:
            obj: The armature object (live mode finds it again at each update).
            scene: The scene the update came from.
            evaluator: A view layer or depsgraph that evaluates the writes now, and the
                step is judged now; None: Blender evaluates them after the handler, and
                :meth:`judge` measures the step later.
            warm: Start from the last solution's chains (the next frame of a playback).
            time_limit: Seconds the solve may take.
            rebuild: Build the problem afresh (what it is built from changed).
            hold: Bones held where they are (moved by hand since the last update).
            keep: Write only if the solve moves a bone, and leave comfort out (a pose
                just loaded stays bit for bit).
            key: With auto-keying on, key the bones that moved at the current frame.

        Raises:
            ReachError: Bad input; nothing is written then.
        """
        self.obj, self.scene, self.view_layer = obj, scene, evaluator
        plan = _Plan(
            Start.WARM if warm else Start.POSE,
            time_limit,
            rebuild=rebuild,
            hold=tuple(hold),
            keep=keep,
            judge=evaluator is not None,
            key=key,
        )
        try:
            return self._run(plan)
        finally:
            self.view_layer = None

    def bake_frame(self, *, first: bool, write: bool, reread: bool) -> Step:
        """A baked frame's step: from the previous frame's chains, clamped into the limits.

        Args:
            first: The bake's first frame (the goals are checked on it; later frames
                refresh none but the goals that move).
            write: Write the pose and judge it now; False writes nothing and gives the
                channels a write would set instead (:attr:`Step.channels`), unless only
                Blender's evaluation of a write shows them (a control rig's chain
                whose plane turns, a trunk joint that turns): then the step writes and
                judges.
            reread: False where nothing but Reach has posed the bones since the last
                frame read them: that reading stands for the pose, not read again.

        Raises:
            ReachError: Bad input (a deleted goal, …); nothing is written then.
        """
        plan = _Plan(
            Start.WARM,
            None,
            clamp=True,
            stats=False,
            judge=write,
            write=write,
            moved=None if first else (),
            reread=reread,
            carry=CARRY,
        )
        return self._run(plan)

    def _run(self, plan: _Plan) -> Step:
        """The stages every step runs: problem, read, start, solve, write, judge, record."""
        began = time.perf_counter()
        setup = self.prepare(
            rebuild=plan.rebuild,
            hold=plan.hold,
            moved=plan.moved,
            placed=plan.placed,
            steady=plan.steady,
            carry=plan.carry,
        )
        read = self._read_for(setup, plan)
        theta, clamped = self.start_pose(setup, read, plan.start, clamp=plan.clamp)
        outcome = self._solve(setup, theta, plan)
        solution = outcome.result.theta
        # the bones moved, where this step needs them (else the caller may ask, Step.moved)
        moved = changed_bones(setup.rig, read, solution) if plan.keep or plan.key else None
        if not plan.write:
            channels = self._writer(setup).planned(self.obj.pose.bones, solution)
            if channels is not None:
                self.theta = solution
                milliseconds = 1000.0 * (time.perf_counter() - began)
                return Step(
                    setup, read, theta, clamped, outcome, False, milliseconds, channels, moved
                )
            # the rig's write needs Blender's evaluation between passes: written and judged
            plan = replace(plan, write=True, judge=True)
        written = bool(moved) or not plan.keep
        settings = self.obj.reach
        within = LOOSE * settings.reach_distance if plan.loose else 0.0
        left = 0.0
        with writing():  # the evaluations below rename no bone
            if written:
                # a control rig's writer evaluates between passes, if it can
                left = self._writer(setup).write(self.obj, solution, self.view_layer, within)
            if plan.judge:
                self.view_layer.update()
        self.theta = solution
        if plan.judge:
            outcome = solving.judge(self.obj, setup, outcome, settings, slack=left)
        milliseconds = 1000.0 * (time.perf_counter() - began)
        if plan.stats:
            solving.store_stats(self.obj, outcome, milliseconds)
            self.shown = outcome
        if plan.key:
            assert moved is not None  # found above
            auto_key(self.scene, self.obj, setup.rig, moved, self.scene.frame_current)
        return Step(
            setup, read, theta, clamped, outcome, written, milliseconds, known=moved, left=left
        )

    def _read_for(self, setup: Setup, plan: _Plan) -> Array:
        """The pose a step reads: the last solution (a drag), the last reading, or Blender's."""
        last = self.last_read
        if plan.start is Start.FOLLOW and self.theta is not None:
            return self.theta
        # the same layout object: the rig was not built again since (a bake's frames)
        if not plan.reread and last is not None and last.layout is setup.rig.layout:
            return last.theta.copy()
        read = self.read(setup.rig)
        self.last_read = _Reading(setup.rig.layout, read.copy())
        return read

    def _solve(self, setup: Setup, theta: Array, plan: _Plan) -> solving.Outcome:
        """Solve from ``theta``; keep the solution as the next drag event's start."""
        # A pose that only needs checking (just loaded) is not relaxed by comfort either.
        comfort = None if plan.keep else self._comfort_for(setup)
        outcome = solving.run_solve(
            setup,
            theta,
            self.obj.reach,
            time_limit=plan.time_limit,
            restarts=plan.restarts,
            comfort=comfort,
        )
        within = outcome.result.max_violation <= FEASIBLE
        self.kept = _Within(outcome.result.theta, setup.problem.moving_limits) if within else None
        return outcome

    def _comfort_for(self, setup: Setup) -> Comfort | None:
        """The comfort of the armature's settings for the setup's rig.

        Made again only when the rig's layout or those settings changed, so a drag's
        events share one.
        """
        settings = comfort_settings(self.obj)
        last = self.comfort
        # the same layout object: the rig was not built again since, so its weights hold
        if last is not None and last.layout is setup.rig.layout and last.settings == settings:
            return last.comfort
        comfort = comfort_of(self.obj, setup.rig)
        self.comfort = _Comfort(setup.rig.layout, settings, comfort)
        return comfort

    def _writer(self, setup: Setup) -> FigureWriter:
        """The writer of the problem's movable bones (made on first use)."""
        if self.writer is None:
            self.writer = setup.rig.kind.writer(self.obj, setup.rig, setup.movable)
        return self.writer

    def judge(self, step: Step) -> solving.Outcome:
        """Measure a step not judged when taken on Blender's evaluated pose.

        A live update without an evaluator (:meth:`update`) leaves its step to this. The
        sidebar is updated when Blender's pose says otherwise than Reach's model.
        """
        judged = solving.judge(self.obj, step.setup, step.outcome, self.obj.reach)
        if judged is not self.shown:
            solving.store_stats(self.obj, judged, step.milliseconds)
            self.shown = judged
        return judged

    def place_exactly(self, step: Step) -> solving.Outcome:
        """``step``'s outcome with the bones its write left off placed as a Solve does.

        A drag's event may leave them off (:attr:`Step.left`); at the drag's end they are
        placed, and the pose judged on Blender's evaluation again: the pose a drag keeps
        is as exact as the rig allows.
        """
        if not step.left or self.view_layer is None:
            return step.outcome
        self.refine(self.view_layer)
        self.view_layer.update()
        return solving.judge(self.obj, step.setup, step.outcome, self.obj.reach)

    def place_again(self, step: Step) -> solving.Outcome:
        """A step planned unwritten, placed again from Blender's pose of its keys; judged.

        One pass from the motion's pose may leave a control rig's chain off where
        Blender's IK lands it; the passes its mechanism needs toward the step's solution
        are made, each evaluated through the view layer
        (:func:`.control_rig.writing.refine_model`), and the pose judged again. The
        writer is the step's own: a later frame's figure may have been built again.
        """
        setup = step.setup
        writer = setup.rig.kind.writer(self.obj, setup.rig, setup.movable)
        with writing():
            writer.refine(self.obj, step.outcome.result.theta, self.view_layer)
        self.view_layer.update()
        return solving.judge(self.obj, step.setup, step.outcome, self.obj.reach)

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
    a bone in no chain, posed outside its limits, stops nothing.
    """
    moving = setup.problem.variable_mask
    what = outside(setup.rig.figure, setup.problem.moving_limits, theta, moving)
    return BlenderDataError(
        f"the current pose is outside the limits: {what or 'no limit'}; "
        "clamp the pose to the limits first (Clamp to limits)"
    )


def outside(figure: Figure, limits: LinearLimits, theta: Array, moving: Mask | None = None) -> str:
    """The limit ``theta`` is furthest outside, named; "" when it keeps them all.

    A joint's bound is said in degrees, as the sidebar shows it; a polygon or group by its
    label. ``moving``: the DOFs whose bounds count (all by default).
    """
    violated = outside_limits(limits, theta)
    label, amount = violated if violated is not None else ("", 0.0)
    excess = np.maximum(figure.lower - theta, theta - figure.upper)
    if moving is not None:
        excess = np.where(moving, excess, -np.inf)
    index = int(np.argmax(excess)) if excess.size else -1
    if index >= 0 and FEASIBLE < excess[index] >= amount:
        name = figure.dofs[index].name or figure.dof_label(index)
        below = theta[index] < figure.lower[index]
        bound = figure.lower[index] if below else figure.upper[index]
        return f"{name} is {math.degrees(theta[index]):.2f}°, limit {math.degrees(bound):.2f}°"
    return f"{label} is violated by {amount:.4g}" if violated is not None else ""


def pose_outside(obj: Any) -> str:
    """The limit the armature's current pose is furthest outside, named; "" when inside.

    Single precision's rounding of the channels is no violation (:func:`.pose.settle`).
    """
    rig = figure_rig(obj)
    figure = rig.figure
    return outside(figure, figure.limits, settle(rig, read_figure(obj, rig)))


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

    A joint's locked own axes go back to zero, where its hinge holds them.

    Returns:
        The bones that moved (only these are written; a control rig's controls).
    """
    figure = rig.figure
    theta = settle(rig, read_figure(obj, rig))
    locked = theta.copy()
    locked[locked_joint_dofs(obj, [dof.name for dof in figure.dofs])] = 0.0
    clamped = clamp_to_limits(locked, figure.limits, figure.lower, figure.upper)
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
