"""Controls placed so that a control rig's skeleton takes given poses
(``bridge.control_rig.placing``), on rigs Rigify generates in the test: only controls are
written, FK exactly, IK at the end."""

from __future__ import annotations

import importlib
import math
import random

import bpy
import numpy as np
import pytest
from control_rigs import (
    constrained_end,
    deform_miss,
    evaluations,
    generated,
    limb_length,
    skeleton_channels,
    switch_to,
)
from mathutils import Matrix, Quaternion, Vector


def rest_pose(obj) -> None:
    for pose_bone in obj.pose.bones:
        pose_bone.matrix_basis = Matrix.Identity(4)
    bpy.context.view_layer.update()


def random_targets(obj, limb, rng: random.Random) -> dict[str, Matrix]:
    """Poses of the limb's skeleton bones its FK controls reach (turned up to 40° each)."""
    switch_to(obj, limb, 1.0)
    for control in limb.fk:
        pose_bone = obj.pose.bones[control]
        axis = Vector([rng.gauss(0.0, 1.0) for _ in range(3)]).normalized()
        turn = Quaternion(axis, math.radians(rng.uniform(-40.0, 40.0)))
        pose_bone.rotation_mode = "QUATERNION"
        pose_bone.rotation_quaternion = turn
    bpy.context.view_layer.update()
    return {name: obj.pose.bones[name].matrix.copy() for name in limb.bones}


def miss(obj, name: str, target: Matrix) -> float:
    """How far the bone's head and tail are from the target's, over its length."""
    pose_bone = obj.pose.bones[name]
    length = pose_bone.bone.length
    tail = Vector((0.0, length, 0.0))
    now = pose_bone.matrix
    return (
        max((now.translation - target.translation).length, (now @ tail - target @ tail).length)
        / length
    )


def limb_of(reach, obj, name: str):
    limbs = reach.addon.bridge.control_rig.limbs.find_limbs(obj)
    return next(limb for limb in limbs if limb.name == name)


@pytest.mark.parametrize("kind", ["basic_human", "basic_quadruped", "horse", "bird"])
def test_fk_controls_pose_every_limb_exactly_and_nothing_else_is_written(reach, kind):
    placing = importlib.import_module(f"{reach.__name__}.addon.bridge.control_rig.placing")
    obj = generated(kind)
    rng = random.Random(kind)
    for found in reach.addon.bridge.control_rig.limbs.find_limbs(obj):
        for _ in range(2):
            rest_pose(obj)
            targets = random_targets(obj, found, rng)
            rest_pose(obj)
            limb = limb_of(reach, obj, found.name)
            before = skeleton_channels(obj)
            placed = placing.place_limb(obj, bpy.context.view_layer, limb, targets)
            assert set(placed.controls) == set(limb.fk)
            assert placed.error <= 1e-5
            for name, target in targets.items():
                assert miss(obj, name, target) <= 1e-5, (found.name, name)
            assert skeleton_channels(obj) == before  # only controls moved


@pytest.mark.parametrize("pole", [False, True])
def test_ik_controls_put_the_chain_end_exactly_and_the_joint_in_its_plane(reach, pole):
    placing = importlib.import_module(f"{reach.__name__}.addon.bridge.control_rig.placing")
    obj = generated("basic_human")
    rng = random.Random(11)
    for name in ("upper_arm.L", "thigh.R"):
        for _ in range(3):
            rest_pose(obj)
            targets = random_targets(obj, limb_of(reach, obj, name), rng)
            rest_pose(obj)
            limb = limb_of(reach, obj, name)
            switch_to(obj, limb, 0.0)
            obj.pose.bones[limb.settings]["pole_vector"] = pole
            obj.update_tag()
            bpy.context.view_layer.update()
            limb = limb_of(reach, obj, name)
            before = skeleton_channels(obj)
            placed = placing.place_limb(obj, bpy.context.view_layer, limb, targets)
            swivel = limb.pole if pole else limb.ik_base
            assert limb.ik_controls[0] in placed.controls and swivel in placed.controls
            end = limb.bones[limb.chain_end]
            assert miss(obj, end, targets[end]) <= 1e-4
            root, middle = (targets[b].translation for b in limb.bones[:2])
            line = targets[end].translation - root
            wanted = (middle - root).cross(line)
            now = (obj.pose.bones[limb.bones[1]].matrix.translation - root).cross(line)
            assert math.degrees(wanted.angle(now)) <= 2.0  # the joint's side of the line
            # Rigify's IK stretch shortens a bent chain a little: the joint is near
            assert placed.error <= 0.1
            assert skeleton_channels(obj) == before


