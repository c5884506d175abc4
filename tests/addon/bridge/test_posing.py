"""The one solve step (``bridge.posing``): where a solve starts, what it writes and keeps."""

from __future__ import annotations

import math

import bpy
import numpy as np
import pytest
import rigs
from mathutils import Vector
from rigs import four_limbs


def poser(reach, obj):
    return reach.addon.bridge.posing.Poser(obj, bpy.context.scene, bpy.context.view_layer)


def update(it, *, warm=False, rebuild=False, keep=False, judge=True):
    """A live update's step on the test's scene, judged now unless ``judge`` is off."""
    evaluator = bpy.context.view_layer if judge else None
    return it.update(
        it.obj,
        bpy.context.scene,
        evaluator,
        warm=warm,
        time_limit=None,
        rebuild=rebuild,
        hold=(),
        keep=keep,
        key=False,
    )


def bent_elbow(obj, degrees: float) -> None:
    forearm = obj.pose.bones["forearm.L"]
    forearm.rotation_mode = "XYZ"
    forearm.rotation_euler = (math.radians(degrees), 0.0, 0.0)  # limit: X in [-150°, 0°]
    bpy.context.view_layer.update()


def test_a_step_solves_writes_judges_and_records(reach):
    obj = four_limbs()
    goal = obj.reach.constraints["hand.L"].goal
    goal.location += Vector((-0.08, -0.05, -0.05))  # in reach: the arm bends
    bpy.context.view_layer.update()
    before = rigs.pose_channels(obj)
    step = poser(reach, obj).solve()
    assert step.written and "forearm.L" in step.moved
    assert rigs.pose_channels(obj) != before
    assert not step.outcome.unmet
    assert obj.reach.stats.message == step.outcome.message == "all constraints met"
    assert obj.reach.stats.milliseconds == pytest.approx(step.milliseconds)
    hand = rigs.world_tail(obj, "forearm.L")
    assert np.linalg.norm(hand - np.array(goal.matrix_world.translation)) <= 1e-5


def test_a_warm_start_is_the_previous_solution_on_the_chains_and_the_pose_elsewhere(reach):
    obj = four_limbs()
    posing = reach.addon.bridge.posing
    it = poser(reach, obj)
    it.solve()
    previous = it.theta.copy()
    setup = it.prepare()
    read = it.read(setup.rig)
    read[:] = np.clip(read + 0.01, setup.rig.figure.lower, setup.rig.figure.upper)
    start, clamped = it.start_pose(setup, read, posing.Start.WARM)
    chains = setup.problem.variable_mask
    assert not clamped
    assert np.array_equal(start[chains], previous[chains])
    assert np.array_equal(start[~chains], read[~chains])
    follow, _ = it.start_pose(setup, read, posing.Start.FOLLOW)
    assert np.array_equal(follow, previous)
    pose, _ = it.start_pose(setup, read, posing.Start.POSE)
    assert np.array_equal(pose, read)


def test_a_warm_start_past_the_limits_falls_back_to_the_pose_then_clamps_or_refuses(reach):
    obj = four_limbs()
    posing = reach.addon.bridge.posing
    it = poser(reach, obj)
    setup = it.prepare()
    figure = setup.rig.figure
    elbow = next(i for i, dof in enumerate(figure.dofs) if dof.name == "forearm.L rotation X")
    it.theta = it.read(setup.rig)
    it.theta[elbow] = math.radians(30.0)  # past the elbow's 0° bound
    read = it.read(setup.rig)
    start, clamped = it.start_pose(setup, read, posing.Start.WARM)
    assert not clamped and np.array_equal(start, read)
    read[elbow] = math.radians(20.0)
    with pytest.raises(reach.addon.errors.BlenderDataError, match=r"forearm\.L rotation X is 20"):
        it.start_pose(setup, read, posing.Start.WARM)
    start, clamped = it.start_pose(setup, read, posing.Start.WARM, clamp=True)
    assert clamped and start[elbow] <= 1e-12
    assert figure.limits.max_violation(start) <= 1e-12


