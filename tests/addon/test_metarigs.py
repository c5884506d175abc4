"""Rigify's metarigs: make a figure, constrain a leaf bone, drag it and solve."""

from __future__ import annotations

import bpy
import numpy as np
import pytest
import rigs


def leaf_chain(obj, depth=3):
    """A bone without children and its ``depth - 1`` parents, the leaf first."""
    for bone in obj.data.bones:
        chain = [bone, *bone.parent_recursive[: depth - 1]]
        if not bone.children and len(chain) == depth and chain[-1].parent is not None:
            return [b.name for b in chain]
    raise AssertionError(f"{obj.name} has no chain of {depth} bones")


@pytest.mark.parametrize(
    "kind", ["basic_quadruped", "cat", "wolf", "shark", "bird", "horse", "human"]
)
def test_metarigs_follow_a_reachable_drag_and_solve(reach, kind):
    getattr(bpy.ops.object, f"armature_{kind}_metarig_add")()
    obj = bpy.context.active_object
    bpy.ops.object.mode_set(mode="OBJECT")
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    chain = leaf_chain(obj)
    bone = chain[0]
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone=bone, chain_start=chain[-1], name="reach"
    ) == {"FINISHED"}
    goal = obj.reach.constraints["reach"].goal
    rig = reach.addon.bridge.plain_rig.build_rig(obj)
    path = rigs.reachable_path(rig, obj, bone, chain, 8, seed=3)
    assert bpy.ops.reach.drag_goal(armature=obj.name, goal=goal.name, path=path) == {"FINISHED"}
    length = rigs.chain_length(obj, tuple(chain))
    tail = np.array(obj.matrix_world @ obj.pose.bones[bone].tail)
    assert np.linalg.norm(tail - np.array(path[-1]["location"])) <= 1e-4 * length
    assert obj.reach.stats.status == "converged"
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
