"""The sidebar's panels, drawn into a layout that checks every call against Blender's RNA.

Every panel is drawn in the states a user meets, from an empty scene to a figure with
constraints of every goal type, polygons, groups, a solve that misses and live mode; a
typo in an operator, property, icon or keyword fails here.
"""

from __future__ import annotations

import math

import bpy
import pytest
import rigs
from layout_check import CheckingLayout, Host, LayoutError

GOAL_TYPES = ("POSITION", "ORIENTATION", "POSITION_ORIENTATION", "AIM", "PLANE", "HALF_SPACE")


def panels(reach):
    return [c for c in reach.addon.panel.classes if issubclass(c, bpy.types.Panel)]


def draw(panel, context=None) -> CheckingLayout:
    host = Host()
    panel.draw(host, context or bpy.context)
    return host.layout


def draw_every_shown_panel(reach) -> dict[str, CheckingLayout]:
    """Each panel whose poll passes (or that has none), drawn."""
    drawn = {}
    for panel in panels(reach):
        poll = getattr(panel, "poll", None)
        if poll is None or poll(bpy.context):
            drawn[panel.__name__] = draw(panel)
    return drawn


def rich_figure():
    """A figure with a constraint of every goal type, a polygon, a group and a quaternion bone."""
    obj = rigs.figure()
    for k, kind in enumerate(GOAL_TYPES):
        result = bpy.ops.reach.add_constraint(
            armature=obj.name,
            bone="forearm.L" if k % 2 else "forearm.R",
            effector="OFFSET" if kind == "AIM" else "TAIL",
            goal_type=kind,
            name=f"c {kind.lower()}",
        )
        assert result == {"FINISHED"}
    obj.pose.bones["upper_arm.L"].rotation_mode = "QUATERNION"
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    for x, z in rigs.SQUARE:
        rigs.pose_xz(obj, "upper_arm.L", x, z)
        assert bpy.ops.reach.polygon_add_vertex(armature=obj.name, bone="upper_arm.L") == {
            "FINISHED"
        }
    rigs.pose_xz(obj, "upper_arm.L", 0.0, 0.0)
    assert bpy.ops.reach.group_add(armature=obj.name, name="Spine") == {"FINISHED"}
    for bone in ("spine", "spine.001"):
        assert bpy.ops.reach.group_member_add(armature=obj.name, bone=bone, group="Spine") == {
            "FINISHED"
        }
    assert bpy.ops.reach.follower_add(armature=obj.name, bone="hand.L", control="forearm.L") == {
        "FINISHED"
    }
    obj.data.bones.active = obj.data.bones["upper_arm.L"]
    return obj


def test_the_checker_refuses_what_blender_would(reach):
    obj = rigs.figure()
    layout = CheckingLayout()
    with pytest.raises(LayoutError, match="no property 'translate_rooot'"):
        layout.prop(obj.reach, "translate_rooot")
    with pytest.raises(LayoutError, match="NOT_AN_ICON"):
        layout.label(text="x", icon="NOT_AN_ICON")
    with pytest.raises(LayoutError, match="no operator"):
        layout.operator("reach.solv")
    with pytest.raises(LayoutError, match="no property 'armatur'"):
        layout.operator("reach.solve").armatur = obj.name
    with pytest.raises(LayoutError, match="takes a bool"):
        layout.operator("reach.solve").clamp = "yes"
    with pytest.raises(LayoutError, match="no parameter 'txt'"):
        layout.label(txt="x")
    with pytest.raises(LayoutError, match="no function 'lable'"):
        layout.lable(text="x")
    with pytest.raises(LayoutError, match="no property 'enable'"):
        layout.row().enable = False
    with pytest.raises(LayoutError, match="no UIList"):
        layout.template_list("REACH_UL_nothing", "", obj.reach, "constraints", obj.reach, "x")
    with pytest.raises(LayoutError, match="index 3"):
        layout.prop(obj.reach.joints[0], "polygon_axes", index=3)
    # and accepts what Blender accepts, recording it
    op = layout.operator("reach.solve", text="Solve", icon="PLAY")
    op.armature = obj.name
    assert layout.operators("reach.solve")[-1].armature == obj.name


def test_figure_panel_with_nothing_something_else_and_an_armature(reach):
    assert (
        "Select an armature to pose it with Reach"
        in draw(reach.addon.panel.REACH_PT_figure).labels()
    )
    bpy.ops.object.empty_add()
    labels = draw(reach.addon.panel.REACH_PT_figure).labels()
    assert any("is not an armature" in text for text in labels)
    obj = rigs.metarig()
    layout = draw(reach.addon.panel.REACH_PT_figure)
    assert any("not a Reach figure yet" in text for text in layout.labels())
    (make,) = layout.operators("reach.figure_from_armature")
    assert make.armature == obj.name
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    layout = draw(reach.addon.panel.REACH_PT_figure)
    assert any("is a Reach figure" in text for text in layout.labels())


