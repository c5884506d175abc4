"""The README's Blender example runs in Blender and does what it says."""

from __future__ import annotations

import re
from pathlib import Path

import bpy
import numpy as np
import rigs

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_blender_example_drags_the_hand_and_keeps_the_feet(reach):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
    (example,) = [b for b in blocks if "import bpy" in b]
    exec(compile(example, "README.md", "exec"), {})
    obj = bpy.data.objects["metarig"]
    events = obj.reach.drag_events
    assert len(events) == 30
    arm = rigs.chain_length(obj, ("upper_arm.L", "forearm.L"))
    assert max(e.residual for e in events) <= 1e-4 * arm
    goal = obj.reach.constraints["hand.L"].goal
    bpy.context.view_layer.update()
    assert np.linalg.norm(rigs.world_tail(obj, "forearm.L") - np.array(goal.location)) <= 1e-4 * arm
