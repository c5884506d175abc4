"""An armature object compiled into a :class:`solver.Figure`: :func:`compile_rig`.

Bones become segments (parents first), their rotation modes, Blender's IK locks, limits
and stiffness become DOFs, bounds and rigidity; Reach's limit polygons and joint groups
become the figure's polygon limits and linear equalities. Drivers and bone constraints,
which Blender applies after Reach's pose, become warnings.

Every kind of rig answers :class:`RigKind`: posed bone by bone
(:class:`.plain_rig.PlainRig`) or, as a generated control rig, solved on its skeleton
and written onto its controls (:class:`.control_rig.kind.ControlRig`).
:func:`.kinds.rig_kind` tells which when the figure is built; the rig keeps the answer
(:attr:`Rig.kind`) and every step that reads, writes, keys or measures the figure asks
it, so that nothing decides the kind again.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, NamedTuple, Protocol

import bpy
import numpy as np
from numpy.typing import NDArray

from ...solver import Effector, Figure, SolverInputError
from ...solver.rotations import is_similarity, similar_rows
from ..errors import BlenderDataError, labelled
from .animated import animated_bones
from .arrays import Array, IndexArray, bone_rows, channel
from .joints import all_joint_settings, bone_dofs, euler_order, joint_dofs, joint_frame

NOTES = {
    "constraints": "{count} bone(s) with bone constraints, which Blender applies after "
    "Reach's pose: {bones}; mute them or constrain the control bones",
    "followed": "{count} bone(s) follow a control through their own constraints: a "
    "constraint on one is on its control, which Reach poses ({bones})",
    "driven": "{count} bone(s) driven by drivers, which override Reach: {bones}",
    "keyed": "{count} bone(s) keyed: a frame change puts their keys back over Reach's pose "
    "({bones}); key the pose (auto-keying) or bake",
}
"""One grouped line per kind of bone that Blender poses otherwise than Reach writes it."""


@dataclass(frozen=True)
class BoneLayout:
    """Where one bone's channels sit in θ.

    Attributes:
        name: Bone name (also the segment name).
        mode: The bone's ``rotation_mode``.
        order: Euler order used for its rotation DOFs.
        translation: Index of its first translation DOF in θ, or -1 if it has none.
        rotation: Index of its first rotation DOF in θ; the three DOFs are about the
            axes of ``order`` reversed.
        frame: The joint's own axes (:attr:`ReachJoint.use_axes`) as the columns of a
            rotation in the bone's frame, or None: the DOFs turn about these axes, and
            the bone's rotation is ``frame · E(θ) · frameᵀ``.
    """

    name: str
    mode: str
    order: str
    translation: int
    rotation: int
    frame: Array | None = None

    def axis_position(self, axis: str) -> int:
        """Position within the segment's DOF list of the rotation about ``axis``."""
        offset = 3 if self.translation >= 0 else 0
        return offset + self.order[::-1].index(axis)


