"""The limbs of control rigs (``bridge.control_rig.limbs``), on rigs Rigify generates."""

from __future__ import annotations

import bpy
import pytest
from control_rigs import generated, switch_to

KINDS = {
    # kind: (limbs, IK end controls of the left limbs)
    "human": (4, {"hand_ik.L", "foot_ik.L"}),
    "basic_human": (4, {"hand_ik.L", "foot_ik.L"}),
    "basic_quadruped": (4, {"front_foot_ik.L", "foot_ik.L"}),
    "cat": (4, {"hand_ik.L", "foot_ik.L"}),
    "wolf": (4, {"front_foot_ik.L", "foot_ik.L"}),
    "horse": (4, {"forefoot_ik.L", "hind_foot_ik.L"}),
    "bird": (2, {"foot_ik.L"}),
    "shark": (0, set()),
}


@pytest.mark.parametrize("kind", KINDS)
def test_every_rigify_kind_has_its_limbs_with_skeleton_chains_and_controls(reach, kind):
    controls = reach.addon.bridge.control_rig.limbs
    obj = generated(kind)
    limbs = controls.find_limbs(obj)
    count, ends = KINDS[kind]
    assert len(limbs) == count
    assert {limb.ik_controls[0] for limb in limbs if limb.name.endswith(".L")} == ends
    bones = obj.pose.bones
    for limb in limbs:
        assert limb.mode == "IK" and limb.ik_share == 1.0  # Rigify's default
        assert len(limb.bones) >= 3
        assert all(name.startswith("ORG-") for name in limb.bones)
        for parent, child in zip(limb.bones, limb.bones[1:], strict=False):
            assert bones[child].parent.name == parent  # one chain, root first
        assert all(controls.is_control(name) and name in bones for name in limb.fk[:3])
        assert limb.ik_base in bones and limb.pole in bones
        assert all(controls.is_control(name) for name in limb.ik_controls)
        assert limb.controls[0] == limb.ik_controls[0]
        assert limb.controls[-1] == limb.ik_base  # no pole in use: the base's twist swivels


def test_the_switch_and_the_pole_change_what_reach_drives(reach):
    controls = reach.addon.bridge.control_rig.limbs
    obj = generated("basic_human")
    arm = next(limb for limb in controls.find_limbs(obj) if limb.name == "upper_arm.L")
    assert arm.controls == ("hand_ik.L", "upper_arm_ik.L")
    switch_to(obj, arm, 1.0)
    fk = next(limb for limb in controls.find_limbs(obj) if limb.name == "upper_arm.L")
    assert fk.mode == "FK" and fk.ik_share == 0.0
    assert fk.controls == ("upper_arm_fk.L", "forearm_fk.L", "hand_fk.L")
    assert fk.describe() == "upper_arm.L (FK): upper_arm_fk.L, forearm_fk.L, hand_fk.L"
    switch_to(obj, arm, 0.25)
    mixed = next(limb for limb in controls.find_limbs(obj) if limb.name == "upper_arm.L")
    assert mixed.mode == "MIXED" and mixed.ik_share == pytest.approx(0.75)
    assert "blended 75% IK" in mixed.describe()
    assert "'IK_FK' on 'upper_arm_parent.L'" in mixed.describe()
    switch_to(obj, arm, 0.0)
    obj.pose.bones[arm.settings]["pole_vector"] = True
    obj.update_tag()
    bpy.context.view_layer.update()
    poled = next(limb for limb in controls.find_limbs(obj) if limb.name == "upper_arm.L")
    assert poled.uses_pole
    assert poled.controls == ("hand_ik.L", "upper_arm_ik_target.L")


def test_without_rigifys_interface_text_the_constraints_alone_find_the_controls(reach):
    controls = reach.addon.bridge.control_rig.limbs
    obj = generated("basic_human")
    with_text = {limb.name: limb for limb in controls.find_limbs(obj)}
    bpy.data.texts.remove(bpy.data.texts["rig_ui.py"])
    alone = {limb.name: limb for limb in controls.find_limbs(obj)}
    assert alone.keys() == with_text.keys()
    for name, limb in alone.items():
        listed = with_text[name]
        assert limb.ik_controls[0] == listed.ik_controls[0]  # hand_ik, foot_ik
        assert (limb.ik_base, limb.pole) == (listed.ik_base, listed.pole)
        assert (limb.bones, limb.fk, limb.ik) == (listed.bones, listed.fk, listed.ik)


def test_a_plain_skeleton_has_no_limbs_and_make_figure_keeps_its_warnings(reach, capfd):
    obj = generated("basic_human")
    metarig = bpy.data.objects["metarig"]
    assert reach.addon.bridge.control_rig.limbs.find_limbs(metarig) == []
    metarig.pose.bones["forearm.L"].constraints.new("LIMIT_ROTATION")
    assert bpy.ops.reach.figure_from_armature(armature=metarig.name) == {"FINISHED"}
    assert "1 bone(s) with bone constraints" in capfd.readouterr().out
    assert obj.name != metarig.name


def test_make_figure_on_a_control_rig_names_its_limbs_not_its_mechanism(reach, capfd):
    obj = generated("basic_human")
    capfd.readouterr()
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    out = capfd.readouterr().out
    assert "control rig: 4 switchable limb(s)" in out
    assert "upper_arm.L (IK): hand_ik.L, upper_arm_ik.L" in out
    assert "thigh.R (IK): foot_ik.R, toe_ik.R, thigh_ik.R" in out
    trunk = "trunk: torso (turns; Move root moves it too), hips (turns 2 spine bones), "
    trunk += "chest (turns 2 spine bones), shoulder.L, shoulder.R; a limb's constraint with"
    assert trunk in out
    fk = "the spine's FK controls spine_fk.001, spine_fk, spine_fk.002, spine_fk.003 stay as set"
    assert fk in out
    assert "bone constraints" not in out and "driven by drivers" not in out


@pytest.mark.parametrize("deleted", ["MCH-forearm_ik.L", "forearm_fk.L"])
def test_a_broken_rig_is_named_with_the_way_out_and_nothing_changes(reach, deleted):
    obj = generated("basic_human")
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    obj.data.edit_bones.remove(obj.data.edit_bones[deleted])
    bpy.ops.object.mode_set(mode="OBJECT")
    with pytest.raises(
        RuntimeError, match=r"control rig 'rig' is broken: .*generate the rig again"
    ):
        bpy.ops.reach.figure_from_armature(armature=obj.name)
    assert not obj.reach.is_figure
