"""Pose channels ↔ θ (``bridge.pose``): Reach's forward kinematics equal Blender's pose
matrices after write-back, and reading gives the same kinematics back."""

from __future__ import annotations

import math

import bpy
import numpy as np
import pytest
import rigs
from mathutils import Matrix, Vector
from rigs import four_limbs

MODES = ("XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX", "QUATERNION", "AXIS_ANGLE")


def blender_frames(obj, names):
    return np.array([np.array(obj.matrix_world @ obj.pose.bones[n].matrix) for n in names])


@pytest.mark.parametrize("kind", ["basic", "full"])
def test_forward_kinematics_match_blender_in_every_rotation_mode(reach, kind):
    obj = rigs.metarig(kind)
    obj.matrix_world = (
        Matrix.Translation((0.3, -1.2, 0.5)) @ Matrix.Rotation(0.7, 4, "Z") @ Matrix.Scale(1.3, 4)
    )
    for k, bone in enumerate(obj.pose.bones):
        bone.rotation_mode = MODES[k % len(MODES)]
    for k, joint_order in enumerate(("XYZ", "ZXY", "YZX")):
        del k, joint_order
    assert bpy.ops.reach.figure_from_armature(armature=obj.name, translate_root=True) == {
        "FINISHED"
    }
    for k, joint in enumerate(obj.reach.joints):
        joint.euler_order = MODES[(k * 5) % 6]
    bridge = reach.addon.bridge
    rig = bridge.plain_rig.build_rig(obj)
    names = [e.name for e in rig.layout]
    rng = np.random.default_rng(7)
    for _ in range(5):
        theta = rng.uniform(-math.pi, math.pi, rig.figure.n_dofs)
        for entry in rig.layout:
            if entry.translation >= 0:
                theta[entry.translation : entry.translation + 3] = rng.uniform(-0.5, 0.5, 3)
        bridge.pose.write_pose(obj, rig, theta)
        bpy.context.view_layer.update()
        ours = rig.figure.forward(theta)
        theirs = blender_frames(obj, names)
        assert np.max(np.abs(ours - theirs)) <= 1e-5
        # reading the pose back gives angles with the same kinematics
        again = bridge.pose.read_pose(obj, rig, previous=theta)
        assert np.max(np.abs(rig.figure.forward(again) - theirs)) <= 1e-5


def test_a_writers_planned_channels_are_what_it_writes(reach):
    """Every rotation mode, and joints about their own axes, bit for bit."""
    obj = four_limbs()
    for k, bone in enumerate(obj.pose.bones):
        bone.rotation_mode = MODES[k % len(MODES)]
    for bone, axis in (("forearm.L", (1.0, 0.0, 1.0)), ("shin.R", (0.0, 1.0, 1.0))):
        assert bpy.ops.reach.joint_hinge(
            armature=obj.name, bone=bone, axis=axis, lower=-2.0, upper=2.0
        ) == {"FINISHED"}
    bridge = reach.addon.bridge
    rig = bridge.plain_rig.build_rig(obj)
    assert any(e.frame is not None for e in rig.layout)
    writer = bridge.pose.PoseWriter(obj, rig)
    rng = np.random.default_rng(3)
    for _ in range(4):
        theta = rng.uniform(-math.pi, math.pi, rig.figure.n_dofs)
        planned = writer.planned(obj.pose.bones, theta)
        assert set(planned) <= set(bridge.pose.WRITTEN_CHANNELS)
        writer.write(obj, theta)
        written = bridge.snapshot.pose_channels(obj)
        for name, values in planned.items():
            assert np.array_equal(values.view(np.uint32), written[name].view(np.uint32)), name


def test_reading_the_rest_pose_gives_rest_frames(reach):
    obj = rigs.metarig()
    bpy.ops.reach.figure_from_armature(armature=obj.name)
    bridge = reach.addon.bridge
    rig = bridge.plain_rig.build_rig(obj)
    theta = bridge.pose.read_pose(obj, rig)
    assert np.allclose(theta, 0.0, atol=1e-7)
    names = [e.name for e in rig.layout]
    assert np.max(np.abs(rig.figure.forward(theta) - blender_frames(obj, names))) <= 1e-6


