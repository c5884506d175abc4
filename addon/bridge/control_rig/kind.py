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
from ..rig import OnFigure, Rig
from .figure import build_model_rig, read_model
from .limbs import describe_limbs
from .model import ControlModel, chain_of, stand_in
from .trunk import describe_trunk
from .writing import ModelWriter


@dataclass(frozen=True)
class ControlRig:
    """The kind of a generated control rig, with what its bones stand for.

    Attributes:
        model: The rig's limbs, trunk and the segment each bone name stands for.
    """

    model: ControlModel

    direct = False
    carried = False  # the limbs hang from the rig's evaluation, not the object alone
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

    def is_current(self, obj: Any, rig: Rig, *, steady: bool = False) -> bool:
        """Whether the limbs still hang, and switch, as the figure has them.

        ``steady`` (a drag's events): the switches alone; how the trunk carries the limbs
        and chains changes only when a bone Reach leaves as set moves, which no drag does.
        """
        if steady:
            return self.model.switches_current(obj)
        return self.model.is_current(obj)

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
