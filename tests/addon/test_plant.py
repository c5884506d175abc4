"""``reach.plant_contacts`` on a walk made in the test whose feet slide (``walks``)."""

from __future__ import annotations

from types import SimpleNamespace

import bpy
import imported_skeletons
import numpy as np
import pytest
import rigs
import walks
from mathutils import Vector

SLIDE = 1.05
"""The hips keyed this much faster than the clean walk's: each stance slides 2 cm."""


def _sliding_walk():
    """The basic metarig walking two strides, its hips keyed 5% too fast; its frames."""
    bpy.ops.object.armature_basic_human_metarig_add()
    obj = bpy.context.active_object
    frames = walks.walk(obj)
    walks.key_hips(obj, frames, SLIDE * walks.STRIDE / walks.CYCLE)
    return obj, frames


def _keys(action) -> dict[tuple[str, int], list[tuple[float, float]]]:
    """Every F-curve's keys of ``action`` (its own curves, layered or not)."""
    curves = list(getattr(action, "fcurves", []) or [])
    for layer in getattr(action, "layers", []):
        for strip in layer.strips:
            for bag in strip.channelbags:
                curves.extend(bag.fcurves)
    return {(c.data_path, c.array_index): [tuple(k.co) for k in c.keyframe_points] for c in curves}


def _travel(points: np.ndarray, stances) -> list[float]:
    """How far apart each stance's positions of a point lie (frames from 1)."""
    out = []
    for first, last in stances:
        held = points[first - 1 : last]
        out.append(float(np.linalg.norm(held[:, None] - held[None], axis=2).max()))
    return out


def _turns(obj, frames, bones) -> list[list]:
    """Each bone's own rotation (its channels, as a quaternion) on each frame."""
    turns = []
    for frame in frames:
        bpy.context.scene.frame_set(frame)
        turns.append([obj.pose.bones[name].matrix_basis.to_quaternion() for name in bones])
    return turns


def _twists(before: list[list], after: list[list]) -> np.ndarray:
    """How far each bone turned about its own length from ``before`` to ``after`` [°]."""
    radians = [
        [abs((a.inverted() @ b).to_swing_twist("Y")[1]) for a, b in zip(was, now, strict=True)]
        for was, now in zip(before, after, strict=True)
    ]
    degrees = np.degrees(np.array(radians))
    return np.minimum(degrees, 360.0 - degrees)


def _measures(obj, frames, prefix: str) -> dict[str, np.ndarray]:
    """Per frame, in world space, on the skeleton (``prefix`` names a control rig's):
    each toe; the head's top and the wrists relative to the hips; each knee's bend
    direction (its offset from the hip–ankle line)."""
    names = {
        "toe.L": ("foot.L", "tail"),
        "toe.R": ("foot.R", "tail"),
        "head": ("spine.006", "tail"),
        "wrist.L": ("hand.L", "head"),
        "wrist.R": ("hand.R", "head"),
        "hips": ("spine", "head"),
        **{
            f"{part}.{side}": (f"{part}.{side}", "head")
            for part in ("thigh", "shin", "foot")
            for side in "LR"
        },
    }
    points = {}
    for which in ("head", "tail"):  # a bone's head and tail read apart
        read = {prefix + bone: end for bone, end in names.values() if end == which}
        found = walks.world_points(obj, frames, read)
        points.update({k: found[prefix + b] for k, (b, end) in names.items() if end == which})
    found = {key: points[key] for key in ("toe.L", "toe.R")}
    for key in ("head", "wrist.L", "wrist.R"):
        found[key] = points[key] - points["hips"]
    for side in "LR":
        hip, knee, ankle = (points[f"{part}.{side}"] for part in ("thigh", "shin", "foot"))
        line = (ankle - hip) / np.linalg.norm(ankle - hip, axis=1)[:, None]
        off = (knee - hip) - line * np.sum((knee - hip) * line, axis=1)[:, None]
        found[f"knee.{side}"] = off / np.linalg.norm(off, axis=1)[:, None]
    return found


