"""Limits from Rest: any skeleton's legs bend the way they bend at rest, measured on
Blender's pose by geometry in the test, not by Reach's report."""

from __future__ import annotations

import itertools
import math

import bpy
import imported_skeletons
import numpy as np
import pytest
import rig_scenes
from mathutils import Quaternion, Vector

LEGS = {
    # kind: its legs, each from the bone it leaves the trunk by to its end
    "horse": [
        ("shoulder.L", "upper_arm.L", "forearm.L", "forefoot.L", "f_toe.L", "f_hoof.L"),
        ("pelvis.L", "thigh.L", "lower_leg.L", "hind_foot.L", "r_toe.L", "r_hoof.L"),
    ],
    "wolf": [
        ("shoulder.L", "front_thigh.L", "front_shin.L", "front_foot.L", "front_toe.L"),
        ("thigh.L", "shin.L", "foot.L", "toe.L"),
    ],
    "cat": [
        ("shoulder.L", "upper_arm.L", "forearm.L", "hand.L", "f_toe.L"),
        ("pelvis.L", "thigh.L", "shin.L", "foot.L", "r_toe.L"),
    ],
    "basic_quadruped": [
        ("shoulder.L", "front_thigh.L", "front_shin.L", "front_foot.L", "front_toe.L"),
        ("thigh.L", "shin.L", "foot.L", "toe.L"),
    ],
}
"""The Rigify animal metarigs' left legs, front then hind (their right ones mirror them)."""
BEND = 60.0
"""Most turn of a leg's joint's bend axis from its rest one [°] (a joint bent the other way
turns it 180°)."""
SPLAY = 25.0
"""Most turn of a leg's line toward or away from the body's middle plane [°]."""


def animal(kind: str):
    bpy.ops.wm.read_homefile(use_empty=True)
    getattr(bpy.ops.object, f"armature_{kind}_metarig_add")()
    obj = bpy.context.active_object
    bpy.ops.object.mode_set(mode="OBJECT")
    return obj


def mirrored(name: str) -> str:
    return name[:-2] + ".R"


def all_legs(kind: str) -> list[tuple[str, ...]]:
    return [leg for left in LEGS[kind] for leg in (left, tuple(map(mirrored, left)))]


@pytest.mark.parametrize("kind", [*LEGS, "bird"])
def test_limits_from_rest_hinge_every_legs_joints_and_bound_the_trunk(reach, kind):
    obj = animal(kind)
    root = next(b.name for b in obj.data.bones if b.parent is None)
    assert bpy.ops.reach.limits_from_rest(armature=obj.name) == {"FINISHED"}
    joints = {j.name: j for j in obj.reach.joints}
    legs = all_legs(kind) if kind != "bird" else [("thigh.L", "shin.L", "foot.L", "toe.L")]
    for leg in legs:
        first, *rest = leg
        assert joints[first].use_axes and len(joints[first].polygon) > 0  # a cone
        for name in rest:  # hinges: one axis, bending further only the way it bends at rest
            joint = joints[name]
            assert tuple(joint.lock) == (False, True, True), name
            assert joint.limit_min[0] <= 1e-6 <= joint.limit_max[0], name
    assert root not in joints  # the root turns the whole figure
    assert not any(n.startswith(("lid", "brow", "lip", "nose", "ear", "cheek")) for n in joints)


def joints(obj, leg, tip) -> list[np.ndarray]:
    """Where a leg's joints are on the pose, in the armature's frame: each bone's head, and
    the tip of its last bone, ``tip`` in that bone's rest frame."""
    bones = obj.pose.bones
    end = np.array(bones[leg[-1]].matrix) @ np.append(tip, 1.0)
    return [np.array(bones[n].head) for n in leg] + [end[:3]]


