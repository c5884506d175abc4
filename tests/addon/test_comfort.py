"""Comfort: the figure relaxes toward its comfort pose where the goals leave it free."""

from __future__ import annotations

import bpy
import numpy as np
import pytest
import rigs
from mathutils import Euler, Vector

from tests.fixtures.goal_kinds import add_mixed

ARM = ("shoulder.L", "upper_arm.L", "forearm.L", "hand.L")


def reaching(comfort: float):
    """The metarig with its feet held and the left hand's goal on a chain to the root: the
    spine and legs are the redundancy comfort fills."""
    obj = rigs.metarig()
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    rigs.limbs(obj, hands=False)
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone="forearm.L", effector="TAIL", name="hand.L"
    ) == {"FINISHED"}
    obj.reach.comfort = comfort
    return obj, obj.reach.constraints["hand.L"].goal


def travel_outside_the_arm(obj) -> float:
    """The sum of every bone's rotation angle off its rest pose, the dragged arm left out [rad]."""
    return sum(b.matrix_basis.to_quaternion().angle for b in obj.pose.bones if b.name not in ARM)


def hand_miss(obj, goal) -> float:
    return float(np.linalg.norm(rigs.world_tail(obj, "forearm.L") - np.array(goal.location)))


def test_comfort_moves_the_body_less_and_meets_the_goal_as_well(reach):
    travel = {}
    for comfort in (0.0, 1.0):
        bpy.ops.wm.read_homefile(use_empty=True)
        obj, goal = reaching(comfort)
        goal.location += Vector((0.1, -0.3, 0.1))  # within the arm's reach
        assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
        arm = rigs.chain_length(obj, ("upper_arm.L", "forearm.L"))
        assert hand_miss(obj, goal) <= 1e-5 * arm
        assert obj.reach.stats.unmet == ""
        travel[comfort] = travel_outside_the_arm(obj)
    assert travel[1.0] < 0.6 * travel[0.0], travel


def test_a_drag_with_comfort_meets_every_event_and_relaxes_the_body(reach):
    travel = {}
    for comfort in (0.0, 0.5):
        bpy.ops.wm.read_homefile(use_empty=True)
        obj, goal = reaching(comfort)
        start = np.array(goal.location)
        path = [
            {"name": "", "location": tuple(start + t * np.array((0.0, -0.35, -0.2)))}
            for t in np.linspace(0.0, 1.0, 16)[1:]
        ]
        assert bpy.ops.reach.drag_goal(armature=obj.name, goal=goal.name, path=path) == {"FINISHED"}
        arm = rigs.chain_length(obj, ("upper_arm.L", "forearm.L"))
        assert max(event.residual for event in obj.reach.drag_events) <= 1e-5 * arm
        assert hand_miss(obj, goal) <= 1e-5 * arm
        travel[comfort] = travel_outside_the_arm(obj)
    assert travel[0.5] < 0.8 * travel[0.0], travel


def test_a_stored_comfort_pose_is_the_one_relaxed_toward(reach):
    obj, _ = reaching(1.0)
    spine = obj.pose.bones["spine.003"]
    spine.rotation_mode = "XYZ"
    spine.rotation_euler = Euler((0.3, 0.0, 0.1))
    bpy.context.view_layer.update()
    assert bpy.ops.reach.store_comfort_pose(armature=obj.name) == {"FINISHED"}
    assert len(obj.reach.comfort_pose) == len(obj.pose.bones)
    bridge = reach.addon.bridge
    rig = bridge.plain_rig.build_rig(obj)
    comfort = bridge.comfort.comfort_of(obj, rig)
    assert comfort is not None and comfort.share == pytest.approx(1.0)
    assert np.allclose(comfort.reference, bridge.pose.read_pose(obj, rig), atol=1e-6)
    spine.rotation_euler = Euler((0.0, 0.0, 0.0))  # back at rest: a solve relaxes it
    bpy.context.view_layer.update()
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    turned = spine.matrix_basis.to_euler("XYZ")
    assert turned.x > 0.05  # toward the stored bend, as far as the goals leave it free
    assert bpy.ops.reach.clear_comfort_pose(armature=obj.name) == {"FINISHED"}
    assert np.allclose(bridge.comfort.comfort_of(obj, rig).reference, 0.0)
    obj.reach.comfort = 0.0
    assert bridge.comfort.comfort_of(obj, rig) is None


