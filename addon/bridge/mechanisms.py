"""Mechanism bones: bones a rig poses by constraints of its own, which Reach never writes.

On a rig Reach poses bone by bone (no control rig's limbs found), a constraint's chain
moves every bone from its effector up to its chain start. A bone there that is no
control (Rigify's DEF, ORG and MCH bones) and that its own constraints pose would be
written, then overridden by Blender: such a chain is refused by name, with the control
to start it at instead.
"""

from __future__ import annotations

from typing import Any

from ..errors import BlenderDataError
from .rigify_names import is_control


def is_mechanism(pose_bone: Any) -> bool:
    """Whether the rig poses ``pose_bone`` by constraints of its own and no animator keys it."""
    return not is_control(pose_bone.name) and any(
        c.enabled and c.influence > 0.0 for c in pose_bone.constraints
    )


def chain_bones(obj: Any, bone: str, chain_start: str | None) -> list[str]:
    """The bones a chain from ``chain_start`` (None: the root) to ``bone`` moves, bone first."""
    chain = []
    current = obj.data.bones.get(bone)
    while current is not None:
        chain.append(str(current.name))
        if current.name == chain_start:
            break
        current = current.parent
    return chain


def check_chain_writes(obj: Any, bone: str, chain_start: str | None, label: str = "") -> None:
    """Refuse a chain that passes through a mechanism bone, naming it and the way out.

    ``label`` names what asks for the chain (a constraint), before the message.

    Raises:
        BlenderDataError: Naming the mechanism bone and the control to start the chain at.
    """
    chain = chain_bones(obj, bone, chain_start)
    bones = obj.pose.bones
    for k, name in enumerate(chain):
        if not is_mechanism(bones[name]):
            continue
        below = [b for b in chain[:k] if is_control(b)]
        way_out = (
            f"start the chain at '{below[-1]}' or a control below it"
            if below
            else "constrain the control it moves with, or name that control for it under "
            "Figure ▸ Moves With"
        )
        top = f"'{chain_start}'" if chain_start else f"the root '{chain[-1]}'"
        prefix = f"{label}: " if label else ""
        raise BlenderDataError(
            f"{prefix}the chain from {top} to '{bone}' moves '{name}', which the rig poses by "
            f"its own constraints (Reach writes only controls); {way_out}"
        )