@pytest.mark.parametrize("rig", ["skeleton", "FK", "IK"])
def test_a_sliding_walks_feet_stand_still_after_planting_and_the_rest_is_kept(reach, rig):
    """On the metarig's plain skeleton and on a control rig's legs in FK and in IK, each
    stance's toe stands still, the head and wrists keep to the hips, the knees bend as
    they bent; keys go on the bones an animator keys, the original action kept."""
    obj, frames = _sliding_walk() if rig == "skeleton" else walks.control_walk(rig, 2, SLIDE)
    prefix = "" if rig == "skeleton" else "ORG-"
    original = obj.animation_data.action
    kept = _keys(original)
    before = _measures(obj, frames, prefix)
    truth = walks.stances(2)

    result = bpy.ops.reach.plant_contacts(armature=obj.name, frame_start=1, frame_end=frames[-1])

    assert result == {"FINISHED"}
    planted = obj.animation_data.action
    assert planted is not original and original.use_fake_user
    assert _keys(original) == kept  # the imported motion stays as it was
    after = _measures(obj, frames, prefix)
    for side in "LR":
        inner = [(a, b) for a, b in truth[f"foot.{side}"] if b - a >= 4]  # not cut short
        assert max(_travel(before[f"toe.{side}"], inner)) > 0.015
        assert max(_travel(after[f"toe.{side}"], inner)) <= 0.003  # each toe stands still
        cosines = np.sum(after[f"knee.{side}"] * before[f"knee.{side}"], axis=1)
        assert np.degrees(np.arccos(np.clip(cosines, -1.0, 1.0))).max() <= 30.0
    for key in ("head", "wrist.L", "wrist.R"):  # they move with the hips as they did
        assert np.linalg.norm(after[key] - before[key], axis=1).max() <= 0.01
    feet = reach.addon.bridge.planting.find_feet(obj)
    hips = reach.addon.bridge.planting.hips_of(obj, feet)
    assert (hips and hips.bone) == {"skeleton": walks.HIPS, "FK": "torso", "IK": None}[rig]
    assert [c.name for c in obj.reach.constraints] == [  # the legs reach: the hips stay
        f"{foot.bone} {point} planted" for foot in feet for point in ("heel", "toe")
    ]
    keyed = {path.split('"')[1] for path, _ in _keys(planted) if path.startswith("pose.bones")}
    assert keyed and all(not name.startswith(("ORG-", "DEF-", "MCH-")) for name in keyed)


@pytest.mark.parametrize("rig", ["skeleton", "FK", "IK"])
def test_frames_no_contact_blends_into_keep_the_motions_pose(reach, rig):
    """Where no constraint of the left foot is on, its leg is posed as the motion had it,
    on the metarig's skeleton and on the control rig's (keyed through its controls)."""
    obj, frames = _sliding_walk() if rig == "skeleton" else walks.control_walk(rig, 2, SLIDE)
    prefix = "" if rig == "skeleton" else "ORG-"
    legs = [prefix + b for b in ("thigh.L", "shin.L", "foot.L", "thigh.R", "shin.R", "foot.R")]
    original = obj.animation_data.action
    scene = bpy.context.scene
    poses = {}
    for frame in frames:
        scene.frame_set(frame)
        poses[frame] = [obj.pose.bones[b].matrix.copy() for b in legs]
    assert bpy.ops.reach.plant_contacts(armature=obj.name, frame_start=1, frame_end=frames[-1]) == {
        "FINISHED"
    }
    assert obj.animation_data.action is not original
    left = reach.addon.bridge.planting.find_feet(obj)[0]
    planted = [c for c in obj.reach.constraints if c.bone == left.bone]
    assert len(planted) == 2  # the heel's and the toe's
    free = 0
    for frame in frames:
        scene.frame_set(frame)
        reach.addon.bridge.keys.apply_switches(obj, frame)
        if any(constraint.enabled for constraint in planted):
            continue
        free += 1
        now = obj.pose.bones[legs[0]].matrix, obj.pose.bones[legs[1]].matrix
        for was, is_ in zip(poses[frame][:2], now, strict=True):
            assert (
                max(
                    abs(a - b)
                    for r, s in zip(was, is_, strict=True)
                    for a, b in zip(r, s, strict=True)
                )
                < 1e-4
            )
    assert free >= 10  # the left foot's swings