def test_every_panel_draws_a_figure_with_every_goal_type(reach):
    obj = rich_figure()
    drawn = draw_every_shown_panel(reach)
    assert set(drawn) == {p.__name__ for p in panels(reach)}
    constraints = drawn["REACH_PT_constraints"]
    (solve,) = constraints.operators("reach.solve")
    assert solve.armature == obj.name
    (drag,) = constraints.operators("reach.drag_goal")
    active = obj.reach.constraints[obj.reach.active_constraint]
    assert drag.goal == active.goal.name
    (live,) = constraints.operators("reach.live")
    assert live.stop is False
    # the joint panel shows the quaternion bone's Euler order; the polygon its vertices
    assert "euler_order" in drawn["REACH_PT_joint"].props()
    polygon = drawn["REACH_PT_joint_polygon"]
    assert "polygon_axes" in polygon.props()
    assert [
        d.arguments["propname"] for d in polygon.everything() if d.function == "template_list"
    ] == ["polygon"]
    groups = drawn["REACH_PT_groups"]
    assert "Members of 'Spine'" in groups.labels()
    followers = drawn["REACH_PT_followers"]
    (listed,) = [d for d in followers.everything() if d.function == "template_list"]
    assert (listed.arguments["dataptr"], listed.arguments["propname"]) == (obj.reach, "followers")
    (add,) = followers.operators("reach.follower_add")
    assert (add.armature, add.bone) == (obj.name, "upper_arm.L")
    (plant,) = drawn["REACH_PT_bake"].operators("reach.plant_contacts")
    scene = bpy.context.scene
    assert (plant.armature, plant.frame_start, plant.frame_end) == (
        obj.name,
        scene.frame_start,
        scene.frame_end,
    )


@pytest.mark.parametrize("kind", GOAL_TYPES)
def test_constraint_settings_show_the_rows_of_each_goal_type(reach, kind):
    obj = rich_figure()
    obj.reach.active_constraint = obj.reach.constraints.find(f"c {kind.lower()}")
    props = draw(reach.addon.panel.REACH_PT_constraint_settings).props()
    assert ("w_position" in props) == (kind == "POSITION_ORIENTATION")
    assert ("use_x" in props) == (kind in {"ORIENTATION", "POSITION_ORIENTATION"})
    assert ("angle_degrees" in props) == (kind in {"ORIENTATION", "POSITION_ORIENTATION", "AIM"})
    assert ("offset" in props) == (kind == "AIM")  # the AIM constraint uses an OFFSET effector


@pytest.mark.parametrize("method", ["goldfarb", "lbfgsb", "dls", "jacobian_transpose"])
def test_priority_is_drawn_active_only_for_the_methods_that_honour_it(reach, method):
    obj = rich_figure()
    obj.reach.method.kind = method
    layout = draw(reach.addon.panel.REACH_PT_constraint_settings)
    (column,) = [c for c in layout.children if "priority" in c.props()]
    assert column.settings["active"] is (method != "jacobian_transpose")


def test_stats_panel_names_the_constraints_a_solve_cannot_meet(reach):
    obj = rigs.figure()
    rigs.limbs(obj, feet=False)
    assert "No solve yet" in draw(reach.addon.panel.REACH_PT_stats).labels()
    goal = obj.reach.constraints["hand.L"].goal
    goal.location = (goal.location.x + 5.0, goal.location.y, goal.location.z)
    bpy.context.view_layer.update()
    bpy.ops.reach.solve(armature=obj.name)
    labels = draw(reach.addon.panel.REACH_PT_stats).labels()
    assert any(text.startswith("hand.L: out of reach by ") for text in labels)
    assert not any(text.startswith("hand.R") for text in labels)
    assert "Outcome: not reachable" in labels
    assert any(text.startswith("Iterations: ") for text in labels)


def test_live_button_stops_live_mode_while_it_is_on(reach):
    obj = rigs.figure()
    rigs.limbs(obj, feet=False)
    assert bpy.ops.reach.live(armature=obj.name) == {"FINISHED"}
    (live,) = draw(reach.addon.panel.REACH_PT_constraints).operators("reach.live")
    assert live.stop is True
    assert live.armature == obj.name


