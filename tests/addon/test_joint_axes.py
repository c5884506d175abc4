"""Joints about their own axes: hinges and cones about any axis, and the human limits
that make imported game skeletons bend their elbows and knees the way a body does."""

from __future__ import annotations

import math

import bpy
import imported_skeletons
import numpy as np
import pytest
import rigs
from mathutils import Matrix, Quaternion, Vector
from rigs import four_limbs

from tests.fixtures.posture import twist as quaternion_twist


def _local_rotation(obj, bone):
    """The bone's pose rotation in its rest frame (3, 3), as Blender evaluated it."""
    bpy.context.view_layer.update()
    return np.array(obj.pose.bones[bone].matrix_basis.to_3x3())


@pytest.mark.parametrize("mode", ["QUATERNION", "XYZ", "ZXY", "AXIS_ANGLE"])
def test_a_hinge_between_the_bones_axes_turns_the_bone_about_it_alone(reach, mode):
    # the hinge lies 45° between the forearm's X and Z: no IK limit on its own axes fits it
    obj = four_limbs()
    forearm = obj.pose.bones["forearm.L"]
    forearm.rotation_mode = mode
    rest = np.array(obj.data.bones["forearm.L"].matrix_local.to_3x3())
    local = np.array([1.0, 0.0, 1.0]) / math.sqrt(2.0)
    limit = math.radians(120)
    assert bpy.ops.reach.joint_hinge(
        armature=obj.name, bone="forearm.L", axis=tuple(rest @ local), lower=-limit, upper=limit
    ) == {"FINISHED"}
    for entry in obj.reach.constraints:
        entry.enabled = entry.name == "hand.L"
    goal = obj.reach.constraints["hand.L"].goal
    shoulder = obj.matrix_world @ obj.pose.bones["upper_arm.L"].head
    goal.location = Vector(goal.location).lerp(shoulder, 0.3)  # the elbow must bend
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    turn = _local_rotation(obj, "forearm.L")
    np.testing.assert_allclose(turn @ local, local, atol=1e-6)  # about the hinge alone
    angle = math.atan2(
        float(np.cross(np.array([0.0, 1.0, 0.0]), turn[:, 1]) @ local), float(turn[1, 1])
    )
    assert 0.05 < abs(angle) <= limit + 1e-6, obj.reach.stats.message  # bent, within limits
    assert obj.reach.stats.message == "all constraints met"


def test_a_hinge_refuses_a_least_turn_above_the_most(reach):
    obj = four_limbs()
    before = rigs.pose_channels(obj)
    with pytest.raises(RuntimeError, match="least turn must be finite and at most the most"):
        bpy.ops.reach.joint_hinge(armature=obj.name, bone="forearm.L", lower=1.0, upper=0.5)
    assert "forearm.L" not in obj.reach.joints or not obj.reach.joints["forearm.L"].use_axes
    assert rigs.pose_channels(obj) == before


def test_a_cone_keeps_the_bone_within_its_angle_of_the_axis(reach):
    obj = four_limbs()
    assert bpy.ops.reach.joint_cone(
        armature=obj.name, bone="upper_arm.L", angle=math.radians(30), twist=math.radians(10)
    ) == {"FINISHED"}
    for entry in obj.reach.constraints:
        entry.enabled = entry.name == "hand.L"
    goal = obj.reach.constraints["hand.L"].goal
    goal.location = Vector(goal.location) + Vector((0.0, -0.6, 0.0))  # far in front
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    turn = _local_rotation(obj, "upper_arm.L")
    swing = math.degrees(math.acos(min(1.0, float(turn[1, 1]))))
    assert 5.0 < swing <= 30.0 + 1e-4  # it swung toward the goal, as far as the cone lets it
    assert obj.reach.stats.message.startswith("not reachable") or "held by" in (
        obj.reach.stats.message
    )


# -- imported skeletons ------------------------------------------------------------------


