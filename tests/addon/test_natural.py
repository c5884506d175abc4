"""Natural poses: with default settings and the feet planted as contacts, a figure crouches
and reaches like a body: Rigify's metarigs, its generated control rig and imported skeletons.

Measured on Blender's pose by geometry (:mod:`tests.fixtures.posture`), not by Reach's report.
"""

from __future__ import annotations

from typing import Any

import bpy
import imported_skeletons
import numpy as np
import pytest
from control_rigs import generated
from mathutils import Vector
from rigs import metarig

from tests.fixtures.posture import (
    REACHES,
    Posture,
    Rest,
    bone_twist,
    degrees,
    knee_from_front,
    posture,
    world,
)

LEAN = 20.0
"""Most turn of the trunk from its rest direction [°]."""
KNEE = 45.0
"""Most angle between a bent knee and the pelvis's front [°]."""
FOOT = 5.0
"""Most turn of a foot [°]."""


def planted(kind: str) -> tuple[Any, Rest]:
    """A human metarig whose hips may move, each foot planted as a contact (its sole held,
    chains from the thighs), Comfort 1, default settings otherwise; its rest measures."""
    obj = metarig(kind)
    assert bpy.ops.reach.figure_from_armature(armature=obj.name, translate_root=True) == {
        "FINISHED"
    }
    assert bpy.ops.reach.human_limits(armature=obj.name) == {"FINISHED"}
    for side in "LR":
        result = bpy.ops.reach.add_constraint(
            armature=obj.name, bone=f"foot.{side}", chain_start=f"thigh.{side}", contact=True
        )
        assert result == {"FINISHED"}
    assert obj.reach.comfort == 1.0
    return obj, Rest.of(obj)


def effector(reach, obj, constraint) -> np.ndarray:
    """A constraint's effector point on Blender's pose (a tail effector where Reach puts it)."""
    bone = obj.pose.bones[constraint.bone]
    if constraint.effector == "HEAD":
        return np.array(obj.matrix_world @ bone.head)
    return np.array(obj.matrix_world @ reach.addon.bridge.bone_ends.end(bone.bone, bone.matrix))


def largest_miss(reach, obj) -> float:
    """The largest distance of a constraint's effector from its goal [m]."""
    return max(
        float(np.linalg.norm(effector(reach, obj, c) - np.array(c.goal.matrix_world.translation)))
        for c in obj.reach.constraints
    )


def lowered(obj, hips: str, drop: float) -> None:
    """A goal on the hips bone's head moved ``drop`` [m] down, and Solve."""
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone=hips, effector="HEAD", chain_start="", name="hips"
    ) == {"FINISHED"}
    goal = obj.reach.constraints["hips"].goal
    goal.location = Vector(goal.location) + Vector((0.0, 0.0, -drop))
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}


def assert_natural(found: Posture) -> None:
    assert found.lean <= LEAN, found
    assert max(found.knees) <= KNEE, found  # bent (not nan) and forward
    assert found.toes >= -1e-4, found
    assert found.feet <= FOOT, found


@pytest.mark.parametrize("kind", ["basic", "full"])
@pytest.mark.parametrize("drop", [0.2, 0.4])
def test_lowering_the_hips_crouches_with_the_trunk_upright_and_the_knees_forward(
    reach, kind: str, drop: float
) -> None:
    obj, rest = planted(kind)
    lowered(obj, "spine", drop)
    assert largest_miss(reach, obj) <= 1e-5
    assert_natural(posture(obj, rest))


@pytest.mark.parametrize("kind", ["basic", "full"])
def test_dragging_the_hips_down_crouches_on_every_event(reach, kind: str) -> None:
    obj, rest = planted(kind)
    start = Vector(world(obj, "spine"))
    path = [
        {"name": "", "location": start + Vector((0.0, 0.0, -0.35 * k / 10))} for k in range(1, 11)
    ]
    assert bpy.ops.reach.drag_bone(armature=obj.name, bone="spine", effector="HEAD", path=path) == {
        "FINISHED"
    }
    assert np.linalg.norm(world(obj, "spine") - np.array(path[-1]["location"])) <= 1e-5
    assert largest_miss(reach, obj) <= 1e-5  # the feet stayed planted
    assert_natural(posture(obj, rest))