def test_a_control_written_where_it_is_keeps_its_channels_bit_for_bit(reach):
    control_pose = importlib.import_module(
        f"{reach.__name__}.addon.bridge.control_rig.control_pose"
    )
    obj = generated("basic_human")
    limb = limb_of(reach, obj, "upper_arm.L")
    random_targets(obj, limb, random.Random(5))

    def channels():
        return {
            c: tuple(v.hex() for row in obj.pose.bones[c].matrix_basis for v in row)
            for c in limb.fk
        }

    before = channels()
    writer = control_pose.ControlWriter(obj)
    for control in limb.fk:  # root first: each parent's pose is predicted unchanged
        writer.write(control, obj.pose.bones[control].matrix.copy())
    assert not writer.changed  # no evaluation of the rig is needed
    assert channels() == before
    forearm = obj.pose.bones[limb.fk[1]]
    head = forearm.matrix.translation
    turn = Matrix.Translation(head) @ Matrix.Rotation(1e-3, 4, "X") @ Matrix.Translation(-head)
    writer.write(limb.fk[1], turn @ forearm.matrix)
    assert writer.changed
    assert channels() == before  # given, and written in bulk when flushed
    writer.flush()
    assert channels()[limb.fk[1]] != before[limb.fk[1]]
    assert channels()[limb.fk[0]] == before[limb.fk[0]]


def test_a_blended_limb_is_refused_by_name(reach):
    placing = importlib.import_module(f"{reach.__name__}.addon.bridge.control_rig.placing")
    errors = reach.addon.errors
    obj = generated("basic_quadruped")
    limb = limb_of(reach, obj, "front_thigh.L")
    targets = {name: obj.pose.bones[name].matrix.copy() for name in limb.bones}
    before = skeleton_channels(obj)
    switch_to(obj, limb, 0.5)
    blended = limb_of(reach, obj, "front_thigh.L")
    with pytest.raises(errors.BlenderDataError, match="blended between IK and FK"):
        placing.place_limb(obj, bpy.context.view_layer, blended, targets)
    assert skeleton_channels(obj) == before


def about(axis, degrees):
    """The quaternion of a turn of ``degrees`` about the axis named ``axis``."""
    return Matrix.Rotation(math.radians(degrees), 3, axis).to_quaternion()


def channels(location, degrees, axis, scale):
    """A channel matrix: a location, a turn of ``degrees`` about ``axis``, a scale."""
    turn = about(axis, degrees)
    return Matrix.LocRotScale(Vector(location), turn, Vector(scale))


def assert_close(matrix, expected):
    rows = zip(matrix, expected, strict=True)
    assert max(abs(a - b) for r, s in rows for a, b in zip(r, s, strict=True)) <= 1e-6


def paw_drag(reach):
    """The basic quadruped's front paw in IK constrained at its foot control, and a drag
    of its goal begun: the rig, the limb, the goal, its start, the limb's root, the drag."""
    obj, limb = constrained_end(reach, "basic_quadruped", "front_thigh.L", "IK", "front_foot_ik.L")
    goal = obj.reach.constraints["end"].goal
    start, root = goal.location.copy(), obj.matrix_world @ obj.pose.bones[limb.bones[0]].head
    session = reach.addon.drag_session.DragSession(bpy.context, obj, goal)
    return obj, limb, goal, start, root, session