@pytest.fixture(scope="module")
def skeletons(tmp_path_factory):
    """Each kind's imported skeleton, saved by a child Blender (see imported_skeletons)."""
    return imported_skeletons.make(tmp_path_factory.mktemp("skeletons"))


def imported(kind, skeletons):
    """The BVH skeleton as Blender's importer of ``kind`` reads it, bones rolled at random
    (as game skeletons come: their hinges between the bones' axes)."""
    obj = imported_skeletons.append(skeletons[kind])
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    rng = np.random.default_rng(7)
    for bone in obj.data.edit_bones:
        bone.roll = float(rng.uniform(-math.pi, math.pi))
    bpy.ops.object.mode_set(mode="OBJECT")
    return obj


def _bends(obj):
    """Per elbow and knee, how far it sits in front (+) of the line of its limb's ends.

    Front is the body's front carried by the limb's upper bone (the upper arm or the
    thigh, however it turned): an elbow bent the way a body bends sits behind the line
    from shoulder to hand, a knee in front of the line from hip to ankle.
    """
    bones = obj.pose.bones

    def head(name):
        return np.array(bones[name].head)

    left = head("LeftUpLeg") - head("RightUpLeg")
    up = head("Neck") - head("Hips")
    front = np.cross(left, up)
    front /= np.linalg.norm(front)
    found = {}
    for joint, first, last in (
        ("LeftForeArm", "LeftArm", "LeftHand"),
        ("LeftLeg", "LeftUpLeg", "LeftFoot"),
    ):
        posed = np.array(bones[first].matrix.to_3x3())
        rest = np.array(obj.data.bones[first].matrix_local.to_3x3())
        carried = posed @ rest.T @ front
        start, middle, end = head(first), head(joint), head(last)
        along = (end - start) / np.linalg.norm(end - start)
        off = (middle - start) - ((middle - start) @ along) * along
        found[joint] = float(off @ carried)
    return found


def _goals(obj):
    """A hand goal and a foot goal each 45% of the way to their limb's root."""
    for bone, start in (("LeftHand", "LeftArm"), ("LeftFoot", "LeftUpLeg")):
        assert bpy.ops.reach.add_constraint(
            armature=obj.name, bone=bone, effector="HEAD", chain_start=start, name=bone
        ) == {"FINISHED"}
        goal = obj.reach.constraints[bone].goal
        root = obj.matrix_world @ obj.pose.bones[start].head
        goal.location = Vector(goal.location).lerp(root, 0.45)
    bpy.context.view_layer.update()


def swing_twist(rotation) -> float:
    """The twist [deg] about Y of a rotation (3, 3), by the swing–twist decomposition."""
    return quaternion_twist(Matrix(np.asarray(rotation).tolist()).to_quaternion())


BVH_PARTS = {
    **{
        f"{side}{bone}": (part, side[0])
        for side in ("Left", "Right")
        for bone, part in (
            ("Shoulder", "clavicle"),
            ("Arm", "upper_arm"),
            ("ForeArm", "forearm"),
            ("Hand", "hand"),
            ("UpLeg", "thigh"),
            ("Leg", "shin"),
            ("Foot", "foot"),
        )
    },
    "Spine": ("spine", ""),
    "Chest": ("spine", ""),
    "Neck": ("neck", ""),
    "Head": ("head", ""),
}
"""The BVH skeleton's joints as a body's parts; its hips, the root, turn the whole figure."""


@pytest.mark.parametrize("kind", ["bvh", "fbx", "gltf"])
def test_human_limits_bend_an_imported_skeletons_elbows_and_knees_the_right_way(
    reach, skeletons, kind
):
    obj = imported(kind, skeletons)
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    assert bpy.ops.reach.human_limits(armature=obj.name) == {"FINISHED"}
    assert reach.addon.bridge.anatomy.human_body(obj) == (BVH_PARTS, [])
    assert {j.name for j in obj.reach.joints if j.use_axes} == set(BVH_PARTS)
    _goals(obj)
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    assert obj.reach.stats.message == "all constraints met"
    bends = _bends(obj)
    limb = rigs.chain_length(obj, ("LeftUpLeg", "LeftLeg"))
    assert bends["LeftForeArm"] < -0.05 * limb, bends  # the elbow points back
    assert bends["LeftLeg"] > 0.05 * limb, bends  # the knee points forward
    # no knee bent backwards by turning the thigh round
    thigh = _local_rotation(obj, "LeftUpLeg")
    assert abs(swing_twist(thigh)) <= reach.addon.bridge.anatomy.THIGH_TWIST