def test_a_pose_past_a_limit_by_single_precision_rounding_alone_is_accepted(reach):
    obj = four_limbs()
    forearm = obj.pose.bones["forearm.L"]
    forearm.rotation_mode = "XYZ"
    forearm.rotation_euler = (3e-8, 0.0, 0.0)  # limit X ≤ 0°: past it by rounding only
    joint = obj.reach.joints["upper_arm.L"]
    for a, b in ((-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)):
        joint.polygon.add().value = (a, b)
    upper = obj.pose.bones["upper_arm.L"]
    upper.rotation_mode = "YXZ"
    upper.rotation_euler = (1.0 + 4e-8, 0.0, 0.2)  # on the polygon's edge X = 1, just past
    bpy.context.view_layer.update()
    rig = reach.addon.bridge.plain_rig.build_rig(obj)
    theta = reach.addon.bridge.pose.read_pose(obj, rig)
    assert rig.figure.limits.max_violation(theta) == 0.0
    goal = obj.reach.constraints["hand.L"].goal
    goal.location = Vector(goal.location) + Vector((-0.05, -0.05, -0.05))
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    assert forearm.rotation_euler.x <= 1e-6


def test_a_snapshot_puts_back_what_changed_bit_for_bit(reach):
    obj = four_limbs()
    toe = obj.pose.bones["toe.L"]
    toe.location = (1e30, 0.0, -0.0)
    hand = obj.pose.bones["forearm.L"]
    shin = obj.pose.bones["shin.R"]
    snapshot = reach.addon.bridge.snapshot.PoseSnapshot(obj)
    before = rigs.pose_channels(obj)
    hand.rotation_quaternion = (0.9, 0.1, 0.0, 0.0)
    shin.rotation_mode = "ZXY"  # converts its rotation into Euler angles
    shin.rotation_euler = (0.3, -0.2, 0.1)
    snapshot.restore()
    assert rigs.pose_channels(obj) == before  # bit for bit, modes too: −0.0 stays −0.0


def test_a_snapshot_restored_is_what_blender_evaluates(reach):
    obj = four_limbs()
    arm = obj.pose.bones["upper_arm.L"]
    snapshot = reach.addon.bridge.snapshot.PoseSnapshot(obj)
    bpy.context.view_layer.update()
    before = np.array(arm.matrix)
    arm.rotation_mode = "QUATERNION"
    arm.rotation_quaternion = (0.8, 0.6, 0.0, 0.0)  # one channel of one bone
    bpy.context.view_layer.update()
    assert not np.allclose(np.array(arm.matrix), before)
    snapshot.restore()
    bpy.context.view_layer.update()
    assert np.allclose(np.array(arm.matrix), before, atol=1e-6)


