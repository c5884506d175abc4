"""Real armatures with mixed constraints, for the add-on's tests and the rig benchmark.

Every Rigify metarig (made by Rigify's own operators) and the BVH skeleton of
:mod:`tests.fixtures.bvh` (read by Blender's bundled importer) get a Reach figure and up to six
constraints of different goal types on leaf chains that do not move one another, each
goal placed where its effector already is (so every goal is met at the start and stays
reachable). Imports ``bpy``: for Blender runs only.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import bpy
import rigs

from tests.fixtures import bvh

RIGS = ("human", "basic_human", "basic_quadruped", "cat", "wolf", "horse", "bird", "shark", "bvh")
"""Rigify's eight metarigs, and the BVH import."""

GOAL_TYPES = ("POSITION", "POSITION_ORIENTATION", "PLANE", "AIM", "HALF_SPACE", "LINE")
"""The goal types of the constraints, in turn; the first (dragged) is a position."""


def import_bvh(folder: Path) -> Any:
    """The skeleton of :func:`tests.fixtures.bvh.bvh_text` imported in metres, with its IK
    limits."""
    path = folder / "skeleton.bvh"
    path.write_text(bvh.bvh_text())
    assert bpy.ops.import_anim.bvh(filepath=str(path), global_scale=bvh.SCALE) == {"FINISHED"}
    obj = bpy.context.active_object
    for name, limits in bvh.IK_LIMITS.items():
        bone = obj.pose.bones[name]
        for axis, (low, high) in zip("xyz", limits, strict=True):
            setattr(bone, f"use_ik_limit_{axis}", True)
            setattr(bone, f"ik_min_{axis}", math.radians(low))
            setattr(bone, f"ik_max_{axis}", math.radians(high))
    return obj


def new_rig(kind: str, folder: Path) -> Any:
    """A new file holding the armature ``kind`` (one of :data:`RIGS`), in object mode."""
    bpy.ops.wm.read_homefile(use_empty=True)
    if kind == "bvh":
        obj = import_bvh(folder)
    else:
        getattr(bpy.ops.object, f"armature_{kind}_metarig_add")()
        obj = bpy.context.active_object
    bpy.ops.object.mode_set(mode="OBJECT")
    return obj


def leaf_chains(obj: Any, count: int = 5, depth: int = 3) -> list[list[str]]:
    """Up to ``count`` chains of ``depth`` bones ending in a leaf bone, none of whose bones
    moves another chain's effector (so each can be posed alone): chains whose top bone
    carries the fewest leaves first (a finger before a breast hung on the spine), the
    longer first among those."""
    candidates = []
    for bone in obj.data.bones:
        chain = [bone, *bone.parent_recursive[: depth - 1]]
        if not bone.children and len(chain) == depth and chain[-1].parent is not None:
            candidates.append(chain)
    leaves = [b for b in obj.data.bones if not b.children]

    def carried(top: Any) -> int:
        return sum(1 for leaf in leaves if top == leaf or top in leaf.parent_recursive)

    candidates.sort(key=lambda c: (carried(c[-1]), -sum(b.length for b in c)))
    chosen: list[list[Any]] = []
    for chain in candidates:
        line = {b.name for b in [chain[0], *chain[0].parent_recursive]}
        clash = any(
            line & {b.name for b in other}
            or {b.name for b in chain} & {b.name for b in [other[0], *other[0].parent_recursive]}
            for other in chosen
        )
        if not clash:
            chosen.append(chain)
        if len(chosen) == count:
            break
    return [[b.name for b in chain] for chain in chosen]


def constrain(obj: Any, chains: list[list[str]]) -> list[str]:
    """Make the figure and one constraint per chain (goal types in turn); their names."""
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    names = []
    for k, chain in enumerate(chains):
        kind = GOAL_TYPES[k % len(GOAL_TYPES)]
        name = f"c{k} {kind.lower()}"
        result = bpy.ops.reach.add_constraint(
            armature=obj.name, bone=chain[0], chain_start=chain[-1], goal_type=kind, name=name
        )
        assert result == {"FINISHED"}, name
        if kind == "AIM":  # aimed at a point ahead along the bone, not at its own tail
            pose_bone = obj.pose.bones[chain[0]]
            axis = (obj.matrix_world.to_3x3() @ (pose_bone.tail - pose_bone.head)).normalized()
            goal = obj.reach.constraints[name].goal
            goal.location = tuple(obj.matrix_world @ pose_bone.tail + axis)
        names.append(name)
    bpy.context.view_layer.update()
    return names


def chain_length(obj: Any, chain: list[str]) -> float:
    """The summed rest lengths of the chain's bones, in world units."""
    return float(sum(obj.data.bones[b].length for b in chain)) * obj.matrix_world.to_scale()[0]


def residuals(reach: Any, obj: Any) -> dict[str, float]:
    """Each enabled constraint's residual on Blender's evaluated pose."""
    bridge = reach.addon.bridge
    bpy.context.view_layer.update()
    setup = bridge.goals.build_problem(obj, bpy.context.scene)
    theta = bridge.pose.read_pose(obj, setup.rig)
    model = dict.fromkeys(setup.names, 0.0)
    return bridge.evaluated.measure(obj, setup, theta, model).residuals


def limit_violation(reach: Any, obj: Any) -> float:
    """The largest violation of the limits a solve holds, by the pose read back."""
    bridge = reach.addon.bridge
    setup = bridge.goals.build_problem(obj, bpy.context.scene)
    theta = bridge.pose.read_pose(obj, setup.rig)
    return float(setup.problem.moving_limits.max_violation(theta))


def reachable_path(
    reach: Any, obj: Any, chain: list[str], events: int, seed: int
) -> list[dict[str, Any]]:
    """Drag events for ``chain``'s effector (its tail) through poses within the limits."""
    rig = reach.addon.bridge.plain_rig.build_rig(obj)
    path: list[dict[str, Any]] = rigs.reachable_path(rig, obj, chain[0], chain, events, seed)
    return path
