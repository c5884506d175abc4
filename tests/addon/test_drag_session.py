"""Drag sessions (``drag_session``): every event writes only the chains, cancel restores."""

from __future__ import annotations

import importlib

import bpy
import rigs
from rigs import four_limbs, reachable_path


def drag_session(reach, obj, name):
    goal = obj.reach.constraints[name].goal
    return reach.addon.drag_session.DragSession(bpy.context, obj, goal), goal


def test_cancel_restores_every_bone_and_the_goal_bit_for_bit(reach):
    obj = four_limbs()
    obj.pose.bones["upper_arm.L"].rotation_mode = "QUATERNION"
    obj.pose.bones["forearm.R"].rotation_mode = "AXIS_ANGLE"
    obj.pose.bones["spine.003"].rotation_euler = (0.05, -0.02, 0.01)
    bpy.context.view_layer.update()
    before = rigs.pose_channels(obj)
    drag, goal = drag_session(reach, obj, "hand.L")
    goal_before = tuple(goal.location)
    rig = drag.setup.rig
    for point in reachable_path(
        rig, obj, "forearm.L", ("shoulder.L", "upper_arm.L", "forearm.L"), 10, seed=5
    ):
        drag.step(point["location"])
    assert rigs.pose_channels(obj) != before
    drag.cancel()
    assert rigs.pose_channels(obj) == before
    assert tuple(goal.location) == goal_before


def test_a_drag_event_writes_only_the_chain_bones_and_rebuilds_only_the_moved_goal(reach):
    bridge = reach.addon.bridge
    obj = four_limbs()
    obj.pose.bones["upper_arm.L"].rotation_mode = "QUATERNION"
    obj.pose.bones["forearm.L"].rotation_mode = "AXIS_ANGLE"
    obj.pose.bones["spine.003"].rotation_euler = (0.1, 0.2, 0.3)  # not in a chain
    bpy.context.view_layer.update()
    before = rigs.pose_channels(obj)
    drag, _ = drag_session(reach, obj, "hand.L")
    first = drag.setup
    path = reachable_path(
        first.rig, obj, "forearm.L", ("shoulder.L", "upper_arm.L", "forearm.L"), 3, seed=8
    )
    for point in path:
        drag.step(point["location"])
    after = rigs.pose_channels(obj)
    movable = set(first.movable)
    assert "spine.003" not in movable and "upper_arm.L" in movable
    for name, channels in before.items():
        if name not in movable:
            assert after[name] == channels, name  # bit for bit
    assert any(after[name] != before[name] for name in ("upper_arm.L", "forearm.L"))
    # the other goals' solver goals are the very same objects; the dragged one is new
    index = drag.setup.names.index("hand.L")
    for k, (old, new) in enumerate(
        zip(first.problem.leaves, drag.setup.problem.leaves, strict=True)
    ):
        assert (old.goal is new.goal) == (k != index)
    fresh = bridge.goals.build_problem(obj, bpy.context.scene, first.rig)
    theta = bridge.pose.read_pose(obj, first.rig)
    assert drag.setup.problem.objective(theta)[0] == fresh.problem.objective(theta)[0]


def _updates_during(step):
    """How many times Blender evaluated the view layer during ``step()``."""
    count = []

    def counter(scene, depsgraph):
        count.append(1)

    bpy.app.handlers.depsgraph_update_post.append(counter)
    try:
        step()
    finally:
        bpy.app.handlers.depsgraph_update_post.remove(counter)
    return len(count)


def _drag_poses(reach, alone, setup_goal):
    """The chain channels after each event of a drag of hand.L, its goal read as its own
    channels place it (``alone``) or as Blender evaluates it first."""
    obj = four_limbs()
    drag, goal = drag_session(reach, obj, "hand.L")
    setup_goal(goal)
    drag.alone = alone
    path = reachable_path(
        drag.setup.rig, obj, "forearm.L", ("shoulder.L", "upper_arm.L", "forearm.L"), 6, seed=3
    )
    poses, updates = [], []
    for point in path:
        updates.append(_updates_during(lambda p=point: drag.step(p["location"])))
        poses.append(rigs.pose_channels(obj))
        assert drag.last is not None and not drag.last.unmet
    return poses, updates, drag, goal


def test_a_goal_only_its_channels_place_is_solved_for_without_evaluating_it_first(reach):
    # Its world matrix is its basis matrix (deltas and every rotation mode included), so
    # the event evaluates the view layer once, after the write, and poses the same.
    def deltas(goal):
        goal.rotation_mode = "QUATERNION"
        goal.delta_location = (0.01, -0.02, 0.03)
        goal.delta_rotation_euler = (0.1, 0.2, -0.1)
        goal.delta_scale = (1.1, 0.9, 1.0)
        goal.location = goal.location - goal.delta_location  # the same place to start
        bpy.context.view_layer.update()

    alone, alone_updates, drag, goal = _drag_poses(reach, True, deltas)
    evaluated, evaluated_updates, _, _ = _drag_poses(reach, False, deltas)
    assert drag.alone is True and reach.addon.bridge.goals.moves_alone(goal, drag.obj)
    assert alone_updates == [1] * len(alone) and evaluated_updates == [2] * len(evaluated)
    assert alone == evaluated  # bit for bit
    assert goal.matrix_world == goal.matrix_basis