def bend_directions(obj, leg, tip) -> list[np.ndarray | None]:
    """Per joint inside a leg, the way it bends: the axis its segment turns about from the
    segment before it (their directions' cross product, right-handed, so a joint bent the
    other way has the opposite axis) in the armature's frame; None for a straight one.
    Segments run between the joints (:func:`joints`), wherever the bones point."""
    found = []
    points = joints(obj, leg, tip)
    segments = [b - a for a, b in itertools.pairwise(points)]
    for before, after in itertools.pairwise(segments):
        axis = np.cross(before, after) / (np.linalg.norm(before) * np.linalg.norm(after))
        norm = float(np.linalg.norm(axis))  # the sine of the bend
        found.append(axis / norm if norm > math.sin(math.radians(5.0)) else None)
    return found


def splay(obj, leg, tip) -> float:
    """The leg's line's angle [°] with the body's middle plane, in the root bone's frame."""
    root = next(b for b in obj.pose.bones if b.parent is None)
    points = joints(obj, leg, tip)
    local = np.array(root.matrix.to_3x3()).T @ (points[-1] - points[0])
    return math.degrees(math.asin(abs(local[0]) / float(np.linalg.norm(local))))


@pytest.fixture(scope="module")
def skeletons(tmp_path_factory):
    """Each kind's imported skeleton, saved by a child Blender (see imported_skeletons)."""
    return imported_skeletons.make(tmp_path_factory.mktemp("skeletons"))


@pytest.mark.parametrize("kind", [*LEGS, *imported_skeletons.ANIMALS])
def test_a_quadruped_lowered_and_forward_bends_its_legs_as_at_rest(reach, skeletons, kind):
    metarig = kind.removesuffix("_gltf")
    obj = animal(metarig)
    # each leg's tip where the metarig's last bone ends, in armature space
    ends = {leg[-1]: obj.data.bones[leg[-1]].tail_local.copy() for leg in all_legs(metarig)}
    if kind in imported_skeletons.ANIMALS:  # the metarig as glTF's importer gives it back,
        bpy.ops.wm.read_homefile(use_empty=True)  # its bones pointing up
        obj = imported_skeletons.append(skeletons[kind])
        kind = metarig
    tips = {n: np.array(obj.data.bones[n].matrix_local.inverted() @ p) for n, p in ends.items()}
    assert bpy.ops.reach.figure_from_armature(armature=obj.name, translate_root=True) == {
        "FINISHED"
    }
    assert bpy.ops.reach.limits_from_rest(armature=obj.name) == {"FINISHED"}
    legs = all_legs(kind)
    for leg in legs:
        result = bpy.ops.reach.add_constraint(
            armature=obj.name, bone=leg[-1], chain_start=leg[0], contact=True
        )
        assert result == {"FINISHED"}
    ground = min(lowest(obj, leg) for leg in legs)
    rest_bends = {leg: bend_directions(obj, leg, tips[leg[-1]]) for leg in legs}
    rest_splay = {leg: splay(obj, leg, tips[leg[-1]]) for leg in legs}
    root = next(b.name for b in obj.data.bones if b.parent is None)
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone=root, effector="HEAD", chain_start="", name="hips"
    ) == {"FINISHED"}
    hips = obj.reach.constraints["hips"].goal
    height = float(hips.location.z)  # the hips 25% of their height down, 15% forward (−Y)
    hips.location = Vector(hips.location) + Vector((0.0, -0.15 * height, -0.25 * height))
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    assert obj.reach.stats.message == "all constraints met", obj.reach.stats.message
    bpy.context.view_layer.update()
    for leg in legs:
        now = bend_directions(obj, leg, tips[leg[-1]])
        for k, (was, bent) in enumerate(zip(rest_bends[leg], now, strict=True)):
            if was is not None and bent is not None:
                turn = math.degrees(math.acos(min(1.0, float(was @ bent))))
                assert turn <= BEND, (leg[k + 1], turn)
        assert abs(splay(obj, leg, tips[leg[-1]]) - rest_splay[leg]) <= SPLAY, leg
        # a planted toe or hoof is held whole: no joint of the leg sinks into the ground
        assert lowest(obj, leg) >= ground - 1e-5 * height, (leg, lowest(obj, leg), ground)
    assert reach.addon.bridge.posing.pose_outside(obj) == ""