@dataclass
class Rig:
    """An armature compiled for the solver.

    Attributes:
        armature: The armature object's name.
        figure: The solver's figure; segment k is ``layout[k].name``.
        layout: Per bone, its channels' positions in θ, parents before children.
        warnings: Things the user should know about the rig as a whole (drivers,
            bone constraints and keyed bones are :attr:`notes`).
        defects: Per bone Reach cannot pose, why (pose scale, no inherited rotation):
            refused only where it would move an effector (:func:`~.goals.build_problem`).
    """

    armature: str
    figure: Figure
    layout: tuple[BoneLayout, ...]
    kind: RigKind = field(repr=False)
    """The kind of rig (:class:`RigKind`): the armature's bones themselves
    (:class:`.plain_rig.PlainRig`), or a control rig's skeleton written onto its controls
    (:class:`.control_rig.kind.ControlRig`)."""
    warnings: list[str] = field(default_factory=list)
    defects: dict[str, str] = field(default_factory=dict)
    notes: dict[str, list[str]] = field(default_factory=dict)
    """Bones by what makes Blender pose them otherwise than Reach writes them (a key of
    :data:`NOTES`); :meth:`messages` groups them into one line per kind."""
    offsets: dict[str, tuple[float, ...]] = field(default_factory=dict)
    """Per bone with no translation DOF but a pose location, that location: part of the
    bone's rest in the figure, as Blender applies it (a hips bone moved by hand)."""

    world: Array | None = field(default=None, repr=False)
    """The armature's world matrix the figure was built with."""
    locations: NDArray[np.float32] | None = field(default=None, repr=False)
    """Every pose bone's location as it was then (a quick test of :meth:`is_current`)."""
    location_rows: IndexArray | None = field(default=None, repr=False)
    """The rows of :attr:`locations` that may hold a fixed location (the figure's bones
    with no translation DOF: a moving root's location is θ's, which every drag event
    writes); None: every row."""
    reader: Any = field(default=None, repr=False, compare=False)
    """What reads θ of these bones at once (:class:`.pose_reader.PoseReader`), made on
    the first read."""
    followers: dict[str, Any] = field(default_factory=dict, repr=False)
    """Per bone that follows a control through its own constraints, how
    (:class:`.followers.Follow`): a constraint on it is on the control."""

    @cached_property
    def dof_bones(self) -> IndexArray:
        """The bone (index in :attr:`layout`) each DOF of θ belongs to, shape (n_dofs,)."""
        bones = np.zeros(self.figure.n_dofs, np.intp)
        for k, segment in enumerate(self.figure.segments):
            bones[segment.dof_indices.start : segment.dof_indices.stop] = k
        return bones

    @cached_property
    def segment_index(self) -> dict[str, int]:
        """Each bone's index in :attr:`layout` (its segment's in the figure), by name."""
        return {entry.name: k for k, entry in enumerate(self.layout)}

    @cached_property
    def _world_inverse(self) -> Array:
        assert self.world is not None
        inverse: Array = np.linalg.inv(self.world)
        return inverse

    @cached_property
    def _world_rows(self) -> tuple[float, ...]:
        assert self.world is not None
        return tuple(self.world.ravel().tolist())

    @cached_property
    def world_scale(self) -> float:
        """The largest scale of :attr:`world`'s axes: pose-space lengths to world units."""
        assert self.world is not None
        return float(np.linalg.norm(self.world[:3, :3], axis=0).max())

    def world_now(self, obj: Any) -> Array:
        """``obj``'s world matrix now: :attr:`world` itself (not to be changed) while equal.

        Compared exactly on Python's floats: numpy's conversion of a matrix is the first
        numpy call after Blender evaluates the rig, and costs tens of microseconds then.
        """
        if self.world is not None and matrix_values(obj.matrix_world) == self._world_rows:
            return self.world
        return to_numpy(obj.matrix_world)

    def world_inverse(self, world: Array) -> Array:
        """The inverse of ``world``, the armature's world matrix now.

        Kept for :attr:`world`: every write of a drag's events goes through it, and
        numpy's inverse of a 4 × 4 costs tens of microseconds after Blender has
        evaluated a rig.
        """
        if self.world is None or (world is not self.world and not (world == self.world).all()):
            inverse: Array = np.linalg.inv(world)
            return inverse
        return self._world_inverse

    def is_current(self, obj: Any, *, steady: bool = False) -> bool:
        """Whether the figure still models the armature as it is (:meth:`now` is this rig)."""
        return self.now(obj, steady=steady) is self

    def now(self, obj: Any, *, steady: bool = False) -> Rig | None:
        """This rig as the armature is now, or None where the figure must be built again.

        Itself while the figure still models the armature: its world matrix and what
        :meth:`RigKind.carry` checks (a plain rig's fixed locations, a control rig's
        switches and rests) as built. Carried along where the figure moved as a whole:
        the world matrix is in the figure's root rests alone, so where the armature
        object moved, a plain rig's one root bone's fixed location changed, or a control
        rig's root control moved by what is no DOF of the figure, the figure is moved
        (:meth:`solver.Figure.moved`) instead of built again: an armature keyed along a
        path, a capture's hips or a control rig's torso keyed along a walk, is baked
        without a rebuild per frame. ``steady``: between the events of a
        drag, which holds the input, only what a script may change is checked.
        """
        found = self.motion(obj, steady=steady)
        if found is None:
            return None
        world, motion = found
        if motion is None:
            return self
        try:
            figure = self.figure.moved(motion)
        except SolverInputError:
            return None  # no similarity (a root scaled unevenly): built again
        moved = replace(self, figure=figure, world=self.world if world is None else world)
        if "dof_bones" in self.__dict__:  # the same bones hold the same DOFs
            moved.__dict__["dof_bones"] = self.dof_bones
        return self.kind.carried(obj, moved)

    def motion(self, obj: Any, *, steady: bool = False) -> tuple[Array | None, Array | None] | None:
        """How the armature stands now to this rig's figure, as :meth:`now` finds it.

        The armature's world matrix where it changed (else None) and the motion (4 × 4)
        that takes the figure as a whole to the armature now (None where the figure still
        models it); None where the figure must be built again.
        """
        world = None  # the armature's world matrix where it changed
        values = None if self.world is None else matrix_values(obj.matrix_world)
        if values is not None and values != self._world_rows:
            try:
                world = world_matrix(obj, values)
            except BlenderDataError:
                return None  # the rebuild names what is wrong with it
        motion = self.kind.carry(obj, self, world, steady=steady)
        if motion is None:
            return None
        if motion is STILL:
            return world, None if world is None else np.eye(4)
        return world, motion

    def messages(
        self, bones: Iterable[str] | None = None, kinds: Iterable[str] | None = None
    ) -> list[str]:
        """The warnings, and one line per kind of :attr:`notes` among ``bones`` (all: None).

        A generated rig's hundred constrained bones make one line, not a hundred;
        ``kinds`` keeps only those kinds of notes (all: None).
        """
        shown = None if bones is None else set(bones)
        wanted = None if kinds is None else set(kinds)
        lines = list(self.warnings)
        for kind, names in self.notes.items():
            if wanted is not None and kind not in wanted:
                continue
            chosen = [n for n in names if shown is None or n in shown]
            if chosen:
                listed = ", ".join(chosen[:6]) + (
                    f" and {len(chosen) - 6} more" if len(chosen) > 6 else ""
                )
                lines.append(NOTES[kind].format(count=len(chosen), bones=listed))
        return lines

    def bone(self, name: str) -> BoneLayout:
        """The layout of bone ``name``."""
        if name in self.segment_index:
            return self.layout[self.segment_index[name]]
        raise BlenderDataError(f"bone '{name}' is not in the figure of '{self.armature}'")