def test_joint_panels_without_an_active_bone_or_polygon(reach):
    obj = rigs.figure()
    obj.data.bones.active = None
    assert (
        "Select a bone to edit its joint" in draw(reach.addon.joint_panels.REACH_PT_joint).labels()
    )
    obj.data.bones.active = obj.data.bones["forearm.L"]
    obj.reach.joints.remove(obj.reach.joints.find("forearm.L"))
    layout = draw(reach.addon.joint_panels.REACH_PT_joint_polygon)
    (add,) = layout.operators("reach.polygon_add_vertex")
    assert (add.armature, add.bone) == (obj.name, "forearm.L")
    assert any(text.startswith("No polygon yet") for text in layout.labels())


def test_polygon_panel_warns_about_too_few_vertices(reach):
    obj = rigs.figure()
    obj.data.bones.active = obj.data.bones["upper_arm.L"]
    bone = obj.pose.bones["upper_arm.L"]
    bone.rotation_mode = "XYZ"
    bone.rotation_euler = (math.radians(10), 0.0, 0.0)
    assert bpy.ops.reach.polygon_add_vertex(armature=obj.name, bone="upper_arm.L") == {"FINISHED"}
    labels = draw(reach.addon.joint_panels.REACH_PT_joint_polygon).labels()
    assert "1 of at least 3 vertices: add more" in labels


def test_panels_show_for_an_armature_and_hide_for_other_objects(reach):
    panel = reach.addon.panel
    obj = rigs.figure()
    obj.data.bones.active = obj.data.bones["upper_arm.L"]
    rigs.limbs(obj, feet=False)
    armature_panels = [p for p in panels(reach) if p is not panel.REACH_PT_figure]
    for cls in armature_panels:
        assert cls.poll(bpy.context), cls.__name__
    bpy.ops.object.empty_add()
    for cls in armature_panels:
        assert not cls.poll(bpy.context), cls.__name__


def test_active_constraint_and_polygon_panels_need_something_active(reach):
    panel, joint_panels = reach.addon.panel, reach.addon.joint_panels
    obj = rigs.metarig()
    obj.data.bones.active = None
    assert panel.REACH_PT_constraints.poll(bpy.context)
    assert not panel.REACH_PT_constraint_settings.poll(bpy.context)
    assert not joint_panels.REACH_PT_joint_polygon.poll(bpy.context)
    obj.data.bones.active = obj.data.bones["forearm.L"]
    assert bpy.ops.reach.add_constraint(armature=obj.name) == {"FINISHED"}
    assert panel.REACH_PT_constraint_settings.poll(bpy.context)
    assert joint_panels.REACH_PT_joint_polygon.poll(bpy.context)


def empty_object():
    bpy.ops.object.empty_add()


def bare_metarig():
    obj = rigs.metarig()
    obj.data.bones.active = None


def solved_with_a_miss():
    obj = rigs.figure()
    rigs.limbs(obj, feet=False)
    goal = obj.reach.constraints["hand.L"].goal
    goal.location = (goal.location.x + 5.0, goal.location.y, goal.location.z)
    bpy.context.view_layer.update()
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}


def live_figure():
    obj = rigs.figure()
    rigs.limbs(obj, feet=False)
    assert bpy.ops.reach.live(armature=obj.name) == {"FINISHED"}


def hinged_figure():
    obj = rigs.figure()
    assert bpy.ops.reach.human_limits(armature=obj.name) == {"FINISHED"}
    obj.data.bones.active = obj.data.bones["forearm.L"]


STATES = {
    "nothing active": lambda: None,
    "a figure with human limits": hinged_figure,
    "an empty": empty_object,
    "an armature, no bone": bare_metarig,
    "an armature, not a figure": rigs.metarig,
    "a figure with every goal type": rich_figure,
    "after a solve that misses": solved_with_a_miss,
    "live": live_figure,
}


@pytest.mark.parametrize("state", sorted(STATES))
def test_every_shown_panel_draws_in_each_state(reach, state):
    STATES[state]()
    drawn = draw_every_shown_panel(reach)
    assert "REACH_PT_figure" in drawn
    is_armature = getattr(bpy.context.active_object, "type", None) == "ARMATURE"
    assert ("REACH_PT_constraints" in drawn) == is_armature
    for layout in drawn.values():
        assert layout.everything()


def test_constraints_panel_without_a_bone_or_a_constraint(reach):
    obj = rigs.metarig()
    obj.data.bones.active = None
    layout = draw(reach.addon.panel.REACH_PT_constraints)
    assert "Select a bone to add a constraint on it" in layout.labels()
    (add,) = layout.operators("reach.add_constraint")
    assert (add.armature, add.bone) == (obj.name, "")
    (drag,) = layout.operators("reach.drag_goal")
    assert drag.goal == ""
    (drag_row,) = [
        d.arguments["layout"]
        for d in layout.everything()
        if d.function == "row"
        and d.arguments["layout"].operators("reach.drag_goal")
        and not d.arguments["layout"].operators("reach.solve")
    ]
    assert drag_row.settings == {"enabled": False, "operator_context": "INVOKE_REGION_WIN"}
    (clamp,) = layout.operators("reach.clamp_pose")
    assert clamp.armature == obj.name