def test_a_heels_last_move_is_repeated_ahead_unless_it_was_a_jump(reach):
    paws = importlib.import_module(f"{reach.__name__}.addon.bridge.control_rig.paws")
    heels = paws.Heels()
    assert heels.ahead("heel") is None  # nothing written yet
    heels.record("heel", channels((0.1, 0.0, 0.0), 30.0, "Z", (1.0, 1.0, 1.0)))
    assert heels.ahead("heel") is None  # one write: no move to repeat
    turn = about("X", 0.4)
    second = channels((0.1, 0.01, 0.0), 0.0, "X", (1.01, 1.01, 1.01))
    second = Matrix.LocRotScale(second.translation, turn @ about("Z", 30.0), second.to_scale())
    heels.record("heel", second)
    ahead = heels.ahead("heel")
    assert ahead is not None
    led = turn @ turn @ about("Z", 30.0)
    grown = Vector((1.0201, 1.0201, 1.0201))  # the scale grows on as it grew, evenly
    assert_close(ahead, Matrix.LocRotScale(Vector((0.1, 0.02, 0.0)), led, grown))
    heels.record("heel", channels((0.1, 0.03, 0.0), 50.0, "Y", (1.0, 1.0, 1.0)))
    assert heels.ahead("heel") is None  # a jump of 20°: the evaluation decides alone


def test_a_heels_turn_is_led_to_second_order_and_its_location_along_its_line(reach):
    paws = importlib.import_module(f"{reach.__name__}.addon.bridge.control_rig.paws")
    heels = paws.Heels()
    # turns of 0.4° then 0.5°: the next is led at 0.6°; moves of 1 then 2 cm: on the line
    # through 0, 1 and 3 cm, 4⅓ cm
    for degrees, y in ((0.0, 0.0), (0.4, 0.01), (0.9, 0.03)):
        heels.record("heel", channels((0.0, y, 0.1), degrees, "X", (1.0, 1.0, 1.0)))
    ahead = heels.ahead("heel")
    assert ahead is not None
    assert_close(ahead, channels((0.0, 0.13 / 3.0, 0.1), 1.5, "X", (1.0, 1.0, 1.0)))


def test_a_heels_lead_does_not_multiply_the_jitter_of_its_writes(reach):
    # Blender's IK lands a chain micrometres off, a little differently each evaluation,
    # and the heel's writes make up for it: 1 cm an event, ±10 µm in turn. Led along the
    # line of the last writes, the next is within the jitter of 5 cm; the last writes'
    # second difference would repeat it sevenfold (70 µm)
    paws = importlib.import_module(f"{reach.__name__}.addon.bridge.control_rig.paws")
    heels = paws.Heels()
    for k in range(8):
        y = 0.01 * (k - 3) + (1e-5 if k % 2 == 0 else -1e-5)
        heels.record("heel", channels((0.0, y, 0.1), 0.0, "X", (1.0, 1.0, 1.0)))
    ahead = heels.ahead("heel")
    assert ahead is not None
    assert abs(ahead.translation.y - 0.05) <= 1e-5, ahead.translation


def test_a_heels_history_is_carried_by_a_turn_of_its_chains_plane(reach):
    # a turn of the plane moves the heel once (5 cm and 2°): its next lead goes on from
    # there as the writes before went on, not repeating that move
    paws = importlib.import_module(f"{reach.__name__}.addon.bridge.control_rig.paws")
    limb = type("Paw", (), {"mode": "IK", "ik_controls": ("foot_ik", "heel")})()
    heels = paws.Heels()
    for y in (0.0, 0.01, 0.02):
        heels.record("heel", channels((0.0, y, 0.1), 0.0, "X", (1.0, 1.0, 1.0)))
    before = channels((0.0, 0.02, 0.1), 0.0, "X", (1.0, 1.0, 1.0))
    after = channels((0.0, 0.07, 0.1), 2.0, "X", (1.0, 1.0, 1.0))
    heels.carry(limb, before, after)
    ahead = heels.ahead("heel")
    assert ahead is not None
    assert_close(ahead, channels((0.0, 0.08, 0.1), 2.0, "X", (1.0, 1.0, 1.0)))
    heels.carry(limb, before, None)  # unknown after the turn: led anew
    assert heels.ahead("heel") is None