@pytest.mark.parametrize("kind", ["basic", "full"])
def test_a_hand_goal_moved_leaves_the_planted_feet_where_they_are(reach, kind: str) -> None:
    obj, _ = planted(kind)
    feet = {s: obj.matrix_world @ obj.pose.bones[f"foot.{s}"].matrix for s in "LR"}
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone="hand.L", chain_start="", name="hand"
    ) == {"FINISHED"}
    hand = obj.reach.constraints["hand"].goal
    hand.location = Vector(hand.location) + Vector((0.1, -0.3, -0.2))
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    assert largest_miss(reach, obj) <= 1e-5
    for side, before in feet.items():
        after = obj.matrix_world @ obj.pose.bones[f"foot.{side}"].matrix
        assert (after.translation - before.translation).length <= 1e-6
        turn = before.to_quaternion().rotation_difference(after.to_quaternion()).angle
        assert np.degrees(turn) <= 0.01


def arm_twist(reach) -> float:
    """Most twist of an upper arm [°] about its length from rest in a reach, by the
    swing–twist decomposition: Human Limits' twist bound (the reading passes it only at
    the far corners of the arm's swing, which these reaches do not come near)."""
    return float(reach.addon.bridge.anatomy.RANGES["upper_arm"].twist)


def thigh_twists(obj, thighs) -> list[float]:
    """Each thigh's twist [°] about its length from rest, by the swing–twist decomposition."""
    return [bone_twist(obj, name) for name in thighs]


@pytest.mark.parametrize("kind", ["basic", "full"])
@pytest.mark.parametrize("reach_to", REACHES)
def test_a_whole_body_reach_keeps_the_knees_forward_and_every_joint_in_its_limits(
    reach, kind: str, reach_to: str
) -> None:
    obj, rest = planted(kind)
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone="hand.L", chain_start="", name="hand"
    ) == {"FINISHED"}
    hand = obj.reach.constraints["hand"].goal
    hand.location = Vector(hand.location) + Vector(REACHES[reach_to])
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    assert largest_miss(reach, obj) <= 1e-5
    found = posture(obj, rest)
    assert all(np.isnan(k) or k <= 90.0 for k in found.knees), found
    twists = thigh_twists(obj, ("thigh.L", "thigh.R"))
    assert max(abs(t) for t in twists) <= reach.addon.bridge.anatomy.THIGH_TWIST, twists
    arms = [bone_twist(obj, f"upper_arm.{s}") for s in "LR"]
    assert max(abs(t) for t in arms) <= arm_twist(reach), arms
    assert found.toes >= -1e-4 and found.feet <= FOOT, found
    assert reach.addon.bridge.posing.pose_outside(obj) == ""


@pytest.fixture(scope="module")
def skeletons(tmp_path_factory):
    """Each kind's imported skeleton, saved by a child Blender (see imported_skeletons)."""
    return imported_skeletons.make(tmp_path_factory.mktemp("skeletons"))


def named(kind: str, bone: str) -> str:
    """The name of the BVH skeleton's ``bone`` in the skeleton of ``kind``."""
    mixamo = (*imported_skeletons.MIXAMO, *imported_skeletons.GAME)
    return imported_skeletons.PREFIX + bone if kind in mixamo else bone


def imported_planted(skeletons, kind: str):
    """The skeleton as the importer of ``kind`` reads it, with default settings but for
    Human Limits, its hips free to move and each foot planted as a contact."""
    obj = imported_skeletons.append(skeletons[kind])
    assert bpy.ops.reach.figure_from_armature(armature=obj.name, translate_root=True) == {
        "FINISHED"
    }
    assert bpy.ops.reach.human_limits(armature=obj.name) == {"FINISHED"}
    for side in SIDES:
        result = bpy.ops.reach.add_constraint(
            armature=obj.name,
            bone=named(kind, f"{side}Foot"),
            chain_start=named(kind, f"{side}UpLeg"),
            contact=True,
        )
        assert result == {"FINISHED"}
    return obj


SIDES = ("Left", "Right")


def toe_height(reach, obj, kind: str, side: str) -> float:
    """The height of the toe tip, where the foot (or the toe bone after it) ends on the
    body [m].

    A glTF skeleton in centimetres comes with bones 100 times their joints' spacing, whose
    tails lie metres off the body.
    """
    toe = named(kind, f"{side}ToeBase")
    bone = obj.pose.bones.get(toe) or obj.pose.bones[named(kind, f"{side}Foot")]
    tip = reach.addon.bridge.bone_ends.end(bone.bone, bone.matrix)
    return float((obj.matrix_world @ tip)[2])


