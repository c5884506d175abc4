"""The limbs of a control rig, found from the rig's own constraints and drivers.

A generated control rig (Rigify's first) poses its skeleton through switchable limbs:
each skeleton bone of a limb copies the transforms of an FK control and, by a later
Copy Transforms whose influence a driver ties to a switch property (Rigify's ``IK_FK``
on the limb's settings bone: 0 IK, 1 FK), of the IK chain's bone. :func:`find_limbs`
reads that structure from the armature alone, by no bone names: the skeleton bones, the
switch, the FK and IK sources, the IK controls an animator moves (the end control and
any middle one, the pole) and the mode the rig evaluates now. It tells Reach which
bones an animator keys, so that Make Figure can say so and a solve can write them.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import bpy

from ...errors import BlenderDataError
from ..rigify_names import is_control, unprefixed

SWITCH_PATH = re.compile(r'^pose\.bones\["(?P<bone>[^"]+)"\]\["(?P<prop>[^"]+)"\]$')
"""A driver variable's path to a bone's custom property: the bone and the property."""
INFLUENCE_PATH = re.compile(
    r'^pose\.bones\["(?P<bone>[^"]+)"\]\.constraints\["(?P<name>[^"]+)"\]\.influence$'
)
"""A driver's path to a bone constraint's influence: the bone and the constraint."""

UI_CONTROLS = re.compile(
    r"props\.prop_bone = '(?P<settings>[^']+)'\s*\n(?:\s*props\.\w+ = .*\n)*?"
    r"\s*props\.ctrl_bones = '(?P<controls>\[[^']*\])'"
)
"""In a generated Rigify rig's ``rig_ui.py``, an IK→FK snap's settings bone and its IK
controls (the IK base, the pole, any middle controls, the end control last)."""

MODES = ("IK", "FK", "MIXED")
"""A limb's mode: following its IK chain, its FK controls, or a blend of both."""


@dataclass(frozen=True)
class Limb:
    """One switchable limb of a control rig.

    Attributes:
        bones: The skeleton bones the limb switches, root first (Rigify's ORG bones).
        settings: The bone holding the switch property (Rigify's ``*_parent`` bone).
        switch: The switch property's name (Rigify's ``IK_FK``).
        fk: Per skeleton bone, the bone it copies in FK mode.
        ik: Per skeleton bone, the bone it copies in IK mode.
        chain_end: The index in ``bones`` of the IK chain's last bone (the one the end
            control carries); the bones after it have controls of their own.
        ik_controls: The IK controls above the chain's target, end control first
            (``hand_ik.L``; a paw's heel control after it).
        tails: Per bone after the chain's last one, the control that carries it in IK
            mode (its IK source or the nearest control above that, below the end
            control; "" when none).
        ik_base: The control at the IK chain's root (its swivel when there is no pole).
        pole: The pole control, or "" (none).
        uses_pole: The pole's IK constraint is the one Blender evaluates now.
        mode: "IK", "FK" or "MIXED" as Blender evaluates the switch now.
        ik_share: How much of the pose comes from the IK chain now (0 FK … 1 IK).
    """

    bones: tuple[str, ...]
    settings: str
    switch: str
    fk: tuple[str, ...]
    ik: tuple[str, ...]
    chain_end: int
    ik_controls: tuple[str, ...]
    tails: tuple[str, ...]
    ik_base: str
    pole: str
    uses_pole: bool
    mode: str
    ik_share: float

    @property
    def name(self) -> str:
        """The limb's name: its first skeleton bone without Rigify's prefix."""
        return unprefixed(self.bones[0])

    @property
    def controls(self) -> tuple[str, ...]:
        """The controls Reach drives in the current mode."""
        if self.mode == "FK":
            return tuple(c for c in self.fk if is_control(c))
        swivel = self.pole if self.uses_pole else self.ik_base  # the pole, else the base's twist
        return tuple(c for c in (*self.ik_controls, *self.tails, swivel) if c)

    def describe(self) -> str:
        """One line for the user: the limb, its mode and the controls Reach drives."""
        if self.mode == "MIXED":
            return (
                f"{self.name}: blended {100 * self.ik_share:.0f}% IK between IK and FK "
                f"(set '{self.switch}' on '{self.settings}' to 0 or 1 to pose it)"
            )
        return f"{self.name} ({self.mode}): {', '.join(self.controls)}"


