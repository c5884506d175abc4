"""``reach.bake``: constraints held on every frame of a range, keyed on the moved bones."""

from __future__ import annotations

from types import SimpleNamespace

import bpy
import numpy as np
import pytest
import rigs
from mathutils import Quaternion, Vector
from rigs import fcurve_paths, four_limbs


def keyed_goal(obj, name, move, frames=(1, 12)):
    """Key the goal of constraint ``name`` at its place and moved by ``move``."""
    goal = obj.reach.constraints[name].goal
    start = Vector(goal.location)
    goal.keyframe_insert("location", frame=frames[0])
    goal.location = start + Vector(move)
    goal.keyframe_insert("location", frame=frames[1])
    return goal


def key_frames(obj):
    """Per keyed data path of the armature (bones only), the frames keyed."""
    found = {}
    for curve in reach_keys(obj):
        found.setdefault(curve.data_path, set()).update(k.co[0] for k in curve.keyframe_points)
    return found


def reach_keys(obj):
    """The armature's F-curves of pose bones."""
    action = obj.animation_data.action
    if hasattr(action, "layers") and len(action.layers):
        curves = [
            c for la in action.layers for s in la.strips for b in s.channelbags for c in b.fcurves
        ]
    else:
        curves = list(action.fcurves)
    return [c for c in curves if c.data_path.startswith("pose.bones")]


def test_bake_follows_a_keyframed_goal_on_every_frame_and_keys_only_moved_bones(reach):
    obj = four_limbs()
    scene = bpy.context.scene
    scene.frame_set(5)
    goal = keyed_goal(obj, "hand.L", (0.06, -0.05, 0.08))
    feet = {side: rigs.world_tail(obj, f"shin.{side}") for side in ("L", "R")}
    result = bpy.ops.reach.bake(armature=obj.name, frame_start=1, frame_end=12)
    assert result == {"FINISHED"}
    assert scene.frame_current == 5
    keyed = key_frames(obj)
    assert {p.split('"]')[0] for p in keyed} == {
        f'pose.bones["{b}' for b in ("shoulder.L", "upper_arm.L", "forearm.L")
    }
    assert all(frames == {float(f) for f in range(1, 13)} for frames in keyed.values())
    arm = rigs.chain_length(obj, ("upper_arm.L", "forearm.L"))
    for frame in range(1, 13):
        scene.frame_set(frame)
        target = np.array(goal.matrix_world.translation)
        assert np.linalg.norm(rigs.world_tail(obj, "forearm.L") - target) <= 1e-5 * arm, frame
        for side, where in feet.items():
            assert np.linalg.norm(rigs.world_tail(obj, f"shin.{side}") - where) <= 1e-5 * arm


def test_bake_holds_the_feet_while_keyed_hips_without_a_location_dof_go_down(reach):
    # Move root off: the hips' keyed location is no DOF but moves the legs on each frame
    obj = four_limbs()
    scene = bpy.context.scene
    feet = {side: rigs.world_tail(obj, f"shin.{side}") for side in ("L", "R")}
    hips = obj.pose.bones["spine"]
    hips.keyframe_insert("location", frame=1)
    hips.location = (0.0, -0.12, 0.0)
    hips.keyframe_insert("location", frame=8)
    assert bpy.ops.reach.bake(armature=obj.name, frame_start=1, frame_end=8) == {"FINISHED"}
    leg = rigs.chain_length(obj, ("thigh.L", "shin.L"))
    for frame in range(1, 9):
        scene.frame_set(frame)
        for side, where in feet.items():
            off = np.linalg.norm(rigs.world_tail(obj, f"shin.{side}") - where)
            assert off <= 1e-5 * leg, (frame, side)