def test_a_walk_written_as_bvh_and_imported_is_planted(reach, tmp_path):
    obj, frames = _sliding_walk()
    path = tmp_path / "walk.bvh"
    bpy.ops.object.select_all(action="DESELECT")
    obj.select_set(True)
    bpy.context.view_layer.objects.active = obj
    assert bpy.ops.export_anim.bvh(
        filepath=str(path), frame_start=frames[0], frame_end=frames[-1]
    ) == {"FINISHED"}
    bpy.ops.wm.read_homefile(use_empty=True)
    # Blender's exporter writes its own axes, so they are read back as they were written
    assert bpy.ops.import_anim.bvh(
        filepath=str(path), use_fps_scale=False, axis_forward="Y", axis_up="Z"
    ) == {"FINISHED"}
    imported = bpy.context.active_object
    scene = bpy.context.scene
    scene.render.fps = walks.FPS
    ends = {"foot.L": "tail", "foot.R": "tail"}
    truth = walks.stances(2)
    inner = {foot: [(a, b) for a, b in truth[foot] if b - a >= 4] for foot in ends}
    before = walks.world_points(imported, frames, ends)
    assert bpy.ops.reach.plant_contacts(
        armature=imported.name, frame_start=frames[0], frame_end=frames[-1]
    ) == {"FINISHED"}
    after = walks.world_points(imported, frames, ends)
    for foot in ends:
        assert max(_travel(before[foot], inner[foot])) > 0.015
        assert max(_travel(after[foot], inner[foot])) <= 0.003


def _unchanged(obj, action, keys) -> None:
    assert obj.animation_data is None or obj.animation_data.action is action
    if action is not None:
        assert _keys(action) == keys
    assert len(obj.reach.constraints) == 0
    assert not [o for o in bpy.data.objects if o.type == "EMPTY"]


def test_an_armature_without_motion_is_refused_by_name(reach):
    bpy.ops.object.armature_basic_human_metarig_add()
    obj = bpy.context.active_object
    with pytest.raises(RuntimeError, match="has no action to clean"):
        bpy.ops.reach.plant_contacts(armature=obj.name, frame_start=1, frame_end=48)
    _unchanged(obj, None, {})


def test_a_range_outside_the_motion_is_refused_and_changes_nothing(reach):
    obj, _ = _sliding_walk()
    action = obj.animation_data.action
    keys = _keys(action)
    with pytest.raises(RuntimeError, match=r"lie outside action .* set the range within them"):
        bpy.ops.reach.plant_contacts(armature=obj.name, frame_start=100, frame_end=200)
    with pytest.raises(RuntimeError, match="comes before"):
        bpy.ops.reach.plant_contacts(armature=obj.name, frame_start=20, frame_end=10)
    _unchanged(obj, action, keys)


def test_a_skeleton_without_legs_is_refused_naming_the_bones_looked_for(reach):
    bpy.ops.object.armature_add()
    obj = bpy.context.active_object
    bpy.ops.object.mode_set(mode="POSE")
    for frame in (1, 10):
        obj.pose.bones[0].location = (0.0, 0.0, 0.1 * frame)
        obj.pose.bones[0].keyframe_insert("location", frame=frame)
    bpy.ops.object.mode_set(mode="OBJECT")
    action = obj.animation_data.action
    keys = _keys(action)
    with pytest.raises(RuntimeError, match=r"no legs Reach recognises.*thigh"):
        bpy.ops.reach.plant_contacts(armature=obj.name, frame_start=1, frame_end=10)
    _unchanged(obj, action, keys)


