"""Forward kinematics and DOF axes against a naive reference."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import FigurePlan, random_figure_plan, random_posed_figure, random_rest, random_theta
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import reference_dof_axes, reference_forward

from solver import Dof, Figure

SEEDS = range(12)


@pytest.mark.parametrize("seed", SEEDS)
def test_forward_matches_reference_on_random_trees(seed: int) -> None:
    rng = np.random.default_rng(seed)
    plan, fig = random_figure_plan(rng, int(rng.integers(2, 9)))
    for _ in range(3):
        theta = random_theta(rng, plan)
        np.testing.assert_allclose(
            fig.forward(theta), reference_forward(plan, theta), rtol=0, atol=1e-12
        )


@pytest.mark.parametrize("seed", SEEDS)
def test_forward_matches_reference_on_long_chains(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    plan, fig = random_figure_plan(rng, 12, chain=True)
    theta = random_theta(rng, plan)
    expected = reference_forward(plan, theta)
    # Products of a dozen scaled rest matrices: allow for their magnitude.
    tolerance = 1e-12 * max(1.0, float(np.abs(expected).max()))
    np.testing.assert_allclose(fig.forward(theta), expected, rtol=0, atol=tolerance)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n_segments=st.integers(1, 10),
    chain=st.booleans(),
    scale=st.booleans(),
)
def test_forward_matches_reference_for_any_seed(
    seed: int, n_segments: int, chain: bool, scale: bool
) -> None:
    rng = np.random.default_rng(seed)
    plan, fig = random_figure_plan(rng, n_segments, chain=chain, scale=scale)
    assert isinstance(plan, FigurePlan)
    assert fig.n_dofs == plan.n_dofs
    theta = random_theta(rng, plan)
    expected = reference_forward(plan, theta)
    tolerance = 1e-12 * max(1.0, float(np.abs(expected).max()))
    np.testing.assert_allclose(fig.forward(theta), expected, rtol=0, atol=tolerance)


def test_forward_of_uniformly_scaled_rest_scales_children() -> None:
    rest = np.diag([2.0, 2.0, 2.0, 1.0])
    child = np.eye(4)
    child[:3, 3] = (0.0, 0.5, 0.0)
    fig = Figure()
    fig.add_segment("root", rest=rest, dofs=[Dof.translation("y")])
    fig.add_segment("child", parent="root", rest=child)
    frames = fig.forward([0.25])
    # The root's translation of 0.25 and the child's offset of 0.5 are both doubled.
    np.testing.assert_allclose(frames[0][:3, 3], (0.0, 0.5, 0.0), atol=1e-15)
    np.testing.assert_allclose(frames[1][:3, 3], (0.0, 1.5, 0.0), atol=1e-15)
    np.testing.assert_allclose(frames[1][:3, :3], 2.0 * np.eye(3), atol=1e-15)


def test_forward_applies_dofs_in_order() -> None:
    # Rotating about x then translating along y differs from translating then rotating.
    fig = Figure()
    fig.add_segment("a", dofs=[Dof.rotation("x"), Dof.translation("y")])
    fig.add_segment("b", dofs=[Dof.translation("y"), Dof.rotation("x")])
    frames = fig.forward([np.pi / 2, 1.0, 1.0, np.pi / 2])
    np.testing.assert_allclose(frames[0][:3, 3], (0.0, 0.0, 1.0), atol=1e-15)
    np.testing.assert_allclose(frames[1][:3, 3], (0.0, 1.0, 0.0), atol=1e-15)


def test_forward_rotation_follows_right_hand_rule() -> None:
    fig = Figure()
    fig.add_segment("a", dofs=[Dof.rotation("z")])
    frame = fig.forward([np.pi / 2])[0]
    np.testing.assert_allclose(frame[:3, 0], (0.0, 1.0, 0.0), atol=1e-15)
    fig_neg = Figure()
    fig_neg.add_segment("a", dofs=[Dof.rotation("-z")])
    frame = fig_neg.forward([np.pi / 2])[0]
    np.testing.assert_allclose(frame[:3, 0], (0.0, -1.0, 0.0), atol=1e-15)


def test_forward_of_figure_with_several_roots_and_dofless_segments(
    rng: np.random.Generator,
) -> None:
    fig = Figure()
    rests = [random_rest(rng) for _ in range(4)]
    fig.add_segment("r1", rest=rests[0])
    fig.add_segment("r2", rest=rests[1], dofs=[Dof.rotation("y")])
    fig.add_segment("c1", parent="r1", rest=rests[2])
    fig.add_segment("c2", parent="r2", rest=rests[3], dofs=[Dof.translation("x")])
    frames = fig.forward([0.3, -0.2])
    shift = np.eye(4)
    shift[0, 3] = -0.2
    turn = np.eye(4)
    turn[:3, :3] = [[np.cos(0.3), 0, np.sin(0.3)], [0, 1, 0], [-np.sin(0.3), 0, np.cos(0.3)]]
    expected = [
        rests[0],
        rests[1] @ turn,
        rests[0] @ rests[2],
        rests[1] @ turn @ rests[3] @ shift,
    ]
    np.testing.assert_allclose(frames, np.array(expected), atol=1e-12)


def test_forward_returns_segments_in_add_segment_order_and_shape() -> None:
    fig = Figure()
    fig.add_segment("b")
    fig.add_segment("a", parent="b", rest=np.diag([1.0, 1.0, 1.0, 1.0]))
    assert fig.forward(np.zeros(0)).shape == (2, 4, 4)


@pytest.mark.parametrize("seed", SEEDS)
def test_dof_axes_and_rotation_pivots_match_reference(seed: int) -> None:
    _, plan, fig, theta = random_posed_figure(200 + seed, 2, 8)
    kin = fig.kinematics
    axes, pivots = kin.dof_axes(kin.frames(theta))
    ref_axes, ref_pivots = reference_dof_axes(plan, theta)
    rotation = np.array([d.kind == "rotation" for s in plan.segments for d in s.dofs])
    np.testing.assert_array_equal(kin.dof_rotation, rotation)
    np.testing.assert_allclose(axes, ref_axes, atol=1e-12)
    # A pivot only means something for a rotation.
    np.testing.assert_allclose(pivots[rotation], ref_pivots[rotation], atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(axes[rotation], axis=1), 1.0, atol=1e-14)


@pytest.mark.parametrize("seed", SEEDS)
def test_moves_marks_exactly_the_ancestor_dofs(seed: int) -> None:
    rng = np.random.default_rng(300 + seed)
    plan, fig = random_figure_plan(rng, int(rng.integers(2, 10)))
    offsets = plan.offsets()
    expected = np.zeros((len(plan.segments), plan.n_dofs), dtype=bool)
    for k, seg in enumerate(plan.segments):
        for name in plan.ancestors(seg.name):
            n = len(next(s for s in plan.segments if s.name == name).dofs)
            expected[k, offsets[name] : offsets[name] + n] = True
    np.testing.assert_array_equal(fig.kinematics.moves, expected)
    parents = [-1 if s.parent is None else int(s.parent[3:]) for s in plan.segments]
    np.testing.assert_array_equal(fig.kinematics.segment_parent, parents)


@pytest.mark.parametrize("seed", SEEDS)
def test_point_and_axis_derivatives_follow_zhao_badler_section_4(seed: int) -> None:
    # ∂r/∂θ_i = u_i × (r − q_i), ∂v/∂θ_i = u_i × v (rotation); u_i, 0 (translation);
    # 0 for DOFs that are not ancestors. Checked by central differences of the FK.
    rng, plan, fig, theta = random_posed_figure(400 + seed, 2, 8)
    kin = fig.kinematics
    axes, pivots = kin.dof_axes(kin.frames(theta))
    k = int(rng.integers(len(plan.segments)))
    local = rng.normal(size=3)
    direction = rng.normal(size=3)

    def state(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        world = fig.forward(values)[k]
        v = world[:3, :3] @ direction
        return world[:3, :3] @ local + world[:3, 3], v / np.linalg.norm(v)

    r, v = state(theta)
    h = 1e-6
    for i in range(fig.n_dofs):
        e = np.zeros(fig.n_dofs)
        e[i] = h
        (r_plus, v_plus), (r_minus, v_minus) = state(theta + e), state(theta - e)
        dr = (r_plus - r_minus) / (2 * h)
        dv = (v_plus - v_minus) / (2 * h)
        if not kin.moves[k, i]:
            expected_r = expected_v = np.zeros(3)
        elif kin.dof_rotation[i]:
            expected_r = np.cross(axes[i], r - pivots[i])
            expected_v = np.cross(axes[i], v)
        else:
            expected_r, expected_v = axes[i], np.zeros(3)
        np.testing.assert_allclose(dr, expected_r, atol=1e-7 * max(1.0, np.abs(r).max()))
        np.testing.assert_allclose(dv, expected_v, atol=1e-7)


def test_frames_ends_with_identity_sentinel(rng: np.random.Generator) -> None:
    plan, fig = random_figure_plan(rng, 4)
    frames = fig.kinematics.frames(random_theta(rng, plan))
    assert frames.world.shape == (fig.kinematics.n_segments + 1, 4, 4)
    np.testing.assert_array_equal(frames.world[-1], np.eye(4))


def test_forward_does_not_modify_theta(rng: np.random.Generator) -> None:
    plan, fig = random_figure_plan(rng, 5)
    theta = random_theta(rng, plan)
    before = theta.copy()
    fig.forward(theta)
    np.testing.assert_array_equal(theta, before)