def test_feet_planted_over_keyed_ranges_do_not_slide_and_are_free_elsewhere(reach):
    obj = rigs.metarig()
    assert bpy.ops.reach.figure_from_armature(armature=obj.name, translate_root=True) == {
        "FINISHED"
    }
    rigs.limbs(obj, hands=False)
    scene = bpy.context.scene
    hips = obj.pose.bones["spine"]
    hips.keyframe_insert("location", frame=1)
    hips.location = (0.0, -0.08, -0.15)  # down (bone Y is up) and forward (bone Z)
    hips.keyframe_insert("location", frame=40)
    planted = {"foot.L": (10, 30), "foot.R": (1, 20)}
    for name, (first, last) in planted.items():
        entry = obj.reach.constraints[name]
        for frame, on in ((1, first == 1), (first, True), (last + 1, False)):
            entry.enabled = on
            obj.keyframe_insert(f'reach.constraints["{name}"].enabled', frame=frame)
        # the foot is planted where the animation has it on the first planted frame
        scene.frame_set(first)
        entry.goal.location = rigs.world_tail(obj, f"shin.{name[-1]}")
    scene.frame_set(1)
    assert bpy.ops.reach.bake(armature=obj.name, frame_start=1, frame_end=40) == {"FINISHED"}
    leg = rigs.chain_length(obj, ("thigh.L", "shin.L"))
    for name, (first, last) in planted.items():
        bone = f"shin.{name[-1]}"
        goal = np.array(obj.reach.constraints[name].goal.location)
        for frame in range(first, last + 1):
            scene.frame_set(frame)
            assert obj.reach.constraints[name].enabled
            assert np.linalg.norm(rigs.world_tail(obj, bone) - goal) <= 1e-5 * leg, (name, frame)
        scene.frame_set(last + 8)
        assert not obj.reach.constraints[name].enabled
        assert np.linalg.norm(rigs.world_tail(obj, bone) - goal) > 0.01  # free: it moves on


def harness(reach, obj):
    """The bake operator's mixin on a harness, and a window stand-in recording progress."""

    class Harness(reach.addon.bake.Bake):
        frame_time = 0.0  # one frame per timer event

        def __init__(self):
            self.armature, self.frame_start, self.frame_end = obj.name, 1, 12
            self.reduce, self.tolerance = False, 1e-4
            self.reports = []

        def report(self, kind, message):
            self.reports.append((kind, message))

    context = rigs.window_context()
    return Harness(), context


def test_a_bake_stopped_with_esc_keeps_the_frames_baked_so_far_and_nothing_else(reach):
    obj = four_limbs()
    scene = bpy.context.scene
    scene.frame_set(3)
    goal = keyed_goal(obj, "hand.L", (0.06, -0.05, 0.08))
    before = rigs.pose_channels(obj)
    bake, context = harness(reach, obj)
    timer = SimpleNamespace(type="TIMER", value="NOTHING")
    assert bake.invoke(context, timer) == {"RUNNING_MODAL"}
    assert context.window_manager.handlers == [bake]
    for _ in range(5):
        assert bake.modal(context, timer) == {"RUNNING_MODAL"}
    assert bake.modal(context, SimpleNamespace(type="ESC", value="PRESS")) == {"FINISHED"}
    manager = context.window_manager
    assert manager.progress[0] == ("begin", 0, 12) and manager.progress[-1] == ("end",)
    assert ("update", 5) in manager.progress and manager.timers == []
    keyed = key_frames(obj)
    assert keyed and all(frames == {1.0, 2.0, 3.0, 4.0, 5.0} for frames in keyed.values())
    assert "stopped before frame 6" in bake.reports[-1][1]
    assert scene.frame_current == 3
    assert not reach.addon.live._state.paused
    # only the keyed bones differ from before, and only as their keys say
    after = rigs.pose_channels(obj)
    changed = {name for name in before if before[name] != after[name]}
    assert changed <= {"shoulder.L", "upper_arm.L", "forearm.L"}
    arm = rigs.chain_length(obj, ("upper_arm.L", "forearm.L"))
    for frame in range(1, 6):
        scene.frame_set(frame)
        target = np.array(goal.matrix_world.translation)
        assert np.linalg.norm(rigs.world_tail(obj, "forearm.L") - target) <= 1e-5 * arm


def test_key_reduction_keeps_fewer_keys_within_the_tolerance(reach):
    obj = four_limbs()
    keyed_goal(obj, "hand.L", (0.06, -0.05, 0.08), frames=(1, 30))
    assert bpy.ops.reach.bake(
        armature=obj.name, frame_start=1, frame_end=30, reduce=True, tolerance=1e-3
    ) == {"FINISHED"}
    curves = reach_keys(obj)
    assert curves and all(len(c.keyframe_points) < 30 for c in curves)
    assert any(len(c.keyframe_points) > 2 for c in curves)


def test_frames_are_judged_on_their_solutions_before_the_keys_are_reduced(reach):
    obj = four_limbs()
    keyed_goal(obj, "hand.L", (0.06, -0.05, 0.08), frames=(1, 30))
    bake, context = harness(reach, obj)
    bake.frame_end = 30
    bake.reduce, bake.tolerance = True, 0.05  # a coarse reduction misses between keys
    bake.execute(context)
    summary = bake.reports[-1][1]
    assert "not met" not in summary, summary
    curves = reach_keys(obj)
    assert curves and all(len(c.keyframe_points) < 30 for c in curves)
    written = int(summary.split("frames): ")[1].split(" keys")[0])
    assert written == sum(len(c.keyframe_points) for c in curves)