def test_a_heel_moves_with_a_turn_of_its_plane_as_the_last_turns_moved_it(reach):
    # turns of 0.01 rad spun the heel by 2 mrad, then 2.2 (its rate per radian growing
    # with the bend): the next turn's spin is led on to 2.4 per 0.01 rad, in proportion
    # to the turn; a turn the other way, or of a size unlike the last, is not led
    paws = importlib.import_module(f"{reach.__name__}.addon.bridge.control_rig.paws")
    limb = type("Paw", (), {"mode": "IK", "ik_controls": ("foot_ik", "heel")})()
    heels = paws.Heels()
    start = channels((0.0, 0.0, 0.1), 10.0, "X", (1.0, 1.0, 1.0))
    assert heels.turned(limb, start, 0.01) is None  # no turn seen yet

    def spun(matrix, mrad, move=0.0):
        location, rotation, scale = matrix.decompose()
        turn = Quaternion((1.0, 0.0, 0.0), 1e-3 * mrad)
        return Matrix.LocRotScale(location + Vector((0.0, move, 0.0)), turn @ rotation, scale)

    heels.carry(limb, start, spun(start, 2.0, 1e-3), 0.01)
    once = heels.turned(limb, start, 0.015)  # one turn seen: its rate
    assert once is not None
    assert_close(once, spun(start, 3.0, 1.5e-3))
    heels.carry(limb, start, spun(start, 2.2, 1e-3), 0.01)
    led = heels.turned(limb, start, 0.02)
    assert led is not None
    assert_close(led, spun(start, 4.8, 2e-3))
    assert heels.turned(limb, start, -0.01) is None
    assert heels.turned(limb, start, 0.05) is None
    heels.carry(limb, start, None, 0.01)  # unknown after a turn: nothing led
    assert heels.turned(limb, start, 0.01) is None


def test_a_paws_plane_is_turned_before_each_evaluation_and_its_heel_led_after_it(reach):
    # the basic quadruped's foreleg: Blender's IK swings the leg's plane off Reach's by
    # about 5 mrad an event as the paw moves. Turned back only once an evaluation showed it
    # off, every third event took a second evaluation and a third where the turn moved the
    # heel's frame (a second IK chain) off its lead; turned onto Reach's plane before every
    # evaluation, the heel's writes move smoothly and its lead places it: once the heel
    # has a lead (the third event), an event takes one evaluation
    obj, _limb, _goal, start, root, session = paw_drag(reach)

    def event(k: int) -> None:
        stats = session.step(start.lerp(root, 0.005 * k))
        assert not stats.unmet and not stats.diverging, (k, stats)

    counts = evaluations(obj, (lambda k=k: event(k) for k in range(1, 41)))
    session.finish()
    assert obj.reach.stats.message == "all constraints met", obj.reach.stats.message
    assert max(counts) <= 2, counts
    assert counts[3:].count(2) <= 2, counts


