"""Balance: the centre of mass kept over the feet's support polygon in Solve, drag, live, bake."""

from __future__ import annotations

import bpy
import numpy as np
import pytest
import rigs
from layout_check import Host
from mathutils import Vector

REACH = Vector((0.0, -0.8, -0.5))
"""The left hand's goal's move: far forward and down, beyond where the body balances."""


def standing(balance: bool):
    """The metarig with each foot's toe (held whole) and heel bone (a point) as contacts,
    and the left hand's goal on a chain to the root."""
    obj = rigs.figure()
    for side in ("L", "R"):
        for bone in (f"toe.{side}", f"heel.02.{side}"):
            assert bpy.ops.reach.add_constraint(
                armature=obj.name,
                bone=bone,
                effector="TAIL",
                chain_start=f"thigh.{side}",
                name=bone,
                contact=True,
            ) == {"FINISHED"}
    assert bpy.ops.reach.add_constraint(
        armature=obj.name, bone="forearm.L", effector="TAIL", name="hand"
    ) == {"FINISHED"}
    obj.reach.balance = balance
    return obj, obj.reach.constraints["hand"].goal


def support(obj) -> np.ndarray:
    """The contacts' goals seen from above."""
    return np.array(
        [c.goal.matrix_world.translation[:2] for c in obj.reach.constraints if c.contact]
    )


def centre(reach, obj) -> np.ndarray:
    """The centre of mass on Blender's evaluated pose, seen from above."""
    point, _ = reach.addon.bridge.mass.centre_of_mass(obj)
    return np.array(point[:2])


def inside(point: np.ndarray, corners: np.ndarray, slack: float = 1e-5) -> bool:
    """Whether ``point`` lies in the convex hull of ``corners`` (to ``slack``)."""
    hull = reach_hull(corners)
    for k, start in enumerate(hull):
        edge = hull[(k + 1) % len(hull)] - start
        if edge[0] * (point[1] - start[1]) - edge[1] * (point[0] - start[0]) < -slack:
            return False
    return True


def reach_hull(corners: np.ndarray) -> np.ndarray:
    centre_of = corners.mean(axis=0)
    angles = np.arctan2(corners[:, 1] - centre_of[1], corners[:, 0] - centre_of[0])
    return corners[np.argsort(angles)]


def test_balance_keeps_the_centre_of_mass_over_the_feet_in_a_solve(reach):
    for balance in (False, True):
        bpy.ops.wm.read_homefile(use_empty=True)
        obj, goal = standing(balance)
        obj.reach.comfort = 0.0  # balance alone: comfort keeps the trunk over the feet too
        goal.location = Vector(goal.location) + REACH
        assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
        assert inside(centre(reach, obj), support(obj)) is balance
        for contact in ("toe.L", "toe.R", "heel.02.L", "heel.02.R"):
            tail = rigs.world_tail(obj, contact)
            assert np.linalg.norm(tail - obj.reach.constraints[contact].goal.location) <= 1e-4
        # balanced or not, the hand gets there: the hips go back to counter its weight
        assert obj.reach.stats.unmet == "", obj.reach.stats.message


def test_balance_holds_on_every_drag_event_and_every_baked_frame(reach):
    obj, goal = standing(True)
    start = Vector(goal.location)
    path = [{"name": "", "location": start + float(t) * REACH} for t in np.linspace(0.1, 1.0, 10)]
    assert bpy.ops.reach.drag_goal(armature=obj.name, goal=goal.name, path=path) == {"FINISHED"}
    assert inside(centre(reach, obj), support(obj))
    scene = bpy.context.scene
    goal.location = start
    goal.keyframe_insert("location", frame=1)
    goal.location = start + REACH
    goal.keyframe_insert("location", frame=6)
    assert bpy.ops.reach.bake(armature=obj.name, frame_start=1, frame_end=6) == {"FINISHED"}
    for frame in range(1, 7):
        scene.frame_set(frame)
        assert inside(centre(reach, obj), support(obj)), frame