def _switch_drivers(obj: Any) -> dict[tuple[str, str], tuple[str, str]]:
    """Per (bone, constraint) whose influence is driven by one bone property, that property."""
    found: dict[tuple[str, str], tuple[str, str]] = {}
    animation = obj.animation_data
    if animation is None:
        return found
    for driver in animation.drivers:
        match = INFLUENCE_PATH.match(driver.data_path)
        if match is None or len(driver.driver.variables) != 1:
            continue
        targets = driver.driver.variables[0].targets
        if not len(targets) or targets[0].id != obj:
            continue
        switch = SWITCH_PATH.match(targets[0].data_path or "")
        if switch is not None:
            found[(match["bone"], match["name"])] = (switch["bone"], switch["prop"])
    return found


def rigify_controls(obj: Any) -> dict[str, list[str]]:
    """Per limb settings bone, the IK controls a generated Rigify rig's interface lists.

    Read from the rig's ``rig_ui.py`` text (never run): the snap operators name each
    limb's controls in order (IK base, pole, middle controls, end control). Empty for
    any other rig.
    """
    text = obj.data.get("rig_id") and bpy.data.texts.get("rig_ui.py")
    if not text:
        return {}
    found: dict[str, list[str]] = {}
    for match in UI_CONTROLS.finditer(text.as_string()):
        try:
            controls = json.loads(match["controls"])
        except ValueError:
            continue
        if isinstance(controls, list) and len(controls) >= 2:
            found.setdefault(match["settings"], [str(c) for c in controls])
    return found


def ancestors(obj: Any, bone: str) -> list[str]:
    """``bone`` and its parents, nearest first."""
    names = []
    current = obj.pose.bones.get(bone)
    while current is not None:
        names.append(current.name)
        current = current.parent
    return names


def find_limbs(obj: Any, depsgraph: Any | None = None) -> list[Limb]:
    """The switchable limbs of the armature ``obj``, in the armature's bone order.

    A skeleton bone belongs to a limb when it has two or more Copy Transforms
    constraints and a later one's influence is driven by a bone's custom property: that
    property is the limb's switch, the driven constraint's target the bone's IK source,
    the first one's its FK source. A plain skeleton or any rig without such switches
    has none.

    Args:
        obj: An armature object.
        depsgraph: The evaluated dependency graph (default: the context's): the mode is
            read from the influences and mutes Blender evaluates.

    Raises:
        BlenderDataError: A limb's bone copies a bone, or its switch is on a bone, that
            the armature no longer has (a broken rig), naming both.
    """
    drivers = _switch_drivers(obj)
    if not drivers:
        return []
    depsgraph = depsgraph if depsgraph is not None else bpy.context.evaluated_depsgraph_get()
    evaluated = obj.evaluated_get(depsgraph)
    grouped: dict[tuple[str, str], list[tuple[str, str, str, float]]] = {}
    for pose_bone in obj.pose.bones:
        copies = [c for c in pose_bone.constraints if c.type == "COPY_TRANSFORMS" and c.subtarget]
        if len(copies) < 2:
            continue
        for later in copies[1:]:
            switch = drivers.get((pose_bone.name, later.name))
            if switch is None:
                continue
            for copy in (copies[0], later):
                if copy.subtarget not in obj.pose.bones:
                    raise BlenderDataError(
                        f"control rig '{obj.name}' is broken: '{pose_bone.name}' copies "
                        f"'{copy.subtarget}' ({copy.name}), which is not in the armature; "
                        "generate the rig again"
                    )
            if switch[0] not in obj.pose.bones:
                raise BlenderDataError(
                    f"control rig '{obj.name}' is broken: the switch of '{pose_bone.name}' "
                    f"is on bone '{switch[0]}', which is not in the armature; "
                    "generate the rig again"
                )
            share = evaluated.pose.bones[pose_bone.name].constraints[later.name].influence
            grouped.setdefault(switch, []).append(
                (pose_bone.name, copies[0].subtarget, later.subtarget, float(share))
            )
            break
    listed = rigify_controls(obj)
    limbs = [_limb(obj, evaluated, switch, rows, listed) for switch, rows in grouped.items()]
    return [limb for limb in limbs if limb is not None]


