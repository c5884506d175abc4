"""Live mode (``reach.live``): constraints stay met while the armature or a bone moves."""

from __future__ import annotations

import bpy
import numpy as np
import rigs
from rigs import four_limbs


def test_live_mode_keeps_the_feet_on_their_goals_when_the_armature_moves(reach):
    obj = four_limbs()
    feet = {side: rigs.world_tail(obj, f"shin.{side}") for side in ("L", "R")}
    assert bpy.ops.reach.live(armature=obj.name) == {"FINISHED"}
    assert reach.addon.live.is_live(obj.name)
    leg = rigs.chain_length(obj, ("thigh.L", "shin.L"))
    for offset in ((0.0, 0.0, -0.05), (0.03, 0.02, -0.08), (-0.02, 0.0, -0.1)):
        obj.location = offset
        bpy.context.view_layer.update()  # fires the depsgraph handler: live re-solves
        bpy.context.view_layer.update()  # evaluates the pose it wrote
        for side, where in feet.items():
            assert np.linalg.norm(rigs.world_tail(obj, f"shin.{side}") - where) <= 1e-4 * leg
    assert bpy.ops.reach.live(armature=obj.name, stop=True) == {"FINISHED"}
    assert not reach.addon.live.is_live(obj.name)
    obj.location = (0.0, 0.0, -0.12)
    bpy.context.view_layer.update()
    moved = rigs.world_tail(obj, "shin.L")
    assert np.linalg.norm(moved - feet["L"]) > 0.01  # no longer held


def test_live_mode_holds_a_bone_the_user_moves_and_re_solves_the_rest(reach):
    obj = rigs.metarig()
    assert bpy.ops.reach.figure_from_armature(armature=obj.name, translate_root=True) == {
        "FINISHED"
    }
    rigs.limbs(obj, hands=False)
    feet = {side: rigs.world_tail(obj, f"shin.{side}") for side in ("L", "R")}
    bpy.ops.reach.live(armature=obj.name)
    hips = obj.pose.bones["spine"]
    hips.location = (0.0, -0.06, 0.0)  # the hips drop (bone Y points up the spine)
    bpy.context.view_layer.update()
    bpy.context.view_layer.update()
    assert tuple(hips.location) == (0.0, np.float32(-0.06), 0.0)
    leg = rigs.chain_length(obj, ("thigh.L", "shin.L"))
    for side, where in feet.items():
        assert np.linalg.norm(rigs.world_tail(obj, f"shin.{side}") - where) <= 1e-4 * leg