STILL: Array = np.eye(4)
"""What :meth:`RigKind.carry` gives where the figure still models the armature as built."""
STILL.setflags(write=False)


def matrix_values(matrix: Any) -> tuple[float, ...]:
    """A 4 × 4 matrix's values, row by row (of a mathutils matrix, without numpy)."""
    first, second, third, fourth = matrix
    return (*first, *second, *third, *fourth)


def to_numpy(matrix: Any) -> Array:
    """A mathutils matrix as a float64 array."""
    return np.array(matrix, dtype=float)


def armature_object(name: str, context: Any) -> Any:
    """The armature object named ``name`` (the active object when empty), checked."""
    obj = bpy.data.objects.get(name) if name else context.active_object
    if obj is None:
        raise BlenderDataError(f"no object named '{name}'" if name else "no active object")
    if obj.type != "ARMATURE":
        raise BlenderDataError(f"object '{obj.name}' is a {obj.type.lower()}, not an armature")
    if not obj.data.bones:
        raise BlenderDataError(f"armature '{obj.name}' has no bones")
    return obj


def ordered_bones(obj: Any) -> list[Any]:
    """The armature's bones, parents before children (depth first, siblings in order)."""
    result: list[Any] = []
    stack = [b for b in reversed(obj.data.bones) if b.parent is None]
    while stack:
        bone = stack.pop()
        result.append(bone)
        stack.extend(reversed(bone.children))
    return result