def pelvis_front(obj, kind: str) -> np.ndarray:
    """The way the imported skeleton's pelvis faces in world space (−Y at rest)."""
    hips = obj.pose.bones[named(kind, "Hips")]
    turned = np.array(hips.matrix.to_3x3()) @ np.array(hips.bone.matrix_local.to_3x3()).T
    return np.array(obj.matrix_world.to_3x3()) @ turned @ np.array((0.0, -1.0, 0.0))


def trunk_of(obj, kind: str) -> np.ndarray:
    """From the hips to the head in world space."""
    return world(obj, named(kind, "Head")) - world(obj, named(kind, "Hips"))


def feet_of(obj, kind: str) -> dict[str, Any]:
    """Each foot bone's world matrix."""
    return {s: obj.matrix_world @ obj.pose.bones[named(kind, f"{s}Foot")].matrix for s in SIDES}


def assert_imported_natural(reach, obj, kind: str, trunk, feet, toes) -> None:
    """Trunk within :data:`LEAN` of ``trunk``, knees bent and within :data:`KNEE` of the
    pelvis's front, feet turned at most :data:`FOOT` and toes not below ``toes``."""
    assert degrees(trunk_of(obj, kind), trunk) <= LEAN
    front = pelvis_front(obj, kind)
    for side in SIDES:
        knee = knee_from_front(obj, front, named(kind, f"{side}UpLeg"), named(kind, f"{side}Leg"))
        assert knee <= KNEE, (side, knee)  # bent (not nan) and forward
        after = obj.matrix_world @ obj.pose.bones[named(kind, f"{side}Foot")].matrix
        turn = feet[side].to_quaternion().rotation_difference(after.to_quaternion()).angle
        assert np.degrees(turn) <= FOOT, (side, np.degrees(turn))
        assert toe_height(reach, obj, kind, side) >= toes[side] - 1e-4, side


CROUCHING = ["fbx", "gltf", "gltf_cm", *imported_skeletons.MIXAMO, *imported_skeletons.GAME]
"""The imported skeletons the crouches are tried on."""


@pytest.mark.parametrize("kind", CROUCHING)
# the metarig's 40 cm is 40% of its hips' height (1.01 m); 36 cm is 38% of this one's 0.95
@pytest.mark.parametrize("drop", [0.2, 0.36])
def test_an_imported_skeleton_crouches_with_the_trunk_upright_and_the_knees_forward(
    reach, skeletons, kind: str, drop: float
) -> None:
    obj = imported_planted(skeletons, kind)
    trunk, feet = trunk_of(obj, kind), feet_of(obj, kind)
    toes = {s: toe_height(reach, obj, kind, s) for s in SIDES}
    lowered(obj, named(kind, "Hips"), drop)
    assert obj.reach.stats.message == "all constraints met", obj.reach.stats.message
    assert_imported_natural(reach, obj, kind, trunk, feet, toes)


def test_an_imported_skeletons_deep_crouch_meets_on_numpy_alone_as_on_the_kernel(
    reach, skeletons
) -> None:
    # numpy solves where no kernel loads. Here its descent meets a foot's limit rows after
    # moves of a few 1e-15 rad, whose decrease of G is rounding: each such row is added at
    # once, not stalled on, so the first descent meets the goals as the kernel's does.
    kind = "game_fbx"
    with reach.solver.kernel.enabled(False):
        obj = imported_planted(skeletons, kind)
        trunk, feet = trunk_of(obj, kind), feet_of(obj, kind)
        toes = {s: toe_height(reach, obj, kind, s) for s in SIDES}
        lowered(obj, named(kind, "Hips"), 0.36)
    assert obj.reach.stats.message == "all constraints met", obj.reach.stats.message
    assert_imported_natural(reach, obj, kind, trunk, feet, toes)


@pytest.mark.parametrize("kind", CROUCHING)
def test_dragging_an_imported_skeletons_hips_down_crouches(reach, skeletons, kind: str) -> None:
    obj = imported_planted(skeletons, kind)
    trunk, feet = trunk_of(obj, kind), feet_of(obj, kind)
    toes = {s: toe_height(reach, obj, kind, s) for s in SIDES}
    hips = named(kind, "Hips")
    start = Vector(world(obj, hips))
    path = [
        {"name": "", "location": start + Vector((0.0, 0.0, -0.35 * k / 10))} for k in range(1, 11)
    ]
    assert bpy.ops.reach.drag_bone(armature=obj.name, bone=hips, effector="HEAD", path=path) == {
        "FINISHED"
    }
    assert np.linalg.norm(world(obj, hips) - np.array(path[-1]["location"])) <= 1e-5
    assert largest_miss(reach, obj) <= 1e-5  # the feet stayed planted
    assert_imported_natural(reach, obj, kind, trunk, feet, toes)


