"""The solver methods in Blender: Solve, drags, the method panel, priorities and pins."""

from __future__ import annotations

import dataclasses

import bpy
import numpy as np
import pytest
import rigs
from layout_check import Host
from rigs import four_limbs, reachable_path

METHODS = ("goldfarb", "lbfgsb", "dls", "jacobian_transpose")

SHOWN = {
    "goldfarb": (),
    "lbfgsb": ("tikhonov", "subdivide"),
    "dls": ("damping",),
    "jacobian_transpose": ("step_size", "falloff", "cutoff"),
}
"""The options the solver panel shows under each method."""


def hand_path(reach, obj, n):
    rig = reach.addon.bridge.plain_rig.build_rig(obj)
    return reachable_path(rig, obj, "forearm.L", ("shoulder.L", "upper_arm.L", "forearm.L"), n, 5)


@pytest.mark.parametrize("method", METHODS)
def test_each_method_solves_through_reach_solve(reach, method):
    obj = four_limbs()
    obj.reach.method.kind = method
    goal = obj.reach.constraints["hand.L"].goal
    goal.location = hand_path(reach, obj, 4)[-1]["location"]
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    bpy.context.view_layer.update()
    arm = rigs.chain_length(obj, ("upper_arm.L", "forearm.L"))
    hand = rigs.world_tail(obj, "forearm.L")
    assert np.linalg.norm(hand - np.array(goal.location)) <= 1e-3 * arm
    assert obj.reach.stats.status in ("converged", "max_iterations", "time_limit")


@pytest.mark.parametrize("method", METHODS)
def test_each_method_follows_a_drag_replay_within_the_limits(reach, method):
    obj = four_limbs()
    obj.reach.method.kind = method
    # Each event ends by the method's own stop, not the clock's: what the replay meets
    # then does not depend on how busy the machine is.
    obj.reach.time_budget, obj.reach.adaptive = 10.0, False
    goal = obj.reach.constraints["hand.L"].goal
    path = hand_path(reach, obj, 8)
    assert bpy.ops.reach.drag_goal(armature=obj.name, goal=goal.name, path=path) == {"FINISHED"}
    events = obj.reach.drag_events
    assert len(events) == len(path)
    arm = rigs.chain_length(obj, ("upper_arm.L", "forearm.L"))
    assert all(event.max_violation <= 1e-9 for event in events)
    assert events[-1].residual <= 1e-3 * arm


def test_the_method_and_its_options_are_stored_and_passed_to_the_solver(reach):
    obj = four_limbs()
    method = obj.reach.method
    method.kind = "jacobian_transpose"
    method.cutoff = 2
    method.falloff = 0.5
    solver = reach.solver
    chosen = reach.addon.bridge.methods.method_of(method)
    assert chosen == solver.JacobianTranspose(falloff=0.5, cutoff=2)
    method.kind = "lbfgsb"
    method.tikhonov = 0.25
    chosen = reach.addon.bridge.methods.method_of(method)
    assert isinstance(chosen, solver.Lbfgsb)
    assert (chosen.tikhonov, chosen.subdivide, chosen.theta_ref) == (0.25, 0, None)
    method.kind = "dls"
    assert reach.addon.bridge.methods.method_of(method) == solver.Dls()
    # asked again with the same settings (every drag event asks): the same object, until
    # a setting changes
    method.kind = "lbfgsb"
    assert reach.addon.bridge.methods.method_of(method) is chosen
    method.tikhonov = 0.5
    assert reach.addon.bridge.methods.method_of(method).tikhonov == 0.5


@pytest.mark.parametrize("method", METHODS)
def test_a_new_figures_method_options_are_the_solvers_defaults(reach, method):
    obj = four_limbs()
    obj.reach.method.kind = method
    chosen = reach.addon.bridge.methods.method_of(obj.reach.method)
    default = reach.solver.methods.as_method(method)
    assert type(chosen) is type(default)
    for field in dataclasses.fields(default):
        stored, solvers = getattr(chosen, field.name), getattr(default, field.name)
        if isinstance(solvers, float):  # Blender stores floats in single precision
            stored, solvers = np.float32(stored), np.float32(solvers)
        assert stored == solvers, field.name


@pytest.mark.parametrize("method", METHODS)
def test_the_solver_panel_shows_each_methods_options(reach, method):
    rigs.figure()
    bpy.context.active_object.reach.method.kind = method
    host = Host()
    reach.addon.panel.REACH_PT_solver.draw(host, bpy.context)
    shown = host.layout.props()
    assert shown[5] == "kind"
    assert tuple(shown[6:-1]) == SHOWN[method]
    assert shown[-1] == "comfort"
    # comfort is drawn active only for the methods that honour it
    (column,) = [c for c in host.layout.children if "comfort" in c.props()]
    assert column.settings["active"] is (method in {"goldfarb", "lbfgsb"})


def test_pin_bone_adds_a_pin_at_the_bones_head(reach):
    obj = rigs.figure()
    assert bpy.ops.reach.pin_bone(armature=obj.name, bone="hand.L") == {"FINISHED"}
    entry = obj.reach.constraints["Pin hand.L"]
    assert entry.pinned and entry.effector == "HEAD" and entry.priority == 0
    head = np.array(obj.matrix_world @ obj.pose.bones["hand.L"].head)
    assert np.allclose(entry.goal.location, head, atol=1e-6)
    with pytest.raises(RuntimeError, match="pinned already"):
        bpy.ops.reach.pin_bone(armature=obj.name, bone="hand.L")


def test_a_pinned_wrist_stays_put_while_a_spine_constraint_moves(reach):
    obj = rigs.figure()
    obj.reach.method.kind = "dls"
    assert bpy.ops.reach.pin_bone(armature=obj.name, bone="hand.L") == {"FINISHED"}
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone="spine.003", effector="TAIL", chain_start="spine.001", name="lean"
    ) == {"FINISHED"}
    wrist = np.array(obj.matrix_world @ obj.pose.bones["hand.L"].head)
    goal = obj.reach.constraints["lean"].goal
    start = np.array(goal.location)
    path = [
        {"name": "", "location": tuple(start + t * np.array((0.0, -0.08, -0.02)))}
        for t in np.linspace(0.0, 1.0, 7)[1:]
    ]
    assert bpy.ops.reach.drag_goal(armature=obj.name, goal=goal.name, path=path) == {"FINISHED"}
    bpy.context.view_layer.update()
    moved = np.array(obj.matrix_world @ obj.pose.bones["spine.003"].tail)
    assert np.linalg.norm(moved - start) > 0.03  # the spine leaned
    held = np.array(obj.matrix_world @ obj.pose.bones["hand.L"].head)
    assert np.linalg.norm(held - wrist) <= 1e-5


def test_priority_is_stored_and_reaches_the_problem(reach):
    obj = four_limbs()
    obj.reach.constraints["hand.L"].priority = 2
    setup = reach.addon.bridge.goals.build_problem(obj, bpy.context.scene)
    priorities = {leaf.name: leaf.priority for leaf in setup.problem.leaves}
    assert priorities["hand.L"] == 2 and priorities["foot.L"] == 0