def test_feet_that_never_stand_are_reported_and_nothing_is_planted(reach):
    bpy.ops.object.armature_basic_human_metarig_add()
    obj = bpy.context.active_object
    hips = obj.pose.bones[walks.HIPS]
    to_local = obj.data.bones[walks.HIPS].matrix_local.to_3x3().inverted()
    for frame in range(1, 25):  # the figure carried along, its feet never still
        hips.location = to_local @ Vector((0.0, -0.1 * frame, 0.0))
        hips.keyframe_insert("location", frame=frame)
    action = obj.animation_data.action
    keys = _keys(action)
    result = bpy.ops.reach.plant_contacts(armature=obj.name, frame_start=1, frame_end=24)
    assert result == {"CANCELLED"}
    _unchanged(obj, action, keys)


def test_a_leg_a_driver_poses_is_refused_naming_the_bone(reach):
    obj, frames = _sliding_walk()
    obj.pose.bones["shin.L"].driver_add("rotation_quaternion", 1).driver.expression = "0.1"
    action = obj.animation_data.action
    keys = _keys(action)
    with pytest.raises(RuntimeError, match=r"bone 'shin.L' of foot.L's leg is posed by a driver"):
        bpy.ops.reach.plant_contacts(armature=obj.name, frame_start=1, frame_end=frames[-1])
    _unchanged(obj, action, keys)


def test_what_a_plant_made_is_taken_back_whole_when_it_fails(reach):
    """A failure after the new action and the constraints were made leaves none of them,
    and an armature that was no figure is none again."""
    bpy.ops.object.armature_basic_human_metarig_add()
    obj = bpy.context.active_object
    walks.key_hips(obj, range(1, 11), 0.01)
    action = obj.animation_data.action
    keys = _keys(action)
    actions = set(bpy.data.actions)
    made = reach.addon.plant.Planting(obj, action)
    planted = made.new_action()
    assert obj.animation_data.action is planted and action.use_fake_user
    foot = reach.addon.bridge.planting.FootBones("foot.L", "L", "thigh.L")
    made.constraint(foot, "heel")
    made.constraint(foot, "toe")
    assert len(obj.reach.constraints) == 2 and obj.reach.is_figure
    made.undo()
    _unchanged(obj, action, keys)
    assert set(bpy.data.actions) == actions and not action.use_fake_user
    assert not obj.reach.is_figure and not len(obj.reach.joints)


TIMER = SimpleNamespace(type="TIMER", value="NOTHING")
ESC = SimpleNamespace(type="ESC", value="PRESS")


def _modal(reach, obj, frames):
    """The plant operator's mixin on a harness, one frame per timer event, and a window."""

    class Harness(reach.addon.plant.Plant):
        frame_time = 0.0

        def __init__(self):
            self.armature, self.frame_start, self.frame_end = obj.name, frames[0], frames[-1]
            self.still = reach.addon.bridge.stances.STILL
            self.low = reach.addon.bridge.stances.LOW
            self.reports = []

        def report(self, kind, message):
            self.reports.append((kind, message))

    return Harness(), rigs.window_context()


def _state(obj):
    """What a stopped plant must leave as it was: the actions and their keys, the goals
    and theirs, the constraints and their switches, the frame and the pose there."""
    goals = {
        o.name: (tuple(o.location), _keys(o.animation_data.action) if o.animation_data else None)
        for o in bpy.data.objects
        if o.type == "EMPTY"
    }
    return (
        obj.animation_data.action.name,
        {a.name: (_keys(a), a.use_fake_user) for a in bpy.data.actions},
        goals,
        [(c.name, c.enabled) for c in obj.reach.constraints],
        bpy.context.scene.frame_current,
        rigs.pose_channels(obj),
        obj.reach.is_figure,
        (obj.reach.comfort, obj.reach.translate_root),
        [(b.lock_ik_x, b.lock_ik_y, b.lock_ik_z) for b in obj.pose.bones],
    )


