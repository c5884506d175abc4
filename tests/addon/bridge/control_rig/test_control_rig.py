"""Reach's operators on rigs Rigify generates in the test: solved on the limbs' skeleton,
written and keyed only on the controls of each limb's mode, met on the deform bones."""

from __future__ import annotations

import re

import bpy
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
from mathutils import Euler, Matrix, Quaternion, Vector

LIMB_ENDS = {
    # kind: (limb, FK end control, IK end control)
    "basic_human": ("upper_arm.L", "hand_fk.L", "hand_ik.L"),
    "human": ("thigh.L", "foot_fk.L", "foot_ik.L"),
    "basic_quadruped": ("front_thigh.L", "front_foot_fk.L", "front_foot_ik.L"),
    "cat": ("thigh.L", "foot_fk.L", "foot_ik.L"),
    "wolf": ("front_thigh.L", "front_foot_fk.L", "front_foot_ik.L"),
    "horse": ("thigh.L", "hind_foot_fk.L", "hind_foot_ik.L"),
    "bird": ("thigh.L", "foot_fk.L", "foot_ik.L"),
}


def reachable_goal(obj, limb, constraint: str) -> None:
    """Move the goal toward the limb's root by a fifth: the limb bends to reach it."""
    goal = obj.reach.constraints[constraint].goal
    root = obj.matrix_world @ obj.pose.bones[limb.bones[0]].head
    goal.location = goal.location.lerp(root, 0.2)
    bpy.context.view_layer.update()


@pytest.mark.parametrize("kind", LIMB_ENDS)
@pytest.mark.parametrize("mode", ["FK", "IK"])
def test_solve_poses_a_limb_through_its_controls_and_meets_on_the_deform_bones(reach, kind, mode):
    name, fk_end, ik_end = LIMB_ENDS[kind]
    obj, limb = constrained_end(reach, kind, name, mode, fk_end if mode == "FK" else ik_end)
    reachable_goal(obj, limb, "end")
    before = skeleton_channels(obj)
    controls = {b.name: tuple(b.matrix_basis.copy()) for b in obj.pose.bones}
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    assert obj.reach.stats.message == "all constraints met", obj.reach.stats.message
    assert deform_miss(obj, limb, "end") <= 1e-5 * limb_length(obj, limb)
    assert skeleton_channels(obj) == before  # no deform, original or mechanism bone
    moved = {n for n, m in controls.items() if tuple(obj.pose.bones[n].matrix_basis) != m}
    mode_controls = set(limb_named(reach, obj, name).controls)
    assert moved and moved <= mode_controls, (moved, mode_controls)
    assert not any(n.startswith(SKELETON) for n in moved)


@pytest.mark.parametrize(("kind", "name"), [("cat", "upper_arm.L"), ("wolf", "thigh.L")])
def test_a_paw_dragged_in_ik_mode_turns_its_heel_and_stays_met(reach, kind, name):
    """A front paw (its heel below a damped track) and a hind paw (below a second IK
    chain), dragged far enough that the rig's IK stretch shrinks the chain by 1%."""
    obj = generated(kind)
    limb = limb_named(reach, obj, name)
    end, heel = limb.ik_controls
    goal, root = constrained(obj, limb, end, "paw")
    start = goal.location.copy()
    path = [{"name": "", "location": tuple(start.lerp(root, 0.005 * k))} for k in range(1, 41)]
    before = skeleton_channels(obj)
    assert bpy.ops.reach.drag_goal(armature=obj.name, goal=goal.name, path=path) == {"FINISHED"}
    assert obj.reach.stats.message == "all constraints met", obj.reach.stats.message
    assert deform_miss(obj, limb, "paw") <= 1e-5 * limb_length(obj, limb)
    assert skeleton_channels(obj) == before
    assert heel in limb.controls
    turned = obj.pose.bones[heel]
    assert turned.rotation_quaternion.angle > 1e-3  # the heel took up the paw's turn
    foot = obj.pose.bones[limb.bones[limb.chain_end]]
    stretch = max(abs(s - 1.0) for s in foot.matrix.to_scale())  # along or across it
    assert stretch * foot.bone.length <= 1e-5 * limb_length(obj, limb)
    assert max(turned.scale) - min(turned.scale) <= 1e-5  # no shear creeping in


