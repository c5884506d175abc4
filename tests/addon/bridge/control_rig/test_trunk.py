"""Chains from a control rig's trunk: Reach turns and moves the controls above the limbs
(torso, chest, hips, shoulders), written and keyed on them, met on the deform bones."""

from __future__ import annotations

import re
from types import SimpleNamespace

import bpy
import numpy as np
import pytest
from control_rigs import (
    SKELETON,
    constrained_end,
    deform_miss,
    generated,
    keyed_bones,
    limb_length,
    limb_named,
    skeleton_channels,
    switch_to,
)
from mathutils import Quaternion, Vector

TRUNKS = {
    # kind: the trunk's controls, parents first
    "human": ["torso", "hips", "chest", "shoulder.L", "shoulder.R"],
    "basic_human": ["torso", "hips", "chest", "shoulder.L", "shoulder.R"],
    "cat": ["torso", "hips", "chest", "shoulder.L", "shoulder.R"],
    "wolf": ["torso", "hips", "chest", "shoulder.L", "shoulder.R"],
    "horse": ["torso", "hips", "chest", "shoulder.L", "shoulder.R"],
    # a pivot blends the hips' and the chest's spines in world space: both are left out
    "basic_quadruped": ["torso", "shoulder.L", "shoulder.R"],
    "bird": ["torso"],
}


@pytest.mark.parametrize("kind", TRUNKS)
def test_every_kind_has_the_trunk_controls_reach_poses_exactly(reach, kind):
    obj = generated(kind)
    control_model = reach.addon.bridge.control_rig.model.control_model
    model = control_model(obj)
    trunk = model.trunk
    layers = {j.control for j in trunk.joints if j.layer}  # the spine's FK controls
    assert [c for c in trunk.controls() if c not in layers] == TRUNKS[kind]
    root = trunk.joints[0]
    assert (root.control, root.parent, root.translates) == ("torso", "", False)
    obj.reach.translate_root = True  # Move root: the root control moves too
    assert control_model(obj).trunk.joints[0].translates
    for control in trunk.controls():
        shares = {j.share for j in trunk.joints if j.control == control}
        assert len(shares) == 1  # one turn, the same part of it at every place
    for limb in model.limbs:
        hang = trunk.hangs[limb.bones[0]]
        assert hang and hang in {j.segment for j in trunk.joints}
        if "shoulder.L" in TRUNKS[kind] and limb.name.endswith(".L") and "thigh" not in limb.name:
            assert hang == "shoulder.L"  # an arm hangs from its shoulder
        elif "front" in limb.name:
            assert hang == "shoulder.L" or hang == "shoulder.R"


def out_of_reach(obj, limb, name: str, push=(0.3, -0.4, 0.2)) -> float:
    """Move the goal away by a share of the limb: only the trunk's help reaches it."""
    length = limb_length(obj, limb)
    obj.reach.constraints[name].goal.location += Vector(push) * length
    bpy.context.view_layer.update()
    return length


def solved(reach, obj, limb) -> set[str]:
    """Solve; the pose bones whose channels changed, after checking no skeleton bone did."""
    before = skeleton_channels(obj)
    channels = {b.name: tuple(b.matrix_basis.copy()) for b in obj.pose.bones}
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    assert skeleton_channels(obj) == before  # no deform, original or mechanism bone
    moved = {n for n, m in channels.items() if tuple(obj.pose.bones[n].matrix_basis) != m}
    assert not any(n.startswith(SKELETON) for n in moved)
    return moved


CHAINS = {
    # kind, limb, FK end control, IK end control
    "human arm": ("human", "upper_arm.L", "hand_fk.L", "hand_ik.L"),
    "wolf foreleg": ("wolf", "front_thigh.L", "front_foot_fk.L", "front_foot_ik.L"),
    "horse hind leg": ("horse", "thigh.L", "hind_foot_fk.L", "hind_foot_ik.L"),
    "bird leg": ("bird", "thigh.L", "foot_fk.L", "foot_ik.L"),
}


MODES = [(case, mode) for case in CHAINS for mode in ("FK", "IK")]


