"""Human Limits on control rigs: the limbs' FK controls get a body's joints (own axes,
hinges, swing polygons and twist), and Reach holds them on the skeleton it solves."""

from __future__ import annotations

import math

import bpy
from control_rigs import constrained_end, generated, limb_length
from mathutils import Vector

LIMITED = {
    "forearm_fk.L", "forearm_fk.R", "shin_fk.L", "shin_fk.R", "thigh_fk.L", "thigh_fk.R",
    "upper_arm_fk.L", "upper_arm_fk.R",
}  # fmt: skip


def test_human_limits_on_a_control_rig_limit_the_controls_reach_turns(reach, capfd):
    obj = generated("human")
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    assert bpy.ops.reach.human_limits(armature=obj.name) == {"FINISHED"}
    out = capfd.readouterr().out
    assert f"human limits on {len(LIMITED)} bones: {', '.join(sorted(LIMITED))}" in out
    limited = {j.name for j in obj.reach.joints if j.use_axes}
    assert limited == LIMITED
    rig = reach.addon.bridge.kinds.figure_rig(obj)
    assert rig.warnings == []
    controls = reach.addon.bridge.control_rig.figure.turned_by(rig.kind.model, rig.layout)
    for name in LIMITED:  # each control's segment turns about the control's own axes
        assert controls[name].frame is not None, name
    labels = " ".join(rig.figure.limits.in_labels)
    polygons = {n for n in LIMITED if len(obj.reach.joints[n].polygon) >= 3}
    assert {"thigh_fk.L", "thigh_fk.R", "upper_arm_fk.L", "upper_arm_fk.R"} <= polygons
    assert all(f"polygon of {n} edge" in labels for n in polygons)


def swung_out(obj, degrees: float) -> None:
    """Put the left foot's goal where the leg, straight, swings ``degrees`` out sideways."""
    hip = obj.matrix_world @ obj.pose.bones["ORG-thigh.L"].head
    length = sum(obj.data.bones[b].length for b in ("ORG-thigh.L", "ORG-shin.L"))
    angle = math.radians(degrees)
    goal = obj.reach.constraints["end"].goal
    goal.location = hip + Vector((math.sin(angle), 0.0, -math.cos(angle))) * 0.98 * length
    bpy.context.view_layer.update()


def test_an_fk_thigh_is_held_within_its_swing_on_the_control_rig_as_on_a_skeleton(reach):
    # (in IK mode Blender's own IK places the chain between its end and its twist, and
    # Rigify's IK stretch scales it: only the end is Reach's there)
    obj, leg = constrained_end(reach, "human", "thigh.L", "FK", "foot_fk.L")
    swung_out(obj, 75.0)
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    assert obj.reach.stats.message.startswith("all constraints met")  # no limits: met
    for bone in obj.pose.bones:  # back to the rest pose
        bone.location, bone.rotation_quaternion = (0.0, 0.0, 0.0), (1.0, 0.0, 0.0, 0.0)
        bone.rotation_euler = (0.0, 0.0, 0.0)
    bpy.context.view_layer.update()
    assert bpy.ops.reach.human_limits(armature=obj.name) == {"FINISHED"}
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    stats = obj.reach.stats
    assert stats.message.startswith("not met"), stats.message
    assert "polygon of thigh_fk.L edge" in stats.reasons, stats.reasons
    rig = reach.addon.bridge.kinds.figure_rig(obj)
    theta = reach.addon.bridge.control_rig.figure.read_model(obj, rig)
    assert rig.figure.limits.max_violation(theta) <= 1e-5  # Blender's single precision
    # the foot still goes as far out as the hip lets it
    foot = obj.matrix_world @ obj.pose.bones["DEF-foot.L"].head
    hip = obj.matrix_world @ obj.pose.bones["ORG-thigh.L"].head
    assert (foot - hip).x > 0.3 * limb_length(obj, leg)


def test_a_polygon_on_a_bone_reach_does_not_turn_is_said_to_limit_nothing(reach, capfd):
    obj = generated("basic_human")
    joint = obj.reach.joints.add()
    joint.name = "DEF-thigh.L"
    for vertex in ((0.3, 0.0), (0.0, 0.3), (-0.3, -0.3)):
        joint.polygon.add().value = vertex
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    out = capfd.readouterr().out
    assert "limit polygons of DEF-thigh.L limit nothing on this control rig" in out
