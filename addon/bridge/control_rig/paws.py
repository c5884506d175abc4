"""A paw's heel control in IK mode, placed around the rig's own mechanism.

A paw's end control keeps the pose it had relative to the chain's last bone, which puts
the toe joint in place; a mechanism of the rig (a damped track, a second IK chain) then
turns the heel control's frame, so the heel control is written once Blender has
evaluated that, carrying the last bone onto its target. A drag's writes start the heel
from its last turns, and every IK end control from its last places relative to the
chain's last bone (:class:`Heels`), so that a second write is small or not needed.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from mathutils import Matrix, Quaternion, Vector

from .control_pose import ControlWriter, carried, rigid
from .limbs import Limb

LEAD = math.radians(5.0)
"""The most a heel's last turn is repeated ahead of an evaluation (a drag's step turns it
by a fraction of a degree; a bigger one is a jump, and the evaluation decides alone)."""


FIT = 5
"""Most of a heel's last writes its next one is led from."""


_Rate = tuple[Vector, Vector, float]
"""A turn's move of a heel's channels per radian: location, spin (a rotation vector), log
of growth."""


class Heels:
    """What a paw's heel was given over its last few writes, to lead the next one.

    A drag turns the rig's mechanism above a heel (a damped track, a second IK chain)
    smoothly from event to event, so the heel's last turn, repeated with its change
    from the turn before, meets most of the next one before Blender evaluates the end
    control's move: the heel is then placed already, or its write after that evaluation
    is small, Blender's IK lands as it did, and one pass does. Another IK end control
    needs no lead: placed by its pose in the frame of the chain's last bone as Blender
    evaluated it last, it lands within a drag's tolerance (:data:`.placing.DRAG`).
    A paw's end control is held to the chain's last bone as the last write that placed
    the limb exactly found it (:meth:`held`).
    """

    def __init__(self) -> None:
        self.bases: dict[str, tuple[Matrix, ...]] = {}
        self.holds: dict[str, Matrix] = {}
        """Per paw's end control, :func:`hold` as the last write that placed its limb to
        :data:`.placing.TOLERANCE` left it."""
        self.turns: dict[str, tuple[float, tuple[_Rate, ...]]] = {}
        """Per paw's heel control, how the last turns of its chain's plane moved the heel's
        channels that place the limb: the last turn's angle, then per turn (the last two)
        the move, the spin (as a rotation vector) and the log of the growth, each per
        radian of the turn (:meth:`carry`, :meth:`turned`)."""
        self.floors: dict[tuple[str, ...], float] = {}
        """Per set of chains beyond the trunk, the miss a further pass left as it was
        (:func:`.heads.place_ends`)."""

    def record(self, name: str, basis: Matrix) -> None:
        """Remember that ``name`` was given the channel matrix ``basis``."""
        self.bases[name] = (*self.bases.get(name, ())[1 - FIT :], basis.copy())

    def note(
        self, obj: Any, limbs: Iterable[Limb], heels: Mapping[str, Matrix] | None = None
    ) -> None:
        """Record what each paw in IK mode among ``limbs`` gave its heel control.

        ``heels``' channels where it has the heel (those that would have placed the limb,
        had the write not left it a little off), else the heel's channels now.
        """
        bones = obj.pose.bones
        for limb in limbs:
            if in_ik(limb):
                heel = limb.ik_controls[-1]
                self.record(heel, (heels or {}).get(heel, bones[heel].matrix_basis))

    def carry(
        self, limb: Limb, before: Matrix | None, after: Matrix | None, angle: float = 0.0
    ) -> None:
        """Carry ``limb``'s heel's history as its chain's plane was turned by ``angle``.

        ``before`` and ``after``: the heel's channels that place the limb, before the turn
        and after it. Where a second IK chain turns the heel's frame with the leg's plane,
        a turn of the plane moves the heel once; its earlier writes, moved alike, lead the
        next write from the plane as it is now, without repeating that move (which turned
        the plane back past where it was). Either unknown: the history is dropped.
        The move is kept for the next turn's heel (:meth:`turned`).
        """
        if not in_ik(limb):
            return
        heel = limb.ik_controls[-1]
        if before is None or after is None:
            self.bases.pop(heel, None)
            self.turns.pop(heel, None)
            return
        (was, turned, scaled), (now, turn, scale) = before.decompose(), after.decompose()
        move, spin, growth = now - was, turn @ turned.inverted(), _size(scale) / _size(scaled)
        if angle:
            axis, turned_by = _shortest(spin).to_axis_angle()
            rate = move / angle, axis * (turned_by / angle), math.log(growth) / angle
            self.turns[heel] = angle, (*self.turns.get(heel, (0.0, ()))[1][-1:], rate)
        self.bases[heel] = tuple(
            Matrix.LocRotScale(location + move, spin @ rotation, size * growth)
            for location, rotation, size in (
                basis.decompose() for basis in self.bases.get(heel, ())
            )
        )

    def held(self, obj: Any, limb: Limb) -> Matrix | None:
        """:func:`hold` of a paw in IK mode as the last exact write left it, else as posed now.

        A drag's event may leave a limb a little off (:data:`.placing.DRAG`): read from
        that pose, the hold would pass the miss on to the next write, whose own miss adds
        to it, event by event, until one costs a second evaluation of the rig.
        """
        if not in_ik(limb):
            return None
        kept = self.holds.get(limb.ik_controls[0])
        return hold(obj, limb) if kept is None else kept

    def keep(self, obj: Any, limb: Limb, used: Matrix | None, exact: bool) -> None:
        """Keep the hold a write of ``limb`` used, or its hold as posed now where exact.

        ``exact``: the write placed the limb to :data:`.placing.TOLERANCE`.
        """
        if used is None:
            return
        now = hold(obj, limb) if exact else None
        self.holds[limb.ik_controls[0]] = used if now is None else now

    def turned(self, limb: Limb, before: Matrix | None, angle: float) -> Matrix | None:
        """``limb``'s heel's channels that place it once its plane turns by ``angle``.

        ``before``: those that place it now. The heel moves as the last turns moved it
        (:meth:`carry`), per radian, that rate going on as it changed from the turn before
        (the bend changes it as a drag goes on), where the plane turns the same way by
        between half and twice the last angle (a drag's turns, each as the plane drifts
        past :data:`.placing.SWIVEL`); None otherwise, or unknown.
        """
        known = self.turns.get(limb.ik_controls[-1]) if in_ik(limb) else None
        if before is None or known is None or not 0.5 <= angle / known[0] <= 2.0:
            return None
        rates = known[1]
        move, spin, growth = rates[-1]
        if len(rates) == 2:  # the rate led on by its change from the turn before
            (move_was, spin_was, growth_was) = rates[0]
            move, spin, growth = 2 * move - move_was, 2 * spin - spin_was, 2 * growth - growth_was
        location, rotation, scale = before.decompose()
        turn = Quaternion(spin * angle) if spin.length else Quaternion()
        return Matrix.LocRotScale(
            location + move * angle, turn @ rotation, scale * math.exp(growth * angle)
        )

    def ahead(self, name: str) -> Matrix | None:
        """``name``'s channels led one write ahead (None: unknown, or a jump).

        Its rotation turns on as it last turned, and its scale grows as it last grew, by
        one factor on all three axes (a stretch above the heel is made up for evenly, and
        no shear of a guess creeps in), with three writes known each turn and growth
        changed as it changed from the one before (second order); its location goes on
        along the least-squares line of the last :data:`FIT` (:func:`_line_ahead`).
        """
        return _led(self.bases.get(name, ()))