def check_rest(matrix: Array, what: str) -> None:
    """Refuse a bone's rest matrix that is not a rotation (to Blender's rounding).

    Raises:
        BlenderDataError: Naming the bone, its axis lengths and the fix.
    """
    if is_similarity(matrix[:3, :3]):
        return
    singular = np.linalg.svd(matrix[:3, :3], compute_uv=False)
    mirrored = ", mirrored" if np.linalg.det(matrix[:3, :3]) < 0.0 else ""
    raise BlenderDataError(
        f"{what}: its rest matrix is not a rotation (axis lengths "
        f"{', '.join(f'{v:.6g}' for v in singular)}{mirrored}); "
        "recalculate the bone roll in edit mode, or apply the object's scale (Ctrl A)"
    )


FAR = 1e15
"""No armature or goal lies further than this from the world's origin (world units): past
it, Blender's single-precision coordinates keep no shape of a body, and the solve's
squared distances and their products reach the end of double precision."""


def far_at(name: str, distance: float) -> BlenderDataError | None:
    """The error for ``name`` ``distance`` along an axis from the origin, past :data:`FAR`."""
    if distance <= FAR:
        return None
    return BlenderDataError(
        f"{name} lies {distance:.3g} m from the world's origin, past {FAR:g} m, where no pose can "
        "be measured: move it back near the origin"
    )


def world_matrix(obj: Any, values: tuple[float, ...] | None = None) -> Array:
    """The armature's world matrix, checked to be finite, near the origin and a similarity.

    ``values``: the matrix's values as :func:`matrix_values` read them just now, or None
    (read here). Checked on Python's floats: a moving armature's figure is carried along
    on every frame.

    Raises:
        BlenderDataError: For NaN, a place past :data:`FAR`, or a non-uniform or negative
            scale.
    """
    if values is None:
        values = matrix_values(obj.matrix_world)
    if not all(map(math.isfinite, values)):
        raise BlenderDataError(
            f"armature '{obj.name}' has a non-finite (NaN or infinite) transform"
        )
    error = far_at(f"armature '{obj.name}'", max(abs(values[3]), abs(values[7]), abs(values[11])))
    if error is not None:
        raise error
    world = np.array(values).reshape(4, 4)
    if not similar_rows((values[0:3], values[4:7], values[8:11])):
        own = tuple(round(float(s), 4) for s in obj.scale)
        whose = f"its scale {own}"
        if len(set(own)) == 1 and own[0] > 0.0 and obj.parent is not None:
            whose = f"its parent '{obj.parent.name}''s transform"
        if np.linalg.det(world[:3, :3]) < 0.0:
            raise BlenderDataError(
                f"armature '{obj.name}' is mirrored by a negative scale ({whose}); apply the "
                "scale (Ctrl A), which mirrors its bones instead, or make it positive"
            )
        raise BlenderDataError(
            f"armature '{obj.name}' has a non-uniform scale ({whose}); apply the scale "
            "(Ctrl A) or make it uniform"
        )
    return world


def pose_locations(obj: Any) -> NDArray[np.float32]:
    """Every pose bone's location channels, as stored, in one read."""
    return channel(obj.pose.bones, "location", 3)


