"""Controls placed so that a control rig's skeleton bones take given poses.

Reach solves on a control rig's skeleton (the bones its deform bones follow) and writes
the result onto the controls an animator keys: per limb in the mode its switch says.
A control that carries a skeleton bone rigidly is moved by the pose delta between them
(:mod:`.control_pose`). A bone between controls follows the control above it rigidly;
Blender's evaluation then checks every target and the write is repeated from the
evaluated pose where a mechanism did otherwise (a few passes at most).

- FK mode: each FK control, root first.
- IK mode: the end control carries the chain's last bone; the bones after it through
  their own controls; the elbow or knee plane through the pole when the rig uses one,
  else by turning the chain's base control about the line from the chain's root to its
  end, when that moves the middle joint by more than :data:`SWIVEL`; below a trunk the
  same write moves, and in a drag's writes, the plane as the trunk carries it and the
  chain swings after its end is turned before the rig is evaluated (:data:`LEAD`).
  Blender's IK then poses the chain: the end exactly, the middle joint as closely as the
  rig's own IK stretch lets it (Rigify's shortens a bent chain by 1–3%).
- A paw in IK mode: the heel control carries the last bone the rest of the way, written
  once Blender has evaluated the rig's mechanism above it, unless the heel's lead
  (:mod:`.paws`) has placed the limb already. A turn of its plane turns the heel's frame
  too (a second IK chain): in a drag's writes the plane is turned before the evaluation
  whenever it is off at all, the heel led after it; where an evaluation shows it off, it
  is turned after it, the heel moved with it as the last turns moved it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mathutils import Matrix, Vector

from ...errors import BlenderDataError
from ..rigify_names import is_control
from . import paws
from .control_pose import Batch, ControlWriter, carried, rigid
from .limbs import Limb
from .paws import Heels

PASSES = 4
"""Most writes of one limb before its targets are left as Blender evaluates them."""

CARRIED = 1e-2
"""In IK mode the chain's end is this close to its target once placed (times the
limb's length), or the end control does not carry it rigidly (a heel or roll
mechanism turns it by tens of percent): the write is refused. Closer misses are left
to the verdict."""

PROGRESS = 0.5
"""A further pass is made only while each cuts the miss to at most this share."""

SWIVEL = 1e-3
"""In IK mode the chain's plane is turned when that moves its middle joint further than
this (times the chain's reach): Blender's IK stretch already leaves the joint 1–3% off
its target (on Rigify's rigs), so a closer plane is not seen, yet costs one more
evaluation of the rig."""

LEAD = 0.5
"""Before the first evaluation of a limb whose trunk moved, or of a drag's write, its
plane is turned when the plane as predicted (carried by the trunk's motion, swung after
the chain's end) would leave its middle joint further than this share of :data:`SWIVEL`
off: the margin keeps the plane Blender's IK then takes within :data:`SWIVEL`, so that
no second evaluation turns it again."""

TOLERANCE = 5e-6
"""A limb is placed when each of its skeleton bones is this close to its target (times
the limb's length)."""

DRAG = 1e-4
"""During a drag, a limb is placed when its controls' bones are this close to their targets
(times the limb's length; within half the "met within" distance too): Blender's IK lands a
chain's end 1e-5–4e-5 of the limb off where its end control says, by an amount that jumps
from one event to the next, a paw's heel led from its last writes (:mod:`.paws`) lands up
to about 1e-4 off, and placing closer costs a second evaluation of the rig per event. The
drag's end places them to :data:`TOLERANCE`."""


@dataclass(frozen=True)
class Placed:
    """What placing one limb's controls did.

    Attributes:
        controls: The controls written (each once, however many passes).
        passes: Writes made (each followed by one evaluation).
        error: The largest distance of a skeleton bone's head or tail from its
            target's, over the limb's length, as Blender evaluated the last pass; NaN
            where not asked for (``measured``) or not evaluated.
        left: The miss of the bones the controls place exactly (pose-space distance)
            that the write accepted above :data:`TOLERANCE` (``within``); 0 where none.
    """

    controls: tuple[str, ...]
    passes: int
    error: float
    left: float = 0.0


_TAIL = (Vector((0.0, 1.0, 0.0)),)
_ENDS = (Vector((0.0, 1.0, 0.0)), Vector((1.0, 0.0, 0.0)), Vector((0.0, 0.0, 1.0)))
"""A bone's tail, and the points one bone length along its x and z axes, per unit length."""


def limb_error(
    obj: Any,
    limb: Limb,
    bones: Any,
    targets: Mapping[str, Matrix],
    across: bool = False,
    length: float | None = None,
) -> float:
    """The largest miss of ``bones`` with a target, over the limb's length.

    A bone's miss is its head's or its tail's; ``across``: also that of a point one bone
    length along its x or z axis, so that a roll, or a scale across the bone, misses too
    (for the bones the controls place exactly, not those Blender's IK turns about their
    own axes).

    Over the whole limb's, not each bone's: a toe's single-precision rounding, or Blender's
    IK landing a micrometre short, is no miss worth another evaluation of the rig.
    ``length``: the limb's (:func:`placed_length`), where known already.
    """
    pose = obj.pose.bones
    worst = 0.0
    for name in bones:
        if name not in targets:
            continue
        now, target = pose[name].matrix, targets[name]
        size = pose[name].bone.length
        worst = max(worst, (now.translation - target.translation).length)
        for end in _ENDS if across else _TAIL:
            point = end * size
            worst = max(worst, (now @ point - target @ point).length)
    return worst / (placed_length(obj, limb) if length is None else length)


def place_limb(
    obj: Any, view_layer: Any | None, limb: Limb, targets: Mapping[str, Matrix]
) -> Placed:
    """Write one limb's controls so that its skeleton bones take the ``targets`` poses.

    As :func:`place_limbs` for that limb alone, its error measured.
    """
    return place_limbs(obj, view_layer, [(limb, targets)], measured=True)[0]


def place_limbs(
    obj: Any,
    view_layer: Any | None,
    limbs: Sequence[tuple[Limb, Mapping[str, Matrix]]],
    moved: Mapping[str, Matrix] | None = None,
    heels: Heels | None = None,
    within: float = 0.0,
    batch: Batch | None = None,
    measured: bool = False,
) -> list[Placed]:
    """Write the limbs' controls so that their skeleton bones take their target poses.

    The limbs are written together, pass by pass, so that one evaluation serves them all.

    Args:
        obj: The control rig, evaluated (its pose bones' matrices current).
        view_layer: Updated after each pass to evaluate the rig; None (inside a
            depsgraph handler, where Blender evaluates after the handler returns): one
            pass from the predicted parents, no swivel, the error not measured (NaN).
        limbs: Per limb (:func:`.limbs.find_limbs`, in FK or IK mode), pose-space
            matrices for some or all of its bones.
        moved: Pose-space matrices of bones above the limbs written but not yet
            evaluated (a trunk's joints): the first pass places the controls below
            them from these.
        heels: What the paws' heels were given by the writes before (a drag's
            events): the first pass leads from those (:class:`Heels`), and this write is
            added; with it the first pass also leads the planes of IK chains other than
            paws' (:func:`_lead_swivel`).
        within: A pose-space distance each limb may be left off by, at most :data:`DRAG`
            of its length (a drag's events); 0: each is placed to :data:`TOLERANCE`.
        batch: Channel values of the writes above not yet written (a trunk's), written
            with the first pass (:class:`.control_pose.ControlWriter`).
        measured: Whether each limb's :attr:`Placed.error` is measured at the end (its
            callers' writes do not read it).

    Raises:
        BlenderDataError: For a limb blended between IK and FK, naming its switch
            (nothing is written); for a limb in IK mode whose end control does not carry
            its end (the caller restores the pose).
    """
    for limb, _ in limbs:
        _check(limb)
    held = paws.hold if heels is None else heels.held
    holds = [held(obj, limb) for limb, _ in limbs]
    # the bones the controls place exactly: in IK mode Blender's IK poses those before
    exact = [limb.bones if limb.mode == "FK" else limb.bones[limb.chain_end :] for limb, _ in limbs]
    written: list[dict[str, None]] = [{} for _ in limbs]

    lengths = [placed_length(obj, limb) for limb, _ in limbs]

    def error(k: int) -> float:  # limb k's miss on the pose as evaluated now
        return limb_error(obj, limbs[k][0], exact[k], limbs[k][1], True, lengths[k])

    tolerances = [max(TOLERANCE, min(DRAG, within / length)) for length in lengths]
    errors = [error(k) for k in range(len(limbs))]
    before = [math.inf] * len(limbs)
    passes = [0] * len(limbs)
    for _ in range(PASSES):
        active = [k for k, e in enumerate(errors) if tolerances[k] < e <= PROGRESS * before[k]]
        if not active:
            break
        writer = ControlWriter(obj, moved, batch=batch)
        batch = None  # written with this pass
        for k in active:
            limb, targets = limbs[k]
            earlier = set(writer.new)
            if limb.mode == "FK":
                _write_fk(obj, writer, limb, targets)
            else:
                _write_ik(obj, writer, limb, targets, holds[k])
                # a paw's plane is led every event, its heel after it (see _lead_swivel)
                if passes[k] == 0 and (moved or heels is not None):
                    paw = heels is not None and paws.in_ik(limb)
                    _lead_swivel(obj, writer, limb, targets, 0.0 if paw else LEAD)
                if passes[k] == 0 and heels is not None:
                    paws.lead_heel(obj, writer, limb, heels)
            written[k].update(dict.fromkeys(c for c in writer.new if c not in earlier))
            passes[k] += 1
            before[k] = errors[k]
        flushed = writer.flush()
        if view_layer is None:
            return [Placed(tuple(w), p, math.nan) for w, p in zip(written, passes, strict=True)]
        if flushed or writer.given:
            view_layer.update()
        moved = None  # evaluated now
        ik = [k for k in active if limbs[k][0].mode == "IK"]
        # the chains' planes turned where Blender's IK left them off the targets', then the
        # paws' heels written where they missed; again where a heel's write swung a plane
        for _ in range(2):
            _turn_planes(obj, view_layer, limbs, ik, written, heels)
            after = ControlWriter(obj)
            for k in ik:
                if error(k) > tolerances[k] and (control := paws.write_heel(obj, after, *limbs[k])):
                    written[k][control] = None
            if not after.changed:
                break
            after.flush()
            view_layer.update()
        for k in active:
            errors[k] = error(k)
    if heels is not None:
        # a limb left off (within its tolerance): its heel's history takes the channels
        # that would have placed it, so that the next write's lead does not drift
        corrected = {
            limbs[k][0].ik_controls[-1]: channels
            for k, e in enumerate(errors)
            if e > TOLERANCE
            if (channels := paws.heel_channels(obj, limbs[k][0], limbs[k][1])) is not None
        }
        heels.note(obj, (limb for limb, _ in limbs), corrected)
        for (limb, _), used, miss in zip(limbs, holds, errors, strict=True):
            heels.keep(obj, limb, used, miss <= TOLERANCE)
    for (limb, _), miss in zip(limbs, errors, strict=True):
        if limb.mode == "IK" and miss > CARRIED:
            raise BlenderDataError(
                f"limb {limb.name} in IK mode: its end control '{limb.ik_controls[0]}' does "
                f"not carry '{limb.bones[limb.chain_end]}' where Reach puts it (the rig turns "
                f"it by a mechanism of its own); {_way_out(limb)}"
            )
    return [
        Placed(
            tuple(w),
            p,
            limb_error(obj, limb, limb.bones, targets, length=length) if measured else math.nan,
            miss * length if TOLERANCE < miss <= tolerance else 0.0,
        )
        for w, p, (limb, targets), miss, length, tolerance in zip(
            written, passes, limbs, errors, lengths, tolerances, strict=True
        )
    ]


def _turn_planes(
    obj: Any,
    view_layer: Any,
    limbs: Sequence[tuple[Limb, Mapping[str, Matrix]]],
    ik: Iterable[int],
    written: list[dict[str, None]],
    heels: Heels | None,
) -> None:
    """Turn the planes of the limbs ``ik`` Blender's IK left off their targets'; evaluate.

    A paw's heel, whose frame the turn moves (a second IK chain), is moved as its last
    turns moved it (:func:`.paws.turn_heel`), so that one evaluation serves both; its
    history is carried by the turn (:meth:`.paws.Heels.carry`). The controls written are
    added to ``written`` (per limb).
    """
    after = ControlWriter(obj)
    turned: dict[int, tuple[Matrix | None, float]] = {}
    for k in ik:
        limb, targets = limbs[k]
        plane = _plane(obj, limb, targets)
        if plane is None or plane.placed(1.0):
            continue
        written[k][_turn_plane(obj, after, limb, plane)] = None
        if heels is not None:  # (the heel's channels that place the limb, still unturned)
            unturned = paws.heel_channels(obj, limb, targets)
            turned[k] = unturned, plane.angle
            if control := paws.turn_heel(obj, after, limb, heels, unturned, plane.angle):
                written[k][control] = None
    if not after.changed:
        return
    after.flush()
    view_layer.update()
    for k, (unturned, angle) in turned.items():  # the heel's history carried by the turn
        assert heels is not None  # (turned only with heels)
        limb, targets = limbs[k]
        heels.carry(limb, unturned, paws.heel_channels(obj, limb, targets), angle)


def plan_limbs(
    obj: Any,
    limbs: Sequence[tuple[Limb, Mapping[str, Matrix]]],
    moved: Mapping[str, Matrix] | None = None,
) -> dict[str, Matrix] | None:
    """The channels (as ``matrix_basis``) that place the limbs' controls, nothing written.

    One pass from the pose as Blender evaluated it, each control's parent predicted
    from the controls above it, and from ``moved`` (pose-space matrices of bones above
    the limbs that move rigidly, not yet evaluated: a trunk's joints). In FK mode the
    bones between controls follow them rigidly, so the pass places the limb exactly. In
    IK mode the end control carries the chain's end onto its target and Blender's IK
    bends the chain in the plane it has now; None where that plane would have to turn
    (:func:`_lead_swivel`), where the limb hangs from ``moved`` bones, or where a paw's
    heel is placed from the rig's evaluation of its end: only an evaluation shows those.

    Raises:
        BlenderDataError: For a limb blended between IK and FK, naming its switch.
    """
    writer = ControlWriter(obj, moved, dry=True)
    for limb, targets in limbs:
        _check(limb)
        if limb.mode == "FK":
            _write_fk(obj, writer, limb, targets)
            continue
        if moved or paws.hold(obj, limb) is not None:
            return None
        _write_ik(obj, writer, limb, targets, None)
        plane = _plane(obj, limb, targets, Matrix.Identity(4))
        if plane is not None and not plane.placed(LEAD):
            return None
    return writer.bases


def placed_length(obj: Any, limb: Limb) -> float:
    """The limb's length: its bones' lengths summed (as :func:`limb_error` measures)."""
    bones = obj.pose.bones
    return max(sum(float(bones[name].bone.length) for name in limb.bones), 1e-12)


def _way_out(limb: Limb) -> str:
    return f"set '{limb.switch}' on '{limb.settings}' to 1 (FK)"


def _check(limb: Limb) -> None:
    """Refuse a limb Reach does not place, naming it and the way out."""
    if limb.mode == "MIXED":
        raise BlenderDataError(f"limb {limb.name} is blended between IK and FK; {_way_out(limb)}")


def _write_fk(obj: Any, writer: ControlWriter, limb: Limb, targets: Mapping[str, Matrix]) -> None:
    """Each targeted bone's FK control, root first."""
    _write_carried(obj, writer, zip(limb.bones, limb.fk, strict=True), targets)


def _write_carried(
    obj: Any, writer: ControlWriter, pairs: Iterable[tuple[str, str]], targets: Mapping[str, Matrix]
) -> None:
    """Per (skeleton bone, the control carrying it) with a target, the control placed."""
    bones = obj.pose.bones
    for name, control in pairs:
        if name in targets and control and is_control(control):
            writer.write(control, carried(targets[name], bones[name].matrix, bones[control].matrix))


def _write_ik(
    obj: Any,
    writer: ControlWriter,
    limb: Limb,
    targets: Mapping[str, Matrix],
    hold: Matrix | None,
) -> None:
    """The end control for the chain's last bone, then the bones after it by theirs.

    A paw's end control is held as it was to the last bone (``hold``): its heel control
    carries the bone the rest of the way (:func:`.paws.write_heel`). Another's is placed
    at the bone's target by its pose in the bone's frame as Blender evaluated it last.
    """
    bones = obj.pose.bones
    end = limb.ik_controls[0]
    last = limb.bones[limb.chain_end]
    if last in targets and hold is not None:
        writer.write(end, rigid(targets[last]) @ hold)
    elif last in targets:
        writer.write(end, carried(targets[last], bones[last].matrix, bones[end].matrix))
    tails = zip(limb.bones[limb.chain_end + 1 :], limb.tails, strict=True)
    _write_carried(obj, writer, tails, targets)


def _lead_swivel(
    obj: Any, writer: ControlWriter, limb: Limb, targets: Mapping[str, Matrix], share: float
) -> None:
    """The chain's plane turned onto the targets' before the rig is evaluated.

    The chain's root follows its parent, whose new pose ``writer`` predicts (a trunk's
    writes): the plane Blender evaluated last is carried by that parent's motion, then
    swung with the line from the root to the end as that moves to its target
    (:func:`_plane`). Where that leaves the middle joint further than ``share`` of
    :data:`SWIVEL` from the targets' plane, the plane is turned now, not after an
    evaluation shows it (which costs one more).

    A paw's plane is turned whenever it is off at all (``share`` 0): the turn moves its
    heel's frame (a second IK chain), and its heel is led from its last writes
    (:meth:`.paws.Heels.ahead`), which a turn made now and then would make jump, missing
    for the next few writes; turned by its drift every write, the plane moves the heel
    smoothly, as the lead follows.
    """
    root = obj.pose.bones[limb.bones[0]]
    parent = writer.parent_pose(root)
    motion = Matrix.Identity(4)
    if parent is not None:
        motion = parent @ root.parent.matrix.inverted_safe()
    plane = _plane(obj, limb, targets, motion)
    if plane is not None and not plane.placed(share):
        _turn_plane(obj, writer, limb, plane, motion)


@dataclass(frozen=True)
class _Plane:
    """Where a chain's plane is against its targets': the turn that puts it there.

    Attributes:
        angle: The signed turn (radians) about ``axis`` taking the plane through the
            chain's root, middle joint and end onto the targets' plane.
        off: The middle joint's distance from the line from the root to the end.
        reach: The chain's first two bones' lengths summed.
        root, end: The line's ends (pose space); ``axis`` its unit direction.
        wanted: The targets' middle joint off that line.
    """

    angle: float
    off: float
    reach: float
    root: Vector
    end: Vector
    axis: Vector
    wanted: Vector

    def placed(self, share: float) -> bool:
        """Whether the middle joint is within ``share`` of :data:`SWIVEL` of the targets' plane."""
        return abs(self.angle) * self.off <= share * SWIVEL * self.reach


def _plane(
    obj: Any, limb: Limb, targets: Mapping[str, Matrix], motion: Matrix | None = None
) -> _Plane | None:
    """The chain's plane as Blender evaluated it last against the targets' (None: free).

    ``motion``: the pose-space motion the writes not yet evaluated give the chain's
    root's parent, and the end taken at its target: the middle joint is carried by that
    motion, then swung about the root by the shortest turn taking the line to the end
    onto the line to its target (as a chain without a pole swings after its end: a
    damped track, or Blender's IK from the pose it had).
    """
    first, middle = limb.bones[0], limb.bones[1]
    if first not in targets or middle not in targets:
        return None
    bones = obj.pose.bones
    last = limb.bones[limb.chain_end]
    carry = motion if motion is not None else Matrix.Identity(4)
    root = targets[first].translation
    if motion is not None and last in targets:
        end = targets[last].translation
    else:
        end = carry @ bones[last].matrix.translation
    axis = end - root
    if axis.length < 1e-12:
        return None
    axis.normalize()
    wanted = _off_line(targets[middle].translation - root, axis)
    joint = carry @ bones[middle].matrix.translation - root
    if motion is not None and last in targets:
        swing = (carry @ bones[last].matrix.translation - root).rotation_difference(end - root)
        joint.rotate(swing)
    now = _off_line(joint, axis)
    if wanted is None or now is None:
        return None
    angle = _signed_angle(now, wanted, axis)
    reach = (bones[first].bone.length + bones[middle].bone.length) or 1.0
    return _Plane(angle, now.length, reach, root, end, axis, wanted)


def _turn_plane(
    obj: Any, writer: ControlWriter, limb: Limb, plane: _Plane, motion: Matrix | None = None
) -> str:
    """Turn the chain's plane onto the targets' (``plane``); the control written.

    Through the pole where the rig uses one, else by the chain's base control's twist
    about the line from the chain's root to its end. ``motion``: as :func:`_plane`'s, the
    controls as Blender evaluated them carried by it.
    """
    bones = obj.pose.bones
    carry = motion if motion is not None else Matrix.Identity(4)
    root, end = plane.root, plane.end
    if limb.uses_pole and limb.pole:
        pole = carry @ bones[limb.pole].matrix
        pole.translation = root + (end - root) / 2.0 + plane.wanted.normalized() * plane.reach
        writer.write(limb.pole, pole)
        return limb.pole
    turn = (
        Matrix.Translation(root)
        @ Matrix.Rotation(plane.angle, 4, plane.axis)
        @ Matrix.Translation(-root)
    )
    # turned from its pose as Blender's IK left it, its scale kept as its channels have it:
    # the IK's stretch of the chain is the rig's, and written into the control's channels
    # it would start the next evaluation's IK shortened, the chain shrinking write by write
    base = bones[limb.ik_base]
    pose = turn @ carry @ rigid(base.matrix)
    basis = writer.basis_under(limb.ik_base, pose, writer.parent_pose(base))
    scale = base.matrix_basis.to_scale()
    writer.give_pose(
        limb.ik_base, pose, Matrix.LocRotScale(basis.translation, basis.to_quaternion(), scale)
    )
    return limb.ik_base


def _signed_angle(start: Vector, end: Vector, axis: Vector) -> float:
    """The turn (radians) about the unit ``axis`` from ``start`` to ``end`` (both across it).

    In double precision from the vectors' components, by the arc tangent: mathutils works
    in single precision, where the arc cosine of two nearly parallel vectors' product
    steps by 3.5e-4 rad, and a plane drifting slowly would look still, then turned.
    """
    sx, sy, sz = start.x, start.y, start.z
    ex, ey, ez = end.x, end.y, end.z
    ax, ay, az = axis.x, axis.y, axis.z
    cross = (sy * ez - sz * ey) * ax + (sz * ex - sx * ez) * ay + (sx * ey - sy * ex) * az
    return math.atan2(cross, sx * ex + sy * ey + sz * ez)


def _off_line(vector: Vector, axis: Vector) -> Vector | None:
    """``vector``'s part perpendicular to the unit ``axis`` (None when it has none)."""
    off: Vector = vector - axis * vector.dot(axis)
    return off if off.length > 1e-9 * max(vector.length, 1e-12) else None