def test_reduced_keeps_the_ends_and_the_keys_a_line_cannot_replace(reach):
    reduced = reach.addon.bridge.keys.reduced
    line = np.linspace(0.0, 1.0, 20)
    assert reduced(line, 1e-9) == [0, 19]
    bent = np.abs(np.linspace(-1.0, 1.0, 21))
    assert reduced(bent, 1e-6) == [0, 10, 20]
    assert reduced(bent, 2.0) == [0, 20]
    assert reduced(np.stack([line, line[::-1] ** 2], axis=1), 1e-3)[1:-1]


def test_bake_refuses_an_empty_range(reach):
    obj = four_limbs()
    try:
        bpy.ops.reach.bake(armature=obj.name, frame_start=10, frame_end=3)
    except RuntimeError as error:
        assert "last frame 3 comes before its first 10" in str(error)
    else:
        raise AssertionError("an empty range must be refused")
    assert obj.animation_data is None or fcurve_paths(obj) == set()


@pytest.mark.parametrize("moving", [False, True])
def test_bake_judges_each_frame_on_blenders_pose_and_names_the_bone_that_differs(reach, moving):
    # a Copy Rotation on the forearm: Reach's model meets the hand goal on every frame,
    # Blender's pose misses it, and the bake said nothing of it; so too where the armature
    # moves along a path and the goals are carried back to its figure
    obj = four_limbs()
    for entry in obj.reach.constraints:
        entry.enabled = entry.name == "hand.L"
    goal = obj.reach.constraints["hand.L"].goal
    goal.location = Vector(goal.location) + Vector((-0.08, -0.05, -0.05))
    keyed_goal(obj, "hand.L", (0.03, -0.02, 0.04))
    if moving:
        _moving(obj)
    turned = bpy.data.objects.new("turned", None)
    bpy.context.scene.collection.objects.link(turned)
    turned.rotation_euler = (0.0, 0.0, 1.2)
    copy = obj.pose.bones["forearm.L"].constraints.new("COPY_ROTATION")
    copy.target = turned
    bake, context = harness(reach, obj)
    bake.execute(context)
    summary = bake.reports[-1][1]
    assert "not met on Blender's pose on 12 frames (first 1)" in summary, summary
    assert "forearm.L: its Copy Rotation constraint" in summary
    scene = bpy.context.scene
    scene.frame_set(4)
    target = np.array(goal.matrix_world.translation)
    assert np.linalg.norm(rigs.world_tail(obj, "forearm.L") - target) > 0.01
    largest = summary.split("largest residual ")[1].split(";")[0]
    assert largest.endswith(" cm"), summary  # Blender's miss, not the model's 8e-09 mm
    copy.mute = True
    bake.execute(context)
    summary = bake.reports[-1][1]
    assert "not met" not in summary and "Blender" not in summary, summary


def _moving(obj, frames=(1, 12), grown=1.0):
    """Key the armature object along a path that moves, lowers and turns it (and scales it
    by ``grown`` where that is not 1)."""
    for frame, location, turn, scale in (
        (frames[0], (0.0, 0.0, 0.0), 0.0, 1.0),
        (frames[1], (0.03, -0.02, -0.05), 0.12, grown),
    ):
        obj.location, obj.rotation_euler = location, (0.0, 0.0, turn)
        obj.keyframe_insert("location", frame=frame)
        obj.keyframe_insert("rotation_euler", frame=frame)
        if grown != 1.0:
            obj.scale = (scale, scale, scale)
            obj.keyframe_insert("scale", frame=frame)


def _counted(method, calls):
    """``method``, noting each call in ``calls``."""

    def counted(*args, **kwargs):
        calls.append(1)
        return method(*args, **kwargs)

    return counted


def _keyed_values(obj):
    """Per pose-bone curve, its keys' values in frame order."""
    return {
        (c.data_path, c.array_index): np.array([k.co[1] for k in c.keyframe_points])
        for c in reach_keys(obj)
    }