def test_a_steady_ik_drag_places_each_event_in_one_evaluation(reach):
    # Blender's stretched IK lands the chain's end a little short of its target, by an
    # amount that drifts with the bend: placed by its pose relative to the chain's last
    # bone as Blender evaluated it last, the bird's foot control lands the foot within a
    # drag's tolerance in one pass per event
    placing = importlib.import_module(f"{reach.__name__}.addon.bridge.control_rig.placing")
    obj, limb = constrained_end(reach, "bird", "thigh.L", "IK", "foot_ik.L")
    goal = obj.reach.constraints["end"].goal
    start, root = goal.location.copy(), obj.matrix_world @ obj.pose.bones[limb.bones[0]].head
    allowed = min(placing.DRAG * limb_length(obj, limb), 0.5 * obj.reach.reach_distance)
    session = reach.addon.drag_session.DragSession(bpy.context, obj, goal)

    def event(k: int) -> None:
        stats = session.step(start.lerp(root, 0.01 * k))
        assert not stats.unmet and not stats.diverging, stats
        assert deform_miss(obj, limb, "end") <= allowed

    counts = evaluations(obj, (lambda k=k: event(k) for k in range(1, 21)))
    session.finish()
    assert counts[3:] == [1] * 17, counts  # from the third event on


def test_a_drag_from_torso_turns_an_ik_limbs_plane_with_the_trunk_before_evaluating(
    reach, monkeypatch
):
    # Dragged from torso, a foot's goal turns the trunk at every event, and the knee's
    # plane with it: carried to the trunk's new pose and turned onto the targets' before
    # the rig is evaluated, the plane is within its tolerance after one evaluation; seen
    # only once evaluated, it takes a second evaluation to be turned back
    placing = importlib.import_module(f"{reach.__name__}.addon.bridge.control_rig.placing")
    obj, limb = constrained_end(reach, "human", "thigh.L", "IK", "foot_ik.L", "torso", True)
    goal = obj.reach.constraints["end"].goal
    start, root = goal.location.copy(), obj.matrix_world @ obj.pose.bones[limb.bones[0]].head

    def drag():
        session = reach.addon.drag_session.DragSession(bpy.context, obj, goal)

        def event(k: int) -> None:
            stats = session.step(start.lerp(root, 0.01 * k))
            assert not stats.unmet and not stats.diverging, stats

        return session, evaluations(obj, (lambda k=k: event(k) for k in range(1, 21)))

    with monkeypatch.context() as unled:
        unled.setattr(placing, "_lead_swivel", lambda *_args: "")
        session, seen = drag()
        session.cancel()
    session, led = drag()
    session.finish()
    assert obj.reach.stats.message.startswith("all constraints met"), obj.reach.stats.message
    assert sum(led[3:]) <= 0.8 * sum(seen[3:]), (led, seen)


def test_turning_an_ik_limbs_plane_keeps_the_chain_its_length(reach):
    # Turned with the IK's stretch written into its channels, the chain's base control
    # would start each evaluation's IK shorter: from the torso, whose every event turns
    # the plane, the arm would shrink a little more at each one
    obj, limb = constrained_end(
        reach, "basic_human", "upper_arm.L", "IK", "hand_ik.L", "torso", True
    )
    goal = obj.reach.constraints["end"].goal
    start, root = goal.location.copy(), obj.matrix_world @ obj.pose.bones[limb.bones[0]].head
    session = reach.addon.drag_session.DragSession(bpy.context, obj, goal)
    for k in range(1, 41):
        stats = session.step(start.lerp(root, 0.005 * k))
        assert not stats.unmet and not stats.diverging, stats
    session.finish()
    assert obj.reach.stats.message.startswith("all constraints met"), obj.reach.stats.message
    for name in limb.controls:
        scale = obj.pose.bones[name].matrix_basis.to_scale()
        assert max(abs(s - 1.0) for s in scale) < 1e-5, (name, scale)
    pose = obj.pose.bones
    for bone in limb.bones[: limb.chain_end]:  # the rig's own IK stretch: 1-3%
        assert abs(pose[bone].matrix.to_scale().y - 1.0) < 0.03, (bone, pose[bone].matrix)