@pytest.mark.parametrize(
    "kind", ["fbx", "gltf", *imported_skeletons.MIXAMO, *imported_skeletons.GAME]
)
@pytest.mark.parametrize("reach_to", REACHES)
def test_an_imported_skeleton_reaches_with_its_knees_forward_by_default(
    reach, skeletons, kind: str, reach_to: str
) -> None:
    obj = imported_planted(skeletons, kind)
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone=named(kind, "LeftHand"), chain_start="", name="hand"
    ) == {"FINISHED"}
    hand = obj.reach.constraints["hand"].goal
    # the skeletons face −Y with their left at +X once imported (tests/fixtures/bvh.py: its
    # toes point along the file's Z, Blender's −Y), as a Rigify human does; a T-pose hand
    # is already 0.7–0.96 m out on a 1.6–1.8 m body, so 40 cm farther out is as far for its
    # size as the 2 m metarig's 80 cm past its lowered hand
    push = Vector(REACHES[reach_to]) * (0.5 if reach_to == "out" else 1.0)
    hand.location = Vector(hand.location) + push
    feet = feet_of(obj, kind)
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    assert obj.reach.stats.message == "all constraints met", obj.reach.stats.message
    front = pelvis_front(obj, kind)
    for side in SIDES:
        knee = knee_from_front(obj, front, named(kind, f"{side}UpLeg"), named(kind, f"{side}Leg"))
        assert np.isnan(knee) or knee <= 90.0, (side, knee)
        after = obj.matrix_world @ obj.pose.bones[named(kind, f"{side}Foot")].matrix
        turn = feet[side].to_quaternion().rotation_difference(after.to_quaternion()).angle
        assert np.degrees(turn) <= FOOT
    twists = thigh_twists(obj, [named(kind, f"{s}UpLeg") for s in SIDES])
    assert max(abs(t) for t in twists) <= reach.addon.bridge.anatomy.THIGH_TWIST, twists
    arms = [bone_twist(obj, named(kind, f"{s}Arm")) for s in SIDES]
    assert max(abs(t) for t in arms) <= arm_twist(reach), arms
    assert reach.addon.bridge.posing.pose_outside(obj) == ""


def control_rig_planted() -> Any:
    """Rigify's control rig of the human metarig, its legs switched to FK, with default
    settings but for Human Limits, its torso free to move and each FK foot planted as a
    contact (chains from the FK thighs)."""
    obj = generated("basic_human")
    for side in "LR":
        obj.pose.bones[f"thigh_parent.{side}"]["IK_FK"] = 1.0
    obj.update_tag()
    bpy.context.view_layer.update()
    assert bpy.ops.reach.figure_from_armature(armature=obj.name, translate_root=True) == {
        "FINISHED"
    }
    assert bpy.ops.reach.human_limits(armature=obj.name) == {"FINISHED"}
    for side in "LR":
        result = bpy.ops.reach.add_constraint(
            armature=obj.name, bone=f"foot_fk.{side}", chain_start=f"thigh_fk.{side}", contact=True
        )
        assert result == {"FINISHED"}
    return obj


def deform_posture(obj, before: dict[str, Any]) -> Posture:
    """The control rig's posture on its deform bones (what moves the mesh) against
    ``before`` (:func:`deform_rest`): the hip–ankle line runs to the foot's head, for the
    shin is two bones."""
    hips = obj.pose.bones["DEF-spine"]
    turned = np.array(hips.matrix.to_3x3()) @ np.array(hips.bone.matrix_local.to_3x3()).T
    front = np.array(obj.matrix_world.to_3x3()) @ turned @ np.array((0.0, -1.0, 0.0))
    knees = []
    for side in "LR":
        hip, knee = world(obj, f"DEF-thigh.{side}"), world(obj, f"DEF-shin.{side}")
        line = world(obj, f"DEF-foot.{side}") - hip
        line /= np.linalg.norm(line)
        bend = (knee - hip) - float((knee - hip) @ line) * line
        ahead = front - float(front @ line) * line
        knees.append(degrees(bend, ahead) if np.linalg.norm(bend) > 1e-3 else np.nan)
    feet = [
        degrees(world(obj, f"DEF-foot.{s}", "tail") - world(obj, f"DEF-foot.{s}"), before[s])
        for s in "LR"
    ]
    toes = min(float(world(obj, f"DEF-toe.{s}", "tail")[2]) - before[f"toe.{s}"] for s in "LR")
    lean = degrees(world(obj, "DEF-spine.003", "tail") - world(obj, "DEF-spine"), before["trunk"])
    return Posture(lean, (knees[0], knees[1]), toes, max(feet))


