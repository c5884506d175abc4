"""Controls placed so that a control rig's skeleton bones take given poses.

Reach solves on a control rig's skeleton (the bones its deform bones follow) and writes
the result onto the controls an animator keys: per limb in the mode its switch says.
A control that carries a skeleton bone rigidly is moved by the pose delta between them:
``C_new = T · S⁻¹ · C`` (S the bone's pose now, C the control's, T the bone's target),
and its channels are found from its parent's new pose with Blender's own
``Bone.convert_local_to_pose``. A bone between controls follows the control above it
rigidly; Blender's evaluation then checks every target and the write is repeated from
the evaluated pose where a mechanism did otherwise (a few passes at most).

- FK mode: each FK control, root first.
- IK mode: the end control carries the chain's last bone; the bones after it through
  their own controls; the elbow or knee plane through the pole when the rig uses one,
  else by turning the chain's base control about the line from the chain's root to its
  end, when that moves the middle joint by more than :data:`SWIVEL`. Blender's IK then
  poses the chain: the end exactly, the middle joint as closely as the rig's own IK
  stretch lets it (Rigify's shortens a bent chain by 1–3%).
- A paw in IK mode: the end control keeps the pose it had relative to the last bone,
  which puts the paw's toe joint in place; a mechanism of the rig (a damped track, a
  second IK chain) then turns the heel control's frame, so the heel control is written
  once Blender has evaluated that, carrying the last bone onto its target exactly. A
  drag's writes start the heel from its last turn (:class:`Heels`), so that write is
  small.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mathutils import Matrix, Vector

from ..errors import BlenderDataError
from .controls import Limb, is_control

PASSES = 4
"""Most writes of one limb before its targets are left as Blender evaluates them."""

CARRIED = 1e-2
"""In IK mode the chain's end is this close to its target once placed (times the
limb's length), or the end control does not carry it rigidly (a heel or roll
mechanism turns it by tens of percent): the write is refused. Closer misses are left
to the verdict."""

UNCHANGED = 1e-6
"""A control whose channels would turn by less than this (in radians) and move by less
than this times its length or its distance from the armature's origin, whichever is
larger, is left as it is: single-precision rounding, not a move worth one more
evaluation of the rig."""

PROGRESS = 0.5
"""A further pass is made only while each cuts the miss to at most this share."""

SWIVEL = 1e-3
"""In IK mode the chain's plane is turned when that moves its middle joint further than
this (times the chain's reach): Blender's IK stretch already leaves the joint 1–3% off
its target (on Rigify's rigs), so a closer plane is not seen, yet costs one more
evaluation of the rig."""

TOLERANCE = 5e-6
"""A limb is placed when each of its skeleton bones is this close to its target (times
the limb's length)."""


LEAD = math.radians(5.0)
"""The most a heel's last turn is repeated ahead of an evaluation (a drag's step turns it
by a fraction of a degree; a bigger one is a jump, and the evaluation decides alone)."""


class Heels:
    """The channels each paw's heel control was last given, over the last two writes.

    A drag turns the rig's mechanism above a heel (a damped track, a second IK chain)
    smoothly from event to event, so the heel's last turn, repeated before Blender
    evaluates the end control's move, meets most of the next one: the heel's write
    after the evaluation is then small, Blender's IK lands as it did, and one pass does.
    """

    def __init__(self) -> None:
        self.bases: dict[str, tuple[Matrix, ...]] = {}

    def record(self, name: str, basis: Matrix) -> None:
        """Remember that ``name`` was given the channel matrix ``basis``."""
        self.bases[name] = (*self.bases.get(name, ())[-1:], basis.copy())

    def ahead(self, name: str) -> Matrix | None:
        """``name``'s channels with its last turn and move repeated (None: unknown, or a jump)."""
        bases = self.bases.get(name, ())
        if len(bases) < 2:
            return None
        step: Matrix = bases[1] @ bases[0].inverted_safe()
        if step.to_quaternion().angle > LEAD:
            return None
        predicted: Matrix = step @ bases[1]
        return predicted


@dataclass(frozen=True)
class Placed:
    """What placing one limb's controls did.

    Attributes:
        controls: The controls written (each once, however many passes).
        passes: Writes made (each followed by one evaluation).
        error: The largest distance of a skeleton bone's head or tail from its
            target's, over the limb's length, as Blender evaluated the last pass.
    """

    controls: tuple[str, ...]
    passes: int
    error: float


class ControlWriter:
    """Writes controls whose parents may just have been written, in one evaluation.

    A written control's new pose is remembered; the parent of the next one is predicted
    from it when the control lies below it (bones in between following rigidly).
    """

    def __init__(self, obj: Any, moved: Mapping[str, Matrix] | None = None) -> None:
        self.obj = obj
        self.new: dict[str, Matrix] = dict(moved or {})
        self.given = set(self.new)
        self.changed = False
        """Whether a write changed a control's channels, so the rig must be evaluated."""

    def parent_pose(self, pose_bone: Any) -> Matrix | None:
        """The pose the parent of ``pose_bone`` will have once the writes are evaluated."""
        parent = pose_bone.parent
        if parent is None:
            return None
        current = parent
        while current is not None:
            if current.name in self.new:
                predicted: Matrix = (
                    self.new[current.name] @ current.matrix.inverted_safe() @ parent.matrix
                )
                return predicted
            current = current.parent
        copied: Matrix = parent.matrix.copy()
        return copied

    def write(self, name: str, pose: Matrix) -> None:
        """Give control ``name`` the pose-space matrix ``pose`` (once evaluated)."""
        pose_bone = self.obj.pose.bones[name]
        bone = pose_bone.bone
        parent = self.parent_pose(pose_bone)
        if parent is None:
            basis = bone.convert_local_to_pose(pose, bone.matrix_local, invert=True)
        else:
            basis = bone.convert_local_to_pose(
                pose,
                bone.matrix_local,
                parent_matrix=parent,
                parent_matrix_local=pose_bone.parent.bone.matrix_local,
                invert=True,
            )
        self.new[name] = pose.copy()
        if _moves(pose_bone.matrix_basis, basis, max(bone.length, pose.translation.length)):
            pose_bone.matrix_basis = basis
            self.changed = True


def _moves(now: Matrix, new: Matrix, size: float) -> bool:
    """Whether channel matrix ``new`` differs from ``now`` beyond :data:`UNCHANGED`."""
    delta = new - now
    turn = max(abs(delta[i][j]) for i in range(3) for j in range(3))
    move = max(abs(delta[i][3]) for i in range(3))
    return turn > UNCHANGED or move > UNCHANGED * max(size, 1e-9)


def carried(target: Matrix, bone_now: Matrix, control_now: Matrix) -> Matrix:
    """The control's pose that brings a bone it carries rigidly to ``target``."""
    result: Matrix = target @ bone_now.inverted_safe() @ control_now
    return result


def rigid(matrix: Matrix) -> Matrix:
    """``matrix``'s turn and move alone, without scale or shear.

    A rig's stretch or a partial constraint leaves some in a bone's pose; carried from
    write to write it would grow.
    """
    turn_and_move: Matrix = Matrix.LocRotScale(matrix.translation, matrix.to_quaternion(), None)
    return turn_and_move


def limb_error(obj: Any, limb: Limb, bones: Any, targets: Mapping[str, Matrix]) -> float:
    """The largest head or tail miss of ``bones`` with a target, over the limb's length.

    Over the whole limb's, not each bone's: a toe's single-precision rounding, or Blender's
    IK landing a micrometre short, is no miss worth another evaluation of the rig.
    """
    pose = obj.pose.bones
    worst = 0.0
    for name in bones:
        if name not in targets:
            continue
        now, target = pose[name].matrix, targets[name]
        tail = Vector((0.0, pose[name].bone.length, 0.0))
        worst = max(
            worst,
            (now.translation - target.translation).length,
            (now @ tail - target @ tail).length,
        )
    length = sum(float(pose[name].bone.length) for name in limb.bones)
    return worst / max(length, 1e-12)


def place_limb(
    obj: Any, view_layer: Any | None, limb: Limb, targets: Mapping[str, Matrix]
) -> Placed:
    """Write one limb's controls so that its skeleton bones take the ``targets`` poses.

    As :func:`place_limbs` for that limb alone.
    """
    return place_limbs(obj, view_layer, [(limb, targets)])[0]


def place_limbs(
    obj: Any,
    view_layer: Any | None,
    limbs: Sequence[tuple[Limb, Mapping[str, Matrix]]],
    moved: Mapping[str, Matrix] | None = None,
    heels: Heels | None = None,
) -> list[Placed]:
    """Write the limbs' controls so that their skeleton bones take their target poses.

    The limbs are written together, pass by pass, so that one evaluation serves them all.

    Args:
        obj: The control rig, evaluated (its pose bones' matrices current).
        view_layer: Updated after each pass to evaluate the rig; None (inside a
            depsgraph handler, where Blender evaluates after the handler returns): one
            pass from the predicted parents, no swivel, the error not measured (NaN).
        limbs: Per limb (:func:`.controls.find_limbs`, in FK or IK mode), pose-space
            matrices for some or all of its bones.
        moved: Pose-space matrices of bones above the limbs written but not yet
            evaluated (a trunk's joints): the first pass places the controls below
            them from these.
        heels: What the paws' heels were given by the writes before (a drag's
            events): the first pass repeats their last turn (:class:`Heels`), and
            this write is added.

    Raises:
        BlenderDataError: For a limb blended between IK and FK, naming its switch
            (nothing is written); for a limb in IK mode whose end control does not carry
            its end (the caller restores the pose).
    """
    for limb, _ in limbs:
        _check(limb)
    holds = [_hold(obj, limb) for limb, _ in limbs]
    # the bones the controls place exactly: in IK mode Blender's IK poses those before
    exact = [limb.bones if limb.mode == "FK" else limb.bones[limb.chain_end :] for limb, _ in limbs]
    written: list[dict[str, None]] = [{} for _ in limbs]
    errors = [
        limb_error(obj, limb, bones, targets)
        for bones, (limb, targets) in zip(exact, limbs, strict=True)
    ]
    before = [math.inf] * len(limbs)
    passes = [0] * len(limbs)
    for _ in range(PASSES):
        active = [k for k, e in enumerate(errors) if TOLERANCE < e <= PROGRESS * before[k]]
        if not active:
            break
        writer = ControlWriter(obj, moved)
        for k in active:
            limb, targets = limbs[k]
            earlier = set(writer.new)
            if limb.mode == "FK":
                _write_fk(obj, writer, limb, targets)
            else:
                _write_ik(obj, writer, limb, targets, holds[k])
                if passes[k] == 0 and heels is not None:
                    _lead_heel(obj, writer, limb, heels)
            written[k].update(dict.fromkeys(c for c in writer.new if c not in earlier))
            passes[k] += 1
            before[k] = errors[k]
        if view_layer is None:
            return [Placed(tuple(w), p, math.nan) for w, p in zip(written, passes, strict=True)]
        if writer.changed or writer.given:
            view_layer.update()
        moved = None  # evaluated now
        ik = [k for k in active if limbs[k][0].mode == "IK"]
        for step in (_write_swivel, _write_heel):  # each on the pose the one before left
            after = ControlWriter(obj)
            wrote = {k: step(obj, after, limbs[k][0], limbs[k][1]) for k in ik}
            for k, control in wrote.items():
                if control:
                    written[k][control] = None
            if after.changed:
                view_layer.update()
        for k in active:
            errors[k] = limb_error(obj, limbs[k][0], exact[k], limbs[k][1])
    if heels is not None:
        for limb, _ in limbs:
            if limb.mode == "IK" and len(limb.ik_controls) > 1:
                heels.record(
                    limb.ik_controls[-1], obj.pose.bones[limb.ik_controls[-1]].matrix_basis
                )
    for (limb, _), error in zip(limbs, errors, strict=True):
        if limb.mode == "IK" and error > CARRIED:
            raise BlenderDataError(
                f"limb {limb.name} in IK mode: its end control '{limb.ik_controls[0]}' does "
                f"not carry '{limb.bones[limb.chain_end]}' where Reach puts it (the rig turns "
                f"it by a mechanism of its own); {_way_out(limb)}"
            )
    return [
        Placed(tuple(w), p, limb_error(obj, limb, limb.bones, targets))
        for w, p, (limb, targets) in zip(written, passes, limbs, strict=True)
    ]


def _way_out(limb: Limb) -> str:
    return f"set '{limb.switch}' on '{limb.settings}' to 1 (FK)"


def _check(limb: Limb) -> None:
    """Refuse a limb Reach does not place, naming it and the way out."""
    if limb.mode == "MIXED":
        raise BlenderDataError(f"limb {limb.name} is blended between IK and FK; {_way_out(limb)}")


def _hold(obj: Any, limb: Limb) -> Matrix | None:
    """A paw's end control in the frame of the chain's last bone, as posed now (else None).

    Written at the last bone's target in that frame, the end control keeps the toe joint
    on the bone's tail whatever the rig's mechanism below it does.
    """
    if limb.mode != "IK" or len(limb.ik_controls) < 2:
        return None
    bones = obj.pose.bones
    held: Matrix = rigid(bones[limb.bones[limb.chain_end]].matrix).inverted_safe()
    return held @ rigid(bones[limb.ik_controls[0]].matrix)


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
    carries the bone the rest of the way (:func:`_write_heel`).
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


def _lead_heel(obj: Any, writer: ControlWriter, limb: Limb, heels: Heels) -> None:
    """Give a paw's heel control its last turn again, ahead of the evaluation."""
    if len(limb.ik_controls) < 2:
        return
    heel = limb.ik_controls[-1]
    predicted = heels.ahead(heel)
    pose_bone = obj.pose.bones[heel]
    if predicted is not None and _moves(pose_bone.matrix_basis, predicted, pose_bone.bone.length):
        pose_bone.matrix_basis = predicted
        writer.changed = True


def _write_heel(obj: Any, writer: ControlWriter, limb: Limb, targets: Mapping[str, Matrix]) -> str:
    """A paw's heel control carrying the chain's last bone onto its target; the control.

    The heel lies below the end control, past the rig's own mechanism, and carries the
    bone rigidly, so one write from the evaluated pose places it up to where Blender's
    stretched IK lands the bone's head (the next pass makes up for that). Where bones
    after the chain's end follow the IK target itself (a hoof's toe), the target is
    carried into place instead: the toe is then exact, and the bone hangs from where
    Blender's IK lands the chain, micrometres short. "" for other limbs.
    """
    last = limb.bones[limb.chain_end]
    if len(limb.ik_controls) < 2 or last not in targets:
        return ""
    bones = obj.pose.bones
    heel = limb.ik_controls[-1]
    carrier = limb.ik[limb.chain_end] if limb.tails else last
    # the full pose: where a second IK chain's stretch scales the heel's frame, the heel's
    # own scale makes up for it and the bone keeps its length
    pose = carried(rigid(targets[last]), bones[carrier].matrix, bones[heel].matrix)
    writer.write(heel, pose)
    return heel


def _write_swivel(
    obj: Any, writer: ControlWriter, limb: Limb, targets: Mapping[str, Matrix]
) -> str:
    """Turn the chain's plane onto the targets' (pole or base twist); the control written.

    The plane is the one through the chain's root, middle joint and end; it is turned
    about the line from the root to the end. "" when the targets leave it free.
    """
    first, middle = limb.bones[0], limb.bones[1]
    if first not in targets or middle not in targets:
        return ""
    bones = obj.pose.bones
    root = targets[first].translation
    end = bones[limb.bones[limb.chain_end]].matrix.translation
    axis = end - root
    if axis.length < 1e-12:
        return ""
    axis.normalize()
    wanted = _off_line(targets[middle].translation - root, axis)
    now = _off_line(bones[middle].matrix.translation - root, axis)
    if wanted is None or now is None:
        return ""
    angle = now.angle(wanted)
    if now.cross(wanted).dot(axis) < 0.0:
        angle = -angle
    reach = (bones[first].bone.length + bones[middle].bone.length) or 1.0
    if abs(angle) * now.length <= SWIVEL * reach:  # the middle joint is placed already
        return ""
    if limb.uses_pole and limb.pole:
        pole = bones[limb.pole].matrix.copy()
        pole.translation = root + (end - root) / 2.0 + wanted.normalized() * reach
        writer.write(limb.pole, pole)
        return limb.pole
    turn = Matrix.Translation(root) @ Matrix.Rotation(angle, 4, axis) @ Matrix.Translation(-root)
    writer.write(limb.ik_base, turn @ bones[limb.ik_base].matrix)
    return limb.ik_base


def _off_line(vector: Vector, axis: Vector) -> Vector | None:
    """``vector``'s part perpendicular to the unit ``axis`` (None when it has none)."""
    off: Vector = vector - axis * vector.dot(axis)
    return off if off.length > 1e-9 * max(vector.length, 1e-12) else None