def compile_rig(obj: Any, hold: Iterable[str], kind: RigKind) -> Rig:
    """Compile the armature object ``obj`` into a figure.

    Args:
        obj: An armature object.
        hold: Bones whose DOFs are locked for this figure (rigidity 1), e.g. bones
            the user has just moved by hand.
        kind: The kind of rig it is (:func:`.plain_rig.build_rig` gives the plain one).

    Returns:
        The rig of the armature's bones (the figure Reach solves on is
        :func:`.kinds.figure_rig`'s: a control rig's limbs, else this).

    Raises:
        BlenderDataError: For data the solver cannot represent, named.
    """
    world = world_matrix(obj)
    held = set(hold)
    figure = Figure()
    layout: list[BoneLayout] = []
    warnings: list[str] = []
    defects: dict[str, str] = {}
    notes: dict[str, list[str]] = {kind: [] for kind in NOTES}
    offsets: dict[str, tuple[float, ...]] = {}
    joints = all_joint_settings(obj)
    for bone in ordered_bones(obj):
        pose_bone = obj.pose.bones[bone.name]
        defect = _defect(bone, pose_bone)
        if defect:
            defects[bone.name] = defect
        local = to_numpy(bone.matrix_local)
        if bone.parent is None:
            rest = world @ local
        else:
            rest = np.linalg.solve(to_numpy(bone.parent.matrix_local), local)
        check_rest(rest, f"bone '{bone.name}'")
        joint = joints.get(bone.name)
        order = euler_order(joint, pose_bone)
        translates = obj.reach.translate_root and bone.parent is None and not bone.use_connect
        offset = _fixed_location(bone, pose_bone, translates)
        if offset is not None:  # Blender moves the bone by its location before turning it
            offsets[bone.name] = offset
            rest = rest.copy()
            rest[:3, 3] += rest[:3, :3] @ np.array(offset)
        frame = joint_frame(joint, bone.name)
        dofs = bone_dofs(pose_bone, order, translates=translates, lock=bone.name in held)
        if frame is not None:
            dofs[-3:] = joint_dofs(joint, frame, order, bone.name in held)
        parent = bone.parent.name if bone.parent is not None else None
        first = figure.n_dofs
        with labelled(f"bone '{bone.name}'"):
            figure.add_segment(bone.name, parent=parent, rest=rest, dofs=dofs)
        layout.append(
            BoneLayout(
                bone.name,
                pose_bone.rotation_mode,
                order,
                translation=first if translates else -1,
                rotation=first + 3 if translates else first,
                frame=frame,
            )
        )
        if any(c.enabled if hasattr(c, "enabled") else not c.mute for c in pose_bone.constraints):
            notes["constraints"].append(bone.name)
    by_name = {e.name: e for e in layout}
    _add_polygons(obj, figure, by_name, warnings)
    _add_groups(obj, figure, by_name)
    notes["driven"], notes["keyed"] = animated_bones(obj)
    locations = pose_locations(obj)
    fixed = [e.name for e in layout if e.translation < 0]
    location_rows = np.array(bone_rows(obj.pose.bones, fixed), np.intp)
    return Rig(
        obj.name,
        figure,
        tuple(layout),
        kind,
        warnings,
        defects,
        notes,
        offsets,
        world,
        locations,
        location_rows,
    )


def _fixed_location(bone: Any, pose_bone: Any, translates: bool) -> tuple[float, ...] | None:
    """The bone's pose location where the figure keeps it fixed (None: none, or a DOF).

    A connected bone ignores its location; a bone without Local Location moves in its
    parent's axes, which the figure does not model (Blender's pose then differs, and the
    verdict says so).
    """
    if translates or bone.use_connect or not bone.use_local_location:
        return None
    location = tuple(float(v) for v in pose_bone.location)
    if not any(location) or not all(math.isfinite(v) for v in location):
        return None
    return location


def fixed_locations(obj: Any, layout: Iterable[BoneLayout]) -> dict[str, tuple[float, ...]]:
    """The fixed locations :func:`compile_rig` would put into the figure now."""
    bones, pose_bones = obj.data.bones, obj.pose.bones
    found = {}
    for entry in layout:
        bone = bones.get(entry.name)
        if bone is None:
            continue
        offset = _fixed_location(bone, pose_bones[entry.name], entry.translation >= 0)
        if offset is not None:
            found[entry.name] = offset
    return found


