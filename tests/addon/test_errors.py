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