@pytest.mark.parametrize("grown", [1.0, 1.04])
def test_a_bake_of_an_armature_moving_along_a_path_carries_its_goals_to_its_figure(
    reach, monkeypatch, grown
):
    # the figure stays where it was built and the goals are carried back by the armature's
    # motion, instead of the figure and its problem moved on every frame: the same keys;
    # an armature that also grows is no rigid motion: its figure is moved, as before
    baked = {}
    for carry in (True, False):
        obj = four_limbs()
        goal = keyed_goal(obj, "hand.L", (0.06, -0.05, 0.08))
        _moving(obj, grown=grown)
        moves = []
        with monkeypatch.context() as patch:
            patch.setattr(reach.addon.bridge.posing, "CARRY", carry)
            patch.setattr(reach.solver.Problem, "on", _counted(reach.solver.Problem.on, moves))
            bake, context = harness(reach, obj)
            bake.execute(context)
        summary = bake.reports[-1][1]
        assert "not met" not in summary and "Blender" not in summary, summary
        arm = rigs.chain_length(obj, ("upper_arm.L", "forearm.L"))
        scene = bpy.context.scene
        for frame in range(1, 13):
            scene.frame_set(frame)
            target = np.array(goal.matrix_world.translation)
            assert np.linalg.norm(rigs.world_tail(obj, "forearm.L") - target) <= 1e-5 * arm
        baked[carry] = _keyed_values(obj), len(moves)
        bpy.data.objects.remove(obj)
    (carried, carried_moves), (moved, moved_moves) = baked[True], baked[False]
    assert (carried_moves, moved_moves) == (0 if grown == 1.0 else 11, 11)
    assert carried.keys() == moved.keys() and carried
    worst = max(float(np.abs(carried[k] - moved[k]).max()) for k in carried)
    assert worst <= (1e-5 if grown == 1.0 else 0.0), worst


def test_bake_without_anything_blender_poses_otherwise_reports_every_frame_met(reach):
    obj = four_limbs()
    keyed_goal(obj, "hand.L", (0.06, -0.05, 0.08))
    bake, context = harness(reach, obj)
    bake.execute(context)
    summary = bake.reports[-1][1]
    assert "not met" not in summary and "Blender" not in summary, summary


def _inserted_one_by_one(obj, bone, channel, frames, values, tolerance):
    """What Blender's own insertion gives: each key by ``keyframe_points.insert``."""
    pose_bone = obj.pose.bones[bone]
    path = pose_bone.path_from_id(channel)
    pose_bone.keyframe_insert(channel, frame=frames[0], group=bone)
    for curve in reach_keys(obj):
        if curve.data_path != path:
            continue
        points = curve.keyframe_points
        for point in reversed(list(points)):
            if frames[0] - 0.5 < point.co[0] < frames[-1] + 0.5:
                points.remove(point, fast=True)
        for k, frame in enumerate(frames):
            point = points.insert(frame, float(values[k, curve.array_index]), options={"FAST"})
            if tolerance is not None:
                point.interpolation = "LINEAR"
        curve.update()


def _keys(obj, path):
    """Every key of ``path``'s curves: frame, value, handles, their types, interpolation."""
    return [
        (
            c.array_index,
            tuple(k.co),
            tuple(k.handle_left),
            tuple(k.handle_right),
            k.handle_left_type,
            k.handle_right_type,
            k.interpolation,
            k.type,
        )
        for c in sorted(reach_keys(obj), key=lambda c: c.array_index)
        if c.data_path == path
        for k in c.keyframe_points
    ]


def test_key_frames_keys_as_blenders_own_insertion_does_around_keys_kept(reach):
    """The keys added at once are those inserted one by one, keys outside the range kept."""
    key_frames_at_once = reach.addon.bridge.keys.key_frames
    preferences = bpy.context.preferences.edit
    for interpolation, handle, tolerance in (
        ("BEZIER", "AUTO_CLAMPED", None),
        ("CONSTANT", "VECTOR", None),
        ("BEZIER", "AUTO", 1e-9),  # linear keys
    ):
        preferences.keyframe_new_interpolation_type = interpolation
        preferences.keyframe_new_handle_type = handle
        found = []
        for write in (key_frames_at_once, _inserted_one_by_one):
            obj = four_limbs()
            bone = obj.pose.bones["forearm.L"]
            bone.rotation_mode = "XYZ"
            for frame, angle in ((2, 0.3), (20, -0.2), (30, 0.1)):  # kept: 2 and 30
                bone.rotation_euler = (angle, 0.0, angle)
                bone.keyframe_insert("rotation_euler", frame=frame)
            frames = list(range(8, 25))
            values = np.column_stack([np.sin(np.arange(17) * 0.4 + a) for a in (0.0, 1.0, 2.0)])
            write(obj, "forearm.L", "rotation_euler", frames, values, tolerance)
            found.append(_keys(obj, bone.path_from_id("rotation_euler")))
            bpy.data.objects.remove(obj)
        at_once, one_by_one = found
        assert at_once == one_by_one
        assert len(at_once) == 3 * (17 + 2)  # the key at 20 replaced, those at 2 and 30 kept
    preferences.keyframe_new_interpolation_type = "BEZIER"
    preferences.keyframe_new_handle_type = "AUTO_CLAMPED"