@pytest.mark.parametrize(("case", "mode"), MODES)
def test_a_chain_from_the_torso_reaches_past_the_limb_through_trunk_controls(reach, case, mode):
    kind, name, fk_end, ik_end = CHAINS[case]
    end = fk_end if mode == "FK" else ik_end
    obj, limb = constrained_end(reach, kind, name, mode, end, chain_start="torso", move_root=True)
    length = out_of_reach(obj, limb, "end")
    moved = solved(reach, obj, limb)
    message = obj.reach.stats.message
    # In IK mode Blender's own IK constraints place the deform bones, each to within its own
    # tolerance of its target (on the horse's hind leg 3.7e-5 × limb: MCH-lower_leg_ik.L),
    # which the verdict names where it passes 1e-5 of the figure's longest chain
    if mode == "FK":
        assert message == "all constraints met", message
    else:
        assert message.startswith("all constraints met"), message
        assert set(re.findall(r"\(([^:()]+):", message)) <= set(limb.bones), message
    assert deform_miss(obj, limb, "end") <= (1e-5 if mode == "FK" else 5e-5) * length
    assert "torso" in moved
    assert moved <= set(TRUNKS[kind]) | set(limb.controls), moved


def test_a_chain_from_the_chest_or_hips_turns_them_and_leaves_the_torso(reach):
    obj = generated("human")
    arm, leg = limb_named(reach, obj, "upper_arm.L"), limb_named(reach, obj, "thigh.L")
    for limb in (arm, leg):
        switch_to(obj, limb, 1.0)
    arm, leg = limb_named(reach, obj, "upper_arm.L"), limb_named(reach, obj, "thigh.L")  # FK
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    for bone, start, name in (("hand_fk.L", "chest", "hand"), ("foot_fk.L", "hips", "foot")):
        assert bpy.ops.reach.add_constraint(
            armature=obj.name, bone=bone, effector="HEAD", name=name, chain_start=start
        ) == {"FINISHED"}
    out_of_reach(obj, arm, "hand", push=(0.15, -0.2, 0.1))
    out_of_reach(obj, leg, "foot", push=(0.1, -0.15, 0.0))
    moved = solved(reach, obj, arm)
    assert obj.reach.stats.message == "all constraints met", obj.reach.stats.message
    assert {"chest", "hips"} <= moved and "torso" not in moved
    assert moved <= {"chest", "hips", "shoulder.L"} | set(arm.controls) | set(leg.controls)
    for limb, name in ((arm, "hand"), (leg, "foot")):
        assert deform_miss(obj, limb, name) <= 1e-5 * limb_length(obj, limb)
    with pytest.raises(RuntimeError, match=r"chain start 'chest' is not above 'foot_fk\.L'"):
        bpy.ops.reach.add_constraint(armature=obj.name, bone="foot_fk.L", chain_start="chest")


def test_lowered_hips_keep_the_feet_where_they_are_pinned(reach):
    obj = generated("human")
    legs = [limb_named(reach, obj, f"thigh.{side}") for side in "LR"]
    assert bpy.ops.reach.figure_from_armature(armature=obj.name, translate_root=True) == {
        "FINISHED"
    }
    for side in "LR":
        assert bpy.ops.reach.add_constraint(
            armature=obj.name, bone=f"foot_ik.{side}", effector="HEAD", name=f"foot.{side}"
        ) == {"FINISHED"}
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone="torso", effector="HEAD", name="hips"
    ) == {"FINISHED"}
    drop = 0.1 * limb_length(obj, legs[0])
    obj.reach.constraints["hips"].goal.location.z -= drop
    bpy.context.view_layer.update()
    feet = {s: obj.matrix_world @ obj.pose.bones[f"DEF-foot.{s}"].head for s in "LR"}
    moved = solved(reach, obj, legs[0])
    assert obj.reach.stats.message == "all constraints met", obj.reach.stats.message
    assert "torso" in moved
    torso = obj.matrix_world @ obj.pose.bones["torso"].head
    assert (torso - obj.reach.constraints["hips"].goal.matrix_world.translation).length < 1e-5
    for side, leg in zip("LR", legs, strict=True):
        foot = obj.matrix_world @ obj.pose.bones[f"DEF-foot.{side}"].head
        assert (foot - feet[side]).length <= 1e-5 * limb_length(obj, leg), side


def test_the_figure_holds_while_reach_moves_the_trunk_and_is_rebuilt_after_a_spine_tweak(reach):
    obj = generated("basic_human")
    arm = limb_named(reach, obj, "upper_arm.L")
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone="hand_ik.L", effector="HEAD", name="hand", chain_start="torso"
    ) == {"FINISHED"}
    out_of_reach(obj, arm, "hand")
    rig = reach.addon.bridge.kinds.figure_rig(obj)
    assert "torso" in solved(reach, obj, arm)
    assert rig.is_current(obj)  # Reach's own write: the same figure serves the next event
    theta = reach.addon.bridge.control_rig.figure.read_model(obj, rig)
    again = reach.addon.bridge.kinds.figure_rig(obj)
    assert abs(theta - reach.addon.bridge.control_rig.figure.read_model(obj, again)).max() < 1e-5
    obj.pose.bones["spine_fk.002"].rotation_quaternion = Quaternion((1.0, 0.0, 0.0), 0.2)
    bpy.context.view_layer.update()
    assert rig.is_current(obj)  # a spine FK control is a joint of the figure: read, not rebuilt
    obj.pose.bones["tweak_spine.003"].location.z += 0.02
    bpy.context.view_layer.update()
    assert not rig.is_current(obj)  # a control Reach leaves as set moved the limb's hang


