"""Bad input gets a clear report and loses nothing: the pose stays exactly as it was."""

from __future__ import annotations

import math

import bpy
import pytest
from rigs import four_limbs, solve_fails


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
            self.reports = []

        def report(self, kind, message):
            self.reports.append((kind, message))

        def run(self, context):
            raise reach.solver.SolverInputError("weight must be ≥ 0, got -1")

    operator = Failing()
    assert operator.execute(bpy.context) == {"CANCELLED"}
    assert operator.reports == [({"ERROR"}, "weight must be ≥ 0, got -1")]