def _bake_counting_reads(reach, obj, patch):
    """Bake frames 1–12; the keys written and how often the pose was read."""
    reads = []
    poser = reach.addon.bridge.posing.Poser
    read = poser.read
    patch.setattr(poser, "read", lambda self, rig: reads.append(1) or read(self, rig))
    bake, context = harness(reach, obj)
    bake.execute(context)
    keys = {
        (c.data_path, c.array_index): [tuple(k.co) for k in c.keyframe_points]
        for c in reach_keys(obj)
    }
    return keys, len(reads), bake.reports[-1][1]


def test_a_bake_reads_an_armature_nothing_else_poses_once_and_keys_the_same(reach, monkeypatch):
    baked = []
    for alone in (True, False):
        obj = four_limbs()
        keyed_goal(obj, "hand.L", (0.06, -0.05, 0.08))
        with monkeypatch.context() as patch:
            if not alone:
                patch.setattr(reach.addon.bake, "poses_alone", lambda obj: False)
            baked.append(_bake_counting_reads(reach, obj, patch))
        bpy.data.objects.remove(obj)
    (once, reads_once, _), (every, reads_every, _) = baked
    assert (reads_once, reads_every) == (1, 12)
    assert once == every and once


def test_a_bake_reads_every_frame_where_a_frame_handler_poses_a_bone(reach, monkeypatch):
    obj = four_limbs()
    keyed_goal(obj, "hand.L", (0.06, -0.05, 0.08))
    spine = obj.pose.bones["spine.002"]

    def lean(scene, *_):  # the spine, which carries the arm's chain, leans with the frame
        spine.rotation_quaternion = Quaternion((1.0, 0.0, 0.0), 0.03 * scene.frame_current)

    bpy.app.handlers.frame_change_pre.append(lean)
    try:
        keys, reads, summary = _bake_counting_reads(reach, obj, monkeypatch)
    finally:
        bpy.app.handlers.frame_change_pre.remove(lean)
    assert "not met" not in summary and "Blender" not in summary, summary
    assert reads == 12 and keys


def test_a_bake_over_an_action_of_ten_thousand_keys_a_curve_keeps_the_rest(reach):
    obj = four_limbs()
    scene = bpy.context.scene
    for bone in obj.pose.bones:
        bone.keyframe_insert("rotation_quaternion", frame=1)
    long = 10_000
    for curve in reach_keys(obj):  # each held at its frame-1 value on frames 1 to 10,000
        value = curve.keyframe_points[0].co[1]
        curve.keyframe_points.add(long - 1)
        points = np.empty(2 * long)
        points[0::2], points[1::2] = np.arange(1, long + 1), value
        curve.keyframe_points.foreach_set("co", points)
        curve.update()
    long_curves = {(c.data_path, c.array_index) for c in reach_keys(obj)}
    goal = keyed_goal(obj, "hand.L", (0.06, -0.05, 0.08), frames=(101, 130))
    assert bpy.ops.reach.bake(armature=obj.name, frame_start=101, frame_end=130) == {"FINISHED"}
    arm = rigs.chain_length(obj, ("upper_arm.L", "forearm.L"))
    for frame in (101, 115, 130):
        scene.frame_set(frame)
        target = np.array(goal.matrix_world.translation)
        assert np.linalg.norm(rigs.world_tail(obj, "forearm.L") - target) <= 1e-5 * arm, frame
    for curve in reach_keys(obj):  # the keys outside the range are as they were
        if (curve.data_path, curve.array_index) not in long_curves:
            continue
        points = np.empty(2 * len(curve.keyframe_points))
        curve.keyframe_points.foreach_get("co", points)
        keyed = {round(frame) for frame in points[0::2]}
        assert set(range(1, 101)) <= keyed and set(range(131, long + 1)) <= keyed, curve.data_path
