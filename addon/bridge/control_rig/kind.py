"""The control-rig kind of rig: solved on the skeleton, written onto the controls.

:class:`ControlRig` answers for a generated control rig (:mod:`.model`) what every kind
of rig answers (:class:`..rig.RigKind`): its figure is the trunk and the limbs'
skeleton (:mod:`.figure`), θ is read from Blender's evaluation and written by placing
controls (:mod:`.writing`), and only the controls are written and keyed.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any

from ....solver import Effector
from ..arrays import Array
from ..keys import rotation_channel
from ..rig import STILL, OnFigure, Rig
from .figure import build_model_rig, read_model
from .limbs import describe_limbs
from .model import ControlModel, chain_of, stand_in
from .trunk import carried_by, describe_trunk
from .writing import ModelWriter


@dataclass(frozen=True)
class ControlRig:
    """The kind of a generated control rig, with what its bones stand for.

    Attributes:
        model: The rig's limbs, trunk and the segment each bone name stands for.
    """

    model: ControlModel

    direct = False
    reported_notes = ("keyed",)  # its constraints and drivers are its mechanism
    diverging_fix = (
        "the rig's own IK poses them (its IK stretch shortens a bent limb); "
        "switch those limbs to FK for an exact pose"
    )

    def build(self, obj: Any, hold: Iterable[str] = ()) -> Rig:
        """The figure of the trunk and limbs (:func:`.figure.build_model_rig`).

        Raises:
            BlenderDataError: For data the solver cannot represent, named.
        """
        return build_model_rig(obj, self.model, self, hold)

    def carry(
        self, obj: Any, rig: Rig, world: Array | None, *, steady: bool = False
    ) -> Array | None:
        """How the figure stands to the rig now (:meth:`.rig.RigKind.carry`).

        None where a limb's switch or a chain beyond the trunk changed, or a rest the
        figure holds but its root's (:func:`.trunk.carried_by`: the root's rest holds the
        armature's world matrix and any move of the root control that is no DOF of the
        figure, and the figure moves with it as a whole). ``steady`` (a drag's events),
        the armature unmoved: the switches alone; how the trunk carries the limbs and
        chains changes only when a bone Reach leaves as set moves, which no drag does.
        """
        model = self.model
        if not model.switches_current(obj):
            return None
        if steady and world is None:
            return STILL
        if not all(end.is_current(obj) for end in model.ends):
            return None
        if not model.trunk.rests:  # no trunk measured (flat controls): as the armature stays
            return STILL if world is None else None
        return carried_by(obj, model.trunk, rig.figure)

    def carried(self, obj: Any, rig: Rig) -> Rig:
        """``rig`` itself (:meth:`.rig.RigKind.carried`).

        The trunk's rests it is checked against are in the frame of the joint above, which
        a carry keeps; the root's is the figure's own.
        """
        return rig

    def read(self, obj: Any, rig: Rig, previous: Array | None = None) -> Array:
        """The skeleton as Blender evaluates it (:func:`.figure.read_model`)."""
        return read_model(obj, rig, previous)

    def writer(self, obj: Any, rig: Rig, bones: Iterable[str]) -> ModelWriter:
        """The writer placing the controls of the limbs holding ``bones``."""
        return ModelWriter(rig, self.model, bones)

    def written(self, bones: Iterable[str]) -> list[str]:
        """The controls of the trunk joints and limbs holding ``bones``."""
        return self.model.written(bones)

    def written_channels(
        self, obj: Any, rig: Rig, bones: Collection[str]
    ) -> list[tuple[str, list[str]]]:
        """The controls written, each with its rotation and location (an IK control moves)."""
        pose = obj.pose.bones
        return [
            (name, [rotation_channel(pose[name].rotation_mode), "location"])
            for name in self.model.written(bones)
        ]

    def on_figure(self, obj: Any, rig: Rig, entry: Any, effector: Effector, label: str) -> OnFigure:
        """The effector and chain on the skeleton the named bones stand for."""
        point, start = stand_in(self.model, entry, effector, label)
        return OnFigure(point, start)

    def check_chain(self, obj: Any, bone: str, chain_start: str, label: str) -> None:
        """Refuse a bone or chain start of no limb or joint (:func:`.model.chain_of`)."""
        chain_of(self.model, bone, chain_start, label)

    def describe(self) -> list[str]:
        """The limbs, their modes and controls, and the trunk's controls."""
        lines = describe_limbs(self.model.limbs)
        if self.model.trunk.joints:
            lines.append(describe_trunk(self.model.trunk))
        if self.model.ends:
            chains = "; ".join(end.describe() for end in self.model.ends)
            where = "beyond the trunk" if self.model.limbs else "controls the deform bones copy"
            lines.append(f"{where}: {chains} (a chain may start at any of them, or above)")
        return lines
