"""Hand-made rigs whose controls are flat (all under the root) and whose deform bones,
each copying its control, form the body: chains across the controls are posed through
the deform hierarchy, written and keyed on the controls, met on the deform bones."""

from __future__ import annotations

import math

import bpy
from control_rigs import channels, keyed_bones
from mathutils import Matrix, Vector

BODY = {
    # bone: (parent in the deform hierarchy, head, tail)
    "hips": ("", (0.0, 0.0, 1.0), (0.0, 0.0, 1.12)),
    "spine": ("hips", (0.0, 0.0, 1.12), (0.0, 0.0, 1.3)),
    "chest": ("spine", (0.0, 0.0, 1.3), (0.0, 0.0, 1.48)),
    "neck": ("chest", (0.0, 0.0, 1.48), (0.0, 0.0, 1.58)),
    "head": ("neck", (0.0, 0.0, 1.58), (0.0, 0.0, 1.8)),
    **{
        f"{part}.{side}": (parent.format(side=side), head, tail)
        for side, x in (("L", 1.0), ("R", -1.0))
        for part, parent, head, tail in (
            ("shoulder", "chest", (0.02 * x, 0.0, 1.45), (0.18 * x, 0.0, 1.45)),
            ("upper_arm", "shoulder.{side}", (0.18 * x, 0.0, 1.45), (0.45 * x, 0.02, 1.45)),
            ("forearm", "upper_arm.{side}", (0.45 * x, 0.02, 1.45), (0.7 * x, 0.0, 1.45)),
            ("hand", "forearm.{side}", (0.7 * x, 0.0, 1.45), (0.8 * x, 0.0, 1.45)),
            ("thigh", "hips", (0.1 * x, 0.0, 1.0), (0.1 * x, -0.02, 0.55)),
            ("shin", "thigh.{side}", (0.1 * x, -0.02, 0.55), (0.1 * x, 0.0, 0.1)),
            ("foot", "shin.{side}", (0.1 * x, 0.0, 0.1), (0.1 * x, -0.15, 0.02)),
        )
    },
}


def flat_body(name: str = "flat"):
    """A body whose controls hang from the root and whose deform bones copy them."""
    data = bpy.data.armatures.new(name)
    obj = bpy.data.objects.new(name, data)
    bpy.context.scene.collection.objects.link(obj)
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    root = data.edit_bones.new("root")
    root.head, root.tail, root.use_deform = (0.0, 0.0, 0.0), (0.0, 0.3, 0.0), False
    for bone_name, (parent, head, tail) in BODY.items():
        control = data.edit_bones.new("CTRL-" + bone_name)
        control.head, control.tail, control.parent = head, tail, root
        control.use_deform = False
        deform = data.edit_bones.new("DEF-" + bone_name)
        deform.head, deform.tail = head, tail
        deform.parent = data.edit_bones["DEF-" + parent] if parent else None
    bpy.ops.object.mode_set(mode="OBJECT")
    for bone_name in BODY:
        copy = obj.pose.bones["DEF-" + bone_name].constraints.new("COPY_TRANSFORMS")
        copy.target, copy.subtarget = obj, "CTRL-" + bone_name
    bpy.context.view_layer.update()
    return obj


def relative(obj, bone: str, above: str) -> tuple[float, ...]:
    """Deform bone ``bone``'s pose in deform bone ``above``'s frame, to 1e-5."""
    bones = obj.pose.bones
    local = bones["DEF-" + above].matrix.inverted() @ bones["DEF-" + bone].matrix
    return tuple(round(v, 5) + 0.0 for row in local for v in row)


def tail(obj, bone: str) -> Vector:
    return obj.matrix_world @ obj.pose.bones[bone].tail