def test_a_figure_is_carried_along_when_its_root_control_or_the_armature_moves(reach):
    obj = generated("basic_human")
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    read_model = reach.addon.bridge.control_rig.figure.read_model
    rig = reach.addon.bridge.kinds.figure_rig(obj)
    obj.pose.bones["upper_arm_fk.L"].rotation_quaternion = Quaternion((1.0, 0.0, 0.0), 0.3)
    bpy.context.view_layer.update()
    assert rig.now(obj) is rig  # a joint of the figure turned: read, as built
    for move in ("root", "object"):  # the torso's location is no DOF of this figure
        if move == "root":
            obj.pose.bones["torso"].location = (0.03, -0.2, 0.05)
        else:
            obj.location = (0.5, 0.25, -0.1)
        bpy.context.view_layer.update()
        carried = rig.now(obj)
        assert carried is not None and carried is not rig, move
        assert carried.layout is rig.layout  # the same bones: comfort and writer are kept
        built = reach.addon.bridge.kinds.figure_rig(obj)
        theta = read_model(obj, carried)
        assert abs(theta - read_model(obj, built)).max() < 1e-6, move
        frames, again = carried.figure.forward(theta), built.figure.forward(theta)
        assert abs(frames - again).max() < 1e-6, move
        assert carried.now(obj) is carried, move
        rig = carried
    obj.pose.bones["tweak_spine.003"].location.z += 0.02
    bpy.context.view_layer.update()
    assert rig.now(obj) is None  # a control Reach leaves as set moved: built again


def test_a_bake_from_the_torso_keys_the_trunk_and_limb_controls_only(reach):
    obj = generated("basic_human")
    arm = limb_named(reach, obj, "upper_arm.L")
    switch_to(obj, arm, 1.0)
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone="hand_fk.L", effector="HEAD", name="hand", chain_start="torso"
    ) == {"FINISHED"}
    goal = obj.reach.constraints["hand"].goal
    start = goal.location.copy()
    for frame, push in ((1, 0.1), (4, 0.35)):
        goal.location = start + Vector((0.3, -0.4, 0.2)) * push * limb_length(obj, arm)
        goal.keyframe_insert("location", frame=frame)
    assert bpy.ops.reach.bake(armature=obj.name, frame_start=1, frame_end=4) == {"FINISHED"}
    keyed = keyed_bones(reach, obj)
    assert "torso" in keyed and keyed <= {"torso", "chest", "shoulder.L", *arm.fk}, keyed
    for frame in range(1, 5):
        bpy.context.scene.frame_set(frame)
        assert deform_miss(obj, arm, "hand") <= 1e-5 * limb_length(obj, arm), frame


def test_a_small_turn_of_a_spread_control_is_written_and_read_back_exactly(reach):
    """A share of a turn of a ten-thousandth of a radian: Blender's pose is the figure's, to
    single precision (a lost turn would put the hips 1e-4 of the leg off)."""
    bridge = reach.addon.bridge
    obj = generated("human")
    switch_to(obj, limb_named(reach, obj, "thigh.L"), 1.0)  # FK: the leg follows the hips
    rig = bridge.kinds.figure_rig(obj)
    theta = bridge.control_rig.figure.read_model(obj, rig)
    index = {entry.name: entry for entry in rig.layout}
    model = rig.kind.model
    shares = [j.segment for j in model.trunk.joints if j.control == "hips"]
    for segment in shares:  # the same angles at every share
        entry = index[segment]
        theta[entry.rotation : entry.rotation + 3] += (1e-4, -2e-5, 3e-5)
    write_model = bridge.control_rig.writing.write_model
    written = write_model(obj, rig, model, theta, shares, bpy.context.view_layer)
    assert written.controls == ["hips"]
    bpy.context.view_layer.update()
    frames = rig.figure.forward(theta)
    size = limb_length(obj, limb_named(reach, obj, "thigh.L"))
    for k, entry in enumerate(rig.layout):
        if entry.name in shares or entry.name == "ORG-thigh.L":
            pose = obj.matrix_world @ obj.pose.bones[entry.name].matrix
            assert abs(np.array(pose) - frames[k]).max() <= 1e-5 * size, entry.name
    back = bridge.control_rig.figure.read_model(obj, rig, theta)
    for segment in shares:  # read back as written (the IK legs, not written, moved on)
        entry = index[segment]
        turned = slice(entry.rotation, entry.rotation + 3)
        assert abs(back[turned] - theta[turned]).max() < 1e-6