def test_a_chain_from_outside_the_limb_names_the_controls_to_start_from(reach):
    obj = generated("basic_human")
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    above = "torso, chest, spine_fk.002, spine_fk.003, shoulder.L, upper_arm_fk.L, forearm_fk.L"
    for start in ("thigh_fk.L", "tweak_spine.003"):  # another limb's; a spine tweak left as set
        refused = rf"chain start '{start}' is not above 'hand_ik.L'.*{above}"
        with pytest.raises(RuntimeError, match=refused):
            bpy.ops.reach.add_constraint(
                armature=obj.name, bone="hand_ik.L", effector="HEAD", chain_start=start
            )
    assert len(obj.reach.constraints) == 0
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone="DEF-forearm.L.001", effector="TAIL", chain_start="upper_arm_fk.L"
    ) == {"FINISHED"}
    limb = limb_named(reach, obj, "upper_arm.L")
    reachable_goal(obj, limb, obj.reach.constraints[0].name)
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    assert obj.reach.stats.message == "all constraints met"


def constrained(obj, limb, bone: str, name: str):
    """A figure with one constraint on ``bone``'s head; its goal, where the limb starts."""
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone=bone, effector="HEAD", name=name
    ) == {"FINISHED"}
    goal = obj.reach.constraints[name].goal
    return goal, obj.matrix_world @ obj.pose.bones[limb.bones[0]].head


def test_a_drag_with_auto_keying_keys_only_the_controls_it_moved(reach):
    obj = generated("basic_human")
    limb = limb_named(reach, obj, "upper_arm.L")
    goal, root = constrained(obj, limb, "hand_ik.L", "hand")
    start = goal.location.copy()
    path = [{"name": "", "location": tuple(start.lerp(root, 0.04 * k))} for k in range(1, 8)]
    bpy.context.scene.tool_settings.use_keyframe_insert_auto = True
    before = skeleton_channels(obj)
    assert bpy.ops.reach.drag_goal(armature=obj.name, goal=goal.name, path=path) == {"FINISHED"}
    assert obj.reach.stats.message == "all constraints met"
    assert deform_miss(obj, limb, "hand") <= 1e-5 * limb_length(obj, limb)
    assert skeleton_channels(obj) == before
    assert keyed_bones(reach, obj) == {"hand_ik.L", "upper_arm_ik.L"}


@pytest.mark.parametrize("mode", ["FK", "IK"])
def test_a_bake_keys_only_controls_and_holds_the_goal_on_every_frame(reach, mode):
    """Frames planned in one pass and judged once keyed: an FK leg exactly, an IK leg
    within the "met within" distance (a frame Blender's IK poses further off is placed
    again from that pose and keyed again)."""
    obj = generated("basic_human")
    limb = limb_named(reach, obj, "thigh.L")
    switch_to(obj, limb, 1.0 if mode == "FK" else 0.0)
    limb = limb_named(reach, obj, "thigh.L")
    goal, root = constrained(obj, limb, "foot_fk.L" if mode == "FK" else "foot_ik.L", "foot")
    start = goal.location.copy()
    for frame, share in ((1, 0.05), (5, 0.25)):
        goal.location = start.lerp(root, share)
        goal.keyframe_insert("location", frame=frame)
    assert bpy.ops.reach.bake(armature=obj.name, frame_start=1, frame_end=5) == {"FINISHED"}
    keyed = keyed_bones(reach, obj)  # the controls of the leg's mode, no other
    assert keyed == set(limb.fk) if mode == "FK" else keyed and keyed <= set(limb.controls)
    for frame in range(1, 6):
        bpy.context.scene.frame_set(frame)
        exact = 1e-5 * limb_length(obj, limb) if mode == "FK" else obj.reach.reach_distance
        assert deform_miss(obj, limb, "foot") <= exact, frame


def _planned_and_written(reach, obj, limb, before):
    """A bake's frame of the rig's constraints, planned with nothing written (the pose
    ``before``), then written and met on the deform bones; its step."""
    layer = bpy.context.view_layer
    poser = reach.addon.bridge.posing.Poser(obj, bpy.context.scene, layer)
    step = poser.bake_frame(first=True, write=False, reread=True)
    assert step.channels is not None and not step.written
    assert all(b.matrix_basis == before[b.name] for b in obj.pose.bones)  # nothing written
    poser.writer.write(obj, step.outcome.result.theta, layer)
    layer.update()
    assert deform_miss(obj, limb, "end") <= 1e-5 * limb_length(obj, limb)
    return step


def _as_written(reach, channels, bones, controls) -> None:
    """Each of ``controls`` has the rotation and location ``channels`` planned for it,
    as written (to single precision)."""
    for control in controls:
        pose_bone, row = bones[control], bones.find(control)
        mode = pose_bone.rotation_mode
        channel = reach.addon.bridge.keys.rotation_channel(mode)
        planned = _turn(channels[channel][row], mode)
        now = _turn(getattr(pose_bone, channel), mode)
        assert max(abs(v) for r in planned - now for v in r) < 2e-6, control
        assert (Vector(channels["location"][row]) - pose_bone.location).length < 2e-6