@pytest.mark.parametrize("case", ["first", "again", "giving"])
def test_a_plant_stopped_with_esc_keeps_nothing_it_wrote(reach, case):
    """Esc part way through the bake leaves every action, goal, constraint, setting, IK
    lock and the pose as before; a second plant stopped so leaves the first one's
    constraints and keys; one whose hips give (their turns held) leaves their locks."""
    if case == "giving":
        bpy.ops.object.armature_basic_human_metarig_add()
        obj = bpy.context.active_object
        frames = walks.walk(obj, drop=0.0)
        walks.key_hips(obj, frames, 1.2 * walks.STRIDE / walks.CYCLE, drop=0.0)
    else:
        obj, frames = _sliding_walk()
    if case == "again":
        name = obj.animation_data.action.name
        assert bpy.ops.reach.plant_contacts(
            armature=obj.name, frame_start=1, frame_end=frames[-1]
        ) == {"FINISHED"}
        assert obj.animation_data.action.name == f"{name} planted"
    bpy.context.scene.frame_set(7)
    before = _state(obj)
    plant, context = _modal(reach, obj, frames)
    assert plant.invoke(context, TIMER) == {"RUNNING_MODAL"}
    assert context.window_manager.handlers == [plant]
    for _ in range(10):
        assert plant.modal(context, TIMER) == {"RUNNING_MODAL"}
    assert reach.addon.live._state.paused
    hips = obj.pose.bones[walks.HIPS]
    assert hips.lock_ik_x == (case == "giving")  # held while the plant runs
    assert plant.modal(context, ESC) == {"CANCELLED"}
    manager = context.window_manager
    assert manager.progress[0] == ("begin", 0, len(frames)) and manager.progress[-1] == ("end",)
    assert ("update", 10) in manager.progress and manager.timers == []
    assert "nothing kept" in plant.reports[-1][1]
    assert not reach.addon.live._state.paused
    assert _state(obj) == before


def test_a_modal_plant_run_to_its_end_plants_as_a_script_does(reach):
    obj, frames = _sliding_walk()
    original = obj.animation_data.action
    plant, context = _modal(reach, obj, frames)
    assert plant.invoke(context, TIMER) == {"RUNNING_MODAL"}
    results = [plant.modal(context, TIMER) for _ in frames]
    assert results[:-1] == [{"RUNNING_MODAL"}] * (len(frames) - 1)
    assert results[-1] == {"FINISHED"}
    assert context.window_manager.timers == [] and not reach.addon.live._state.paused
    assert obj.animation_data.action is not original
    assert obj.animation_data.action.name == f"{original.name} planted"
    assert any("now 0" in message or "now " in message for _, message in plant.reports)
    truth = walks.stances(2)
    after = walks.world_points(obj, frames, {"foot.L": "tail", "foot.R": "tail"})
    for foot, stances in truth.items():
        inner = [(a, b) for a, b in stances if b - a >= 4]
        assert max(_travel(after[foot], inner)) <= 0.003


def test_a_control_rigs_leg_blended_between_ik_and_fk_is_refused_naming_its_switch(reach):
    bpy.ops.object.armature_basic_human_metarig_add()
    bpy.ops.object.mode_set(mode="OBJECT")
    bpy.ops.pose.rigify_generate()
    obj = bpy.context.active_object
    bpy.ops.object.mode_set(mode="OBJECT")
    walks.key_hips(obj, range(1, 25), 0.02, "torso")
    obj.pose.bones["thigh_parent.R"]["IK_FK"] = 0.5
    obj.update_tag()
    bpy.context.view_layer.update()
    action = obj.animation_data.action
    keys = _keys(action)
    with pytest.raises(
        RuntimeError, match=r"leg 'thigh.R' is blended .* set 'IK_FK' on 'thigh_parent.R' to 0 or 1"
    ):
        bpy.ops.reach.plant_contacts(armature=obj.name, frame_start=1, frame_end=24)
    assert obj.animation_data.action is action and _keys(action) == keys
    assert len(obj.reach.constraints) == 0