def test_what_follows_the_pose_follows_a_write(reach):
    """A bone constraint, a driver and a mesh deformed by the armature all take a write."""
    obj = rigs.metarig()
    bpy.ops.reach.figure_from_armature(armature=obj.name)
    bones = obj.pose.bones
    copy = bones["forearm.R"].constraints.new("COPY_ROTATION")
    copy.target, copy.subtarget = obj, "forearm.L"
    driver = bones["hand.R"].driver_add("location", 0).driver
    variable = driver.variables.new()
    variable.type = "TRANSFORMS"
    target = variable.targets[0]
    target.id, target.bone_target, target.transform_type = obj, "forearm.L", "ROT_X"
    driver.expression = variable.name
    mesh = bpy.data.meshes.new("cube")
    mesh.from_pydata([tuple(obj.matrix_world @ bones["forearm.L"].tail)], [], [])
    cube = bpy.data.objects.new("cube", mesh)
    bpy.context.scene.collection.objects.link(cube)
    cube.vertex_groups.new(name="forearm.L").add([0], 1.0, "REPLACE")
    cube.modifiers.new("armature", "ARMATURE").object = obj
    bridge = reach.addon.bridge
    rig = bridge.plain_rig.build_rig(obj)
    forearm = next(e for e in rig.layout if e.name == "forearm.L")
    theta = bridge.pose.read_pose(obj, rig)

    def evaluated(angle):
        theta[forearm.rotation : forearm.rotation + 3] = (angle, 0.0, 0.0)
        bridge.pose.write_pose(obj, rig, theta, ["forearm.L"])
        bpy.context.view_layer.update()
        depsgraph = bpy.context.evaluated_depsgraph_get()
        pose = obj.evaluated_get(depsgraph).pose.bones
        vertex = cube.evaluated_get(depsgraph).data.vertices[0].co
        return (
            np.array(pose["forearm.L"].matrix),
            np.array(pose["forearm.R"].matrix),
            pose["hand.R"].location[0],
            np.array(vertex),
        )

    first, second = evaluated(0.2), evaluated(0.7)
    assert not np.allclose(first[0], second[0])
    for left, right, _, _ in (first, second):  # the constraint copied forearm.L's turn
        assert np.allclose(left[:3, :3], right[:3, :3], atol=1e-5)
    assert abs(second[2] - first[2]) > 0.1  # the driver read forearm.L's turn again
    assert np.linalg.norm(second[3] - first[3]) > 1e-3  # the mesh was deformed again


def _upper_arm_written(reach, mode, degrees):
    """The metarig's right upper arm (read in order YXZ), its twist bounded to ±90°,
    turned ``degrees`` about X, Y, Z and written by Reach in rotation ``mode``."""
    obj = rigs.metarig()
    upper = obj.pose.bones["upper_arm.R"]
    upper.rotation_mode = mode
    upper.use_ik_limit_y = True
    upper.ik_min_y, upper.ik_max_y = -math.pi / 2, math.pi / 2
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    rig = reach.addon.bridge.plain_rig.build_rig(obj)
    theta = np.zeros(rig.figure.n_dofs)
    entry = rig.bone("upper_arm.R")
    for axis, value in zip("XYZ", degrees, strict=True):
        theta[entry.rotation + entry.order[::-1].index(axis)] = math.radians(value)
    reach.addon.bridge.pose.write_pose(obj, rig, theta)
    bpy.context.view_layer.update()
    return obj, rig, theta


def _arm_on_its_twist_bound(reach, mode, raised=87.60308305):
    """The arm raised ``raised``° about X with its twist on its −90° bound: near gimbal
    lock, where the Euler angles of a single-precision rotation are ill-conditioned."""
    return _upper_arm_written(reach, mode, (raised, -90.0, 108.08524173))


@pytest.mark.parametrize("mode", ["QUATERNION", "AXIS_ANGLE"])
def test_a_pose_written_on_a_bound_near_gimbal_lock_reads_back_inside_the_limits(reach, mode):
    obj, rig, theta = _arm_on_its_twist_bound(reach, mode)
    assert rig.figure.limits.max_violation(theta) == 0.0
    read = reach.addon.bridge.pose.read_pose(obj, rig, rounding=False)
    assert rig.figure.limits.max_violation(read) == 0.0
    # the same rotation, to single precision: the kinematics agree with Blender's pose
    names = [e.name for e in rig.layout]
    assert np.max(np.abs(rig.figure.forward(read) - blender_frames(obj, names))) <= 1e-6