def _turn(values, mode: str) -> Matrix:
    """The rotation matrix of a bone's rotation channel ``values`` in ``mode``."""
    if mode == "QUATERNION":
        return Quaternion(values).to_matrix()
    if mode == "AXIS_ANGLE":
        return Matrix.Rotation(values[0], 3, Vector(values[1:]))
    return Euler(values, mode).to_matrix()


@pytest.mark.parametrize(
    ("kind", "mode"), [("basic_human", "FK"), ("wolf", "FK"), ("basic_human", "IK")]
)
def test_a_bake_plans_a_limbs_controls_unwritten_as_a_write_places_them(reach, kind, mode):
    """One pass from the evaluated pose places a limb's controls (in FK mode its FK
    controls, in IK mode its end control, Blender's IK bending the chain in its plane),
    so a bake's frame gives their channels without writing them: those a write gives
    (to single precision), which meet the goal on the deform bones."""
    name, fk_end, ik_end = LIMB_ENDS[kind]
    obj, limb = constrained_end(reach, kind, name, mode, fk_end if mode == "FK" else ik_end)
    reachable_goal(obj, limb, "end")
    before = {b.name: b.matrix_basis.copy() for b in obj.pose.bones}
    step = _planned_and_written(reach, obj, limb, before)
    bones = obj.pose.bones
    moved = [c for c in limb.controls if bones[c].matrix_basis != before[c]]
    assert moved
    _as_written(reach, step.channels, bones, moved)


@pytest.mark.parametrize("turns", [False, True], ids=["moves", "turns"])
def test_a_bake_plans_the_limbs_below_a_torso_that_only_moves(reach, turns):
    """A chain from the torso with Move root on: where the trunk's controls keep their
    turns (their IK locked) and only the torso moves, the limb below is carried rigidly,
    so a bake's frame gives the torso's and the FK controls' channels unwritten, those a
    write gives; where the trunk turns, only Blender's evaluation shows where the limb
    hangs, and the frame is written and judged."""
    name, fk_end, _ = LIMB_ENDS["basic_human"]
    obj, limb = constrained_end(reach, "basic_human", name, "FK", fk_end, "torso", True)
    if not turns:  # every trunk control's turn locked: only the torso may move
        model = reach.addon.bridge.control_rig.model.control_model(obj)
        for control in {joint.control for joint in model.trunk.joints}:
            bone = obj.pose.bones[control]
            bone.lock_ik_x = bone.lock_ik_y = bone.lock_ik_z = True
    goal = obj.reach.constraints["end"].goal
    goal.location.y -= 0.5 * limb_length(obj, limb)  # beyond the arm: the torso moves
    scene, layer = bpy.context.scene, bpy.context.view_layer
    layer.update()
    before = {b.name: b.matrix_basis.copy() for b in obj.pose.bones}
    if turns:
        step = reach.addon.bridge.posing.Poser(obj, scene, layer).bake_frame(
            first=True, write=False, reread=True
        )
        assert step.channels is None and step.written
        return
    step = _planned_and_written(reach, obj, limb, before)
    bones = obj.pose.bones
    moved = [b.name for b in bones if b.matrix_basis != before[b.name]]
    assert "torso" in moved and set(moved) - {"torso"} <= set(limb.controls)
    assert (bones["torso"].location - before["torso"].translation).length > 0.01
    _as_written(reach, step.channels, bones, moved)


def test_a_paws_frame_in_ik_mode_is_written_and_judged_as_it_is_solved(reach):
    """A paw's heel control is placed from the rig's evaluation of its end: no pass
    without it foresees the paw, so the bake's frame is written and judged."""
    name, _, ik_end = LIMB_ENDS["wolf"]
    obj, limb = constrained_end(reach, "wolf", name, "IK", ik_end)
    reachable_goal(obj, limb, "end")
    poser = reach.addon.bridge.posing.Poser(obj, bpy.context.scene, bpy.context.view_layer)
    step = poser.bake_frame(first=True, write=False, reread=True)
    assert step.channels is None and step.written
    assert deform_miss(obj, limb, "end") <= 1e-5 * limb_length(obj, limb)