@pytest.mark.parametrize("kind", ["basic", "full"])
def test_human_limits_find_the_trunk_and_the_limbs_ends_of_the_rigify_humans(reach, kind):
    obj = rigs.metarig(kind)
    found, missing = reach.addon.bridge.anatomy.human_body(obj)
    trunk = {"spine.001": "spine", "spine.002": "spine", "spine.003": "spine"}
    trunk |= {"spine.004": "neck", "spine.005": "neck", "spine.006": "head"}
    assert missing == []
    assert found == {
        **{bone: (part, "") for bone, part in trunk.items()},
        **{
            f"{bone}.{side}": (part, side)
            for side in "LR"
            for bone, part in (
                ("shoulder", "clavicle"),
                ("upper_arm", "upper_arm"),
                ("forearm", "forearm"),
                ("hand", "hand"),
                ("thigh", "thigh"),
                ("shin", "shin"),
                ("foot", "foot"),
            )
        },
    }


def _ball_samples(ball, rng, count=4000):
    """Angles (about X, Y, Z) [rad] on and inside ``ball``'s limits: every vertex and points
    along every edge at either twist bound, and random points within."""
    vertices = np.array(ball.polygon)
    edges = [
        (1.0 - s) * vertices[k] + s * vertices[(k + 1) % len(vertices)]
        for k in range(len(vertices))
        for s in np.linspace(0.0, 1.0, 21)
    ]
    inside = [rng.dirichlet(np.full(len(vertices), 0.3)) @ vertices for _ in range(count)]
    for swing in [*edges, *inside]:
        for twist in (-ball.twist, ball.twist, rng.uniform(-ball.twist, ball.twist)):
            yield np.array((swing[0], twist, swing[1]))


def _joint_rotation(reach, ball, angles):
    """The bone's rotation in its rest frame for the joint angles (about X, Y, Z)."""
    turn = reach.solver.rotations.euler_matrix(angles, "YZX")
    return ball.axes @ turn @ ball.axes.T


def test_a_thigh_within_its_human_limits_twists_at_most_its_bound(reach):
    anatomy = reach.addon.bridge.anatomy
    body = anatomy.body_axes(np.array((0.0, -1.0, 0.0)), np.array((1.0, 0.0, 0.0)))
    rng = np.random.default_rng(3)
    largest = 0.0
    for down in ((0.05, 0.0, -1.0), (0.2, 0.1, -1.0), (-0.1, -0.1, -1.0)):
        rest = _rolled_frame(np.array(down), rng)
        for side in "LR":
            ball = anatomy.ball_limits(rest, "thigh", side, body)
            for angles in _ball_samples(ball, rng, count=500):
                largest = max(largest, abs(swing_twist(_joint_rotation(reach, ball, angles))))
    assert largest <= anatomy.THIGH_TWIST
    assert largest >= anatomy.THIGH_TWIST - 2.0  # the bound is the corners' own


