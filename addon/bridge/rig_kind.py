"""What every kind of rig answers: one object per kind, chosen once per figure.

An armature is posed bone by bone (:class:`.plain_rig.PlainRig`: its bones are the
figure, bones that follow a control noted) or, as a generated control rig, solved on its
skeleton and written onto its controls (:class:`.control_rig.kind.ControlRig`).
:func:`.kinds.rig_kind` tells which when the figure is built; the rig keeps the answer
(:attr:`.rig.Rig.kind`) and every step that reads, writes, keys or measures the figure
asks it, so that nothing decides the kind again.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from ...solver import Effector
from .arrays import Array

if TYPE_CHECKING:
    from .rig import Rig


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

    def write(self, obj: Any, theta: Array, view_layer: Any | None = None) -> None:
        """Write θ; ``view_layer`` evaluates the rig between passes where it needs them."""

    def refine(self, obj: Any, theta: Array, view_layer: Any) -> None:
        """Write θ again from Blender's evaluation of the last write, where that helps."""


class RigKind(Protocol):
    """How Reach reads, writes, keys and measures one kind of rig."""

    @property
    def direct(self) -> bool:
        """Whether θ is written straight into the figure's own bones' channels.

        Then a step may plan the channels without writing them, and a bake solves its
        frames without writing and keys them afterwards.
        """

    @property
    def carried(self) -> bool:
        """Whether the figure moves along with the armature object as a whole.

        (:meth:`.rig.Rig.moved_to`: the world matrix is in the root rests alone.)
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

    def is_current(self, obj: Any, rig: Rig) -> bool:
        """Whether ``rig``'s figure still models the armature, its world matrix aside."""

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
