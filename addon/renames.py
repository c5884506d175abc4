"""Bone renames followed, names kept unique, and names no bone has listed.

Blender tells no one when a bone is renamed. Reach stamps each bone of a figure with a
hidden ID property, :data:`STAMP`, holding the name the bone had (a leading underscore
hides it from the Custom Properties panel; it moves with the bone through edit mode and
into the .blend). A bone whose name differs from its stamp while no bone has the
stamped name any more was renamed: :func:`repair` moves every Reach setting that named
it (constraints' effector and chain start bones, joint settings with their limit
polygon, joint group members, bones set to move with a control) to the new name. A
duplicated bone carries its original's stamp while the original keeps its name: it is
only stamped afresh. :func:`repair` also
gives a constraint or joint group that was renamed to a taken name a free one, as
Blender does (``name.001``). Names that no bone has and no stamp explains are listed by
:func:`missing_bones`, for the report of :func:`check_bone_names` and the Figure panel's
Forget button (``reach.forget_bone``).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Final

from .errors import BlenderDataError

STAMP = "_reach_name"
"""The bone ID property holding the name Reach last saw the bone under."""


@dataclass
class RenameState:
    """What bone-rename following keeps between depsgraph updates.

    ``followed`` is filled as armatures are repaired and never emptied: an entry only
    spares work, and is trusted only while the armature's names and its first bone's
    stamp still agree with it. ``writing`` counts up and down around each of Reach's
    pose writes. Both live between events because a pose write evaluates the armature,
    and so runs :func:`repair`, on every drag event.

    Attributes:
        followed: Per armature (its data's address), its bone names when every bone was
            last stamped: while they are the same, no bone was renamed or added, and the
            stamps need no reading.
        writing: How many of Reach's own pose writes are under way: the evaluations they
            make rename no bone, so :func:`repair` passes them by (reading a 700-bone
            rig's names costs a fifth of a millisecond, and a drag event on a control
            rig evaluates it two to four times).
    """

    followed: dict[int, list[str]] = field(default_factory=dict)
    writing: int = 0


_state: Final = RenameState()
"""The names followed and the pose writes under way, for this Blender session."""


@contextlib.contextmanager
def writing() -> Iterator[None]:
    """Reach writes a pose: :func:`repair` does nothing until the block ends."""
    _state.writing += 1
    try:
        yield
    finally:
        _state.writing -= 1


def being_written() -> bool:
    """Whether Reach is writing a pose now (inside :func:`writing`)."""
    return _state.writing > 0


def unique_name(collection: Any, base: str) -> str:
    """``base``, or ``base.001``, ``base.002``, … whichever is not yet in ``collection``."""
    if base not in collection:
        return base
    stem = re.sub(r"\.\d{3,}$", "", base)
    k = 1
    while f"{stem}.{k:03d}" in collection:
        k += 1
    return f"{stem}.{k:03d}"


def uses_reach(obj: Any) -> bool:
    """Whether the armature object has any Reach setting naming its bones."""
    settings = obj.reach
    return bool(settings.is_figure or settings.constraints or settings.joints or settings.groups)


def follow_renames(obj: Any) -> list[str]:
    """Move Reach's settings from each renamed bone's old name to its new one; stamp all.

    Returns:
        One line per renamed bone, for an info report.
    """
    bones = obj.data.bones
    names = bones.keys()
    key = obj.data.as_pointer()
    if names and _state.followed.get(key) == names and bones[0].get(STAMP) == names[0]:
        return []
    found: dict[str, list[str]] = {}
    for bone in bones:
        stamp = bone.get(STAMP)
        if isinstance(stamp, str) and stamp != bone.name and bones.get(stamp) is None:
            found.setdefault(stamp, []).append(bone.name)
        if stamp != bone.name:
            bone[STAMP] = bone.name
    messages = []
    for old, new in found.items():
        if len(new) == 1 and _rename(obj.reach, old, new[0]):
            messages.append(f"bone '{old}' is now '{new[0]}': Reach's settings follow it")
    _state.followed[key] = names
    return messages


def _rename(settings: Any, old: str, new: str) -> bool:
    """Rename every reference to bone ``old`` in ``settings``; whether there was one."""
    renamed = False
    for entry in settings.constraints:
        if entry.bone == old:
            entry.bone, renamed = new, True
        if entry.chain_start == old:
            entry.chain_start, renamed = new, True
    joints = settings.joints
    if old in joints:
        taken = joints.get(new)
        if taken is not None and not taken.polygon:  # made by Make Figure after the rename
            joints.remove(joints.find(new))
        if new not in joints:
            joints[old].name, renamed = new, True
    for group in settings.groups:
        for member in group.members:
            if member.bone == old:
                member.bone = member.name = new
                renamed = True
    for follower in settings.followers:
        if follower.name == old:
            follower.name, renamed = new, True
        if follower.control == old:
            follower.control, renamed = new, True
    return renamed


def unique_names(settings: Any) -> list[str]:
    """Give constraints and joint groups renamed to a taken name a free one.

    Returns:
        One line per renamed entry, for an info report.
    """
    messages = []
    for collection, what in ((settings.constraints, "constraint"), (settings.groups, "group")):
        seen: set[str] = set()
        for entry in collection:
            if entry.name in seen:
                name = unique_name(collection, entry.name)
                messages.append(f"{what} name '{entry.name}' was taken: renamed '{name}'")
                entry.name = name
            seen.add(entry.name)
    return messages


def repair(obj: Any) -> list[str]:
    """Follow renamed bones and make names unique (not in edit mode nor mid-write).

    Returns:
        What changed, one line each.
    """
    if _state.writing or obj.mode == "EDIT" or not uses_reach(obj):
        return []
    return follow_renames(obj) + unique_names(obj.reach)


def missing_bones(obj: Any) -> dict[str, list[str]]:
    """Bone names in limit polygons and joint groups that the armature has no bone of.

    Returns:
        Each such name → what names it ("its limit polygon", "joint group 'Spine'").
    """
    bones = obj.data.bones
    missing: dict[str, list[str]] = {}
    for joint in obj.reach.joints:
        if joint.polygon and bones.get(joint.name) is None:
            missing.setdefault(joint.name, []).append("its limit polygon")
    for group in obj.reach.groups:
        for member in group.members:
            if bones.get(member.bone) is None:
                missing.setdefault(member.bone, []).append(f"joint group '{group.name}'")
    for follower in obj.reach.followers:
        if bones.get(follower.name) is None:
            missing.setdefault(follower.name, []).append(f"moving with '{follower.control}'")
        if follower.control and bones.get(follower.control) is None:
            missing.setdefault(follower.control, []).append(f"the control of '{follower.name}'")
    return missing


def check_bone_names(obj: Any) -> None:
    """Refuse to build the figure while limit polygons or joint groups name no bone.

    Raises:
        BlenderDataError: Listing the names and what names them, and the two fixes.
    """
    missing = missing_bones(obj)
    if missing:
        listed = ", ".join(f"'{name}' ({', '.join(users)})" for name, users in missing.items())
        raise BlenderDataError(
            f"Reach's settings name bones '{obj.name}' does not have: {listed}; "
            "rename the bones back, or forget the names in the Figure panel (Forget)"
        )


def forget(obj: Any, bone: str) -> None:
    """Remove every Reach setting naming ``bone``, a name no bone has.

    Its joint settings, joint group memberships, and what moves with it set by hand.

    Raises:
        BlenderDataError: If the armature has that bone, or nothing names it.
    """
    if obj.data.bones.get(bone) is not None:
        raise BlenderDataError(
            f"'{bone}' is a bone of '{obj.name}'; only names no bone has can be forgotten "
            "(clear its polygon or remove it from its groups instead)"
        )
    settings = obj.reach
    found = bone in settings.joints
    if found:
        settings.joints.remove(settings.joints.find(bone))
    for group in settings.groups:
        for index in reversed(range(len(group.members))):
            if group.members[index].bone == bone:
                group.members.remove(index)
                found = True
        group.active_member = max(0, min(group.active_member, len(group.members) - 1))
    followers = settings.followers
    for index in reversed(range(len(followers))):
        if bone in (followers[index].name, followers[index].control):
            followers.remove(index)
            found = True
    settings.active_follower = max(0, min(settings.active_follower, len(followers) - 1))
    if not found:
        raise BlenderDataError(f"no Reach setting of '{obj.name}' names bone '{bone}'")