@pytest.mark.parametrize(
    "part", ["spine", "neck", "head", "clavicle", "upper_arm", "hand", "thigh", "foot"]
)
def test_no_other_reading_of_a_ball_joints_turn_keeps_its_limits(reach, part):
    # the turn (a, b, c) is also (a + 180°, 180° − b, c + 180°) and its whole-turn shifts:
    # inside the limits only once, so no limb turns round behind its bounds
    anatomy = reach.addon.bridge.anatomy
    body = anatomy.body_axes(np.array((0.0, -1.0, 0.0)), np.array((1.0, 0.0, 0.0)))
    rng = np.random.default_rng(5)
    direction = {
        "upper_arm": (1.0, 0.0, -0.5),
        "clavicle": (1.0, -0.2, 0.1),
        "hand": (1.0, 0.0, -0.4),
    }
    direction |= {"thigh": (0.0, 0.0, -1.0), "foot": (0.0, -1.0, -0.5)}
    rest = _rolled_frame(np.array(direction.get(part, (0.0, 0.1, 1.0))), rng)
    ball = anatomy.ball_limits(rest, part, "L", body, shared=3)
    assert abs(2.0 * ball.twist) < math.pi
    for x, twist, z in _ball_samples(ball, rng, count=300):
        other = np.array((x + math.pi, twist + math.pi, math.pi - z))
        other = (other + math.pi) % (2.0 * math.pi) - math.pi
        assert not abs(other[1]) <= ball.twist
        np.testing.assert_allclose(
            reach.solver.rotations.euler_matrix(other, "YZX"),
            reach.solver.rotations.euler_matrix((x, twist, z), "YZX"),
            atol=1e-9,
        )


def _rolled_frame(along, rng):
    """A bone's rest frame (columns X, Y, Z) along ``along``, rolled at random about it."""
    y = along / np.linalg.norm(along)
    hint = rng.normal(size=3)
    x = hint - (hint @ y) * y
    x /= np.linalg.norm(x)
    return np.column_stack((x, y, np.cross(x, y)))


def test_human_limits_name_what_they_need_on_a_skeleton_they_do_not_know(reach):
    obj = four_limbs()
    for bone in ("forearm.L", "forearm.R", "shin.L", "shin.R"):
        obj.data.bones[bone].name = bone.replace(".", "_x_")
    with pytest.raises(RuntimeError, match="no elbow or knee Reach knows by name"):
        bpy.ops.reach.human_limits(armature=obj.name)
    assert not any(j.use_axes for j in obj.reach.joints)


def test_limb_parts_are_known_by_the_names_of_rigify_mixamo_ue_and_bvh(reach):
    part = reach.addon.bridge.body.limb_part
    assert part("forearm.L") == ("forearm", "L")
    assert part("shin_fk.R") == ("shin", "R")
    assert part("mixamorig:LeftForeArm") == ("forearm", "L")
    assert part("mixamorig:RightLeg") == ("shin", "R")
    assert part("mixamorig:LeftUpLeg") == ("thigh", "L")
    assert part("RightArm") == ("upper_arm", "R")
    assert part("lowerarm_l") == ("forearm", "L")
    assert part("calf_r") == ("shin", "R")
    assert part("thigh_l") == ("thigh", "L")
    assert part("upperarm_r") == ("upper_arm", "R")
    assert part("LeftHand") is None and part("spine") is None and part("hand.L") is None


def test_a_gltf_skeleton_with_bones_100_times_too_long_gets_goals_its_size(reach, skeletons):
    # a skeleton in centimetres under a 0.01 scale comes back from glTF with its joints in
    # place but each bone 100 times its joints' spacing (the hand 25 m long): the tail
    # effector sat 25 m off the hand and its goal empty was 6 m across
    imported_skeletons.append(skeletons["gltf_cm"])
    obj = next(o for o in bpy.data.objects if o.type == "ARMATURE")
    world = obj.matrix_world
    bones = obj.data.bones
    spacing = (
        world @ bones["LeftHand"].head_local - world @ bones["LeftForeArm"].head_local
    ).length
    assert bones["LeftHand"].length * world.to_scale()[0] > 50.0 * spacing  # as imported
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone="LeftHand", chain_start="LeftArm", name="hand"
    ) == {"FINISHED"}
    goal = obj.reach.constraints["hand"].goal
    hand = world @ obj.pose.bones["LeftHand"].head
    assert (goal.location - hand).length == pytest.approx(spacing, rel=1e-4)
    assert goal.empty_display_size <= 0.25 * spacing + 1e-6
    goal.location = goal.location.lerp(world @ obj.pose.bones["LeftArm"].head, 0.3)
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    assert obj.reach.stats.message == "all constraints met"