@pytest.mark.parametrize(
    ("kind", "name", "end", "chain_start", "share"),
    [
        # a paw's heel, led from its last writes, lands most exact events in one pass too
        ("basic_quadruped", "front_thigh.L", "front_foot_ik.L", "", 0.95),
        ("basic_human", "thigh.L", "foot_ik.L", "torso", 0.9),
    ],
)
def test_a_drags_events_leave_blenders_ik_its_own_landing_and_its_end_places_it(
    reach, monkeypatch, kind, name, end, chain_start, share
):
    # Blender's stretched IK lands a chain's end (a paw's heel, a foot below a moving
    # torso) micrometres off where the controls say, by an amount that jumps from event
    # to event: a drag's event leaves that miss, within a small share of the limb and of
    # the "met within" distance, rather than evaluate the rig again; the drag's end
    # places the limb as a Solve does. The same drag placed exactly at every event
    # evaluates the rig more often.
    placing = importlib.import_module(f"{reach.__name__}.addon.bridge.control_rig.placing")
    obj, limb = constrained_end(reach, kind, name, "IK", end, chain_start, bool(chain_start))
    goal = obj.reach.constraints["end"].goal
    start, root = goal.location.copy(), obj.matrix_world @ obj.pose.bones[limb.bones[0]].head
    length = limb_length(obj, limb)
    # the drag's tolerance is a share of the whole limb the controls place (to its toe)
    placed_length = placing.placed_length(obj, limb)
    allowed = min(placing.DRAG * placed_length, 0.5 * obj.reach.reach_distance)

    def drag(misses: list[float], loose: bool):
        session = reach.addon.drag_session.DragSession(bpy.context, obj, goal)

        def event(k: int) -> None:
            stats = session.step(start.lerp(root, 0.005 * k))
            misses.append(deform_miss(obj, limb, "end"))
            if loose:  # (placed exactly, a paw's passes can stall at 3e-5 of the limb)
                assert not stats.unmet and not stats.diverging, stats
                assert misses[-1] <= allowed + 1e-5 * length

        return session, evaluations(obj, (lambda k=k: event(k) for k in range(1, 21)))

    with monkeypatch.context() as exactly:
        exactly.setattr(placing, "DRAG", 0.0)  # every event placed to TOLERANCE
        placed: list[float] = []
        session, exact = drag(placed, False)
        session.cancel()
    left: list[float] = []
    session, loose = drag(left, True)
    session.finish()
    # placed at the end as the exact drag's events were
    assert deform_miss(obj, limb, "end") <= max(*placed, 1e-5 * length)
    assert obj.reach.stats.message.startswith("all constraints met"), obj.reach.stats.message
    assert sum(loose[3:]) < share * sum(exact[3:]), (loose, exact)


def test_a_drags_end_that_cannot_place_exactly_keeps_the_last_events_pose(reach, monkeypatch):
    # the drag's end places the limb left off by its last event as a Solve does; where
    # that fails part-way (a rig's mechanism refusing the write), the pose the last event
    # left is kept bit for bit, as judged then, and the session says why
    writing = importlib.import_module(f"{reach.__name__}.addon.bridge.control_rig.writing")
    errors = importlib.import_module(f"{reach.__name__}.addon.errors")
    snapshot = importlib.import_module(f"{reach.__name__}.addon.bridge.snapshot")
    obj, _limb, _goal, start, root, session = paw_drag(reach)
    for k in range(1, 41):
        session.step(start.lerp(root, 0.005 * k))
        if session.last_step is not None and session.last_step.left:
            break
    assert session.last_step is not None and session.last_step.left > 0.0  # left off
    before = snapshot.pose_channels(obj)
    placed = writing.place_limbs

    def refused(*args, **kwargs):
        placed(*args, **kwargs)  # written, then refused
        raise errors.BlenderDataError("limb front_thigh.L in IK mode: refused")

    monkeypatch.setattr(writing, "place_limbs", refused)
    session.finish()
    assert session.unplaced == (
        "the drag's end left its last pose as it was: limb front_thigh.L in IK mode: refused"
    )
    after = snapshot.pose_channels(obj)
    assert all((after[name] == before[name]).all() for name in before)
    # the last event's verdict, which judged that pose (the miss it left allowed for)
    assert obj.reach.stats.message.startswith("all constraints met"), obj.reach.stats.message