def lowest(obj, leg) -> float:
    """The lowest head or tail of the leg's bones, in the world."""
    bones = [obj.pose.bones[name] for name in leg]
    return min(float((obj.matrix_world @ p).z) for b in bones for p in (b.head, b.tail))


def test_limits_from_rest_name_a_straight_limb_for_a_hinge(reach, tmp_path, capfd):
    obj = rig_scenes.import_bvh(tmp_path)  # its arms straight out, a T-pose
    capfd.readouterr()
    assert bpy.ops.reach.limits_from_rest(armature=obj.name) == {"FINISHED"}
    said = capfd.readouterr().out
    straight = "'LeftArm', 'LeftForeArm', 'LeftHand' (a straight limb: give its joints a Hinge)"
    assert straight in said
    joints = {j.name: j for j in obj.reach.joints}
    assert "LeftForeArm" not in joints and "LeftArm" not in joints  # nothing it did not set
    assert tuple(joints["LeftLeg"].lock) == (False, True, True)  # the knee: its foot's plane
    assert "Hips" not in joints


def test_limits_from_rest_refuse_a_skeleton_with_no_limb_and_change_nothing(reach):
    bpy.ops.object.armature_add()
    obj = bpy.context.active_object
    bpy.ops.object.mode_set(mode="EDIT")
    tail = obj.data.edit_bones[0].tail.copy()
    for k in range(3):  # a chain up the middle: a tail, no limb
        bone = obj.data.edit_bones.new(f"tail.{k}")
        bone.head, bone.tail = tail, tail + Vector((0.0, 0.0, 0.5))
        bone.parent = obj.data.edit_bones[-2] if k else obj.data.edit_bones[0]
        tail = bone.tail.copy()
    bpy.ops.object.mode_set(mode="OBJECT")
    with pytest.raises(RuntimeError, match="has no limb Reach can read from its rest pose"):
        bpy.ops.reach.limits_from_rest(armature=obj.name)
    assert len(obj.reach.joints) == 0


def hinge_axes_in_armature(obj) -> dict[str, tuple[np.ndarray, float, float]]:
    """Each hinge's axis in armature space and its range."""
    found = {}
    for joint in obj.reach.joints:
        if tuple(joint.lock) == (False, True, True):
            rest = np.array(obj.data.bones[joint.name].matrix_local.to_3x3())
            axes = np.array(Quaternion(joint.axes).to_matrix())
            found[joint.name] = (rest @ axes[:, 0], joint.limit_min[0], joint.limit_max[0])
    return found


def test_limits_from_rest_read_the_joints_not_where_the_bones_point(reach):
    # a glTF skeleton's bones need not point at their children: its limits are the same
    obj = animal("wolf")
    assert bpy.ops.reach.limits_from_rest(armature=obj.name) == {"FINISHED"}
    expected = hinge_axes_in_armature(obj)
    assert len(expected) == sum(len(leg) - 1 for leg in all_legs("wolf"))
    obj.reach.joints.clear()
    bpy.ops.object.mode_set(mode="EDIT")
    rng = np.random.default_rng(11)
    bones = obj.data.edit_bones
    for bone in bones:
        bone.use_connect = False
    for leg in all_legs("wolf"):
        for name in leg:  # each leg bone turned to point anywhere, its children left in place
            bone = bones[name]
            bone.tail = bone.head + Vector(rng.normal(size=3)).normalized() * bone.length
            bone.roll = float(rng.uniform(-math.pi, math.pi))
    bpy.ops.object.mode_set(mode="OBJECT")
    assert bpy.ops.reach.limits_from_rest(armature=obj.name) == {"FINISHED"}
    found = hinge_axes_in_armature(obj)
    assert found.keys() == expected.keys()
    ends = {leg[-1] for leg in all_legs("wolf")}  # a limb's last joint bends toward its tail
    for name, (axis, lower, upper) in expected.items():
        if name in ends:
            continue
        np.testing.assert_allclose(found[name][0], axis, atol=1e-4, err_msg=name)  # float32
        assert found[name][1:] == pytest.approx((lower, upper), abs=1e-5), name