def _masses_and_comfort(reach, skeletons, kind: str) -> tuple[dict[str, float], np.ndarray]:
    """The masses Make Figure gives the ``kind`` skeleton, and its comfort weights."""
    bpy.ops.wm.read_homefile(use_empty=True)
    obj = imported_skeletons.append(skeletons[kind])
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    masses = {joint.name: float(joint.mass) for joint in obj.reach.joints}
    bridge = reach.addon.bridge
    weights = bridge.comfort.carried_weights(obj, bridge.kinds.figure_rig(obj))
    return masses, weights


def test_a_gltf_skeleton_with_bones_100_times_too_long_gets_a_bodys_masses(reach, skeletons):
    # the same skeleton with bones 100 times their joints' spacing weighed hundreds of tonnes
    # (its size taken from its tails), its centre of mass off the body and comfort
    # weights from the long bones' far ends: its bones end where its joints say
    plain, plain_weights = _masses_and_comfort(reach, skeletons, "gltf")
    long, long_weights = _masses_and_comfort(reach, skeletons, "gltf_cm")
    assert sum(plain.values()) == pytest.approx(sum(long.values()), rel=0.02)
    assert 30.0 <= sum(long.values()) <= 120.0  # a body 1.6 m tall
    for name in ("LeftUpLeg", "LeftLeg", "LeftArm", "RightForeArm"):  # Winter's shares
        assert long[name] == pytest.approx(plain[name], rel=0.02), name
    assert long_weights.shape == plain_weights.shape
    np.testing.assert_allclose(
        long_weights / long_weights.max(), plain_weights / plain_weights.max(), atol=0.02
    )


def test_human_limits_name_a_pose_outside_them_and_leave_it_for_clamp(reach, capfd):
    obj = rigs.metarig("basic")
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    thigh = obj.pose.bones["thigh.L"]
    thigh.rotation_mode = "QUATERNION"
    thigh.rotation_quaternion = Quaternion((0.0, 1.0, 0.0), math.radians(90.0))  # turned round
    bpy.context.view_layer.update()
    before = rigs.pose_channels(obj)
    capfd.readouterr()
    assert bpy.ops.reach.human_limits(armature=obj.name) == {"FINISHED"}
    said = capfd.readouterr().out
    assert "the current pose is outside the new limits: thigh.L joint rotation Y is 90.00°" in said
    assert "Clamp to limits" in said
    assert rigs.pose_channels(obj) == before  # the pose stays until asked
    assert bpy.ops.reach.clamp_pose(armature=obj.name) == {"FINISHED"}
    assert reach.addon.bridge.posing.pose_outside(obj) == ""
    twist = swing_twist(_local_rotation(obj, "thigh.L"))
    assert abs(twist) <= reach.addon.bridge.anatomy.RANGES["thigh"].twist + 1e-3


def test_human_limits_widen_a_limit_the_pose_lies_a_few_degrees_past_and_say_so(reach, capfd):
    obj = rigs.metarig("basic")
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    assert bpy.ops.reach.human_limits(armature=obj.name) == {"FINISHED"}
    elbow = obj.pose.bones["forearm.L"]
    elbow.rotation_mode = "QUATERNION"
    # straighter than straight by 3°, as an imported pose may be
    elbow.rotation_quaternion = _hinge_turn(
        obj, "forearm.L", Quaternion((1.0, 0.0, 0.0), math.radians(3.0))
    )
    bpy.context.view_layer.update()
    bridge = reach.addon.bridge
    names = [dof.name for dof in bridge.kinds.figure_rig(obj).figure.dofs]
    theta = bridge.posing.read_figure(obj, bridge.kinds.figure_rig(obj))
    past = math.degrees(theta[names.index("forearm.L joint rotation X")])
    assert -10.0 < past < -1.0  # past the hinge's least, 0°
    assert "forearm.L joint rotation X" in bridge.posing.pose_outside(obj)
    before = rigs.pose_channels(obj)
    capfd.readouterr()
    assert bpy.ops.reach.human_limits(armature=obj.name) == {"FINISHED"}
    said = capfd.readouterr().out
    assert "widened 1 limits to the current pose" in said
    assert f"forearm.L X to {past:.2f}°" in said
    assert "outside the new limits" not in said
    assert bridge.posing.pose_outside(obj) == ""
    assert rigs.pose_channels(obj) == before
    assert math.degrees(obj.reach.joints["forearm.L"].limit_min[0]) == pytest.approx(past, abs=0.01)
    assert bpy.ops.reach.add_constraint(armature=obj.name, bone="hand.L") == {"FINISHED"}
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}  # the pose is a start