def test_a_drags_end_judges_the_exact_placing_against_reachs_own_residuals(reach):
    # an event that leaves a paw off takes Blender's residuals (the miss it left allowed
    # for); the drag's end places the paw exactly and judges that against the solve's
    # own residuals, not the event's: met, not "Blender poses a bone otherwise" (the
    # basic quadruped's foreleg: the paws of the other rigs are led to within that
    # agreement at every event of such a drag)
    evaluated = importlib.import_module(f"{reach.__name__}.addon.bridge.evaluated")
    obj, limb = constrained_end(reach, "basic_quadruped", "front_thigh.L", "IK", "front_foot_ik.L")
    goal = obj.reach.constraints["end"].goal
    start, root = goal.location.copy(), obj.matrix_world @ obj.pose.bones[limb.bones[0]].head
    session = reach.addon.drag_session.DragSession(bpy.context, obj, goal)
    size = max(1.0, float(session.setup.problem.chain_lengths.max()))
    apart = 0.0
    for k in range(1, 41):
        stats = session.step(start.lerp(root, 0.005 * k))
        assert not stats.unmet and not stats.diverging, stats
        outcome = session.last_step.outcome if session.last_step is not None else None
        if outcome is not None and outcome.modelled is not None:
            apart = abs(outcome.residuals["end"] - outcome.modelled["end"])
            if apart > evaluated.AGREE * size:
                break
    assert apart > evaluated.AGREE * size  # Blender's residual off the solve's
    session.finish()
    assert obj.reach.stats.message == "all constraints met", obj.reach.stats.message
    assert deform_miss(obj, limb, "end") < 1e-5 * limb_length(obj, limb)


def test_a_long_ik_drag_of_a_paw_keeps_its_knee_on_reachs_plane_and_judged_as_met(reach):
    # the basic quadruped's foreleg: a second IK chain turns the heel's frame with the
    # leg's plane, so the heel, led from writes made before a turn of the plane, would
    # turn it back past where it was, more at each event, unless its history is carried
    # by the turn; and
    # a foot control's head far from the bone carrying it misses by more than the bone's
    # ends the write left off, which is no divergence of Blender's pose
    obj, limb, _goal, start, root, session = paw_drag(reach)
    first, knee, end = (limb.bones[k] for k in (0, 1, limb.chain_end))
    bones = obj.pose.bones
    turns = []
    for k in range(1, 121):
        stats = session.step(start.lerp(root, 0.005 * k))
        assert not stats.unmet and not stats.diverging, (k, stats)
        rig = session.setup.rig
        frames = rig.figure.forward(session.theta)
        world_inverse = rig.world_inverse(np.array(obj.matrix_world))
        reachs = Vector((world_inverse @ frames[rig.segment_index[knee]])[:3, 3].tolist())
        axis = (bones[end].head - bones[first].head).normalized()

        def across(point, axis=axis):  # off the line from the limb's root to its end
            offset = point - bones[first].head
            return offset - axis * offset.dot(axis)

        turns.append(across(bones[knee].head).angle(across(reachs)))
    session.finish()
    assert obj.reach.stats.message == "all constraints met", obj.reach.stats.message
    assert max(turns) < 0.04, turns  # Blender's knee on Reach's plane, to the drag's tolerance


def test_a_drag_keeps_its_writer_for_the_next_with_no_heel_led_yet(reach):
    # the next Solve or drag of the rig writes its controls with the last one's writer,
    # made again only where its bones changed; each run's heels start unled
    obj, _limb, goal, start, root, session = paw_drag(reach)
    for k in range(1, 4):
        session.step(start.lerp(root, 0.01 * k))
    dragged = session.poser.writer
    assert dragged.heels.bases  # the drag's writes led its heel
    session.finish()
    kept = reach.addon.bridge.kept._state.built[obj.session_uid].kept.writer
    assert kept is not dragged and not kept.heels.bases and not kept.heels.floors
    assert kept.bones == dragged.bones and kept.model is dragged.model
    after = reach.addon.drag_session.DragSession(bpy.context, obj, goal)
    assert after.poser.writer is kept
    after.step(start.lerp(root, 0.04))
    after.finish()
    assert obj.reach.stats.message == "all constraints met"