def test_a_skeleton_whose_names_say_nothing_is_planted_at_the_legs_its_rest_pose_shows(reach):
    """Every bone renamed "b00", "b01", …: the legs are the limbs reaching down from the
    middle plane, their feet where they turn forward, and the feet are planted."""
    obj, frames = _sliding_walk()
    renamed = {}
    for k, bone in enumerate(obj.data.bones):
        renamed[bone.name] = bone.name = f"b{k:02d}"  # Blender renames the keys' paths too
    feet = reach.addon.bridge.planting.find_feet(obj)
    assert [(f.bone, f.thigh) for f in feet] == [
        (renamed["foot.L"], renamed["thigh.L"]),
        (renamed["foot.R"], renamed["thigh.R"]),
    ]
    ends = {renamed["foot.L"]: "tail", renamed["foot.R"]: "tail"}
    before = walks.world_points(obj, frames, ends)
    assert bpy.ops.reach.plant_contacts(armature=obj.name, frame_start=1, frame_end=frames[-1]) == {
        "FINISHED"
    }
    after = walks.world_points(obj, frames, ends)
    for side in "LR":
        inner = [(a, b) for a, b in walks.stances(2)[f"foot.{side}"] if b - a >= 4]
        assert max(_travel(before[renamed[f"foot.{side}"]], inner)) > 0.015
        assert max(_travel(after[renamed[f"foot.{side}"]], inner)) <= 0.003


@pytest.mark.parametrize("kind", ["mixamo_fbx", "game_fbx"])
def test_an_imported_game_skeletons_walk_is_planted(reach, skeletons, kind):
    """A Mixamo-named character read by Blender's FBX importer (centimetres under a 0.01
    scale; its bones askew of its joints for the game skeleton) walks with its hips 5%
    fast: each stance's ball of the foot (the toes' joint) stands still after."""
    obj = imported_skeletons.append(skeletons[kind])
    name = imported_skeletons.PREFIX
    bones = obj.data.bones
    feet = {
        f"{name}LeftFoot": (f"{name}LeftUpLeg", 0.0),
        f"{name}RightFoot": (f"{name}RightUpLeg", 0.5),
    }
    balls = {foot: foot.replace("Foot", "ToeBase") for foot in feet}
    ends = {foot: bones[ball].head_local for foot, ball in balls.items()}
    frames = walks.walk(obj, feet=feet, hips=f"{name}Hips", ends=ends)
    walks.key_hips(obj, frames, SLIDE * walks.STRIDE / walks.CYCLE, f"{name}Hips")
    points = {ball: "head" for ball in balls.values()}
    before = walks.world_points(obj, frames, points)
    assert bpy.ops.reach.plant_contacts(armature=obj.name, frame_start=1, frame_end=frames[-1]) == {
        "FINISHED"
    }
    after = walks.world_points(obj, frames, points)
    for side, foot in zip("LR", feet, strict=True):
        inner = [(a, b) for a, b in walks.stances(2)[f"foot.{side}"] if b - a >= 4]
        assert max(_travel(before[balls[foot]], inner)) > 0.015
        assert max(_travel(after[balls[foot]], inner)) <= 0.003