def _defect(bone: Any, pose_bone: Any) -> str:
    """Why Reach's model cannot follow the bone ("" when it can)."""
    scale = tuple(pose_bone.scale)
    if not all(math.isfinite(s) for s in scale) or max(abs(s - 1.0) for s in scale) > 1e-6:
        return (
            f"bone '{bone.name}' has pose scale {tuple(round(s, 4) for s in scale)}; "
            "Reach poses bones of scale 1 (clear its scale with Alt S)"
        )
    if not all(math.isfinite(v) for v in pose_bone.location):
        return (
            f"bone '{bone.name}' has a non-finite (NaN or infinite) location; "
            "clear it (Alt G) or set finite values"
        )
    if not bone.use_inherit_rotation:
        return (
            f"bone '{bone.name}' does not inherit its parent's rotation; turn on Inherit Rotation"
        )
    return ""


def _add_polygons(
    obj: Any, figure: Figure, layout: dict[str, BoneLayout], warnings: list[str]
) -> None:
    for joint in obj.reach.joints:
        count = len(joint.polygon)
        if count < 3:
            if count > 0:
                warnings.append(
                    f"limit polygon of bone '{joint.name}' has {count} vertices; "
                    "it limits nothing until it has 3"
                )
            continue
        entry = layout.get(joint.name)
        if entry is None:
            raise BlenderDataError(
                f"limit polygon of bone '{joint.name}': the armature has no such bone"
            )
        add_polygon(figure, joint, entry)


def add_polygon(figure: Figure, joint: Any, entry: BoneLayout, name: str | None = None) -> None:
    """Add ``joint``'s limit polygon over its two rotations to segment ``entry``.

    ``name``: what the edges' labels call it (None: the segment's own).
    """
    axes = joint.polygon_axes
    dofs = (entry.axis_position(axes[0]), entry.axis_position(axes[1]))
    with labelled(f"limit polygon of bone '{joint.name}' ({axes})"):
        vertices = [tuple(v.value) for v in joint.polygon]
        figure.add_polygon_limit(entry.name, dofs, vertices, name=name)


def _add_groups(obj: Any, figure: Figure, layout: dict[str, BoneLayout]) -> None:
    for group in obj.reach.groups:
        if not group.enabled or len(group.members) < 2:
            continue
        label = f"joint group '{group.name}'"
        members = []
        for member in group.members:
            entry = layout.get(member.bone)
            if entry is None:
                raise BlenderDataError(f"{label}: the armature has no bone '{member.bone}'")
            if member.ratio == 0.0:
                raise BlenderDataError(f"{label}: bone '{member.bone}' has ratio 0")
            members.append(((member.bone, entry.axis_position(member.axis)), float(member.ratio)))
        (first, r0), rest = members[0], members[1:]
        for key, ratio in rest:
            # θ_key / ratio = θ_first / r0  ⇔  r0·θ_key − ratio·θ_first = 0
            with labelled(label):
                figure.add_linear_equality({key: r0, first: -ratio}, rhs=0.0)


# --- what every kind of rig answers ------------------------------------------------


class OnFigure(NamedTuple):
    """A constraint's effector and chain start, taken onto the figure's segments.

    Attributes:
        effector: The effector on the segment the constrained bone stands for.
        chain_start: The segment the chain starts at (None: the figure's root).
        twin: Where the effector's segment is not the bone the constraint names but
            "met" is measured on that bone: the bone and the segment's frame in its
            frame; None otherwise.
    """

    effector: Effector
    chain_start: str | None
    twin: tuple[str, Array] | None = None