def test_goals_something_else_moves_are_evaluated_before_each_solve(reach):
    goals = reach.addon.bridge.goals
    obj = four_limbs()
    goal = obj.reach.constraints["hand.L"].goal
    other = obj.reach.constraints["hand.R"].goal
    assert goals.moves_alone(goal, obj)
    holder = bpy.data.objects.new("holder", None)
    bpy.context.scene.collection.objects.link(holder)
    other.parent = goal  # another goal moves with it
    assert not goals.moves_alone(goal, obj)
    other.parent = None
    goal.parent = holder
    assert not goals.moves_alone(goal, obj)
    goal.parent = None
    constraint = goal.constraints.new("COPY_LOCATION")
    constraint.target = holder
    assert not goals.moves_alone(goal, obj)
    goal.constraints.remove(constraint)
    driver = goal.driver_add("location", 2).driver
    driver.expression = "1.0"
    assert not goals.moves_alone(goal, obj)
    goal.driver_remove("location", 2)
    assert goals.moves_alone(goal, obj)
    follow = obj.constraints.new("CHILD_OF")  # the armature follows the goal
    follow.target = goal
    assert not goals.moves_alone(goal, obj)
    obj.constraints.remove(follow)
    assert goals.moves_alone(goal, obj)
    # a drag of a goal another goal follows: the follower is solved for where it went
    other.parent = goal
    other.matrix_parent_inverse = goal.matrix_world.inverted()
    bpy.context.view_layer.update()
    drag, _ = drag_session(reach, obj, "hand.L")
    assert drag.alone is False
    start = other.matrix_world.translation.copy()
    moved = goal.location.copy()
    moved.x += 0.02
    drag.step(tuple(moved))
    assert (other.matrix_world.translation - start).length > 0.019
    index = drag.setup.names.index("hand.R")
    target = drag.setup.problem.leaves[index].goal.point
    assert (
        max(abs(a - b) for a, b in zip(target, other.matrix_world.translation, strict=True)) < 1e-6
    )


def test_a_drags_comfort_and_writer_are_made_when_it_begins_not_at_its_first_event(
    reach, monkeypatch
):
    # what every event shares is made when the drag starts (the press), so the first move
    # answers as fast as the others; and made once: the events use the very same
    posing = importlib.import_module(f"{reach.__name__}.addon.bridge.posing")
    obj = four_limbs()
    assert obj.reach.comfort > 0.0  # on by default
    drag, _ = drag_session(reach, obj, "hand.L")
    writer, made = drag.poser.writer, drag.poser.comfort
    assert writer is not None and made is not None and made.comfort is not None
    calls = []
    monkeypatch.setattr(posing, "comfort_of", lambda *args: calls.append(args))
    path = reachable_path(
        drag.setup.rig, obj, "forearm.L", ("shoulder.L", "upper_arm.L", "forearm.L"), 3, seed=8
    )
    for point in path:
        drag.step(point["location"])
    assert not calls
    assert drag.poser.writer is writer and drag.poser.comfort is made


def test_a_drags_solver_parts_are_made_when_it_begins_not_at_its_first_event(reach, monkeypatch):
    # the solver's parts of the problem (the balls that prove a goal out of reach, the
    # kernel's plans, the quick path's step) are made by a solve when the drag starts, its
    # result unused: no event builds them again, and the first event's pose is the one it
    # was without (the events' poses are compared with a drag that made them at its first)
    posing = importlib.import_module(f"{reach.__name__}.addon.bridge.posing")
    balls = importlib.import_module(f"{reach.__name__}.solver.reach")

    def poses(prime: bool) -> tuple[list[tuple[float, ...]], int]:
        obj = four_limbs()
        with monkeypatch.context() as patched:
            if not prime:
                patched.setattr(posing.solving, "run_solve", lambda *_args, **_kwargs: None)
            drag, _ = drag_session(reach, obj, "hand.L")
        made = []
        built = balls.Reach.__init__
        monkeypatch.setattr(balls.Reach, "__init__", lambda *a, **k: made.append(built(*a, **k)))
        path = reachable_path(
            drag.setup.rig, obj, "forearm.L", ("shoulder.L", "upper_arm.L", "forearm.L"), 3, seed=8
        )
        theta = []
        for point in path:
            drag.step(point["location"])
            theta.append(tuple(drag.theta))
        monkeypatch.setattr(balls.Reach, "__init__", built)
        drag.cancel()
        bpy.data.objects.remove(obj)
        return theta, len(made)

    primed, built_primed = poses(prime=True)
    unprimed_poses, built_unprimed = poses(prime=False)
    assert built_primed == 0 and built_unprimed > 0
    assert primed == unprimed_poses


def test_a_drags_comfort_is_made_again_when_a_mass_or_the_stored_pose_changes(reach):
    # a script may change them between the events: the next event's comfort is theirs
    obj = four_limbs()
    drag, _ = drag_session(reach, obj, "hand.L")
    path = reachable_path(
        drag.setup.rig, obj, "forearm.L", ("shoulder.L", "upper_arm.L", "forearm.L"), 4, seed=3
    )
    drag.step(path[0]["location"])
    made = drag.poser.comfort
    drag.step(path[1]["location"])
    assert drag.poser.comfort is made
    obj.reach.joints["forearm.L"].mass = 7.0
    drag.step(path[2]["location"])
    assert drag.poser.comfort is not made
    made = drag.poser.comfort
    stored = obj.reach.comfort_pose.add()
    stored.name, stored.rotation = "forearm.L", (0.9, -0.3, 0.0, 0.0)
    drag.step(path[3]["location"])
    assert drag.poser.comfort is not made
    drag.finish()
