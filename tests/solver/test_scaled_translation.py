"""A translation under a scaling rest: its variable moves by world length; a goal on its joint
is measured against the figure's size.

An armature in centimetres under a 0.01 scale gives its root's translation DOFs
centimetres, a hundredth of the world's metre; the solver's variables over them are in
world lengths, so such a figure solves as the same figure in metres does.
"""

from __future__ import annotations

import numpy as np
import pytest

from solver import Constraint, Dof, Effector, Figure, Problem, goals, solve
from solver.optimizer.space import ReducedSpace

ROOT_DOFS = ("x", "y", "z")


def _figure(unit: float) -> Figure:
    """A root that translates and turns, with a two-joint leg 0.9 m long below it, built in
    lengths of ``unit`` metres under a rest that scales by ``unit``."""
    figure = Figure()
    rest = np.diag([unit, unit, unit, 1.0])
    dofs = [Dof.translation(axis) for axis in ROOT_DOFS]
    dofs += [Dof.rotation(axis) for axis in ROOT_DOFS]
    figure.add_segment("hips", rest=rest, dofs=dofs)
    step = np.eye(4)
    step[2, 3] = -0.45 / unit
    knee = [Dof.rotation("x", lower=0.0, upper=2.5)]
    figure.add_segment("thigh", parent="hips", rest=step, dofs=[Dof.rotation(a) for a in "xz"])
    figure.add_segment("shin", parent="thigh", rest=step, dofs=knee)
    figure.add_segment("foot", parent="shin", rest=step)
    return figure


def _problem(unit: float) -> Problem:
    """The hips' head 0.3 m down and the foot kept where it is, in world metres."""
    return Problem(
        _figure(unit),
        [
            Constraint(Effector("hips"), goals.Position((0.0, 0.05, -0.3))),
            Constraint(Effector("foot"), goals.Position((0.0, 0.0, -0.9))),
        ],
    )


def test_a_translation_under_a_scaling_rest_is_a_variable_in_world_lengths() -> None:
    space = ReducedSpace.build(_problem(0.01), np.zeros(9))
    assert space.scale[:3] == pytest.approx(100.0)  # a metre of φ is 100 units of θ
    assert space.scale[3:] == pytest.approx(1.0)
    plain = ReducedSpace.build(_problem(1.0), np.zeros(9))
    assert np.all(plain.scale == 1.0)


def test_a_figure_in_centimetres_solves_as_the_same_figure_in_metres() -> None:
    found = {unit: solve(_problem(unit), np.zeros(9), restarts=0) for unit in (1.0, 0.01)}
    metres, centimetres = found[1.0], found[0.01]
    assert metres.outcome == centimetres.outcome == "met"
    np.testing.assert_allclose(centimetres.x[:3] * 0.01, metres.x[:3], atol=1e-6)
    np.testing.assert_allclose(centimetres.x[3:], metres.x[3:], atol=1e-5)
    assert centimetres.iterations <= metres.iterations + 2


@pytest.mark.parametrize("unit", [1.0, 0.01])
def test_a_goal_on_its_chains_first_joint_is_measured_against_the_figures_size(unit) -> None:
    problem = _problem(unit)
    # the hips' chain is the hips alone: no length from its joint to its effector
    np.testing.assert_allclose(problem.chain_lengths, [1.35, 1.35], rtol=1e-12)
    assert problem.goal_tolerance(1e-3) > 0.0
    found = solve(problem, np.zeros(9), restarts=0)
    assert found.outcome == "met"
    assert found.unreachable == ()