def test_a_control_of_no_limb_is_refused_with_the_limbs_to_choose_from(reach):
    obj = generated("basic_human")
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    choices = r"constrain a limb's control \(thigh\.L \(IK\): foot_ik\.L, toe_ik\.L, thigh_ik\.L"
    starts = (
        "the trunk's torso, hips, spine_fk.001, spine_fk, chest, spine_fk.002, spine_fk.003, "
        "shoulder.L, shoulder.R may start its chain"
    )
    beyond = r"or constrain a control beyond the trunk \(neck, head, breast\.L, breast\.R\)"
    with pytest.raises(
        RuntimeError, match=rf"'tweak_spine.001' moves with no limb .*{choices}.*{starts}; {beyond}"
    ):
        bpy.ops.reach.add_constraint(armature=obj.name, bone="tweak_spine.001", effector="HEAD")
    with pytest.raises(RuntimeError, match=r"'chest' turns the spine by parts .* or torso$"):
        bpy.ops.reach.add_constraint(armature=obj.name, bone="chest", effector="HEAD")
    assert len(obj.reach.constraints) == 0


def test_the_fk_controls_ik_limits_hold_and_joint_groups_are_said_to_not(reach, capfd):
    obj = generated("basic_human")
    limb = limb_named(reach, obj, "upper_arm.L")
    switch_to(obj, limb, 1.0)
    forearm = obj.pose.bones["forearm_fk.L"]
    forearm.use_ik_limit_x = True
    forearm.ik_min_x, forearm.ik_max_x = -0.3, 0.0  # the elbow bends at most 0.3 rad
    forearm.lock_ik_y = forearm.lock_ik_z = True  # and only about X
    group = obj.reach.groups.add()
    group.name = "elbows"
    group.members.add().bone = "forearm_fk.L"
    goal, root = constrained(obj, limb, "hand_fk.L", "hand")
    assert "joint groups (elbows) do not tie a control rig's controls" in capfd.readouterr().out
    goal.location = goal.location.lerp(root, 0.5)  # needs more elbow than the limit allows
    bpy.context.view_layer.update()
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    assert "held by forearm_fk.L rotation X" in obj.reach.stats.reasons
    rig = reach.addon.bridge.kinds.figure_rig(obj)
    theta = reach.addon.bridge.control_rig.figure.read_model(obj, rig)
    assert rig.figure.limits.max_violation(theta) <= 1e-6


def test_a_limb_switched_mid_drag_is_posed_in_its_new_mode_or_refused_blended(reach):
    name, _, ik_end = LIMB_ENDS["basic_human"]
    obj, limb = constrained_end(reach, "basic_human", name, "IK", ik_end)
    goal = obj.reach.constraints["end"].goal
    start, root = goal.location.copy(), obj.matrix_world @ obj.pose.bones[limb.bones[0]].head
    session = reach.addon.drag_session.DragSession(bpy.context, obj, goal)
    first = session.step(start.lerp(root, 0.05))
    assert not first.unmet and not first.diverging
    switch_to(obj, limb, 1.0)  # the animator switches the arm to FK between two events
    fk = {c: obj.pose.bones[c].matrix_basis.copy() for c in limb_named(reach, obj, name).fk}
    stats = session.step(start.lerp(root, 0.1))
    assert not stats.unmet and not stats.diverging, stats
    assert deform_miss(obj, limb, "end") <= 1e-5 * limb_length(obj, limb)
    assert any(obj.pose.bones[c].matrix_basis != m for c, m in fk.items())
    switch_to(obj, limb, 0.5)  # blended: refused, that event's pose and goal put back
    pose = {b.name: b.matrix_basis.copy() for b in obj.pose.bones}
    where = goal.location.copy()
    errors = reach.addon.errors
    with pytest.raises(errors.ReachError, match=r"blended between IK and FK.*to 1 \(FK\)"):
        session.step(start.lerp(root, 0.15))
    assert {b.name: b.matrix_basis for b in obj.pose.bones} == pose
    assert goal.location == where
    session.cancel()


def test_a_rig_generated_again_under_reachs_settings_is_posed_as_before(reach):
    name, fk_end, _ = LIMB_ENDS["basic_human"]
    obj, limb = constrained_end(reach, "basic_human", name, "FK", fk_end)
    reachable_goal(obj, limb, "end")
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    metarig = next(o for o in bpy.data.objects if o.type == "ARMATURE" and o != obj)
    bpy.context.view_layer.objects.active = metarig
    assert bpy.ops.pose.rigify_generate() == {"FINISHED"}  # over the same rig object
    assert bpy.context.active_object == obj and obj.reach.constraints["end"].goal is not None
    bpy.ops.object.mode_set(mode="OBJECT")
    switch_to(obj, limb_named(reach, obj, name), 1.0)
    before = skeleton_channels(obj)
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    assert obj.reach.stats.message == "all constraints met", obj.reach.stats.message
    assert deform_miss(obj, limb, "end") <= 1e-5 * limb_length(obj, limb)
    assert skeleton_channels(obj) == before


