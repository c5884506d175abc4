"""Rigs built by hand whose controls are flat, not in the body's hierarchy.

Each deform bone copies a control; the deform bones form the body's hierarchy, the
controls do not (all under one root, say). Reach poses such a rig as it poses the
chains beyond a control rig's trunk (:mod:`.heads`): the controls are the figure's
segments, each hung from the control its deform bone's parent copies, at its rest as
Blender evaluates it; θ is read from the controls' evaluated poses, solved poses are
written onto the controls through their own (flat) parents, and "met" is judged on
the deform bones.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..followers import Follow, find_followers
from .heads import End, rests_of
from .limbs import ancestors


def flat_ends(obj: Any) -> tuple[End, ...]:
    """The chains of flat controls of ``obj``, parents first; () when its controls are not flat.

    Every bone that follows a control (:func:`.followers.find_followers`) hangs its control
    from the control its nearest following ancestor copies. The rig is flat when every
    control hangs in the armature from no other control, follower or constrained bone
    (a root, or nothing), and some control so hung is not below that control: a chain
    across them could not be posed bone by bone. The tree of controls is cut into
    chains where it branches.
    """
    follows = find_followers(obj)
    controls = {f.control for f in follows.values()}
    above = _hung(obj, follows)
    crossing = (p and p not in ancestors(obj, c)[1:] for c, p in above.items())
    if not any(crossing):
        return ()
    if not all(_flat(obj, control, controls, follows) for control in controls):
        return ()  # a rig that carries its controls by a mechanism of its own (Rigify's)
    children: dict[str, list[str]] = {}
    for control, parent in above.items():
        children.setdefault(parent, []).append(control)
    chains: list[list[str]] = []
    for control in _depth_first(children, ""):
        parent = above[control]
        if chains and chains[-1][-1] == parent and len(children.get(parent, [])) == 1:
            chains[-1].append(control)
        else:
            chains.append([control])
    data = obj.data.bones
    ends = []
    for chain in chains:
        copies = tuple((bone, f.control) for bone, f in follows.items() if f.control in chain)
        carried = tuple(
            data[control].matrix_local.inverted_safe() @ data[bone].matrix_local
            for bone, control in copies
        )
        hang = above[chain[0]]
        ends.append(End(tuple(chain), hang, copies, rests_of(obj, chain, hang), {}, carried))
    return tuple(ends)


def _hung(obj: Any, follows: Mapping[str, Follow]) -> dict[str, str]:
    """Per control a bone follows, the control its nearest following ancestor copies ("")."""
    data = obj.data.bones
    above: dict[str, str] = {}
    for bone, follow in follows.items():
        parent = data[bone].parent
        while parent is not None and parent.name not in follows:
            parent = parent.parent
        hang = follows[parent.name].control if parent is not None else ""
        if hang == follow.control:
            hang = above.get(hang, "")
        if follow.control not in above or not above[follow.control]:
            above[follow.control] = hang
    return above


def _flat(obj: Any, control: str, controls: set[str], follows: Mapping[str, Follow]) -> bool:
    """Whether ``control`` hangs from no other control, follower or constrained bone."""
    parent = obj.pose.bones[control].parent
    if parent is None:
        return True
    return (
        parent.name not in controls
        and parent.name not in follows
        and not any(c.enabled and c.influence > 0.0 for c in parent.constraints)
    )


def _depth_first(children: Mapping[str, list[str]], top: str) -> list[str]:
    """The tree's nodes below ``top``, each before its children, a branch at a time."""
    found: list[str] = []
    stack = list(reversed(children.get(top, [])))
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(reversed(children.get(node, [])))
    return found