def test_a_paws_drag_events_pass_no_miss_on_to_the_next(reach):
    # the cat's front paw in IK mode: a drag's event may leave the paw a little off (the
    # drag's tolerance); held to the chain's last bone as the last exact write left it,
    # its end control does not take that miss into the next write, so the misses do not
    # add up, event by event, to one that costs a second evaluation of the rig
    obj, limb = constrained_end(reach, "cat", "upper_arm.L", "IK", "hand_ik.L")
    goal = obj.reach.constraints["end"].goal
    start, root = goal.location.copy(), obj.matrix_world @ obj.pose.bones[limb.bones[0]].head
    session = reach.addon.drag_session.DragSession(bpy.context, obj, goal)
    residuals: list[float] = []

    def event(k: int) -> None:
        residuals.append(session.step(start.lerp(root, 0.005 * k)).residual)

    counts = evaluations(obj, [lambda k=k: event(k) for k in range(1, 41)])
    session.finish()
    assert obj.reach.stats.message == "all constraints met", obj.reach.stats.message
    assert all(count >= 1 for count in counts), counts
    # the first events' heel has no lead yet (:class:`Heels`): those evaluate twice
    assert sum(count > 1 for count in counts[3:]) <= 2, counts
    assert max(residuals[3:]) <= 5e-5 * limb_length(obj, limb), residuals


def poses(obj) -> list[tuple[str, ...]]:
    """Every pose bone's evaluated matrix, bit for bit."""
    return [tuple(float(v).hex() for row in b.matrix for v in row) for b in obj.pose.bones]


@pytest.mark.parametrize("name, mode", [("upper_arm.L", "IK"), ("thigh.L", "FK")])
def test_a_drag_event_tags_no_geometry_and_evaluates_as_a_full_update(reach, name, mode):
    """Reach writes the controls' channels in bulk and tags the pose as a transform change:
    Blender does not evaluate the armature's data again (an update of a pose bone's
    property would tag its geometry), and the pose it evaluates, constraints, drivers and
    deform bones, is the one a full update gives, to the bit. From ``torso``: the trunk's
    controls too."""
    obj = generated("basic_human")
    switch_to(obj, limb_of(reach, obj, name), 1.0 if mode == "FK" else 0.0)
    limb = limb_of(reach, obj, name)
    end = limb.fk[-1] if mode == "FK" else limb.ik_controls[0]
    made = bpy.ops.reach.figure_from_armature(armature=obj.name, translate_root=True)
    assert made == {"FINISHED"}
    added = bpy.ops.reach.add_constraint(
        armature=obj.name, bone=end, effector="HEAD", chain_start="torso", name="end"
    )
    assert added == {"FINISHED"}
    goal = obj.reach.constraints["end"].goal
    start, root = goal.location.copy(), obj.matrix_world @ obj.pose.bones[limb.bones[0]].head
    session = reach.addon.drag_session.DragSession(bpy.context, obj, goal)
    geometry: list[bool] = []

    def updated(_scene, depsgraph) -> None:
        for update in depsgraph.updates:
            if update.id.original == obj.data:  # the armature's own data, its bones
                geometry.append(update.is_updated_geometry)

    for k in range(1, 6):
        bpy.app.handlers.depsgraph_update_post.append(updated)
        try:
            session.step(start.lerp(root, 0.06 * k))
        finally:
            bpy.app.handlers.depsgraph_update_post.remove(updated)
        assert not session.last.unmet, session.last.message
        posed = poses(obj)
        obj.update_tag()
        bpy.context.view_layer.update()
        assert poses(obj) == posed
    session.finish()
    assert geometry and not any(geometry)