def test_a_rotation_past_a_bound_of_0_by_conversion_noise_is_not_read_again(reach, monkeypatch):
    # a keyed quaternion whose Y component is -1e-22 reads 2e-22 rad past Y ≥ 0: the
    # limits need no other reading (that search cost milliseconds per bone and frame)
    obj = rigs.metarig()
    upper = obj.pose.bones["upper_arm.R"]
    upper.rotation_mode = "QUATERNION"
    upper.use_ik_limit_y = True
    upper.ik_min_y, upper.ik_max_y = 0.0, math.pi / 2
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    rig = reach.addon.bridge.plain_rig.build_rig(obj)
    half = math.radians(40.0) / 2.0
    upper.rotation_quaternion = (math.cos(half), math.sin(half), -1e-22, 0.0)
    plain = reach.addon.bridge.pose.read_pose(obj, rig, rounding=False)
    excess = rig.figure.limits.max_violation(plain)
    assert 0.0 < excess <= reach.addon.bridge.pose.CONVERSION_NOISE

    def fit_euler(*args, **kwargs):
        raise AssertionError("read again")

    monkeypatch.setattr(reach.solver.rotations, "fit_euler", fit_euler)
    read = reach.addon.bridge.pose.read_pose(obj, rig)
    assert rig.figure.limits.max_violation(read) == 0.0
    np.testing.assert_allclose(read, plain, atol=1e-15)


def test_solve_starts_from_a_pose_it_wrote_next_to_gimbal_lock(reach):
    # raised 89.995°: single precision puts the plain reading 2.6e-4 rad past the bound,
    # far beyond rounding, and Solve refused the pose as outside the limits
    obj, _, _ = _arm_on_its_twist_bound(reach, "QUATERNION", raised=89.995)
    bpy.ops.reach.add_constraint(
        armature=obj.name, bone="forearm.R", chain_start="upper_arm.R", name="hand"
    )
    goal = obj.reach.constraints["hand"].goal
    shoulder = obj.matrix_world @ obj.pose.bones["upper_arm.R"].head
    goal.location = goal.location.lerp(shoulder, 0.05)  # 5% nearer the shoulder: reachable
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    assert obj.reach.stats.message == "all constraints met"


def test_a_quaternion_bone_past_90_degrees_on_its_middle_angle_reads_back_inside(reach):
    # X at 100°: the plain reading (middle angle within ±90°) turns Y and Z by 180°,
    # past Y's ±90° bounds; the limits choose the other decomposition
    obj, rig, theta = _upper_arm_written(reach, "QUATERNION", (100.0, 60.0, -20.0))
    read = reach.addon.bridge.pose.read_pose(obj, rig, rounding=False)
    assert np.allclose(read, theta, atol=1e-6)


class _OneByOne:
    """The armature seen through bones with no batched read: read bone by bone."""

    def __init__(self, obj):
        self.name = obj.name

        class Bones:
            def __init__(self, bones):
                self.bones = bones

            def get(self, name):
                return self.bones.get(name)

            def __len__(self):
                return len(self.bones)

        class Pose:
            bones = Bones(obj.pose.bones)

        self.pose = Pose()


def test_every_bone_read_at_once_is_read_as_bone_by_bone(reach):
    # Every rotation mode and Euler order, joints with their own axes, a translating
    # root; near a previous pose and not: the batched reading is the one-by-one reading.
    obj = rigs.metarig("full")
    for k, bone in enumerate(obj.pose.bones):
        bone.rotation_mode = MODES[k % len(MODES)]
    assert bpy.ops.reach.figure_from_armature(armature=obj.name, translate_root=True) == {
        "FINISHED"
    }
    for k, joint in enumerate(obj.reach.joints):
        joint.euler_order = MODES[(k * 5) % 6]
        joint.use_axes = k % 7 == 3
    bridge = reach.addon.bridge
    rig = bridge.plain_rig.build_rig(obj)
    assert len(rig.layout) > 100
    rng = np.random.default_rng(11)
    for _ in range(3):
        theta = rng.uniform(-math.pi, math.pi, rig.figure.n_dofs)
        bridge.pose.write_pose(obj, rig, theta)
        previous = theta + rng.normal(scale=0.05, size=theta.size)
        for near in (previous, None):
            batched = bridge.pose.read_pose(obj, rig, near, rounding=False)
            single = bridge.pose.read_pose(_OneByOne(obj), rig, near, rounding=False)
            np.testing.assert_allclose(batched, single, rtol=0, atol=1e-12)
    assert rig.reader is not None and rig.reader.others  # some joints have their own axes


