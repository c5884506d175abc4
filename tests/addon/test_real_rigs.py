"""Every Rigify metarig and a BVH import: a figure, mixed constraints, a drag, a reload.

Per rig: Make Figure, up to five constraints of different goal types on leaf chains, a
Solve, a 100-event drag of the first goal along poses within the limits, save, reload
and Solve again, then live mode following the first goal back along the path. Every
goal is reachable throughout, so each is met on Blender's evaluated pose to 1e-5 of its
chain's length, and no limit is ever violated.
"""

from __future__ import annotations

import bpy
import pytest
import rig_scenes

EVENTS = 100


@pytest.mark.parametrize("kind", rig_scenes.RIGS)
def test_a_real_rig_is_posed_dragged_saved_and_solved_again(reach, kind, tmp_path):
    obj = rig_scenes.new_rig(kind, tmp_path)
    chains = rig_scenes.leaf_chains(obj)
    assert len(chains) >= 4, f"{kind}: {chains}"
    names = rig_scenes.constrain(obj, chains)
    limbs = {n: rig_scenes.chain_length(obj, c) for n, c in zip(names, chains, strict=True)}

    def check(when: str) -> None:
        for name, residual in rig_scenes.residuals(reach, obj).items():
            assert residual <= 1e-5 * limbs[name], f"{kind}, {when}: {name} {residual:.3g}"
        assert rig_scenes.limit_violation(reach, obj) <= 1e-9, f"{kind}, {when}"

    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    check("solve")
    goal = obj.reach.constraints[names[0]].goal
    path = rig_scenes.reachable_path(reach, obj, chains[0], EVENTS, seed=5)
    assert bpy.ops.reach.drag_goal(armature=obj.name, goal=goal.name, path=path) == {"FINISHED"}
    assert len(obj.reach.drag_events) == EVENTS
    assert obj.reach.stats.message == "all constraints met", obj.reach.stats.message
    check("drag")

    armature = obj.name
    file = tmp_path / f"{kind}.blend"
    assert bpy.ops.wm.save_as_mainfile(filepath=str(file)) == {"FINISHED"}
    assert bpy.ops.wm.open_mainfile(filepath=str(file)) == {"FINISHED"}
    obj = bpy.data.objects[armature]
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    assert obj.reach.stats.message == "all constraints met"
    check("reload")

    assert bpy.ops.reach.live(armature=armature) == {"FINISHED"}
    goal = obj.reach.constraints[names[0]].goal
    for point in path[::-25]:
        goal.location = point["location"]
        bpy.context.view_layer.update()  # live re-solves
        bpy.context.view_layer.update()  # and Blender evaluates the pose it wrote
        check("live")
    assert bpy.ops.reach.live(armature=armature, stop=True) == {"FINISHED"}