def test_clamp_brings_a_hinges_locked_axes_back_to_zero(reach):
    obj = rigs.metarig("basic")
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    assert bpy.ops.reach.human_limits(armature=obj.name) == {"FINISHED"}
    bridge = reach.addon.bridge
    names = [dof.name for dof in bridge.kinds.figure_rig(obj).figure.dofs]
    hinge = [names.index(f"forearm.L joint rotation {axis}") for axis in "XYZ"]
    locked = [i for i in bridge.joints.locked_joint_dofs(obj, names) if i in hinge]
    assert sorted(locked) == sorted(i for i in hinge if names[i][-1] != "X")  # bends about X
    elbow = obj.pose.bones["forearm.L"]
    elbow.rotation_mode = "QUATERNION"
    # bent 40° about its hinge, and 2° about each other axis as an imported pose may be
    turn = Quaternion((1.0, 0.0, 0.0), math.radians(-40.0))
    off = Quaternion((0.0, 1.0, 0.0), math.radians(2.0)) @ Quaternion((0.0, 0.0, 1.0), 0.035)
    elbow.rotation_quaternion = _hinge_turn(obj, "forearm.L", turn) @ off
    bpy.context.view_layer.update()
    theta = bridge.posing.read_figure(obj, bridge.kinds.figure_rig(obj))
    assert max(abs(theta[i]) for i in locked) > math.radians(1.0)
    bent = theta[next(i for i in hinge if i not in locked)]
    limits = obj.reach.joints["forearm.L"]
    assert limits.limit_min[0] + 0.1 < bent < limits.limit_max[0] - 0.1, bent  # inside the hinge
    assert bpy.ops.reach.clamp_pose(armature=obj.name) == {"FINISHED"}
    theta = bridge.posing.read_figure(obj, bridge.kinds.figure_rig(obj))
    assert max(abs(theta[i]) for i in locked) <= 1e-6
    assert theta[next(i for i in hinge if i not in locked)] == pytest.approx(bent, abs=0.01)


def _hinge_turn(obj, bone: str, turn: Quaternion) -> Quaternion:
    """``turn`` about the joint's own axes as the pose bone's rotation (its rest frame's)."""
    axes = Quaternion(obj.reach.joints[bone].axes)
    rest = obj.data.bones[bone].matrix_local.to_quaternion()
    into_bone = rest.inverted() @ axes  # the joint's axes in the bone's rest frame
    return into_bone @ turn @ into_bone.inverted()


def test_human_limits_name_the_parts_they_cannot_place_and_set_the_rest(reach, capfd):
    obj = rigs.metarig("basic")
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    for name in ("spine.006", "spine.005", "spine.004"):  # a body with no neck or head
        obj.data.edit_bones.remove(obj.data.edit_bones[name])
    bpy.ops.object.mode_set(mode="OBJECT")
    capfd.readouterr()
    assert bpy.ops.reach.human_limits(armature=obj.name) == {"FINISHED"}
    said = capfd.readouterr().out
    assert "could not place the neck and head (no bone continues the chest upward)" in said
    limited = {j.name for j in obj.reach.joints if j.use_axes}
    assert {"spine.001", "spine.002", "spine.003", "shoulder.L", "foot.R"} <= limited
    assert "spine" not in limited  # the hips turn the whole figure