def test_a_refused_start_writes_nothing(reach):
    obj = four_limbs()
    bent_elbow(obj, 20.0)
    before = rigs.pose_channels(obj)
    with pytest.raises(reach.addon.errors.BlenderDataError, match="outside the limits"):
        poser(reach, obj).solve()
    assert rigs.pose_channels(obj) == before


def test_keep_writes_nothing_when_the_solve_moves_no_bone(reach):
    obj = four_limbs()
    poser(reach, obj).solve()  # every goal met
    before = rigs.pose_channels(obj)
    step = update(poser(reach, obj), keep=True)
    assert not step.moved and not step.written
    assert rigs.pose_channels(obj) == before


def test_a_step_judged_later_measures_on_blenders_pose(reach):
    obj = four_limbs()
    goal = obj.reach.constraints["hand.L"].goal
    goal.location += Vector((-0.08, -0.05, -0.05))  # in reach: the arm bends
    bpy.context.view_layer.update()
    it = poser(reach, obj)
    step = update(it, judge=False)
    assert not step.outcome.unmet and obj.reach.stats.unmet == ""
    turned = bpy.data.objects.new("turned", None)  # Blender now poses the forearm otherwise
    bpy.context.scene.collection.objects.link(turned)
    turned.rotation_euler = (0.0, 0.0, 1.2)
    obj.pose.bones["forearm.L"].constraints.new("COPY_ROTATION").target = turned
    bpy.context.view_layer.update()
    judged = it.judge(step)
    assert judged.unmet == ["hand.L"]
    assert "forearm.L" in judged.diverging
    assert obj.reach.stats.unmet == "hand.L"
    assert obj.reach.stats.message.startswith("not met on Blender's pose: hand.L ")


def test_an_armature_that_moved_keeps_its_writer_and_its_chains_lengths_scale(reach):
    obj = four_limbs()
    it = poser(reach, obj)
    first = it.solve()
    writer, lengths = it.writer, first.setup.problem.chain_lengths.copy()
    obj.location = (0.02, 0.01, -0.02)  # the goals stay in reach
    obj.rotation_euler = (0.0, 0.0, 0.05)
    obj.scale = (1.02, 1.02, 1.02)
    bpy.context.view_layer.update()
    second = update(it, warm=True)
    assert second.setup.rig is not first.setup.rig  # moved along, not rebuilt:
    assert second.setup.rig.layout is first.setup.rig.layout and it.writer is writer
    # Single precision apart: Blender's bones against the moved figure's double products.
    fresh = reach.addon.bridge.goals.build_problem(obj, bpy.context.scene).problem
    np.testing.assert_allclose(second.setup.problem.chain_lengths, fresh.chain_lengths, rtol=1e-6)
    np.testing.assert_allclose(second.setup.problem.chain_lengths, 1.02 * lengths, rtol=1e-6)
    assert not second.outcome.unmet  # judged on Blender's pose: the goals stayed in the world
    goal = obj.reach.constraints["hand.L"].goal
    hand = rigs.world_tail(obj, "forearm.L")
    assert np.linalg.norm(hand - np.array(goal.matrix_world.translation)) <= 1e-5
    # A rebuilt rig gets a writer of its own.
    third = update(it, warm=True, rebuild=True)
    assert third.setup.rig.layout is not first.setup.rig.layout and it.writer is not writer


def test_a_solve_stops_once_every_goal_is_met_to_what_single_precision_shows(reach):
    obj = four_limbs()
    goal = obj.reach.constraints["hand.L"].goal
    goal.location += Vector((-0.08, -0.05, -0.05))
    bpy.context.view_layer.update()
    step = poser(reach, obj).solve()
    result, problem = step.outcome.result, step.setup.problem
    precision = reach.addon.bridge.solving.PRECISION
    assert "goals met" in result.message  # not the Kuhn–Tucker test's later stop
    assert result.fun <= problem.goal_tolerance(precision)
    lengths = dict(zip(step.setup.names, problem.chain_lengths, strict=True))
    for name, residual in step.outcome.residuals.items():
        assert residual <= precision * lengths[name]