def test_joint_panel_shows_the_euler_order_only_for_quaternion_and_axis_angle(reach):
    obj = rigs.metarig()
    obj.data.bones.active = obj.data.bones["upper_arm.L"]
    bone = obj.pose.bones["upper_arm.L"]
    bone.rotation_mode = "XYZ"
    layout = draw(reach.addon.joint_panels.REACH_PT_joint)
    assert "euler_order" not in layout.props()
    assert "upper_arm.L" in layout.labels()
    assert {"rotation_mode", "lock_ik_x", "ik_min_z", "ik_max_z"} <= set(layout.props())
    bone.rotation_mode = "QUATERNION"
    labels = draw(reach.addon.joint_panels.REACH_PT_joint).labels()
    assert "Make the figure to choose its Euler order" in labels
    assert bpy.ops.reach.figure_from_armature(armature=obj.name) == {"FINISHED"}
    bone.rotation_mode = "AXIS_ANGLE"
    assert "euler_order" in draw(reach.addon.joint_panels.REACH_PT_joint).props()


def test_polygon_and_group_panels_point_their_lists_and_buttons_at_the_active_entries(reach):
    obj = rich_figure()
    polygon = draw(reach.addon.joint_panels.REACH_PT_joint_polygon)
    (listed,) = [d for d in polygon.everything() if d.function == "template_list"]
    assert listed.arguments["dataptr"] == obj.reach.joints["upper_arm.L"]
    assert listed.arguments["active_propname"] == "active_vertex"
    assert "Vertices are poses: keep the polygon convex" in polygon.labels()
    for idname in ("reach.polygon_remove_vertex", "reach.polygon_clear"):
        (op,) = polygon.operators(idname)
        assert (op.armature, op.bone) == (obj.name, "upper_arm.L")
    groups = draw(reach.addon.joint_panels.REACH_PT_groups)
    lists = [d.arguments for d in groups.everything() if d.function == "template_list"]
    assert [a["listtype_name"] for a in lists] == ["REACH_UL_groups", "REACH_UL_group_members"]
    assert lists[1]["dataptr"] == obj.reach.groups["Spine"]
    (add,) = groups.operators("reach.group_member_add")
    assert (add.armature, add.bone, add.group) == (obj.name, "upper_arm.L", "Spine")
    (remove,) = groups.operators("reach.group_member_remove")
    assert remove.group == "Spine"
    obj.reach.active_group = -1
    assert draw(reach.addon.joint_panels.REACH_PT_groups).labels() == []


def test_solver_panel_draws_the_settings_split(reach):
    rigs.figure()
    layout = draw(reach.addon.panel.REACH_PT_solver)
    assert layout.settings == {"use_property_split": True, "use_property_decorate": False}
    assert layout.props() == [
        "time_budget",
        "adaptive",
        "tolerance",
        "restarts",
        "reach_distance",
        "kind",
        "comfort",
    ]
    (store,) = layout.operators("reach.store_comfort_pose")
    assert store.armature == bpy.context.active_object.name
    assert "Toward the rest pose" in layout.labels()
    assert not layout.operators("reach.clear_comfort_pose")
    # The extension ships this platform's kernel, which loads and passes its check.
    tag = reach.solver.kernel.platform_tag()
    assert f"Runs on: compiled kernel ({tag})" in layout.labels()


def test_joint_axes_panel_offers_the_shapes_and_shows_a_hinged_joints_own_limits(reach):
    obj = rigs.figure()
    obj.data.bones.active = obj.data.bones["forearm.L"]
    layout = draw(reach.addon.joint_panels.REACH_PT_joint_axes)
    for idname in ("reach.joint_hinge", "reach.joint_cone"):
        (op,) = layout.operators(idname)
        assert (op.armature, op.bone) == (obj.name, "forearm.L")
    (human,) = layout.operators("reach.human_limits")
    assert human.armature == obj.name
    assert "axes" not in layout.props() and "limit_min" not in layout.props()
    assert bpy.ops.reach.human_limits(armature=obj.name) == {"FINISHED"}
    layout = draw(reach.addon.joint_panels.REACH_PT_joint_axes)
    assert {"use_axes", "axes", "euler_order", "lock", "use_limit", "limit_min"} <= set(
        layout.props()
    )
    joint = draw(reach.addon.joint_panels.REACH_PT_joint)
    assert "Turns about its own axes (Joint Axes below)" in joint.labels()
    assert "ik_min_x" not in joint.props()  # Blender's IK limits do not apply to it
