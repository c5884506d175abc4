"""Ready-made figures and tasks for tests and benchmarks.

- :func:`human_figure`: the 53-DOF human of the 1990 interactive Jack (seed 001), with
  :func:`limb_effectors` at the palms, soles and ankles and :func:`limb_length` to
  normalise residuals;
- :func:`tube_task`: the 1994 paper's Figure 3 task (seed 000), a 70-DOF upper body
  looking down a tube it holds, with the spine grouped (22 effective DOFs) or not;
- :func:`random_feasible_pose` and :func:`n_effective_dofs` for any figure.

All in Blender's conventions: metres and radians, Z up, the figure facing −Y, bones
along their local +Y axis.
"""

from .human import ARM_LENGTH, LEG_LENGTH, human_figure, limb_effectors, limb_length
from .poses import interior_pose, n_effective_dofs, random_feasible_pose
from .tube import TUBE, VERTEBRAE, JointGroup, Tube, spine_groups, tube_figure, tube_task

__all__ = [
    "ARM_LENGTH",
    "LEG_LENGTH",
    "TUBE",
    "VERTEBRAE",
    "JointGroup",
    "Tube",
    "human_figure",
    "interior_pose",
    "limb_effectors",
    "limb_length",
    "n_effective_dofs",
    "random_feasible_pose",
    "spine_groups",
    "tube_figure",
    "tube_task",
]