def _led(bases: tuple[Matrix, ...]) -> Matrix | None:
    """The matrix after ``bases`` (the last few), led as :meth:`Heels.ahead` says."""
    if len(bases) < 2:
        return None
    channels = [basis.decompose() for basis in bases]
    (_, turned, scaled), (_, turn, scale) = channels[-2], channels[-1]
    step = _shortest(turn @ turned.inverted())
    if step.angle > LEAD:
        return None
    growth = _size(scale) / _size(scaled)
    if len(channels) >= 3:
        _, earliest, earliest_scale = channels[-3]
        previous = _shortest(turned @ earliest.inverted())
        if previous.angle <= LEAD:
            step = step @ previous.inverted() @ step
            growth *= growth / (_size(scaled) / _size(earliest_scale))
    ahead = _line_ahead([location for location, _, _ in channels])
    return Matrix.LocRotScale(ahead, step @ turn, scale * growth)


def _line_ahead(points: list[Vector]) -> Vector:
    """The point after ``points`` (one write apart each) on their least-squares line.

    Blender's IK lands a chain micrometres off from one evaluation to the next, and a
    heel's writes make up for it: a line through the last few follows their drift
    without repeating one write's jitter twice over, as a difference of the last two
    would (or thrice over, a second difference).
    """
    count = len(points)
    middle = (count - 1) / 2.0
    mean = sum(points, Vector((0.0, 0.0, 0.0))) / count
    spread = sum((k - middle) ** 2 for k in range(count))
    slope = sum(((k - middle) * p for k, p in enumerate(points)), Vector((0.0, 0.0, 0.0)))
    return mean + slope * ((count - middle) / spread)