class FigureWriter(Protocol):
    """What writes θ of the figure into Blender's pose bones, made once per set of bones."""

    def write(
        self, obj: Any, theta: Array, view_layer: Any | None = None, within: float = 0.0
    ) -> float:
        """Write θ; ``view_layer`` evaluates the rig between passes where it needs them.

        ``within``: a distance (world units) the rig's own mechanisms may leave a written
        bone off by rather than cost another evaluation (a drag's events). Returns the miss
        so accepted (0 where none).
        """

    def refine(self, obj: Any, theta: Array, view_layer: Any) -> None:
        """Write θ again from Blender's evaluation of the last write, where that helps."""

    def planned(self, bones: Any, theta: Array) -> dict[str, NDArray[np.float32]] | None:
        """The channels :meth:`write` gives ``bones``, without writing them.

        Per channel kind, every bone's values (n, width); None where only Blender's
        evaluation of a write shows them.
        """

    def on(self, rig: Rig) -> FigureWriter:
        """This writer for ``rig``, its own rig moved as a whole (:meth:`Rig.now`).

        What its writes lead the next with is kept.
        """

    def fresh(self) -> FigureWriter:
        """The writer of the same bones for another run of steps (a Solve, a drag).

        Without what this one's writes lead the next with; what it planned from the
        bones alone is shared.
        """


class RigKind(Protocol):
    """How Reach reads, writes, keys and measures one kind of rig."""

    @property
    def direct(self) -> bool:
        """Whether θ is written straight into the figure's own bones' channels.

        Then a step may always plan the channels without writing them, and a bake
        solves its frames without writing and keys them afterwards; another kind's
        writer plans them where it can (:meth:`FigureWriter.planned`).
        """

    def carry(
        self, obj: Any, rig: Rig, world: Array | None, *, steady: bool = False
    ) -> Array | None:
        """How ``rig``'s figure stands to the armature now (:meth:`.rig.Rig.now`).

        :data:`STILL` where it still models it; the motion (4 × 4) that takes the figure
        as a whole there, where nothing else changed; None where it must be built again.
        ``world``: the armature's world matrix where it changed since ``rig`` was built
        (None: as built). ``steady``: between the events of a drag (a control rig's
        limb switches, which a script may set, are still checked).
        """

    def carried(self, obj: Any, rig: Rig) -> Rig:
        """``rig``, just carried along (:meth:`.rig.Rig.now`), with what this kind keeps now.

        What the next check is made against (a plain rig's locations), as it is now.
        """

    @property
    def reported_notes(self) -> tuple[str, ...] | None:
        """The kinds of :attr:`.rig.Rig.notes` Make Figure reports (None: all)."""

    @property
    def diverging_fix(self) -> str:
        """What the user can do when Blender poses bones otherwise than Reach wrote them."""

    def build(self, obj: Any, hold: Iterable[str]) -> Rig:
        """The rig of ``obj`` Reach solves on, ``hold``'s bones locked.

        Raises:
            BlenderDataError: For data the solver cannot represent, named.
        """

    def read(self, obj: Any, rig: Rig, previous: Array | None) -> Array:
        """θ of the figure as Blender holds it (``previous``: the nearest Euler angles)."""

    def writer(self, obj: Any, rig: Rig, bones: Iterable[str]) -> FigureWriter:
        """The writer of θ into the figure's ``bones``."""

    def written(self, bones: Iterable[str]) -> list[str]:
        """The pose bones a write of the figure's ``bones`` changes."""

    def written_channels(
        self, obj: Any, rig: Rig, bones: Collection[str]
    ) -> list[tuple[str, list[str]]]:
        """The pose bones a write of the figure's ``bones`` changes, with their channels."""

    def on_figure(self, obj: Any, rig: Rig, entry: Any, effector: Effector, label: str) -> OnFigure:
        """Constraint ``entry``'s effector (given on its bone) and chain on the figure.

        Raises:
            BlenderDataError: A chain the figure cannot pose, named by ``label``.
        """

    def check_chain(self, obj: Any, bone: str, chain_start: str, label: str) -> None:
        """Refuse a constraint on ``bone`` from ``chain_start`` the figure cannot pose.

        Raises:
            BlenderDataError: Naming the bones to choose from.
        """

    def describe(self) -> list[str]:
        """What Make Figure says of the rig's kind, one line each (none: nothing to say)."""
