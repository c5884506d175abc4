"""The jaw of a control rig's face: a goal on the deform jaw bone, which rides the jaw
master through the face's plain controls, is met by turning the jaw master about the
line across the face, within the range a jaw opens; nothing else is written."""

from __future__ import annotations

import math

import bpy
import pytest
from control_rigs import generated, solved
from mathutils import Matrix, Vector

JAWS = {"human": "jaw_master", "wolf": "jaw_master", "cat": "jaw_master", "horse": "jaw"}
"""The kinds whose generated rig has a jaw, and its control (a face's jaw master)."""

JAW = "jaw_master"


def chin_goal(obj, degrees: float, about: str = "X", jaw: str = JAW) -> Vector:
    """A constraint "chin" on ``DEF-jaw``'s tail, its chain from ``jaw``, its goal that tail
    turned by ``degrees`` about the world ``about`` axis through the jaw's head; the goal's
    place."""
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone="DEF-jaw", effector="TAIL", chain_start=jaw, name="chin"
    ) == {"FINISHED"}
    goal = obj.reach.constraints["chin"].goal
    pivot = obj.matrix_world @ obj.pose.bones[jaw].head
    turn = Matrix.Rotation(math.radians(degrees), 3, about)
    goal.location = tuple(pivot + turn @ (Vector(goal.location) - pivot))
    bpy.context.view_layer.update()
    return Vector(goal.location)


def chin(obj) -> Vector:
    return obj.matrix_world @ obj.pose.bones["DEF-jaw"].tail


def opening(obj, jaw: str = JAW) -> tuple[float, float, float]:
    """The jaw control's turn [deg] about its own X, Y and Z."""
    euler = obj.pose.bones[jaw].matrix_basis.to_euler("XYZ")
    return tuple(math.degrees(a) for a in euler)


@pytest.mark.parametrize("kind", JAWS)
def test_a_goal_on_the_deform_jaw_opens_the_jaw_control_on_its_hinge(reach, kind):
    obj, jaw = generated(kind), JAWS[kind]
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    target = chin_goal(obj, 18.0, jaw=jaw)  # the chin swung down and back: the mouth opens
    assert solved(obj) == {jaw}
    assert obj.reach.stats.message == "all constraints met"
    length = obj.data.bones["DEF-jaw"].length
    assert (chin(obj) - target).length <= 1e-5 * length + 2e-6
    x, y, z = opening(obj, jaw)
    assert x == pytest.approx(18.0, abs=0.05) and abs(y) < 1e-3 and abs(z) < 1e-3


@pytest.mark.parametrize("kind", ("human", "wolf", "cat"))
def test_a_jaw_turns_no_further_than_it_opens_and_never_into_the_skull(reach, kind):
    obj = generated(kind)
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    chin_goal(obj, 0.0)
    obj.reach.constraints["chin"].goal.location = tuple(chin_goal_place(obj, -15.0))  # the skull
    bpy.context.view_layer.update()
    assert solved(obj) <= {JAW}
    assert "held by jaw_master rotation X ≥ 0°" in obj.reach.stats.reasons
    assert opening(obj)[0] == pytest.approx(0.0, abs=1e-3)
    obj.reach.constraints["chin"].goal.location = tuple(chin_goal_place(obj, 45.0))
    bpy.context.view_layer.update()
    assert solved(obj) == {JAW}
    assert "held by jaw_master rotation X ≤ 30°" in obj.reach.stats.reasons
    assert opening(obj)[0] == pytest.approx(30.0, abs=1e-3)


def chin_goal_place(obj, degrees: float) -> Vector:
    """Where the rest pose's chin lies turned ``degrees`` about world X through the jaw's
    pivot, drawn in a twentieth (within the jaw's length of the pivot)."""
    pivot = obj.matrix_world @ obj.data.bones[JAW].head_local
    rest = obj.matrix_world @ obj.data.bones["DEF-jaw"].tail_local
    return pivot + Matrix.Rotation(math.radians(degrees), 3, "X") @ (rest - pivot) * 0.95


def test_a_sideways_goal_leaves_the_jaw_on_its_hinge(reach):
    obj = generated("human")
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    chin_goal(obj, 12.0, about="Z")  # the chin pulled aside: a jaw does not swing there
    solved(obj)
    _, y, z = opening(obj)
    assert abs(y) < 1e-3 and abs(z) < 1e-3
    assert "chin" in obj.reach.stats.message


def test_a_jaw_the_animator_has_limited_keeps_the_animators_limits(reach):
    obj = generated("human")
    control = obj.pose.bones[JAW]
    control.use_ik_limit_x, control.ik_min_x, control.ik_max_x = True, 0.0, math.radians(10.0)
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    chin_goal(obj, 18.0)
    assert solved(obj) == {JAW}
    assert "held by jaw_master rotation X ≤ 10°" in obj.reach.stats.reasons


def test_a_jaw_posed_open_past_its_range_starts_where_it_is(reach):
    obj = generated("human")
    control = obj.pose.bones[JAW]
    control.rotation_mode = "QUATERNION"
    control.rotation_quaternion = Matrix.Rotation(math.radians(40.0), 3, "X").to_quaternion()
    bpy.context.view_layer.update()
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    target = chin_goal(obj, -10.0)  # a little shut from 40° open
    assert solved(obj) == {JAW}
    assert obj.reach.stats.message == "all constraints met"
    assert (chin(obj) - target).length <= 1e-5 * obj.data.bones["DEF-jaw"].length + 2e-6
    assert opening(obj)[0] == pytest.approx(30.0, abs=0.05)


def test_a_jaw_control_moved_by_hand_refuses_its_riders_by_name(reach):
    obj = generated("human")
    obj.pose.bones["jaw"].location = (0.0, 0.01, 0.0)  # the plain control under the master
    bpy.context.view_layer.update()
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    with pytest.raises(RuntimeError, match="'DEF-jaw' moves with no limb Reach poses"):
        bpy.ops.reach.add_constraint(
            armature=obj.name, bone="DEF-jaw", effector="TAIL", chain_start=JAW, name="chin"
        )