@pytest.mark.parametrize("share", [0.25, 1 / 3, 0.5, 1.0])
def test_the_power_of_a_turn_keeps_its_axis_and_scales_its_angle(reach, share):
    trunk = reach.addon.bridge.control_rig.trunk

    def power(quaternion, exponent):
        return trunk.powers(np.asarray(quaternion)[None], np.array([exponent]))[0]

    joint = SimpleNamespace(share=share)
    for axis, angle in (((0.3, 0.5, -0.2), 0.9), ((1.0, 0.0, 0.0), 1e-6), ((0.0, 0.6, 0.8), 3.0)):
        unit = np.array(axis) / np.linalg.norm(axis)
        turn = np.array([np.cos(angle / 2), *(np.sin(angle / 2) * unit)])
        part = power(turn, share)
        half = share * angle / 2
        assert abs(part - np.array([np.cos(half), *(np.sin(half) * unit)])).max() < 1e-12
        assert abs(power(part, 1.0 / share) - turn).max() < 1e-12
        assert abs(power(-turn, share) - part).max() < 1e-12  # either sign of the same turn
        # the control's turn for a segment that turned by the share's part: the whole
        # turn, in single precision (as the control's channels keep it)
        motion = np.eye(4)
        motion[:3, :3] = np.array(Quaternion(part).to_matrix())
        control = trunk.control_quaternion(joint, motion)
        assert abs(np.array(control) - turn).max() < 1e-6


def test_a_shares_control_quaternion_is_the_power_of_its_turn(reach):
    """The control's turn for one segment's motion, found on Python's floats, is
    :func:`powers`' of the segment's quaternion to rounding: random turns, tiny ones and
    ones near a half turn, at every share a trunk has."""
    trunk = reach.addon.bridge.control_rig.trunk
    rotations = reach.solver.rotations
    rng = np.random.default_rng(3)
    angles = [*rng.uniform(0.0, np.pi, 40), 0.0, 1e-12, 1e-7, np.pi - 1e-9]
    for angle in angles:
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        motion = np.eye(4)
        motion[:3, :3] = rotations.quaternion_matrix(
            np.array([np.cos(angle / 2), *(np.sin(angle / 2) * axis)])
        )
        for share in (0.25, 1 / 3, 0.5, 2 / 3):
            got = trunk.control_quaternion(SimpleNamespace(share=share), motion)
            turn = rotations.matrix_quaternion(motion[:3, :3])
            want = trunk.powers(turn[None], np.array([1.0 / share]))[0]
            assert abs(got - want).max() <= 1e-14, (angle, share)


@pytest.mark.parametrize("order", ["XYZ", "YXZ", "ZXY", "ZYX"])
def test_a_trunk_segments_batched_turn_is_its_motions_own(reach, order):
    """The turns the trunk's write gives its segments from θ in one batch of quaternions are
    the turns of each segment's motion matrix, to rounding: segments turning about their
    own axes and about a joint's own axes, with w ≥ 0, and the root's move is θ's."""
    writing = reach.addon.bridge.control_rig.writing
    rig, rotations = reach.addon.bridge.rig, reach.solver.rotations
    rng = np.random.default_rng(7)
    frame = rotations.quaternion_matrix(rng.normal(size=4))
    entries = [
        rig.BoneLayout("root", "QUATERNION", order, translation=0, rotation=3),
        rig.BoneLayout("spine", "QUATERNION", order, translation=-1, rotation=6),
        rig.BoneLayout("chest", "XYZ", order, translation=-1, rotation=9, frame=frame),
    ]
    for _ in range(50):
        theta = rng.uniform(-np.pi, np.pi, 12)
        turns = writing._turns(theta, entries)
        for entry in entries:
            turn, move = turns[entry.name]
            want = rotations.matrix_quaternion(writing._motion(theta, entry)[:3, :3])
            assert turn[0] >= 0.0
            assert np.abs(turn - want).max() < 1e-14 or np.abs(turn + want).max() < 1e-14
            if entry.translation >= 0:
                assert move is not None and (move == theta[0:3]).all()
            else:
                assert move is None