def test_a_rig_without_limbs_is_posed_through_its_controls_or_refused_by_name(reach):
    """The shark: no switchable limbs, so Reach poses it bone by bone, controls only."""
    obj = generated("shark")
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    before = skeleton_channels(obj)
    refusals = {  # (bone, chain start): the mechanism bone named, the way out
        ("head", "torso"): ("MCH-ROT-head", "start the chain at 'head' or a control below it"),
        ("jaw", ""): ("ORG-jaw.master", "start the chain at 'jaw'"),
        ("DEF-side_fin.L.001", ""): ("DEF-side_fin.L.001", "Figure ▸ Moves With"),
    }
    for (bone, start), (mechanism, way_out) in refusals.items():
        refused = rf"moves '{re.escape(mechanism)}', which the rig poses by its own .*{way_out}"
        with pytest.raises(RuntimeError, match=refused):
            bpy.ops.reach.add_constraint(
                armature=obj.name, bone=bone, effector="TAIL", chain_start=start
            )
    assert len(obj.reach.constraints) == 0
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone="side_fin.L", effector="TAIL", chain_start="side_fin.L", name="fin"
    ) == {"FINISHED"}
    goal = obj.reach.constraints["fin"].goal
    fin = obj.data.bones["side_fin.L"]
    head = obj.matrix_world @ obj.pose.bones["side_fin.L"].head
    turn = Matrix.Rotation(0.4, 3, Vector((1.0, 2.0, 3.0)).normalized())
    goal.location = head + turn @ (goal.location - head)  # where the fin turned reaches
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    assert obj.reach.stats.message == "all constraints met", obj.reach.stats.message
    assert skeleton_channels(obj) == before  # the fin control alone was written
    tail = obj.matrix_world @ obj.pose.bones["ORG-side_fin.L"].tail
    assert (tail - goal.location).length <= 1e-5 * fin.length
    # a chain start changed to run through the rig's mechanism is refused at Solve
    obj.reach.constraints["fin"].chain_start = "torso"
    channels = {b.name: b.matrix_basis.copy() for b in obj.pose.bones}
    refused = r"constraint 'fin': the chain from 'torso' .*'ORG-shoulder\.L'"
    with pytest.raises(RuntimeError, match=refused):
        bpy.ops.reach.solve(armature=obj.name)
    assert all(b.matrix_basis == channels[b.name] for b in obj.pose.bones)


@pytest.mark.parametrize(("kind", "mode"), [("wolf", "IK"), ("human", "FK")])
def test_live_mode_follows_a_goal_keyed_or_moved_writing_only_controls(reach, kind, mode):
    name, fk_end, ik_end = LIMB_ENDS[kind]
    end = fk_end if mode == "FK" else ik_end
    obj, limb = constrained_end(reach, kind, name, mode, end, chain_start="torso")
    scene = bpy.context.scene
    goal = obj.reach.constraints["end"].goal
    start = goal.location.copy()
    goal.keyframe_insert("location", frame=1)
    reachable_goal(obj, limb, "end")
    goal.keyframe_insert("location", frame=10)
    scene.frame_set(1)
    before = skeleton_channels(obj)
    assert bpy.ops.reach.live(armature=obj.name) == {"FINISHED"}
    for frame in (4, 7, 10, 5):  # played forward, then scrubbed back
        scene.frame_set(frame)
        bpy.context.view_layer.update()  # judged as Blender evaluated it
        assert goal.matrix_world.translation != start or frame == 1
        assert deform_miss(obj, limb, "end") <= 1e-5 * limb_length(obj, limb), frame
        assert obj.reach.stats.message == "all constraints met", frame
    goal.animation_data_clear()
    goal.location = goal.location.lerp(start, 0.5)  # moved by hand
    bpy.context.view_layer.update()  # live mode solves, and asks for a timer to finish
    assert bpy.app.timers.is_registered(reach.addon.live.settle_pending)
    reach.addon.live.settle_pending()  # what that timer runs, after the handler
    assert deform_miss(obj, limb, "end") <= 1e-5 * limb_length(obj, limb)
    assert obj.reach.stats.message == "all constraints met"
    assert skeleton_channels(obj) == before
    assert bpy.ops.reach.live(armature=obj.name, stop=True) == {"FINISHED"}