def deform_rest(obj) -> dict[str, Any]:
    """The control rig's deform bones' measures at rest: the trunk, each foot's direction
    and each toe tip's height."""
    found: dict[str, Any] = {"trunk": world(obj, "DEF-spine.003", "tail") - world(obj, "DEF-spine")}
    for side in "LR":
        found[side] = world(obj, f"DEF-foot.{side}", "tail") - world(obj, f"DEF-foot.{side}")
        found[f"toe.{side}"] = float(world(obj, f"DEF-toe.{side}", "tail")[2])
    return found


@pytest.mark.parametrize("drop", [0.2, 0.4])
def test_a_control_rig_crouches_with_the_trunk_upright_and_the_knees_forward(reach, drop) -> None:
    obj = control_rig_planted()
    before = deform_rest(obj)
    lowered(obj, "torso", drop)
    assert obj.reach.stats.message == "all constraints met", obj.reach.stats.message
    assert largest_miss(reach, obj) <= 1e-5
    assert_natural(deform_posture(obj, before))


def test_dragging_a_control_rigs_torso_down_crouches(reach) -> None:
    obj = control_rig_planted()
    before = deform_rest(obj)
    start = Vector(world(obj, "torso"))
    path = [
        {"name": "", "location": start + Vector((0.0, 0.0, -0.35 * k / 10))} for k in range(1, 11)
    ]
    assert bpy.ops.reach.drag_bone(armature=obj.name, bone="torso", effector="HEAD", path=path) == {
        "FINISHED"
    }
    assert np.linalg.norm(world(obj, "torso") - np.array(path[-1]["location"])) <= 1e-5
    assert largest_miss(reach, obj) <= 1e-5  # the feet stayed planted
    assert obj.reach.stats.message == "all constraints met", obj.reach.stats.message
    assert_natural(deform_posture(obj, before))


@pytest.mark.parametrize("reach_to", REACHES)
def test_a_control_rigs_whole_body_reach_keeps_the_knees_forward_and_the_limbs_untwisted(
    reach, reach_to: str
) -> None:
    obj = control_rig_planted()
    for side in "LR":  # the arms in FK too: the hand's chain runs down through the torso
        obj.pose.bones[f"upper_arm_parent.{side}"]["IK_FK"] = 1.0
    obj.update_tag()
    bpy.context.view_layer.update()
    before = deform_rest(obj)
    feet = {s: obj.matrix_world @ obj.pose.bones[f"DEF-foot.{s}"].matrix for s in "LR"}
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone="hand_fk.L", chain_start="torso", name="hand"
    ) == {"FINISHED"}
    hand = obj.reach.constraints["hand"].goal
    hand.location = Vector(hand.location) + Vector(REACHES[reach_to])
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    assert obj.reach.stats.message == "all constraints met", obj.reach.stats.message
    assert largest_miss(reach, obj) <= 1e-5
    found = deform_posture(obj, before)
    assert all(np.isnan(k) or k <= 90.0 for k in found.knees), found
    assert found.toes >= -1e-4 and found.feet <= FOOT, found
    for side, was in feet.items():
        now = obj.matrix_world @ obj.pose.bones[f"DEF-foot.{side}"].matrix
        assert (now.translation - was.translation).length <= 1e-6
    thighs = thigh_twists(obj, ("thigh_fk.L", "thigh_fk.R"))
    assert max(abs(t) for t in thighs) <= reach.addon.bridge.anatomy.THIGH_TWIST, thighs
    arms = [bone_twist(obj, f"upper_arm_fk.{s}") for s in "LR"]
    assert max(abs(t) for t in arms) <= arm_twist(reach), arms
    assert reach.addon.bridge.posing.pose_outside(obj) == ""
