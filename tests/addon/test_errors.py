"""Bad input gets a clear report and loses nothing: the pose stays exactly as it was."""

from __future__ import annotations

import math

import bpy
import pytest
import rigs
from rigs import four_limbs, solve_fails

NOT_FINITE = (
    r"bone '{}' has a non-finite \(NaN or infinite\) rotation or location; "
    r"clear it \(Alt R, Alt G\) or set finite values"
)


@pytest.mark.parametrize("where", ["goal", "armature", "bone"])
def test_solve_reports_nan_transforms(reach, where):
    obj = four_limbs()
    if where == "goal":
        goal = obj.reach.constraints["hand.L"].goal
        goal.location = (math.nan, 0.0, 0.0)
        match = rf"constraint 'hand.L': goal '{goal.name}' has a non-finite \(NaN or infinite\)"
    elif where == "armature":
        obj.location = (0.0, math.nan, 0.0)
        match = r"armature 'metarig' has a non-finite \(NaN or infinite\) transform"
    else:
        obj.pose.bones["shoulder.L"].rotation_euler = (0.0, math.nan, 0.0)
        match = r"bone 'shoulder.L' has a non-finite \(NaN or infinite\) rotation or location"
    bpy.context.view_layer.update()
    solve_fails(obj, match)


@pytest.mark.parametrize("where", ["goal", "armature"])
def test_a_goal_or_armature_past_single_precisions_reach_is_refused_naming_it(reach, where):
    """A place past 1e15 m keeps no shape of a body: the solve refuses it, naming it."""
    obj = four_limbs()
    far = 3.4e38 if where == "armature" else -1e30
    if where == "goal":
        goal = obj.reach.constraints["hand.L"].goal
        goal.location = (0.0, far, 0.0)
        named = rf"constraint 'hand.L': goal '{goal.name}'"
    else:
        obj.location = (far, 0.0, 0.0)
        named = r"armature 'metarig'"
    bpy.context.view_layer.update()
    where_to = r"m from the world's origin, past 1e\+15 m, where no pose can be measured"
    solve_fails(obj, rf"{named} lies [0-9.e+]+ {where_to}: move it back near the origin")


@pytest.mark.parametrize("kind", ["POSITION", "ORIENTATION"])
def test_a_goal_of_zero_scale_is_refused_naming_it(reach, kind):
    obj = four_limbs()
    entry = obj.reach.constraints["hand.L"]
    entry.goal_type = kind
    entry.goal.scale = (1.0, 0.0, 1.0)
    bpy.context.view_layer.update()
    solve_fails(
        obj,
        rf"constraint 'hand.L': goal '{entry.goal.name}' has zero scale; its axes are undefined",
    )


def test_the_add_on_error_is_the_solvers_reach_error(reach):
    errors = reach.addon.errors
    assert issubclass(errors.BlenderDataError, reach.solver.ReachError)
    assert errors.ReachError is reach.solver.ReachError


def test_labelled_names_the_item_of_a_solver_error(reach):
    errors = reach.addon.errors
    failing = reach.solver.SolverInputError("bad axis")
    with (
        pytest.raises(errors.BlenderDataError, match=r"^bone 'hand\.L': bad axis$") as caught,
        errors.labelled("bone 'hand.L'"),
    ):
        raise failing
    assert caught.value.__cause__ is failing
    with pytest.raises(errors.BlenderDataError, match=r"^bad axis$"), errors.labelled(""):
        raise reach.solver.SolverInputError("bad axis")
    with pytest.raises(KeyError), errors.labelled("bone 'hand.L'"):  # others pass through
        raise KeyError("hand.L")


def test_an_operator_reports_a_solver_error_that_reaches_it(reach):
    class Failing(reach.addon.operator_base.ArmatureOperator):
        def __init__(self):
            self.armature = ""
            self.reports = []

        def report(self, kind, message):
            self.reports.append((kind, message))

        def run(self, context):
            raise reach.solver.SolverInputError("weight must be ≥ 0, got -1")

    operator = Failing()
    assert operator.execute(bpy.context) == {"CANCELLED"}
    assert operator.reports == [({"ERROR"}, "weight must be ≥ 0, got -1")]


BAD_ROTATIONS = {
    "zero quaternion": (
        "QUATERNION",
        "rotation_quaternion",
        (0.0, 0.0, 0.0, 0.0),
        r"bone '{}' has a zero quaternion \(0, 0, 0, 0\), which is no rotation; "
        r"clear its rotation \(Alt R\) or set W to 1",
    ),
    "NaN quaternion": ("QUATERNION", "rotation_quaternion", (math.nan, 1.0, 0.0, 0.0), NOT_FINITE),
    "NaN Euler": ("XYZ", "rotation_euler", (0.0, math.nan, 0.0), NOT_FINITE),
    "NaN axis-angle": ("AXIS_ANGLE", "rotation_axis_angle", (math.nan, 0.0, 1.0, 0.0), NOT_FINITE),
}
"""A bad rotation channel: mode, channel, value, the report (a pattern naming the bone)."""


def run_operator(name, obj, bone):
    """Run ``reach.<name>`` on ``obj`` the way a user would, for a pose it cannot read."""
    goal = obj.reach.constraints["hand.L"].goal
    options = {
        "solve": {},
        "clamp_pose": {},
        "live": {},
        "drag_goal": {"goal": goal.name, "path": [{"name": "", "location": (0.3, 0.0, 1.2)}]},
        "add_constraint": {"bone": "hand.L"},
        "polygon_add_vertex": {"bone": bone},
    }[name]
    return getattr(bpy.ops.reach, name)(armature=obj.name, **options)


@pytest.mark.parametrize("bad", BAD_ROTATIONS)
@pytest.mark.parametrize("bone", ["upper_arm.L", "spine.003"])
@pytest.mark.parametrize(
    "operator",
    ["solve", "clamp_pose", "live", "drag_goal", "add_constraint", "polygon_add_vertex"],
)
def test_a_bad_rotation_on_any_bone_is_reported_naming_it_and_changes_nothing(
    reach, bad, bone, operator
):
    obj = four_limbs()
    mode, channel, value, pattern = BAD_ROTATIONS[bad]
    pose_bone = obj.pose.bones[bone]
    pose_bone.rotation_mode = mode
    setattr(pose_bone, channel, value)
    bpy.context.view_layer.update()
    before = rigs.pose_channels(obj)
    goals = {o.name: tuple(float(v).hex() for v in o.location) for o in bpy.data.objects}
    constraints = [c.name for c in obj.reach.constraints]
    with pytest.raises(RuntimeError, match=pattern.format(bone.replace(".", r"\."))) as caught:
        run_operator(operator, obj, bone)
    assert "Traceback" not in str(caught.value)
    assert rigs.pose_channels(obj) == before
    assert {o.name: tuple(float(v).hex() for v in o.location) for o in bpy.data.objects} == goals
    assert [c.name for c in obj.reach.constraints] == constraints
    assert "upper_arm.L" not in obj.reach.joints or not obj.reach.joints["upper_arm.L"].polygon
    assert not reach.addon.live.is_live(obj.name)