def test_a_bad_channel_read_at_once_names_its_bone(reach):
    obj = rigs.figure()
    rig = reach.addon.bridge.plain_rig.build_rig(obj)
    bone = obj.pose.bones["forearm.L"]
    bone.rotation_mode = "QUATERNION"
    rig = reach.addon.bridge.plain_rig.build_rig(obj)
    bone.rotation_quaternion = (0.0, 0.0, 0.0, 0.0)
    with pytest.raises(reach.addon.errors.BlenderDataError, match=r"'forearm\.L' has a zero quat"):
        reach.addon.bridge.pose.read_pose(obj, rig)
    bone.rotation_quaternion = (1.0, 0.0, 0.0, 0.0)
    obj.pose.bones["thigh.R"].rotation_mode = "XYZ"
    rig = reach.addon.bridge.plain_rig.build_rig(obj)
    obj.pose.bones["thigh.R"].rotation_euler = (0.0, float("nan"), 0.0)
    with pytest.raises(reach.addon.errors.BlenderDataError, match=r"'thigh\.R' has a non-finite"):
        reach.addon.bridge.pose.read_pose(obj, rig)


@pytest.mark.parametrize("mode", ["QUATERNION", "AXIS_ANGLE", "XYZ", "YXZ", "ZXY"])
def test_a_turn_given_as_a_quaternion_takes_the_channels_its_matrix_takes(reach, mode):
    # a control rig's trunk writes its controls' turns from quaternions: the same channel
    # values as from the turn's matrix, a quaternion kept in the current one's hemisphere
    # and Euler angles nearest the current ones
    pose = reach.addon.bridge.pose
    rotations = reach.solver.rotations
    rng = np.random.default_rng(3)
    for _ in range(50):
        turn = rng.normal(size=4)
        turn /= np.linalg.norm(turn)
        turn = -turn if turn[0] < 0.0 else turn
        current = rng.normal(size=4 if mode in ("QUATERNION", "AXIS_ANGLE") else 3)
        from_matrix = pose.rotation_values(rotations.quaternion_matrix(turn), mode, current)
        from_quaternion = pose.quaternion_values(turn, mode, current)
        assert np.allclose(from_quaternion, from_matrix, rtol=0.0, atol=1e-12), mode
        if mode == "QUATERNION":
            assert from_quaternion @ current >= 0.0


def test_bone_rows_follow_renames_additions_and_removals(reach):
    obj = rigs.metarig("basic")
    other = rigs.metarig("basic")
    rows = reach.addon.bridge.arrays.bone_rows
    bones = obj.pose.bones
    names = [bone.name for bone in bones]
    assert rows(bones, names) == [bones.find(n) for n in names] == list(range(len(names)))
    assert rows(bones, ["no such bone"]) == [-1]
    obj.data.bones["hand.L"].name = "wrist.L"  # a rename keeps the pose bone's row
    bones = obj.pose.bones
    assert rows(bones, ["wrist.L", "hand.L"]) == [bones.find("wrist.L"), -1]
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    first = obj.data.edit_bones[names[0]]
    obj.data.edit_bones.remove(first)
    added = obj.data.edit_bones.new("added")
    added.head, added.tail = (0.0, 0.0, 0.0), (0.0, 0.0, 0.1)
    bpy.ops.object.mode_set(mode="OBJECT")
    bones = obj.pose.bones
    every = [bone.name for bone in bones]
    assert rows(bones, every) == [bones.find(n) for n in every] == list(range(len(every)))
    assert rows(bones, [names[0]]) == [-1]
    # another armature's rows are its own
    assert rows(other.pose.bones, ["hand.L"]) == [other.pose.bones.find("hand.L")]
    assert rows(bones, ["added", "wrist.L"]) == [bones.find("added"), bones.find("wrist.L")]