def test_opening_a_file_in_live_mode_with_comfort_changes_no_pose(reach, tmp_path):
    obj, goal = reaching(1.0)
    goal.location += Vector((0.0, -0.2, -0.1))
    obj.reach.comfort = 0.0
    assert bpy.ops.reach.live(armature=obj.name) == {"FINISHED"}
    bpy.context.view_layer.update()
    obj.reach.comfort = 1.0  # the pose saved is not the one comfort would relax to
    saved = rigs.pose_channels(obj)
    name = obj.name
    bpy.ops.wm.save_as_mainfile(filepath=str(tmp_path / "comfort.blend"))
    bpy.ops.wm.open_mainfile(filepath=str(tmp_path / "comfort.blend"))
    obj = bpy.data.objects[name]
    assert reach.addon.live.is_live(obj.name)
    assert rigs.pose_channels(obj) == saved  # bit for bit


def test_each_joint_weighs_by_how_much_of_the_body_it_moves(reach):
    obj, _ = reaching(1.0)
    bridge = reach.addon.bridge
    rig = bridge.plain_rig.build_rig(obj)
    weights = bridge.comfort.carried_weights(obj, rig)
    figure = rig.figure

    def weight(bone):
        return weights[figure.segment(bone).dof_indices.start]

    trunk = ("spine.001", "spine.002", "spine.003")
    limbs = ("shoulder.L", "upper_arm.L", "forearm.L", "hand.L")
    assert min(map(weight, trunk)) > 2.0 * max(map(weight, limbs))
    assert weight("upper_arm.L") > weight("forearm.L") > weight("hand.L")
    assert weight("upper_arm.L") == weight("upper_arm.R")
    for joint in obj.reach.joints:
        joint.mass = 0.0
    assert np.all(bridge.comfort.carried_weights(obj, rig) == 1.0)


def test_a_drag_of_every_goal_type_relaxes_by_the_newton_rounds_on_every_event(reach, monkeypatch):
    """Six goals of six kinds hold the metarig while the left hand is dragged, Comfort 1: the
    goals' descent stops a few nanometres off some of them, and each event's relaxation
    keeps the Newton rounds' end, no further from the goals than every goal 10 nm further
    off (of a 1 m chain) would be; none is handed to the gradient projection's slower
    rounds."""
    obj = rigs.metarig()
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    add_mixed(bpy.ops, obj)
    obj.reach.comfort = 1.0
    bpy.context.view_layer.update()
    relax = reach.solver.optimizer.relax
    rounds = relax._newton_rounds
    ended = []
    monkeypatch.setattr(relax, "_newton_rounds", lambda *a: ended.append(rounds(*a)) or ended[-1])
    goal = obj.reach.constraints["hand.L"].goal
    start = np.array(goal.location)
    path = [
        {"name": "", "location": tuple(start + t * np.array((-0.2, -0.15, -0.1)))}
        for t in np.linspace(0.0, 1.0, 41)[1:]
    ]
    assert bpy.ops.reach.drag_goal(armature=obj.name, goal=goal.name, path=path) == {"FINISHED"}
    arm = rigs.chain_length(obj, ("upper_arm.L", "forearm.L"))
    assert max(event.residual for event in obj.reach.drag_events) <= 1e-5 * arm
    assert len(ended) >= len(path)
    assert all(end is not None for end in ended), sum(end is None for end in ended)