def test_a_bake_reports_the_frames_where_balance_could_not_be_kept(reach):
    obj, _ = standing(True)
    # by frame 3 the feet's goals are a metre to the side: no bend of the body (whose
    # root stays) brings its centre of mass over them
    for contact in (c for c in obj.reach.constraints if c.contact):
        contact.goal.keyframe_insert("location", frame=1)
        contact.goal.location = Vector(contact.goal.location) + Vector((1.0, 0.0, 0.0))
        contact.goal.keyframe_insert("location", frame=3)
    session = reach.addon.bake.BakeSession(bpy.context, obj, 1, 3)
    while not session.done:
        session.step()
    text = session.summary(session.finish())
    assert 1 not in session.unbalanced and 3 in session.unbalanced, text
    assert f"balance not kept on {len(session.unbalanced)} frames" in text


def test_live_mode_keeps_the_balance_while_the_goal_moves(reach):
    obj, goal = standing(True)
    assert bpy.ops.reach.live(armature=obj.name) == {"FINISHED"}
    goal.location = Vector(goal.location) + REACH
    bpy.context.view_layer.update()
    reach.addon.live.settle_pending()
    assert inside(centre(reach, obj), support(obj))
    reach.addon.live.stop()


@pytest.mark.parametrize(
    ("arrange", "match"),
    [
        (
            lambda obj: [setattr(c, "contact", False) for c in obj.reach.constraints],
            "no constraint is a contact",
        ),
        (
            lambda obj: [
                setattr(c, "contact", c.name in ("heel.02.L", "heel.02.R"))
                for c in obj.reach.constraints
            ],
            "lie on one line",
        ),
        (lambda obj: [setattr(j, "mass", 0.0) for j in obj.reach.joints], "add up to nothing"),
        (lambda obj: setattr(obj.reach, "balance_margin", 5.0), "leaves no room"),
    ],
)
def test_balance_that_cannot_be_set_up_is_refused_by_name_and_changes_nothing(
    reach, arrange, match
):
    obj, goal = standing(True)
    goal.location = Vector(goal.location) + REACH
    arrange(obj)
    rigs.solve_fails(obj, match)


def test_the_panels_offer_balance_its_margin_and_each_constraints_contact(reach):
    obj, _ = standing(False)
    host = Host()
    reach.addon.panel.REACH_PT_figure.draw(host, bpy.context)
    assert {"balance", "balance_margin"} <= set(host.layout.props())
    (inner,) = [
        d.arguments["layout"]
        for d in host.layout.everything()
        if d.function == "row"
        and any(
            e.function == "prop" and e.arguments["property"] == "balance_margin"
            for e in d.arguments["layout"].drawn
        )
    ]
    assert inner.settings["active"] is False  # greyed out while balance is off
    obj.reach.active_constraint = obj.reach.constraints.find("toe.L")
    host = Host()
    reach.addon.panel.REACH_PT_constraint_settings.draw(host, bpy.context)
    assert "contact" in host.layout.props()


def test_the_overlay_draws_the_centre_of_mass_and_the_support_polygon(reach):
    obj, goal = standing(True)
    goal.location = Vector(goal.location) + REACH
    assert bpy.ops.reach.solve(armature=obj.name) == {"FINISHED"}
    drawn = reach.addon.overlay.overlay_geometry(obj)
    assert (drawn.centre - reach.addon.bridge.mass.centre_of_mass(obj)[0]).length < 1e-9
    corners = np.array([tuple(c[:2]) for c in drawn.support])
    assert len(corners) == 4 and inside(np.array(drawn.centre[:2]), corners)
    assert drawn.balanced
    for contact in (c for c in obj.reach.constraints if c.contact):  # the feet a metre aside
        contact.goal.location = Vector(contact.goal.location) + Vector((1.0, 0.0, 0.0))
    bpy.context.view_layer.update()
    assert not reach.addon.overlay.overlay_geometry(obj).balanced
    obj.reach.balance = False
    assert reach.addon.overlay.overlay_geometry(obj).support == ()