def _limb(
    obj: Any,
    evaluated: Any,
    switch: tuple[str, str],
    rows: list[tuple[str, str, str, float]],
    listed: dict[str, list[str]],
) -> Limb | None:
    """The limb of one switch, from its skeleton bones' rows (bone, FK, IK, IK share).

    None when no IK constraint acts on its IK sources (a switch that is not a limb's).
    The IK controls are the rig interface's list where there is one; otherwise the
    controls above the IK chain's target that are not above the chain's root.
    """
    names = {row[0] for row in rows}
    # root first: a bone's switched parent comes before it
    depth = {row[0]: sum(1 for a in ancestors(obj, row[0])[1:] if a in names) for row in rows}
    rows = sorted(rows, key=lambda row: depth[row[0]])
    bones = tuple(row[0] for row in rows)
    shared = set(ancestors(obj, bones[0]))
    target, pole, uses_pole = "", "", False
    for source in (row[2] for row in rows):
        for constraint in obj.pose.bones[source].constraints:
            if constraint.type != "IK" or not constraint.subtarget:
                continue
            target = target or constraint.subtarget
            live = not evaluated.pose.bones[source].constraints[constraint.name].mute
            if constraint.pole_subtarget:
                pole = pole or constraint.pole_subtarget
                uses_pole = uses_pole or live
    if not target:
        return None
    for parent, child in itertools.pairwise(bones):
        if obj.pose.bones[child].parent is None or obj.pose.bones[child].parent.name != parent:
            raise BlenderDataError(
                f"control rig '{obj.name}' is broken: '{child}' follows the switch "
                f"'{switch[1]}' on '{switch[0]}' but its parent is not '{parent}' (a bone "
                "of the limb lost its constraints); generate the rig again"
            )
    base = next((b for b in ancestors(obj, rows[0][2]) if is_control(b)), "")
    shared.update(ancestors(obj, base) if base else ())
    own = [b for b in ancestors(obj, target) if b not in shared]
    ik_controls = tuple(b for b in reversed(own) if is_control(b))
    if switch[0] in listed:  # Rigify's own list: base, pole, middle controls, end
        controls = listed[switch[0]]
        base, pole = controls[0], controls[1]
        ik_controls = (controls[-1], *controls[2:-1])
    share = min(row[3] for row in rows)
    mode = "IK" if share >= 1.0 else "FK" if max(row[3] for row in rows) <= 0.0 else "MIXED"
    chain_end = next((k for k, row in enumerate(rows) if row[2] == target), len(rows) - 1)
    return Limb(
        bones=bones,
        settings=switch[0],
        switch=switch[1],
        fk=tuple(row[1] for row in rows),
        ik=tuple(row[2] for row in rows),
        chain_end=chain_end,
        ik_controls=ik_controls,
        tails=tuple(_carrier(obj, row[2], ik_controls) for row in rows[chain_end + 1 :]),
        ik_base=base,
        pole=pole,
        uses_pole=uses_pole,
        mode=mode,
        ik_share=share,
    )


def _carrier(obj: Any, source: str, ik_controls: tuple[str, ...]) -> str:
    """The control that carries ``source`` rigidly below the IK end control ("": none)."""
    for name in ancestors(obj, source):
        if name in ik_controls:
            return ""
        if is_control(name):
            return name
    return ""


def describe_limbs(limbs: Iterable[Limb]) -> list[str]:
    """What Make Figure says of a control rig: one line per limb, its mode and controls."""
    listed = list(limbs)
    if not listed:
        return []
    return [
        f"control rig: {len(listed)} switchable limb(s), each with the controls an "
        "animator keys in its current mode",
        *(limb.describe() for limb in listed),
    ]