def _size(scale: Vector) -> float:
    """A scale's mean over its three axes."""
    return (scale.x + scale.y + scale.z) / 3.0


def _shortest(turn: Quaternion) -> Quaternion:
    """``turn`` as the quaternion of its shorter way round (an angle of at most π)."""
    if turn.w >= 0.0:
        return turn
    flipped = turn.copy()
    flipped.negate()  # the same turn
    return flipped


def in_ik(limb: Limb) -> bool:
    """Whether ``limb`` is a paw (a heel control below its end control) in IK mode."""
    return limb.mode == "IK" and len(limb.ik_controls) > 1


def hold(obj: Any, limb: Limb) -> Matrix | None:
    """A paw's end control in the frame of the chain's last bone, as posed now (else None).

    Written at the last bone's target in that frame, the end control keeps the toe joint
    on the bone's tail whatever the rig's mechanism below it does.
    """
    if not in_ik(limb):
        return None
    bones = obj.pose.bones
    held: Matrix = rigid(bones[limb.bones[limb.chain_end]].matrix).inverted_safe()
    return held @ rigid(bones[limb.ik_controls[0]].matrix)


def lead_heel(obj: Any, writer: ControlWriter, limb: Limb, heels: Heels) -> None:
    """Give a paw's heel control its last turn again, ahead of the evaluation."""
    if len(limb.ik_controls) < 2:
        return
    heel = limb.ik_controls[-1]
    predicted = heels.ahead(heel)
    pose_bone = obj.pose.bones[heel]
    if predicted is not None:
        writer.give(pose_bone, predicted, pose_bone.bone.length)


def turn_heel(
    obj: Any,
    writer: ControlWriter,
    limb: Limb,
    heels: Heels,
    before: Matrix | None,
    angle: float,
) -> str:
    """Give a paw's heel its channels for its plane's turn by ``angle`` (:meth:`Heels.turned`).

    ``before``: the heel's channels that place the limb before the turn. Written with the
    turn, the heel is placed in the evaluation that turns the plane, not written after it
    (one more evaluation). The control written, "" where none.
    """
    predicted = heels.turned(limb, before, angle)
    if predicted is None:
        return ""
    heel = limb.ik_controls[-1]
    pose_bone = obj.pose.bones[heel]
    writer.give(pose_bone, predicted, pose_bone.bone.length)
    return heel


def write_heel(obj: Any, writer: ControlWriter, limb: Limb, targets: Mapping[str, Matrix]) -> str:
    """A paw's heel control carrying the chain's last bone onto its target; the control.

    The heel lies below the end control, past the rig's own mechanism, and carries the
    bone rigidly, so one write from the evaluated pose places it up to where Blender's
    stretched IK lands the bone's head (the next pass makes up for that). Where bones
    after the chain's end follow the IK target itself (a hoof's toe), the target is
    carried into place instead: the toe is then exact, and the bone hangs from where
    Blender's IK lands the chain, micrometres short. "" for other limbs.
    """
    pose = _heel_pose(obj, limb, targets)
    if pose is None:
        return ""
    heel = limb.ik_controls[-1]
    writer.write(heel, pose)
    return heel


def heel_channels(obj: Any, limb: Limb, targets: Mapping[str, Matrix]) -> Matrix | None:
    """The channels :func:`write_heel` would give a paw's heel control now (None: no paw).

    A write that leaves its limb a little off rather than evaluate the rig again
    (a drag's event) records these for the next write's lead (:meth:`Heels.note`): led
    from the heel's own writes alone, the lead would drift from where the heel belongs.
    """
    pose = _heel_pose(obj, limb, targets)
    if pose is None:
        return None
    heel = limb.ik_controls[-1]
    writer = ControlWriter(obj)
    return writer.basis_under(heel, pose, writer.parent_pose(obj.pose.bones[heel]))


def _heel_pose(obj: Any, limb: Limb, targets: Mapping[str, Matrix]) -> Matrix | None:
    """A paw's heel control's pose carrying the chain's last bone onto its target.

    From the pose as evaluated; None: no paw, or no target for that bone.
    """
    last = limb.bones[limb.chain_end]
    if len(limb.ik_controls) < 2 or last not in targets:
        return None
    bones = obj.pose.bones
    heel = limb.ik_controls[-1]
    carrier = limb.ik[limb.chain_end] if limb.tails else last
    # the full pose: where a second IK chain's stretch scales the heel's frame, the heel's
    # own scale makes up for it and the bone keeps its length
    pose: Matrix = carried(rigid(targets[last]), bones[carrier].matrix, bones[heel].matrix)
    return pose