def test_a_flat_bodys_chains_follow_the_deform_hierarchy(reach, capfd):
    obj = flat_body()
    model = reach.addon.bridge.control_rig.model.control_model(obj)
    chains = {end.controls: end.hang for end in model.ends}
    assert chains[("CTRL-hips",)] == ""
    assert chains[("CTRL-spine", "CTRL-chest")] == "CTRL-hips"
    assert chains[("CTRL-neck", "CTRL-head")] == "CTRL-chest"
    arm = ("CTRL-shoulder.L", "CTRL-upper_arm.L", "CTRL-forearm.L", "CTRL-hand.L")
    assert chains[arm] == "CTRL-chest"
    assert chains[("CTRL-thigh.R", "CTRL-shin.R", "CTRL-foot.R")] == "CTRL-hips"
    assert model.stand("DEF-hand.L").bone == "CTRL-hand.L"
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    out = capfd.readouterr().out
    assert "controls the deform bones copy: CTRL-hips; CTRL-spine → CTRL-chest" in out


def whole_body(obj):
    """The left hand's tail reaching down and forward from the spine, the feet held."""
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    for side in "LR":
        assert bpy.ops.reach.add_constraint(
            armature=obj.name, bone=f"DEF-foot.{side}", chain_start="DEF-hips", name=f"foot.{side}"
        ) == {"FINISHED"}
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone="DEF-hand.L", effector="TAIL", chain_start="DEF-spine", name="hand"
    ) == {"FINISHED"}
    return obj.reach.constraints["hand"].goal


def test_a_whole_body_reach_is_met_on_the_deform_bones_writing_only_controls(reach):
    obj = flat_body()
    obj.matrix_world = Matrix.LocRotScale((0.4, -0.3, 0.1), Matrix.Rotation(0.5, 3, "Z"), None)
    bpy.context.view_layer.update()
    goal = whole_body(obj)
    feet = {s: tail(obj, f"DEF-foot.{s}") for s in "LR"}
    goal.location = tuple(
        Vector(goal.location) + obj.matrix_world.to_3x3() @ Vector((0.1, -0.4, -0.5))
    )
    bpy.context.view_layer.update()
    deform = channels(obj, "DEF-")
    controls = channels(obj, "CTRL-")
    relatives = {b: relative(obj, b, a) for b, a in (("head", "chest"), ("hand.R", "chest"))}
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    assert obj.reach.stats.message == "all constraints met", obj.reach.stats.message
    assert channels(obj, "DEF-") == deform
    moved = {n for n, c in channels(obj, "CTRL-").items() if controls[n] != c}
    assert {"CTRL-spine", "CTRL-chest", "CTRL-hand.L"} <= moved
    for bone, above in (("head", "chest"), ("hand.R", "chest")):
        # carried whole by the deform bone above: its flat control was written to follow
        assert relative(obj, bone, above) == relatives[bone], bone
    assert (tail(obj, "DEF-hand.L") - Vector(goal.location)).length <= 1e-5
    for side in "LR":  # the feet stayed where they were
        assert (tail(obj, f"DEF-foot.{side}") - feet[side]).length <= 1e-5


def test_a_bake_keys_the_controls_and_meets_every_frame(reach):
    obj = flat_body()
    goal = whole_body(obj)
    start = Vector(goal.location)
    for frame, share in ((1, 0.2), (5, 1.0)):
        goal.location = start + Vector((0.1, -0.35, -0.4)) * share
        goal.keyframe_insert("location", frame=frame)
    assert bpy.ops.reach.bake(armature=obj.name, frame_start=1, frame_end=5) == {"FINISHED"}
    keyed = keyed_bones(reach, obj)
    assert keyed and all(name.startswith("CTRL-") for name in keyed), keyed
    for frame in range(1, 6):
        bpy.context.scene.frame_set(frame)
        assert (tail(obj, "DEF-hand.L") - Vector(goal.location)).length <= 1e-5, frame


def test_a_dragged_goal_keeps_the_hand_on_it_writing_only_controls(reach):
    obj = flat_body()
    goal = whole_body(obj)
    start = Vector(goal.location)
    deform = channels(obj, "DEF-")
    ends = [
        start + Vector((0.2 * math.sin(t), -0.3 * t, -0.3 * t))
        for t in (0.1 * k for k in range(1, 11))
    ]
    path = [{"name": "", "location": tuple(p)} for p in ends]
    assert bpy.ops.reach.drag_goal(armature=obj.name, goal=goal.name, path=path) == {"FINISHED"}
    bpy.context.view_layer.update()
    assert channels(obj, "DEF-") == deform
    assert (tail(obj, "DEF-hand.L") - ends[-1]).length <= 1e-5