def test_a_noisy_walk_up_a_slope_at_120_fps_is_planted_where_each_step_stands(reach):
    """Captured at 120 fps, up a 1-in-10 slope, the hips jittering 0.5 mm a key and keyed
    5% fast: each stance's toe stands still after, at its own height on the slope."""
    bpy.ops.object.armature_basic_human_metarig_add()
    obj = bpy.context.active_object
    fps, slope = 120, 0.1
    frames = walks.walk(obj, fps=fps, slope=slope)
    speed = SLIDE * walks.STRIDE / walks.cycle(fps)
    walks.key_hips(obj, frames, speed, rise=slope, noise=0.0005)
    ends = {"foot.L": "tail", "foot.R": "tail"}
    before = walks.world_points(obj, frames, ends)
    assert bpy.ops.reach.plant_contacts(armature=obj.name, frame_start=1, frame_end=frames[-1]) == {
        "FINISHED"
    }
    after = walks.world_points(obj, frames, ends)
    heights = []
    for foot, stances in walks.stances(2, fps).items():
        inner = [(a, b) for a, b in stances if b - a >= 20]
        assert max(_travel(before[foot], inner)) > 0.015
        assert max(_travel(after[foot], inner)) <= 0.003
        heights += [float(after[foot][(a + b) // 2 - 1, 2]) for a, b in inner]
    assert max(heights) - min(heights) > 0.05  # the steps stand higher up the slope


@pytest.mark.parametrize("rig", ["skeleton", "FK"])
def test_hips_give_a_little_where_a_straight_leg_cannot_reach_its_planted_foot(reach, rig):
    """Legs all but straight and the hips keyed 20% fast: a foot planted where it stood
    lies out of its leg's reach late in the stance. The hips move a little (under 3 cm),
    the body above them with them as the motion had it (its trunk not tilted to lend the
    leg reach), and the toes stand still to 3 mm; where the legs reach, the hips stay as
    they were; the hips' IK locks, held for the plant, are as the animator left them. On
    the metarig's skeleton its hips bone gives; on the control rig (legs in FK) its torso,
    keyed on its controls alone. No leg bone turns about its own length more than a few
    degrees from the motion (heel and toe leave that free, and the compromise turned the
    control rig's feet half a turn, a thigh 18°)."""
    if rig == "skeleton":
        bpy.ops.object.armature_basic_human_metarig_add()
        obj = bpy.context.active_object
        frames = walks.walk(obj, drop=0.0)
        walks.key_hips(obj, frames, 1.2 * walks.STRIDE / walks.CYCLE, drop=0.0)
        prefix, hips = "", walks.HIPS
    else:
        obj, frames = walks.control_walk("FK", 2, 1.2, drop=0.0)
        prefix, hips = "ORG-", "torso"
    obj.pose.bones[hips].lock_ik_y = True  # an animator's lock, kept
    suffix = "" if rig == "skeleton" else "_fk"
    legs = [f"{part}{suffix}.{side}" for part in ("thigh", "shin", "foot") for side in "LR"]
    obj.pose.bones[legs[0]].lock_ik_y = True  # an animator's lock on a leg, kept
    body, head = prefix + "spine", prefix + "spine.006"
    points = {prefix + "foot.L": "tail", prefix + "foot.R": "tail", body: "head", head: "tail"}
    before = walks.world_points(obj, frames, points)
    turned = _turns(obj, frames, legs)
    assert bpy.ops.reach.plant_contacts(armature=obj.name, frame_start=1, frame_end=frames[-1]) == {
        "FINISHED"
    }
    after = walks.world_points(obj, frames, points)
    for foot, stances in walks.stances(2).items():
        inner = [(a, b) for a, b in stances if b - a >= 4]
        assert max(_travel(before[prefix + foot], inner)) > 0.07
        assert max(_travel(after[prefix + foot], inner)) <= 0.003
    moved = np.linalg.norm(after[body] - before[body], axis=1)
    assert 0.001 < moved.max() < 0.03
    assert np.sum(moved < 1e-6) >= 5  # frames a leg reaches keep the hips where they were
    tilt = after[head] - after[body] - (before[head] - before[body])
    assert np.linalg.norm(tilt, axis=1).max() <= 1e-4  # the head moved with the hips
    assert obj.reach.constraints[-1].name == f"{hips} hips kept"
    pose_bone = obj.pose.bones[hips]
    assert (pose_bone.lock_ik_x, pose_bone.lock_ik_y, pose_bone.lock_ik_z) == (False, True, False)
    locks = [(b.lock_ik_x, b.lock_ik_y, b.lock_ik_z) for b in map(obj.pose.bones.get, legs)]
    assert locks == [(False, True, False)] + [(False, False, False)] * (len(legs) - 1)
    assert _twists(turned, _turns(obj, frames, legs)).max() <= 10.0
    keyed = {path.split('"')[1] for path, _ in _keys(obj.animation_data.action) if "pose" in path}
    assert all(not name.startswith(("ORG-", "DEF-", "MCH-")) for name in keyed)
