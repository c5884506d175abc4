"""Human limb parts recognised by bone names (Rigify, Mixamo, the UE mannequin, BVH)."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["PATTERNS", "human_joints", "limb_part"]

_SIDE = r"(?P<side>left|right)"
PATTERNS = {
    "forearm": (
        rf"^{_SIDE}forearm$",
        r"^forearm(_fk)?\.(?P<side>l|r)$",
        r"^lowerarm_(?P<side>l|r)$",
    ),
    "shin": (
        rf"^{_SIDE}(lower|low)?leg$",
        r"^shin(_fk)?\.(?P<side>l|r)$",
        r"^calf_(?P<side>l|r)$",
    ),
    "thigh": (
        rf"^{_SIDE}(upper|up)leg$",
        r"^thigh(_fk)?\.(?P<side>l|r)$",
        r"^thigh_(?P<side>l|r)$",
    ),
    "upper_arm": (
        rf"^{_SIDE}arm$",
        r"^upper_arm(_fk)?\.(?P<side>l|r)$",
        r"^upperarm_(?P<side>l|r)$",
    ),
}
"""Per limb part, the bone names that are it: BVH and Mixamo (``mixamorig:`` and other
prefixes before a colon are dropped), Rigify's metarigs and FK controls, the UE
mannequin; compared in lower case."""


def limb_part(name: str) -> tuple[str, str] | None:
    """The limb part a bone name stands for and its side ("L" or "R"), or None."""
    plain = name.rsplit(":", 1)[-1].lower()
    for part, patterns in PATTERNS.items():
        for pattern in patterns:
            found = re.match(pattern, plain)
            if found:
                return part, found.group("side")[0].upper()
    return None


def human_joints(obj: Any) -> dict[str, tuple[str, str]]:
    """The armature's bones recognised as human limb parts: bone → (part, side)."""
    found = {}
    for bone in obj.data.bones:
        part = limb_part(bone.name)
        if part is not None:
            found[bone.name] = part
    return found
